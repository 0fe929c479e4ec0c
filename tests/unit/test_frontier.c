/* test_frontier.c: seed 002's frontier priority (include/crawltop/frontier.h,
 * SPEC.md "Seed 002, frontier"). Every expected number is derived by hand
 * in the comment next to it, from the default tables:
 * types article 0, hub-seed 4, history 6, nav 10, refresh 25, default 12;
 * bonuses adaptive-seed 20, gap-prediction 15, sitemap 10, hub-validated 8,
 * link 0; weights 1; cluster threshold 5, factor 2.5, cap 20. */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "crawltop/frontier.h"

#include "near.h"
#define ASSERT_EXACT(got, want) do { \
	double ex_got_ = (got), ex_want_ = (want); \
	if (!(ex_got_ == ex_want_)) \
		fail_msg("%s = %.17g, expected exactly %.17g", #got, \
			 ex_got_, ex_want_); \
} while (0)

/* An input with the given type and depth, nothing else. */
static struct ct_frontier_input input(const char *type, int depth)
{
	struct ct_frontier_input in = CT_FRONTIER_INPUT_INIT;
	in.url = "https://example.com/a";
	in.type = type;
	in.depth = depth;
	return in;
}

/* Scores in with p and asserts CT_OK. */
static struct ct_frontier_result ok_score(const struct ct_frontier_params *p,
					  const struct ct_frontier_input *in)
{
	struct ct_frontier_result r;
	struct ct_error err = {{0}};
	ct_status st = ct_frontier_score(p, NULL, in, &r, &err);
	if (st != CT_OK)
		fail_msg("ct_frontier_score failed: %d %s", (int)st, err.msg);
	return r;
}

/* Asserts a refused input: status st and an error naming `field`. */
static void bad_score(const struct ct_frontier_params *p,
		      const struct ct_frontier_input *in, ct_status want,
		      const char *field)
{
	struct ct_frontier_result r;
	struct ct_error err = {{0}};
	ct_status st = ct_frontier_score(p, NULL, in, &r, &err);
	assert_int_equal(st, want);
	if (!strstr(err.msg, field))
		fail_msg("error \"%s\" does not name %s", err.msg, field);
}

/* The reason with code c in r, or NULL. */
static const struct ct_reason *find_reason(const struct ct_frontier_result *r,
					   ct_reason_code c)
{
	for (int i = 0; i < r->reasons.n; i++)
		if (r->reasons.r[i].code == c)
			return &r->reasons.r[i];
	return NULL;
}

/* ---- parameters ----------------------------------------------------- */

/* The defaults are the seed's and pass the check. */
static void defaults_are_the_seeds(void **state)
{
	struct ct_frontier_params p;
	struct ct_error err = {{0}};

	ct_frontier_params_default(&p);
	assert_int_equal(ct_frontier_params_check(&p, &err), CT_OK);
	assert_int_equal(p.n_types, 5);
	ASSERT_EXACT(ct_frontier_type_weight(&p, "article"), 0);
	ASSERT_EXACT(ct_frontier_type_weight(&p, "hub-seed"), 4);
	ASSERT_EXACT(ct_frontier_type_weight(&p, "history"), 6);
	ASSERT_EXACT(ct_frontier_type_weight(&p, "nav"), 10);
	ASSERT_EXACT(ct_frontier_type_weight(&p, "refresh"), 25);
	ASSERT_EXACT(p.default_type_weight, 12);
	ASSERT_EXACT(p.w_base, 1);
	ASSERT_EXACT(p.w_gap, 1);
	ASSERT_EXACT(p.w_reuse, 1);
	assert_true(p.gap_driven && p.knowledge_reuse && p.problem_clustering);
	assert_false(p.cost_aware);
	assert_false(p.total_prioritisation);
	assert_int_equal(p.cluster_problem_threshold, 5);
	ASSERT_EXACT(p.cluster_boost_factor, 2.5);
	ASSERT_EXACT(p.cluster_boost_cap, 20);
	ASSERT_EXACT(p.cost_fast_ms, 100);
	ASSERT_EXACT(p.cost_slow_ms, 500);
	ASSERT_EXACT(p.cost_factor, 0.1);
	ASSERT_EXACT(p.offset_country, -5000);
	ASSERT_EXACT(p.offset_related, -3000);
	ASSERT_EXACT(p.offset_other, 5e6);
	assert_int_equal(p.max_depth, 10);
	assert_int_equal(p.max_queue, 10000);
	assert_int_equal(p.burst, 5);
	assert_int_equal(p.max_scan, 64);
}

/* Each broken rule is refused with a message naming the field. */
static void params_check_rules(void **state)
{
	struct ct_frontier_params d, p;
	struct ct_error err;

	ct_frontier_params_default(&d);
#define REFUSED(mutation, want, field) do { \
		p = d; \
		mutation; \
		memset(&err, 0, sizeof(err)); \
		assert_int_equal(ct_frontier_params_check(&p, &err), want); \
		if (!strstr(err.msg, field)) \
			fail_msg("%s: error \"%s\" does not name %s", #mutation, \
				 err.msg, field); \
	} while (0)
	REFUSED(p.w_base = -1, CT_ERANGE, "w_base");
	REFUSED(p.w_gap = NAN, CT_ERANGE, "w_gap");
	REFUSED(p.w_reuse = INFINITY, CT_ERANGE, "w_reuse");
	REFUSED(p.types[3].value = -0.5, CT_ERANGE, "nav");
	REFUSED(p.bonuses[2].value = NAN, CT_ERANGE, "sitemap");
	REFUSED(p.default_type_weight = -12, CT_ERANGE, "default_type_weight");
	REFUSED(p.cluster_problem_threshold = 0, CT_ERANGE, "cluster_problem_threshold");
	REFUSED(p.cluster_boost_factor = -2.5, CT_ERANGE, "cluster_boost_factor");
	REFUSED(p.cluster_boost_cap = -1, CT_ERANGE, "cluster_boost_cap");
	REFUSED(p.cost_fast_ms = -1, CT_ERANGE, "cost_fast_ms");
	REFUSED(p.cost_fast_ms = 600, CT_ERANGE, "cost_fast_ms");
	REFUSED(p.cost_factor = 1, CT_ERANGE, "cost_factor");
	REFUSED(p.cost_factor = 1.0000001, CT_ERANGE, "cost_factor = 1.0000001 is");
	REFUSED(p.cost_factor = -0.1, CT_ERANGE, "cost_factor");
	REFUSED(p.offset_other = INFINITY, CT_ERANGE, "offset_other");
	REFUSED(p.max_depth = -1, CT_ERANGE, "max_depth");
	REFUSED(p.max_queue = 0, CT_ERANGE, "max_queue");
	REFUSED(p.burst = 0, CT_ERANGE, "burst");
	REFUSED(p.max_scan = 0, CT_ERANGE, "max_scan");
	REFUSED(strcpy(p.aliases[0].to, "adaptive"), CT_EINVAL, "adaptive");
	REFUSED(p.total_prioritisation = true, CT_EINVAL, "country token");
	REFUSED((strcpy(p.country_tokens[0], "France"), p.n_country_tokens = 1),
		CT_EINVAL, "France");
	REFUSED(strcpy(p.types[1].name, "article"), CT_EINVAL, "article");
	REFUSED(p.n_types = CT_FRONTIER_MAX_NAMES + 1, CT_EINVAL, "types");
