/* test_stats.c: the live counters and their read API (0007_counters.sql).
 *
 * After every kind of change (enqueue, duplicate raise, claim, complete,
 * fail, retry, release, lease expiry, reprioritisation, pause, resume,
 * cancel, boost, demote, ranking, direct updates, deletes, a job deleted
 * with its tasks, compaction, rebuild, TRUNCATE) the counters equal a plain
 * GROUP BY over tasks for every job, dimension and key, and so do
 * dashboard_cells and dashboard_jobs; the same holds after threads changed
 * tasks concurrently. Writers holding open transactions do not wait for
 * each other's counter rows. The reads never touch tasks (auto_explain on
 * the statements they run). Rates count claims and completions per second
 * and rate_ticks stays bounded. next_tasks lists what claims hand out. The
 * result shapes are the documented ones. Failed attempts waiting for a
 * retry count as retrying, never as running, in every read. Every read
 * shows a job's status derived from its tasks (running, retrying,
 * completed), paused and cancelled as
 * stored. */
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

#include "cli_ops.h"
#include "counts.h"
#include "pgtest.h"
#include "stats.h"

/* The writer shards (slots 1..32 of crawltop.counter_slots) that some
 * transaction holds: the ones this autocommit statement cannot lock. */
#define SHARDS_HELD "SELECT 32 - count(*) FROM (SELECT 1 FROM " \
	"crawltop.counter_slots WHERE shard BETWEEN 1 AND 32 FOR UPDATE " \
	"SKIP LOCKED) x"
/* The shard slots this transaction holds: the rows whose xmax is its id. */
#define MY_SHARDS "SELECT count(*) FROM crawltop.counter_slots WHERE " \
	"xmax::text = (pg_current_xact_id()::text::bigint % 4294967296)::text"

static int fresh(void **state)
{
	*state = pgt_fresh("ct_stats", 1);
	return 0;
}

static int close_store(void **state)
{
	ct_store_close(*state);
	return 0;
}

static void sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

/* Enqueue paths prefix0..prefix(n-1) into job with the given attributes;
 * scores (may be NULL) are i * score_step % 101. Returns tasks inserted. */
static long enq(struct ct_store *s, int64_t job, const char *prefix, int n,
		double score_step, int depth, const char *type,
		const char *method)
{
	static char names[1000][48];
	const char *paths[1000];
	double scores[1000];
	assert_true(n <= 1000);
	for (int i = 0; i < n; i++) {
		snprintf(names[i], sizeof names[i], "%s%d", prefix, i);
		paths[i] = names[i];
		scores[i] = (double)((long)(i * score_step) % 101);
	}
	struct ct_enqueue_batch b = CT_ENQUEUE_BATCH_INIT;
	b.job_id = job;
	b.paths = paths;
	b.n = (size_t)n;
	b.scores = score_step > 0 ? scores : NULL;
	b.source = CT_SRC_SITEMAP;
	b.depth = depth;
	b.type = type;
	b.discovery_method = method;
	return pgt_enqueue_batch(s, &b).inserted;
}

/* ids of c[from, to) into ids; returns to - from. */
static size_t ids_of(const struct ct_claim *c, size_t from, size_t to,
		     int64_t *ids)
{
	for (size_t i = from; i < to; i++)
		ids[i - from] = c->tasks[i].id;
	return to - from;
}

static void counters_follow_every_change(void **state)
{
	struct ct_store *s = *state;
	struct ct_error err = {{0}};
	int64_t a = pgt_job(s, "a", "a.example", 5, "fifo");
	int64_t b = pgt_job(s, "b", "b.example", 2, "hierarchy");
	int64_t c = pgt_job(s, "c", "c.example", 7, "frontier");
	pgt_assert_counts_exact(s, "no tasks");

	enq(s, a, "/a/d0-", 10, 0, 0, "article", "sitemap");
	enq(s, a, "/a/d1-", 10, 0, 1, "hub", NULL);
	enq(s, a, "/a/dx-", 10, 0, -1, NULL, "link");
	enq(s, b, "/", 1, 0, 2, NULL, NULL);
	enq(s, b, "/b/", 12, 0, 3, "nav", "sitemap");
	enq(s, c, "/c/", 50, 7.3, 9, "article", "intelligent-seed");
	/* boundaries: 20, 40, 60, 80 open their bucket; 100 is in 80-100 */
	enq(s, c, "/c/edge", 101, 1, 4, "article", "sitemap");
	pgt_assert_counts_exact(s, "after enqueue");

	/* duplicates raise pending scores (an UPDATE inside the INSERT) */
	enq(s, c, "/c/", 50, 11.9, 9, "article", "intelligent-seed");
	pgt_assert_counts_exact(s, "after duplicate raise");

	int64_t ids[64];
	size_t done, retried, failed;
	struct ct_claim k = pgt_claim(s, "w1", 0, 20, 0);
	assert_int_equal(k.n, 20);
	assert_int_equal(ct_store_complete(s, "w1", ids, ids_of(&k, 0, 8, ids),
					   &done, &err), CT_OK);
	assert_int_equal(ct_store_fail(s, "w1", ids, ids_of(&k, 8, 11, ids), "x",
				       &retried, &failed, &err), CT_OK);
	assert_int_equal(retried, 3);
	assert_int_equal(ct_store_release(s, "w1", ids, ids_of(&k, 11, 14, ids),
					  &done, &err), CT_OK);
	ct_claim_free(&k);
	pgt_assert_counts_exact(s, "after claim, complete, fail, release");

	/* failures without retries left */
	pgt_exec(s, "UPDATE crawltop.jobs SET max_retries = 0");
	k = pgt_claim(s, "w2", a, 5, 0);
	assert_int_equal(ct_store_fail(s, "w2", ids, ids_of(&k, 0, k.n, ids), "x",
				       &retried, &failed, &err), CT_OK);
	assert_int_equal(failed, 5);
	ct_claim_free(&k);
	pgt_assert_counts_exact(s, "after final failures");

	/* leases that expire: the next claim reaps them */
	k = pgt_claim(s, "w3", c, 6, 0.05);
	ct_claim_free(&k);
	sleep_ms(120);
	k = pgt_claim(s, "w4", b, 2, 0);
	ct_claim_free(&k);
	pgt_assert_counts_exact(s, "after lease expiry");

	long rows;
	assert_int_equal(ct_store_job_set_priority(s, a, 1, &rows, &err), CT_OK);
	assert_int_equal(ct_store_job_act(s, c, CT_JOB_PAUSE, &rows, &err), CT_OK);
	pgt_assert_counts_exact(s, "after priority and pause");
	enq(s, c, "/c/paused", 5, 3, 1, "hub", "sitemap");
	pgt_assert_counts_exact(s, "after enqueue into a paused job");
	assert_int_equal(ct_store_job_act(s, c, CT_JOB_RESUME, &rows, &err), CT_OK);
	assert_int_equal(ct_store_adjust_scores(s, c, "/c/edge", -30, &rows, &err),
			 CT_OK);
	assert_int_equal(ct_store_adjust_scores(s, c, "/c/", 45.5, &rows, &err),
			 CT_OK);
	assert_int_equal(ct_store_job_act(s, b, CT_JOB_CANCEL, &rows, &err), CT_OK);
	pgt_assert_counts_exact(s, "after resume, boost, demote, cancel");

	/* seed 003 ranking: ranked tasks leave 'unranked' */
	pgt_exec(s, "UPDATE crawltop.tasks SET ranked_at = now(), "
		 "discovery_score = score, priority_class = class "
		 "WHERE job_id = 3 AND id % 3 = 0");
	pgt_exec(s, "UPDATE crawltop.tasks SET priority_class = 0 "
		 "WHERE job_id = 3 AND id % 6 = 0");
	/* direct changes of the other dimensions */
	pgt_exec(s, "UPDATE crawltop.tasks SET depth = NULL, type = 'hub' "
		 "WHERE id % 5 = 0");
	pgt_exec(s, "UPDATE crawltop.tasks SET discovery_method = NULL, "
		 "depth = 2 WHERE id % 7 = 0");
	pgt_assert_counts_exact(s, "after ranking and direct updates");

	pgt_exec(s, "DELETE FROM crawltop.tasks WHERE id % 11 = 0");
	pgt_assert_counts_exact(s, "after deletes");
	pgt_exec(s, "DELETE FROM crawltop.jobs WHERE name = 'a'");
	pgt_assert_counts_exact(s, "after a job was deleted with its tasks");
	assert_int_equal(pgt_int(s, "SELECT coalesce(sum(n), 0) FROM "
				 "crawltop.task_counts_now WHERE job_id = 1"), 0);

	/* one call folds at most half the shards; a shard without rows is
	 * not even locked */
	int shards = -1, total = 0, calls = 0;
	long long used = pgt_int(s, "SELECT count(DISTINCT shard) FROM "
				 "crawltop.task_counts WHERE shard > 0");
	assert_true(used >= 1);
	do {
		assert_int_equal(ct_store_compact_counts(s, &shards, &err), CT_OK);
		assert_true(shards <= 16);
		total += shards;
		pgt_assert_counts_exact(s, "after compaction");
	} while (shards > 0 && ++calls < 5);
	assert_int_equal(total, used);
	/* compacted: shard 0 only, no empty cells, nothing left of job a */
	assert_int_equal(pgt_int(s, "SELECT count(*) FROM crawltop.task_counts "
				 "WHERE shard <> 0 OR n = 0 OR job_id = 1"), 0);

	assert_true(pgt_int(s, "SELECT crawltop.rebuild_counts()") > 0);
	pgt_assert_counts_exact(s, "after rebuild");

	pgt_exec(s, "TRUNCATE crawltop.tasks");
	pgt_assert_counts_exact(s, "after TRUNCATE");
	assert_int_equal(pgt_int(s, "SELECT count(*) FROM crawltop.task_counts"), 0);
	enq(s, c, "/again/", 10, 9, 0, NULL, NULL);
	pgt_assert_counts_exact(s, "after TRUNCATE and enqueue");
}

