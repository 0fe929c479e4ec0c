/* cli_ops.c: job lookups, job rows with task counts and transactions for
 * the scripting commands (cli_ops.h). Plain SELECTs with every outside
 * value as a parameter, through st_exec like the rest of the store. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_ops.h"
#include "store_int.h"

/* The columns of one job row with its counts; $1 NULL selects every job.
 * The status is the shown one (crawltop.job_status_shown, 0007), from the
 * same counts the row carries; the stored one and the retrying count come
 * last. */
static const char job_sql[] =
	"SELECT j.id, j.name, d.name, j.prioritization_mode, "
	"crawltop.job_status_shown(j.status, c.pending, c.running, c.retrying, "
	"c.completed + c.failed + c.skipped), "
	"j.priority, j.max_retries, j.total_pages, "
	"c.pending, c.running, c.completed, c.failed, c.skipped, "
	"to_char(j.created_at AT TIME ZONE 'UTC', "
	"'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'), "
	"to_char(j.updated_at AT TIME ZONE 'UTC', "
	"'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'), j.status, c.retrying, "
	"coalesce(j.rescore_reason, ''), coalesce(to_char("
	"j.rescore_needed_at AT TIME ZONE 'UTC', "
	"'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'), '') "
	"FROM crawltop.jobs j "
	"JOIN crawltop.domains d ON d.id = j.domain_id "
	/* the live counters (0007_counters.sql): O(cells), not O(tasks) */
	"CROSS JOIN LATERAL crawltop.job_status_counts(j.id) c "
	"WHERE $1::bigint IS NULL OR j.id = $1::bigint "
	"ORDER BY j.id";

/* Copy row `row` of a job_sql result into *o. */
static void job_row(const PGresult *r, int row, struct ct_job_info *o)
{
	memset(o, 0, sizeof *o);
	o->id = strtoll(PQgetvalue(r, row, 0), NULL, 10);
	snprintf(o->name, sizeof o->name, "%s", PQgetvalue(r, row, 1));
	snprintf(o->domain, sizeof o->domain, "%s", PQgetvalue(r, row, 2));
	snprintf(o->mode, sizeof o->mode, "%s", PQgetvalue(r, row, 3));
	snprintf(o->status, sizeof o->status, "%s", PQgetvalue(r, row, 4));
	o->priority = atoi(PQgetvalue(r, row, 5));
	o->max_retries = atoi(PQgetvalue(r, row, 6));
	o->total_pages = atol(PQgetvalue(r, row, 7));
	o->pending = strtoll(PQgetvalue(r, row, 8), NULL, 10);
	o->running = strtoll(PQgetvalue(r, row, 9), NULL, 10);
	o->completed = strtoll(PQgetvalue(r, row, 10), NULL, 10);
	o->failed = strtoll(PQgetvalue(r, row, 11), NULL, 10);
	o->skipped = strtoll(PQgetvalue(r, row, 12), NULL, 10);
	snprintf(o->created, sizeof o->created, "%s", PQgetvalue(r, row, 13));
	snprintf(o->updated, sizeof o->updated, "%s", PQgetvalue(r, row, 14));
	snprintf(o->stored_status, sizeof o->stored_status, "%s",
		 PQgetvalue(r, row, 15));
	o->retrying = strtoll(PQgetvalue(r, row, 16), NULL, 10);
	snprintf(o->rescore_reason, sizeof o->rescore_reason, "%s",
		 PQgetvalue(r, row, 17));
	snprintf(o->rescore_needed, sizeof o->rescore_needed, "%s",
		 PQgetvalue(r, row, 18));
}

/* True when spec is 1..18 decimal digits: a possible job id. */
static int all_digits(const char *spec)
{
	size_t n = strlen(spec);
	if (n == 0 || n > 18)
		return 0;
	return strspn(spec, "0123456789") == n;
}

ct_status ct_store_job_find(struct ct_store *s, const char *spec,
			    int64_t *id, struct ct_error *err)
{
	*id = 0;
	/* a name (0001: A-Z a-z 0-9 . _ -) or an id: anything else names no
	 * job, and is not sent (a byte that is not UTF-8 came back as the
	 * server's encoding error) */
	size_t n = strlen(spec);
	if (n == 0 || n > 64 || strspn(spec, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
			"abcdefghijklmnopqrstuvwxyz0123456789._-") != n) {
		char shown[64 * 4 + 8];
		size_t k = 0;
		for (size_t i = 0; spec[i] && k + 5 < sizeof shown - 4; i++) {
			unsigned char c = (unsigned char)spec[i];
			k += (size_t)snprintf(shown + k, sizeof shown - k,
					      c < 0x20 || c >= 0x7f ? "\\x%02x" : "%c",
					      c);
		}
		if (spec[0] && k + 5 >= sizeof shown - 4)
			snprintf(shown + k, sizeof shown - k, "...");
		return ct_error_set(err, CT_ENOENT, "job '%s' does not exist (a "
				    "job is named by 1 to 64 of A-Z a-z 0-9 . _ - "
				    "or by its id)", shown);
	}
	const char *params[] = {spec, all_digits(spec) ? spec : NULL};
	PGresult *r;
	ct_status st = st_exec(s, "find job",
		"SELECT id FROM crawltop.jobs WHERE name = $1 OR id = $2::bigint "
		"ORDER BY name = $1 DESC LIMIT 1", 2, params, &r, err);
	if (st != CT_OK)
		return st;
	if (PQntuples(r) == 0)
		st = ct_error_set(err, CT_ENOENT, "job '%.100s' does not exist "
				  "(no job has that name%s)", spec,
				  params[1] ? " or id" : "");
	else
		*id = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
	PQclear(r);
	return st;
}

