/* test_freshness.c: seed 004's URL freshness score with SPEC.md's rules
 * (include/crawltop/freshness.h). Base 50; visit age < 1 h -30, < 24 h
 * -10, > 7 days +15, never visited +15; changed < 24 h +20;
 * round(relevance x 15) with "High topic relevance" above 0.8; hub +10;
 * depth > 3 -5; clamped to 0..100. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "crawltop/freshness.h"
#include "crawltop/timestamp.h"

#define HOUR_MS INT64_C(3600000)
#define DAY_MS (24 * HOUR_MS)
#define WEEK_MS (7 * DAY_MS)
/* 2024-06-15T08:00:00Z: day 19884 (June 10, see test_timestamp.c) + 5 =
 * 19889; 19889 x 86400 + 28800 = 1718438400 s */
#define NOW INT64_C(1718438400000)

static struct ct_freshness_result score_with(const struct ct_freshness_params *p,
					     struct ct_freshness_input in,
					     int64_t now)
{
	struct ct_freshness_result r;
	struct ct_error err = {{0}};
	memset(&r, 0xA5, sizeof r);
	ct_status st = ct_freshness_score(p, NULL, &in, now, &r, &err);
	if (st != CT_OK)
		fail_msg("ct_freshness_score failed: %s", err.msg);
	return r;
}

static struct ct_freshness_result score(struct ct_freshness_input in)
{
	const struct ct_freshness_params p = CT_FRESHNESS_PARAMS_DEFAULT;
	return score_with(&p, in, NOW);
}

/* A neutral input: visited 3 days ago (no visit adjustment), never changed
 * (no change bonus), relevance 0 (+0), depth 0, not a hub: exactly 50. */
static struct ct_freshness_input neutral(void)
{
	struct ct_freshness_input in = CT_FRESHNESS_INPUT_INIT;
	in.has_last_visited = true;
	in.last_visited_ms = NOW - 3 * DAY_MS;
	in.topic_relevance = 0.0;
	return in;
}

/* Visited `age` ms before NOW, otherwise neutral. */
static struct ct_freshness_input visited(int64_t age)
{
	struct ct_freshness_input in = neutral();
	in.last_visited_ms = NOW - age;
	return in;
}

/* Assert the formatted reasons, in order, and nothing else. */
static void assert_reasons(const struct ct_freshness_result *r, int n,
			   const char *const *want)
{
	char buf[128];
	if (r->reasons.n != n) {
		for (int i = 0; i < r->reasons.n; i++) {
			ct_reason_format(&r->reasons.r[i], buf, sizeof buf);
			print_message("reason %d: %s\n", i, buf);
		}
		fail_msg("%d reasons, expected %d", r->reasons.n, n);
	}
	for (int i = 0; i < n; i++) {
		ct_reason_format(&r->reasons.r[i], buf, sizeof buf);
		assert_string_equal(buf, want[i]);
	}
}

#define REASONS(r, ...) do { \
	static const char *const want_[] = {__VA_ARGS__}; \
	assert_reasons(&(r), (int)(sizeof want_ / sizeof want_[0]), want_); \
} while (0)
#define ASSERT_SCORE(r, want) do { \
	if ((r).score != (want)) \
		fail_msg("score %.17g, expected %.17g", (r).score, (double)(want)); \
} while (0)
#define NO_REASONS(r) assert_int_equal((r).reasons.n, 0)

/* Seed 004's example: visited 5 days ago (no adjustment), changed 10 h ago
 * (+20), relevance 0.9 (round(13.5) = 14, above 0.8), hub (+10), depth 1:
 * 50 + 20 + 14 + 10 = 94. */
