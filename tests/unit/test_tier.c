/* test_tier.c: job priority 1..10 (seed 001; include/crawltop/tier.h).
 * 1 is most urgent, 5 the default; 0 and 11 are errors, never clamped. */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "crawltop/tier.h"

static void valid_range(void **state)
{
	for (long p = 1; p <= 10; p++)
		assert_true(ct_priority_valid(p));
	assert_false(ct_priority_valid(0));
	assert_false(ct_priority_valid(11));
	assert_false(ct_priority_valid(-1));
	assert_false(ct_priority_valid(LONG_MAX));
	assert_false(ct_priority_valid(LONG_MIN));
	assert_int_equal(CT_PRIORITY_MIN, 1);
	assert_int_equal(CT_PRIORITY_MAX, 10);
	assert_int_equal(CT_PRIORITY_DEFAULT, 5);
	assert_true(ct_priority_valid(CT_PRIORITY_DEFAULT));
}

static void parse_accepts_1_to_10(void **state)
{
	static const char *const text[] = {"1", "2", "3", "4", "5", "6", "7",
					   "8", "9", "10"};
	for (int i = 0; i < 10; i++) {
		int out = -1;
		struct ct_error err = {{0}};
		assert_int_equal(ct_priority_parse(text[i], &out, &err), CT_OK);
		assert_int_equal(out, i + 1);
	}
}

/* A refused value leaves *out alone and the message names the value and
 * the rule (1..10). */
static void expect_refused(const char *text, ct_status want, const char *named)
{
	int out = 42;
	struct ct_error err = {{0}};
	assert_int_equal(ct_priority_parse(text, &out, &err), want);
	assert_int_equal(out, 42);
	if (!strstr(err.msg, named))
		fail_msg("message for '%s' does not name '%s': %s", text, named,
			 err.msg);
	assert_non_null(strstr(err.msg, "1..10"));
}

static void parse_refuses_out_of_range(void **state)
{
	/* whole numbers outside 1..10: never clamped */
	expect_refused("0", CT_ERANGE, "priority 0");
	expect_refused("11", CT_ERANGE, "priority 11");
	expect_refused("-3", CT_ERANGE, "-3");
	expect_refused("100", CT_ERANGE, "100");
}

static void parse_refuses_non_integers(void **state)
{
	expect_refused("x", CT_EINVAL, "'x'");
	expect_refused("5.5", CT_EINVAL, "'5.5'");
	expect_refused("5x", CT_EINVAL, "'5x'");
	expect_refused("5 ", CT_EINVAL, "'5 '");
	/* whole-string decimal: leading blanks are refused like trailing ones */
	expect_refused(" 5", CT_EINVAL, "' 5'");
	expect_refused("\t5", CT_EINVAL, "'\t5'");
	expect_refused("", CT_EINVAL, "empty");
	/* overflows long: refused as text, not wrapped into range */
	expect_refused("99999999999999999999", CT_EINVAL, "99999999999999999999");
	expect_refused("18446744073709551621", CT_EINVAL, "18446744073709551621");
	int out = 42;
	assert_int_equal(ct_priority_parse(NULL, &out, NULL), CT_EINVAL);
	assert_int_equal(out, 42);
}

/* Seed 001's guidelines. */
static void labels(void **state)
{
	assert_string_equal(ct_priority_label(2), "User-initiated urgent crawls");
	assert_string_equal(ct_priority_label(1), "Critical system tasks");
	assert_non_null(strstr(ct_priority_label(5), "default"));
	for (int p = 1; p <= 10; p++)
		assert_true(strlen(ct_priority_label(p)) > 0);
	assert_string_equal(ct_priority_label(0), "invalid priority");
	assert_string_equal(ct_priority_label(11), "invalid priority");
	assert_string_equal(ct_priority_label(-1), "invalid priority");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(valid_range),
		cmocka_unit_test(parse_accepts_1_to_10),
		cmocka_unit_test(parse_refuses_out_of_range),
		cmocka_unit_test(parse_refuses_non_integers),
		cmocka_unit_test(labels),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
