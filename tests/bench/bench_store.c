/* bench_store: the load generator of ./dev bench store (bench_store.sh).
 *
 *   bench_store rate DSN SECONDS CONNS SQL
 *       CONNS connections (one thread each) run SQL over and over, each
 *       call its own transaction (autocommit), for SECONDS; $1 is the
 *       connection's worker name ("bench-<i>"). The first column of the
 *       first row is the number of tasks the call handled. Prints
 *       "<tasks per second> <calls per second>".
 *   bench_store latency DSN CALLS SQL
 *       one connection runs SQL CALLS times; prints the median and the
 *       95th percentile in milliseconds.
 *   bench_store enqueue DSN BATCHES SQL
 *       one connection runs SQL BATCHES times with $1 = the batch number
 *       (0, 1, ...); the first column is the number of tasks enqueued.
 *       Prints "<tasks per second> <seconds per batch>".
 *   bench_store drain DSN CONNS CLAIM_SQL COMPLETE_SQL
 *       CONNS connections (one thread each) empty the queue as crawlers
 *       do: CLAIM_SQL ($1 the worker name) returns the ids of the tasks
 *       it hands out, one a row, in its own transaction; COMPLETE_SQL
 *       ($1 the worker, $2 the ids as an array literal) completes them
 *       in another. A thread stops when a claim hands out nothing.
 *       COMPLETE_SQL "-": one call completes and claims: CLAIM_SQL takes
 *       the ids of the tasks the thread holds as $2 ('{}' at first) and
 *       completes them in the transaction that hands out the next.
 *       Prints "<tasks> <seconds> <handed out> <handed out twice>"
 *       (./dev bench peers; the ids are compared across threads).
 * Any error stops the program with the server's message (exit 1). */
#include <libpq-fe.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static PGconn *connect_or_die(const char *dsn)
{
	PGconn *c = PQconnectdb(dsn);
	if (PQstatus(c) != CONNECTION_OK) {
		fprintf(stderr, "bench_store: connect: %s", PQerrorMessage(c));
		exit(1);
	}
	return c;
}

/* Run sql with one text parameter; returns the first column of the first
 * row as a number (0 when there is none). */
static long run(PGconn *c, const char *sql, const char *param)
{
	const char *v[1] = {param};
	PGresult *r = PQexecParams(c, sql, param ? 1 : 0, NULL, param ? v : NULL,
				   NULL, NULL, 0);
	if (PQresultStatus(r) != PGRES_TUPLES_OK &&
	    PQresultStatus(r) != PGRES_COMMAND_OK) {
		fprintf(stderr, "bench_store: %s", PQresultErrorMessage(r));
		exit(1);
	}
	long n = 0;
	if (PQntuples(r) > 0 && PQnfields(r) > 0 && !PQgetisnull(r, 0, 0))
		n = atol(PQgetvalue(r, 0, 0));
	PQclear(r);
	return n;
}

struct worker {
	const char *dsn, *sql;
	double seconds;
	int no;
	long tasks, calls;
};

static void *rate_worker(void *arg)
{
	struct worker *w = arg;
	PGconn *c = connect_or_die(w->dsn);
	char name[32];
	snprintf(name, sizeof name, "bench-%d", w->no);
	double end = now_s() + w->seconds;
	while (now_s() < end) {
		w->tasks += run(c, w->sql, name);
		w->calls++;
	}
	PQfinish(c);
	return NULL;
}

static void prepare_or_die(PGconn *c, const char *name, const char *sql,
			   int nparams)
{
	PGresult *r = PQprepare(c, name, sql, nparams, NULL);
	if (PQresultStatus(r) != PGRES_COMMAND_OK) {
		fprintf(stderr, "bench_store: prepare %s: %s", name,
			PQresultErrorMessage(r));
		exit(1);
	}
	PQclear(r);
}

struct drainer {
	const char *dsn, *claim, *complete;
	int no;
	long *ids;
	size_t n, cap;
	double last; /* when it completed its last batch */
};

