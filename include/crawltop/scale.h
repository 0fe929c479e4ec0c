/* scale.h: the one task order and the one 0..100 score scale (SPEC.md).
 *
 * Every task has a score in 0..100, HIGHER IS MORE URGENT, and a class:
 * P0 (score >= p0), P1 (>= p1), P2 (>= p2), P3 (below), half-open intervals.
 * Tasks are handed out by job priority (1 first), then score (higher
 * first), then discovery time (earlier first), then task id (lower first).
 * Each model's native value maps onto the scale with the functions below. */
#ifndef CRAWLTOP_SCALE_H
#define CRAWLTOP_SCALE_H

#include <stdbool.h>
#include <stdint.h>

#include "export.h"
#include "status.h"

CT_BEGIN_DECLS

#define CT_SCORE_MIN 0.0
#define CT_SCORE_MAX 100.0

typedef enum ct_class { CT_P0 = 0, CT_P1 = 1, CT_P2 = 2, CT_P3 = 3 } ct_class;
#define CT_CLASS_COUNT 4

/* Lower bounds of P0, P1 and P2 (PROFILE_SCORE, MIN_PUBLISH_SCORE, and the
 * P2 bound of SPEC.md). Must be finite, in 0..100, strictly decreasing
 * from p0 to p2. */
struct ct_class_bounds {
	double p0, p1, p2;
};
#define CT_CLASS_BOUNDS_INIT {80.0, 60.0, 40.0} /* for static initialisers */
#define CT_CLASS_BOUNDS_DEFAULT ((struct ct_class_bounds)CT_CLASS_BOUNDS_INIT)

CT_API ct_status ct_class_bounds_check(const struct ct_class_bounds *b,
				       struct ct_error *err);
/* The class of a score; b NULL means the defaults. Defined for any bounds:
 * P0 plus the number of bounds the score does not reach (score >= bound
 * false), which for bounds that pass ct_class_bounds_check is the
 * half-open rule above and for others the same as with the bounds sorted
 * ({40, 60, 80} put 70 in P1); a NaN score or bound is never reached. A
 * higher score never gets a lower class. */
CT_API ct_class ct_class_of(double score, const struct ct_class_bounds *b);
CT_API const char *ct_class_name(ct_class c);   /* "P0" .. "P3" */
CT_API const char *ct_class_label(ct_class c);  /* "P0 (High)" ... */
CT_API const char *ct_class_action(ct_class c); /* seed 003's action */
/* Parse "P0".."P3" (or "0".."3"); returns false on anything else. */
CT_API bool ct_class_parse(const char *s, ct_class *out);

/* The claim order. */
struct ct_task_key {
	int job_priority;      /* 1..10, 1 first */
	double score;          /* 0..100, higher first */
	int64_t discovered_ms; /* earlier first */
	int64_t id;            /* lower first */
};
/* <0 when a is handed out before b, >0 after, 0 for the same key. A NaN
 * score goes after every number (two NaN scores tie and fall through to
 * discovery time and id), so this is a total order fit for qsort. */
CT_API int ct_task_key_cmp(const struct ct_task_key *a,
			   const struct ct_task_key *b);

/* Native value -> scale. */
CT_API double ct_score_from_hierarchy(double h);     /* h in 0..1: x 100 */
/* Frontier priority (lower = sooner) -> 0..100, strictly decreasing in
 * exact arithmetic: 50 S / (p + S) for p >= 0, 100 - 50 S / (S - p) for
 * p < 0, with S = CT_FRONTIER_SCALE. p = 0 gives 50, p = -25 gives 75,
 * p = +25 gives 25. In double precision it is monotone but distinct
 * priorities can give the same score: order tasks by the score. */
#define CT_FRONTIER_SCALE 25.0
CT_API double ct_score_from_frontier(double priority);
/* The inverse, for displaying a stored score as a frontier priority. */
CT_API double ct_frontier_from_score(double score);

CT_END_DECLS

#endif
