/* test_discovery.c: seed 003's DiscoveryScore with SPEC.md's rules
 * (include/crawltop/discovery.h): weights summing to 1 within 1e-6,
 * score = round6(100 x sum(weight x subscore)), classes 80/60/40, backoff
 * 6/12/24/48 (P2) and twice that (P3), and the raw-signal -> sub-score
 * functions of discovery.c. */
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "crawltop/discovery.h"

#include "near.h"

static struct ct_discovery_result score_subs(const double sub[CT_SUB_COUNT])
{
	struct ct_discovery_params p;
	struct ct_discovery_result r;
	struct ct_error err = {{0}};
	ct_discovery_params_default(&p);
	ct_status st = ct_discovery_score(&p, NULL, sub, &r, &err);
	if (st != CT_OK)
		fail_msg("ct_discovery_score failed: %s", err.msg);
	return r;
}

static void fill(double sub[CT_SUB_COUNT], double x)
{
	for (int i = 0; i < CT_SUB_COUNT; i++)
		sub[i] = x;
}

/* Seed 003: 0.28 + 0.20 + 0.16 + 0.14 + 0.10 + 0.06 + 0.04 + 0.02 = 1. */
static void default_weights(void **state)
{
	static const double want[CT_SUB_COUNT] = {0.28, 0.20, 0.16, 0.14,
						  0.10, 0.06, 0.04, 0.02};
	static const char *const env[CT_SUB_COUNT] = {
		"RANK_WEIGHTS_UNSEEN", "RANK_WEIGHTS_HOST_NOVELTY",
		"RANK_WEIGHTS_CONTENT_READY", "RANK_WEIGHTS_LINK_YIELD",
		"RANK_WEIGHTS_SOURCE_REL", "RANK_WEIGHTS_FRESHNESS",
		"RANK_WEIGHTS_SAFETY", "RANK_WEIGHTS_TOPIC"};
	struct ct_discovery_params p;
	ct_discovery_params_default(&p);
	double total = 0.0;
	for (int i = 0; i < CT_SUB_COUNT; i++) {
		assert_true(ct_subscore_default_weight((ct_subscore)i) == want[i]);
		assert_true(p.weights[i] == want[i]);
		assert_string_equal(ct_subscore_env((ct_subscore)i), env[i]);
		total += want[i];
		ct_subscore s = CT_SUB_COUNT;
		assert_true(ct_subscore_parse(ct_subscore_name((ct_subscore)i), &s));
		assert_int_equal(s, i);
		assert_true(strlen(ct_subscore_title((ct_subscore)i)) > 0);
	}
	ASSERT_NEAR(total, 1.0, 1e-12);
	double sum = -1.0;
	struct ct_error err = {{0}};
	assert_int_equal(ct_discovery_weights_check(p.weights, &sum, &err), CT_OK);
	ASSERT_NEAR(sum, 1.0, 1e-12);
	assert_true(p.backoff.start_hours == 6.0 && p.backoff.max_hours == 48.0 &&
		    p.backoff.multiplier == 2.0);
	assert_int_equal(ct_backoff_params_check(&p.backoff, NULL), CT_OK);
	ct_subscore s = CT_SUB_TOPIC;
	assert_false(ct_subscore_parse("unseen", &s));
	assert_false(ct_subscore_parse(NULL, &s));
	assert_int_equal(s, CT_SUB_TOPIC);
	assert_string_equal(ct_subscore_name(CT_SUB_UNSEEN), "unseen_likelihood");
}

/* All sub-scores equal to x score 100 x (sum of weights) x x = 100x once
 * rounded to 6 decimals: the score equals the decimal it names exactly and
 * lands in the class that decimal names (P0 >= 80, P1 >= 60, P2 >= 40). */
static void class_bounds_through_subscores(void **state)
{
	static const struct {
		double x, want;
		ct_class cls;
	} cases[] = {
		{0.0, 0.0, CT_P3},
		{0.39999999, 39.999999, CT_P3},
		{0.4, 40.0, CT_P2},
		{0.59999999, 59.999999, CT_P2},
		{0.6, 60.0, CT_P1},
		{0.79999999, 79.999999, CT_P1},
		{0.8, 80.0, CT_P0},
		{1.0, 100.0, CT_P0},
		{0.123456, 12.3456, CT_P3},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		double sub[CT_SUB_COUNT];
		fill(sub, cases[i].x);
		struct ct_discovery_result r = score_subs(sub);
		if (r.score != cases[i].want)
			fail_msg("x = %.17g: score %.17g, expected %.17g",
				 cases[i].x, r.score, cases[i].want);
		assert_int_equal(r.cls, cases[i].cls);
		for (int k = 0; k < CT_SUB_COUNT; k++)
			assert_true(r.subscores[k] == cases[i].x);
	}
}

