/* test_frontier_queue.c: seed 002's QueueManager
 * (include/crawltop/frontier_queue.h, SPEC.md "Seed 002, frontier").
 * Priorities are derived by hand from the default tables: article 0,
 * hub-seed 4, history 6, nav 10, refresh 25, unknown 12; sitemap bonus 10. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "crawltop/frontier_queue.h"
#include "crawltop/importance.h"

#define ASSERT_EXACT(got, want) do { \
	double ex_got_ = (got), ex_want_ = (want); \
	if (!(ex_got_ == ex_want_)) \
		fail_msg("%s = %.17g, expected exactly %.17g", #got, \
			 ex_got_, ex_want_); \
} while (0)

/* ---- helpers --------------------------------------------------------- */

/* Callback state: hosts with resume times, a refused path, a bypass path. */
struct cb_state {
	const char *slow_host[4];
	int64_t slow_until[4];
	int n_slow;
	int resume_calls;
	const char *refuse;        /* substring refused by eligibility */
	const char *refuse_reason; /* may be NULL */
	const char *bypass;        /* substring allowed past max_depth */
	int bypass_calls;
	/* when set, the callbacks try to change this queue (theirs) and
	 * keep what each try returned */
	struct ct_fq *reenter;
	ct_status reenter_st[3];
	int reenter_calls;
};

/* A callback's tries to change its own queue: enqueue, pull, new params. */
static void try_reenter(struct cb_state *s)
{
	if (!s->reenter)
		return;
	struct ct_frontier_input in = CT_FRONTIER_INPUT_INIT;
	struct ct_fq_pull_result r;
	struct ct_frontier_params p;
	struct ct_error err = {{0}};
	in.url = "https://robots.example/robots.txt";
	in.type = "page";
	ct_frontier_params_default(&p);
	s->reenter_st[0] = ct_fq_enqueue(s->reenter, &in, 0, NULL, &err);
	s->reenter_st[1] = ct_fq_pull(s->reenter, 0, &r);
	s->reenter_st[2] = ct_fq_set_params(s->reenter, &p, &err);
	s->reenter_calls++;
}

static int64_t cb_resume(void *ctx, const char *host)
{
	struct cb_state *s = ctx;
	s->resume_calls++;
	try_reenter(s);
	for (int i = 0; i < s->n_slow; i++)
		if (strcmp(s->slow_host[i], host) == 0)
			return s->slow_until[i];
	return 0;
}

static bool cb_eligible(void *ctx, const char *url, const char **reason)
{
	struct cb_state *s = ctx;
	try_reenter(s);
	if (s->refuse && strstr(url, s->refuse)) {
		*reason = s->refuse_reason;
		return false;
	}
	return true;
}

static bool cb_bypass(void *ctx, const char *url, int depth, const char *type)
{
	struct cb_state *s = ctx;
	s->bypass_calls++;
	return s->bypass && strstr(url, s->bypass) != NULL;
}

/* A queue with default params changed by the caller, and all callbacks. */
static struct ct_fq *make_queue(const struct ct_frontier_params *p,
				struct cb_state *s)
{
	struct ct_fq_callbacks cb = {.ctx = s, .bypass_depth = cb_bypass,
				     .eligible = cb_eligible,
				     .host_resume_ms = cb_resume};
	struct ct_fq *q = NULL;
	struct ct_error err = {{0}};
	ct_status st = ct_fq_create(p, NULL, &cb, &q, &err);
	if (st != CT_OK)
		fail_msg("ct_fq_create: %s", err.msg);
	return q;
}

/* A queue without callbacks, default parameters but these two. */
static struct ct_fq *bare_queue(size_t max_queue, int max_depth)
{
	struct ct_frontier_params p;
	ct_frontier_params_default(&p);
	p.max_queue = max_queue;
	p.max_depth = max_depth;
	struct ct_fq *q = NULL;
	struct ct_error err = {{0}};
	if (ct_fq_create(&p, NULL, NULL, &q, &err) != CT_OK)
		fail_msg("ct_fq_create: %s", err.msg);
	return q;
}

/* Enqueues url with type, depth, method; returns the decision's reason
 * (NULL when enqueued) and asserts CT_OK. */
static const char *enq(struct ct_fq *q, const char *url, const char *type,
		       int depth, const char *method, int64_t discovered_ms)
{
	struct ct_frontier_input in = CT_FRONTIER_INPUT_INIT;
	struct ct_fq_enqueue_result res;
	struct ct_error err = {{0}};

	in.url = url;
	in.type = type;
	in.depth = depth;
	in.discovery_method = method;
	ct_status st = ct_fq_enqueue(q, &in, discovered_ms, &res, &err);
	if (st != CT_OK)
		fail_msg("enqueue %s: %d %s", url ? url : "(null)", (int)st, err.msg);
	assert_int_equal(res.enqueued, res.reason == NULL);
	return res.reason;
}

/* Pulls at now and asserts an item came out; the caller releases it. */
static struct ct_fq_item pull_item(struct ct_fq *q, int64_t now)
{
	struct ct_fq_pull_result r;
	assert_int_equal(ct_fq_pull(q, now, &r), CT_OK);
	if (!r.has_item)
		fail_msg("no item (size %zu)", ct_fq_size(q));
	return r.item;
}

/* Pulls and returns the URL's path after the host, copied into buf. */
static const char *pull_path(struct ct_fq *q, int64_t now, char *buf, size_t n)
{
	struct ct_fq_item it = pull_item(q, now);
	const char *path = strchr(it.url + strlen("https://"), '/');
	snprintf(buf, n, "%s", path ? path : "");
	ct_fq_item_release(&it);
	return buf;
}

/* ---- URL normalisation ----------------------------------------------- */

static void normalise_url_rules(void **state)
{
	static const struct {
		const char *in, *want;
	} cases[] = {
		{ "HTTP://Example.COM:80/Path?q=1#frag", "http://example.com/Path?q=1" },
		{ "https://example.com:443", "https://example.com/" },
		{ "https://example.com:8443/a", "https://example.com:8443/a" },
		{ "http://example.com:443/a", "http://example.com:443/a" },
		{ "https://user:Pw@Example.com/a", "https://user:Pw@example.com/a" },
		{ "http://example.com?x", "http://example.com/?x" },
		{ "http://example.com#top", "http://example.com/" },
		{ "http://[::1]:80/x", "http://[::1]/x" },
		{ "http://[::1]:8080/x", "http://[::1]:8080/x" },
		{ "http://example.com:080/", "http://example.com/" },
		{ "http://example.com:/", "http://example.com/" },
		{ "wss://Chat.example.com:443/s", "wss://chat.example.com/s" },
		{ "ftp://files.example.com:21/f", "ftp://files.example.com/f" },
		{ "https://example.com/A/./b", "https://example.com/A/./b" },
	};
	char buf[128];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		long n = ct_fq_normalise_url(cases[i].in, buf, sizeof(buf));
		assert_int_equal(n, (long)strlen(cases[i].want));
		assert_string_equal(buf, cases[i].want);
	}
	static const char *const bad[] = {
		"", "example.com/x", "http:/x", "http://", "http:///x",
		"http://:80/", "1http://x", "http://x:99999/", "http://x:8a/",
		"http://[::1/x", "http://x]:80/", "://x", "http://a b.com/",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (ct_fq_normalise_url(bad[i], buf, sizeof(buf)) != -1)
			fail_msg("\"%s\" should be invalid", bad[i]);
	assert_int_equal(ct_fq_normalise_url(NULL, buf, sizeof(buf)), -1);
	/* snprintf semantics: the full length, a terminated prefix */
	assert_int_equal(ct_fq_normalise_url("HTTP://A.com", buf, 5), 13);
	assert_string_equal(buf, "http");
	assert_int_equal(ct_fq_normalise_url("HTTP://A.com", NULL, 0), 13);
}

/* ---- enqueue checks -------------------------------------------------- */

/* NULL, empty, no scheme, no host: "invalid-url"; nothing is queued. */
static void invalid_url(void **state)
{
	struct ct_frontier_params p;
	struct cb_state s = {0};
	ct_frontier_params_default(&p);
	struct ct_fq *q = make_queue(&p, &s);

	assert_string_equal(enq(q, NULL, "nav", 0, NULL, 0), "invalid-url");
	assert_string_equal(enq(q, "", "nav", 0, NULL, 0), "invalid-url");
	assert_string_equal(enq(q, "example.com/a", "nav", 0, NULL, 0), "invalid-url");
	assert_string_equal(enq(q, "https://", "nav", 0, NULL, 0), "invalid-url");
	assert_string_equal(enq(q, "https://x:port/", "nav", 0, NULL, 0), "invalid-url");
	/* a host that is not UTF-8 (the callbacks get it as text) */
	assert_string_equal(enq(q, "http://\xff\xfe.example/", "nav", 0, NULL, 0),
			    "invalid-url");
	assert_string_equal(enq(q, "http://b\xc3.example/", "nav", 0, NULL, 0),
			    "invalid-url");
	assert_int_equal(ct_fq_size(q), 0);
	/* an international name in UTF-8 is a host */
	assert_null(enq(q, "http://b\xc3\xbc" "cher.example/", "nav", 0, NULL, 0));
	assert_int_equal(ct_fq_size(q), 1);
	ct_fq_destroy(q);
}

/* max_queue 3 counts both heaps: nav, nav (discovery) and article
 * (acquisition) fill it; the fourth is "queue-full"; a pull frees a
 * place. */
static void queue_full(void **state)
{
	struct ct_frontier_params p;
	struct cb_state s = {0};
	ct_frontier_params_default(&p);
	p.max_queue = 3;
	struct ct_fq *q = make_queue(&p, &s);

	assert_null(enq(q, "https://a.com/1", "nav", 0, NULL, 1));
	assert_null(enq(q, "https://a.com/2", "nav", 0, NULL, 2));
	assert_null(enq(q, "https://a.com/3", "article", 0, NULL, 3));
	assert_int_equal(ct_fq_size_of(q, CT_QUEUE_DISCOVERY), 2);
	assert_int_equal(ct_fq_size_of(q, CT_QUEUE_ACQUISITION), 1);
	assert_string_equal(enq(q, "https://a.com/4", "article", 0, NULL, 4), "queue-full");
	assert_string_equal(enq(q, "https://a.com/4", "nav", 0, NULL, 4), "queue-full");
	assert_int_equal(ct_fq_size(q), 3);
	struct ct_fq_item it = pull_item(q, 0);
	ct_fq_item_release(&it);
	assert_null(enq(q, "https://a.com/4", "nav", 0, NULL, 4));
	ct_fq_destroy(q);
}

/* max_depth 2: depth 2 goes in, depth 3 is "max-depth" unless the bypass
 * callback lets it in; the bypass is only asked for items too deep. */
