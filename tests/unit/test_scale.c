/* test_scale.c: the one 0..100 scale, its classes and the one claim order
 * (include/crawltop/scale.h, SPEC.md "One order for every task"). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "crawltop/scale.h"

#include "near.h"

/* Half-open intervals with the default bounds 80/60/40: P0 [80, 100],
 * P1 [60, 80), P2 [40, 60), P3 below 40. NULL means the defaults. */
static void class_of_default_bounds(void **state)
{
	const struct ct_class_bounds d = CT_CLASS_BOUNDS_DEFAULT;
	static const struct {
		double score;
		ct_class want;
	} cases[] = {
		{100.0, CT_P0}, {80.0, CT_P0}, {79.999999, CT_P1},
		{60.0, CT_P1}, {59.999999, CT_P2}, {40.0, CT_P2},
		{39.999999, CT_P3}, {0.0, CT_P3},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		assert_int_equal(ct_class_of(cases[i].score, &d), cases[i].want);
		assert_int_equal(ct_class_of(cases[i].score, NULL), cases[i].want);
	}
	/* the largest doubles below each bound still fall in the class below */
	assert_int_equal(ct_class_of(nextafter(80.0, 0.0), NULL), CT_P1);
	assert_int_equal(ct_class_of(nextafter(60.0, 0.0), NULL), CT_P2);
	assert_int_equal(ct_class_of(nextafter(40.0, 0.0), NULL), CT_P3);
}

/* NaN compares false with every bound, so it falls to the last class. */
static void class_of_nan_is_p3(void **state)
{
	const struct ct_class_bounds d = CT_CLASS_BOUNDS_DEFAULT;
	assert_int_equal(ct_class_of(NAN, &d), CT_P3);
	assert_int_equal(ct_class_of(NAN, NULL), CT_P3);
}

/* Custom bounds 90/50/10: the same half-open rule with other numbers. */
static void class_of_custom_bounds(void **state)
{
	const struct ct_class_bounds b = {90.0, 50.0, 10.0};
	assert_int_equal(ct_class_bounds_check(&b, NULL), CT_OK);
	assert_int_equal(ct_class_of(95.0, &b), CT_P0);
	assert_int_equal(ct_class_of(90.0, &b), CT_P0);
	assert_int_equal(ct_class_of(89.9, &b), CT_P1);
	assert_int_equal(ct_class_of(80.0, &b), CT_P1); /* P0 with defaults */
	assert_int_equal(ct_class_of(50.0, &b), CT_P1);
	assert_int_equal(ct_class_of(49.9, &b), CT_P2);
	assert_int_equal(ct_class_of(10.0, &b), CT_P2);
	assert_int_equal(ct_class_of(9.99, &b), CT_P3);
}

/* Bounds that fail ct_class_bounds_check still give a defined class: the
 * number of bounds the score does not reach, i.e. the bounds taken in
 * sorted order. {40, 60, 80}: 90 P0, 70 P1 (not P0, though 70 >= p0 = 40),
 * 50 P2, 30 P3; a NaN bound is never reached; higher never ranks lower. */
static void class_of_unchecked_bounds(void **state)
{
	const struct ct_class_bounds inc = {40.0, 60.0, 80.0};
	assert_int_equal(ct_class_of(90.0, &inc), CT_P0);
	assert_int_equal(ct_class_of(80.0, &inc), CT_P0);
	assert_int_equal(ct_class_of(70.0, &inc), CT_P1);
	assert_int_equal(ct_class_of(50.0, &inc), CT_P2);
	assert_int_equal(ct_class_of(30.0, &inc), CT_P3);
	const struct ct_class_bounds nan1 = {80.0, NAN, 40.0};
	assert_int_equal(ct_class_of(100.0, &nan1), CT_P1);
	assert_int_equal(ct_class_of(50.0, &nan1), CT_P2);
	assert_int_equal(ct_class_of(NAN, &inc), CT_P3);
	const struct ct_class_bounds swap = {60.0, 80.0, 40.0};
	ct_class prev = CT_P3;
	for (double s = 0.0; s <= 100.0; s += 0.5) {
		ct_class c = ct_class_of(s, &swap);
		assert_true(c <= prev);
		prev = c;
	}
	assert_int_equal(ct_class_of(70.0, &swap), CT_P1);
}

