/* model.c: query rows into the console's model; the jobs table's sort and
 * filter (model.h). No curses, no database. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "model.h"
#include "text.h"

void tm_init(struct tm_model *m)
{
	memset(m, 0, sizeof *m);
	m->can_change = 0;
	snprintf(m->cannot_why, sizeof m->cannot_why, "not connected yet");
}

void tm_free(struct tm_model *m)
{
	free(m->arow_before);
	free(m->arow_after);
	m->arow_before = m->arow_after = NULL;
}

/* Number in a cell; 0 for NULL or garbage. */
static long long ll_at(const struct ct_arows *r, int row, int col)
{
	const char *v = ct_arows_get(r, row, col);
	return v ? strtoll(v, NULL, 10) : 0;
}

static double d_at(const struct ct_arows *r, int row, int col)
{
	const char *v = ct_arows_get(r, row, col);
	double d = v ? strtod(v, NULL) : 0;
	return isfinite(d) ? d : 0;
}

static void s_at(char *dst, size_t len, const struct ct_arows *r, int row,
		 int col)
{
	tx_copy(dst, len, ct_arows_str(r, row, col, ""));
}

/* Common start of a load: a failed query keeps the old data. Returns 1
 * when the rows are usable. */
static int load_begin(struct tm_age *a, const struct ct_arows *r, int ncols)
{
	if (r->st != CT_OK) {
		tx_copy(a->error, sizeof a->error, r->err);
		return 0;
	}
	if (r->ncols < ncols) {
		snprintf(a->error, sizeof a->error,
			 "expected %d columns, got %d", ncols, r->ncols);
		return 0;
	}
	a->error[0] = '\0';
	return 1;
}

/* A number that may be NULL: def then. */
static double dn_at(const struct ct_arows *r, int row, int col, double def)
{
	return ct_arows_get(r, row, col) ? d_at(r, row, col) : def;
}

/* What a job's failure rate carries from one load to the next. */
struct fail_marks {
	int64_t id;
	long long fail_mark, failed_per_min;
	double fail_mark_at;
};

/* The failed tasks' increase over the last full minute: a mark is set
 * when the job is first seen and moved on once a minute has passed. */
static void fail_rate(struct tm_job *j, const struct fail_marks *old,
		      double now)
{
	j->fail_mark = j->failed;
	j->fail_mark_at = now;
	j->failed_per_min = -1;
	if (!old || old->fail_mark_at <= 0)
		return;
	j->fail_mark = old->fail_mark;
	j->fail_mark_at = old->fail_mark_at;
	j->failed_per_min = old->failed_per_min;
	if (now - old->fail_mark_at >= 60) {
		long long d = j->failed - old->fail_mark;
		j->failed_per_min = (long long)llround(
			(d < 0 ? 0 : d) * 60.0 / (now - old->fail_mark_at));
		j->fail_mark = j->failed;
		j->fail_mark_at = now;
	}
}

int tm_load_jobs(struct tm_model *m, const struct ct_arows *r, double now)
{
	if (!load_begin(&m->jobs_age, r, 23))
		return r->st == CT_OK ? -1 : 0;
	int n = r->nrows < TM_MAX_JOBS ? r->nrows : TM_MAX_JOBS;
	/* the marks of the rows before this load */
	struct fail_marks prev[TM_MAX_JOBS];
	int n_prev = m->n_jobs;
	for (int k = 0; k < n_prev; k++)
		prev[k] = (struct fail_marks){m->jobs[k].id, m->jobs[k].fail_mark,
			m->jobs[k].failed_per_min, m->jobs[k].fail_mark_at};
	for (int i = 0; i < n; i++) {
		struct tm_job *j = &m->jobs[i];
		j->id = ll_at(r, i, 0);
		s_at(j->name, sizeof j->name, r, i, 1);
		s_at(j->domain, sizeof j->domain, r, i, 2);
		s_at(j->mode, sizeof j->mode, r, i, 3);
		j->priority = (int)ll_at(r, i, 4);
		s_at(j->status, sizeof j->status, r, i, 5);
		j->total = ll_at(r, i, 6);
		j->pending = ll_at(r, i, 7);
		j->running = ll_at(r, i, 8);
		j->retrying = ll_at(r, i, 9);
		j->completed = ll_at(r, i, 10);
		j->failed = ll_at(r, i, 11);
		j->skipped = ll_at(r, i, 12);
		j->claims_s = d_at(r, i, 13);
		j->completions_s = d_at(r, i, 14);
		j->last_claim_s = dn_at(r, i, 15, -1);
		j->quiet_s = dn_at(r, i, 16, 0);
		j->live_leases = ll_at(r, i, 17);
		j->expired_leases = ll_at(r, i, 18);
		j->workers = ll_at(r, i, 19);
		j->next_expiry_s = dn_at(r, i, 20, -1);
		j->rescore_needed_s = dn_at(r, i, 21, -1);
		s_at(j->rescore_reason, sizeof j->rescore_reason, r, i, 22);
		const struct fail_marks *old = NULL;
		for (int k = 0; k < n_prev && !old; k++)
			if (prev[k].id == j->id)
				old = &prev[k];
		fail_rate(j, old, now);
	}
	m->n_jobs = n;
	m->jobs_age.loaded_at = now;
	return 0;
}

