/* frontier.h: seed 002's frontier priority (LOWER = SOONER natively).
 *
 *   priority = (typeWeight + depth + bias) x base
 *            - discoveryBonus(alias(method))
 *            - gapScore x gapWeight          (gapScore = conf x 10 + lift x 5)
 *            - min(log2(clusterOccurrences) x boostFactor, cap)
 *            - knowledgeReuse x reuseWeight
 *            -/+ cost_factor (0.1) x |priority| for fast/slow actions (cost-aware)
 *            + total-prioritisation offset (country / country-related / other)
 *
 * except for a page the job is seeded with (discovery method "seed",
 * CT_FRONTIER_SEED_METHOD: the pages a crawl starts from, such as the
 * '/' simulate seeds): its priority is -DBL_MAX, the lowest there is,
 * score 100, so
 * that no sitemap page or bonus ever puts a page before it (issue 23).
 *
 * No discoveredAt x 1e-9 term (SPEC.md): ties pop first-in first-out. The
 * result maps onto the 0..100 scale with ct_score_from_frontier(). */
#ifndef CRAWLTOP_FRONTIER_H
#define CRAWLTOP_FRONTIER_H

#include <stdbool.h>
#include <stddef.h>

#include "export.h"
#include "reasons.h"
#include "scale.h"
#include "status.h"

CT_BEGIN_DECLS

#define CT_NAME_LEN 32      /* type, method and token names, NUL included */
#define CT_FRONTIER_MAX_NAMES 32
#define CT_FRONTIER_MAX_TOKENS 64
#define CT_FRONTIER_SEED_METHOD "seed" /* the discovery method of seeds */

struct ct_named_value {
	char name[CT_NAME_LEN];
	double value;
};
struct ct_alias {
	char from[CT_NAME_LEN];
	char to[CT_NAME_LEN];
};

typedef enum ct_queue_type { CT_QUEUE_DISCOVERY, CT_QUEUE_ACQUISITION } ct_queue_type;
typedef enum ct_tp_class {
	CT_TP_NONE,            /* total prioritisation off */
	CT_TP_COUNTRY,
	CT_TP_COUNTRY_RELATED,
	CT_TP_OTHER,
} ct_tp_class;

struct ct_frontier_params {
	/* type weights; a type not listed takes default_type_weight (12).
	 * Names are case-sensitive. */
	size_t n_types;
	struct ct_named_value types[CT_FRONTIER_MAX_NAMES];
	double default_type_weight;
	/* discovery-method bonuses, looked up after the alias map */
	size_t n_bonuses;
	struct ct_named_value bonuses[CT_FRONTIER_MAX_NAMES];
	size_t n_aliases;
	struct ct_alias aliases[CT_FRONTIER_MAX_NAMES];
	/* weights */
	double w_base, w_gap, w_reuse; /* 1, 1, 1 */
	/* feature flags: each gates its own stage */
	bool gap_driven, knowledge_reuse, problem_clustering, cost_aware;
	/* clustering */
	long cluster_problem_threshold;  /* 5 */
	double cluster_boost_factor;     /* 2.5 */
	double cluster_boost_cap;        /* 20 */
	/* cost-aware */
	double cost_fast_ms, cost_slow_ms, cost_factor; /* 100, 500, 0.1 */
	/* total prioritisation */
	bool total_prioritisation;
	double offset_country, offset_related, offset_other; /* -5000 -3000 5e6 */
	size_t n_country_tokens, n_related_tokens;
	char country_tokens[CT_FRONTIER_MAX_TOKENS][CT_NAME_LEN];
	char related_tokens[CT_FRONTIER_MAX_TOKENS][CT_NAME_LEN];
	/* queue limits (used by the frontier queue) */
	int max_depth;        /* 10 */
	size_t max_queue;     /* 10000, both queues together */
	int burst;            /* 5 pulls from one queue while the other waits */
	int max_scan;         /* 64 */
};

CT_API void ct_frontier_params_default(struct ct_frontier_params *p);
/* Finite values, non-negative weights, threshold >= 1, burst >= 1, ... */
CT_API ct_status ct_frontier_params_check(const struct ct_frontier_params *p,
					  struct ct_error *err);
/* Table editing; CT_EFULL past CT_FRONTIER_MAX_NAMES, CT_EINVAL for a name
 * that is empty or longer than CT_NAME_LEN - 1. Setting an existing name
 * replaces its value. */
CT_API ct_status ct_frontier_set_type(struct ct_frontier_params *p,
				      const char *name, double w);
CT_API ct_status ct_frontier_set_bonus(struct ct_frontier_params *p,
				       const char *name, double v);
CT_API ct_status ct_frontier_set_alias(struct ct_frontier_params *p,
				       const char *from, const char *to);
/* Token lists for total prioritisation (added): the token is stored
 * lower-cased; it must be 1 to CT_NAME_LEN - 1 ASCII letters or digits
 * (CT_EINVAL otherwise), CT_EFULL past CT_FRONTIER_MAX_TOKENS; a token
 * already listed is kept once. */
CT_API ct_status ct_frontier_add_country_token(struct ct_frontier_params *p,
					       const char *token);
CT_API ct_status ct_frontier_add_related_token(struct ct_frontier_params *p,
					       const char *token);