/* ---- concurrency -------------------------------------------------------- */

#define THREADS 6
#define JOBS 4

struct actor {
	int no;
	int64_t job[JOBS];
	double seconds;
	char dsn[1024];   /* pgt_dsn's buffer is not for threads */
	long ops;
	long deadlocks; /* statements PostgreSQL aborted and we retried */
	char error[CT_ERROR_LEN + 64];
};

/* Whether the last failure on s was a deadlock (40P01) that PostgreSQL
 * resolved by aborting our statement: then it is retried. See
 * counters_exact_under_concurrency for why these happen. */
static int deadlocked(struct ct_store *s, struct actor *w)
{
	if (strcmp(ct_store_sqlstate(s), "40P01") != 0)
		return 0;
	w->deadlocks++;
	return 1;
}

static unsigned next_rand(unsigned *seed)
{
	*seed = *seed * 1103515245u + 12345u;
	return (*seed >> 16) & 0x7fff;
}

static double since(const struct timespec *t0)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) + (t.tv_nsec - t0->tv_nsec) / 1e9;
}

/* A worker: claims batches and completes, fails, releases or abandons
 * them (short leases), and enqueues new paths now and then. */
static void *worker(void *arg)
{
	struct actor *w = arg;
	struct ct_store *s;
	struct ct_error err = {{0}};
	if (ct_store_open(w->dsn, &s, &err) != CT_OK) {
		snprintf(w->error, sizeof w->error, "%s", err.msg);
		return NULL;
	}
	char name[16];
	snprintf(name, sizeof name, "w%d", w->no);
	unsigned seed = 77u + (unsigned)w->no * 7919u;
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	static char paths_buf[THREADS][20][40];
	const char *paths[20];
	double scores[20];
	int64_t ids[64];
	long round = 0;
	while (!w->error[0] && (since(&t0) < w->seconds || round < 10)) {
		round++;
		int64_t job = next_rand(&seed) % 3 ? 0 : w->job[next_rand(&seed) % JOBS];
		int n = 1 + (int)(next_rand(&seed) % 20);
		int abandon = next_rand(&seed) % 10 == 0;
		struct ct_claim c;
		if (ct_store_claim(s, name, job, n, abandon ? 0.2 : 30, &c,
				   &err) != CT_OK) {
			snprintf(w->error, sizeof w->error, "claim: %s", err.msg);
			break;
		}
		size_t done, r1, r2, m = c.n;
		/* SPEC: a claim hands out at most n tasks, under concurrency
		 * too (0005's claim once handed out more: a hard failure) */
		if (m > (size_t)n) {
			snprintf(w->error, sizeof w->error,
				 "claim of %d handed out %zu tasks", n, m);
			ct_claim_free(&c);
			break;
		}
		if (m > sizeof ids / sizeof ids[0])
			m = sizeof ids / sizeof ids[0]; /* the rest expire */
		for (size_t i = 0; i < m; i++)
			ids[i] = c.tasks[i].id;
		ct_claim_free(&c);
		unsigned what = next_rand(&seed) % 10;
		ct_status st = CT_OK;
		if (m && !abandon) {
			do {
				if (what < 7)
					st = ct_store_complete(s, name, ids, m, &done,
							       &err);
				else if (what < 9)
					st = ct_store_fail(s, name, ids, m, "e", &r1,
							   &r2, &err);
				else
					st = ct_store_release(s, name, ids, m, &done,
							      &err);
			} while (st != CT_OK && deadlocked(s, w));
		}
		if (st != CT_OK) {
			snprintf(w->error, sizeof w->error, "complete/fail/release: %s",
				 err.msg);
			break;
		}
		if (round % 4 == 0) {
			int64_t j = w->job[next_rand(&seed) % JOBS];
			/* half new pages, half pages the job has (duplicates
			 * lock their tasks, which workers hold, release and
			 * the reaper takes back meanwhile) */
			for (int i = 0; i < 20; i++) {
				if (i % 2)
					snprintf(paths_buf[w->no][i],
						 sizeof paths_buf[w->no][i], "/seed/%u",
						 next_rand(&seed) % 1000);
				else
					snprintf(paths_buf[w->no][i],
						 sizeof paths_buf[w->no][i],
						 "/w%d/%ld/%d", w->no, round, i);
				paths[i] = paths_buf[w->no][i];
				scores[i] = (double)(next_rand(&seed) % 10001) / 100.0;
			}
			struct ct_enqueue_batch b = CT_ENQUEUE_BATCH_INIT;
			struct ct_enqueue_result r;
			b.job_id = j;
			b.paths = paths;
			b.n = 20;
			b.scores = scores;
			b.depth = (int)(next_rand(&seed) % 6) - 1;
			b.type = next_rand(&seed) % 2 ? "article" : NULL;
			b.discovery_method = next_rand(&seed) % 2 ? "link" : "sitemap";
			do
				st = ct_store_enqueue(s, &b, &r, &err);
			while (st != CT_OK && deadlocked(s, w));
			if (st != CT_OK) {
				snprintf(w->error, sizeof w->error, "enqueue: %s", err.msg);
				break;
			}
		}
		w->ops++;
	}
	ct_store_close(s);
	return NULL;
}

/* An operator: priorities, boosts and demotes, pause and resume, counter
 * compaction, ranking updates, all while the workers run. */
static void *operator(void *arg)
{
	struct actor *w = arg;
	struct ct_store *s;
	struct ct_error err = {{0}};
	if (ct_store_open(w->dsn, &s, &err) != CT_OK) {
		snprintf(w->error, sizeof w->error, "%s", err.msg);
		return NULL;
	}
	unsigned seed = 4242u;
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	long rows;
	int paused = 0;
	while (!w->error[0] && (since(&t0) < w->seconds || w->ops < 10)) {
		int64_t j = w->job[next_rand(&seed) % JOBS];
		ct_status st = CT_OK;
		char sql[400];
		unsigned op = next_rand(&seed) % 5, pick = next_rand(&seed);
	again:
		switch (op) {
		case 0:
			st = ct_store_job_set_priority(s, j, 1 + (int)(pick % 10),
						       &rows, &err);
			break;
		case 1:
			st = ct_store_adjust_scores(s, j, "/", (double)(pick % 41) - 20,
						    &rows, &err);
			break;
		case 2:
			st = ct_store_job_act(s, w->job[JOBS - 1],
					      paused ? CT_JOB_RESUME : CT_JOB_PAUSE,
					      &rows, &err);
			if (st == CT_OK)
				paused = !paused;
			break;
		case 3:
			/* compaction while the workers hold their shards */
			st = ct_store_compact_counts(s, NULL, &err);
			break;
		default:
			/* a ranking run's stand-in, locking in task id
			 * order as every store function does */
			snprintf(sql, sizeof sql, "UPDATE crawltop.tasks t SET "
				 "ranked_at = now(), discovery_score = t.score, "
				 "priority_class = t.class FROM (SELECT id FROM "
				 "crawltop.tasks WHERE status = 'pending' AND "
				 "id %% 13 = %u ORDER BY id FOR NO KEY UPDATE) l "
				 "WHERE t.id = l.id AND t.status = 'pending'",
				 pick % 13);
			st = ct_store_exec(s, "rank", sql, &err);
		}
		if (st != CT_OK && deadlocked(s, w))
			goto again;
		if (st != CT_OK) {
			snprintf(w->error, sizeof w->error, "operator: %s", err.msg);
			break;
		}
		w->ops++;
		sleep_ms(5);
	}
	if (paused && !w->error[0] &&
	    ct_store_job_act(s, w->job[JOBS - 1], CT_JOB_RESUME, &rows, &err) != CT_OK)
		snprintf(w->error, sizeof w->error, "resume: %s", err.msg);
	ct_store_close(s);
	return NULL;
}