static void *drain_worker(void *arg)
{
	struct drainer *w = arg;
	PGconn *c = connect_or_die(w->dsn);
	char name[32];
	snprintf(name, sizeof name, "bench-%d", w->no);
	size_t cap_arr = 256;
	char *arr = malloc(cap_arr);
	if (!arr)
		exit(1);
	/* prepared once per connection, as a client library does (graphile's
	 * does): each call then runs the cached plan */
	int both = strcmp(w->complete, "-") == 0;
	prepare_or_die(c, "claim", w->claim, both ? 2 : 1);
	if (!both)
		prepare_or_die(c, "complete", w->complete, 2);
	strcpy(arr, "{}");
	for (;;) {
		const char *v[2] = {name, arr};
		PGresult *r = PQexecPrepared(c, "claim", both ? 2 : 1, v, NULL,
					     NULL, 0);
		if (PQresultStatus(r) != PGRES_TUPLES_OK) {
			fprintf(stderr, "bench_store: claim: %s", PQresultErrorMessage(r));
			exit(1);
		}
		int rows = PQntuples(r);
		if (rows == 0) {
			PQclear(r);
			if (both) /* this call completed the last ones */
				w->last = now_s();
			break;
		}
		size_t len = 0;
		for (int i = 0; i < rows; i++) {
			const char *id = PQgetvalue(r, i, 0);
			size_t need = len + strlen(id) + 3;
			if (need > cap_arr) {
				cap_arr = need * 2;
				arr = realloc(arr, cap_arr);
				if (!arr)
					exit(1);
			}
			arr[len++] = i ? ',' : '{';
			len += (size_t)sprintf(arr + len, "%s", id);
			if (w->n == w->cap) {
				w->cap = w->cap ? w->cap * 2 : 1024;
				w->ids = realloc(w->ids, w->cap * sizeof *w->ids);
				if (!w->ids)
					exit(1);
			}
			w->ids[w->n++] = atol(id);
		}
		arr[len++] = '}';
		arr[len] = '\0';
		PQclear(r);
		w->last = now_s();
		if (both)
			continue;
		v[1] = arr;
		r = PQexecPrepared(c, "complete", 2, v, NULL, NULL, 0);
		if (PQresultStatus(r) != PGRES_TUPLES_OK &&
		    PQresultStatus(r) != PGRES_COMMAND_OK) {
			fprintf(stderr, "bench_store: complete: %s", PQresultErrorMessage(r));
			exit(1);
		}
		PQclear(r);
		w->last = now_s();
	}
	free(arr);
	PQfinish(c);
	return NULL;
}

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;
	return x < y ? -1 : x > y;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	if (argc == 6 && strcmp(argv[1], "rate") == 0) {
		int conns = atoi(argv[4]);
		if (conns < 1 || conns > 64)
			return 2;
		struct worker w[64];
		pthread_t th[64];
		double t0 = now_s();
		for (int i = 0; i < conns; i++) {
			w[i] = (struct worker){.dsn = argv[2], .sql = argv[5],
				.seconds = atof(argv[3]), .no = i};
			pthread_create(&th[i], NULL, rate_worker, &w[i]);
		}
		long tasks = 0, calls = 0;
		for (int i = 0; i < conns; i++) {
			pthread_join(th[i], NULL);
			tasks += w[i].tasks;
			calls += w[i].calls;
		}
		double dt = now_s() - t0;
		printf("%.1f %.1f\n", (double)tasks / dt, (double)calls / dt);
		return 0;
	}
	if (argc == 5 && strcmp(argv[1], "latency") == 0) {
		int n = atoi(argv[3]);
		if (n < 1 || n > 100000)
			return 2;
		PGconn *c = connect_or_die(argv[2]);
		double *ms = calloc((size_t)n, sizeof *ms);
		if (!ms)
			return 1;
		run(c, argv[4], NULL); /* warm the plan cache and buffers */
		for (int i = 0; i < n; i++) {
			double t = now_s();
			run(c, argv[4], NULL);
			ms[i] = (now_s() - t) * 1000.0;
		}
		qsort(ms, (size_t)n, sizeof *ms, cmp_double);
		printf("%.3f %.3f\n", ms[n / 2], ms[(n * 95) / 100]);
		free(ms);
		PQfinish(c);
		return 0;
	}
	if (argc == 5 && strcmp(argv[1], "enqueue") == 0) {
		int n = atoi(argv[3]);
		if (n < 1)
			return 2;
		PGconn *c = connect_or_die(argv[2]);
		long tasks = 0;
		double t = now_s();
		for (int i = 0; i < n; i++) {
			char b[16];
			snprintf(b, sizeof b, "%d", i);
			tasks += run(c, argv[4], b);
		}
		double dt = now_s() - t;
		printf("%.1f %.4f\n", (double)tasks / dt, dt / n);
		PQfinish(c);
		return 0;
	}
	if (argc == 6 && strcmp(argv[1], "drain") == 0) {
		int conns = atoi(argv[3]);
		if (conns < 1 || conns > 64)
			return 2;
		struct drainer w[64];
		pthread_t th[64];
		double t0 = now_s(), end = t0;
		for (int i = 0; i < conns; i++) {
			w[i] = (struct drainer){.dsn = argv[2], .claim = argv[4],
				.complete = argv[5], .no = i};
			pthread_create(&th[i], NULL, drain_worker, &w[i]);
		}
		size_t total = 0;
		for (int i = 0; i < conns; i++) {
			pthread_join(th[i], NULL);
			total += w[i].n;
			if (w[i].last > end)
				end = w[i].last;
		}
		long *all = malloc((total + 1) * sizeof *all);
		if (!all)
			return 1;
		size_t k = 0, twice = 0;
		for (int i = 0; i < conns; i++) {
			memcpy(all + k, w[i].ids, w[i].n * sizeof *all);
			k += w[i].n;
			free(w[i].ids);
		}
		qsort(all, total, sizeof *all, cmp_long);
		for (size_t i = 1; i < total; i++)
			twice += all[i] == all[i - 1];
		printf("%zu %.3f %zu %zu\n", total - twice, end - t0, total, twice);
		free(all);
		return 0;
	}
	fprintf(stderr, "usage: bench_store rate DSN SECONDS CONNS SQL | "
			"latency DSN CALLS SQL | enqueue DSN BATCHES SQL | "
			"drain DSN CONNS CLAIM_SQL COMPLETE_SQL\n");
	return 2;
}
