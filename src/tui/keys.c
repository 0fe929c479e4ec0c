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
	/* monochrome whatever the theme: say so, and save nothing (the
	 * first t wrote theme = mono into the console.conf other terminals
	 * share, and said "colour" while staying monochrome) */
	if (t->mono_forced) {
		tui_msg(t, 1, "the theme stays monochrome: %s; nothing changed",
			t->mono_forced == 1 ? "NO_COLOR is set" :
			"this terminal has no colours");
		return TUI_REDRAW;
	}
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

static void line_note(struct tui *t, int err, const char *what);

/* Prompt for a priority to set at once (P): 1..10. */
static int k_set_priority(struct tui *t, int key)
{
	const struct tm_job *j = change_target(t);
	if (!j)
		return TUI_REDRAW;
	t->pending = TUI_ACT_SETPRIO;
	t->pending_job = j->id;
	snprintf(t->prompt, sizeof t->prompt, "Priority of %.64s (now %d; "
		 "1..10, 1 the most urgent): ", j->name, j->priority);
	t->input[0] = '\0';
	t->input_prefill = 0;
	t->mode = TUI_PROMPT;
	return TUI_REDRAW;
}

/* Check the priority typed at P and send it. */
static int submit_priority(struct tui *t)
{
	char b[200], *end;
	long p = strtol(t->input, &end, 10);
	while (*end == ' ')
		end++;
	if (!t->input[0] || *end || p < 1 || p > 10) {
		snprintf(b, sizeof b, "priority '%.40s' refused: a whole number "
			 "in 1..10 (1 the most urgent)", t->input);
		line_note(t, 1, b);
		return TUI_REDRAW;
	}
	leave(t);
	t->pending = TUI_ACT_NONE;
	const struct tm_job *j = tm_job_by_id(&t->model, t->pending_job);
	if (j && j->priority == p) {
		tui_msg(t, 0, "job %s is at priority %ld already: nothing "
			"changed", j->name, p);
		return TUI_REDRAW;
	}
	const char *why = tui_why_readonly(t);
	if (why) {
		tui_msg(t, 1, "cannot change anything: %s", why);
		return TUI_REDRAW;
	}
	tf_act(t, TUI_ACT_PRIORITY, t->pending_job, (int)p, NULL, 0);
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
	t->input_prefill = 1;
	t->mode = TUI_PROMPT;
	return TUI_REDRAW;
}

/* ---- help mode --------------------------------------------------------- */

/* Up and Down move a line, PgUp, PgDn and Space a page (the lines the
 * help had on screen when last drawn, 10 before it was), never past the
 * last page. */
static int k_help_scroll(struct tui *t, int key)
{
	int page = t->help_page > 1 ? t->help_page - 1 : 10;
	if (key == TK_UP || key == 'k')
		t->help_scroll--;
	else if (key == TK_DOWN || key == 'j')
		t->help_scroll++;
	else if (key == TK_PGDN || key == ' ')
		t->help_scroll += page;
	else if (key == TK_PGUP)
		t->help_scroll -= page;
	if (t->help_page && t->help_scroll > t->help_max)
		t->help_scroll = t->help_max;
	if (t->help_scroll < 0)
		t->help_scroll = 0;
	return TUI_REDRAW;
}

/* Close the help. */
static int k_help_close(struct tui *t, int key)
{
	leave(t);
	return TUI_REDRAW;
}

/* ---- the message log -------------------------------------------------- */

/* Open the log (L): every message with its time; the errors not seen so
 * far count as seen now. */
static int k_log(struct tui *t, int key)
{
	t->back_mode = t->mode == TUI_WEIGHTS ? TUI_WEIGHTS : TUI_NORMAL;
	t->mode = TUI_LOG;
	t->log_scroll = 0;
	t->log_unseen = 0;
	return TUI_REDRAW;
}

/* Scroll it: lines up from the newest. */
static int k_log_scroll(struct tui *t, int key)
{
	int page = t->log_page > 1 ? t->log_page - 1 : 10;
	int max = t->log_n > t->log_page ? t->log_n - t->log_page : 0;
	switch (key) {
	case TK_UP: case 'k': t->log_scroll++; break;
	case TK_DOWN: case 'j': t->log_scroll--; break;
	case TK_PGUP: t->log_scroll += page; break;
	case TK_PGDN: case ' ': t->log_scroll -= page; break;
	case TK_HOME: case 'g': t->log_scroll = max; break;
	case TK_END: case 'G': t->log_scroll = 0; break;
	default: break;
	}
	if (t->log_scroll > max)
		t->log_scroll = max;
	if (t->log_scroll < 0)
		t->log_scroll = 0;
	return TUI_REDRAW;
}

