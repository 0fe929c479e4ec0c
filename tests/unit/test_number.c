/* test_number.c: the one syntax of a typed number (number.h). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#include <cmocka.h>

#include "crawltop/number.h"

static void whole_numbers(void **state)
{
	(void)state;
	static const char *const ok[] = {"0", "7", "-3", "0010", "123456789"};
	static const char *const bad[] = {"", "-", " 3", "3 ", "+3", "0x3",
		"3.0", "1e2", "inf", "nan", "3x", "--3", "\t3"};
	for (size_t i = 0; i < sizeof ok / sizeof *ok; i++)
		if (!ct_number_text(ok[i], false))
			fail_msg("'%s' refused as a whole number", ok[i]);
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		if (ct_number_text(bad[i], false))
			fail_msg("'%s' taken as a whole number", bad[i]);
	assert_false(ct_number_text(NULL, false));
}

static void real_numbers(void **state)
{
	(void)state;
	static const char *const ok[] = {"0", "-2", "0.35", ".5", "5.", "1e-3",
		"1E+3", "-0.5e2", "100"};
	static const char *const bad[] = {"", ".", "-.", "e3", "1e", "1e+",
		" 0.3", "0.3 ", "+0.3", "0x50", "0x1p-2", "inf", "-inf", "nan",
		"1.2.3", "1,5", "1e3.5"};
	for (size_t i = 0; i < sizeof ok / sizeof *ok; i++)
		if (!ct_number_text(ok[i], true))
			fail_msg("'%s' refused as a number", ok[i]);
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		if (ct_number_text(bad[i], true))
			fail_msg("'%s' taken as a number", bad[i]);
}

/* A value is written back as the shortest %.Ng text that reads back as
 * the same double: a value just outside a range never looks like its
 * bound (1.0000001 is not "1", 1.0000014 is not "1.000001"). */
/* Reading: the text's syntax, then what a double can hold. */
static void read_refuses_what_a_double_cannot_hold(void **state)
{
	(void)state;
	double d = -1;
	assert_int_equal(ct_number_read("0.35", true, &d), CT_OK);
	assert_true(d == 0.35);
	assert_int_equal(ct_number_read("0e-400", true, &d), CT_OK);
	assert_true(d == 0);
	assert_int_equal(ct_number_read("2.2250738585072014e-308", true, &d),
			 CT_OK); /* DBL_MIN, the smallest normal double */
	assert_int_equal(ct_number_read("-12", false, &d), CT_OK);
	assert_true(d == -12);
	/* not 0, but it reads as 0 or a subnormal; too big for a double */
	assert_int_equal(ct_number_read("1e-400", true, &d), CT_ERANGE);
	assert_true(d == 0);
	assert_int_equal(ct_number_read("4e-320", true, &d), CT_ERANGE);
	assert_int_equal(ct_number_read("1e400", true, &d), CT_ERANGE);
	assert_true(isinf(d) && d > 0);
	assert_int_equal(ct_number_read("-1e400", true, &d), CT_ERANGE);
	assert_true(isinf(d) && d < 0);
	/* syntax first */
	assert_int_equal(ct_number_read("0x10", true, &d), CT_EINVAL);
	assert_int_equal(ct_number_read(" 1", true, &d), CT_EINVAL);
	assert_int_equal(ct_number_read("1.5", false, &d), CT_EINVAL);
	assert_int_equal(ct_number_read("inf", true, &d), CT_EINVAL);
	/* errno is the caller's */
	errno = EDOM;
	assert_int_equal(ct_number_read("1e-400", true, &d), CT_ERANGE);
	assert_int_equal(errno, EDOM);
}

static void format_shortest_round_trip(void **state)
{
	(void)state;
	static const struct {
		double v;
		const char *want;
	} cases[] = {
		{1.0000001, "1.0000001"}, {1.0000014, "1.0000014"},
		{0.1, "0.1"}, {100.0, "100"}, {-1.0, "-1"}, {0.0, "0"},
		{100.00000001, "100.00000001"}, {1e-7, "1e-07"},
		{5e6, "5000000"}, {1e17, "1e+17"}, {-2e16, "-20000000000000000"},
		{1.5e300, "1.5e+300"},
		{1.0 + 0x1p-52, "1.0000000000000002"},
		{1.0 / 3.0, "0.3333333333333333"},
		{10.0 + 0.3 - 0.6, "9.700000000000001"},
		{NAN, "nan"}, {INFINITY, "inf"}, {-INFINITY, "-inf"},
	};
	char buf[CT_NUMBER_BUF];
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		const char *got = ct_number_format(cases[i].v, buf);
		assert_ptr_equal(got, buf);
		assert_string_equal(got, cases[i].want);
	}
	assert_string_equal(CT_NUM(1.0000001), "1.0000001");
	/* any double: the text reads back exactly, and one digit fewer does
	 * not (shortest), within the buffer */
	unsigned long long x = 88172645463325252ULL;
	for (int i = 0; i < 200000; i++) {
		double v;
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		memcpy(&v, &x, sizeof v);
		if (!isfinite(v))
			continue;
		const char *s = ct_number_format(v, buf);
		assert_true(strlen(s) < CT_NUMBER_BUF);
		if (strtod(s, NULL) != v)
			fail_msg("%s does not read back as %.17g", s, v);
		char *e = strchr(buf, 'e');
		size_t digits = 0;
		for (const char *c = s; *c && c != e; c++)
			digits += *c >= '0' && *c <= '9';
		if (digits > 1 && !(e && fabs(v) < 1e17 && v == floor(v))) {
			char less[400];
			snprintf(less, sizeof less, "%.*g", (int)digits - 1, v);
			if (strtod(less, NULL) == v && strlen(less) < strlen(s))
				fail_msg("%s is not the shortest: %s reads back too", s, less);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(whole_numbers),
		cmocka_unit_test(real_numbers),
		cmocka_unit_test(read_refuses_what_a_double_cannot_hold),
		cmocka_unit_test(format_shortest_round_trip),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