static void seed_reuters_example(void **state)
{
	int64_t now, lv, lc;
	assert_int_equal(ct_time_parse("2024-06-15T08:00:00Z", &now, NULL), CT_OK);
	assert_int_equal(ct_time_parse("2024-06-10T08:00:00Z", &lv, NULL), CT_OK);
	assert_int_equal(ct_time_parse("2024-06-14T22:00:00Z", &lc, NULL), CT_OK);
	assert_true(now == NOW);
	struct ct_freshness_input in = CT_FRESHNESS_INPUT_INIT;
	in.visits = 150;
	in.has_last_visited = true;
	in.last_visited_ms = lv;
	in.has_last_changed = true;
	in.last_changed_ms = lc;
	in.topic_relevance = 0.9;
	in.hub_depth = 1;
	in.is_hub = true;
	const struct ct_freshness_params p = CT_FRESHNESS_PARAMS_DEFAULT;
	struct ct_freshness_result r = score_with(&p, in, now);
	ASSERT_SCORE(r, 94.0);
	REASONS(r, "Changed in last 24h", "High topic relevance", "Is a hub page");
	assert_int_equal(r.level, CT_LEVEL_VERY_HIGH);
	assert_int_equal(r.cls, CT_P0);
}

/* Seed 004's ranking example: 8 days ago, 0.9, depth 0, hub:
 * 50 + 15 + 14 + 10 = 89; 30 min ago, 0.3, depth 4: 50 - 30 +
 * round(4.5) = 5 - 5 = 20. 89 ranks before 20 in either input order. */
static void seed_ranking_example(void **state)
{
	struct ct_freshness_input world = CT_FRESHNESS_INPUT_INIT;
	world.visits = 10;
	world.has_last_visited = true;
	world.last_visited_ms = NOW - 8 * DAY_MS;
	world.topic_relevance = 0.9;
	world.is_hub = true;
	struct ct_freshness_input old = CT_FRESHNESS_INPUT_INIT;
	old.visits = 50;
	old.has_last_visited = true;
	old.last_visited_ms = NOW - 30 * 60 * INT64_C(1000);
	old.topic_relevance = 0.3;
	old.hub_depth = 4;

	struct ct_freshness_result res[2] = {score(world), score(old)};
	ASSERT_SCORE(res[0], 89.0);
	REASONS(res[0], "Not visited in 7+ days", "High topic relevance",
		"Is a hub page");
	ASSERT_SCORE(res[1], 20.0);
	REASONS(res[1], "Recently visited (<1h)", "Deep URL");
	assert_int_equal(res[1].level, CT_LEVEL_LOW);

	size_t order[2], scratch[2];
	ct_freshness_rank(res, 2, order, scratch);
	assert_int_equal(order[0], 0);
	assert_int_equal(order[1], 1);
	struct ct_freshness_result rev[2] = {res[1], res[0]};
	ct_freshness_rank(rev, 2, order, scratch);
	assert_int_equal(order[0], 1);
	assert_int_equal(order[1], 0);
}

/* Strict boundaries: < 1 h recent, < 24 h today, > 7 days stale; exactly
 * 1 h is today, exactly 24 h and exactly 7 days change nothing. */
static void visit_age_boundaries(void **state)
{
	struct ct_freshness_result r = score(visited(HOUR_MS));
	ASSERT_SCORE(r, 40.0); /* 50 - 10 */
	REASONS(r, "Visited today");
	r = score(visited(HOUR_MS - 1));
	ASSERT_SCORE(r, 20.0); /* 50 - 30 */
	REASONS(r, "Recently visited (<1h)");
	r = score(visited(0));
	ASSERT_SCORE(r, 20.0);
	REASONS(r, "Recently visited (<1h)");
	r = score(visited(DAY_MS));
	ASSERT_SCORE(r, 50.0);
	NO_REASONS(r);
	r = score(visited(DAY_MS - 1));
	ASSERT_SCORE(r, 40.0);
	REASONS(r, "Visited today");
	r = score(visited(WEEK_MS));
	ASSERT_SCORE(r, 50.0);
	NO_REASONS(r);
	r = score(visited(WEEK_MS + 1));
	ASSERT_SCORE(r, 65.0); /* 50 + 15 */
	REASONS(r, "Not visited in 7+ days");
	r = score(visited(365 * DAY_MS));
	ASSERT_SCORE(r, 65.0);
}

