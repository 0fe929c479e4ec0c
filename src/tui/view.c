/* view.c: drawing the console (view.h). The only file besides crt.c that
 * calls curses; it reads struct tui and never changes the model.
 *
 * Layout at 80x24 (every essential panel), growing with the terminal:
 *
 *   0  header: state, interval, db cost, connection, clock
 *   1  totals, claims/s sparkline, ETA
 *   2  -- Jobs --------------------------- (or the DISCONNECTED banner)
 *   3  column header, then >= 5 job rows
 *   9  -- Class -- Depth -- Score -- Priority --  (5 rows of charts)
 *  15  -- Heatmap method x type -- Next up --     (>= 6 rows)
 *  22  message, prompt or filter line
 *  23  key bar (from the key table)
 *
 * 'a' swaps the queue charts for the audit panel; tall terminals show
 * the audit panel as well. */
#ifndef _XOPEN_SOURCE_EXTENDED
#define _XOPEN_SOURCE_EXTENDED 1
#endif
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ncursesw/curses.h>

#include "app.h"
#include "change.h"
#include "config_keys.h"
#include "crt.h"
#include "text.h"
#include "store.h"
#include "view.h"


static const struct tx_glyphs *G;
static int U8;

/* ---- primitives ---------------------------------------------------------- */

static attr_t A(enum crt_role r)
{
	return (attr_t)crt_attr(r);
}

/* Draw s in at most w columns at (y, x) with attribute a. Returns the
 * columns used. */
static int put_fit(int y, int x, int w, attr_t a, const char *s, int tail)
{
	char buf[2048];
	int used;
	if (w <= 0 || x >= COLS || y >= LINES)
		return 0;
	if (x + w > COLS)
		w = COLS - x;
	if (tail)
		tx_fit_tail(buf, sizeof buf, s, w, U8, &used);
	else
		tx_fit(buf, sizeof buf, s, w, U8, &used);
	attrset(a);
	mvaddstr(y, x, buf);
	attrset(A_NORMAL);
	return used;
}

static int put(int y, int x, int w, attr_t a, const char *s)
{
	return put_fit(y, x, w, a, s, 0);
}

/* A line being typed or a question: too long, it loses its start, so
 * that the cursor and "[y/N]" stay in sight. */
static int put_tail(int y, int x, int w, attr_t a, const char *s)
{
	return put_fit(y, x, w, a, s, 1);
}

/* s padded (or right-aligned) to exactly w columns. */
static void putpad(int y, int x, int w, attr_t a, const char *s, int right)
{
	char buf[2048];
	if (w <= 0 || x >= COLS)
		return;
	if (x + w > COLS)
		w = COLS - x;
	tx_pad(buf, sizeof buf, s, w, U8, right);
	attrset(a);
	mvaddstr(y, x, buf);
	attrset(A_NORMAL);
}

/* Raw glyph string (already safe, known width) at (y, x). */
static void glyphs(int y, int x, attr_t a, const char *s)
{
	attrset(a);
	mvaddstr(y, x, s);
	attrset(A_NORMAL);
}

/* A rule with a title: "- title ---------". */
static void rule(int y, int x, int w, const char *title, attr_t a)
{
	attrset(A(R_DIM));
	for (int i = 0; i < w; i++)
		mvaddstr(y, x + i, G->hline);
	attrset(A_NORMAL);
	if (title && *title) {
		char t[512];
		snprintf(t, sizeof t, " %s ", title);
		put(y, x + 1, w - 2, a, t);
	}
}

/* printf into a fixed buffer. */
#define FMT(buf, ...) (snprintf(buf, sizeof buf, __VA_ARGS__), buf)

/* " (age 12s)" when a dataset is older than the refresh should make it,
 * or its last load failed. */
static const char *age_note(const struct tui *t, const struct tm_age *a,
			    double now, char *buf, size_t len)
{
	buf[0] = '\0';
	if (!a->loaded_at)
		return buf;
	double age = now - a->loaded_at;
	if (age > 2 * t->eff_interval + 1 || a->error[0]) {
		char d[16];
		snprintf(buf, len, " %s %s old", G->dot, tx_dur(d, sizeof d, age));
	}
	return buf;
}

/* ---- header ------------------------------------------------------------- */

static void draw_header(struct tui *t, double now)
{
	int W = COLS;
	char st[32], b[256], d1[16], d2[16];
	attr_t ha = A(R_HEADER);
	attrset(ha);
	mvhline(0, 0, ' ', W);
	attrset(A_NORMAL);
	int x = put(0, 0, W, ha | A_BOLD, " crawltop ");
	tf_state(t, now, st, sizeof st);
	enum crt_role sr = R_LIVE;
	if (strncmp(st, "PAUSED", 6) == 0)
		sr = R_PAUSED;
	else if (strncmp(st, "STALE", 5) == 0)
		sr = R_STALE;
	else if (strncmp(st, "DISC", 4) == 0)
		sr = R_DOWN;
	else if (strcmp(st, "LIVE") != 0)
		sr = R_PAUSED;
	x += put(0, x, W - x, A(sr), FMT(b, " %s ", st));
	if (t->eff_interval > t->prefs.interval + 1e-9)
		FMT(b, " every %gs (backed off from %gs) ",
		    t->eff_interval, t->prefs.interval);
	else
		FMT(b, " every %gs ", t->prefs.interval);
	x += put(0, x, W - x, ha, b);
	if (t->refreshes)
		x += put(0, x, W - x, ha, FMT(b, "%s db %.0f ms ", G->dot, t->cost_ms));
	int np = tm_problems(&t->model, 0, &t->prefs.health);
	if (np)
		x += put(0, x, W - x, A(R_DOWN) | A_BOLD,
			 FMT(b, " %d PROBLEM%s ", np, np == 1 ? "" : "S")) + 1;
	/* errors not seen: they stay counted until the log is opened */
	if (t->log_unseen)
		x += put(0, x, W - x, A(R_DOWN) | A_BOLD,
			 FMT(b, " %d UNSEEN ERROR%s (L) ", t->log_unseen,
			     t->log_unseen == 1 ? "" : "S")) + 1;
	if (t->opts.readonly)
		x += put(0, x, W - x, ha, FMT(b, "%s read-only ", G->dot));
	else if (t->connected && ct_aconn_standby(t->ac))
		x += put(0, x, W - x, ha, FMT(b, "%s standby ", G->dot));
	if (t->wprog.kind == TW_MODE || t->wprog.kind == TW_APPLY) {
		const struct tw_progress *p = &t->wprog;
		x += put(0, x, W - x, A(R_PAUSED), FMT(b, " RESCORE %.0f%% ",
			 p->total ? floor(100.0 * p->done / p->total) : 0.0));
		x++;
	}
	time_t wall = time(NULL);
	struct tm tmv;
	char clock[16];
	strftime(clock, sizeof clock, "%H:%M:%S", localtime_r(&wall, &tmv));
	int cw = (int)strlen(clock) + 1;
	const char *who = t->ac ? ct_aconn_display(t->ac) : "";
	/* one blank between the (cut) connection and the clock */
	put(0, x, W - x - cw - 1, ha, FMT(b, "%s %s", G->dot, who));
	put(0, W - cw, cw, ha, clock);

	/* line 1: totals. The ETA keeps its place at the right end; the
	 * segments before it are dropped whole, the least important first,
	 * never cut inside a number */
	struct tm_totals tt;
	tm_totals(&t->model, t->focus, &tt);
	const struct tm_job *fj = t->focus ? tm_job_by_id(&t->model, t->focus) : NULL;
	char eta[64];
	FMT(eta, " ETA %s", tt.eta_s < 0 ? "-" : tx_dur(d2, sizeof d2, tt.eta_s));
	int ew = (int)strlen(eta) + 1;
	enum { S_JOB, S_PEND, S_RUN, S_RETRY, S_DONE, S_FAIL, S_SKIP, S_RATE,
	       S_N };
	/* running: leased to a worker; retrying: waiting for a retry
	 * backoff, fetched by nobody. Tasks of cancelled jobs (skipped):
	 * shown once there are any, so that the counts add up to the tasks
	 * there are */
	static const char *const lab[S_N] = {"", "pending", "running",
		"retrying", "completed", "failed", "skipped", "claims/s"};
	static const int prio[S_N] = {9, 8, 7, 2, 5, 6, 3, 4};
	long long cnt[S_N] = {0, tt.pending, tt.running, tt.retrying,
			      tt.completed, tt.failed, tt.skipped, 0};
	char seg[S_N][96], c1[16];
	int segw[S_N], keep[S_N];
	for (int i = 0; i < S_N; i++) {
		if (i == S_JOB) {
			char nm[80];
			/* a long name is cut, to a third of the line */
			tx_fit(nm, sizeof nm, fj ? fj->name : "", W / 3, U8, NULL);
			if (fj)
				FMT(seg[i], " job %s:", nm);
			else
				seg[i][0] = '\0';
		} else if (i == S_RATE) {
			FMT(seg[i], " %s %s ", lab[i],
			    tx_rate(d1, sizeof d1, tt.claims_s));
		} else if (i == S_SKIP && tt.skipped <= 0) {
			seg[i][0] = '\0';
		} else {
			FMT(seg[i], " %s %s ", lab[i],
			    tx_count(c1, sizeof c1, cnt[i]));
		}
		segw[i] = tx_width(seg[i], U8);
	}
	tx_keep(segw, prio, S_N, W - ew, keep);
	x = 0;
	for (int i = 0; i < S_N; i++)
		if (keep[i] && seg[i][0])
			x += put(1, x, W - ew - x, i == S_JOB ? A(R_TITLE) :
				 A_NORMAL, seg[i]);
	int sw = W - x - ew - 1;
	if (sw > 60)
		sw = 60;
	if (sw >= 4) {
		/* the last TM_SERIES_SECONDS seconds, in sw buckets */
		double v[64];
		int per = (TM_SERIES_SECONDS + sw - 1) / sw;
		for (int i = 0; i < sw; i++) {
			double s = 0;
			for (int k = 0; k < per; k++) {
				int idx = TM_SERIES_SECONDS - (sw - i) * per + k;
				if (idx >= 0 && idx < TM_SERIES_SECONDS)
					s += t->model.claims[idx];
			}
			v[i] = s / per;
		}
		char sp[512];
		tx_spark(sp, sizeof sp, v, sw, 0, G);
		glyphs(1, x, A(R_SPARK), sp);
		x += sw;
	}
	put(1, W - ew, ew, A_BOLD, eta);
}

/* ---- jobs ----------------------------------------------------------------- */