static void bounds_check_refuses_bad_bounds(void **state)
{
	struct ct_error err = {{0}};
	const struct ct_class_bounds ok = CT_CLASS_BOUNDS_DEFAULT;
	assert_int_equal(ct_class_bounds_check(&ok, &err), CT_OK);
	/* the whole scale may be used: 100 > 50 > 0 */
	const struct ct_class_bounds edges = {100.0, 50.0, 0.0};
	assert_int_equal(ct_class_bounds_check(&edges, &err), CT_OK);

	/* not strictly decreasing from p0 to p2: equal or increasing */
	const struct ct_class_bounds eq01 = {80.0, 80.0, 40.0};
	assert_int_equal(ct_class_bounds_check(&eq01, &err), CT_EINVAL);
	assert_non_null(strstr(err.msg, "strictly"));
	const struct ct_class_bounds eq12 = {80.0, 60.0, 60.0};
	assert_int_equal(ct_class_bounds_check(&eq12, &err), CT_EINVAL);
	const struct ct_class_bounds inc = {40.0, 60.0, 80.0};
	assert_int_equal(ct_class_bounds_check(&inc, &err), CT_EINVAL);
	const struct ct_class_bounds swap = {60.0, 80.0, 40.0};
	assert_int_equal(ct_class_bounds_check(&swap, &err), CT_EINVAL);

	/* outside 0..100 or not a number: the message names bound and value */
	const struct ct_class_bounds hi = {101.0, 60.0, 40.0};
	assert_int_equal(ct_class_bounds_check(&hi, &err), CT_ERANGE);
	assert_non_null(strstr(err.msg, "p0"));
	assert_non_null(strstr(err.msg, "101"));
	const struct ct_class_bounds lo = {80.0, 60.0, -1.0};
	assert_int_equal(ct_class_bounds_check(&lo, &err), CT_ERANGE);
	assert_non_null(strstr(err.msg, "p2"));
	assert_non_null(strstr(err.msg, "-1"));
	const struct ct_class_bounds just = {100.00000001, 60.0, 40.0};
	assert_int_equal(ct_class_bounds_check(&just, &err), CT_ERANGE);
	assert_string_equal(err.msg,
			    "class bound p0 = 100.00000001: must be a number in 0..100");
	const struct ct_class_bounds nan1 = {80.0, NAN, 40.0};
	assert_int_equal(ct_class_bounds_check(&nan1, &err), CT_ERANGE);
	assert_non_null(strstr(err.msg, "p1"));
	const struct ct_class_bounds inf0 = {INFINITY, 60.0, 40.0};
	assert_int_equal(ct_class_bounds_check(&inf0, &err), CT_ERANGE);
	/* a NULL error is allowed */
	assert_int_equal(ct_class_bounds_check(&inf0, NULL), CT_ERANGE);
}