/* ---- workers and leases ---------------------------------------------- */

/* Open the leases view (W): the tasks workers hold, loaded now. */
static int k_leases(struct tui *t, int key)
{
	t->back_mode = TUI_NORMAL;
	t->mode = TUI_LEASES;
	t->lease_sel = 0;
	t->model.n_leases = 0;
	t->model.leases_age.loaded_at = 0;
	return TUI_REDRAW | TUI_REFRESH;
}

/* Move the selected row *sel of a list of n rows (page: rows shown) by
 * key: a row, a page, the first or the last. */
static int list_move(int *sel, int n, int page, int key)
{
	page = page > 1 ? page : 10;
	switch (key) {
	case TK_UP: case 'k': (*sel)--; break;
	case TK_DOWN: case 'j': (*sel)++; break;
	case TK_PGUP: *sel -= page; break;
	case TK_PGDN: case ' ': *sel += page; break;
	case TK_HOME: case 'g': *sel = 0; break;
	case TK_END: case 'G': *sel = n - 1; break;
	}
	if (*sel >= n)
		*sel = n - 1;
	if (*sel < 0)
		*sel = 0;
	return TUI_REDRAW;
}

/* Select a row. */
static int k_leases_move(struct tui *t, int key)
{
	return list_move(&t->lease_sel, t->model.n_leases, 0, key);
}

/* R: give the selected task back to the queue (asks first). */
static int k_requeue(struct tui *t, int key)
{
	if (t->lease_sel < 0 || t->lease_sel >= t->model.n_leases) {
		tui_msg(t, 1, "no lease selected");
		return TUI_REDRAW;
	}
	const struct tm_lease *l = &t->model.leases[t->lease_sel];
	if (l->expires_s <= 0) {
		tui_msg(t, 1, "task %" PRId64 "'s lease has expired: the reaper "
			"returns it (this console does at its next refresh)",
			l->task_id);
		return TUI_REDRAW;
	}
	t->pending = TUI_ACT_REQUEUE;
	t->pending_job = l->job_id;
	t->pending_task = l->task_id;
	snprintf(t->prompt, sizeof t->prompt,
		 "Requeue task %" PRId64 " %.80s of job %.40s, held by %.40s? "
		 "It goes back to the queue, no attempt counted. [y/N]",
		 l->task_id, l->path, l->job, l->worker);
	t->back_mode = TUI_LEASES;
	t->mode = TUI_CONFIRM;
	return TUI_REDRAW;
}

/* ---- the queue view and the task view -------------------------------- */

static void line_edit(struct tui *t, int key); /* below */

/* Open the queue view (n): the next tasks in claim order of the focused
 * job (or all), loaded now; a search typed before is kept. */
static int k_queue(struct tui *t, int key)
{
	t->back_mode = TUI_NORMAL;
	t->mode = TUI_QUEUE;
	t->queue_sel = 0;
	t->model.n_queue = 0;
	t->model.queue_age.loaded_at = 0;
	t->model.queue_age.error[0] = '\0';
	return TUI_REDRAW | TUI_REFRESH;
}

/* Select a row; a page is what the view last showed. */
static int k_queue_move(struct tui *t, int key)
{
	return list_move(&t->queue_sel, t->model.n_queue, t->queue_page, key);
}

/* /: type a path search (any status); Enter runs it, Esc clears it. */
static int k_queue_search(struct tui *t, int key)
{
	t->mode = TUI_QSEARCH;
	return TUI_REDRAW;
}

static int k_qsearch_text(struct tui *t, int key)
{
	line_edit(t, key);
	return TUI_REDRAW;
}

static int k_qsearch_done(struct tui *t, int key)
{
	t->mode = TUI_QUEUE;
	if (key == TK_ESC || key == TK_CTRL('c'))
		t->queue_search[0] = '\0';
	t->queue_sel = 0;
	t->model.n_queue = 0;
	t->model.queue_age.loaded_at = 0;
	t->model.queue_age.error[0] = '\0';
	return TUI_REDRAW | TUI_REFRESH;
}

/* Enter: the selected task, whole (the task view). */
static int k_queue_open(struct tui *t, int key)
{
	if (t->queue_sel < 0 || t->queue_sel >= t->model.n_queue) {
		tui_msg(t, 1, "no task selected");
		return TUI_REDRAW;
	}
	t->card_task = t->model.queue[t->queue_sel].task_id;
	t->card_pos_at = 0; /* its place counted at once */
	t->model.have_card = 0;
	t->model.card_age.loaded_at = 0;
	t->model.card_age.error[0] = '\0';
	t->mode = TUI_TASK;
	return TUI_REDRAW | TUI_REFRESH;
}