static void max_depth_and_bypass(void **state)
{
	struct ct_frontier_params p;
	struct cb_state s = {0};
	ct_frontier_params_default(&p);
	p.max_depth = 2;
	struct ct_fq *q = make_queue(&p, &s);

	assert_null(enq(q, "https://a.com/d2", "nav", 2, NULL, 0));
	assert_int_equal(s.bypass_calls, 0);
	assert_string_equal(enq(q, "https://a.com/d3", "nav", 3, NULL, 0), "max-depth");
	assert_int_equal(s.bypass_calls, 1);
	s.bypass = "/keep";
	assert_null(enq(q, "https://a.com/keep/d3", "nav", 3, NULL, 0));
	assert_string_equal(enq(q, "https://a.com/d4", "nav", 4, NULL, 0), "max-depth");
	assert_int_equal(ct_fq_size(q), 2);
	ct_fq_destroy(q);
}

/* The eligibility callback's reason, or "ineligible" when it gives none. */
static void eligibility_reason(void **state)
{
	struct ct_frontier_params p;
	struct cb_state s = {0};
	ct_frontier_params_default(&p);
	struct ct_fq *q = make_queue(&p, &s);

	s.refuse = "/login";
	s.refuse_reason = "robots";
	assert_string_equal(enq(q, "https://a.com/login", "nav", 0, NULL, 0), "robots");
	s.refuse_reason = NULL;
	assert_string_equal(enq(q, "https://a.com/login", "nav", 0, NULL, 0), "ineligible");
	assert_null(enq(q, "https://a.com/home", "nav", 0, NULL, 0));
	ct_fq_destroy(q);
}

/* The same normalised URL is a "duplicate" while queued, and welcome again
 * once pulled. The path is case-sensitive, so /A is another URL. */
static void duplicate_and_release(void **state)
{
	struct ct_frontier_params p;
	struct cb_state s = {0};
	ct_frontier_params_default(&p);
	struct ct_fq *q = make_queue(&p, &s);

	assert_null(enq(q, "https://a.com/a", "nav", 0, NULL, 0));
	assert_string_equal(enq(q, "https://a.com/a", "nav", 0, NULL, 0), "duplicate");
	assert_string_equal(enq(q, "HTTPS://A.COM:443/a#top", "article", 1, NULL, 0),
			    "duplicate");
	assert_true(ct_fq_contains(q, "https://a.com:443/a"));
	assert_false(ct_fq_contains(q, "https://a.com/A"));
	assert_null(enq(q, "https://a.com/A", "nav", 0, NULL, 0));
	assert_int_equal(ct_fq_size(q), 2);

	/* both are nav depth 0 (10); /a was first */
	struct ct_fq_item it = pull_item(q, 0);
	assert_string_equal(it.url, "https://a.com/a");
	assert_string_equal(it.key, "https://a.com/a");
	assert_string_equal(it.host, "a.com");
	ct_fq_item_release(&it);
	assert_null(it.url);
	assert_false(ct_fq_contains(q, "https://a.com/a"));
	assert_null(enq(q, "https://a.com/a", "nav", 0, NULL, 0));
	ct_fq_destroy(q);
}

/* The checks run in the seed's order: with every check failing, the
 * earliest one is reported. */
static void check_order(void **state)
{
	struct ct_frontier_params p;
	struct cb_state s = {0};
	ct_frontier_params_default(&p);
	p.max_queue = 2;
	p.max_depth = 1;
	struct ct_fq *q = make_queue(&p, &s);

	s.refuse = "/x";
	s.refuse_reason = "robots";
	assert_null(enq(q, "https://a.com/dup", "nav", 0, NULL, 0));
	/* ineligible and duplicate -> eligibility first */
	assert_string_equal(enq(q, "https://a.com/dup?/x", "nav", 0, NULL, 0), "robots");
	s.refuse = "/dup";
	assert_string_equal(enq(q, "https://a.com/dup", "nav", 0, NULL, 0), "robots");
	s.refuse = "/x";
	/* too deep and ineligible -> max-depth */
	assert_string_equal(enq(q, "https://a.com/x", "nav", 2, NULL, 0), "max-depth");
	assert_null(enq(q, "https://a.com/other", "nav", 0, NULL, 0));
	/* full, too deep -> queue-full; full and invalid -> invalid-url */
	assert_string_equal(enq(q, "https://a.com/x", "nav", 2, NULL, 0), "queue-full");
	assert_string_equal(enq(q, "not a url", "nav", 2, NULL, 0), "invalid-url");
	ct_fq_destroy(q);
}

/* Total prioritisation "other" is "deprioritised" (scored, dropped);
 * country items go in with their offset: article depth 1 = 1 - 5000. */
static void deprioritised(void **state)
{
	struct ct_frontier_params p;
	struct cb_state s = {0};
	ct_frontier_params_default(&p);
	p.total_prioritisation = true;
	assert_int_equal(ct_frontier_add_country_token(&p, "france"), CT_OK);
	struct ct_fq *q = make_queue(&p, &s);
	struct ct_frontier_input in = CT_FRONTIER_INPUT_INIT;
	struct ct_fq_enqueue_result res;

	in.url = "https://a.com/sports/x";
	in.type = "article";
	in.depth = 1;
	assert_int_equal(ct_fq_enqueue(q, &in, 0, &res, NULL), CT_OK);
	assert_false(res.enqueued);
	assert_string_equal(res.reason, "deprioritised");
	assert_true(res.scored);
	assert_true(res.score.dropped);
	ASSERT_EXACT(res.score.priority, 5000001);
	assert_int_equal(ct_fq_size(q), 0);
	assert_false(ct_fq_contains(q, in.url));

	in.url = "https://a.com/france/x";
	assert_int_equal(ct_fq_enqueue(q, &in, 0, &res, NULL), CT_OK);
	assert_true(res.enqueued);
	ASSERT_EXACT(res.score.priority, -4999);
	struct ct_fq_item it = pull_item(q, 0);
	ASSERT_EXACT(it.priority, -4999);
	assert_int_equal(it.tp, CT_TP_COUNTRY);
	ct_fq_item_release(&it);
	ct_fq_destroy(q);
}

/* A non-finite priority is refused (1e308 x 10 = inf), as is a bad input;
 * both with a status and nothing queued. */
static void refused_priorities(void **state)
{
	struct ct_frontier_params p;
	struct cb_state s = {0};
	ct_frontier_params_default(&p);
	p.w_base = 10;
	struct ct_fq *q = make_queue(&p, &s);
	struct ct_frontier_input in = CT_FRONTIER_INPUT_INIT;
	struct ct_fq_enqueue_result res;
	struct ct_error err = {{0}};

	in.url = "https://a.com/inf";
	in.type = "nav";
	in.bias = 1e308;
	assert_int_equal(ct_fq_enqueue(q, &in, 0, &res, &err), CT_ERANGE);
	assert_false(res.enqueued);
	assert_string_equal(res.reason, "non-finite-priority");
	assert_non_null(strstr(err.msg, "not finite"));

	in.bias = 0;
	in.has_gap = true;
	in.gap_confidence = 2;
	assert_int_equal(ct_fq_enqueue(q, &in, 0, &res, &err), CT_ERANGE);
	assert_string_equal(res.reason, "invalid-input");
	assert_non_null(strstr(err.msg, "gap_confidence"));

	in.has_gap = false;
	in.depth = -1;
	assert_int_equal(ct_fq_enqueue(q, &in, 0, &res, &err), CT_ERANGE);
	assert_string_equal(res.reason, "invalid-input");
	assert_int_equal(ct_fq_size(q), 0);
	assert_false(ct_fq_contains(q, in.url));
	/* the same URL with a good input goes in */
	in.depth = 0;
	assert_int_equal(ct_fq_enqueue(q, &in, 0, NULL, NULL), CT_OK);
	assert_int_equal(ct_fq_size(q), 1);
	ct_fq_destroy(q);
}

/* ---- order ----------------------------------------------------------- */

/* Lower priority first: in discovery, hub-seed d0 (4) < nav d0 (10) < nav
 * d1 (11) < unknown d0 (12) < unknown d0 via sitemap (12 - 10 = 2) is
 * first of all. */
static void pops_lowest_priority_first(void **state)
{
	struct ct_frontier_params p;
	struct cb_state s = {0};
	ct_frontier_params_default(&p);
	struct ct_fq *q = make_queue(&p, &s);
	char buf[64];

	assert_null(enq(q, "https://a.com/nav1", "nav", 1, NULL, 0));
	assert_null(enq(q, "https://a.com/blog", "blog", 0, NULL, 0));
	assert_null(enq(q, "https://a.com/hubseed", "hub-seed", 0, NULL, 0));
	assert_null(enq(q, "https://a.com/nav0", "nav", 0, NULL, 0));
	assert_null(enq(q, "https://a.com/blogsm", "blog", 0, "sitemap", 0));
	assert_string_equal(pull_path(q, 0, buf, sizeof(buf)), "/blogsm");
	assert_string_equal(pull_path(q, 0, buf, sizeof(buf)), "/hubseed");
	assert_string_equal(pull_path(q, 0, buf, sizeof(buf)), "/nav0");
	assert_string_equal(pull_path(q, 0, buf, sizeof(buf)), "/nav1");
	assert_string_equal(pull_path(q, 0, buf, sizeof(buf)), "/blog");
	assert_int_equal(ct_fq_size(q), 0);
	ct_fq_destroy(q);
}

/* Equal priorities (nav d0 = 10) pop first-in first-out; among equal
 * priorities an earlier discovery time comes first even if enqueued
 * later. */
static void ties_pop_fifo(void **state)
{
	struct ct_frontier_params p;
	struct cb_state s = {0};
	ct_frontier_params_default(&p);
	struct ct_fq *q = make_queue(&p, &s);
	char url[64], buf[64];

	for (int i = 0; i < 20; i++) {
		snprintf(url, sizeof(url), "https://a.com/%02d", i);
		assert_null(enq(q, url, "nav", 0, NULL, 1000));
	}
	for (int i = 0; i < 20; i++) {
		snprintf(url, sizeof(url), "/%02d", i);
		assert_string_equal(pull_path(q, 0, buf, sizeof(buf)), url);
	}
	assert_null(enq(q, "https://a.com/late", "nav", 0, NULL, 2000));
	assert_null(enq(q, "https://a.com/early", "nav", 0, NULL, 1000));
	assert_null(enq(q, "https://a.com/late2", "nav", 0, NULL, 2000));
	assert_string_equal(pull_path(q, 0, buf, sizeof(buf)), "/early");
	assert_string_equal(pull_path(q, 0, buf, sizeof(buf)), "/late");
	assert_string_equal(pull_path(q, 0, buf, sizeof(buf)), "/late2");
	ct_fq_destroy(q);
}

/* Enqueues one discovery-queue "nav" item (weight 10, depth 0) with a bias
 * and a knowledge-reuse value; returns the score the scorer gave it. */
static double enq_nav(struct ct_fq *q, const char *url, double bias,
		      double reuse, int64_t discovered_ms, double *priority)
{
	struct ct_frontier_input in = CT_FRONTIER_INPUT_INIT;
	struct ct_fq_enqueue_result res;
	struct ct_error err = {{0}};

	in.url = url;
	in.type = "nav";
	in.bias = bias;
	in.knowledge_reuse = reuse;
	if (ct_fq_enqueue(q, &in, discovered_ms, &res, &err) != CT_OK)
		fail_msg("enqueue %s: %s", url, err.msg);
	assert_true(res.enqueued);
	if (priority)
		*priority = res.score.priority;
	return res.score.score;
}

