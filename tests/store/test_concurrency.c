/* test_concurrency.c: 8 workers claim and complete N tasks at once
 * (issue 3: 8 x 100,000); afterwards every task is completed exactly once.
 *
 * Each worker is a thread with its own connection, claiming from all jobs
 * with its own batch size (1 to 100) and completing what it claimed; a few
 * claims are released and claimed again by whoever comes next. Every id a
 * worker's complete call reports is recorded; the union must hold each
 * task exactly once, and the table must agree. The odd-numbered workers
 * complete through claim_next (0022): each call completes what the worker
 * holds and claims its next batch in one transaction. CT_CONC_TASKS
 * overrides N (default 100000). */
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

#include "pgtest.h"

#define WORKERS 8

struct worker {
	int no;
	int batch;
	int64_t *done;  /* ids this worker completed */
	size_t n_done, cap;
	long claims, releases, empty;
	char error[CT_ERROR_LEN + 64];
};

static void record(struct worker *w, const int64_t *ids, size_t n)
{
	if (n == 0) /* claim_next with nothing held (memcpy wants a block) */
		return;
	if (w->n_done + n > w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 4096;
		while (cap < w->n_done + n)
			cap *= 2;
		int64_t *p = realloc(w->done, cap * sizeof *p);
		if (!p) {
			snprintf(w->error, sizeof w->error, "out of memory");
			return;
		}
		w->done = p;
		w->cap = cap;
	}
	memcpy(w->done + w->n_done, ids, n * sizeof *ids);
	w->n_done += n;
}

static void *work(void *arg)
{
	struct worker *w = arg;
	struct ct_store *s;
	struct ct_error err = {{0}};
	char name[32];
	snprintf(name, sizeof name, "worker-%d", w->no);
	if (ct_store_open(pgt_dsn("ct_conc"), &s, &err) != CT_OK) {
		snprintf(w->error, sizeof w->error, "%s", err.msg);
		return NULL;
	}
	int64_t *ids = malloc(100 * sizeof *ids);
	size_t held = 0; /* claim_next: ids[0..held) wait for the next call */
	int next = w->no % 2;
	unsigned seed = (unsigned)w->no * 2654435761u;
	while (!w->error[0] && ids) {
		struct ct_claim c;
		ct_status st = next ? ct_store_claim_next(s, name, ids, held, 0,
							  w->batch, 0, &c, &err)
				    : ct_store_claim(s, name, 0, w->batch, 0, &c,
						     &err);
		if (st != CT_OK) {
			snprintf(w->error, sizeof w->error, "%s: %s",
				 next ? "claim_next" : "claim", err.msg);
			break;
		}
		record(w, ids, held); /* claim_next completed every one */
		held = 0;
		w->claims++;
		if (c.n == 0) {
			/* rows locked by other claimers are skipped: only stop
			 * after several empty claims in a row */
			if (++w->empty >= 5)
				break;
			struct timespec ts = {0, 20 * 1000 * 1000};
			nanosleep(&ts, NULL);
			continue;
		}
		w->empty = 0;
		for (size_t i = 0; i < c.n; i++)
			ids[i] = c.tasks[i].id;
		size_t done = 0;
		seed = seed * 1103515245u + 12345u;
		if ((seed >> 16) % 100 == 0) {
			/* 1 %: give the batch back */
			if (ct_store_release(s, name, ids, c.n, &done, &err) != CT_OK)
				snprintf(w->error, sizeof w->error, "release: %s",
					 err.msg);
			w->releases++;
		} else if (next) {
			held = c.n;
		} else if (ct_store_complete(s, name, ids, c.n, &done, &err) !=
			   CT_OK) {
			snprintf(w->error, sizeof w->error, "complete: %s", err.msg);
		} else {
			record(w, ids, done);
		}
		ct_claim_free(&c);
	}
	if (held && !w->error[0])
		snprintf(w->error, sizeof w->error, "%zu tasks held at the end",
			 held);
	free(ids);
	ct_store_close(s);
	return NULL;
}

static int id_cmp(const void *pa, const void *pb)
{
	int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
	return (a > b) - (a < b);
}

static double seconds(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) + (b->tv_nsec - a->tv_nsec) / 1e9;
}