#undef REFUSED
	/* the edges that are allowed: fast == slow, factor 0, threshold 1,
	 * max_depth 0, zero weights */
	p = d;
	p.cost_fast_ms = p.cost_slow_ms = 300;
	p.cost_factor = 0;
	p.cluster_problem_threshold = 1;
	p.max_depth = 0;
	p.w_base = p.w_gap = p.w_reuse = 0;
	assert_int_equal(ct_frontier_params_check(&p, NULL), CT_OK);
	/* total prioritisation with one country token is fine */
	p = d;
	p.total_prioritisation = true;
	assert_int_equal(ct_frontier_add_country_token(&p, "France"), CT_OK);
	assert_string_equal(p.country_tokens[0], "france");
	assert_int_equal(ct_frontier_params_check(&p, NULL), CT_OK);
}

/* Setters add, replace, refuse bad names and stop at the table size. */
static void table_setters(void **state)
{
	struct ct_frontier_params p;
	char long_name[CT_NAME_LEN + 1];

	ct_frontier_params_default(&p);
	assert_int_equal(ct_frontier_set_type(&p, "nav", 3), CT_OK);
	assert_int_equal(p.n_types, 5); /* replaced, not added */
	ASSERT_EXACT(ct_frontier_type_weight(&p, "nav"), 3);
	assert_int_equal(ct_frontier_set_type(&p, "hub", 5), CT_OK);
	assert_int_equal(p.n_types, 6);
	ASSERT_EXACT(ct_frontier_type_weight(&p, "hub"), 5);
	assert_int_equal(ct_frontier_set_type(&p, "", 1), CT_EINVAL);
	assert_int_equal(ct_frontier_set_type(&p, NULL, 1), CT_EINVAL);
	memset(long_name, 'x', CT_NAME_LEN);
	long_name[CT_NAME_LEN] = '\0'; /* 32 chars: one too many */
	assert_int_equal(ct_frontier_set_type(&p, long_name, 1), CT_EINVAL);
	long_name[CT_NAME_LEN - 1] = '\0'; /* 31 chars: the longest allowed */
	assert_int_equal(ct_frontier_set_type(&p, long_name, 1), CT_OK);
	for (int i = (int)p.n_types; i < CT_FRONTIER_MAX_NAMES; i++) {
		char name[16];
		name[0] = 't';
		name[1] = (char)('a' + i / 26);
		name[2] = (char)('a' + i % 26);
		name[3] = '\0';
		assert_int_equal(ct_frontier_set_type(&p, name, i), CT_OK);
	}
	assert_int_equal(p.n_types, CT_FRONTIER_MAX_NAMES);
	assert_int_equal(ct_frontier_set_type(&p, "one-more", 1), CT_EFULL);
	assert_int_equal(ct_frontier_set_type(&p, "nav", 4), CT_OK); /* replace still works */

	assert_int_equal(ct_frontier_set_bonus(&p, "sitemap", 15), CT_OK);
	ASSERT_EXACT(ct_frontier_bonus(&p, "sitemap"), 15);
	assert_int_equal(ct_frontier_set_bonus(&p, "feed", 3), CT_OK);
	assert_int_equal(ct_frontier_set_alias(&p, "rss", "feed"), CT_OK);
	ASSERT_EXACT(ct_frontier_bonus(&p, "rss"), 3);
	/* re-pointing an alias replaces it */
	assert_int_equal(ct_frontier_set_alias(&p, "rss", "sitemap"), CT_OK);
	ASSERT_EXACT(ct_frontier_bonus(&p, "rss"), 15);
	assert_int_equal(ct_frontier_set_alias(&p, "", "sitemap"), CT_EINVAL);

	assert_int_equal(ct_frontier_add_related_token(&p, "EU"), CT_OK);
	assert_int_equal(ct_frontier_add_related_token(&p, "eu"), CT_OK);
	assert_int_equal(p.n_related_tokens, 1); /* kept once, lower-cased */
	assert_string_equal(p.related_tokens[0], "eu");
	assert_int_equal(ct_frontier_add_related_token(&p, "new-york"), CT_EINVAL);
	assert_int_equal(ct_frontier_add_country_token(&p, ""), CT_EINVAL);
}

/* ---- base ------------------------------------------------------------ */

/* article depth 0: 0 + 0 + 0 = 0 -> score 50, class P2. */
static void base_article(void **state)
{
	struct ct_frontier_params p;
	ct_frontier_params_default(&p);
	struct ct_frontier_input in = input("article", 0);
	struct ct_frontier_result r = ok_score(&p, &in);

	ASSERT_EXACT(r.priority, 0);
	ASSERT_EXACT(r.base_priority, 0);
	ASSERT_EXACT(r.bonus_applied, 0);
	assert_string_equal(r.priority_source, "base");
	assert_int_equal(r.queue, CT_QUEUE_ACQUISITION);
	assert_int_equal(r.tp, CT_TP_NONE);
	assert_false(r.dropped);
	ASSERT_EXACT(r.score, 50);
	assert_int_equal(r.cls, CT_P2);
	assert_int_equal(r.reasons.n, 1);
	assert_int_equal(r.reasons.r[0].code, CT_R_FR_BASE);
	assert_string_equal(r.reasons.r[0].s, "article");
	ASSERT_EXACT(r.reasons.r[0].a, 0);
	ASSERT_EXACT(r.reasons.r[0].b, 0);
}

/* nav depth 2 bias 1.5: 10 + 2 + 1.5 = 13.5; reason b = depth + bias 3.5.
 * bias -4 on refresh depth 1: 25 + 1 - 4 = 22. */
static void base_depth_and_bias(void **state)
{
	struct ct_frontier_params p;
	ct_frontier_params_default(&p);
	struct ct_frontier_input in = input("nav", 2);
	in.bias = 1.5;
	struct ct_frontier_result r = ok_score(&p, &in);

	ASSERT_EXACT(r.priority, 13.5);
	ASSERT_EXACT(r.base_priority, 13.5);
	ASSERT_EXACT(r.reasons.r[0].a, 10);
	ASSERT_EXACT(r.reasons.r[0].b, 3.5);
	assert_int_equal(r.queue, CT_QUEUE_DISCOVERY);

	in = input("refresh", 1);
	in.bias = -4;
	r = ok_score(&p, &in);
	ASSERT_EXACT(r.priority, 22);
	assert_int_equal(r.queue, CT_QUEUE_ACQUISITION);
}