int tm_load_leases(struct tm_model *m, const struct ct_arows *r, double now)
{
	if (!load_begin(&m->leases_age, r, 8))
		return r->st == CT_OK ? -1 : 0;
	int n = r->nrows < TM_MAX_LEASES ? r->nrows : TM_MAX_LEASES;
	for (int i = 0; i < n; i++) {
		struct tm_lease *l = &m->leases[i];
		l->task_id = ll_at(r, i, 0);
		l->job_id = ll_at(r, i, 1);
		s_at(l->job, sizeof l->job, r, i, 2);
		s_at(l->worker, sizeof l->worker, r, i, 3);
		s_at(l->path, sizeof l->path, r, i, 4);
		l->running_s = dn_at(r, i, 5, -1);
		l->expires_s = d_at(r, i, 6);
		l->retries = (int)ll_at(r, i, 7);
	}
	m->n_leases = n;
	m->leases_age.loaded_at = now;
	return 0;
}

/* Index of key in names (n of them), or -1. */
static int key_index(const char *key, const char *const *names, int n)
{
	for (int i = 0; i < n; i++)
		if (strcmp(key, names[i]) == 0)
			return i;
	return -1;
}

int tm_load_cells(struct tm_model *m, const struct ct_arows *r, int64_t job,
		  double now)
{
	static const char *const cls[] = {"P0", "P1", "P2", "P3"};
	static const char *const depth[] = {"0", "1", "2", "3+", "unknown"};
	static const char *const score[] = {"0-20", "20-40", "40-60",
					    "60-80", "80-100"};
	static const char *const status[] = {"pending", "running", "retrying",
					     "completed", "failed", "skipped"};
	if (!load_begin(&m->cells_age, r, 3))
		return r->st == CT_OK ? -1 : 0;
	struct tm_cells *c = &m->cells;
	memset(c, 0, sizeof *c);
	c->job = job;
	for (int i = 0; i < r->nrows; i++) {
		const char *dim = ct_arows_str(r, i, 0, "");
		const char *key = ct_arows_str(r, i, 1, "");
		long long n = ll_at(r, i, 2);
		int k;
		if (strcmp(dim, "class") == 0) {
			k = key_index(key, cls, TM_CLASS_N);
			if (k < 0 && key[0] >= '0' && key[0] <= '3' && !key[1])
				k = key[0] - '0';
			if (k >= 0)
				c->cls[k] += n;
		} else if (strcmp(dim, "depth") == 0) {
			if ((k = key_index(key, depth, TM_DEPTH_N)) >= 0)
				c->depth[k] += n;
		} else if (strcmp(dim, "score") == 0) {
			if ((k = key_index(key, score, TM_SCORE_N)) >= 0)
				c->score[k] += n;
		} else if (strcmp(dim, "priority") == 0) {
			k = atoi(key);
			if (k >= 1 && k <= TM_PRIO_N)
				c->prio[k - 1] += n;
		} else if (strcmp(dim, "status") == 0) {
			if ((k = key_index(key, status, TM_STATUS_N)) >= 0)
				c->status[k] += n;
		} else if (strcmp(dim, "heat") == 0 && c->n_heat < TM_MAX_HEAT) {
			struct tm_heat *h = &c->heat[c->n_heat++];
			const char *bar = strchr(key, '|');
			size_t ml = bar ? (size_t)(bar - key) : strlen(key);
			if (ml >= sizeof h->method)
				ml = sizeof h->method - 1;
			memcpy(h->method, key, ml);
			h->method[ml] = '\0';
			tx_copy(h->type, sizeof h->type, bar ? bar + 1 : "");
			if (!h->method[0])
				snprintf(h->method, sizeof h->method, "-");
			if (!h->type[0])
				snprintf(h->type, sizeof h->type, "-");
			h->n = n;
		}
	}
	m->cells_age.loaded_at = now;
	return 0;
}

