/* test_guard.c: the starvation guard (seed 001, 0005_claims_and_modes.sql).
 *
 * Under a continuous flood of priority-1 work a pending priority-10 task
 * is never claimed without the guard, and with it is claimed within the
 * documented bound G + m (A + 1 + W) / R (measured and printed); one in m
 * of a session's slots goes to starving tasks, oldest first, for all-jobs
 * and one-job claims; EXPLAIN (auto_explain on the real claim calls) shows
 * index scans and no Sort on both paths; fail with backoff up to the
 * maximum, then failed, and release still hold with the guard; paused
 * jobs stay out and resuming restarts the clock; bad guard settings are
 * refused. */
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

static int fresh(void **state)
{
	*state = pgt_fresh("ct_guard", 1);
	return 0;
}

static int close_store(void **state)
{
	ct_store_close(*state);
	return 0;
}

/* A new settings version with the guard's two values (JSON texts). */
static void set_guard(struct ct_store *s, const char *seconds, const char *every)
{
	const char *p[] = {seconds, every};
	free(pgt_text(s, "INSERT INTO crawltop.settings (value, note) SELECT "
		      "jsonb_set(jsonb_set(value, '{store,starvation_seconds}', "
		      "$1::jsonb), '{store,starvation_every}', $2::jsonb), "
		      "'test_guard' FROM crawltop.settings ORDER BY version DESC "
		      "LIMIT 1 RETURNING version", 2, p));
}

/* Enqueue n paths "/<prefix>/<first + i>" with one score each (frontier
 * jobs) or none (fifo jobs: scores NULL). */
static void enq_range(struct ct_store *s, int64_t job, const char *prefix,
		      int first, int n, const double *scores)
{
	static char names[1000][48];
	const char *paths[1000];
	assert_true(n <= 1000);
	for (int i = 0; i < n; i++) {
		snprintf(names[i], sizeof names[i], "/%s/%d", prefix, first + i);
		paths[i] = names[i];
	}
	struct ct_enqueue_result r = pgt_enqueue(s, job, paths, (size_t)n, scores);
	assert_int_equal(r.inserted, n);
}

