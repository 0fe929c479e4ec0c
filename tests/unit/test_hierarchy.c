/* test_hierarchy.c: seed 000's page hierarchy score with SPEC.md's rules
 * (include/crawltop/hierarchy.h): "/" 1.0, sitemap 0.5, link
 * max(0.8 x source, 0.1), unknown source and other sources 0.1, never
 * decreasing. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "crawltop/hierarchy.h"
#include "crawltop/scale.h"

#include "near.h"

static struct ct_hierarchy_input input(const char *path, ct_source_type src,
				       double source_score,
				       const char *source_path, double current)
{
	return (struct ct_hierarchy_input){path, src, source_score, source_path,
					   current};
}

/* Score with the defaults; the call must succeed. */
static struct ct_hierarchy_result score(struct ct_hierarchy_input in)
{
	const struct ct_hierarchy_params p = CT_HIERARCHY_PARAMS_DEFAULT;
	struct ct_hierarchy_result r;
	struct ct_error err = {{0}};
	memset(&r, 0xA5, sizeof r);
	ct_status st = ct_hierarchy_score(&p, &in, &r, &err);
	if (st != CT_OK)
		fail_msg("ct_hierarchy_score(%s) failed: %s", in.path, err.msg);
	return r;
}

static void assert_reason(const struct ct_hierarchy_result *r, int i,
			  ct_reason_code code, const char *text)
{
	char buf[128];
	assert_true(i < r->reasons.n);
	assert_int_equal(r->reasons.r[i].code, code);
	ct_reason_format(&r->reasons.r[i], buf, sizeof buf);
	assert_string_equal(buf, text);
}

static void defaults(void **state)
{
	const struct ct_hierarchy_params p = CT_HIERARCHY_PARAMS_DEFAULT;
	assert_true(p.root == 1.0 && p.sitemap == 0.5 && p.decay == 0.8 &&
		    p.floor == 0.1);
	assert_int_equal(ct_hierarchy_params_check(&p, NULL), CT_OK);
}

/* "/" is the homepage whatever the source: 1.0. */
static void homepage_is_root(void **state)
{
	const ct_source_type srcs[] = {CT_SRC_SITEMAP, CT_SRC_LINK,
				       CT_SRC_MANUAL, CT_SRC_OTHER};
	for (size_t i = 0; i < sizeof srcs / sizeof srcs[0]; i++) {
		struct ct_hierarchy_result r =
			score(input("/", srcs[i], NAN, NULL, 0.0));
		assert_true(r.score == 1.0);
		assert_int_equal(r.reasons.n, 1);
		assert_reason(&r, 0, CT_R_HIER_ROOT, "Homepage (1.000)");
	}
	/* "/about" is not the homepage */
	struct ct_hierarchy_result r =
		score(input("/about", CT_SRC_OTHER, NAN, NULL, 0.0));
	ASSERT_NEAR(r.score, 0.1, 0.0);
}

static void sitemap_page(void **state)
{
	struct ct_hierarchy_result r =
		score(input("/blog/post", CT_SRC_SITEMAP, NAN, NULL, 0.0));
	assert_true(r.score == 0.5);
	assert_int_equal(r.reasons.n, 1);
	assert_reason(&r, 0, CT_R_HIER_SITEMAP, "Sitemap page (0.500)");
	/* the source score plays no part for a sitemap page */
	r = score(input("/blog/post", CT_SRC_SITEMAP, 1.0, "/", 0.0));
	assert_true(r.score == 0.5);
}

/* Following links from the homepage: 1, 0.8, 0.64, 0.512, 0.4096, 0.32768,
 * 0.262144, 0.2097152, 0.16777216, 0.134217728, 0.1073741824, then
 * 0.8^11 = 0.0858993459 < 0.1, so the floor 0.1 from step 11 on. */
