/* test_claim.c: claim, complete, fail, release and leases (0003_claim.sql, 0005_claims_and_modes.sql).
 *
 * SPEC.md's order across jobs and scores; EXPLAIN (through auto_explain, on
 * the statements the claim function really runs, the starvation guard's
 * included) shows index scans and no Sort; an expired lease is claimable again and its old owner can no longer
 * complete; nothing is completed twice; failures retry with backoff up to
 * max_retries, then fail; bad input is refused with nothing changed. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "pgtest.h"

static int fresh(void **state)
{
	*state = pgt_fresh("ct_claim", 1);
	return 0;
}

/* Enqueue sitemap pages; every one must be new. */
static void enq(struct ct_store *s, int64_t job, const char *const *paths,
		size_t n, const double *scores)
{
	assert_int_equal(pgt_enqueue(s, job, paths, n, scores).inserted, (long)n);
}

static void complete_ok(struct ct_store *s, const char *worker, int64_t id)
{
	struct ct_error err = {{0}};
	size_t done = 0;
	if (ct_store_complete(s, worker, &id, 1, &done, &err) != CT_OK)
		fail_msg("%s", err.msg);
	assert_int_equal(done, 1);
}

static char *task_field(struct ct_store *s, int64_t id, const char *expr_sql)
{
	char idb[24];
	snprintf(idb, sizeof idb, "%lld", (long long)id);
	const char *p[] = {idb};
	return pgt_text(s, expr_sql, 1, p);
}

/* Move a task's lease into the past, as if its time had run out. */
static void expire(struct ct_store *s, int64_t id)
{
	free(task_field(s, id, "UPDATE crawltop.tasks SET lease_expires_at = "
			"now() - interval '1 second' WHERE id = $1 RETURNING id"));
}

/* Three jobs, priorities 3, 1, 3, with crafted scores and ties. */
static void claim_order_across_jobs(void **state)
{
	struct ct_store *s = *state;
	int64_t a = pgt_job(s, "a", "a.example", 3, "frontier");
	int64_t b = pgt_job(s, "b", "b.example", 1, "frontier");
	int64_t c = pgt_job(s, "c", "c.example", 3, "frontier");
	const char *pa[] = {"/a1", "/a2", "/a3", "/a4"};
	const char *pb[] = {"/b1", "/b2"};
	const char *pc[] = {"/c1", "/c2", "/c3"};
	double sa[] = {50, 90, 50, 10}, sb[] = {5, 20}, sc[] = {90, 50, 95};
	enq(s, a, pa, 4, sa);
	enq(s, b, pb, 2, sb);
	enq(s, c, pc, 3, sc);

	/* Priority 1 first whatever the scores; then priority 3 by score,
	 * ties by discovery time (job a's batch came before job c's). */
	static const char *const want[] = {"/b2", "/b1", "/c3", "/a2", "/c1",
					   "/a1", "/a3", "/c2", "/a4"};
	/* one at a time, then check the same order in batches */
	for (size_t i = 0; i < 9; i++) {
		struct ct_claim k = pgt_claim(s, "w1", 0, 1, 0);
		assert_int_equal(k.n, 1);
		if (strcmp(k.tasks[0].path, want[i]) != 0)
			fail_msg("claim %zu: got %s, want %s", i + 1,
				 k.tasks[0].path, want[i]);
		assert_true(k.tasks[0].lease_expires_us > k.tasks[0].discovered_us);
		complete_ok(s, "w1", k.tasks[0].id);
		ct_claim_free(&k);
	}
	struct ct_claim none = pgt_claim(s, "w1", 0, 5, 0);
	assert_int_equal(none.n, 0);

	/* Batches: a second set of jobs, claimed 4 at a time. */
	int64_t d = pgt_job(s, "d", "d.example", 2, "frontier");
	int64_t e = pgt_job(s, "e", "e.example", 2, "hierarchy");
	const char *pd[] = {"/d1", "/d2", "/d3"};
	const char *pe[] = {"/", "/e1"};
	double sd[] = {70, 100, 10};
	enq(s, d, pd, 3, sd);
	enq(s, e, pe, 2, NULL); /* 100 and 50 (sitemap) */
	static const char *const want2[] = {"/d2", "/", "/d1", "/e1", "/d3"};
	struct ct_claim k = pgt_claim(s, "w1", 0, 4, 0);
	assert_int_equal(k.n, 4);
	for (size_t i = 0; i < 4; i++)
		if (strcmp(k.tasks[i].path, want2[i]) != 0)
			fail_msg("batch %zu: got %s, want %s", i, k.tasks[i].path,
				 want2[i]);
	assert_string_equal(k.tasks[1].domain, "e.example");
	assert_int_equal(k.tasks[0].job_priority, 2);
	assert_int_equal(k.tasks[0].cls, 0);
	ct_claim_free(&k);
	k = pgt_claim(s, "w1", 0, 4, 0);
	assert_int_equal(k.n, 1);
	assert_string_equal(k.tasks[0].path, "/d3");
	ct_claim_free(&k);

	/* One job only: its own order, other jobs untouched. */
	int64_t f = pgt_job(s, "f", "f.example", 9, "frontier");
	int64_t g = pgt_job(s, "g", "g.example", 1, "frontier");
	const char *pf[] = {"/f1", "/f2", "/f3"};
	const char *pg[] = {"/g1"};
	double sf[] = {1, 3, 2}, sg[] = {99};
	enq(s, f, pf, 3, sf);
	enq(s, g, pg, 1, sg);
	k = pgt_claim(s, "w1", f, 10, 0);
	assert_int_equal(k.n, 3);
	assert_string_equal(k.tasks[0].path, "/f2");
	assert_string_equal(k.tasks[1].path, "/f3");
	assert_string_equal(k.tasks[2].path, "/f1");
	ct_claim_free(&k);
	k = pgt_claim(s, "w1", 0, 10, 0);
	assert_int_equal(k.n, 1);
	assert_string_equal(k.tasks[0].path, "/g1");
	ct_claim_free(&k);
}

