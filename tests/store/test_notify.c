/* test_notify.c: change notifications (0008_notify.sql, notify.c).
 *
 * A second connection that LISTENs sees a settings insert (payload: the
 * new version) and a job's priority change (payload: job id and what
 * changed), through a socket an event loop can poll; enqueue's task
 * counts do not notify; a rolled-back change does not notify; bad
 * channel names are refused; UNLISTEN stops delivery. */
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pgtest.h"
#include "stats.h"

static int fresh(void **state)
{
	*state = pgt_fresh("ct_notify", 1);
	return 0;
}

static int close_store(void **state)
{
	ct_store_close(*state);
	return 0;
}

static struct ct_store *second(void)
{
	struct ct_store *s;
	struct ct_error err = {{0}};
	if (ct_store_open(pgt_dsn("ct_notify"), &s, &err) != CT_OK)
		fail_msg("%s", err.msg);
	return s;
}

/* Wait up to ms for one notification on l; fail when none comes. */
static struct ct_notification expect(struct ct_store *l, int ms)
{
	struct ct_notification n;
	struct ct_error err = {{0}};
	int got = 0;
	if (ct_store_notification_wait(l, ms, &n, &got, &err) != CT_OK)
		fail_msg("%s", err.msg);
	if (!got)
		fail_msg("no notification within %d ms", ms);
	return n;
}

/* Fail if a notification is waiting on l (after a short grace). */
static void expect_none(struct ct_store *l)
{
	struct ct_notification n;
	struct ct_error err = {{0}};
	int got = 0;
	assert_int_equal(ct_store_notification_wait(l, 200, &n, &got, &err), CT_OK);
	if (got)
		fail_msg("unexpected notification on %s: %s", n.channel, n.payload);
}

