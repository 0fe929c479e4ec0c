/* score_discovery.c: `crawltop score discovery [--backoff]` (seed 003). */
#include <stdio.h>

#include "crawltop/discovery.h"
#include "score.h"

/* --backoff: {class, step, nsAsnChanged} -> {hours} (null: no retry). */
static int backoff(const struct score_ctx *ctx, const struct jin_doc *in,
		   yajl_gen out, char err[JIN_ERR])
{
	static const char *const fields[] = {"class", "step", "nsAsnChanged", NULL};
	const char *cls_s = NULL;
	long step = 0;
	bool changed = false, p;
	ct_class cls;
	if (jin_only(in, NULL, fields, err) ||
	    jin_string(in, "class", &cls_s, &p, err) ||
	    jin_integer(in, "step", &step, &p, err) ||
	    jin_bool(in, "nsAsnChanged", &changed, &p, err))
		return -1;
	if (!cls_s || !ct_class_parse(cls_s, &cls)) {
		snprintf(err, JIN_ERR, "field 'class': expected P0, P1, P2 or P3");
		return -1;
	}
	if (step < 0 || step > 1000000) {
		snprintf(err, JIN_ERR, "step = %ld: must be 0..1000000", step);
		return -1;
	}
	bool has;
	double hours;
	struct ct_error e;
	if (ct_backoff_hours(&ctx->settings.discovery.backoff, cls, (int)step,
			     changed, &has, &hours, &e) != CT_OK) {
		snprintf(err, JIN_ERR, "%s", e.msg);
		return -1;
	}
	yajl_gen_map_open(out);
	jout_string(out, "hours");
	if (has)
		jout_number(out, hours);
	else
		yajl_gen_null(out);
	yajl_gen_map_close(out);
	return 0;
}

/* The "signals" object, read into struct ct_discovery_signals and
 * checked; -1 with a message in err. */
static int read_signals(const struct jin_doc *o, struct ct_discovery_signals *s,
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
	if (jin_only(o, "signals", fields, err) ||
	    jin_number(o, "signals.ct_age_hours", &s->ct_age_hours, &p, err) ||
	    jin_integer(o, "signals.ns_changes", &ns, &p, err) ||
	    jin_integer(o, "signals.asn_changes", &asn, &p, err) ||
	    jin_number(o, "signals.whois_age_days", &s->whois_age_days, &p, err) ||
	    jin_integer(o, "signals.backlinks", &s->backlinks, &p, err) ||
	    jin_bool(o, "signals.first_seen_host", &s->first_seen_host, &p, err) ||
	    jin_bool(o, "signals.rare_tld", &s->rare_tld, &p, err) ||
	    jin_integer(o, "signals.subdomain_depth", &sub, &p, err) ||
	    jin_number(o, "signals.parking_score", &s->parking_score, &p, err) ||
	    jin_bool(o, "signals.document_path", &s->document_path, &p, err) ||
	    jin_bool(o, "signals.document_extension", &s->document_extension, &p, err) ||
	    jin_bool(o, "signals.vendor_fingerprint", &s->vendor_fingerprint, &p, err) ||
	    jin_string(o, "signals.source", &src, &p, err) ||
	    jin_number(o, "signals.age_hours", &s->age_hours, &p, err) ||
	    jin_bool(o, "signals.malware", &s->malware, &p, err) ||
	    jin_bool(o, "signals.adult", &s->adult, &p, err) ||
	    jin_bool(o, "signals.for_sale", &s->for_sale, &p, err) ||
	    jin_bool(o, "signals.suspicious_tld", &s->suspicious_tld, &p, err) ||
	    jin_number(o, "signals.topic_match", &s->topic_match, &p, err))
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

/* The "subscores" object: every sub-score, by name; -1 with a message
 * in err. */
static int read_subscores(const struct jin_doc *o, double sub[CT_SUB_COUNT],
			  char err[JIN_ERR])
{
	/* the names and their paths, built once */
	static const char *fields[CT_SUB_COUNT + 1];
	static char paths[CT_SUB_COUNT][64];
	if (!fields[0])
		for (int i = 0; i < CT_SUB_COUNT; i++) {
			fields[i] = ct_subscore_name((ct_subscore)i);
			snprintf(paths[i], sizeof paths[i], "subscores.%s", fields[i]);
		}
	if (jin_only(o, "subscores", fields, err))
		return -1;
	for (int i = 0; i < CT_SUB_COUNT; i++) {
		bool p;
		if (jin_number(o, paths[i], &sub[i], &p, err))
			return -1;
		if (!p) {
			snprintf(err, JIN_ERR, "subscores.%s is required", fields[i]);
			return -1;
		}
	}
	return 0;
}

/* {url, subscores{} | signals{}} -> {url, score, class, label,
 * subscores{}, reasons}; with --backoff, see backoff(). */
int score_discovery(const struct score_ctx *ctx, const struct jin_doc *in,
		    yajl_gen out, double *rank_key, char err[JIN_ERR])
{
	if (ctx->backoff)
		return backoff(ctx, in, out, err);
	static const char *const fields[] = {"url", "subscores", "signals", NULL};
	const char *url = NULL;
	bool p, has_sub, has_sig;
	double sub[CT_SUB_COUNT];
	if (jin_only(in, NULL, fields, err) ||
	    jin_string(in, "url", &url, &p, err) ||
	    jin_object(in, "subscores", &has_sub, err) ||
	    jin_object(in, "signals", &has_sig, err))
		return -1;
	if (!url) {
		snprintf(err, JIN_ERR, "field 'url' is required");
		return -1;
	}
	if (has_sub == has_sig) {
		snprintf(err, JIN_ERR, "give exactly one of 'subscores' or 'signals'");
		return -1;
	}
	struct ct_error e;
	if (has_sub) {
		if (read_subscores(in, sub, err))
			return -1;
	} else {
		struct ct_discovery_signals s;
		if (read_signals(in, &s, err))
			return -1;
		if (ct_discovery_subscores(&s, sub, &e) != CT_OK) {
			snprintf(err, JIN_ERR, "signals: %s", e.msg);
			return -1;
		}
	}
	struct ct_discovery_result r;
	if (ct_discovery_score(&ctx->settings.discovery, &ctx->settings.classes,
			       sub, &r, &e) != CT_OK) {
		snprintf(err, JIN_ERR, "%s", e.msg);
		return -1;
	}
	yajl_gen_map_open(out);
	jout_string(out, "url");
	jout_string(out, url);
	jout_string(out, "score");
	jout_number(out, r.score);
	jout_string(out, "class");
	jout_string(out, ct_class_name(r.cls));
	jout_string(out, "label");
	jout_string(out, ct_class_label(r.cls));
	jout_string(out, "subscores");
	yajl_gen_map_open(out);
	for (int i = 0; i < CT_SUB_COUNT; i++) {
		jout_string(out, ct_subscore_name((ct_subscore)i));
		jout_number(out, r.subscores[i]);
	}
	yajl_gen_map_close(out);
	jout_string(out, "reasons");
	jout_reasons(out, &r.reasons);
	yajl_gen_map_close(out);
	*rank_key = r.score;
	return 0;
}
