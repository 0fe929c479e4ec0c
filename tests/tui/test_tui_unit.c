/* test_tui_unit.c: the console's curses-free parts without a terminal or
 * a database: text fitting, the model (rows in, sort, filter, totals), the
 * key table and its handlers, the saved settings, the header states, and
 * the asynchronous connection's display string (never the password). */
#include <locale.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "app.h"
#include "change.h"
#include "config_keys.h"
#include "settings_json.h"
#include "text.h"

/* ---- helpers: rows as the async layer would hand them over ------------ */

struct fake_rows {
	struct ct_arows r;
	char *cells[64 * 16];
};

/* Rows from a NULL-separated list of strings, ncols per row; "\\N" is SQL
 * NULL. */
static void fake(struct fake_rows *f, int ncols, int nrows, ...)
{
	memset(f, 0, sizeof *f);
	f->r.ncols = ncols;
	f->r.nrows = nrows;
	f->r.val = f->cells;
	va_list ap;
	va_start(ap, nrows);
	for (int i = 0; i < ncols * nrows; i++) {
		char *s = va_arg(ap, char *);
		f->cells[i] = strcmp(s, "\\N") == 0 ? NULL : s;
	}
	va_end(ap);
}

static void load_three_jobs(struct tm_model *m)
{
	struct fake_rows f;
	/* dashboard_jobs: ..., pending, running, retrying, completed,
	 * failed, skipped, claims/s, completions/s; job_health: last
	 * claim, quiet, live and expired leases, workers, next expiry, the
	 * rescore mark (since, reason) */
	fake(&f, 23, 3,
	     "1", "alpha", "alpha.example.com", "hierarchy", "3", "running",
	     "100", "40", "2", "3", "50", "8", "0", "1.5", "2",
	     "0.5", "0.5", "2", "0", "1", "20", "\\N", "\\N",
	     "2", "beta", "beta.example.org", "fifo", "5", "paused",
	     "10", "10", "0", "0", "0", "0", "0", "0", "0",
	     "\\N", "60", "0", "0", "0", "\\N", "\\N", "\\N",
	     "3", "gamma", "gamma.example.net", "frontier", "1", "pending",
	     "1000", "900", "0", "0", "100", "0", "0", "0", "0.5",
	     "\\N", "60", "0", "1", "0", "\\N", "\\N", "\\N");
	assert_int_equal(tm_load_jobs(m, &f.r, 1.0), 0);
}

/* ---- text ---------------------------------------------------------------- */

static void text_numbers_and_durations(void **state)
{
	char b[32];
	assert_string_equal(tx_count(b, sizeof b, 99999), "99999");
	assert_string_equal(tx_count(b, sizeof b, 123456), "123.5k");
	assert_string_equal(tx_count(b, sizeof b, 1234567), "1.23M");
	/* at most 6 columns: a value that rounds up takes the next unit */
	assert_string_equal(tx_count(b, sizeof b, 999949), "999.9k");
	assert_string_equal(tx_count(b, sizeof b, 999950), "1.00M");
	assert_string_equal(tx_count(b, sizeof b, 999999), "1.00M");
	assert_string_equal(tx_count(b, sizeof b, 99994999), "99.99M");
	assert_string_equal(tx_count(b, sizeof b, 99995000), "100M");
	assert_string_equal(tx_count(b, sizeof b, 999600000), "1.00G");
	assert_string_equal(tx_count(b, sizeof b, 123456789012LL), "123G");
	assert_string_equal(tx_count(b, sizeof b, 999999999999LL), "1.00T");
	static const long long edge[] = {100000, 999950, 9999999, 99999999,
		999999999, 99999999999LL, 999999999999999999LL, INT64_MAX};
	for (size_t i = 0; i < sizeof edge / sizeof *edge; i++)
		assert_true(strlen(tx_count(b, sizeof b, edge[i])) <= 6);
	assert_string_equal(tx_rate(b, sizeof b, 0), "0");
	assert_string_equal(tx_rate(b, sizeof b, 1.234), "1.23");
	assert_string_equal(tx_rate(b, sizeof b, NAN), "0");
	assert_string_equal(tx_dur(b, sizeof b, 59.4), "59s");
	assert_string_equal(tx_dur(b, sizeof b, 60), "1m00s");
	assert_string_equal(tx_dur(b, sizeof b, 3600 * 2 + 300), "2h05m");
	assert_string_equal(tx_dur(b, sizeof b, 86400 * 3 + 3600 * 4), "3d04h");
	assert_string_equal(tx_dur(b, sizeof b, -1), "-");
	assert_string_equal(tx_dur(b, sizeof b, INFINITY), "-");
}

/* A line of segments drops the least important ones whole until the
 * rest fit (the totals line: never a number cut, never under the ETA). */
static void text_keep_segments(void **state)
{
	(void)state;
	static const int w[] = {17, 11, 13, 19, 10, 15, 16};
	static const int prio[] = {8, 7, 3, 5, 6, 2, 4};
	int keep[7];
	assert_int_equal(tx_keep(w, prio, 7, 200, keep), 101);
	for (int i = 0; i < 7; i++)
		assert_int_equal(keep[i], 1);
	/* 73 columns: skipped, then retrying go */
	assert_int_equal(tx_keep(w, prio, 7, 73, keep), 73);
	static const int want[] = {1, 1, 0, 1, 1, 0, 1};
	for (int i = 0; i < 7; i++)
		assert_int_equal(keep[i], want[i]);
	/* one less: the claims rate too */
	assert_int_equal(tx_keep(w, prio, 7, 72, keep), 57);
	assert_int_equal(keep[6], 0);
	assert_int_equal(tx_keep(w, prio, 7, 5, keep), 0);
}

static void text_fit_utf8_and_ascii(void **state)
{
	char b[128];
	int used;
	/* fits: unchanged */
	tx_fit(b, sizeof b, "/caf\u00e9", 10, 1, &used);
	assert_string_equal(b, "/caf\u00e9");
	assert_int_equal(used, 5);
	/* too long: cut with the ellipsis, exactly cols columns */
	/* the tail kept: a question's [y/N] stays on the screen */
	tx_fit_tail(b, sizeof b, "Cancel it? [y/N]", 8, 1, &used);
	assert_string_equal(b, "\u2026? [y/N]");
	assert_int_equal(used, 8);
	tx_fit_tail(b, sizeof b, "abcdefgh", 5, 0, &used);
	assert_string_equal(b, "~efgh");
	assert_int_equal(used, 5);
	tx_fit_tail(b, sizeof b, "short", 8, 1, &used);
	assert_string_equal(b, "short");
	tx_fit_tail(b, sizeof b, "/caf\u00e9 x", 4, 1, &used);
	assert_string_equal(b, "\u2026\u00e9 x");
	tx_fit(b, sizeof b, "abcdefgh", 5, 1, &used);
	assert_string_equal(b, "abcd\u2026");
	assert_int_equal(used, 5);
	tx_fit(b, sizeof b, "abcdefgh", 5, 0, &used);
	assert_string_equal(b, "abcd~");
	/* LANG=C: non-ASCII becomes '?', never raw bytes */
	tx_fit(b, sizeof b, "/caf\u00e9", 10, 0, &used);
	assert_string_equal(b, "/caf?");
	/* control characters and invalid UTF-8 never reach the terminal */
	tx_fit(b, sizeof b, "a\x1b[2Jb\xff", 20, 1, &used);
	assert_string_equal(b, "a?[2Jb?");
	/* nor characters that draw nothing or turn the text around: a
	 * right-to-left override, a zero-width space, a byte order mark */
	tx_fit(b, sizeof b, "/a\u202eb\u200bc\ufeff", 20, 1, &used);
	assert_string_equal(b, "/a?b?c?");
	assert_int_equal(used, 7);
	/* wide characters count two columns */
	assert_int_equal(tx_width("\u6f22\u5b57", 1), 4);
	/* the start of a text that fits in so many columns ends between
	 * characters (the weights panel wraps its notes with it: a
	 * Cyrillic message was cut inside a character) */
	assert_int_equal(tx_prefix("\u043f\u0440\u0438 x", 2, 1), 4);
	assert_int_equal(tx_prefix("\u043f\u0440\u0438 x", 3, 1), 6);
	assert_int_equal(tx_prefix("\u6f22\u5b57", 3, 1), 3);
	assert_int_equal(tx_prefix("abc", 10, 1), 3);
	assert_int_equal(tx_prefix("\u00e9t\u00e9", 2, 0), 3);
	tx_pad(b, sizeof b, "ab", 4, 1, 1);
	assert_string_equal(b, "  ab");
	tx_copy(b, 4, "\u00e9\u00e9");
	assert_string_equal(b, "\u00e9");
}

static void text_bars(void **state)
{
	char b[256];
	const struct tx_glyphs *a = tx_glyphs_get(0), *u = tx_glyphs_get(1);
	tx_bar(b, sizeof b, 0.5, 10, 1, a);
	assert_string_equal(b, "#####.....");
	tx_bar(b, sizeof b, 2.0, 4, 0, a);
	assert_string_equal(b, "####");
	tx_bar(b, sizeof b, 0.5, 1, 0, u); /* half a cell */
	assert_string_equal(b, "\u258c");
	double v[] = {0, 1, 2, 4};
	tx_spark(b, sizeof b, v, 4, 0, a);
	assert_int_equal(strlen(b), 4);
	assert_int_equal(b[3], '#');
}

/* ---- model ----------------------------------------------------------------- */