/* A type not in the table, NULL and "" take 12: "blog" depth 3 = 15. */
static void unknown_type_gets_default(void **state)
{
	struct ct_frontier_params p;
	ct_frontier_params_default(&p);
	struct ct_frontier_input in = input("blog", 3);
	struct ct_frontier_result r = ok_score(&p, &in);

	ASSERT_EXACT(r.priority, 15);
	assert_string_equal(r.reasons.r[0].s, "default");
	ASSERT_EXACT(r.reasons.r[0].a, 12);
	assert_int_equal(r.queue, CT_QUEUE_DISCOVERY);

	in = input(NULL, 0);
	ASSERT_EXACT(ok_score(&p, &in).priority, 12);
	in = input("", 0);
	ASSERT_EXACT(ok_score(&p, &in).priority, 12);
	/* "hub" is not in the default table (SPEC.md: add it if wanted) */
	ASSERT_EXACT(ct_frontier_type_weight(&p, "hub"), 12);
	/* changing the default moves every unknown type */
	p.default_type_weight = 7;
	in = input("blog", 3);
	ASSERT_EXACT(ok_score(&p, &in).priority, 10); /* 7 + 3 */
}

/* Names are case-sensitive: "Article" is unknown (12), "NAV" too (12), and
 * "Article" goes to the discovery queue. */
static void type_names_case_sensitive(void **state)
{
	struct ct_frontier_params p;
	ct_frontier_params_default(&p);
	struct ct_frontier_input in = input("Article", 0);
	struct ct_frontier_result r = ok_score(&p, &in);

	ASSERT_EXACT(r.priority, 12);
	assert_int_equal(r.queue, CT_QUEUE_DISCOVERY);
	in = input("NAV", 0);
	ASSERT_EXACT(ok_score(&p, &in).priority, 12);
	ASSERT_EXACT(ct_frontier_type_weight(&p, "nav"), 10);
	ASSERT_EXACT(ct_frontier_bonus(&p, "Sitemap"), 0);
	ASSERT_EXACT(ct_frontier_bonus(&p, "sitemap"), 10);
}

/* w_base 2 on nav depth 1: (10 + 1) x 2 = 22; base_priority stays 11 and a
 * "Base weight x2" reason appears. w_base 1 gives no such reason. */
static void base_weight(void **state)
{
	struct ct_frontier_params p;
	ct_frontier_params_default(&p);
	p.w_base = 2;
	struct ct_frontier_input in = input("nav", 1);
	struct ct_frontier_result r = ok_score(&p, &in);
	const struct ct_reason *w;

	ASSERT_EXACT(r.priority, 22);
	ASSERT_EXACT(r.base_priority, 11);
	assert_string_equal(r.priority_source, "base");
	w = find_reason(&r, CT_R_FR_BASE_WEIGHT);
	assert_non_null(w);
	ASSERT_EXACT(w->a, 2);

	p.w_base = 1;
	r = ok_score(&p, &in);
	assert_null(find_reason(&r, CT_R_FR_BASE_WEIGHT));
	ASSERT_EXACT(r.priority, 11);
}

/* ---- discovery bonus ------------------------------------------------- */

/* Every entry of the seed's alias map, on article depth 1 (base 1):
 * intelligent-seed, adaptive-seed, hub-seed -> adaptive-seed 20 -> -19;
 * sitemap 10 -> -9; validated-hub -> hub-validated 8 -> -7;
 * link-discovery -> link 0 -> not applied (1, source base). */
/* A seed (method "seed") comes before every other page, whatever the
 * tables give the others: priority -DBL_MAX, score 100, its reason. */
static void seed_first(void **state)
{
	(void)state;
	struct ct_frontier_params p;
	ct_frontier_params_default(&p);
	/* a sitemap article at depth 0 with a bonus of a million */
	assert_int_equal(ct_frontier_set_bonus(&p, "sitemap", 1e6), CT_OK);
	struct ct_frontier_input sm = input("article", 0);
	sm.discovery_method = "sitemap";
	struct ct_frontier_result rs = ok_score(&p, &sm);
	struct ct_frontier_input seed = input("hub", 0); /* default type 12 */
	seed.discovery_method = CT_FRONTIER_SEED_METHOD;
	struct ct_frontier_result r = ok_score(&p, &seed);
	ASSERT_EXACT(r.priority, -DBL_MAX);
	ASSERT_EXACT(r.score, 100);
	assert_true(r.priority < rs.priority && r.score > rs.score);
	assert_string_equal(r.priority_source, "seed");
	const struct ct_reason *why = find_reason(&r, CT_R_FR_SEED);
	assert_non_null(why);
	char text[64];
	ct_reason_format(why, text, sizeof text);
	assert_string_equal(text, "Seed page: before every other page");
	/* total prioritisation drops a page of class "other" (no country
	 * word): never a seed */
	p.total_prioritisation = true;
	struct ct_frontier_result tp = ok_score(&p, &seed);
	assert_int_equal(tp.tp, CT_TP_OTHER);
	assert_false(tp.dropped);
	ASSERT_EXACT(tp.score, 100);
	assert_true(ok_score(&p, &sm).dropped);
	p.total_prioritisation = false;
	/* the name is exact, as the bonus table's are */
	seed.discovery_method = "Seed";
	assert_true(ok_score(&p, &seed).priority > -DBL_MAX);
}

/* A clock that moves 10 ms at each read. */
static double fake_clock(void *ctx)
{
	double *t = ctx;
	*t += 10;
	return *t;
}

/* seed 002's computeBatchPriorities: every input scored as alone, the
 * refusals counted and the first named, the time by the caller's clock,
 * the features in use. */
