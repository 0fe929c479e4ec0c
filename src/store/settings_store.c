/* settings_store.c: settings versions and the preview of a settings
 * change (settings_store.h).
 *
 * The preview scores exactly as a rescore does: crawltop.preview_open
 * opens a cursor with the columns of crawltop.rescore_fetch, and every row goes
 * through rescore.c's own scoring (st_rescore_row), so what the preview
 * shows is what an apply will write, operator adjustments included. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "settings_store.h"
#include "store_int.h"

#define PREVIEW_CHUNK 5000

void ct_settings_row_free(struct ct_settings_row *r)
{
	if (!r)
		return;
	free(r->value);
	r->value = NULL;
}

ct_status ct_store_settings_get(struct ct_store *s, int version,
				struct ct_settings_row *out,
				struct ct_error *err)
{
	char v[16];
	snprintf(v, sizeof v, "%d", version);
	const char *p[] = {v};
	PGresult *r;
	memset(out, 0, sizeof *out);
	ct_status st = st_exec(s, "settings", "SELECT version, value::text, "
			       "created_by, to_char(created_at, "
			       "'YYYY-MM-DD HH24:MI:SS'), coalesce(note, '') "
			       "FROM crawltop.settings WHERE $1::integer IN "
			       "(0, version) ORDER BY version DESC LIMIT 1", 1, p,
			       &r, err);
	if (st != CT_OK)
		return st;
	if (PQntuples(r) == 0) {
		PQclear(r);
		return version ? ct_error_set(err, CT_ENOENT, "settings: there "
					      "is no version %d", version) :
			ct_error_set(err, CT_ENOENT, "settings: crawltop.settings "
				     "is empty");
	}
	out->version = atoi(PQgetvalue(r, 0, 0));
	out->value = strdup(PQgetvalue(r, 0, 1));
	snprintf(out->created_by, sizeof out->created_by, "%s", PQgetvalue(r, 0, 2));
	snprintf(out->created_at, sizeof out->created_at, "%s", PQgetvalue(r, 0, 3));
	snprintf(out->note, sizeof out->note, "%s", PQgetvalue(r, 0, 4));
	PQclear(r);
	if (!out->value)
		return ct_error_set(err, CT_ENOMEM, "settings: out of memory");
	return CT_OK;
}

ct_status ct_store_settings_put_marked(struct ct_store *s, const char *json,
				       int base_version, const char *action,
				       const char *note, const int64_t *jobs,
				       size_t n_jobs, int *version,
				       long *changed, struct ct_error *err)
{
	char b[16];
	snprintf(b, sizeof b, "%d", base_version);
	char *arr = ct_store_id_array(jobs, n_jobs);
	if (!arr)
		return ct_error_set(err, CT_ENOMEM, "settings: out of memory");
	const char *p[] = {json, b, action, note, arr};
	PGresult *r;
	ct_status st = st_exec(s, "settings", "SELECT version, changed FROM "
			       "crawltop.settings_put_marked($1::jsonb, "
			       "$2::integer, $3, $4, $5::bigint[])", 5, p, &r,
			       err);
	free(arr);
	if (st != CT_OK)
		return st;
	if (version)
		*version = atoi(PQgetvalue(r, 0, 0));
	if (changed)
		*changed = atol(PQgetvalue(r, 0, 1));
	PQclear(r);
	return CT_OK;
}

ct_status ct_store_settings_put(struct ct_store *s, const char *json,
				int base_version, const char *action,
				const char *note, int *version, long *changed,
				struct ct_error *err)
{
	return ct_store_settings_put_marked(s, json, base_version, action,
					    note, NULL, 0, version, changed,
					    err);
}

/* ---- the preview ------------------------------------------------------ */

static int64_t wall_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Put a task into a next-up list (n entries, best first) when it beats
 * the last one: higher score first, then lower id. (Claims break score
 * ties by discovery time, then id; within one job the task id grows with
 * the discovery time, both being taken as the enqueue inserts.) */
static void top_insert(struct ct_preview_task *top, int *n, int64_t id,
		       const char *path, double score, int cls)
{
	int at = *n;
	while (at > 0 && (score > top[at - 1].score ||
			  (score == top[at - 1].score && id < top[at - 1].id)))
		at--;
	if (at >= CT_PREVIEW_NEXT)
		return;
	int last = *n < CT_PREVIEW_NEXT ? *n : CT_PREVIEW_NEXT - 1;
	memmove(&top[at + 1], &top[at], (size_t)(last - at) * sizeof *top);
	top[at].id = id;
	snprintf(top[at].path, sizeof top[at].path, "%s", path);
	top[at].score = score;
	top[at].cls = cls;
	if (*n < CT_PREVIEW_NEXT)
		(*n)++;
}

