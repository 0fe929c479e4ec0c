/* pgtest.h: helpers for the store tests (tests/store/).
 *
 * Every test program runs under pg-cluster.sh, which exports CT_TEST_DSN for
 * a throwaway cluster. pgt_fresh creates a new database in it (optionally
 * migrated) so that tests in one program do not see each other's rows. */
#ifndef CRAWLTOP_PGTEST_H
#define CRAWLTOP_PGTEST_H

#include <stddef.h>
#include <stdint.h>

#include "store.h"

/* The cluster's connection string with dbname replaced (static buffer). */
const char *pgt_dsn(const char *dbname);
/* Drop and create database `name`, connect to it, and migrate it when
 * migrate is set. Fails the test on any error. */
struct ct_store *pgt_fresh(const char *name, int migrate);
/* Run sql (with n parameters) and return its first value as a new string
 * ("" for no row / NULL). Fails the test on error. Caller frees. */
char *pgt_text(struct ct_store *s, const char *sql, int n,
	       const char *const *params);
/* Same, as a long long / a double. */
long long pgt_int(struct ct_store *s, const char *sql);
double pgt_double(struct ct_store *s, const char *sql);
/* Run sql; fail the test on error. */
void pgt_exec(struct ct_store *s, const char *sql);
/* Create a job (fails the test on error); returns its id. */
int64_t pgt_job(struct ct_store *s, const char *name, const char *domain,
		int priority, const char *mode);

/* Enqueue n paths for job as sitemap pages (scores may be NULL); fails the
 * test on error. */
void pgt_enqueue(struct ct_store *s, int64_t job, const char *const *paths,
		 size_t n, const double *scores);
/* A cmocka teardown: closes the store in *state. */
int pgt_close(void **state);

#endif