/* An audit row's before and after as one change (change.h). */
static void audit_change(void **state)
{
	(void)state;
	char b[256];
	assert_string_equal(chg_format(b, sizeof b, "{\"priority\": 5}",
				       "{\"priority\": 7}", "->"),
			    "priority 5->7");
	/* a settings row: the changed key first, the version last */
	assert_string_equal(chg_format(b, sizeof b,
		"{\"version\": 3, \"discovery.weights.freshness\": 0.1}",
		"{\"version\": 4, \"discovery.weights.freshness\": 0.15}",
		"->"), "discovery.weights.freshness 0.1->0.15, version 3->4");
	/* the same value once; a key only after; a key only before */
	assert_string_equal(chg_format(b, sizeof b, "{\"mode\": \"fifo\", "
		"\"gone\": true}", "{\"mode\": \"fifo\", \"tasks\": 12}",
		"->"), "mode fifo, tasks 12, gone true->-");
	/* no before (job.create); nested values as compact JSON */
	assert_string_equal(chg_format(b, sizeof b, "", "{\"name\": \"a b\", "
		"\"w\": {\"x\": [1, \"q\\\"\"]}}", "->"),
		"name a b, w {\"x\":[1,\"q\\\"\"]}");
	/* not objects: both as they are */
	assert_string_equal(chg_format(b, sizeof b, "[1]", "{\"a\": 1}", "->"),
			    "[1]->{\"a\": 1}");
	assert_string_equal(chg_format(b, sizeof b, NULL, NULL, "->"), "-");
	/* cut at the buffer, NUL-terminated */
	char s[8];
	assert_string_equal(chg_format(s, sizeof s, "{\"priority\": 5}",
				       "{\"priority\": 7}", "->"), "priorit");
}

/* Stalled: pending work, no live lease, quiet for the threshold; failing:
 * retries waiting or tasks failed in a minute above theirs; paused and
 * finished jobs never are; the counts and the words the table shows. */
static void model_job_health(void **state)
{
	(void)state;
	struct tm_model *m = calloc(1, sizeof *m);
	tm_init(m);
	load_three_jobs(m);
	struct tm_health_opts o = {.stall_s = 60, .retrying_max = 20,
				   .failed_per_min = 10};
	char why[160];
	const struct tm_job *a = &m->jobs[0], *b = &m->jobs[1], *g = &m->jobs[2];
	assert_true(a->last_claim_s > 0.4 && a->last_claim_s < 0.6);
	assert_int_equal(a->live_leases, 2);
	assert_int_equal(a->workers, 1);
	assert_true(b->last_claim_s < 0); /* NULL: none in the window */
	assert_int_equal(g->expired_leases, 1);
	assert_int_equal(tm_job_problem(a, &o, why, sizeof why), TM_OK);
	assert_string_equal(why, "");
	assert_string_equal(tm_job_state(a, &o), "running");
	/* paused: pending work and nobody claiming is what paused means */
	assert_int_equal(tm_job_problem(b, &o, NULL, 0), TM_OK);
	assert_string_equal(tm_job_state(b, &o), "paused");
	assert_int_equal(tm_job_problem(g, &o, why, sizeof why), TM_STALLED);
	assert_string_equal(why, "no claim in the last 1m00s, no live lease");
	assert_string_equal(tm_job_state(g, &o), "stalled");
	assert_int_equal(tm_problems(m, 0, &o), 1);
	assert_int_equal(tm_problems(m, 1, &o), 0);
	/* quieter than the threshold: not yet */
	o.stall_s = 61;
	assert_int_equal(tm_job_problem(g, &o, NULL, 0), TM_OK);
	o.stall_s = 60;
	/* a live lease: a worker is busy with a long fetch */
	m->jobs[2].live_leases = 1;
	assert_int_equal(tm_job_problem(g, &o, NULL, 0), TM_OK);
	m->jobs[2].live_leases = 0;
	/* a claim a while ago */
	m->jobs[2].last_claim_s = m->jobs[2].quiet_s = 125;
	assert_int_equal(tm_job_problem(g, &o, why, sizeof why), TM_STALLED);
	assert_string_equal(why, "no claim for 2m05s, no live lease");
	/* retries above the threshold: failing, which says why first */
	m->jobs[2].retrying = 21;
	assert_int_equal(tm_job_problem(g, &o, why, sizeof why), TM_FAILING);
	assert_string_equal(why, "21 tasks waiting for a retry (more than 20)");
	assert_string_equal(tm_job_state(g, &o), "failing");
	m->jobs[2].retrying = 20;
	assert_int_equal(tm_job_problem(g, &o, NULL, 0), TM_STALLED);
	/* failed tasks per minute: measured between loads a minute apart */
	assert_int_equal(g->failed_per_min, -1);
	load_three_jobs(m); /* at 1.0 again: no minute has passed */
	assert_int_equal(m->jobs[2].failed_per_min, -1);
	struct fake_rows f;
	fake(&f, 23, 1,
	     "3", "gamma", "gamma.example.net", "frontier", "1", "running",
	     "1000", "800", "2", "0", "100", "12", "0", "1", "0.5",
	     "1", "1", "2", "0", "1", "20", "\\N", "\\N");
	assert_int_equal(tm_load_jobs(m, &f.r, 61.0), 0);
	assert_int_equal(m->n_jobs, 1);
	g = &m->jobs[0];
	assert_int_equal(g->failed_per_min, 12);
	assert_int_equal(tm_job_problem(g, &o, why, sizeof why), TM_FAILING);
	assert_string_equal(why, "12 tasks failed in the last minute "
			    "(more than 10)");
	/* the next minute without failures clears it */
	assert_int_equal(tm_load_jobs(m, &f.r, 122.0), 0);
	assert_int_equal(g->failed_per_min, 0);
	assert_int_equal(tm_job_problem(g, &o, NULL, 0), TM_OK);
	/* a change whose rescore stopped: stale, below failing and
	 * stalled, paused or not, while the job has unfinished tasks */
	struct tm_job *gw = &m->jobs[0];
	gw->rescore_needed_s = 75;
	snprintf(gw->rescore_reason, sizeof gw->rescore_reason, "mode fifo");
	assert_int_equal(tm_job_problem(g, &o, why, sizeof why), TM_STALE);
	assert_string_equal(why, "tasks not all rescored for mode fifo (1m15s "
			    "ago): m, frontier again rescores");
	assert_string_equal(tm_job_state(g, &o), "stale");
	snprintf(gw->status, sizeof gw->status, "paused");
	assert_int_equal(tm_job_problem(g, &o, NULL, 0), TM_STALE);
	gw->retrying = 99;
	snprintf(gw->status, sizeof gw->status, "running");
	assert_int_equal(tm_job_problem(g, &o, NULL, 0), TM_FAILING);
	gw->retrying = 0;
	long long pend = gw->pending, run = gw->running;
	gw->pending = gw->running = 0;
	assert_int_equal(tm_job_problem(g, &o, NULL, 0), TM_OK);
	gw->pending = pend;
	gw->running = run;
	gw->rescore_needed_s = -1;
	assert_int_equal(tm_job_problem(g, &o, NULL, 0), TM_OK);
	/* finished jobs have no problem whatever their counts */
	snprintf(m->jobs[0].status, sizeof m->jobs[0].status, "completed");
	m->jobs[0].retrying = 99;
	m->jobs[0].last_claim_s = m->jobs[0].quiet_s = 999;
	m->jobs[0].live_leases = 0;
	assert_int_equal(tm_job_problem(g, &o, NULL, 0), TM_OK);
	free(m);
}

