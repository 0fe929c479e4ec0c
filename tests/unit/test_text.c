/* test_text.c: the characters a terminal must not get as they are
 * (text.h): each end of every range, and their neighbours. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "crawltop/text.h"

static void invisible_characters(void **state)
{
	(void)state;
	static const unsigned long yes[] = {
		0x00AD, 0x034F, 0x061C, 0x180E, 0x200B, 0x200D, 0x200E, 0x200F,
		0x202A, 0x202E, 0x2060, 0x2066, 0x2069, 0x206F, 0xFE00, 0xFE0F,
		0xFEFF, 0xFFF9, 0xFFFB, 0x1D173, 0xE0001, 0xE0020, 0xE007F,
		0xE0100, 0xE0FFF,
	};
	static const unsigned long no[] = {
		'a', '/', '%', 0x00A0, 0x00AC, 0x00AE, 0x00E9, 0x0301, 0x200A,
		0x2010, 0x2028, 0x2029, 0x2029, 0x202F, 0x205F, 0x2070, 0xFDFF,
		0xFE10, 0xFEFE, 0xFF00, 0xFFFC, 0xFFFD, 0x1F600, 0xE1000,
		0x10FFFF,
	};
	for (size_t i = 0; i < sizeof yes / sizeof *yes; i++)
		if (!ct_char_invisible(yes[i]))
			fail_msg("U+%04lX taken as visible", yes[i]);
	for (size_t i = 0; i < sizeof no / sizeof *no; i++)
		if (ct_char_invisible(no[i]))
			fail_msg("U+%04lX taken as invisible", no[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(invisible_characters),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