/* Six workers and an operator change tasks at once for a few seconds;
 * then every counter is exact. Should PostgreSQL abort a statement with a
 * deadlock, the statement rolls back with its counter changes and is
 * retried, so that the counters can still be checked; but none may
 * happen: every store function locks tasks in id order, job rows before
 * task rows, and release and the reaper do not wait for an enqueue's hold
 * on the job row (0005); counter rows never wait (next test). The workers
 * enqueue duplicates of pages whose tasks others hold, release or see
 * reaped (short leases). (The reaper's deadlock with enqueue needs a
 * narrow interleaving that this run seldom hits, with the old locks too:
 * test_locks.c builds it step by step.) */
static void counters_exact_under_concurrency(void **state)
{
	struct ct_store *s = *state;
	struct actor w[THREADS + 1];
	int64_t job[JOBS];
	for (int j = 0; j < JOBS; j++) {
		char jn[16], dn[32];
		snprintf(jn, sizeof jn, "cc%d", j);
		snprintf(dn, sizeof dn, "cc%d.example", j);
		job[j] = pgt_job(s, jn, dn, 2 + 2 * j, "frontier");
		/* 5,000 a job: six workers claimed about 3,300 tasks a second
		 * here (2026-11-29), and the run must end with tasks still
		 * pending */
		for (int b = 0; b < 5; b++) {
			char prefix[16];
			snprintf(prefix, sizeof prefix, "/seed/%d/", b);
			enq(s, job[j], prefix, 1000, 3.7, j, j % 2 ? "hub" : NULL,
			    "sitemap");
		}
	}
	/* one retry, and no lease expiry: failures and abandoned leases
	 * reach 'failed' within the run */
	pgt_exec(s, "UPDATE crawltop.jobs SET max_retries = 1");
	pgt_exec(s, "INSERT INTO crawltop.settings (value, note) SELECT "
		 "jsonb_set(value, '{store,max_expiries}', '0'), 'test' FROM "
		 "crawltop.settings ORDER BY version DESC LIMIT 1");
	pthread_t th[THREADS + 1];
	for (int i = 0; i <= THREADS; i++) {
		w[i] = (struct actor){.no = i, .seconds = 3};
		snprintf(w[i].dsn, sizeof w[i].dsn, "%s", pgt_dsn("ct_stats"));
		memcpy(w[i].job, job, sizeof job);
		assert_int_equal(pthread_create(&th[i], NULL,
			i < THREADS ? worker : operator, &w[i]), 0);
	}
	long ops = 0, deadlocks = 0;
	for (int i = 0; i <= THREADS; i++)
		pthread_join(th[i], NULL);
	for (int i = 0; i <= THREADS; i++) {
		if (w[i].error[0])
			fail_msg("thread %d: %s", i, w[i].error);
		ops += w[i].ops;
		deadlocks += w[i].deadlocks;
	}
	print_message("# %ld operations by %d workers and an operator; %ld "
		      "statements aborted by deadlock detection and retried\n",
		      ops, THREADS, deadlocks);
	assert_true(ops >= 7 * 10);
	assert_int_equal(deadlocks, 0);
	/* claims and completions counted by their deltas (0020), folded
	 * or not */
	long long claims = pgt_int(s, "SELECT coalesce(sum(claims), 0) FROM "
				   "crawltop.rate_ticks_now");
	print_message("# %lld claims counted\n", claims);
	assert_true(claims >= 1);
	pgt_assert_counts_exact(s, "after concurrent changes");
	/* every kind of change happened */
	assert_true(pgt_int(s, "SELECT count(DISTINCT status) FROM crawltop.tasks") >= 4);
	assert_true(pgt_int(s, "SELECT count(*) FROM crawltop.tasks WHERE "
			    "ranked_at IS NOT NULL AND status = 'pending'") > 0);
	struct ct_error err = {{0}};
	assert_int_equal(ct_store_compact_counts(s, NULL, &err), CT_OK);
	pgt_assert_counts_exact(s, "after compaction");
}

/* ---- writers do not queue ------------------------------------------------ */

static void writers_do_not_queue_on_counters(void **state)
{
	struct ct_store *s = *state;
	struct ct_error err = {{0}};
	enum { OPEN = 32 };
	int64_t job = pgt_job(s, "hot", "hot.example", 5, "frontier");
	enq(s, job, "/h/", 200, 0.5, 1, "article", "sitemap");
	struct ct_store *c[OPEN + 1];
	for (int i = 0; i <= OPEN; i++) {
		if (ct_store_open(pgt_dsn("ct_stats"), &c[i], &err) != CT_OK)
			fail_msg("%s", err.msg);
		/* a wait for another transaction's row would fail fast */
		pgt_exec(c[i], "SET lock_timeout = '300ms'");
	}
	/* 32 transactions, all open at once, each claim, complete and fail
	 * tasks of the same job: the same cells, never the same counter
	 * rows. Claims and completions append deltas (0020) and take no
	 * shard; a failure counts through the trigger, in a shard. */
	for (int i = 0; i < OPEN; i++) {
		char name[16];
		snprintf(name, sizeof name, "open%d", i);
		pgt_exec(c[i], "BEGIN");
		struct ct_claim k = pgt_claim(c[i], name, job, 2, 0);
		assert_int_equal(k.n, 2);
		int64_t ids[2] = {k.tasks[0].id, k.tasks[1].id};
		size_t done, retried, failed;
		if (ct_store_complete(c[i], name, ids, 1, &done, &err) != CT_OK)
			fail_msg("transaction %d: %s", i, err.msg);
		assert_int_equal(pgt_int(c[i], MY_SHARDS " AND shard > 0"), 0);
		if (ct_store_fail(c[i], name, ids + 1, 1, "e", &retried, &failed,
				  &err) != CT_OK)
			fail_msg("transaction %d: %s", i, err.msg);
		ct_claim_free(&k);
	}
	assert_int_equal(pgt_int(s, SHARDS_HELD), OPEN);
	/* a 33rd writer claims and completes at once (no shard), and its
	 * failure finds every shard taken: it waits for its home shard
	 * (here: until lock_timeout), the documented bound */
	struct ct_claim k = pgt_claim(c[OPEN], "late", job, 2, 0);
	assert_int_equal(k.n, 2);
	size_t done, retried, failed;
	assert_int_equal(ct_store_complete(c[OPEN], "late", &k.tasks[0].id, 1,
					   &done, &err), CT_OK);
	assert_int_equal(done, 1);
	assert_int_not_equal(ct_store_fail(c[OPEN], "late", &k.tasks[1].id, 1,
					   "e", &retried, &failed, &err), CT_OK);
	assert_string_equal(ct_store_sqlstate(c[OPEN]), "55P03");
	ct_claim_free(&k);
	for (int i = 0; i < OPEN; i++)
		pgt_exec(c[i], "COMMIT");
	k = pgt_claim(c[OPEN], "late", job, 1, 0);
	assert_int_equal(k.n, 1);
	ct_claim_free(&k);
	/* every shard has rows now: one compaction takes half of them, and
	 * a second and third call in the same open transaction take none
	 * (three took all 32, and every writer waited) */
	pgt_exec(c[0], "BEGIN");
	assert_int_equal(pgt_int(c[0], "SELECT crawltop.compact_counts()"), 16);
	assert_int_equal(pgt_int(c[0], "SELECT crawltop.compact_counts()"), 0);
	assert_int_equal(pgt_int(c[0], "SELECT crawltop.compact_counts()"), 0);
	assert_int_equal(pgt_int(s, SHARDS_HELD), 16);
	k = pgt_claim(c[1], "beside", job, 1, 0);
	assert_int_equal(k.n, 1);
	ct_claim_free(&k);
	pgt_exec(c[0], "COMMIT");
	for (int i = 0; i <= OPEN; i++)
		ct_store_close(c[i]);
	pgt_assert_counts_exact(s, "after 32 open transactions");
	assert_int_equal(pgt_int(s, "SELECT count(*) FROM crawltop.tasks WHERE "
				 "status = 'completed'"), OPEN + 1);
	assert_int_equal(pgt_int(s, "SELECT count(*) FROM crawltop.tasks WHERE "
				 "retry_count = 1"), OPEN);
}

/* ---- plans ---------------------------------------------------------------- */