static void complete_all(struct ct_store *s, const char *worker,
			 const struct ct_claim *c)
{
	int64_t ids[10000];
	struct ct_error err = {{0}};
	size_t done = 0;
	for (size_t i = 0; i < c->n; i++)
		ids[i] = c->tasks[i].id;
	if (c->n && ct_store_complete(s, worker, ids, c->n, &done, &err) != CT_OK)
		fail_msg("%s", err.msg);
	assert_int_equal(done, c->n);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static char *id_text(int64_t id)
{
	static char b[24];
	snprintf(b, sizeof b, "%lld", (long long)id);
	return b;
}

/* The flood: jobs "flood" (priority 1, frontier) and "low" (priority 10)
 * with one task T; `old` score-0 flood tasks enqueued before T, which the
 * flood's higher scores keep out of SPEC.md's order for ever. */
struct flood {
	int64_t flood_job, low_job, t_id;
	double t_pending; /* T's pending_since, epoch seconds */
	int next;         /* next flood path number */
	int iter;
};

static void flood_setup(struct ct_store *s, struct flood *f, int old)
{
	*f = (struct flood){0};
	f->flood_job = pgt_job(s, "flood", "flood.example", 1, "frontier");
	f->low_job = pgt_job(s, "low", "low.example", 10, "frontier");
	double zero[1000] = {0};
	for (int i = 0; i < old; i += 1000)
		enq_range(s, f->flood_job, "old", i, old - i < 1000 ? old - i : 1000,
			  zero);
	double fifty = 50;
	enq_range(s, f->low_job, "t", 0, 1, &fifty);
	f->t_id = pgt_int(s, "SELECT t.id FROM crawltop.tasks t JOIN crawltop.jobs j "
			  "ON j.id = t.job_id WHERE j.name = 'low'");
	f->t_pending = pgt_double(s, "SELECT extract(epoch FROM pending_since) "
				  "FROM crawltop.tasks t JOIN crawltop.jobs j ON "
				  "j.id = t.job_id WHERE j.name = 'low'");
}

/* One round of the flood: 20 new priority-1 tasks, each round scoring
 * higher than the last (newest first in SPEC.md's order), then one claim
 * of 10 from all jobs, completed at once. Returns how many of the claimed
 * tasks were "old" ones or T (only the guard hands those out); *got_t is
 * set when T was among them. */
static int flood_round(struct ct_store *s, struct flood *f, int *got_t)
{
	double sc[20];
	for (int i = 0; i < 20; i++) {
		double v = 50 + f->iter * 0.01;
		sc[i] = v > 100 ? 100 : v;
	}
	enq_range(s, f->flood_job, "f", f->next, 20, sc);
	f->next += 20;
	f->iter++;
	struct ct_claim c = pgt_claim(s, "flooder", 0, 10, 0);
	assert_int_equal(c.n, 10);
	int guarded = 0;
	for (size_t i = 0; i < c.n; i++) {
		if (c.tasks[i].id == f->t_id)
			*got_t = 1;
		if (c.tasks[i].id == f->t_id || c.tasks[i].score == 0)
			guarded++;
	}
	complete_all(s, "flooder", &c);
	ct_claim_free(&c);
	return guarded;
}

/* Without the guard (starvation_every 0) the flood never lets T, or any
 * old task, through, however long they wait. */
static void flood_starves_without_guard(void **state)
{
	struct ct_store *s = *state;
	set_guard(s, "0.2", "0");
	struct flood f;
	flood_setup(s, &f, 50);
	double t_end = now_s() + 1.0; /* five times the guard age */
	int got_t = 0, guarded = 0, rounds = 0;
	while (now_s() < t_end) {
		guarded += flood_round(s, &f, &got_t);
		rounds++;
	}
	assert_false(got_t);
	assert_int_equal(guarded, 0);
	printf("# without guard: %d claims of 10 in 1 s, the priority-10 task "
	       "and 50 old tasks never claimed\n", rounds);
}

/* With the guard: T is claimed within the documented bound. */
static void flood_guard_bound(void **state)
{
	struct ct_store *s = *state;
	const double G = 1.0;
	const int m = 10, W = 1, old = 80;
	set_guard(s, "1.0", "10");
	struct flood f;
	flood_setup(s, &f, old);
	double t_star = f.t_pending + G; /* T starts starving */
	int got_t = 0, armed = 0, calls_after = 0, rounds = 0;
	long long ahead = -1;
	double t_arm = 0, t_claim = 0, max_round = 0;
	while (!got_t) {
		if (!armed && now_s() >= t_star) {
			/* A: tasks ahead of T in the starving order now */
			char *a = pgt_text(s, "SELECT count(*) FROM crawltop.tasks t, "
				"crawltop.tasks x WHERE x.id = $1 AND t.status = "
				"'pending' AND t.job_priority <= 10 AND "
				"(t.pending_since, t.id) < (x.pending_since, x.id)", 1,
				(const char *const[]){id_text(f.t_id)});
			ahead = atoll(a);
			free(a);
			armed = 1;
			t_arm = now_s();
		}
		double t_round = now_s();
		int g = flood_round(s, &f, &got_t);
		t_round = now_s() - t_round;
		if (t_round > max_round)
			max_round = t_round;
		rounds++;
		if (armed) {
			calls_after++;
			/* every claim of 10 has exactly one starving slot, and
			 * only the guard hands out old tasks or T */
			assert_int_equal(g, 1);
		}
		if (got_t)
			t_claim = now_s();
		if (now_s() > t_star + 20)
			fail_msg("T not claimed 20 s after it started starving "
				 "(%d claims after, A = %lld)", calls_after, ahead);
	}
	assert_true(armed);
	char *w = pgt_text(s, "SELECT extract(epoch FROM started_at - "
			   "pending_since) FROM crawltop.tasks WHERE id = $1", 1,
			   (const char *const[]){id_text(f.t_id)});
	double wait = strtod(w, NULL);
	free(w);
	/* R: tasks claimed per second from the moment T starved */
	double r = 10.0 * calls_after / (t_claim - t_arm);
	double bound = G + m * (ahead + 1 + W) / r;
	printf("# guard: G = %.1f s, m = %d, W = %d; A = %lld tasks ahead of T "
	       "when it started starving; T claimed by claim %d after that "
	       "(at most A + 1 = %lld); R = %.0f tasks/s; wait %.3f s, bound "
	       "G + m (A + 1 + W) / R = %.3f s (the test sees time in rounds "
	       "of up to %.3f s); %d claims of 10 in all\n", G, m, W, ahead,
	       calls_after, ahead + 1, r, wait, bound, max_round, rounds);
	assert_true(wait >= G);
	/* the bound in claims: exact, whatever the timing */
	assert_true(calls_after <= ahead + 1);
	/* and in seconds, to the test's granularity: it notices that T
	 * starves at the start of a round */
	if (wait > bound + max_round)
		fail_msg("wait %.3f s exceeds the bound %.3f s (+ %.3f s)", wait,
			 bound, max_round);
}

/* How many of the claimed tasks belong to job. */
static int count_of_job(const struct ct_claim *c, int64_t job)
{
	int k = 0;
	for (size_t i = 0; i < c->n; i++)
		k += c->tasks[i].job_id == job;
	return k;
}

/* One in m of a session's slots goes to starving tasks: claims of one
 * task get one every m-th call, claims of 25 alternate 2 and 3 (m = 10);
 * a one-job claim takes its job's oldest; each session counts its own. */
static void one_in_m_slots(void **state)
{
	struct ct_store *s = *state;
	set_guard(s, "60", "10");
	int64_t hot = pgt_job(s, "hot", "hot.example", 1, "fifo");
	int64_t cold = pgt_job(s, "cold", "cold.example", 10, "fifo");
	int64_t one = pgt_job(s, "one", "one.example", 5, "frontier");
	for (int i = 0; i < 1000; i += 500)
		enq_range(s, hot, "h", i, 500, NULL);
	enq_range(s, cold, "c", 0, 50, NULL);
	double sc[20];
	for (int i = 0; i < 20; i++)
		sc[i] = 90 - i; /* /o/19 has the lowest score */
	enq_range(s, one, "o", 0, 20, sc);
	/* cold's tasks and /o/19 have waited an hour; hot's are fresh */
	pgt_exec(s, "UPDATE crawltop.tasks SET pending_since = now() - "
		 "interval '1 hour' WHERE job_id = (SELECT id FROM crawltop.jobs "
		 "WHERE name = 'cold') OR page_id = (SELECT id FROM crawltop.pages "
		 "WHERE path = '/o/19')");

	for (int call = 1; call <= 30; call++) {
		struct ct_claim c = pgt_claim(s, "w", 0, 1, 0);
		assert_int_equal(c.n, 1);
		int want = call % 10 == 0;
		if ((c.tasks[0].job_id == cold) != want)
			fail_msg("call %d of 1 task: got job %lld, want %s", call,
				 (long long)c.tasks[0].job_id, want ? "cold" : "hot");
		ct_claim_free(&c);
	}
	/* 30 slots so far: 25-task claims get 2, 3, 2, 3 */
	static const int want25[] = {2, 3, 2, 3};
	for (int k = 0; k < 4; k++) {
		struct ct_claim c = pgt_claim(s, "w", 0, 25, 0);
		assert_int_equal(c.n, 25);
		assert_int_equal(count_of_job(&c, cold), want25[k]);
		/* the starving ones are the oldest: cold's, in id order */
		ct_claim_free(&c);
	}
	/* a second session counts from zero: its 10th slot is its first */
	struct ct_store *s2;
	struct ct_error err = {{0}};
	if (ct_store_open(pgt_dsn("ct_guard"), &s2, &err) != CT_OK)
		fail_msg("%s", err.msg);
	for (int call = 1; call <= 10; call++) {
		struct ct_claim c = pgt_claim(s2, "w2", 0, 1, 0);
		assert_int_equal(c.tasks[0].job_id == cold, call == 10);
		ct_claim_free(&c);
	}
	ct_store_close(s2);

	/* one-job claim of 10 (session s: 130 slots, so exactly one): the
	 * job's oldest, /o/19, then SPEC.md's order /o/0 .. /o/8 */
	struct ct_claim c = pgt_claim(s, "w", one, 10, 0);
	assert_int_equal(c.n, 10);
	static const char *const want_one[] = {"/o/0", "/o/1", "/o/2", "/o/3",
		"/o/4", "/o/5", "/o/6", "/o/7", "/o/8", "/o/19"};
	for (size_t i = 0; i < c.n; i++) /* sorted: score 90 .. 82, then 71 */
		assert_string_equal(c.tasks[i].path, want_one[i]);
	ct_claim_free(&c);
	/* cold lost exactly 3 + 10 + 1 tasks to the guard */
	assert_int_equal(pgt_int(s, "SELECT count(*) FROM crawltop.tasks WHERE "
		"status = 'running' AND job_id = (SELECT id FROM crawltop.jobs "
		"WHERE name = 'cold')"), 3 + 10 + 1);
}

/* Both paths of both claims: index range scans, no Sort, no Seq Scan. */
static void explain_both_paths(void **state)
{
	struct ct_store *s = *state;
	set_guard(s, "60", "10");
	enum { JOBS = 4, PER = 3000 };
	int64_t job[JOBS];
	static double sc[1000];
	for (int i = 0; i < 1000; i++)
		sc[i] = (double)((i * 7919) % 10000) / 100.0;
	for (int j = 0; j < JOBS; j++) {
		char name[16], dom[32];
		snprintf(name, sizeof name, "x%d", j);
		snprintf(dom, sizeof dom, "x%d.example", j);
		job[j] = pgt_job(s, name, dom, 1 + j * 3, "frontier");
		for (int i = 0; i < PER; i += 1000)
			enq_range(s, job[j], "p", i, 1000, sc);
	}
	/* a tenth of the tasks of every job but x0 have waited an hour */
	pgt_exec(s, "UPDATE crawltop.tasks SET pending_since = now() - "
		 "interval '1 hour' WHERE id % 10 = 0 AND job_id <> (SELECT id "
		 "FROM crawltop.jobs WHERE name = 'x0')");
	pgt_exec(s, "ANALYZE crawltop.tasks");

	struct pgt_plans p;
	pgt_plans_start(s, &p);
	int starved_all = 0, starved_one = 0;
	for (int i = 0; i < 8; i++) { /* past plpgsql's generic plan switch */
		struct ct_claim k = pgt_claim(s, "explainer", 0, 10, 0);
		assert_int_equal(k.n, 10);
		for (size_t t = 0; t < k.n; t++)
			starved_all += k.tasks[t].job_priority > 1;
		ct_claim_free(&k);
		k = pgt_claim(s, "explainer", job[2], 10, 0);
		assert_int_equal(k.n, 10);
		ct_claim_free(&k);
	}
	pgt_plans_stop(s);
	/* job x0 (priority 1) has 3000 tasks: only the guard hands out the
	 * other jobs', one per claim */
	assert_int_equal(starved_all, 8);
	starved_one = (int)pgt_int(s, "SELECT count(*) FROM crawltop.tasks "
		"WHERE status = 'running' AND id % 10 = 0 AND job_id = (SELECT id "
		"FROM crawltop.jobs WHERE name = 'x2')");
	assert_true(starved_one >= 8);

	static const struct {
		const char *a, *b, *index;
	} kinds[] = {
		{"q.job_priority <= 10", "ORDER BY q.job_priority", "queue_claim_all"},
		{"q.job_priority <= 10", "ORDER BY q.pending_since", "queue_starve_all"},
		{"q.job_id = p_job_id", "ORDER BY q.score DESC", "queue_claim_job"},
		{"q.job_id = p_job_id", "ORDER BY q.pending_since", "queue_starve_job"},
	};
	int seen[4] = {0};
	for (int i = 0; i < p.n; i++) {
		const char *t = p.text[i];
		for (int k = 0; k < 4; k++) {
			if (!strstr(t, kinds[k].a) || !strstr(t, kinds[k].b))
				continue;
			pgt_assert_index_scan(t, kinds[k].index, "claim");
			seen[k]++;
		}
	}
	for (int k = 0; k < 4; k++)
		if (seen[k] < 8)
			fail_msg("%s: expected 8 plans, saw %d (of %d notices)",
				 kinds[k].index, seen[k], p.n);
	pgt_plans_free(&p);
}

/* Status of a task as "status retry_count owner-is-null". */
static char *task_state(struct ct_store *s, int64_t id)
{
	return pgt_text(s, "SELECT status || ' ' || retry_count || ' ' || "
			"(lease_owner IS NULL) FROM crawltop.tasks WHERE id = $1", 1,
			(const char *const[]){id_text(id)});
}

static void expire(struct ct_store *s, int64_t id)
{
	free(pgt_text(s, "UPDATE crawltop.tasks SET lease_expires_at = now() - "
		      "interval '1 second' WHERE id = $1 RETURNING id", 1,
		      (const char *const[]){id_text(id)}));
}

/* Claim 2 from all jobs (m = 2: one starving slot each) and say whether
 * task id came out; everything claimed except id is completed. */
static int claims_task(struct ct_store *s, int64_t id)
{
	struct ct_claim c = pgt_claim(s, "w1", 0, 2, 0);
	int got = 0;
	int64_t other[2];
	size_t n = 0, done;
	struct ct_error err = {{0}};
	for (size_t i = 0; i < c.n; i++) {
		if (c.tasks[i].id == id)
			got = 1;
		else
			other[n++] = c.tasks[i].id;
	}
	if (n && ct_store_complete(s, "w1", other, n, &done, &err) != CT_OK)
		fail_msg("%s", err.msg);
	ct_claim_free(&c);
	return got;
}

/* Let task id wait a minute longer than it has (the guard age is 60 s):
 * time travel instead of sleeping, so that the test does not depend on
 * how fast the machine is. */
static void age(struct ct_store *s, int64_t id)
{
	free(pgt_text(s, "UPDATE crawltop.tasks SET pending_since = "
		      "pending_since - interval '61 seconds' WHERE id = $1 "
		      "RETURNING id", 1, (const char *const[]){id_text(id)}));
}

/* Whether task id became pending within the last 10 s. */
static int pending_recently(struct ct_store *s, int64_t id)
{
	char *t = pgt_text(s, "SELECT pending_since > now() - interval '10 "
			   "seconds' FROM crawltop.tasks WHERE id = $1", 1,
			   (const char *const[]){id_text(id)});
	int r = strcmp(t, "t") == 0;
	free(t);
	return r;
}

static int64_t task_at(struct ct_store *s, const char *path)
{
	char *t = pgt_text(s, "SELECT t.id FROM crawltop.tasks t JOIN "
			   "crawltop.pages p ON p.id = t.page_id WHERE p.path = $1",
			   1, (const char *const[]){path});
	int64_t id = atoll(t);
	free(t);
	return id;
}

/* Fail with backoff up to max_retries, then failed; release; pause and
 * resume: all still hold with a guard that would otherwise pick the task
 * (priority 10 under a priority-1 flood, guard age 60 s, m = 2). Every
 * way back to pending restarts the task's clock. */
static void guard_keeps_fail_release_pause(void **state)
{
	struct ct_store *s = *state;
	struct ct_error err = {{0}};
	set_guard(s, "60", "2");
	int64_t hot = pgt_job(s, "hot", "hot.example", 1, "fifo");
	int64_t low = pgt_job(s, "low", "low.example", 10, "fifo");
	for (int i = 0; i < 1000; i += 500)
		enq_range(s, hot, "h", i, 500, NULL);
	enq_range(s, low, "x", 0, 1, NULL);
	int64_t x = task_at(s, "/x/0");
	/* fresh: not yet starving, and the flood outranks it */
	assert_false(claims_task(s, x));
	age(s, x);
	static const int backoff[] = {10, 20, 40};
	for (int attempt = 0; attempt <= 3; attempt++) {
		/* starving: the next claim's starving slot takes it */
		if (!claims_task(s, x))
			fail_msg("attempt %d: starving task not claimed", attempt + 1);
		size_t retried = 9, failed = 9;
		assert_int_equal(ct_store_fail(s, "w1", &x, 1, "HTTP 503", &retried,
					       &failed, &err), CT_OK);
		if (attempt == 3) {
			assert_int_equal(failed, 1);
			break;
		}
		assert_int_equal(retried, 1);
		char *st = pgt_text(s, "SELECT status || ' ' || round(extract(epoch "
			"FROM lease_expires_at - now()))::int FROM crawltop.tasks "
			"WHERE id = $1", 1, (const char *const[]){id_text(x)});
		char want[32];
		snprintf(want, sizeof want, "running %d", backoff[attempt]);
		assert_string_equal(st, want);
		free(st);
		/* in backoff it is not pending: no path hands it out, however
		 * long it has waited */
		age(s, x);
		assert_false(claims_task(s, x));
		assert_false(claims_task(s, x));
		/* backoff over: the reaper makes it pending, clock restarted */
		expire(s, x);
		assert_false(claims_task(s, x));
		st = task_state(s, x);
		char w2[32];
		snprintf(w2, sizeof w2, "pending %d true", attempt + 1);
		assert_string_equal(st, w2);
		free(st);
		assert_true(pending_recently(s, x));
		assert_false(claims_task(s, x));
		age(s, x);
	}
	char *st = task_state(s, x);
	assert_string_equal(st, "failed 3 true");
	free(st);
	age(s, x);
	for (int i = 0; i < 4; i++)
		assert_false(claims_task(s, x));

	/* release: pending at once, no attempt counted, clock restarted */
	enq_range(s, low, "y", 0, 1, NULL);
	int64_t y = task_at(s, "/y/0");
	age(s, y);
	assert_true(claims_task(s, y));
	size_t done = 0;
	assert_int_equal(ct_store_release(s, "w1", &y, 1, &done, &err), CT_OK);
	assert_int_equal(done, 1);
	st = task_state(s, y);
	assert_string_equal(st, "pending 0 true");
	free(st);
	assert_true(pending_recently(s, y));
	assert_false(claims_task(s, y));
	age(s, y);
	assert_true(claims_task(s, y));
	assert_int_equal(ct_store_complete(s, "w1", &y, 1, &done, &err), CT_OK);

	/* pause: a starving task of a paused job stays put; resume restarts
	 * its clock */
	enq_range(s, low, "z", 0, 1, NULL);
	int64_t z = task_at(s, "/z/0");
	long rows;
	assert_int_equal(ct_store_job_act(s, low, CT_JOB_PAUSE, &rows, &err), CT_OK);
	age(s, z);
	for (int i = 0; i < 3; i++)
		assert_false(claims_task(s, z));
	assert_int_equal(ct_store_job_act(s, low, CT_JOB_RESUME, &rows, &err), CT_OK);
	assert_true(pending_recently(s, z));
	assert_false(claims_task(s, z));
	age(s, z);
	assert_true(claims_task(s, z));
	(void)hot;
}

/* Bad guard settings are refused with the value and the rule, and the
 * current settings stay as they were. */
static void bad_settings_refused(void **state)
{
	struct ct_store *s = *state;
	struct ct_error err = {{0}};
	long long before = pgt_int(s, "SELECT max(version) FROM crawltop.settings");
	static const struct {
		const char *key, *value, *frag;
	} bad[] = {
		{"starvation_seconds", "0", "store.starvation_seconds = 0 is not allowed"},
		{"starvation_seconds", "-5", "(0, 2592000]"},
		{"starvation_seconds", "\"300\"", "starvation_seconds = \"300\""},
		{"starvation_seconds", "2592001", "(0, 2592000]"},
		{"starvation_every", "1", "store.starvation_every = 1 is not allowed"},
		{"starvation_every", "2.5", "an integer, 2..1000"},
		{"starvation_every", "1001", "or 0 (guard off)"},
		{"starvation_every", "-2", "starvation_every = -2"},
		{"starvation_every", "true", "starvation_every = true"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char path[64];
		snprintf(path, sizeof path, "{store,%s}", bad[i].key);
		const char *p[] = {path, bad[i].value};
		char buf[8];
		ct_status st = ct_store_query(s, "settings", "INSERT INTO "
			"crawltop.settings (value) SELECT jsonb_set(value, $1::text[], "
			"$2::jsonb) FROM crawltop.settings ORDER BY version DESC "
			"LIMIT 1", 2, p, buf, sizeof buf, NULL, &err);
		if (st == CT_OK || !strstr(err.msg, bad[i].frag))
			fail_msg("case %zu (%s = %s): %s: %s", i, bad[i].key,
				 bad[i].value, ct_status_str(st), err.msg);
	}
	assert_int_equal(pgt_int(s, "SELECT max(version) FROM crawltop.settings"),
			 before);
	/* the defaults are there, and claims work */
	assert_int_equal(pgt_int(s, "SELECT (value #>> '{store,starvation_every}')"
				 "::int * 1000 + (value #>> '{store,starvation_seconds}')"
				 "::int FROM crawltop.settings ORDER BY version DESC LIMIT 1"),
			 10 * 1000 + 300);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(flood_starves_without_guard, fresh, close_store),
		cmocka_unit_test_setup_teardown(flood_guard_bound, fresh, close_store),
		cmocka_unit_test_setup_teardown(one_in_m_slots, fresh, close_store),
		cmocka_unit_test_setup_teardown(explain_both_paths, fresh, close_store),
		cmocka_unit_test_setup_teardown(guard_keeps_fail_release_pause, fresh, close_store),
		cmocka_unit_test_setup_teardown(bad_settings_refused, fresh, close_store),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
