/* store.c: connection, the one statement choke point, error reporting.
 *
 * Modelled on psql/pgbench: every statement runs through st_exec, which
 * checks PQresultStatus, records the SQLSTATE and names the statement in
 * the error; call sites PQclear on every path. Outside values only ever
 * travel as parameters (PQexecParams), never inside SQL text. */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "store_int.h"

/* Forward server notices to the hook, if any; never print. */
static void notice_receiver(void *arg, const PGresult *r)
{
	struct ct_store *s = arg;
	if (!s->notice)
		return;
	const char *sev = PQresultErrorField(r, PG_DIAG_SEVERITY);
	const char *msg = PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY);
	s->notice(s->notice_ctx, sev ? sev : "NOTICE", msg ? msg : "");
}

PGconn *st_connect(const char *dsn, const char *app)
{
	/* libpq reads the keywords in order and the last value of one
	 * wins: connect_timeout before dbname (expand_dbname: a connection
	 * string or URI) is a default that dsn may change; client_encoding
	 * after it is always UTF8; fallback_application_name is a fallback
	 * by its nature. */
	const char *const keys[] = {"connect_timeout", "dbname",
				    "fallback_application_name",
				    "client_encoding", NULL};
	const char *const vals[] = {"10", dsn ? dsn : "",
				    app && *app ? app : "crawltop", "UTF8",
				    NULL};
	return PQconnectdbParams(keys, vals, 1);
}

ct_status ct_store_open(const char *dsn, struct ct_store **out,
			struct ct_error *err)
{
	return ct_store_open_as(dsn, NULL, out, err);
}

ct_status ct_store_open_as(const char *dsn, const char *app,
			   struct ct_store **out, struct ct_error *err)
{
	*out = NULL;
	struct ct_store *s = calloc(1, sizeof *s);
	if (!s)
		return ct_error_set(err, CT_ENOMEM, "connect: out of memory");
	s->conn = st_connect(dsn, app);
	if (!s->conn) {
		free(s);
		return ct_error_set(err, CT_ENOMEM, "connect: out of memory");
	}
	if (PQstatus(s->conn) != CONNECTION_OK) {
		char msg[CT_ERROR_LEN];
		snprintf(msg, sizeof msg, "%s", PQerrorMessage(s->conn));
		size_t l = strlen(msg);
		while (l && (msg[l - 1] == '\n' || msg[l - 1] == ' '))
			msg[--l] = '\0';
		ct_store_close(s);
		return ct_error_set(err, CT_EIO, "connect: %s", msg);
	}
	PQsetNoticeReceiver(s->conn, notice_receiver, s);
	ct_status st = st_exec(s, "connect", ST_SESSION_SETUP, ST_SCRIPT, NULL,
			       NULL, err);
	if (st != CT_OK) {
		ct_store_close(s);
		return st;
	}
	*out = s;
	return CT_OK;
}

void ct_store_close(struct ct_store *s)
{
	if (!s)
		return;
	if (s->conn)
		PQfinish(s->conn);
	free(s);
}

char *ct_store_id_array(const int64_t *ids, size_t n)
{
	char *a = malloc(n * 21 + 3); /* an id and its comma: 21 at most */
	if (!a)
		return NULL;
	size_t k = 0;
	a[k++] = '{';
	for (size_t i = 0; i < n; i++)
		k += (size_t)sprintf(a + k, "%s%" PRId64, i ? "," : "", ids[i]);
	a[k++] = '}';
	a[k] = '\0';
	return a;
}

const char *ct_store_sqlstate(const struct ct_store *s)
{
	return s->sqlstate;
}

bool ct_store_rolled_back(const struct ct_store *s)
{
	return !strcmp(s->sqlstate, "40P01") || !strcmp(s->sqlstate, "40001");
}