int tm_load_series(struct tm_model *m, const struct ct_arows *r, double now)
{
	if (!load_begin(&m->series_age, r, 4))
		return r->st == CT_OK ? -1 : 0;
	memset(m->claims, 0, sizeof m->claims);
	memset(m->completions, 0, sizeof m->completions);
	long long end = r->nrows ? ll_at(r, 0, 3) : m->series_end;
	for (int i = 0; i < r->nrows; i++) {
		long long back = end - ll_at(r, i, 0);
		if (back < 0 || back >= TM_SERIES_SECONDS)
			continue;
		int k = TM_SERIES_SECONDS - 1 - (int)back;
		m->claims[k] += d_at(r, i, 1);
		m->completions[k] += d_at(r, i, 2);
	}
	m->series_end = end;
	m->series_age.loaded_at = now;
	return 0;
}

/* Rows of next_tasks, find_tasks or task_rows (fetch.c's 12 columns:
 * the task, its status and its links in) into dst; returns how many. */
static int next_rows(struct tm_next *dst, int max, const struct ct_arows *r)
{
	int n = r->nrows < max ? r->nrows : max;
	for (int i = 0; i < n; i++) {
		struct tm_next *t = &dst[i];
		t->task_id = ll_at(r, i, 0);
		t->job_id = ll_at(r, i, 1);
		s_at(t->path, sizeof t->path, r, i, 2);
		t->score = d_at(r, i, 3);
		t->cls = (int)ll_at(r, i, 4);
		t->job_priority = (int)ll_at(r, i, 5);
		t->age_s = d_at(r, i, 6);
		t->depth = ct_arows_get(r, i, 7) ? (int)ll_at(r, i, 7) : -1;
		s_at(t->type, sizeof t->type, r, i, 8);
		s_at(t->method, sizeof t->method, r, i, 9);
		s_at(t->status, sizeof t->status, r, i, 10);
		t->inlinks = ct_arows_get(r, i, 11) ? ll_at(r, i, 11) : -1;
	}
	return n;
}

int tm_load_next(struct tm_model *m, const struct ct_arows *r, double now)
{
	if (!load_begin(&m->next_age, r, TM_TASK_COLS))
		return r->st == CT_OK ? -1 : 0;
	m->n_next = next_rows(m->next, TM_MAX_NEXT, r);
	m->next_age.loaded_at = now;
	return 0;
}

int tm_load_queue(struct tm_model *m, const struct ct_arows *r, double now)
{
	if (!load_begin(&m->queue_age, r, TM_TASK_COLS))
		return r->st == CT_OK ? -1 : 0;
	m->n_queue = next_rows(m->queue, TM_MAX_QUEUE, r);
	m->queue_age.loaded_at = now;
	return 0;
}

int tm_load_arow(struct tm_model *m, const struct ct_arows *r, double now)
{
	if (!load_begin(&m->arow_age, r, 3))
		return r->st == CT_OK ? -1 : 0;
	m->arow_age.loaded_at = now;
	if (r->nrows == 0) {
		m->arow_id = 0;
		snprintf(m->arow_age.error, sizeof m->arow_age.error,
			 "the audit row is gone");
		return 0;
	}
	tm_free(m);
	m->arow_before = strdup(ct_arows_str(r, 0, 1, ""));
	m->arow_after = strdup(ct_arows_str(r, 0, 2, ""));
	if (!m->arow_before || !m->arow_after) {
		tm_free(m);
		m->arow_id = 0;
		snprintf(m->arow_age.error, sizeof m->arow_age.error,
			 "out of memory");
		return 0;
	}
	m->arow_id = ll_at(r, 0, 0);
	return 0;
}

