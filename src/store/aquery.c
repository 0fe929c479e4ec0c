/* aquery.c: one asynchronous connection for an event loop (aquery.h).
 *
 * A small state machine over libpq's asynchronous API:
 *
 *   DOWN --connect--> CONNECTING (a thread of its own opens the
 *   connection, then the setup query: client check, SET statement_timeout, LISTEN ...)
 *   --> READY (pipeline mode: every queued query is sent at once, each
 *   followed by its own sync, and the server runs them one at a time)
 *   --lost--> DOWN
 *
 * The connection is opened by a short-lived thread with libpq's blocking
 * PQconnectdbParams, not by PQconnectPoll in the caller's loop: libpq
 * resolves host names with a blocking getaddrinfo (only hostaddr avoids
 * it), which would freeze the loop for as long as DNS takes, and it
 * enforces connect_timeout only in its blocking calls. The thread wakes
 * the loop through a pipe; a connection given up before it is open is
 * closed by the thread itself.
 *
 * A query that gets no answer for the statement timeout plus a grace
 * (10 s by default; a stopped server, a dead network) loses the
 * connection, so that the caller reconnects instead of waiting forever.
 *
 * Pipelining makes a burst of queries (the console's refresh) one round
 * trip. The sync after each query keeps errors per query: a failing query
 * aborts nothing but itself, and each runs in its own implicit transaction
 * as it did when sent alone.
 *
 * Results are copied out of the PGresult into one allocation of strings,
 * so the caller never sees libpq. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <libpq-fe.h>

#include "aquery.h"
#include "store_int.h"

/* A queued or running query. Owns its copies of sql and params. */
struct aq_query {
	struct aq_query *next;
	int tag;
	int n;
	char *what, *sql;
	char **params;
	double sent_at; /* monotonic seconds, 0 until sent */
};

/* Seconds past the statement timeout before a silent server counts as
 * lost (the default of ct_aconn_opts.answer_grace_s). */
#define AQ_ANSWER_GRACE_S 10.0

/* The thread that opens a connection. Shared with it under lock: whoever
 * comes second (the thread finishing, or the owner giving up) frees it. */
struct aq_opener {
	pthread_mutex_t lock;
	int done, abandoned;
	PGconn *conn;
	int pipe[2];   /* the thread writes a byte when done */
	char *dsn;
	char app[64];  /* fallback application_name ("" = "crawltop") */
};

/* A finished query waiting for ct_aconn_take. */
struct aq_done {
	struct aq_done *next;
	struct ct_arows *rows;
};

struct aq_note {
	struct aq_note *next;
	char chan[64];
};

struct ct_aconn {
	char *dsn;
	char app[64];        /* ct_aconn_opts.app_name, "" when none */
	int timeout_ms;
	double grace_s;      /* see ct_aconn_opts.answer_grace_s */
	char **listen;       /* NULL-terminated copy */
	PGconn *conn;
	struct aq_opener *opener; /* set while the thread opens conn */
	double setup_at;     /* when the setup query was sent */
	enum ct_aconn_state state;
	int in_setup;        /* the setup query is running */
	int standby;         /* the server is a hot standby: no LISTEN */
	int want_flush;      /* PQflush still has data to send */
	int wait_sync;       /* head finished; its PIPELINE_SYNC is due */
	double last_done;    /* when the last query finished (for ms) */
	struct aq_query *head, *tail; /* queue; head runs when sent_at > 0 */
	struct aq_done *dhead, *dtail;
	struct aq_note *nhead, *ntail;
	PGresult *cur;       /* the result kept for the running query */
	char display[256];
	char last_error[CT_ERROR_LEN];
	unsigned held_ev;    /* events of a loss in ct_aconn_send, for the
			      * next ct_aconn_step to report */
};

/* Monotonic clock in seconds. */
static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Copy src into dst (size n) without trailing newlines and spaces. */
static void trimmed(char *dst, size_t n, const char *src)
{
	snprintf(dst, n, "%s", src ? src : "");
	size_t l = strlen(dst);
	while (l && (dst[l - 1] == '\n' || dst[l - 1] == ' '))
		dst[--l] = '\0';
}

const char *ct_arows_get(const struct ct_arows *r, int row, int col)
{
	if (!r || row < 0 || col < 0 || row >= r->nrows || col >= r->ncols)
		return NULL;
	return r->val[(size_t)row * r->ncols + col];
}

