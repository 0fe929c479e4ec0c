/* test_reasons.c: reason codes to text (include/crawltop/reasons.h). The
 * seed 004 strings are exact; the others follow SPEC.md's examples. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "crawltop/reasons.h"

static const char *fmt(ct_reason_code c, double a, double b, const char *s,
		       char *buf, size_t n)
{
	const struct ct_reason r = {c, a, b, s};
	int len = ct_reason_format(&r, buf, n);
	assert_true(len >= 0);
	assert_int_equal((size_t)len, strlen(buf));
	return buf;
}

/* Every code gives a non-empty text, with and without the string
 * argument, and the return value is the text's length. */
static void every_code_formats(void **state)
{
	char buf[256];
	for (int c = 0; c < CT_R_COUNT; c++) {
		fmt((ct_reason_code)c, 1.5, 2.0, "x", buf, sizeof buf);
		if (buf[0] == '\0' || strcmp(buf, "?") == 0)
			fail_msg("reason code %d formats to '%s'", c, buf);
		fmt((ct_reason_code)c, 0.0, 0.0, NULL, buf, sizeof buf);
		if (buf[0] == '\0' || strcmp(buf, "?") == 0)
			fail_msg("reason code %d (no string) formats to '%s'", c, buf);
	}
}

/* Seed 004's strings, exactly, whatever the numbers. */
static void seed_004_strings(void **state)
{
	static const struct {
		ct_reason_code code;
		const char *text;
	} want[] = {
		{CT_R_FRESH_RECENT, "Recently visited (<1h)"},
		{CT_R_FRESH_TODAY, "Visited today"},
		{CT_R_FRESH_STALE, "Not visited in 7+ days"},
		{CT_R_FRESH_NEVER, "Never visited"},
		{CT_R_FRESH_CHANGED, "Changed in last 24h"},
		{CT_R_FRESH_TOPIC, "High topic relevance"},
		{CT_R_FRESH_HUB, "Is a hub page"},
		{CT_R_FRESH_DEEP, "Deep URL"},
	};
	char buf[128];
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		assert_string_equal(fmt(want[i].code, 0, 0, NULL, buf, sizeof buf),
				    want[i].text);
		assert_string_equal(fmt(want[i].code, 7, 9, "zz", buf, sizeof buf),
				    want[i].text);
	}
}

/* SPEC.md's examples and the hierarchy texts the scorer emits. */
static void hierarchy_strings(void **state)
{
	char buf[128];
	assert_string_equal(fmt(CT_R_HIER_ROOT, 1.0, 0, NULL, buf, sizeof buf),
			    "Homepage (1.000)");
	assert_string_equal(fmt(CT_R_HIER_SITEMAP, 0.5, 0, NULL, buf, sizeof buf),
			    "Sitemap page (0.500)");
	assert_string_equal(fmt(CT_R_HIER_LINK, 0.8, 1.0, "/", buf, sizeof buf),
			    "Linked from / (0.8 x 1.000)");
	assert_string_equal(fmt(CT_R_HIER_LINK, 0.8, 0.64, "/a/b", buf, sizeof buf),
			    "Linked from /a/b (0.8 x 0.640)");
	/* the source score is known, only its path is not given */
	assert_string_equal(fmt(CT_R_HIER_LINK, 0.8, 0.5, NULL, buf, sizeof buf),
			    "Linked from source page (0.8 x 0.500)");
	/* a decay of 0.75 is written as 0.75, not rounded to 0.8 */
	assert_string_equal(fmt(CT_R_HIER_LINK, 0.75, 1.0, "/", buf, sizeof buf),
			    "Linked from / (0.75 x 1.000)");
	assert_string_equal(fmt(CT_R_HIER_LINK_FLOOR, 0.1, 0, NULL, buf, sizeof buf),
			    "Raised to floor 0.100");
	assert_string_equal(fmt(CT_R_HIER_UNKNOWN_SRC, 0.1, 0, NULL, buf, sizeof buf),
			    "Source page unknown: floor 0.100");
	assert_string_equal(fmt(CT_R_HIER_OTHER, 0.1, 0, "manual", buf, sizeof buf),
			    "Source manual: floor 0.100");
	assert_string_equal(fmt(CT_R_HIER_KEPT, 0.9, 0, NULL, buf, sizeof buf),
			    "Kept higher current score 0.900");
}

