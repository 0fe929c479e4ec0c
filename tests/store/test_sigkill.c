/* test_sigkill.c: workers killed with SIGKILL mid-lease (issue 3).
 *
 * Child processes connect on their own, claim a batch under a short lease
 * and are killed with SIGKILL while they hold it: one after its claim
 * committed (its tasks stay leased until the lease expires, then another
 * worker completes them), one inside an open transaction (the server rolls
 * it back when the connection dies: its tasks are pending again at once).
 * Afterwards every task was completed exactly once, by the survivor, and
 * the dead worker's name can complete nothing. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "pgtest.h"

#define TASKS 100
#define BATCH 30
#define LEASE 2.0 /* seconds */

static int fresh(void **state)
{
	*state = pgt_fresh("ct_sigkill", 1);
	return 0;
}

static int close_store(void **state)
{
	ct_store_close(*state);
	return 0;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The child: connect, (BEGIN,) claim BATCH tasks of job under a LEASE s
 * lease as worker, write their ids to fd, then wait to be killed. Never
 * returns; exits 2 on any failure (the parent sees no ids then). */
static void child(const char *worker, int64_t job, int open_tx, int fd)
{
	struct ct_store *s;
	struct ct_error err = {{0}};
	if (ct_store_open(pgt_dsn("ct_sigkill"), &s, &err) != CT_OK)
		_exit(2);
	if (open_tx && ct_store_exec(s, "begin", "BEGIN", &err) != CT_OK)
		_exit(2);
	struct ct_claim c;
	if (ct_store_claim(s, worker, job, BATCH, LEASE, &c, &err) != CT_OK ||
	    c.n != BATCH)
		_exit(2);
	int64_t ids[BATCH];
	for (size_t i = 0; i < c.n; i++)
		ids[i] = c.tasks[i].id;
	if (write(fd, ids, sizeof ids) != (ssize_t)sizeof ids)
		_exit(2);
	for (;;)
		pause(); /* SIGKILL ends this, mid-lease */
}

/* Start a child worker and return its pid; ids receives what it claimed. */
static pid_t spawn(const char *worker, int64_t job, int open_tx,
		   int64_t ids[BATCH])
{
	int fds[2];
	assert_int_equal(pipe(fds), 0);
	fflush(stdout);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(fds[0]);
		child(worker, job, open_tx, fds[1]);
	}
	close(fds[1]);
	size_t got = 0;
	while (got < sizeof(int64_t) * BATCH) {
		ssize_t k = read(fds[0], (char *)ids + got,
				 sizeof(int64_t) * BATCH - got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			fail_msg("worker %s died before reporting its claim", worker);
		got += (size_t)k;
	}
	close(fds[0]);
	return pid;
}

static void kill_and_reap(pid_t pid)
{
	assert_int_equal(kill(pid, SIGKILL), 0);
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
}

static int has(const int64_t *ids, size_t n, int64_t id)
{
	for (size_t i = 0; i < n; i++)
		if (ids[i] == id)
			return 1;
	return 0;
}

/* Claim what the survivor can get and complete it, recording each id
 * completed; returns how many. */
static size_t survive(struct ct_store *s, int64_t *done, size_t *n_done,
		      const int64_t *forbidden, size_t n_forbidden)
{
	struct ct_error err = {{0}};
	size_t total = 0;
	for (;;) {
		struct ct_claim c;
		if (ct_store_claim(s, "survivor", 0, 50, 0, &c, &err) != CT_OK)
			fail_msg("%s", err.msg);
		if (c.n == 0) {
			ct_claim_free(&c);
			return total;
		}
		int64_t ids[50];
		for (size_t i = 0; i < c.n; i++) {
			ids[i] = c.tasks[i].id;
			if (has(forbidden, n_forbidden, ids[i]))
				fail_msg("task %lld was handed out while its "
					 "killed worker's lease was live",
					 (long long)ids[i]);
		}
		size_t k = 0;
		if (ct_store_complete(s, "survivor", ids, c.n, &k, &err) != CT_OK)
			fail_msg("%s", err.msg);
		assert_int_equal(k, c.n);
		memcpy(done + *n_done, ids, c.n * sizeof *ids);
		*n_done += c.n;
		total += c.n;
		ct_claim_free(&c);
	}
}

static int id_cmp(const void *pa, const void *pb)
{
	int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
	return (a > b) - (a < b);
}

static void killed_workers_tasks_completed_once(void **state)
{
	struct ct_store *s = *state;
	struct ct_error err = {{0}};
	int64_t job = pgt_job(s, "kill", "kill.example", 5, "fifo");
	static char names[TASKS][16];
	const char *paths[TASKS];
	for (int i = 0; i < TASKS; i++) {
		snprintf(names[i], sizeof names[i], "/t/%d", i);
		paths[i] = names[i];
	}
	pgt_enqueue_from(s, job, paths, TASKS, NULL, CT_SRC_LINK, 0);

	/* A claims and commits; B claims inside a transaction it never ends */
	int64_t a_ids[BATCH], b_ids[BATCH];
	double t_claim = now_s();
	pid_t a = spawn("worker-a", job, 0, a_ids);
	pid_t bpid = spawn("worker-b", job, 1, b_ids);
	kill_and_reap(a);
	kill_and_reap(bpid);
	for (int i = 0; i < BATCH; i++)
		assert_false(has(b_ids, BATCH, a_ids[i]));

	/* B's transaction dies with its connection: wait until the server
	 * has noticed (its backend is gone), at most 10 s */
	for (double t0 = now_s();;) {
		if (pgt_int(s, "SELECT count(*) FROM pg_stat_activity WHERE "
			    "datname = 'ct_sigkill' AND pid <> pg_backend_pid() "
			    "AND backend_type = 'client backend'") == 0)
			break;
		if (now_s() - t0 > 10)
			fail_msg("the killed workers' backends are still there");
		struct timespec ts = {0, 20 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
	/* A's claim is committed: leased to worker-a, not claimable */
	char *st = pgt_text(s, "SELECT count(*) FILTER (WHERE status = 'running' "
			    "AND lease_owner = 'worker-a') || ' ' || count(*) "
			    "FILTER (WHERE status = 'pending') FROM crawltop.tasks",
			    0, NULL);
	char want[32];
	snprintf(want, sizeof want, "%d %d", BATCH, TASKS - BATCH);
	assert_string_equal(st, want);
	free(st);

	/* the survivor completes everything else at once, B's tasks too */
	int64_t done[TASKS * 2];
	size_t n_done = 0;
	size_t first = survive(s, done, &n_done, a_ids, BATCH);
	assert_int_equal(first, TASKS - BATCH);
	for (int i = 0; i < BATCH; i++)
		assert_true(has(done, n_done, b_ids[i]));
	assert_true(now_s() - t_claim < LEASE); /* still inside A's lease */

	/* after A's lease: its tasks come back (one expiry each). Its
	 * claim came after t_claim, later still on a loaded machine: wait
	 * until the server's clock has passed every one of its leases */
	for (double t0 = now_s();;) {
		if (pgt_int(s, "SELECT count(*) FROM crawltop.tasks WHERE "
			    "lease_owner = 'worker-a' AND lease_expires_at < "
			    "now()") == BATCH)
			break;
		if (now_s() - t0 > 30)
			fail_msg("worker-a's leases did not run out in 30 s");
		struct timespec ts = {0, 50 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
	size_t second = survive(s, done, &n_done, NULL, 0);
	assert_int_equal(second, BATCH);
	for (int i = 0; i < BATCH; i++)
		assert_true(has(done + first, second, a_ids[i]));

	/* every task completed exactly once, by the survivor */
	assert_int_equal(n_done, TASKS);
	qsort(done, n_done, sizeof *done, id_cmp);
	for (size_t i = 1; i < n_done; i++)
		if (done[i] == done[i - 1])
			fail_msg("task %lld completed twice", (long long)done[i]);
	st = pgt_text(s, "SELECT string_agg(status || '=' || n, ' ' ORDER BY "
		      "status) FROM (SELECT status, count(*) n FROM "
		      "crawltop.tasks GROUP BY status) x", 0, NULL);
	snprintf(want, sizeof want, "completed=%d", TASKS);
	assert_string_equal(st, want);
	free(st);
	/* A's tasks carry the lost lease as an expiry, B's do not; a
	 * killed worker uses up no attempt of any task */
	assert_int_equal(pgt_int(s, "SELECT count(*) FROM crawltop.tasks WHERE "
		"expiries = 1 AND last_error = 'lease of worker-a expired'"),
		BATCH);
	assert_int_equal(pgt_int(s, "SELECT count(*) FROM crawltop.tasks WHERE "
		"expiries = 0"), TASKS - BATCH);
	assert_int_equal(pgt_int(s, "SELECT count(*) FROM crawltop.tasks WHERE "
		"retry_count = 0"), TASKS);
	/* the dead worker's name completes nothing any more */
	size_t k = 9;
	assert_int_equal(ct_store_complete(s, "worker-a", a_ids, BATCH, &k, &err),
			 CT_EINVAL);
	assert_int_equal(k, 0);
	printf("# %d tasks: worker-a killed holding %d (committed claim, %.0f s "
	       "lease), worker-b killed holding %d in an open transaction; the "
	       "survivor completed %zu at once and %zu after the lease\n", TASKS,
	       BATCH, LEASE, BATCH, first, second);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(killed_workers_tasks_completed_once,
						fresh, close_store),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
