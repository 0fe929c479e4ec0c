/* test_aconn.c: the console's asynchronous connection (src/store/aquery.c)
 * against a real server: a server that stops answering is given up after
 * the statement timeout plus the grace, while a pipelined burst that takes
 * longer than that in all, each query within its timeout, is not. */
#include <errno.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>

#include <cmocka.h>

#include "aquery.h"
#include "pgtest.h"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Step c (polling its socket) until events in want happen or `secs` pass;
 * returns the events seen. Finished queries are counted into *ok and
 * *failed (the last failure's message in fail_msg_out). */
static unsigned run_until(struct ct_aconn *c, unsigned want, double secs,
			  int *ok, int *failed, char *why, size_t whylen)
{
	double until = now_s() + secs;
	unsigned seen = 0;
	while (now_s() < until && !(seen & want)) {
		struct pollfd p = {.fd = ct_aconn_fd(c), .events = 0};
		unsigned ev = ct_aconn_events(c);
		if (ev & CT_AC_WANT_READ)
			p.events |= POLLIN;
		if (ev & CT_AC_WANT_WRITE)
			p.events |= POLLOUT;
		int n = poll(&p, p.fd >= 0 ? 1 : 0, 50);
		unsigned ready = 0;
		if (n > 0 && (p.revents & (POLLIN | POLLERR | POLLHUP)))
			ready |= CT_AC_WANT_READ;
		if (n > 0 && (p.revents & (POLLOUT | POLLERR | POLLHUP)))
			ready |= CT_AC_WANT_WRITE;
		seen |= ct_aconn_step(c, ready);
		struct ct_arows *r;
		while ((r = ct_aconn_take(c)) != NULL) {
			if (r->st == CT_OK) {
				(*ok)++;
			} else {
				(*failed)++;
				snprintf(why, whylen, "[%s] %.400s", r->sqlstate,
					 r->err);
			}
			ct_arows_free(r);
		}
	}
	return seen;
}

static struct ct_aconn *open_conn(const char *db, int timeout_ms, double grace)
{
	struct ct_aconn_opts o = {.dsn = pgt_dsn(db),
				  .statement_timeout_ms = timeout_ms,
				  .answer_grace_s = grace};
	struct ct_aconn *c;
	struct ct_error err = {{0}};
	assert_int_equal(ct_aconn_new(&o, &c, &err), CT_OK);
	assert_int_equal(ct_aconn_connect(c, &err), CT_OK);
	int ok = 0, failed = 0;
	char why[512] = "";
	unsigned ev = run_until(c, CT_AC_EV_CONNECTED, 10, &ok, &failed, why,
				sizeof why);
	if (!(ev & CT_AC_EV_CONNECTED))
		fail_msg("not connected: %s", ct_aconn_last_error(c));
	/* the session setup has run: READY */
	run_until(c, 0, 0.3, &ok, &failed, why, sizeof why);
	return c;
}

/* Four queries of 0.7 s each, pipelined: 2.8 s in all, each within the
 * 1 s timeout; the grace is 0.5 s. Counted from when the burst was sent,
 * the third would have "waited" 1.5 s and lost the connection. */
static void pipelined_burst_is_not_silence(void **state)
{
	(void)state;
	ct_store_close(pgt_fresh("ct_aconn_burst", 0));
	struct ct_aconn *c = open_conn("ct_aconn_burst", 1000, 0.5);
	struct ct_error err = {{0}};
	for (int i = 0; i < 4; i++)
		assert_int_equal(ct_aconn_send(c, i, "sleep", "SELECT pg_sleep(0.7)",
					       0, NULL, &err), CT_OK);
	int ok = 0, failed = 0;
	char why[512] = "";
	double t0 = now_s();
	unsigned ev = 0;
	while (ok + failed < 4 && now_s() - t0 < 10)
		ev |= run_until(c, CT_AC_EV_LOST, 0.5, &ok, &failed, why,
				sizeof why);
	if (ev & CT_AC_EV_LOST)
		fail_msg("a healthy burst lost the connection: %s",
			 ct_aconn_last_error(c));
	assert_int_equal(failed, 0);
	assert_int_equal(ok, 4);
	assert_int_equal(ct_aconn_state(c), CT_AC_READY);
	ct_aconn_free(c);
}

/* The session's server process stopped (SIGSTOP): its query gets no
 * answer, and after the 1 s timeout plus the 0.5 s grace the connection
 * is given up with a message that says why. */
static void stopped_server_is_given_up(void **state)
{
	(void)state;
	struct ct_store *s = pgt_fresh("ct_aconn_stop", 0);
	struct ct_aconn *c = open_conn("ct_aconn_stop", 1000, 0.5);
	struct ct_error err = {{0}};
	assert_int_equal(ct_aconn_send(c, 1, "pid", "SELECT pg_backend_pid()", 0,
				       NULL, &err), CT_OK);
	pid_t pid = 0;
	double t0 = now_s();
	while (!pid && now_s() - t0 < 5) {
		struct pollfd p = {.fd = ct_aconn_fd(c), .events = POLLIN};
		int n = poll(&p, 1, 50);
		ct_aconn_step(c, n > 0 ? CT_AC_WANT_READ : 0);
		struct ct_arows *r = ct_aconn_take(c);
		if (r) {
			assert_int_equal(r->st, CT_OK);
			pid = (pid_t)atol(ct_arows_get(r, 0, 0));
			ct_arows_free(r);
		}
	}
	assert_true(pid > 0);
	assert_int_equal(kill(pid, SIGSTOP), 0);
	assert_int_equal(ct_aconn_send(c, 2, "stuck", "SELECT 1", 0, NULL, &err),
			 CT_OK);
	int ok = 0, failed = 0;
	char why[512] = "";
	t0 = now_s();
	unsigned ev = run_until(c, CT_AC_EV_LOST, 8, &ok, &failed, why,
				sizeof why);
	double took = now_s() - t0;
	kill(pid, SIGCONT);
	if (!(ev & CT_AC_EV_LOST))
		fail_msg("a stopped server was not given up in 8 s");
	assert_true(took >= 1.4 && took < 4);
	if (!strstr(ct_aconn_last_error(c), "no answer from the server for"))
		fail_msg("unclear: %s", ct_aconn_last_error(c));
	assert_int_equal(failed, 1);
	if (!strstr(why, "stuck: connection lost: no answer") ||
	    !strstr(why, "[08006]"))
		fail_msg("the query's failure (with SQLSTATE 08006): %s", why);
	assert_int_equal(ct_aconn_state(c), CT_AC_DOWN);
	ct_aconn_free(c);
	ct_store_close(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(pipelined_burst_is_not_silence),
		cmocka_unit_test(stopped_server_is_given_up),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
