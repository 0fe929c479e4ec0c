/* batch.c: `crawltop top -b`: the dashboard as plain text or JSON, once
 * per refresh, for scripts (tui.h: tui_batch; app.h: tui_print_*).
 *
 * The same session code as the console (fetch.c) fills the same model;
 * only the output differs. Numbers are printed in full (no "12.3k") so
 * scripts can read them. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <yajl/yajl_gen.h>

#include "app.h"
#include "text.h"

static const char *const class_keys[] = {"P0", "P1", "P2", "P3"};
static const char *const depth_keys[] = {"0", "1", "2", "3+", "unknown"};
static const char *const score_keys[] = {"0-20", "20-40", "40-60", "60-80",
					 "80-100"};
static const char *const status_keys[] = {"pending", "running", "retrying",
					  "completed", "failed", "skipped"};

/* ---- plain text ----------------------------------------------------------- */

/* "label n" pairs on one line. */
static void text_dist(FILE *f, const char *title, const char *const *keys,
		      const long long *n, int cnt, int pct)
{
	long long sum = 0;
	for (int i = 0; i < cnt; i++)
		sum += n[i];
	fprintf(f, "%-9s", title);
	for (int i = 0; i < cnt; i++) {
		if (pct)
			fprintf(f, " %s %lld (%.1f%%)", keys[i], n[i],
				sum ? 100.0 * n[i] / sum : 0.0);
		else
			fprintf(f, " %s %lld", keys[i], n[i]);
	}
	fputc('\n', f);
}

/* The first error of the last refresh, or a general one. */
static const char *first_error(const struct tm_model *m)
{
	const struct tm_age *ages[] = {&m->jobs_age, &m->cells_age,
				       &m->series_age, &m->next_age,
				       &m->audit_age};
	for (size_t i = 0; i < sizeof ages / sizeof ages[0]; i++)
		if (ages[i]->error[0])
			return ages[i]->error;
	return "the refresh failed";
}

