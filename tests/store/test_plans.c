/* test_plans.c: the hot path's plans stay index plans however small the
 * store was when a session made them (0035_plan_stability.sql).
 *
 * A worker's or a crawler's session plans each statement of a function
 * once and keeps the plan. Here one session enqueues, claims and
 * completes on a store of a few tasks (its plans are made then), the
 * store grows to 20,000 tasks without an ANALYZE, and auto_explain shows
 * the plans of the same session's next calls: no statement may read
 * tasks, queue, pages, leases or task_links whole, the claims must read
 * their claim-order index in order (no sort of a job's queue), and none
 * may be compiled by JIT (the session asks for JIT on every statement:
 * the functions must turn it off). */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pgtest.h"

static int fresh(void **state)
{
	*state = pgt_fresh("ct_plans", 1);
	return 0;
}

static const char *const tables[] = {"tasks", "queue", "pages", "leases",
				     "task_links", "count_deltas"};

static void autovacuum(struct ct_store *s, bool on)
{
	for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++) {
		char sql[160];
		snprintf(sql, sizeof sql, on ?
			 "ALTER TABLE crawltop.%s RESET (autovacuum_enabled)" :
			 "ALTER TABLE crawltop.%s SET (autovacuum_enabled = off)",
			 tables[i]);
		pgt_exec(s, sql);
	}
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
	};
	for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++)
		if (strstr(plan, calls[i]))
			return true;
	return false;
}

static void hot_path_plans_survive_growth(void **state)
{
	struct ct_store *s = *state;
	int64_t job = pgt_job(s, "grow", "grow.example", 5, "importance");
	char sql[512];
	autovacuum(s, false);
	/* each round takes three tasks and adds two */
	const char *seeds[] = {"/", "/s/1", "/s/2", "/s/3", "/s/4", "/s/5",
			       "/s/6", "/s/7", "/s/8", "/s/9", "/s/10"};
	pgt_enqueue(s, job, seeds, 11, NULL);
	for (int i = 0; i < 8; i++)
		work(s, job, i);
	/* the store grows behind the session's back */
	snprintf(sql, sizeof sql, "INSERT INTO crawltop.pages (domain_id, path) "
		 "SELECT j.domain_id, '/h/' || g FROM crawltop.jobs j, "
		 "generate_series(1, 20000) g WHERE j.id = %" PRId64, job);
	pgt_exec(s, sql);
	snprintf(sql, sizeof sql, "INSERT INTO crawltop.tasks (job_id, page_id, "
		 "job_priority) SELECT j.id, p.id, 5 FROM crawltop.jobs j "
		 "JOIN crawltop.pages p ON p.domain_id = j.domain_id WHERE j.id = %"
		 PRId64 " AND p.path LIKE '/h/%%'", job);
	pgt_exec(s, sql);
	assert_true(pgt_int(s, "SELECT count(*) FROM crawltop.queue") > 20000);

	struct pgt_plans p;
	pgt_exec(s, "SET jit_above_cost = 0");
	pgt_plans_start(s, &p);
	work(s, job, 100);
	pgt_plans_stop(s);
	pgt_exec(s, "RESET jit_above_cost");
	autovacuum(s, true);

	int claims_job = 0, claims_all = 0;
	for (int i = 0; i < p.n; i++) {
		const char *t = p.text[i];
		if (is_call(t))
			continue;
		for (size_t k = 0; k < sizeof tables / sizeof tables[0]; k++) {
			char seq[64];
			snprintf(seq, sizeof seq, "Seq Scan on %s ", tables[k]);
			if (strcmp(tables[k], "count_deltas") && strstr(t, seq))
				fail_msg("a statement reads %s whole:\n%s",
					 tables[k], t);
		}
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