/* No lastVisited: +15 "Never visited" (SPEC.md), whatever the stale field. */
static void never_visited(void **state)
{
	struct ct_freshness_input in = neutral();
	in.has_last_visited = false;
	in.last_visited_ms = NOW; /* ignored */
	struct ct_freshness_result r = score(in);
	ASSERT_SCORE(r, 65.0);
	REASONS(r, "Never visited");
	/* SPEC.md's defaults alone: never visited, relevance 0.5 (round(7.5)
	 * = 8), depth 0, not a hub: 50 + 15 + 8 = 73 */
	r = score(CT_FRESHNESS_INPUT_INIT);
	ASSERT_SCORE(r, 73.0);
	REASONS(r, "Never visited");
	assert_int_equal(r.cls, CT_P1);
	/* with a custom "never" value */
	struct ct_freshness_params p = CT_FRESHNESS_PARAMS_DEFAULT;
	p.never = 5;
	r = score_with(&p, in, NOW);
	ASSERT_SCORE(r, 55.0);
}

/* A time in the future counts as age 0. */
static void future_times_are_age_zero(void **state)
{
	struct ct_freshness_result r = score(visited(-DAY_MS));
	ASSERT_SCORE(r, 20.0);
	REASONS(r, "Recently visited (<1h)");
	struct ct_freshness_input in = neutral();
	in.has_last_changed = true;
	in.last_changed_ms = NOW + 30 * DAY_MS;
	r = score(in);
	ASSERT_SCORE(r, 70.0); /* 50 + 20 */
	REASONS(r, "Changed in last 24h");
	/* extreme values do not overflow the age */
	r = score(visited(-INT64_C(1000000000000000)));
	ASSERT_SCORE(r, 20.0);
	in = neutral();
	in.last_visited_ms = INT64_MIN;
	in.has_last_changed = true;
	in.last_changed_ms = INT64_MAX;
	struct ct_freshness_params p = CT_FRESHNESS_PARAMS_DEFAULT;
	r = score_with(&p, in, 0);
	/* visited at INT64_MIN is ages ago (stale, +15), changed "now" (+20) */
	ASSERT_SCORE(r, 85.0);
}

/* Changed when age < 24 h: exactly 24 h gives no bonus. */
static void changed_boundaries(void **state)
{
	struct ct_freshness_input in = neutral();
	in.has_last_changed = true;
	in.last_changed_ms = NOW - DAY_MS;
	struct ct_freshness_result r = score(in);
	ASSERT_SCORE(r, 50.0);
	NO_REASONS(r);
	in.last_changed_ms = NOW - DAY_MS + 1;
	r = score(in);
	ASSERT_SCORE(r, 70.0);
	REASONS(r, "Changed in last 24h");
	in.last_changed_ms = NOW;
	r = score(in);
	ASSERT_SCORE(r, 70.0);
	/* has_last_changed false: the time is ignored */
	in.has_last_changed = false;
	r = score(in);
	ASSERT_SCORE(r, 50.0);
	NO_REASONS(r);
}