const char *ct_arows_str(const struct ct_arows *r, int row, int col,
			 const char *def)
{
	const char *v = ct_arows_get(r, row, col);
	return v ? v : def;
}

void ct_arows_free(struct ct_arows *r)
{
	free(r); /* one allocation: header, pointers, strings */
}

/* A result with no rows: for failures. NULL when out of memory. */
static struct ct_arows *rows_empty(int tag)
{
	struct ct_arows *r = calloc(1, sizeof *r);
	if (r)
		r->tag = tag;
	return r;
}

/* Copy a PGresult (may be NULL) into one allocation. */
static struct ct_arows *rows_from(int tag, PGresult *res)
{
	int nr = res ? PQntuples(res) : 0, nc = res ? PQnfields(res) : 0;
	size_t cells = (size_t)nr * nc, bytes = 0;
	for (int i = 0; i < nr; i++)
		for (int j = 0; j < nc; j++)
			if (!PQgetisnull(res, i, j))
				bytes += (size_t)PQgetlength(res, i, j) + 1;
	struct ct_arows *r = malloc(sizeof *r + cells * sizeof(char *) + bytes);
	if (!r)
		return NULL;
	memset(r, 0, sizeof *r);
	r->tag = tag;
	r->nrows = nr;
	r->ncols = nc;
	r->val = (char **)(r + 1);
	char *p = (char *)(r->val + cells);
	for (int i = 0; i < nr; i++)
		for (int j = 0; j < nc; j++) {
			char **slot = &r->val[(size_t)i * nc + j];
			if (PQgetisnull(res, i, j)) {
				*slot = NULL;
				continue;
			}
			size_t l = (size_t)PQgetlength(res, i, j);
			memcpy(p, PQgetvalue(res, i, j), l);
			p[l] = '\0';
			*slot = p;
			p += l + 1;
		}
	if (res && PQresultStatus(res) == PGRES_COMMAND_OK)
		r->affected = atol(PQcmdTuples(res));
	else
		r->affected = nr;
	return r;
}

static void query_free(struct aq_query *q)
{
	if (!q)
		return;
	for (int i = 0; i < q->n; i++)
		free(q->params[i]);
	free(q->params);
	free(q->what);
	free(q->sql);
	free(q);
}

/* Append a finished query's rows (NULL when memory ran out: dropped). */
static void done_push(struct ct_aconn *c, struct ct_arows *r)
{
	if (!r)
		return;
	struct aq_done *d = malloc(sizeof *d);
	if (!d) {
		ct_arows_free(r);
		return;
	}
	d->next = NULL;
	d->rows = r;
	if (c->dtail)
		c->dtail->next = d;
	else
		c->dhead = d;
	c->dtail = d;
}

/* Finish query q (queued after prev, NULL when q is the head) with a
 * failure that did not come from a result; sqlstate "" when none fits. */
static void fail_query(struct ct_aconn *c, struct aq_query *prev,
		       struct aq_query *q, const char *sqlstate,
		       const char *msg)
{
	if (prev)
		prev->next = q->next;
	else
		c->head = q->next;
	if (c->tail == q)
		c->tail = prev;
	struct ct_arows *r = rows_empty(q->tag);
	if (r) {
		r->st = CT_EIO;
		snprintf(r->sqlstate, sizeof r->sqlstate, "%s", sqlstate);
		snprintf(r->err, sizeof r->err, "%s: %s", q->what, msg);
		if (q->sent_at > 0)
			r->ms = (now_s() - q->sent_at) * 1e3;
	}
	done_push(c, r);
	query_free(q);
}

/* Finish the head query: the connection went before its result came
 * (SQLSTATE 08006, connection_failure). */
static void fail_head(struct ct_aconn *c, const char *msg)
{
	if (c->head)
		fail_query(c, NULL, c->head, "08006", msg);
}

static void opener_free(struct aq_opener *o)
{
	if (o->conn)
		PQfinish(o->conn);
	close(o->pipe[0]);
	close(o->pipe[1]);
	pthread_mutex_destroy(&o->lock);
	free(o->dsn);
	free(o);
}

/* The opener thread: open the connection (blocking: DNS, TCP, TLS,
 * authentication, within connect_timeout), then hand it over or, when
 * the owner gave up meanwhile, close it. */