/* Close the queue view; close the task view back to the queue view. */
static int k_queue_close(struct tui *t, int key)
{
	t->mode = t->mode == TUI_TASK ? TUI_QUEUE : TUI_NORMAL;
	t->back_mode = TUI_NORMAL;
	return TUI_REDRAW | TUI_REFRESH;
}

/* The task the task view shows, when loaded and still that task. */
static const struct tm_card *card_now(struct tui *t)
{
	const struct tm_card *c = &t->model.card;
	if (!t->model.have_card || c->task_id != t->card_task) {
		tui_msg(t, 1, "the task is not loaded yet");
		return NULL;
	}
	return c;
}

/* b, d: boost or demote this one pending task by 10 points (asks). */
static int k_task_adjust(struct tui *t, int key)
{
	const struct tm_card *c = card_now(t);
	if (!c)
		return TUI_REDRAW;
	if (strcmp(c->status, "pending") != 0) {
		tui_msg(t, 1, "task %" PRId64 " is %s: only a pending task's "
			"score changes", c->task_id, c->status);
		return TUI_REDRAW;
	}
	double d = key == 'd' ? -TUI_TASK_POINTS : TUI_TASK_POINTS;
	double adj = fmin(100, fmax(-100, c->adjustment + d));
	double to = fmin(100, fmax(0, c->base_score + adj));
	t->pending = TUI_ACT_TASK_ADJ;
	t->pending_job = c->job_id;
	t->pending_task = c->task_id;
	t->pending_delta = d;
	snprintf(t->prompt, sizeof t->prompt, "%s task %" PRId64 " %.80s by "
		 "%+g (score %.2f -> %.2f)? [y/N]", d < 0 ? "Demote" : "Boost",
		 c->task_id, c->path, d, c->score, to);
	t->back_mode = TUI_TASK;
	t->mode = TUI_CONFIRM;
	return TUI_REDRAW;
}

/* R: a failed task back to the queue; a task held on a live lease back
 * too, as W's R does (asks). */
static int k_task_requeue(struct tui *t, int key)
{
	const struct tm_card *c = card_now(t);
	if (!c)
		return TUI_REDRAW;
	int failed = !strcmp(c->status, "failed");
	if (!failed && !(c->worker[0] && c->lease_left_s > 0)) {
		tui_msg(t, 1, "task %" PRId64 " is %s: only a failed task, or "
			"one a worker holds, goes back to the queue", c->task_id,
			c->status);
		return TUI_REDRAW;
	}
	t->pending = failed ? TUI_ACT_RETRY : TUI_ACT_REQUEUE;
	t->pending_job = c->job_id;
	t->pending_task = c->task_id;
	if (failed)
		snprintf(t->prompt, sizeof t->prompt, "Retry failed task %"
			 PRId64 " %.80s: back to the queue, its retries counted "
			 "afresh? [y/N]", c->task_id, c->path);
	else
		snprintf(t->prompt, sizeof t->prompt, "Requeue task %" PRId64
			 " %.80s, held by %.40s? It goes back to the queue, no "
			 "attempt counted. [y/N]", c->task_id, c->path, c->worker);
	t->back_mode = TUI_TASK;
	t->mode = TUI_CONFIRM;
	return TUI_REDRAW;
}

/* ---- the audit view ---------------------------------------------------- */

/* Open the audit view (A): the latest 200 changes of the focused job (or
 * all), loaded now. */
static int k_audit_view(struct tui *t, int key)
{
	t->back_mode = TUI_NORMAL;
	t->mode = TUI_AUDIT;
	t->audit_sel = 0;
	t->model.audit_age.loaded_at = 0;
	return TUI_REDRAW | TUI_REFRESH;
}

static int k_audit_move(struct tui *t, int key)
{
	return list_move(&t->audit_sel, t->model.n_audit, t->audit_page, key);
}

/* /: type a role filter (a part of the role's name). */
static int k_audit_filter(struct tui *t, int key)
{
	t->mode = TUI_AFILTER;
	return TUI_REDRAW;
}

static int k_afilter_text(struct tui *t, int key)
{
	line_edit(t, key);
	return TUI_REDRAW;
}