bool ct_store_lost(const struct ct_store *s)
{
	/* class 08 (connection exception), or the server going away under
	 * the session: 57P01 admin shutdown (a restart, a terminate),
	 * 57P02 crash shutdown, 57P03 cannot connect now (starting up);
	 * not 57P04 (the database was dropped) nor 57P05 (an idle session
	 * timed out), which a new connection does not mend */
	return !s || !s->conn || PQstatus(s->conn) == CONNECTION_BAD ||
	       !strncmp(s->sqlstate, "08", 2) ||
	       !strcmp(s->sqlstate, "57P01") || !strcmp(s->sqlstate, "57P02") ||
	       !strcmp(s->sqlstate, "57P03");
}

void st_retry_pause(int tries)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	unsigned seed = (unsigned)now.tv_nsec ^ (unsigned)getpid() << 16;
	long base_ms = 10L << (tries < 1 ? 0 : tries > 6 ? 5 : tries - 1);
	long ns = base_ms * 1000000L +
		  (long)(rand_r(&seed) % (unsigned)(base_ms * 1000)) * 1000L;
	struct timespec ts = {ns / 1000000000L, ns % 1000000000L};
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

#define ST_PARALLEL_MAX 16

void st_parallel(void *items, size_t n, size_t size, void *(*fn)(void *))
{
	char *it = items;
	pthread_t th[ST_PARALLEL_MAX];
	bool started[ST_PARALLEL_MAX] = {false};
	for (size_t i = 1; i < n && i < ST_PARALLEL_MAX; i++)
		started[i] = pthread_create(&th[i], NULL, fn, it + i * size) == 0;
	for (size_t i = 1; i < n; i++)
		if (i >= ST_PARALLEL_MAX || !started[i])
			fn(it + i * size); /* no thread: here, in turn */
	if (n > 0)
		fn(it);
	for (size_t i = 1; i < n && i < ST_PARALLEL_MAX; i++)
		if (started[i])
			pthread_join(th[i], NULL);
}

ct_status st_conns_check(struct ct_store *s, struct ct_store *const *extra,
			 size_t n_extra, size_t max, const char *what,
			 struct ct_error *err)
{
	if (n_extra + 1 > max)
		return ct_error_set(err, CT_ERANGE, "%s: %zu connections, at "
				    "most %zu", what, n_extra + 1, max);
	for (size_t i = 0; i < n_extra; i++) {
		if (!extra || !extra[i] || extra[i] == s)
			return ct_error_set(err, CT_EINVAL, "%s: extra connection "
					    "%zu is missing or is the main one",
					    what, i + 1);
		for (size_t k = 0; k < i; k++)
			if (extra[k] == extra[i])
				return ct_error_set(err, CT_EINVAL, "%s: extra "
						    "connections %zu and %zu are "
						    "one", what, k + 1, i + 1);
	}
	for (size_t i = 0; i <= n_extra; i++)
		if (PQstatus((i ? extra[i - 1] : s)->conn) != CONNECTION_OK)
			return ct_error_set(err, CT_EIO, "%s: %s connection "
					    "is lost", what, i ? "an extra" :
					    "the");
	for (size_t i = 0; i <= n_extra; i++)
		if (PQtransactionStatus((i ? extra[i - 1] : s)->conn) !=
		    PQTRANS_IDLE)
			return ct_error_set(err, CT_EINVAL, "%s: the connection "
					    "is inside a transaction; a %s "
					    "commits batch by batch on its own",
					    what, what);
	return CT_OK;
}

struct ct_store_canceller *ct_store_canceller_new(struct ct_store *s)
{
	return s && s->conn ? (struct ct_store_canceller *)PQgetCancel(s->conn)
			    : NULL;
}

void ct_store_canceller_send(struct ct_store_canceller *c)
{
	char buf[256];
	if (c)
		(void)PQcancel((PGcancel *)c, buf, sizeof buf);
}

void ct_store_canceller_free(struct ct_store_canceller *c)
{
	PQfreeCancel((PGcancel *)c);
}

