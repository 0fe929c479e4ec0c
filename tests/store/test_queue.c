/* test_queue.c: the narrow hot path (0020_narrow_hot_path.sql).
 *
 * crawltop.queue holds exactly the pending tasks with their claim keys and
 * crawltop.leases exactly the running ones with their expiries, after
 * every kind of write (enqueue, claim, complete, fail, release, the
 * reaper, pause, resume, cancel, a priority change, an adjustment, the
 * owner's direct UPDATE and DELETE); a session that sets crawltop.inline
 * cannot make another function skip its sync; every function that writes
 * tasks other than claim and complete pins crawltop.inline; claim and
 * complete update the task's row in place (HOT); the counters read with
 * the deltas not folded yet equal a count over tasks, before and after
 * fold_counts(), also after rescores and rankings; a fold groups the deltas
 * (0041); the queue is vacuumed after a few thousand claims (0042). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "crawltop/settings.h"
#include "counts.h"
#include "pgtest.h"
#include "rank_ops.h"

static int fresh(void **state)
{
	*state = pgt_fresh("ct_queue", 1);
	return 0;
}

/* Rows where queue or leases and tasks disagree, both ways. */
static long long mismatches(struct ct_store *s)
{
	return pgt_int(s,
		"SELECT (SELECT count(*) FROM ("
		"  SELECT id, job_id, job_priority, score, created_at, pending_since "
		"  FROM crawltop.tasks WHERE status = 'pending' "
		"  EXCEPT ALL SELECT task_id, job_id, job_priority, score, "
		"  created_at, pending_since FROM crawltop.queue) a) "
		"+ (SELECT count(*) FROM ("
		"  SELECT task_id, job_id, job_priority, score, created_at, "
		"  pending_since FROM crawltop.queue EXCEPT ALL "
		"  SELECT id, job_id, job_priority, score, created_at, pending_since "
		"  FROM crawltop.tasks WHERE status = 'pending') b) "
		"+ (SELECT count(*) FROM ("
		"  SELECT id, lease_expires_at FROM crawltop.tasks "
		"  WHERE status = 'running' EXCEPT ALL "
		"  SELECT task_id, expires_at FROM crawltop.leases) c) "
		"+ (SELECT count(*) FROM ("
		"  SELECT task_id, expires_at FROM crawltop.leases EXCEPT ALL "
		"  SELECT id, lease_expires_at FROM crawltop.tasks "
		"  WHERE status = 'running') d)");
}

/* Cells where the counters (folded or not) and a count over tasks differ. */
static long long count_faults(struct ct_store *s)
{
	return pgt_int(s,
		"SELECT count(*) FROM ("
		"  (SELECT * FROM crawltop.dashboard_cells(NULL) "
		"   EXCEPT ALL SELECT * FROM crawltop.dashboard_cells_exact(NULL)) "
		"  UNION ALL "
		"  (SELECT * FROM crawltop.dashboard_cells_exact(NULL) "
		"   EXCEPT ALL SELECT * FROM crawltop.dashboard_cells(NULL))) x");
}

static void check(struct ct_store *s, const char *after)
{
	long long m = mismatches(s), c = count_faults(s);
	if (m || c)
		fail_msg("after %s: %lld queue/lease rows and %lld counter "
			 "cells disagree with tasks", after, m, c);
}

static int64_t *ids_of(struct ct_claim *k)
{
	int64_t *ids = calloc(k->n ? k->n : 1, sizeof *ids);
	for (size_t i = 0; i < k->n; i++)
		ids[i] = k->tasks[i].id;
	return ids;
}

static char *id_array(const struct ct_claim *k, size_t from, size_t n)
{
	static char buf[4096];
	size_t o = 0;
	o += (size_t)snprintf(buf + o, sizeof buf - o, "{");
	for (size_t i = from; i < from + n && i < k->n; i++)
		o += (size_t)snprintf(buf + o, sizeof buf - o, "%s%lld",
				      i > from ? "," : "",
				      (long long)k->tasks[i].id);
	snprintf(buf + o, sizeof buf - o, "}");
	return buf;
}