int tui_print_text(const struct tui *t, FILE *f)
{
	const struct tm_model *m = &t->model;
	char st[32], d[16];
	time_t wall = time(NULL);
	struct tm tmv;
	char clock[32];
	strftime(clock, sizeof clock, "%Y-%m-%d %H:%M:%S",
		 localtime_r(&wall, &tmv));
	tf_state(t, tui_now(), st, sizeof st);
	fprintf(f, "crawltop %s  %s  %s  every %gs  db %.1f ms\n", clock,
		t->ac ? ct_aconn_display(t->ac) : "", st, t->eff_interval,
		t->cost_ms);
	struct tm_totals tt;
	tm_totals(m, t->focus, &tt);
	const struct tm_job *fj = t->focus ? tm_job_by_id(m, t->focus) : NULL;
	if (fj) {
		/* a job name is store text: shown as the table shows it */
		char fn[4 * 128 + 8];
		fprintf(f, "Focus:    job %" PRId64 " %s\n", fj->id,
			tx_fit(fn, sizeof fn, fj->name, 128, t->utf8,
			       NULL));
	}
	fprintf(f, "Tasks:    pending %lld, running %lld, retrying %lld, "
		"completed %lld, failed %lld, skipped %lld; claims/s %.2f, "
		"completions/s %.2f, ETA %s\n", tt.pending, tt.running,
		tt.retrying, tt.completed, tt.failed, tt.skipped, tt.claims_s,
		tt.completions_s,
		tt.eta_s < 0 ? "-" : tx_dur(d, sizeof d, tt.eta_s));
	/* the jobs with a problem, each with why */
	const struct tm_health_opts *h = &t->prefs.health;
	int np = tm_problems(m, t->focus, h);
	fprintf(f, "Problems: %d", np);
	for (int i = 0; i < m->n_jobs; i++) {
		const struct tm_job *j = &m->jobs[i];
		char why[160], pn[4 * 64 + 8];
		if ((t->focus && j->id != t->focus) ||
		    tm_job_problem(j, h, why, sizeof why) == TM_OK)
			continue;
		fprintf(f, "; %s %s: %s",
			tx_fit(pn, sizeof pn, j->name, 64, t->utf8, NULL),
			tm_job_state(j, h), why);
	}
	fputc('\n', f);
	if (m->cells_age.error[0]) {
		fprintf(f, "Queue:    %s\n", m->cells_age.error);
	} else {
		static const char *const prio_keys[] = {"1", "2", "3", "4",
			"5", "6", "7", "8", "9", "10"};
		text_dist(f, "Class:", class_keys, m->cells.cls, 4, 1);
		text_dist(f, "Depth:", depth_keys, m->cells.depth, 5, 0);
		text_dist(f, "Score:", score_keys, m->cells.score, 5, 0);
		text_dist(f, "Priority:", prio_keys, m->cells.prio, 10, 0);
		fprintf(f, "Heatmap: ");
		for (int i = 0; i < m->cells.n_heat; i++)
			fprintf(f, " %s|%s %lld", m->cells.heat[i].method,
				m->cells.heat[i].type, m->cells.heat[i].n);
		fprintf(f, "%s\n", m->cells.n_heat ? "" : " -");
	}
	/* text columns by their display width (CJK, emoji: two columns a
	 * character), cut when wider; characters made safe as on the
	 * console (control characters never reach the terminal) */
	char cn[1024], cd[1024], cm[64], cs[64], cp[4096];
	int u = t->utf8;
	int idx[TM_MAX_JOBS];
	int n = tm_jobs_view(m, NULL, t->prefs.sort_col, t->prefs.sort_desc, idx);
	/* NAME and DOMAIN as wide as their longest value (a file or a pipe
	 * has no width to fit: a domain was cut at 24 columns), at least
	 * their usual width, at most a name's 64 and a host name's 253 */
	int wn = 20, wd = 24;
	for (int i = 0; i < n; i++) {
		int a = tx_width(m->jobs[idx[i]].name, u);
		int b = tx_width(m->jobs[idx[i]].domain, u);
		wn = a > wn ? (a < 64 ? a : 64) : wn;
		wd = b > wd ? (b < 253 ? b : 253) : wd;
	}
	fprintf(f, "\n%5s %s %s %s %3s %s %8s %8s %8s %6s %6s %6s %8s %8s\n",
		"ID", tx_pad(cn, sizeof cn, "NAME", wn, u, 0),
		tx_pad(cd, sizeof cd, "DOMAIN", wd, u, 0),
		tx_pad(cm, sizeof cm, "MODE", 10, u, 0), "PRI",
		tx_pad(cs, sizeof cs, "STATUS", 9, u, 0),
		"TOTAL", "DONE", "PEND", "RUN", "RETRY", "FAIL", "RATE", "ETA");
	if (m->jobs_age.error[0])
		fprintf(f, "  %s\n", m->jobs_age.error);
	for (int i = 0; i < n; i++) {
		const struct tm_job *j = &m->jobs[idx[i]];
		double e = tm_job_eta(j);
		fprintf(f, "%5" PRId64 " %s %s %s %3d %s %8lld %8lld "
			"%8lld %6lld %6lld %6lld %8.2f %8s\n", j->id,
			tx_pad(cn, sizeof cn, j->name, wn, u, 0),
			tx_pad(cd, sizeof cd, j->domain, wd, u, 0),
			tx_pad(cm, sizeof cm, j->mode, 10, u, 0), j->priority,
			tx_pad(cs, sizeof cs, tm_job_state(j, h), 9, u, 0),
			j->total,
			j->completed, j->pending, j->running, j->retrying,
			j->failed, j->completions_s,
			e < 0 ? "-" : tx_dur(d, sizeof d, e));
	}
	fprintf(f, "\nNext up:\n%8s %5s %3s %-5s %6s  %s %s\n", "TASK", "JOB",
		"PRI", "CLASS", "SCORE", tx_pad(cp, sizeof cp, "PATH", 40, u, 0),
		"WHY");
	if (m->next_age.error[0])
		fprintf(f, "  %s\n", m->next_age.error);
	for (int i = 0; i < m->n_next; i++) {
		const struct tm_next *x = &m->next[i];
		fprintf(f, "%8" PRId64 " %5" PRId64 " %3d P%-4d %6.2f  %s "
			"prio %d, waited %s", x->task_id, x->job_id,
			x->job_priority, x->cls, x->score,
			tx_pad(cp, sizeof cp, x->path, 40, u, 0),
			x->job_priority, tx_dur(d, sizeof d, x->age_s));
		if (x->inlinks >= 0)
			fprintf(f, ", %lld link%s in", x->inlinks,
				x->inlinks == 1 ? "" : "s");
		if (x->depth >= 0)
			fprintf(f, ", depth %d", x->depth);
		if (x->method[0] || x->type[0])
			fprintf(f, ", %s/%s", x->method[0] ? x->method : "-",
				x->type[0] ? x->type : "-");
		fputc('\n', f);
	}
	fputc('\n', f);
	fflush(f);
	return ferror(f) ? -1 : 0;
}