static void frontier_and_discovery_strings(void **state)
{
	char buf[128];
	/* SPEC.md's example */
	assert_string_equal(fmt(CT_R_FR_DISCOVERY, 10, 0, "sitemap", buf, sizeof buf),
			    "Discovery bonus: sitemap -10");
	assert_string_equal(fmt(CT_R_FR_BASE, 12, 3, "article", buf, sizeof buf),
			    "Type article weight 12 + depth/bias 3");
	assert_string_equal(fmt(CT_R_FR_BASE_WEIGHT, 2, 0, NULL, buf, sizeof buf),
			    "Base weight x2");
	assert_string_equal(fmt(CT_R_FR_GAP, 7.5, 0, NULL, buf, sizeof buf),
			    "Gap prediction -7.5");
	assert_string_equal(fmt(CT_R_FR_CLUSTER, 20, 8, NULL, buf, sizeof buf),
			    "Cluster boost -20 (8 occurrences)");
	assert_string_equal(fmt(CT_R_FR_REUSE, 0.5, 0, NULL, buf, sizeof buf),
			    "Knowledge reuse -0.5");
	/* b is the cost factor x 100: 10 by default, 25 for a factor 0.25 */
	assert_string_equal(fmt(CT_R_FR_COST_FAST, 50, 10, NULL, buf, sizeof buf),
			    "Fast action (50 ms) -10%");
	assert_string_equal(fmt(CT_R_FR_COST_SLOW, 900, 10, NULL, buf, sizeof buf),
			    "Slow action (900 ms) +10%");
	assert_string_equal(fmt(CT_R_FR_COST_FAST, 50, 25, NULL, buf, sizeof buf),
			    "Fast action (50 ms) -25%");
	assert_string_equal(fmt(CT_R_FR_COST_SLOW, 900, 25, NULL, buf, sizeof buf),
			    "Slow action (900 ms) +25%");
	/* total prioritisation offsets carry their sign */
	assert_string_equal(fmt(CT_R_FR_TOTAL, -5000, 0, "country", buf, sizeof buf),
			    "Total prioritisation: country -5000");
	assert_string_equal(fmt(CT_R_FR_TOTAL, 5000000, 0, "other", buf, sizeof buf),
			    "Total prioritisation: other +5000000");
	assert_string_equal(fmt(CT_R_DISC_SUBSCORE, 0.8, 0.28, "Unseen likelihood",
				buf, sizeof buf),
			    "Unseen likelihood 0.80 x 0.28");
	assert_string_equal(fmt(CT_R_DISC_CLASS, 0, 0, "P0: crawl now, profile + list",
				buf, sizeof buf),
			    "P0: crawl now, profile + list");
	assert_string_equal(fmt(CT_R_TIER, 2, 10, NULL, buf, sizeof buf),
			    "Job priority 2 of 10");
}

/* snprintf semantics: the full length is returned, at most n bytes are
 * written, the text is always terminated. "Recently visited (<1h)" is 22
 * characters. */
static void truncation(void **state)
{
	const struct ct_reason r = {CT_R_FRESH_RECENT, 0, 0, NULL};
	char buf[8];
	memset(buf, 'Z', sizeof buf);
	assert_int_equal(ct_reason_format(&r, buf, 5), 22);
	assert_string_equal(buf, "Rece");
	assert_int_equal(buf[5], 'Z'); /* nothing written past n */
	assert_int_equal(ct_reason_format(&r, NULL, 0), 22);
	const struct ct_reason l = {CT_R_HIER_LINK, 0.8, 1.0, "/"};
	char small[12];
	/* "Linked from / (0.8 x 1.000)" is 27 characters */
	assert_int_equal(ct_reason_format(&l, small, sizeof small), 27);
	assert_string_equal(small, "Linked from");
}

static void invalid_codes(void **state)
{
	char buf[16];
	const struct ct_reason bad = {CT_R_COUNT, 0, 0, NULL};
	assert_int_equal(ct_reason_format(&bad, buf, sizeof buf), 1);
	assert_string_equal(buf, "?");
	const struct ct_reason neg = {(ct_reason_code)-1, 0, 0, NULL};
	ct_reason_format(&neg, buf, sizeof buf);
	assert_string_equal(buf, "?");
	ct_reason_format(NULL, buf, sizeof buf);
	assert_string_equal(buf, "?");
}

/* The list keeps the first CT_REASONS_MAX reasons, in order. */
static void list_keeps_first_max(void **state)
{
	struct ct_reasons rs = {0};
	for (int i = 0; i < CT_REASONS_MAX + 3; i++)
		ct_reasons_add(&rs, CT_R_FRESH_DEEP, i, -i, "s");
	assert_int_equal(rs.n, CT_REASONS_MAX);
	for (int i = 0; i < CT_REASONS_MAX; i++) {
		assert_int_equal(rs.r[i].code, CT_R_FRESH_DEEP);
		assert_true(rs.r[i].a == i && rs.r[i].b == -i);
		assert_string_equal(rs.r[i].s, "s");
	}
}

/* The eight seed 004 texts are distinct, so a reason list can be read. */
static void seed_004_strings_distinct(void **state)
{
	char a[64], b[64];
	for (int i = CT_R_FRESH_RECENT; i <= CT_R_FRESH_DEEP; i++)
		for (int j = i + 1; j <= CT_R_FRESH_DEEP; j++) {
			fmt((ct_reason_code)i, 0, 0, NULL, a, sizeof a);
			fmt((ct_reason_code)j, 0, 0, NULL, b, sizeof b);
			assert_string_not_equal(a, b);
		}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_code_formats),
		cmocka_unit_test(seed_004_strings),
		cmocka_unit_test(hierarchy_strings),
		cmocka_unit_test(frontier_and_discovery_strings),
		cmocka_unit_test(truncation),
		cmocka_unit_test(invalid_codes),
		cmocka_unit_test(list_keeps_first_max),
		cmocka_unit_test(seed_004_strings_distinct),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
