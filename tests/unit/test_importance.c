/* test_importance.c: the importance mode's score (include/crawltop/
 * importance.h), values worked out by hand: value = inlinks + cash x
 * discovered, score = 100 x value / (value + 10), seeds 100. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "crawltop/importance.h"

#include "near.h"

static struct ct_importance_result score(double inlinks, double cash,
					 double discovered, bool seed)
{
	struct ct_importance_input in = {inlinks, cash, discovered, seed};
	struct ct_importance_result r;
	struct ct_error err = {{0}};
	memset(&r, 0xA5, sizeof r);
	ct_status st = ct_importance_score(&in, &r, &err);
	if (st != CT_OK)
		fail_msg("ct_importance_score: %s", err.msg);
	return r;
}

static void text(const struct ct_importance_result *r, int i, char *buf,
		 size_t n)
{
	assert_true(i < r->reasons.n);
	ct_reason_format(&r->reasons.r[i], buf, n);
}

/* No link in and no cash: 0, the bottom of the scale. */
static void nothing_known(void **state)
{
	(void)state;
	struct ct_importance_result r = score(0, 0, 500, false);
	ASSERT_NEAR(r.value, 0, 0);
	ASSERT_NEAR(r.score, 0, 0);
}

/* 2 links in, cash 0.25 with 12 pages discovered: value 2 + 3 = 5,
 * score 100 x 5 / 15; the reasons say both parts. */
static void links_and_cash(void **state)
{
	(void)state;
	char buf[128];
	struct ct_importance_result r = score(2, 0.25, 12, false);
	ASSERT_NEAR(r.value, 5, 1e-12);
	ASSERT_NEAR(r.score, 100.0 / 3.0, 1e-12);
	assert_int_equal(r.reasons.n, 2);
	text(&r, 0, buf, sizeof buf);
	assert_string_equal(buf, "Linked from 2 fetched pages");
	text(&r, 1, buf, sizeof buf);
	assert_string_equal(buf, "Cash 0.25 x 12 pages discovered");
	/* a value of CT_IMPORTANCE_HALF scores 50 */
	r = score(10, 0, 1, false);
	ASSERT_NEAR(r.score, 50, 1e-12);
}

/* Each link in and each share of cash raises the score, and the
 * discovered count weighs cash against links. */
static void rises_with_every_link(void **state)
{
	(void)state;
	double last = -1;
	for (int links = 0; links < 2000; links++) {
		double s = score(links, 0.001 * links, 1000, false).score;
		if (!(s > last))
			fail_msg("%d links: %.17g, not above %.17g", links, s, last);
		assert_true(s < 100);
		last = s;
	}
	/* one link and a tenth of the cash in 100 pages (value 11) outranks
	 * three links and no cash (value 3) */
	assert_true(score(1, 0.1, 100, false).score >
		    score(3, 0, 100, false).score);
}

/* A seed page scores 100 whatever it holds, with the seed reason. */
static void seed_first(void **state)
{
	(void)state;
	char buf[128];
	struct ct_importance_result r = score(0, 0, 0, true);
	ASSERT_NEAR(r.score, 100, 0);
	assert_true(isinf(r.value));
	text(&r, 0, buf, sizeof buf);
	assert_string_equal(buf, "Seed page: before every other page");
	assert_true(score(1e9, 1, 1e9, false).score < r.score);
}

/* Cash x discovered past any double: the top of the scale, not NaN. */
static void overflow_is_top(void **state)
{
	(void)state;
	struct ct_importance_result r = score(0, 1e300, 1e300, false);
	ASSERT_NEAR(r.score, 100, 0);
}

/* Negative, infinite and NaN inputs are refused, naming the input. */
static void bad_inputs(void **state)
{
	(void)state;
	const struct {
		struct ct_importance_input in;
		const char *name;
	} bad[] = {
		{{-1, 0, 1, false}, "inlinks"},
		{{0, NAN, 1, false}, "cash"},
		{{0, -0.5, 1, false}, "cash"},
		{{0, 0, INFINITY, false}, "discovered"},
		{{INFINITY, 0, 1, true}, "inlinks"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct ct_importance_result r;
		struct ct_error err = {{0}};
		assert_int_equal(ct_importance_score(&bad[i].in, &r, &err),
				 CT_ERANGE);
		if (!strstr(err.msg, bad[i].name))
			fail_msg("case %zu: '%s' does not name %s", i, err.msg,
				 bad[i].name);
	}
}

/* A page's cash goes to its links in equal shares; no links, no share. */
static void shares(void **state)
{
	(void)state;
	ASSERT_NEAR(ct_importance_share(1.0, 4), 0.25, 0);
	ASSERT_NEAR(ct_importance_share(0.3, 3), 0.1, 1e-16);
	ASSERT_NEAR(ct_importance_share(1.0, 0), 0, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(nothing_known),
		cmocka_unit_test(links_and_cash),
		cmocka_unit_test(rises_with_every_link),
		cmocka_unit_test(seed_first),
		cmocka_unit_test(overflow_is_top),
		cmocka_unit_test(bad_inputs),
		cmocka_unit_test(shares),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