/* round(relevance x 15), half away from zero; the reason only above 0.8. */
static void relevance_rounding(void **state)
{
	static const struct {
		double rel, want;
		int high;
	} cases[] = {
		{0.0, 50.0, 0},       /* round(0) */
		{0.1, 52.0, 0},       /* round(1.5) = 2 */
		{0.3, 55.0, 0},       /* round(4.5) = 5 */
		{0.5, 58.0, 0},       /* round(7.5) = 8 */
		{0.7, 61.0, 0},       /* round(10.5) = 11 */
		{0.8, 62.0, 0},       /* round(12.0) = 12; not above 0.8 */
		{0.8000001, 62.0, 1}, /* round(12.0000015) = 12; above 0.8 */
		{0.9, 64.0, 1},       /* round(13.5) = 14 */
		{1.0, 65.0, 1},       /* 15 */
		{0.03, 50.0, 0},      /* round(0.45) = 0 */
		{0.04, 51.0, 0},      /* round(0.6) = 1 */
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct ct_freshness_input in = neutral();
		in.topic_relevance = cases[i].rel;
		struct ct_freshness_result r = score(in);
		if (r.score != cases[i].want)
			fail_msg("relevance %.9g: score %.17g, expected %.17g",
				 cases[i].rel, r.score, cases[i].want);
		if (cases[i].high)
			REASONS(r, "High topic relevance");
		else
			NO_REASONS(r);
	}
}

static void expect_range_error(struct ct_freshness_input in, const char *named)
{
	const struct ct_freshness_params p = CT_FRESHNESS_PARAMS_DEFAULT;
	struct ct_freshness_result r;
	struct ct_error err = {{0}};
	assert_int_equal(ct_freshness_score(&p, NULL, &in, NOW, &r, &err), CT_ERANGE);
	if (!strstr(err.msg, named))
		fail_msg("message does not name '%s': %s", named, err.msg);
}

static void refuses_bad_input(void **state)
{
	const double bad[] = {-0.1, 1.1, NAN, INFINITY, -INFINITY, -1e-300};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct ct_freshness_input in = neutral();
		in.topic_relevance = bad[i];
		expect_range_error(in, "topicRelevance");
	}
	struct ct_freshness_input in = neutral();
	in.topic_relevance = 1.1;
	expect_range_error(in, "1.1");
	/* a value just outside is written so that it reads back as itself */
	in = neutral();
	in.topic_relevance = 1.0000001;
	const struct ct_freshness_params p = CT_FRESHNESS_PARAMS_DEFAULT;
	struct ct_freshness_result r;
	struct ct_error err = {{0}};
	assert_int_equal(ct_freshness_score(&p, NULL, &in, NOW, &r, &err), CT_ERANGE);
	assert_string_equal(err.msg,
			    "topicRelevance = 1.0000001: must be a number in 0..1");
	in = neutral();
	in.hub_depth = -1;
	expect_range_error(in, "hubDepth");
	in = neutral();
	in.visits = -1;
	expect_range_error(in, "visits");
}

/* Unchecked parameters cannot give a score off 0..100 with CT_OK: a NaN
 * base (or adjustment) survives the clamp and is refused with CT_EINVAL. */
static void unchecked_params_refused(void **state)
{
	struct ct_freshness_params p = CT_FRESHNESS_PARAMS_DEFAULT;
	struct ct_freshness_result r;
	struct ct_error err = {{0}};
	struct ct_freshness_input in = neutral();
	p.base = NAN;
	assert_int_not_equal(ct_freshness_params_check(&p, NULL), CT_OK);
	assert_int_equal(ct_freshness_score(&p, NULL, &in, NOW, &r, &err), CT_EINVAL);
	assert_string_equal(err.msg, "freshness score = nan is outside 0..100: the "
			    "parameters were not checked (ct_freshness_params_check)");
	p = CT_FRESHNESS_PARAMS_DEFAULT;
	p.hub = NAN;
	in.is_hub = true;
	assert_int_equal(ct_freshness_score(&p, NULL, &in, NOW, &r, &err), CT_EINVAL);
	/* a finite base past 100 is clamped, as the seed says */
	p = CT_FRESHNESS_PARAMS_DEFAULT;
	p.base = 500;
	assert_int_equal(ct_freshness_score(&p, NULL, &in, NOW, &r, &err), CT_OK);
	assert_true(r.score == 100.0);
}