static void link_chain_reaches_floor(void **state)
{
	const double want[] = {1.0, 0.8, 0.64, 0.512, 0.4096, 0.32768,
			       0.262144, 0.2097152, 0.16777216, 0.134217728,
			       0.1073741824, 0.1, 0.1, 0.1};
	double s = score(input("/", CT_SRC_LINK, NAN, NULL, 0.0)).score;
	assert_true(s == 1.0);
	for (size_t k = 1; k < sizeof want / sizeof want[0]; k++) {
		struct ct_hierarchy_result r =
			score(input("/deeper", CT_SRC_LINK, s, "/up", 0.0));
		ASSERT_NEAR(r.score, want[k], 1e-12);
		assert_int_equal(r.reasons.r[0].code, CT_R_HIER_LINK);
		if (k <= 10) {
			assert_int_equal(r.reasons.n, 1);
		} else {
			/* the decayed value, then the floor that replaced it */
			assert_int_equal(r.reasons.n, 2);
			assert_reason(&r, 1, CT_R_HIER_LINK_FLOOR,
				      "Raised to floor 0.100");
		}
		s = r.score;
	}
}

/* SPEC.md's reason text, exactly. */
static void link_reason_text(void **state)
{
	struct ct_hierarchy_result r =
		score(input("/products", CT_SRC_LINK, 1.0, "/", 0.0));
	ASSERT_NEAR(r.score, 0.8, 1e-12);
	assert_int_equal(r.reasons.n, 1);
	assert_reason(&r, 0, CT_R_HIER_LINK, "Linked from / (0.8 x 1.000)");
	/* from a page at 0.512: 0.8 x 0.512 = 0.4096 */
	r = score(input("/a/b/c/d", CT_SRC_LINK, 0.512, "/a/b/c", 0.0));
	ASSERT_NEAR(r.score, 0.4096, 1e-12);
	assert_reason(&r, 0, CT_R_HIER_LINK, "Linked from /a/b/c (0.8 x 0.512)");
	/* a known source score without a path: the page is known, only its
	 * path was not given */
	r = score(input("/x", CT_SRC_LINK, 0.5, NULL, 0.0));
	ASSERT_NEAR(r.score, 0.4, 1e-12);
	assert_reason(&r, 0, CT_R_HIER_LINK, "Linked from source page (0.8 x 0.500)");
}

/* The reason carries the decay in use: with decay 0.75 a link from the
 * homepage is 0.75 x 1 = 0.75, "(0.75 x 1.000)", not 0.75 rounded to 0.8. */
static void link_reason_non_default_decay(void **state)
{
	struct ct_hierarchy_params p = CT_HIERARCHY_PARAMS_DEFAULT;
	p.decay = 0.75;
	assert_int_equal(ct_hierarchy_params_check(&p, NULL), CT_OK);
	const struct ct_hierarchy_input in = input("/a", CT_SRC_LINK, 1.0, "/", 0.0);
	struct ct_hierarchy_result r;
	struct ct_error err = {{0}};
	assert_int_equal(ct_hierarchy_score(&p, &in, &r, &err), CT_OK);
	assert_true(r.score == 0.75);
	assert_reason(&r, 0, CT_R_HIER_LINK, "Linked from / (0.75 x 1.000)");
}

/* A link whose source page is unknown (NaN) gets the floor, with its reason. */
static void unknown_source_gets_floor(void **state)
{
	struct ct_hierarchy_result r =
		score(input("/orphan", CT_SRC_LINK, NAN, "/gone", 0.0));
	assert_true(r.score == 0.1);
	assert_int_equal(r.reasons.n, 1);
	assert_reason(&r, 0, CT_R_HIER_UNKNOWN_SRC,
		      "Source page unknown: floor 0.100");
}

/* Manual and other sources: the floor, whatever source score is given. */
static void other_sources_get_floor(void **state)
{
	struct ct_hierarchy_result r =
		score(input("/m", CT_SRC_MANUAL, 1.0, "/", 0.0));
	assert_true(r.score == 0.1);
	assert_int_equal(r.reasons.n, 1);
	assert_reason(&r, 0, CT_R_HIER_OTHER, "Source manual: floor 0.100");
	r = score(input("/o", CT_SRC_OTHER, NAN, NULL, 0.0));
	assert_true(r.score == 0.1);
	assert_reason(&r, 0, CT_R_HIER_OTHER, "Source other: floor 0.100");
}