static void every_write_keeps_queue_and_leases(void **state)
{
	struct ct_store *s = *state;
	int64_t a = pgt_job(s, "qa", "qa.example", 3, "hierarchy");
	int64_t b = pgt_job(s, "qb", "qb.example", 6, "fifo");
	const char *pa[] = {"/", "/a", "/a/b", "/a/b/c", "/d", "/d/e", "/f",
			    "/g", "/h", "/i", "/j", "/k"};
	pgt_enqueue(s, a, pa, 12, NULL);
	pgt_enqueue(s, b, pa, 12, NULL);
	check(s, "enqueue");

	struct ct_claim k = pgt_claim(s, "w1", 0, 8, 60);
	assert_int_equal(k.n, 8);
	check(s, "claim");
	char sql[8192];
	snprintf(sql, sizeof sql, "SELECT count(*) FROM crawltop.complete("
		 "'w1', '%s')", id_array(&k, 0, 2));
	assert_int_equal(pgt_int(s, sql), 2);
	check(s, "complete");
	snprintf(sql, sizeof sql, "SELECT count(*) FROM crawltop.fail("
		 "'w1', '%s', 'boom')", id_array(&k, 2, 2));
	assert_int_equal(pgt_int(s, sql), 2);
	check(s, "fail");
	snprintf(sql, sizeof sql, "SELECT count(*) FROM crawltop.release("
		 "'w1', '%s')", id_array(&k, 4, 2));
	assert_int_equal(pgt_int(s, sql), 2);
	check(s, "release");
	/* the rest expire: the reaper (in the next claim) takes them back */
	pgt_exec(s, "UPDATE crawltop.tasks SET lease_expires_at = now() - "
		 "interval '1 second' WHERE status = 'running'");
	check(s, "the owner's direct UPDATE of leases");
	assert_true(pgt_int(s, "SELECT crawltop.reap_expired(100)") >= 2);
	check(s, "reap_expired");

	pgt_exec(s, "SELECT crawltop.set_job_state(" "(SELECT id FROM "
		 "crawltop.jobs WHERE name = 'qb'), 'pause')");
	check(s, "pause");
	pgt_exec(s, "SELECT crawltop.set_job_priority((SELECT id FROM "
		 "crawltop.jobs WHERE name = 'qa'), 9)");
	check(s, "set_job_priority");
	pgt_exec(s, "SELECT crawltop.set_job_state((SELECT id FROM "
		 "crawltop.jobs WHERE name = 'qb'), 'resume')");
	check(s, "resume");
	pgt_exec(s, "SELECT crawltop.adjust_scores((SELECT id FROM "
		 "crawltop.jobs WHERE name = 'qa'), '/a', 25)");
	check(s, "adjust_scores");
	pgt_exec(s, "UPDATE crawltop.tasks SET score = 77, base_score = 77, "
		 "adjustment = 0 WHERE id = (SELECT min(task_id) FROM "
		 "crawltop.queue)");
	check(s, "the owner's direct UPDATE of a score");
	pgt_exec(s, "SELECT crawltop.set_job_state((SELECT id FROM "
		 "crawltop.jobs WHERE name = 'qb'), 'cancel')");
	check(s, "cancel");
	ct_claim_free(&k);

	/* the queue's order is the claim's: the next claim takes the
	 * queue's first row */
	long long first = pgt_int(s, "SELECT task_id FROM crawltop.queue "
		"WHERE job_priority <= 10 ORDER BY job_priority, score DESC, "
		"created_at, task_id LIMIT 1");
	k = pgt_claim(s, "w2", 0, 1, 60);
	assert_int_equal(k.n, 1);
	assert_int_equal(k.tasks[0].id, first);
	ct_claim_free(&k);
	check(s, "the last claim");
	pgt_exec(s, "DELETE FROM crawltop.tasks WHERE id IN (SELECT task_id "
		 "FROM crawltop.queue LIMIT 2) OR id IN (SELECT task_id FROM "
		 "crawltop.leases LIMIT 1)");
	check(s, "the owner's DELETE");
	assert_true(pgt_int(s, "SELECT crawltop.fold_counts()") >= 0);
	assert_int_equal(pgt_int(s, "SELECT count(*) FROM crawltop.count_deltas"), 0);
	check(s, "fold_counts");
}

