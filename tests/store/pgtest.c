/* pgtest.c: helpers for the store tests; see pgtest.h. */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pgtest.h"

const char *pgt_dsn(const char *dbname)
{
	/* One buffer per thread: worker threads of the concurrency and
	 * migration tests call this at the same time, and with one shared
	 * buffer a thread could read it while another rewrote it (once the
	 * concurrent migrators test saw 22 migrations applied instead of
	 * 11: a torn, empty DSN connects to libpq's default database). */
	static _Thread_local char buf[1024];
	const char *base = getenv("CT_TEST_DSN");
	if (!base || !base[0])
		fail_msg("CT_TEST_DSN is not set: run under tests/store/pg-cluster.sh");
	/* In a libpq connection string the last of a repeated keyword wins. */
	snprintf(buf, sizeof buf, "%s dbname=%s", base, dbname);
	return buf;
}

struct ct_store *pgt_fresh(const char *name, int migrate)
{
	struct ct_store *admin, *s;
	struct ct_error err = {{0}};
	char sql[256];
	if (ct_store_open(pgt_dsn("postgres"), &admin, &err) != CT_OK)
		fail_msg("%s", err.msg);
	/* name is a constant from the test source: identifiers cannot be
	 * parameters, and no outside value reaches this text. */
	snprintf(sql, sizeof sql, "DROP DATABASE IF EXISTS %s", name);
	pgt_exec(admin, sql);
	if (migrate && pgt_int(admin, "SELECT count(*) FROM pg_database "
			       "WHERE datname = 'pgt_migrated'") == 0) {
		/* the cluster's first migrated database: migrate it once as
		 * a template; every later one is a copy (CREATE DATABASE ...
		 * TEMPLATE: a fraction of the 21 migrations' time) */
		pgt_exec(admin, "CREATE DATABASE pgt_migrated");
		if (ct_store_open(pgt_dsn("pgt_migrated"), &s, &err) != CT_OK)
			fail_msg("%s", err.msg);
		struct ct_migrate_result r;
		if (ct_store_migrate(s, NULL, &r, &err) != CT_OK)
			fail_msg("%s", err.msg);
		ct_store_close(s);
	}
	snprintf(sql, sizeof sql, "CREATE DATABASE %s%s", name,
		 migrate ? " TEMPLATE pgt_migrated" : "");
	pgt_exec(admin, sql);
	ct_store_close(admin);
	if (ct_store_open(pgt_dsn(name), &s, &err) != CT_OK)
		fail_msg("%s", err.msg);
	return s;
}

char *pgt_text(struct ct_store *s, const char *sql, int n,
	       const char *const *params)
{
	struct ct_error err = {{0}};
	size_t len = 1 << 20;
	char *buf = malloc(len);
	assert_non_null(buf);
	if (ct_store_query(s, "test", sql, n, params, buf, len, NULL, &err) !=
	    CT_OK)
		fail_msg("%s\n  in: %s", err.msg, sql);
	return buf;
}

long long pgt_int(struct ct_store *s, const char *sql)
{
	char *t = pgt_text(s, sql, 0, NULL);
	long long v = atoll(t);
	free(t);
	return v;
}

double pgt_double(struct ct_store *s, const char *sql)
{
	char *t = pgt_text(s, sql, 0, NULL);
	double v = strtod(t, NULL);
	free(t);
	return v;
}

void pgt_exec(struct ct_store *s, const char *sql)
{
	struct ct_error err = {{0}};
	if (ct_store_exec(s, "test", sql, &err) != CT_OK)
		fail_msg("%s\n  in: %s", err.msg, sql);
}

int64_t pgt_job(struct ct_store *s, const char *name, const char *domain,
		int priority, const char *mode)
{
	struct ct_error err = {{0}};
	int64_t id = 0;
	if (ct_store_job_create(s, name, domain, priority, mode, &id, &err) !=
	    CT_OK)
		fail_msg("%s", err.msg);
	return id;
}

struct ct_enqueue_result pgt_enqueue_batch(struct ct_store *s,
					   const struct ct_enqueue_batch *b)
{
	struct ct_enqueue_result r;
	struct ct_error err = {{0}};
	if (ct_store_enqueue(s, b, &r, &err) != CT_OK)
		fail_msg("%s", err.msg);
	return r;
}

