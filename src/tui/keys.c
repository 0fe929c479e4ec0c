/* keys.c: the one key table (app.h, struct tui_key) and its handlers.
 *
 * Each row binds keys in one mode to a handler and carries the help text:
 * dispatch, the help screen ('?') and the key bar are all generated from
 * this table, so a key cannot be bound without being documented. Handlers
 * change the state in struct tui and return TUI_* flags; they never draw
 * and never call curses (crt.c maps the terminal's key codes onto TK_*). */
#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "config_keys.h"
#include "urlpath.h"
#include "crawltop/number.h"
#include "text.h"

#define K_ANY  (-1) /* any key not bound otherwise in the mode */
#define K_TEXT (-2) /* a printable character */

/* ---- shared helpers ---------------------------------------------------- */

void tui_view_jobs(struct tui *t)
{
	t->n_view = tm_jobs_view(&t->model, t->filter, t->prefs.sort_col,
				 t->prefs.sort_desc, t->view_idx);
	for (int i = 0; i < t->n_view; i++)
		if (t->model.jobs[t->view_idx[i]].id == t->sel_job)
			return;
	t->sel_job = t->n_view ? t->model.jobs[t->view_idx[0]].id : 0;
	t->scroll = 0;
}

const struct tm_job *tui_selected(const struct tui *t)
{
	return t->sel_job ? tm_job_by_id(&t->model, t->sel_job) : NULL;
}

const char *tui_why_readonly(const struct tui *t)
{
	if (t->opts.readonly)
		return "read-only mode (-r)";
	if (!t->connected)
		return "not connected";
	if (!t->model.can_change)
		return t->model.cannot_why[0] ? t->model.cannot_why :
		       "this role may not change jobs";
	return NULL;
}

/* Index of the selected job in the shown table, or -1. */
static int sel_index(const struct tui *t)
{
	for (int i = 0; i < t->n_view; i++)
		if (t->model.jobs[t->view_idx[i]].id == t->sel_job)
			return i;
	return -1;
}

/* Select row i of the shown table (clamped) and scroll it into view. */
static int select_row(struct tui *t, int i)
{
	if (t->n_view == 0)
		return TUI_REDRAW;
	if (i < 0)
		i = 0;
	if (i >= t->n_view)
		i = t->n_view - 1;
	t->sel_job = t->model.jobs[t->view_idx[i]].id;
	int h = t->rows_visible > 0 ? t->rows_visible : 1;
	if (i < t->scroll)
		t->scroll = i;
	if (i >= t->scroll + h)
		t->scroll = i - h + 1;
	return TUI_REDRAW;
}

/* Back to the mode a prompt, a confirmation or the help came from. */
static void leave(struct tui *t)
{
	t->mode = t->back_mode;
	t->back_mode = TUI_NORMAL;
}

/* ---- normal mode ------------------------------------------------------- */

/* Quitting loses the weights draft's edits and stops a running rescore
 * half done: then q and Ctrl-C ask first, and the answer y quits with
 * status (0 for q, 130 for Ctrl-C). Returns TUI_QUIT when there is
 * nothing to lose. */
static int quit_ask(struct tui *t, int status)
{
	enum tw_kind k = t->work ? tw_running(t->work) : TW_NONE;
	int rescore = k == TW_MODE || k == TW_APPLY;
	t->quit_status = status;
	if (t->w.n_edits == 0 && !rescore)
		return TUI_QUIT;
	if (rescore) {
		char lost[64] = "";
		if (t->w.n_edits)
			snprintf(lost, sizeof lost, ", losing the draft's "
				 "%d edit%s", t->w.n_edits,
				 t->w.n_edits == 1 ? "" : "s");
		snprintf(t->prompt, sizeof t->prompt, "%s: %zu/%zu done. Quit "
			 "and stop it there%s? [y/N]", t->wprog.what,
			 t->wprog.done, t->wprog.total, lost);
	} else {
		snprintf(t->prompt, sizeof t->prompt, "The weights draft has "
			 "%d edit%s not applied (w shows them): quit anyway? y "
			 "quits, any other key stays", t->w.n_edits,
			 t->w.n_edits == 1 ? "" : "s");
	}
	t->pending = TUI_ACT_QUIT;
	t->back_mode = t->mode == TUI_WEIGHTS ? TUI_WEIGHTS : TUI_NORMAL;
	t->mode = TUI_CONFIRM;
	return TUI_REDRAW;
}

/* q (and Ctrl-C) in the jobs view. */
static int k_quit(struct tui *t, int key)
{
	return quit_ask(t, key == 'q' ? 0 : 128 + SIGINT);
}

/* Open the help, scrolled to the top. */
static int k_help(struct tui *t, int key)
{
	t->back_mode = t->mode == TUI_WEIGHTS ? TUI_WEIGHTS : TUI_NORMAL;
	t->mode = TUI_HELP;
	t->help_scroll = 0;
	return TUI_REDRAW;
}