/* A worker's session setting does not make release skip its sync. */
static void session_setting_skips_nothing(void **state)
{
	struct ct_store *s = *state;
	int64_t j = pgt_job(s, "qs", "qs.example", 5, "hierarchy");
	const char *p[] = {"/x", "/y"};
	pgt_enqueue(s, j, p, 2, NULL);
	struct ct_claim k = pgt_claim(s, "w3", j, 2, 60);
	assert_int_equal(k.n, 2);
	pgt_exec(s, "SET crawltop.inline = 'on'");
	char sql[256];
	snprintf(sql, sizeof sql, "SELECT count(*) FROM crawltop.release("
		 "'w3', '{%lld,%lld}')", (long long)k.tasks[0].id,
		 (long long)k.tasks[1].id);
	assert_int_equal(pgt_int(s, sql), 2);
	pgt_exec(s, "RESET crawltop.inline");
	check(s, "release under SET crawltop.inline = on");
	ct_claim_free(&k);
	/* enqueue writes the queue rows and counters of its new tasks in its
	 * own INSERT (0038), with crawltop.inline on for that statement only:
	 * a raise later in the same call (a frontier job takes the scores it
	 * is given) keeps its sync through the trigger, with or without the
	 * session's setting; the new tasks fall in several counter cells */
	int64_t f = pgt_job(s, "qf", "qf.example", 5, "frontier");
	const char *first[] = {"/r1", "/r2"};
	double first_sc[] = {10, 20};
	pgt_enqueue(s, f, first, 2, first_sc);
	const char *more[] = {"/r3", "/r4", "/r1", "/r5"};
	double more_sc[] = {35, 75, 90, 99};
	const char *again[] = {"/r2", "/r6", "/r7"};
	double again_sc[] = {55, 5, 45};
	for (int pass = 0; pass < 2; pass++) {
		if (pass == 0)
			pgt_exec(s, "SET crawltop.inline = 'on'");
		struct ct_enqueue_result r = pass == 0 ?
			pgt_enqueue(s, f, more, 4, more_sc) :
			pgt_enqueue(s, f, again, 3, again_sc);
		assert_int_equal(r.raised, 1);
		pgt_exec(s, "RESET crawltop.inline");
		check(s, pass == 0 ? "new tasks and a raise in one enqueue "
		      "under SET crawltop.inline = on" :
		      "new tasks and a raise in one enqueue");
		pgt_assert_counts_exact(s, "enqueue with a raise");
	}
	assert_int_equal(pgt_int(s, "SELECT round(q.score)::int FROM crawltop.queue q "
				 "JOIN crawltop.tasks t ON t.id = q.task_id JOIN "
				 "crawltop.pages p ON p.id = t.page_id WHERE p.path = '/r1'"),
			 90);
	/* and every writer of tasks but the two hot ones pins it */
	char *t = pgt_text(s,
		"SELECT coalesce(string_agg(p.proname, ',' ORDER BY p.proname), '') "
		"FROM pg_proc p WHERE p.pronamespace = 'crawltop'::regnamespace "
		"AND p.prolang = (SELECT oid FROM pg_language WHERE lanname = 'plpgsql') "
		"AND p.prosrc ~* '(UPDATE|INSERT INTO|DELETE FROM|TRUNCATE)\\s+crawltop\\.tasks\\M' "
		"AND p.proname NOT IN ('claim', 'complete', 'claim_next') "
		"AND NOT coalesce(p.proconfig @> ARRAY['crawltop.inline='], false)",
		0, NULL);
	if (t[0])
		fail_msg("functions that write tasks without pinning "
			 "crawltop.inline: %s", t);
	free(t);
}

/* Claim and complete change no indexed column of tasks: both updates are
 * HOT (the page has room: fillfactor 70). */
