/* test_locale.c: the engine's numbers in a decimal-comma locale.
 *
 * Run by in_locale.sh with LC_ALL=de_DE.UTF-8: an embedding program that
 * calls setlocale(LC_ALL, "") there gets "0,5" from printf's %g and 0 from
 * strtod("0.35"). The engine reads and writes its numbers as "0.35"
 * whatever the locale (number.h). */
#include <locale.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "crawltop/number.h"
#include "crawltop/reasons.h"
#include "crawltop/status.h"

/* The test means something only in a comma locale: check that it is one. */
static void the_locale_writes_a_comma(void **state)
{
	(void)state;
	char b[32];
	snprintf(b, sizeof b, "%g", 0.5);
	assert_string_equal(b, "0,5");
}

static void numbers_read_and_written_with_a_point(void **state)
{
	(void)state;
	double v = -1;
	assert_int_equal(ct_number_read("0.35", true, &v), CT_OK);
	assert_true(v == 0.35);
	assert_int_equal(ct_number_read("0,35", true, &v), CT_EINVAL);
	assert_int_equal(ct_number_read("1e-3", true, &v), CT_OK);
	assert_true(v == 0.001);
	char buf[CT_NUMBER_BUF];
	assert_string_equal(ct_number_format(0.35, buf), "0.35");
	assert_string_equal(ct_number_format(-1.25e-7, buf), "-1.25e-07");
	assert_string_equal(ct_number_format(100, buf), "100");
}

static void reasons_and_errors_with_a_point(void **state)
{
	(void)state;
	char b[128];
	struct ct_reason r = {CT_R_HIER_LINK, 0.8, 1.0, "/"};
	ct_reason_format(&r, b, sizeof b);
	assert_string_equal(b, "Linked from / (0.8 x 1.000)");
	struct ct_error e;
	ct_error_set(&e, CT_EINVAL, "weights sum to %g", 1.12);
	assert_string_equal(e.msg, "weights sum to 1.12");
	/* the caller's locale is as it was after each call */
	snprintf(b, sizeof b, "%g", 0.5);
	assert_string_equal(b, "0,5");
}

int main(void)
{
	setlocale(LC_ALL, "");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_locale_writes_a_comma),
		cmocka_unit_test(numbers_read_and_written_with_a_point),
		cmocka_unit_test(reasons_and_errors_with_a_point),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
