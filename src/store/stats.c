/* stats.c: the live statistics (stats.h), as thin calls of the read API
 * in data/sql/0007_counters.sql. Each result is copied into one block:
 * the rows, then the strings they point to, freed with one free(). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "store_int.h"

/* Bytes the strings of columns cols[0..ncols) of every row of r take,
 * terminators included. */
static size_t strings_size(const PGresult *r, const int *cols, int ncols)
{
	size_t total = 0;
	for (int row = 0; row < PQntuples(r); row++)
		for (int i = 0; i < ncols; i++)
			total += (size_t)PQgetlength(r, row, cols[i]) + 1;
	return total;
}

/* Copy (row, col) of r to *p and advance *p; NULL for SQL NULL. */
static const char *take(const PGresult *r, int row, int col, char **p)
{
	if (PQgetisnull(r, row, col))
		return NULL;
	size_t l = (size_t)PQgetlength(r, row, col);
	char *s = *p;
	memcpy(s, PQgetvalue(r, row, col), l + 1);
	*p += l + 1;
	return s;
}

/* Allocate one block of rows x size bytes followed by `strings` bytes;
 * *str points at the string area. NULL when out of memory. */
static void *block(size_t rows, size_t size, size_t strings, char **str)
{
	char *b = malloc(rows * size + strings + 1);
	if (b)
		*str = b + rows * size;
	return b;
}

/* The bigint at (row, col) of r. */
static int64_t i64(const PGresult *r, int row, int col)
{
	return strtoll(PQgetvalue(r, row, col), NULL, 10);
}

/* A job id parameter: NULL (all jobs) for 0. */
static const char *job_param(int64_t job_id, char *buf, size_t len)
{
	if (job_id == 0)
		return NULL;
	snprintf(buf, len, "%" PRId64, job_id);
	return buf;
}

static const char jobs_sql[] =
	"SELECT job_id, name, domain, mode, priority, status, total_pages, "
	"pending, running, retrying, completed, failed, skipped, claims_per_s, "
	"completions_per_s FROM crawltop.dashboard_jobs()";

ct_status ct_store_stats_jobs(struct ct_store *s, struct ct_job_stats_list *out,
			      struct ct_error *err)
{
	*out = (struct ct_job_stats_list){0};
	PGresult *r;
	ct_status st = st_exec(s, "dashboard jobs", jobs_sql, 0, NULL, &r, err);
	if (st != CT_OK)
		return st;
	size_t rows = (size_t)PQntuples(r);
	static const int cols[] = {1, 2, 3, 5};
	char *str;
	struct ct_job_stats *j = block(rows, sizeof *j,
				       strings_size(r, cols, 4), &str);
	if (!j) {
		PQclear(r);
		return ct_error_set(err, CT_ENOMEM, "dashboard jobs: out of memory");
	}
	for (size_t i = 0; i < rows; i++) {
		int row = (int)i;
		struct ct_job_stats *k = &j[i];
		k->job_id = i64(r, row, 0);
		k->name = take(r, row, 1, &str);
		k->domain = take(r, row, 2, &str);
		k->mode = take(r, row, 3, &str);
		k->priority = atoi(PQgetvalue(r, row, 4));
		k->status = take(r, row, 5, &str);
		k->total_pages = atol(PQgetvalue(r, row, 6));
		k->pending = i64(r, row, 7);
		k->running = i64(r, row, 8);
		k->retrying = i64(r, row, 9);
		k->completed = i64(r, row, 10);
		k->failed = i64(r, row, 11);
		k->skipped = i64(r, row, 12);
		k->claims_per_s = strtod(PQgetvalue(r, row, 13), NULL);
		k->completions_per_s = strtod(PQgetvalue(r, row, 14), NULL);
	}
	PQclear(r);
	out->jobs = j;
	out->n = rows;
	return CT_OK;
}

void ct_job_stats_list_free(struct ct_job_stats_list *l)
{
	free(l->jobs);
	*l = (struct ct_job_stats_list){0};
}

ct_status ct_store_stats_cells(struct ct_store *s, int64_t job_id,
			       struct ct_stat_cells *out, struct ct_error *err)
{
	*out = (struct ct_stat_cells){0};
	char job[24];
	const char *params[] = {job_param(job_id, job, sizeof job)};
	PGresult *r;
	ct_status st = st_exec(s, "dashboard cells", "SELECT dim, key, n FROM "
			       "crawltop.dashboard_cells($1::bigint)", 1, params,
			       &r, err);
	if (st != CT_OK)
		return st;
	size_t rows = (size_t)PQntuples(r);
	static const int cols[] = {0, 1};
	char *str;
	struct ct_stat_cell *c = block(rows, sizeof *c,
				       strings_size(r, cols, 2), &str);
	if (!c) {
		PQclear(r);
		return ct_error_set(err, CT_ENOMEM, "dashboard cells: out of memory");
	}
	for (size_t i = 0; i < rows; i++) {
		c[i].dim = take(r, (int)i, 0, &str);
		c[i].key = take(r, (int)i, 1, &str);
		c[i].n = i64(r, (int)i, 2);
	}
	PQclear(r);
	out->cells = c;
	out->n = rows;
	return CT_OK;
}

