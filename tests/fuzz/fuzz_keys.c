/* fuzz_keys.c: the console's key input without a terminal: the key
 * table's dispatch (tui_key, src/tui/keys.c), the shared line editing of
 * the filter, the boost prompt and the value editor, bracketed paste,
 * Ctrl-C (tui_interrupt), the weights panel's edits (tune.c), over a
 * model of a few jobs and stored settings, as the event loop (loop.c)
 * drives them. The connection handle is a real one that never connects:
 * a change that gets through to tf_act fails with "not connected"; there
 * is no worker thread, as in batch mode.
 *
 * Input: the first byte sets the session (bit 0 read-only, 1
 * disconnected, 2 a role that may not change jobs, 3 settings not loaded,
 * 4 settings that do not read, 5 an ASCII terminal, 6 a terminal too
 * small). Then one event after another:
 *   0x00..0x7f  a key as crt.c reads it (CR and LF are Enter, ESC, DEL
 *               and BS Backspace, Tab; 0x03 is Ctrl-C, a signal)
 *   0x80..0x93  TK_UP .. TK_PASTE_END (app.h's order)
 *   0x94        the terminal resized (small <-> 100x30)
 *   0x95        a refresh brings the next set of jobs (3, 1, none, 40)
 *   0x96        the next settings version arrives
 *   0x97        the connection drops or comes back
 *   0x98        the changes in flight are done
 *   0xc0..0xf7  a UTF-8 character (lead byte and continuation bytes)
 *   others      nothing
 * A TUI_QUIT ends the input, as it ends the loop.
 *
 * Checked after every event: the mode is a mode, the lines being typed
 * are terminated UTF-8 within their buffers, the selection names a job,
 * the weights panel's selection a row. At the end the batch printer
 * (top -b) prints the state. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "fuzz.h"
#include "settings_json.h"
#include "urlpath.h"

#define MANY 40

static struct ct_aconn *conn;
static FILE *devnull;
static char *default_json;

/* Rows as the async layer hands them over (a query result). */
struct rows {
	struct ct_arows r;
	char *cells[MANY * 15];
	char text[MANY][15][24];
};
static struct rows jobsets[4];
static struct rows settings[3];

static void set_row(struct rows *f, int ncols, int row, const char *const *v)
{
	for (int c = 0; c < ncols; c++) {
		snprintf(f->text[row][c], sizeof f->text[row][c], "%s", v[c]);
		f->cells[row * ncols + c] = f->text[row][c];
	}
}

static void rows_init(struct rows *f, int ncols, int nrows)
{
	memset(f, 0, sizeof *f);
	f->r.st = CT_OK;
	f->r.ncols = ncols;
	f->r.nrows = nrows;
	f->r.val = f->cells;
}

/* crawltop.dashboard_jobs()'s 15 columns. */
static void make_jobsets(void)
{
	static const char *const three[3][15] = {
		{"1", "alpha", "alpha.example.com", "hierarchy", "3", "running",
		 "100", "40", "2", "3", "50", "8", "0", "1.5", "2"},
		{"2", "b\xc3\xa9ta\x1b[2J", "beta.example.org", "fifo", "5",
		 "paused", "10", "10", "0", "0", "0", "0", "0", "0", "0"},
		{"3", "gamma", "gamma.example.net", "frontier", "1", "cancelled",
		 "1000", "900", "0", "0", "100", "0", "0", "0", "0.5"},
	};
	rows_init(&jobsets[0], 15, 3);
	for (int i = 0; i < 3; i++)
		set_row(&jobsets[0], 15, i, three[i]);
	rows_init(&jobsets[1], 15, 1);
	set_row(&jobsets[1], 15, 0, three[1]);
	rows_init(&jobsets[2], 15, 0);
	rows_init(&jobsets[3], 15, MANY);
	static const char *const modes[] = {"hierarchy", "fifo", "frontier",
		"discovery", "freshness", "importance"};
	static const char *const states[] = {"running", "pending", "paused",
		"completed", "retrying", "cancelled"};
	for (int i = 0; i < MANY; i++) {
		char id[8], name[16], prio[4], n[8];
		snprintf(id, sizeof id, "%d", 10 + i);
		snprintf(name, sizeof name, "job-%02d", i);
		snprintf(prio, sizeof prio, "%d", 1 + i % 10);
		snprintf(n, sizeof n, "%d", i * 37);
		const char *v[15] = {id, name, "many.example.com", modes[i % 6],
			prio, states[i % 6], n, n, "1", "0", "2", "0", "0",
			"0.5", "0.25"};
		set_row(&jobsets[3], 15, i, v);
	}
}