/* Move the selection by one row, a page, or to either end. */
static int k_move(struct tui *t, int key)
{
	int i = sel_index(t), page = t->rows_visible > 1 ? t->rows_visible - 1 : 1;
	switch (key) {
	case TK_UP: case 'k': i--; break;
	case TK_DOWN: case 'j': i++; break;
	case TK_PGUP: i -= page; break;
	case TK_PGDN: i += page; break;
	case TK_HOME: case 'g': i = 0; break;
	case TK_END: case 'G': i = t->n_view - 1; break;
	default: break;
	}
	return select_row(t, i);
}

/* Focus every panel on the selected job; refresh for it. */
static int k_focus(struct tui *t, int key)
{
	const struct tm_job *j = tui_selected(t);
	if (!j) {
		tui_msg(t, 1, "no job selected");
		return TUI_REDRAW;
	}
	t->focus = j->id;
	tui_msg(t, 0, "every panel shows job %s (Esc: all jobs)", j->name);
	return TUI_REDRAW | TUI_REFRESH;
}

/* Back to all jobs; with no focus, clear the filter. */
static int k_escape(struct tui *t, int key)
{
	if (t->focus) {
		t->focus = 0;
		tui_msg(t, 0, "every panel shows all jobs");
		return TUI_REDRAW | TUI_REFRESH;
	}
	if (t->filter[0]) {
		t->filter[0] = '\0';
		tui_view_jobs(t);
		tui_msg(t, 0, "filter cleared");
	}
	return TUI_REDRAW;
}

/* Start typing the jobs filter. */
static int k_filter(struct tui *t, int key)
{
	t->mode = TUI_FILTER;
	return TUI_REDRAW;
}

/* Sort by the previous (<) or next (>) column; saved. */
static int k_sort(struct tui *t, int key)
{
	int c = t->prefs.sort_col + (key == '<' ? -1 : 1);
	t->prefs.sort_col = (c + TM_COL_N) % TM_COL_N;
	tui_view_jobs(t);
	return TUI_REDRAW | TUI_SAVE;
}

/* Invert the sort order; saved. */
static int k_invert(struct tui *t, int key)
{
	t->prefs.sort_desc = !t->prefs.sort_desc;
	tui_view_jobs(t);
	return TUI_REDRAW | TUI_SAVE;
}

/* Pause or resume the automatic refresh. */
static int k_pause(struct tui *t, int key)
{
	t->paused = !t->paused;
	tui_msg(t, 0, t->paused ? "refresh paused (space: resume, r: once)" :
		"refresh resumed");
	return TUI_REDRAW | (t->paused ? 0 : TUI_REFRESH);
}

/* Ask the loop for a refresh now (also while paused). */
static int k_refresh(struct tui *t, int key)
{
	return TUI_REDRAW | TUI_REFRESH;
}

static const double interval_steps[] = {0.5, 1, 2, 3, 5, 10, 15, 30, 60,
					120, 300, 600, 1800, 3600};
#define N_STEPS (sizeof interval_steps / sizeof interval_steps[0])

/* Step the interval up (+) or down (-) the list, never below the floor. */
static int k_interval(struct tui *t, int key)
{
	double cur = t->prefs.interval, next = cur;
	if (key == '-') {
		for (size_t i = N_STEPS; i-- > 0;)
			if (interval_steps[i] < cur - 1e-9) {
				next = interval_steps[i];
				break;
			}
	} else {
		for (size_t i = 0; i < N_STEPS; i++)
			if (interval_steps[i] > cur + 1e-9) {
				next = interval_steps[i];
				break;
			}
	}
	if (next == cur) {
		tui_msg(t, 0, "the interval is already at its %s (%g s)",
			key == '-' ? "floor" : "ceiling", cur);
		return TUI_REDRAW;
	}
	tf_set_interval(t, next, tui_now());
	tui_msg(t, 0, "refresh every %g s", next);
	return TUI_REDRAW | TUI_SAVE;
}

/* Swap the queue panels and the audit panel; saved. */
static int k_audit(struct tui *t, int key)
{
	t->prefs.show_audit = !t->prefs.show_audit;
	return TUI_REDRAW | TUI_SAVE;
}

/* Next theme (colour, monochrome); saved. */
static int k_theme(struct tui *t, int key)
{
	t->prefs.theme = (t->prefs.theme + 1) % TUI_THEME_N;
	tui_msg(t, 0, "theme %s", t->prefs.theme == TUI_THEME_MONO ?
		"monochrome" : "colour");
	return TUI_REDRAW | TUI_SAVE;
}

/* The selected job for a change, or NULL with the message set. */
static const struct tm_job *change_target(struct tui *t)
{
	const struct tm_job *j = tui_selected(t);
	if (!j)
		tui_msg(t, 1, "no job selected");
	return j;
}

/* Send priority -1 (], F7) or +1 ([, F8) for the selected job; the
 * range 1..10 is checked first. */