struct colspec {
	int min, pref, right;
};
static const struct colspec colspecs[TM_COL_N] = {
	[TM_COL_ID] = {3, 5, 1},
	[TM_COL_NAME] = {10, 20, 0},
	[TM_COL_DOMAIN] = {0, 30, 0},
	[TM_COL_MODE] = {5, 10, 0},
	[TM_COL_PRI] = {4, 4, 1},
	[TM_COL_STATUS] = {7, 9, 0},
	[TM_COL_PROGRESS] = {10, 24, 0},
	[TM_COL_PENDING] = {6, 7, 1},
	[TM_COL_RUNNING] = {5, 6, 1},
	[TM_COL_RETRYING] = {0, 5, 1},
	[TM_COL_FAILED] = {5, 6, 1},
	[TM_COL_RATE] = {6, 6, 1},
	[TM_COL_ETA] = {6, 7, 1},
};

/* Column widths for a table W columns wide (one space between columns,
 * two for the selection mark); 0 = column hidden. NAME, as operators
 * name the jobs, comes before DOMAIN: it is kept at 80 columns, where
 * DOMAIN is left out, and grows first, as far as name_w (the longest name
 * shown) needs; what is left over widens DOMAIN. */
static void job_widths(int W, int name_w, int *w)
{
	int used = 2;
	for (int c = 0; c < TM_COL_N; c++) {
		w[c] = colspecs[c].min;
		/* short names: NAME no wider than they (and its title) */
		if (c == TM_COL_NAME)
			w[c] = name_w < 4 ? 4 : name_w < w[c] ? name_w : w[c];
		if (w[c])
			used += w[c] + 1;
	}
	int extra = W - used;
	/* grow in this order, each up to the given width: RETRY from 86
	 * columns on; at 100 RETRY, NAME up to 14, and DOMAIN */
	static const struct { int col, to; } grow[] = {
		{TM_COL_RETRYING, 5}, {TM_COL_NAME, 14}, {TM_COL_DOMAIN, 17},
		{TM_COL_MODE, 10}, {TM_COL_PROGRESS, 14},
		{TM_COL_STATUS, 9}, {TM_COL_NAME, 20}, {TM_COL_DOMAIN, 30},
		{TM_COL_PROGRESS, 24}, {TM_COL_ID, 5},
		{TM_COL_PENDING, 7}, {TM_COL_RUNNING, 6}, {TM_COL_FAILED, 6},
		{TM_COL_ETA, 7}, {TM_COL_NAME, 64},
	};
	for (size_t i = 0; i < sizeof grow / sizeof grow[0] && extra > 0; i++) {
		int c = grow[i].col, to = grow[i].to;
		/* NAME grows as far as the longest name needs */
		if (c == TM_COL_NAME && name_w < to)
			to = name_w;
		int want = to - w[c];
		if (want <= 0)
			continue;
		if (w[c] == 0) {
			/* a hidden column needs 8 (or less, its full width)
			 * + its gap */
			int at = to < 8 ? to : 8;
			if (extra < at + 1)
				continue;
			w[c] = at;
			extra -= at + 1;
			want = to - at;
		}
		if (want > extra)
			want = extra;
		w[c] += want;
		extra -= want;
	}
	if (extra > 0 && w[TM_COL_DOMAIN])
		w[TM_COL_DOMAIN] += extra;
}

/* One cell of a job row. */
static void job_cell(int y, int x, int w, enum tm_col c,
		     const struct tm_job *j, const struct tm_health_opts *h,
		     attr_t a)
{
	char b[256], d[32];
	switch (c) {
	case TM_COL_ID: FMT(b, "%" PRId64, j->id); break;
	case TM_COL_NAME: FMT(b, "%s", j->name); break;
	case TM_COL_DOMAIN: FMT(b, "%s", j->domain); break;
	case TM_COL_MODE: FMT(b, "%s", w >= 10 ? j->mode : tm_mode_short(j->mode)); break;
	case TM_COL_PRI: FMT(b, "%d", j->priority); break;
	case TM_COL_STATUS: {
		const char *st = tm_job_state(j, h);
		FMT(b, "%s", w >= 9 ? st : tm_status_short(st));
		break;
	}
	case TM_COL_PROGRESS: {
		double f = j->total > 0 ? (double)j->completed / j->total : 0;
		char bar[256];
		int bw = w - 5;
		tx_bar(bar, sizeof bar, f, bw, 1, G);
		attr_t ba = (a & A_REVERSE) || a == A(R_SEL) ? a : A(R_BAR);
		glyphs(y, x, ba, bar);
		putpad(y, x + bw, 5, a, FMT(b, "%3.0f%%", floor(f * 100)), 1);
		return;
	}
	case TM_COL_PENDING: tx_count(b, sizeof b, j->pending); break;
	case TM_COL_RUNNING: tx_count(b, sizeof b, j->running); break;
	case TM_COL_RETRYING: tx_count(b, sizeof b, j->retrying); break;
	case TM_COL_FAILED: tx_count(b, sizeof b, j->failed); break;
	case TM_COL_RATE: tx_rate(b, sizeof b, j->completions_s); break;
	case TM_COL_ETA: {
		double e = tm_job_eta(j);
		FMT(b, "%s", e < 0 ? "-" : tx_dur(d, sizeof d, e));
		break;
	}
	default: b[0] = '\0'; break;
	}
	putpad(y, x, w, a, b, colspecs[c].right);
}

static void draw_jobs(struct tui *t, int y, int h, double now)
{
	int W = COLS, w[TM_COL_N];
	char b[512], age[64], f[128] = "", s[96];
	tui_view_jobs(t);
	const struct tm_job *fj = t->focus ? tm_job_by_id(&t->model, t->focus) : NULL;
	if (t->filter[0] || t->mode == TUI_FILTER)
		FMT(f, " %s filter '%s'", G->dot, t->filter);
	FMT(s, "%s focus %s", G->dot, fj ? fj->name : "all jobs");
	int rows = h - 2;
	t->rows_visible = rows;
	int si = -1;
	for (int i = 0; i < t->n_view; i++)
		if (t->model.jobs[t->view_idx[i]].id == t->sel_job)
			si = i;
	if (si >= 0 && si < t->scroll)
		t->scroll = si;
	if (si >= 0 && si >= t->scroll + rows)
		t->scroll = si - rows + 1;
	if (t->scroll > t->n_view - rows)
		t->scroll = t->n_view - rows > 0 ? t->n_view - rows : 0;
	/* more jobs than rows: say which rows show */
	char part[48] = "";
	if (t->n_view > rows && rows > 0)
		FMT(part, " (rows %d-%d)", t->scroll + 1,
		    t->scroll + rows < t->n_view ? t->scroll + rows : t->n_view);
	/* the selected job's problem, in words */
	char why[160] = "", prob[240] = "";
	const struct tm_job *sj = tui_selected(t);
	if (sj && tm_job_problem(sj, &t->prefs.health, why, sizeof why) != TM_OK)
		FMT(prob, " %s %s %s: %s", G->dot, sj->name,
		    tm_job_state(sj, &t->prefs.health), why);
	FMT(b, "Jobs %d of %d%s %s sort %s%s%s %s%s%s", t->n_view, t->model.n_jobs,
	    part, G->dot, tm_col_name(t->prefs.sort_col),
	    t->prefs.sort_desc ? G->down : G->up, f, s, prob,
	    age_note(t, &t->model.jobs_age, now, age, sizeof age));
	rule(y, 0, W, b, A(R_TITLE));
	if (t->model.jobs_age.error[0])
		put(y, (int)strlen(b) + 6 < W - 20 ? (int)tx_width(b, U8) + 4 : W / 2,
		    W / 2, A(R_ERR), t->model.jobs_age.error);

	int name_w = 0;
	for (int i = 0; i < t->n_view; i++) {
		int nw = tx_width(t->model.jobs[t->view_idx[i]].name, U8);
		if (nw > name_w)
			name_w = nw;
	}
	job_widths(W, name_w, w);
	int x = 2;
	attrset(A(R_COLHDR));
	mvhline(y + 1, 0, ' ', W);
	attrset(A_NORMAL);
	for (int c = 0; c < TM_COL_N; c++) {
		if (!w[c])
			continue;
		int sorted = c == t->prefs.sort_col;
		FMT(b, "%s%s", tm_col_name(c),
		    sorted ? (t->prefs.sort_desc ? G->down : G->up) : "");
		putpad(y + 1, x, w[c], A(sorted ? R_SORTCOL : R_COLHDR), b,
		       colspecs[c].right);
		x += w[c] + 1;
	}

	if (t->n_view == 0)
		put(y + 2, 2, W - 4, A(R_DIM), t->model.n_jobs ?
		    "no job matches the filter (Esc clears it)" :
		    t->model.jobs_age.loaded_at ? "no jobs yet" : "loading...");
	for (int r = 0; r < rows && t->scroll + r < t->n_view; r++) {
		const struct tm_job *j = &t->model.jobs[t->view_idx[t->scroll + r]];
		int sel = j->id == t->sel_job;
		int quiet = strcmp(j->status, "cancelled") == 0 ||
			    strcmp(j->status, "completed") == 0;
		attr_t a = sel ? A(R_SEL) : quiet ? A(R_DIM) : A_NORMAL;
		if (sel) {
			attrset(a);
			mvhline(y + 2 + r, 0, ' ', W);
			attrset(A_NORMAL);
		}
		if (sel)
			glyphs(y + 2 + r, 0, a, G->sel);
		else if (j->id == t->focus)
			glyphs(y + 2 + r, 0, A(R_TITLE), "*");
		x = 2;
		for (int c = 0; c < TM_COL_N; c++) {
			if (!w[c])
				continue;
			attr_t ca = a;
			if (c == TM_COL_STATUS && !sel &&
			    strcmp(j->status, "paused") == 0)
				ca = A(R_PAUSED);
			/* a problem stands out until it clears */
			if (c == TM_COL_STATUS &&
			    tm_job_problem(j, &t->prefs.health, NULL, 0) != TM_OK)
				ca = sel ? a | A_BOLD : A(R_ERR) | A_BOLD;
			job_cell(y + 2 + r, x, w[c], c, j, &t->prefs.health, ca);
			x += w[c] + 1;
		}
	}
}

/* ---- queue charts ----------------------------------------------------------- */

