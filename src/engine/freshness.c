/* freshness.c: seed 004's 0..100 URL freshness score, SPEC.md's rules. */
#include <math.h>
#include <string.h>

#include "crawltop/number.h"
#include "crawltop/freshness.h"
#include "guard.h"

#define HOUR_MS INT64_C(3600000)
#define DAY_MS (24 * HOUR_MS)
#define WEEK_MS (7 * DAY_MS)

ct_status ct_freshness_params_check(const struct ct_freshness_params *p,
				    struct ct_error *err)
{
	static const char *const name[] = {"base", "recent", "today", "stale",
		"never", "changed", "topic_max", "topic_high", "hub", "deep"};
	const double v[] = {p->base, p->recent, p->today, p->stale, p->never,
			    p->changed, p->topic_max, p->topic_high, p->hub, p->deep};
	for (int i = 0; i < 10; i++)
		if (!isfinite(v[i]) || fabs(v[i]) > 100.0)
			return ct_error_set(err, CT_ERANGE,
				"freshness.%s = %s: must be a number in -100..100",
				name[i], CT_NUM(v[i]));
	if (p->base < 0 || p->base > 100)
		return ct_error_set(err, CT_ERANGE,
			"freshness.base = %s: must be in 0..100", CT_NUM(p->base));
	if (p->topic_max < 0)
		return ct_error_set(err, CT_ERANGE,
			"freshness.topic_max = %s: must be >= 0",
			CT_NUM(p->topic_max));
	if (p->topic_high < 0 || p->topic_high > 1)
		return ct_error_set(err, CT_ERANGE,
			"freshness.topic_high = %s: must be in 0..1",
			CT_NUM(p->topic_high));
	if (p->deep_depth < 0)
		return ct_error_set(err, CT_ERANGE,
			"freshness.deep_depth = %d: must be >= 0", p->deep_depth);
	return CT_OK;
}

const char *ct_freshness_level_name(ct_freshness_level l)
{
	static const char *const n[] = {"very-high", "high", "medium", "low",
					"very-low"};
	return (unsigned)l <= CT_LEVEL_VERY_LOW ? n[l] : "?";
}

/* Seed 004's table: 80-100, 60-79, 40-59, 20-39, 0-19 (scores are
 * integral with the default table; fractions fall to the lower band). */
ct_freshness_level ct_freshness_level_of(double score)
{
	if (score >= 80)
		return CT_LEVEL_VERY_HIGH;
	if (score >= 60)
		return CT_LEVEL_HIGH;
	if (score >= 40)
		return CT_LEVEL_MEDIUM;
	if (score >= 20)
		return CT_LEVEL_LOW;
	return CT_LEVEL_VERY_LOW;
}

/* now - then, 0 for a time in the future; saturates at INT64_MAX instead
 * of overflowing when the two are more than INT64_MAX apart. */
static int64_t age(int64_t now, int64_t then)
{
	if (then >= now)
		return 0;
	if (then < 0 && now > INT64_MAX + then)
		return INT64_MAX;
	return now - then;
}

void ct_freshness_input_init(struct ct_freshness_input *in)
{
	memset(in, 0, sizeof *in);
	in->topic_relevance = 0.5;
}

ct_status ct_freshness_score(const struct ct_freshness_params *p,
			     const struct ct_class_bounds *bounds,
			     const struct ct_freshness_input *in, int64_t now_ms,
			     struct ct_freshness_result *out,
			     struct ct_error *err)
{
	const double rel = in->topic_relevance;
	if (!(rel >= 0.0 && rel <= 1.0))
		return ct_error_set(err, CT_ERANGE,
			"topicRelevance = %s: must be a number in 0..1",
			CT_NUM(rel));
	if (in->hub_depth < 0)
		return ct_error_set(err, CT_ERANGE,
			"hubDepth = %d: must be >= 0", in->hub_depth);
	if (in->visits < 0)
		return ct_error_set(err, CT_ERANGE,
			"visits = %ld: must be >= 0", in->visits);

	struct ct_reasons *rs = &out->reasons;
	double s = p->base;
	rs->n = 0;
	if (!in->has_last_visited) {
		s += p->never;
		ct_reasons_add(rs, CT_R_FRESH_NEVER, 0, 0, NULL);
	} else {
		int64_t a = age(now_ms, in->last_visited_ms);
		if (a < HOUR_MS) {
			s += p->recent;
			ct_reasons_add(rs, CT_R_FRESH_RECENT, 0, 0, NULL);
		} else if (a < DAY_MS) {
			s += p->today;
			ct_reasons_add(rs, CT_R_FRESH_TODAY, 0, 0, NULL);
		} else if (a > WEEK_MS) {
			s += p->stale;
			ct_reasons_add(rs, CT_R_FRESH_STALE, 0, 0, NULL);
		}
	}
	if (in->has_last_changed && age(now_ms, in->last_changed_ms) < DAY_MS) {
		s += p->changed;
		ct_reasons_add(rs, CT_R_FRESH_CHANGED, 0, 0, NULL);
	}
	s += round(rel * p->topic_max); /* C round(): half away from zero */
	if (rel > p->topic_high)
		ct_reasons_add(rs, CT_R_FRESH_TOPIC, 0, 0, NULL);
	if (in->is_hub) {
		s += p->hub;
		ct_reasons_add(rs, CT_R_FRESH_HUB, 0, 0, NULL);
	}
	if (in->hub_depth > p->deep_depth) {
		s += p->deep;
		ct_reasons_add(rs, CT_R_FRESH_DEEP, 0, 0, NULL);
	}
	s = s < 0 ? 0 : s > 100 ? 100 : s;
	out->score = s;
	out->level = ct_freshness_level_of(s);
	out->cls = ct_class_of(s, bounds);
	/* the clamp lets a NaN (from a NaN parameter) through */
	return ct_result_guard(s, CT_SCORE_MIN, CT_SCORE_MAX, "freshness score",
			       "ct_freshness_params_check", err);
}

/* Bottom-up merge sort of indices by descending score: stable, O(n log n),
 * no recursion. */
void ct_freshness_rank(const struct ct_freshness_result *res, size_t n,
		       size_t *order, size_t *scratch)
{
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	size_t *src = order, *dst = scratch;
	for (size_t w = 1; w < n; w *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * w) {
			size_t mid = lo + w < n ? lo + w : n;
			size_t hi = lo + 2 * w < n ? lo + 2 * w : n;
			size_t i = lo, j = mid, k = lo;
			while (i < mid && j < hi)
				dst[k++] = res[src[j]].score > res[src[i]].score
					? src[j++] : src[i++];
			while (i < mid)
				dst[k++] = src[i++];
			while (j < hi)
				dst[k++] = src[j++];
		}
		size_t *t = src;
		src = dst;
		dst = t;
	}
	if (src != order)
		memcpy(order, src, n * sizeof *order);
}
