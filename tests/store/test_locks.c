/* test_locks.c: what two sessions at once may not do to each other
 * (0002 enqueue, 0005 release and reap_expired against set_job_state and
 * enqueue).
 *
 * Each test holds a transaction open in one session, sends the other
 * session's call without waiting for it (libpq's asynchronous API), and
 * checks, through a third session, whether that call waits for a lock;
 * then it finishes both and checks the rows:
 *   - a task released, or reaped, while its job is being cancelled or
 *     paused ends as the job change says (skipped; held back at priority
 *     + 100), never pending and claimable in a cancelled or paused job;
 *   - enqueue of duplicates waits for no task that a completion holds
 *     (it locks only the pending tasks whose score rises, in task id
 *     order, as complete and release do), so the two cannot deadlock
 *     when task id order and page id order differ;
 *   - the reaper and release do not wait for an enqueue's hold on the job
 *     row, so an enqueue that reports their tasks' pages again
 *     cannot deadlock with them; the reaper skips a job a change holds
 *     (0029) instead of waiting for it;
 *   - a job deleted while tasks are added to it (0001's reference check
 *     instead of a foreign key) loses them with it, or they are refused. */
#include <inttypes.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>
#include <libpq-fe.h>

#include "crawltop/settings.h"
#include "pgtest.h"
#include "rank_ops.h"

/* A plain libpq session on database db. */
static PGconn *session(const char *db)
{
	PGconn *c = PQconnectdb(pgt_dsn(db));
	if (PQstatus(c) != CONNECTION_OK)
		fail_msg("connect: %s", PQerrorMessage(c));
	return c;
}

/* Run sql, which must succeed; returns its first value (static buffer,
 * "" for none). */
static const char *run(PGconn *c, const char *sql)
{
	static char out[256];
	PGresult *r = PQexec(c, sql);
	ExecStatusType st = PQresultStatus(r);
	if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK)
		fail_msg("%s: %s", sql, PQresultErrorMessage(r));
	snprintf(out, sizeof out, "%s", PQntuples(r) > 0 && PQnfields(r) > 0 ?
		 PQgetvalue(r, 0, 0) : "");
	PQclear(r);
	return out;
}

/* Whether session `pid` is waiting for a lock, as `watch` sees it, within
 * 5 s; 0 when it finished (or never waited) instead. */
