/* discovery.h: seed 003's DiscoveryScore, 0..100 (HIGHER = MORE URGENT).
 *
 *   score = round6(100 x sum_i(weight_i x subscore_i)), summed in the
 *           seed's order; class by ct_class_of() on the rounded score.
 * Weights sum to 1 within 1e-6 inclusive; sub-scores are in 0..1.
 * P2 and P3 are rechecked with exponential backoff. */
#ifndef CRAWLTOP_DISCOVERY_H
#define CRAWLTOP_DISCOVERY_H

#include <stdbool.h>

#include "export.h"
#include "reasons.h"
#include "scale.h"
#include "status.h"

CT_BEGIN_DECLS

typedef enum ct_subscore {
	CT_SUB_UNSEEN,        /* unseen_likelihood   RANK_WEIGHTS_UNSEEN 0.28 */
	CT_SUB_HOST_NOVELTY,  /* host_novelty        RANK_WEIGHTS_HOST_NOVELTY 0.20 */
	CT_SUB_CONTENT_READY, /* content_readiness   RANK_WEIGHTS_CONTENT_READY 0.16 */
	CT_SUB_LINK_YIELD,    /* link_yield          RANK_WEIGHTS_LINK_YIELD 0.14 */
	CT_SUB_SOURCE_REL,    /* source_reliability  RANK_WEIGHTS_SOURCE_REL 0.10 */
	CT_SUB_FRESHNESS,     /* freshness           RANK_WEIGHTS_FRESHNESS 0.06 */
	CT_SUB_SAFETY,        /* quality_safety      RANK_WEIGHTS_SAFETY 0.04 */
	CT_SUB_TOPIC,         /* topic_boost         RANK_WEIGHTS_TOPIC 0.02 */
	CT_SUB_COUNT
} ct_subscore;

CT_API const char *ct_subscore_name(ct_subscore s);  /* "unseen_likelihood" */
CT_API const char *ct_subscore_title(ct_subscore s); /* "Unseen likelihood" */
CT_API const char *ct_subscore_env(ct_subscore s);   /* "RANK_WEIGHTS_UNSEEN" */
CT_API double ct_subscore_default_weight(ct_subscore s);
CT_API bool ct_subscore_parse(const char *name, ct_subscore *out);

#define CT_WEIGHT_SUM_TOLERANCE 1e-6

struct ct_backoff_params {
	double start_hours; /* 6 */
	double max_hours;   /* 48 */
	double multiplier;  /* 2 */
};
#define CT_BACKOFF_PARAMS_DEFAULT ((struct ct_backoff_params){6.0, 48.0, 2.0})

struct ct_discovery_params {
	double weights[CT_SUB_COUNT];
	struct ct_backoff_params backoff;
};
CT_API void ct_discovery_params_default(struct ct_discovery_params *p);

/* Weights: each finite and >= 0, sum within 1e-6 of 1. *sum (may be NULL)
 * receives the sum either way. The message names the sum. */
CT_API ct_status ct_discovery_weights_check(const double w[CT_SUB_COUNT],
					    double *sum, struct ct_error *err);
/* start > 0, multiplier >= 1, max >= start, all finite. */
CT_API ct_status ct_backoff_params_check(const struct ct_backoff_params *b,
					 struct ct_error *err);

struct ct_discovery_result {
	double score; /* rounded to 6 decimals */
	ct_class cls;
	double subscores[CT_SUB_COUNT];
	struct ct_reasons reasons; /* top contributions, then the class action */
};

/* Sub-scores outside 0..1 or not finite: CT_ERANGE naming the sub-score.
 * bounds may be NULL (80/60/40). p's weights must have passed
 * ct_discovery_weights_check() and bounds ct_class_bounds_check(): they
 * are not re-checked here (hot path). A score off 0..100 (up to 100.0001
 * from weights summing to 1 + 1e-6 is clamped to 100), which only
 * unchecked weights give (NaN, negative, summing past 1), is refused with
 * CT_EINVAL and a message saying the parameters were not checked. */
CT_API ct_status ct_discovery_score(const struct ct_discovery_params *p,
				    const struct ct_class_bounds *bounds,
				    const double sub[CT_SUB_COUNT],
				    struct ct_discovery_result *out,
				    struct ct_error *err);

/* Raw signals, the inputs of the documented signal -> sub-score functions
 * (doc/scoring.md). A negative number means "unknown" where noted. */
typedef enum ct_source_kind {
	CT_SOURCE_UNKNOWN, CT_SOURCE_CT, CT_SOURCE_RSS, CT_SOURCE_CC,
	CT_SOURCE_SOCIAL, CT_SOURCE_KIND_COUNT
} ct_source_kind;
CT_API bool ct_source_kind_parse(const char *s, ct_source_kind *out);

struct ct_discovery_signals {
	double ct_age_hours;      /* age of the CT log entry; < 0 unknown */
	int ns_changes;           /* NS changes seen in 30 days, >= 0 */
	int asn_changes;          /* ASN changes seen in 30 days, >= 0 */
	double whois_age_days;    /* domain age; < 0 unknown */
	long backlinks;           /* known backlinks; < 0 unknown */
	bool first_seen_host;     /* host never seen before */
	bool rare_tld;
	int subdomain_depth;      /* labels left of the registered domain */
	double parking_score;     /* 0..1, 1 = certainly parked */
	bool document_path;       /* path looks like a document (/docs/, /blog/) */
	bool document_extension;  /* .pdf, .html, .md, ... */
	bool vendor_fingerprint;  /* known CMS / doc generator */
	ct_source_kind source;
	double age_hours;         /* since discovery; < 0 unknown */
	bool malware, adult, for_sale, suspicious_tld;
	double topic_match;       /* 0..1 */
};
CT_API void ct_discovery_signals_init(struct ct_discovery_signals *s);
CT_API ct_status ct_discovery_subscores(const struct ct_discovery_signals *s,
					double sub[CT_SUB_COUNT],
					struct ct_error *err);

/* Hours until the next check of a class-c URL at backoff step `step`
 * (0 at classification). P2: min(start x mult^step, max); P3: twice that
 * schedule. An NS/ASN change resets the step to 0. P0/P1 have no backoff:
 * *has_backoff = false and *hours = 0. */
CT_API ct_status ct_backoff_hours(const struct ct_backoff_params *b, ct_class c,
				  int step, bool ns_asn_changed,
				  bool *has_backoff, double *hours,
				  struct ct_error *err);

CT_END_DECLS

#endif
