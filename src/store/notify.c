/* notify.c: LISTEN/NOTIFY on a store handle (stats.h).
 *
 * LISTEN takes an identifier, not a parameter, so the channel name is
 * checked against a strict pattern and then quoted by
 * PQescapeIdentifier: no outside text reaches SQL otherwise. Receiving
 * never blocks unless the caller asks to wait: PQconsumeInput reads what
 * the socket has, PQnotifies hands out what was read. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "stats.h"
#include "store_int.h"

/* 1..63 of [a-z0-9_], not starting with a digit. */
static int channel_ok(const char *c)
{
	if (!c || !c[0] || (c[0] >= '0' && c[0] <= '9'))
		return 0;
	size_t i = 0;
	for (; c[i]; i++)
		if (!((c[i] >= 'a' && c[i] <= 'z') ||
		      (c[i] >= '0' && c[i] <= '9') || c[i] == '_'))
			return 0;
	return i < CT_CHANNEL_MAX;
}

/* Run "LISTEN channel" or "UNLISTEN channel" (verb), channel checked and
 * quoted. */
static ct_status listen_cmd(struct ct_store *s, const char *verb,
			    const char *channel, struct ct_error *err)
{
	char what[96];
	snprintf(what, sizeof what, "%s %.64s", verb, channel ? channel : "");
	if (!channel_ok(channel))
		return ct_error_set(err, CT_EINVAL, "%s: channel name '%.80s' "
				    "is not allowed: 1 to 63 of a-z 0-9 _, not "
				    "starting with a digit", verb,
				    channel ? channel : "(null)");
	char *id = PQescapeIdentifier(s->conn, channel, strlen(channel));
	if (!id)
		return ct_error_set(err, CT_ENOMEM, "%s: out of memory", what);
	char sql[160];
	snprintf(sql, sizeof sql, "%s %s", verb, id);
	PQfreemem(id);
	return st_exec(s, what, sql, ST_SCRIPT, NULL, NULL, err);
}

ct_status ct_store_listen(struct ct_store *s, const char *channel,
			  struct ct_error *err)
{
	return listen_cmd(s, "LISTEN", channel, err);
}

ct_status ct_store_unlisten(struct ct_store *s, const char *channel,
			    struct ct_error *err)
{
	return listen_cmd(s, "UNLISTEN", channel, err);
}

int ct_store_socket(const struct ct_store *s)
{
	return PQstatus(s->conn) == CONNECTION_OK ? PQsocket(s->conn) : -1;
}

int ct_store_backend_pid(const struct ct_store *s)
{
	return PQbackendPID(s->conn);
}

/* Move one notification libpq holds into *n; 1 if there was one. */
static int pop(struct ct_store *s, struct ct_notification *n)
{
	PGnotify *p = PQnotifies(s->conn);
	if (!p)
		return 0;
	snprintf(n->channel, sizeof n->channel, "%s", p->relname);
	snprintf(n->payload, sizeof n->payload, "%s", p->extra ? p->extra : "");
	n->be_pid = p->be_pid;
	PQfreemem(p);
	return 1;
}

ct_status ct_store_notification_next(struct ct_store *s,
				     struct ct_notification *n, int *got,
				     struct ct_error *err)
{
	*got = 0;
	s->sqlstate[0] = '\0';
	if (pop(s, n)) {
		*got = 1;
		return CT_OK;
	}
	if (!PQconsumeInput(s->conn) || PQstatus(s->conn) != CONNECTION_OK) {
		char msg[CT_ERROR_LEN];
		snprintf(msg, sizeof msg, "%s", PQerrorMessage(s->conn));
		size_t l = strlen(msg);
		while (l && (msg[l - 1] == '\n' || msg[l - 1] == ' '))
			msg[--l] = '\0';
		return ct_error_set(err, CT_EIO, "notifications: %s (connection "
				    "lost)", l ? msg : "cannot read");
	}
	*got = pop(s, n);
	return CT_OK;
}

/* Milliseconds of a monotonic clock. */
static long long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

ct_status ct_store_notification_wait(struct ct_store *s, int timeout_ms,
				     struct ct_notification *n, int *got,
				     struct ct_error *err)
{
	long long until = now_ms() + (timeout_ms > 0 ? timeout_ms : 0);
	for (;;) {
		ct_status st = ct_store_notification_next(s, n, got, err);
		if (st != CT_OK || *got)
			return st;
		long long left = until - now_ms();
		if (timeout_ms >= 0 && left <= 0)
			return CT_OK;
		struct pollfd pfd = {.fd = ct_store_socket(s), .events = POLLIN};
		if (pfd.fd < 0)
			return ct_error_set(err, CT_EIO, "notifications: "
					    "connection lost");
		int rc = poll(&pfd, 1, timeout_ms < 0 ? -1 : (int)left);
		if (rc < 0 && errno != EINTR)
			return ct_error_set(err, CT_EIO, "notifications: poll: "
					    "%s", strerror(errno));
	}
}