static int k_priority(struct tui *t, int key)
{
	const struct tm_job *j = change_target(t);
	if (!j)
		return TUI_REDRAW;
	int up = key == ']' || key == TK_F7;
	int p = j->priority + (up ? -1 : 1);
	if (p < 1 || p > 10) {
		tui_msg(t, 1, "job %s is at priority %d already (1..10, 1 the "
			"most urgent)", j->name, j->priority);
		return TUI_REDRAW;
	}
	tf_act(t, TUI_ACT_PRIORITY, j->id, p, NULL, 0);
	return TUI_REDRAW;
}

/* Pause a pending, running, retrying or completed job, resume a paused
 * one. The status is the shown one (crawltop.job_status_shown): a job
 * shown retrying or completed is stored pending or running and may still
 * get tasks, so the database decides (it refuses a stored completed one,
 * with its reason). */
static int k_job_pause(struct tui *t, int key)
{
	const struct tm_job *j = change_target(t);
	if (!j)
		return TUI_REDRAW;
	if (strcmp(j->status, "paused") == 0)
		tf_act(t, TUI_ACT_RESUME, j->id, 0, NULL, 0);
	else if (strcmp(j->status, "pending") == 0 ||
		 strcmp(j->status, "running") == 0 ||
		 strcmp(j->status, "retrying") == 0 ||
		 strcmp(j->status, "completed") == 0)
		tf_act(t, TUI_ACT_PAUSE, j->id, 0, NULL, 0);
	else
		tui_msg(t, 1, "job %s is %s: it cannot be paused or resumed",
			j->name, j->status);
	return TUI_REDRAW;
}

/* Ask before cancelling: the question names the job and its pending count.
 * A job shown completed may still get tasks (see k_job_pause): cancelling
 * it is the database's call. */
static int k_cancel(struct tui *t, int key)
{
	const struct tm_job *j = change_target(t);
	if (!j)
		return TUI_REDRAW;
	if (strcmp(j->status, "cancelled") == 0) {
		tui_msg(t, 1, "job %s is %s already", j->name, j->status);
		return TUI_REDRAW;
	}
	t->pending = TUI_ACT_CANCEL;
	t->pending_job = j->id;
	snprintf(t->prompt, sizeof t->prompt,
		 "Cancel job %.64s (id %" PRId64 ")? Its %lld pending tasks "
		 "become skipped. [y/N]", j->name, j->id, j->pending);
	t->mode = TUI_CONFIRM;
	return TUI_REDRAW;
}

/* Prompt for "PREFIX [POINTS]" to boost (b) or demote (d). */
static int k_adjust(struct tui *t, int key)
{
	const struct tm_job *j = change_target(t);
	if (!j)
		return TUI_REDRAW;
	t->pending = key == 'b' ? TUI_ACT_BOOST : TUI_ACT_DEMOTE;
	t->pending_job = j->id;
	const char *why = tui_why_readonly(t);
	if (why)
		snprintf(t->prompt, sizeof t->prompt, "%s %.64s: refused now "
			 "(%.60s); path prefix or pattern [points]: ", key == 'b' ?
			 "Boost" : "Demote", j->name, why);
	else
		snprintf(t->prompt, sizeof t->prompt, "%s pending tasks of "
			 "%.64s, path prefix or pattern (*) [points, default 10]: ",
			 key == 'b' ? "Boost" : "Demote", j->name);
	snprintf(t->input, sizeof t->input, "/");
	t->mode = TUI_PROMPT;
	return TUI_REDRAW;
}

/* ---- help mode --------------------------------------------------------- */

static int k_help_scroll(struct tui *t, int key)
{
	if (key == TK_UP || key == 'k') {
		if (t->help_scroll > 0)
			t->help_scroll--;
	} else if (key == TK_DOWN || key == 'j') {
		t->help_scroll++;
	} else if (key == TK_PGDN || key == ' ') {
		t->help_scroll += 10;
	} else if (key == TK_PGUP) {
		t->help_scroll = t->help_scroll > 10 ? t->help_scroll - 10 : 0;
	}
	return TUI_REDRAW;
}

/* Close the help. */
static int k_help_close(struct tui *t, int key)
{
	leave(t);
	return TUI_REDRAW;
}

/* ---- line editing (filter and prompt) -------------------------------- */

/* Append a printable ASCII or UTF-8 byte sequence of key to s. */
static void append_key(char *s, size_t len, int key)
{
	size_t l = strlen(s);
	char u[5] = {0};
	if (key < 0x80) {
		u[0] = (char)key;
	} else if (key < 0x800) {
		u[0] = (char)(0xc0 | key >> 6);
		u[1] = (char)(0x80 | (key & 0x3f));
	} else if (key < 0x10000) {
		u[0] = (char)(0xe0 | key >> 12);
		u[1] = (char)(0x80 | (key >> 6 & 0x3f));
		u[2] = (char)(0x80 | (key & 0x3f));
	} else {
		u[0] = (char)(0xf0 | key >> 18);
		u[1] = (char)(0x80 | (key >> 12 & 0x3f));
		u[2] = (char)(0x80 | (key >> 6 & 0x3f));
		u[3] = (char)(0x80 | (key & 0x3f));
	}
	if (l + strlen(u) < len)
		memcpy(s + l, u, strlen(u) + 1);
}