static void claim_and_complete_update_in_place(void **state)
{
	struct ct_store *s = *state;
	int64_t j = pgt_job(s, "qh", "qh.example", 5, "hierarchy");
	const char *p[] = {"/h1", "/h2", "/h3"};
	pgt_enqueue(s, j, p, 3, NULL);
	pgt_exec(s, "BEGIN");
	struct ct_claim k = pgt_claim(s, "w4", j, 3, 60);
	assert_int_equal(k.n, 3);
	int64_t *ids = ids_of(&k);
	char sql[256];
	snprintf(sql, sizeof sql, "SELECT count(*) FROM crawltop.complete("
		 "'w4', '{%lld,%lld,%lld}')", (long long)ids[0],
		 (long long)ids[1], (long long)ids[2]);
	assert_int_equal(pgt_int(s, sql), 3);
	assert_int_equal(pgt_int(s, "SELECT n_tup_upd FROM "
		"pg_stat_xact_user_tables WHERE relid = 'crawltop.tasks'::regclass"), 6);
	assert_int_equal(pgt_int(s, "SELECT n_tup_hot_upd FROM "
		"pg_stat_xact_user_tables WHERE relid = 'crawltop.tasks'::regclass"), 6);
	pgt_exec(s, "COMMIT");
	free(ids);
	ct_claim_free(&k);
	check(s, "a committed claim and completion");
}

/* claim_next's counter deltas (0037) come out exact per job in each case
 * of what it completes and claims: the same job, another job, several,
 * by all jobs' order, a paused job (nothing claimed), an empty queue;
 * then the claims and completions per second add up. */
static void claim_next_counts_each_case(void **state)
{
	struct ct_store *s = *state;
	int64_t a = pgt_job(s, "ca", "ca.example", 3, "hierarchy");
	int64_t b = pgt_job(s, "cb", "cb.example", 3, "hierarchy");
	const char *p[] = {"/", "/a", "/b", "/c", "/d", "/e"};
	pgt_enqueue(s, a, p, 6, NULL);
	pgt_enqueue(s, b, p, 2, NULL);
	struct ct_error err = {{0}};
	struct ct_claim k;
	long claims = 0, completions = 0;
	/* the first claim: nothing to complete */
	assert_int_equal(ct_store_claim_next(s, "w1", NULL, 0, a, 1, 60, &k,
					     &err), CT_OK);
	claims += (long)k.n;
	check(s, "a first claim");
	static const struct { const char *what; int job; size_t n; } steps[] = {
		{"one of the same job", 'a', 1},
		{"one of another job", 'b', 1},
		{"two", 'a', 2},
		{"two completed, one claimed by all jobs' order", 0, 1},
		{"one and one by all jobs' order", 0, 1},
		{"a job that is paused (nothing claimed)", 'p', 1},
	};
	for (size_t i = 0; i < sizeof steps / sizeof *steps; i++) {
		int64_t *held = ids_of(&k);
		size_t n_held = k.n;
		int64_t job = steps[i].job == 'a' ? a : steps[i].job == 'b' ? b :
			steps[i].job == 'p' ? b : 0;
		if (steps[i].job == 'p') {
			char sql[160];
			snprintf(sql, sizeof sql, "SELECT crawltop.set_job_state(%lld, "
				 "'pause')", (long long)b);
			pgt_exec(s, sql);
		}
		struct ct_claim next;
		if (ct_store_claim_next(s, "w1", held, n_held, job, steps[i].n, 60,
					&next, &err) != CT_OK)
			fail_msg("%s: %s", steps[i].what, err.msg);
		completions += (long)n_held;
		claims += (long)next.n;
		if (steps[i].job == 'p')
			assert_int_equal(next.n, 0);
		else
			assert_int_equal(next.n, steps[i].n);
		check(s, steps[i].what);
		pgt_assert_counts_exact(s, steps[i].what);
		free(held);
		ct_claim_free(&k);
		k = next;
	}
	/* an empty queue: the last task completed, nothing claimed */
	ct_claim_free(&k);
	char resume[160];
	snprintf(resume, sizeof resume, "SELECT crawltop.set_job_state(%lld, "
		 "'resume')", (long long)b);
	pgt_exec(s, resume);
	assert_int_equal(ct_store_claim_next(s, "w1", NULL, 0, 0, 1, 60, &k,
					     &err), CT_OK);
	assert_int_equal(k.n, 1);
	claims += 1;
	int64_t *held = ids_of(&k);
	size_t n_held = k.n;
	pgt_exec(s, "UPDATE crawltop.tasks SET status = 'skipped' WHERE status "
		 "= 'pending'");
	struct ct_claim last;
	assert_int_equal(ct_store_claim_next(s, "w1", held, n_held, 0, 1, 60,
					     &last, &err), CT_OK);
	completions += (long)n_held;
	assert_int_equal(last.n, 0);
	check(s, "the last completion, an empty queue");
	pgt_assert_counts_exact(s, "the last completion, an empty queue");
	free(held);
	ct_claim_free(&k);
	ct_claim_free(&last);
	pgt_exec(s, "SELECT crawltop.fold_counts()");
	assert_int_equal(pgt_int(s, "SELECT sum(claims) FROM crawltop.rate_ticks"),
			 claims);
	assert_int_equal(pgt_int(s, "SELECT sum(completions) FROM "
				 "crawltop.rate_ticks"), completions);
	assert_int_equal(claims, 8);
}

