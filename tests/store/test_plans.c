/* test_plans.c: the hot path's plans stay index plans however small the
 * store was when a session made them (0035_plan_stability.sql).
 *
 * A worker's or a crawler's session plans each statement of a function
 * once and keeps the plan. Here one session enqueues, claims and
 * completes on a store of a few tasks (its plans are made then), the
 * store grows to 20,000 tasks without an ANALYZE, and auto_explain shows
 * the plans of the same session's next calls, a reap of an expired
 * lease and a fold of the counters among them: no statement may read
 * tasks, queue, pages, leases, task_links or jobs whole (a sequential
 * scan, or an index scan with no condition), the claims must read their
 * claim-order index in order (no sort of a job's queue), and none may be
 * compiled by JIT (the session asks for JIT on every statement from the
 * start: the functions must turn it off). */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "pgtest.h"

static int fresh(void **state)
{
	*state = pgt_fresh("ct_plans", 1);
	return 0;
}

static const char *const tables[] = {"tasks", "queue", "pages", "leases",
				     "task_links", "count_deltas"};
/* the tables no statement of the hot path may read whole */
static const char *const hot[] = {"tasks", "queue", "pages", "leases",
				  "task_links", "jobs"};

static void autovacuum(struct ct_store *s, bool on)
{
	for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++)
		pgt_autovacuum(s, tables[i], on);
}

/* One enqueue of two links from a fetched page, one claim of the job,
 * one of any job, one claim_next and one completion, as a worker does;
 * round names the paths. */
static void work(struct ct_store *s, int64_t job, int round)
{
	char a[32], b[32], sql[256];
	snprintf(a, sizeof a, "/r/%d/a", round);
	snprintf(b, sizeof b, "/r/%d/b", round);
	const char *paths[] = {a, b};
	struct ct_claim k = pgt_claim(s, "w1", job, 1, 60);
	assert_int_equal(k.n, 1);
	pgt_enqueue_from(s, job, paths, 2, NULL, CT_SRC_LINK, k.tasks[0].page_id);
	struct ct_claim k2 = pgt_claim(s, "w1", 0, 1, 60);
	assert_int_equal(k2.n, 1);
	snprintf(sql, sizeof sql, "SELECT count(*) FROM crawltop.claim_next("
		 "'w1', ARRAY[%" PRId64 ", %" PRId64 "]::bigint[], 1, %" PRId64 ")",
		 k.tasks[0].id, k2.tasks[0].id, job);
	assert_int_equal(pgt_int(s, sql), 1);
	pgt_exec(s, "SELECT crawltop.complete('w1', ARRAY(SELECT task_id FROM "
		 "crawltop.leases))");
	ct_claim_free(&k);
	ct_claim_free(&k2);
}

/* True for the plan of one of work()'s own calls (the session's
 * statements, which jit_above_cost 0 compiles), not of a statement inside
 * the functions they call. */
static bool is_call(const char *plan)
{
	static const char *const calls[] = {
		"Query Text: SELECT task_id, job_id, page_id", /* ct_store_claim */
		"Query Text: SELECT inserted, raised FROM crawltop.enqueue(",
		"Query Text: SELECT count(*) FROM crawltop.claim_next(",
		"Query Text: SELECT crawltop.complete(",
		"Query Text: SELECT crawltop.fold_counts()",
	};
	for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++)
		if (strstr(plan, calls[i]))
			return true;
	return false;
}

/* The length of the line at l (without its newline). */
static size_t line_len(const char *l)
{
	const char *nl = strchr(l, '\n');
	return nl ? (size_t)(nl - l) : strlen(l);
}

/* Whether n bytes at l hold needle. */
static bool line_has(const char *l, size_t n, const char *needle)
{
	size_t k = strlen(needle);
	for (size_t i = 0; i + k <= n; i++)
		if (memcmp(l + i, needle, k) == 0)
			return true;
	return false;
}

/* Whether the scan node on line l (its detail lines follow it up to the
 * next "->") reads one of the hot tables whole: a sequential scan, or an
 * index scan with no Index Cond. */
static bool reads_whole(const char *l)
{
	size_t n = line_len(l);
	bool seq = line_has(l, n, "Seq Scan on ");
	bool idx = !seq && line_has(l, n, " using ") &&
		   (line_has(l, n, "Index Scan") || line_has(l, n, "Index Only Scan"));
	if (!seq && !idx)
		return false;
	bool is_hot = false;
	for (size_t k = 0; k < sizeof hot / sizeof hot[0]; k++) {
		char on[48];
		snprintf(on, sizeof on, " on %s ", hot[k]);
		is_hot = is_hot || line_has(l, n, on);
	}
	if (!is_hot)
		return false;
	if (seq)
		return true;
	for (const char *d = l + n; *d == '\n'; d += line_len(d)) {
		d++;
		size_t m = line_len(d);
		if (line_has(d, m, "->"))
			break;
		if (line_has(d, m, "Index Cond:"))
			return false;
	}
	return true;
}

