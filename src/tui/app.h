/* app.h: the console's state, shared by its parts (never by other layers).
 *
 *   model.c   the data (no curses, no database)
 *   fetch.c   the session: queries, refresh timing, reconnects, actions
 *   keys.c    the key table and its handlers (no curses)
 *   prefs.c   the console's own settings on disk
 *   view.c    drawing (curses), crt.c the terminal (curses)
 *   loop.c    the one event loop
 *   batch.c   `crawltop top -b`: plain text and JSON
 *
 * Handlers return TUI_* flags that say what the loop must do next. */
#ifndef CT_TUI_APP_H
#define CT_TUI_APP_H

#include <stdint.h>
#include <stdio.h>

#include "aquery.h"
#include "model.h"
#include "tui.h"

/* What a handler asks of the loop (a bit mask). */
#define TUI_REDRAW  0x1  /* draw the screen again */
#define TUI_REFRESH 0x2  /* refresh the data now */
#define TUI_QUIT    0x4  /* leave the loop */
#define TUI_SAVE    0x8  /* the console's settings changed: save them */

#define TUI_INTERVAL_FLOOR 0.5    /* seconds: the refresh floor */
#define TUI_INTERVAL_MAX 3600.0
#define TUI_BACKOFF_MAX 60.0      /* backed-off interval ceiling */
#define TUI_RECONNECT_MAX 5.0     /* reconnect backoff ceiling, seconds */

/* Modes: which keys apply (keys.c) and what is drawn over the panels. */
enum tui_mode {
	TUI_NORMAL,
	TUI_HELP,
	TUI_FILTER,   /* typing the jobs filter */
	TUI_PROMPT,   /* typing the boost/demote path prefix */
	TUI_CONFIRM,  /* y/n on a destructive change */
	TUI_MODE_N
};

enum tui_theme { TUI_THEME_COLOR, TUI_THEME_MONO, TUI_THEME_N };

/* The console's own settings (prefs.c persists them). */
struct tui_prefs {
	double interval;       /* seconds, TUI_INTERVAL_FLOOR..TUI_INTERVAL_MAX */
	int sort_col;          /* enum tm_col */
	int sort_desc;
	int theme;             /* enum tui_theme */
	int show_audit;        /* the audit panel replaces queue + next up */
};

/* A change the user asked for, waiting for confirmation or a prompt. */
enum tui_action {
	TUI_ACT_NONE,
	TUI_ACT_PRIORITY,   /* arg: new priority */
	TUI_ACT_PAUSE,
	TUI_ACT_RESUME,
	TUI_ACT_CANCEL,
	TUI_ACT_BOOST,      /* prompt: "PREFIX [POINTS]" */
	TUI_ACT_DEMOTE,
};

struct tui {
	struct tui_opts opts;
	struct tui_prefs prefs;
	char prefs_path[1024];    /* "" when there is nowhere to save */
	struct tm_model model;

	/* session (fetch.c) */
	struct ct_aconn *ac;
	int connected;            /* the connection is READY */
	int ever_connected;
	double down_since;        /* when the connection was lost; 0 = up */
	double reconnect_at;      /* when to try again (monotonic) */
	double reconnect_backoff; /* seconds */
	int reconnect_tries;
	double eff_interval;      /* interval after backoff */
	double next_refresh;      /* monotonic deadline */
	int refreshing;           /* queries of this refresh still out */
	double refresh_started;
	double refresh_sum_ms;    /* this refresh so far */
	double cost_ms;           /* the last complete refresh */
	double last_ok;           /* end of the last complete refresh */
	int refreshes;            /* complete refreshes so far */
	int paused;
	int64_t focus;            /* 0 = all jobs */
	int64_t refresh_focus;    /* the focus the running refresh asked for */
	int refresh_again;        /* a refresh was asked for while one ran */
	int refresh_failed;       /* a query of this refresh failed */
	char act_desc[8][200];    /* changes sent, by tag, for their result */
	int act_seq;
	int resolve_job;          /* -j NAME still to resolve */
	int next_limit;           /* how many next-up tasks to fetch */

	/* interface state (keys.c), read by view.c */
	enum tui_mode mode;
	int64_t sel_job;          /* selected job id; 0 = none */
	int scroll;               /* first visible row of the jobs table */
	int rows_visible;         /* jobs rows the view last had room for */
	int view_idx[TM_MAX_JOBS];/* the jobs table as shown */
	int n_view;
	char filter[64];
	char input[256];          /* the prompt's text */
	char prompt[160];         /* the prompt's question */
	enum tui_action pending;  /* confirmed or prompted change */
	int64_t pending_job;
	int pending_arg;
	char message[256];        /* the status line */
	int message_err;
	double message_at;
	int help_scroll;
	int utf8;
	int cols, lines;          /* terminal size (crt.c keeps it) */
};