/* The settings query's rows: version v and the one before it. */
static void make_settings(void)
{
	struct ct_settings d;
	struct ct_error err;
	ct_settings_default(&d);
	default_json = ct_settings_to_json(&d, NULL, &err);
	if (!default_json)
		abort();
	static const char *docs[3][2];
	docs[0][0] = default_json, docs[0][1] = "{}";
	docs[1][0] = "{\"classes\": {\"p0\": 85}, \"frontier\": {\"types\": "
		     "{\"nav\": 2}}}";
	docs[1][1] = default_json;
	docs[2][0] = "{\"classes\": {\"p0\": \"high\"}}";
	docs[2][1] = "{\"classes\": {\"p0\": 90}}";
	for (int k = 0; k < 3; k++) {
		struct rows *f = &settings[k];
		char v[8], pv[8];
		snprintf(v, sizeof v, "%d", 3 + k);
		snprintf(pv, sizeof pv, "%d", 2 + k);
		rows_init(f, 5, 2);
		/* the documents are longer than a cell of text[]: borrowed */
		const char *a[5] = {v, "", "postgres", "2024-06-01 10:00", "note"};
		const char *b[5] = {pv, "", "postgres", "2024-05-01 10:00", "old"};
		set_row(f, 5, 0, a);
		set_row(f, 5, 1, b);
		f->cells[1] = (char *)docs[k][0];
		f->cells[6] = (char *)docs[k][1];
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct ct_aconn_opts o = {.dsn = "host=/nonexistent dbname=fuzz",
				  .statement_timeout_ms = 1000};
	struct ct_error err;
	if (ct_aconn_new(&o, &conn, &err) != CT_OK)
		abort();
	devnull = fopen("/dev/null", "w");
	if (!devnull)
		abort();
	make_jobsets();
	make_settings();
	return 0;
}

/* A console as loop.c's tui_new makes it and a first refresh fills it. */
static struct tui *new_console(unsigned flags)
{
	struct tui *t = calloc(1, sizeof *t);
	if (!t)
		abort();
	t->opts.readonly = flags & 1;
	t->opts.statement_timeout_ms = 5000;
	tm_init(&t->model);
	tui_prefs_default(&t->prefs);
	t->next_limit = 6;
	t->ac = conn;
	t->connected = !(flags & 2);
	t->ever_connected = 1;
	t->model.can_change = !(flags & 4);
	if (!t->model.can_change)
		snprintf(t->model.cannot_why, sizeof t->model.cannot_why,
			 "role crawltop_viewer may not change jobs");
	tm_load_jobs(&t->model, &jobsets[0].r, 1.0);
	tui_view_jobs(t);
	if (!(flags & 8))
		tws_loaded(t, &settings[flags & 16 ? 2 : 0].r);
	t->utf8 = !(flags & 32);
	t->cols = flags & 64 ? 60 : 100;
	t->lines = flags & 64 ? 15 : 30;
	t->rows_visible = 5;
	t->w.rows_visible = 10;
	return t;
}

/* new_console(flags), made once per flags and copied into one console
 * that every run reuses (a fresh 500 kB block a run costs more than the
 * run: page faults). The copy owns copies of the two documents, as a
 * console owns them; done() frees what tui_free would. */
static struct tui *console(unsigned flags)
{
	static struct tui *made[128], *work;
	flags &= 127;
	if (!made[flags])
		made[flags] = new_console(flags);
	if (!work && !(work = malloc(sizeof *work)))
		abort();
	memcpy(work, made[flags], sizeof *work);
	if (work->sets.json && !(work->sets.json = strdup(work->sets.json)))
		abort();
	if (work->sets.prev_json &&
	    !(work->sets.prev_json = strdup(work->sets.prev_json)))
		abort();
	return work;
}

/* tui_free(t) without the free(t) (no worker, no key log here). */
static void done(struct tui *t)
{
	free(t->sets.json);
	free(t->sets.prev_json);
	free(t->queued_json);
	t->sets.json = t->sets.prev_json = t->queued_json = NULL;
}

/* A line buffer: terminated inside its len bytes, and UTF-8. */
static void check_line(const char *what, const char *s, size_t len)
{
	size_t n = strnlen(s, len), bad;
	FZ_CHECK(n < len, "%s not terminated", what);
	FZ_CHECK(urlpath_utf8_ok(s, n, &bad), "%s '%s': byte %zu not UTF-8",
		 what, s, bad);
}

static void check(const struct tui *t)
{
	FZ_CHECK((unsigned)t->mode < TUI_MODE_N, "mode %d", (int)t->mode);
	FZ_CHECK((unsigned)t->back_mode < TUI_MODE_N, "back mode %d",
		 (int)t->back_mode);
	check_line("filter", t->filter, sizeof t->filter);
	check_line("input", t->input, sizeof t->input);
	FZ_CHECK(strnlen(t->message, sizeof t->message) < sizeof t->message,
		 "message not terminated");
	FZ_CHECK(strnlen(t->prompt, sizeof t->prompt) < sizeof t->prompt,
		 "prompt not terminated");
	FZ_CHECK(t->sel_job == 0 || tm_job_by_id(&t->model, t->sel_job),
		 "selected job %lld is not in the model", (long long)t->sel_job);
	FZ_CHECK(t->n_view >= 0 && t->n_view <= t->model.n_jobs,
		 "%d rows shown of %d jobs", t->n_view, t->model.n_jobs);
	FZ_CHECK(t->scroll >= 0, "scroll %d", t->scroll);
	FZ_CHECK(t->w.n_rows == 0 || (t->w.sel >= 0 && t->w.sel < t->w.n_rows),
		 "weights row %d of %d", t->w.sel, t->w.n_rows);
	FZ_CHECK(t->mode_pick >= 0 && t->mode_pick < TUI_N_MODES,
		 "mode pick %d", t->mode_pick);
	FZ_CHECK(t->prefs.sort_col >= 0 && t->prefs.sort_col < TM_COL_N,
		 "sort column %d", t->prefs.sort_col);
}

/* The key crt_key() returns for byte b (a character read alone). */
static int crt_byte(int b)
{
	switch (b) {
	case '\r': case '\n': return TK_ENTER;
	case 27: return TK_ESC;
	case 127: case 8: return TK_BACKSPACE;
	case '\t': return TK_TAB;
	default: return b;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	struct tui *t = console(data[0]);
	int jobset = 0, setv = 0, flags = 0;
	check(t);
	for (size_t i = 1; i < size && !(flags & TUI_QUIT); i++) {
		unsigned b = data[i];
		int key = -1;
		if (b == 0x03) {
			flags = tui_interrupt(t);
		} else if (b < 0x80) {
			key = crt_byte((int)b);
		} else if (b <= 0x93) {
			key = TK_UP + (int)(b - 0x80);
		} else if (b == 0x94) {
			int small = t->cols < TUI_MIN_COLS;
			t->cols = small ? 100 : 60;
			t->lines = small ? 30 : 15;
			key = TK_RESIZE;
		} else if (b == 0x95) {
			jobset = (jobset + 1) % 4;
			tm_load_jobs(&t->model, &jobsets[jobset].r, 2.0 + (double)i);
			tui_view_jobs(t);
		} else if (b == 0x96) {
			setv = (setv + 1) % 3;
			/* each arrival a newer version than the last */
			struct rows *f = &settings[setv];
			char v[16], pv[16];
			snprintf(v, sizeof v, "%d", 10 + (int)i * 2);
			snprintf(pv, sizeof pv, "%d", 9 + (int)i * 2);
			char *keep0 = f->cells[0], *keep5 = f->cells[5];
			f->cells[0] = v, f->cells[5] = pv;
			tws_loaded(t, &f->r);
			f->cells[0] = keep0, f->cells[5] = keep5;
		} else if (b == 0x97) {
			t->connected = !t->connected;
		} else if (b == 0x98) {
			memset(t->act_job, 0, sizeof t->act_job);
		} else if (b >= 0xc0 && b <= 0xf7) {
			/* a character of 2, 3 or 4 bytes, from its lead byte
			 * and the continuation bytes that follow */
			size_t n = b < 0xe0 ? 2 : b < 0xf0 ? 3 : 4;
			unsigned long cp = b & (0x3f >> (n - 1));
			size_t k = 1;
			for (; k < n && i + k < size; k++)
				cp = cp << 6 | (data[i + k] & 0x3f);
			i += k - 1;
			/* what the terminal's locale decodes: no surrogate,
			 * nothing past U+10FFFF, no overlong form */
			static const unsigned long min[] = {0, 0, 0x80, 0x800,
							    0x10000};
			if (k == n && cp >= min[n] && cp <= 0x10ffff &&
			    !(cp >= 0xd800 && cp <= 0xdfff))
				key = (int)cp;
		}
		if (key >= 0) {
			(void)tui_mode_binds(t, key);
			flags = tui_key(t, key);
		}
		check(t);
	}
	if (tui_print_text(t, devnull) != 0)
		clearerr(devnull);
	done(t);
	return 0;
}