/* One fetched chunk into out; *nb and *na count the lists. */
static ct_status preview_chunk(const PGresult *r, const struct ct_preview_opts *o,
			       int64_t now_ms, struct ct_preview *out, int *nb,
			       int *na, struct ct_error *err)
{
	/* the columns rescore.c reads (st_rescore_columns checked them):
	 * task_id 0, score 2, class 3, and base_score and path, found by
	 * their names */
	int c_base = PQfnumber(r, "base_score"), c_path = PQfnumber(r, "path");
	for (int i = 0; i < PQntuples(r); i++) {
		int64_t id = strtoll(PQgetvalue(r, i, 0), NULL, 10);
		double before = strtod(PQgetvalue(r, i, 2), NULL), after;
		double base_before = strtod(PQgetvalue(r, i, c_base), NULL), base;
		int cb = atoi(PQgetvalue(r, i, 3));
		const char *path = PQgetvalue(r, i, c_path);
		bool unranked;
		double adj;
		struct ct_error e;
		if (cb < 0 || cb > 3)
			cb = 3;
		if (st_rescore_row(r, i, out->mode, o->settings, now_ms, &after,
				   &base, &unranked, &adj, &e) != CT_OK)
			return ct_error_set(err, CT_EINVAL, "preview: task %"
					    PRId64 " (%.100s): %s", id, path,
					    e.msg);
		int ca = (int)ct_class_of(after, &o->settings->classes);
		out->sampled++;
		out->unranked += unranked;
		out->adjusted += adj != 0;
		out->before[cb]++;
		out->after[ca]++;
		/* what the rescore writes (rescore_apply): a new mode score,
		 * even one the 0..100 clamp hides, or a new class */
		if (base != base_before || after != before || ca != cb)
			out->changed++;
		top_insert(out->next_before, nb, id, path, before, cb);
		top_insert(out->next_after, na, id, path, after, ca);
	}
	return CT_OK;
}

ct_status ct_store_preview(struct ct_store *s, int64_t job_id,
			   const struct ct_preview_opts *o,
			   struct ct_preview *out, struct ct_error *err)
{
	struct ct_error e;
	memset(out, 0, sizeof *out);
	if (!o || !o->settings)
		return ct_error_set(err, CT_EINVAL, "preview: options with "
				    "engine settings are required");
	if (ct_settings_check(o->settings, &e) != CT_OK)
		return ct_error_set(err, CT_EINVAL, "preview: settings: %s", e.msg);
	size_t n = o->sample ? o->sample : CT_PREVIEW_SAMPLE_MAX;
	if (n > CT_PREVIEW_SAMPLE_MAX)
		return ct_error_set(err, CT_ERANGE, "preview: sample size %zu "
				    "is outside 1..%d", n, CT_PREVIEW_SAMPLE_MAX);
	if (PQtransactionStatus(s->conn) != PQTRANS_IDLE)
		return ct_error_set(err, CT_EINVAL, "preview: the connection is "
				    "inside a transaction");
	int64_t now_ms = o->now_ms ? o->now_ms : wall_ms();
	char job[24], ns[24];
	snprintf(job, sizeof job, "%" PRId64, job_id);
	snprintf(ns, sizeof ns, "%zu", n);
	const char *p[] = {job, ns};
	PGresult *r = NULL;
	ct_status st = st_exec(s, "preview", "BEGIN ISOLATION LEVEL REPEATABLE "
			       "READ READ ONLY", 0, NULL, NULL, err);
	if (st != CT_OK)
		return st;
	st = st_exec(s, "preview", "SELECT j.prioritization_mode, "
		     "crawltop.preview_open(j.id, $2::integer, 'ct_preview') "
		     "FROM crawltop.jobs j WHERE j.id = $1::bigint", 2, p, &r,
		     err);
	if (st != CT_OK)
		goto fail;
	if (PQntuples(r) == 0) {
		st = ct_error_set(err, CT_ENOENT, "preview: job %s does not "
				  "exist", job);
		goto fail;
	}
	snprintf(out->mode, sizeof out->mode, "%s", PQgetvalue(r, 0, 0));
	out->pending = (size_t)strtoull(PQgetvalue(r, 0, 1), NULL, 10);
	PQclear(r);
	r = NULL;
	char fetch[64];
	snprintf(fetch, sizeof fetch, "FETCH %d FROM ct_preview", PREVIEW_CHUNK);
	int nb = 0, na = 0, first = 1;
	for (;;) {
		if (o->cancel && atomic_load(o->cancel)) {
			out->cancelled = true;
			break;
		}
		if ((st = st_exec(s, "preview", fetch, 0, NULL, &r, err)) != CT_OK)
			goto fail;
		if (first && (st = st_rescore_columns(r, err)) != CT_OK)
			goto fail;
		first = 0;
		if (PQntuples(r) == 0)
			break;
		if ((st = preview_chunk(r, o, now_ms, out, &nb, &na, err)) != CT_OK)
			goto fail;
		PQclear(r);
		r = NULL;
	}
	PQclear(r);
	out->n_next = nb > na ? nb : na;
	return st_exec(s, "preview", "COMMIT", 0, NULL, NULL, err);
fail:
	PQclear(r);
	PQclear(PQexec(s->conn, "ROLLBACK"));
	return st;
}