static void explain_shows_index_scan_no_sort(void **state)
{
	struct ct_store *s = *state;
	enum { JOBS = 4, PER_BATCH = 1000, BATCHES = 5 };
	int64_t job[JOBS];
	static char names[PER_BATCH][24];
	const char *paths[PER_BATCH];
	double scores[PER_BATCH];
	for (int j = 0; j < JOBS; j++) {
		char name[16], dom[32];
		snprintf(name, sizeof name, "x%d", j);
		snprintf(dom, sizeof dom, "x%d.example", j);
		job[j] = pgt_job(s, name, dom, 1 + j * 3, "frontier");
		for (int bt = 0; bt < BATCHES; bt++) {
			for (int i = 0; i < PER_BATCH; i++) {
				snprintf(names[i], sizeof names[i], "/p/%d/%d", bt, i);
				paths[i] = names[i];
				scores[i] = (double)((i * 7919 + bt * 31) % 10000) / 100.0;
			}
			enq(s, job[j], paths, PER_BATCH, scores);
		}
	}
	pgt_exec(s, "ANALYZE crawltop.tasks");
	/* one lease that has run out, so that the first claim's reaper runs
	 * its UPDATE (otherwise it stops at its probe) */
	struct ct_claim gone = pgt_claim(s, "vanished", job[0], 1, 0.01);
	assert_int_equal(gone.n, 1);
	ct_claim_free(&gone);
	usleep(50 * 1000);

	struct pgt_plans p;
	pgt_plans_start(s, &p);
	/* eight calls of each: claim's plans are generic from the first */
	for (int i = 0; i < 8; i++) {
		struct ct_claim k = pgt_claim(s, "explainer", 0, 10, 0);
		assert_int_equal(k.n, 10);
		ct_claim_free(&k);
		k = pgt_claim(s, "explainer", job[2], 10, 0);
		assert_int_equal(k.n, 10);
		ct_claim_free(&k);
	}
	pgt_plans_stop(s);

	/* The starvation guard's statements (0005: ordered by pending_since,
	 * one per claim of 10) are checked as well; test_guard.c checks them
	 * with starving tasks present. */
	int all = 0, one = 0, reap = 0, starve = 0, reaped = 0;
	for (int i = 0; i < p.n; i++) {
		const char *t = p.text[i];
		int is_starve = strstr(t, "ORDER BY q.pending_since") != NULL;
		int is_all = !is_starve &&
			     strstr(t, "q.job_priority <= 10") != NULL;
		int is_one = !is_starve &&
			     strstr(t, "q.job_id = p_job_id") != NULL &&
			     strstr(t, "ORDER BY q.score DESC") != NULL;
		int is_reap = strstr(t, "l.expires_at < now()") != NULL;
		/* the reaper's UPDATE of the leases it took (by id) */
		int is_reaping = strstr(t, "UPDATE crawltop.tasks") != NULL &&
				 strstr(t, "WHERE t.id = ANY (v_ids)") != NULL;
		if (is_reaping) {
			pgt_assert_index_scan(t, "tasks_pkey", "reaper's update");
			reaped++;
		}
		if (!is_all && !is_one && !is_reap && !is_starve)
			continue;
		if (is_all)
			pgt_assert_index_scan(t, "queue_claim_all", "all-jobs claim");
		if (is_one)
			pgt_assert_index_scan(t, "queue_claim_job", "one-job claim");
		/* the leases hold the running tasks only: a table this
		 * small may be read whole, but tasks never is */
		if (is_reap && !strstr(t, "Seq Scan on leases"))
			pgt_assert_index_scan(t, "leases_expiry", "reaper");
		if (is_reap && (strstr(t, "Seq Scan on tasks") || strstr(t, "Sort")))
			fail_msg("reaper plan sorts or scans tasks:\n%s", t);
		if (is_starve)
			pgt_assert_index_scan(t, "queue_starve_", "starving path");
		all += is_all;
		one += is_one;
		reap += is_reap;
		starve += is_starve;
	}
	if (all < 8 || one < 8 || reap < 16 || starve < 16 || reaped < 1)
		fail_msg("expected 8, 8, 16, 16 and 1 plans, saw %d, %d, %d, "
			 "%d, %d (of %d notices)", all, one, reap, starve,
			 reaped, p.n);
	pgt_plans_free(&p);
}