static void reads_never_scan_tasks(void **state)
{
	struct ct_store *s = *state;
	struct ct_error err = {{0}};
	int64_t job[2];
	job[0] = pgt_job(s, "big0", "big0.example", 3, "frontier");
	job[1] = pgt_job(s, "big1", "big1.example", 6, "frontier");
	for (int b = 0; b < 10; b++) {
		char prefix[24];
		snprintf(prefix, sizeof prefix, "/%d/", b);
		enq(s, job[b % 2], prefix, 1000, 1.37, b % 5, b % 3 ? "article" : "hub",
		    b % 4 ? "sitemap" : "link");
	}
	struct ct_claim k = pgt_claim(s, "x", 0, 100, 0);
	ct_claim_free(&k);
	pgt_exec(s, "ANALYZE crawltop.tasks; ANALYZE crawltop.task_counts");

	struct pgt_plans p;
	pgt_plans_start(s, &p);
	/* more than 5 calls: plpgsql may switch to generic plans */
	for (int i = 0; i < 8; i++) {
		struct ct_stat_cells c;
		struct ct_job_stats_list j;
		struct ct_rate_series r;
		assert_int_equal(ct_store_stats_cells(s, job[i % 2], &c, &err), CT_OK);
		ct_stat_cells_free(&c);
		assert_int_equal(ct_store_stats_cells(s, 0, &c, &err), CT_OK);
		ct_stat_cells_free(&c);
		assert_int_equal(ct_store_stats_jobs(s, &j, &err), CT_OK);
		ct_job_stats_list_free(&j);
		assert_int_equal(ct_store_stats_rates(s, i % 2 ? job[0] : 0, 60, &r,
						      &err), CT_OK);
		ct_rate_series_free(&r);
	}
	int reads = p.n;
	/* the slow way, for contrast: its plans do scan tasks */
	pgt_exec(s, "SELECT count(*) FROM crawltop.dashboard_cells_exact(NULL)");
	pgt_plans_stop(s);

	int counters = 0;
	for (int i = 0; i < reads; i++) {
		const char *t = p.text[i];
		if (strstr(t, " on tasks") || strstr(t, "using tasks_") ||
		    strstr(t, "crawltop.tasks"))
			fail_msg("a read touches tasks:\n%s", t);
		counters += strstr(t, "task_counts") != NULL;
	}
	if (counters < 24)
		fail_msg("expected at least 24 plans reading task_counts, saw %d "
			 "(of %d)", counters, reads);
	int exact = 0;
	for (int i = reads; i < p.n; i++)
		exact += strstr(p.text[i], " on tasks") != NULL;
	assert_true(exact >= 1);
	pgt_plans_free(&p);
}

/* ---- a job's shown status ------------------------------------------------ */

/* Fail unless every read shows job with status want: dashboard_jobs
 * (console, `top -b`, `stats`), and the job rows of `job show` and
 * `job list`. */
static void assert_shown(struct ct_store *s, int64_t job, const char *want,
			 const char *when)
{
	struct ct_error err = {{0}};
	/* what dashboard_jobs, job show and job list show ("" for no row) */
	char got[3][16] = {"", "", ""};
	static const char *const reads[3] = {"dashboard_jobs", "job show",
					     "job list"};
	struct ct_job_stats_list l;
	assert_int_equal(ct_store_stats_jobs(s, &l, &err), CT_OK);
	for (size_t i = 0; i < l.n; i++)
		if (l.jobs[i].job_id == job)
			snprintf(got[0], sizeof got[0], "%s", l.jobs[i].status);
	ct_job_stats_list_free(&l);
	struct ct_job_info j;
	assert_int_equal(ct_store_job_get(s, job, &j, &err), CT_OK);
	snprintf(got[1], sizeof got[1], "%s", j.status);
	struct ct_job_info_list jl;
	assert_int_equal(ct_store_job_list(s, &jl, &err), CT_OK);
	for (size_t i = 0; i < jl.n; i++)
		if (jl.jobs[i].id == job)
			snprintf(got[2], sizeof got[2], "%s", jl.jobs[i].status);
	ct_job_info_list_free(&jl);
	for (int k = 0; k < 3; k++)
		if (strcmp(got[k], want) != 0)
			fail_msg("%s: %s shows job %lld '%s', expected %s", when,
				 reads[k], (long long)job, got[k], want);
}

/* jobs.status as stored. */
static void assert_stored(struct ct_store *s, int64_t job, const char *want)
{
	char id[24];
	snprintf(id, sizeof id, "%lld", (long long)job);
	const char *params[] = {id};
	char *got = pgt_text(s, "SELECT status FROM crawltop.jobs WHERE id = "
			     "$1::bigint", 1, params);
	assert_string_equal(got, want);
	free(got);
}

/* Claim n tasks of job for worker w and complete them all. */
static void claim_complete(struct ct_store *s, const char *w, int64_t job,
			   int n)
{
	struct ct_error err = {{0}};
	int64_t ids[16];
	size_t done;
	struct ct_claim k = pgt_claim(s, w, job, n, 0);
	assert_int_equal(k.n, n);
	assert_int_equal(ct_store_complete(s, w, ids, ids_of(&k, 0, k.n, ids),
					   &done, &err), CT_OK);
	assert_int_equal(done, (size_t)n);
	ct_claim_free(&k);
}

/* jobs.status stays the operator's state; every read shows it derived
 * from the counters (crawltop.job_status_shown): running while a worker
 * holds a task, pending while tasks wait to be claimed, completed when all
 * are done; paused and cancelled as stored. Claim and enqueue still go by the
 * stored state. */
static void job_status_follows_tasks(void **state)
{
	struct ct_store *s = *state;
	struct ct_error err = {{0}};
	int64_t ids[16];
	size_t done, retried, failed;
	long rows;
	int64_t a = pgt_job(s, "a", "a.example", 5, "fifo");
	int64_t e = pgt_job(s, "empty", "e.example", 5, "fifo");
	assert_shown(s, a, "pending", "no tasks");
	enq(s, a, "/a/", 3, 0, 0, "article", "sitemap");
	assert_shown(s, a, "pending", "3 tasks, none claimed");

	struct ct_claim k = pgt_claim(s, "w1", a, 1, 0);
	assert_int_equal(k.n, 1);
	assert_shown(s, a, "running", "one task claimed");
	assert_int_equal(ct_store_complete(s, "w1", ids, ids_of(&k, 0, 1, ids),
					   &done, &err), CT_OK);
	ct_claim_free(&k);
	/* nobody holds a task: pending, however many are done */
	assert_shown(s, a, "pending", "one done, two pending");
	claim_complete(s, "w1", a, 2);
	assert_shown(s, a, "completed", "every task done");
	assert_stored(s, a, "pending");
	assert_shown(s, e, "pending", "a job without tasks");

	/* a job shown completed still takes tasks (enqueue goes by the
	 * stored state) and hands them out */
	enq(s, a, "/more/", 1, 0, 1, "article", "link");
	assert_shown(s, a, "pending", "one more enqueued after completion");
	pgt_exec(s, "UPDATE crawltop.jobs SET max_retries = 0 WHERE name = 'a'");
	k = pgt_claim(s, "w1", a, 5, 0);
	assert_int_equal(k.n, 1);
	assert_int_equal(ct_store_fail(s, "w1", ids, ids_of(&k, 0, 1, ids), "x",
				       &retried, &failed, &err), CT_OK);
	assert_int_equal(failed, 1);
	ct_claim_free(&k);
	assert_shown(s, a, "completed", "the last task failed for good");

	/* paused stays paused, whatever its tasks do */
	int64_t p = pgt_job(s, "p", "p.example", 5, "fifo");
	enq(s, p, "/p/", 3, 0, 0, "article", "sitemap");
	k = pgt_claim(s, "w2", p, 1, 0);
	assert_int_equal(ct_store_job_act(s, p, CT_JOB_PAUSE, &rows, &err), CT_OK);
	assert_shown(s, p, "paused", "paused with a task running");
	assert_int_equal(ct_store_complete(s, "w2", ids, ids_of(&k, 0, 1, ids),
					   &done, &err), CT_OK);
	ct_claim_free(&k);
	assert_shown(s, p, "paused", "paused, one done, two pending");
	k = pgt_claim(s, "w2", p, 5, 0);
	assert_int_equal(k.n, 0); /* the claim still skips a paused job */
	ct_claim_free(&k);

	/* resume stores running: still derived */
	assert_int_equal(ct_store_job_act(s, p, CT_JOB_RESUME, &rows, &err), CT_OK);
	assert_stored(s, p, "running");
	assert_shown(s, p, "pending", "resumed, one done, two pending");
	claim_complete(s, "w2", p, 2);
	assert_shown(s, p, "completed", "resumed, every task done");
	int64_t r = pgt_job(s, "r", "r.example", 5, "fifo");
	enq(s, r, "/r/", 2, 0, 0, "article", "sitemap");
	assert_int_equal(ct_store_job_act(s, r, CT_JOB_PAUSE, &rows, &err), CT_OK);
	assert_int_equal(ct_store_job_act(s, r, CT_JOB_RESUME, &rows, &err), CT_OK);
	assert_shown(s, r, "pending", "resumed, nothing claimed yet");

	/* cancelled stays cancelled: its pending tasks are skipped */
	assert_int_equal(ct_store_job_act(s, r, CT_JOB_CANCEL, &rows, &err), CT_OK);
	assert_shown(s, r, "cancelled", "cancelled");

	/* the rule itself: a stored completed is shown as stored; running
	 * only while a worker holds a task (r: running, y: retrying) */
	assert_int_equal(pgt_int(s, "SELECT count(*) FROM (VALUES "
		"('completed', 5, 0, 0, 0, 'completed'), "
		"('cancelled', 0, 2, 0, 0, 'cancelled'), "
		"('paused', 0, 0, 3, 4, 'paused'), "
		"('pending', 0, 0, 0, 0, 'pending'), "
		"('running', 0, 0, 0, 0, 'pending'), "
		"('pending', 7, 0, 0, 0, 'pending'), "
		"('pending', 7, 1, 0, 0, 'running'), "
		"('pending', 7, 0, 0, 1, 'pending'), "
		"('pending', 7, 0, 5, 1, 'pending'), "
		"('pending', 0, 1, 0, 0, 'running'), "
		"('pending', 0, 1, 5, 0, 'running'), "
		"('pending', 0, 0, 5, 0, 'retrying'), "
		"('running', 0, 0, 5, 9, 'retrying'), "
		"('pending', 0, 0, 0, 1, 'completed'), "
		"('running', 0, 0, 0, 9, 'completed')) v (st, p, r, y, f, want) "
		"WHERE crawltop.job_status_shown(v.st, v.p, v.r, v.y, v.f) "
		"IS DISTINCT FROM v.want"), 0);
}