/* Mixed decimal sub-scores whose exact weighted sum is 40, 60 or 80 but
 * whose binary sum falls just below it (39.999999999999993 and so on):
 * the 6-decimal rounding puts them in the class they name.
 *   40: 20x0.6 + 16x0.7 + 14x0.3 + 10x0.3 + 6x0.6 + 4x1 + 2x1
 *       = 12 + 11.2 + 4.2 + 3 + 3.6 + 4 + 2 = 40
 *   60: 28x.44 + 20x.84 + 16x.08 + 14x.66 + 10x1 + 6x.88 + 4x.83 + 2x.88
 *       = 12.32 + 16.8 + 1.28 + 9.24 + 10 + 5.28 + 3.32 + 1.76 = 60
 *   80: 28x.97 + 20x.93 + 16x.58 + 14x.91 + 10x.77 + 6x.36 + 4x.16 + 2x.86
 *       = 27.16 + 18.6 + 9.28 + 12.74 + 7.7 + 2.16 + 0.64 + 1.72 = 80 */
static void rounding_puts_exact_decimals_in_their_class(void **state)
{
	static const struct {
		double sub[CT_SUB_COUNT], want;
		ct_class cls;
	} cases[] = {
		{{0.0, 0.6, 0.7, 0.3, 0.3, 0.6, 1.0, 1.0}, 40.0, CT_P2},
		{{0.44, 0.84, 0.08, 0.66, 1.0, 0.88, 0.83, 0.88}, 60.0, CT_P1},
		{{0.97, 0.93, 0.58, 0.91, 0.77, 0.36, 0.16, 0.86}, 80.0, CT_P0},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		/* the unrounded binary sum, in seed order, is below the bound:
		 * without the rounding the class would be one lower */
		double raw = 0.0;
		for (int k = 0; k < CT_SUB_COUNT; k++)
			raw += ct_subscore_default_weight((ct_subscore)k) *
			       cases[i].sub[k];
		assert_true(100.0 * raw < cases[i].want);
		assert_int_equal(ct_class_of(100.0 * raw, NULL), cases[i].cls + 1);
		struct ct_discovery_result r = score_subs(cases[i].sub);
		if (r.score != cases[i].want)
			fail_msg("case %zu: score %.17g, expected %g", i, r.score,
				 cases[i].want);
		assert_int_equal(r.cls, cases[i].cls);
	}
}

static ct_status check_with(ct_subscore which, double w, double *sum,
			    struct ct_error *err)
{
	double weights[CT_SUB_COUNT];
	for (int i = 0; i < CT_SUB_COUNT; i++)
		weights[i] = ct_subscore_default_weight((ct_subscore)i);
	weights[which] = w;
	return ct_discovery_weights_check(weights, sum, err);
}

/* Sum within 1e-6 of 1, inclusive. Changing the topic weight 0.02 by
 * -0.000001 / +0.000001 gives 0.999999 / 1.000001 (accepted); by
 * -0.000002 / +0.000002 or -0.0001 gives 0.999998 / 1.000002 / 0.9999
 * (refused). */
static void weight_sums(void **state)
{
	struct ct_error err = {{0}};
	double sum = 0.0;
	assert_int_equal(check_with(CT_SUB_TOPIC, 0.019999, &sum, &err), CT_OK);
	ASSERT_NEAR(sum, 0.999999, 1e-12);
	assert_int_equal(check_with(CT_SUB_TOPIC, 0.020001, &sum, &err), CT_OK);
	ASSERT_NEAR(sum, 1.000001, 1e-12);
	assert_int_equal(check_with(CT_SUB_UNSEEN, 0.279999, &sum, &err), CT_OK);
	assert_int_equal(check_with(CT_SUB_UNSEEN, 0.280001, &sum, &err), CT_OK);
	assert_int_equal(check_with(CT_SUB_TOPIC, 0.019998, &sum, &err), CT_EINVAL);
	assert_int_equal(check_with(CT_SUB_TOPIC, 0.020002, &sum, &err), CT_EINVAL);
	assert_int_equal(check_with(CT_SUB_TOPIC, 0.0199, &sum, &err), CT_EINVAL);
	ASSERT_NEAR(sum, 0.9999, 1e-12);
	assert_non_null(strstr(err.msg, "0.9999"));
	assert_int_equal(check_with(CT_SUB_TOPIC, 0.0201, &sum, &err), CT_EINVAL);
	assert_non_null(strstr(err.msg, "1.0001"));
	/* just outside the tolerance: the sum is written with the digits that
	 * show why it failed (not "1.000001"), and reads back as the sum */
	assert_int_equal(check_with(CT_SUB_TOPIC, 0.0200014, &sum, &err), CT_EINVAL);
	const char *at = strstr(err.msg, "sum to ");
	assert_non_null(at);
	char *end;
	double shown = strtod(at + strlen("sum to "), &end);
	assert_true(shown == sum);
	assert_true(fabs(shown - 1.0) > 1e-6);
	assert_string_equal(end, ", must be 1 within 1e-6");
	/* a NULL sum pointer is allowed */
	assert_int_equal(check_with(CT_SUB_TOPIC, 0.02, NULL, NULL), CT_OK);
}

/* The seed's own export: unseen 0.35, host novelty 0.25, others default:
 * 0.35 + 0.25 + 0.16 + 0.14 + 0.10 + 0.06 + 0.04 + 0.02 = 1.12, refused,
 * the message naming the sum. */