/* SPEC.md: the frontier's pop order and the store's claim order agree for
 * the tasks of one job. x = nav 10 + bias 0.3 - reuse 0.6 and y = nav 10
 * - reuse 0.3 are two different doubles (9.7000000000000011 and
 * 9.6999999999999993) that map to one score; the store then takes the
 * earlier discovery, x (t 1000), before y (t 2000), although y has the
 * lower raw priority and was enqueued first. */
static void colliding_scores_pop_by_discovery_time(void **state)
{
	struct ct_frontier_params p;
	struct cb_state s = {0};
	ct_frontier_params_default(&p);
	struct ct_fq *q = make_queue(&p, &s);
	double py, px;
	char buf[64];

	double sy = enq_nav(q, "https://a.com/y", 0.0, 0.3, 2000, &py);
	double sx = enq_nav(q, "https://a.com/x", 0.3, 0.6, 1000, &px);
	/* the premise: distinct priorities, y's lower, one score */
	assert_true(py < px);
	ASSERT_EXACT(sx, sy);
	ASSERT_EXACT(ct_score_from_frontier(px), ct_score_from_frontier(py));
	struct ct_task_key kx = { 5, sx, 1000, 1 }, ky = { 5, sy, 2000, 0 };
	assert_true(ct_task_key_cmp(&kx, &ky) < 0);
	assert_string_equal(pull_path(q, 0, buf, sizeof(buf)), "/x");
	assert_string_equal(pull_path(q, 0, buf, sizeof(buf)), "/y");
	ct_fq_destroy(q);
}

static int key_qsort_cmp(const void *a, const void *b)
{
	return ct_task_key_cmp(a, b);
}

/* For one job, the heap's pop order is the store's claim order: the keys
 * (score from the scorer, discovery time, id = insertion sequence) sorted
 * with ct_task_key_cmp. Biases and reuse values are multiples of 0.1 and
 * 0.05, so the priorities are non-integers full of near-ties like the one
 * above; discovery times take 3 values so that ties are broken every way. */
static void pop_order_is_score_order(void **state)
{
	enum { N = 600 };
	struct ct_frontier_params p;
	struct cb_state s = {0};
	ct_frontier_params_default(&p);
	struct ct_fq *q = make_queue(&p, &s);
	static struct ct_task_key want[N];
	char url[64];
	unsigned x = 12345;
	size_t collisions = 0;

	for (int i = 0; i < N; i++) {
		x = x * 1103515245u + 12345u;
		double bias = (double)((x >> 8) % 31) * 0.1;
		double reuse = (double)((x >> 16) % 21) * 0.05;
		int64_t t = (int64_t)((x >> 24) % 3) * 1000;
		snprintf(url, sizeof(url), "https://h%u.com/%d", (x >> 4) % 7, i);
		want[i] = (struct ct_task_key){ 5, enq_nav(q, url, bias, reuse, t, NULL),
						t, i };
	}
	qsort(want, N, sizeof want[0], key_qsort_cmp);
	for (int i = 1; i < N; i++)
		collisions += want[i].score == want[i - 1].score &&
			      want[i].discovered_ms != want[i - 1].discovered_ms;
	assert_true(collisions > 0); /* the order is tested on ties, too */
	for (int i = 0; i < N; i++) {
		struct ct_fq_item it = pull_item(q, 0);
		ASSERT_EXACT(it.score, ct_score_from_frontier(it.priority));
		if ((int64_t)it.seq != want[i].id)
			fail_msg("pop %d is id %llu (score %.17g, t %lld), the store "
				 "claims id %lld (score %.17g, t %lld)", i,
				 (unsigned long long)it.seq, it.score,
				 (long long)it.discovered_ms, (long long)want[i].id,
				 want[i].score, (long long)want[i].discovered_ms);
		ct_fq_item_release(&it);
	}
	ct_fq_destroy(q);
}

static void alternation_burst_5(void **state)
{
	struct ct_frontier_params p;
	struct cb_state s = {0};
	ct_frontier_params_default(&p);
	struct ct_fq *q = make_queue(&p, &s);
	const char *want = "DDDDDAAAAADDAA";
	char url[64];

	for (int i = 0; i < 7; i++) {
		snprintf(url, sizeof(url), "https://a.com/d%d", i);
		assert_null(enq(q, url, "nav", 0, NULL, i));
		snprintf(url, sizeof(url), "https://a.com/a%d", i);
		assert_null(enq(q, url, "article", 0, NULL, i));
	}
	for (int i = 0; want[i]; i++) {
		struct ct_fq_item it = pull_item(q, 0);
		char got = it.queue == CT_QUEUE_DISCOVERY ? 'D' : 'A';
		if (got != want[i])
			fail_msg("pull %d came from %c, expected %c", i, got, want[i]);
		ct_fq_item_release(&it);
	}
	assert_int_equal(ct_fq_size(q), 0);
	ct_fq_destroy(q);
}

/* Pulls made while the other heap is empty do not count against the
 * burst: 6 nav pulled alone, then 3 articles arrive alongside 6 more nav:
 * discovery keeps the turn for 5 pulls, then acquisition gets it. */
static void alternation_counts_only_waiting_pulls(void **state)
{
	struct ct_frontier_params p;
	struct cb_state s = {0};
	ct_frontier_params_default(&p);
	struct ct_fq *q = make_queue(&p, &s);
	const char *want = "DDDDDAAAD";
	char url[64];

	for (int i = 0; i < 12; i++) {
		snprintf(url, sizeof(url), "https://a.com/d%d", i);
		assert_null(enq(q, url, "nav", 0, NULL, i));
	}
	for (int i = 0; i < 6; i++) {
		struct ct_fq_item it = pull_item(q, 0);
		assert_int_equal(it.queue, CT_QUEUE_DISCOVERY);
		ct_fq_item_release(&it);
	}
	for (int i = 0; i < 3; i++) {
		snprintf(url, sizeof(url), "https://a.com/a%d", i);
		assert_null(enq(q, url, "article", 0, NULL, i));
	}
	for (int i = 0; want[i]; i++) {
		struct ct_fq_item it = pull_item(q, 0);
		char got = it.queue == CT_QUEUE_DISCOVERY ? 'D' : 'A';
		if (got != want[i])
			fail_msg("pull %d came from %c, expected %c", i, got, want[i]);
		ct_fq_item_release(&it);
	}
	ct_fq_destroy(q);
}

/* ---- deferred hosts -------------------------------------------------- */

/* slow.com resumes at 5000, later.com at 7000; now = 1000. The slow items
 * have the best priorities (hub-seed 4) but are skipped for fast.com's nav
 * (10); they go back in their order. With only deferred items left, the
 * pull returns the earliest wake time, 5000. At now = 5000 (not > now) the
 * slow.com items come out in order. */
static void deferred_hosts_and_wake(void **state)
{
	struct ct_frontier_params p;
	struct cb_state s = { .slow_host = { "slow.com", "later.com" },
			      .slow_until = { 5000, 7000 }, .n_slow = 2 };
	ct_frontier_params_default(&p);
	struct ct_fq *q = make_queue(&p, &s);
	struct ct_fq_pull_result r;

	assert_null(enq(q, "https://SLOW.com/1", "hub-seed", 0, NULL, 1));
	assert_null(enq(q, "https://slow.com/2", "hub-seed", 0, NULL, 2));
	assert_null(enq(q, "https://later.com/1", "hub-seed", 1, NULL, 3));
	assert_null(enq(q, "https://fast.com/1", "nav", 0, NULL, 4));

	struct ct_fq_item it = pull_item(q, 1000);
	assert_string_equal(it.url, "https://fast.com/1");
	ct_fq_item_release(&it);
	assert_int_equal(ct_fq_size(q), 3);

	assert_int_equal(ct_fq_pull(q, 1000, &r), CT_OK);
	assert_false(r.has_item);
	assert_true(r.has_wake);
	assert_int_equal(r.wake_ms, 5000);
	assert_int_equal(ct_fq_size(q), 3);

	it = pull_item(q, 5000);
	assert_string_equal(it.url, "https://SLOW.com/1");
	assert_string_equal(it.host, "slow.com");
	assert_int_equal(it.deferred_until_ms, 5000);
	ct_fq_item_release(&it);
	it = pull_item(q, 5000);
	assert_string_equal(it.url, "https://slow.com/2");
	ct_fq_item_release(&it);
	assert_int_equal(ct_fq_pull(q, 6999, &r), CT_OK);
	assert_false(r.has_item);
	assert_int_equal(r.wake_ms, 7000);
	it = pull_item(q, 7000);
	assert_string_equal(it.url, "https://later.com/1");
	ct_fq_item_release(&it);

	/* empty: no item, no wake */
	assert_int_equal(ct_fq_pull(q, 7000, &r), CT_OK);
	assert_false(r.has_item);
	assert_false(r.has_wake);
	ct_fq_destroy(q);
}

/* max_scan 3: three deferred items ahead of an eligible one in one heap:
 * the scan stops before it (wake 5000); with max_scan 4 it is found. The
 * deferred items are back in place either way. */
static void scan_limit(void **state)
{
	struct ct_frontier_params p;
	struct cb_state s = { .slow_host = { "slow.com" }, .slow_until = { 5000 },
			      .n_slow = 1 };
	ct_frontier_params_default(&p);
	p.max_scan = 3;
	struct ct_fq *q = make_queue(&p, &s);
	struct ct_fq_pull_result r;

	assert_null(enq(q, "https://slow.com/1", "nav", 0, NULL, 1));
	assert_null(enq(q, "https://slow.com/2", "nav", 0, NULL, 2));
	assert_null(enq(q, "https://slow.com/3", "nav", 0, NULL, 3));
	assert_null(enq(q, "https://fast.com/1", "nav", 0, NULL, 4));
	s.resume_calls = 0;
	assert_int_equal(ct_fq_pull(q, 0, &r), CT_OK);
	assert_false(r.has_item);
	assert_true(r.has_wake);
	assert_int_equal(r.wake_ms, 5000);
	assert_int_equal(s.resume_calls, 3);
	assert_int_equal(ct_fq_size(q), 4);

	p.max_scan = 4;
	assert_int_equal(ct_fq_set_params(q, &p, NULL), CT_OK);
	struct ct_fq_item it = pull_item(q, 0);
	assert_string_equal(it.url, "https://fast.com/1");
	ct_fq_item_release(&it);
	/* the deferred ones are still in FIFO order */
	for (int i = 1; i <= 3; i++) {
		char want[32];
		snprintf(want, sizeof(want), "https://slow.com/%d", i);
		it = pull_item(q, 5000);
		assert_string_equal(it.url, want);
		ct_fq_item_release(&it);
	}
	ct_fq_destroy(q);
}

/* ---- heatmap and ownership ------------------------------------------ */

/* Cells by (method, type), sorted; depth buckets 0, 1, 2, 3+, unknown:
 * sitemap/article x2 (depths 0, 3), sitemap/nav (1), none/article (2),
 * intelligent-seed/hub-seed (7) -> buckets 1, 1, 1, 2, 0. */