/* ---- retrying: failed attempts waiting for their backoff ---------------- */

/* Fail unless job's tasks by shown status are pending p, running r and
 * retrying y in every read: the counter cells (dashboard_cells),
 * dashboard_jobs (console, `top -b`, `stats`), and the job rows of
 * `job show` and `job list`. */
static void assert_pry(struct ct_store *s, int64_t job, int64_t p, int64_t r,
		       int64_t y, const char *when)
{
	struct ct_error err = {{0}};
	int64_t got[4][3];
	static const char *const reads[4] = {"dashboard_cells",
		"dashboard_jobs", "job show", "job list"};
	memset(got, 0xff, sizeof got);
	struct ct_stat_cells c;
	assert_int_equal(ct_store_stats_cells(s, job, &c, &err), CT_OK);
	got[0][0] = ct_stat_cells_get(&c, "status", "pending");
	got[0][1] = ct_stat_cells_get(&c, "status", "running");
	got[0][2] = ct_stat_cells_get(&c, "status", "retrying");
	ct_stat_cells_free(&c);
	struct ct_job_stats_list l;
	assert_int_equal(ct_store_stats_jobs(s, &l, &err), CT_OK);
	for (size_t i = 0; i < l.n; i++)
		if (l.jobs[i].job_id == job) {
			got[1][0] = l.jobs[i].pending;
			got[1][1] = l.jobs[i].running;
			got[1][2] = l.jobs[i].retrying;
		}
	ct_job_stats_list_free(&l);
	struct ct_job_info j;
	assert_int_equal(ct_store_job_get(s, job, &j, &err), CT_OK);
	got[2][0] = j.pending;
	got[2][1] = j.running;
	got[2][2] = j.retrying;
	struct ct_job_info_list jl;
	assert_int_equal(ct_store_job_list(s, &jl, &err), CT_OK);
	for (size_t i = 0; i < jl.n; i++)
		if (jl.jobs[i].id == job) {
			got[3][0] = jl.jobs[i].pending;
			got[3][1] = jl.jobs[i].running;
			got[3][2] = jl.jobs[i].retrying;
		}
	ct_job_info_list_free(&jl);
	for (int k = 0; k < 4; k++)
		if (got[k][0] != p || got[k][1] != r || got[k][2] != y)
			fail_msg("%s: %s shows pending/running/retrying "
				 "%lld/%lld/%lld, expected %lld/%lld/%lld", when,
				 reads[k], (long long)got[k][0],
				 (long long)got[k][1], (long long)got[k][2],
				 (long long)p, (long long)r, (long long)y);
	pgt_assert_counts_exact(s, when);
}

/* Claims of job counted in rate_ticks over the last minute. */
static long long claims_of(struct ct_store *s, int64_t job)
{
	struct ct_error err = {{0}};
	struct ct_rate_series r;
	assert_int_equal(ct_store_stats_rates(s, job, 60, &r, &err), CT_OK);
	long long n = 0;
	for (size_t i = 0; i < r.n; i++)
		n += r.points[i].claims;
	ct_rate_series_free(&r);
	return n;
}

/* A failed attempt with retries left stays status 'running' with no lease
 * owner until its backoff ends (0003's fail): nobody fetches it. Every
 * read counts it as retrying, not running, from the fail through the
 * reaper (back to pending), the next claim and its completion, and the
 * counters stay equal to a GROUP BY over tasks; a job whose only unfinished
 * tasks wait for a retry is shown retrying, and one nobody holds a task of
 * is never shown running. The claim rate counts claims only (pending ->
 * running under a lease), not failures. */
static void retries_count_apart_from_running(void **state)
{
	struct ct_store *s = *state;
	struct ct_error err = {{0}};
	int64_t ids[8];
	size_t done, retried, failed;
	int64_t job = pgt_job(s, "retry", "retry.example", 5, "fifo");
	enq(s, job, "/r/", 5, 0, 0, "article", "sitemap");
	assert_pry(s, job, 5, 0, 0, "enqueued");

	struct ct_claim k = pgt_claim(s, "w1", job, 3, 0);
	assert_int_equal(k.n, 3);
	assert_pry(s, job, 2, 3, 0, "three claimed");
	assert_shown(s, job, "running", "three claimed");
	assert_int_equal(ct_store_fail(s, "w1", ids, ids_of(&k, 0, 2, ids), "x",
				       &retried, &failed, &err), CT_OK);
	assert_int_equal(retried, 2);
	assert_int_equal(pgt_int(s, "SELECT count(*) FROM crawltop.tasks WHERE "
				 "status = 'running' AND lease_owner IS NULL"), 2);
	assert_pry(s, job, 2, 1, 2, "two failed with retries left");
	assert_shown(s, job, "running", "one still held by w1");
	assert_int_equal(ct_store_complete(s, "w1", ids, ids_of(&k, 2, 3, ids),
					   &done, &err), CT_OK);
	ct_claim_free(&k);
	assert_pry(s, job, 2, 0, 2, "the third completed");
	/* nobody holds a task: pending (something to claim), not running */
	assert_shown(s, job, "pending", "two pending, two retrying, none held");
	claim_complete(s, "w1", job, 2);
	assert_pry(s, job, 0, 0, 2, "the pending ones done");
	assert_shown(s, job, "retrying", "only retries left");
	/* 5 claims; the failures are none */
	assert_int_equal(claims_of(s, job), 5);

	/* the backoff ends: the reaper makes them pending (a lease expiry
	 * moved by hand changes no cell) */
	pgt_exec(s, "UPDATE crawltop.tasks SET lease_expires_at = now() - "
		 "interval '1 second' WHERE status = 'running' AND "
		 "lease_owner IS NULL");
	assert_pry(s, job, 0, 0, 2, "backoff over, not reaped yet");
	assert_int_equal(pgt_int(s, "SELECT crawltop.reap_expired()"), 2);
	assert_pry(s, job, 2, 0, 0, "reaped");
	assert_shown(s, job, "pending", "reaped");
	k = pgt_claim(s, "w2", job, 5, 0);
	assert_int_equal(k.n, 2);
	assert_pry(s, job, 0, 2, 0, "claimed again");
	assert_shown(s, job, "running", "claimed again");
	assert_int_equal(claims_of(s, job), 7);
	/* one fails again, one completes */
	assert_int_equal(ct_store_fail(s, "w2", ids, ids_of(&k, 0, 1, ids), "y",
				       &retried, &failed, &err), CT_OK);
	assert_int_equal(retried, 1);
	assert_pry(s, job, 0, 1, 1, "failed a second time");
	assert_int_equal(ct_store_complete(s, "w2", ids, ids_of(&k, 1, 2, ids),
					   &done, &err), CT_OK);
	ct_claim_free(&k);
	assert_pry(s, job, 0, 0, 1, "the other completed");
	/* the reaper inside the next claim, then the last completion */
	pgt_exec(s, "UPDATE crawltop.tasks SET lease_expires_at = now() - "
		 "interval '1 second' WHERE status = 'running' AND "
		 "lease_owner IS NULL");
	claim_complete(s, "w3", job, 1);
	assert_pry(s, job, 0, 0, 0, "all done");
	assert_shown(s, job, "completed", "all done");
	assert_int_equal(claims_of(s, job), 8);

	/* a retry that runs out of retries: failed, out of retrying */
	int64_t f = pgt_job(s, "last", "last.example", 5, "fifo");
	pgt_exec(s, "UPDATE crawltop.jobs SET max_retries = 1 WHERE name = 'last'");
	enq(s, f, "/f/", 1, 0, 0, "article", "sitemap");
	k = pgt_claim(s, "w4", f, 1, 0);
	assert_int_equal(ct_store_fail(s, "w4", ids, ids_of(&k, 0, 1, ids), "z",
				       &retried, &failed, &err), CT_OK);
	ct_claim_free(&k);
	assert_int_equal(retried, 1);
	assert_pry(s, f, 0, 0, 1, "max_retries 1: one retry");
	pgt_exec(s, "UPDATE crawltop.tasks SET lease_expires_at = now() - "
		 "interval '1 second' WHERE status = 'running' AND "
		 "lease_owner IS NULL");
	k = pgt_claim(s, "w4", f, 1, 0);
	assert_int_equal(k.n, 1);
	assert_pry(s, f, 0, 1, 0, "retried");
	assert_int_equal(ct_store_fail(s, "w4", ids, ids_of(&k, 0, 1, ids), "z",
				       &retried, &failed, &err), CT_OK);
	ct_claim_free(&k);
	assert_int_equal(failed, 1);
	assert_pry(s, f, 0, 0, 0, "failed for good");
	assert_shown(s, f, "completed", "failed for good");

	/* a repair recounts them the same way */
	enq(s, f, "/g/", 2, 0, 0, "article", "sitemap");
	pgt_exec(s, "UPDATE crawltop.jobs SET max_retries = 3");
	k = pgt_claim(s, "w5", f, 2, 0);
	assert_int_equal(ct_store_fail(s, "w5", ids, ids_of(&k, 0, 1, ids), "z",
				       &retried, &failed, &err), CT_OK);
	ct_claim_free(&k);
	assert_true(pgt_int(s, "SELECT crawltop.rebuild_counts()") > 0);
	assert_pry(s, f, 0, 1, 1, "after rebuild_counts");
}