int tm_load_card(struct tm_model *m, const struct ct_arows *r, double now)
{
	if (!load_begin(&m->card_age, r, 30))
		return r->st == CT_OK ? -1 : 0;
	int had = m->have_card;
	m->have_card = r->nrows > 0;
	m->card_age.loaded_at = now;
	if (!m->have_card) {
		snprintf(m->card_age.error, sizeof m->card_age.error,
			 "the task is gone (its job was deleted)");
		return 0;
	}
	struct tm_card *c = &m->card;
	struct tm_card was = {.task_id = had ? c->task_id : 0,
			      .ahead_all = c->ahead_all,
			      .ahead_job = c->ahead_job,
			      .position_limit = c->position_limit};
	c->task_id = ll_at(r, 0, 0);
	c->job_id = ll_at(r, 0, 1);
	s_at(c->job, sizeof c->job, r, 0, 2);
	s_at(c->mode, sizeof c->mode, r, 0, 3);
	s_at(c->path, sizeof c->path, r, 0, 4);
	s_at(c->status, sizeof c->status, r, 0, 5);
	c->score = d_at(r, 0, 6);
	c->base_score = d_at(r, 0, 7);
	c->adjustment = d_at(r, 0, 8);
	c->cls = (int)ll_at(r, 0, 9);
	c->job_priority = (int)ll_at(r, 0, 10);
	c->depth = ct_arows_get(r, 0, 11) ? (int)ll_at(r, 0, 11) : -1;
	s_at(c->type, sizeof c->type, r, 0, 12);
	s_at(c->method, sizeof c->method, r, 0, 13);
	s_at(c->source_type, sizeof c->source_type, r, 0, 14);
	s_at(c->source_path, sizeof c->source_path, r, 0, 15);
	c->age_s = d_at(r, 0, 16);
	c->retries = (int)ll_at(r, 0, 17);
	c->max_retries = (int)ll_at(r, 0, 18);
	c->expiries = (int)ll_at(r, 0, 19);
	s_at(c->last_error, sizeof c->last_error, r, 0, 20);
	s_at(c->worker, sizeof c->worker, r, 0, 21);
	c->lease_left_s = dn_at(r, 0, 22, NAN);
	s_at(c->inputs, sizeof c->inputs, r, 0, 23);
	c->ranked = ct_arows_str(r, 0, 24, "f")[0] == 't';
	c->discovery_score = dn_at(r, 0, 25, NAN);
	c->priority_class = ct_arows_get(r, 0, 26) ? (int)ll_at(r, 0, 26) : -1;
	long long limit = ll_at(r, 0, 29);
	if (limit == 0 && strcmp(c->status, "pending") == 0) {
		/* not counted this time (limit 0: queue_position counts
		 * nothing): the place counted last for this task while it was
		 * pending, else "not counted yet" (-2) */
		int counted = c->task_id == was.task_id && was.ahead_all >= 0 &&
			      was.position_limit > 0;
		c->ahead_all = counted ? was.ahead_all : -2;
		c->ahead_job = counted ? was.ahead_job : -2;
		c->position_limit = counted ? was.position_limit : 0;
		return 0;
	}
	c->ahead_all = ct_arows_get(r, 0, 27) ? ll_at(r, 0, 27) : -1;
	c->ahead_job = ct_arows_get(r, 0, 28) ? ll_at(r, 0, 28) : -1;
	c->position_limit = limit;
	return 0;
}