/* claim_next (0022) completes what the worker holds and claims the next
 * tasks in SPEC.md's order in one transaction; a task it does not hold
 * under a live lease makes the call fail (55000) and change nothing. */
static void claim_next_completes_then_claims(void **state)
{
	struct ct_store *s = *state;
	int64_t a = pgt_job(s, "na", "na.example", 4, "hierarchy");
	int64_t b = pgt_job(s, "nb", "nb.example", 2, "fifo");
	const char *p[] = {"/", "/a", "/a/b", "/c", "/d"};
	pgt_enqueue(s, a, p, 5, NULL);
	pgt_enqueue(s, b, p, 5, NULL);
	const char *order = "SELECT string_agg(id::text, ',' ORDER BY "
		"job_priority, score DESC, created_at, id) FROM (SELECT * FROM "
		"crawltop.tasks WHERE status = 'pending' ORDER BY job_priority, "
		"score DESC, created_at, id LIMIT %d) x";
	char sql[512], got[256];
	snprintf(sql, sizeof sql, order, 2);
	char *want = pgt_text(s, sql, 0, NULL);
	struct ct_error err = {{0}};
	struct ct_claim k;
	assert_int_equal(ct_store_claim_next(s, "w5", NULL, 0, 0, 2, 60, &k,
					     &err), CT_OK);
	assert_int_equal(k.n, 2);
	snprintf(got, sizeof got, "%lld,%lld", (long long)k.tasks[0].id,
		 (long long)k.tasks[1].id);
	assert_string_equal(got, want);
	free(want);
	check(s, "claim_next of nothing done");

	/* the two completed, the next one claimed */
	int64_t *held = ids_of(&k);
	snprintf(sql, sizeof sql, order, 1);
	want = pgt_text(s, sql, 0, NULL);
	struct ct_claim k2;
	assert_int_equal(ct_store_claim_next(s, "w5", held, 2, 0, 1, 60, &k2,
					     &err), CT_OK);
	assert_int_equal(k2.n, 1);
	snprintf(got, sizeof got, "%lld", (long long)k2.tasks[0].id);
	assert_string_equal(got, want);
	free(want);
	snprintf(sql, sizeof sql, "SELECT count(*) FROM crawltop.tasks WHERE "
		 "id IN (%lld, %lld) AND status = 'completed' AND lease_owner "
		 "IS NULL", (long long)held[0], (long long)held[1]);
	assert_int_equal(pgt_int(s, sql), 2);
	check(s, "claim_next");

	/* a completed task, another worker's task: refused, nothing done */
	const char *state_sql = "SELECT string_agg(id || status || "
		"coalesce(lease_owner, '-'), ',' ORDER BY id) FROM crawltop.tasks";
	char *before = pgt_text(s, state_sql, 0, NULL);
	int64_t two[2] = {k2.tasks[0].id, held[0]};
	struct ct_claim k3;
	assert_int_equal(ct_store_claim_next(s, "w5", two, 2, 0, 1, 60, &k3,
					     &err), CT_EINVAL);
	assert_string_equal(ct_store_sqlstate(s), "55000");
	assert_non_null(strstr(err.msg, "nothing was completed or claimed"));
	assert_int_equal(ct_store_claim_next(s, "w6", two, 1, 0, 1, 60, &k3,
					     &err), CT_EINVAL);
	assert_string_equal(ct_store_sqlstate(s), "55000");
	assert_int_equal(ct_store_claim_next(s, "bad name", two, 1, 0, 1, 60,
					     &k3, &err), CT_EINVAL);
	assert_string_equal(ct_store_sqlstate(s), "22023");
	char *after = pgt_text(s, state_sql, 0, NULL);
	assert_string_equal(after, before);
	free(before);
	free(after);
	check(s, "refused claim_next calls");
	free(held);
	ct_claim_free(&k);
	ct_claim_free(&k2);
}