/* ---- rates -------------------------------------------------------------- */

static void rates_count_and_ticks_stay_bounded(void **state)
{
	struct ct_store *s = *state;
	struct ct_error err = {{0}};
	int64_t job = pgt_job(s, "r", "r.example", 5, "fifo");
	int64_t other = pgt_job(s, "o", "o.example", 5, "fifo");
	enq(s, job, "/r/", 100, 0, 0, NULL, NULL);
	enq(s, other, "/o/", 10, 0, 0, NULL, NULL);

	/* old seconds of every shard, as if left behind long ago */
	pgt_exec(s, "INSERT INTO crawltop.rate_ticks (second, shard, job_id, "
		 "claims, completions) SELECT date_trunc('second', now()) - "
		 "make_interval(secs => g), sh, 1, 1, 1 FROM generate_series(601, "
		 "700) g, generate_series(0, 32) sh");
	struct ct_claim k = pgt_claim(s, "r", job, 7, 0);
	int64_t ids[7];
	size_t done;
	assert_int_equal(ct_store_complete(s, "r", ids, ids_of(&k, 0, 5, ids),
					   &done, &err), CT_OK);
	ct_claim_free(&k);
	/* claims and completions append deltas (0020); a fold moves them
	 * into shard 0 and drops shard 0's old seconds */
	assert_true(pgt_int(s, "SELECT crawltop.fold_counts()") >= 0);
	assert_int_equal(pgt_int(s, "SELECT count(*) FROM crawltop.count_deltas"), 0);
	assert_int_equal(pgt_int(s, "SELECT count(*) FROM crawltop.rate_ticks WHERE "
				 "shard = 0 AND second < now() - interval '600 s'"), 0);
	assert_int_equal(pgt_int(s, "SELECT count(*) FROM crawltop.rate_ticks WHERE "
				 "second < now() - interval '600 s'"), 32 * 100);
	/* compaction drops the rest: all 32 shards have rows, 16 a call */
	int folded;
	assert_int_equal(ct_store_compact_counts(s, &folded, &err), CT_OK);
	assert_int_equal(folded, 16);
	assert_int_equal(ct_store_compact_counts(s, &folded, &err), CT_OK);
	assert_int_equal(folded, 16);
	assert_int_equal(ct_store_compact_counts(s, &folded, &err), CT_OK);
	assert_int_equal(folded, 0);
	assert_int_equal(pgt_int(s, "SELECT count(*) FROM crawltop.rate_ticks WHERE "
				 "second < now() - interval '600 s'"), 0);
	/* what is left: this second (and maybe the one before) */
	assert_true(pgt_int(s, "SELECT count(*) FROM crawltop.rate_ticks") <= 2);

	/* the series: 7 claims and 5 completions of job, none of other */
	struct ct_rate_series r;
	assert_int_equal(ct_store_stats_rates(s, job, 5, &r, &err), CT_OK);
	assert_int_equal(r.n, 5);
	int64_t claims = 0, completions = 0;
	for (size_t i = 0; i < r.n; i++) {
		claims += r.points[i].claims;
		completions += r.points[i].completions;
		if (i)
			assert_int_equal(r.points[i].second, r.points[i - 1].second + 1);
	}
	assert_int_equal(claims, 7);
	assert_int_equal(completions, 5);
	assert_true(r.points[r.n - 1].second <= (int64_t)time(NULL) + 1);
	ct_rate_series_free(&r);
	assert_int_equal(ct_store_stats_rates(s, other, 600, &r, &err), CT_OK);
	assert_int_equal(r.n, 600);
	for (size_t i = 0; i < r.n; i++)
		assert_int_equal(r.points[i].claims + r.points[i].completions, 0);
	ct_rate_series_free(&r);
	assert_int_equal(ct_store_stats_rates(s, 0, 60, &r, &err), CT_OK);
	assert_int_equal(r.n, 60);
	ct_rate_series_free(&r);

	/* per job and second: averaged over 60 s in dashboard_jobs */
	struct ct_job_stats_list j;
	assert_int_equal(ct_store_stats_jobs(s, &j, &err), CT_OK);
	assert_int_equal(j.n, 2);
	assert_int_equal(j.jobs[0].job_id, job);
	assert_true(j.jobs[0].claims_per_s > 7 / 60.0 - 1e-9 &&
		    j.jobs[0].claims_per_s < 7 / 60.0 + 1e-9);
	assert_true(j.jobs[0].completions_per_s > 5 / 60.0 - 1e-9 &&
		    j.jobs[0].completions_per_s < 5 / 60.0 + 1e-9);
	assert_true(j.jobs[1].claims_per_s == 0);
	ct_job_stats_list_free(&j);

	/* a steady stream: rows stay within shards x seconds x jobs */
	for (int i = 0; i < 15; i++) {
		k = pgt_claim(s, "r", 0, 1, 0);
		if (k.n)
			assert_int_equal(ct_store_complete(s, "r", &k.tasks[0].id, 1,
							   &done, &err), CT_OK);
		ct_claim_free(&k);
		sleep_ms(50);
	}
	assert_true(pgt_int(s, "SELECT count(*) FROM crawltop.rate_ticks") <=
		    32 * 601 * 2);
	assert_true(pgt_int(s, "SELECT count(*) FROM crawltop.rate_ticks") <= 8);

	/* bad input */
	assert_int_equal(ct_store_stats_rates(s, job, 0, &r, &err), CT_ERANGE);
	assert_non_null(strstr(err.msg, "rate series: rate series of 0 seconds is "
			       "outside 1..600"));
	assert_int_equal(ct_store_stats_rates(s, job, 601, &r, &err), CT_ERANGE);
	assert_int_equal(ct_store_stats_rates(s, 999, 10, &r, &err), CT_ENOENT);
	assert_non_null(strstr(err.msg, "job 999 does not exist"));
}

/* ---- next tasks ------------------------------------------------------- */

/* Old seconds of rate_ticks: claims and completions append deltas, and a
 * fold (0020) moves them into shard 0 and drops shard 0's seconds past the
 * retention; other shards' old seconds wait for compaction. A failed
 * attempt with a retry left moves its task from running to retrying (it
 * takes a writer shard for that) but counts no claim; a statement that
 * changes no cell (a lease moved) takes no shard at all; a claim takes
 * none either. */