static void seed_example_weights_refused(void **state)
{
	double w[CT_SUB_COUNT];
	for (int i = 0; i < CT_SUB_COUNT; i++)
		w[i] = ct_subscore_default_weight((ct_subscore)i);
	w[CT_SUB_UNSEEN] = 0.35;
	w[CT_SUB_HOST_NOVELTY] = 0.25;
	double sum = 0.0;
	struct ct_error err = {{0}};
	assert_int_equal(ct_discovery_weights_check(w, &sum, &err), CT_EINVAL);
	ASSERT_NEAR(sum, 1.12, 1e-12);
	if (!strstr(err.msg, "1.12"))
		fail_msg("message does not name the sum 1.12: %s", err.msg);
}

/* Negative or non-finite weights are refused even when the sum is 1, and
 * the message names the weight. */
static void bad_weights(void **state)
{
	struct ct_error err = {{0}};
	double w[CT_SUB_COUNT];
	for (int i = 0; i < CT_SUB_COUNT; i++)
		w[i] = ct_subscore_default_weight((ct_subscore)i);
	/* 0.38 + ... - 0.08 = 1 */
	w[CT_SUB_UNSEEN] = 0.38;
	w[CT_SUB_TOPIC] = -0.08;
	assert_int_equal(ct_discovery_weights_check(w, NULL, &err), CT_ERANGE);
	assert_non_null(strstr(err.msg, "topic_boost"));
	assert_int_equal(check_with(CT_SUB_SAFETY, NAN, NULL, &err), CT_ERANGE);
	assert_non_null(strstr(err.msg, "quality_safety"));
	assert_int_equal(check_with(CT_SUB_FRESHNESS, INFINITY, NULL, &err), CT_ERANGE);
	assert_non_null(strstr(err.msg, "freshness"));
	assert_int_equal(check_with(CT_SUB_LINK_YIELD, -INFINITY, NULL, &err),
			 CT_ERANGE);
	/* a zero weight is fine when the others make up the sum:
	 * 0.42 + 0.20 + 0.16 + 0 + 0.10 + 0.06 + 0.04 + 0.02 = 1 */
	for (int i = 0; i < CT_SUB_COUNT; i++)
		w[i] = ct_subscore_default_weight((ct_subscore)i);
	w[CT_SUB_UNSEEN] = 0.42;
	w[CT_SUB_LINK_YIELD] = 0.0;
	assert_int_equal(ct_discovery_weights_check(w, NULL, &err), CT_OK);
}

static void expect_sub_error(ct_subscore which, double v, const char *named)
{
	struct ct_discovery_params p;
	struct ct_discovery_result r;
	struct ct_error err = {{0}};
	double sub[CT_SUB_COUNT];
	ct_discovery_params_default(&p);
	fill(sub, 0.5);
	sub[which] = v;
	assert_int_equal(ct_discovery_score(&p, NULL, sub, &r, &err), CT_ERANGE);
	if (!strstr(err.msg, named))
		fail_msg("message does not name '%s': %s", named, err.msg);
}

/* Unchecked weights cannot give a score off 0..100 with CT_OK. All
 * sub-scores 1: a NaN weight gives NaN; unseen -5 gives 100 x (-5 + 0.72)
 * = -428; unseen 5 gives 100 x 5.72 = 572 (once clamped to 100 without a
 * word). Weights summing to 1 + 1e-6 still give 100 (clamped from
 * 100.0001). */
static void unchecked_weights_refused(void **state)
{
	static const struct {
		double w;
		const char *shown;
	} cases[] = {{NAN, "nan"}, {-5.0, "-428"}, {5.0, "572"}};
	double sub[CT_SUB_COUNT];
	fill(sub, 1.0);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct ct_discovery_params p;
		struct ct_discovery_result r;
		struct ct_error err = {{0}};
		char want[200];
		ct_discovery_params_default(&p);
		p.weights[CT_SUB_UNSEEN] = cases[i].w;
		assert_int_not_equal(ct_discovery_weights_check(p.weights, NULL, NULL),
				     CT_OK);
		assert_int_equal(ct_discovery_score(&p, NULL, sub, &r, &err), CT_EINVAL);
		snprintf(want, sizeof want, "discovery score = %s is outside 0..100: "
			 "the parameters were not checked (ct_discovery_weights_check)",
			 cases[i].shown);
		assert_string_equal(err.msg, want);
	}
	struct ct_discovery_params p;
	struct ct_discovery_result r;
	struct ct_error err = {{0}};
	ct_discovery_params_default(&p);
	p.weights[CT_SUB_TOPIC] = 0.020001;
	assert_int_equal(ct_discovery_weights_check(p.weights, NULL, NULL), CT_OK);
	assert_int_equal(ct_discovery_score(&p, NULL, sub, &r, &err), CT_OK);
	assert_true(r.score == 100.0);
}