static int k_afilter_done(struct tui *t, int key)
{
	t->mode = TUI_AUDIT;
	if (key == TK_ESC || key == TK_CTRL('c'))
		t->audit_role[0] = '\0';
	t->audit_sel = 0;
	t->model.audit_age.loaded_at = 0;
	return TUI_REDRAW | TUI_REFRESH;
}

/* Enter: the selected row, whole. */
static int k_audit_open(struct tui *t, int key)
{
	if (t->audit_sel < 0 || t->audit_sel >= t->model.n_audit) {
		tui_msg(t, 1, "no change selected");
		return TUI_REDRAW;
	}
	t->arow_want = t->model.audit[t->audit_sel].id;
	t->model.arow_id = 0;
	t->model.arow_age.loaded_at = 0;
	t->model.arow_age.error[0] = '\0';
	t->mode = TUI_AROW;
	return TUI_REDRAW | TUI_REFRESH;
}

/* Close the row back to the view, the view back to the dashboard. */
static int k_audit_close(struct tui *t, int key)
{
	t->mode = t->mode == TUI_AROW ? TUI_AUDIT : TUI_NORMAL;
	t->back_mode = TUI_NORMAL;
	return TUI_REDRAW | TUI_REFRESH;
}

/* ---- line editing (filter, prompt, value) ---------------------------- */

/* The filter, the boost prompt and the value editor share this code:
 * whatever a line is for, input it cannot hold or take marks it lost,
 * and tui_key refuses Enter on a lost line (line_refuse), so that no
 * line can apply a cut text or what was left after a refused paste. */

/* The text the current mode types into and its size; NULL (and 0) in a
 * mode without a line, where keys are commands. */
static char *line_text(struct tui *t, size_t *len)
{
	switch (t->mode) {
	case TUI_FILTER:
		*len = sizeof t->filter;
		return t->filter;
	case TUI_QSEARCH:
		*len = sizeof t->queue_search;
		return t->queue_search;
	case TUI_AFILTER:
		*len = sizeof t->audit_role;
		return t->audit_role;
	case TUI_PROMPT:
	case TUI_WEDIT:
		*len = sizeof t->input;
		return t->input;
	default:
		*len = 0;
		return NULL;
	}
}

/* Append a printable ASCII or UTF-8 byte sequence of key to s; -1 (s
 * unchanged) when it does not fit. */
static int append_key(char *s, size_t len, int key)
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
	if (l + strlen(u) >= len)
		return -1;
	memcpy(s + l, u, strlen(u) + 1);
	return 0;
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

/* Say something under the open line: in a line's mode the message line
 * is the line itself (view.c draws the note below it). The message line
 * gets it too, for when the line has closed. */
static void line_note(struct tui *t, int err, const char *what)
{
	tx_copy(t->line.note, sizeof t->line.note, what);
	t->line.note_err = err;
	tui_msg(t, err, "%s", what);
}

/* The line lost input (why says how): Enter will apply nothing. The
 * first reason stays: it is the one that made the line unusable. */
static void line_lose(struct tui *t, const char *why)
{
	char b[sizeof t->line.note];
	if (!t->line.lost[0])
		tx_copy(t->line.lost, sizeof t->line.lost, why);
	snprintf(b, sizeof b, "%s: Enter applies nothing, Esc abandons", why);
	line_note(t, 1, b);
}

/* A character did not fit into a line of len bytes. */
static void line_too_long(struct tui *t, size_t len)
{
	char why[64];
	snprintf(why, sizeof why, "input too long: %zu bytes at most (UTF-8)",
		 len - 1);
	line_lose(t, why);
}

/* A new line, or none: nothing lost, nothing to say under it. */
static void line_reset(struct tui *t)
{
	t->line.lost[0] = '\0';
	t->line.note[0] = '\0';
	t->line.note_err = 0;
}

/* Enter on a lost line: it closes and applies nothing (a filter or a
 * search is cleared rather than kept cut, its view kept; a prompt's
 * change is dropped). */
static int line_refuse(struct tui *t)
{
	char why[sizeof t->line.lost];
	int flags = TUI_REDRAW;
	tx_copy(why, sizeof why, t->line.lost);
	if (t->mode == TUI_FILTER) {
		t->filter[0] = '\0';
		tui_view_jobs(t);
		t->mode = TUI_NORMAL;
	} else if (t->mode == TUI_QSEARCH) {
		flags = k_qsearch_done(t, TK_ESC);
	} else if (t->mode == TUI_AFILTER) {
		flags = k_afilter_done(t, TK_ESC);
	} else {
		leave(t);
		t->pending = TUI_ACT_NONE;
	}
	tui_msg(t, 1, "nothing applied: %s", why);
	return flags;
}