/* A claim reads the store settings from store_settings (0037), which a
 * trigger on settings keeps at the newest version over the defaults: a
 * new version's lease_seconds is the next claim's lease, and a version
 * that leaves it out goes back to the default (30 s). */
static void lease_follows_settings(void **state)
{
	struct ct_store *s = *state;
	int64_t job = pgt_job(s, "leases", "leases.example", 5, "fifo");
	const char *p[] = {"/one", "/two", "/three"};
	enq(s, job, p, 3, NULL);
	const char *with = "INSERT INTO crawltop.settings (value, note) SELECT "
		"jsonb_set(value, '{store,lease_seconds}', '500'), 'test' FROM "
		"crawltop.settings ORDER BY version DESC LIMIT 1 RETURNING version";
	const char *without = "INSERT INTO crawltop.settings (value, note) SELECT "
		"value #- '{store,lease_seconds}', 'test' FROM crawltop.settings "
		"ORDER BY version DESC LIMIT 1 RETURNING version";
	const struct { const char *sql; int64_t lo, hi; } steps[] = {
		{with, 498, 501}, {without, 28, 31},
	};
	for (size_t i = 0; i < 2; i++) {
		char *v = pgt_text(s, steps[i].sql, 0, NULL);
		char *cached = pgt_text(s, "SELECT version FROM "
					"crawltop.store_settings", 0, NULL);
		assert_string_equal(cached, v);
		free(cached);
		free(v);
		struct ct_claim k = pgt_claim(s, "w1", job, 1, 0);
		assert_int_equal(k.n, 1);
		int64_t lease = k.tasks[0].lease_expires_us / 1000000 - (int64_t)time(NULL);
		if (lease < steps[i].lo || lease > steps[i].hi)
			fail_msg("step %zu: lease of %lld s", i, (long long)lease);
		ct_claim_free(&k);
	}
	/* the claim reads the row, not the settings */
	pgt_exec(s, "UPDATE crawltop.store_settings SET lease_seconds = 777");
	struct ct_claim k = pgt_claim(s, "w1", job, 1, 0);
	assert_int_equal(k.n, 1);
	int64_t lease = k.tasks[0].lease_expires_us / 1000000 - (int64_t)time(NULL);
	if (lease < 775 || lease > 778)
		fail_msg("store_settings not read: lease of %lld s", (long long)lease);
	ct_claim_free(&k);
}