static void batch_priorities(void **state)
{
	(void)state;
	struct ct_frontier_params p;
	ct_frontier_params_default(&p);
	struct ct_frontier_input in[4];
	for (int i = 0; i < 4; i++) {
		in[i] = input(i % 2 ? "nav" : "article", i);
		in[i].discovery_method = i == 3 ? "sitemap" : "link";
	}
	in[2].depth = -1; /* refused: a negative depth */
	struct ct_frontier_result out[4];
	ct_status status[4];
	struct ct_frontier_batch_stats st;
	struct ct_error err = {{0}};
	double t = 0;
	assert_int_equal(ct_frontier_score_batch(&p, NULL, in, 4, out, status,
						 fake_clock, &t, &st, &err),
			 CT_ERANGE);
	assert_non_null(strstr(err.msg, "item 2: frontier input depth = -1"));
	assert_int_equal(st.items, 4);
	assert_int_equal(st.scored, 3);
	assert_int_equal(st.refused, 1);
	ASSERT_EXACT(st.total_ms, 10);
	ASSERT_EXACT(st.avg_ms, 2.5);
	/* seed 002's defaults: gap prediction, clustering and knowledge
	 * reuse on; cost-aware and total prioritisation off */
	assert_int_equal(st.features, CT_FR_FEATURE_GAP | CT_FR_FEATURE_CLUSTER |
			 CT_FR_FEATURE_REUSE);
	for (int i = 0; i < 4; i++) {
		if (i == 2) {
			assert_int_equal(status[i], CT_ERANGE);
			continue;
		}
		assert_int_equal(status[i], CT_OK);
		struct ct_frontier_result alone = ok_score(&p, &in[i]);
		ASSERT_EXACT(out[i].priority, alone.priority);
		ASSERT_EXACT(out[i].score, alone.score);
	}
	/* all good, no clock, two features on */
	in[2].depth = 2;
	p.gap_driven = false;
	p.problem_clustering = false;
	p.knowledge_reuse = true;
	p.cost_aware = true;
	assert_int_equal(ct_frontier_score_batch(&p, NULL, in, 4, out, NULL,
						 NULL, NULL, &st, &err), CT_OK);
	assert_int_equal(st.scored, 4);
	ASSERT_EXACT(st.total_ms, 0);
	assert_int_equal(st.features, CT_FR_FEATURE_REUSE | CT_FR_FEATURE_COST);
	assert_string_equal(ct_frontier_feature_name(CT_FR_FEATURE_GAP),
			    "gap-prediction");
	assert_string_equal(ct_frontier_feature_name(CT_FR_FEATURE_TOTAL),
			    "total-prioritisation");
	assert_null(ct_frontier_feature_name(0x20u));
	/* none: nothing to count */
	assert_int_equal(ct_frontier_score_batch(&p, NULL, NULL, 0, NULL, NULL,
						 fake_clock, &t, &st, &err), CT_OK);
	assert_int_equal(st.items, 0);
	ASSERT_EXACT(st.avg_ms, 0);
	assert_int_equal(ct_frontier_score_batch(NULL, NULL, in, 4, out, NULL,
						 NULL, NULL, &st, &err),
			 CT_EINVAL);
}

static void discovery_alias_map(void **state)
{
	static const struct {
		const char *method, *canon;
		double bonus, priority;
		const char *source;
	} cases[] = {
		{ "intelligent-seed", "adaptive-seed", 20, -19, "discovery-bonus" },
		{ "adaptive-seed", "adaptive-seed", 20, -19, "discovery-bonus" },
		{ "hub-seed", "adaptive-seed", 20, -19, "discovery-bonus" },
		{ "sitemap", "sitemap", 10, -9, "discovery-bonus" },
		{ "validated-hub", "hub-validated", 8, -7, "discovery-bonus" },
		{ "link-discovery", "link", 0, 1, "base" },
		/* not aliased: looked up as given */
		{ "gap-prediction", "gap-prediction", 15, -14, "discovery-bonus" },
		{ "hub-validated", "hub-validated", 8, -7, "discovery-bonus" },
		{ "opportunistic", "opportunistic", 0, 1, "base" },
		{ "Sitemap", "Sitemap", 0, 1, "base" },
	};
	struct ct_frontier_params p;
	ct_frontier_params_default(&p);

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ct_frontier_input in = input("article", 1);
		in.discovery_method = cases[i].method;
		struct ct_frontier_result r = ok_score(&p, &in);
		const struct ct_reason *d = find_reason(&r, CT_R_FR_DISCOVERY);

		assert_string_equal(ct_frontier_method_canonical(&p, cases[i].method),
				    cases[i].canon);
		ASSERT_EXACT(ct_frontier_bonus(&p, cases[i].method), cases[i].bonus);
		ASSERT_EXACT(r.priority, cases[i].priority);
		ASSERT_EXACT(r.bonus_applied, cases[i].bonus);
		assert_string_equal(r.priority_source, cases[i].source);
		if (cases[i].bonus > 0) {
			assert_non_null(d);
			assert_string_equal(d->s, cases[i].canon);
			ASSERT_EXACT(d->a, cases[i].bonus);
		} else {
			assert_null(d);
		}
	}
	/* no method at all: nothing */
	struct ct_frontier_input in = input("article", 1);
	in.discovery_method = NULL;
	ASSERT_EXACT(ok_score(&p, &in).priority, 1);
	assert_null(ct_frontier_method_canonical(&p, NULL));
	ASSERT_EXACT(ct_frontier_bonus(&p, NULL), 0);
}

/* ---- gap prediction -------------------------------------------------- */

/* nav depth 0 (10): conf 1, lift 1 -> 10 + 5 = 15 -> -5 "gap-prediction";
 * conf 0.5, lift 0.2 -> 5 + 1 = 6 -> 4; conf 0, lift 0 -> 0: not applied,
 * source stays base; w_gap 2 with conf 1, lift 0 -> 20 -> -10. */
static void gap_prediction(void **state)
{
	struct ct_frontier_params p;
	ct_frontier_params_default(&p);
	struct ct_frontier_input in = input("nav", 0);
	struct ct_frontier_result r;
	const struct ct_reason *g;

	in.has_gap = true;
	in.gap_confidence = 1;
	in.gap_lift = 1;
	r = ok_score(&p, &in);
	ASSERT_EXACT(r.priority, -5);
	ASSERT_EXACT(r.bonus_applied, 15);
	assert_string_equal(r.priority_source, "gap-prediction");
	g = find_reason(&r, CT_R_FR_GAP);
	assert_non_null(g);
	ASSERT_EXACT(g->a, 15);

	in.gap_confidence = 0.5;
	in.gap_lift = 0.2;
	r = ok_score(&p, &in);
	ASSERT_NEAR(r.priority, 4, 1e-12);

	in.gap_confidence = 0;
	in.gap_lift = 0;
	r = ok_score(&p, &in);
	ASSERT_EXACT(r.priority, 10);
	assert_string_equal(r.priority_source, "base");
	assert_null(find_reason(&r, CT_R_FR_GAP));

	p.w_gap = 2;
	in.gap_confidence = 1;
	r = ok_score(&p, &in);
	ASSERT_EXACT(r.priority, -10);

	/* the flag gates the stage */
	p.w_gap = 1;
	p.gap_driven = false;
	r = ok_score(&p, &in);
	ASSERT_EXACT(r.priority, 10);
	assert_string_equal(r.priority_source, "base");
}

/* Confidence and lift outside 0..1 (or NaN) are input errors, even with
 * the feature off; without a gap (has_gap false) they are not looked at. */
