/* claim.c: claim, claim_next, complete, fail and release, as thin calls
 * of the SQL functions in data/sql/0003_claim.sql (fail),
 * 0005_claims_and_modes.sql (release, the starvation guard) and
 * 0022_claim_next.sql (claim, claim_next, complete). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_int.h"

#define CLAIM_COLUMNS \
	"SELECT task_id, job_id, page_id, job_priority, score, class, " \
	"(extract(epoch FROM created_at) * 1000000)::bigint, retry_count, " \
	"depth, source_type, " \
	"(extract(epoch FROM lease_expires_at) * 1000000)::bigint, domain, path "
static const char claim_sql[] = CLAIM_COLUMNS
	"FROM crawltop.claim($1, $2::integer, $3::bigint, $4::double precision)";
static const char claim_next_sql[] = CLAIM_COLUMNS
	"FROM crawltop.claim_next($1, $5::bigint[], $2::integer, $3::bigint, "
	"$4::double precision)";

/* SPEC.md's order on claimed tasks: priority, score desc, time, id. */
static int task_cmp(const void *pa, const void *pb)
{
	const struct ct_task *a = pa, *b = pb;
	if (a->job_priority != b->job_priority)
		return a->job_priority < b->job_priority ? -1 : 1;
	if (a->score != b->score)
		return a->score > b->score ? -1 : 1;
	if (a->discovered_us != b->discovered_us)
		return a->discovered_us < b->discovered_us ? -1 : 1;
	return (a->id > b->id) - (a->id < b->id);
}

static ct_status ids_literal(const int64_t *ids, size_t n, struct st_buf *arr)
{
	*arr = (struct st_buf){0};
	st_buf_putc(arr, '{');
	for (size_t i = 0; i < n; i++)
		st_buf_printf(arr, i ? ",%" PRId64 : "%" PRId64, ids[i]);
	st_buf_putc(arr, '}');
	return arr->oom ? CT_ENOMEM : CT_OK;
}

/* Run claim_sql or claim_next_sql (done: the ids literal, or NULL) and
 * read the tasks it hands out into out. */
static ct_status claim_run(struct ct_store *s, const char *what,
			   const char *worker, int64_t job_id, int n,
			   double lease_seconds, const char *done,
			   struct ct_claim *out, struct ct_error *err)
{
	*out = (struct ct_claim){0};
	char nbuf[16], job[24], lease[40];
	snprintf(nbuf, sizeof nbuf, "%d", n);
	snprintf(job, sizeof job, "%" PRId64, job_id);
	snprintf(lease, sizeof lease, "%.17g", lease_seconds);
	const char *params[] = {worker, nbuf, job_id ? job : NULL,
				lease_seconds != 0 ? lease : NULL, done};
	PGresult *r;
	ct_status st = st_exec(s, what, done ? claim_next_sql : claim_sql,
			       done ? 5 : 4, params, &r, err);
	if (st != CT_OK)
		return st;
	size_t rows = (size_t)PQntuples(r), strings = 0;
	if (rows == 0) {
		PQclear(r);
		return CT_OK;
	}
	for (size_t i = 0; i < rows; i++)
		strings += (size_t)PQgetlength(r, (int)i, 11) +
			   (size_t)PQgetlength(r, (int)i, 12) + 2;
	struct ct_task *t = malloc(rows * sizeof *t + strings);
	if (!t) {
		PQclear(r);
		/* the tasks are leased but nobody will see them: their leases
		 * expire and they return to pending */
		return ct_error_set(err, CT_ENOMEM, "%s: out of memory for "
				    "%zu tasks (their leases will expire)", what,
				    rows);
	}
	char *str = (char *)(t + rows);
	for (size_t i = 0; i < rows; i++) {
		int row = (int)i;
		struct ct_task *k = &t[i];
		k->id = strtoll(PQgetvalue(r, row, 0), NULL, 10);
		k->job_id = strtoll(PQgetvalue(r, row, 1), NULL, 10);
		k->page_id = strtoll(PQgetvalue(r, row, 2), NULL, 10);
		k->job_priority = atoi(PQgetvalue(r, row, 3));
		k->score = strtod(PQgetvalue(r, row, 4), NULL);
		k->cls = atoi(PQgetvalue(r, row, 5));
		k->discovered_us = strtoll(PQgetvalue(r, row, 6), NULL, 10);
		k->retry_count = atoi(PQgetvalue(r, row, 7));
		k->depth = PQgetisnull(r, row, 8) ? -1 : atoi(PQgetvalue(r, row, 8));
		if (!ct_source_type_parse(PQgetvalue(r, row, 9), &k->source))
			k->source = CT_SRC_OTHER;
		k->lease_expires_us = strtoll(PQgetvalue(r, row, 10), NULL, 10);
		for (int col = 11; col <= 12; col++) {
			size_t l = (size_t)PQgetlength(r, row, col);
			memcpy(str, PQgetvalue(r, row, col), l + 1);
			if (col == 11)
				k->domain = str;
			else
				k->path = str;
			str += l + 1;
		}
	}
	PQclear(r);
	qsort(t, rows, sizeof *t, task_cmp);
	out->tasks = t;
	out->n = rows;
	return CT_OK;
}