static void model_jobs_sort_filter_totals(void **state)
{
	struct tm_model *m = calloc(1, sizeof *m);
	tm_init(m);
	load_three_jobs(m);
	assert_int_equal(m->n_jobs, 3);
	assert_string_equal(m->jobs[1].status, "paused");
	int idx[TM_MAX_JOBS];
	int n = tm_jobs_view(m, NULL, TM_COL_PRI, 0, idx);
	assert_int_equal(n, 3);
	assert_string_equal(m->jobs[idx[0]].name, "gamma"); /* priority 1 */
	assert_string_equal(m->jobs[idx[2]].name, "beta");
	n = tm_jobs_view(m, NULL, TM_COL_PENDING, 1, idx);
	assert_string_equal(m->jobs[idx[0]].name, "gamma");
	assert_string_equal(m->jobs[idx[1]].name, "alpha");
	/* ETA: unknown (no completions) sorts last in ascending order */
	n = tm_jobs_view(m, NULL, TM_COL_ETA, 0, idx);
	assert_string_equal(m->jobs[idx[2]].name, "beta");
	/* filter: name, domain, mode or status, any case */
	assert_int_equal(tm_jobs_view(m, "EXAMPLE.ORG", TM_COL_ID, 0, idx), 1);
	assert_int_equal(tm_jobs_view(m, "running", TM_COL_ID, 0, idx), 1);
	assert_int_equal(tm_jobs_view(m, "pending", TM_COL_ID, 0, idx), 1);
	/* ... and the short words a narrow table shows: "done" is completed */
	snprintf(m->jobs[2].status, sizeof m->jobs[2].status, "completed");
	assert_int_equal(tm_jobs_view(m, "done", TM_COL_ID, 0, idx), 1);
	assert_int_equal(idx[0], 2);
	assert_string_equal(tm_status_short("completed"), "done");
	assert_string_equal(tm_mode_short("importance"), "impt");
	/* RETRY sorts by the tasks waiting for a retry */
	n = tm_jobs_view(m, NULL, TM_COL_RETRYING, 1, idx);
	assert_string_equal(m->jobs[idx[0]].name, "alpha");
	assert_int_equal(m->jobs[idx[0]].retrying, 3);
	assert_int_equal(m->jobs[idx[0]].completed, 50);
	assert_int_equal(tm_col_by_name("retry"), TM_COL_RETRYING);
	assert_int_equal(tm_jobs_view(m, "nothing", TM_COL_ID, 0, idx), 0);

	struct tm_totals t;
	tm_totals(m, 0, &t);
	assert_int_equal(t.pending, 950);
	assert_int_equal(t.running, 2);
	assert_int_equal(t.retrying, 3);
	/* when the slowest job not paused is done: gamma, 900 at 0.5/s (not
	 * all 955 at the sum of the rates, 2.5/s: 382 s); a job's ETA counts
	 * the retries still to do: alpha 45 at 2/s */
	assert_true(fabs(t.eta_s - 900 / 0.5) < 1e-9);
	assert_true(fabs(tm_job_eta(tm_job_by_id(m, 1)) - 45 / 2.0) < 1e-9);
	assert_int_equal(tm_job_unfinished(tm_job_by_id(m, 1)), 45);
	tm_totals(m, 2, &t);
	assert_int_equal(t.pending, 10);
	assert_true(t.eta_s < 0); /* paused, nothing completes: unknown */
	/* a paused job with a rate: no ETA either (it does not progress) */
	tm_job_changed(m, 1, 0, "paused");
	assert_true(tm_job_eta(tm_job_by_id(m, 1)) < 0);
	tm_totals(m, 0, &t);
	assert_true(fabs(t.eta_s - 1800) < 1e-9);
	tm_job_changed(m, 3, 0, "paused");
	tm_totals(m, 0, &t);
	assert_true(t.eta_s < 0); /* only paused jobs have work */
	tm_job_changed(m, 1, 0, "running");
	tm_job_changed(m, 3, 0, "pending");
	/* a cancelled job whose running tasks are finishing (beta: 2 running
	 * after the cancel) does not make the header's ETA unknown */
	tm_job_changed(m, 2, 0, "cancelled");
	struct tm_job *beta = (struct tm_job *)tm_job_by_id(m, 2);
	beta->running = 2;
	tm_totals(m, 0, &t);
	assert_true(fabs(t.eta_s - 1800) < 1e-9);
	beta->running = 0;
	/* no estimate (-, not 0s): a cancelled job, a job without tasks, a
	 * job whose only work is a retry waiting for its backoff; a job
	 * whose tasks are all finished is done (0) */
	struct tm_job j = {.total = 10, .completed = 9, .retrying = 1,
			   .completions_s = 2};
	snprintf(j.status, sizeof j.status, "running");
	assert_true(tm_job_eta(&j) < 0);
	j.retrying = 0;
	j.completed = 10;
	assert_true(tm_job_eta(&j) == 0);
	j.skipped = 10;
	j.completed = 0;
	snprintf(j.status, sizeof j.status, "cancelled");
	assert_true(tm_job_eta(&j) < 0);
	memset(&j, 0, sizeof j);
	snprintf(j.status, sizeof j.status, "pending");
	assert_true(tm_job_eta(&j) < 0);
	struct tm_model *e = calloc(1, sizeof *e);
	tm_init(e);
	tm_totals(e, 0, &t);
	assert_true(t.eta_s < 0); /* no tasks at all */
	free(e);
	assert_non_null(tm_job_find(m, "beta"));
	assert_ptr_equal(tm_job_find(m, "3"), tm_job_by_id(m, 3));
	assert_null(tm_job_find(m, "delta"));
	assert_int_equal(tm_col_by_name("pend"), TM_COL_PENDING);
	assert_int_equal(tm_col_by_name("nope"), -1);

	/* a failed query keeps the last data and records the error */
	struct ct_arows bad = {.st = CT_EIO};
	snprintf(bad.err, sizeof bad.err, "dashboard jobs: connection lost");
	tm_load_jobs(m, &bad, 9.0);
	assert_int_equal(m->n_jobs, 3);
	assert_string_equal(m->jobs_age.error, "dashboard jobs: connection lost");
	assert_true(m->jobs_age.loaded_at == 1.0);
	free(m);
}

static void model_cells_and_series(void **state)
{
	struct tm_model *m = calloc(1, sizeof *m);
	tm_init(m);
	struct fake_rows f;
	fake(&f, 3, 7,
	     "class", "P0", "4", "class", "P3", "6", "depth", "3+", "2",
	     "priority", "10", "5", "score", "80-100", "4",
	     "heat", "link|article", "8", "heat", "none|hub", "1");
	tm_load_cells(m, &f.r, 0, 1.0);
	assert_int_equal(m->cells.cls[0], 4);
	assert_int_equal(m->cells.cls[3], 6);
	assert_int_equal(m->cells.depth[3], 2);
	assert_int_equal(m->cells.prio[9], 5);
	assert_int_equal(m->cells.score[4], 4);
	assert_int_equal(m->cells.n_heat, 2);
	assert_string_equal(m->cells.heat[0].method, "link");
	assert_string_equal(m->cells.heat[0].type, "article");
	assert_int_equal(m->cells.heat[1].n, 1);

	fake(&f, 4, 2, "1000", "3", "1", "1001", "1001", "5", "2", "1001");
	tm_load_series(m, &f.r, 1.0);
	assert_true(m->claims[TM_SERIES_SECONDS - 1] == 5);
	assert_true(m->claims[TM_SERIES_SECONDS - 2] == 3);

	/* too few columns: an error, not a crash */
	fake(&f, 2, 1, "class", "P0");
	assert_int_equal(tm_load_cells(m, &f.r, 0, 2.0), -1);
	assert_string_equal(m->cells_age.error, "expected 3 columns, got 2");
	free(m);
}

/* ---- keys ---------------------------------------------------------------------- */

static struct tui *new_tui(void)
{
	struct tui_opts o = {0};
	struct tui *t = calloc(1, sizeof *t);
	t->opts = o;
	tm_init(&t->model);
	tui_prefs_default(&t->prefs);
	load_three_jobs(&t->model);
	tui_view_jobs(t);
	t->rows_visible = 5;
	t->cols = 100;
	t->lines = 30;
	return t;
}

/* A change takes one of eight slots until its answer comes; with all
 * eight waiting (a job row locked holds the answers behind it) the next
 * is refused, not sent in a busy slot, where the waiting change's answer
 * was reported as the new one's. */
static void change_refused_while_eight_wait(void **state)
{
	(void)state;
	struct tui *t = new_tui();
	t->connected = 1;
	for (int i = 0; i < 8; i++)
		t->act_job[i] = 100 + i;
	tf_act(t, TUI_ACT_PRIORITY, 1, 2, NULL, 0);
	assert_int_equal(t->act_seq, 0);
	for (int i = 0; i < 8; i++)
		assert_int_equal(t->act_job[i], 100 + i);
	assert_string_equal(t->message, "job alpha: 8 changes are still being "
			    "made; press again when one is done");
	free(t);
}

/* A terminal smaller than 80x24 shows only "too small": no key may act
 * unseen (a change, a hidden confirmation), and q and Ctrl-C quit in
 * every mode, a prompt included. */
static void keys_too_small_only_quit(void **state)
{
	(void)state;
	struct tui *t = new_tui();
	t->cols = 60;
	t->lines = 15;
	int sel = t->sel_job;
	static const int keys[] = {'j', ']', 'p', 'C', 'y', 'b', TK_ENTER, 'w'};
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
		assert_int_equal(tui_key(t, keys[i]), 0);
	assert_int_equal(t->sel_job, sel);
	assert_int_equal(t->mode, TUI_NORMAL);
	t->mode = TUI_PROMPT;
	assert_int_equal(tui_key(t, 'x'), 0);
	assert_int_equal(tui_key(t, 'q'), TUI_QUIT);
	assert_int_equal(tui_key(t, TK_CTRL('c')), TUI_QUIT);
	/* enlarged again: the keys act */
	t->mode = TUI_NORMAL;
	t->cols = 80;
	t->lines = 24;
	assert_int_equal(tui_key(t, 'j') & TUI_REDRAW, TUI_REDRAW);
	assert_true(t->sel_job != sel);
	assert_true(tui_mode_binds(t, 'q'));
	t->mode = TUI_PROMPT;
	assert_true(tui_mode_binds(t, TK_CTRL('c')));
	assert_false(tui_mode_binds(t, 'q'));
	free(t);
}

/* q asks before it loses a weights draft with edits; y quits, any other
 * key stays; without edits q quits at once. */
static void keys_quit_asks_for_a_draft(void **state)
{
	(void)state;
	struct tui *t = new_tui();
	assert_int_equal(tui_key(t, 'q'), TUI_QUIT);
	t->w.n_edits = 2;
	assert_int_equal(tui_key(t, 'q'), TUI_REDRAW);
	assert_int_equal(t->mode, TUI_CONFIRM);
	assert_non_null(strstr(t->prompt, "2 edits not applied"));
	assert_int_equal(tui_key(t, 'n') & TUI_QUIT, 0);
	assert_int_equal(t->mode, TUI_NORMAL);
	assert_int_equal(tui_key(t, 'q'), TUI_REDRAW);
	assert_int_equal(tui_key(t, 'y'), TUI_QUIT);
	free(t);
}

/* Ctrl-C (SIGINT): a prompt abandons what is typed; elsewhere it quits
 * with 130, asking first as q does when the draft has edits; a second
 * Ctrl-C at that question quits. */