static void gap_out_of_range(void **state)
{
	struct ct_frontier_params p;
	ct_frontier_params_default(&p);
	struct ct_frontier_input in = input("nav", 0);

	in.has_gap = true;
	in.gap_confidence = 1.0000001;
	in.gap_lift = 0;
	/* the value reads back as itself, not as the bound 1 */
	bad_score(&p, &in, CT_ERANGE, "gap_confidence = 1.0000001 is out of range");
	in.gap_confidence = 0.5;
	in.gap_lift = -1e-9;
	bad_score(&p, &in, CT_ERANGE, "gap_lift = -1e-09 is out of range");
	in.gap_lift = 0;
	in.has_gap = false;
	in.knowledge_reuse = 1.0000001;
	bad_score(&p, &in, CT_ERANGE, "knowledge_reuse = 1.0000001 is out of range");
	in.knowledge_reuse = 0;
	in.has_gap = true;
	in.gap_confidence = 1.0000001;
	in.gap_confidence = -0.1;
	bad_score(&p, &in, CT_ERANGE, "gap_confidence");
	in.gap_confidence = NAN;
	bad_score(&p, &in, CT_ERANGE, "gap_confidence");
	in.gap_confidence = 0.5;
	in.gap_lift = 2;
	bad_score(&p, &in, CT_ERANGE, "gap_lift");
	in.gap_lift = -0.5;
	bad_score(&p, &in, CT_ERANGE, "gap_lift");
	p.gap_driven = false;
	bad_score(&p, &in, CT_ERANGE, "gap_lift");
	in.has_gap = false;
	ASSERT_EXACT(ok_score(&p, &in).priority, 10);
}

/* ---- cluster boost --------------------------------------------------- */

/* nav depth 0 (10), threshold 5, factor 2.5, cap 20:
 *  4 occurrences: below the threshold, nothing;
 *  5: log2(5) x 2.5 = 2.321928... x 2.5 = 5.804820237218405 -> 4.195179...;
 *  255: log2(255) x 2.5 = 7.99435... x 2.5 = 19.985883592147143;
 *  256: log2(256) x 2.5 = 8 x 2.5 = 20 exactly -> -10;
 *  257: log2(257) x 2.5 = 20.014... capped at 20 -> -10. */
static void cluster_boost(void **state)
{
	static const struct {
		long occ;
		double boost;
	} cases[] = {
		{ 4, 0 },
		{ 5, 5.804820237218405 },
		{ 255, 19.985883592147143 },
		{ 256, 20 },
		{ 257, 20 },
		{ 100000, 20 },
	};
	struct ct_frontier_params p;
	ct_frontier_params_default(&p);

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ct_frontier_input in = input("nav", 0);
		in.cluster_occurrences = cases[i].occ;
		struct ct_frontier_result r = ok_score(&p, &in);
		const struct ct_reason *c = find_reason(&r, CT_R_FR_CLUSTER);

		ASSERT_NEAR(r.priority, 10 - cases[i].boost, 1e-12);
		ASSERT_NEAR(r.bonus_applied, cases[i].boost, 1e-12);
		if (cases[i].boost > 0) {
			assert_string_equal(r.priority_source, "cluster-boost");
			assert_non_null(c);
			ASSERT_NEAR(c->a, cases[i].boost, 1e-12);
			ASSERT_EXACT(c->b, (double)cases[i].occ);
		} else {
			assert_string_equal(r.priority_source, "base");
			assert_null(c);
		}
	}
	/* 256 gives exactly 20, and so does 257 after the cap */
	struct ct_frontier_input in = input("nav", 0);
	in.cluster_occurrences = 256;
	ASSERT_EXACT(ok_score(&p, &in).bonus_applied, 20);
	in.cluster_occurrences = 257;
	ASSERT_EXACT(ok_score(&p, &in).bonus_applied, 20);
}

/* The cap, the threshold, the flag and a negative count. */
static void cluster_rules(void **state)
{
	struct ct_frontier_params p;
	ct_frontier_params_default(&p);
	struct ct_frontier_input in = input("nav", 0);

	/* cap 10: 256 -> min(20, 10) = 10 -> 0 */
	p.cluster_boost_cap = 10;
	in.cluster_occurrences = 256;
	ASSERT_EXACT(ok_score(&p, &in).priority, 0);
	/* threshold 1, 1 occurrence: log2(1) = 0, no boost, source base */
	ct_frontier_params_default(&p);
	p.cluster_problem_threshold = 1;
	in.cluster_occurrences = 1;
	assert_string_equal(ok_score(&p, &in).priority_source, "base");
	/* threshold 1, 2 occurrences: 1 x 2.5 -> 7.5 */
	in.cluster_occurrences = 2;
	ASSERT_EXACT(ok_score(&p, &in).priority, 7.5);
	/* flag off: nothing */
	p.problem_clustering = false;
	ASSERT_EXACT(ok_score(&p, &in).priority, 10);
	/* negative: an input error even with the flag off */
	in.cluster_occurrences = -1;
	bad_score(&p, &in, CT_ERANGE, "cluster_occurrences");
}

/* ---- knowledge reuse ------------------------------------------------- */

/* article depth 0 with sitemap (0 - 10 = -10) and reuse 0.4: -10.4; the
 * source stays discovery-bonus; bonus_applied 10.4. w_reuse 2.5: 0.4 x 2.5
 * = 1 -> -11. */
static void knowledge_reuse(void **state)
{
	struct ct_frontier_params p;
	ct_frontier_params_default(&p);
	struct ct_frontier_input in = input("article", 0);
	struct ct_frontier_result r;
	const struct ct_reason *k;

	in.discovery_method = "sitemap";
	in.knowledge_reuse = 0.4;
	r = ok_score(&p, &in);
	ASSERT_NEAR(r.priority, -10.4, 1e-12);
	ASSERT_NEAR(r.bonus_applied, 10.4, 1e-12);
	assert_string_equal(r.priority_source, "discovery-bonus");
	k = find_reason(&r, CT_R_FR_REUSE);
	assert_non_null(k);
	ASSERT_NEAR(k->a, 0.4, 1e-15);

	/* alone: source stays base */
	in.discovery_method = NULL;
	r = ok_score(&p, &in);
	ASSERT_NEAR(r.priority, -0.4, 1e-15);
	assert_string_equal(r.priority_source, "base");

	p.w_reuse = 2.5;
	in.discovery_method = "sitemap";
	ASSERT_NEAR(ok_score(&p, &in).priority, -11, 1e-12);

	p.knowledge_reuse = false;
	ASSERT_EXACT(ok_score(&p, &in).priority, -10);

	in.knowledge_reuse = 1.5;
	bad_score(&p, &in, CT_ERANGE, "knowledge_reuse");
	in.knowledge_reuse = -0.1;
	bad_score(&p, &in, CT_ERANGE, "knowledge_reuse");
	in.knowledge_reuse = NAN;
	bad_score(&p, &in, CT_ERANGE, "knowledge_reuse");
	in.knowledge_reuse = 1; /* the edge is allowed */
	ct_frontier_params_default(&p);
	ASSERT_EXACT(ok_score(&p, &in).priority, -11); /* -10 - 1 */
}