static void *opener_run(void *arg)
{
	struct aq_opener *o = arg;
	PGconn *conn = st_connect(o->dsn, o->app);
	pthread_mutex_lock(&o->lock);
	o->conn = conn;
	o->done = 1;
	int abandoned = o->abandoned;
	if (!abandoned) {
		ssize_t w = write(o->pipe[1], "", 1);
		(void)w; /* the owner also checks done on every step */
	}
	pthread_mutex_unlock(&o->lock);
	if (abandoned)
		opener_free(o);
	return NULL;
}

/* Give up the opener: free it now when its thread has finished, else
 * leave that to the thread. */
static void opener_drop(struct ct_aconn *c)
{
	struct aq_opener *o = c->opener;
	if (!o)
		return;
	c->opener = NULL;
	pthread_mutex_lock(&o->lock);
	int done = o->done;
	if (!done)
		o->abandoned = 1;
	pthread_mutex_unlock(&o->lock);
	if (done)
		opener_free(o);
}

/* Fail every queued query with msg, close the connection, state DOWN. */
static void go_down(struct ct_aconn *c, const char *msg)
{
	opener_drop(c);
	while (c->head)
		fail_head(c, msg);
	if (c->cur) {
		PQclear(c->cur);
		c->cur = NULL;
	}
	if (c->conn) {
		PQfinish(c->conn);
		c->conn = NULL;
	}
	c->state = CT_AC_DOWN;
	c->in_setup = 0;
	c->want_flush = 0;
	c->wait_sync = 0;
}

/* The connection is gone: record why, fail every query, go DOWN. */
static unsigned lose(struct ct_aconn *c, const char *why)
{
	char msg[CT_ERROR_LEN];
	trimmed(msg, sizeof msg, why && *why ? why :
		(c->conn ? PQerrorMessage(c->conn) : "connection lost"));
	if (!msg[0])
		snprintf(msg, sizeof msg, "connection lost");
	for (char *p = msg; *p; p++) /* one line for a header or a log */
		if (*p == '\n' || *p == '\t' || *p == '\r')
			*p = ' ';
	snprintf(c->last_error, sizeof c->last_error, "%s", msg);
	char qmsg[CT_ERROR_LEN];
	snprintf(qmsg, sizeof qmsg, "connection lost: %.400s", msg);
	unsigned ev = CT_AC_EV_LOST;
	if (c->head)
		ev |= CT_AC_EV_RESULT;
	go_down(c, qmsg);
	return ev;
}

/* Server notices are dropped: the console owns the terminal. */
static void drop_notice(void *arg, const char *message)
{
	(void)arg;
	(void)message;
}

ct_status ct_aconn_new(const struct ct_aconn_opts *opts,
		       struct ct_aconn **out, struct ct_error *err)
{
	*out = NULL;
	struct ct_aconn *c = calloc(1, sizeof *c);
	if (!c)
		return ct_error_set(err, CT_ENOMEM, "connect: out of memory");
	c->dsn = strdup(opts->dsn ? opts->dsn : "");
	snprintf(c->app, sizeof c->app, "%s", opts->app_name ? opts->app_name : "");
	c->timeout_ms = opts->statement_timeout_ms > 0 ?
			opts->statement_timeout_ms : 5000;
	c->grace_s = opts->answer_grace_s > 0 ? opts->answer_grace_s :
		     AQ_ANSWER_GRACE_S;
	size_t n = 0;
	while (opts->listen && opts->listen[n])
		n++;
	c->listen = calloc(n + 1, sizeof *c->listen);
	int oom = !c->dsn || !c->listen;
	for (size_t i = 0; !oom && i < n; i++)
		oom = !(c->listen[i] = strdup(opts->listen[i]));
	if (oom) {
		ct_aconn_free(c);
		return ct_error_set(err, CT_ENOMEM, "connect: out of memory");
	}
	*out = c;
	return CT_OK;
}

void ct_aconn_free(struct ct_aconn *c)
{
	if (!c)
		return;
	ct_aconn_disconnect(c);
	while (c->dhead) {
		struct aq_done *d = c->dhead;
		c->dhead = d->next;
		ct_arows_free(d->rows);
		free(d);
	}
	while (c->nhead) {
		struct aq_note *nt = c->nhead;
		c->nhead = nt->next;
		free(nt);
	}
	for (size_t i = 0; c->listen && c->listen[i]; i++)
		free(c->listen[i]);
	free(c->listen);
	free(c->dsn);
	free(c);
}