static void subscore_out_of_range(void **state)
{
	expect_sub_error(CT_SUB_LINK_YIELD, 1.5, "link_yield");
	expect_sub_error(CT_SUB_FRESHNESS, -0.01, "freshness");
	expect_sub_error(CT_SUB_SAFETY, NAN, "quality_safety");
	expect_sub_error(CT_SUB_UNSEEN, INFINITY, "unseen_likelihood");
	expect_sub_error(CT_SUB_TOPIC, nextafter(1.0, 2.0), "topic_boost");
	/* the value as written reads back as itself, not as a bound */
	expect_sub_error(CT_SUB_TOPIC, nextafter(1.0, 2.0),
			 "sub-score topic_boost = 1.0000000000000002: must be a number in 0..1");
	expect_sub_error(CT_SUB_FRESHNESS, -1e-9,
			 "sub-score freshness = -1e-09: must be a number in 0..1");
	/* the edges 0 and 1 are fine */
	double sub[CT_SUB_COUNT];
	fill(sub, 0.0);
	sub[CT_SUB_TOPIC] = 1.0;
	struct ct_discovery_result r = score_subs(sub);
	assert_true(r.score == 2.0); /* 100 x 0.02 */
}

static void assert_reason(const struct ct_discovery_result *r, int i,
			  ct_reason_code code, const char *text)
{
	char buf[128];
	assert_true(i < r->reasons.n);
	assert_int_equal(r->reasons.r[i].code, code);
	ct_reason_format(&r->reasons.r[i], buf, sizeof buf);
	assert_string_equal(buf, text);
}

/* Reasons: the three largest contributions, then the class action.
 * Sub-scores 0.6, 1, 0, 1, 0.2, 1, 0, 0 contribute 0.168, 0.20, 0, 0.14,
 * 0.02, 0.06, 0, 0: host novelty, unseen, link yield; score
 * 100 x 0.588 = 58.8 -> P2. */
static void reasons_top_contributions_then_action(void **state)
{
	const double sub[CT_SUB_COUNT] = {0.6, 1.0, 0.0, 1.0, 0.2, 1.0, 0.0, 0.0};
	struct ct_discovery_result r = score_subs(sub);
	assert_true(r.score == 58.8);
	assert_int_equal(r.cls, CT_P2);
	assert_int_equal(r.reasons.n, 4);
	assert_reason(&r, 0, CT_R_DISC_SUBSCORE, "Host novelty 1.00 x 0.20");
	assert_reason(&r, 1, CT_R_DISC_SUBSCORE, "Unseen likelihood 0.60 x 0.28");
	assert_reason(&r, 2, CT_R_DISC_SUBSCORE, "Link yield 1.00 x 0.14");
	assert_reason(&r, 3, CT_R_DISC_CLASS, "P2: watchlist, recrawl on signals");

	/* only one non-zero contribution: it, then the action */
	double one[CT_SUB_COUNT];
	fill(one, 0.0);
	one[CT_SUB_TOPIC] = 1.0;
	r = score_subs(one);
	assert_int_equal(r.reasons.n, 2);
	assert_reason(&r, 0, CT_R_DISC_SUBSCORE, "Topic boost 1.00 x 0.02");
	assert_reason(&r, 1, CT_R_DISC_CLASS, "P3: defer, weekly tiny sample");

	/* nothing contributes: the action alone */
	fill(one, 0.0);
	r = score_subs(one);
	assert_true(r.score == 0.0);
	assert_int_equal(r.reasons.n, 1);
	assert_reason(&r, 0, CT_R_DISC_CLASS, "P3: defer, weekly tiny sample");

	/* everything at 1: the three largest weights, then P0 */
	fill(one, 1.0);
	r = score_subs(one);
	assert_int_equal(r.reasons.n, 4);
	assert_reason(&r, 0, CT_R_DISC_SUBSCORE, "Unseen likelihood 1.00 x 0.28");
	assert_reason(&r, 1, CT_R_DISC_SUBSCORE, "Host novelty 1.00 x 0.20");
	assert_reason(&r, 2, CT_R_DISC_SUBSCORE, "Content readiness 1.00 x 0.16");
	assert_reason(&r, 3, CT_R_DISC_CLASS, "P0: crawl now, profile + list");
}

/* Caller bounds 90/70/50 and weights summing to 1.000001 (score clamped
 * to 100 when every sub-score is 1). */
static void custom_bounds_and_clamp(void **state)
{
	struct ct_discovery_params p;
	struct ct_discovery_result r;
	const struct ct_class_bounds b = {90.0, 70.0, 50.0};
	double sub[CT_SUB_COUNT];
	ct_discovery_params_default(&p);
	fill(sub, 0.8);
	assert_int_equal(ct_discovery_score(&p, &b, sub, &r, NULL), CT_OK);
	assert_true(r.score == 80.0);
	assert_int_equal(r.cls, CT_P1);
	assert_reason(&r, 3, CT_R_DISC_CLASS, "P1: list on daily discovery page");

	p.weights[CT_SUB_TOPIC] = 0.020001;
	fill(sub, 1.0);
	assert_int_equal(ct_discovery_score(&p, NULL, sub, &r, NULL), CT_OK);
	assert_true(r.score == 100.0);
}