/* A rescore and a ranking write many tasks in one statement each batch:
 * a discovery job of pending tasks with sub-scores, a few without and
 * three running, ranked, then switched through every mode and rescored,
 * each step leaves queue, leases and every counter cell equal to tasks;
 * so does a rescore after the class bounds move. */
static void rescores_and_rankings_keep_queue(void **state)
{
	struct ct_store *s = *state;
	int64_t j = pgt_job(s, "qr", "qr.example", 4, "discovery");
	const char *p[] = {"/", "/r/a", "/r/b", "/r/c", "/r/d", "/r/e",
			   "/s/a", "/s/b", "/s/c", "/s/d", "/t", "/u"};
	pgt_enqueue(s, j, p, 12, NULL);
	char id[24];
	snprintf(id, sizeof id, "%lld", (long long)j);
	for (int i = 0; i < 9; i++) {
		char json[400], x[16];
		snprintf(x, sizeof x, "0.%d", 1 + i);
		snprintf(json, sizeof json, "{\"subscores\": {\"unseen_likelihood\": %s, "
			 "\"host_novelty\": %s, \"content_readiness\": 0.5, "
			 "\"link_yield\": %s, \"source_reliability\": 0.5, "
			 "\"freshness\": 0.5, \"quality_safety\": 1, "
			 "\"topic_boost\": 0}}", x, x, x);
		const char *a[] = {id, p[i], json};
		free(pgt_text(s, "SELECT crawltop.set_score_inputs($1::bigint, "
			      "ARRAY[$2], ARRAY[$3::jsonb])", 3, a));
	}
	struct ct_claim k = pgt_claim(s, "w5", j, 3, 600);
	assert_int_equal(k.n, 3);
	check(s, "claims");
	struct ct_settings set;
	ct_settings_default(&set);
	struct ct_error err = {{0}};
	struct ct_rank_opts ro = {.settings = &set, .job_id = j, .batch = 5};
	struct ct_rank_result rr;
	if (ct_store_rank(s, &ro, &rr, &err) != CT_OK)
		fail_msg("rank: %s", err.msg);
	assert_true(pgt_int(s, "SELECT count(*) FROM crawltop.tasks WHERE "
			    "ranked_at IS NOT NULL") >= 6);
	check(s, "a ranking");
	static const char *const modes[] = {"frontier", "hierarchy", "fifo",
		"freshness", "importance", "discovery"};
	struct ct_rescore_opts o = {.settings = &set, .batch = 4};
	for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
		struct ct_rescore_result r;
		if (ct_store_job_set_mode(s, j, modes[i], &o, &r, &err) != CT_OK)
			fail_msg("set mode %s: %s", modes[i], err.msg);
		char when[64];
		snprintf(when, sizeof when, "a rescore for %s", modes[i]);
		check(s, when);
	}
	set.classes.p0 = 90;
	set.classes.p1 = 70;
	set.classes.p2 = 20;
	struct ct_rescore_result r;
	if (ct_store_job_rescore(s, j, &o, &r, &err) != CT_OK)
		fail_msg("rescore: %s", err.msg);
	assert_true(r.changed > 0);
	check(s, "a rescore with new class bounds");
	assert_true(pgt_int(s, "SELECT crawltop.fold_counts()") >= 0);
	check(s, "fold_counts");
	ct_claim_free(&k);
}

/* A fold groups the counter deltas by what their cells depend on before
 * it expands them (0041), and so does a claim before it appends them
 * (0044): P3 tasks of one job, depth, method and type but
 * of two score buckets (0-20 and 20-40), claimed by two workers and
 * the first one's completed, their deltas folded together, keep each bucket's count; and
 * the deltas are gone after the fold. A second session holds the fold's
 * slot meanwhile, so the claims' and the completion's own folds (one call
 * in 32) return at once and every delta waits for the one fold. */
