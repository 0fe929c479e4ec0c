/* aquery.h: one asynchronous PostgreSQL connection, driven by the caller's
 * event loop (the console's poll() loop, issue 4).
 *
 * Nothing here blocks: the connect is non-blocking (PQconnectStart and
 * PQconnectPoll), queries are sent with PQsendQueryParams and read with
 * PQconsumeInput / PQisBusy / PQgetResult. The caller polls the socket that
 * ct_aconn_fd() names for the events ct_aconn_events() asks for and calls
 * ct_aconn_step() when it is ready (or when a timer says so); finished
 * queries then come out of ct_aconn_take(), oldest first, as rows of
 * strings. No libpq type crosses this header.
 *
 * Queries are queued and run one at a time, in the order they were sent;
 * they are pipelined (each sent as soon as it is queued, with its own
 * sync), so a burst of queries costs one round trip and a failing query
 * fails only itself.
 * At connect the session gets statement_timeout (every query is bounded by
 * the server), application_name "crawltop" unless the DSN or PGAPPNAME
 * names one (libpq's fallback_application_name), client_encoding UTF8, and
 * LISTENs on the channels given in the options, unless the server is a
 * hot standby (read-only replica), which refuses LISTEN: there the caller
 * polls instead (ct_aconn_standby).
 *
 * When the connection is lost (server gone, connect refused), the state
 * becomes CT_AC_DOWN, ct_aconn_step() reports CT_AC_EV_LOST once, and every
 * query that was queued or running finishes with CT_EIO "connection lost".
 * Reconnecting is the caller's decision (ct_aconn_connect again). */
#ifndef CRAWLTOP_AQUERY_H
#define CRAWLTOP_AQUERY_H

#include <stddef.h>

#include "crawltop/status.h"

struct ct_aconn;

enum ct_aconn_state {
	CT_AC_DOWN,       /* no connection: ct_aconn_connect starts one */
	CT_AC_CONNECTING, /* connect or session setup in progress */
	CT_AC_READY,      /* connected: queued queries run */
};

/* Events ct_aconn_step() reports (a bit mask). */
#define CT_AC_EV_CONNECTED 0x1u /* the connection became ready */
#define CT_AC_EV_LOST      0x2u /* the connection failed or was lost */
#define CT_AC_EV_RESULT    0x4u /* a query finished: see ct_aconn_take */
#define CT_AC_EV_NOTIFY    0x8u /* a notification arrived */

/* What ct_aconn_events() asks the caller to poll for. */
#define CT_AC_WANT_READ  0x1u
#define CT_AC_WANT_WRITE 0x2u

struct ct_aconn_opts {
	const char *dsn;              /* libpq string or URI; NULL or "" = PG* defaults */
	const char *app_name;         /* fallback application_name; NULL: "crawltop" */
	int statement_timeout_ms;     /* > 0; every statement of the session */
	const char *const *listen;    /* NULL-terminated channel names, or NULL */
	double answer_grace_s;        /* a query unanswered for the statement
				       * timeout plus this long loses the
				       * connection; 0 = 10 s */
};

/* One finished query: its rows as strings. Owns everything it points to;
 * free with ct_arows_free. */
struct ct_arows {
	int tag;                  /* the caller's tag from ct_aconn_send */
	ct_status st;             /* CT_OK, or the failure (err says why) */
	char sqlstate[6];         /* the server's; 08006 when the connection
				   * went before the result; "" otherwise */
	char err[CT_ERROR_LEN];   /* "what: message (SQLSTATE xxxxx)" */
	int nrows, ncols;
	long affected;            /* rows affected (commands), else nrows */
	double ms;                /* from sending (or the end of the query
				   * pipelined before it) to the last result */
	char **val;               /* nrows x ncols, row-major; NULL = SQL NULL */
};

/* Value at (row, col), NULL for SQL NULL or out of range. Borrowed. */
const char *ct_arows_get(const struct ct_arows *r, int row, int col);
/* Value at (row, col) or def when NULL or out of range. Borrowed. */
const char *ct_arows_str(const struct ct_arows *r, int row, int col,
			 const char *def);
void ct_arows_free(struct ct_arows *r);

/* A handle that is not connected yet (state CT_AC_DOWN). opts->dsn is
 * copied. *out is the caller's, freed with ct_aconn_free. */
ct_status ct_aconn_new(const struct ct_aconn_opts *opts,
		       struct ct_aconn **out, struct ct_error *err);
/* Close the connection, drop queued queries and results, free (NULL ok). */
void ct_aconn_free(struct ct_aconn *c);

/* Start a non-blocking connect (state CT_AC_CONNECTING). From DOWN only;
 * CT_EINVAL otherwise. A DSN libpq cannot parse fails here (CT_EINVAL);
 * an unreachable server fails later through ct_aconn_step (EV_LOST). */
ct_status ct_aconn_connect(struct ct_aconn *c, struct ct_error *err);
/* Drop the connection now (state CT_AC_DOWN); queued queries finish with
 * CT_EIO. No EV_LOST is reported for a drop the caller asked for. */
void ct_aconn_disconnect(struct ct_aconn *c);

enum ct_aconn_state ct_aconn_state(const struct ct_aconn *c);
/* 1 when connected (READY) to a hot standby: no notifications will come. */
int ct_aconn_standby(const struct ct_aconn *c);
/* The socket to poll, -1 when there is none (state DOWN). */
int ct_aconn_fd(const struct ct_aconn *c);
/* CT_AC_WANT_READ and/or CT_AC_WANT_WRITE: what to poll the fd for. */
unsigned ct_aconn_events(const struct ct_aconn *c);
/* Advance whatever the socket allows: the connect, sending, reading
 * results and notifications. ready: the CT_AC_WANT_* bits poll() reported
 * for the fd (0 when called from a timer: then only work that needs no
 * socket readiness is done). Never blocks. Returns CT_AC_EV_* bits. */
unsigned ct_aconn_step(struct ct_aconn *c, unsigned ready);

/* Queue a statement with n text parameters (params[i] NULL = SQL NULL;
 * copied). what names it in errors. tag comes back in the result. Queries
 * may be queued while connecting; CT_EIO when the state is DOWN. */
ct_status ct_aconn_send(struct ct_aconn *c, int tag, const char *what,
			const char *sql, int n, const char *const *params,
			struct ct_error *err);
/* Queries queued or running. */
size_t ct_aconn_pending(const struct ct_aconn *c);
/* The oldest finished query, or NULL. The caller frees it. */
struct ct_arows *ct_aconn_take(struct ct_aconn *c);
/* Pop one notification's channel name into buf (len bytes); 0 when there
 * is none, 1 when one was popped. */
int ct_aconn_notification(struct ct_aconn *c, char *buf, size_t len);

/* "user@host:port/dbname" for the header: never the password. Filled from
 * the live connection when there is one, else from the DSN and the PG*
 * environment. Borrowed, valid until the next call on c. */
const char *ct_aconn_display(struct ct_aconn *c);
/* Why the last connect failed or the connection was lost ("" if never).
 * Borrowed. */
const char *ct_aconn_last_error(const struct ct_aconn *c);

#endif
