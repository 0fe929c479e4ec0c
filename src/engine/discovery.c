/* discovery.c: seed 003's DiscoveryScore, classes and backoff, with the
 * raw-signal -> sub-score functions documented in doc/scoring.md. */
#include <math.h>
#include <string.h>

#include "crawltop/number.h"
#include "crawltop/discovery.h"
#include "guard.h"

static const struct {
	const char *name, *title, *env;
	double weight;
} sub_table[CT_SUB_COUNT] = {
	{"unseen_likelihood", "Unseen likelihood", "RANK_WEIGHTS_UNSEEN", 0.28},
	{"host_novelty", "Host novelty", "RANK_WEIGHTS_HOST_NOVELTY", 0.20},
	{"content_readiness", "Content readiness", "RANK_WEIGHTS_CONTENT_READY", 0.16},
	{"link_yield", "Link yield", "RANK_WEIGHTS_LINK_YIELD", 0.14},
	{"source_reliability", "Source reliability", "RANK_WEIGHTS_SOURCE_REL", 0.10},
	{"freshness", "Freshness", "RANK_WEIGHTS_FRESHNESS", 0.06},
	{"quality_safety", "Quality/safety", "RANK_WEIGHTS_SAFETY", 0.04},
	{"topic_boost", "Topic boost", "RANK_WEIGHTS_TOPIC", 0.02},
};

const char *ct_subscore_name(ct_subscore s)
{
	return (unsigned)s < CT_SUB_COUNT ? sub_table[s].name : "?";
}
const char *ct_subscore_title(ct_subscore s)
{
	return (unsigned)s < CT_SUB_COUNT ? sub_table[s].title : "?";
}
const char *ct_subscore_env(ct_subscore s)
{
	return (unsigned)s < CT_SUB_COUNT ? sub_table[s].env : "?";
}
double ct_subscore_default_weight(ct_subscore s)
{
	return (unsigned)s < CT_SUB_COUNT ? sub_table[s].weight : 0.0;
}
bool ct_subscore_parse(const char *name, ct_subscore *out)
{
	for (int i = 0; name && i < CT_SUB_COUNT; i++)
		if (strcmp(name, sub_table[i].name) == 0) {
			*out = (ct_subscore)i;
			return true;
		}
	return false;
}

void ct_discovery_params_default(struct ct_discovery_params *p)
{
	for (int i = 0; i < CT_SUB_COUNT; i++)
		p->weights[i] = sub_table[i].weight;
	p->backoff = CT_BACKOFF_PARAMS_DEFAULT;
}

/* Each weight finite and >= 0; the sum (in seed order) within 1e-6 of 1,
 * inclusive. The tolerance gets a relative slack of a few ulps so that
 * decimal sums such as 0.999999 (which is 0.99999899999... in binary) are
 * accepted as SPEC.md requires. */
ct_status ct_discovery_weights_check(const double w[CT_SUB_COUNT], double *sum,
				     struct ct_error *err)
{
	double s = 0.0;
	for (int i = 0; i < CT_SUB_COUNT; i++)
		s += w[i];
	if (sum)
		*sum = s;
	for (int i = 0; i < CT_SUB_COUNT; i++)
		if (!isfinite(w[i]) || w[i] < 0.0)
			return ct_error_set(err, CT_ERANGE,
				"weight %s = %s: must be a finite number >= 0",
				sub_table[i].name, CT_NUM(w[i]));
	if (!(fabs(s - 1.0) <= CT_WEIGHT_SUM_TOLERANCE + 1e-12))
		return ct_error_set(err, CT_EINVAL,
			"discovery weights sum to %s, must be 1 within 1e-6",
			CT_NUM(s));
	return CT_OK;
}