/* hubDepth > 3 is deep: 3 changes nothing, 4 gives -5 "Deep URL". */
static void depth_and_hub(void **state)
{
	struct ct_freshness_input in = neutral();
	in.hub_depth = 3;
	struct ct_freshness_result r = score(in);
	ASSERT_SCORE(r, 50.0);
	NO_REASONS(r);
	in.hub_depth = 4;
	r = score(in);
	ASSERT_SCORE(r, 45.0);
	REASONS(r, "Deep URL");
	in.hub_depth = 1000;
	r = score(in);
	ASSERT_SCORE(r, 45.0);
	in = neutral();
	in.is_hub = true;
	r = score(in);
	ASSERT_SCORE(r, 60.0);
	REASONS(r, "Is a hub page");
	/* a deep hub: +10 - 5 */
	in.hub_depth = 4;
	r = score(in);
	ASSERT_SCORE(r, 55.0);
	REASONS(r, "Is a hub page", "Deep URL");
	/* visits are informational */
	in.visits = 1000000;
	assert_true(score(in).score == 55.0);
}

/* Seed 004's maximum: stale +15, changed +20, relevance 1.0 +15, hub +10:
 * 50 + 60 = 110, clamped to 100. Its minimum with the defaults: just
 * visited -30, deep -5, relevance 0: 15. */
static void clamps(void **state)
{
	struct ct_freshness_input in = visited(8 * DAY_MS);
	in.has_last_changed = true;
	in.last_changed_ms = NOW - HOUR_MS;
	in.topic_relevance = 1.0;
	in.is_hub = true;
	struct ct_freshness_result r = score(in);
	ASSERT_SCORE(r, 100.0);
	REASONS(r, "Not visited in 7+ days", "Changed in last 24h",
		"High topic relevance", "Is a hub page");
	assert_int_equal(r.level, CT_LEVEL_VERY_HIGH);
	assert_int_equal(r.cls, CT_P0);

	in = visited(0);
	in.hub_depth = 4;
	r = score(in);
	ASSERT_SCORE(r, 15.0);
	REASONS(r, "Recently visited (<1h)", "Deep URL");

	/* custom table, base 10: 10 - 30 - 5 = -25, clamped to 0 */
	struct ct_freshness_params p = CT_FRESHNESS_PARAMS_DEFAULT;
	p.base = 10;
	assert_int_equal(ct_freshness_params_check(&p, NULL), CT_OK);
	r = score_with(&p, in, NOW);
	ASSERT_SCORE(r, 0.0);
	assert_int_equal(r.level, CT_LEVEL_VERY_LOW);
	assert_int_equal(r.cls, CT_P3);
	REASONS(r, "Recently visited (<1h)", "Deep URL");
	/* custom table, base 95 + hub 10 = 105 -> 100 */
	p.base = 95;
	in = neutral();
	in.is_hub = true;
	r = score_with(&p, in, NOW);
	ASSERT_SCORE(r, 100.0);
}

/* The level table 80-100, 60-79, 40-59, 20-39, 0-19, reached through
 * scores (relevance k/15 adds exactly k):
 *   19 = 50 - 30 (recent) - 5 (deep) + 4      20 = 50 - 30
 *   39 = 50 - 10 (today) - 5 (deep) + 4       40 = 50 - 10
 *   59 = 50 - 5 (deep) + 14                   60 = 50 + 10 (hub)
 *   79 = 50 + 15 (stale) + 14                 80 = 50 + 15 + 15 */