ct_status ct_aconn_connect(struct ct_aconn *c, struct ct_error *err)
{
	if (c->state != CT_AC_DOWN)
		return ct_error_set(err, CT_EINVAL, "connect: already connected");
	char *perr = NULL;
	PQconninfoOption *chk = PQconninfoParse(c->dsn[0] ? c->dsn : "", &perr);
	if (!chk && c->dsn[0] && strchr(c->dsn, '=') == NULL &&
	    strstr(c->dsn, "://") == NULL) {
		/* a bare word is a database name: libpq accepts it */
		PQfreemem(perr);
		perr = NULL;
	} else if (!chk) {
		char msg[CT_ERROR_LEN];
		trimmed(msg, sizeof msg, perr ? perr : "out of memory");
		PQfreemem(perr);
		snprintf(c->last_error, sizeof c->last_error, "%s", msg);
		return ct_error_set(err, CT_EINVAL, "connect: %s", msg);
	}
	PQconninfoFree(chk);
	struct aq_opener *o = calloc(1, sizeof *o);
	if (!o)
		return ct_error_set(err, CT_ENOMEM, "connect: out of memory");
	if (pipe(o->pipe) != 0) {
		free(o);
		return ct_error_set(err, CT_EIO, "connect: pipe: %s",
				    strerror(errno));
	}
	for (int i = 0; i < 2; i++) {
		fcntl(o->pipe[i], F_SETFL, fcntl(o->pipe[i], F_GETFL) | O_NONBLOCK);
		fcntl(o->pipe[i], F_SETFD, FD_CLOEXEC);
	}
	pthread_mutex_init(&o->lock, NULL);
	pthread_attr_t attr;
	pthread_t th;
	int rc = -1;
	snprintf(o->app, sizeof o->app, "%s", c->app);
	if ((o->dsn = strdup(c->dsn)) && pthread_attr_init(&attr) == 0) {
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		rc = pthread_create(&th, &attr, opener_run, o);
		pthread_attr_destroy(&attr);
	}
	if (rc != 0) {
		opener_free(o);
		return ct_error_set(err, CT_ENOMEM, "connect: cannot start the "
				    "connecting thread");
	}
	c->opener = o;
	c->state = CT_AC_CONNECTING;
	c->in_setup = 0;
	c->want_flush = 0;
	c->wait_sync = 0;
	return CT_OK;
}

void ct_aconn_disconnect(struct ct_aconn *c)
{
	if (c->state == CT_AC_DOWN && !c->conn && !c->opener)
		return;
	go_down(c, "disconnected");
}

enum ct_aconn_state ct_aconn_state(const struct ct_aconn *c)
{
	return c->state;
}

int ct_aconn_fd(const struct ct_aconn *c)
{
	if (c->opener)
		return c->opener->pipe[0];
	return c->conn ? PQsocket(c->conn) : -1;
}

int ct_aconn_standby(const struct ct_aconn *c)
{
	return c->conn && c->state == CT_AC_READY && c->standby;
}

unsigned ct_aconn_events(const struct ct_aconn *c)
{
	if (c->opener)
		return CT_AC_WANT_READ;
	if (!c->conn)
		return 0;
	return CT_AC_WANT_READ | (c->want_flush ? CT_AC_WANT_WRITE : 0u);
}

/* Flush the output buffer; 0 ok, -1 when the connection failed. */
static int flush(struct ct_aconn *c)
{
	int f = PQflush(c->conn);
	if (f < 0)
		return -1;
	c->want_flush = f == 1;
	return 0;
}

/* The session setup: one simple query with several statements. */
static int send_setup(struct ct_aconn *c)
{
	char sql[1024];
	int l = snprintf(sql, sizeof sql, ST_SESSION_SETUP
			 "; SET statement_timeout = %d", c->timeout_ms);
	/* A hot standby refuses LISTEN (and never sends notifications): the
	 * server reports in_hot_standby at connect (PostgreSQL 14+). */
	const char *hs = PQparameterStatus(c->conn, "in_hot_standby");
	c->standby = hs && strcmp(hs, "on") == 0;
	for (size_t i = 0; !c->standby && c->listen[i] &&
	     l < (int)sizeof sql - 200; i++) {
		char *id = PQescapeIdentifier(c->conn, c->listen[i],
					      strlen(c->listen[i]));
		if (!id)
			return -1;
		l += snprintf(sql + l, sizeof sql - l, "; LISTEN %s", id);
		PQfreemem(id);
	}
	if (PQsetnonblocking(c->conn, 1) != 0 || !PQsendQuery(c->conn, sql))
		return -1;
	c->in_setup = 1;
	c->setup_at = now_s();
	return flush(c);
}