/* Remove the last UTF-8 character of s. */
static void erase_char(char *s)
{
	size_t l = strlen(s);
	while (l > 0 && ((unsigned char)s[l - 1] & 0xc0) == 0x80)
		l--;
	if (l > 0)
		l--;
	s[l] = '\0';
}

/* Edit the filter; the table follows each key. */
static int k_filter_text(struct tui *t, int key)
{
	if (key == TK_BACKSPACE || key == TK_DEL || key == 127 || key == 8)
		erase_char(t->filter);
	else
		append_key(t->filter, sizeof t->filter, key);
	tui_view_jobs(t);
	return TUI_REDRAW;
}

/* Leave the filter: Enter keeps it, Esc clears it. */
static int k_filter_done(struct tui *t, int key)
{
	t->mode = TUI_NORMAL;
	if (key == TK_ESC || key == TK_CTRL('c')) {
		t->filter[0] = '\0';
		tui_view_jobs(t);
	}
	return TUI_REDRAW;
}

/* Edit the prompt's text. */
static int k_prompt_text(struct tui *t, int key)
{
	if (key == TK_BACKSPACE || key == TK_DEL || key == 127 || key == 8)
		erase_char(t->input);
	else
		append_key(t->input, sizeof t->input, key);
	return TUI_REDRAW;
}

/* Abandon the prompt or the confirmation: nothing is sent. */
static int k_prompt_abort(struct tui *t, int key)
{
	leave(t);
	t->pending = TUI_ACT_NONE;
	tui_msg(t, 0, "nothing changed");
	return TUI_REDRAW;
}

/* Check "PREFIX [POINTS]" or "PATTERN [POINTS]" (a text with '*': '*'
 * any characters) and send the boost or demotion. */
static int k_prompt_submit(struct tui *t, int key)
{
	char prefix[256], extra[64] = "", more[2];
	double points = 10;
	int n = sscanf(t->input, "%255s %63s %1s", prefix, extra, more);
	leave(t);
	if (n < 1 || (prefix[0] != '/' && prefix[0] != '*')) {
		tui_msg(t, 1, "path prefix '%.100s' refused: it must start "
			"with '/' (a pattern with '/' or '*')", n < 1 ? "" : prefix);
		return TUI_REDRAW;
	}
	if (n == 3) {
		tui_msg(t, 1, "'%.100s' refused: give a path prefix or pattern "
			"and at most a number of points", t->input);
		return TUI_REDRAW;
	}
	/* spelt as enqueue spells paths: "/caf%C3%A9" finds "/café" */
	char norm[URLPATH_MAX_BYTES + 1], bad[160];
	if (urlpath_match(prefix, norm, sizeof norm, bad, sizeof bad) != 0) {
		tui_msg(t, 1, "'%.100s' refused: %s", prefix, bad);
		return TUI_REDRAW;
	}
	if (n == 2) {
		char *end;
		points = strtod(extra, &end);
		if (!ct_number_text(extra, true) || *end || !isfinite(points) ||
		    points <= 0 || points > 100) {
			tui_msg(t, 1, "points '%s' refused: a number in 0..100 "
				"(above 0)", extra);
			return TUI_REDRAW;
		}
	}
	const char *why = tui_why_readonly(t);
	if (why) {
		tui_msg(t, 1, "cannot change anything: %s", why);
		return TUI_REDRAW;
	}
	tf_act(t, t->pending, t->pending_job, 0, norm,
	       t->pending == TUI_ACT_DEMOTE ? -points : points);
	t->pending = TUI_ACT_NONE;
	return TUI_REDRAW;
}

/* Confirmed: send the change (rights checked again). */
static int k_confirm_yes(struct tui *t, int key)
{
	enum tui_action a = t->pending;
	leave(t);
	t->pending = TUI_ACT_NONE;
	if (a == TUI_ACT_QUIT)
		return TUI_QUIT;
	const char *why = tui_why_readonly(t);
	if (why) {
		tui_msg(t, 1, "cannot change anything: %s", why);
		return TUI_REDRAW;
	}
	if (a == TUI_ACT_APPLY || a == TUI_ACT_UNDO)
		return tws_apply(t, a == TUI_ACT_UNDO);
	tf_act(t, a, t->pending_job, 0, NULL, 0);
	return TUI_REDRAW;
}

/* ---- set mode ---------------------------------------------------------- */

/* Choose the selected job's mode: the chooser starts at the current one.
 * A job shown completed may still get tasks (see k_job_pause): its mode is
 * the database's call. */
static int k_mode(struct tui *t, int key)
{
	const struct tm_job *j = change_target(t);
	if (!j)
		return TUI_REDRAW;
	if (!strcmp(j->status, "cancelled")) {
		tui_msg(t, 1, "job %s is %s: its mode cannot change", j->name,
			j->status);
		return TUI_REDRAW;
	}
	t->mode_job = j->id;
	t->mode_pick = 0;
	for (int i = 0; i < TUI_N_MODES; i++)
		if (!strcmp(tui_modes[i], j->mode))
			t->mode_pick = i;
	t->back_mode = TUI_NORMAL;
	t->mode = TUI_MODESEL;
	return TUI_REDRAW;
}