/* A score never decreases: result = max(current, new). */
static void never_decreases(void **state)
{
	/* link from "/" gives 0.8 < current 0.9: keep 0.9, say so */
	struct ct_hierarchy_result r =
		score(input("/p", CT_SRC_LINK, 1.0, "/", 0.9));
	assert_true(r.score == 0.9);
	assert_int_equal(r.reasons.n, 2);
	assert_reason(&r, 0, CT_R_HIER_LINK, "Linked from / (0.8 x 1.000)");
	assert_reason(&r, 1, CT_R_HIER_KEPT, "Kept higher current score 0.900");
	/* current 0.5 < 0.8: raised, no "kept" reason */
	r = score(input("/p", CT_SRC_LINK, 1.0, "/", 0.5));
	ASSERT_NEAR(r.score, 0.8, 1e-12);
	assert_int_equal(r.reasons.n, 1);
	/* sitemap 0.5 over current 0.3 */
	r = score(input("/p", CT_SRC_SITEMAP, NAN, NULL, 0.3));
	assert_true(r.score == 0.5);
	/* equal to the new score: nothing kept */
	r = score(input("/p", CT_SRC_SITEMAP, NAN, NULL, 0.5));
	assert_true(r.score == 0.5);
	assert_int_equal(r.reasons.n, 1);
	/* unknown source never lowers 1.0 */
	r = score(input("/p", CT_SRC_LINK, NAN, NULL, 1.0));
	assert_true(r.score == 1.0);
	assert_int_equal(r.reasons.r[r.reasons.n - 1].code, CT_R_HIER_KEPT);
	/* repeated propagation: a page reached first by a deep link and then
	 * from the homepage ends at the higher score, and a later deep link
	 * does not lower it */
	double cur = score(input("/q", CT_SRC_LINK, 0.2, "/deep", 0.0)).score;
	ASSERT_NEAR(cur, 0.16, 1e-12);
	cur = score(input("/q", CT_SRC_LINK, 1.0, "/", cur)).score;
	ASSERT_NEAR(cur, 0.8, 1e-12);
	cur = score(input("/q", CT_SRC_LINK, 0.2, "/deep", cur)).score;
	ASSERT_NEAR(cur, 0.8, 1e-12);
}

static void expect_error(struct ct_hierarchy_input in, ct_status want,
			 const char *named)
{
	const struct ct_hierarchy_params p = CT_HIERARCHY_PARAMS_DEFAULT;
	struct ct_hierarchy_result r;
	struct ct_error err = {{0}};
	assert_int_equal(ct_hierarchy_score(&p, &in, &r, &err), want);
	if (!strstr(err.msg, named))
		fail_msg("message does not name '%s': %s", named, err.msg);
}

static void refuses_bad_input(void **state)
{
	expect_error(input("/p", CT_SRC_LINK, 1.0, "/", -0.1), CT_ERANGE, "current");
	expect_error(input("/p", CT_SRC_LINK, 1.0, "/", 1.1), CT_ERANGE, "current");
	expect_error(input("/p", CT_SRC_LINK, 1.0, "/", NAN), CT_ERANGE, "current");
	expect_error(input("/p", CT_SRC_LINK, 1.5, "/", 0.0), CT_ERANGE, "sourceScore");
	expect_error(input("/p", CT_SRC_LINK, -0.5, "/", 0.0), CT_ERANGE, "sourceScore");
	expect_error(input("/p", CT_SRC_LINK, INFINITY, "/", 0.0), CT_ERANGE,
		     "sourceScore");
	/* values just outside read back as themselves, not as 1 or 0 */
	expect_error(input("/p", CT_SRC_LINK, 1.0, "/", 1.0000001), CT_ERANGE,
		     "current = 1.0000001: must be a number in 0..1");
	expect_error(input("/p", CT_SRC_LINK, -1e-9, "/", 0.0), CT_ERANGE,
		     "sourceScore = -1e-09: must be a number in 0..1");
	expect_error(input("", CT_SRC_LINK, 1.0, "/", 0.0), CT_EINVAL,
		     "path '': a page path starts with '/'");
	/* a path is absolute: "a" is not scored as a page at the floor */
	expect_error(input("a", CT_SRC_OTHER, NAN, NULL, 0.0), CT_EINVAL,
		     "path 'a': a page path starts with '/'");
	expect_error(input("products/x", CT_SRC_SITEMAP, NAN, NULL, 0.0), CT_EINVAL,
		     "path 'products/x': a page path starts with '/'");
	expect_error(input(NULL, CT_SRC_LINK, 1.0, "/", 0.0), CT_EINVAL, "path");
	expect_error(input("/p", CT_SRC_COUNT, 1.0, "/", 0.0), CT_EINVAL, "source");
	/* the edges of 0..1 are fine */
	struct ct_hierarchy_result r = score(input("/p", CT_SRC_LINK, 0.0, "/z", 1.0));
	assert_true(r.score == 1.0);
	r = score(input("/p", CT_SRC_LINK, 0.0, "/z", 0.0));
	assert_true(r.score == 0.1);
}