/* Send every queued query not sent yet into the pipeline, each followed
 * by a sync, then flush. 0 ok, -1 connection failed. */
static int send_next(struct ct_aconn *c)
{
	if (c->state != CT_AC_READY)
		return 0;
	struct aq_query *prev = NULL, *q = c->head;
	int sent = 0;
	while (q) {
		if (q->sent_at > 0) {
			prev = q;
			q = q->next;
			continue;
		}
		q->sent_at = now_s();
		if (!PQsendQueryParams(c->conn, q->sql, q->n, NULL,
				       (const char *const *)q->params, NULL,
				       NULL, 0)) {
			if (PQstatus(c->conn) != CONNECTION_OK)
				return -1;
			/* refused locally (e.g. bad parameter count): fail
			 * this one */
			char msg[CT_ERROR_LEN];
			trimmed(msg, sizeof msg, PQerrorMessage(c->conn));
			struct aq_query *next = q->next;
			fail_query(c, prev, q, "", msg);
			q = next;
			continue;
		}
		if (!PQpipelineSync(c->conn))
			return -1;
		sent = 1;
		prev = q;
		q = q->next;
	}
	return sent ? flush(c) : 0;
}

/* The running query's results are all in: hand it over. */
static void finish_head(struct ct_aconn *c)
{
	struct aq_query *q = c->head;
	PGresult *res = c->cur;
	c->cur = NULL;
	c->head = q->next;
	if (!c->head)
		c->tail = NULL;
	ExecStatusType rs = res ? PQresultStatus(res) : PGRES_FATAL_ERROR;
	struct ct_arows *r;
	if (rs == PGRES_COMMAND_OK || rs == PGRES_TUPLES_OK) {
		r = rows_from(q->tag, res);
	} else if (rs == PGRES_PIPELINE_ABORTED) {
		r = rows_empty(q->tag);
		if (r) {
			r->st = CT_EIO;
			snprintf(r->err, sizeof r->err,
				 "%s: not run: an earlier statement failed",
				 q->what);
		}
	} else {
		r = rows_empty(q->tag);
		if (r) {
			const char *state = res ? PQresultErrorField(res,
						PG_DIAG_SQLSTATE) : NULL;
			char msg[CT_ERROR_LEN / 2];
			trimmed(msg, sizeof msg, res && PQresultErrorField(res,
				PG_DIAG_MESSAGE_PRIMARY) ?
				PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) :
				PQerrorMessage(c->conn));
			r->st = st_status_of(state);
			if (state) {
				snprintf(r->sqlstate, sizeof r->sqlstate, "%s",
					 state);
				snprintf(r->err, sizeof r->err,
					 "%s: %s (SQLSTATE %s)", q->what, msg,
					 r->sqlstate);
			} else {
				snprintf(r->err, sizeof r->err, "%s: %s",
					 q->what, msg[0] ? msg : "failed");
			}
		}
	}
	/* Pipelined queries run one after another on the server: each is
	 * charged from its send or the previous one's end, whichever is
	 * later, so the times of a burst add up to its wall time. */
	double t = now_s(), from = q->sent_at > c->last_done ? q->sent_at :
		   c->last_done;
	c->last_done = t;
	if (r)
		r->ms = (t - from) * 1e3;
	PQclear(res);
	done_push(c, r);
	query_free(q);
}

/* Keep the first error, else the last result, of a running query. */
static void keep_result(struct ct_aconn *c, PGresult *res)
{
	if (c->cur) {
		ExecStatusType old = PQresultStatus(c->cur);
		if (old != PGRES_COMMAND_OK && old != PGRES_TUPLES_OK) {
			PQclear(res);
			return;
		}
		PQclear(c->cur);
	}
	c->cur = res;
}