struct ct_enqueue_batch pgt_batch_from(int64_t job, const char *const *paths,
				       size_t n, const double *scores,
				       ct_source_type src, int64_t src_page)
{
	struct ct_enqueue_batch b = CT_ENQUEUE_BATCH_INIT;
	b.job_id = job;
	b.paths = paths;
	b.n = n;
	b.scores = scores;
	b.source = src;
	b.source_page_id = src_page;
	return b;
}

struct ct_enqueue_result pgt_enqueue_from(struct ct_store *s, int64_t job,
					  const char *const *paths, size_t n,
					  const double *scores,
					  ct_source_type src, int64_t src_page)
{
	struct ct_enqueue_batch b = pgt_batch_from(job, paths, n, scores, src,
						   src_page);
	return pgt_enqueue_batch(s, &b);
}

struct ct_enqueue_result pgt_enqueue(struct ct_store *s, int64_t job,
				     const char *const *paths, size_t n,
				     const double *scores)
{
	return pgt_enqueue_from(s, job, paths, n, scores, CT_SRC_SITEMAP, 0);
}

struct ct_claim pgt_claim(struct ct_store *s, const char *worker, int64_t job,
			  int n, double lease)
{
	struct ct_claim c;
	struct ct_error err = {{0}};
	if (ct_store_claim(s, worker, job, n, lease, &c, &err) != CT_OK)
		fail_msg("%s", err.msg);
	return c;
}

/* ct_store_notice_fn: keep auto_explain's notices (they hold "plan:"). A
 * copy that fails is left out: the counts of the tests that use them fall
 * short, and fail (no cmocka failure from inside libpq's callback). */
static void collect_plan(void *ctx, const char *severity, const char *message)
{
	struct pgt_plans *p = ctx;
	(void)severity;
	if (p->n < PGT_PLANS_MAX && strstr(message, "plan:") &&
	    (p->text[p->n] = strdup(message)) != NULL)
		p->n++;
}

void pgt_plans_start(struct ct_store *s, struct pgt_plans *p)
{
	p->n = 0;
	ct_store_set_notice_hook(s, collect_plan, p);
	pgt_exec(s, "LOAD 'auto_explain'");
	pgt_exec(s, "SET auto_explain.log_min_duration = 0;"
		 "SET auto_explain.log_nested_statements = on;"
		 "SET auto_explain.log_level = notice;"
		 "SET client_min_messages = notice");
}

void pgt_plans_stop(struct ct_store *s)
{
	pgt_exec(s, "SET auto_explain.log_min_duration = -1");
	ct_store_set_notice_hook(s, NULL, NULL);
}

void pgt_plans_free(struct pgt_plans *p)
{
	for (int i = 0; i < p->n; i++)
		free(p->text[i]);
	p->n = 0;
}

void pgt_autovacuum(struct ct_store *s, const char *table, bool on)
{
	char sql[160];
	snprintf(sql, sizeof sql, on ?
		 "ALTER TABLE crawltop.%s RESET (autovacuum_enabled)" :
		 "ALTER TABLE crawltop.%s SET (autovacuum_enabled = off)", table);
	pgt_exec(s, sql);
}

void pgt_grow_job(struct ct_store *s, int64_t job, int n)
{
	char sql[512];
	snprintf(sql, sizeof sql, "INSERT INTO crawltop.pages (domain_id, path) "
		 "SELECT j.domain_id, '/h/' || g FROM crawltop.jobs j, "
		 "generate_series(1, %d) g WHERE j.id = %" PRId64, n, job);
	pgt_exec(s, sql);
	snprintf(sql, sizeof sql, "INSERT INTO crawltop.tasks (job_id, page_id, "
		 "job_priority) SELECT j.id, p.id, 5 FROM crawltop.jobs j JOIN "
		 "crawltop.pages p ON p.domain_id = j.domain_id WHERE j.id = %"
		 PRId64 " AND p.path LIKE '/h/%%'", job);
	pgt_exec(s, sql);
}

void pgt_assert_index_scan(const char *plan, const char *index,
			   const char *what)
{
	char want[128], only[128];
	if (strstr(plan, "Sort") || strstr(plan, "Seq Scan on tasks"))
		fail_msg("%s plan sorts or scans the table:\n%s", what, plan);
	snprintf(want, sizeof want, "Index Scan using %s", index);
	snprintf(only, sizeof only, "Index Only Scan using %s", index);
	if (!strstr(plan, want) && !strstr(plan, only))
		fail_msg("%s does not use %s:\n%s", what, index, plan);
}

int pgt_close(void **state)
{
	ct_store_close(*state);
	return 0;
}
