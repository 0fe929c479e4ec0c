/* scale.c: the one order and the one 0..100 scale of SPEC.md. */
#include <math.h>
#include <string.h>

#include "crawltop/number.h"
#include "crawltop/scale.h"
#include "guard.h"

static bool in_scale(double v)
{
	return isfinite(v) && v >= CT_SCORE_MIN && v <= CT_SCORE_MAX;
}

/* Bounds must be finite, inside the scale and strictly decreasing. */
ct_status ct_class_bounds_check(const struct ct_class_bounds *b,
				struct ct_error *err)
{
	static const char *const name[] = {"p0", "p1", "p2"};
	const double v[] = {b->p0, b->p1, b->p2};
	for (int i = 0; i < 3; i++)
		if (!in_scale(v[i]))
			return ct_error_set(err, CT_ERANGE,
				"class bound %s = %s: must be a number in 0..100",
				name[i], CT_NUM(v[i]));
	if (!(b->p0 > b->p1 && b->p1 > b->p2))
		return ct_error_set(err, CT_EINVAL,
			"class bounds p0 = %s, p1 = %s, p2 = %s: must be strictly "
			"decreasing (p0 > p1 > p2)", CT_NUM(b->p0), CT_NUM(b->p1),
			CT_NUM(b->p2));
	return CT_OK;
}

ct_status ct_result_guard(double v, double lo, double hi, const char *what,
			  const char *check, struct ct_error *err)
{
	if (v >= lo && v <= hi)
		return CT_OK;
	return ct_error_set(err, CT_EINVAL,
		"%s = %s is outside %s..%s: the parameters were not checked (%s)",
		what, CT_NUM(v), CT_NUM(lo), CT_NUM(hi), check);
}

/* P0 plus the number of bounds the score does not reach. With valid bounds
 * (p0 > p1 > p2) these are the half-open intervals P0 [p0, 100], P1
 * [p1, p0), P2 [p2, p1), P3 the rest; with any other bounds it is the same
 * as with the bounds sorted, and a NaN bound is never reached. NaN falls
 * to P3. */
ct_class ct_class_of(double score, const struct ct_class_bounds *b)
{
	const struct ct_class_bounds d = CT_CLASS_BOUNDS_DEFAULT;
	if (!b)
		b = &d;
	return (ct_class)(!(score >= b->p0) + !(score >= b->p1) +
			  !(score >= b->p2));
}

const char *ct_class_name(ct_class c)
{
	static const char *const n[] = {"P0", "P1", "P2", "P3"};
	return (unsigned)c < CT_CLASS_COUNT ? n[c] : "P?";
}

const char *ct_class_label(ct_class c)
{
	static const char *const n[] = {"P0 (High)", "P1 (Medium)", "P2 (Low)",
					"P3 (Deferred)"};
	return (unsigned)c < CT_CLASS_COUNT ? n[c] : "P?";
}

/* Seed 003's actions per class. */
const char *ct_class_action(ct_class c)
{
	static const char *const n[] = {
		"P0: crawl now, profile + list",
		"P1: list on daily discovery page",
		"P2: watchlist, recrawl on signals",
		"P3: defer, weekly tiny sample",
	};
	return (unsigned)c < CT_CLASS_COUNT ? n[c] : "P?";
}

bool ct_class_parse(const char *s, ct_class *out)
{
	if (!s)
		return false;
	if ((s[0] == 'P' || s[0] == 'p') && s[1])
		s++;
	if (s[0] >= '0' && s[0] <= '3' && s[1] == '\0') {
		*out = (ct_class)(s[0] - '0');
		return true;
	}
	return false;
}

int ct_task_key_cmp(const struct ct_task_key *a, const struct ct_task_key *b)
{
	if (a->job_priority != b->job_priority)
		return a->job_priority < b->job_priority ? -1 : 1;
	/* a NaN score (never produced by a scorer) goes after every number,
	 * and two NaNs tie, so that this stays a total order */
	if (isnan(a->score) != isnan(b->score))
		return isnan(a->score) ? 1 : -1;
	if (a->score != b->score && !isnan(a->score))
		return a->score > b->score ? -1 : 1;
	if (a->discovered_ms != b->discovered_ms)
		return a->discovered_ms < b->discovered_ms ? -1 : 1;
	if (a->id != b->id)
		return a->id < b->id ? -1 : 1;
	return 0;
}

double ct_score_from_hierarchy(double h)
{
	return h * 100.0;
}

/* A rational sigmoid, strictly decreasing over all finite p in exact
 * arithmetic, and cheap (one division, no libm call):
 *   p >= 0:  50 S / (p + S)           (50 at 0, 25 at S, -> 0)
 *   p <  0:  100 - 50 S / (S - p)     (75 at -S, -> 100)
 * Each branch computes its small quantity directly. In double precision
 * the mapping is monotone (a lower priority never scores lower) but not
 * one-to-one: neighbouring priorities can round to one score
 * (9.7000000000000011 and 9.6999999999999993 both give 36.023054755043226),
 * and every p <= about -1.76e17 gives exactly 100. Orders are therefore
 * decided on the score (ct_task_key_cmp), never on the raw priority. */
double ct_score_from_frontier(double p)
{
	const double S = CT_FRONTIER_SCALE;
	if (p >= 0)
		return 50.0 * S / (p + S);
	return 100.0 - 50.0 * S / (S - p);
}

/* The inverse of ct_score_from_frontier on (0, 100). */
double ct_frontier_from_score(double score)
{
	const double S = CT_FRONTIER_SCALE;
	if (score <= 0)
		return INFINITY;
	if (score >= 100)
		return -INFINITY;
	if (score <= 50)
		return 50.0 * S / score - S;
	return S - 50.0 * S / (100.0 - score);
}