static void backoff_expect(ct_class c, int step, bool changed, bool has,
			   double hours)
{
	const struct ct_backoff_params b = CT_BACKOFF_PARAMS_DEFAULT;
	bool got_has = !has;
	double got = -1.0;
	struct ct_error err = {{0}};
	assert_int_equal(ct_backoff_hours(&b, c, step, changed, &got_has, &got,
					  &err), CT_OK);
	assert_true(got_has == has);
	if (got != hours)
		fail_msg("%s step %d%s: %.17g h, expected %g", ct_class_name(c),
			 step, changed ? " (NS/ASN change)" : "", got, hours);
}

/* P2: min(6 x 2^step, 48) = 6, 12, 24, 48, 48; P3 twice that: 12, 24, 48,
 * 96, 96; P0/P1 none. */
static void backoff_schedule(void **state)
{
	static const double p2[] = {6, 12, 24, 48, 48, 48};
	for (int step = 0; step < 6; step++) {
		backoff_expect(CT_P2, step, false, true, p2[step]);
		backoff_expect(CT_P3, step, false, true, 2 * p2[step]);
		backoff_expect(CT_P0, step, false, false, 0.0);
		backoff_expect(CT_P1, step, false, false, 0.0);
	}
	/* an NS or ASN change resets P2 and P3 to step 0 */
	backoff_expect(CT_P2, 3, true, true, 6);
	backoff_expect(CT_P3, 3, true, true, 12);
	backoff_expect(CT_P2, 0, true, true, 6);
	backoff_expect(CT_P1, 3, true, false, 0.0);
	/* huge steps stay capped and finite: 6 x 2^1000 overflows nothing
	 * that escapes, 2^INT_MAX is inf and still capped */
	backoff_expect(CT_P2, 1000, false, true, 48);
	backoff_expect(CT_P3, 1000, false, true, 96);
	backoff_expect(CT_P2, INT_MAX, false, true, 48);
	backoff_expect(CT_P3, INT_MAX, false, true, 96);
}

static void backoff_refuses(void **state)
{
	const struct ct_backoff_params b = CT_BACKOFF_PARAMS_DEFAULT;
	bool has = false;
	double h = -1.0;
	struct ct_error err = {{0}};
	assert_int_equal(ct_backoff_hours(&b, CT_P2, -1, false, &has, &h, &err),
			 CT_ERANGE);
	assert_non_null(strstr(err.msg, "-1"));
	assert_true(h == -1.0);
	assert_int_equal(ct_backoff_hours(&b, CT_P3, INT_MIN, true, &has, &h, &err),
			 CT_ERANGE);
	assert_int_equal(ct_backoff_hours(&b, (ct_class)4, 0, false, &has, &h, &err),
			 CT_EINVAL);
}

/* Custom schedule start 1, max 10, multiplier 3: 1, 3, 9, 10. */
static void backoff_custom_and_check(void **state)
{
	const struct ct_backoff_params b = {1.0, 10.0, 3.0};
	static const double want[] = {1, 3, 9, 10, 10};
	assert_int_equal(ct_backoff_params_check(&b, NULL), CT_OK);
	for (int step = 0; step < 5; step++) {
		bool has = false;
		double h = 0;
		assert_int_equal(ct_backoff_hours(&b, CT_P2, step, false, &has, &h,
						  NULL), CT_OK);
		assert_true(has);
		assert_true(h == want[step]);
	}
	struct ct_error err = {{0}};
	struct ct_backoff_params bad = CT_BACKOFF_PARAMS_DEFAULT;
	bad.start_hours = 0;
	assert_int_equal(ct_backoff_params_check(&bad, &err), CT_ERANGE);
	assert_non_null(strstr(err.msg, "start_hours"));
	bad = CT_BACKOFF_PARAMS_DEFAULT;
	bad.multiplier = 0.5;
	assert_int_equal(ct_backoff_params_check(&bad, &err), CT_ERANGE);
	assert_non_null(strstr(err.msg, "multiplier"));
	bad = CT_BACKOFF_PARAMS_DEFAULT;
	bad.max_hours = 5;
	assert_int_equal(ct_backoff_params_check(&bad, &err), CT_ERANGE);
	assert_non_null(strstr(err.msg, "max_hours"));
	bad = CT_BACKOFF_PARAMS_DEFAULT;
	bad.max_hours = NAN;
	assert_int_equal(ct_backoff_params_check(&bad, &err), CT_ERANGE);
	bad = CT_BACKOFF_PARAMS_DEFAULT;
	bad.multiplier = INFINITY;
	assert_int_equal(ct_backoff_params_check(&bad, &err), CT_ERANGE);
}

static void subs_of(const struct ct_discovery_signals *s, double sub[CT_SUB_COUNT])
{
	struct ct_error err = {{0}};
	ct_status st = ct_discovery_subscores(s, sub, &err);
	if (st != CT_OK)
		fail_msg("ct_discovery_subscores failed: %s", err.msg);
	for (int i = 0; i < CT_SUB_COUNT; i++)
		if (!(sub[i] >= 0.0 && sub[i] <= 1.0))
			fail_msg("sub-score %s = %.17g outside 0..1",
				 ct_subscore_name((ct_subscore)i), sub[i]);
}