/* ---- JSON --------------------------------------------------------------------- */

static void js(yajl_gen g, const char *s)
{
	yajl_gen_string(g, (const unsigned char *)s, strlen(s));
}

/* A JSON number with 6 significant digits; null when not finite. */
static void jnum(yajl_gen g, double v)
{
	char b[32];
	if (!isfinite(v)) {
		yajl_gen_null(g);
		return;
	}
	int l = snprintf(b, sizeof b, "%.6g", v);
	yajl_gen_number(g, b, (size_t)l);
}

/* "k": integer. */
static void jkv_int(yajl_gen g, const char *k, long long v)
{
	js(g, k);
	yajl_gen_integer(g, v);
}

/* "k": "string". */
static void jkv_str(yajl_gen g, const char *k, const char *v)
{
	js(g, k);
	js(g, v);
}

/* A task's type or discovery method: null when it has none, which the
 * store's counters key "none" and a task's row leaves empty (the two
 * said "none" and "" for the same missing value). */
static void jkv_known(yajl_gen g, const char *k, const char *v)
{
	js(g, k);
	if (!v || !v[0] || !strcmp(v, "none"))
		yajl_gen_null(g);
	else
		js(g, v);
}

/* "k": number (null when not finite). */
static void jkv_num(yajl_gen g, const char *k, double v)
{
	js(g, k);
	jnum(g, v);
}

/* "name": {key: count, ...} for one distribution. */
static void jdist(yajl_gen g, const char *name, const char *const *keys,
		  const long long *n, int cnt)
{
	js(g, name);
	yajl_gen_map_open(g);
	for (int i = 0; i < cnt; i++)
		jkv_int(g, keys[i], n[i]);
	yajl_gen_map_close(g);
}