bool ct_store_cancelled(const struct ct_store *s)
{
	return !strcmp(s->sqlstate, "57014");
}

void ct_store_set_notice_hook(struct ct_store *s, ct_store_notice_fn *fn,
			      void *ctx)
{
	s->notice = fn;
	s->notice_ctx = ctx;
}

/* SQLSTATE -> ct_status, as documented in store.h. */
ct_status st_status_of(const char *state)
{
	if (!state || strlen(state) != 5)
		return CT_EIO;
	if (strcmp(state, "P0002") == 0)
		return CT_ENOENT;
	if (strcmp(state, "22003") == 0)
		return CT_ERANGE;
	if (strncmp(state, "22", 2) == 0 || strncmp(state, "23", 2) == 0 ||
	    strcmp(state, "42501") == 0 || strcmp(state, "55000") == 0 ||
	    strcmp(state, "25006") == 0)
		return CT_EINVAL;
	if (strncmp(state, "53", 2) == 0)
		return CT_ENOMEM;
	return CT_EIO;
}

/* Copy src into dst (size n) with trailing newlines and spaces removed. */
static void trimmed(char *dst, size_t n, const char *src)
{
	snprintf(dst, n, "%s", src ? src : "");
	size_t l = strlen(dst);
	while (l && (dst[l - 1] == '\n' || dst[l - 1] == ' '))
		dst[--l] = '\0';
}

/* The first line of a libpq message without its severity ("FATAL:  ..."
 * followed by the CONTEXT lines, i.e. the SQL of the function that ran,
 * when the server ended the connection during a call). */
static void first_line(char *dst, size_t n, const char *src)
{
	src = src ? src : "";
	for (const char *const *p = (const char *const[]){"FATAL:  ",
			"ERROR:  ", "PANIC:  ", NULL}; *p; p++)
		if (strncmp(src, *p, strlen(*p)) == 0)
			src += strlen(*p);
	size_t l = strcspn(src, "\n");
	while (l && src[l - 1] == ' ')
		l--;
	snprintf(dst, n, "%.*s", (int)l, src);
}

ct_status st_exec(struct ct_store *s, const char *what, const char *sql,
		  int n, const char *const *params, PGresult **res,
		  struct ct_error *err)
{
	if (res)
		*res = NULL;
	s->sqlstate[0] = '\0';
	PGresult *r = n >= 0 ? PQexecParams(s->conn, sql, n, NULL, params,
					    NULL, NULL, 0)
			     : PQexec(s->conn, sql);
	ExecStatusType rs = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
	if (rs == PGRES_COMMAND_OK || rs == PGRES_TUPLES_OK) {
		if (res)
			*res = r;
		else
			PQclear(r);
		return CT_OK;
	}

	const char *state = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;
	char msg[CT_ERROR_LEN], detail[CT_ERROR_LEN / 2];
	if (r && PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY))
		trimmed(msg, sizeof msg,
			PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY));
	else
		first_line(msg, sizeof msg, PQerrorMessage(s->conn));
	if (!msg[0])
		snprintf(msg, sizeof msg, "unexpected result %s",
			 PQresStatus(rs));
	trimmed(detail, sizeof detail,
		r ? PQresultErrorField(r, PG_DIAG_MESSAGE_DETAIL) : NULL);
	/* A refused privilege: say who was refused (roles: 0009_roles.sql). */
	if (state && strcmp(state, "42501") == 0 && !detail[0])
		snprintf(detail, sizeof detail, "connected as role \"%.64s\"",
			 PQuser(s->conn));
	/* crawltop's schema or one of its objects is missing: most likely
	 * the database was never migrated, or by an older crawltop. */
	if (state && (strcmp(state, "3F000") == 0 ||
		      ((strcmp(state, "42P01") == 0 || strcmp(state, "42883") == 0)
		       && strstr(msg, "crawltop."))) && !detail[0])
		snprintf(detail, sizeof detail, "is the database migrated? "
			 "run crawltop migrate");
	/* A write on a read-only server: say which and where to go. */
	if (state && strcmp(state, "25006") == 0 && !detail[0]) {
		const char *hs = PQparameterStatus(s->conn, "in_hot_standby");
		snprintf(detail, sizeof detail, "%s",
			 hs && strcmp(hs, "on") == 0 ?
			 "the server is a read-only standby; changes go to "
			 "the primary" :
			 "the session is read-only (default_transaction_read_only)");
	}
	ct_status st;
	if (PQstatus(s->conn) != CONNECTION_OK) {
		st = CT_EIO;
		snprintf(msg + strlen(msg), sizeof msg - strlen(msg),
			 " (connection lost)");
	} else {
		st = st_status_of(state);
	}
	if (state)
		snprintf(s->sqlstate, sizeof s->sqlstate, "%s", state);
	PQclear(r);
	if (state)
		return ct_error_set(err, st, "%s: %s%s%s (SQLSTATE %s)", what,
				    msg, detail[0] ? ": " : "", detail,
				    s->sqlstate);
	return ct_error_set(err, st, "%s: %s", what, msg);
}