int tm_load_audit(struct tm_model *m, const struct ct_arows *r, double now)
{
	if (!load_begin(&m->audit_age, r, 9))
		return r->st == CT_OK ? -1 : 0;
	int n = r->nrows < TM_MAX_AUDIT ? r->nrows : TM_MAX_AUDIT;
	for (int i = 0; i < n; i++) {
		struct tm_audit *a = &m->audit[i];
		a->id = ll_at(r, i, 0);
		s_at(a->at, sizeof a->at, r, i, 1);
		s_at(a->role, sizeof a->role, r, i, 2);
		s_at(a->app, sizeof a->app, r, i, 3);
		s_at(a->action, sizeof a->action, r, i, 4);
		a->job_id = ll_at(r, i, 5);
		s_at(a->before, sizeof a->before, r, i, 6);
		s_at(a->after, sizeof a->after, r, i, 7);
		a->rows = ll_at(r, i, 8);
	}
	m->n_audit = n;
	m->audit_age.loaded_at = now;
	return 0;
}

int tm_load_role(struct tm_model *m, const struct ct_arows *r)
{
	if (r->st != CT_OK || r->nrows < 1 || r->ncols < 4) {
		m->can_change = 0;
		snprintf(m->cannot_why, sizeof m->cannot_why,
			 "cannot tell the role's rights: %.100s",
			 r->st != CT_OK ? r->err : "no row");
		return -1;
	}
	s_at(m->user, sizeof m->user, r, 0, 0);
	m->can_change = strcmp(ct_arows_str(r, 0, 1, "f"), "t") == 0;
	s_at(m->cannot_why, sizeof m->cannot_why, r, 0, 2);
	s_at(m->server, sizeof m->server, r, 0, 3);
	return 0;
}

const struct tm_job *tm_job_by_id(const struct tm_model *m, int64_t id)
{
	for (int i = 0; i < m->n_jobs; i++)
		if (m->jobs[i].id == id)
			return &m->jobs[i];
	return NULL;
}

void tm_job_changed(struct tm_model *m, int64_t id, int priority,
		    const char *status)
{
	for (int i = 0; i < m->n_jobs; i++) {
		struct tm_job *j = &m->jobs[i];
		if (j->id != id)
			continue;
		if (priority > 0)
			j->priority = priority;
		if (status)
			snprintf(j->status, sizeof j->status, "%s", status);
	}
}

const struct tm_job *tm_job_find(const struct tm_model *m, const char *name)
{
	char *end;
	long long id = strtoll(name, &end, 10);
	for (int i = 0; i < m->n_jobs; i++)
		if (strcmp(m->jobs[i].name, name) == 0 ||
		    (*name && !*end && m->jobs[i].id == id))
			return &m->jobs[i];
	return NULL;
}

long long tm_job_unfinished(const struct tm_job *j)
{
	return j->pending + j->running + j->retrying;
}

enum tm_problem tm_job_stale(const struct tm_job *j, char *why, size_t len)
{
	char d[32];
	if (why && len)
		why[0] = '\0';
	if (tm_job_unfinished(j) == 0 || j->rescore_needed_s < 0)
		return TM_OK;
	if (why)
		snprintf(why, len, "tasks not all rescored for %s (%s ago): "
			 "m, %s again rescores", j->rescore_reason[0] ?
			 j->rescore_reason : "a change",
			 tx_dur(d, sizeof d, j->rescore_needed_s), j->mode);
	return TM_STALE;
}

enum tm_problem tm_job_problem(const struct tm_job *j,
			       const struct tm_health_opts *o, char *why,
			       size_t len)
{
	char d[32];
	if (why && len)
		why[0] = '\0';
	/* a job with nothing left to crawl */
	if (strcmp(j->status, "cancelled") == 0 ||
	    strcmp(j->status, "completed") == 0)
		return TM_OK;
	enum tm_problem stale = tm_job_stale(j, why, len);
	/* a job nobody is meant to crawl now */
	if (strcmp(j->status, "paused") == 0)
		return stale;
	int retries = o->retrying_max >= 0 && j->retrying > o->retrying_max;
	int fails = o->failed_per_min >= 0 &&
		    j->failed_per_min > o->failed_per_min;
	if (retries || fails) {
		if (why && retries)
			snprintf(why, len, "%lld tasks waiting for a retry "
				 "(more than %lld)", j->retrying, o->retrying_max);
		else if (why)
			snprintf(why, len, "%lld tasks failed in the last "
				 "minute (more than %lld)", j->failed_per_min,
				 o->failed_per_min);
		return TM_FAILING;
	}
	/* work waiting, nobody claiming it, nobody holding a live lease */
	if (j->pending > 0 && j->live_leases == 0 && j->quiet_s >= o->stall_s) {
		if (why && j->last_claim_s < 0)
			snprintf(why, len, "no claim in the last %s, no live "
				 "lease", tx_dur(d, sizeof d, j->quiet_s));
		else if (why)
			snprintf(why, len, "no claim for %s, no live lease",
				 tx_dur(d, sizeof d, j->last_claim_s));
		return TM_STALLED;
	}
	return stale; /* its why is written */
}