ct_status ct_backoff_params_check(const struct ct_backoff_params *b,
				  struct ct_error *err)
{
	if (!isfinite(b->start_hours) || b->start_hours <= 0)
		return ct_error_set(err, CT_ERANGE,
			"backoff start_hours = %s: must be a number > 0",
			CT_NUM(b->start_hours));
	if (!isfinite(b->multiplier) || b->multiplier < 1)
		return ct_error_set(err, CT_ERANGE,
			"backoff multiplier = %s: must be a number >= 1",
			CT_NUM(b->multiplier));
	if (!isfinite(b->max_hours) || b->max_hours < b->start_hours)
		return ct_error_set(err, CT_ERANGE,
			"backoff max_hours = %s: must be a number >= start_hours (%s)",
			CT_NUM(b->max_hours), CT_NUM(b->start_hours));
	return CT_OK;
}

static double round6(double x)
{
	return round(x * 1e6) / 1e6;
}

ct_status ct_discovery_score(const struct ct_discovery_params *p,
			     const struct ct_class_bounds *bounds,
			     const double sub[CT_SUB_COUNT],
			     struct ct_discovery_result *out,
			     struct ct_error *err)
{
	double sum = 0.0;
	for (int i = 0; i < CT_SUB_COUNT; i++) {
		if (!(sub[i] >= 0.0 && sub[i] <= 1.0))
			return ct_error_set(err, CT_ERANGE,
				"sub-score %s = %s: must be a number in 0..1",
				sub_table[i].name, CT_NUM(sub[i]));
		out->subscores[i] = sub[i];
		sum += p->weights[i] * sub[i];
	}
	out->score = round6(100.0 * sum);
	/* weights may sum to 1 + 1e-6, which can give up to 100.0001; more
	 * than that, or NaN, only unchecked weights give */
	if (out->score > 100.0 &&
	    out->score <= 100.0 * (1.0 + CT_WEIGHT_SUM_TOLERANCE) + 1e-9)
		out->score = 100.0;
	ct_status st = ct_result_guard(out->score, CT_SCORE_MIN, CT_SCORE_MAX,
				       "discovery score",
				       "ct_discovery_weights_check", err);
	if (st != CT_OK)
		return st;
	out->cls = ct_class_of(out->score, bounds);

	/* reasons: the three largest contributions (ties in seed order) */
	bool used[CT_SUB_COUNT] = {false};
	out->reasons.n = 0;
	for (int k = 0; k < 3; k++) {
		int best = -1;
		for (int i = 0; i < CT_SUB_COUNT; i++)
			if (!used[i] && (best < 0 || p->weights[i] * sub[i] >
					 p->weights[best] * sub[best]))
				best = i;
		if (best < 0 || p->weights[best] * sub[best] <= 0.0)
			break;
		used[best] = true;
		ct_reasons_add(&out->reasons, CT_R_DISC_SUBSCORE, sub[best],
			       p->weights[best], sub_table[best].title);
	}
	ct_reasons_add(&out->reasons, CT_R_DISC_CLASS, 0, 0,
		       ct_class_action(out->cls));
	return CT_OK;
}

bool ct_source_kind_parse(const char *s, ct_source_kind *out)
{
	static const char *const n[CT_SOURCE_KIND_COUNT] = {
		"unknown", "ct", "rss", "cc", "social"};
	for (int i = 0; s && i < CT_SOURCE_KIND_COUNT; i++)
		if (strcmp(s, n[i]) == 0) {
			*out = (ct_source_kind)i;
			return true;
		}
	return false;
}

void ct_discovery_signals_init(struct ct_discovery_signals *s)
{
	memset(s, 0, sizeof *s);
	s->ct_age_hours = -1;
	s->whois_age_days = -1;
	s->backlinks = -1;
	s->age_hours = -1;
	s->source = CT_SOURCE_UNKNOWN;
}

static double clamp01(double x)
{
	return x < 0 ? 0 : x > 1 ? 1 : x;
}

/* 1 for a fresh value, falling linearly to 0 at `span`; unknown = 0.5. */
static double young(double v, double span)
{
	return v < 0 ? 0.5 : clamp01(1.0 - v / span);
}

