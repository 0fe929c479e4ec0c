/* score_discovery.c: `crawltop score discovery [--backoff]` (seed 003). */
#include <stdio.h>

#include "crawltop/discovery.h"
#include "score.h"

static json_t *backoff(const struct score_ctx *ctx, json_t *in,
		       char err[JIN_ERR])
{
	static const char *const fields[] = {"class", "step", "nsAsnChanged", NULL};
	const char *cls_s = NULL;
	long step = 0;
	bool changed = false, p;
	ct_class cls;
	if (jin_only(in, fields, NULL, err) ||
	    jin_string(in, "class", &cls_s, &p, err) ||
	    jin_integer(in, "step", &step, &p, err) ||
	    jin_bool(in, "nsAsnChanged", &changed, &p, err))
		return NULL;
	if (!cls_s || !ct_class_parse(cls_s, &cls)) {
		snprintf(err, JIN_ERR, "field 'class': expected P0, P1, P2 or P3");
		return NULL;
	}
	if (step < 0 || step > 1000000) {
		snprintf(err, JIN_ERR, "step = %ld: must be 0..1000000", step);
		return NULL;
	}
	bool has;
	double hours;
	struct ct_error e;
	if (ct_backoff_hours(&ctx->settings.discovery.backoff, cls, (int)step,
			     changed, &has, &hours, &e) != CT_OK) {
		snprintf(err, JIN_ERR, "%s", e.msg);
		return NULL;
	}
	json_t *out = json_object();
	if (has)
		jout_number(out, "hours", hours);
	else
		json_object_set_new(out, "hours", json_null());
	return out;
}

/* The raw signals, read into struct ct_discovery_signals. */
static int read_signals(json_t *o, struct ct_discovery_signals *s,
			char err[JIN_ERR])
{
	static const char *const fields[] = {"ct_age_hours", "ns_changes",
		"asn_changes", "whois_age_days", "backlinks", "first_seen_host",
		"rare_tld", "subdomain_depth", "parking_score", "document_path",
		"document_extension", "vendor_fingerprint", "source", "age_hours",
		"malware", "adult", "for_sale", "suspicious_tld", "topic_match",
		NULL};
	long ns = 0, asn = 0, sub = 0;
	const char *src = NULL;
	bool p;
	ct_discovery_signals_init(s);
	if (jin_only(o, fields, "signals", err) ||
	    jin_number(o, "ct_age_hours", &s->ct_age_hours, &p, err) ||
	    jin_integer(o, "ns_changes", &ns, &p, err) ||
	    jin_integer(o, "asn_changes", &asn, &p, err) ||
	    jin_number(o, "whois_age_days", &s->whois_age_days, &p, err) ||
	    jin_integer(o, "backlinks", &s->backlinks, &p, err) ||
	    jin_bool(o, "first_seen_host", &s->first_seen_host, &p, err) ||
	    jin_bool(o, "rare_tld", &s->rare_tld, &p, err) ||
	    jin_integer(o, "subdomain_depth", &sub, &p, err) ||
	    jin_number(o, "parking_score", &s->parking_score, &p, err) ||
	    jin_bool(o, "document_path", &s->document_path, &p, err) ||
	    jin_bool(o, "document_extension", &s->document_extension, &p, err) ||
	    jin_bool(o, "vendor_fingerprint", &s->vendor_fingerprint, &p, err) ||
	    jin_string(o, "source", &src, &p, err) ||
	    jin_number(o, "age_hours", &s->age_hours, &p, err) ||
	    jin_bool(o, "malware", &s->malware, &p, err) ||
	    jin_bool(o, "adult", &s->adult, &p, err) ||
	    jin_bool(o, "for_sale", &s->for_sale, &p, err) ||
	    jin_bool(o, "suspicious_tld", &s->suspicious_tld, &p, err) ||
	    jin_number(o, "topic_match", &s->topic_match, &p, err))
		return -1;
	if (ns < 0 || asn < 0 || sub < 0 || ns > 1000000 || asn > 1000000 ||
	    sub > 1000) {
		snprintf(err, JIN_ERR, "signals: ns_changes, asn_changes and "
			 "subdomain_depth must be small integers >= 0");
		return -1;
	}
	s->ns_changes = (int)ns;
	s->asn_changes = (int)asn;
	s->subdomain_depth = (int)sub;
	if (src && !ct_source_kind_parse(src, &s->source)) {
		snprintf(err, JIN_ERR, "signals.source: unknown source '%.64s' "
			 "(ct, rss, cc, social, unknown)", src);
		return -1;
	}
	struct ct_error e;
	if (ct_discovery_subscores(s, (double[CT_SUB_COUNT]){0}, &e) != CT_OK) {
		snprintf(err, JIN_ERR, "signals: %s", e.msg);
		return -1;
	}
	return 0;
}