static void heatmap_snapshot(void **state)
{
	struct ct_frontier_params p;
	struct cb_state s = {0};
	ct_frontier_params_default(&p);
	struct ct_fq *q = make_queue(&p, &s);
	struct ct_fq_heatmap h;

	assert_int_equal(ct_fq_heatmap(q, &h), CT_OK);
	assert_int_equal(h.queued, 0);
	assert_int_equal(h.n_cells, 0);
	ct_fq_heatmap_free(&h);

	assert_null(enq(q, "https://a.com/1", "article", 0, "sitemap", 0));
	assert_null(enq(q, "https://a.com/2", "article", 3, "sitemap", 0));
	assert_null(enq(q, "https://a.com/3", "nav", 1, "sitemap", 0));
	assert_null(enq(q, "https://a.com/4", "article", 2, NULL, 0));
	assert_null(enq(q, "https://a.com/5", "hub-seed", 7, "intelligent-seed", 0));
	assert_int_equal(ct_fq_heatmap(q, &h), CT_OK);
	assert_int_equal(h.queued, 5);
	assert_int_equal(h.enqueued_total, 5);
	assert_int_equal(h.depth[CT_FQ_DEPTH_0], 1);
	assert_int_equal(h.depth[CT_FQ_DEPTH_1], 1);
	assert_int_equal(h.depth[CT_FQ_DEPTH_2], 1);
	assert_int_equal(h.depth[CT_FQ_DEPTH_3_PLUS], 2);
	assert_int_equal(h.depth[CT_FQ_DEPTH_UNKNOWN], 0);
	assert_int_equal(h.n_cells, 4);
	assert_string_equal(h.cells[0].method, "intelligent-seed");
	assert_string_equal(h.cells[0].type, "hub-seed");
	assert_int_equal(h.cells[0].count, 1);
	assert_string_equal(h.cells[1].method, "none");
	assert_string_equal(h.cells[1].type, "article");
	assert_int_equal(h.cells[1].count, 1);
	assert_string_equal(h.cells[2].method, "sitemap");
	assert_string_equal(h.cells[2].type, "article");
	assert_int_equal(h.cells[2].count, 2);
	assert_string_equal(h.cells[3].method, "sitemap");
	assert_string_equal(h.cells[3].type, "nav");
	assert_int_equal(h.cells[3].count, 1);
	ct_fq_heatmap_free(&h);

	struct ct_fq_item it = pull_item(q, 0);
	ct_fq_item_release(&it);
	assert_int_equal(ct_fq_heatmap(q, &h), CT_OK);
	assert_int_equal(h.queued, 4);
	assert_int_equal(h.enqueued_total, 5);
	ct_fq_heatmap_free(&h);
	ct_fq_destroy(q);
}

/* The queue copies the strings: the caller's buffers may change after the
 * enqueue; the pulled item's strings are the caller's until release. */
static void queue_copies_strings(void **state)
{
	struct ct_frontier_params p;
	struct cb_state s = {0};
	ct_frontier_params_default(&p);
	struct ct_fq *q = make_queue(&p, &s);
	char url[64] = "https://a.com/original";
	char type[16] = "nav";
	char method[16] = "sitemap";

	assert_null(enq(q, url, type, 0, method, 0));
	strcpy(url, "https://b.com/changed");
	strcpy(type, "XXX");
	strcpy(method, "YYY");
	struct ct_fq_item it = pull_item(q, 0);
	assert_string_equal(it.url, "https://a.com/original");
	assert_string_equal(it.type, "nav");
	assert_string_equal(it.discovery_method, "sitemap");
	assert_string_equal(it.priority_source, "discovery-bonus");
	ASSERT_EXACT(it.priority, 0); /* nav 10 - sitemap 10 */
	ASSERT_EXACT(it.score, 50);
	assert_int_equal(it.cls, CT_P2);
	assert_int_equal(it.depth, 0);
	ct_fq_item_release(&it);
	ct_fq_item_release(&it); /* twice is harmless */
	/* type and method left out are NULL */
	assert_null(enq(q, "https://a.com/bare", NULL, 0, "", 0));
	it = pull_item(q, 0);
	assert_null(it.type);
	assert_null(it.discovery_method);
	ct_fq_item_release(&it);
	ct_fq_destroy(q);
}

/* Many URLs: the hash set grows and releases keys correctly while items
 * leave in heap order (backward-shift deletion), and a destroy frees a
 * queue that still holds items. */
static void many_urls(void **state)
{
	struct ct_frontier_params p;
	struct cb_state s = {0};
	ct_frontier_params_default(&p);
	struct ct_fq *q = make_queue(&p, &s);
	char url[64];
	unsigned x = 7;

	for (int i = 0; i < 3000; i++) {
		x = x * 1103515245u + 12345u;
		snprintf(url, sizeof(url), "https://h%d.com/%d", i % 17, i);
		struct ct_frontier_input in = CT_FRONTIER_INPUT_INIT;
		in.url = url;
		in.type = (x >> 10) & 1 ? "nav" : "article";
		in.depth = (int)((x >> 12) % 10);
		assert_int_equal(ct_fq_enqueue(q, &in, 0, NULL, NULL), CT_OK);
	}
	assert_int_equal(ct_fq_size(q), 3000);
	for (int i = 0; i < 1500; i++) {
		struct ct_fq_item it = pull_item(q, 0);
		assert_false(ct_fq_contains(q, it.url));
		ct_fq_item_release(&it);
	}
	int queued = 0;
	for (int i = 0; i < 3000; i++) {
		snprintf(url, sizeof(url), "https://h%d.com/%d", i % 17, i);
		queued += ct_fq_contains(q, url);
	}
	assert_int_equal(queued, 1500);
	assert_int_equal(ct_fq_size(q), 1500);
	ct_fq_destroy(q);
}

/* Bad parameters are refused at creation and at set_params (queue kept). */
static void create_and_set_params_check(void **state)
{
	struct ct_frontier_params p;
	struct ct_fq *q = (struct ct_fq *)&p;
	struct ct_error err = {{0}};

	ct_frontier_params_default(&p);
	p.burst = 0;
	assert_int_equal(ct_fq_create(&p, NULL, NULL, &q, &err), CT_ERANGE);
	assert_null(q);
	assert_non_null(strstr(err.msg, "burst"));
	p.burst = 5;
	assert_int_equal(ct_fq_create(&p, NULL, NULL, &q, &err), CT_OK);
	p.max_queue = 0;
	assert_int_equal(ct_fq_set_params(q, &p, &err), CT_ERANGE);
	assert_int_equal(ct_fq_params(q)->max_queue, 10000);
	assert_int_equal(ct_fq_pull(q, 0, NULL), CT_EINVAL);
	ct_fq_destroy(q);
	ct_fq_destroy(NULL);
}

/* A callback that calls into its own queue (while a pull has deferred
 * items set aside, say) is refused with CT_EINVAL and changes nothing:
 * every item comes out once afterwards. */
static void callbacks_cannot_change_their_queue(void **state)
{
	(void)state;
	struct ct_frontier_params p;
	ct_frontier_params_default(&p);
	struct cb_state s = {.slow_host = {"slow.example"},
			     .slow_until = {1000}, .n_slow = 1};
	struct ct_fq *q = make_queue(&p, &s);
	char b[64];
	assert_null(enq(q, "https://slow.example/a", "page", 0, "link", 0));
	assert_null(enq(q, "https://slow.example/b", "page", 0, "link", 0));
	s.reenter = q;
	assert_null(enq(q, "https://fast.example/c", "page", 1, "link", 0));
	assert_int_equal(s.reenter_calls, 1); /* from the eligibility check */
	for (int i = 0; i < 3; i++)
		assert_int_equal(s.reenter_st[i], CT_EINVAL);
	memset(s.reenter_st, 0, sizeof s.reenter_st);
	/* the pull sets slow.example's two items aside, asks each callback */
	assert_string_equal(pull_path(q, 0, b, sizeof b), "/c");
	assert_true(s.reenter_calls >= 3);
	for (int i = 0; i < 3; i++)
		assert_int_equal(s.reenter_st[i], CT_EINVAL);
	s.reenter = NULL;
	assert_int_equal(ct_fq_size(q), 2);
	assert_false(ct_fq_contains(q, "https://robots.example/robots.txt"));
	char x[64], y[64];
	pull_path(q, 1000, x, sizeof x);
	pull_path(q, 1000, y, sizeof y);
	assert_true((!strcmp(x, "/a") && !strcmp(y, "/b")) ||
		    (!strcmp(x, "/b") && !strcmp(y, "/a")));
	assert_int_equal(ct_fq_size(q), 0);
	ct_fq_destroy(q);
}

/* ---- events and the cache --------------------------------------------- */

/* What the event callback saw, one line each: "KIND url reason until
 * force_cache"; and the rate-limited host and the cached URL. */
struct ev_log {
	char line[16][128];
	int n;
	struct ct_fq *reenter;   /* when set, each event tries to change it */
	ct_status reenter_st;
	const char *limited_host;
	const char *cached_url;
};

static void cb_event(void *ctx, const struct ct_fq_event *ev)
{
	static const char *const kinds[] = {"enqueued", "dropped", "deferred",
					    "pulled"};
	struct ev_log *l = ctx;
	if (l->reenter) {
		struct ct_frontier_input in = CT_FRONTIER_INPUT_INIT;
		in.url = "https://robots.example/robots.txt";
		l->reenter_st = ct_fq_enqueue(l->reenter, &in, 0, NULL, NULL);
	}
	if (l->n < 16)
		snprintf(l->line[l->n++], sizeof l->line[0], "%s %s %s %lld %d",
			 kinds[ev->kind], ev->url ? ev->url : "-",
			 ev->reason ? ev->reason : "-", (long long)ev->until_ms,
			 (int)ev->force_cache);
}

static int64_t ev_resume(void *ctx, const char *host)
{
	(void)ctx;
	return strcmp(host, "slow.example") == 0 ? 500 : 0;
}

static bool ev_limited(void *ctx, const char *host)
{
	struct ev_log *l = ctx;
	return l->limited_host && strcmp(host, l->limited_host) == 0;
}

static bool ev_cached(void *ctx, const char *url)
{
	struct ev_log *l = ctx;
	return l->cached_url && strcmp(url, l->cached_url) == 0;
}

/* Every enqueue's decision and every deferral and pull reach the event
 * callback (seed's emitQueueEvent), which cannot change its queue. */