/* Read what arrived: results and notifications. Returns events. */
static unsigned read_input(struct ct_aconn *c, int readable)
{
	unsigned ev = 0;
	if (readable && !PQconsumeInput(c->conn))
		return lose(c, NULL);
	for (;;) {
		if (PQisBusy(c->conn))
			break;
		PGresult *res = PQgetResult(c->conn);
		if (res && PQresultStatus(res) == PGRES_PIPELINE_SYNC) {
			/* the end of a finished query's pipeline segment */
			PQclear(res);
			c->wait_sync = 0;
			continue;
		}
		if (res) {
			if (c->in_setup ||
			    (c->head && c->head->sent_at > 0 && !c->wait_sync))
				keep_result(c, res);
			else
				PQclear(res);
			continue;
		}
		/* NULL: the running statement is complete */
		if (c->in_setup) {
			int ok = c->cur && PQresultStatus(c->cur) == PGRES_COMMAND_OK;
			char msg[CT_ERROR_LEN];
			trimmed(msg, sizeof msg, c->cur ?
				PQresultErrorMessage(c->cur) : "no result");
			PQclear(c->cur);
			c->cur = NULL;
			c->in_setup = 0;
			if (!ok)
				return ev | lose(c, msg);
			if (!PQenterPipelineMode(c->conn))
				return ev | lose(c, NULL);
			c->state = CT_AC_READY;
			c->last_error[0] = '\0';
			ev |= CT_AC_EV_CONNECTED;
		} else if (c->head && c->head->sent_at > 0 && c->cur &&
			   !c->wait_sync) {
			/* a query yields at least one result before its NULL */
			finish_head(c);
			c->wait_sync = 1;
			ev |= CT_AC_EV_RESULT;
			continue;
		} else {
			break;
		}
		if (send_next(c) < 0)
			return ev | lose(c, NULL);
		if (!c->head || c->head->sent_at == 0)
			break;
	}
	PGnotify *nt;
	while ((nt = PQnotifies(c->conn)) != NULL) {
		struct aq_note *a = malloc(sizeof *a);
		if (a) {
			snprintf(a->chan, sizeof a->chan, "%s", nt->relname);
			a->next = NULL;
			if (c->ntail)
				c->ntail->next = a;
			else
				c->nhead = a;
			c->ntail = a;
			ev |= CT_AC_EV_NOTIFY;
		}
		PQfreemem(nt);
	}
	if (PQstatus(c->conn) != CONNECTION_OK)
		return ev | lose(c, NULL);
	return ev;
}

/* The opener's connection, once its thread has finished: take it and
 * send the setup query. */
static unsigned step_connect(struct ct_aconn *c)
{
	struct aq_opener *o = c->opener;
	char b[16];
	while (read(o->pipe[0], b, sizeof b) > 0)
		;
	pthread_mutex_lock(&o->lock);
	int done = o->done;
	pthread_mutex_unlock(&o->lock);
	if (!done)
		return 0;
	c->conn = o->conn;
	o->conn = NULL;
	opener_drop(c);
	if (!c->conn)
		return lose(c, "connect: out of memory");
	/* libpq prints notices to stderr by default: never on our screen */
	PQsetNoticeProcessor(c->conn, drop_notice, NULL);
	if (PQstatus(c->conn) != CONNECTION_OK || send_setup(c) < 0)
		return lose(c, NULL);
	return 0;
}

/* Whether the server owes an answer for longer than the statement timeout
 * allows (plus AQ_ANSWER_GRACE_S); *waited is how long. The head query of
 * a pipelined burst starts when the one before it finished, not when the
 * burst was sent (as finish_head counts its time). */
static int silent(const struct ct_aconn *c, double *waited)
{
	double since = c->in_setup ? c->setup_at :
		       c->head && c->head->sent_at > 0 ? c->head->sent_at : 0;
	if (!c->in_setup && since > 0 && c->last_done > since)
		since = c->last_done;
	if (since <= 0)
		return 0;
	*waited = now_s() - since;
	return *waited > c->timeout_ms / 1e3 + c->grace_s;
}

unsigned ct_aconn_step(struct ct_aconn *c, unsigned ready)
{
	unsigned held = c->held_ev;
	c->held_ev = 0;
	if (held)
		return held; /* the connection went in ct_aconn_send */
	if (c->opener)
		return step_connect(c);
	if (!c->conn)
		return 0;
	double waited;
	if (silent(c, &waited)) {
		char why[96];
		snprintf(why, sizeof why, "no answer from the server for %.0f s",
			 waited);
		return lose(c, why);
	}
	if (c->want_flush && (ready & CT_AC_WANT_WRITE) && flush(c) < 0)
		return lose(c, NULL);
	unsigned ev = 0;
	if (c->state == CT_AC_READY && send_next(c) < 0)
		return lose(c, NULL);
	ev |= read_input(c, (ready & CT_AC_WANT_READ) != 0);
	return ev;
}