static void rates_swept_by_shard_writers(void **state)
{
	struct ct_store *s = *state;
	int64_t job = pgt_job(s, "sw", "sw.example", 5, "fifo");
	enq(s, job, "/sw/", 20, 0, 0, NULL, NULL);
	char sql[400];
	/* a task running in an earlier transaction, with retries left */
	snprintf(sql, sizeof sql, "SELECT task_id FROM crawltop.claim('sw', 1, %"
		 PRId64 ")", job);
	long long task = pgt_int(s, sql);
	snprintf(sql, sizeof sql, "INSERT INTO crawltop.rate_ticks (second, "
		 "shard, job_id, claims, completions) SELECT date_trunc('second', "
		 "now()) - make_interval(secs => g), sh, %" PRId64 ", 1, 0 FROM "
		 "generate_series(601, 610) g, (VALUES (0), (5)) v (sh)", job);
	pgt_exec(s, sql);
	const char *old_zero = "SELECT count(*) FROM crawltop.rate_ticks WHERE "
		"shard = 0 AND second < now() - interval '600 s'";
	const char *old_all = "SELECT count(*) FROM crawltop.rate_ticks WHERE "
		"second < now() - interval '600 s'";
	const char *writer_shards = MY_SHARDS " AND shard > 0";
	assert_int_equal(pgt_int(s, old_zero), 10);

	/* a failed attempt with a retry left: running -> retrying, a shard
	 * for that, but no claim and no sweep */
	pgt_exec(s, "BEGIN");
	snprintf(sql, sizeof sql, "SELECT count(*) FROM crawltop.fail('sw', "
		 "ARRAY[%lld]::bigint[], 'x') WHERE status = 'running'", task);
	assert_int_equal(pgt_int(s, sql), 1);
	assert_int_equal(pgt_int(s, writer_shards), 1);
	pgt_exec(s, "COMMIT");
	assert_int_equal(pgt_int(s, old_all), 20);
	/* a lease moved: no cell, no claim, no shard */
	pgt_exec(s, "BEGIN");
	snprintf(sql, sizeof sql, "UPDATE crawltop.tasks SET lease_expires_at = "
		 "lease_expires_at + interval '1 minute' WHERE id = %lld", task);
	pgt_exec(s, sql);
	assert_int_equal(pgt_int(s, MY_SHARDS), 0);
	pgt_exec(s, "COMMIT");
	assert_int_equal(pgt_int(s, old_all), 20);

	/* a claim takes no writer shard; the fold sweeps shard 0 only */
	pgt_exec(s, "BEGIN");
	snprintf(sql, sizeof sql, "SELECT count(*) FROM crawltop.claim('sw', 2, %"
		 PRId64 ")", job);
	assert_int_equal(pgt_int(s, sql), 2);
	assert_int_equal(pgt_int(s, writer_shards), 0);
	pgt_exec(s, "COMMIT");
	assert_true(pgt_int(s, "SELECT crawltop.fold_counts()") >= 0);
	assert_int_equal(pgt_int(s, old_zero), 0);
	assert_int_equal(pgt_int(s, old_all), 10);
	/* the claims were counted in their second */
	snprintf(sql, sizeof sql, "SELECT coalesce(sum(claims), 0) FROM "
		 "crawltop.rate_ticks WHERE job_id = %" PRId64 " AND second >= "
		 "now() - interval '60 s'", job);
	assert_int_equal(pgt_int(s, sql), 3);
}

/* crawltop.counter_shard is a setting any session can set: a forged value
 * (another session's shard, compaction's shard 0, not a number) must not
 * let a transaction write a shard whose slot it does not hold locked
 * (counter_shard() locks it). */
static void forged_shard_setting_is_not_trusted(void **state)
{
	struct ct_store *s = *state;
	int64_t job = pgt_job(s, "fs", "fs.example", 5, "fifo");
	enq(s, job, "/fs/", 10, 0, 0, NULL, NULL);
	char sql[300];
	/* a failure with a retry left counts through the trigger, in a
	 * writer shard (claims append deltas and take none) */
	struct ct_claim k = pgt_claim(s, "fs", job, 4, 60);
	assert_int_equal(k.n, 4);
	const char *held = MY_SHARDS " AND shard = "
		"current_setting('crawltop.counter_shard')::integer";
	const char *forged[] = {"7", "0", "33", "x"};
	for (size_t i = 0; i < sizeof forged / sizeof *forged; i++) {
		char set[100];
		snprintf(set, sizeof set, "SET crawltop.counter_shard = '%s'",
			 forged[i]);
		pgt_exec(s, set);
		pgt_exec(s, "BEGIN");
		snprintf(sql, sizeof sql, "SELECT count(*) FROM crawltop.fail("
			 "'fs', ARRAY[%" PRId64 "]::bigint[], 'x')", k.tasks[i].id);
		assert_int_equal(pgt_int(s, sql), 1);
		/* the shard written is one this transaction holds */
		if (pgt_int(s, held) != 1) {
			char *shard = pgt_text(s, "SELECT current_setting("
					       "'crawltop.counter_shard')", 0, NULL);
			fail_msg("with crawltop.counter_shard = '%s' the claim "
				 "wrote shard %s without holding its lock",
				 forged[i], shard);
		}
		pgt_exec(s, "COMMIT");
		pgt_exec(s, "RESET crawltop.counter_shard");
	}
	ct_claim_free(&k);
}

/* Advisory locks have no privileges: a role that may only connect takes
 * every key the store used to take for its counter shards (1..32),
 * compaction (0) and settings_put. Claims, completions, compaction and a
 * settings change go on without waiting for them (lock_timeout 1 s would
 * fail a wait); the shard slots' row locks are not the role's to take. */
static void advisory_locks_stop_no_writer(void **state)
{
	struct ct_store *s = *state, *a;
	struct ct_error err = {{0}};
	char dsn[600];
	pgt_exec(s, "DROP ROLE IF EXISTS ct_anyone; CREATE ROLE ct_anyone LOGIN");
	snprintf(dsn, sizeof dsn, "%s user=ct_anyone", pgt_dsn("ct_stats"));
	if (ct_store_open(dsn, &a, &err) != CT_OK)
		fail_msg("%s", err.msg);
	pgt_exec(a, "SELECT count(pg_advisory_lock(1668572020, s)) FROM "
		 "generate_series(0, 32) s");
	pgt_exec(a, "SELECT pg_advisory_lock(7236150011)");
	assert_int_not_equal(ct_store_exec(a, "test", "SELECT 1 FROM "
					   "crawltop.counter_slots FOR UPDATE",
					   &err), CT_OK);
	int64_t job = pgt_job(s, "adv", "adv.example", 5, "fifo");
	enq(s, job, "/adv/", 40, 0, 0, NULL, NULL);
	pgt_exec(s, "SET lock_timeout = '1s'");
	for (int i = 0; i < 20; i++) {
		struct ct_claim k;
		if (ct_store_claim(s, "adv", job, 2, 0, &k, &err) != CT_OK)
			fail_msg("claim %d beside the held advisory locks: %s", i,
				 err.msg);
		assert_int_equal(k.n, 2);
		int64_t ids[2] = {k.tasks[0].id, k.tasks[1].id};
		size_t done;
		if (ct_store_complete(s, "adv", ids, 2, &done, &err) != CT_OK)
			fail_msg("complete %d: %s", i, err.msg);
		assert_int_equal(done, 2);
		ct_claim_free(&k);
	}
	assert_true(pgt_int(s, "SELECT crawltop.compact_counts()") >= 1);
	assert_int_equal(pgt_int(s, "SELECT (crawltop.settings_put(value || "
				 "'{\"default_priority\": 4}', version)).changed "
				 "FROM crawltop.settings ORDER BY version DESC "
				 "LIMIT 1"), 1);
	pgt_exec(s, "RESET lock_timeout");
	ct_store_close(a);
	pgt_assert_counts_exact(s, "claims beside held advisory locks");
	assert_int_equal(pgt_int(s, "SELECT count(*) FROM crawltop.tasks WHERE "
				 "status = 'completed'"), 40);
}