/* Whether key is the '/' that starts a path typed (or pasted) into the
 * boost prompt while it still holds only the '/' it opened with: that
 * slash is the same one ("/tutorial" typed makes "/tutorial", not
 * "//tutorial", which matched nothing). Any key ends the prefill. */
static int prefill_swallows(struct tui *t, int key)
{
	int prefilled = t->mode == TUI_PROMPT && t->input_prefill &&
			strcmp(t->input, "/") == 0;
	t->input_prefill = 0;
	return prefilled && key == '/';
}

/* Edit the open line with a typed key: Backspace erases; a character
 * goes in when it fits, and one that does not marks the line lost. */
static void line_edit(struct tui *t, int key)
{
	size_t len;
	char *s = line_text(t, &len);
	if (!s || prefill_swallows(t, key))
		return;
	if (key == TK_BACKSPACE || key == TK_DEL || key == 127 || key == 8)
		erase_char(s);
	else if (append_key(s, len, key) != 0)
		line_too_long(t, len);
}

/* Edit the filter; the table follows each key. */
static int k_filter_text(struct tui *t, int key)
{
	line_edit(t, key);
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
	line_edit(t, key);
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
	if (t->pending == TUI_ACT_SETPRIO)
		return submit_priority(t);
	char prefix[256], extra[64] = "", more[2], b[200];
	double points = 10;
	int n = sscanf(t->input, "%255s %63s %1s", prefix, extra, more);
	/* a refusal keeps the line open with its text, saying why under it,
	 * so that the operator mends it (Esc abandons it) */
	if (n < 1 || (prefix[0] != '/' && prefix[0] != '*')) {
		snprintf(b, sizeof b, "path prefix '%.100s' refused: it must "
			 "start with '/' (a pattern with '/' or '*')",
			 n < 1 ? "" : prefix);
		line_note(t, 1, b);
		return TUI_REDRAW;
	}
	if (n == 3) {
		snprintf(b, sizeof b, "'%.100s' refused: give a path prefix or "
			 "pattern and at most a number of points", t->input);
		line_note(t, 1, b);
		return TUI_REDRAW;
	}
	/* spelt as enqueue spells paths: "/caf%C3%A9" finds "/café" */
	char norm[URLPATH_MAX_BYTES + 1], bad[160];
	if (urlpath_match(prefix, norm, sizeof norm, bad, sizeof bad) != 0) {
		snprintf(b, sizeof b, "'%.30s' refused: %.150s", prefix, bad);
		line_note(t, 1, b);
		return TUI_REDRAW;
	}
	if (n == 2) {
		char *end;
		points = strtod(extra, &end);
		if (!ct_number_text(extra, true) || *end || !isfinite(points) ||
		    points <= 0 || points > 100) {
			snprintf(b, sizeof b, "points '%.60s' refused: a number "
				 "in 0..100 (above 0)", extra);
			line_note(t, 1, b);
			return TUI_REDRAW;
		}
	}
	leave(t);
	const char *why = tui_why_readonly(t);
	if (why) {
		tui_msg(t, 1, "cannot change anything: %s", why);
		return TUI_REDRAW;
	}
	/* counted first: the question says how many it would change */
	tf_count(t, t->pending, t->pending_job, norm,
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
	if (a == TUI_ACT_BOOST || a == TUI_ACT_DEMOTE) {
		tf_act(t, a, t->pending_job, 0, t->pending_match,
		       t->pending_delta);
		return TUI_REDRAW;
	}
	if (a == TUI_ACT_REQUEUE || a == TUI_ACT_RETRY ||
	    a == TUI_ACT_TASK_ADJ) {
		char id[24];
		snprintf(id, sizeof id, "%" PRId64, t->pending_task);
		tf_act(t, a, t->pending_job, 0, id, t->pending_delta);
		return TUI_REDRAW;
	}
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

/* Check the typed value. A refused value leaves the draft as it was and
 * the line open with what was typed, to correct or abandon (Esc). */
static int k_wedit_submit(struct tui *t, int key)
{
	char why[600];
	if (tws_edit(t, t->w.sel, t->input, why, sizeof why) != 0) {
		edit_refused(t, t->w.sel, why);
		return TUI_REDRAW;
	}
	leave(t);
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
	{TUI_NORMAL, {'L'}, "L", NULL,
	 "the message log: every message with its time", 0, k_log},
	{TUI_NORMAL, {'W'}, "W", NULL,
	 "workers and their leases: who holds what, requeue a stuck task", 0,
	 k_leases},
	{TUI_NORMAL, {'n'}, "n", NULL,
	 "the queue: scroll the next tasks, search by path, open one", 0,
	 k_queue},
	{TUI_NORMAL, {'A'}, "A", NULL,
	 "the audit log: scroll, filter by role, open a change whole", 0,
	 k_audit_view},
	{TUI_NORMAL, {'P'}, "P", NULL,
	 "set the selected job's priority to a number (asks)", 1,
	 k_set_priority},
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

	{TUI_LOG, {TK_UP, 'k', TK_DOWN, 'j'}, "Up k Down j", NULL,
	 "scroll a line", 0, k_log_scroll},
	{TUI_LOG, {TK_PGUP, TK_PGDN, ' '}, "PgUp PgDn Space", NULL,
	 "scroll a page", 0, k_log_scroll},
	{TUI_LOG, {TK_HOME, 'g', TK_END, 'G'}, "Home g End G", NULL,
	 "the oldest or the newest", 0, k_log_scroll},
	{TUI_LOG, {K_ANY}, "any other", NULL,
	 "close the log", 0, k_help_close},

	{TUI_LEASES, {TK_UP, 'k', TK_DOWN, 'j', }, "Up k Down j", NULL,
	 "select a task", 0, k_leases_move},
	{TUI_LEASES, {TK_HOME, 'g', TK_END, 'G'}, "Home g End G", NULL,
	 "the first or the last", 0, k_leases_move},
	{TUI_LEASES, {'R'}, "R", NULL,
	 "requeue the selected task: back to the queue (asks)", 1, k_requeue},
	{TUI_LEASES, {K_ANY}, "any other", NULL,
	 "close the view", 0, k_help_close},

	{TUI_QUEUE, {TK_UP, 'k', TK_DOWN, 'j'}, "Up k Down j", NULL,
	 "select a task", 0, k_queue_move},
	{TUI_QUEUE, {TK_PGUP, TK_PGDN, ' '}, "PgUp PgDn Space", NULL,
	 "a page up or down", 0, k_queue_move},
	{TUI_QUEUE, {TK_HOME, 'g', TK_END, 'G'}, "Home g End G", NULL,
	 "the first or the last", 0, k_queue_move},
	{TUI_QUEUE, {'/'}, "/", NULL,
	 "search the tasks by path (any status)", 0, k_queue_search},
	{TUI_QUEUE, {TK_ENTER}, "Enter", NULL,
	 "open the selected task", 0, k_queue_open},
	{TUI_QUEUE, {K_ANY}, "any other", NULL,
	 "close the view", 0, k_queue_close},

	{TUI_QSEARCH, {TK_ENTER}, "Enter", NULL,
	 "search", 0, k_qsearch_done},
	{TUI_QSEARCH, {TK_ESC, TK_CTRL('c')}, "Esc", NULL,
	 "back to the next tasks", 0, k_qsearch_done},
	{TUI_QSEARCH, {K_TEXT, TK_BACKSPACE, TK_DEL}, "text Bksp", NULL,
	 "edit the search (a part of the path)", 0, k_qsearch_text},

	{TUI_AUDIT, {TK_UP, 'k', TK_DOWN, 'j'}, "Up k Down j", NULL,
	 "select a change", 0, k_audit_move},
	{TUI_AUDIT, {TK_PGUP, TK_PGDN, ' '}, "PgUp PgDn Space", NULL,
	 "a page up or down", 0, k_audit_move},
	{TUI_AUDIT, {TK_HOME, 'g', TK_END, 'G'}, "Home g End G", NULL,
	 "the newest or the oldest", 0, k_audit_move},
	{TUI_AUDIT, {'/'}, "/", NULL,
	 "filter by role (a part of its name)", 0, k_audit_filter},
	{TUI_AUDIT, {TK_ENTER}, "Enter", NULL,
	 "open the selected change whole", 0, k_audit_open},
	{TUI_AUDIT, {K_ANY}, "any other", NULL,
	 "close the view", 0, k_audit_close},

	{TUI_AFILTER, {TK_ENTER}, "Enter", NULL,
	 "filter", 0, k_afilter_done},
	{TUI_AFILTER, {TK_ESC, TK_CTRL('c')}, "Esc", NULL,
	 "every role again", 0, k_afilter_done},
	{TUI_AFILTER, {K_TEXT, TK_BACKSPACE, TK_DEL}, "text Bksp", NULL,
	 "edit the role filter", 0, k_afilter_text},

	{TUI_AROW, {K_ANY}, "any", NULL,
	 "back to the audit view", 0, k_audit_close},

	{TUI_TASK, {'b', 'd'}, "b d", NULL,
	 "boost or demote this pending task by 10 points (asks)", 1,
	 k_task_adjust},
	{TUI_TASK, {'R'}, "R", NULL,
	 "retry this failed task, or requeue it from its worker (asks)", 1,
	 k_task_requeue},
	{TUI_TASK, {K_ANY}, "any other", NULL,
	 "back to the queue", 0, k_queue_close},

	{TUI_FILTER, {TK_ENTER}, "Enter", NULL,
	 "keep the filter", 0, k_filter_done},
	{TUI_FILTER, {TK_ESC, TK_CTRL('c')}, "Esc", NULL,
	 "clear the filter", 0, k_filter_done},
	{TUI_FILTER, {K_TEXT, TK_BACKSPACE, TK_DEL}, "text Bksp", NULL,
	 "edit the filter", 0, k_filter_text},

	{TUI_PROMPT, {TK_ENTER}, "Enter", NULL,
	 "count what the boost or demotion would change and ask; set the "
	 "priority", 1, k_prompt_submit},
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

/* ---- pasted text -------------------------------------------------------- */

/* A terminal in bracketed paste mode (crt.c asks for it) sends a paste
 * between two marks, and the keys in between are text, never commands:
 * without the marks a pasted ESC ended the filter and the rest of the
 * paste ran as keys. In a line, a paste goes in whole or not at all:
 *  - line breaks at its end are dropped (a copied line often ends with
 *    one): a paste never submits the line;
 *  - any other control character (ESC, Tab, a line break before more
 *    text, Ctrl-X, a key a terminal sends as an escape sequence) or text
 *    the line cannot hold refuses the whole paste: the line is as it was
 *    before it, and marked lost (Enter applies nothing).
 * Where no line is open (the jobs view, a y/N question, the help, the
 * weights panel) the paste is ignored and the message line says so. */

/* What makes key no text for a paste ("ESC", "Ctrl-X", ...), or NULL
 * when it is text. buf holds the name when one is made up. */
static const char *paste_control(int key, char *buf, size_t len)
{
	if (is_text(key) && !(key >= 0x80 && key < 0xa0))
		return NULL;
	switch (key) {
	case TK_ESC: return "ESC";
	case TK_TAB: return "a Tab";
	case TK_BACKSPACE: case TK_DEL: return "a Backspace or DEL";
	default: break;
	}
	if (key == 0) /* crt.c's code for a key it does not know, too */
		return "a NUL or an escape sequence";
	if (key > 0 && key < 0x20) {
		snprintf(buf, len, "Ctrl-%c", key + '@');
		return buf;
	}
	if (key >= 0x80 && key < 0xa0)
		return "a C1 control character";
	return "an escape sequence";
}

/* Refuse the rest of the paste (what says which input it held): the
 * line goes back to what it was before the paste, and is lost. */
static int paste_refuse(struct tui *t, char *s, const char *what)
{
	char why[sizeof t->line.lost];
	t->line.paste_dropped = 1;
	if (t->line.paste_from < strlen(s))
		s[t->line.paste_from] = '\0';
	if (what) {
		snprintf(why, sizeof why, "paste refused: it holds %s", what);
		line_lose(t, why);
	}
	if (t->mode == TUI_FILTER)
		tui_view_jobs(t);
	return TUI_REDRAW;
}

/* The start mark: a line takes the paste from its current end; without
 * a line the paste is ignored, saying so. */
static int paste_begin(struct tui *t)
{
	size_t len;
	char *s = line_text(t, &len);
	t->line.pasting = 1;
	t->line.paste_mode = t->mode;
	t->line.paste_breaks = 0;
	t->line.paste_dropped = !s;
	t->line.paste_from = s ? strlen(s) : 0;
	if (!s) {
		line_note(t, 1, "paste ignored: not in a prompt (/ filters, b "
			  "boosts; no key of it ran)");
		return TUI_REDRAW;
	}
	return 0;
}

/* One key of a paste: text goes into the line, line breaks are held
 * until more text shows they are inside it; anything else refuses it. */
static int paste_char(struct tui *t, int key)
{
	size_t len;
	char *s = line_text(t, &len), name[16];
	if (t->line.paste_dropped)
		return 0;
	if (!s || t->mode != t->line.paste_mode) {
		t->line.paste_dropped = 1;
		return 0;
	}
	if (key == TK_ENTER) {
		t->line.paste_breaks++;
		return 0;
	}
	if (t->line.paste_breaks)
		return paste_refuse(t, s, "a line break before more text");
	const char *bad = paste_control(key, name, sizeof name);
	if (bad)
		return paste_refuse(t, s, bad);
	if (prefill_swallows(t, key))
		return TUI_REDRAW;
	if (append_key(s, len, key) != 0) {
		paste_refuse(t, s, NULL);
		line_too_long(t, len);
		return TUI_REDRAW;
	}
	return TUI_REDRAW;
}

/* The end mark: the filter follows the pasted text; dropped line breaks
 * are said, so that the operator knows Enter is still to come. */
static int paste_end(struct tui *t)
{
	size_t len;
	int kept = !t->line.paste_dropped && t->mode == t->line.paste_mode;
	t->line.pasting = 0;
	if (!kept || !line_text(t, &len))
		return TUI_REDRAW;
	if (t->mode == TUI_FILTER)
		tui_view_jobs(t);
	if (t->line.paste_breaks)
		line_note(t, 0, "the line break that ended the paste was not "
			  "taken as Enter: Enter applies the line");
	return TUI_REDRAW;
}

/* app.h: whether a read-only console refuses k in mode m. */
int tui_key_refusable(const struct tui_key *k, enum tui_mode m)
{
	/* in the views where changes start; a prompt's or a question's
	 * keys finish a change the key that opened them was let through */
	return k->changes && (m == TUI_NORMAL || m == TUI_WEIGHTS ||
			      m == TUI_LEASES || m == TUI_TASK);
}

/* Every key while a paste comes in, and its marks. A start mark inside
 * a paste is pasted text holding ESC; an end mark outside one is
 * dropped. */
static int paste_key(struct tui *t, int key)
{
	if (key == TK_PASTE_BEGIN && !t->line.pasting)
		return paste_begin(t);
	if (key == TK_PASTE_END)
		return t->line.pasting ? paste_end(t) : 0;
	return paste_char(t, key == TK_PASTE_BEGIN ? TK_ESC : key);
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
	/* a pasted Ctrl-C byte raises SIGINT (the terminal keeps its
	 * signal keys): it belongs to the paste, which refuses it */
	if (t->line.pasting)
		return paste_char(t, TK_CTRL('c'));
	int small = t->cols < TUI_MIN_COLS || t->lines < TUI_MIN_LINES;
	t->quit_status = 128 + SIGINT;
	/* too small, nothing can be asked; a second Ctrl-C at the quit
	 * question is the answer */
	if (small || (t->mode == TUI_CONFIRM && t->pending == TUI_ACT_QUIT))
		return TUI_QUIT;
	/* a prompt, an editor: it abandons what is being typed */
	if (tui_mode_binds(t, TK_CTRL('c')))
		return tui_key(t, TK_CTRL('c'));
	/* the question opens with nothing said under it yet */
	int r = quit_ask(t, 128 + SIGINT);
	if (t->mode == TUI_CONFIRM)
		line_reset(t);
	return r;
}

static int key_dispatch(struct tui *t, int key);

int tui_key(struct tui *t, int key)
{
	/* what a handler says answers the key: the operator sees it */
	t->in_key = 1;
	int r = key_dispatch(t, key);
	t->in_key = 0;
	return r;
}

static int key_dispatch(struct tui *t, int key)
{
	if (key == TK_RESIZE)
		return TUI_REDRAW;
	/* a paste is text, never keys, whatever the mode and the size */
	if (key == TK_PASTE_BEGIN || key == TK_PASTE_END || t->line.pasting)
		return paste_key(t, key);
	/* Too small to show anything: nothing may act unseen (a change, a
	 * hidden confirmation); q and Ctrl-C quit whatever the mode. */
	if (t->cols < TUI_MIN_COLS || t->lines < TUI_MIN_LINES) {
		if (key != 'q' && key != TK_CTRL('c'))
			return 0;
		t->quit_status = key == 'q' ? 0 : 128 + SIGINT;
		return TUI_QUIT;
	}
	/* a line that lost input applies nothing, whichever line it is */
	size_t len;
	if (key == TK_ENTER && line_text(t, &len) && t->line.lost[0]) {
		int r = line_refuse(t);
		line_reset(t);
		return r;
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
	if (tui_key_refusable(hit, t->mode) && hit->fn != k_adjust) {
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
	/* a line opened or closed: the next one starts with nothing lost */
	enum tui_mode before = t->mode;
	int r = hit->fn(t, key);
	if (t->mode != before)
		line_reset(t);
	return r;
}