/* A new state from the command line and (use_prefs 1) the saved console
 * settings; a bad settings line becomes the status message. NULL when out
 * of memory. The caller frees it. */
struct tui *tui_new(const struct tui_opts *o, int use_prefs);

/* Monotonic seconds. */
double tui_now(void);

/* Set the status line (printf-style); err 1 shows it as an error. */
void tui_msg(struct tui *t, int err, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4)))
#endif
	;

/* Recompute the jobs table (filter, sort) and keep the selection valid. */
void tui_view_jobs(struct tui *t);
/* The selected job, or NULL. */
const struct tm_job *tui_selected(const struct tui *t);
/* Why changes are refused now, or NULL when they are allowed. Static or
 * borrowed from t. */
const char *tui_why_readonly(const struct tui *t);

/* ---- fetch.c: the session -------------------------------------------- */

/* Create the connection handle and start connecting. 0, or -1 with the
 * reason in err (a DSN libpq cannot parse). */
int tf_start(struct tui *t, struct ct_error *err);
void tf_stop(struct tui *t);
/* The poll() fd and events (POLLIN/POLLOUT) of the connection; fd -1 when
 * there is none. */
int tf_pollfd(const struct tui *t, short *events);
/* Drive the connection after poll (revents: what poll reported; 0 for a
 * timer) and run due timers: reconnect, refresh. Returns TUI_* flags. */
int tf_step(struct tui *t, short revents, double now);
/* The next time tf_step must run even without socket activity. */
double tf_deadline(const struct tui *t, double now);
/* Start a refresh now if none is running. */
void tf_refresh_now(struct tui *t, double now);
/* Send a change (enum tui_action) for job; prefix/delta for boost and
 * demote. The result arrives as a message and a refresh. */
void tf_act(struct tui *t, enum tui_action a, int64_t job, int arg,
	    const char *prefix, double delta);
/* Set the user's interval (clamped to nothing: callers pass valid ones)
 * and reset the backoff. */
void tf_set_interval(struct tui *t, double seconds, double now);
/* "LIVE", "PAUSED", "STALE 12s", "DISCONNECTED", "CONNECTING". */
const char *tf_state(const struct tui *t, double now, char *buf, size_t len);

/* ---- prefs.c ---------------------------------------------------------- */

void tui_prefs_default(struct tui_prefs *p);
/* Where the console's settings live: next to the config file (--config
 * FILE's directory), else $XDG_CONFIG_HOME/crawltop, else
 * $HOME/.config/crawltop; file name console.conf. "" when none. */
void tui_prefs_path(const char *config_path, char *buf, size_t len);
/* Read path into p (keys it does not name keep their value). A missing
 * file is fine (0). A line that breaks a rule is skipped and reported in
 * err (returns -1; the other lines still apply). */
int tui_prefs_load(const char *path, struct tui_prefs *p, struct ct_error *err);
/* Write p to path atomically: a temporary file in the same directory,
 * every write checked, fsync, rename, fsync of the directory. The
 * directory is created when missing. 0, or -1 with err. */
int tui_prefs_save(const char *path, const struct tui_prefs *p,
		   struct ct_error *err);

/* ---- keys.c ----------------------------------------------------------- */

/* Key codes beyond characters: the terminal layer (crt.c) maps curses'
 * codes onto these so that keys.c needs no curses. */
enum {
	TK_UP = 0x110000, TK_DOWN, TK_LEFT, TK_RIGHT, TK_PGUP, TK_PGDN,
	TK_HOME, TK_END, TK_ENTER, TK_ESC, TK_BACKSPACE, TK_F1, TK_F7, TK_F8,
	TK_RESIZE, TK_TAB, TK_BTAB, TK_DEL,
};
#define TK_CTRL(c) ((c) & 0x1f)

/* One binding: a row of the one table that binds keys, drives dispatch
 * and generates the help screen and the key bar. */
struct tui_key {
	enum tui_mode mode;
	int keys[4];           /* 0-terminated */
	const char *label;     /* how help shows the keys */
	const char *bar;       /* short name for the key bar, or NULL */
	const char *help;      /* what it does */
	int changes;           /* 1: changes the database (refused read-only) */
	int (*fn)(struct tui *t, int key);
};

/* The table and its length. */
const struct tui_key *tui_keys(int *n);
/* Handle one key in the current mode. Returns TUI_* flags. */
int tui_key(struct tui *t, int key);

/* ---- batch.c ---------------------------------------------------------- */

/* Print one snapshot of the dashboard as plain text (top -b) or as one
 * JSON line. Returns 0, or -1 when writing failed. */
int tui_print_text(const struct tui *t, FILE *fp);
int tui_print_json(const struct tui *t, FILE *fp);

#endif