static void lease_expiry_reclaim(void **state)
{
	struct ct_store *s = *state;
	struct ct_error err = {{0}};
	int64_t job = pgt_job(s, "lease", "lease.example", 5, "fifo");
	const char *p[] = {"/one", "/two"};
	enq(s, job, p, 2, NULL);

	struct ct_claim k1 = pgt_claim(s, "w1", job, 1, 0);
	assert_int_equal(k1.n, 1);
	int64_t id = k1.tasks[0].id;
	/* default lease: 30 s */
	int64_t lease = k1.tasks[0].lease_expires_us - (int64_t)time(NULL) * 1000000;
	assert_true(lease > 28000000 && lease <= 31000000);
	struct ct_claim k2 = pgt_claim(s, "w2", job, 5, 0);
	assert_int_equal(k2.n, 1);
	assert_true(k2.tasks[0].id != id);
	complete_ok(s, "w2", k2.tasks[0].id);
	ct_claim_free(&k2);

	/* w1's lease runs out: w2 gets the task, w1 can no longer complete */
	expire(s, id);
	k2 = pgt_claim(s, "w2", job, 5, 0);
	assert_int_equal(k2.n, 1);
	assert_int_equal(k2.tasks[0].id, id);
	/* an expiry, not a failed attempt: no retry used up */
	assert_int_equal(k2.tasks[0].retry_count, 0);
	char *why = task_field(s, id, "SELECT last_error || ', ' || expiries "
			       "FROM crawltop.tasks WHERE id = $1");
	assert_string_equal(why, "lease of w1 expired, 1");
	free(why);
	size_t done = 9;
	assert_int_equal(ct_store_complete(s, "w1", &id, 1, &done, &err), CT_EINVAL);
	assert_int_equal(done, 0);
	if (!strstr(err.msg, "not running under a live lease of worker 'w1'"))
		fail_msg("unclear: %s", err.msg);
	complete_ok(s, "w2", id);
	ct_claim_free(&k1);
	ct_claim_free(&k2);

	/* A real short lease, really expiring. */
	const char *q[] = {"/three"};
	enq(s, job, q, 1, NULL);
	k1 = pgt_claim(s, "w3", job, 1, 0.3);
	assert_int_equal(k1.n, 1);
	struct timespec ts = {0, 450 * 1000 * 1000};
	nanosleep(&ts, NULL);
	k2 = pgt_claim(s, "w4", job, 1, 0);
	assert_int_equal(k2.n, 1);
	assert_int_equal(k2.tasks[0].id, k1.tasks[0].id);
	complete_ok(s, "w4", k2.tasks[0].id);
	ct_claim_free(&k1);
	ct_claim_free(&k2);
}

static void complete_twice_refused(void **state)
{
	struct ct_store *s = *state;
	struct ct_error err = {{0}};
	int64_t job = pgt_job(s, "twice", "twice.example", 5, "fifo");
	const char *p[] = {"/x", "/y", "/z"};
	enq(s, job, p, 3, NULL);
	struct ct_claim k = pgt_claim(s, "w1", job, 3, 0);
	assert_int_equal(k.n, 3);
	int64_t ids[3] = {k.tasks[0].id, k.tasks[1].id, k.tasks[2].id};
	complete_ok(s, "w1", ids[0]);
	size_t done = 9;
	assert_int_equal(ct_store_complete(s, "w1", ids, 1, &done, &err), CT_EINVAL);
	assert_int_equal(done, 0);
	char want[128];
	snprintf(want, sizeof want, "1 of 1 tasks are not running under a live "
		 "lease of worker 'w1': %lld", (long long)ids[0]);
	if (!strstr(err.msg, want))
		fail_msg("unclear: %s", err.msg);
	/* another worker's task, an unknown id: refused; the good one passes */
	assert_int_equal(ct_store_complete(s, "w2", &ids[1], 1, &done, &err),
			 CT_EINVAL);
	int64_t mixed[3] = {ids[1], 987654321, ids[0]};
	assert_int_equal(ct_store_complete(s, "w1", mixed, 3, &done, &err),
			 CT_EINVAL);
	assert_int_equal(done, 1);
	if (!strstr(err.msg, "2 of 3 tasks") || !strstr(err.msg, "987654321"))
		fail_msg("unclear: %s", err.msg);
	complete_ok(s, "w1", ids[2]);
	/* an id given twice is one task: completed, and no refusal */
	const char *p2[] = {"/dup"};
	enq(s, job, p2, 1, NULL);
	struct ct_claim kd = pgt_claim(s, "w1", job, 1, 0);
	assert_int_equal(kd.n, 1);
	int64_t dup[2] = {kd.tasks[0].id, kd.tasks[0].id};
	done = 9;
	if (ct_store_complete(s, "w1", dup, 2, &done, &err) != CT_OK)
		fail_msg("the same id twice: %s", err.msg);
	assert_int_equal(done, 1);
	/* ... and refused twice, it is counted once */
	assert_int_equal(ct_store_complete(s, "w1", dup, 2, &done, &err), CT_EINVAL);
	assert_int_equal(done, 0);
	snprintf(want, sizeof want, "1 of 1 tasks are not running under a live "
		 "lease of worker 'w1': %lld", (long long)dup[0]);
	if (!strstr(err.msg, want))
		fail_msg("unclear: %s", err.msg);
	ct_claim_free(&kd);
	char jb[24];
	snprintf(jb, sizeof jb, "%lld", (long long)job);
	const char *pj[] = {jb};
	char *c = pgt_text(s, "SELECT count(*) FILTER (WHERE status = 'completed') "
			   "|| '/' || count(*) FROM crawltop.tasks WHERE job_id = $1",
			   1, pj);
	assert_string_equal(c, "4/4");
	free(c);
	ct_claim_free(&k);
}