static void levels(void **state)
{
	static const struct {
		int64_t age;
		int depth, k;
		bool hub;
		double want;
		ct_freshness_level level;
		ct_class cls;
	} cases[] = {
		{0, 4, 4, false, 19, CT_LEVEL_VERY_LOW, CT_P3},
		{0, 0, 0, false, 20, CT_LEVEL_LOW, CT_P3},
		{2 * HOUR_MS, 4, 4, false, 39, CT_LEVEL_LOW, CT_P3},
		{2 * HOUR_MS, 0, 0, false, 40, CT_LEVEL_MEDIUM, CT_P2},
		{3 * DAY_MS, 4, 14, false, 59, CT_LEVEL_MEDIUM, CT_P2},
		{3 * DAY_MS, 0, 0, true, 60, CT_LEVEL_HIGH, CT_P1},
		{8 * DAY_MS, 0, 14, false, 79, CT_LEVEL_HIGH, CT_P1},
		{8 * DAY_MS, 0, 15, false, 80, CT_LEVEL_VERY_HIGH, CT_P0},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct ct_freshness_input in = visited(cases[i].age);
		in.hub_depth = cases[i].depth;
		in.topic_relevance = cases[i].k / 15.0;
		in.is_hub = cases[i].hub;
		struct ct_freshness_result r = score(in);
		if (r.score != cases[i].want)
			fail_msg("case %zu: score %.17g, expected %g", i, r.score,
				 cases[i].want);
		assert_int_equal(r.level, cases[i].level);
		assert_int_equal(ct_freshness_level_of(cases[i].want), cases[i].level);
		assert_int_equal(r.cls, cases[i].cls);
	}
	assert_int_equal(ct_freshness_level_of(100), CT_LEVEL_VERY_HIGH);
	assert_int_equal(ct_freshness_level_of(79.5), CT_LEVEL_HIGH);
	assert_int_equal(ct_freshness_level_of(0), CT_LEVEL_VERY_LOW);
	assert_string_equal(ct_freshness_level_name(CT_LEVEL_VERY_HIGH), "very-high");
	assert_string_equal(ct_freshness_level_name(CT_LEVEL_HIGH), "high");
	assert_string_equal(ct_freshness_level_name(CT_LEVEL_MEDIUM), "medium");
	assert_string_equal(ct_freshness_level_name(CT_LEVEL_LOW), "low");
	assert_string_equal(ct_freshness_level_name(CT_LEVEL_VERY_LOW), "very-low");
}

/* Class bounds passed by the caller decide the class of the same score. */
static void custom_class_bounds(void **state)
{
	const struct ct_freshness_params p = CT_FRESHNESS_PARAMS_DEFAULT;
	const struct ct_class_bounds b = {95.0, 90.0, 85.0};
	struct ct_freshness_input in = neutral();
	in.topic_relevance = 0.9;
	in.is_hub = true;
	in.has_last_changed = true;
	in.last_changed_ms = NOW;
	struct ct_freshness_result r;
	/* 50 + 20 + 14 + 10 = 94: P1 with 95/90/85, P0 with the defaults */
	assert_int_equal(ct_freshness_score(&p, &b, &in, NOW, &r, NULL), CT_OK);
	ASSERT_SCORE(r, 94.0);
	assert_int_equal(r.cls, CT_P1);
	assert_int_equal(r.level, CT_LEVEL_VERY_HIGH);
}

/* Equal scores keep their input order. */
static void stable_ranking(void **state)
{
	static const double s[] = {50, 70, 50, 90, 70, 50, 90, 10, 70, 50};
	enum { N = sizeof s / sizeof s[0] };
	struct ct_freshness_result res[N];
	memset(res, 0, sizeof res);
	for (size_t i = 0; i < N; i++)
		res[i].score = s[i];
	/* 90: 3, 6; 70: 1, 4, 8; 50: 0, 2, 5, 9; 10: 7 */
	const size_t want[N] = {3, 6, 1, 4, 8, 0, 2, 5, 9, 7};
	size_t order[N], scratch[N];
	ct_freshness_rank(res, N, order, scratch);
	for (size_t i = 0; i < N; i++)
		assert_int_equal(order[i], want[i]);

	/* all equal: the identity */
	for (size_t i = 0; i < N; i++)
		res[i].score = 42;
	ct_freshness_rank(res, N, order, scratch);
	for (size_t i = 0; i < N; i++)
		assert_int_equal(order[i], i);

	/* empty and single inputs */
	ct_freshness_rank(res, 0, order, scratch);
	ct_freshness_rank(res, 1, order, scratch);
	assert_int_equal(order[0], 0);
}