ct_status ct_store_claim(struct ct_store *s, const char *worker,
			 int64_t job_id, int n, double lease_seconds,
			 struct ct_claim *out, struct ct_error *err)
{
	return claim_run(s, "claim", worker, job_id, n, lease_seconds, NULL,
			 out, err);
}

ct_status ct_store_claim_next(struct ct_store *s, const char *worker,
			      const int64_t *done, size_t n_done,
			      int64_t job_id, int n, double lease_seconds,
			      struct ct_claim *out, struct ct_error *err)
{
	struct st_buf arr;
	if (ids_literal(done, n_done, &arr) != CT_OK) {
		st_buf_free(&arr);
		*out = (struct ct_claim){0};
		return ct_error_set(err, CT_ENOMEM, "claim_next: out of memory");
	}
	ct_status st = claim_run(s, "claim_next", worker, job_id, n,
				 lease_seconds, arr.p, out, err);
	st_buf_free(&arr);
	return st;
}

void ct_claim_free(struct ct_claim *c)
{
	free(c->tasks);
	*c = (struct ct_claim){0};
}

static int id_cmp(const void *pa, const void *pb)
{
	int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
	return (a > b) - (a < b);
}

/* Run sql(worker, ids[, extra]) (np = 2 or 3 parameters) whose first
 * column is the id of each task handled. *handled (may be NULL) receives
 * their number; refused ids make CT_EINVAL with a message listing them.
 * On CT_OK or CT_EINVAL, *res (if res is not NULL) keeps the result for
 * the caller to read and PQclear. */
static ct_status run_ids(struct ct_store *s, const char *what, const char *sql,
			 const char *worker, const int64_t *ids, size_t n,
			 int np, const char *extra, size_t *handled,
			 PGresult **res, struct ct_error *err)
{
	if (handled)
		*handled = 0;
	if (res)
		*res = NULL;
	struct st_buf arr;
	if (ids_literal(ids, n, &arr) != CT_OK) {
		st_buf_free(&arr);
		return ct_error_set(err, CT_ENOMEM, "%s: out of memory", what);
	}
	const char *params[] = {worker, arr.p, extra};
	PGresult *r;
	ct_status st = st_exec(s, what, sql, np, params, &r, err);
	st_buf_free(&arr);
	if (st != CT_OK)
		return st;
	size_t got = (size_t)PQntuples(r);
	if (handled)
		*handled = got;
	if (got < n) {
		/* an id given twice is handled once: compare distinct ids */
		int64_t *done = malloc((got + n) * sizeof *done);
		if (!done) {
			PQclear(r);
			return ct_error_set(err, CT_ENOMEM, "%s: out of memory", what);
		}
		int64_t *want = done + got;
		for (size_t i = 0; i < got; i++)
			done[i] = strtoll(PQgetvalue(r, (int)i, 0), NULL, 10);
		memcpy(want, ids, n * sizeof *want);
		qsort(done, got, sizeof *done, id_cmp);
		qsort(want, n, sizeof *want, id_cmp);
		char list[200] = "";
		size_t distinct = 0, refused = 0, len = 0;
		for (size_t i = 0; i < n; i++) {
			if (i && want[i] == want[i - 1])
				continue;
			distinct++;
			if (bsearch(&want[i], done, got, sizeof *done, id_cmp))
				continue;
			if (refused++ < 10 && len < sizeof list)
				len += (size_t)snprintf(list + len, sizeof list - len,
					"%s%" PRId64, len ? ", " : "", want[i]);
		}
		free(done);
		if (refused)
			st = ct_error_set(err, CT_EINVAL, "%s: %zu of %zu tasks are "
					  "not running under a live lease of worker "
					  "'%.128s': %s%s", what, refused, distinct,
					  worker, list, refused > 10 ? ", ..." : "");
	}
	if (res)
		*res = r;
	else
		PQclear(r);
	return st;
}

ct_status ct_store_complete(struct ct_store *s, const char *worker,
			    const int64_t *ids, size_t n, size_t *done,
			    struct ct_error *err)
{
	return run_ids(s, "complete", "SELECT crawltop.complete($1, $2::bigint[])",
		       worker, ids, n, 2, NULL, done, NULL, err);
}

ct_status ct_store_release(struct ct_store *s, const char *worker,
			   const int64_t *ids, size_t n, size_t *done,
			   struct ct_error *err)
{
	return run_ids(s, "release", "SELECT crawltop.release($1, $2::bigint[])",
		       worker, ids, n, 2, NULL, done, NULL, err);
}

ct_status ct_store_fail(struct ct_store *s, const char *worker,
			const int64_t *ids, size_t n, const char *error,
			size_t *retried, size_t *failed, struct ct_error *err)
{
	PGresult *r;
	size_t a = 0, b = 0;
	ct_status st = run_ids(s, "fail", "SELECT task_id, status FROM "
			       "crawltop.fail($1, $2::bigint[], $3)", worker, ids,
			       n, 3, error, NULL, &r, err);
	if (r) {
		for (int i = 0; i < PQntuples(r); i++) {
			if (strcmp(PQgetvalue(r, i, 1), "failed") == 0)
				b++;
			else
				a++;
		}
		PQclear(r);
	}
	if (retried)
		*retried = a;
	if (failed)
		*failed = b;
	return st;
}