static void settings_and_jobs_notify(void **state)
{
	struct ct_store *s = *state;
	struct ct_store *l = second();
	struct ct_error err = {{0}};
	int64_t job = pgt_job(s, "n1", "n1.example", 5, "fifo");

	assert_int_equal(ct_store_listen(l, CT_CHANNEL_SETTINGS, &err), CT_OK);
	assert_int_equal(ct_store_listen(l, CT_CHANNEL_JOBS, &err), CT_OK);
	int fd = ct_store_socket(l);
	assert_true(fd >= 0);
	expect_none(l);

	/* a settings version: the socket becomes readable, an event loop
	 * takes the notification without blocking */
	char *v = pgt_text(s, "INSERT INTO crawltop.settings (value, note) "
			   "SELECT value, 'test' FROM crawltop.settings "
			   "ORDER BY version DESC LIMIT 1 RETURNING version", 0, NULL);
	struct pollfd pfd = {.fd = fd, .events = POLLIN};
	assert_int_equal(poll(&pfd, 1, 5000), 1);
	struct ct_notification n;
	int got = 0;
	for (int i = 0; i < 50 && !got; i++) {
		assert_int_equal(ct_store_notification_next(l, &n, &got, &err), CT_OK);
		if (!got)
			poll(&pfd, 1, 100);
	}
	assert_true(got);
	assert_string_equal(n.channel, "crawltop_settings");
	assert_string_equal(n.payload, v);
	assert_int_equal(n.be_pid, pgt_int(s, "SELECT pg_backend_pid()"));
	assert_int_not_equal(n.be_pid, ct_store_backend_pid(l));
	free(v);
	assert_int_equal(ct_store_notification_next(l, &n, &got, &err), CT_OK);
	assert_false(got);

	/* a job's priority */
	long rows;
	assert_int_equal(ct_store_job_set_priority(s, job, 2, &rows, &err), CT_OK);
	n = expect(l, 5000);
	assert_string_equal(n.channel, "crawltop_jobs");
	char want[128];
	snprintf(want, sizeof want, "{\"op\": \"update\", \"job_id\": %lld, "
		 "\"changed\": [\"priority\"]}", (long long)job);
	assert_string_equal(n.payload, want);
	expect_none(l);

	/* pause: status; set directly: two columns at once */
	assert_int_equal(ct_store_job_act(s, job, CT_JOB_PAUSE, &rows, &err), CT_OK);
	n = expect(l, 5000);
	assert_non_null(strstr(n.payload, "\"changed\": [\"status\"]"));
	pgt_exec(s, "UPDATE crawltop.jobs SET max_retries = 7, "
		 "prioritization_mode = 'hierarchy'");
	n = expect(l, 5000);
	assert_non_null(strstr(n.payload, "\"changed\": [\"max_retries\", "
			       "\"prioritization_mode\"]"));

	/* enqueue moves total_pages only: no notification */
	const char *paths[] = {"/a", "/b"};
	struct ct_enqueue_result r =
		pgt_enqueue_from(s, job, paths, 2, NULL, CT_SRC_LINK, 0);
	assert_int_equal(r.inserted, 2);
	expect_none(l);

	/* a rolled-back change is never announced */
	pgt_exec(s, "BEGIN; SELECT crawltop.set_job_priority(1, 9); ROLLBACK");
	expect_none(l);

	/* a new job and a deleted one */
	int64_t j2 = pgt_job(s, "n2", "n2.example", 5, "fifo");
	n = expect(l, 5000);
	snprintf(want, sizeof want, "{\"op\": \"insert\", \"job_id\": %lld",
		 (long long)j2);
	assert_non_null(strstr(n.payload, want));
	assert_non_null(strstr(n.payload, "\"priority\""));
	pgt_exec(s, "DELETE FROM crawltop.jobs WHERE name = 'n2'");
	n = expect(l, 5000);
	assert_non_null(strstr(n.payload, "\"op\": \"delete\""));
	/* every job at once: a row trigger does not see TRUNCATE */
	pgt_exec(s, "BEGIN; TRUNCATE crawltop.jobs CASCADE; ROLLBACK");
	expect_none(l);
	int64_t j3 = pgt_job(s, "n3", "n3.example", 5, "fifo");
	(void)j3;
	n = expect(l, 5000);
	pgt_exec(s, "TRUNCATE crawltop.jobs CASCADE");
	n = expect(l, 5000);
	assert_string_equal(n.payload, "{\"op\": \"truncate\"}");
	job = pgt_job(s, "n4", "n4.example", 5, "fifo");
	n = expect(l, 5000);

	/* UNLISTEN: nothing more on that channel */
	assert_int_equal(ct_store_unlisten(l, CT_CHANNEL_JOBS, &err), CT_OK);
	assert_int_equal(ct_store_job_set_priority(s, job, 3, &rows, &err), CT_OK);
	expect_none(l);
	ct_store_close(l);
}

static void bad_channels_refused(void **state)
{
	struct ct_store *s = *state;
	struct ct_error err = {{0}};
	static const char *const bad[] = {
		"", "Crawltop", "1abc", "a b", "x;DROP TABLE t", "a\"b",
		"a234567890123456789012345678901234567890123456789012345678901234",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		assert_int_equal(ct_store_listen(s, bad[i], &err), CT_EINVAL);
		assert_non_null(strstr(err.msg, "LISTEN: channel name"));
		assert_non_null(strstr(err.msg, "is not allowed"));
	}
	assert_int_equal(ct_store_listen(s, NULL, &err), CT_EINVAL);
	assert_int_equal(ct_store_unlisten(s, "no way", &err), CT_EINVAL);
	/* 63 characters is the limit */
	assert_int_equal(ct_store_listen(s, "a23456789012345678901234567890123456789"
					 "012345678901234567890123", &err), CT_OK);
	/* another channel of one's own */
	assert_int_equal(ct_store_listen(s, "my_channel_2", &err), CT_OK);
	pgt_exec(s, "NOTIFY my_channel_2, 'hello'");
	struct ct_notification n = expect(s, 2000);
	assert_string_equal(n.channel, "my_channel_2");
	assert_string_equal(n.payload, "hello");
	assert_int_equal(n.be_pid, ct_store_backend_pid(s));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(settings_and_jobs_notify, fresh, close_store),
		cmocka_unit_test_setup_teardown(bad_channels_refused, fresh, close_store),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