/* Left, Right, Tab: the previous or next mode; 1..6: that one. */
static int k_mode_pick(struct tui *t, int key)
{
	if (key >= '1' && key < '1' + TUI_N_MODES)
		t->mode_pick = key - '1';
	else if (key == TK_LEFT || key == TK_BTAB)
		t->mode_pick = (t->mode_pick + TUI_N_MODES - 1) % TUI_N_MODES;
	else if (key == TK_RIGHT || key == TK_TAB || key == ' ')
		t->mode_pick = (t->mode_pick + 1) % TUI_N_MODES;
	return TUI_REDRAW;
}

/* Set the chosen mode and rescore on the worker thread. */
static int k_mode_set(struct tui *t, int key)
{
	leave(t);
	const char *why = tui_why_readonly(t);
	if (why) {
		tui_msg(t, 1, "cannot change anything: %s", why);
		return TUI_REDRAW;
	}
	return tui_set_mode(t, t->mode_job, tui_modes[t->mode_pick]);
}

/* Stop the rescore or the preview the worker runs. */
static int k_stop(struct tui *t, int key)
{
	return tui_work_cancel(t);
}

/* ---- the weights panel ------------------------------------------------- */

/* Open the panel. */
static int k_weights(struct tui *t, int key)
{
	t->mode = TUI_WEIGHTS;
	if (!t->sets.version)
		tui_msg(t, 1, "the settings are not loaded yet%s%s",
			t->sets.error[0] ? ": " : "", t->sets.error);
	return TUI_REDRAW;
}

/* Close it; the draft stays for later. */
static int k_w_close(struct tui *t, int key)
{
	t->mode = TUI_NORMAL;
	if (t->w.n_edits)
		tui_msg(t, 0, "%d edit%s kept in the draft (w: back to it)",
			t->w.n_edits, t->w.n_edits == 1 ? "" : "s");
	return TUI_REDRAW;
}

/* Move among the value rows (headings are skipped). */
static int k_w_move(struct tui *t, int key)
{
	struct tui_weights *w = &t->w;
	int page = w->rows_visible > 2 ? w->rows_visible - 1 : 1;
	int i = w->sel, dir = 1;
	switch (key) {
	case TK_UP: case 'k': i--; dir = -1; break;
	case TK_DOWN: case 'j': i++; break;
	case TK_PGUP: i -= page; dir = -1; break;
	case TK_PGDN: i += page; break;
	case TK_HOME: case 'g': i = 0; break;
	case TK_END: case 'G': i = w->n_rows - 1; dir = -1; break;
	default: break;
	}
	if (w->n_rows == 0)
		return TUI_REDRAW;
	if (i < 0)
		i = 0;
	if (i >= w->n_rows)
		i = w->n_rows - 1;
	for (int tries = 0; tries < 2; tries++, dir = -dir) {
		int k = i;
		while (k >= 0 && k < w->n_rows && w->rows[k].kind == WR_HEAD)
			k += dir;
		if (k >= 0 && k < w->n_rows) {
			w->sel = k;
			break;
		}
	}
	return TUI_REDRAW;
}

/* A value was refused: the message line says so, and the panel keeps
 * the whole rule next to the row (the line may be too short for it). */
static void edit_refused(struct tui *t, int row, const char *why)
{
	tui_msg(t, 1, "refused: %s (nothing changed)", why);
	tx_copy(t->w.refused, sizeof t->w.refused, why);
	t->w.refused_row = row;
}

/* A message for an edit that went through. */
static void edit_done(struct tui *t, int row)
{
	t->w.refused[0] = '\0';
	char p[96], v[256];
	const struct tui_wrow *r = &t->w.rows[row];
	tws_path(r, p, sizeof p);
	tws_value(&t->w.draft, r, v, sizeof v);
	if (tws_edited(t, r))
		tui_msg(t, 0, "%s = %s in the draft (%d edit%s; A applies)", p, v,
			t->w.n_edits, t->w.n_edits == 1 ? "" : "s");
	else
		tui_msg(t, 0, "%s = %s, as in v%d", p, v, t->sets.version);
}

/* Edit the selected value: a prompt, or a toggle for true/false. */
static int k_w_edit(struct tui *t, int key)
{
	struct tui_weights *w = &t->w;
	char why[600], p[96];
	if (w->sel < 0 || w->sel >= w->n_rows || w->rows[w->sel].kind == WR_HEAD)
		return TUI_REDRAW;
	const struct tui_wrow *r = &w->rows[w->sel];
	if (r->kind == WR_KEY && ct_keys[r->key].type == CT_KEY_BOOL) {
		char v[16];
		tws_value(&w->draft, r, v, sizeof v);
		if (tws_edit(t, w->sel, strcmp(v, "true") ? "true" : "false",
			     why, sizeof why) != 0)
			edit_refused(t, w->sel, why);
		else
			edit_done(t, w->sel);
		return TUI_REDRAW;
	}
	tws_value(&w->draft, r, t->input, sizeof t->input);
	snprintf(t->prompt, sizeof t->prompt, "%s = ", tws_path(r, p, sizeof p));
	t->back_mode = TUI_WEIGHTS;
	t->mode = TUI_WEDIT;
	return TUI_REDRAW;
}