/* ---- cost-aware ------------------------------------------------------ */

/* cost-aware on, nav depth 0 (10): 99 ms -> 10 - 0.1 x 10 = 9;
 * 100 and 500 -> 10 (no change); 501 -> 11; NaN (unknown) -> 10;
 * 0 ms -> 9 (a known, fast cost). */
static void cost_aware_bounds(void **state)
{
	static const struct {
		double cost, priority;
		ct_reason_code code; /* CT_R_COUNT = no reason */
	} cases[] = {
		{ 99, 9, CT_R_FR_COST_FAST },
		{ 100, 10, CT_R_COUNT },
		{ 300, 10, CT_R_COUNT },
		{ 500, 10, CT_R_COUNT },
		{ 501, 11, CT_R_FR_COST_SLOW },
		{ 0, 9, CT_R_FR_COST_FAST },
	};
	struct ct_frontier_params p;
	ct_frontier_params_default(&p);
	p.cost_aware = true;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ct_frontier_input in = input("nav", 0);
		in.estimated_cost_ms = cases[i].cost;
		struct ct_frontier_result r = ok_score(&p, &in);

		ASSERT_NEAR(r.priority, cases[i].priority, 1e-12);
		assert_null(find_reason(&r, cases[i].code == CT_R_FR_COST_FAST ?
					CT_R_FR_COST_SLOW : CT_R_FR_COST_FAST));
		if (cases[i].code != CT_R_COUNT) {
			const struct ct_reason *c = find_reason(&r, cases[i].code);
			assert_non_null(c);
			ASSERT_EXACT(c->a, cases[i].cost);
		}
		/* cost never changes the source */
		assert_string_equal(r.priority_source, "base");
	}
	struct ct_frontier_input in = input("nav", 0);
	ASSERT_EXACT(ok_score(&p, &in).priority, 10); /* NaN from INIT */
}

/* The reason states the factor in use: cost.factor 0.25 on nav depth 0
 * (10): 50 ms -> 10 - 0.25 x 10 = 7.5, "Fast action (50 ms) -25%"; 900 ms
 * -> 12.5, "Slow action (900 ms) +25%". */
static void cost_aware_reason_uses_factor(void **state)
{
	struct ct_frontier_params p;
	ct_frontier_params_default(&p);
	p.cost_aware = true;
	p.cost_factor = 0.25;
	static const struct {
		double cost, priority;
		ct_reason_code code;
		const char *text;
	} cases[] = {
		{ 50, 7.5, CT_R_FR_COST_FAST, "Fast action (50 ms) -25%" },
		{ 900, 12.5, CT_R_FR_COST_SLOW, "Slow action (900 ms) +25%" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ct_frontier_input in = input("nav", 0);
		in.estimated_cost_ms = cases[i].cost;
		struct ct_frontier_result r = ok_score(&p, &in);
		char buf[64];
		ASSERT_EXACT(r.priority, cases[i].priority);
		const struct ct_reason *c = find_reason(&r, cases[i].code);
		assert_non_null(c);
		ct_reason_format(c, buf, sizeof(buf));
		assert_string_equal(buf, cases[i].text);
	}
}

/* The adjustment works on |priority|: article depth 0 + sitemap = -10;
 * fast -> -10 - 0.1 x 10 = -11 (more urgent), slow -> -10 + 1 = -9. With
 * the flag off nothing changes. Negative and infinite costs are errors. */
static void cost_aware_negative_priority(void **state)
{
	struct ct_frontier_params p;
	ct_frontier_params_default(&p);
	struct ct_frontier_input in = input("article", 0);

	in.discovery_method = "sitemap";
	in.estimated_cost_ms = 50;
	ASSERT_EXACT(ok_score(&p, &in).priority, -10); /* off by default */
	p.cost_aware = true;
	ASSERT_NEAR(ok_score(&p, &in).priority, -11, 1e-12);
	in.estimated_cost_ms = 800;
	ASSERT_NEAR(ok_score(&p, &in).priority, -9, 1e-12);

	in.estimated_cost_ms = -1;
	bad_score(&p, &in, CT_ERANGE, "estimated_cost_ms");
	in.estimated_cost_ms = INFINITY;
	bad_score(&p, &in, CT_ERANGE, "estimated_cost_ms");
	p.cost_aware = false;
	in.estimated_cost_ms = -1;
	bad_score(&p, &in, CT_ERANGE, "estimated_cost_ms");
}

/* ---- priority source and the whole formula --------------------------- */

/* The source is the last stage that applied; bonuses add up:
 * article depth 0 + sitemap 10 + gap (1, 1) 15 + cluster 256 20 = -45. */
static void priority_source_is_last_stage(void **state)
{
	struct ct_frontier_params p;
	ct_frontier_params_default(&p);
	struct ct_frontier_input in = input("article", 0);
	struct ct_frontier_result r;

	in.discovery_method = "sitemap";
	in.has_gap = true;
	in.gap_confidence = 1;
	in.gap_lift = 1;
	in.cluster_occurrences = 256;
	r = ok_score(&p, &in);
	ASSERT_EXACT(r.priority, -45);
	ASSERT_EXACT(r.bonus_applied, 45);
	assert_string_equal(r.priority_source, "cluster-boost");

	in.cluster_occurrences = 0;
	r = ok_score(&p, &in);
	ASSERT_EXACT(r.priority, -25);
	assert_string_equal(r.priority_source, "gap-prediction");

	/* a gap without a discovery bonus; cluster below threshold */
	in.discovery_method = "link-discovery";
	in.cluster_occurrences = 3;
	r = ok_score(&p, &in);
	ASSERT_EXACT(r.priority, -15);
	assert_string_equal(r.priority_source, "gap-prediction");

	/* cluster without a gap */
	in.has_gap = false;
	in.cluster_occurrences = 256;
	r = ok_score(&p, &in);
	ASSERT_EXACT(r.priority, -20);
	assert_string_equal(r.priority_source, "cluster-boost");
}

/* Every stage at once, cost-aware on, w_base 2:
 *   nav depth 2 bias 0.5: (10 + 2 + 0.5) x 2 = 25
 *   sitemap -10 -> 15; gap 0.8 x 10 + 0.4 x 5 = 10 -> 5;
 *   cluster 32: log2(32) x 2.5 = 12.5 -> -7.5; reuse 0.5 -> -8;
 *   cost 50 ms: -8 - 0.1 x 8 = -8.8.
 * score = 100 - 1250 / (25 + 8.8) = 63.01775147928994 -> P1.
 * Reasons in stage order: base, weight, discovery, gap, cluster, reuse,
 * cost. */
static void whole_formula(void **state)
{
	static const ct_reason_code want[] = {
		CT_R_FR_BASE, CT_R_FR_BASE_WEIGHT, CT_R_FR_DISCOVERY, CT_R_FR_GAP,
		CT_R_FR_CLUSTER, CT_R_FR_REUSE, CT_R_FR_COST_FAST,
	};
	struct ct_frontier_params p;
	ct_frontier_params_default(&p);
	p.w_base = 2;
	p.cost_aware = true;
	struct ct_frontier_input in = input("nav", 2);
	in.bias = 0.5;
	in.discovery_method = "sitemap";
	in.has_gap = true;
	in.gap_confidence = 0.8;
	in.gap_lift = 0.4;
	in.cluster_occurrences = 32;
	in.knowledge_reuse = 0.5;
	in.estimated_cost_ms = 50;
	struct ct_frontier_result r = ok_score(&p, &in);

	ASSERT_NEAR(r.priority, -8.8, 1e-12);
	ASSERT_EXACT(r.base_priority, 12.5);
	ASSERT_NEAR(r.bonus_applied, 10 + 10 + 12.5 + 0.5, 1e-12);
	assert_string_equal(r.priority_source, "cluster-boost");
	ASSERT_NEAR(r.score, 63.01775147928994, 1e-9);
	ASSERT_EXACT(r.score, ct_score_from_frontier(r.priority));
	assert_int_equal(r.cls, CT_P1);
	assert_int_equal(r.reasons.n, 7);
	for (int i = 0; i < 7; i++)
		assert_int_equal(r.reasons.r[i].code, want[i]);
}

/* ---- total prioritisation -------------------------------------------- */

/* Country token "france", related "europe", on article depth 1 (1):
 * country -> 1 - 5000 = -4999; related -> 1 - 3000 = -2999;
 * other -> 1 + 5,000,000 = 5000001 and dropped. */
static void total_prioritisation_classes(void **state)
{
	static const struct {
		const char *url, *type, *method;
		ct_tp_class tp;
		double priority;
		bool dropped;
	} cases[] = {
		{ "https://ex.com/news/france/paris", "article", NULL, CT_TP_COUNTRY, -4999, false },
		{ "https://ex.com/News/FRANCE-2024", "article", NULL, CT_TP_COUNTRY, -4999, false },
		{ "https://ex.com/europe/x", "article", NULL, CT_TP_COUNTRY_RELATED, -2999, false },
		{ "https://ex.com/europe/france", "article", NULL, CT_TP_COUNTRY, -4999, false },
		{ "https://ex.com/sports", "article", NULL, CT_TP_OTHER, 5000001, true },
		/* the host and the query are not the path */
		{ "https://france.ex.com/x", "article", NULL, CT_TP_OTHER, 5000001, true },
		{ "https://ex.com/x?q=france#france", "article", NULL, CT_TP_OTHER, 5000001, true },
		/* words of the method: "europe-feed" -> europe; no bonus listed */
		{ "https://ex.com/x", "article", "europe-feed", CT_TP_COUNTRY_RELATED, -2999, false },
		/* "frances" is not "france" */
		{ "https://ex.com/frances", "article", NULL, CT_TP_OTHER, 5000001, true },
	};
	struct ct_frontier_params p;
	ct_frontier_params_default(&p);
	p.total_prioritisation = true;
	assert_int_equal(ct_frontier_add_country_token(&p, "france"), CT_OK);
	assert_int_equal(ct_frontier_add_related_token(&p, "europe"), CT_OK);
	assert_int_equal(ct_frontier_params_check(&p, NULL), CT_OK);

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ct_frontier_input in = input(cases[i].type, 1);
		in.url = cases[i].url;
		in.discovery_method = cases[i].method;
		struct ct_frontier_result r = ok_score(&p, &in);
		const struct ct_reason *t = find_reason(&r, CT_R_FR_TOTAL);

		if (r.tp != cases[i].tp)
			fail_msg("%s: class %s, expected %s", cases[i].url,
				 ct_tp_class_name(r.tp), ct_tp_class_name(cases[i].tp));
		ASSERT_EXACT(r.priority, cases[i].priority);
		assert_int_equal(r.dropped, cases[i].dropped);
		assert_non_null(t);
		assert_string_equal(t->s, ct_tp_class_name(cases[i].tp));
		ASSERT_EXACT(t->a, cases[i].priority - 1);
		assert_int_equal(ct_frontier_classify(&p, cases[i].type,
						      cases[i].method, cases[i].url),
				 cases[i].tp);
	}
	/* the type's words count too */
	assert_int_equal(ct_frontier_classify(&p, "france-hub", NULL, "https://ex.com/"),
			 CT_TP_COUNTRY);
}