CT_API double ct_frontier_type_weight(const struct ct_frontier_params *p,
				      const char *type);
/* Canonical method name after the alias map (the input if not aliased). */
CT_API const char *ct_frontier_method_canonical(const struct ct_frontier_params *p,
						const char *method);
CT_API double ct_frontier_bonus(const struct ct_frontier_params *p,
				const char *method);

/* seed 002's queue choice: article, refresh, history -> acquisition. */
CT_API ct_queue_type ct_frontier_queue_type(const char *type);
CT_API const char *ct_queue_type_name(ct_queue_type q);
CT_API const char *ct_tp_class_name(ct_tp_class c);
CT_API bool ct_tp_class_parse(const char *s, ct_tp_class *out);

struct ct_frontier_input {
	const char *url;              /* borrowed */
	const char *type;             /* NULL or "" = default weight */
	int depth;                    /* >= 0 */
	double bias;                  /* finite */
	const char *discovery_method; /* NULL = none */
	double knowledge_reuse;       /* 0..1 (0 = none) */
	double estimated_cost_ms;     /* NaN = unknown; >= 0 */
	bool has_gap;
	double gap_confidence, gap_lift; /* 0..1 */
	long cluster_occurrences;     /* 0 = no cluster; negative is an error */
	ct_tp_class classification;   /* CT_TP_NONE = classify from tokens */
};
/* An input with every field at its default (the cost unknown: NaN), for
 * C++ and for reuse; in C also the initialiser CT_FRONTIER_INPUT_INIT.
 * A zeroed input is not the default: its cost is a known 0 ms. */
CT_API void ct_frontier_input_init(struct ct_frontier_input *in);
#ifndef __cplusplus
#define CT_FRONTIER_INPUT_INIT ((struct ct_frontier_input){ \
	.estimated_cost_ms = (0.0 / 0.0)})
#endif

struct ct_frontier_result {
	double priority;       /* native, lower = sooner */
	double base_priority;  /* typeWeight + depth + bias, before base weight */
	double bonus_applied;  /* sum of subtracted bonuses */
	const char *priority_source; /* base, discovery-bonus, gap-prediction, cluster-boost */
	ct_queue_type queue;
	ct_tp_class tp;
	bool dropped;          /* total prioritisation: "other" (deprioritised) */
	double score;          /* ct_score_from_frontier(priority) */
	ct_class cls;
	struct ct_reasons reasons;
};

/* bounds may be NULL (defaults). Errors: negative depth or cluster count,
 * gap or reuse outside 0..1, negative cost, non-finite bias or result.
 * p must have passed ct_frontier_params_check() (not re-checked: hot path).
 * On a non-finite result (CT_ERANGE) out->priority holds that value; on any
 * other error it is 0. */
CT_API ct_status ct_frontier_score(const struct ct_frontier_params *p,
				   const struct ct_class_bounds *bounds,
				   const struct ct_frontier_input *in,
				   struct ct_frontier_result *out,
				   struct ct_error *err);

/* The features a batch reports in use (seed's _getActiveFeatures). */
#define CT_FR_FEATURE_GAP     0x01u /* gap_driven */
#define CT_FR_FEATURE_CLUSTER 0x02u /* problem_clustering */
#define CT_FR_FEATURE_REUSE   0x04u /* knowledge_reuse */
#define CT_FR_FEATURE_COST    0x08u /* cost_aware */
#define CT_FR_FEATURE_TOTAL   0x10u /* total_prioritisation */
#define CT_FR_FEATURES        5

struct ct_frontier_batch_stats {
	size_t items;       /* n */
	size_t scored;      /* inputs scored (CT_OK) */
	size_t refused;     /* inputs refused */
	double total_ms;    /* by the caller's clock; 0 without one */
	double avg_ms;      /* total_ms / items (0 for none) */
	unsigned features;  /* CT_FR_FEATURE_* of p that are on */
};

/* The name of one feature bit ("gap-prediction", "problem-clustering",
 * "knowledge-reuse", "cost-aware", "total-prioritisation"); NULL for
 * another value. */
CT_API const char *ct_frontier_feature_name(unsigned bit);

/* seed 002's computeBatchPriorities: in[0..n) scored one by one as
 * ct_frontier_score scores them into out[0..n), each one's status into
 * status[i] (status may be NULL), and *stats (may be NULL) counted. The
 * time is read from clock_ms(clock_ctx) before and after, when clock_ms
 * is given (the engine reads no clock itself). Returns CT_OK when every
 * input was scored; else the first refusal's status, with err naming
 * its index (the others are scored all the same). CT_EINVAL for NULL
 * p, or NULL in or out with n > 0. */
CT_API ct_status ct_frontier_score_batch(const struct ct_frontier_params *p,
					 const struct ct_class_bounds *bounds,
					 const struct ct_frontier_input *in,
					 size_t n, struct ct_frontier_result *out,
					 ct_status *status,
					 double (*clock_ms)(void *clock_ctx),
					 void *clock_ctx,
					 struct ct_frontier_batch_stats *stats,
					 struct ct_error *err);

/* Classify for total prioritisation from the lower-cased words of the
 * type, the discovery method and the URL path. */
CT_API ct_tp_class ct_frontier_classify(const struct ct_frontier_params *p,
					const char *type, const char *method,
					const char *url);

CT_END_DECLS

#endif