ct_status ct_store_exec(struct ct_store *s, const char *what, const char *sql,
			struct ct_error *err)
{
	return st_exec(s, what, sql, ST_SCRIPT, NULL, NULL, err);
}

ct_status ct_store_query(struct ct_store *s, const char *what, const char *sql,
			 int n, const char *const *params, char *buf,
			 size_t len, long *rows, struct ct_error *err)
{
	PGresult *r;
	if (buf && len)
		buf[0] = '\0';
	if (rows)
		*rows = 0;
	ct_status st = st_exec(s, what, sql, n, params, &r, err);
	if (st != CT_OK)
		return st;
	ExecStatusType rs = PQresultStatus(r);
	if (rows)
		*rows = rs == PGRES_TUPLES_OK ? PQntuples(r)
					      : atol(PQcmdTuples(r));
	if (buf && len && PQntuples(r) > 0 && PQnfields(r) > 0)
		snprintf(buf, len, "%s", PQgetvalue(r, 0, 0));
	PQclear(r);
	return CT_OK;
}

/* ---- parameter value buffers ------------------------------------------ */

static void grow(struct st_buf *b, size_t extra)
{
	if (b->oom || b->len + extra + 1 <= b->cap)
		return;
	size_t cap = b->cap ? b->cap : 256;
	while (cap < b->len + extra + 1)
		cap *= 2;
	char *p = realloc(b->p, cap);
	if (!p) {
		b->oom = 1;
		return;
	}
	b->p = p;
	b->cap = cap;
}

void st_buf_putc(struct st_buf *b, char c)
{
	grow(b, 1);
	if (b->oom)
		return;
	b->p[b->len++] = c;
	b->p[b->len] = '\0';
}

void st_buf_putn(struct st_buf *b, const char *s, size_t n)
{
	grow(b, n);
	if (b->oom)
		return;
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

void st_buf_puts(struct st_buf *b, const char *s)
{
	st_buf_putn(b, s, strlen(s));
}

void st_buf_printf(struct st_buf *b, const char *fmt, ...)
{
	char tmp[128];
	va_list ap;
	va_start(ap, fmt);
	int l = vsnprintf(tmp, sizeof tmp, fmt, ap);
	va_end(ap);
	if (l < 0 || (size_t)l >= sizeof tmp) {
		b->oom = 1; /* only used for numbers; never this long */
		return;
	}
	st_buf_puts(b, tmp);
}

void st_buf_free(struct st_buf *b)
{
	free(b->p);
	*b = (struct st_buf){0};
}

void st_buf_array_elem(struct st_buf *b, const char *s)
{
	grow(b, strlen(s) * 2 + 3);
	st_buf_putc(b, '"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			st_buf_putc(b, '\\');
		st_buf_putc(b, *s);
	}
	st_buf_putc(b, '"');
}