ct_status ct_aconn_send(struct ct_aconn *c, int tag, const char *what,
			const char *sql, int n, const char *const *params,
			struct ct_error *err)
{
	if (c->state == CT_AC_DOWN)
		return ct_error_set(err, CT_EIO, "%s: not connected", what);
	struct aq_query *q = calloc(1, sizeof *q);
	if (!q)
		return ct_error_set(err, CT_ENOMEM, "%s: out of memory", what);
	q->tag = tag;
	q->n = n;
	q->what = strdup(what);
	q->sql = strdup(sql);
	q->params = calloc(n > 0 ? (size_t)n : 1, sizeof *q->params);
	int oom = !q->what || !q->sql || !q->params;
	for (int i = 0; !oom && i < n; i++)
		if (params[i] && !(q->params[i] = strdup(params[i])))
			oom = 1;
	if (oom) {
		q->n = q->params ? n : 0;
		query_free(q);
		return ct_error_set(err, CT_ENOMEM, "%s: out of memory", what);
	}
	if (c->tail)
		c->tail->next = q;
	else
		c->head = q;
	c->tail = q;
	/* the queries are answered with CT_EIO; the next ct_aconn_step
	 * reports the loss */
	if (send_next(c) < 0)
		c->held_ev |= lose(c, NULL);
	return CT_OK;
}

size_t ct_aconn_pending(const struct ct_aconn *c)
{
	size_t n = 0;
	for (const struct aq_query *q = c->head; q; q = q->next)
		n++;
	return n;
}

struct ct_arows *ct_aconn_take(struct ct_aconn *c)
{
	struct aq_done *d = c->dhead;
	if (!d)
		return NULL;
	c->dhead = d->next;
	if (!c->dhead)
		c->dtail = NULL;
	struct ct_arows *r = d->rows;
	free(d);
	return r;
}

int ct_aconn_notification(struct ct_aconn *c, char *buf, size_t len)
{
	struct aq_note *a = c->nhead;
	if (!a)
		return 0;
	c->nhead = a->next;
	if (!c->nhead)
		c->ntail = NULL;
	if (buf && len)
		snprintf(buf, len, "%s", a->chan);
	free(a);
	return 1;
}

/* The value of keyword kw in the parsed options, or NULL. */
static const char *opt_val(PQconninfoOption *o, const char *kw)
{
	for (; o && o->keyword; o++)
		if (strcmp(o->keyword, kw) == 0 && o->val && o->val[0])
			return o->val;
	return NULL;
}

const char *ct_aconn_display(struct ct_aconn *c)
{
	const char *user, *host, *port, *db;
	PQconninfoOption *o = NULL;
	if (c->conn && PQstatus(c->conn) == CONNECTION_OK) {
		user = PQuser(c->conn);
		host = PQhost(c->conn);
		port = PQport(c->conn);
		db = PQdb(c->conn);
	} else {
		/* from the DSN, then the environment; the password is never
		 * read, so it cannot be shown */
		char *perr = NULL;
		o = c->dsn[0] && (strchr(c->dsn, '=') || strstr(c->dsn, "://")) ?
		    PQconninfoParse(c->dsn, &perr) : NULL;
		PQfreemem(perr);
		user = opt_val(o, "user");
		host = opt_val(o, "host");
		port = opt_val(o, "port");
		db = opt_val(o, "dbname");
		if (!db && c->dsn[0] && !o)
			db = c->dsn;
		if (!user)
			user = getenv("PGUSER");
		if (!host)
			host = getenv("PGHOST");
		if (!port)
			port = getenv("PGPORT");
		if (!db)
			db = getenv("PGDATABASE");
	}
	snprintf(c->display, sizeof c->display, "%s@%s:%s/%s",
		 user && *user ? user : "?", host && *host ? host : "localhost",
		 port && *port ? port : "5432", db && *db ? db : "?");
	if (o)
		PQconninfoFree(o);
	return c->display;
}

const char *ct_aconn_last_error(const struct ct_aconn *c)
{
	return c->last_error;
}