static void events(void **state)
{
	(void)state;
	struct ct_frontier_params p;
	ct_frontier_params_default(&p);
	p.max_queue = 3;
	struct ev_log l = {.n = 0};
	struct ct_fq_callbacks cb = {.ctx = &l, .host_resume_ms = ev_resume,
				     .event = cb_event};
	struct ct_fq *q = NULL;
	struct ct_error err = {{0}};
	assert_int_equal(ct_fq_create(&p, NULL, &cb, &q, &err), CT_OK);
	struct ct_frontier_input in = CT_FRONTIER_INPUT_INIT;
	in.type = "article";
	in.depth = 1;
	struct ct_fq_enqueue_result res;
	in.url = "https://slow.example/a";
	assert_int_equal(ct_fq_enqueue(q, &in, 1, &res, &err), CT_OK);
	assert_true(res.enqueued);
	in.url = "https://slow.example/a#again"; /* the same key */
	assert_int_equal(ct_fq_enqueue(q, &in, 2, NULL, &err), CT_OK);
	in.url = "not a url";
	assert_int_equal(ct_fq_enqueue(q, &in, 3, NULL, &err), CT_OK);
	in.url = "https://fast.example/b";
	assert_int_equal(ct_fq_enqueue(q, &in, 4, NULL, &err), CT_OK);
	in.url = "https://fast.example/c";
	in.depth = 99; /* past max_depth, no bypass */
	assert_int_equal(ct_fq_enqueue(q, &in, 5, NULL, &err), CT_OK);
	assert_int_equal(l.n, 5);
	assert_string_equal(l.line[0], "enqueued https://slow.example/a - 0 0");
	assert_string_equal(l.line[1],
			    "dropped https://slow.example/a#again duplicate 0 0");
	assert_string_equal(l.line[2], "dropped not a url invalid-url 0 0");
	assert_string_equal(l.line[3], "enqueued https://fast.example/b - 0 0");
	assert_string_equal(l.line[4], "dropped https://fast.example/c max-depth 0 0");
	/* a pull at 0: slow.example waits until 500, fast.example goes; the
	 * callback cannot change the queue meanwhile */
	l.reenter = q;
	struct ct_fq_item it = pull_item(q, 0);
	l.reenter = NULL;
	assert_int_equal(l.reenter_st, CT_EINVAL);
	assert_string_equal(it.url, "https://fast.example/b");
	ct_fq_item_release(&it);
	assert_int_equal(l.n, 7);
	assert_string_equal(l.line[5], "deferred https://slow.example/a - 500 0");
	assert_string_equal(l.line[6], "pulled https://fast.example/b - 0 0");
	assert_int_equal(ct_fq_size(q), 1);
	assert_false(ct_fq_contains(q, "https://robots.example/robots.txt"));
	ct_fq_destroy(q);
}

/* seed's forceCache: a pulled item whose host is rate limited (429) and
 * whose URL the cache has is to be served from the cache; either alone,
 * or a callback missing, changes nothing. */
static void force_cache(void **state)
{
	(void)state;
	struct ct_frontier_params p;
	ct_frontier_params_default(&p);
	struct ev_log l = {.limited_host = "busy.example",
			   .cached_url = "https://busy.example/cached"};
	struct ct_fq_callbacks cb = {.ctx = &l, .event = cb_event,
				     .host_rate_limited = ev_limited,
				     .cache_has = ev_cached};
	struct ct_fq *q = NULL;
	struct ct_error err = {{0}};
	assert_int_equal(ct_fq_create(&p, NULL, &cb, &q, &err), CT_OK);
	/* discovered in this order, equal scores: pulled in this order */
	assert_null(enq(q, "https://busy.example/cached", "page", 0, "link", 1));
	assert_null(enq(q, "https://busy.example/other", "page", 0, "link", 2));
	assert_null(enq(q, "https://calm.example/cached", "page", 0, "link", 3));
	l.cached_url = "https://busy.example/cached";
	struct ct_fq_item a = pull_item(q, 0);
	assert_string_equal(a.url, "https://busy.example/cached");
	assert_true(a.force_cache);
	assert_string_equal(l.line[l.n - 1],
			    "pulled https://busy.example/cached - 0 1");
	struct ct_fq_item b = pull_item(q, 0);
	assert_string_equal(b.url, "https://busy.example/other");
	assert_false(b.force_cache); /* rate limited, not cached */
	l.cached_url = "https://calm.example/cached";
	struct ct_fq_item c = pull_item(q, 0);
	assert_false(c.force_cache); /* cached, not rate limited */
	ct_fq_item_release(&a);
	ct_fq_item_release(&b);
	ct_fq_item_release(&c);
	ct_fq_destroy(q);
	/* without the cache callback, never */
	cb.cache_has = NULL;
	l.cached_url = "https://busy.example/cached";
	assert_int_equal(ct_fq_create(&p, NULL, &cb, &q, &err), CT_OK);
	assert_null(enq(q, "https://busy.example/cached", "page", 0, "link", 1));
	struct ct_fq_item d = pull_item(q, 0);
	assert_false(d.force_cache);
	ct_fq_item_release(&d);
	ct_fq_destroy(q);
}

/* ---- importance mode -------------------------------------------------- */

/* Enqueue the links of one page (importance mode) as paths of
 * https://imp.example; asserts every call succeeds. */
static void links(struct ct_fq *q, const char *const *paths, size_t n,
		  double nlinks, double cash, int64_t ms,
		  struct ct_fq_enqueue_result *res)
{
	struct ct_frontier_input in[8];
	char url[8][64];
	struct ct_error err = {{0}};
	assert_true(n <= 8);
	for (size_t i = 0; i < n; i++) {
		struct ct_frontier_input init = CT_FRONTIER_INPUT_INIT;
		in[i] = init;
		snprintf(url[i], sizeof url[i], "https://imp.example%s", paths[i]);
		in[i].url = url[i];
		in[i].type = "page";
		in[i].discovery_method = "link";
	}
	if (ct_fq_enqueue_links(q, in, n, ms, nlinks, cash, res, &err) != CT_OK)
		fail_msg("enqueue_links: %s", err.msg);
}

static double imp_score(double inlinks, double cash, double discovered)
{
	struct ct_importance_input in = {inlinks, cash, discovered, false};
	struct ct_importance_result r;
	assert_int_equal(ct_importance_score(&in, &r, NULL), CT_OK);
	return r.score;
}

/* A queue in importance mode holding at most max_queue items (0: the
 * default). */
static struct ct_fq *imp_queue(size_t max_queue)
{
	struct ct_frontier_params p;
	ct_frontier_params_default(&p);
	if (max_queue)
		p.max_queue = max_queue;
	struct ct_fq *q = NULL;
	struct ct_error err = {{0}};
	assert_int_equal(ct_fq_create(&p, NULL, NULL, &q, &err), CT_OK);
	assert_int_equal(ct_fq_set_mode(q, CT_FQ_IMPORTANCE, &err), CT_OK);
	return q;
}

/* The crawl of tests/cli_store/test_simulate.sh's importance graph, worked
 * by hand there: / links a b c; a links x c; c links y; b links x. The
 * queue hands them out as the store does: / a c y b x (breadth first
 * gives / a b c x y), each with the store's score, raised in place. */
static void importance_order(void **state)
{
	(void)state;
	struct ct_fq *q = imp_queue(0);
	const char *home[] = {"/"};
	links(q, home, 1, 0, CT_FQ_CASH_MEAN, 1, NULL);
	struct ct_fq_item it = pull_item(q, 0);
	assert_string_equal(it.url, "https://imp.example/");
	ASSERT_EXACT(it.score, 100);
	ASSERT_EXACT(it.cash, 1);
	/* its three links: one link in, a third of its cash, 4 discovered */
	const char *l1[] = {"/a", "/b", "/c"};
	links(q, l1, 3, 1, it.cash, 2, NULL);
	ct_fq_item_release(&it);
	it = pull_item(q, 0);
	assert_string_equal(it.url, "https://imp.example/a");
	ASSERT_EXACT(it.score, imp_score(1, 1.0 / 3, 4));
	/* /a raises /c (queued) and finds /x: 5 discovered */
	const char *l2[] = {"/x", "/c"};
	struct ct_fq_enqueue_result res[2];
	links(q, l2, 2, 1, it.cash, 3, res);
	ct_fq_item_release(&it);
	assert_true(res[0].enqueued);
	assert_false(res[0].raised);
	assert_false(res[1].enqueued);
	assert_string_equal(res[1].reason, "duplicate");
	assert_true(res[1].raised);
	it = pull_item(q, 0);
	assert_string_equal(it.url, "https://imp.example/c");
	ASSERT_EXACT(it.score, imp_score(2, 1.0 / 3 + 1.0 / 3 / 2, 5));
	ASSERT_EXACT(it.inlinks, 2);
	const char *l3[] = {"/y"};
	links(q, l3, 1, 1, it.cash, 4, NULL);
	ct_fq_item_release(&it);
	char buf[64];
	assert_string_equal(pull_path(q, 0, buf, sizeof buf), "/y");
	it = pull_item(q, 0);
	assert_string_equal(it.url, "https://imp.example/b");
	const char *l4[] = {"/x"};
	links(q, l4, 1, 1, it.cash, 5, NULL);
	ct_fq_item_release(&it);
	it = pull_item(q, 0);
	assert_string_equal(it.url, "https://imp.example/x");
	ASSERT_EXACT(it.score, imp_score(2, 1.0 / 3 / 2 + 1.0 / 3, 6));
	ct_fq_item_release(&it);
	assert_int_equal(ct_fq_size(q), 0);
	ct_fq_destroy(q);
}

/* Raises keep the heap a heap: 2,000 items, each raised by links in a
 * pseudo-random order, come out in score order (the store's key), each
 * once, and the last raise of every item is its score. */
static void importance_raises_keep_order(void **state)
{
	(void)state;
	struct ct_fq *q = imp_queue(0);
	enum { N = 2000 };
	static char paths[N][16];
	static int got[N];
	for (int i = 0; i < N; i++) {
		snprintf(paths[i], sizeof paths[i], "/p%d", i);
		const char *one[] = {paths[i]};
		links(q, one, 1, 1, 0.5, i, NULL);
	}
	uint64_t x = 88172645463325252u;
	for (int k = 0; k < 6 * N; k++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		const char *one[] = {paths[x % N]};
		links(q, one, 1, 1, (double)(x % 7) / 10, k, NULL);
	}
	double last = 101;
	for (int i = 0; i < N; i++) {
		struct ct_fq_item it = pull_item(q, 0);
		if (it.score > last)
			fail_msg("pull %d: %s scores %.17g after %.17g", i,
				 it.url, it.score, last);
		int k = atoi(strstr(it.url, "/p") + 2);
		/* raised: scored with the N pages discovered; never raised
		 * (one link in): with the k + 1 of its enqueue */
		ASSERT_EXACT(it.score, imp_score(it.inlinks, it.cash,
						 it.inlinks > 1 ? N : k + 1));
		assert_int_equal(got[k]++, 0);
		last = it.score;
		ct_fq_item_release(&it);
	}
	assert_int_equal(ct_fq_size(q), 0);
	ct_fq_destroy(q);
}

/* A link to a queued URL raises it even when the queue is full or the
 * link comes too deep; a URL given twice in one call counts once among
 * the pages discovered (and gets two links). */
