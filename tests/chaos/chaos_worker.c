/* chaos_worker: the crawler of ./dev chaos (chaos.sh), through the SQL
 * functions as a crawler in any language would use them.
 *
 *   chaos_worker work DSN NAME BATCH LEASE_SECONDS WORK_MS
 *       claims BATCH tasks at a time with crawltop.claim_next, completing
 *       the batch it holds in the same call (WORK_MS after it got it: the
 *       fetch), until no task is pending or running. A lost connection (a killed backend, a restarted server)
 *       is opened again every 100 ms until it works; the batch it held is
 *       then completed with crawltop.complete if its lease still runs
 *       (else the reaper gives it to someone else). Any other error is
 *       printed and ends the program (exit 1). At the end it prints
 *       "calls N tasks N reconnects N lost N" (lost: held tasks it could
 *       not complete after a reconnect) failed_connects N".
 *   chaos_worker idle DSN N SECONDS
 *       opens N connections, keeps them open and idle for SECONDS, closes
 *       them; prints how many it opened and how many it could not.
 */
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void pause_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

/* The server's warnings ("terminating connection due to immediate
 * shutdown command") are expected here: not errors, not printed. */
static void quiet(void *arg, const char *message)
{
	(void)arg;
	(void)message;
}

static PGconn *open_conn(const char *dsn, const char *app, long *tries)
{
	const char *keys[] = {"dbname", "application_name", NULL};
	const char *vals[] = {dsn, app, NULL};
	for (;;) {
		PGconn *c = PQconnectdbParams(keys, vals, 1);
		if (PQstatus(c) == CONNECTION_OK) {
			PQsetNoticeProcessor(c, quiet, NULL);
			return c;
		}
		PQfinish(c);
		(*tries)++;
		pause_ms(100);
	}
}

/* ids as an array literal into buf */
static void ids_literal(char *buf, size_t n, char ids[][24], int k)
{
	size_t o = (size_t)snprintf(buf, n, "{");
	for (int i = 0; i < k && o < n; i++)
		o += (size_t)snprintf(buf + o, n - o, "%s%s", i ? "," : "", ids[i]);
	snprintf(buf + o, n - o, "}");
}

static int work(const char *dsn, const char *name, int batch, const char *lease,
		long work_ms)
{
	long calls = 0, tasks = 0, reconnects = 0, lost = 0, tries = 0;
	char held[1000][24], arr[1000 * 24 + 4], nbuf[16];
	int n_held = 0, broken = 0, recover = 0;
	if (batch < 1 || batch > 1000)
		return 2;
	snprintf(nbuf, sizeof nbuf, "%d", batch);
	PGconn *c = open_conn(dsn, name, &tries);
	for (;;) {
		if (broken) {
			PQfinish(c);
			c = open_conn(dsn, name, &tries);
			reconnects++;
			broken = 0;
			recover = 1;
		}
		if (recover) {
			/* the batch held when the call failed: completed if its
			 * lease still runs (a call cut off may have committed) */
			recover = 0;
			if (n_held) {
				ids_literal(arr, sizeof arr, held, n_held);
				const char *v[] = {name, arr};
				PGresult *r = PQexecParams(c, "SELECT count(*) FROM "
					"crawltop.complete($1, $2::bigint[])", 2, NULL,
					v, NULL, NULL, 0);
				if (PQresultStatus(r) != PGRES_TUPLES_OK) {
					broken = PQstatus(c) != CONNECTION_OK;
					PQclear(r);
					if (broken)
						continue;
					fprintf(stderr, "%s: complete: %s", name,
						PQerrorMessage(c));
					return 1;
				}
				long done = atol(PQgetvalue(r, 0, 0));
				tasks += done;
				lost += n_held - done;
				PQclear(r);
				n_held = 0;
			}
		}
		ids_literal(arr, sizeof arr, held, n_held);
		const char *v[] = {name, arr, nbuf, lease};
		PGresult *r = PQexecParams(c, "SELECT task_id FROM crawltop.claim_next("
			"$1, $2::bigint[], $3::integer, NULL, $4::double precision)",
			4, NULL, v, NULL, NULL, 0);
		calls++;
		if (PQresultStatus(r) != PGRES_TUPLES_OK) {
			const char *state = PQresultErrorField(r, PG_DIAG_SQLSTATE);
			if (PQstatus(c) != CONNECTION_OK || !state ||
			    !strncmp(state, "57P", 3) || !strncmp(state, "08", 2)) {
				/* terminated, restarted, cut (libpq's own errors,
				 * "server closed the connection unexpectedly",
				 * have no SQLSTATE) */
				broken = 1;
			} else if (state && !strcmp(state, "55000")) {
				recover = 1; /* a held lease ran out: complete
					      * the others on their own */
			} else if (state && !strcmp(state, "40P01")) {
				/* a deadlock with the reaper: nothing done, try
				 * again */
			} else {
				fprintf(stderr, "%s: claim_next: %s", name,
					PQresultErrorMessage(r));
				PQclear(r);
				PQfinish(c);
				return 1;
			}
			PQclear(r);
			continue;
		}
		tasks += n_held;
		n_held = PQntuples(r);
		for (int i = 0; i < n_held; i++)
			snprintf(held[i], sizeof held[i], "%s", PQgetvalue(r, i, 0));
		PQclear(r);
		if (n_held) {
			pause_ms(work_ms); /* the fetch */
			continue;
		}
		/* nothing to claim: done when nothing is pending or running */
		r = PQexec(c, "SELECT count(*) FROM crawltop.tasks "
			   "WHERE status IN ('pending', 'running')");
		if (PQresultStatus(r) != PGRES_TUPLES_OK) {
			broken = 1;
			PQclear(r);
			continue;
		}
		long left = atol(PQgetvalue(r, 0, 0));
		PQclear(r);
		if (left == 0)
			break;
		pause_ms(100);
	}
	PQfinish(c);
	printf("calls %ld tasks %ld reconnects %ld lost %ld failed_connects %ld\n",
	       calls, tasks, reconnects, lost, tries);
	return 0;
}

static int idle(const char *dsn, int n, int seconds)
{
	PGconn **cs = calloc((size_t)n, sizeof *cs);
	long tries = 0;
	int open = 0;
	if (!cs)
		return 1;
	for (int i = 0; i < n; i++) {
		const char *keys[] = {"dbname", "application_name", NULL};
		const char *vals[] = {dsn, "chaos-idle", NULL};
		cs[i] = PQconnectdbParams(keys, vals, 1);
		if (PQstatus(cs[i]) == CONNECTION_OK)
			open++;
		else
			tries++;
	}
	printf("%d %ld\n", open, tries);
	fflush(stdout);
	pause_ms(seconds * 1000L);
	for (int i = 0; i < n; i++)
		PQfinish(cs[i]);
	free(cs);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 7 && !strcmp(argv[1], "work"))
		return work(argv[2], argv[3], atoi(argv[4]), argv[5],
			    atol(argv[6]));
	if (argc == 5 && !strcmp(argv[1], "idle"))
		return idle(argv[2], atoi(argv[3]), atoi(argv[4]));
	fprintf(stderr, "usage: chaos_worker work DSN NAME BATCH LEASE WORK_MS | "
			"idle DSN N SECONDS\n");
	return 2;
}