ct_status ct_discovery_subscores(const struct ct_discovery_signals *s,
				 double sub[CT_SUB_COUNT], struct ct_error *err)
{
	if (isnan(s->ct_age_hours) || isnan(s->whois_age_days) ||
	    isnan(s->age_hours))
		return ct_error_set(err, CT_ERANGE, "signal ages must be numbers");
	if (s->ns_changes < 0 || s->asn_changes < 0)
		return ct_error_set(err, CT_ERANGE,
			"ns_changes = %d, asn_changes = %d: must be >= 0",
			s->ns_changes, s->asn_changes);
	if (s->subdomain_depth < 0)
		return ct_error_set(err, CT_ERANGE,
			"subdomain_depth = %d: must be >= 0", s->subdomain_depth);
	if (!(s->parking_score >= 0 && s->parking_score <= 1))
		return ct_error_set(err, CT_ERANGE,
			"parking_score = %s: must be in 0..1",
			CT_NUM(s->parking_score));
	if (!(s->topic_match >= 0 && s->topic_match <= 1))
		return ct_error_set(err, CT_ERANGE,
			"topic_match = %s: must be in 0..1",
			CT_NUM(s->topic_match));
	if ((unsigned)s->source >= CT_SOURCE_KIND_COUNT)
		return ct_error_set(err, CT_EINVAL, "unknown source kind");

	/* each count capped before the sum, which cannot overflow then */
	int changes = (s->ns_changes > 3 ? 3 : s->ns_changes) +
		(s->asn_changes > 3 ? 3 : s->asn_changes);
	double backlinks = s->backlinks < 0 ? 0.5
		: 1.0 / (1.0 + log2(1.0 + (double)s->backlinks));
	sub[CT_SUB_UNSEEN] = clamp01(0.35 * young(s->ct_age_hours, 168.0) +
		0.20 * (changes > 3 ? 3 : changes) / 3.0 +
		0.25 * young(s->whois_age_days, 365.0) + 0.20 * backlinks);
	sub[CT_SUB_HOST_NOVELTY] = clamp01(0.60 * s->first_seen_host +
		0.25 * s->rare_tld +
		0.15 * (s->subdomain_depth > 3 ? 3 : s->subdomain_depth) / 3.0);
	sub[CT_SUB_CONTENT_READY] = clamp01((1.0 - s->parking_score) *
		(0.6 + 0.2 * s->document_path + 0.2 * s->document_extension));
	sub[CT_SUB_LINK_YIELD] = clamp01(0.4 * s->document_path +
		0.3 * s->document_extension + 0.3 * s->vendor_fingerprint);
	static const double reliability[CT_SOURCE_KIND_COUNT] = {
		[CT_SOURCE_UNKNOWN] = 0.5, [CT_SOURCE_CT] = 1.0,
		[CT_SOURCE_RSS] = 1.0, [CT_SOURCE_CC] = 0.7,
		[CT_SOURCE_SOCIAL] = 0.4};
	sub[CT_SUB_SOURCE_REL] = reliability[s->source];
	sub[CT_SUB_FRESHNESS] = s->age_hours < 0 ? 0.5
		: s->age_hours <= 24.0 ? 1.0
		: clamp01(1.0 - (s->age_hours - 24.0) / (13.0 * 24.0));
	sub[CT_SUB_SAFETY] = clamp01(1.0 - 1.0 * s->malware - 0.6 * s->adult -
		0.5 * s->for_sale - 0.3 * s->suspicious_tld);
	sub[CT_SUB_TOPIC] = s->topic_match;
	return CT_OK;
}

ct_status ct_backoff_hours(const struct ct_backoff_params *b, ct_class c,
			   int step, bool ns_asn_changed, bool *has_backoff,
			   double *hours, struct ct_error *err)
{
	if (step < 0)
		return ct_error_set(err, CT_ERANGE,
			"backoff step = %d: must be >= 0", step);
	if ((unsigned)c >= CT_CLASS_COUNT)
		return ct_error_set(err, CT_EINVAL, "unknown class %d", (int)c);
	if (c == CT_P0 || c == CT_P1) {
		*has_backoff = false;
		*hours = 0;
		return CT_OK;
	}
	if (ns_asn_changed)
		step = 0;
	double h = b->start_hours * pow(b->multiplier, step);
	if (!(h <= b->max_hours))
		h = b->max_hours;
	*has_backoff = true;
	*hours = c == CT_P3 ? 2.0 * h : h;
	return CT_OK;
}