static void importance_raise_past_checks(void **state)
{
	(void)state;
	struct ct_fq *q = imp_queue(3);
	const char *home[] = {"/"};
	links(q, home, 1, 0, CT_FQ_CASH_MEAN, 1, NULL);
	struct ct_fq_item it = pull_item(q, 0);
	/* 1 discovered before, /x and /y new: 3; shares of a third */
	const char *l1[] = {"/x", "/x", "/y"};
	struct ct_fq_enqueue_result res[3];
	links(q, l1, 3, 1, it.cash, 2, res);
	ct_fq_item_release(&it);
	assert_true(res[0].enqueued);
	assert_true(res[1].raised);
	assert_true(res[2].enqueued);
	/* full now (3 queued with /z below): a link still raises /y */
	const char *l2[] = {"/z"};
	links(q, l2, 1, 1, 0, 3, NULL);
	assert_int_equal(ct_fq_size(q), 3);
	const char *l3[] = {"/y", "/y", "/y", "/w"};
	struct ct_fq_enqueue_result r4[4];
	links(q, l3, 4, 1, 0, 4, r4);
	assert_true(r4[0].raised);
	assert_string_equal(r4[3].reason, "queue-full");
	it = pull_item(q, 0);
	assert_string_equal(it.url, "https://imp.example/y");
	ASSERT_EXACT(it.inlinks, 4);
	/* /w, refused (queue-full), was found all the same: 5 discovered */
	ASSERT_EXACT(it.score, imp_score(4, 1.0 / 3, 5));
	ct_fq_item_release(&it);
	it = pull_item(q, 0);
	assert_string_equal(it.url, "https://imp.example/x");
	ASSERT_EXACT(it.score, imp_score(2, 2.0 / 3, 3));
	ct_fq_item_release(&it);
	ct_fq_destroy(q);
}

/* The mode changes only while the queue is empty; importance calls are
 * refused in frontier mode and with bad amounts; frontier scores are
 * untouched by the mode's code. */
static void importance_mode_rules(void **state)
{
	(void)state;
	struct ct_frontier_params p;
	ct_frontier_params_default(&p);
	struct ct_fq *q = NULL;
	struct ct_error err = {{0}};
	assert_int_equal(ct_fq_create(&p, NULL, NULL, &q, &err), CT_OK);
	assert_int_equal(ct_fq_get_mode(q), CT_FQ_FRONTIER);
	struct ct_frontier_input in = CT_FRONTIER_INPUT_INIT;
	in.url = "https://imp.example/a";
	assert_int_equal(ct_fq_enqueue_links(q, &in, 1, 0, 1, 1, NULL, &err),
			 CT_EINVAL);
	assert_non_null(strstr(err.msg, "frontier mode"));
	assert_null(enq(q, "https://imp.example/a", "page", 0, "link", 1));
	assert_int_equal(ct_fq_set_mode(q, CT_FQ_IMPORTANCE, &err), CT_EINVAL);
	assert_non_null(strstr(err.msg, "holds 1 items"));
	assert_int_equal(ct_fq_get_mode(q), CT_FQ_FRONTIER);
	struct ct_fq_item it = pull_item(q, 0);
	ct_fq_item_release(&it);
	assert_int_equal(ct_fq_set_mode(q, CT_FQ_IMPORTANCE, &err), CT_OK);
	assert_int_equal(ct_fq_set_mode(q, (ct_fq_mode)7, &err), CT_EINVAL);
	assert_int_equal(ct_fq_enqueue_links(q, &in, 1, 0, -1, 1, NULL, &err),
			 CT_ERANGE);
	assert_int_equal(ct_fq_enqueue_links(q, &in, 1, 0, 1, NAN, NULL, &err),
			 CT_ERANGE);
	assert_int_equal(ct_fq_enqueue_links(q, &in, 1, 0, 0, -0.5, NULL, &err),
			 CT_ERANGE);
	/* a link whose input the frontier model refuses is skipped, the
	 * others go in, and the call says why */
	struct ct_frontier_input three[3] = {in, in, in};
	three[0].url = "https://imp.example/ok1";
	three[1].url = "https://imp.example/bad";
	three[1].depth = -1;
	three[2].url = "https://imp.example/ok2";
	struct ct_fq_enqueue_result r3[3];
	assert_int_equal(ct_fq_enqueue_links(q, three, 3, 0, 1, 1, r3, &err),
			 CT_ERANGE);
	assert_string_equal(r3[1].reason, "invalid-input");
	assert_true(r3[0].enqueued && r3[2].enqueued);
	assert_int_equal(ct_fq_size(q), 2);
	struct ct_fq_item a = pull_item(q, 0), b = pull_item(q, 0);
	ct_fq_item_release(&a);
	ct_fq_item_release(&b);
	assert_int_equal(ct_fq_size(q), 0);
	/* plain enqueue in importance mode: no link, no cash, score 0; the
	 * seed method 100 */
	struct ct_fq_enqueue_result r;
	assert_int_equal(ct_fq_enqueue(q, &in, 0, &r, &err), CT_OK);
	assert_true(r.enqueued);
	ASSERT_EXACT(r.score.score, 0);
	in.url = "https://imp.example/start";
	in.discovery_method = "seed";
	assert_int_equal(ct_fq_enqueue(q, &in, 0, &r, &err), CT_OK);
	ASSERT_EXACT(r.score.score, 100);
	assert_int_equal(r.score.cls, CT_P0);
	ct_fq_destroy(q);
}

/* ---- the queue against a reference ----------------------------------- */

/* What the reference keeps of a queued item. */
struct ref_item {
	struct ct_task_key key;
	char url[96], key_s[96], host[32], type[8];
	int depth;
};

/* ops enqueues and pulls at random, at most cap queued, with ties in
 * score and discovery time, forty types, URLs whose key differs from them
 * (host case, default port, userinfo, IPv6): each pull must give the item
 * the reference picks by ct_task_key_cmp (the store's order), with its
 * URL, key, host, type and sequence; records freed by pulls are reused.
 * phased: the odds of a pull move between 0 and 9 in 10 every 2,000
 * operations (the queue fills past RUN_MIN, is sorted into a run, drains,
 * fills again while the run lasts, is merged into it, ...); else 4 in
 * 10. Returns the pulls. */
static size_t against_reference(struct ct_fq *q, size_t cap, int ops,
				bool phased)
{
	struct ref_item *ref = calloc(cap, sizeof(*ref));
	size_t n = 0, made = 0, pulled = 0;
	uint64_t seq = 0;
	unsigned x = 12345;
	static const unsigned odds[] = {0, 0, 0, 9, 9, 9, 0, 0, 5, 9, 9, 9,
						0, 0, 0, 9, 9, 3};

	assert_non_null(ref);
	for (int op = 0; op < ops; op++) {
		x = x * 1103515245u + 12345u;
		unsigned r = x >> 8, pull = phased ? odds[op / 2000 % 18] : 4;
		if ((r % 10 >= pull || n == 0) && n < cap) {
			struct ref_item *it = &ref[n];
			unsigned id = (unsigned)made++;
			snprintf(it->type, sizeof(it->type), "t%u", r % 40);
			switch (r % 4) {
			case 0:
				snprintf(it->url, sizeof(it->url), "https://H%u.Example/p/%u", id % 7, id);
				snprintf(it->key_s, sizeof(it->key_s), "https://h%u.example/p/%u", id % 7, id);
				snprintf(it->host, sizeof(it->host), "h%u.example", id % 7);
				break;
			case 1:
				snprintf(it->url, sizeof(it->url), "http://u:pw@h%u.example:80/q?%u#f", id % 7, id);
				snprintf(it->key_s, sizeof(it->key_s), "http://u:pw@h%u.example/q?%u", id % 7, id);
				snprintf(it->host, sizeof(it->host), "h%u.example", id % 7);
				break;
			case 2:
				snprintf(it->url, sizeof(it->url), "http://[::%u]:8080/v/%u", id % 5, id);
				snprintf(it->key_s, sizeof(it->key_s), "http://[::%u]:8080/v/%u", id % 5, id);
				snprintf(it->host, sizeof(it->host), "[::%u]", id % 5);
				break;
			default:
				snprintf(it->url, sizeof(it->url), "https://h%u.example/%u", id % 7, id);
				memcpy(it->key_s, it->url, sizeof(it->key_s));
				snprintf(it->host, sizeof(it->host), "h%u.example", id % 7);
			}
			struct ct_frontier_input in = CT_FRONTIER_INPUT_INIT;
			struct ct_fq_enqueue_result res;
			in.url = it->url;
			in.type = it->type;
			in.depth = (int)(r / 7 % 3);
			in.bias = (double)((int)(r / 31 % 7) - 3);
			int64_t disc = (int64_t)(r / 211 % 5);
			assert_int_equal(ct_fq_enqueue(q, &in, disc, &res, NULL), CT_OK);
			assert_true(res.enqueued);
			it->depth = in.depth;
			it->key = (struct ct_task_key){ 0, res.score.score, disc,
							(int64_t)seq++ };
			n++;
		} else {
			size_t best = 0;
			for (size_t i = 1; i < n; i++)
				if (ct_task_key_cmp(&ref[i].key, &ref[best].key) < 0)
					best = i;
			struct ct_fq_item it = pull_item(q, 0);
			const struct ref_item *w = &ref[best];
			if ((int64_t)it.seq != w->key.id || strcmp(it.url, w->url) != 0)
				fail_msg("pull %zu: got seq %llu %s, expected %lld %s",
					 pulled, (unsigned long long)it.seq, it.url,
					 (long long)w->key.id, w->url);
			assert_string_equal(it.key, w->key_s);
			assert_string_equal(it.host, w->host);
			assert_string_equal(it.type, w->type);
			assert_null(it.discovery_method);
			assert_int_equal(it.depth, w->depth);
			ASSERT_EXACT(it.score, w->key.score);
			assert_int_equal(it.discovered_ms, w->key.discovered_ms);
			ct_fq_item_release(&it);
			ref[best] = ref[--n];
			pulled++;
		}
		assert_int_equal(ct_fq_size(q), n);
	}
	free(ref);
	return pulled;
}

/* The queue with every callback (deferral possible: its heaps only). */
static void interleaved_against_reference(void **state)
{
	(void)state;
	struct ct_frontier_params p;
	ct_frontier_params_default(&p);
	p.max_depth = 10;
	struct cb_state s = {0};
	struct ct_fq *q = make_queue(&p, &s);
	assert_true(against_reference(q, 4000, 20000, false) > 5000);
	ct_fq_destroy(q);
}

/* A frontier queue without a host callback sorts a large heap into a run
 * when pulled (frontier_queue.c, "sorted runs"): the same order, through
 * runs made, drained by pulls and passed by new items that pop first. */
static void runs_against_reference(void **state)
{
	(void)state;
	struct ct_fq *q = bare_queue(100000, 10);
	assert_true(against_reference(q, 12000, 36000, true) > 15000);
	ct_fq_destroy(q);
}

/* Runs of inputs a quicksort can stumble on: every score equal (the
 * discovery time, then the sequence decides), scores already in pop
 * order, in the reverse order, and two values alternating; each queue
 * of 10,000 items (a run at the first pull) comes out whole in the
 * store's order. */
static void runs_of_awkward_inputs(void **state)
{
	(void)state;
	for (int shape = 0; shape < 4; shape++) {
		struct ct_fq *q = bare_queue(100000, 10);
		for (int i = 0; i < 10000; i++) {
			char url[64];
			struct ct_frontier_input in = CT_FRONTIER_INPUT_INIT;
			snprintf(url, sizeof(url), "https://a%d.example/%d", i % 11, i);
			in.url = url;
			in.type = "article";
			in.bias = shape == 0 ? 0 : shape == 1 ? i : shape == 2 ? -i : i % 2;
			int64_t disc = shape == 0 ? (10000 - i) / 3 : 0;
			assert_int_equal(ct_fq_enqueue(q, &in, disc, NULL, NULL), CT_OK);
		}
		struct ct_task_key prev = {0};
		for (int n = 0; n < 10000; n++) {
			struct ct_fq_item it = pull_item(q, 0);
			struct ct_task_key k = {0, it.score, it.discovered_ms,
						(int64_t)it.seq};
			if (n > 0 && ct_task_key_cmp(&prev, &k) >= 0)
				fail_msg("shape %d, pull %d: seq %llu after %lld", shape,
					 n, (unsigned long long)it.seq, (long long)prev.id);
			prev = k;
			ct_fq_item_release(&it);
		}
		assert_int_equal(ct_fq_size(q), 0);
		ct_fq_destroy(q);
	}
}