/* Rows of "label bar count [pct]" in a box w wide. */
static void bars(int y, int x, int w, int h, const char *const *labels,
		 const long long *n, int cnt, int lw, int pct,
		 const enum crt_role *roles)
{
	long long max = 0, sum = 0;
	for (int i = 0; i < cnt; i++) {
		if (n[i] > max)
			max = n[i];
		sum += n[i];
	}
	for (int i = 0; i < cnt && i < h; i++) {
		char b[64], bar[512], c[16];
		/* the count (at most 6 columns) and its percentage, right
		 * aligned, a blank from the bar */
		int nw = pct ? 12 : 7;
		int bw = w - lw - nw - 2;
		attr_t ra = roles ? A(roles[i]) : A_NORMAL;
		putpad(y + i, x, lw, ra, labels[i], 0);
		if (bw > 0) {
			tx_bar(bar, sizeof bar, max ? (double)n[i] / max : 0,
			       bw, 0, G);
			glyphs(y + i, x + lw + 1, roles ? ra : A(R_BAR), bar);
		}
		if (pct)
			FMT(b, "%s %3.0f%%", tx_count(c, sizeof c, n[i]),
			    sum ? 100.0 * n[i] / sum : 0.0);
		else
			FMT(b, "%s", tx_count(c, sizeof c, n[i]));
		putpad(y + i, x + w - nw - 1, nw, A_NORMAL, b, 1);
	}
}

/* Priority 1..10 as columns: h - 1 rows of bars, then the labels. */
static void prio_chart(int y, int x, int w, int h, const long long *n)
{
	long long max = 0;
	for (int i = 0; i < TM_PRIO_N; i++)
		if (n[i] > max)
			max = n[i];
	int cw = w / TM_PRIO_N;
	if (cw < 2)
		cw = 2;
	int bh = h - 1;
	for (int i = 0; i < TM_PRIO_N; i++) {
		int cx = x + i * cw;
		if (cx + 2 > x + w)
			break;
		double lv = max ? (double)n[i] / max * bh * 8 : 0;
		int e = (int)lround(lv);
		if (n[i] > 0 && e == 0)
			e = 1;
		for (int r = 0; r < bh; r++) {
			int cell = e - r * 8;
			cell = cell < 0 ? 0 : cell > 8 ? 8 : cell;
			const char *g = U8 ? (cell ? G->spark[cell - 1] : " ") :
					cell >= 4 ? "#" : cell ? "_" : " ";
			glyphs(y + bh - 1 - r, cx, A(R_BAR), g);
		}
		char l[8];
		put(y + bh, cx, cw, A(R_DIM), FMT(l, "%d", i + 1));
	}
}

static void draw_queue(struct tui *t, int y, int h, double now)
{
	/* the priority chart needs 21 columns: "1 2 ... 10" */
	int W = COLS, pw = W / 4 >= 21 ? W / 4 : (W - 21) / 3;
	const struct tm_cells *c = &t->model.cells;
	char age[64], b[128];
	age_note(t, &t->model.cells_age, now, age, sizeof age);
	long long maxp = 0;
	for (int i = 0; i < TM_PRIO_N; i++)
		if (c->prio[i] > maxp)
			maxp = c->prio[i];
	const char *titles[4] = {"Class", "Depth", "Score", NULL};
	char pt[64], ct[16];
	titles[3] = FMT(pt, "Priority (max %s)", tx_count(ct, sizeof ct, maxp));
	for (int i = 0; i < 4; i++) {
		FMT(b, "%s%s", titles[i], i == 0 ? age : "");
		rule(y, i * pw, i == 3 ? W - 3 * pw : pw, b, A(R_TITLE));
	}
	if (t->model.cells_age.error[0]) {
		put(y + 1, 1, W - 2, A(R_ERR), t->model.cells_age.error);
		return;
	}
	static const char *const cl[] = {"P0", "P1", "P2", "P3"};
	static const enum crt_role cr[] = {R_P0, R_P1, R_P2, R_P3};
	bars(y + 1, 1, pw - 1, h - 1, cl, c->cls, 4, 2, 1, cr);
	static const char *const dl[] = {"0", "1", "2", "3+", "unkn"};
	bars(y + 1, pw + 1, pw - 1, h - 1, dl, c->depth, 5, 4, 0, NULL);
	/* highest scores first: the urgent end on top */
	static const char *const sl[] = {"80-100", "60-80", "40-60", "20-40",
					 "0-20"};
	long long sc[5];
	for (int i = 0; i < 5; i++)
		sc[i] = c->score[4 - i];
	bars(y + 1, 2 * pw + 1, pw - 1, h - 1, sl, sc, 5, 6, 0, NULL);
	prio_chart(y + 1, 3 * pw + 1, W - 3 * pw - 1, h - 1, c->prio);
}

/* ---- heatmap ------------------------------------------------------------------ */

/* One axis of the heatmap: the distinct methods (by_type 0) or types of
 * the cells, at most 16, with their totals, largest first. Returns how
 * many. */
static int heat_axis(const struct tm_cells *c, int by_type,
		     char names[16][33], long long tot[16])
{
	int n = 0;
	for (int i = 0; i < c->n_heat; i++) {
		const char *v = by_type ? c->heat[i].type : c->heat[i].method;
		int k = 0;
		while (k < n && strcmp(names[k], v))
			k++;
		if (k == n) {
			if (n == 16)
				continue;
			snprintf(names[n], 33, "%s", v);
			tot[n++] = 0;
		}
		tot[k] += c->heat[i].n;
	}
	/* selection sort: at most 16 */
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++)
			if (tot[j] > tot[i]) {
				char tmp[33];
				long long tn = tot[i];
				memcpy(tmp, names[i], 33);
				memcpy(names[i], names[j], 33);
				memcpy(names[j], tmp, 33);
				tot[i] = tot[j];
				tot[j] = tn;
			}
	return n;
}

/* The pending tasks of one cell of the heatmap. */
static long long heat_cell(const struct tm_cells *c, const char *method,
			   const char *type)
{
	long long n = 0;
	for (int i = 0; i < c->n_heat; i++)
		if (!strcmp(c->heat[i].method, method) &&
		    !strcmp(c->heat[i].type, type))
			n += c->heat[i].n;
	return n;
}

/* The width of one type's column: its shade, a blank, the widest count
 * (up to 6, "300.0k") and a blank before the next column; at least 7. */
static int heat_cw(const struct tm_cells *c)
{
	int cw = 7;
	for (int i = 0; i < c->n_heat; i++) {
		char cnt[16];
		tx_count(cnt, sizeof cnt, heat_cell(c, c->heat[i].method,
						    c->heat[i].type));
		if ((int)strlen(cnt) + 3 > cw)
			cw = (int)strlen(cnt) + 3;
	}
	return cw;
}

/* Columns the heatmap needs: the method labels, one column per type (at
 * most 16), the borders; at least its title's. */
static int heat_width(const struct tui *t)
{
	char types[16][33];
	long long tt[16];
	const struct tm_cells *c = &t->model.cells;
	int need = 9 + 1 + heat_axis(c, 1, types, tt) * heat_cw(c) + 1;
	return need < 36 ? 36 : need;
}

static void draw_heatmap(struct tui *t, int y, int x, int w, int h, double now)
{
	const struct tm_cells *c = &t->model.cells;
	char b[128], age[64];
	rule(y, x, w, FMT(b, "Heatmap method %s type%s", U8 ? "\u00d7" : "x",
			  age_note(t, &t->model.cells_age, now, age, sizeof age)),
	     A(R_TITLE));
	if (c->n_heat == 0) {
		put(y + 1, x + 1, w - 2, A(R_DIM), t->model.cells_age.error[0] ?
		    t->model.cells_age.error : "no pending tasks");
		return;
	}
	/* rows: methods by total, columns: types by total */
	char methods[16][33], types[16][33];
	long long mt[16], tt[16], max = 0;
	int nm = heat_axis(c, 0, methods, mt);
	int nt = heat_axis(c, 1, types, tt);
	for (int i = 0; i < c->n_heat; i++)
		if (c->heat[i].n > max)
			max = c->heat[i].n;
	int lw = 9, cw = heat_cw(c);
	int ncols = (w - lw - 1) / cw;
	if (ncols > nt)
		ncols = nt;
	for (int k = 0; k < ncols; k++)
		putpad(y + 1, x + lw + 1 + k * cw, cw - 1, A(R_DIM), types[k], 1);
	for (int m = 0; m < nm && m < h - 2; m++) {
		putpad(y + 2 + m, x + 1, lw - 1, A_NORMAL, methods[m], 0);
		for (int k = 0; k < ncols; k++) {
			long long n = heat_cell(c, methods[m], types[k]);
			int lv = n <= 0 || !max ? 0 : 1 + (int)((double)n / max * 3.999);
			if (lv > 4)
				lv = 4;
			static const enum crt_role hr[] = {R_NORMAL, R_HEAT1,
				R_HEAT2, R_HEAT3, R_HEAT4};
			char cnt[16], cell[64];
			tx_count(cnt, sizeof cnt, n);
			FMT(cell, "%s %*s", G->shade[lv], cw - 3, n ? cnt : "");
			attr_t a = lv ? A(hr[lv]) : A(R_DIM);
			glyphs(y + 2 + m, x + lw + 1 + k * cw, a, cell);
		}
	}
}

/* ---- next up ------------------------------------------------------------------- */