int tui_print_json(const struct tui *t, FILE *f)
{
	const struct tm_model *m = &t->model;
	yajl_gen g = yajl_gen_alloc(NULL);
	if (!g)
		return -1;
	yajl_gen_config(g, yajl_gen_validate_utf8, 1);
	char st[32];
	tf_state(t, tui_now(), st, sizeof st);
	yajl_gen_map_open(g);
	jkv_int(g, "time", (long long)time(NULL));
	jkv_str(g, "database", t->ac ? ct_aconn_display(t->ac) : "");
	jkv_str(g, "state", st);
	jkv_num(g, "interval_s", t->eff_interval);
	jkv_num(g, "db_ms", t->cost_ms);
	js(g, "db_ms_by_query");
	yajl_gen_map_open(g);
	for (int i = 0; i < 8; i++)
		if (tf_query_name(i))
			jkv_num(g, tf_query_name(i), t->last_q_ms[i]);
	yajl_gen_map_close(g);
	js(g, "focus");
	if (t->focus)
		yajl_gen_integer(g, t->focus);
	else
		yajl_gen_null(g);

	struct tm_totals tt;
	tm_totals(m, t->focus, &tt);
	js(g, "totals");
	yajl_gen_map_open(g);
	jkv_int(g, "pending", tt.pending);
	jkv_int(g, "running", tt.running);
	jkv_int(g, "retrying", tt.retrying);
	jkv_int(g, "completed", tt.completed);
	jkv_int(g, "failed", tt.failed);
	jkv_int(g, "skipped", tt.skipped);
	jkv_num(g, "claims_per_s", tt.claims_s);
	jkv_num(g, "completions_per_s", tt.completions_s);
	jkv_num(g, "eta_s", tt.eta_s < 0 ? NAN : tt.eta_s);
	yajl_gen_map_close(g);

	js(g, "jobs");
	yajl_gen_array_open(g);
	int idx[TM_MAX_JOBS];
	int n = tm_jobs_view(m, NULL, t->prefs.sort_col, t->prefs.sort_desc, idx);
	for (int i = 0; i < n; i++) {
		const struct tm_job *j = &m->jobs[idx[i]];
		double e = tm_job_eta(j);
		yajl_gen_map_open(g);
		jkv_int(g, "id", j->id);
		jkv_str(g, "name", j->name);
		jkv_str(g, "domain", j->domain);
		jkv_str(g, "mode", j->mode);
		jkv_int(g, "priority", j->priority);
		jkv_str(g, "status", j->status);
		jkv_int(g, "total_pages", j->total);
		jkv_int(g, "pending", j->pending);
		jkv_int(g, "running", j->running);
		jkv_int(g, "retrying", j->retrying);
		jkv_int(g, "completed", j->completed);
		jkv_int(g, "failed", j->failed);
		jkv_int(g, "skipped", j->skipped);
		jkv_num(g, "claims_per_s", j->claims_s);
		jkv_num(g, "completions_per_s", j->completions_s);
		jkv_num(g, "eta_s", e < 0 ? NAN : e);
		/* health (0024): the store's view of the crawlers, and the
		 * console's verdict under its thresholds */
		char why[160];
		int bad = tm_job_problem(j, &t->prefs.health, why,
					 sizeof why) != TM_OK;
		jkv_str(g, "state", tm_job_state(j, &t->prefs.health));
		jkv_known(g, "problem", bad ? why : NULL);
		jkv_num(g, "last_claim_s", j->last_claim_s < 0 ? NAN :
			j->last_claim_s);
		jkv_int(g, "live_leases", j->live_leases);
		jkv_int(g, "expired_leases", j->expired_leases);
		jkv_int(g, "workers", j->workers);
		yajl_gen_map_close(g);
	}
	yajl_gen_array_close(g);
	jkv_int(g, "problems", tm_problems(m, t->focus, &t->prefs.health));

	js(g, "queue");
	yajl_gen_map_open(g);
	static const char *const prio_keys[] = {"1", "2", "3", "4", "5", "6",
						"7", "8", "9", "10"};
	jdist(g, "status", status_keys, m->cells.status, TM_STATUS_N);
	jdist(g, "class", class_keys, m->cells.cls, 4);
	jdist(g, "depth", depth_keys, m->cells.depth, 5);
	jdist(g, "score", score_keys, m->cells.score, 5);
	jdist(g, "priority", prio_keys, m->cells.prio, 10);
	js(g, "heat");
	yajl_gen_array_open(g);
	for (int i = 0; i < m->cells.n_heat; i++) {
		yajl_gen_map_open(g);
		jkv_known(g, "method", m->cells.heat[i].method);
		jkv_known(g, "type", m->cells.heat[i].type);
		jkv_int(g, "n", m->cells.heat[i].n);
		yajl_gen_map_close(g);
	}
	yajl_gen_array_close(g);
	yajl_gen_map_close(g);

	js(g, "next");
	yajl_gen_array_open(g);
	for (int i = 0; i < m->n_next; i++) {
		const struct tm_next *x = &m->next[i];
		yajl_gen_map_open(g);
		jkv_int(g, "task_id", x->task_id);
		jkv_int(g, "job_id", x->job_id);
		jkv_str(g, "path", x->path);
		jkv_num(g, "score", x->score);
		jkv_str(g, "class", class_keys[x->cls >= 0 && x->cls < 4 ? x->cls : 3]);
		jkv_int(g, "job_priority", x->job_priority);
		jkv_num(g, "waited_s", x->age_s);
		js(g, "depth");
		if (x->depth >= 0)
			yajl_gen_integer(g, x->depth);
		else
			yajl_gen_null(g);
		jkv_known(g, "type", x->type);
		jkv_known(g, "discovery_method", x->method);
		js(g, "links_in"); /* importance jobs (0033); null otherwise */
		if (x->inlinks >= 0)
			yajl_gen_integer(g, x->inlinks);
		else
			yajl_gen_null(g);
		yajl_gen_map_close(g);
	}
	yajl_gen_array_close(g);

	js(g, "errors");
	yajl_gen_map_open(g);
	const struct { const char *k; const struct tm_age *a; } ages[] = {
		{"jobs", &m->jobs_age}, {"queue", &m->cells_age},
		{"rate", &m->series_age}, {"next", &m->next_age},
		{"audit", &m->audit_age},
	};
	for (size_t i = 0; i < sizeof ages / sizeof ages[0]; i++)
		if (ages[i].a->error[0])
			jkv_str(g, ages[i].k, ages[i].a->error);
	yajl_gen_map_close(g);
	yajl_gen_map_close(g);

	const unsigned char *buf;
	size_t len;
	int rc = -1;
	if (yajl_gen_get_buf(g, &buf, &len) == yajl_gen_status_ok &&
	    fwrite(buf, 1, len, f) == len && fputc('\n', f) != EOF &&
	    fflush(f) == 0)
		rc = 0;
	yajl_gen_free(g);
	return rc;
}