static void fold_keeps_score_buckets_apart(void **state)
{
	struct ct_store *s = *state, *h;
	struct ct_error err = {{0}};
	int64_t j = pgt_job(s, "fb", "fb.example", 5, "frontier");
	const char *p[] = {"/a", "/b", "/c", "/d", "/e", "/f"};
	const double sc[] = {10, 30, 15, 35, 5, 25};
	pgt_enqueue(s, j, p, 6, sc);
	assert_int_equal(pgt_int(s, "SELECT count(DISTINCT crawltop.score_bucket("
				 "score)) FROM crawltop.tasks WHERE class = 3"), 2);
	pgt_exec(s, "SELECT crawltop.fold_counts()");
	if (ct_store_open(pgt_dsn("ct_queue"), &h, &err) != CT_OK)
		fail_msg("%s", err.msg);
	pgt_exec(h, "BEGIN");
	pgt_exec(h, "SELECT 1 FROM crawltop.counter_slots WHERE shard = 0 "
		 "FOR UPDATE");
	struct ct_claim k1 = pgt_claim(s, "w1", j, 3, 60);
	struct ct_claim k2 = pgt_claim(s, "w2", j, 2, 60);
	assert_int_equal(k1.n + k2.n, 5);
	size_t done = 0;
	int64_t *ids = ids_of(&k1);
	assert_int_equal(ct_store_complete(s, "w1", ids, k1.n, &done, &err), CT_OK);
	free(ids);
	assert_int_equal(pgt_int(s, "SELECT crawltop.fold_counts()"), 0);
	check(s, "claims and a completion, not folded");
	/* two claim statements, one delta a group of tasks that share their
	 * cells (0044: w1's three the 20-40 bucket, w2's two the 0-20), and
	 * one completion */
	assert_int_equal(pgt_int(s, "SELECT count(*) FROM crawltop.count_deltas"), 3);
	assert_int_equal(pgt_int(s, "SELECT sum(n) FROM crawltop.count_deltas "
				 "WHERE claims > 0"), 5);
	pgt_exec(h, "COMMIT");
	ct_store_close(h);
	assert_int_equal(pgt_int(s, "SELECT crawltop.fold_counts()"), 3);
	assert_int_equal(pgt_int(s, "SELECT count(*) FROM crawltop.count_deltas"), 0);
	check(s, "one fold of every delta");
	pgt_assert_counts_exact(s, "one fold of every delta");
	ct_claim_free(&k1);
	ct_claim_free(&k2);
}

/* 0042: the queue is vacuumed after 2,000 dead rows whatever its size
 * (autovacuum's default waits for a fifth of the table), without the
 * cost-based delay; the other tables keep the server's defaults. */
static void queue_autovacuum_settings(void **state)
{
	struct ct_store *s = *state;
	assert_int_equal(pgt_int(s, "SELECT count(*) FROM pg_class c, "
				 "unnest(c.reloptions) o WHERE c.oid = "
				 "'crawltop.queue'::regclass AND o IN ("
				 "'autovacuum_vacuum_scale_factor=0', "
				 "'autovacuum_vacuum_threshold=2000', "
				 "'autovacuum_vacuum_cost_delay=0')"), 3);
	assert_int_equal(pgt_int(s, "SELECT count(*) FROM pg_class c, "
				 "unnest(c.reloptions) o WHERE c.relnamespace = "
				 "'crawltop'::regnamespace AND o LIKE 'autovacuum%' "
				 "AND c.oid <> 'crawltop.queue'::regclass"), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(every_write_keeps_queue_and_leases,
						fresh, pgt_close),
		cmocka_unit_test_setup_teardown(session_setting_skips_nothing,
						fresh, pgt_close),
		cmocka_unit_test_setup_teardown(claim_next_counts_each_case,
						fresh, pgt_close),
		cmocka_unit_test_setup_teardown(claim_next_completes_then_claims,
						fresh, pgt_close),
		cmocka_unit_test_setup_teardown(claim_and_complete_update_in_place,
						fresh, pgt_close),
		cmocka_unit_test_setup_teardown(rescores_and_rankings_keep_queue,
						fresh, pgt_close),
		cmocka_unit_test_setup_teardown(fold_keeps_score_buckets_apart,
						fresh, pgt_close),
		cmocka_unit_test_setup_teardown(queue_autovacuum_settings,
						fresh, pgt_close),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