/* A classification given in the input wins over the tokens; with the
 * feature off nothing happens whatever the input says. */
static void total_prioritisation_given_and_off(void **state)
{
	struct ct_frontier_params p;
	ct_frontier_params_default(&p);
	struct ct_frontier_input in = input("article", 1);
	struct ct_frontier_result r;

	in.url = "https://ex.com/sports";
	in.classification = CT_TP_COUNTRY;
	r = ok_score(&p, &in); /* off */
	ASSERT_EXACT(r.priority, 1);
	assert_int_equal(r.tp, CT_TP_NONE);
	assert_false(r.dropped);
	assert_null(find_reason(&r, CT_R_FR_TOTAL));

	p.total_prioritisation = true;
	assert_int_equal(ct_frontier_add_country_token(&p, "france"), CT_OK);
	r = ok_score(&p, &in);
	ASSERT_EXACT(r.priority, -4999);
	assert_int_equal(r.tp, CT_TP_COUNTRY);
	in.classification = CT_TP_COUNTRY_RELATED;
	ASSERT_EXACT(ok_score(&p, &in).priority, -2999);
	in.classification = CT_TP_OTHER;
	r = ok_score(&p, &in);
	assert_true(r.dropped);
	/* the offset keeps the order inside a class: depth 2 after depth 1 */
	in.classification = CT_TP_COUNTRY;
	in.depth = 2;
	ASSERT_EXACT(ok_score(&p, &in).priority, -4998);
	/* an invalid class value is refused */
	in.classification = (ct_tp_class)9;
	bad_score(&p, &in, CT_EINVAL, "classification");
}

/* ---- errors ---------------------------------------------------------- */

/* Negative depth, non-finite bias and non-finite results are refused;
 * for the last, out->priority holds the value. */