/* Everything unknown or false (discovery.c): unseen = 0.35 x 0.5 (CT age
 * unknown) + 0.20 x 0 (no changes) + 0.25 x 0.5 (WHOIS unknown) + 0.20 x
 * 0.5 (backlinks unknown) = 0.4; host novelty 0; content readiness
 * (1 - 0) x 0.6 = 0.6; link yield 0; source unknown 0.5; freshness
 * unknown 0.5; safety 1; topic 0. */
static void signals_defaults(void **state)
{
	struct ct_discovery_signals s;
	double sub[CT_SUB_COUNT];
	ct_discovery_signals_init(&s);
	subs_of(&s, sub);
	ASSERT_NEAR(sub[CT_SUB_UNSEEN], 0.4, 1e-12);
	ASSERT_NEAR(sub[CT_SUB_HOST_NOVELTY], 0.0, 0.0);
	ASSERT_NEAR(sub[CT_SUB_CONTENT_READY], 0.6, 1e-12);
	ASSERT_NEAR(sub[CT_SUB_LINK_YIELD], 0.0, 0.0);
	ASSERT_NEAR(sub[CT_SUB_SOURCE_REL], 0.5, 0.0);
	ASSERT_NEAR(sub[CT_SUB_FRESHNESS], 0.5, 0.0);
	ASSERT_NEAR(sub[CT_SUB_SAFETY], 1.0, 0.0);
	ASSERT_NEAR(sub[CT_SUB_TOPIC], 0.0, 0.0);
}

/* The best possible signals give 1 everywhere and a P0 score of 100; the
 * worst give 0 where the functions allow it. */
static void signals_extremes(void **state)
{
	struct ct_discovery_signals s;
	double sub[CT_SUB_COUNT];
	ct_discovery_signals_init(&s);
	s.ct_age_hours = 0;
	s.ns_changes = 2;
	s.asn_changes = 1;
	s.whois_age_days = 0;
	s.backlinks = 0;
	s.first_seen_host = true;
	s.rare_tld = true;
	s.subdomain_depth = 3;
	s.parking_score = 0;
	s.document_path = true;
	s.document_extension = true;
	s.vendor_fingerprint = true;
	s.source = CT_SOURCE_CT;
	s.age_hours = 1;
	s.topic_match = 1;
	subs_of(&s, sub);
	for (int i = 0; i < CT_SUB_COUNT; i++)
		ASSERT_NEAR(sub[i], 1.0, 1e-12);
	struct ct_discovery_result r = score_subs(sub);
	assert_true(r.score == 100.0);
	assert_int_equal(r.cls, CT_P0);

	ct_discovery_signals_init(&s);
	s.ct_age_hours = INFINITY;
	s.whois_age_days = 1e9;
	s.backlinks = LONG_MAX;
	s.parking_score = 1;
	s.source = CT_SOURCE_SOCIAL;
	s.age_hours = INFINITY;
	s.malware = s.adult = s.for_sale = s.suspicious_tld = true;
	subs_of(&s, sub);
	assert_true(sub[CT_SUB_UNSEEN] < 0.01); /* only 0.20 / (1 + log2(2^63)) */
	assert_true(sub[CT_SUB_CONTENT_READY] == 0.0);
	assert_true(sub[CT_SUB_FRESHNESS] == 0.0);
	assert_true(sub[CT_SUB_SAFETY] == 0.0);
	ASSERT_NEAR(sub[CT_SUB_SOURCE_REL], 0.4, 0.0);
}

/* Sweep one numeric signal upwards and check the direction of one
 * sub-score: dir > 0 never decreases, dir < 0 never increases. Each sweep
 * must also move it at least once. */
typedef void (*set_fn)(struct ct_discovery_signals *s, double v);

static void sweep(set_fn set, ct_subscore which, int dir, const double *v,
		  size_t n, const char *what)
{
	double prev = 0.0, first = 0.0;
	for (size_t i = 0; i < n; i++) {
		struct ct_discovery_signals s;
		double sub[CT_SUB_COUNT];
		ct_discovery_signals_init(&s);
		set(&s, v[i]);
		subs_of(&s, sub);
		double x = sub[which];
		if (i == 0)
			first = x;
		else if (dir > 0 ? x < prev : x > prev)
			fail_msg("%s: %s goes %s from %.17g to %.17g at %g", what,
				 ct_subscore_name(which), dir > 0 ? "down" : "up",
				 prev, x, v[i]);
		prev = x;
	}
	if (prev == first)
		fail_msg("%s: %s never moves", what, ct_subscore_name(which));
}

static void set_ct_age(struct ct_discovery_signals *s, double v) { s->ct_age_hours = v; }
static void set_ns(struct ct_discovery_signals *s, double v) { s->ns_changes = (int)v; }
static void set_asn(struct ct_discovery_signals *s, double v) { s->asn_changes = (int)v; }
static void set_whois(struct ct_discovery_signals *s, double v) { s->whois_age_days = v; }
static void set_backlinks(struct ct_discovery_signals *s, double v) { s->backlinks = (long)v; }
static void set_subdomain(struct ct_discovery_signals *s, double v) { s->subdomain_depth = (int)v; }
static void set_parking(struct ct_discovery_signals *s, double v) { s->parking_score = v; }
static void set_age(struct ct_discovery_signals *s, double v) { s->age_hours = v; }
static void set_topic(struct ct_discovery_signals *s, double v) { s->topic_match = v; }

