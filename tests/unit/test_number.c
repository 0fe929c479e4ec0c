/* test_number.c: the one syntax of a typed number (number.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(whole_numbers),
		cmocka_unit_test(real_numbers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