/* The queue remembers the ids of the names it was last given at each
 * pointer: a caller's buffer that holds another name the next time gets
 * that name, and the id of a name interned by a refused enqueue (rolled
 * back, then given to another name) is not taken for the buffer's. */
static void names_follow_the_buffer(void **state)
{
	(void)state;
	struct ct_fq *q = bare_queue(1000, 10);
	char type[16], method[16];
	size_t n = 600 * 1024;
	char *big = malloc(n + 1);
	assert_non_null(big);
	memcpy(big, "https://BIG.example/", 20);
	memset(big + 20, 'x', n - 20);
	big[n] = '\0';
	static const char *const want[][2] = {
		{"alpha", "m1"}, {"beta", "m1"}, {"alpha", "m2"}, {"gamma", "m3"},
	};
	for (int i = 0; i < 4; i++) {
		char url[64];
		snprintf(url, sizeof(url), "https://n.example/%d", i);
		snprintf(type, sizeof(type), "%s", want[i][0]);
		snprintf(method, sizeof(method), "%s", want[i][1]);
		struct ct_frontier_input in = CT_FRONTIER_INPUT_INIT;
		in.url = url;
		in.type = type;
		in.discovery_method = method;
		in.depth = i; /* the first pops first: same type weight order */
		assert_int_equal(ct_fq_enqueue(q, &in, i, NULL, NULL), CT_OK);
		/* a URL refused after its names were interned (its URL and
		 * key, 1.2 MB, do not fit the arena's block): they are rolled
		 * back, and the buffer's next name is not taken for them */
		snprintf(type, sizeof(type), "refused%d", i);
		in.type = type;
		in.url = big;
		struct ct_fq_enqueue_result r;
		assert_int_equal(ct_fq_enqueue(q, &in, i, &r, NULL), CT_ERANGE);
		assert_false(r.enqueued);
	}
	free(big);
	int seen[4] = {0};
	for (int i = 0; i < 4; i++) {
		struct ct_fq_item it = pull_item(q, 0);
		int k = it.url[strlen(it.url) - 1] - '0';
		assert_true(k >= 0 && k < 4);
		assert_string_equal(it.type, want[k][0]);
		assert_string_equal(it.discovery_method, want[k][1]);
		seen[k]++;
		ct_fq_item_release(&it);
	}
	for (int k = 0; k < 4; k++)
		assert_int_equal(seen[k], 1);
	ct_fq_destroy(q);
}

/* The dedup set against a reference through growth and many deletions:
 * 60,000 enqueues and pulls at random over 6,000 URLs (so most enqueues
 * meet a URL seen before, queued or pulled), each answered "duplicate"
 * exactly when the URL is queued, and ct_fq_contains right for every
 * URL at checkpoints. */
static void dedup_against_reference(void **state)
{
	(void)state;
	struct ct_frontier_params p;
	ct_frontier_params_default(&p);
	struct cb_state s = {0};
	struct ct_fq *q = make_queue(&p, &s);
	enum { U = 6000 };
	static bool queued[U];
	memset(queued, 0, sizeof queued);
	size_t n = 0;
	unsigned x = 99;
	char url[64];

	for (int op = 0; op < 60000; op++) {
		x = x * 1103515245u + 12345u;
		unsigned r = x >> 8;
		if (r % 8 < 5 || n == 0) {
			unsigned u = r / 8 % U;
			snprintf(url, sizeof url, "https://s%u.example/%u", u % 13, u);
			const char *why = enq(q, url, "article", 0, NULL, op);
			if (queued[u])
				assert_string_equal(why, "duplicate");
			else
				assert_null(why);
			if (!queued[u])
				n++;
			queued[u] = true;
		} else {
			struct ct_fq_item it = pull_item(q, 0);
			unsigned u = (unsigned)strtoul(strrchr(it.url, '/') + 1, NULL, 10);
			assert_true(u < U && queued[u]);
			queued[u] = false;
			n--;
			ct_fq_item_release(&it);
		}
		assert_int_equal(ct_fq_size(q), n);
		if (op % 10000 == 9999)
			for (unsigned u = 0; u < U; u++) {
				snprintf(url, sizeof url, "https://s%u.example/%u", u % 13, u);
				assert_int_equal(ct_fq_contains(q, url), queued[u]);
			}
	}
	ct_fq_destroy(q);
}

/* A queue keeps at most 65,535 distinct types and discovery methods: a
 * new one past that is refused (CT_ERANGE, "invalid-input", the queue
 * unchanged: a call with two new names where one fits keeps neither)
 * while names it knows still go in. A host longer than any
 * buffer of the queue reaches the host callback whole. */
static void name_limit_and_long_host(void **state)
{
	(void)state;
	struct ct_frontier_params p;
	ct_frontier_params_default(&p);
	p.max_queue = 100000;
	struct cb_state s = {0};
	struct ct_fq *q = make_queue(&p, &s);
	char url[64], type[16];
	for (int i = 0; i < 65534; i++) {
		snprintf(url, sizeof url, "https://n.example/%d", i);
		snprintf(type, sizeof type, "t%d", i);
		assert_null(enq(q, url, type, 0, NULL, i));
	}
	struct ct_frontier_input in = CT_FRONTIER_INPUT_INIT;
	struct ct_fq_enqueue_result res;
	struct ct_error err = {{0}};
	/* two new names where one fits: refused, and neither kept */
	in.url = "https://n.example/two";
	in.type = "x";
	in.discovery_method = "y";
	assert_int_equal(ct_fq_enqueue(q, &in, 0, &res, &err), CT_ERANGE);
	assert_false(res.enqueued);
	assert_string_equal(res.reason, "invalid-input");
	assert_non_null(strstr(err.msg, "65535 distinct types"));
	in.discovery_method = NULL;
	in.url = "https://n.example/z";
	in.type = "z";
	assert_int_equal(ct_fq_enqueue(q, &in, 0, &res, &err), CT_OK);
	assert_true(res.enqueued);
	in.url = "https://n.example/new";
	in.type = "one-more";
	assert_int_equal(ct_fq_enqueue(q, &in, 0, &res, &err), CT_ERANGE);
	assert_false(res.enqueued);
	assert_string_equal(res.reason, "invalid-input");
	assert_int_equal(ct_fq_size(q), 65535);
	assert_false(ct_fq_contains(q, in.url));
	assert_false(ct_fq_contains(q, "https://n.example/two"));
	in.type = "t77";
	assert_int_equal(ct_fq_enqueue(q, &in, 0, &res, &err), CT_OK);
	assert_true(res.enqueued);
	ct_fq_destroy(q);

	/* a 1,500-byte host, deferred by the callback, which sees it whole */
	static char host[1501], longurl[1600];
	memset(host, 'a', 1500);
	host[1500] = '\0';
	snprintf(longurl, sizeof longurl, "https://%s/x", host);
	struct cb_state s2 = {0};
	s2.slow_host[0] = host;
	s2.slow_until[0] = 9000;
	s2.n_slow = 1;
	q = make_queue(&p, &s2);
	assert_null(enq(q, longurl, "article", 0, NULL, 0));
	struct ct_fq_pull_result r;
	assert_int_equal(ct_fq_pull(q, 100, &r), CT_OK);
	assert_false(r.has_item);
	assert_true(r.has_wake);
	assert_int_equal(r.wake_ms, 9000);
	struct ct_fq_item it = pull_item(q, 9000);
	assert_string_equal(it.host, host);
	ct_fq_item_release(&it);
	ct_fq_destroy(q);
}

/* ---- the string arena -------------------------------------------------- */

/* The URL of churn item k: its host written in capitals for one in three
 * (so its key differs), a path of 30 to 400 bytes. */
static void churn_url(unsigned k, char *buf, size_t n)
{
	int pad = 30 + (int)((k * 2654435761u) % 371);
	int w = snprintf(buf, n, "https://%s%u.example/i/%u/", k % 3 == 0 ? "H" : "h",
			 k % 50, k);
	for (int i = 0; i < pad && (size_t)w + 1 < n; i++)
		buf[w++] = (char)('a' + (k + (unsigned)i) % 26);
	buf[w] = '\0';
}

/* Item k's depth: most small, one in seven past 65,534 (kept beside its
 * strings). */
static int churn_depth(unsigned k)
{
	return k % 7 == 0 ? 65535 + (int)(k % 100000) : (int)(k % 9);
}

static size_t heap_in_use(void)
{
	struct mallinfo2 m = mallinfo2();
	return m.uordblks + m.hblkhd;
}

static unsigned churn_push(struct ct_fq *q, unsigned k)
{
	static const char *const types[] = {"article", "nav", "page"};
	static const char *const methods[] = {"link", "sitemap", NULL};
	char url[512];
	churn_url(k, url, sizeof url);
	assert_null(enq(q, url, types[k % 3], churn_depth(k), methods[k % 3 ? 1 : 2],
			(int64_t)k));
	return (unsigned)strlen(url);
}

/* Pulls n items and checks each whole against what went in; returns the
 * sum of their URL lengths. */
static size_t churn_pull(struct ct_fq *q, size_t n)
{
	static const char *const types[] = {"article", "nav", "page"};
	size_t bytes = 0;
	for (size_t i = 0; i < n; i++) {
		struct ct_fq_item it = pull_item(q, 0);
		unsigned k = 0;
		const char *p = strstr(it.url, "/i/");
		assert_non_null(p);
		k = (unsigned)strtoul(p + 3, NULL, 10);
		char url[512], key[512];
		churn_url(k, url, sizeof url);
		assert_string_equal(it.url, url);
		assert_true(ct_fq_normalise_url(url, key, sizeof key) > 0);
		assert_string_equal(it.key, key);
		assert_int_equal(it.depth, churn_depth(k));
		assert_string_equal(it.type, types[k % 3]);
		if (k % 3)
			assert_string_equal(it.discovery_method, "sitemap");
		else
			assert_null(it.discovery_method);
		assert_int_equal(it.discovered_ms, (int64_t)k);
		bytes += strlen(it.url);
		ct_fq_item_release(&it);
	}
	return bytes;
}

/* Items' strings live in an arena whose places are taken again, whose
 * empty blocks are freed and which is compacted before it grows: through
 * twenty rounds of pulling and pushing 12,000 of 40,000 queued items
 * (about 9 MB of URLs; keys that differ, depths kept beside the strings)
 * every pulled item comes out whole, and the queue's memory stays what
 * it was after the first fill (it grew by 50 MB with the places never
 * reused and no compaction); draining it gives the blocks back. */
