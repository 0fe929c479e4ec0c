/* test_pathrule.c: the CLI's path check (src/store/urlpath.c,
 * urlpath_check) against the store's (SQL crawltop.path_ok and url_ok),
 * which `crawltop enqueue` and `crawltop simulate` rely on to refuse a bad
 * path while reading, with file:line, before anything is written. Code
 * point by code point over U+0001..U+FFFF against one table (the white
 * space and control characters, the invisible ones, '#'): all three give
 * the table's verdict for every one, in any database locale. Then the
 * invisible ranges beyond the BMP, and a list of dot-segment, '#' and
 * length cases. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "crawltop/text.h"
#include "pgtest.h"
#include "urlpath.h"

#define LAST 0xffff

/* The UTF-8 bytes of code point c into out (at least 5 bytes). */
static void utf8(unsigned c, char *out)
{
	if (c < 0x80) {
		out[0] = (char)c;
		out[1] = '\0';
	} else if (c < 0x800) {
		out[0] = (char)(0xc0 | c >> 6);
		out[1] = (char)(0x80 | (c & 0x3f));
		out[2] = '\0';
	} else {
		out[0] = (char)(0xe0 | c >> 12);
		out[1] = (char)(0x80 | (c >> 6 & 0x3f));
		out[2] = (char)(0x80 | (c & 0x3f));
		out[3] = '\0';
	}
}

/* Whether C accepts "/a" + c + "b". */
static int c_accepts(unsigned c)
{
	char ch[5], p[16], why[200];
	utf8(c, ch);
	snprintf(p, sizeof p, "/a%sb", ch);
	return urlpath_check(p, strlen(p), 2048, why, sizeof why) == 0;
}

/* The one table of white space and control characters both sides
 * refuse, whatever the database's locale: urlpath_space_or_control's
 * (urlpath.h) and path_ok's list (0016). */
static int space_or_control(unsigned c)
{
	return c <= 0x20 || (c >= 0x7f && c <= 0xa0) || c == 0x1680 ||
	       (c >= 0x2000 && c <= 0x200a) || c == 0x2028 || c == 0x2029 ||
	       c == 0x202f || c == 0x205f || c == 0x3000;
}

/* The code points SQL expression expr (with chr(c)) refuses, as flags. */
static void sql_refused(struct ct_store *s, const char *expr,
			unsigned char *out)
{
	char sql[400];
	snprintf(sql, sizeof sql, "SELECT coalesce(string_agg(c::text, ','), '') "
		 "FROM generate_series(1, %d) c WHERE c NOT BETWEEN 55296 AND "
		 "57343 AND NOT %s", LAST, expr);
	char *refused = pgt_text(s, sql, 0, NULL);
	for (char *t = strtok(refused, ","); t; t = strtok(NULL, ","))
		out[atoi(t)] = 1;
	free(refused);
}

/* Every code point of the BMP in "/a" + c + "b": the C check, path_ok
 * and url_ok give one verdict, and it is the table's: refused exactly
 * the white space and control characters above, the invisible ones
 * (ct_char_invisible) and '#' (which url_ok's path allows as the start
 * of a fragment). */
static void every_code_point(void **state)
{
	struct ct_store *s = *state;
	static unsigned char path_refuses[LAST + 1], url_refuses[LAST + 1];
	sql_refused(s, "crawltop.path_ok('/a' || chr(c) || 'b')", path_refuses);
	sql_refused(s, "crawltop.url_ok('https://h/a' || chr(c) || 'b')",
		    url_refuses);
	int checked = 0;
	for (unsigned c = 1; c <= LAST; c++) {
		if (c >= 0xd800 && c <= 0xdfff)
			continue;
		int want = !(space_or_control(c) || ct_char_invisible(c) ||
			     c == '#');
		int c_ok = c_accepts(c), sql_ok = !path_refuses[c],
		    url_ok = !url_refuses[c];
		checked++;
		if (c_ok != want || sql_ok != want ||
		    url_ok != (want || c == '#'))
			fail_msg("U+%04X: the table %s it; the CLI %s it, path_ok "
				 "%s it, url_ok %s it", c,
				 want ? "allows" : "refuses",
				 c_ok ? "accepts" : "refuses",
				 sql_ok ? "accepts" : "refuses",
				 url_ok ? "accepts" : "refuses");
	}
	assert_true(checked > 63000);
}