static int read_subscores(json_t *o, double sub[CT_SUB_COUNT],
			  char err[JIN_ERR])
{
	const char *fields[CT_SUB_COUNT + 1];
	for (int i = 0; i < CT_SUB_COUNT; i++)
		fields[i] = ct_subscore_name((ct_subscore)i);
	fields[CT_SUB_COUNT] = NULL;
	if (jin_only(o, fields, "subscores", err))
		return -1;
	for (int i = 0; i < CT_SUB_COUNT; i++) {
		bool p;
		if (jin_number(o, fields[i], &sub[i], &p, err))
			return -1;
		if (!p) {
			snprintf(err, JIN_ERR, "subscores.%s is required", fields[i]);
			return -1;
		}
	}
	return 0;
}

json_t *score_discovery(const struct score_ctx *ctx, json_t *in,
			double *rank_key, char err[JIN_ERR])
{
	if (ctx->backoff)
		return backoff(ctx, in, err);
	static const char *const fields[] = {"url", "subscores", "signals", NULL};
	const char *url = NULL;
	json_t *subo = NULL, *sigo = NULL;
	bool p, has_sub, has_sig;
	double sub[CT_SUB_COUNT];
	if (jin_only(in, fields, NULL, err) ||
	    jin_string(in, "url", &url, &p, err) ||
	    jin_object(in, "subscores", &subo, &has_sub, err) ||
	    jin_object(in, "signals", &sigo, &has_sig, err))
		return NULL;
	if (!url) {
		snprintf(err, JIN_ERR, "field 'url' is required");
		return NULL;
	}
	if (has_sub == has_sig) {
		snprintf(err, JIN_ERR, "give exactly one of 'subscores' or 'signals'");
		return NULL;
	}
	struct ct_error e;
	if (has_sub) {
		if (read_subscores(subo, sub, err))
			return NULL;
	} else {
		struct ct_discovery_signals s;
		if (read_signals(sigo, &s, err) ||
		    ct_discovery_subscores(&s, sub, &e) != CT_OK)
			return NULL;
	}
	struct ct_discovery_result r;
	if (ct_discovery_score(&ctx->settings.discovery, &ctx->settings.classes,
			       sub, &r, &e) != CT_OK) {
		snprintf(err, JIN_ERR, "%s", e.msg);
		return NULL;
	}
	json_t *out = json_object(), *so = json_object();
	json_object_set_new(out, "url", json_string(url));
	json_object_set_new(out, "score", json_real(r.score));
	json_object_set_new(out, "class", json_string(ct_class_name(r.cls)));
	json_object_set_new(out, "label", json_string(ct_class_label(r.cls)));
	for (int i = 0; i < CT_SUB_COUNT; i++)
		json_object_set_new(so, ct_subscore_name((ct_subscore)i),
				    json_real(r.subscores[i]));
	json_object_set_new(out, "subscores", so);
	json_object_set_new(out, "reasons", jout_reasons(&r.reasons));
	*rank_key = r.score;
	return out;
}