static void class_names_and_parse(void **state)
{
	static const char *const names[] = {"P0", "P1", "P2", "P3"};
	for (int c = 0; c < CT_CLASS_COUNT; c++) {
		ct_class got = CT_P3;
		assert_string_equal(ct_class_name((ct_class)c), names[c]);
		assert_true(ct_class_parse(names[c], &got));
		assert_int_equal(got, c);
		const char digit[2] = {(char)('0' + c), '\0'};
		got = (ct_class)(3 - c);
		assert_true(ct_class_parse(digit, &got));
		assert_int_equal(got, c);
		assert_true(strlen(ct_class_label((ct_class)c)) > 0);
		assert_true(strlen(ct_class_action((ct_class)c)) > 0);
	}
	ct_class got = CT_P2;
	assert_true(ct_class_parse("p1", &got));
	assert_int_equal(got, CT_P1);
	static const char *const bad[] = {"P4", "4", "", "P", "P01", "P0 ", "x"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		assert_false(ct_class_parse(bad[i], &got));
	assert_false(ct_class_parse(NULL, &got));
	/* seed 003's actions */
	assert_string_equal(ct_class_action(CT_P0), "P0: crawl now, profile + list");
	assert_string_equal(ct_class_action(CT_P3), "P3: defer, weekly tiny sample");
}

/* Each level of the order decides only when the levels above tie. */
static void task_key_cmp_levels(void **state)
{
	/* job priority first: priority 1 with score 0 beats priority 2 with 100 */
	struct ct_task_key a = {1, 0.0, 900, 9}, b = {2, 100.0, 100, 1};
	assert_true(ct_task_key_cmp(&a, &b) < 0);
	assert_true(ct_task_key_cmp(&b, &a) > 0);
	/* same priority: higher score first, even if discovered later */
	a = (struct ct_task_key){5, 90.0, 900, 9};
	b = (struct ct_task_key){5, 10.0, 100, 1};
	assert_true(ct_task_key_cmp(&a, &b) < 0);
	assert_true(ct_task_key_cmp(&b, &a) > 0);
	/* same priority and score: earlier discovery first, even with a higher id */
	a = (struct ct_task_key){5, 50.0, 100, 9};
	b = (struct ct_task_key){5, 50.0, 200, 1};
	assert_true(ct_task_key_cmp(&a, &b) < 0);
	assert_true(ct_task_key_cmp(&b, &a) > 0);
	/* all else equal: lower id first */
	a = (struct ct_task_key){5, 50.0, 100, 1};
	b = (struct ct_task_key){5, 50.0, 100, 2};
	assert_true(ct_task_key_cmp(&a, &b) < 0);
	assert_true(ct_task_key_cmp(&b, &a) > 0);
	/* the same key */
	b = a;
	assert_int_equal(ct_task_key_cmp(&a, &b), 0);
	/* a tiny score difference still decides */
	a = (struct ct_task_key){5, nextafter(50.0, 100.0), 900, 9};
	b = (struct ct_task_key){5, 50.0, 100, 1};
	assert_true(ct_task_key_cmp(&a, &b) < 0);
	/* 64-bit times and ids compare without overflow */
	a = (struct ct_task_key){5, 50.0, INT64_MIN, INT64_MAX};
	b = (struct ct_task_key){5, 50.0, INT64_MAX, INT64_MIN};
	assert_true(ct_task_key_cmp(&a, &b) < 0);
	a.discovered_ms = b.discovered_ms;
	assert_true(ct_task_key_cmp(&a, &b) > 0); /* id INT64_MAX after INT64_MIN */
}

static int qsort_cmp(const void *a, const void *b)
{
	return ct_task_key_cmp(a, b);
}

/* A NaN score is handed out after every number of its job priority, in
 * both argument orders (cmp(NaN, 50) > 0 and cmp(50, NaN) < 0), two NaNs
 * go by discovery time, and qsort puts the NaN keys last. */
static void task_key_cmp_nan_last(void **state)
{
	struct ct_task_key n = {5, NAN, 100, 1}, f = {5, 50.0, 900, 9};
	assert_true(ct_task_key_cmp(&n, &f) > 0);
	assert_true(ct_task_key_cmp(&f, &n) < 0);
	f.score = 0.0;
	assert_true(ct_task_key_cmp(&n, &f) > 0);
	assert_true(ct_task_key_cmp(&f, &n) < 0);
	struct ct_task_key m = {5, NAN, 200, 0};
	assert_true(ct_task_key_cmp(&n, &m) < 0);
	assert_true(ct_task_key_cmp(&m, &n) > 0);
	assert_int_equal(ct_task_key_cmp(&n, &n), 0);
	/* job priority still comes first */
	struct ct_task_key urgent = {1, NAN, 100, 1};
	assert_true(ct_task_key_cmp(&urgent, &f) < 0);

	struct ct_task_key k[9];
	for (int i = 0; i < 9; i++)
		k[i] = (struct ct_task_key){5, i % 3 == 0 ? NAN : 10.0 * i, 100, i};
	qsort(k, 9, sizeof k[0], qsort_cmp);
	/* 80, 70, 50, 40, 20, 10, then the NaNs by id 0, 3, 6 */
	const int64_t want[] = {8, 7, 5, 4, 2, 1, 0, 3, 6};
	for (int i = 0; i < 9; i++)
		assert_int_equal(k[i].id, want[i]);
}

/* qsort with the comparator gives the documented hand-out order. */
static void task_key_qsort_order(void **state)
{
	struct ct_task_key k[] = {
		{5, 50.0, 300, 1},  /* prio 5, score 50, t 300 */
		{2, 10.0, 999, 2},  /* prio 2: before every prio 5 task */
		{5, 80.0, 500, 3},  /* prio 5, best score */
		{5, 50.0, 100, 4},  /* prio 5, score 50, earliest */
		{10, 100.0, 0, 5},  /* prio 10: last despite score 100 */
		{5, 50.0, 300, 0},  /* ties with id 1 except id: before it */
		{2, 60.0, 999, 6},  /* prio 2, higher score than id 2 */
		{5, 79.9, 100, 7},  /* prio 5, second best score */
	};
	const size_t n = sizeof k / sizeof k[0];
	/* Expected by hand: prio 2 {6 (60), 2 (10)}; prio 5 by score
	 * {3 (80), 7 (79.9), then score 50 by time: 4 (100), then t 300 by id:
	 * 0, 1}; prio 10 {5}. */
	const int64_t want[] = {6, 2, 3, 7, 4, 0, 1, 5};
	qsort(k, n, sizeof k[0], qsort_cmp);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(k[i].id, want[i]);
}

/* 50 x 25 / (p + 25) for p >= 0, 100 - 50 x 25 / (25 - p) below:
 * p = 0 -> 50; p = -25 -> 100 - 1250/50 = 75; p = 25 -> 1250/50 = 25. */
static void frontier_anchor_points(void **state)
{
	ASSERT_NEAR(ct_score_from_frontier(0.0), 50.0, 1e-12);
	ASSERT_NEAR(ct_score_from_frontier(-25.0), 75.0, 1e-12);
	ASSERT_NEAR(ct_score_from_frontier(25.0), 25.0, 1e-12);
	/* p = 6.25 -> 1250 / 31.25 = 40, the P2 bound */
	ASSERT_NEAR(ct_score_from_frontier(6.25), 40.0, 1e-12);
	/* the seed's "other" offset +5,000,000 lands near 0, country -5000
	 * near 100, both strictly inside the scale */
	double lo = ct_score_from_frontier(5e6), hi = ct_score_from_frontier(-5000);
	assert_true(lo > 0.0 && lo < 0.001); /* 1250 / 5000025 = 2.5e-4 */
	assert_true(hi < 100.0 && hi > 99.75); /* 100 - 1250/5025 = 99.7512 */
}

/* Strictly decreasing over every integer priority in -6000..5e6. */
static void frontier_decreasing_on_integers(void **state)
{
	double prev = ct_score_from_frontier(-6000.0);
	assert_true(prev > 0.0 && prev < 100.0);
	for (long p = -5999; p <= 5000001; p++) {
		double s = ct_score_from_frontier((double)p);
		if (!(s < prev))
			fail_msg("score(%ld) = %.17g is not below score(%ld) = %.17g",
				 p, s, p - 1, prev);
		assert_true(s > 0.0);
		prev = s;
	}
}

/* In double precision the mapping is monotone but not one-to-one: a lower
 * priority never gets a lower score, but neighbouring priorities can share
 * one, so the order of two tasks must be decided on the score (what the
 * store sorts by), never on the raw priority. Random non-integer pairs
 * over 1e-3..1e7 in magnitude never invert. */
static void frontier_monotone_not_injective(void **state)
{
	unsigned x = 777;
	for (int i = 0; i < 1000000; i++) {
		x = x * 1103515245u + 12345u;
		double mag = pow(10.0, (double)(x >> 8) / 16777216.0 * 10.0 - 3.0);
		double p = (x & 1) ? -mag : mag;
		x = x * 1103515245u + 12345u;
		double q = p + fabs(p) * ((double)(x >> 8) / 16777216.0) * 1e-15 *
			   (double)(1 + (x & 15));
		if (!(q >= p))
			continue;
		if (!(ct_score_from_frontier(p) >= ct_score_from_frontier(q)))
			fail_msg("p %.17g < q %.17g but score(p) %.17g < score(q) %.17g",
				 p, q, ct_score_from_frontier(p),
				 ct_score_from_frontier(q));
	}
	/* nav 10 + bias 0.3 - reuse 0.6 and nav 10 - reuse 0.3: two doubles,
	 * one score; the store orders them by discovery time */
	const double px = 10.0 + 0.3 - 0.6, py = 10.0 - 0.3;
	assert_true(py < px);
	assert_true(ct_score_from_frontier(px) == ct_score_from_frontier(py));
	const struct ct_task_key kx = {5, ct_score_from_frontier(px), 1000, 2};
	const struct ct_task_key ky = {5, ct_score_from_frontier(py), 2000, 1};
	assert_true(ct_task_key_cmp(&kx, &ky) < 0);
	/* 100 - 1250 / (25 - p) rounds to 100 once 1250 / (25 - p) is below
	 * half an ulp of 100 (2^-47), at p = -1.76e17: -2e17 scores exactly 100 */
	assert_true(ct_score_from_frontier(-2e17) == 100.0);
	assert_true(ct_score_from_frontier(-1e300) == 100.0);
	assert_true(ct_score_from_frontier(-1e17) < 100.0);
}

static double rel_err(double got, double want)
{
	double d = fabs(got - want);
	return want == 0.0 ? d : d / fabs(want);
}

/* ct_frontier_from_score inverts ct_score_from_frontier to 1e-9 relative
 * (absolute at p = 0). */
static void frontier_round_trip(void **state)
{
	for (long p = -6000; p <= 6000; p++) {
		double back = ct_frontier_from_score(ct_score_from_frontier((double)p));
		if (!(rel_err(back, (double)p) <= 1e-9))
			fail_msg("round trip of %ld gave %.17g", p, back);
	}
	for (double p = 6000.0; p <= 5e6; p *= 1.01) {
		double back = ct_frontier_from_score(ct_score_from_frontier(p));
		if (!(rel_err(back, p) <= 1e-9))
			fail_msg("round trip of %.17g gave %.17g", p, back);
	}
	const double big[] = {5000000.0, 5000001.0, -5000.0, -3000.0, 0.25, -0.25};
	for (size_t i = 0; i < sizeof big / sizeof big[0]; i++) {
		double back = ct_frontier_from_score(ct_score_from_frontier(big[i]));
		if (!(rel_err(back, big[i]) <= 1e-9))
			fail_msg("round trip of %.17g gave %.17g", big[i], back);
	}
	/* the ends of the scale and its middle */
	assert_true(ct_frontier_from_score(50.0) == 0.0);
	assert_true(isinf(ct_frontier_from_score(0.0)) &&
		    ct_frontier_from_score(0.0) > 0);
	assert_true(isinf(ct_frontier_from_score(100.0)) &&
		    ct_frontier_from_score(100.0) < 0);
	ASSERT_NEAR(ct_frontier_from_score(75.0), -25.0, 1e-9);
	ASSERT_NEAR(ct_frontier_from_score(25.0), 25.0, 1e-9);
}

/* Hierarchy score h in 0..1 maps to h x 100; the chain 1, 0.8, 0.64,
 * 0.512, 0.4096, 0.32768 lands in P0, P0, P1, P2, P2, P3. */
static void hierarchy_to_scale(void **state)
{
	ASSERT_NEAR(ct_score_from_hierarchy(1.0), 100.0, 1e-12);
	ASSERT_NEAR(ct_score_from_hierarchy(0.5), 50.0, 1e-12);
	ASSERT_NEAR(ct_score_from_hierarchy(0.1), 10.0, 1e-12);
	ASSERT_NEAR(ct_score_from_hierarchy(0.0), 0.0, 0.0);
	static const struct {
		double h;
		ct_class want;
	} chain[] = {
		{1.0, CT_P0}, {0.8, CT_P0}, {0.64, CT_P1}, {0.512, CT_P2},
		{0.4096, CT_P2}, {0.32768, CT_P3}, {0.1, CT_P3},
	};
	for (size_t i = 0; i < sizeof chain / sizeof chain[0]; i++) {
		double s = ct_score_from_hierarchy(chain[i].h);
		ASSERT_NEAR(s, chain[i].h * 100.0, 1e-9);
		assert_int_equal(ct_class_of(s, NULL), chain[i].want);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(class_of_default_bounds),
		cmocka_unit_test(class_of_nan_is_p3),
		cmocka_unit_test(class_of_custom_bounds),
		cmocka_unit_test(class_of_unchecked_bounds),
		cmocka_unit_test(bounds_check_refuses_bad_bounds),
		cmocka_unit_test(class_names_and_parse),
		cmocka_unit_test(task_key_cmp_levels),
		cmocka_unit_test(task_key_qsort_order),
		cmocka_unit_test(task_key_cmp_nan_last),
		cmocka_unit_test(frontier_anchor_points),
		cmocka_unit_test(frontier_decreasing_on_integers),
		cmocka_unit_test(frontier_monotone_not_injective),
		cmocka_unit_test(frontier_round_trip),
		cmocka_unit_test(hierarchy_to_scale),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