/* Beyond the BMP: the invisible ranges refused by both, others taken. */
static void astral_code_points(void **state)
{
	struct ct_store *s = *state;
	static const unsigned cps[] = {0x110BD, 0x110CD, 0x13430, 0x1343F,
				       0x1BCA0, 0x1D173, 0x1D17A, 0xE0001,
				       0xE0041, 0xE0FFF, 0x1F600, 0x10000,
				       0xE1000, 0x10FFFD};
	for (size_t i = 0; i < sizeof cps / sizeof *cps; i++) {
		unsigned c = cps[i];
		char p[16], why[200], sql[256];
		snprintf(p, sizeof p, "/a%c%c%c%cb", (char)(0xf0 | c >> 18),
			 (char)(0x80 | (c >> 12 & 0x3f)),
			 (char)(0x80 | (c >> 6 & 0x3f)), (char)(0x80 | (c & 0x3f)));
		int c_ok = urlpath_check(p, strlen(p), 2048, why, sizeof why) == 0;
		snprintf(sql, sizeof sql, "SELECT crawltop.path_ok('/a' || chr(%u) "
			 "|| 'b')::int::text || crawltop.url_ok('https://h/a' || chr(%u))"
			 "::int", c, c);
		char *t = pgt_text(s, sql, 0, NULL);
		const char *want = ct_char_invisible(c) ? "00" : "11";
		if (strcmp(t, want) != 0 || c_ok != !ct_char_invisible(c))
			fail_msg("U+%04X: the CLI %s it, the store's path_ok and "
				 "url_ok say %s", c, c_ok ? "accepts" : "refuses", t);
		free(t);
	}
}

/* Paths that are not about characters: dot segments, '#', the query,
 * the length limit, the leading '/'. */
static void shapes(void **state)
{
	struct ct_store *s = *state;
	static const char *const paths[] = {
		"/", "/a", "/a/", "/a/./b", "/a/../b", "/.", "/..", "/./", "/../",
		"/a/.", "/a/..", "/a/.b", "/a/..b", "/a/b.", "/...", "/a/.../b",
		"/a?x=/../", "/a?/./", "/a/..?x", "/a#b", "/a?b#c", "a", "",
		"//", "/a//b", "/%2e%2e/", "/a%20b",
	};
	for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
		char why[200], sql[200];
		const char *p[] = {paths[i]};
		int c_ok = urlpath_check(paths[i], strlen(paths[i]), 2048, why,
					 sizeof why) == 0;
		snprintf(sql, sizeof sql, "SELECT crawltop.path_ok($1)::int");
		char *t = pgt_text(s, sql, 1, p);
		int sql_ok = strcmp(t, "1") == 0;
		free(t);
		if (c_ok != sql_ok)
			fail_msg("'%s': the CLI %s it, the store %s it", paths[i],
				 c_ok ? "accepts" : "refuses",
				 sql_ok ? "accepts" : "refuses");
	}
	/* the limit: max_url_bytes() bytes pass, one more does not */
	long long max = pgt_int(s, "SELECT crawltop.max_url_bytes()");
	char *big = malloc((size_t)max + 2), why[200];
	assert_non_null(big);
	memset(big, 'x', (size_t)max + 1);
	big[0] = '/';
	big[max + 1] = '\0';
	assert_int_equal(urlpath_check(big, (size_t)max, (size_t)max, why,
				       sizeof why), 0);
	assert_int_equal(urlpath_check(big, (size_t)max + 1, (size_t)max, why,
				       sizeof why), -1);
	big[max] = '\0';
	const char *p[] = {big};
	char *t = pgt_text(s, "SELECT crawltop.path_ok($1)::int", 1, p);
	assert_string_equal(t, "1");
	free(t);
	free(big);
}

static int setup(void **state)
{
	*state = pgt_fresh("ct_pathrule", 1);
	return *state ? 0 : -1;
}

static int teardown(void **state)
{
	ct_store_close(*state);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_code_point),
		cmocka_unit_test(astral_code_points),
		cmocka_unit_test(shapes),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