static void workers_complete_each_task_once(void **state)
{
	const char *env = getenv("CT_CONC_TASKS");
	long n_tasks = env ? atol(env) : 100000;
	assert_true(n_tasks >= 1000 && n_tasks % 1000 == 0);
	struct ct_store *s = pgt_fresh("ct_conc", 1);

	/* 5 jobs, priorities 1..9, fifo, hierarchy and frontier scores */
	enum { JOBS = 5, BATCH = 1000 };
	static const char *const modes[JOBS] = {"frontier", "fifo", "hierarchy",
						 "frontier", "frontier"};
	int64_t job[JOBS];
	for (int j = 0; j < JOBS; j++) {
		char jn[16], dn[32];
		snprintf(jn, sizeof jn, "conc%d", j);
		snprintf(dn, sizeof dn, "conc%d.example", j);
		job[j] = pgt_job(s, jn, dn, 1 + 2 * j, modes[j]);
	}
	static char names[BATCH][32];
	const char *paths[BATCH];
	double scores[BATCH];
	struct timespec t0, t1, t2;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (long b = 0; b < n_tasks / BATCH; b++) {
		int j = (int)(b % JOBS);
		for (int i = 0; i < BATCH; i++) {
			snprintf(names[i], sizeof names[i], "/%ld/%d", b, i);
			paths[i] = names[i];
			scores[i] = (double)((b * 7 + i * 7919) % 10001) / 100.0;
		}
		struct ct_enqueue_result r = pgt_enqueue(s, job[j], paths, BATCH,
			strcmp(modes[j], "frontier") == 0 ? scores : NULL);
		assert_int_equal(r.inserted, BATCH);
	}
	pgt_exec(s, "ANALYZE crawltop.tasks");
	clock_gettime(CLOCK_MONOTONIC, &t1);

	static const int batch[WORKERS] = {1, 5, 10, 25, 50, 100, 100, 100};
	struct worker w[WORKERS];
	pthread_t th[WORKERS];
	for (int i = 0; i < WORKERS; i++) {
		w[i] = (struct worker){.no = i, .batch = batch[i]};
		assert_int_equal(pthread_create(&th[i], NULL, work, &w[i]), 0);
	}
	for (int i = 0; i < WORKERS; i++)
		pthread_join(th[i], NULL);
	clock_gettime(CLOCK_MONOTONIC, &t2);

	size_t total = 0;
	long claims = 0, releases = 0;
	for (int i = 0; i < WORKERS; i++) {
		if (w[i].error[0])
			fail_msg("worker %d: %s", i, w[i].error);
		total += w[i].n_done;
		claims += w[i].claims;
		releases += w[i].releases;
	}
	int64_t *all = malloc((total ? total : 1) * sizeof *all);
	assert_non_null(all);
	size_t k = 0;
	for (int i = 0; i < WORKERS; i++) {
		memcpy(all + k, w[i].done, w[i].n_done * sizeof *all);
		k += w[i].n_done;
		free(w[i].done);
	}
	qsort(all, total, sizeof *all, id_cmp);
	for (size_t i = 1; i < total; i++)
		if (all[i] == all[i - 1])
			fail_msg("task %lld was completed twice", (long long)all[i]);
	free(all);
	if ((long)total != n_tasks)
		fail_msg("%zu completions reported for %ld tasks", total, n_tasks);
	char *st = pgt_text(s, "SELECT string_agg(status || '=' || n, ' ' ORDER BY status) "
			    "FROM (SELECT status, count(*) AS n FROM crawltop.tasks "
			    "GROUP BY status) x", 0, NULL);
	char want[64];
	snprintf(want, sizeof want, "completed=%ld", n_tasks);
	assert_string_equal(st, want);
	free(st);
	assert_int_equal(pgt_int(s, "SELECT count(*) FROM crawltop.tasks WHERE "
				 "completed_at IS NULL OR lease_owner IS NOT NULL "
				 "OR retry_count <> 0"), 0);
	printf("# %ld tasks: enqueued in %.1f s; %d workers claimed and completed "
	       "them in %.1f s (%.0f tasks/s, %ld claims, %ld batches released)\n",
	       n_tasks, seconds(&t0, &t1), WORKERS, seconds(&t1, &t2),
	       n_tasks / seconds(&t1, &t2), claims, releases);
	ct_store_close(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(workers_complete_each_task_once),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