/* Check the typed value; refused values leave the draft as it was. */
static int k_wedit_submit(struct tui *t, int key)
{
	char why[600];
	leave(t);
	if (tws_edit(t, t->w.sel, t->input, why, sizeof why) != 0)
		edit_refused(t, t->w.sel, why);
	else
		edit_done(t, t->w.sel);
	return TUI_REDRAW;
}

static int k_wedit_abort(struct tui *t, int key)
{
	leave(t);
	tui_msg(t, 0, "edit abandoned");
	return TUI_REDRAW;
}

/* The built-in default of the selected row, as an edit. */
static int k_w_default(struct tui *t, int key)
{
	char why[600];
	if (tws_default(t, t->w.sel, why, sizeof why) != 0)
		edit_refused(t, t->w.sel, why);
	else
		edit_done(t, t->w.sel);
	return TUI_REDRAW;
}

/* Clear the selected row's edit (c) or every edit (C). */
static int k_w_clear(struct tui *t, int key)
{
	if (key == 'C') {
		tws_revert_all(t);
		tui_msg(t, 0, "every edit cleared: the draft is v%d",
			t->sets.version);
	} else {
		tws_revert(t, t->w.sel);
		edit_done(t, t->w.sel);
	}
	return TUI_REDRAW;
}

/* Make the discovery weights sum to 1. */
static int k_w_normalise(struct tui *t, int key)
{
	char why[600];
	if (tws_normalise(t, why, sizeof why) != 0)
		tui_msg(t, 1, "%s", why);
	else
		tui_msg(t, 0, "discovery weights scaled to sum to 1 (the ones "
			"you edited kept their values)");
	return TUI_REDRAW;
}

/* Run the preview again (e.g. on another job). */
static int k_w_preview(struct tui *t, int key)
{
	if (!t->w.n_edits)
		tui_msg(t, 0, "no edits: the preview compares the draft with v%d",
			t->sets.version);
	else if (t->w.problem[0])
		tui_msg(t, 1, "no preview: %s", t->w.problem);
	else
		tws_preview(t);
	return TUI_REDRAW;
}

/* Ask before an apply (A) or an undo (U). */
static int k_w_apply(struct tui *t, int key)
{
	int undo = key == 'U';
	char q[sizeof t->prompt + 200];
	if (tws_confirm_text(t, undo, q, sizeof q) != 0) {
		tui_msg(t, 1, "%s", q);
		return TUI_REDRAW;
	}
	tx_copy(t->prompt, sizeof t->prompt, q);
	t->pending = undo ? TUI_ACT_UNDO : TUI_ACT_APPLY;
	t->back_mode = TUI_WEIGHTS;
	t->mode = TUI_CONFIRM;
	return TUI_REDRAW;
}

/* ---- the table --------------------------------------------------------- */