ct_status ct_store_job_get(struct ct_store *s, int64_t job_id,
			   struct ct_job_info *out, struct ct_error *err)
{
	char job[24];
	snprintf(job, sizeof job, "%" PRId64, job_id);
	const char *params[] = {job};
	PGresult *r;
	ct_status st = st_exec(s, "read job", job_sql, 1, params, &r, err);
	if (st != CT_OK)
		return st;
	if (PQntuples(r) == 0)
		st = ct_error_set(err, CT_ENOENT, "read job: job %" PRId64
				  " does not exist", job_id);
	else
		job_row(r, 0, out);
	PQclear(r);
	return st;
}

ct_status ct_store_job_list(struct ct_store *s, struct ct_job_info_list *out,
			    struct ct_error *err)
{
	*out = (struct ct_job_info_list){0};
	const char *params[] = {NULL};
	PGresult *r;
	ct_status st = st_exec(s, "list jobs", job_sql, 1, params, &r, err);
	if (st != CT_OK)
		return st;
	size_t n = (size_t)PQntuples(r);
	if (n) {
		out->jobs = calloc(n, sizeof *out->jobs);
		if (!out->jobs) {
			PQclear(r);
			return ct_error_set(err, CT_ENOMEM, "list jobs: out of "
					    "memory for %zu jobs", n);
		}
		for (size_t i = 0; i < n; i++)
			job_row(r, (int)i, &out->jobs[i]);
		out->n = n;
	}
	PQclear(r);
	return CT_OK;
}

void ct_job_info_list_free(struct ct_job_info_list *l)
{
	free(l->jobs);
	*l = (struct ct_job_info_list){0};
}

ct_status ct_store_job_active(struct ct_store *s, int64_t job_id,
			      bool *pending, bool *running,
			      char status[16], struct ct_error *err)
{
	char job[24];
	snprintf(job, sizeof job, "%" PRId64, job_id);
	const char *params[] = {job};
	PGresult *r;
	ct_status st = st_exec(s, "job state",
		"SELECT EXISTS (SELECT 1 FROM crawltop.queue "
		"WHERE job_id = $1::bigint), "
		"EXISTS (SELECT 1 FROM crawltop.leases l JOIN crawltop.tasks t "
		"ON t.id = l.task_id WHERE t.job_id = $1::bigint), status "
		"FROM crawltop.jobs WHERE id = $1::bigint",
		1, params, &r, err);
	if (st != CT_OK)
		return st;
	if (PQntuples(r) != 1) {
		PQclear(r);
		return ct_error_set(err, CT_ENOENT, "job %s does not exist", job);
	}
	*pending = PQgetvalue(r, 0, 0)[0] == 't';
	*running = PQgetvalue(r, 0, 1)[0] == 't';
	snprintf(status, 16, "%s", PQgetvalue(r, 0, 2));
	PQclear(r);
	return CT_OK;
}

/* Run sql (no parameters) and return its first value as an int. */
static ct_status one_int(struct ct_store *s, const char *what, const char *sql,
			 int *out, struct ct_error *err)
{
	PGresult *r;
	ct_status st = st_exec(s, what, sql, 0, NULL, &r, err);
	if (st != CT_OK)
		return st;
	*out = atoi(PQgetvalue(r, 0, 0));
	PQclear(r);
	return CT_OK;
}

ct_status ct_store_max_url_bytes(struct ct_store *s, int *out,
				 struct ct_error *err)
{
	return one_int(s, "max url bytes", "SELECT crawltop.max_url_bytes()",
		       out, err);
}

ct_status ct_store_default_priority(struct ct_store *s, int *out,
				    struct ct_error *err)
{
	return one_int(s, "default priority",
		"SELECT coalesce((SELECT (value->>'default_priority')::integer "
		"FROM crawltop.settings ORDER BY version DESC LIMIT 1), 5)",
		out, err);
}

ct_status ct_store_begin(struct ct_store *s, struct ct_error *err)
{
	return st_exec(s, "begin", "BEGIN", 0, NULL, NULL, err);
}

/* COMMIT of a transaction that a failed statement aborted succeeds as a
 * ROLLBACK: report that as the failure it is. */
ct_status ct_store_commit(struct ct_store *s, struct ct_error *err)
{
	PGresult *r;
	ct_status st = st_exec(s, "commit", "COMMIT", 0, NULL, &r, err);
	if (st != CT_OK)
		return st;
	if (strcmp(PQcmdStatus(r), "ROLLBACK") == 0)
		st = ct_error_set(err, CT_EIO, "commit: the transaction was "
				  "aborted and has been rolled back");
	PQclear(r);
	return st;
}

ct_status ct_store_rollback(struct ct_store *s, struct ct_error *err)
{
	return st_exec(s, "rollback", "ROLLBACK", 0, NULL, NULL, err);
}