/* Documented directions (discovery.c): older CT entry, older domain, more
 * backlinks, more parking, older discovery -> lower; more NS/ASN changes,
 * deeper subdomains, more topic match -> higher (with caps). */
static void signals_monotone(void **state)
{
	static const double ages[] = {0, 1, 12, 24, 25, 48, 100, 167, 168, 169,
				      336, 337, 1000, 1e6, INFINITY};
	static const double counts[] = {0, 1, 2, 3, 4, 10, 1000, INT_MAX};
	static const double days[] = {0, 1, 30, 180, 364, 365, 366, 1e5};
	static const double links[] = {0, 1, 2, 3, 10, 100, 1e6, 1e12};
	static const double unit[] = {0, 0.1, 0.25, 0.5, 0.75, 0.9, 1};
	sweep(set_ct_age, CT_SUB_UNSEEN, -1, ages, sizeof ages / sizeof ages[0],
	      "ct_age_hours");
	sweep(set_ns, CT_SUB_UNSEEN, +1, counts, sizeof counts / sizeof counts[0],
	      "ns_changes");
	sweep(set_asn, CT_SUB_UNSEEN, +1, counts, sizeof counts / sizeof counts[0],
	      "asn_changes");
	sweep(set_whois, CT_SUB_UNSEEN, -1, days, sizeof days / sizeof days[0],
	      "whois_age_days");
	sweep(set_backlinks, CT_SUB_UNSEEN, -1, links, sizeof links / sizeof links[0],
	      "backlinks");
	sweep(set_subdomain, CT_SUB_HOST_NOVELTY, +1, counts,
	      sizeof counts / sizeof counts[0], "subdomain_depth");
	sweep(set_parking, CT_SUB_CONTENT_READY, -1, unit,
	      sizeof unit / sizeof unit[0], "parking_score");
	sweep(set_age, CT_SUB_FRESHNESS, -1, ages, sizeof ages / sizeof ages[0],
	      "age_hours");
	sweep(set_topic, CT_SUB_TOPIC, +1, unit, sizeof unit / sizeof unit[0],
	      "topic_match");

	/* NS and ASN changes together, past the cap of 3: never below the
	 * capped value, whatever the counts */
	struct ct_discovery_signals s;
	double capped[CT_SUB_COUNT], sub[CT_SUB_COUNT];
	ct_discovery_signals_init(&s);
	s.ns_changes = 3;
	subs_of(&s, capped);
	const int big[][2] = {{2, 2}, {3, 3}, {1000, 1000}, {INT_MAX, 0},
			      {INT_MAX, 1}, {INT_MAX, INT_MAX}};
	for (size_t i = 0; i < sizeof big / sizeof big[0]; i++) {
		s.ns_changes = big[i][0];
		s.asn_changes = big[i][1];
		subs_of(&s, sub);
		if (sub[CT_SUB_UNSEEN] != capped[CT_SUB_UNSEEN])
			fail_msg("ns %d + asn %d changes: unseen %.17g, expected the "
				 "capped %.17g", big[i][0], big[i][1],
				 sub[CT_SUB_UNSEEN], capped[CT_SUB_UNSEEN]);
	}
	/* freshness: 1 for the first 24 h, 0 from 14 days on */
	ct_discovery_signals_init(&s);
	s.age_hours = 24;
	subs_of(&s, sub);
	assert_true(sub[CT_SUB_FRESHNESS] == 1.0);
	s.age_hours = 14 * 24;
	subs_of(&s, sub);
	assert_true(sub[CT_SUB_FRESHNESS] == 0.0);
}

/* Boolean signals: each one moves its sub-score in the documented
 * direction, and only that one. */
