/* reprio.c: operator changes to jobs and their pending tasks, as thin
 * calls of data/sql/0004_reprioritise.sql. */
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "store_int.h"

/* A job change PostgreSQL rolls back to break a deadlock (40P01) or a
 * serialization failure (40001) changed nothing; when it ran on its own
 * (not inside a transaction of the caller's), it is made again, up to
 * this many times in all, after a pause (st_retry_pause). */
#define CHANGE_TRIES 5

/* Run a function returning one bigint (the rows changed) into *rows. */
static ct_status call_rows(struct ct_store *s, const char *what,
			   const char *sql, int n, const char *const *params,
			   long *rows, struct ct_error *err)
{
	PGresult *r;
	ct_status st;
	for (int tries = 1;; tries++) {
		st = st_exec(s, what, sql, n, params, &r, err);
		if (st == CT_OK || tries == CHANGE_TRIES ||
		    !ct_store_rolled_back(s) ||
		    PQtransactionStatus(s->conn) != PQTRANS_IDLE)
			break;
		st_retry_pause(tries);
	}
	if (st != CT_OK)
		return st;
	if (rows)
		*rows = atol(PQgetvalue(r, 0, 0));
	PQclear(r);
	return CT_OK;
}

ct_status ct_store_job_set_priority(struct ct_store *s, int64_t job_id,
				    int priority, long *rows,
				    struct ct_error *err)
{
	char job[24], prio[16];
	snprintf(job, sizeof job, "%" PRId64, job_id);
	snprintf(prio, sizeof prio, "%d", priority);
	const char *params[] = {job, prio};
	return call_rows(s, "set job priority",
			 "SELECT crawltop.set_job_priority($1::bigint, $2::integer)",
			 2, params, rows, err);
}

ct_status ct_store_job_act(struct ct_store *s, int64_t job_id,
			   ct_job_action action, long *rows,
			   struct ct_error *err)
{
	static const char *const names[] = {
		[CT_JOB_PAUSE] = "pause",
		[CT_JOB_RESUME] = "resume",
		[CT_JOB_CANCEL] = "cancel",
	};
	if ((unsigned)action > CT_JOB_CANCEL)
		return ct_error_set(err, CT_EINVAL, "job action %d is unknown",
				    (int)action);
	char job[24], what[32];
	snprintf(job, sizeof job, "%" PRId64, job_id);
	snprintf(what, sizeof what, "%s job", names[action]);
	const char *params[] = {job, names[action]};
	return call_rows(s, what, "SELECT crawltop.set_job_state($1::bigint, $2)",
			 2, params, rows, err);
}

/* adjust_scores with p_pattern = pattern; count: adjustable_count (0026),
 * which changes nothing. */
static ct_status adjust(struct ct_store *s, int64_t job_id, const char *match,
			bool pattern, double delta, bool count, long *rows,
			struct ct_error *err)
{
	char job[24], d[40];
	snprintf(job, sizeof job, "%" PRId64, job_id);
	if (isnan(delta))
		snprintf(d, sizeof d, "NaN");
	else if (isinf(delta))
		snprintf(d, sizeof d, delta > 0 ? "Infinity" : "-Infinity");
	else
		snprintf(d, sizeof d, "%.17g", delta);
	const char *params[] = {job, match, d, pattern ? "true" : "false"};
	if (count)
		return call_rows(s, "count the tasks it would change",
				 "SELECT crawltop.adjustable_count($1::bigint, $2, "
				 "$3::double precision, $4::boolean)", 4, params,
				 rows, err);
	return call_rows(s, delta < 0 ? "demote tasks" : "boost tasks",
			 "SELECT crawltop.adjust_scores($1::bigint, $2, "
			 "$3::double precision, $4::boolean)", 4, params, rows,
			 err);
}

ct_status ct_store_adjustable_count(struct ct_store *s, int64_t job_id,
				    const char *match, bool pattern,
				    double delta, long *rows,
				    struct ct_error *err)
{
	return adjust(s, job_id, match, pattern, delta, true, rows, err);
}

ct_status ct_store_adjust_scores(struct ct_store *s, int64_t job_id,
				 const char *prefix, double delta, long *rows,
				 struct ct_error *err)
{
	return adjust(s, job_id, prefix, false, delta, false, rows, err);
}

ct_status ct_store_adjust_matching(struct ct_store *s, int64_t job_id,
				   const char *pattern, double delta,
				   long *rows, struct ct_error *err)
{
	return adjust(s, job_id, pattern, true, delta, false, rows, err);
}

ct_status ct_store_apply_sitemap(struct ct_store *s, int64_t job_id,
				 long *rows, struct ct_error *err)
{
	char job[24];
	snprintf(job, sizeof job, "%" PRId64, job_id);
	const char *params[] = {job};
	return call_rows(s, "apply sitemap priorities",
			 "SELECT crawltop.apply_sitemap_priorities($1::bigint)",
			 1, params, rows, err);
}