static void arena_churn(void **state)
{
	(void)state;
	size_t before = heap_in_use();
	struct ct_fq *q = bare_queue(100000, 200000);
	unsigned next = 0;
	for (; next < 40000; next++)
		churn_push(q, next);
	size_t filled = heap_in_use();
	for (int round = 0; round < 20; round++) {
		churn_pull(q, 12000);
		for (int i = 0; i < 12000; i++)
			churn_push(q, next++);
		assert_int_equal(ct_fq_size(q), 40000);
	}
	size_t churned = heap_in_use();
	/* a sanitizer's allocator leaves glibc's counts where they were */
	if (filled > before + 4000000) {
		size_t grown = filled - before;
		if (churned > filled + grown / 2)
			fail_msg("in use: %zu after the first fill, %zu after 240,000 "
				 "pulls and pushes", grown, churned - before);
	}
	churn_pull(q, 40000);
	assert_int_equal(ct_fq_size(q), 0);
	if (filled > before + 4000000 && heap_in_use() > before + 2 * (1 << 20) +
	    (filled - before) / 2)
		fail_msg("in use after draining: %zu", heap_in_use() - before);
	/* and it fills again */
	for (unsigned k = 0; k < 100; k++)
		churn_push(q, next + k);
	churn_pull(q, 100);
	ct_fq_destroy(q);
}

/* The i-th URL of exactly 1,023 bytes, in normal form (its own key): one
 * item takes 1,024 bytes of the arena, a 1 MiB block holds 1,024. */
static void kib_url(char *buf, int i)
{
	int n = snprintf(buf, 1024, "http://a.example/p%07d/", i);
	memset(buf + n, 'x', (size_t)(1023 - n));
	buf[1023] = '\0';
}

/* A block freed and made again, then filled exactly, leaves the arena's
 * top at the start of the next block, which holds queued items: the next
 * item went there, over a queued one (found by a review: that item lost,
 * the new one handed out twice). Every item comes out once, intact. */
static void arena_top_at_a_full_block(void **state)
{
	(void)state;
	struct ct_fq *q = bare_queue(100000, 10);
	char url[1024];
	for (int i = 0; i < 3072; i++) {
		kib_url(url, i);
		assert_null(enq(q, url, "article", 0, NULL, i));
	}
	for (int i = 0; i < 1024; i++) {
		struct ct_fq_item it = pull_item(q, 0);
		kib_url(url, i);
		assert_string_equal(it.url, url);
		ct_fq_item_release(&it);
	}
	for (int i = 3072; i <= 4096; i++) {
		kib_url(url, i);
		assert_null(enq(q, url, "article", 0, NULL, i));
	}
	for (int i = 1024; i <= 4096; i++) {
		kib_url(url, i);
		assert_true(ct_fq_contains(q, url));
	}
	for (int i = 1024; i <= 4096; i++) {
		struct ct_fq_item it = pull_item(q, 0);
		kib_url(url, i);
		assert_string_equal(it.url, url);
		ct_fq_item_release(&it);
	}
	assert_int_equal(ct_fq_size(q), 0);
	ct_fq_destroy(q);
}

/* A pulled item's place goes to the next item that fits: 20,000 pulls
 * and pushes, one at a time, around 5,000 queued items of one length
 * leave the memory where it was (the pushes went to the arena's top and
 * took two more blocks with the places never reused). */
static void recent_places_reused(void **state)
{
	(void)state;
	struct ct_fq *q = bare_queue(100000, 10);
	char url[160];
	for (int k = 0; k < 5000; k++) {
		snprintf(url, sizeof url, "https://r.example/%07d/%s", k,
			 "0123456789012345678901234567890123456789012345678901234567890123456789");
		assert_null(enq(q, url, "article", 0, NULL, k));
	}
	size_t before = heap_in_use();
	for (int k = 5000; k < 25000; k++) {
		struct ct_fq_item it = pull_item(q, 0);
		ct_fq_item_release(&it);
		snprintf(url, sizeof url, "https://r.example/%07d/%s", k,
			 "0123456789012345678901234567890123456789012345678901234567890123456789");
		assert_null(enq(q, url, "article", 0, NULL, k));
	}
	size_t after = heap_in_use();
	if (after > before + (256 << 10))
		fail_msg("in use grew by %zu bytes", after - before);
	ct_fq_destroy(q);
}

/* An item's bytes (its URL and a NUL, its key and a NUL when that
 * differs, 4 more for a depth past 65,534) are at most 1 MiB: past that
 * the URL is refused ("invalid-input", CT_ERANGE) and the queue is
 * unchanged; at exactly 1 MiB it goes in and comes out whole. */
static void url_size_limit(void **state)
{
	(void)state;
	struct ct_fq *q = bare_queue(10000, 10);
	struct ct_error err = {{0}};
	size_t n = 600 * 1024;
	char *url = malloc(n + 1);
	assert_non_null(url);
	memcpy(url, "https://BIG.example/", 20);
	memset(url + 20, 'x', n - 20);
	url[n] = '\0';
	struct ct_frontier_input in = CT_FRONTIER_INPUT_INIT;
	struct ct_fq_enqueue_result res;
	in.url = url;
	in.type = "new-type";
	in.discovery_method = "new-method";
	/* its key differs (the host's case): 1.2 MB in all */
	assert_int_equal(ct_fq_enqueue(q, &in, 0, &res, &err), CT_ERANGE);
	assert_false(res.enqueued);
	assert_string_equal(res.reason, "invalid-input");
	assert_non_null(strstr(err.msg, "at most 1048576 bytes"));
	assert_int_equal(ct_fq_size(q), 0);
	assert_false(ct_fq_contains(q, url));
	/* its own key: 600 KiB and a NUL */
	memcpy(url, "https://big.example/", 20);
	assert_null(enq(q, url, "article", 0, NULL, 0));
	assert_null(enq(q, "https://small.example/", "article", 0, NULL, 1));
	struct ct_fq_item it = pull_item(q, 0);
	assert_string_equal(it.url, url);
	assert_ptr_equal(it.key, it.url);
	ct_fq_item_release(&it);
	it = pull_item(q, 0);
	assert_string_equal(it.url, "https://small.example/");
	ct_fq_item_release(&it);
	free(url);
	ct_fq_destroy(q);

	/* the edge: 1 MiB in, a byte more out, the depth's 4 bytes counted */
	const size_t block = 1 << 20;
	q = bare_queue(10000, 100000);
	url = malloc(block + 1);
	assert_non_null(url);
	memcpy(url, "https://edge.example/", 21);
	static const struct { size_t len; int depth; bool in; } edge[] = {
		{ (1 << 20) - 1, 3, true }, { 1 << 20, 3, false },
		{ (1 << 20) - 5, 70000, true }, { (1 << 20) - 4, 70000, false },
	};
	for (size_t i = 0; i < 4; i++) {
		memset(url + 21, 'a' + (int)i, edge[i].len - 21);
		url[edge[i].len] = '\0';
		struct ct_frontier_input e = CT_FRONTIER_INPUT_INIT;
		in = e;
		in.url = url;
		in.type = "article";
		in.depth = edge[i].depth;
		ct_status st = ct_fq_enqueue(q, &in, 0, &res, &err);
		assert_int_equal(st, edge[i].in ? CT_OK : CT_ERANGE);
		assert_int_equal(res.enqueued, edge[i].in);
		assert_int_equal(ct_fq_contains(q, url), edge[i].in);
		if (edge[i].in) {
			it = pull_item(q, 0);
			assert_string_equal(it.url, url);
			assert_int_equal(it.depth, edge[i].depth);
			ct_fq_item_release(&it);
		}
		assert_int_equal(ct_fq_size(q), 0);
	}
	free(url);
	ct_fq_destroy(q);
}

/* A queue keeps at most 65,535 distinct pairs of type and discovery
 * method: the next pair is refused (CT_ERANGE, "invalid-input", the
 * queue unchanged) although both its names are known, and a known pair
 * still goes in. */
static void pair_limit(void **state)
{
	(void)state;
	struct ct_fq *q = bare_queue(100000, 10);
	struct ct_error err = {{0}};
	char url[64], type[16], method[16];
	for (int i = 0; i < 65535; i++) {
		snprintf(url, sizeof url, "https://p.example/%d", i);
		snprintf(type, sizeof type, "t%d", i / 256);
		snprintf(method, sizeof method, "m%d", i % 256);
		assert_null(enq(q, url, type, 0, method, i));
	}
	struct ct_frontier_input in = CT_FRONTIER_INPUT_INIT;
	struct ct_fq_enqueue_result res;
	in.url = "https://p.example/last";
	in.type = "t255";
	in.discovery_method = "m255";
	assert_int_equal(ct_fq_enqueue(q, &in, 0, &res, &err), CT_ERANGE);
	assert_false(res.enqueued);
	assert_string_equal(res.reason, "invalid-input");
	assert_non_null(strstr(err.msg, "65535 distinct pairs"));
	assert_int_equal(ct_fq_size(q), 65535);
	assert_false(ct_fq_contains(q, in.url));
	in.discovery_method = "m254";
	assert_int_equal(ct_fq_enqueue(q, &in, 0, &res, &err), CT_OK);
	assert_true(res.enqueued);
	ct_fq_destroy(q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(normalise_url_rules),
		cmocka_unit_test(invalid_url),
		cmocka_unit_test(queue_full),
		cmocka_unit_test(max_depth_and_bypass),
		cmocka_unit_test(eligibility_reason),
		cmocka_unit_test(duplicate_and_release),
		cmocka_unit_test(check_order),
		cmocka_unit_test(deprioritised),
		cmocka_unit_test(refused_priorities),
		cmocka_unit_test(pops_lowest_priority_first),
		cmocka_unit_test(ties_pop_fifo),
		cmocka_unit_test(colliding_scores_pop_by_discovery_time),
		cmocka_unit_test(pop_order_is_score_order),
		cmocka_unit_test(alternation_burst_5),
		cmocka_unit_test(alternation_counts_only_waiting_pulls),
		cmocka_unit_test(deferred_hosts_and_wake),
		cmocka_unit_test(scan_limit),
		cmocka_unit_test(heatmap_snapshot),
		cmocka_unit_test(queue_copies_strings),
		cmocka_unit_test(many_urls),
		cmocka_unit_test(create_and_set_params_check),
		cmocka_unit_test(callbacks_cannot_change_their_queue),
		cmocka_unit_test(events),
		cmocka_unit_test(force_cache),
		cmocka_unit_test(importance_order),
		cmocka_unit_test(importance_raises_keep_order),
		cmocka_unit_test(importance_raise_past_checks),
		cmocka_unit_test(importance_mode_rules),
		cmocka_unit_test(interleaved_against_reference),
		cmocka_unit_test(runs_against_reference),
		cmocka_unit_test(runs_of_awkward_inputs),
		cmocka_unit_test(names_follow_the_buffer),
		cmocka_unit_test(dedup_against_reference),
		cmocka_unit_test(name_limit_and_long_host),
		cmocka_unit_test(arena_churn),
		cmocka_unit_test(arena_top_at_a_full_block),
		cmocka_unit_test(recent_places_reused),
		cmocka_unit_test(url_size_limit),
		cmocka_unit_test(pair_limit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