static void input_errors(void **state)
{
	struct ct_frontier_params p;
	ct_frontier_params_default(&p);
	struct ct_frontier_input in = input("nav", -1);
	struct ct_frontier_result r;
	struct ct_error err = {{0}};

	bad_score(&p, &in, CT_ERANGE, "depth");
	assert_int_equal(ct_frontier_score(&p, NULL, &in, &r, &err), CT_ERANGE);
	assert_non_null(strstr(err.msg, "-1")); /* the value is named */
	ASSERT_EXACT(r.priority, 0);
	in = input("nav", 0);
	in.bias = NAN;
	bad_score(&p, &in, CT_ERANGE, "bias");
	in.bias = -INFINITY;
	bad_score(&p, &in, CT_ERANGE, "bias");
	/* 1e308 x 10 overflows to inf */
	in.bias = 1e308;
	p.w_base = 10;
	assert_int_equal(ct_frontier_score(&p, NULL, &in, &r, &err), CT_ERANGE);
	assert_true(isinf(r.priority));
	assert_non_null(strstr(err.msg, "not finite"));
	assert_int_equal(ct_frontier_score(NULL, NULL, &in, &r, NULL), CT_EINVAL);
	assert_int_equal(ct_frontier_score(&p, NULL, NULL, &r, NULL), CT_EINVAL);
}

/* ---- the scale ------------------------------------------------------- */

/* score = ct_score_from_frontier(priority): 0 -> 50, -25 -> 75, 25 -> 25;
 * strictly decreasing along a sweep of priorities; classes with the given
 * bounds. article depth 1 + intelligent-seed = -19 ->
 * 100 - 1250 / (25 + 19) = 71.5909090909091 (P1). */
static void score_mapping(void **state)
{
	struct ct_frontier_params p;
	ct_frontier_params_default(&p);
	struct ct_frontier_input in = input("article", 1);
	struct ct_frontier_result r;
	const struct ct_class_bounds b = { 70, 50, 30 };
	double prev = INFINITY;

	in.discovery_method = "intelligent-seed";
	r = ok_score(&p, &in);
	ASSERT_NEAR(r.score, 71.5909090909091, 1e-9);
	assert_int_equal(r.cls, CT_P1);
	assert_int_equal(ct_frontier_score(&p, &b, &in, &r, NULL), CT_OK);
	assert_int_equal(r.cls, CT_P0); /* 70.69 >= 70 */

	/* bias sweeps the priority from -60 to +60 in steps of 0.5 */
	for (int k = -120; k <= 120; k++) {
		in = input("article", 0);
		in.bias = k * 0.5;
		r = ok_score(&p, &in);
		ASSERT_EXACT(r.score, ct_score_from_frontier(r.priority));
		if (!(r.score < prev))
			fail_msg("score %.17g at priority %g is not below %.17g",
				 r.score, r.priority, prev);
		assert_true(r.score > 0 && r.score < 100);
		prev = r.score;
	}
	in = input("nav", 15); /* 25 -> 25 */
	ASSERT_NEAR(ok_score(&p, &in).score, 25, 1e-12);
	assert_int_equal(ok_score(&p, &in).cls, CT_P3);
}

/* ---- names ----------------------------------------------------------- */

/* seed 002's queue choice and the name helpers. */
static void names_and_queue_type(void **state)
{
	ct_tp_class c;

	assert_int_equal(ct_frontier_queue_type("article"), CT_QUEUE_ACQUISITION);
	assert_int_equal(ct_frontier_queue_type("refresh"), CT_QUEUE_ACQUISITION);
	assert_int_equal(ct_frontier_queue_type("history"), CT_QUEUE_ACQUISITION);
	assert_int_equal(ct_frontier_queue_type("nav"), CT_QUEUE_DISCOVERY);
	assert_int_equal(ct_frontier_queue_type("hub-seed"), CT_QUEUE_DISCOVERY);
	assert_int_equal(ct_frontier_queue_type("hub"), CT_QUEUE_DISCOVERY);
	assert_int_equal(ct_frontier_queue_type(NULL), CT_QUEUE_DISCOVERY);
	assert_int_equal(ct_frontier_queue_type("Article"), CT_QUEUE_DISCOVERY);
	assert_string_equal(ct_queue_type_name(CT_QUEUE_DISCOVERY), "discovery");
	assert_string_equal(ct_queue_type_name(CT_QUEUE_ACQUISITION), "acquisition");
	assert_string_equal(ct_tp_class_name(CT_TP_NONE), "none");
	assert_string_equal(ct_tp_class_name(CT_TP_COUNTRY), "country");
	assert_string_equal(ct_tp_class_name(CT_TP_COUNTRY_RELATED), "country-related");
	assert_string_equal(ct_tp_class_name(CT_TP_OTHER), "other");
	assert_true(ct_tp_class_parse("country-related", &c));
	assert_int_equal(c, CT_TP_COUNTRY_RELATED);
	assert_true(ct_tp_class_parse("other", &c));
	assert_int_equal(c, CT_TP_OTHER);
	assert_false(ct_tp_class_parse("Country", &c));
	assert_false(ct_tp_class_parse(NULL, &c));
}

/* ct_frontier_input_init gives what CT_FRONTIER_INPUT_INIT does: an
 * unknown cost (NaN, not 0 ms: a zeroed input would get the fast-action
 * bonus) and every other field zero, whatever the struct held before. */
static void input_init_is_the_initialiser(void **state)
{
	(void)state;
	struct ct_frontier_input a = CT_FRONTIER_INPUT_INIT, b;
	memset(&b, 0x5a, sizeof b);
	ct_frontier_input_init(&b);
	assert_true(isnan(a.estimated_cost_ms) && isnan(b.estimated_cost_ms));
	a.estimated_cost_ms = b.estimated_cost_ms = 0;
	assert_null(b.url);
	assert_int_equal(b.depth, a.depth);
	assert_int_equal(b.cluster_occurrences, 0);
	assert_false(b.has_gap);
	assert_int_equal(b.classification, a.classification);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(defaults_are_the_seeds),
		cmocka_unit_test(input_init_is_the_initialiser),
		cmocka_unit_test(params_check_rules),
		cmocka_unit_test(table_setters),
		cmocka_unit_test(base_article),
		cmocka_unit_test(base_depth_and_bias),
		cmocka_unit_test(unknown_type_gets_default),
		cmocka_unit_test(type_names_case_sensitive),
		cmocka_unit_test(base_weight),
		cmocka_unit_test(seed_first),
		cmocka_unit_test(batch_priorities),
		cmocka_unit_test(discovery_alias_map),
		cmocka_unit_test(gap_prediction),
		cmocka_unit_test(gap_out_of_range),
		cmocka_unit_test(cluster_boost),
		cmocka_unit_test(cluster_rules),
		cmocka_unit_test(knowledge_reuse),
		cmocka_unit_test(cost_aware_bounds),
		cmocka_unit_test(cost_aware_negative_priority),
		cmocka_unit_test(cost_aware_reason_uses_factor),
		cmocka_unit_test(priority_source_is_last_stage),
		cmocka_unit_test(whole_formula),
		cmocka_unit_test(total_prioritisation_classes),
		cmocka_unit_test(total_prioritisation_given_and_off),
		cmocka_unit_test(input_errors),
		cmocka_unit_test(score_mapping),
		cmocka_unit_test(names_and_queue_type),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