static void signals_booleans(void **state)
{
	struct ct_discovery_signals s;
	double base[CT_SUB_COUNT], sub[CT_SUB_COUNT];
	ct_discovery_signals_init(&s);
	subs_of(&s, base);

	s.first_seen_host = true;
	subs_of(&s, sub);
	assert_true(sub[CT_SUB_HOST_NOVELTY] > base[CT_SUB_HOST_NOVELTY]);
	ct_discovery_signals_init(&s);
	s.rare_tld = true;
	subs_of(&s, sub);
	assert_true(sub[CT_SUB_HOST_NOVELTY] > base[CT_SUB_HOST_NOVELTY]);

	ct_discovery_signals_init(&s);
	s.document_path = true;
	subs_of(&s, sub);
	assert_true(sub[CT_SUB_CONTENT_READY] > base[CT_SUB_CONTENT_READY]);
	assert_true(sub[CT_SUB_LINK_YIELD] > base[CT_SUB_LINK_YIELD]);
	ct_discovery_signals_init(&s);
	s.document_extension = true;
	subs_of(&s, sub);
	assert_true(sub[CT_SUB_CONTENT_READY] > base[CT_SUB_CONTENT_READY]);
	assert_true(sub[CT_SUB_LINK_YIELD] > base[CT_SUB_LINK_YIELD]);
	ct_discovery_signals_init(&s);
	s.vendor_fingerprint = true;
	subs_of(&s, sub);
	assert_true(sub[CT_SUB_LINK_YIELD] > base[CT_SUB_LINK_YIELD]);
	assert_true(sub[CT_SUB_CONTENT_READY] == base[CT_SUB_CONTENT_READY]);

	/* each safety flag lowers quality/safety; all four give 0 */
	for (int f = 0; f < 4; f++) {
		ct_discovery_signals_init(&s);
		bool *flag[] = {&s.malware, &s.adult, &s.for_sale, &s.suspicious_tld};
		*flag[f] = true;
		subs_of(&s, sub);
		assert_true(sub[CT_SUB_SAFETY] < base[CT_SUB_SAFETY]);
		for (int i = 0; i < CT_SUB_COUNT; i++)
			if (i != CT_SUB_SAFETY)
				assert_true(sub[i] == base[i]);
	}

	/* source reliability: CT = RSS > CC > social (seed 003) */
	double rel[CT_SOURCE_KIND_COUNT];
	for (int k = 0; k < CT_SOURCE_KIND_COUNT; k++) {
		ct_discovery_signals_init(&s);
		s.source = (ct_source_kind)k;
		subs_of(&s, sub);
		rel[k] = sub[CT_SUB_SOURCE_REL];
	}
	assert_true(rel[CT_SOURCE_CT] == rel[CT_SOURCE_RSS]);
	assert_true(rel[CT_SOURCE_RSS] > rel[CT_SOURCE_CC]);
	assert_true(rel[CT_SOURCE_CC] > rel[CT_SOURCE_SOCIAL]);

	static const char *const kinds[] = {"unknown", "ct", "rss", "cc", "social"};
	for (int k = 0; k < CT_SOURCE_KIND_COUNT; k++) {
		ct_source_kind got = CT_SOURCE_KIND_COUNT;
		assert_true(ct_source_kind_parse(kinds[k], &got));
		assert_int_equal(got, k);
	}
	ct_source_kind got = CT_SOURCE_CT;
	assert_false(ct_source_kind_parse("twitter", &got));
	assert_false(ct_source_kind_parse(NULL, &got));
	assert_int_equal(got, CT_SOURCE_CT);
}

static void expect_signal_error(struct ct_discovery_signals s, ct_status want,
				const char *named)
{
	double sub[CT_SUB_COUNT];
	struct ct_error err = {{0}};
	assert_int_equal(ct_discovery_subscores(&s, sub, &err), want);
	if (!strstr(err.msg, named))
		fail_msg("message does not name '%s': %s", named, err.msg);
}

static void signals_refused(void **state)
{
	struct ct_discovery_signals init, s;
	ct_discovery_signals_init(&init);
	s = init;
	s.ct_age_hours = NAN;
	expect_signal_error(s, CT_ERANGE, "age");
	s = init;
	s.whois_age_days = NAN;
	expect_signal_error(s, CT_ERANGE, "age");
	s = init;
	s.age_hours = NAN;
	expect_signal_error(s, CT_ERANGE, "age");
	s = init;
	s.ns_changes = -1;
	expect_signal_error(s, CT_ERANGE, "ns_changes");
	s = init;
	s.asn_changes = -1;
	expect_signal_error(s, CT_ERANGE, "asn_changes");
	s = init;
	s.subdomain_depth = -1;
	expect_signal_error(s, CT_ERANGE, "subdomain_depth");
	s = init;
	s.parking_score = 1.5;
	expect_signal_error(s, CT_ERANGE, "parking_score");
	s = init;
	s.parking_score = NAN;
	expect_signal_error(s, CT_ERANGE, "parking_score");
	s = init;
	s.topic_match = -0.1;
	expect_signal_error(s, CT_ERANGE, "topic_match");
	s = init;
	s.source = CT_SOURCE_KIND_COUNT;
	expect_signal_error(s, CT_EINVAL, "source");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(default_weights),
		cmocka_unit_test(class_bounds_through_subscores),
		cmocka_unit_test(rounding_puts_exact_decimals_in_their_class),
		cmocka_unit_test(weight_sums),
		cmocka_unit_test(seed_example_weights_refused),
		cmocka_unit_test(bad_weights),
		cmocka_unit_test(subscore_out_of_range),
		cmocka_unit_test(unchecked_weights_refused),
		cmocka_unit_test(reasons_top_contributions_then_action),
		cmocka_unit_test(custom_bounds_and_clamp),
		cmocka_unit_test(backoff_schedule),
		cmocka_unit_test(backoff_refuses),
		cmocka_unit_test(backoff_custom_and_check),
		cmocka_unit_test(signals_defaults),
		cmocka_unit_test(signals_extremes),
		cmocka_unit_test(signals_monotone),
		cmocka_unit_test(signals_booleans),
		cmocka_unit_test(signals_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