const char *tm_job_state(const struct tm_job *j,
			 const struct tm_health_opts *o)
{
	switch (tm_job_problem(j, o, NULL, 0)) {
	case TM_STALLED: return "stalled";
	case TM_FAILING: return "failing";
	case TM_STALE: return "stale";
	default: return j->status;
	}
}

int tm_problems(const struct tm_model *m, int64_t job,
		const struct tm_health_opts *o)
{
	int n = 0;
	for (int i = 0; i < m->n_jobs; i++)
		if ((!job || m->jobs[i].id == job) &&
		    tm_job_problem(&m->jobs[i], o, NULL, 0) != TM_OK)
			n++;
	return n;
}

double tm_job_eta(const struct tm_job *j)
{
	/* nothing to estimate: a cancelled job (its tasks are skipped), a
	 * job without tasks */
	if (j->total == 0 || strcmp(j->status, "cancelled") == 0)
		return -1;
	long long left = tm_job_unfinished(j);
	if (left == 0)
		return 0;
	/* retries alone wait for their backoff, whatever the rate; a paused
	 * job's rate is its past, not its future */
	if (j->pending + j->running == 0 || j->completions_s <= 0 ||
	    strcmp(j->status, "paused") == 0)
		return -1;
	return (double)left / j->completions_s;
}

void tm_totals(const struct tm_model *m, int64_t job, struct tm_totals *t)
{
	/* ETA: when the last job that is not paused is done. Each job goes
	 * at its own rate (the sum of all rates would let a job that just
	 * finished, or a fast one, speed up the slow ones); unknown while
	 * such a job has work and no rate, or when only paused jobs have
	 * work. */
	memset(t, 0, sizeof *t);
	int progressing = 0;
	for (int i = 0; i < m->n_jobs; i++) {
		const struct tm_job *j = &m->jobs[i];
		if (job && j->id != job)
			continue;
		t->total += j->total;
		t->pending += j->pending;
		t->running += j->running;
		t->retrying += j->retrying;
		t->completed += j->completed;
		t->failed += j->failed;
		t->skipped += j->skipped;
		t->claims_s += j->claims_s;
		t->completions_s += j->completions_s;
		/* done, paused, cancelled (its running tasks are only
		 * finishing), or only retries waiting for their backoff:
		 * none of them is progressing */
		if (j->pending + j->running == 0 ||
		    strcmp(j->status, "paused") == 0 ||
		    strcmp(j->status, "cancelled") == 0)
			continue;
		progressing = 1;
		double e = tm_job_eta(j);
		if (e < 0 || t->eta_s < 0)
			t->eta_s = -1;
		else if (e > t->eta_s)
			t->eta_s = e;
	}
	/* nothing progressing: unknown while work is left (paused, retries
	 * waiting), and when there are no tasks at all */
	if (!progressing && (t->pending + t->running + t->retrying > 0 ||
			     t->total == 0))
		t->eta_s = -1;
}

/* ---- the jobs table --------------------------------------------------- */

static const char *const col_names[TM_COL_N] = {
	[TM_COL_ID] = "ID",
	[TM_COL_NAME] = "NAME",
	[TM_COL_DOMAIN] = "DOMAIN",
	[TM_COL_MODE] = "MODE",
	[TM_COL_PRI] = "PRI",
	[TM_COL_STATUS] = "STATUS",
	[TM_COL_PROGRESS] = "PROGRESS",
	[TM_COL_PENDING] = "PEND",
	[TM_COL_RUNNING] = "RUN",
	[TM_COL_RETRYING] = "RETRY",
	[TM_COL_FAILED] = "FAIL",
	[TM_COL_RATE] = "RATE",
	[TM_COL_ETA] = "ETA",
};