static void fail_retries_then_failed(void **state)
{
	struct ct_store *s = *state;
	struct ct_error err = {{0}};
	int64_t job = pgt_job(s, "flaky", "flaky.example", 5, "fifo");
	const char *p[] = {"/flaky"};
	enq(s, job, p, 1, NULL);
	int64_t id = 0;
	/* default max_retries 3: three retries with backoff 10, 20, 40 s */
	static const double backoff[] = {10, 20, 40};
	for (int attempt = 0; attempt < 4; attempt++) {
		struct ct_claim k = pgt_claim(s, "w1", job, 1, 0);
		if (k.n != 1)
			fail_msg("attempt %d: nothing to claim", attempt + 1);
		if (id)
			assert_int_equal(k.tasks[0].id, id);
		id = k.tasks[0].id;
		assert_int_equal(k.tasks[0].retry_count, attempt);
		ct_claim_free(&k);
		size_t retried = 9, failed = 9;
		assert_int_equal(ct_store_fail(s, "w1", &id, 1, "HTTP 503",
					       &retried, &failed, &err), CT_OK);
		if (attempt == 3) {
			assert_int_equal(failed, 1);
			assert_int_equal(retried, 0);
			break;
		}
		assert_int_equal(retried, 1);
		assert_int_equal(failed, 0);
		/* waiting out its backoff: not claimable, not completable */
		char *st = task_field(s, id, "SELECT status || ' ' || "
			"(lease_owner IS NULL) || ' ' || round(extract(epoch FROM "
			"lease_expires_at - now()))::int FROM crawltop.tasks WHERE id = $1");
		char want[64];
		snprintf(want, sizeof want, "running true %d", (int)backoff[attempt]);
		assert_string_equal(st, want);
		free(st);
		k = pgt_claim(s, "w2", job, 1, 0);
		assert_int_equal(k.n, 0);
		size_t done;
		assert_int_equal(ct_store_complete(s, "w1", &id, 1, &done, &err),
				 CT_EINVAL);
		expire(s, id);
	}
	char *st = task_field(s, id, "SELECT status || ' ' || retry_count || ' ' || "
			      "last_error || ' ' || (completed_at IS NOT NULL) "
			      "FROM crawltop.tasks WHERE id = $1");
	assert_string_equal(st, "failed 3 HTTP 503 true");
	free(st);
	struct ct_claim k = pgt_claim(s, "w1", job, 1, 0);
	assert_int_equal(k.n, 0);
	/* failing it again is refused */
	assert_int_equal(ct_store_fail(s, "w1", &id, 1, NULL, NULL, NULL, &err),
			 CT_EINVAL);

	/* A vanished worker's expired lease is no failed attempt: with no
	 * retry left the task is handed out again. Expiries have their own
	 * limit (store.max_expiries): with 1, the second one fails it. */
	pgt_exec(s, "UPDATE crawltop.jobs SET max_retries = 0 WHERE name = 'flaky'");
	pgt_exec(s, "INSERT INTO crawltop.settings (value, note) SELECT "
		 "jsonb_set(value, '{store,max_expiries}', '1'), 'test' FROM "
		 "crawltop.settings ORDER BY version DESC LIMIT 1");
	const char *q[] = {"/gone"};
	enq(s, job, q, 1, NULL);
	k = pgt_claim(s, "w1", job, 1, 0);
	assert_int_equal(k.n, 1);
	int64_t gone = k.tasks[0].id;
	ct_claim_free(&k);
	expire(s, gone);
	struct ct_claim k2 = pgt_claim(s, "w2", job, 1, 0);
	assert_int_equal(k2.n, 1);
	assert_int_equal(k2.tasks[0].id, gone);
	assert_int_equal(k2.tasks[0].retry_count, 0);
	ct_claim_free(&k2);
	expire(s, gone);
	k2 = pgt_claim(s, "w3", job, 1, 0);
	assert_int_equal(k2.n, 0);
	st = task_field(s, gone, "SELECT status || ' ' || retry_count || ' ' "
			"|| expiries || ' ' || last_error FROM crawltop.tasks "
			"WHERE id = $1");
	assert_string_equal(st, "failed 0 2 lease of w2 expired (2 expiries, "
			    "store.max_expiries = 1)");
	free(st);
	/* a bad limit is refused, as every store key's */
	assert_int_not_equal(ct_store_exec(s, "test", "INSERT INTO "
					   "crawltop.settings (value) SELECT "
					   "jsonb_set(value, '{store,max_expiries}', "
					   "'-1') FROM crawltop.settings ORDER BY "
					   "version DESC LIMIT 1", &err), CT_OK);
	if (!strstr(err.msg, "store.max_expiries = -1 is not allowed: an "
		    "integer, 0..1000"))
		fail_msg("unclear: %s", err.msg);
}

