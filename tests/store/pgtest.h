/* pgtest.h: helpers for the store tests (tests/store/).
 *
 * Every test program runs under pg-cluster.sh, which exports CT_TEST_DSN for
 * a throwaway cluster. pgt_fresh creates a new database in it (optionally
 * migrated) so that tests in one program do not see each other's rows. */
#ifndef CRAWLTOP_PGTEST_H
#define CRAWLTOP_PGTEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store.h"

/* The cluster's connection string with dbname replaced (a buffer per
 * thread, overwritten by the thread's next call). */
const char *pgt_dsn(const char *dbname);
/* Drop and create database `name`, connect to it, and migrate it when
 * migrate is set (a copy of the cluster's database pgt_migrated, which
 * the first such call migrates). Fails the test on any error. */
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

/* Enqueue batch b; fails the test on error. Returns what it did. */
struct ct_enqueue_result pgt_enqueue_batch(struct ct_store *s,
					   const struct ct_enqueue_batch *b);
/* The batch of n paths for job (scores may be NULL) found through src on
 * page src_page (0: unknown), the other fields as CT_ENQUEUE_BATCH_INIT. */
struct ct_enqueue_batch pgt_batch_from(int64_t job, const char *const *paths,
				       size_t n, const double *scores,
				       ct_source_type src, int64_t src_page);
/* Enqueue that batch; fails the test on error. */
struct ct_enqueue_result pgt_enqueue_from(struct ct_store *s, int64_t job,
					  const char *const *paths, size_t n,
					  const double *scores,
					  ct_source_type src, int64_t src_page);
/* The same, as sitemap pages. */
struct ct_enqueue_result pgt_enqueue(struct ct_store *s, int64_t job,
				     const char *const *paths, size_t n,
				     const double *scores);

/* Claim up to n tasks of job (0: any job) for worker; fails the test on
 * error. Free with ct_claim_free. */
struct ct_claim pgt_claim(struct ct_store *s, const char *worker, int64_t job,
			  int n, double lease);

/* The plans auto_explain reports while collecting: each one notice's text
 * (query text and plan), in the order the statements ran. */
#define PGT_PLANS_MAX 1024
struct pgt_plans {
	char *text[PGT_PLANS_MAX];
	int n;
};
/* Collect into *p (which must be empty) the plan of every statement s runs
 * from now on, nested ones included (the statements inside plpgsql
 * functions): loads auto_explain, logs every plan as a NOTICE and hooks
 * the notices. Plans past PGT_PLANS_MAX are dropped. */
void pgt_plans_start(struct ct_store *s, struct pgt_plans *p);
/* Stop collecting; *p keeps what was collected. */
void pgt_plans_stop(struct ct_store *s);
void pgt_plans_free(struct pgt_plans *p);
/* Autovacuum of crawltop.<table> off or back to the default: a test of
 * plans made on a small store keeps it from being analysed meanwhile. */
void pgt_autovacuum(struct ct_store *s, const char *table, bool on);
/* n pages '/h/1'..'/h/n' of job's domain and a pending task each, written
 * directly (no function of the store, no ANALYZE): the store grows behind
 * a session's cached plans. */
void pgt_grow_job(struct ct_store *s, int64_t job, int n);
/* Fail the test unless plan reads crawltop.tasks through index (a name or
 * a prefix of one: "Index Scan using <index>..." or "Index Only Scan using
 * <index>...") with no Sort and no Seq Scan on tasks; what names the
 * statement in the message. */
void pgt_assert_index_scan(const char *plan, const char *index,
			   const char *what);
/* A cmocka teardown: closes the store in *state. */
int pgt_close(void **state);

#endif