const char *tm_col_name(enum tm_col c)
{
	return (unsigned)c < TM_COL_N ? col_names[c] : "?";
}

int tm_col_by_name(const char *name)
{
	for (int i = 0; i < TM_COL_N; i++)
		if (strcasecmp(name, col_names[i]) == 0)
			return i;
	return -1;
}

static double progress_of(const struct tm_job *j)
{
	return j->total > 0 ? (double)j->completed / (double)j->total : 0;
}

/* Sort context: qsort has none, so the comparison reads these. */
static const struct tm_model *sort_m;
static enum tm_col sort_col;
static int sort_desc;

static int cmp_num(double a, double b)
{
	return a < b ? -1 : a > b ? 1 : 0;
}

static int cmp_jobs(const void *pa, const void *pb)
{
	const struct tm_job *a = &sort_m->jobs[*(const int *)pa];
	const struct tm_job *b = &sort_m->jobs[*(const int *)pb];
	int c = 0;
	switch (sort_col) {
	case TM_COL_ID: break;
	case TM_COL_NAME: c = strcmp(a->name, b->name); break;
	case TM_COL_DOMAIN: c = strcmp(a->domain, b->domain); break;
	case TM_COL_MODE: c = strcmp(a->mode, b->mode); break;
	case TM_COL_PRI: c = cmp_num(a->priority, b->priority); break;
	case TM_COL_STATUS: c = strcmp(a->status, b->status); break;
	case TM_COL_PROGRESS: c = cmp_num(progress_of(a), progress_of(b)); break;
	case TM_COL_PENDING: c = cmp_num(a->pending, b->pending); break;
	case TM_COL_RUNNING: c = cmp_num(a->running, b->running); break;
	case TM_COL_RETRYING: c = cmp_num(a->retrying, b->retrying); break;
	case TM_COL_FAILED: c = cmp_num(a->failed, b->failed); break;
	case TM_COL_RATE: c = cmp_num(a->completions_s, b->completions_s); break;
	case TM_COL_ETA: {
		/* unknown ETAs (-1) sort after every known one */
		double ea = tm_job_eta(a), eb = tm_job_eta(b);
		c = cmp_num(ea < 0 ? HUGE_VAL : ea, eb < 0 ? HUGE_VAL : eb);
		break;
	}
	default: break;
	}
	if (c == 0)
		c = cmp_num((double)a->id, (double)b->id);
	return sort_desc ? -c : c;
}

/* Case-insensitive substring test. */
static int contains(const char *hay, const char *needle)
{
	size_t n = strlen(needle);
	for (; *hay; hay++)
		if (strncasecmp(hay, needle, n) == 0)
			return 1;
	return n == 0;
}

const char *tm_mode_short(const char *m)
{
	static const char *const full[] = {"hierarchy", "frontier", "discovery",
					   "freshness", "importance"};
	static const char *const abbr[] = {"hier", "front", "disc", "fresh",
					   "impt"};
	for (int i = 0; i < 5; i++)
		if (strcmp(m, full[i]) == 0)
			return abbr[i];
	return m;
}

const char *tm_status_short(const char *s)
{
	if (strcmp(s, "completed") == 0)
		return "done";
	if (strcmp(s, "cancelled") == 0)
		return "cancel";
	if (strcmp(s, "retrying") == 0)
		return "retry";
	return s;
}

int tm_jobs_view(const struct tm_model *m, const char *filter,
		 enum tm_col col, int desc, int *idx)
{
	int n = 0;
	for (int i = 0; i < m->n_jobs; i++) {
		const struct tm_job *j = &m->jobs[i];
		/* a narrow table shows the short words: they match too */
		if (filter && *filter && !contains(j->name, filter) &&
		    !contains(j->domain, filter) && !contains(j->mode, filter) &&
		    !contains(j->status, filter) &&
		    !contains(tm_mode_short(j->mode), filter) &&
		    !contains(tm_status_short(j->status), filter))
			continue;
		idx[n++] = i;
	}
	sort_m = m;
	sort_col = col;
	sort_desc = desc;
	qsort(idx, (size_t)n, sizeof *idx, cmp_jobs);
	return n;
}