/* Parameters that were not checked cannot give a score off 0..1 with
 * CT_OK: decay 2 makes a link from a 0.9 page 1.8, root 5 gives 5, a NaN
 * floor gives NaN; each is refused with CT_EINVAL saying why. */
static void unchecked_params_refused(void **state)
{
	const struct ct_hierarchy_params d = CT_HIERARCHY_PARAMS_DEFAULT;
	struct ct_hierarchy_params p[3] = {d, d, d};
	p[0].decay = 2.0;
	p[1].root = 5.0;
	p[2].floor = NAN;
	const struct ct_hierarchy_input in[3] = {
		input("/a", CT_SRC_LINK, 0.9, "/", 0.0),
		input("/", CT_SRC_OTHER, NAN, NULL, 0.0),
		input("/m", CT_SRC_MANUAL, NAN, NULL, 0.0),
	};
	const char *const want[3] = {
		"hierarchy score = 1.8 is outside 0..1: the parameters were not "
		"checked (ct_hierarchy_params_check)",
		"hierarchy score = 5 is outside 0..1: the parameters were not "
		"checked (ct_hierarchy_params_check)",
		"hierarchy score = nan is outside 0..1: the parameters were not "
		"checked (ct_hierarchy_params_check)",
	};
	for (int i = 0; i < 3; i++) {
		struct ct_hierarchy_result r;
		struct ct_error err = {{0}};
		assert_int_not_equal(ct_hierarchy_params_check(&p[i], NULL), CT_OK);
		assert_int_equal(ct_hierarchy_score(&p[i], &in[i], &r, &err), CT_EINVAL);
		assert_string_equal(err.msg, want[i]);
	}
}

static void expect_params_error(struct ct_hierarchy_params p, ct_status want,
				const char *named)
{
	struct ct_error err = {{0}};
	assert_int_equal(ct_hierarchy_params_check(&p, &err), want);
	if (!strstr(err.msg, named))
		fail_msg("message does not name '%s': %s", named, err.msg);
}

/* 0 < floor <= sitemap <= root <= 1, 0 < decay < 1, all finite. */
static void params_check(void **state)
{
	const struct ct_hierarchy_params d = CT_HIERARCHY_PARAMS_DEFAULT;
	struct ct_hierarchy_params p = d;
	p.floor = 0.0;
	expect_params_error(p, CT_ERANGE, "floor");
	p = d;
	p.decay = 1.0;
	expect_params_error(p, CT_ERANGE, "decay");
	p.decay = 0.0;
	expect_params_error(p, CT_ERANGE, "decay");
	p = d;
	p.root = 1.5;
	expect_params_error(p, CT_ERANGE, "root");
	p = d;
	p.sitemap = NAN;
	expect_params_error(p, CT_ERANGE, "sitemap");
	p = d;
	p.floor = 0.6; /* above sitemap 0.5 */
	expect_params_error(p, CT_EINVAL, "floor");
	p = d;
	p.sitemap = 1.0;
	p.root = 0.9; /* sitemap above root */
	expect_params_error(p, CT_EINVAL, "root");
	/* equal values are allowed: floor = sitemap = root = 1 */
	p = (struct ct_hierarchy_params){1.0, 1.0, 0.5, 1.0};
	assert_int_equal(ct_hierarchy_params_check(&p, NULL), CT_OK);
}

/* Tuned values: sitemap 0.6, decay 0.5, floor 0.2. From a 0.6 sitemap
 * page 0.5 x 0.6 = 0.3; from that 0.15 < 0.2 -> 0.2. */