static void next_tasks_follow_claim_order(void **state)
{
	struct ct_store *s = *state;
	struct ct_error err = {{0}};
	int64_t a = pgt_job(s, "na", "na.example", 4, "frontier");
	int64_t b = pgt_job(s, "nb", "nb.example", 2, "frontier");
	int64_t p = pgt_job(s, "np", "np.example", 1, "frontier");
	enq(s, a, "/a/", 40, 13.7, 1, "article", "sitemap");
	enq(s, b, "/b/", 30, 29.3, -1, NULL, NULL);
	enq(s, p, "/p/", 10, 3, 0, NULL, NULL);
	long rows;
	assert_int_equal(ct_store_job_act(s, p, CT_JOB_PAUSE, &rows, &err), CT_OK);

	struct ct_next_tasks n;
	assert_int_equal(ct_store_next_tasks(s, 0, 50, &n, &err), CT_OK);
	assert_int_equal(n.n, 50);
	/* the first 30 are b's (priority 2), then a's; the paused job's none */
	assert_int_equal(n.tasks[0].job_id, b);
	assert_int_equal(n.tasks[30].job_id, a);
	assert_string_equal(n.tasks[30].type, "article");
	assert_string_equal(n.tasks[30].discovery_method, "sitemap");
	assert_int_equal(n.tasks[30].depth, 1);
	assert_null(n.tasks[0].type);
	assert_int_equal(n.tasks[0].depth, -1);
	assert_true(n.tasks[0].discovered_us > 0);
	/* claims one by one hand out the same tasks in the same order */
	for (size_t i = 0; i < n.n; i++) {
		struct ct_claim k = pgt_claim(s, "n", 0, 1, 0);
		assert_int_equal(k.n, 1);
		if (k.tasks[0].id != n.tasks[i].task_id)
			fail_msg("claim %zu handed out task %lld, next_tasks said "
				 "%lld", i, (long long)k.tasks[0].id,
				 (long long)n.tasks[i].task_id);
		assert_string_equal(k.tasks[0].path, n.tasks[i].path);
		assert_true(k.tasks[0].score == n.tasks[i].score);
		assert_int_equal(k.tasks[0].cls, n.tasks[i].cls);
		assert_int_equal(k.tasks[0].job_priority, n.tasks[i].job_priority);
		ct_claim_free(&k);
	}
	ct_next_tasks_free(&n);

	/* one job: its own order */
	assert_int_equal(ct_store_next_tasks(s, a, 5, &n, &err), CT_OK);
	assert_int_equal(n.n, 5);
	struct ct_claim k = pgt_claim(s, "n", a, 5, 0);
	for (size_t i = 0; i < 5; i++)
		assert_int_equal(k.tasks[i].id, n.tasks[i].task_id);
	ct_claim_free(&k);
	ct_next_tasks_free(&n);
	/* a paused job hands out nothing, and lists nothing */
	assert_int_equal(ct_store_next_tasks(s, p, 5, &n, &err), CT_OK);
	assert_int_equal(n.n, 0);
	ct_next_tasks_free(&n);

	assert_int_equal(ct_store_next_tasks(s, 0, 0, &n, &err), CT_ERANGE);
	assert_non_null(strstr(err.msg, "next tasks: next tasks limit 0 is "
			       "outside 1..1000"));
	assert_int_equal(ct_store_next_tasks(s, 0, 1001, &n, &err), CT_ERANGE);
	assert_int_equal(ct_store_next_tasks(s, 4242, 5, &n, &err), CT_ENOENT);
}

/* ---- shapes ------------------------------------------------------------ */

static void read_api_shapes(void **state)
{
	struct ct_store *s = *state;
	struct ct_error err = {{0}};
	/* the exact result types the console codes against */
	static const char *const want[][2] = {
		{"crawltop.dashboard_jobs()",
		 "TABLE(job_id bigint, name text, domain text, mode text, "
		 "priority smallint, status text, total_pages integer, "
		 "pending bigint, running bigint, retrying bigint, "
		 "completed bigint, failed bigint, "
		 "skipped bigint, claims_per_s double precision, "
		 "completions_per_s double precision)"},
		{"crawltop.dashboard_cells(bigint)",
		 "TABLE(dim text, key text, n bigint)"},
		{"crawltop.rate_series(bigint,integer)",
		 "TABLE(second timestamp with time zone, claims bigint, "
		 "completions bigint)"},
		{"crawltop.next_tasks(bigint,integer)",
		 "TABLE(task_id bigint, job_id bigint, path text, "
		 "score double precision, class smallint, job_priority smallint, "
		 "created_at timestamp with time zone, depth integer, type text, "
		 "discovery_method text)"},
	};
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		const char *params[] = {want[i][0]};
		char *got = pgt_text(s, "SELECT pg_get_function_result($1::regprocedure)",
				     1, params);
		assert_string_equal(got, want[i][1]);
		free(got);
	}

	/* every fixed key, in order, even with no tasks at all */
	int64_t job = pgt_job(s, "shape", "shape.example", 5, "fifo");
	struct ct_stat_cells c;
	assert_int_equal(ct_store_stats_cells(s, job, &c, &err), CT_OK);
	static const char *const keys =
		"status:pending status:running status:retrying status:completed "
		"status:failed status:skipped class:P0 class:P1 class:P2 class:P3 depth:0 "
		"depth:1 depth:2 depth:3+ depth:unknown priority:1 priority:2 "
		"priority:3 priority:4 priority:5 priority:6 priority:7 "
		"priority:8 priority:9 priority:10 score:0-20 score:20-40 "
		"score:40-60 score:60-80 score:80-100 rank:P0 rank:P1 rank:P2 "
		"rank:P3 rank:unranked ";
	char got[1024] = "";
	for (size_t i = 0; i < c.n; i++) {
		assert_int_equal(c.cells[i].n, 0);
		snprintf(got + strlen(got), sizeof got - strlen(got), "%s:%s ",
			 c.cells[i].dim, c.cells[i].key);
	}
	assert_string_equal(got, keys);
	ct_stat_cells_free(&c);

	/* heat cells come after depth; NULL method or type shows as 'none' */
	enq(s, job, "/x/", 3, 0, 0, "article", NULL);
	enq(s, job, "/y/", 2, 0, 5, NULL, "sitemap");
	assert_int_equal(ct_store_stats_cells(s, 0, &c, &err), CT_OK);
	assert_int_equal(c.n, 35 + 2);
	assert_string_equal(c.cells[15].dim, "heat");
	assert_string_equal(c.cells[15].key, "none|article");
	assert_int_equal(c.cells[15].n, 3);
	assert_string_equal(c.cells[16].key, "sitemap|none");
	assert_int_equal(c.cells[16].n, 2);
	assert_string_equal(c.cells[17].dim, "priority");
	assert_int_equal(ct_stat_cells_get(&c, "depth", "3+"), 2);
	/* a fifo job's tasks are never ranked: not "unranked" URLs */
	assert_int_equal(ct_stat_cells_get(&c, "rank", "unranked"), 0);
	assert_int_equal(ct_stat_cells_get(&c, "priority", "5"), 5);
	assert_int_equal(ct_stat_cells_get(&c, "nope", "x"), 0);
	ct_stat_cells_free(&c);
	assert_int_equal(ct_store_stats_cells(s, 4242, &c, &err), CT_ENOENT);
	assert_non_null(strstr(err.msg, "dashboard cells: job 4242 does not exist "
			       "(SQLSTATE P0002)"));

	/* the reads work in a read-only session (as on a hot standby) */
	pgt_exec(s, "SET default_transaction_read_only = on");
	struct ct_next_tasks nt;
	struct ct_rate_series rs;
	assert_int_equal(ct_store_stats_cells(s, job, &c, &err), CT_OK);
	ct_stat_cells_free(&c);
	assert_int_equal(ct_store_stats_rates(s, 0, 300, &rs, &err), CT_OK);
	ct_rate_series_free(&rs);
	assert_int_equal(ct_store_next_tasks(s, job, 3, &nt, &err), CT_OK);
	assert_int_equal(nt.n, 3);
	ct_next_tasks_free(&nt);
	struct ct_job_stats_list j;
	assert_int_equal(ct_store_stats_jobs(s, &j, &err), CT_OK);
	pgt_exec(s, "RESET default_transaction_read_only");
	assert_int_equal(j.n, 1);
	assert_string_equal(j.jobs[0].name, "shape");
	assert_string_equal(j.jobs[0].domain, "shape.example");
	assert_string_equal(j.jobs[0].mode, "fifo");
	assert_string_equal(j.jobs[0].status, "pending");
	assert_int_equal(j.jobs[0].priority, 5);
	assert_int_equal(j.jobs[0].total_pages, 5);
	assert_int_equal(j.jobs[0].pending, 5);
	ct_job_stats_list_free(&j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(counters_follow_every_change, fresh, close_store),
		cmocka_unit_test_setup_teardown(counters_exact_under_concurrency, fresh, close_store),
		cmocka_unit_test_setup_teardown(writers_do_not_queue_on_counters, fresh, close_store),
		cmocka_unit_test_setup_teardown(reads_never_scan_tasks, fresh, close_store),
		cmocka_unit_test_setup_teardown(rates_count_and_ticks_stay_bounded, fresh, close_store),
		cmocka_unit_test_setup_teardown(rates_swept_by_shard_writers, fresh, close_store),
		cmocka_unit_test_setup_teardown(forged_shard_setting_is_not_trusted, fresh, close_store),
		cmocka_unit_test_setup_teardown(advisory_locks_stop_no_writer, fresh, close_store),
		cmocka_unit_test_setup_teardown(next_tasks_follow_claim_order, fresh, close_store),
		cmocka_unit_test_setup_teardown(read_api_shapes, fresh, close_store),
		cmocka_unit_test_setup_teardown(job_status_follows_tasks, fresh, close_store),
		cmocka_unit_test_setup_teardown(retries_count_apart_from_running, fresh, close_store),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