/* The first line of plan that reads a hot table whole, or NULL. */
static const char *whole_read(const char *plan)
{
	for (const char *l = plan; *l; ) {
		if (reads_whole(l))
			return l;
		l += line_len(l);
		if (*l == '\n')
			l++;
	}
	return NULL;
}

/* A claim under a lease that is over by the time this returns: the next
 * claim's probe finds it and runs the reaper. */
static void expire_one(struct ct_store *s, int64_t job)
{
	struct ct_claim k = pgt_claim(s, "w2", job, 1, 0.02);
	assert_int_equal(k.n, 1);
	ct_claim_free(&k);
	usleep(100 * 1000);
}

/* What claim and claim_next plan with (0035), for the fold they call. */
static const char claims_settings[] =
	"SET enable_seqscan = off; SET enable_sort = off; "
	"SET enable_material = off; SET enable_hashjoin = off; "
	"SET enable_mergejoin = off";
static const char claims_reset[] =
	"RESET enable_seqscan; RESET enable_sort; RESET enable_material; "
	"RESET enable_hashjoin; RESET enable_mergejoin";

static void hot_path_plans_survive_growth(void **state)
{
	struct ct_store *s = *state;
	int64_t job = pgt_job(s, "grow", "grow.example", 5, "importance");
	autovacuum(s, false);
	/* each round takes three tasks and adds two */
	const char *seeds[] = {"/", "/s/1", "/s/2", "/s/3", "/s/4", "/s/5",
			       "/s/6", "/s/7", "/s/8", "/s/9", "/s/10"};
	pgt_enqueue(s, job, seeds, 11, NULL);
	/* every plan the session makes may be compiled unless its function
	 * says no */
	pgt_exec(s, "SET jit_above_cost = 0");
	/* the counters' fold, under the claims' settings, first: its plans
	 * are made here, not by a claim that happens to fold (1 in 32) */
	pgt_exec(s, claims_settings);
	pgt_exec(s, "SELECT crawltop.fold_counts()");
	pgt_exec(s, claims_reset);
	for (int i = 0; i < 8; i++) {
		if (i == 3)
			expire_one(s, job);
		work(s, job, i);
	}
	/* the store grows behind the session's back */
	pgt_grow_job(s, job, 20000);
	assert_true(pgt_int(s, "SELECT count(*) FROM crawltop.queue") > 20000);

	struct pgt_plans p;
	expire_one(s, job);
	pgt_plans_start(s, &p);
	work(s, job, 100);
	pgt_exec(s, claims_settings);
	pgt_exec(s, "SELECT crawltop.fold_counts()");
	pgt_exec(s, claims_reset);
	pgt_plans_stop(s);
	pgt_exec(s, "RESET jit_above_cost");
	autovacuum(s, true);

	int claims_job = 0, claims_all = 0, reaps = 0, folds = 0, jit_calls = 0;
	for (int i = 0; i < p.n; i++) {
		const char *t = p.text[i];
		if (is_call(t)) {
			jit_calls += strstr(t, "\nJIT:") != NULL;
			continue;
		}
		const char *w = whole_read(t);
		if (w)
			fail_msg("a statement reads a table whole (%.*s):\n%s",
				 (int)line_len(w), w, t);
		reaps += strstr(t, "LIMIT 4 * p_limit") != NULL;
		folds += strstr(t, "DELETE FROM crawltop.count_deltas d RETURNING") != NULL;
		if (strstr(t, "\nJIT:"))
			fail_msg("a statement of the hot path was compiled:\n%s", t);
		if (strstr(t, "UPDATE crawltop.tasks t") &&
		    strstr(t, "SET status = 'running'")) {
			if (strstr(t, "Sort Key: q"))
				fail_msg("a claim sorts the queue:\n%s", t);
			claims_job += strstr(t, "Index Scan using queue_claim_job") != NULL;
			claims_all += strstr(t, "Index Scan using queue_claim_all") != NULL;
		}
	}
	/* work() claims the job twice (claim, claim_next) and all jobs once */
	if (claims_job < 2 || claims_all < 1)
		fail_msg("expected the claims to read queue_claim_job (twice) and "
			 "queue_claim_all (once) in order: saw %d and %d in %d plans",
			 claims_job, claims_all, p.n);
	/* the session's own calls are compiled: JIT works on this server,
	 * so its absence from the functions' plans says something */
	if (jit_calls == 0)
		fail_msg("no call was compiled with jit_above_cost = 0: this "
			 "server has no JIT, and the check of the functions' "
			 "jit = off proves nothing");
	if (reaps < 1 || folds < 1)
		fail_msg("expected a reap and a fold among the %d plans: saw %d "
			 "and %d", p.n, reaps, folds);
	pgt_plans_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(hot_path_plans_survive_growth,
						fresh, pgt_close),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