static void custom_params(void **state)
{
	const struct ct_hierarchy_params p = {1.0, 0.6, 0.5, 0.2};
	struct ct_hierarchy_result r;
	assert_int_equal(ct_hierarchy_params_check(&p, NULL), CT_OK);
	struct ct_hierarchy_input in = input("/s", CT_SRC_SITEMAP, NAN, NULL, 0.0);
	assert_int_equal(ct_hierarchy_score(&p, &in, &r, NULL), CT_OK);
	assert_true(r.score == 0.6);
	in = input("/s/a", CT_SRC_LINK, r.score, "/s", 0.0);
	assert_int_equal(ct_hierarchy_score(&p, &in, &r, NULL), CT_OK);
	ASSERT_NEAR(r.score, 0.3, 1e-12);
	in = input("/s/a/b", CT_SRC_LINK, r.score, "/s/a", 0.0);
	assert_int_equal(ct_hierarchy_score(&p, &in, &r, NULL), CT_OK);
	assert_true(r.score == 0.2);
	assert_reason(&r, 0, CT_R_HIER_LINK, "Linked from /s/a (0.5 x 0.300)");
	assert_reason(&r, 1, CT_R_HIER_LINK_FLOOR, "Raised to floor 0.200");
}

static void source_type_names(void **state)
{
	static const char *const names[] = {"sitemap", "link", "manual", "other"};
	for (int i = 0; i < CT_SRC_COUNT; i++) {
		ct_source_type t = CT_SRC_COUNT;
		assert_string_equal(ct_source_type_name((ct_source_type)i), names[i]);
		assert_true(ct_source_type_parse(names[i], &t));
		assert_int_equal(t, i);
	}
	ct_source_type t = CT_SRC_OTHER;
	assert_false(ct_source_type_parse("bogus", &t));
	assert_false(ct_source_type_parse("", &t));
	assert_false(ct_source_type_parse(NULL, &t));
	assert_int_equal(t, CT_SRC_OTHER);
}

/* A message quoting a path cut to 64 bytes in the middle of a character
 * stays UTF-8: the cut character's byte is '?' (status.h). */
static void message_cut_inside_a_character(void **state)
{
	(void)state;
	char path[80];
	snprintf(path, sizeof path, "x%062d\xc3\xa9", 0);
	struct ct_hierarchy_params p = CT_HIERARCHY_PARAMS_DEFAULT;
	struct ct_hierarchy_input in = {.path = path, .source = CT_SRC_MANUAL};
	struct ct_hierarchy_result r;
	struct ct_error e;
	assert_int_equal(ct_hierarchy_score(&p, &in, &r, &e), CT_EINVAL);
	char want[100];
	snprintf(want, sizeof want, "path 'x%062d?': a page path", 0);
	assert_non_null(strstr(e.msg, want));
	/* and a message cut at the buffer's end: no half character */
	char big[CT_ERROR_LEN + 8];
	memset(big, 'a', sizeof big);
	memcpy(big + CT_ERROR_LEN - 3, "\xe2\x82\xac\xe2\x82\xac", 6);
	big[sizeof big - 1] = '\0';
	ct_error_set(&e, CT_EINVAL, "%s", big);
	size_t n = strlen(e.msg);
	assert_int_equal(n, CT_ERROR_LEN - 1);
	assert_memory_equal(e.msg + n - 2, "??", 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(defaults),
		cmocka_unit_test(message_cut_inside_a_character),
		cmocka_unit_test(homepage_is_root),
		cmocka_unit_test(sitemap_page),
		cmocka_unit_test(link_chain_reaches_floor),
		cmocka_unit_test(link_reason_text),
		cmocka_unit_test(link_reason_non_default_decay),
		cmocka_unit_test(unknown_source_gets_floor),
		cmocka_unit_test(other_sources_get_floor),
		cmocka_unit_test(never_decreases),
		cmocka_unit_test(refuses_bad_input),
		cmocka_unit_test(unchecked_params_refused),
		cmocka_unit_test(params_check),
		cmocka_unit_test(custom_params),
		cmocka_unit_test(source_type_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