static void draw_next(struct tui *t, int y, int x, int w, int h, double now)
{
	char b[512], age[64];
	rule(y, x, w, FMT(b, "Next up (claim order: job priority, score, "
			  "discovery)%s",
			  age_note(t, &t->model.next_age, now, age, sizeof age)),
	     A(R_TITLE));
	if (t->model.next_age.error[0]) {
		put(y + 1, x + 1, w - 2, A(R_ERR), t->model.next_age.error);
		return;
	}
	if (t->model.n_next == 0) {
		/* pending tasks of paused jobs are held back, not gone */
		long long held = 0;
		int jobs = 0;
		for (int i = 0; i < t->model.n_jobs; i++) {
			const struct tm_job *j = &t->model.jobs[i];
			if ((!t->focus || j->id == t->focus) && j->pending > 0 &&
			    strcmp(j->status, "paused") == 0) {
				held += j->pending;
				jobs++;
			}
		}
		if (!t->model.next_age.loaded_at)
			snprintf(b, sizeof b, "loading...");
		else if (held)
			snprintf(b, sizeof b, "nothing claimable: %lld pending "
				 "task%s of %d paused job%s", held,
				 held == 1 ? "" : "s", jobs, jobs == 1 ? "" : "s");
		else
			snprintf(b, sizeof b, "nothing pending");
		put(y + 1, x + 1, w - 2, A(R_DIM), b);
		return;
	}
	/* the paths as wide as the longest shown needs, leaving the reason
	 * at least 19 columns ("prio 3, age 1h46m"); the reason takes the
	 * rest, and with room for it also depth, method/type and job */
	int rows = t->model.n_next < h - 1 ? t->model.n_next : h - 1;
	int longest = 8;
	for (int i = 0; i < rows; i++) {
		int pw = tx_width(t->model.next[i].path, U8);
		if (pw > longest)
			longest = pw;
	}
	int room = w - 1 - 3 - 6 - 1; /* path and reason */
	int pathw = room - 19 < longest ? room - 19 : longest;
	int whyw = room - pathw;
	static const enum crt_role cr[] = {R_P0, R_P1, R_P2, R_P3};
	for (int i = 0; i < t->model.n_next && i < h - 1; i++) {
		const struct tm_next *n = &t->model.next[i];
		int yy = y + 1 + i, cls = n->cls >= 0 && n->cls < 4 ? n->cls : 3;
		put(yy, x + 1, 2, A(cr[cls]), FMT(b, "P%d", cls));
		putpad(yy, x + 4, 5, A_NORMAL, FMT(b, "%.1f", n->score), 1);
		putpad(yy, x + 10, pathw, A_NORMAL, n->path, 0);
		char d[16], why[256], extra[160] = "";
		if (whyw > 20) {
			const struct tm_job *j = t->focus ? NULL :
				tm_job_by_id(&t->model, n->job_id);
			FMT(extra, "%s%s%s%s%s%s", n->depth >= 0 ? " d" : "",
			    n->depth >= 0 ? FMT(d, "%d", n->depth) : "",
			    n->method[0] ? " " : "", n->method,
			    n->type[0] ? "/" : "", n->type);
			if (j) {
				size_t l = strlen(extra);
				snprintf(extra + l, sizeof extra - l, " %s", j->name);
			}
		}
		char in[40] = "";
		if (n->inlinks >= 0)
			FMT(in, "%lld link%s in, ", n->inlinks,
			    n->inlinks == 1 ? "" : "s");
		FMT(why, "%sprio %d, age %s%s", in, n->job_priority,
		    tx_dur(d, sizeof d, n->age_s), extra);
		put(yy, x + 10 + pathw + 1, whyw, A(R_DIM), why);
	}
}

/* ---- audit --------------------------------------------------------------------- */

/* One audit row: when, who, what, job, rows, the change; sel: the
 * selected row's colours. */
static void audit_line(int yy, const struct tm_audit *a, int sel)
{
	int W = COLS;
	attr_t n = sel ? A(R_SEL) : A_NORMAL;
	char who[160], job[24], rows[24], c[1024], arrow[16];
	/* "crawltop console", "crawltop job": the part after "crawltop "
	 * tells them apart in 18 columns */
	FMT(who, "%s/%s", a->role, strncmp(a->app, "crawltop ", 9) == 0 ?
	    a->app + 9 : a->app);
	if (a->job_id)
		FMT(job, "%" PRId64, a->job_id);
	else
		FMT(job, "-");
	putpad(yy, 1, 8, sel ? n : A(R_DIM), a->at, 0);
	putpad(yy, 10, 18, n, who, 0);
	putpad(yy, 29, 13, sel ? n : A(R_TITLE), a->action, 0);
	putpad(yy, 43, 5, n, job, 1);
	putpad(yy, 49, 6, n, FMT(rows, "%lld", a->rows), 1);
	put(yy, 57, W - 58, n, chg_format(c, sizeof c, a->before, a->after,
	    FMT(arrow, " %s ", G->arrow)));
}

static void draw_audit(struct tui *t, int y, int h, double now)
{
	int W = COLS;
	char b[512], age[64];
	rule(y, 0, W, FMT(b, "Audit: latest operator changes%s%s",
			  t->focus ? " to the focused job" : "",
			  age_note(t, &t->model.audit_age, now, age, sizeof age)),
	     A(R_TITLE));
	if (t->model.audit_age.error[0]) {
		put(y + 1, 1, W - 2, A(R_ERR), t->model.audit_age.error);
		return;
	}
	putpad(y + 1, 0, W, A(R_COLHDR), FMT(b, " %-8s %-18s %-13s %5s %6s  %s",
	       "WHEN", "WHO", "WHAT", "JOB", "ROWS", "CHANGE"), 0);
	for (int i = 0; i < t->model.n_audit && i < h - 2 && i < 64; i++)
		audit_line(y + 2 + i, &t->model.audit[i], 0);
	if (t->model.n_audit == 0)
		put(y + 2, 1, W - 2, A(R_DIM), "no changes recorded yet");
}

/* The audit view (A): the latest 200 changes of the focused job (or all),
 * of the roles the filter names; one selected, Enter opens it whole. */
static void draw_audit_view(struct tui *t, int y, int h, double now)
{
	int W = COLS;
	char b[600], age[64], f[120] = "";
	const struct tm_model *m = &t->model;
	const struct tm_job *fj = t->focus ? tm_job_by_id(m, t->focus) : NULL;
	if (t->audit_role[0] || t->mode == TUI_AFILTER)
		FMT(f, " by roles holding \"%.60s\"%s", t->audit_role,
		    t->mode == TUI_AFILTER ? "_" : "");
	FMT(b, "Audit of %s%s: %d change%s %s Up Down PgUp PgDn %s / role %s "
	    "Enter opens %s any other key closes%s", fj ? fj->name : "all jobs",
	    f, m->n_audit, m->n_audit == 1 ? "" : "s", G->dot, G->dot, G->dot,
	    G->dot, age_note(t, &m->audit_age, now, age, sizeof age));
	rule(y, 0, W, b, A(R_TITLE));
	if (m->audit_age.error[0]) {
		put(y + 1, 2, W - 4, A(R_ERR), m->audit_age.error);
		return;
	}
	if (!m->audit_age.loaded_at || m->n_audit == 0) {
		put(y + 1, 2, W - 4, A(R_DIM), !m->audit_age.loaded_at ?
		    "loading..." : "no change matches");
		return;
	}
	putpad(y + 1, 0, W, A(R_COLHDR), FMT(b, " %-8s %-18s %-13s %5s %6s  %s",
	       "WHEN", "WHO", "WHAT", "JOB", "ROWS", "CHANGE"), 0);
	int rows = h - 2, first = 0;
	t->audit_page = rows;
	if (t->audit_sel >= m->n_audit)
		t->audit_sel = m->n_audit - 1;
	if (t->audit_sel >= rows)
		first = t->audit_sel - rows + 1;
	for (int r = 0; r < rows && first + r < m->n_audit; r++) {
		int sel = first + r == t->audit_sel;
		if (sel) {
			attrset(A(R_SEL));
			mvhline(y + 2 + r, 0, ' ', W);
			attrset(A_NORMAL);
			glyphs(y + 2 + r, 0, A(R_SEL), G->sel);
		}
		audit_line(y + 2 + r, &m->audit[first + r], sel);
	}
}

/* text[0..len) in the lines y.. (at most n) from column x, w wide, the
 * lines after the first indented by ind more (and ind narrower), never
 * cutting a UTF-8 character; returns the lines used, and the bytes shown
 * in *shown (may be NULL). */
static int wrap_span(int y, int x, int w, int ind, int n, attr_t a,
		     const char *text, size_t len, size_t *shown)
{
	int used = 0, lw = w;
	size_t at = 0;
	while (at < len && used < n && lw > 0) {
		size_t take = len - at < (size_t)lw ? len - at : (size_t)lw;
		while (take > 0 && at + take < len &&
		       ((unsigned char)text[at + take] & 0xc0) == 0x80)
			take--;
		char line[1024];
		if (take >= sizeof line)
			take = sizeof line - 1;
		memcpy(line, text + at, take);
		line[take] = '\0';
		put(y + used, x + (used ? ind : 0), lw, a, line);
		at += take;
		if (!used++)
			lw = w - ind;
	}
	if (shown)
		*shown = at;
	return used;
}

/* text (lines of JSON) in a column from (y, x), w wide, down to end,
 * each line wrapped at w, its continuations indented by the line's own
 * indent plus two; -1 when it did not all fit. */
static int json_column(int y, int end, int x, int w, const char *text)
{
	while (*text && y < end) {
		size_t l = strcspn(text, "\n");
		int ind = (int)strspn(text, " ");
		if ((size_t)ind > l || ind + 10 > w)
			ind = 0;
		/* a line that does not fit whole still goes as far as it can */
		size_t shown = l;
		int got = l == 0 ? 1 : wrap_span(y, x, w, l > (size_t)w ?
						 ind + 2 : 0, end - y,
						 A_NORMAL, text, l, &shown);
		y += got;
		if (shown < l)
			return -1;
		text += l + (text[l] == '\n');
	}
	return *text ? -1 : y;
}

/* One audit row whole: who, when, what, and its before and after as
 * indented JSON, read again by id (nothing cut). */
static void draw_arow(struct tui *t, int y, int h, double now)
{
	int W = COLS;
	char b[600], age[64];
	const struct tm_model *m = &t->model;
	/* the change opened, by its id (the list moves as changes come) */
	const struct tm_audit *a = NULL;
	for (int i = 0; i < m->n_audit && !a; i++)
		if (m->audit[i].id == t->arow_want)
			a = &m->audit[i];
	if (!a) {
		FMT(b, "Change %" PRId64 " %s any key: back", t->arow_want,
		    G->dot);
		rule(y, 0, W, b, A(R_TITLE));
		if (m->arow_id != t->arow_want)
			return;
	}
	if (a) {
		FMT(b, "Change %" PRId64 ": %s by %s (%s) at %s, %lld row%s %s "
		    "any key: back%s", a->id, a->action, a->role, a->app, a->at,
		    a->rows, a->rows == 1 ? "" : "s", G->dot,
		    age_note(t, &m->arow_age, now, age, sizeof age));
		rule(y, 0, W, b, A(R_TITLE));
	}
	if (m->arow_age.error[0]) {
		put(y + 1, 2, W - 4, A(R_ERR), m->arow_age.error);
		return;
	}
	if (m->arow_id != t->arow_want) {
		put(y + 1, 2, W - 4, A(R_DIM), "loading...");
		return;
	}
	/* before on the left, after on the right, each line wrapped in
	 * its column (nothing cut) */
	int half = (W - 3) / 2, yy = y + 1, end = y + h;
	put(yy, 1, half, A(R_COLHDR), "BEFORE");
	put(yy++, half + 2, W - half - 3, A(R_COLHDR), "AFTER");
	int left = json_column(yy, end, 1, half, m->arow_before);
	int right = json_column(yy, end, half + 2, W - half - 3,
				m->arow_after);
	if (left < 0 || right < 0)
		put(end - 1, W - 34, 33, A(R_DIM),
		    "-- more than the screen holds --");
}

/* ---- weights ---------------------------------------------------------------------- */

/* s word-wrapped into at most maxl lines of w columns (the last line cut
 * with an ellipsis), counted in columns and cut between characters.
 * Returns the lines used. */
