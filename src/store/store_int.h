/* store_int.h: what the store's .c files share; never included elsewhere. */
#ifndef CRAWLTOP_STORE_INT_H
#define CRAWLTOP_STORE_INT_H

#include <libpq-fe.h>

#include "store.h"

/* The first statements of every session the store opens (ct_store_open
 * and the console's asynchronous connection).
 * - search_path: only pg_catalog, then pg_temp (searched for relations
 *   only, never for functions or operators). Every statement names
 *   crawltop's objects by schema, so nothing else is needed; and an object
 *   that another role planted in a schema on the connecting role's own
 *   path (public, where everyone may create) can never stand in for a
 *   built-in that a statement calls, which would run that role's code
 *   with the caller's rights (a superuser's console, say).
 * - client_connection_check_interval: the server checks once a second,
 *   while a statement runs, that the client is still there (PostgreSQL
 *   14+). A client that quits or dies while its statement waits (on a
 *   lock, say) then has the statement rolled back within a second,
 *   instead of committed later on behalf of nobody. */
#define ST_SESSION_SETUP \
	"SET search_path = pg_catalog, pg_temp; " \
	"SET client_connection_check_interval = 1000"

/* Open a blocking connection for dsn, a connection string or URI
 * (expand_dbname), as ct_store_open and the console's connection thread
 * do: application name "crawltop" unless dsn names one, client encoding
 * UTF8 always, and a connect timeout of 10 s unless dsn sets one, so that a
 * server that does not answer fails the connect instead of hanging it.
 * NULL only when out of memory. */
/* app: the fallback application_name, NULL for "crawltop". */
PGconn *st_connect(const char *dsn, const char *app);

/* SQLSTATE -> ct_status, the mapping store.h documents (NULL or not five
 * characters: CT_EIO). */
ct_status st_status_of(const char *state);

struct ct_store {
	PGconn *conn;
	char sqlstate[6];          /* of the last failure, "" if none */
	ct_store_notice_fn *notice;
	void *notice_ctx;
};

/* The choke point: every statement goes through here. Runs sql with n text
 * parameters (params may hold NULLs for SQL NULL) as one statement, or,
 * with n = ST_SCRIPT, as a simple query that may hold several statements
 * (constant SQL and migration files only). On success *res is the
 * result (the caller PQclear's it; pass res NULL to discard it) and the
 * function returns CT_OK. On failure *res is NULL, err says "what: message
 * (SQLSTATE xxxxx)", s->sqlstate is set, and the status maps the SQLSTATE
 * as store.h documents. */
#define ST_SCRIPT (-1)
ct_status st_exec(struct ct_store *s, const char *what, const char *sql,
		  int n, const char *const *params, PGresult **res,
		  struct ct_error *err);

/* Before trying again a transaction the server rolled back to break a
 * deadlock (attempt `tries`, from 1): wait 10-20 ms, doubling with each
 * attempt up to 320-640 ms, at a random point of that range. Without the
 * wait, the retry takes its first lock again before the transaction it
 * deadlocked with (woken by the rollback) takes it, and deadlocks anew. */
void st_retry_pause(int tries);

/* Runs fn on each of the n items (each `size` bytes, in one array): item
 * 0 on this thread, the others on threads of their own (in turn on this
 * one when a thread cannot start); returns when all are done. The work
 * of a run on several connections (rank's and rescore's stripes). */
void st_parallel(void *items, size_t n, size_t size, void *(*fn)(void *));

/* Checks the extra connections of a run on several (rank, rescore): at
 * most max - 1 of them, each given, none the main one s, and all of them
 * and s outside a transaction (a run commits batch by batch). what names
 * the run in the message. */
ct_status st_conns_check(struct ct_store *s, struct ct_store *const *extra,
			 size_t n_extra, size_t max, const char *what,
			 struct ct_error *err);

/* Growable string for building parameter VALUES (never SQL text). */
struct st_buf {
	char *p;
	size_t len, cap;
	int oom;
};
void st_buf_putc(struct st_buf *b, char c);
void st_buf_puts(struct st_buf *b, const char *s);
void st_buf_putn(struct st_buf *b, const char *s, size_t n);
void st_buf_printf(struct st_buf *b, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;
void st_buf_free(struct st_buf *b);
/* Append a PostgreSQL array literal element: "..." with \ and " escaped. */
void st_buf_array_elem(struct st_buf *b, const char *s);

/* rescore.c's scoring, for a read-only preview (settings_store.c): the
 * columns of a result shaped as crawltop.rescore_fetch's are checked
 * (CT_EIO naming the first that differs), and row i scored under mode
 * with set as a rescore would score it: *base is the mode's score (what
 * the rescore writes to base_score), *score the score that gives with
 * the operator adjustment the task keeps (*adjustment); *unranked as in
 * ct_rescore_result. */
ct_status st_rescore_columns(const PGresult *r, struct ct_error *err);
ct_status st_rescore_row(const PGresult *r, int i, const char *mode,
			 const struct ct_settings *set, int64_t now_ms,
			 double *score, double *base, bool *unranked,
			 double *adjustment, struct ct_error *err);

#endif
