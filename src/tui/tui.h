/* tui.h: the console (issue 4), as the command line starts it.
 *
 * The only header of src/tui that other layers include. No curses type
 * crosses it. */
#ifndef CT_TUI_H
#define CT_TUI_H

/* What `crawltop [top] ...` was asked for. Strings are borrowed for the
 * call. */
struct tui_opts {
	const char *dsn;          /* libpq string or URI; NULL = PG* defaults */
	const char *config_path;  /* --config FILE, or NULL */
	const char *job;          /* -j: focus this job (name or id), or NULL */
	double interval;          /* -i seconds; 0 = the saved or default */
	int readonly;             /* -r */
	int batch;                /* -b: plain text, no terminal */
	int json;                 /* --json: one JSON snapshot per refresh */
	int iterations;           /* -n: batch snapshots; 0 = until killed */
	int statement_timeout_ms; /* every query's bound */
};

/* Run the full-screen console until the user quits. Restores the terminal
 * on every way out. Returns the process exit status (0 on q). */
int tui_run(const struct tui_opts *o);

/* Batch mode: print o->iterations snapshots (plain text or JSON) to
 * stdout, one per interval. Returns the exit status: 0, or 1 when the
 * database could not be reached or a query failed. */
int tui_batch(const struct tui_opts *o);

#endif