static int wrap(int y, int x, int w, int maxl, attr_t a, const char *s)
{
	int lines = 0;
	while (*s && lines < maxl && w > 0) {
		if (tx_width(s, U8) <= w || lines == maxl - 1) {
			put(y + lines++, x, w, a, s);
			break;
		}
		/* the last space within the line's w columns, or the
		 * character just past them; else cut at w */
		size_t fit = tx_prefix(s, w, U8), cut = fit;
		while (cut > 0 && s[cut] != ' ')
			cut--;
		if (cut == 0)
			cut = fit ? fit : tx_prefix(s, 2, U8);
		if (cut == 0)
			cut = 1;
		char buf[512];
		snprintf(buf, sizeof buf, "%.*s", (int)cut, s);
		put(y + lines++, x, w, a, buf);
		s += cut;
		while (*s == ' ')
			s++;
	}
	return lines;
}

/* The left column: one row per key of the config key table and per map
 * entry, under their group headings; edited values as "stored -> draft". */
static void weights_list(struct tui *t, int y, int x, int w, int h)
{
	struct tui_weights *wt = &t->w;
	char b[600], v[256], sv[256];
	int vw = w >= 52 ? 22 : 16;
	wt->rows_visible = h;
	if (wt->sel < wt->scroll)
		wt->scroll = wt->sel;
	if (wt->sel >= wt->scroll + h)
		wt->scroll = wt->sel - h + 1;
	if (wt->scroll > 0 && wt->scroll == wt->sel &&
	    wt->rows[wt->sel - 1].kind == WR_HEAD)
		wt->scroll--; /* keep the heading of the first row in view */
	if (wt->scroll > wt->n_rows - h)
		wt->scroll = wt->n_rows - h > 0 ? wt->n_rows - h : 0;
	if (!wt->n_rows)
		put(y, x + 1, w - 1, A(R_DIM), t->sets.error[0] ? t->sets.error :
		    "loading the settings...");
	for (int r = 0; r < h && wt->scroll + r < wt->n_rows; r++) {
		int i = wt->scroll + r, yy = y + r;
		const struct tui_wrow *row = &wt->rows[i];
		if (row->kind == WR_HEAD) {
			attr_t ha = A(R_TITLE);
			FMT(b, "%s", row->name);
			if (strcmp(row->name, "discovery.weights") == 0) {
				double sum = 0;
				for (int k = 0; k < CT_SUB_COUNT; k++)
					sum += wt->draft.settings.discovery.weights[k];
				int ok = fabs(sum - 1) <= CT_WEIGHT_SUM_TOLERANCE;
				FMT(b, "%s  (sum %.9g%s)", row->name, sum,
				    ok ? "" : ": must be 1, N scales");
				if (!ok)
					ha = A(R_ERR);
			}
			put(yy, x + 1, w - 1, ha, b);
			continue;
		}
		int sel = i == wt->sel, ed = tws_edited(t, row);
		attr_t a = sel ? A(R_SEL) : A_NORMAL;
		if (sel) {
			attrset(a);
			mvhline(yy, x, ' ', w);
			attrset(A_NORMAL);
			glyphs(yy, x, a, G->sel);
		}
		if (ed)
			glyphs(yy, x + 1, sel ? a | A_BOLD : A(R_GOOD) | A_BOLD, "*");
		const char *name = row->name;
		if (row->kind == WR_KEY) {
			const char *dot = strrchr(ct_keys[row->key].path, '.');
			name = dot ? dot + 1 : ct_keys[row->key].path;
		}
		putpad(yy, x + 3, w - 3 - vw - 1, a, name, 0);
		tws_value(&wt->draft, row, v, sizeof v);
		if (ed) {
			tws_value(&t->sets.cur, row, sv, sizeof sv);
			FMT(b, "%s %s %s", sv[0] ? sv : "-", G->arrow, v[0] ? v : "-");
		} else {
			FMT(b, "%s", v[0] ? v : "-");
		}
		putpad(yy, x + w - vw - 1, vw, ed ? (sel ? a | A_BOLD :
		       A(R_GOOD) | A_BOLD) : a, b, 1);
	}
}

/* The preview of the draft: the P0-P3 counts now and after, and the
 * first tasks of the claim order now and after. */
static void weights_preview(struct tui *t, int y, int x, int w, int h)
{
	const struct tui_weights *wt = &t->w;
	const struct ct_preview *p = &wt->preview;
	const struct tm_job *tj = tws_target(t);
	char b[600], c1[16], c2[16], c3[16];
	int yy = y;
	if (h < 2)
		return;
	if (wt->pstate == WP_DONE || wt->pstate == WP_RUNNING ||
	    wt->pstate == WP_FAILED)
		FMT(b, "Preview: job %s", wt->pjob_name);
	else
		FMT(b, "Preview%s%s", tj ? ": job " : "", tj ? tj->name : "");
	rule(yy++, x, w, b, A(R_TITLE));
	int left = y + h - yy;
	switch (wt->pstate) {
	case WP_NONE:
		if (!wt->n_edits)
			wrap(yy, x + 1, w - 2, left, A(R_DIM), tj ?
			     FMT(b, "No edits. Edit a value (Enter): the preview "
				 "scores job %s's pending tasks with the draft "
				 "and shows what would change.", tj->name) :
			     "No edits, and no job selected to preview on.");
		else
			wrap(yy, x + 1, w - 2, left, A(R_DIM), wt->problem[0] ?
			     "No preview while the draft breaks a rule (above)." :
			     "v: preview the draft");
		return;
	case WP_RUNNING:
		wrap(yy, x + 1, w - 2, left, A(R_DIM), FMT(b, "Scoring job %s's "
		     "pending tasks with the draft... (x stops)", wt->pjob_name));
		return;
	case WP_FAILED:
		wrap(yy, x + 1, w - 2, left, A(R_ERR), wt->pmsg);
		return;
	case WP_DONE:
		break;
	}
	if (p->sampled < p->pending)
		FMT(b, "%s: sample of %s of %s pending, %s change", p->mode,
		    tx_count(c1, sizeof c1, (long long)p->sampled),
		    tx_count(c2, sizeof c2, (long long)p->pending),
		    tx_count(c3, sizeof c3, (long long)p->changed));
	else
		FMT(b, "%s: %s pending task%s, %s change", p->mode,
		    tx_count(c1, sizeof c1, (long long)p->pending),
		    p->pending == 1 ? "" : "s",
		    tx_count(c3, sizeof c3, (long long)p->changed));
	if (p->adjusted) /* kept by the rescore: "draft" counts them */
		snprintf(b + strlen(b), sizeof b - strlen(b), "; %s keep%s an "
			 "operator boost or demotion",
			 tx_count(c1, sizeof c1, (long long)p->adjusted),
			 p->adjusted == 1 ? "s" : "");
	put(yy++, x + 1, w - 2, A_NORMAL, b);
	if (yy >= y + h)
		return;
	char vh[16];
	FMT(vh, "v%d", t->sets.version);
	FMT(b, "%-4s%8s%8s%8s", "", vh, "draft", "change");
	put(yy++, x + 1, w - 2, A(R_COLHDR), b);
	static const enum crt_role cr[] = {R_P0, R_P1, R_P2, R_P3};
	for (int c = 0; c < 4 && yy < y + h; c++, yy++) {
		long long d = p->after[c] - p->before[c];
		put(yy, x + 1, 2, A(cr[c]), FMT(b, "P%d", c));
		FMT(b, "%8s%8s%8s", tx_count(c1, sizeof c1, p->before[c]),
		    tx_count(c2, sizeof c2, p->after[c]),
		    d ? FMT(c3, "%+lld", d) : "0");
		put(yy, x + 5, w - 6, d ? A_BOLD : A_NORMAL, b);
	}
	if (yy >= y + h)
		return;
	int half = (w - 2) / 2;
	put(yy, x + 1, half, A(R_COLHDR), FMT(b, "Next up, v%d", t->sets.version));
	put(yy++, x + 1 + half, w - 2 - half, A(R_COLHDR), "with the draft");
	for (int i = 0; i < p->n_next && yy < y + h; i++, yy++) {
		const struct ct_preview_task *n[2] = {&p->next_before[i],
						       &p->next_after[i]};
		for (int k = 0; k < 2; k++) {
			int xx = x + 1 + k * half;
			put(yy, xx, 2, A(cr[n[k]->cls & 3]), FMT(b, "P%d", n[k]->cls));
			putpad(yy, xx + 3, 5, A_NORMAL, FMT(b, "%.1f", n[k]->score), 1);
			put(yy, xx + 9, half - 10, A_NORMAL, n[k]->path);
		}
	}
}

/* The right column: the selected value (its rule, where it comes from,
 * its default), a rule the draft breaks, then the preview. */
static void weights_side(struct tui *t, int y, int x, int w, int h)
{
	const struct tui_weights *wt = &t->w;
	char b[900], p[96], v[256], src[CT_CONFIG_PATH_LEN + 32];
	int yy = y;
	const struct tui_wrow *row = wt->sel >= 0 && wt->sel < wt->n_rows ?
				     &wt->rows[wt->sel] : NULL;
	rule(yy++, x, w, row ? tws_path(row, p, sizeof p) : "", A(R_TITLE));
	if (row && row->kind != WR_HEAD) {
		yy += wrap(yy, x + 1, w - 2, 2, A_NORMAL, tws_help(row, b, sizeof b));
		/* values a rescore does not apply: its preview says "0 change" */
		if (row->kind == WR_KEY &&
		    strncmp(ct_keys[row->key].path, "hierarchy.", 10) == 0)
			yy += wrap(yy, x + 1, w - 2, 2, A(R_DIM), "for pages scored "
				   "from now on: a page keeps its stored score, "
				   "which rescores read");
		else if (row->kind == WR_KEY &&
			 strcmp(ct_keys[row->key].path, "tier.default_priority") == 0)
			yy += wrap(yy, x + 1, w - 2, 2, A(R_DIM),
				   "for jobs created from now on");
		tws_value(&t->sets.cur, row, v, sizeof v);
		src[0] = '\0';
		if (row->kind == WR_KEY)
			ct_config_source_str(&t->sets.cur,
					     &t->sets.cur.key_src[row->key],
					     src, sizeof src);
		put(yy++, x + 1, w - 2, A(R_DIM), FMT(b, "v%d: %s%s%s%s",
		    t->sets.version, v[0] ? v : "-", src[0] ? " (" : "", src,
		    src[0] ? ")" : ""));
		struct ct_config *d = malloc(sizeof *d);
		if (d) {
			ct_config_init(d);
			tws_value(d, row, v, sizeof v);
			free(d);
			put(yy++, x + 1, w - 2, A(R_DIM), FMT(b, "built-in "
			    "default: %s", v[0] ? v : "none"));
		}
		if (tws_edited(t, row)) {
			tws_value(&wt->draft, row, v, sizeof v);
			put(yy++, x + 1, w - 2, A(R_GOOD) | A_BOLD,
			    FMT(b, "draft: %s (c clears)", v[0] ? v : "-"));
		}
	}
	if (wt->refused[0] && wt->refused_row == wt->sel)
		yy += wrap(yy, x + 1, w - 2, 4, A(R_ERR),
			   FMT(b, "Refused: %s", wt->refused));
	if (wt->problem[0])
		yy += wrap(yy, x + 1, w - 2, 4, A(R_ERR),
			   FMT(b, "Cannot apply: %s", wt->problem));
	weights_preview(t, yy, x, w, y + h - yy);
}