static int waits_for_lock(PGconn *watch, PGconn *c)
{
	char sql[200];
	snprintf(sql, sizeof sql, "SELECT count(*) FROM pg_stat_activity WHERE "
		 "pid = %d AND wait_event_type = 'Lock'", PQbackendPID(c));
	for (int i = 0; i < 500; i++) {
		if (atoi(run(watch, sql)) == 1)
			return 1;
		if (!PQconsumeInput(c))
			fail_msg("consume: %s", PQerrorMessage(c));
		if (!PQisBusy(c))
			return 0;
		struct timespec ts = {0, 10 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
	return 0;
}

/* The result of the query sent on c: it must have succeeded. */
static void finish_ok(PGconn *c, const char *what)
{
	PGresult *r;
	int ok = 1;
	char err[512] = "";
	while ((r = PQgetResult(c)) != NULL) {
		ExecStatusType st = PQresultStatus(r);
		if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
			ok = 0;
			snprintf(err, sizeof err, "%s", PQresultErrorMessage(r));
		}
		PQclear(r);
	}
	if (!ok)
		fail_msg("%s failed: %s", what, err);
}

/* The result of the query sent on c: it must have failed with SQLSTATE
 * code. */
static void finish_refused(PGconn *c, const char *code)
{
	PGresult *r;
	char got[6] = "";
	while ((r = PQgetResult(c)) != NULL) {
		const char *e = PQresultErrorField(r, PG_DIAG_SQLSTATE);
		if (e)
			snprintf(got, sizeof got, "%s", e);
		PQclear(r);
	}
	assert_string_equal(got, code);
}

/* Three sessions on a new migrated database db: a and b for the two
 * sides, w to set up, watch and check. */
struct trio {
	PGconn *a, *b, *w;
};

static struct trio trio_open(const char *db)
{
	ct_store_close(pgt_fresh(db, 1));
	return (struct trio){session(db), session(db), session(db)};
}

static void trio_close(struct trio *t)
{
	PQfinish(t->a);
	PQfinish(t->b);
	PQfinish(t->w);
}

/* With a's transaction open, send sql on b; commit a and wait for b's
 * result, which must succeed. Returns whether b waited for a lock. */
static int b_during_a(struct trio *t, const char *sql, const char *what)
{
	assert_true(PQsendQuery(t->b, sql));
	int waited = waits_for_lock(t->w, t->b);
	run(t->a, "COMMIT");
	finish_ok(t->b, what);
	return waited;
}

/* A job (fifo, priority 3) with n tasks /t1 .. /tn, created on s. */
static int64_t job_with_tasks(PGconn *s, const char *name, int n)
{
	char sql[400];
	snprintf(sql, sizeof sql, "SELECT crawltop.create_job('%s', '%s.example', "
		 "3, 'fifo')", name, name);
	int64_t job = strtoll(run(s, sql), NULL, 10);
	snprintf(sql, sizeof sql, "SELECT count(*) FROM crawltop.enqueue(%" PRId64
		 ", ARRAY(SELECT '/t' || g FROM generate_series(1, %d) g))", job, n);
	run(s, sql);
	return job;
}

/* Claim one task of job for worker w with a lease of lease seconds;
 * returns its id. */
static long long claim_one(PGconn *s, const char *w, int64_t job, double lease)
{
	char sql[200];
	snprintf(sql, sizeof sql, "SELECT task_id FROM crawltop.claim('%s', 1, %"
		 PRId64 ", %g)", w, job, lease);
	return atoll(run(s, sql));
}

/* A task given back while its job is cancelled: the cancel waits for the
 * release, then skips the task with the job's other pending ones. */
static void release_then_cancel(void **state)
{
	(void)state;
	struct trio t = trio_open("ct_locks_rc");
	int64_t job = job_with_tasks(t.w, "rc", 3);
	long long task = claim_one(t.w, "wa", job, 30);
	char sql[300];
	run(t.a, "BEGIN");
	snprintf(sql, sizeof sql, "SELECT count(*) FROM crawltop.release('wa', "
		 "ARRAY[%lld])", task);
	assert_string_equal(run(t.a, sql), "1");
	snprintf(sql, sizeof sql, "SELECT crawltop.set_job_state(%" PRId64
		 ", 'cancel')", job);
	int waited = b_during_a(&t, sql, "cancel");
	snprintf(sql, sizeof sql, "SELECT status FROM crawltop.tasks WHERE id = %lld",
		 task);
	assert_string_equal(run(t.w, sql), "skipped");
	snprintf(sql, sizeof sql, "SELECT count(*) FROM crawltop.tasks WHERE "
		 "job_id = %" PRId64 " AND status = 'pending'", job);
	assert_string_equal(run(t.w, sql), "0");
	assert_true(waited);
	assert_string_equal(run(t.w, "SELECT count(*) FROM crawltop.claim('wb', 10)"),
			    "0");
	trio_close(&t);
}

/* An expired lease reaped while its job is paused: the pause waits, then
 * holds the reaped task back with the others (priority + 100). */
static void reap_then_pause(void **state)
{
	(void)state;
	struct trio t = trio_open("ct_locks_rp");
	int64_t job = job_with_tasks(t.w, "rp", 3);
	long long task = claim_one(t.w, "wa", job, 0.05);
	run(t.w, "SELECT pg_sleep(0.2)");
	run(t.a, "BEGIN");
	assert_string_equal(run(t.a, "SELECT crawltop.reap_expired(100)"), "1");
	char sql[300];
	snprintf(sql, sizeof sql, "SELECT crawltop.set_job_state(%" PRId64
		 ", 'pause')", job);
	int waited = b_during_a(&t, sql, "pause");
	snprintf(sql, sizeof sql, "SELECT status || ' ' || job_priority FROM "
		 "crawltop.tasks WHERE id = %lld", task);
	assert_string_equal(run(t.w, sql), "pending 103");
	assert_true(waited);
	assert_string_equal(run(t.w, "SELECT count(*) FROM crawltop.claim('wb', 10)"),
			    "0");
	trio_close(&t);
}

/* A job a change holds FOR UPDATE (set_job_priority and set_job_state
 * lock the job, then its tasks): the reaper, which locks expired tasks
 * first, skips that job's tasks instead of waiting for its row while
 * holding them, a cycle with the change (0029; deadlock detection rolled
 * back a claim that reaped, test store_stats now and then). Once the
 * change commits, the next reap takes them. */
static void reap_skips_a_job_a_change_holds(void **state)
{
	(void)state;
	struct trio t = trio_open("ct_locks_rs");
	int64_t job = job_with_tasks(t.w, "rs", 3);
	long long task = claim_one(t.w, "wa", job, 0.05);
	run(t.w, "SELECT pg_sleep(0.2)");
	char sql[300];
	run(t.a, "BEGIN");
	snprintf(sql, sizeof sql, "SELECT id FROM crawltop.jobs WHERE id = %"
		 PRId64 " FOR UPDATE", job);
	run(t.a, sql);
	assert_true(PQsendQuery(t.b, "SELECT crawltop.reap_expired(100)"));
	int waited = waits_for_lock(t.w, t.b);
	PGresult *r = PQgetResult(t.b);
	char got[32] = "";
	if (PQresultStatus(r) == PGRES_TUPLES_OK)
		snprintf(got, sizeof got, "%s", PQgetvalue(r, 0, 0));
	else
		snprintf(got, sizeof got, "%.31s", PQresultErrorMessage(r));
	PQclear(r);
	while ((r = PQgetResult(t.b)) != NULL)
		PQclear(r);
	run(t.a, "COMMIT");
	assert_false(waited);
	assert_string_equal(got, "0");
	assert_string_equal(run(t.b, "SELECT crawltop.reap_expired(100)"), "1");
	snprintf(sql, sizeof sql, "SELECT status FROM crawltop.tasks WHERE id = "
		 "%lld", task);
	assert_string_equal(run(t.w, sql), "pending");
	trio_close(&t);
}

/* Two running tasks whose task id order is the reverse of their page id
 * order. Session a completes the first (by id) and keeps its transaction
 * open; b enqueues both paths again (duplicates, neither of which can
 * rise: running tasks are not raised); then a completes the second. b
 * locks no task and waits for none: its probe of the existing tasks is a
 * plain read, and its insert is of the pages found without a task. (With
 * ON CONFLICT, the insert's unique check waited for a's transaction;
 * before that, every duplicate was locked, and in page order that was a
 * deadlock with a.) */
static void enqueue_of_duplicates_waits_for_no_task(void **state)
{
	(void)state;
	struct trio t = trio_open("ct_locks_eq");
	PGconn *a = t.a, *b = t.b, *w = t.w;
	/* pages /p2 then /p1 (page ids ascending) in one domain ... */
	int64_t j1 = strtoll(run(w, "SELECT crawltop.create_job('eq1', "
				 "'eq.example', 3, 'fifo')"), NULL, 10);
	int64_t j2 = strtoll(run(w, "SELECT crawltop.create_job('eq2', "
				 "'eq.example', 3, 'fifo')"), NULL, 10);
	char sql[400];
	snprintf(sql, sizeof sql, "SELECT count(*) FROM crawltop.enqueue(%" PRId64
		 ", ARRAY['/p2'])", j1);
	run(w, sql);
	snprintf(sql, sizeof sql, "SELECT count(*) FROM crawltop.enqueue(%" PRId64
		 ", ARRAY['/p1'])", j1);
	run(w, sql);
	/* ... and job eq2's tasks created /p1 first: task ids ascend as page
	 * ids descend */
	snprintf(sql, sizeof sql, "SELECT count(*) FROM crawltop.enqueue(%" PRId64
		 ", ARRAY['/p1'])", j2);
	run(w, sql);
	snprintf(sql, sizeof sql, "SELECT count(*) FROM crawltop.enqueue(%" PRId64
		 ", ARRAY['/p2'])", j2);
	run(w, sql);
	snprintf(sql, sizeof sql, "WITH x AS (SELECT p.path, p.id AS page, "
		 "t.id AS task FROM crawltop.tasks t JOIN crawltop.pages p ON "
		 "p.id = t.page_id WHERE t.job_id = %" PRId64 ") SELECT (SELECT "
		 "task FROM x WHERE path = '/p1') < (SELECT task FROM x WHERE "
		 "path = '/p2') AND (SELECT page FROM x WHERE path = '/p1') > "
		 "(SELECT page FROM x WHERE path = '/p2')", j2);
	assert_string_equal(run(w, sql), "t");
	snprintf(sql, sizeof sql, "SELECT string_agg(task_id::text, ' ' ORDER BY "
		 "task_id) FROM crawltop.claim('wa', 2, %" PRId64 ", 30)", j2);
	long long first, second;
	assert_int_equal(sscanf(run(w, sql), "%lld %lld", &first, &second), 2);

	run(a, "BEGIN");
	snprintf(sql, sizeof sql, "SELECT count(*) FROM crawltop.complete('wa', "
		 "ARRAY[%lld])", first);
	assert_string_equal(run(a, sql), "1");
	/* b goes through while a holds the first task: a wait would end
	 * with the statement timeout */
	run(b, "SET statement_timeout = '3s'");
	snprintf(sql, sizeof sql, "SELECT inserted || ' ' || raised FROM "
		 "crawltop.enqueue(%" PRId64 ", ARRAY['/p1', '/p2'])", j2);
	assert_string_equal(run(b, sql), "0 0");
	snprintf(sql, sizeof sql, "SELECT count(*) FROM crawltop.complete('wa', "
		 "ARRAY[%lld])", second);
	assert_string_equal(run(a, sql), "1");
	run(a, "COMMIT");
	snprintf(sql, sizeof sql, "SELECT string_agg(status, ' ') FROM "
		 "crawltop.tasks WHERE job_id = %" PRId64, j2);
	assert_string_equal(run(w, sql), "completed completed");
	trio_close(&t);
}

/* An enqueue holds its job row (it keeps total_pages) while it reports
 * pages; the reaper and release hold the job rows of their tasks while
 * they put them back. Reaper: session b reaps an expired task while a's
 * enqueue holds the job, then a reports that task's page again (which
 * locks the task). With the reaper waiting for the job row holding the
 * task, that was a deadlock; now b does not wait, and a goes through.
 * Release: the same with a task given back. */
static void reap_and_release_during_enqueue(void **state)
{
	(void)state;
	struct trio t = trio_open("ct_locks_re");
	int64_t job = job_with_tasks(t.w, "re", 3);
	/* /t1 for wb, then /t2 for wa (a later claim could reap /t2 and
	 * take it again) */
	long long released = claim_one(t.w, "wb", job, 30);
	long long reaped = claim_one(t.w, "wa", job, 0.05);
	run(t.w, "SELECT pg_sleep(0.2)");
	char sql[300];

	run(t.a, "BEGIN");
	run(t.a, "SET statement_timeout = '5s'");
	snprintf(sql, sizeof sql, "SELECT count(*) FROM crawltop.enqueue(%" PRId64
		 ", ARRAY['/new1'])", job);
	run(t.a, sql);
	assert_true(PQsendQuery(t.b, "SELECT crawltop.reap_expired(100)"));
	assert_false(waits_for_lock(t.w, t.b));
	finish_ok(t.b, "reap during an enqueue");
	/* the enqueue reports the reaped task's page: a duplicate */
	snprintf(sql, sizeof sql, "SELECT count(*) FROM crawltop.enqueue(%" PRId64
		 ", ARRAY['/t2', '/new2'])", job);
	run(t.a, sql);
	run(t.a, "COMMIT");
	snprintf(sql, sizeof sql, "SELECT status || ' ' || expiries FROM "
		 "crawltop.tasks WHERE id = %lld", reaped);
	assert_string_equal(run(t.w, sql), "pending 1");

	run(t.a, "BEGIN");
	snprintf(sql, sizeof sql, "SELECT count(*) FROM crawltop.enqueue(%" PRId64
		 ", ARRAY['/new3'])", job);
	run(t.a, sql);
	snprintf(sql, sizeof sql, "SELECT count(*) FROM crawltop.release('wb', "
		 "ARRAY[%lld])", released);
	assert_true(PQsendQuery(t.b, sql));
	assert_false(waits_for_lock(t.w, t.b));
	finish_ok(t.b, "release during an enqueue");
	snprintf(sql, sizeof sql, "SELECT count(*) FROM crawltop.enqueue(%" PRId64
		 ", ARRAY['/t1'])", job);
	run(t.a, sql);
	run(t.a, "COMMIT");
	snprintf(sql, sizeof sql, "SELECT status || ' ' || retry_count FROM "
		 "crawltop.tasks WHERE id = %lld", released);
	assert_string_equal(run(t.w, sql), "pending 0");
	snprintf(sql, sizeof sql, "SELECT total_pages FROM crawltop.jobs WHERE "
		 "id = %" PRId64, job);
	assert_string_equal(run(t.w, sql), "6");
	trio_close(&t);
}

/* Whether a session whose query names `name` waits for a lock, as `watch`
 * sees it, within 5 s (a session of another thread: no PGconn here). */
static int query_waits(PGconn *watch, const char *name)
{
	char sql[200];
	snprintf(sql, sizeof sql, "SELECT count(*) FROM pg_stat_activity WHERE "
		 "wait_event_type = 'Lock' AND query LIKE '%%%s%%'", name);
	for (int i = 0; i < 500; i++) {
		if (atoi(run(watch, sql)) > 0)
			return 1;
		run(watch, "SELECT pg_sleep(0.01)");
	}
	return 0;
}

/* Session a opens a transaction holding task id as a crawl's would
 * (FOR NO KEY UPDATE), and checks for deadlocks only after 30 s, so that
 * the other party of a cycle is the one PostgreSQL rolls back (with the
 * default 1 s, on a loaded machine a's check could run first). */
static void hold_task(PGconn *a, long long id)
{
	char sql[200];
	run(a, "SET deadlock_timeout = '30s'");
	run(a, "BEGIN");
	snprintf(sql, sizeof sql, "SELECT id FROM crawltop.tasks WHERE id = %lld "
		 "FOR NO KEY UPDATE", id);
	run(a, sql);
}

/* A ranking run on a thread of its own (ct_store_rank, batches of 100). */
struct ranker {
	char dsn[1024];
	int64_t job;
	ct_status st;
	struct ct_rank_result res;
	struct ct_error err;
};

static void *ranker_main(void *arg)
{
	struct ranker *r = arg;
	struct ct_store *s;
	if ((r->st = ct_store_open(r->dsn, &s, &r->err)) != CT_OK)
		return NULL;
	struct ct_settings set;
	ct_settings_default(&set);
	struct ct_rank_opts o = {.settings = &set, .job_id = r->job,
				 .batch = 100};
	r->st = ct_store_rank(s, &o, &r->res, &r->err);
	ct_store_close(s);
	return NULL;
}

/* A crawl's transaction need not lock tasks in id order (a worker that
 * enqueues its page's links, locking a duplicate's task, and then
 * completes its own, lower, task). Session a holds /t2 and then asks for
 * /t1, which a ranking batch holds while it waits for /t2: a deadlock,
 * which PostgreSQL breaks by rolling back the batch (a checks late).
 * The run tries the batch again and succeeds; it does not fail. */
static void rank_batch_retried_after_a_deadlock(void **state)
{
	(void)state;
	struct trio t = trio_open("ct_locks_rd");
	int64_t job = strtoll(run(t.w, "SELECT crawltop.create_job('rd', "
				  "'rd.example', 3, 'discovery')"), NULL, 10);
	char sql[400];
	snprintf(sql, sizeof sql, "SELECT count(*) FROM crawltop.enqueue(%" PRId64
		 ", ARRAY['/t1', '/t2', '/t3'], 'link', NULL, 1, NULL, NULL, NULL, "
		 "ARRAY[40, 40, 40]::float8[])", job);
	run(t.w, sql);
	snprintf(sql, sizeof sql, "SELECT min(id) || ' ' || max(id) FROM "
		 "crawltop.tasks WHERE job_id = %" PRId64 " AND id < (SELECT "
		 "max(id) FROM crawltop.tasks)", job);
	long long t1, t2;
	assert_int_equal(sscanf(run(t.w, sql), "%lld %lld", &t1, &t2), 2);

	/* the batch is to be the one rolled back: session a checks for a
	 * deadlock only after 30 s, the batch after the default 1 s (on a
	 * loaded machine a's check could otherwise run first) */
	hold_task(t.a, t2);
	struct ranker r = {.job = job};
	snprintf(r.dsn, sizeof r.dsn, "%s", pgt_dsn("ct_locks_rd"));
	pthread_t th;
	assert_int_equal(pthread_create(&th, NULL, ranker_main, &r), 0);
	/* the batch holds /t1 and waits for /t2 */
	assert_true(query_waits(t.w, "rank_lock"));
	snprintf(sql, sizeof sql, "SELECT id FROM crawltop.tasks WHERE id = %lld "
		 "FOR NO KEY UPDATE", t1);
	assert_true(PQsendQuery(t.a, sql));
	finish_ok(t.a, "the crawl's transaction");
	run(t.a, "COMMIT");
	assert_int_equal(pthread_join(th, NULL), 0);
	if (r.st != CT_OK)
		fail_msg("rank: %s", r.err.msg);
	assert_true(r.res.retried >= 1);
	/* 3 tasks in batches of 100: one batch committed (the empty fetch
	 * that ends the run is none) */
	assert_int_equal(r.res.batches, 1);
	assert_int_equal(r.res.ranked + r.res.unranked, 3);
	snprintf(sql, sizeof sql, "SELECT count(*) FROM crawltop.run_manifest "
		 "WHERE job_id = %" PRId64, job);
	assert_string_equal(run(t.w, sql), "1");
	trio_close(&t);
}

/* A job change through the C API on a thread of its own. */
struct changer {
	char dsn[1024];
	int64_t job;
	ct_status st;
	long rows;
	struct ct_error err;
};

static void *changer_main(void *arg)
{
	struct changer *c = arg;
	struct ct_store *s;
	if ((c->st = ct_store_open(c->dsn, &s, &c->err)) != CT_OK)
		return NULL;
	/* it checks for a deadlock after 2 s: long enough for the test to
	 * close the cycle first, so that it is the one rolled back */
	c->st = ct_store_exec(s, "timeout", "SET deadlock_timeout = '2s'",
			      &c->err);
	if (c->st == CT_OK)
		c->st = ct_store_job_set_priority(s, c->job, 4, &c->rows,
						  &c->err);
	ct_store_close(s);
	return NULL;
}

/* A job change that PostgreSQL rolls back to break a deadlock changed
 * nothing and is made again by the C API. Session a holds a pending
 * task; the change locks the job row and waits for that task; a then
 * asks for the job row: a cycle, which the change (checking first) is
 * rolled back to break. a goes on and commits, and the change, made
 * again, goes through. */
static void job_change_retried_after_a_deadlock(void **state)
{
	(void)state;
	struct trio t = trio_open("ct_locks_jd");
	int64_t job = job_with_tasks(t.w, "jd", 3);
	char sql[300];
	snprintf(sql, sizeof sql, "SELECT min(id) FROM crawltop.tasks WHERE "
		 "job_id = %" PRId64, job);
	long long t1 = atoll(run(t.w, sql));

	hold_task(t.a, t1);
	struct changer c = {.job = job};
	snprintf(c.dsn, sizeof c.dsn, "%s", pgt_dsn("ct_locks_jd"));
	pthread_t th;
	assert_int_equal(pthread_create(&th, NULL, changer_main, &c), 0);
	assert_true(query_waits(t.w, "set_job_priority"));
	snprintf(sql, sizeof sql, "SELECT id FROM crawltop.jobs WHERE id = %"
		 PRId64 " FOR KEY SHARE", job);
	assert_true(PQsendQuery(t.a, sql));
	finish_ok(t.a, "the other session's lock of the job row");
	run(t.a, "COMMIT");
	assert_int_equal(pthread_join(th, NULL), 0);
	if (c.st != CT_OK)
		fail_msg("set job priority: %s", c.err.msg);
	assert_int_equal(c.rows, 3);
	snprintf(sql, sizeof sql, "SELECT priority || ' ' || (SELECT count(*) "
		 "FROM crawltop.audit_log WHERE action = 'job.priority') FROM "
		 "crawltop.jobs WHERE id = %" PRId64, job);
	assert_string_equal(run(t.w, sql), "4 1");
	trio_close(&t);
}

/* A job `name` with 2 tasks, created on w, and the two statements that
 * race: ins adds a task for a new page of the job's domain (a plain
 * INSERT, not enqueue, which would hold the job row anyway), del deletes
 * the job. Returns the job. */
static int64_t delete_race(PGconn *w, const char *name, char *ins,
			   char *del, size_t n)
{
	int64_t job = job_with_tasks(w, name, 2);
	char sql[300];
	snprintf(sql, sizeof sql, "INSERT INTO crawltop.pages (domain_id, path) "
		 "SELECT domain_id, '/new' FROM crawltop.jobs WHERE id = %" PRId64
		 " RETURNING id", job);
	long long page = atoll(run(w, sql));
	snprintf(ins, n, "INSERT INTO crawltop.tasks (job_id, page_id, "
		 "job_priority) VALUES (%" PRId64 ", %lld, 3)", job, page);
	snprintf(del, n, "DELETE FROM crawltop.jobs WHERE id = %" PRId64, job);
	return job;
}

/* A job deleted while another transaction adds a task to it: the task's
 * reference check holds the job FOR KEY SHARE, so the DELETE waits, and
 * then deletes that task too. Without the lock it would not wait, and the
 * new task would outlive its job. */
static void job_delete_waits_for_new_tasks(void **state)
{
	(void)state;
	struct trio t = trio_open("ct_locks_jd");
	char ins[300], del[300], sql[300];
	int64_t job = delete_race(t.w, "jd", ins, del, sizeof ins);
	run(t.a, "BEGIN");
	run(t.a, ins);
	assert_true(b_during_a(&t, del, "delete"));
	snprintf(sql, sizeof sql, "SELECT count(*) FROM crawltop.tasks WHERE "
		 "job_id = %" PRId64, job);
	assert_string_equal(run(t.w, sql), "0");
	trio_close(&t);
}

/* The other way round: a task added to a job whose DELETE has not
 * committed waits for it, and is then refused (23503), as a foreign key
 * refuses it. */
static void task_of_a_deleted_job_refused(void **state)
{
	(void)state;
	struct trio t = trio_open("ct_locks_jt");
	char ins[300], del[300];
	delete_race(t.w, "jt", ins, del, sizeof ins);
	run(t.a, "BEGIN");
	run(t.a, del);
	assert_true(PQsendQuery(t.b, ins));
	assert_true(waits_for_lock(t.w, t.b));
	run(t.a, "COMMIT");
	finish_refused(t.b, "23503");
	assert_string_equal(run(t.w, "SELECT count(*) FROM crawltop.tasks"), "0");
	trio_close(&t);
}

/* Two jobs deleted one after the other in one transaction while another
 * adds tasks to both in one INSERT: the INSERT's check locks the jobs in
 * id order, so it waits at the first, holding nothing the second DELETE
 * needs; the DELETEs go through and the INSERT is refused (23503). (In
 * hash order it locked the second job first and waited for the first: a
 * deadlock.) */
static void insert_for_two_jobs_during_their_delete(void **state)
{
	(void)state;
	struct trio t = trio_open("ct_locks_j2");
	int64_t lo = 0, hi = 0;
	char sql[600];
	/* jobs 32 and 33 with 5 new pages each: a pair that a hash
	 * aggregate hands out as 33, 32 (a deadlock before the fix) */
	for (int i = 1; i <= 40; i++) {
		snprintf(sql, sizeof sql, "j%d", i);
		int64_t id = job_with_tasks(t.w, sql, 1);
		if (i == 32)
			lo = id;
		if (i == 33)
			hi = id;
	}
	snprintf(sql, sizeof sql, "INSERT INTO crawltop.pages (domain_id, path) "
		 "SELECT domain_id, '/new' || g FROM crawltop.jobs, "
		 "generate_series(1, 5) g WHERE id IN (%" PRId64 ", %" PRId64 ")",
		 lo, hi);
	run(t.w, sql);
	run(t.a, "BEGIN");
	snprintf(sql, sizeof sql, "DELETE FROM crawltop.jobs WHERE id = %" PRId64,
		 lo);
	run(t.a, sql);
	snprintf(sql, sizeof sql, "INSERT INTO crawltop.tasks (job_id, page_id, "
		 "job_priority) SELECT j.id, p.id, 3 FROM crawltop.jobs j JOIN "
		 "crawltop.pages p ON p.domain_id = j.domain_id AND p.path LIKE "
		 "'/new%%' WHERE j.id IN (%" PRId64 ", %" PRId64 ") ORDER BY j.id, "
		 "p.id",
		 lo, hi);
	assert_true(PQsendQuery(t.b, sql));
	assert_true(waits_for_lock(t.w, t.b));
	snprintf(sql, sizeof sql, "DELETE FROM crawltop.jobs WHERE id = %" PRId64,
		 hi);
	run(t.a, sql);
	run(t.a, "COMMIT");
	finish_refused(t.b, "23503");
	trio_close(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(release_then_cancel),
		cmocka_unit_test(reap_then_pause),
		cmocka_unit_test(reap_skips_a_job_a_change_holds),
		cmocka_unit_test(enqueue_of_duplicates_waits_for_no_task),
		cmocka_unit_test(reap_and_release_during_enqueue),
		cmocka_unit_test(rank_batch_retried_after_a_deadlock),
		cmocka_unit_test(job_change_retried_after_a_deadlock),
		cmocka_unit_test(job_delete_waits_for_new_tasks),
		cmocka_unit_test(task_of_a_deleted_job_refused),
		cmocka_unit_test(insert_for_two_jobs_during_their_delete),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
