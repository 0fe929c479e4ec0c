/* freshness.h: seed 004's URL freshness score, 0..100 (HIGHER = SOONER).
 *
 * Base 50; last visit < 1 h -30 "Recently visited (<1h)", < 24 h -10
 * "Visited today", > 7 days +15 "Not visited in 7+ days", never visited +15
 * "Never visited"; changed < 24 h +20 "Changed in last 24h";
 * round(topicRelevance x 15), "High topic relevance" when > 0.8; hub +10
 * "Is a hub page"; hubDepth > 3 -5 "Deep URL"; clamped to 0..100.
 * `now` is a parameter; a time in the future counts as age 0. */
#ifndef CRAWLTOP_FRESHNESS_H
#define CRAWLTOP_FRESHNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "export.h"
#include "reasons.h"
#include "scale.h"
#include "status.h"

CT_BEGIN_DECLS

struct ct_freshness_params {
	double base;            /* 50 */
	double recent;          /* -30, age < 1 h */
	double today;           /* -10, age < 24 h */
	double stale;           /* +15, age > 7 days */
	double never;           /* +15, never visited */
	double changed;         /* +20, changed < 24 h */
	double topic_max;       /* 15: round(relevance x 15) */
	double topic_high;      /* 0.8: "High topic relevance" when above */
	double hub;             /* +10 */
	double deep;            /* -5 */
	int deep_depth;         /* 3: hubDepth above this is deep */
};
#define CT_FRESHNESS_PARAMS_DEFAULT ((struct ct_freshness_params){ \
	50, -30, -10, 15, 15, 20, 15, 0.8, 10, -5, 3})
CT_API ct_status ct_freshness_params_check(const struct ct_freshness_params *p,
					   struct ct_error *err);

typedef enum ct_freshness_level {
	CT_LEVEL_VERY_HIGH, /* 80-100 crawl immediately */
	CT_LEVEL_HIGH,      /* 60-79 crawl soon */
	CT_LEVEL_MEDIUM,    /* 40-59 normal schedule */
	CT_LEVEL_LOW,       /* 20-39 defer */
	CT_LEVEL_VERY_LOW,  /* 0-19 skip or deprioritise */
} ct_freshness_level;
CT_API const char *ct_freshness_level_name(ct_freshness_level l); /* "very-high" */
CT_API ct_freshness_level ct_freshness_level_of(double score);

struct ct_freshness_input {
	bool has_last_visited, has_last_changed;
	int64_t last_visited_ms, last_changed_ms; /* epoch ms */
	double topic_relevance; /* 0..1, default 0.5 */
	int hub_depth;          /* >= 0, default 0 */
	bool is_hub;
	long visits;            /* >= 0; informational */
};
/* Defaults of SPEC.md: relevance 0.5, depth 0, not a hub, never visited. */
/* The same as a function, for C++ and for reuse. */
CT_API void ct_freshness_input_init(struct ct_freshness_input *in);
#ifndef __cplusplus
#define CT_FRESHNESS_INPUT_INIT ((struct ct_freshness_input){ \
	.topic_relevance = 0.5})
#endif

struct ct_freshness_result {
	double score; /* integral with the default table */
	ct_freshness_level level;
	ct_class cls;
	struct ct_reasons reasons;
};

/* CT_ERANGE: relevance outside 0..1 or not finite, negative depth or visits.
 * p must have passed ct_freshness_params_check() and bounds (NULL = the
 * defaults) ct_class_bounds_check(): they are not re-checked here (hot
 * path). A score that is not a number in 0..100, which only unchecked
 * parameters give (a NaN base), is refused with CT_EINVAL and a message
 * saying the parameters were not checked. */
CT_API ct_status ct_freshness_score(const struct ct_freshness_params *p,
				    const struct ct_class_bounds *bounds,
				    const struct ct_freshness_input *in,
				    int64_t now_ms,
				    struct ct_freshness_result *out,
				    struct ct_error *err);

/* Stable ranking: order[] receives indices 0..n-1 of res[], best first,
 * equal scores in input order. scratch must hold n size_t. */
CT_API void ct_freshness_rank(const struct ct_freshness_result *res, size_t n,
			      size_t *order, size_t *scratch);

CT_END_DECLS

#endif