static void draw_weights(struct tui *t, int y, int h, double now)
{
	int W = COLS, lw = W >= 120 ? W / 2 : W >= 100 ? 52 : 44;
	char b[400];
	const struct tui_settings *st = &t->sets;
	if (st->version) {
		FMT(b, "Weights %s settings v%d by %s %s %d edit%s", G->dot,
		    st->version, st->by, G->dot, t->w.n_edits,
		    t->w.n_edits == 1 ? "" : "s");
		if (tx_width(b, U8) + 4 > lw) /* the short form */
			FMT(b, "Weights %s v%d %s %d edit%s", G->dot, st->version,
			    G->dot, t->w.n_edits, t->w.n_edits == 1 ? "" : "s");
	} else {
		FMT(b, "Weights");
	}
	rule(y, 0, lw, b, A(R_TITLE));
	weights_list(t, y + 1, 0, lw, h - 1);
	weights_side(t, y, lw + 1, W - lw - 1, h);
	(void)now;
}

/* ---- help ------------------------------------------------------------------------ */

static void draw_help(struct tui *t, int y, int h)
{
	int W = COLS, n;
	const struct tui_key *k = tui_keys(&n);
	static const char *const mode_names[TUI_MODE_N] = {
		[TUI_NORMAL] = "Keys (generated from the table that binds them)",
		[TUI_HELP] = "In this help",
		[TUI_FILTER] = "While typing a filter (/)",
		[TUI_PROMPT] = "While typing a path prefix or pattern (b, d) or a priority (P)",
		[TUI_CONFIRM] = "When asked to confirm (C, A, U)",
		[TUI_MODESEL] = "While choosing a job's mode (m)",
		[TUI_WEIGHTS] = "In the weights panel (w)",
		[TUI_WEDIT] = "While typing a value (weights panel)",
		[TUI_LOG] = "In the message log (L)",
		[TUI_LEASES] = "In the workers and leases view (W)",
		[TUI_QUEUE] = "In the queue view (n)",
		[TUI_QSEARCH] = "While typing a path search (/ in the queue view)",
		[TUI_TASK] = "In the task view (Enter in the queue view)",
		[TUI_AUDIT] = "In the audit view (A)",
		[TUI_AFILTER] = "While typing a role filter (/ in the audit view)",
		[TUI_AROW] = "In a change opened whole (Enter in the audit view)",
	};
	const char *why = tui_why_readonly(t);
	/* lines: a title per mode, then its rows */
	int line = 0, cols = W >= 150 ? 2 : 1, colw = W / cols;
	int per = h - 1, lw = 1;
	/* the keys' column as wide as the widest label (at most 22) */
	for (int i = 0; i < n; i++) {
		int w = tx_width(k[i].label, U8);
		lw = w > lw ? (w < 22 ? w : 22) : lw;
	}
	rule(y, 0, W, "Help (any key closes)", A(R_TITLE));
	for (int m = 0; m < TUI_MODE_N; m++) {
		for (int i = -1; i < n; i++) {
			if (i >= 0 && k[i].mode != (enum tui_mode)m)
				continue;
			int L = line++ - (cols == 1 ? t->help_scroll : 0);
			if (L < 0 || L >= per * cols)
				continue;
			int yy = y + 1 + L % per, xx = (L / per) * colw;
			char b[256];
			if (i < 0) {
				put(yy, xx + 1, colw - 2, A(R_TITLE), mode_names[m]);
				continue;
			}
			int refused = why &&
				      tui_key_refusable(&k[i], (enum tui_mode)m);
			attr_t a = refused ? A(R_DIM) : A_NORMAL;
			putpad(yy, xx + 3, lw, refused ? a : A_BOLD, k[i].label, 0);
			FMT(b, "%s%s%s", k[i].help, refused ? " - refused: " : "",
			    refused ? why : "");
			put(yy, xx + lw + 4, colw - lw - 5, a, b);
		}
	}
	/* for the keys: PgDn moves a page, and scrolling stops at the end */
	t->help_page = per;
	t->help_max = cols == 1 && line > per ? line - per : 0;
	if (cols == 1 && line - t->help_scroll > per)
		put(y + h - 1, W - 30, 29, A(R_DIM), "-- more: Down / PgDn --");
}

/* The message log (L): every message with its time, the newest at the
 * bottom, errors in the error colour, a repeat counted. */
static void draw_log(struct tui *t, int y, int h)
{
	int W = COLS, per = h - 1;
	char b[400], title[120];
	t->log_page = per;
	FMT(title, "Messages: %d (newest last; Up Down PgUp PgDn Home End; "
	    "any other key closes)", t->log_n);
	rule(y, 0, W, title, A(R_TITLE));
	if (t->log_n == 0) {
		put(y + 1, 2, W - 4, A(R_DIM), "no message yet");
		return;
	}
	/* the last line shown is log_scroll lines up from the newest */
	int last = t->log_n - 1 - t->log_scroll;
	int first = last - per + 1 < 0 ? 0 : last - per + 1;
	for (int i = first; i <= last; i++) {
		int k = (t->log_next - t->log_n + i + TUI_LOG_MAX) % TUI_LOG_MAX;
		const struct tui_logline *l = &t->log[k];
		char rep[24] = "";
		if (l->repeat > 1)
			FMT(rep, " (x%d)", l->repeat);
		put(y + 1 + i - first, 0, W, l->err ? A(R_ERR) : A_NORMAL,
		    FMT(b, " %s  %s%s", l->at, l->text, rep));
	}
	if (first > 0)
		put(y + h - 1, W - 26, 25, A(R_DIM), "-- older: Up / PgUp --");
}

/* The workers and their leases (W): each task a worker holds, the
 * soonest to expire first; an expired lease (the reaper's) flagged. */
static void draw_leases(struct tui *t, int y, int h, double now)
{
	int W = COLS;
	char b[600], d1[16], d2[32], age[64];
	const struct tm_model *m = &t->model;
	FMT(b, "Leases: %d task%s held%s %s Up Down select %s R requeue %s "
	    "any other key closes%s", m->n_leases, m->n_leases == 1 ? "" : "s",
	    m->n_leases == TM_MAX_LEASES ? " (the first 64)" : "", G->dot,
	    G->dot, G->dot, age_note(t, &t->model.leases_age, now, age,
				     sizeof age));
	rule(y, 0, W, b, A(R_TITLE));
	if (m->leases_age.error[0])
		put(y + 1, 2, W - 4, A(R_ERR), m->leases_age.error);
	else if (!m->leases_age.loaded_at)
		put(y + 1, 2, W - 4, A(R_DIM), "loading...");
	else if (m->n_leases == 0)
		put(y + 1, 2, W - 4, A(R_DIM), "no task is held by a worker");
	if (m->n_leases == 0 || m->leases_age.error[0])
		return;
	attrset(A(R_COLHDR));
	mvhline(y + 1, 0, ' ', W);
	attrset(A_NORMAL);
	put(y + 1, 0, W, A(R_COLHDR), FMT(b, "  %8s %-12s %-20s %8s %-16s %5s  %s",
	    "TASK", "JOB", "WORKER", "RUNNING", "LEASE", "RETRY", "PATH"));
	int rows = h - 2, first = 0;
	if (t->lease_sel >= m->n_leases)
		t->lease_sel = m->n_leases - 1;
	if (t->lease_sel >= rows)
		first = t->lease_sel - rows + 1;
	for (int r = 0; r < rows && first + r < m->n_leases; r++) {
		const struct tm_lease *l = &m->leases[first + r];
		int sel = first + r == t->lease_sel;
		char jn[40], wn[64], lease[40];
		tx_fit(jn, sizeof jn, l->job, 12, U8, NULL);
		tx_fit(wn, sizeof wn, l->worker, 20, U8, NULL);
		if (l->expires_s <= 0)
			FMT(lease, "EXPIRED %s ago", tx_dur(d2, sizeof d2,
			    -l->expires_s));
		else
			FMT(lease, "%s left", tx_dur(d2, sizeof d2, l->expires_s));
		attr_t a = sel ? A(R_SEL) : A_NORMAL;
		if (sel) {
			attrset(a);
			mvhline(y + 2 + r, 0, ' ', W);
			attrset(A_NORMAL);
			glyphs(y + 2 + r, 0, a, G->sel);
		}
		int x = put(y + 2 + r, 2, W - 2, a, FMT(b, "%8" PRId64 " %-12s %-20s "
			    "%8s ", l->task_id, jn, wn, l->running_s < 0 ? "-" :
			    tx_dur(d1, sizeof d1, l->running_s))) + 2;
		x += put(y + 2 + r, x, W - x, l->expires_s <= 0 && !sel ?
			 A(R_ERR) | A_BOLD : a, FMT(b, "%-16s", lease));
		put(y + 2 + r, x, W - x, a, FMT(b, " %5d  %s", l->retries,
		    l->path));
	}
}

/* The queue view (n): the next tasks of the focused job (or all) in claim
 * order, or the tasks whose path holds the search, any status; one row
 * selected, Enter opens it. */