static void keys_interrupt_asks_for_a_draft(void **state)
{
	(void)state;
	struct tui *t = new_tui();
	assert_int_equal(tui_interrupt(t), TUI_QUIT);
	assert_int_equal(t->quit_status, 130);
	t->mode = TUI_PROMPT;
	assert_int_equal(tui_interrupt(t) & TUI_QUIT, 0);
	assert_int_equal(t->mode, TUI_NORMAL);
	assert_string_equal(t->message, "nothing changed");
	t->w.n_edits = 1;
	t->mode = TUI_WEIGHTS;
	assert_int_equal(tui_interrupt(t), TUI_REDRAW);
	assert_int_equal(t->mode, TUI_CONFIRM);
	assert_non_null(strstr(t->prompt, "1 edit not applied"));
	assert_int_equal(tui_key(t, TK_ESC) & TUI_QUIT, 0);
	assert_int_equal(t->mode, TUI_WEIGHTS);
	t->mode = TUI_NORMAL;
	assert_int_equal(tui_interrupt(t), TUI_REDRAW);
	assert_int_equal(t->mode, TUI_CONFIRM);
	assert_int_equal(tui_interrupt(t), TUI_QUIT);
	assert_int_equal(t->quit_status, 130);
	/* q's question answered y: status 0 */
	t->mode = TUI_NORMAL;
	assert_int_equal(tui_key(t, 'q'), TUI_REDRAW);
	assert_int_equal(tui_key(t, 'y'), TUI_QUIT);
	assert_int_equal(t->quit_status, 0);
	free(t);
}

/* The boost prompt takes a path prefix (or pattern) and at most a plain decimal number
 * of points: extra words and other spellings of numbers are refused,
 * before anything is sent, and the line stays open with its text. */
static void keys_boost_prompt_refusals(void **state)
{
	(void)state;
	static const struct {
		const char *input, *frag;
	} bad[] = {
		{"/blog 5 oops", "give a path prefix or pattern and at most a number of points"},
		{"/blog 0x10", "points '0x10' refused"},
		{"/blog +5", "points '+5' refused"},
		{"/blog inf", "points 'inf' refused"},
		{"/blog 0", "points '0' refused"},
		{"blog 5", "must start with '/'"},
		{"/50% 5", "does not start a %XX escape"},
		{"?blog 5", "must start with '/' (a pattern with '/' or '*')"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		struct tui *t = new_tui();
		t->connected = 1; /* as if connected as an operator: */
		t->model.can_change = 1; /* the refusals come first */
		assert_int_equal(tui_key(t, 'b'), TUI_REDRAW);
		assert_int_equal(t->mode, TUI_PROMPT);
		snprintf(t->input, sizeof t->input, "%s", bad[i].input);
		tui_key(t, TK_ENTER);
		assert_int_equal(t->mode, TUI_PROMPT);
		assert_string_equal(t->input, bad[i].input);
		if (!strstr(t->message, bad[i].frag) || !t->message_err)
			fail_msg("'%s': %s", bad[i].input, t->message);
		if (!strstr(t->line.note, bad[i].frag))
			fail_msg("'%s': under the line: %s", bad[i].input,
				 t->line.note);
		free(t);
	}
}

/* The help scrolls a line with Up and Down and a page with PgUp, PgDn
 * and Space (the lines it had on screen, one kept), never past its end:
 * PgDn moved 10 lines whatever the height, and Down went on into blank
 * screens. */
static void keys_help_scrolls_by_page(void **state)
{
	(void)state;
	struct tui *t = new_tui();
	assert_int_equal(tui_key(t, '?'), TUI_REDRAW);
	assert_int_equal(t->mode, TUI_HELP);
	t->help_page = 20; /* as the view leaves them: 20 lines shown, */
	t->help_max = 50;  /* 70 in all */
	tui_key(t, TK_PGDN);
	assert_int_equal(t->help_scroll, 19);
	tui_key(t, ' ');
	assert_int_equal(t->help_scroll, 38);
	tui_key(t, ' ');
	assert_int_equal(t->help_scroll, 50);
	tui_key(t, TK_DOWN);
	assert_int_equal(t->help_scroll, 50);
	tui_key(t, TK_UP);
	assert_int_equal(t->help_scroll, 49);
	tui_key(t, TK_PGUP);
	assert_int_equal(t->help_scroll, 30);
	tui_key(t, TK_PGUP);
	tui_key(t, TK_PGUP);
	assert_int_equal(t->help_scroll, 0);
	assert_int_equal(t->mode, TUI_HELP);
	free(t);
}

/* With NO_COLOR (or a terminal without colours) t says the console stays
 * monochrome and changes and saves nothing: it said "theme colour",
 * stayed monochrome, and wrote theme = mono into the shared console.conf. */
static void keys_theme_under_no_color(void **state)
{
	(void)state;
	struct tui *t = new_tui();
	int theme = t->prefs.theme;
	t->mono_forced = 1;
	int r = tui_key(t, 't');
	assert_false(r & TUI_SAVE);
	assert_int_equal(t->prefs.theme, theme);
	if (!strstr(t->message, "stays monochrome: NO_COLOR is set"))
		fail_msg("%s", t->message);
	t->mono_forced = 0; /* a colour terminal: t switches and saves */
	r = tui_key(t, 't');
	assert_true(r & TUI_SAVE);
	assert_int_not_equal(t->prefs.theme, theme);
	free(t);
}

/* Keys as a paste brings them: the marks around the text. */
static int paste_keys(struct tui *t, const int *keys, size_t n)
{
	int f = tui_key(t, TK_PASTE_BEGIN);
	for (size_t i = 0; i < n; i++)
		f |= tui_key(t, keys[i]);
	return f | tui_key(t, TK_PASTE_END);
}
#define PASTE(t, ...) paste_keys(t, (const int[]){__VA_ARGS__}, \
	sizeof (const int[]){__VA_ARGS__} / sizeof(int))

/* A paste is text, never keys: where no line is open it runs nothing
 * (not [, not C, not y at a question) and says so; in a line its ESC and
 * line breaks neither end nor submit it, and a refused paste leaves the
 * line as it was, which Enter then does not apply. */