/* worker's next claim of job is task id after `retries` failed attempts;
 * it completes it. */
static void next_is(struct ct_store *s, const char *worker, int64_t job,
		    int64_t id, int retries)
{
	struct ct_claim k = pgt_claim(s, worker, job, 1, 0);
	assert_int_equal(k.n, 1);
	assert_int_equal(k.tasks[0].id, id);
	assert_int_equal(k.tasks[0].retry_count, retries);
	ct_claim_free(&k);
	complete_ok(s, worker, id);
}

static void release_returns_task(void **state)
{
	struct ct_store *s = *state;
	struct ct_error err = {{0}};
	int64_t job = pgt_job(s, "rel", "rel.example", 5, "fifo");
	const char *p[] = {"/r"};
	enq(s, job, p, 1, NULL);
	struct ct_claim k = pgt_claim(s, "w1", job, 1, 0);
	int64_t id = k.tasks[0].id;
	size_t done;
	assert_int_equal(ct_store_release(s, "w2", &id, 1, &done, &err), CT_EINVAL);
	assert_int_equal(ct_store_release(s, "w1", &id, 1, &done, &err), CT_OK);
	assert_int_equal(done, 1);
	ct_claim_free(&k);
	next_is(s, "w2", job, id, 0);

	/* A lease that ran out is not the worker's to give back: the next
	 * claim counts the expiry (else a worker that overran and released
	 * would never use up its expiries). */
	const char *q[] = {"/late"};
	enq(s, job, q, 1, NULL);
	k = pgt_claim(s, "w1", job, 1, 0);
	assert_int_equal(k.n, 1);
	id = k.tasks[0].id;
	ct_claim_free(&k);
	expire(s, id);
	done = 9;
	assert_int_equal(ct_store_release(s, "w1", &id, 1, &done, &err), CT_EINVAL);
	assert_int_equal(done, 0);
	if (!strstr(err.msg, "not running under a live lease of worker 'w1'"))
		fail_msg("unclear: %s", err.msg);
	next_is(s, "w2", job, id, 0);
	char *n = task_field(s, id, "SELECT expiries FROM crawltop.tasks "
			     "WHERE id = $1");
	assert_string_equal(n, "1");
	free(n);
}

