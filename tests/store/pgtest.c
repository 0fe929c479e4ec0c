/* pgtest.c: helpers for the store tests; see pgtest.h. */
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
	static char buf[1024];
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
	snprintf(sql, sizeof sql, "CREATE DATABASE %s", name);
	pgt_exec(admin, sql);
	ct_store_close(admin);
	if (ct_store_open(pgt_dsn(name), &s, &err) != CT_OK)
		fail_msg("%s", err.msg);
	if (migrate) {
		struct ct_migrate_result r;
		if (ct_store_migrate(s, NULL, &r, &err) != CT_OK)
			fail_msg("%s", err.msg);
	}
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

void pgt_enqueue(struct ct_store *s, int64_t job, const char *const *paths,
		 size_t n, const double *scores)
{
	struct ct_enqueue_batch b = CT_ENQUEUE_BATCH_INIT;
	struct ct_enqueue_result r;
	struct ct_error err = {{0}};
	b.job_id = job;
	b.paths = paths;
	b.n = n;
	b.scores = scores;
	b.source = CT_SRC_SITEMAP;
	if (ct_store_enqueue(s, &b, &r, &err) != CT_OK)
		fail_msg("%s", err.msg);
}

int pgt_close(void **state)
{
	ct_store_close(*state);
	return 0;
}