static void draw_queue_view(struct tui *t, int y, int h, double now)
{
	int W = COLS;
	char b[800], d[16], age[64];
	const struct tm_model *m = &t->model;
	const struct tm_job *fj = t->focus ? tm_job_by_id(m, t->focus) : NULL;
	char what[320];
	if (t->queue_search[0] || t->mode == TUI_QSEARCH)
		FMT(what, "tasks whose path holds \"%.200s\"%s", t->queue_search,
		    t->mode == TUI_QSEARCH ? "_" : "");
	else
		FMT(what, "next %d in claim order", m->n_queue);
	FMT(b, "Queue of %s: %s %s Up Down PgUp PgDn %s / search %s Enter "
	    "opens %s any other key closes%s", fj ? fj->name : "all jobs",
	    what, G->dot, G->dot, G->dot, G->dot,
	    age_note(t, &m->queue_age, now, age, sizeof age));
	rule(y, 0, W, b, A(R_TITLE));
	if (m->queue_age.error[0]) {
		put(y + 1, 2, W - 4, A(R_ERR), m->queue_age.error);
		return;
	}
	if (!m->queue_age.loaded_at || m->n_queue == 0) {
		put(y + 1, 2, W - 4, A(R_DIM), !m->queue_age.loaded_at ?
		    "loading..." : t->queue_search[0] ? "no task's path holds "
		    "that" : "nothing pending");
		return;
	}
	put(y + 1, 0, W, A(R_COLHDR), FMT(b, "  %9s %-3s %6s %-9s %4s %5s %6s "
	    "%-16s %-12s %s", "TASK", "CLS", "SCORE", "STATUS", "PRIO",
	    "DEPTH", "AGE", "METHOD/TYPE", "JOB", "PATH"));
	int rows = h - 2, first = 0;
	t->queue_page = rows;
	if (t->queue_sel >= m->n_queue)
		t->queue_sel = m->n_queue - 1;
	if (t->queue_sel >= rows)
		first = t->queue_sel - rows + 1;
	static const enum crt_role cr[] = {R_P0, R_P1, R_P2, R_P3};
	for (int r = 0; r < rows && first + r < m->n_queue; r++) {
		const struct tm_next *n = &m->queue[first + r];
		int sel = first + r == t->queue_sel, yy = y + 2 + r;
		int cls = n->cls >= 0 && n->cls < 4 ? n->cls : 3;
		attr_t a = sel ? A(R_SEL) : A_NORMAL;
		if (sel) {
			attrset(a);
			mvhline(yy, 0, ' ', W);
			attrset(A_NORMAL);
			glyphs(yy, 0, a, G->sel);
		}
		const struct tm_job *j = tm_job_by_id(m, n->job_id);
		char jn[40], mt[40], dp[8];
		tx_fit(jn, sizeof jn, j ? j->name : "?", 12, U8, NULL);
		FMT(mt, "%s%s%s", n->method, n->type[0] ? "/" : "", n->type);
		if (n->inlinks >= 0) /* importance: its links in */
			FMT(mt, "%lld in%s%s", n->inlinks, n->method[0] ? " " : "",
			    n->method);
		FMT(dp, "%d", n->depth);
		int x = put(yy, 2, W - 2, a, FMT(b, "%9" PRId64 " ", n->task_id))
			+ 2;
		x += put(yy, x, 3, sel ? a : A(cr[cls]), FMT(b, "P%d ", cls));
		put(yy, x, W - x, a, FMT(b, "%6.2f %-9s %4d %5s %6s %-16.16s "
		    "%-12s %s", n->score, n->status, n->job_priority,
		    n->depth >= 0 ? dp : "-", tx_dur(d, sizeof d, n->age_s),
		    mt, jn, n->path));
	}
}

/* Wrap text into the lines y.. (at most n) from column x, w wide;
 * returns the lines used. */
static int wrapped(int y, int x, int w, int n, attr_t a, const char *text)
{
	return wrap_span(y, x, w, 0, n, a, text, strlen(text), NULL);
}

/* The task view: one task whole, why it is where it is, its history, and
 * what can be done to it. */
static void draw_task(struct tui *t, int y, int h, double now)
{
	int W = COLS;
	char b[1200], d[16], d2[32], age[64];
	const struct tm_model *m = &t->model;
	const struct tm_card *c = &m->card;
	int ok = m->have_card && c->task_id == t->card_task;
	FMT(b, "Task %" PRId64 "%s%s %s b +10 %s d -10 %s R retry/requeue %s "
	    "any other key: back to the queue%s", t->card_task, ok ? " " : "",
	    ok ? c->path : "", G->dot, G->dot, G->dot, G->dot,
	    age_note(t, &m->card_age, now, age, sizeof age));
	rule(y, 0, W, b, A(R_TITLE));
	if (m->card_age.error[0]) {
		put(y + 1, 2, W - 4, A(R_ERR), m->card_age.error);
		return;
	}
	if (!ok) {
		put(y + 1, 2, W - 4, A(R_DIM), "loading...");
		return;
	}
	static const enum crt_role cr[] = {R_P0, R_P1, R_P2, R_P3};
	int cls = c->cls >= 0 && c->cls < 4 ? c->cls : 3;
	int yy = y + 1, end = y + h, lw = W - 4;
	char line[1200];
#define LINE(...) do { if (yy < end) put(yy++, 2, lw, A_NORMAL, \
	FMT(line, __VA_ARGS__)); } while (0)
	LINE("job       %s (mode %s, priority %d%s)", c->job, c->mode,
	     c->job_priority > 100 ? c->job_priority - 100 : c->job_priority,
	     c->job_priority > 100 ? ", paused" : "");
	LINE("status    %s", c->status);
	if (yy < end) {
		int x = put(yy, 2, lw, A_NORMAL, "score     ") + 2;
		x += put(yy, x, W - x, A(cr[cls]), FMT(b, "P%d", cls));
		FMT(b, " %.2f = mode score %.2f %s operator %+.2f%s", c->score,
		    c->base_score, c->adjustment < 0 ? "-" : "+",
		    fabs(c->adjustment),
		    c->base_score + c->adjustment != c->score ?
		    " (clamped to 0..100)" : "");
		put(yy++, x, W - x, A_NORMAL, b);
	}
	/* why it is where it is: the claim order's keys */
	LINE("why       job priority %d first, then score %.2f, then "
	     "discovery %s ago", c->job_priority > 100 ? c->job_priority - 100 :
	     c->job_priority, c->score, tx_dur(d, sizeof d, c->age_s));
	if (c->ahead_all >= 0 && c->job_priority > 100)
		LINE("place     held back (its job is paused)");
	else if (c->ahead_all >= 0)
		LINE("place     %s%lld task%s of every job before it, %s%lld "
		     "of its job", c->ahead_all >= c->position_limit ? "over " :
		     "", c->ahead_all, c->ahead_all == 1 ? "" : "s",
		     c->ahead_job >= c->position_limit ? "over " : "",
		     c->ahead_job);
	else if (c->ahead_all == -2)
		LINE("place     not counted yet");
	else
		LINE("place     not queued (%s)", c->status);
	char dp[16] = "unknown";
	if (c->depth >= 0)
		FMT(dp, "%d", c->depth);
	LINE("found     by %s%s%s, depth %s, type %s, method %s",
	     c->source_type, c->source_path[0] ? " from " : "",
	     c->source_path, dp, c->type[0] ? c->type : "-",
	     c->method[0] ? c->method : "-");
	if (c->ranked)
		LINE("ranked    discovery score %.2f, class P%d",
		     c->discovery_score, c->priority_class);
	LINE("history   %d of %d retries used, %d lease%s expired", c->retries,
	     c->max_retries, c->expiries, c->expiries == 1 ? "" : "s");
	if (c->last_error[0] && yy < end) {
		put(yy, 2, 10, A_NORMAL, "error");
		yy += wrapped(yy, 12, W - 14, end - yy > 3 ? 3 : end - yy,
			      A(R_ERR), c->last_error);
	}
	if (c->worker[0])
		LINE("lease     held by %s, %s", c->worker,
		     c->lease_left_s > 0 ? FMT(d2, "%s left",
		     tx_dur(d, sizeof d, c->lease_left_s)) :
		     FMT(d2, "EXPIRED %s ago", tx_dur(d, sizeof d,
		     -c->lease_left_s)));
	if (c->inputs[0] && yy < end) {
		put(yy, 2, 10, A_NORMAL, "inputs");
		yy += wrapped(yy, 12, W - 14, end - yy, A(R_DIM), c->inputs);
	}
#undef LINE
}

/* ---- bottom lines ---------------------------------------------------------------- */

/* The worker's rescore as a bar: "Rescore [####    ] 45% 4.5k/10k ...". */
static void draw_progress(struct tui *t, int y, double now)
{
	const struct tw_progress *p = &t->wprog;
	int W = COLS, x = 0;
	char b[400], bar[512], c1[16], c2[16], d[16];
	double f = p->total ? (double)p->done / p->total : 0;
	attrset(A(R_HEADER));
	mvhline(y, 0, ' ', W);
	attrset(A_NORMAL);
	x += put(y, x, W, A(R_HEADER) | A_BOLD, p->cancelling ? " Stopping " :
		 " Rescore ");
	int bw = W / 4;
	tx_bar(bar, sizeof bar, f, bw, 1, G);
	glyphs(y, x, A(R_BAR) | A_REVERSE, bar);
	x += bw;
	FMT(b, " %3.0f%% %s/%s", floor(f * 100), tx_count(c1, sizeof c1,
	    (long long)p->done), tx_count(c2, sizeof c2, (long long)p->total));
	x += put(y, x, W - x, A(R_HEADER), b);
	if (p->n_jobs > 1)
		x += put(y, x, W - x, A(R_HEADER), FMT(b, " %s job %d/%d", G->dot,
			 p->job_i, p->n_jobs));
	x += put(y, x, W - x, A(R_HEADER), FMT(b, " %s %s %s x stops %s %s",
		 G->dot, tx_dur(d, sizeof d, now - p->started), G->dot, G->dot,
		 p->what));
}

/* The mode chooser: every mode, the picked one highlighted, then what
 * Enter does. Narrower than all of it, the hint gets shorter, then the
 * modes lose their digits (1..6 still pick) and the hint (80 columns),
 * then only the picked mode is shown with the hint, "< 3 frontier >",
 * and last the job's name is cut. */