static const struct tui_key key_table[] = {
	{TUI_NORMAL, {'q', TK_CTRL('c')}, "q", "Quit",
	 "quit (also Ctrl-C)", 0, k_quit},
	{TUI_NORMAL, {'?', TK_F1, 'h'}, "? F1 h", "Help",
	 "this help", 0, k_help},
	{TUI_NORMAL, {TK_UP, 'k'}, "Up k", NULL,
	 "select the job above", 0, k_move},
	{TUI_NORMAL, {TK_DOWN, 'j'}, "Down j", NULL,
	 "select the job below", 0, k_move},
	{TUI_NORMAL, {TK_PGUP, TK_PGDN}, "PgUp PgDn", NULL,
	 "a page of jobs up or down", 0, k_move},
	{TUI_NORMAL, {TK_HOME, 'g', TK_END, 'G'}, "Home g End G", NULL,
	 "first or last job", 0, k_move},
	{TUI_NORMAL, {TK_ENTER}, "Enter", "Focus",
	 "focus every panel on the selected job", 0, k_focus},
	{TUI_NORMAL, {TK_ESC}, "Esc", NULL,
	 "back to all jobs (or clear the filter)", 0, k_escape},
	{TUI_NORMAL, {'/'}, "/", "Filter",
	 "filter jobs by name, domain, mode or status", 0, k_filter},
	{TUI_NORMAL, {'<', '>'}, "< >", NULL,
	 "sort jobs by the previous or next column", 0, k_sort},
	{TUI_NORMAL, {'i'}, "i", NULL,
	 "invert the sort order", 0, k_invert},
	{TUI_NORMAL, {' '}, "Space", "Pause",
	 "pause or resume the refresh", 0, k_pause},
	{TUI_NORMAL, {'r'}, "r", NULL,
	 "refresh now", 0, k_refresh},
	{TUI_NORMAL, {'+', '='}, "+ =", NULL,
	 "refresh less often (longer interval)", 0, k_interval},
	{TUI_NORMAL, {'-'}, "-", NULL,
	 "refresh more often (down to the floor)", 0, k_interval},
	{TUI_NORMAL, {'a'}, "a", "Audit",
	 "show the audit log / the queue", 0, k_audit},
	{TUI_NORMAL, {'w'}, "w", "Weights",
	 "weights: every tunable, edit, preview, apply, undo", 0, k_weights},
	{TUI_NORMAL, {'t'}, "t", NULL,
	 "colour or monochrome theme", 0, k_theme},
	{TUI_NORMAL, {']', TK_F7}, "] F7", "Prio+",
	 "raise the priority (more urgent, toward 1)", 1, k_priority},
	{TUI_NORMAL, {'[', TK_F8}, "[ F8", "Prio-",
	 "lower the priority (less urgent, toward 10)", 1, k_priority},
	{TUI_NORMAL, {'p'}, "p", "Hold",
	 "hold (pause) or resume the selected job", 1, k_job_pause},
	{TUI_NORMAL, {'m'}, "m", "Mode",
	 "set the selected job's mode and rescore its tasks", 1, k_mode},
	{TUI_NORMAL, {'x'}, "x", NULL,
	 "stop the running rescore or preview", 0, k_stop},
	{TUI_NORMAL, {'C'}, "C", "Cancel",
	 "cancel the selected job (asks first)", 1, k_cancel},
	{TUI_NORMAL, {'b'}, "b", "Boost",
	 "boost pending tasks by path prefix or pattern", 1, k_adjust},
	{TUI_NORMAL, {'d'}, "d", "Demote",
	 "demote pending tasks by path prefix or pattern", 1, k_adjust},

	{TUI_HELP, {TK_UP, 'k', TK_DOWN, 'j'}, "Up k Down j", NULL,
	 "scroll the help", 0, k_help_scroll},
	{TUI_HELP, {TK_PGUP, TK_PGDN, ' '}, "PgUp PgDn Space", NULL,
	 "scroll a page", 0, k_help_scroll},
	{TUI_HELP, {K_ANY}, "any other", NULL,
	 "close the help", 0, k_help_close},

	{TUI_FILTER, {TK_ENTER}, "Enter", NULL,
	 "keep the filter", 0, k_filter_done},
	{TUI_FILTER, {TK_ESC, TK_CTRL('c')}, "Esc", NULL,
	 "clear the filter", 0, k_filter_done},
	{TUI_FILTER, {K_TEXT, TK_BACKSPACE, TK_DEL}, "text Bksp", NULL,
	 "edit the filter", 0, k_filter_text},

	{TUI_PROMPT, {TK_ENTER}, "Enter", NULL,
	 "apply the boost or demotion", 1, k_prompt_submit},
	{TUI_PROMPT, {TK_ESC, TK_CTRL('c')}, "Esc", NULL,
	 "abandon it", 0, k_prompt_abort},
	{TUI_PROMPT, {K_TEXT, TK_BACKSPACE, TK_DEL}, "text Bksp", NULL,
	 "edit \"PREFIX [POINTS]\" (a PATTERN has '*')", 0, k_prompt_text},

	{TUI_CONFIRM, {'y', 'Y'}, "y Y", NULL,
	 "yes: make the change", 1, k_confirm_yes},
	{TUI_CONFIRM, {TK_ESC, TK_CTRL('c')}, "Esc", NULL,
	 "no: leave it", 0, k_prompt_abort},
	{TUI_CONFIRM, {K_ANY}, "any other", NULL,
	 "no: leave it", 0, k_prompt_abort},

	{TUI_MODESEL, {TK_LEFT, TK_RIGHT, TK_TAB, TK_BTAB}, "Left Right Tab S-Tab", NULL,
	 "the previous or next mode", 0, k_mode_pick},
	{TUI_MODESEL, {TK_ENTER}, "Enter", NULL,
	 "set it and rescore the job's unfinished tasks", 1, k_mode_set},
	{TUI_MODESEL, {TK_ESC, TK_CTRL('c'), 'q'}, "Esc q", NULL,
	 "keep the mode", 0, k_prompt_abort},
	{TUI_MODESEL, {K_TEXT}, "1..6", NULL,
	 "that mode", 0, k_mode_pick},

	{TUI_WEIGHTS, {TK_UP, 'k', TK_DOWN, 'j'}, "Up k Down j", NULL,
	 "select a value", 0, k_w_move},
	{TUI_WEIGHTS, {TK_PGUP, TK_PGDN}, "PgUp PgDn", NULL,
	 "a page up or down", 0, k_w_move},
	{TUI_WEIGHTS, {TK_HOME, 'g', TK_END, 'G'}, "Home g End G", NULL,
	 "first or last value", 0, k_w_move},
	{TUI_WEIGHTS, {TK_ENTER, 'e'}, "Enter e", "Edit",
	 "edit the value (true/false toggles)", 1, k_w_edit},
	{TUI_WEIGHTS, {'D'}, "D", "Default",
	 "take the value's built-in default, as an edit", 1, k_w_default},
	{TUI_WEIGHTS, {'c', 'C'}, "c C", "Clear",
	 "clear this edit (c) or every edit (C)", 0, k_w_clear},
	{TUI_WEIGHTS, {'N'}, "N", "Norm",
	 "scale the discovery weights to sum to 1", 1, k_w_normalise},
	{TUI_WEIGHTS, {'v'}, "v", "Preview",
	 "preview the draft again (focused or selected job)", 0, k_w_preview},
	{TUI_WEIGHTS, {'A'}, "A", "Apply",
	 "write the draft as a new version and rescore (asks)", 1, k_w_apply},
	{TUI_WEIGHTS, {'U'}, "U", "Undo",
	 "restore the previous version and rescore (asks)", 1, k_w_apply},
	{TUI_WEIGHTS, {'x'}, "x", "Stop",
	 "stop the running rescore or preview", 0, k_stop},
	{TUI_WEIGHTS, {'?', TK_F1}, "? F1", "Help",
	 "the help", 0, k_help},
	{TUI_WEIGHTS, {TK_ESC, 'w', 'q'}, "Esc w q", "Close",
	 "close the panel (the draft is kept)", 0, k_w_close},

	{TUI_WEDIT, {TK_ENTER}, "Enter", NULL,
	 "check the value and put it in the draft", 1, k_wedit_submit},
	{TUI_WEDIT, {TK_ESC, TK_CTRL('c')}, "Esc", NULL,
	 "abandon the edit", 0, k_wedit_abort},
	{TUI_WEDIT, {K_TEXT, TK_BACKSPACE, TK_DEL}, "text Bksp", NULL,
	 "edit the value", 0, k_prompt_text},
};
#define N_KEYS (int)(sizeof key_table / sizeof key_table[0])