static void keys_paste_is_text(void **state)
{
	(void)state;
	struct tui *t = new_tui();
	t->connected = 1;
	t->model.can_change = 1;
	int64_t sel = t->sel_job;
	int f = PASTE(t, 'j', '[', '[', 'C', 'y', 'q', TK_ENTER);
	assert_int_equal(f & TUI_QUIT, 0);
	assert_int_equal(t->mode, TUI_NORMAL);
	assert_int_equal(t->sel_job, sel);
	assert_int_equal(t->act_seq, 0); /* no change was sent */
	assert_non_null(strstr(t->message, "paste ignored: not in a prompt"));
	/* ... nor at a y/N question, where the note shows under it */
	tui_key(t, 'C');
	assert_int_equal(t->mode, TUI_CONFIRM);
	assert_string_equal(t->line.note, "");
	PASTE(t, 'y');
	assert_int_equal(t->mode, TUI_CONFIRM);
	assert_int_equal(t->act_seq, 0);
	assert_non_null(strstr(t->line.note, "paste ignored"));
	tui_key(t, 'n');
	assert_string_equal(t->line.note, "");

	/* the filter: text goes in; ESC refuses the whole paste */
	tui_key(t, '/');
	PASTE(t, 'b', 'e');
	assert_string_equal(t->filter, "be");
	assert_int_equal(t->n_view, 1);
	PASTE(t, 't', TK_ESC, '[', '[');
	assert_int_equal(t->mode, TUI_FILTER);
	assert_string_equal(t->filter, "be");
	assert_non_null(strstr(t->line.note, "paste refused: it holds ESC"));
	assert_int_equal(t->act_seq, 0);
	tui_key(t, TK_ENTER);
	assert_int_equal(t->mode, TUI_NORMAL);
	assert_string_equal(t->filter, "");
	assert_int_equal(t->n_view, 3);
	assert_string_equal(t->message, "nothing applied: paste refused: it holds ESC");

	/* line breaks at the end are dropped, not Enter; inside, refused */
	tui_key(t, '/');
	assert_string_equal(t->line.note, "");
	PASTE(t, 'g', 'a', TK_ENTER, TK_ENTER);
	assert_int_equal(t->mode, TUI_FILTER);
	assert_string_equal(t->filter, "ga");
	assert_int_equal(t->line.note_err, 0);
	tui_key(t, TK_ENTER);
	assert_int_equal(t->mode, TUI_NORMAL);
	assert_string_equal(t->filter, "ga");
	tui_key(t, TK_ESC);

	/* the boost prompt: a line break inside, Tab, Ctrl-X, a key's escape
	 * sequence: each refuses the paste, and Enter sends nothing */
	static const struct {
		int key;
		const char *name;
	} bad[] = {
		{TK_ENTER, "a line break before more text"}, {TK_TAB, "a Tab"},
		{TK_CTRL('x'), "Ctrl-X"}, {TK_UP, "an escape sequence"},
		{0x9b, "a C1 control character"},
		{TK_PASTE_BEGIN, "ESC"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		tui_key(t, 'b');
		assert_int_equal(t->mode, TUI_PROMPT);
		PASTE(t, 'b', 'l', 'o', 'g', bad[i].key, 'x');
		assert_string_equal(t->input, "/");
		if (!strstr(t->line.lost, bad[i].name))
			fail_msg("%s: lost '%s'", bad[i].name, t->line.lost);
		tui_key(t, TK_ENTER);
		assert_int_equal(t->mode, TUI_NORMAL);
		assert_int_equal(t->pending, TUI_ACT_NONE);
		assert_int_equal(t->act_seq, 0);
		assert_non_null(strstr(t->message, "nothing applied: paste refused"));
	}
	/* a Ctrl-C byte in a paste (SIGINT) is part of it: no quit */
	tui_key(t, TK_PASTE_BEGIN);
	assert_int_equal(tui_interrupt(t) & TUI_QUIT, 0);
	tui_key(t, 'q');
	tui_key(t, TK_PASTE_END);
	assert_int_equal(t->mode, TUI_NORMAL);
	assert_int_equal(t->line.pasting, 0);
	/* a stray end mark is nothing */
	assert_int_equal(tui_key(t, TK_PASTE_END), 0);
	free(t);
}

/* A line that cannot hold its input says so and applies nothing: the
 * boost prompt, the filter and the value editor alike, typed or pasted
 * (a paste too long for the line is not put in at all). */
static void keys_line_too_long_applies_nothing(void **state)
{
	(void)state;
	struct tui *t = new_tui();
	t->connected = 1;
	t->model.can_change = 1;
	tui_key(t, 'b');
	tui_key(t, TK_BACKSPACE);
	for (int i = 0; i < 300; i++)
		tui_key(t, i < 5 ? "/blog"[i] : ' ');
	assert_int_equal(strlen(t->input), sizeof t->input - 1);
	assert_non_null(strstr(t->line.note,
			       "input too long: 255 bytes at most (UTF-8)"));
	assert_int_equal(t->line.note_err, 1);
	tui_key(t, TK_BACKSPACE); /* erasing does not make it whole again */
	tui_key(t, TK_ENTER);
	assert_int_equal(t->mode, TUI_NORMAL);
	assert_int_equal(t->act_seq, 0);
	assert_string_equal(t->message, "nothing applied: input too long: "
			    "255 bytes at most (UTF-8)");

	/* pasted: the line keeps what it had before the paste */
	tui_key(t, 'd');
	assert_string_equal(t->line.lost, "");
	tui_key(t, TK_PASTE_BEGIN);
	for (int i = 0; i < 6000; i++)
		tui_key(t, 'a');
	tui_key(t, TK_PASTE_END);
	assert_string_equal(t->input, "/");
	assert_string_equal(t->line.lost, "input too long: 255 bytes at most (UTF-8)");
	tui_key(t, TK_ENTER);
	assert_int_equal(t->mode, TUI_NORMAL);
	assert_int_equal(t->act_seq, 0);

	/* the filter: cleared, not kept cut */
	tui_key(t, '/');
	for (int i = 0; i < 70; i++)
		tui_key(t, 'z');
	assert_string_equal(t->line.lost, "input too long: 63 bytes at most (UTF-8)");
	tui_key(t, TK_ENTER);
	assert_int_equal(t->mode, TUI_NORMAL);
	assert_string_equal(t->filter, "");

	/* the queue's path search and the audit's role filter: cleared, the
	 * view kept (a cut text was kept and sent by the next refresh) */
	t->mode = TUI_QUEUE;
	tui_key(t, '/');
	assert_int_equal(t->mode, TUI_QSEARCH);
	for (int i = 0; i < 300; i++)
		tui_key(t, 'q');
	assert_non_null(strstr(t->line.lost, "input too long"));
	tui_key(t, TK_ENTER);
	assert_int_equal(t->mode, TUI_QUEUE);
	assert_string_equal(t->queue_search, "");
	assert_non_null(strstr(t->message, "nothing applied: input too long"));
	t->mode = TUI_AUDIT;
	tui_key(t, '/');
	assert_int_equal(t->mode, TUI_AFILTER);
	for (int i = 0; i < 100; i++)
		tui_key(t, 'r');
	assert_non_null(strstr(t->line.lost, "input too long"));
	tui_key(t, TK_ENTER);
	assert_int_equal(t->mode, TUI_AUDIT);
	assert_string_equal(t->audit_role, "");
	t->mode = TUI_NORMAL;
	t->back_mode = TUI_NORMAL;

	/* the value editor: back to the panel, the draft untouched */
	t->input[0] = '\0';
	t->mode = TUI_WEDIT;
	t->back_mode = TUI_WEIGHTS;
	for (int i = 0; i < 300; i++)
		tui_key(t, '1');
	int edits = t->w.n_edits;
	tui_key(t, TK_ENTER);
	assert_int_equal(t->mode, TUI_WEIGHTS);
	assert_int_equal(t->w.n_edits, edits);
	assert_non_null(strstr(t->message, "nothing applied: input too long"));
	/* the next line starts whole */
	t->mode = TUI_NORMAL;
	tui_key(t, '/');
	assert_string_equal(t->line.lost, "");
	tui_key(t, 'x');
	tui_key(t, TK_ENTER);
	assert_string_equal(t->filter, "x");
	free(t);
}

/* How help names key c ("" for the ones a label need not name: text and
 * "any other" rows name themselves; Ctrl-C is the abort everywhere and Del
 * Backspace's twin, as the help's foot and the man page say). */
static const char *key_name(int c, char *buf)
{
	static const struct {
		int c;
		const char *name;
	} named[] = {
		{TK_UP, "Up"}, {TK_DOWN, "Down"}, {TK_LEFT, "Left"},
		{TK_RIGHT, "Right"}, {TK_PGUP, "PgUp"}, {TK_PGDN, "PgDn"},
		{TK_HOME, "Home"}, {TK_END, "End"}, {TK_ENTER, "Enter"},
		{TK_ESC, "Esc"}, {TK_BACKSPACE, "Bksp"}, {TK_F1, "F1"},
		{TK_F7, "F7"}, {TK_F8, "F8"}, {TK_TAB, "Tab"}, {TK_BTAB, "S-Tab"},
		{' ', "Space"}, {TK_DEL, ""}, {TK_CTRL('c'), ""},
	};
	for (size_t i = 0; i < sizeof named / sizeof *named; i++)
		if (named[i].c == c)
			return named[i].name;
	if (c > ' ' && c < 127) {
		buf[0] = (char)c;
		buf[1] = '\0';
		return buf;
	}
	return ""; /* K_TEXT, K_ANY */
}

static void keys_table_is_consistent(void **state)
{
	int n;
	const struct tui_key *k = tui_keys(&n);
	assert_true(n > 20);
	for (int i = 0; i < n; i++) {
		assert_non_null(k[i].fn);
		assert_true(k[i].help && k[i].help[0]);
		assert_true(k[i].label && k[i].label[0]);
		assert_true(k[i].keys[0] != 0);
		/* help names every key the row binds, as a word of its label */
		for (int a = 0; a < 4 && k[i].keys[a]; a++) {
			char buf[2], padded[96], word[16];
			const char *name = key_name(k[i].keys[a], buf);
			if (!*name)
				continue;
			snprintf(padded, sizeof padded, " %s ", k[i].label);
			snprintf(word, sizeof word, " %s ", name);
			if (!strstr(padded, word))
				fail_msg("'%s' binds %s, which its label '%s' does "
					 "not name", k[i].help, name, k[i].label);
		}
		/* no key bound twice in one mode */
		for (int j = i + 1; j < n; j++) {
			if (k[j].mode != k[i].mode)
				continue;
			for (int a = 0; a < 4 && k[i].keys[a]; a++)
				for (int b = 0; b < 4 && k[j].keys[b]; b++)
					if (k[i].keys[a] == k[j].keys[b])
						fail_msg("key %d bound by '%s' and '%s'",
							 k[i].keys[a], k[i].help,
							 k[j].help);
		}
	}
}

static void keys_navigate_filter_focus(void **state)
{
	struct tui *t = new_tui();
	/* sorted by priority: gamma (1), alpha (3), beta (5) */
	assert_int_equal(t->sel_job, 3);
	assert_int_equal(tui_key(t, 'j') & TUI_REDRAW, TUI_REDRAW);
	assert_int_equal(t->sel_job, 1);
	tui_key(t, TK_END);
	assert_int_equal(t->sel_job, 2);
	tui_key(t, TK_DOWN); /* stays on the last row */
	assert_int_equal(t->sel_job, 2);
	tui_key(t, 'g');
	assert_int_equal(t->sel_job, 3);

	tui_key(t, '/');
	assert_int_equal(t->mode, TUI_FILTER);
	tui_key(t, 'b');
	tui_key(t, 'e');
	assert_string_equal(t->filter, "be");
	assert_int_equal(t->n_view, 1);
	assert_int_equal(t->sel_job, 2);
	tui_key(t, TK_BACKSPACE);
	assert_string_equal(t->filter, "b");
	tui_key(t, TK_ENTER);
	assert_int_equal(t->mode, TUI_NORMAL);
	assert_string_equal(t->filter, "b");
	tui_key(t, TK_ESC);
	assert_string_equal(t->filter, "");
	assert_int_equal(t->n_view, 3);

	int f = tui_key(t, TK_ENTER);
	assert_int_equal(f & TUI_REFRESH, TUI_REFRESH);
	assert_int_equal(t->focus, t->sel_job);
	f = tui_key(t, TK_ESC);
	assert_int_equal(t->focus, 0);
	assert_int_equal(f & TUI_REFRESH, TUI_REFRESH);

	assert_int_equal(tui_key(t, '>') & TUI_SAVE, TUI_SAVE);
	assert_int_equal(t->prefs.sort_col, TM_COL_STATUS);
	tui_key(t, 'i');
	assert_int_equal(t->prefs.sort_desc, 1);
	assert_int_equal(tui_key(t, 'q'), TUI_QUIT);
	free(t);
}

static void keys_interval_pause_help(void **state)
{
	struct tui *t = new_tui();
	t->prefs.interval = 2;
	tui_key(t, '+');
	assert_true(t->prefs.interval == 3);
	tui_key(t, '-');
	tui_key(t, '-');
	tui_key(t, '-');
	tui_key(t, '-');
	assert_true(t->prefs.interval == TUI_INTERVAL_FLOOR);
	assert_non_null(strstr(t->message, "floor"));
	tui_key(t, ' ');
	assert_int_equal(t->paused, 1);
	tui_key(t, '?');
	assert_int_equal(t->mode, TUI_HELP);
	tui_key(t, 'j');
	assert_int_equal(t->mode, TUI_HELP);
	tui_key(t, 'x');
	assert_int_equal(t->mode, TUI_NORMAL);
	free(t);
}

static void keys_changes_refused_and_why(void **state)
{
	struct tui *t = new_tui();
	t->opts.readonly = 1;
	t->connected = 1;
	t->model.can_change = 1;
	tui_key(t, ']');
	assert_int_equal(t->message_err, 1);
	assert_non_null(strstr(t->message, "read-only mode (-r)"));
	tui_key(t, 'C');
	assert_int_equal(t->mode, TUI_NORMAL); /* no confirmation asked */

	t->opts.readonly = 0;
	t->model.can_change = 0;
	snprintf(t->model.cannot_why, sizeof t->model.cannot_why,
		 "role v is not in crawltop_operator");
	tui_key(t, 'p');
	assert_non_null(strstr(t->message, "role v is not in crawltop_operator"));

	/* allowed: cancel asks first, naming the job and its pending count */
	t->model.can_change = 1;
	tui_key(t, 'g'); /* gamma */
	tui_key(t, 'C');
	assert_int_equal(t->mode, TUI_CONFIRM);
	assert_non_null(strstr(t->prompt, "Cancel job gamma (id 3)? Its 900 "
				       "pending tasks become skipped"));
	tui_key(t, 'n');
	assert_int_equal(t->mode, TUI_NORMAL);
	assert_string_equal(t->message, "nothing changed");
	/* a job shown completed (its tasks all done) is stored pending or
	 * running and may still get tasks: cancel and mode are the
	 * database's call; a cancelled one is refused here */
	struct tm_job *g = NULL;
	for (int i = 0; i < t->model.n_jobs; i++)
		if (t->model.jobs[i].id == 3)
			g = &t->model.jobs[i];
	assert_non_null(g);
	snprintf(g->status, sizeof g->status, "completed");
	tui_key(t, 'C');
	assert_int_equal(t->mode, TUI_CONFIRM);
	tui_key(t, 'n');
	tui_key(t, 'm');
	assert_int_equal(t->mode, TUI_MODESEL);
	tui_key(t, TK_ESC);
	assert_int_equal(t->mode, TUI_NORMAL);
	snprintf(g->status, sizeof g->status, "cancelled");
	tui_key(t, 'C');
	assert_int_equal(t->mode, TUI_NORMAL);
	assert_non_null(strstr(t->message, "job gamma is cancelled already"));
	tui_key(t, 'm');
	assert_int_equal(t->mode, TUI_NORMAL);
	assert_non_null(strstr(t->message, "its mode cannot change"));
	snprintf(g->status, sizeof g->status, "running");
	/* priority at the end of the range: refused with the rule */
	tui_key(t, ']');
	assert_non_null(strstr(t->message, "at priority 1 already"));
	/* boost prompt: bad points refused before anything is sent */
	tui_key(t, 'b');
	assert_int_equal(t->mode, TUI_PROMPT);
	assert_string_equal(t->input, "/");
	const char *typed = "blog 500";
	for (const char *c = typed; *c; c++)
		tui_key(t, *c);
	tui_key(t, TK_ENTER);
	assert_non_null(strstr(t->message, "points '500' refused"));
	free(t);
}

/* ---- the header's state ------------------------------------------------------------ */

static void state_strings(void **state)
{
	struct tui *t = new_tui();
	char b[32];
	t->eff_interval = 1;
	assert_string_equal(tf_state(t, 10, b, sizeof b), "CONNECTING");
	t->down_since = 5;
	assert_string_equal(tf_state(t, 10, b, sizeof b), "DISCONNECTED");
	t->connected = 1;
	t->down_since = 0;
	assert_string_equal(tf_state(t, 10, b, sizeof b), "LOADING");
	t->last_ok = 9;
	assert_string_equal(tf_state(t, 10, b, sizeof b), "LIVE");
	assert_string_equal(tf_state(t, 20, b, sizeof b), "STALE 11s");
	t->paused = 1;
	assert_string_equal(tf_state(t, 20, b, sizeof b), "PAUSED");
	free(t);
}

/* ---- saved settings ---------------------------------------------------------------- */

static void prefs_round_trip_atomic(void **state)
{
	char dir[] = "/tmp/ct-prefs.XXXXXX";
	assert_non_null(mkdtemp(dir));
	char cfg[256], path[512];
	snprintf(cfg, sizeof cfg, "%s/sub/crawltop.conf", dir);
	tui_prefs_path(cfg, path, sizeof path);
	char want[600];
	snprintf(want, sizeof want, "%s/sub/console.conf", dir);
	assert_string_equal(path, want);

	struct tui_prefs p, q;
	struct ct_error err;
	tui_prefs_default(&p);
	tui_prefs_default(&q);
	assert_int_equal(tui_prefs_load(path, &q, &err), 0); /* missing: fine */
	p.interval = 5;
	p.sort_col = TM_COL_ETA;
	p.sort_desc = 1;
	p.theme = TUI_THEME_MONO;
	p.show_audit = 1;
	assert_int_equal(tui_prefs_save(path, &p, &err), 0);
	assert_int_equal(tui_prefs_load(path, &q, &err), 0);
	assert_true(q.interval == 5);
	assert_int_equal(q.sort_col, TM_COL_ETA);
	assert_int_equal(q.sort_desc, 1);
	assert_int_equal(q.theme, TUI_THEME_MONO);
	assert_int_equal(q.show_audit, 1);
	/* no temporary file left behind */
	char cmd[700];
	snprintf(cmd, sizeof cmd, "test $(ls %s/sub | wc -l) -eq 1", dir);
	assert_int_equal(system(cmd), 0);

	/* a bad line: reported with file, line, value and rule; the rest apply */
	FILE *f = fopen(path, "w");
	fprintf(f, "interval = 0.1\ntheme = mono\nsort = WHAT\n");
	fclose(f);
	tui_prefs_default(&q);
	assert_int_equal(tui_prefs_load(path, &q, &err), -1);
	assert_non_null(strstr(err.msg, "console.conf:1: interval = 0.1: must "
				       "be a number of seconds in 0.5..3600"));
	assert_true(q.interval == 2); /* kept, not clamped */
	assert_int_equal(q.theme, TUI_THEME_MONO);

	/* saving keeps the file's comments, unknown keys and bad lines, sets
	 * each key on its first line (a later one would override it), adds
	 * the missing ones; a line longer than any buffer is one line */
	f = fopen(path, "w");
	fprintf(f, "# mine\ntheme = mauve\ninterval = 7\nfuture = 1\n"
		"interval = 9\n#%0600d\nsort = ETA", 0);
	fclose(f);
	tui_prefs_default(&q);
	assert_int_equal(tui_prefs_load(path, &q, &err), -1);
	assert_non_null(strstr(err.msg, "console.conf:2: theme = mauve: must be"));
	assert_true(q.interval == 9);
	q.interval = 4;
	assert_int_equal(tui_prefs_save(path, &q, &err), 0);
	char text[2048] = "", expect[2048];
	f = fopen(path, "r");
	size_t got = fread(text, 1, sizeof text - 1, f);
	text[got] = '\0';
	fclose(f);
	snprintf(expect, sizeof expect, "# mine\ntheme = color\ninterval = 4\n"
		 "future = 1\n#%0600d\nsort = ETA\nsort_order = asc\n"
		 "panel = queue\nstall_after = 60\nretrying_max = 20\n"
		 "failed_per_min = 10\n", 0);
	assert_string_equal(text, expect);

	/* the health thresholds: whole numbers in their ranges */
	f = fopen(path, "w");
	fprintf(f, "stall_after = 15\nretrying_max = 0\nfailed_per_min = 3\n"
		"stall_after = 4\nretrying_max = -1\nfailed_per_min = 2.5\n"
		"stall_after = 601\n");
	fclose(f);
	tui_prefs_default(&q);
	assert_int_equal(tui_prefs_load(path, &q, &err), -1);
	assert_non_null(strstr(err.msg, "console.conf:4: stall_after = 4: must "
			       "be a whole number of seconds in 5..600"));
	assert_true(q.health.stall_s == 15);
	assert_int_equal(q.health.retrying_max, 0);
	assert_int_equal(q.health.failed_per_min, 3);

	/* a comment longer than any line buffer is one line, not two */
	f = fopen(path, "w");
	fprintf(f, "#%0600d\ninterval = 3\n", 0);
	fclose(f);
	tui_prefs_default(&q);
	assert_int_equal(tui_prefs_load(path, &q, &err), 0);
	assert_true(q.interval == 3);

	/* a file that cannot be read whole (here a directory in its place)
	 * is not replaced: its lines would be lost */
	char dirpath[600];
	snprintf(dirpath, sizeof dirpath, "%s/asdir/console.conf", dir);
	snprintf(cmd, sizeof cmd, "mkdir -p %s", dirpath);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(tui_prefs_save(dirpath, &q, &err), -1);
	assert_non_null(strstr(err.msg, "not replaced: the file cannot be read"));
	snprintf(cmd, sizeof cmd, "test $(ls %s/asdir | wc -l) -eq 1", dir);
	assert_int_equal(system(cmd), 0); /* no temporary file left */

	/* a directory that cannot be made: an error, nothing written */
	char bad[600];
	snprintf(bad, sizeof bad, "%s/console.conf/x/console.conf", path);
	assert_int_equal(tui_prefs_save(bad, &p, &err), -1);
	assert_non_null(strstr(err.msg, "cannot create its directory"));
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

/* ---- the settings document (settings_json.h) ---------------------------------------- */

/* Every tunable survives settings -> JSON -> settings, and the store's own
 * members of the base document are kept. */
static void settings_json_round_trip(void **state)
{
	struct ct_settings s, r;
	struct ct_error err;
	ct_settings_default(&s);
	char *a = ct_settings_to_json(&s, "{\"store\": {\"lease_seconds\": 30}, "
				      "\"classes\": {\"p0\": 99}}", &err);
	assert_non_null(a);
	assert_non_null(strstr(a, "\"classes\":{\"p0\":80,\"p1\":60,\"p2\":40}"));
	assert_non_null(strstr(a, "\"default_priority\":5"));
	assert_non_null(strstr(a, "\"decay\":0.8"));
	assert_non_null(strstr(a, "\"aliases\":{\"intelligent-seed\":\"adaptive-seed\""));
	assert_non_null(strstr(a, "\"store\":{\"lease_seconds\":30}"));
	assert_int_equal(ct_settings_from_json(a, 3, &r, &err), CT_OK);
	char *b = ct_settings_to_json(&r, "{\"store\": {\"lease_seconds\": 30}}",
				      &err);
	assert_string_equal(a, b);
	free(a);
	free(b);

	/* every scalar key moved inside its range, maps and tokens grown */
	for (size_t i = 0; i < ct_n_keys; i++) {
		const struct ct_key *k = &ct_keys[i];
		if (k->type == CT_KEY_BOOL)
			ct_key_put_bool(k, &s, ct_key_get(k, &s) == 0);
		else if (k->type != CT_KEY_TOKENS && k->type != CT_KEY_DOUBLE)
			ct_key_put_number(k, &s, 0, (long long)ct_key_get(k, &s) +
					  (ct_key_get(k, &s) < k->max ? 1 : -1));
	}
	s.classes = (struct ct_class_bounds){85.5, 61.25, 0.1 + 0.2};
	s.frontier.w_gap = 1.0 / 3;
	s.freshness.topic_high = 0.123456789012345;
	assert_int_equal(ct_frontier_set_type(&s.frontier, "hub", 3.5), CT_OK);
	assert_int_equal(ct_frontier_set_alias(&s.frontier, "x-seed", "sitemap"), CT_OK);
	assert_int_equal(ct_frontier_add_country_token(&s.frontier, "nl"), CT_OK);
	assert_int_equal(ct_frontier_add_country_token(&s.frontier, "be"), CT_OK);
	s.frontier.total_prioritisation = true;
	a = ct_settings_to_json(&s, NULL, &err);
	assert_non_null(a);
	assert_non_null(strstr(a, "\"p2\":0.30000000000000004"));
	assert_non_null(strstr(a, "\"country_tokens\":[\"nl\",\"be\"]"));
	assert_int_equal(ct_settings_from_json(a, 9, &r, &err), CT_OK);
	b = ct_settings_to_json(&r, NULL, &err);
	assert_string_equal(a, b);
	assert_true(r.classes.p2 == 0.1 + 0.2);
	assert_true(r.frontier.w_gap == 1.0 / 3);
	free(a);
	free(b);
}

/* A document that breaks a rule is refused in the config layer's words,
 * naming the version as the value's source. */
static void settings_json_refusals(void **state)
{
	struct ct_settings r;
	struct ct_error err;
	static const struct { const char *json, *want; } cases[] = {
		{"{\"classes\": {\"p0\": 150}}",
		 "crawltop.settings:7: classes.p0 = 150: must be >= 0 and <= 100"},
		{"{\"frontier\": {\"wieghts\": {}}}",
		 "crawltop.settings:7: unknown key frontier.wieghts (did you mean "
		 "frontier.weights?)"},
		{"{\"hierarchy\": {\"decay\": \"x\"}}",
		 "hierarchy.decay = \"x\": must be a number, not a string"},
		{"{\"default_priority\": 5.5}",
		 "tier.default_priority = 5.5: must be a whole number"},
		{"{\"classes\": {\"p1\": 90}}",
		 "classes.p0 = 80 (default) must be > classes.p1 = 90 "
		 "(crawltop.settings:7): class bounds must be strictly decreasing"},
		{"{\"discovery\": {\"weights\": {\"freshness\": 0.5}}}",
		 "discovery weights sum to 1.44, not 1"},
		{"{\"frontier\": {\"total_prioritisation\": {\"country_tokens\": "
		 "[\"N L\"]}}}", "must hold only a-z and 0-9"},
		/* a long number (as jsonb writes 1e400) is cut short visibly */
		{"{\"classes\": {\"p0\": 1"
		 "000000000000000000000000000000000000000000000000000000000000"
		 "000000000}}",
		 "classes.p0 = 1000000000000000000000000000000000000000000000000"
		 "00000000000...: must be >= 0 and <= 100"},
		/* a double cannot hold it (it read as 0, inside the range) */
		{"{\"discovery\": {\"weights\": {\"topic_boost\": 1e-400}}}",
		 "discovery.weights.topic_boost = 1e-400: a double cannot hold "
		 "it (it would read as 0"},
		{"[1]", "the settings must be a JSON object, not an array"},
		{"{\"classes\": ", "crawltop.settings:7: not JSON"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		assert_int_not_equal(ct_settings_from_json(cases[i].json, 7, &r,
							   &err), CT_OK);
		if (!strstr(err.msg, cases[i].want))
			fail_msg("%s: got '%s', want '%s'", cases[i].json,
				 err.msg, cases[i].want);
	}
	/* other readers' members are theirs; the old spelling of the tier */
	assert_int_equal(ct_settings_from_json("{\"store\": {\"x\": [1]}, \"tier\": "
			 "{\"default_priority\": 2}}", 1, &r, &err), CT_OK);
	assert_int_equal(r.default_priority, 2);
}

/* ---- the weights panel's model (tune.c) ---------------------------------------------------- */

/* The settings query's two rows: version v (json) and v - 1. */
static void load_settings(struct tui *t, int v, const char *json)
{
	struct fake_rows f;
	char ver[16], pv[16];
	snprintf(ver, sizeof ver, "%d", v);
	snprintf(pv, sizeof pv, "%d", v - 1);
	fake(&f, 5, 2, ver, json, "postgres", "2024-06-01 10:00", "note",
	     pv, "{}", "postgres", "2024-05-01 10:00", "older");
	f.r.st = CT_OK;
	tws_loaded(t, &f.r);
}

/* The row of a dotted path, or -1. */
static int row_of(const struct tui *t, const char *path)
{
	char p[96];
	for (int i = 0; i < t->w.n_rows; i++)
		if (strcmp(tws_path(&t->w.rows[i], p, sizeof p), path) == 0)
			return i;
	return -1;
}

static void tune_panel_edits(void **state)
{
	struct tui *t = new_tui();
	struct ct_settings d;
	struct ct_error err;
	char why[600], v[64];
	ct_settings_default(&d);
	char *json = ct_settings_to_json(&d, NULL, &err);
	load_settings(t, 3, json);
	assert_string_equal(t->sets.error, "");
	assert_int_equal(t->sets.version, 3);
	assert_int_equal(t->sets.prev_version, 2);

	/* every key of the table has a row, and every map entry */
	int keys = 0, entries = 0;
	for (int i = 0; i < t->w.n_rows; i++) {
		keys += t->w.rows[i].kind == WR_KEY;
		entries += t->w.rows[i].kind != WR_KEY && t->w.rows[i].kind != WR_HEAD;
	}
	assert_int_equal(keys, (int)ct_n_keys);
	assert_int_equal(entries, (int)(d.frontier.n_types + d.frontier.n_bonuses +
					d.frontier.n_aliases));
	assert_int_equal(t->w.rows[0].kind, WR_HEAD);
	assert_string_equal(t->w.rows[0].name, "classes");
	assert_int_equal(t->w.sel, 1);
	assert_true(row_of(t, "frontier.types.article") >
		    row_of(t, "frontier.types.default"));
	assert_true(row_of(t, "frontier.bonuses.sitemap") > 0);
	assert_true(row_of(t, "frontier.aliases.hub-seed") > 0);

	/* refused: the range, then a rule between keys; nothing changes */
	int p0 = row_of(t, "classes.p0"), p1 = row_of(t, "classes.p1");
	assert_int_equal(tws_edit(t, p0, "150", why, sizeof why), -1);
	assert_string_equal(why, "classes.p0 = 150: must be >= 0 and <= 100");
	assert_int_equal(tws_edit(t, p0, "8O", why, sizeof why), -1);
	assert_string_equal(why, "classes.p0 = 8O: must be a number");
	/* plain decimals only (number.h): hexadecimal, '+', blanks */
	assert_int_equal(tws_edit(t, p0, "0x50", why, sizeof why), -1);
	assert_string_equal(why, "classes.p0 = 0x50: must be a number");
	assert_int_equal(tws_edit(t, p0, "+70", why, sizeof why), -1);
	/* a double cannot hold it: not 0, it would read as 0 */
	assert_int_equal(tws_edit(t, p0, "1e-400", why, sizeof why), -1);
	assert_string_equal(why, "classes.p0 = 1e-400: a double cannot hold it "
			    "(it would read as 0)");
	assert_int_equal(tws_edit(t, p1, "90", why, sizeof why), -1);
	assert_non_null(strstr(why, "classes.p0 = 80 (crawltop.settings:3) must be "
			       "> classes.p1 = 90 (weights panel:3)"));
	assert_int_equal(tws_edit(t, row_of(t, "tier.default_priority"), "2.5",
				  why, sizeof why), -1);
	assert_non_null(strstr(why, "must be a whole number"));
	assert_int_equal(t->w.n_edits, 0);

	/* accepted: the draft differs by one row */
	assert_int_equal(tws_edit(t, p1, " 45 ", why, sizeof why), 0);
	assert_int_equal(t->w.n_edits, 1);
	assert_true(tws_edited(t, &t->w.rows[p1]));
	assert_string_equal(tws_value(&t->w.draft, &t->w.rows[p1], v, sizeof v), "45");
	assert_string_equal(tws_value(&t->sets.cur, &t->w.rows[p1], v, sizeof v), "60");
	assert_string_equal(t->w.problem, "");
	assert_int_equal(tws_check(t, why, sizeof why), 0);
	/* no job to preview on in this model without a focus: alpha selected */
	assert_non_null(tws_target(t));

	/* a bool toggles, a map entry and a token list take their rules */
	assert_int_equal(tws_edit(t, row_of(t, "frontier.features.cost_aware_priority"),
				  "true", why, sizeof why), 0);
	assert_int_equal(tws_edit(t, row_of(t, "frontier.types.nav"), "-1", why,
				  sizeof why), -1);
	assert_string_equal(why, "frontier.types.nav = -1: must be >= 0 and finite");
	assert_int_equal(tws_edit(t, row_of(t, "frontier.types.nav"), "7.5", why,
				  sizeof why), 0);
	assert_int_equal(tws_edit(t, row_of(t, "frontier.total_prioritisation.country_tokens"),
				  "nl, be de", why, sizeof why), 0);
	assert_string_equal(tws_value(&t->w.draft, &t->w.rows[row_of(t,
			    "frontier.total_prioritisation.country_tokens")], v,
				      sizeof v), "nl, be, de");
	assert_int_equal(tws_edit(t, row_of(t, "frontier.aliases.hub-seed"),
				  "nowhere", why, sizeof why), -1);
	assert_non_null(strstr(why, "no method \"nowhere\" in frontier.bonuses"));
	assert_int_equal(t->w.n_edits, 4);

	/* one discovery weight alone: accepted, but apply waits for the sum */
	int w0 = row_of(t, "discovery.weights.unseen_likelihood");
	assert_int_equal(tws_edit(t, w0, "0.3", why, sizeof why), 0);
	assert_non_null(strstr(t->w.problem, "discovery weights sum to 1.02"));
	assert_non_null(strstr(t->w.problem, "unseen_likelihood=0.3 (weights panel:"));
	assert_int_equal(tws_confirm_text(t, 0, why, sizeof why), -1);
	assert_non_null(strstr(why, "cannot apply: discovery weights sum to 1.02"));
	assert_int_equal(tws_normalise(t, why, sizeof why), 0);
	double sum = 0;
	for (int i = 0; i < CT_SUB_COUNT; i++)
		sum += t->w.draft.settings.discovery.weights[i];
	assert_true(fabs(sum - 1) <= 1e-9);
	assert_true(t->w.draft.settings.discovery.weights[0] == 0.3);
	assert_string_equal(t->w.problem, "");
	assert_int_equal(tws_confirm_text(t, 0, why, sizeof why), 0);
	assert_non_null(strstr(why, "Apply 12 changes as a new version after v3"));

	/* a new version arrives: the edits stay on top of it */
	struct ct_settings n = d;
	n.hierarchy.decay = 0.7;
	char *json2 = ct_settings_to_json(&n, NULL, &err);
	load_settings(t, 4, json2);
	assert_int_equal(t->sets.version, 4);
	assert_true(t->w.draft.settings.hierarchy.decay == 0.7);
	assert_true(t->w.draft.settings.classes.p1 == 45);
	assert_int_equal(t->w.n_edits, 12);
	assert_non_null(strstr(t->message, "settings v4 (postgres, note) is now "
			       "current; your edits are kept"));

	/* back to the store's values: one row, every row; defaults */
	tws_revert(t, p1);
	assert_int_equal(t->w.n_edits, 11);
	tws_revert_all(t);
	assert_int_equal(t->w.n_edits, 0);
	int dec = row_of(t, "hierarchy.decay");
	assert_int_equal(tws_default(t, dec, why, sizeof why), 0);
	assert_true(t->w.draft.settings.hierarchy.decay == 0.8);
	assert_int_equal(tws_confirm_text(t, 1, why, sizeof why), 0);
	assert_non_null(strstr(why, "Undo settings v4 (postgres, 2024-06-01 10:00): "
			       "write v3's values"));

	/* the keys of the panel: move skips headings, refusals in read-only */
	t->mode = TUI_WEIGHTS;
	t->w.sel = 1;
	tui_key(t, TK_UP);
	assert_int_equal(t->w.sel, 1);
	tui_key(t, 'j');
	tui_key(t, 'j');
	tui_key(t, 'j');
	assert_int_equal(t->w.rows[t->w.sel].kind, WR_KEY);
	assert_string_equal(ct_keys[t->w.rows[t->w.sel].key].path, "hierarchy.root");
	t->opts.readonly = 1;
	tui_key(t, TK_ENTER);
	assert_int_equal(t->mode, TUI_WEIGHTS);
	assert_non_null(strstr(t->message, "read-only mode (-r)"));
	tui_key(t, TK_ESC);
	assert_int_equal(t->mode, TUI_NORMAL);

	free(json);
	free(json2);
	tui_free(t);
}

/* A current version that does not read (written past the C checks, e.g.
 * by SQL): nothing can be applied on top of it, but undo, which needs
 * only the version before it, can restore that one; and when that does
 * not read either, undo says so. */
static void tune_undo_of_an_unreadable_version(void **state)
{
	(void)state;
	char why[700];
	struct tui *t = new_tui();
	struct fake_rows f;
	fake(&f, 5, 2, "7", "{\"classes\": {\"p0\": \"high\"}}", "postgres",
	     "2024-06-01 10:00", "bad", "6", "{\"classes\": {\"p0\": 90}}",
	     "postgres", "2024-05-01 10:00", "good");
	f.r.st = CT_OK;
	tws_loaded(t, &f.r);
	assert_int_equal(t->sets.version, 7);
	assert_non_null(strstr(t->sets.error, "classes.p0"));
	assert_int_equal(tws_confirm_text(t, 0, why, sizeof why), -1);
	assert_non_null(strstr(why, "settings v7 cannot be read"));
	assert_int_equal(tws_confirm_text(t, 1, why, sizeof why), 0);
	assert_non_null(strstr(why, "Undo settings v7 (postgres, 2024-06-01 "
			       "10:00): write v6's values"));

	fake(&f, 5, 2, "9", "{\"classes\": {\"p0\": \"high\"}}", "postgres",
	     "2024-06-02 10:00", "bad", "8", "{\"classes\": {\"p0\": -1}}",
	     "postgres", "2024-06-01 11:00", "bad too");
	f.r.st = CT_OK;
	tws_loaded(t, &f.r);
	assert_int_equal(tws_confirm_text(t, 1, why, sizeof why), -1);
	assert_non_null(strstr(why, "cannot undo: v8 cannot be read either"));
	tui_free(t);
}

/* ---- the async connection, offline -------------------------------------------------- */

static void aconn_display_hides_password(void **state)
{
	struct ct_aconn *c;
	struct ct_error err;
	struct ct_aconn_opts o = {
		.dsn = "host=/tmp/nowhere port=5999 user=ops password=s3cr3t "
		       "dbname=crawl",
		.statement_timeout_ms = 1000,
	};
	assert_int_equal(ct_aconn_new(&o, &c, &err), CT_OK);
	assert_string_equal(ct_aconn_display(c), "ops@/tmp/nowhere:5999/crawl");
	assert_int_equal(ct_aconn_state(c), CT_AC_DOWN);
	assert_int_equal(ct_aconn_fd(c), -1);
	assert_int_equal(ct_aconn_send(c, 1, "q", "SELECT 1", 0, NULL, &err),
			 CT_EIO);
	ct_aconn_free(c);

	o.dsn = "postgresql://ops:s3cr3t@db.example:6000/crawl";
	assert_int_equal(ct_aconn_new(&o, &c, &err), CT_OK);
	assert_string_equal(ct_aconn_display(c), "ops@db.example:6000/crawl");
	ct_aconn_free(c);

	o.dsn = "host='unterminated";
	assert_int_equal(ct_aconn_new(&o, &c, &err), CT_OK);
	assert_int_equal(ct_aconn_connect(c, &err), CT_EINVAL);
	assert_non_null(strstr(err.msg, "connect: "));
	ct_aconn_free(c);
}

int main(void)
{
	setlocale(LC_ALL, "C.UTF-8");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(text_numbers_and_durations),
		cmocka_unit_test(text_fit_utf8_and_ascii),
		cmocka_unit_test(text_keep_segments),
		cmocka_unit_test(text_bars),
		cmocka_unit_test(audit_change),
		cmocka_unit_test(model_jobs_sort_filter_totals),
		cmocka_unit_test(model_job_health),
		cmocka_unit_test(model_cells_and_series),
		cmocka_unit_test(keys_table_is_consistent),
		cmocka_unit_test(keys_navigate_filter_focus),
		cmocka_unit_test(keys_interval_pause_help),
		cmocka_unit_test(keys_changes_refused_and_why),
		cmocka_unit_test(state_strings),
		cmocka_unit_test(keys_too_small_only_quit),
		cmocka_unit_test(keys_boost_prompt_refusals),
		cmocka_unit_test(keys_help_scrolls_by_page),
		cmocka_unit_test(keys_theme_under_no_color),
		cmocka_unit_test(keys_quit_asks_for_a_draft),
		cmocka_unit_test(keys_interrupt_asks_for_a_draft),
		cmocka_unit_test(keys_paste_is_text),
		cmocka_unit_test(keys_line_too_long_applies_nothing),
		cmocka_unit_test(prefs_round_trip_atomic),
		cmocka_unit_test(aconn_display_hides_password),
		cmocka_unit_test(settings_json_round_trip),
		cmocka_unit_test(change_refused_while_eight_wait),
		cmocka_unit_test(settings_json_refusals),
		cmocka_unit_test(tune_panel_edits),
		cmocka_unit_test(tune_undo_of_an_unreadable_version),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