void ct_stat_cells_free(struct ct_stat_cells *c)
{
	free(c->cells);
	*c = (struct ct_stat_cells){0};
}

int64_t ct_stat_cells_get(const struct ct_stat_cells *c, const char *dim,
			  const char *key)
{
	for (size_t i = 0; i < c->n; i++)
		if (strcmp(c->cells[i].dim, dim) == 0 &&
		    strcmp(c->cells[i].key, key) == 0)
			return c->cells[i].n;
	return 0;
}

ct_status ct_store_stats_rates(struct ct_store *s, int64_t job_id, int seconds,
			       struct ct_rate_series *out, struct ct_error *err)
{
	*out = (struct ct_rate_series){0};
	char job[24], secs[16];
	snprintf(secs, sizeof secs, "%d", seconds);
	const char *params[] = {job_param(job_id, job, sizeof job), secs};
	PGresult *r;
	ct_status st = st_exec(s, "rate series", "SELECT extract(epoch FROM "
			       "second)::bigint, claims, completions FROM "
			       "crawltop.rate_series($1::bigint, $2::integer)",
			       2, params, &r, err);
	if (st != CT_OK)
		return st;
	size_t rows = (size_t)PQntuples(r);
	struct ct_rate_point *p = malloc((rows ? rows : 1) * sizeof *p);
	if (!p) {
		PQclear(r);
		return ct_error_set(err, CT_ENOMEM, "rate series: out of memory");
	}
	for (size_t i = 0; i < rows; i++) {
		p[i].second = i64(r, (int)i, 0);
		p[i].claims = i64(r, (int)i, 1);
		p[i].completions = i64(r, (int)i, 2);
	}
	PQclear(r);
	out->points = p;
	out->n = rows;
	return CT_OK;
}

void ct_rate_series_free(struct ct_rate_series *r)
{
	free(r->points);
	*r = (struct ct_rate_series){0};
}

static const char next_sql[] =
	"SELECT task_id, job_id, path, score, class, job_priority, "
	"(extract(epoch FROM created_at) * 1000000)::bigint, depth, type, "
	"discovery_method FROM crawltop.next_tasks($1::bigint, $2::integer)";

ct_status ct_store_next_tasks(struct ct_store *s, int64_t job_id, int limit,
			      struct ct_next_tasks *out, struct ct_error *err)
{
	*out = (struct ct_next_tasks){0};
	char job[24], lim[16];
	snprintf(lim, sizeof lim, "%d", limit);
	const char *params[] = {job_param(job_id, job, sizeof job), lim};
	PGresult *r;
	ct_status st = st_exec(s, "next tasks", next_sql, 2, params, &r, err);
	if (st != CT_OK)
		return st;
	size_t rows = (size_t)PQntuples(r);
	static const int cols[] = {2, 8, 9};
	char *str;
	struct ct_next_task *t = block(rows, sizeof *t,
				       strings_size(r, cols, 3), &str);
	if (!t) {
		PQclear(r);
		return ct_error_set(err, CT_ENOMEM, "next tasks: out of memory");
	}
	for (size_t i = 0; i < rows; i++) {
		int row = (int)i;
		struct ct_next_task *k = &t[i];
		k->task_id = i64(r, row, 0);
		k->job_id = i64(r, row, 1);
		k->path = take(r, row, 2, &str);
		k->score = strtod(PQgetvalue(r, row, 3), NULL);
		k->cls = atoi(PQgetvalue(r, row, 4));
		k->job_priority = atoi(PQgetvalue(r, row, 5));
		k->discovered_us = i64(r, row, 6);
		k->depth = PQgetisnull(r, row, 7) ? -1 : atoi(PQgetvalue(r, row, 7));
		k->type = take(r, row, 8, &str);
		k->discovery_method = take(r, row, 9, &str);
	}
	PQclear(r);
	out->tasks = t;
	out->n = rows;
	return CT_OK;
}

void ct_next_tasks_free(struct ct_next_tasks *t)
{
	free(t->tasks);
	*t = (struct ct_next_tasks){0};
}

ct_status ct_store_compact_counts(struct ct_store *s, int *shards,
				  struct ct_error *err)
{
	PGresult *r;
	ct_status st = st_exec(s, "compact counters",
			       "SELECT crawltop.compact_counts()", 0, NULL, &r,
			       err);
	if (st != CT_OK)
		return st;
	if (shards)
		*shards = atoi(PQgetvalue(r, 0, 0));
	PQclear(r);
	return CT_OK;
}