const struct tui_key *tui_keys(int *n)
{
	*n = N_KEYS;
	return key_table;
}

/* Whether row k binds key exactly. */
static int binds(const struct tui_key *k, int key)
{
	for (int i = 0; i < 4 && k->keys[i]; i++)
		if (k->keys[i] == key)
			return 1;
	return 0;
}

/* A character that text input takes (not a TK_* code). */
static int is_text(int key)
{
	return key >= 0x20 && key != 0x7f && key < 0x110000;
}

int tui_mode_binds(const struct tui *t, int key)
{
	for (int i = 0; i < N_KEYS; i++)
		if (key_table[i].mode == t->mode && binds(&key_table[i], key))
			return 1;
	return 0;
}

int tui_interrupt(struct tui *t)
{
	int small = t->cols < TUI_MIN_COLS || t->lines < TUI_MIN_LINES;
	t->quit_status = 128 + SIGINT;
	/* too small, nothing can be asked; a second Ctrl-C at the quit
	 * question is the answer */
	if (small || (t->mode == TUI_CONFIRM && t->pending == TUI_ACT_QUIT))
		return TUI_QUIT;
	/* a prompt, an editor: it abandons what is being typed */
	if (tui_mode_binds(t, TK_CTRL('c')))
		return tui_key(t, TK_CTRL('c'));
	return quit_ask(t, 128 + SIGINT);
}

int tui_key(struct tui *t, int key)
{
	if (key == TK_RESIZE)
		return TUI_REDRAW;
	/* Too small to show anything: nothing may act unseen (a change, a
	 * hidden confirmation); q and Ctrl-C quit whatever the mode. */
	if (t->cols < TUI_MIN_COLS || t->lines < TUI_MIN_LINES) {
		if (key != 'q' && key != TK_CTRL('c'))
			return 0;
		t->quit_status = key == 'q' ? 0 : 128 + SIGINT;
		return TUI_QUIT;
	}
	const struct tui_key *hit = NULL;
	for (int i = 0; i < N_KEYS && !hit; i++)
		if (key_table[i].mode == t->mode && binds(&key_table[i], key))
			hit = &key_table[i];
	for (int i = 0; i < N_KEYS && !hit; i++)
		if (key_table[i].mode == t->mode &&
		    ((binds(&key_table[i], K_TEXT) && is_text(key)) ||
		     binds(&key_table[i], K_ANY)))
			hit = &key_table[i];
	if (!hit)
		return 0;
	/* a key that opens a line to type (boost, demote) opens it even
	 * when changes are refused, so that what the operator types next
	 * goes into it, not to the keys of the dashboard; Enter refuses */
	if (hit->changes && hit->fn != k_adjust &&
	    (t->mode == TUI_NORMAL || t->mode == TUI_WEIGHTS)) {
		const char *why = tui_why_readonly(t);
		if (why) {
			/* the key's help without its aside: "cannot edit the
			 * value: ...", not "... (true/false toggles): ..." */
			int n = (int)strcspn(hit->help, "(");
			while (n > 0 && hit->help[n - 1] == ' ')
				n--;
			tui_msg(t, 1, "cannot %.*s: %s", n, hit->help, why);
			return TUI_REDRAW;
		}
	}
	return hit->fn(t, key);
}