/* ---- the batch loop ------------------------------------------------------------ */

int tui_batch(const struct tui_opts *o)
{
	tx_locale();
	struct tui *t = tui_new(o, 0);
	if (!t) {
		fprintf(stderr, "crawltop top: out of memory\n");
		return 1;
	}
	t->utf8 = tx_utf8_locale();
	t->next_limit = 10;
	struct ct_error err;
	/* the console's health thresholds apply here too (a job is stalled
	 * or failing by the same rule); its sort, theme and panel do not */
	struct tui_prefs cp;
	tui_prefs_default(&cp);
	if (t->prefs_path[0] && tui_prefs_load(t->prefs_path, &cp, &err) != 0)
		fprintf(stderr, "crawltop top: %s (line ignored)\n", err.msg);
	t->prefs.health = cp.health;
	if (tf_start(t, &err) != 0) {
		fprintf(stderr, "crawltop top: %s\n", err.msg);
		tui_free(t);
		return 1;
	}
	int printed = 0, seen = 0, rc = 0;
	while (o->iterations <= 0 || printed < o->iterations) {
		double now = tui_now();
		struct pollfd p = {.fd = -1};
		p.fd = tf_pollfd(t, &p.events);
		int ms = (int)ceil((tf_deadline(t, now) - now) * 1e3);
		int n = poll(&p, p.fd >= 0 ? 1 : 0, ms < 0 ? 0 : ms);
		if (n < 0 && errno != EINTR) {
			fprintf(stderr, "crawltop top: poll: %s\n", strerror(errno));
			rc = 1;
			break;
		}
		tf_step(t, n > 0 ? p.revents : 0, tui_now());
		if (t->down_since || (!t->connected && t->reconnect_tries)) {
			fprintf(stderr, "crawltop top: %s\n",
				ct_aconn_last_error(t->ac)[0] ?
				ct_aconn_last_error(t->ac) : "connection lost");
			rc = 1;
			break;
		}
		if (t->job_missing) {
			fprintf(stderr, "crawltop top: -j %s: no such job (no "
				"job has that name or id)\n", o->job);
			rc = 1;
			break;
		}
		if (t->refreshes == seen || t->refreshing)
			continue;
		seen = t->refreshes;
		if (t->resolve_job && t->refresh_failed) {
			/* the jobs could not be read: -j cannot be resolved,
			 * and waiting would wait for ever */
			fprintf(stderr, "crawltop top: -j %s: %s\n", o->job,
				first_error(&t->model));
			rc = 1;
			break;
		}
		if (t->resolve_job || t->refresh_focus != t->focus ||
		    t->refresh_again)
			continue; /* -j resolved: print the focused refresh */
		if ((o->json ? tui_print_json(t, stdout) :
			       tui_print_text(t, stdout)) != 0) {
			fprintf(stderr, "crawltop top: writing the output "
				"failed\n");
			rc = 1;
			break;
		}
		printed++;
		if (t->refresh_failed) {
			/* the errors are in the dashboard printed on stdout;
			 * say the first on stderr too, once, as every command
			 * reports its failure there */
			if (rc == 0)
				fprintf(stderr, "crawltop top: %s\n",
					first_error(&t->model));
			rc = 1;
		}
	}
	tf_stop(t);
	tui_free(t);
	return rc;
}