static void bad_claim_refused(void **state)
{
	struct ct_store *s = *state;
	struct ct_error err = {{0}};
	struct ct_claim k;
	int64_t job = pgt_job(s, "badclaim", "badclaim.example", 5, "fifo");
	const char *p[] = {"/b"};
	enq(s, job, p, 1, NULL);
	char *before = pgt_text(s, "SELECT string_agg(status, ',' ORDER BY id) "
				"FROM crawltop.tasks", 0, NULL);
	static const struct {
		const char *worker;
		int64_t job;
		int n;
		double lease;
		ct_status st;
		const char *state, *frag;
	} cases[] = {
		{"w'; --", 0, 1, 0, CT_EINVAL, "22023", "worker name 'w''; --' is not allowed"},
		{"", 0, 1, 0, CT_EINVAL, "22023", "worker name '' is not allowed"},
		{"w1", 0, 0, 0, CT_ERANGE, "22003", "claim size 0 is outside 1..10000"},
		{"w1", 0, 10001, 0, CT_ERANGE, "22003", "claim size 10001"},
		{"w1", 0, 1, -1, CT_ERANGE, "22003", "lease of -1 seconds"},
		{"w1", 0, 1, NAN, CT_ERANGE, "22003", "lease of NaN seconds"},
		/* over before the claim commits: no worker could complete it */
		{"w1", 0, 1, 1e-300, CT_ERANGE, "22003", "seconds is outside 0.01..86400"},
		{"w1", 0, 1, 0.009, CT_ERANGE, "22003", "lease of 0.009 seconds"},
		{"w1", 0, 1, 86401, CT_ERANGE, "22003", "lease of 86401 seconds"},
		{"w1", 777777, 1, 0, CT_ENOENT, "P0002", "job 777777 does not exist"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		ct_status st = ct_store_claim(s, cases[i].worker, cases[i].job,
					      cases[i].n, cases[i].lease, &k, &err);
		if (st != cases[i].st || strcmp(ct_store_sqlstate(s), cases[i].state) ||
		    !strstr(err.msg, cases[i].frag) || !strstr(err.msg, "claim: "))
			fail_msg("case %zu: got %s/%s: %s", i, ct_status_str(st),
				 ct_store_sqlstate(s), err.msg);
		assert_int_equal(k.n, 0);
	}
	/* complete, fail and release check the name as claim does */
	static const char *const bad_workers[] = {"w'; --", "", NULL};
	int64_t any = 1;
	for (size_t i = 0; i < 3; i++) {
		for (int op = 0; op < 3; op++) {
			size_t done = 9;
			ct_status st = op == 0 ? ct_store_complete(s, bad_workers[i], &any, 1, &done, &err)
				: op == 1 ? ct_store_fail(s, bad_workers[i], &any, 1, "x", NULL, NULL, &err)
				: ct_store_release(s, bad_workers[i], &any, 1, &done, &err);
			if (st != CT_EINVAL || strcmp(ct_store_sqlstate(s), "22023") ||
			    !strstr(err.msg, "is not allowed"))
				fail_msg("worker %zu, op %d: got %s/%s: %s", i, op,
					 ct_status_str(st), ct_store_sqlstate(s), err.msg);
		}
	}
	/* the reaper refuses a negative limit, also when nothing expired */
	assert_int_not_equal(ct_store_exec(s, "test", "SELECT "
					   "crawltop.reap_expired(-1)", &err), CT_OK);
	assert_string_equal(ct_store_sqlstate(s), "22003");
	if (!strstr(err.msg, "reap limit -1 is negative"))
		fail_msg("reap_expired(-1): %s", err.msg);
	char *after = pgt_text(s, "SELECT string_agg(status, ',' ORDER BY id) "
			       "FROM crawltop.tasks", 0, NULL);
	assert_string_equal(before, after);
	free(before);
	free(after);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(claim_order_across_jobs, fresh, pgt_close),
		cmocka_unit_test_setup_teardown(explain_shows_index_scan_no_sort, fresh, pgt_close),
		cmocka_unit_test_setup_teardown(lease_expiry_reclaim, fresh, pgt_close),
		cmocka_unit_test_setup_teardown(lease_follows_settings, fresh, pgt_close),
		cmocka_unit_test_setup_teardown(complete_twice_refused, fresh, pgt_close),
		cmocka_unit_test_setup_teardown(fail_retries_then_failed, fresh, pgt_close),
		cmocka_unit_test_setup_teardown(release_returns_task, fresh, pgt_close),
		cmocka_unit_test_setup_teardown(bad_claim_refused, fresh, pgt_close),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