static void draw_modesel(struct tui *t, int y)
{
	const struct tm_job *j = tm_job_by_id(&t->model, t->mode_job);
	const char *name = j ? j->name : "?";
	int W = COLS, x = 0, u = G->utf8;
	char b[300], c[16], hint[4][96], one[64];
	tx_count(c, sizeof c, j ? tm_job_unfinished(j) : 0);
	FMT(hint[0], "  Enter: set, rescore %s tasks; Esc", c);
	FMT(hint[1], "  Enter: set (%s tasks); Esc", c);
	FMT(hint[2], "  Enter; Esc");
	hint[3][0] = '\0';
	FMT(one, " < %d %s >", t->mode_pick + 1, tui_modes[t->mode_pick]);
	int list_w[3] = {0, 0, tx_width(one, u)}; /* digits, none, one */
	for (int i = 0; i < TUI_N_MODES; i++) {
		int w = tx_width(tui_modes[i], u);
		list_w[0] += 1 + 2 + w;
		list_w[1] += 1 + w;
	}
	/* the first (modes, hint) pair in which the whole name fits */
	static const int levels[][2] = {{0, 0}, {0, 1}, {0, 2}, {1, 3}, {2, 2}};
	int last = (int)(sizeof levels / sizeof levels[0]) - 1, lv = 0;
	int fixed = tx_width(" Mode of :", u);
	for (; lv < last; lv++)
		if (fixed + tx_width(name, u) + list_w[levels[lv][0]] +
		    tx_width(hint[levels[lv][1]], u) <= W)
			break;
	int list = levels[lv][0];
	const char *h = hint[levels[lv][1]];
	int room = W - fixed - list_w[list] - tx_width(h, u);
	x += put(y, x, W, A_BOLD, " Mode of ");
	x += put(y, x, room > 4 ? room : 4, A_BOLD, name);
	x += put(y, x, W - x, A_BOLD, ":");
	if (list == 2)
		x += put(y, x, W - x, A(R_SEL) | A_BOLD, one);
	for (int i = 0; list < 2 && i < TUI_N_MODES && x < W; i++) {
		x++;
		x += put(y, x, W - x, i == t->mode_pick ? A(R_SEL) | A_BOLD :
			 A_NORMAL, list == 0 ? FMT(b, "%d %s", i + 1,
			 tui_modes[i]) : tui_modes[i]);
	}
	put(y, x, W - x, A(R_DIM), h);
}

static void draw_message(struct tui *t, int y, double now)
{
	int W = COLS;
	char b[600];
	switch (t->mode) {
	case TUI_FILTER:
		put_tail(y, 0, W, A_BOLD, FMT(b, " Filter: %s_", t->filter));
		return;
	case TUI_PROMPT:
		put_tail(y, 0, W, A_BOLD, FMT(b, " %s%s_", t->prompt, t->input));
		return;
	case TUI_CONFIRM: {
		/* too long, a question loses words before its answer keys,
		 * which stay in sight with what it asks */
		const char *keys = " [y/N]";
		size_t n = strlen(t->prompt), k = strlen(keys) - 1;
		if (n > k && strcmp(t->prompt + n - k, keys + 1) == 0) {
			int kw = (int)k + 2;
			FMT(b, " %.*s", (int)(n - k - 1), t->prompt);
			int x = put(y, 0, W - kw, A(R_DOWN), b);
			put(y, x, W - x, A(R_DOWN), FMT(b, "%s ", keys));
		} else {
			put(y, 0, W, A(R_DOWN), FMT(b, " %s ", t->prompt));
		}
		return;
	}
	case TUI_WEDIT:
		put_tail(y, 0, W, A_BOLD, FMT(b, " %s%s_", t->prompt, t->input));
		return;
	case TUI_MODESEL:
		draw_modesel(t, y);
		return;
	default:
		break;
	}
	double age = now - t->message_at;
	if ((t->wprog.kind == TW_MODE || t->wprog.kind == TW_APPLY) &&
	    !(t->message_err && age < 10)) {
		draw_progress(t, y, now);
		return;
	}
	if (t->message[0] && age < (t->message_err ? 30 : 10)) {
		put(y, 0, W, t->message_err ? A(R_ERR) : A(R_GOOD),
		    FMT(b, " %s", t->message));
		return;
	}
	const char *why = tui_why_readonly(t);
	if (why && t->connected)
		put(y, 0, W, A(R_DIM), FMT(b, " changes are off: %s", why));
}

/* What the open line (filter, prompt, value) lost or dropped, or a paste
 * a question ignored, on the key bar's line: in these modes the message
 * line is the line or the question itself, and a refusal must be seen
 * before Enter. 1 when it was drawn. */
static int draw_line_note(struct tui *t, int y)
{
	char b[sizeof t->line.note + 2];
	if (t->mode != TUI_FILTER && t->mode != TUI_PROMPT &&
	    t->mode != TUI_WEDIT && t->mode != TUI_CONFIRM &&
	    t->mode != TUI_MODESEL)
		return 0;
	if (!t->line.note[0])
		return 0;
	put(y, 0, COLS, t->line.note_err ? A(R_ERR) : A(R_GOOD),
	    FMT(b, " %s", t->line.note));
	return 1;
}

static void draw_keybar(struct tui *t, int y)
{
	int W = COLS, n, x = 0;
	const struct tui_key *k = tui_keys(&n);
	const char *why = tui_why_readonly(t);
	attrset(A_NORMAL);
	enum tui_mode m = t->mode == TUI_WEIGHTS || t->mode == TUI_WEDIT ||
			  (t->mode == TUI_CONFIRM && t->back_mode == TUI_WEIGHTS) ?
			  TUI_WEIGHTS : TUI_NORMAL;
	for (int i = 0; i < n && x < W; i++) {
		if (k[i].mode != m || !k[i].bar)
			continue;
		char lab[16];
		snprintf(lab, sizeof lab, "%s", k[i].label);
		char *sp = strchr(lab, ' ');
		if (sp && strcmp(lab, "Space") != 0)
			*sp = '\0';
		int refused = k[i].changes && why;
		int lw = tx_width(lab, U8), bw = tx_width(k[i].bar, U8);
		if (x + lw + bw + 1 > W)
			break;
		x += put(y, x, lw, refused ? A(R_DIM) : A(R_KEY), lab);
		x += put(y, x, bw + 1, refused ? A(R_DIM) : A_NORMAL, k[i].bar);
		x++;
	}
}

/* ---- the whole screen ------------------------------------------------------------- */

/* text centred on line y, when it fits and y is on the screen. */
static int centred(int y, attr_t a, const char *text)
{
	int n = (int)strlen(text);
	if (n > COLS || y < 0 || y >= LINES)
		return 0;
	put(y, (COLS - n) / 2, n, a, text);
	return 1;
}

/* What the console needs, in the longest words that fit: at 20x5,
 * "crawltop needs 80x24, have 20x5" was cut to "crawltop needs 80x2". */
static void too_small(void)
{
	char have[64], both[96];
	FMT(have, "have %dx%d", COLS, LINES);
	FMT(both, "crawltop needs 80x24, %s", have);
	int y = LINES > 2 ? LINES / 2 - 1 : 0;
	if (!centred(y, A_BOLD, both)) {
		centred(y, A_BOLD, "needs 80x24");
		centred(++y, A_BOLD, have);
	}
	if (!centred(y + 1, A_NORMAL, "enlarge the terminal or press q"))
		centred(y + 1, A_NORMAL, "or press q");
}

void view_draw(struct tui *t, double now)
{
	U8 = t->utf8;
	G = tx_glyphs_get(U8);
	t->cols = COLS;
	t->lines = LINES;
	erase();
	if (COLS < TUI_MIN_COLS || LINES < TUI_MIN_LINES) {
		too_small();
		refresh();
		return;
	}
	int H = LINES;
	draw_header(t, now);
	int top = 2, avail = H - 4;
	if (t->mode == TUI_HELP) {
		draw_help(t, top, avail);
	} else if (t->mode == TUI_LOG) {
		draw_log(t, top, avail);
	} else if (t->mode == TUI_LEASES ||
		   (t->mode == TUI_CONFIRM && t->back_mode == TUI_LEASES)) {
		draw_leases(t, top, avail, now);
	} else if (t->mode == TUI_AUDIT || t->mode == TUI_AFILTER) {
		draw_audit_view(t, top, avail, now);
	} else if (t->mode == TUI_AROW) {
		draw_arow(t, top, avail, now);
	} else if (t->mode == TUI_QUEUE || t->mode == TUI_QSEARCH) {
		draw_queue_view(t, top, avail, now);
	} else if (t->mode == TUI_TASK ||
		   (t->mode == TUI_CONFIRM && t->back_mode == TUI_TASK)) {
		draw_task(t, top, avail, now);
	} else if (t->mode == TUI_WEIGHTS || t->mode == TUI_WEDIT ||
		   (t->mode == TUI_CONFIRM && t->back_mode == TUI_WEIGHTS)) {
		draw_weights(t, top, avail, now);
	} else {
		int extra = avail - 20;
		int jobs_extra = t->n_view - 5 > 0 ? t->n_view - 5 : 0;
		if (jobs_extra > (extra + 1) / 2)
			jobs_extra = (extra + 1) / 2;
		int jobs_h = 7 + jobs_extra, rest = avail - jobs_h;
		t->next_limit = 6;
		draw_jobs(t, top, jobs_h, now);
		int y = top + jobs_h;
		if (t->prefs.show_audit) {
			draw_audit(t, y, rest, now);
		} else {
			int audit_h = rest >= 26 ? rest - 19 : 0;
			/* the audit panel no taller than its rows need (at
			 * least 4 lines): the rest goes to next up */
			int need = t->model.n_audit + 2 > 4 ?
				   t->model.n_audit + 2 : 4;
			if (audit_h > need)
				audit_h = need;
			int lower_h = rest - 6 - audit_h;
			draw_queue(t, y, 6, now);
			/* the heatmap as wide as its type columns need (at
			 * most 9/20 of the screen), next up the rest */
			int hw = heat_width(t);
			if (hw > COLS * 9 / 20)
				hw = COLS * 9 / 20;
			draw_heatmap(t, y + 6, 0, hw, lower_h, now);
			draw_next(t, y + 6, hw, COLS - hw, lower_h, now);
			t->next_limit = lower_h - 1;
			if (audit_h)
				draw_audit(t, y + 6 + lower_h, audit_h, now);
		}
	}
	draw_message(t, H - 2, now);
	if (draw_line_note(t, H - 1)) {
		/* drawn */
	} else if (t->mode == TUI_MODESEL) {
		/* before Enter: what the picked mode does to the crawlers
		 * working on the job now */
		char b[300];
		put(H - 1, 0, COLS, A(R_GOOD), FMT(b, " %s",
		    ct_store_mode_effect(tui_modes[t->mode_pick])));
	} else {
		draw_keybar(t, H - 1);
	}
	if (!t->connected && (t->ever_connected || t->down_since)) {
		char b[600], d[16], e[16];
		double left = t->reconnect_at - now;
		FMT(b, " DISCONNECTED %s retrying in %s (attempt %d) %s last data "
		    "%s old %s %s", G->dot, tx_dur(d, sizeof d, left > 0 ? left : 0),
		    t->reconnect_tries + 1, G->dot,
		    t->last_ok ? tx_dur(e, sizeof e, now - t->last_ok) : "-",
		    G->dot, ct_aconn_last_error(t->ac));
		attrset(A(R_DOWN));
		mvhline(top, 0, ' ', COLS);
		attrset(A_NORMAL);
		put(top, 0, COLS, A(R_DOWN), b);
	}
	refresh();
}