/* A larger input against a reference stable sort (insertion sort). */
static void stable_ranking_large(void **state)
{
	enum { N = 1000 };
	static struct ct_freshness_result res[N];
	static size_t order[N], scratch[N], ref[N];
	for (size_t i = 0; i < N; i++)
		res[i].score = (double)((i * 37) % 11) * 10.0;
	for (size_t i = 0; i < N; i++) {
		size_t j = i;
		while (j > 0 && res[ref[j - 1]].score < res[i].score) {
			ref[j] = ref[j - 1];
			j--;
		}
		ref[j] = i;
	}
	ct_freshness_rank(res, N, order, scratch);
	for (size_t i = 0; i < N; i++) {
		assert_int_equal(order[i], ref[i]);
		if (i > 0) {
			assert_true(res[order[i - 1]].score >= res[order[i]].score);
			if (res[order[i - 1]].score == res[order[i]].score)
				assert_true(order[i - 1] < order[i]);
		}
	}
}

static void params_check(void **state)
{
	const struct ct_freshness_params d = CT_FRESHNESS_PARAMS_DEFAULT;
	struct ct_error err = {{0}};
	assert_int_equal(ct_freshness_params_check(&d, &err), CT_OK);
	struct ct_freshness_params p = d;
	p.base = NAN;
	assert_int_equal(ct_freshness_params_check(&p, &err), CT_ERANGE);
	assert_non_null(strstr(err.msg, "base"));
	p = d;
	p.base = -1;
	assert_int_equal(ct_freshness_params_check(&p, &err), CT_ERANGE);
	p = d;
	p.stale = 150;
	assert_int_equal(ct_freshness_params_check(&p, &err), CT_ERANGE);
	assert_non_null(strstr(err.msg, "stale"));
	p = d;
	p.topic_high = 1.5;
	assert_int_equal(ct_freshness_params_check(&p, &err), CT_ERANGE);
	assert_non_null(strstr(err.msg, "topic_high"));
	p = d;
	p.topic_max = -1;
	assert_int_equal(ct_freshness_params_check(&p, &err), CT_ERANGE);
	p = d;
	p.deep_depth = -1;
	assert_int_equal(ct_freshness_params_check(&p, &err), CT_ERANGE);
	assert_non_null(strstr(err.msg, "deep_depth"));
}

/* ct_freshness_input_init gives what CT_FRESHNESS_INPUT_INIT does. */
static void input_init_is_the_initialiser(void **state)
{
	(void)state;
	struct ct_freshness_input a = CT_FRESHNESS_INPUT_INIT, b;
	memset(&b, 0x5a, sizeof b);
	ct_freshness_input_init(&b);
	assert_true(b.topic_relevance == a.topic_relevance &&
		    b.topic_relevance == 0.5);
	assert_int_equal(b.hub_depth, 0);
	assert_false(b.is_hub || b.has_last_visited || b.has_last_changed);
	assert_int_equal(b.visits, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(seed_reuters_example),
		cmocka_unit_test(input_init_is_the_initialiser),
		cmocka_unit_test(seed_ranking_example),
		cmocka_unit_test(visit_age_boundaries),
		cmocka_unit_test(never_visited),
		cmocka_unit_test(future_times_are_age_zero),
		cmocka_unit_test(changed_boundaries),
		cmocka_unit_test(relevance_rounding),
		cmocka_unit_test(refuses_bad_input),
		cmocka_unit_test(unchecked_params_refused),
		cmocka_unit_test(depth_and_hub),
		cmocka_unit_test(clamps),
		cmocka_unit_test(levels),
		cmocka_unit_test(custom_class_bounds),
		cmocka_unit_test(stable_ranking),
		cmocka_unit_test(stable_ranking_large),
		cmocka_unit_test(params_check),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
