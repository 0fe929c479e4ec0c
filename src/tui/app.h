/* app.h: the console's state, shared by its parts (never by other layers).
 *
 *   model.c   the data (no curses, no database)
 *   fetch.c   the session: queries, refresh timing, reconnects, actions
 *   keys.c    the key table and its handlers (no curses)
 *   prefs.c   the console's own settings on disk
 *   view.c    drawing (curses), crt.c the terminal (curses)
 *   loop.c    the one event loop
 *   batch.c   `crawltop top -b`: plain text and JSON
 *   tune.c    the weights panel's model (the stored settings, the draft,
 *             its checks) and the work the worker thread does for the
 *             console: set mode, preview, apply, undo (no curses)
 *   work.c    the worker thread itself (work.h)
 *
 * Handlers return TUI_* flags that say what the loop must do next. */
#ifndef CT_TUI_APP_H
#define CT_TUI_APP_H

#include <stdint.h>
#include <stdio.h>

#include "aquery.h"
#include "config.h"
#include "model.h"
#include "tui.h"
#include "work.h"

/* What a handler asks of the loop (a bit mask). */
#define TUI_REDRAW  0x1  /* draw the screen again */
#define TUI_REFRESH 0x2  /* refresh the data now */
#define TUI_QUIT    0x4  /* leave the loop */
#define TUI_SAVE    0x8  /* the console's settings changed: save them */

#define TUI_INTERVAL_FLOOR 0.5    /* seconds: the refresh floor */
#define TUI_TASK_POINTS 10.0      /* the task view's b and d */
#define TUI_SEARCH_AGAIN_S 30.0   /* a path search scans again after */
#define TUI_PLACE_AGAIN_S 10.0    /* the task view counts its place after */
#define TUI_INTERVAL_MAX 3600.0
#define TUI_BACKOFF_MAX 60.0      /* backed-off interval ceiling */
#define TUI_RECONNECT_MAX 5.0     /* reconnect backoff ceiling, seconds */
#define TUI_MIN_COLS 80           /* smaller: "too small", keys q and Ctrl-C only */
#define TUI_MIN_LINES 24

/* Modes: which keys apply (keys.c) and what is drawn over the panels. */
enum tui_mode {
	TUI_NORMAL,
	TUI_HELP,
	TUI_FILTER,   /* typing the jobs filter */
	TUI_PROMPT,   /* typing the boost/demote path prefix */
	TUI_CONFIRM,  /* y/n on a destructive change */
	TUI_MODESEL,  /* choosing the selected job's mode */
	TUI_WEIGHTS,  /* the weights panel */
	TUI_WEDIT,    /* typing a value in the weights panel */
	TUI_LOG,      /* the message log */
	TUI_LEASES,   /* the workers and their leases */
	TUI_QUEUE,    /* the queue view: next tasks, or those found by path */
	TUI_QSEARCH,  /* typing the queue view's path search */
	TUI_TASK,     /* one task, whole, and what can be done to it */
	TUI_AUDIT,    /* the audit log: scrolled, filtered, a row opened */
	TUI_AFILTER,  /* typing the audit view's role filter */
	TUI_AROW,     /* one audit row, whole */
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
	struct tm_health_opts health; /* when a job is stalled or failing */
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
	TUI_ACT_APPLY,      /* the weights panel's draft as a new version */
	TUI_ACT_UNDO,       /* the previous version as a new version */
	TUI_ACT_QUIT,       /* quit, though the weights draft has edits */
	TUI_ACT_SETPRIO,    /* prompt: a priority 1..10 (sent as PRIORITY) */
	TUI_ACT_REQUEUE,    /* a task held on a live lease back to the queue */
	TUI_ACT_TASK_ADJ,   /* one pending task by pending_delta points */
	TUI_ACT_RETRY,      /* a failed task back to the queue */
};

/* One message of the log (tui_msg keeps every one). */
#define TUI_LOG_MAX 256
struct tui_logline {
	char at[12];              /* wall clock, "HH:MM:SS" */
	int err;
	int repeat;               /* said again right after: 1 + times */
	char text[256];
};

/* The engine settings as the store has them (fetch.c loads the two
 * latest versions at connect and on NOTIFY crawltop_settings; tune.c
 * reads them). */
struct tui_settings {
	int version;             /* 0: not loaded yet */
	char by[64], at[24], note[120];
	char *json;              /* the current document (owned) */
	int prev_version;        /* the one before, for undo (0: none) */
	char *prev_json;         /* owned */
	char prev_by[64], prev_at[24];
	struct ct_config cur;    /* the current version over the defaults */
	char error[400];         /* why it cannot be read; "" = it can */
};

/* One row of the weights panel: a group heading, a key of the config key
 * table, or an entry of an open map. */
enum tui_wrow_kind { WR_HEAD, WR_KEY, WR_TYPE, WR_BONUS, WR_ALIAS };
struct tui_wrow {
	unsigned char kind;
	short key;               /* WR_KEY: index in ct_keys */
	char name[64];           /* WR_HEAD: the group; map rows: the entry */
};
#define TUI_WROWS 256

/* The weights panel: the draft being edited and its preview. */
struct tui_weights {
	struct ct_config draft;  /* the stored settings plus the edits */
	struct tui_wrow rows[TUI_WROWS];
	int n_rows, sel, scroll, rows_visible;
	int n_edits;             /* rows whose value differs from the store */
	char problem[600];       /* a rule the whole draft breaks, or "" */
	char refused[600];       /* the last value refused, with its rule */
	int refused_row;         /* ... for this row */
	int draft_seq;           /* counts accepted edits */
	/* the preview (worker): what the draft would do to one job */
	enum { WP_NONE, WP_RUNNING, WP_DONE, WP_FAILED } pstate;
	struct ct_preview preview;
	char pmsg[400];          /* WP_FAILED: why; else a note */
	int64_t pjob;            /* the job previewed */
	char pjob_name[72];
	int pseq;                /* the draft_seq it was computed for */
	int want_preview;        /* start one when the worker is free */
};

/* The line being typed (the filter, a prompt, a value) and the paste
 * coming in, as the shared line code (keys.c) keeps them. A paste is
 * text, never keys: it goes into the open line whole or not at all, and
 * where no line is open it is ignored. */
struct tui_line {
	int pasting;             /* between a paste's start and end marks */
	int paste_dropped;       /* the rest of this paste is not taken */
	enum tui_mode paste_mode;/* the mode the paste began in */
	size_t paste_from;       /* the line's length when the paste began */
	int paste_breaks;        /* line breaks at the paste's end so far */
	char lost[96];           /* why Enter applies nothing; "" = it applies */
	char note[200];          /* said under the line while it is open */
	int note_err;
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
	double q_ms[8], last_q_ms[8]; /* per query (fetch.c's tags 2..6):
				   * this refresh, the last complete one */
	double last_ok;           /* end of the last complete refresh */
	int refreshes;            /* complete refreshes so far */
	int paused;
	int64_t focus;            /* 0 = all jobs */
	int64_t refresh_focus;    /* the focus the running refresh asked for */
	int refresh_again;        /* a refresh was asked for while one ran */
	int settings_loading;     /* a settings read is out (one at a time) */
	int settings_again;       /* ... and another was asked for meanwhile */
	int refresh_failed;       /* a query of this refresh failed */
	int last_failed;          /* a query of the last complete refresh failed */
	char act_desc[8][200];    /* changes sent, by tag, for their result */
	/* the job change in flight in each slot: its job (0: none) and what
	 * it makes of the job, put into the model when it is done, so that
	 * a key pressed before the next refresh starts from it */
	int64_t act_job[8];
	int act_priority[8];      /* the new priority, or 0 */
	char act_none[8][160];    /* what an answer of 0 means ("" none): the
				   * change matched nothing, changed nothing */
	char act_status[8][16];   /* the new shown status, or "" */
	int act_seq;
	int resolve_job;          /* -j NAME still to resolve */
	int job_missing;          /* -j NAME named no job */
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
	int input_prefill;        /* input is still the "/" it opened with */
	struct tui_line line;     /* what the filter, prompt or value lost */
	char prompt[320];         /* the prompt's question */
	enum tui_action pending;  /* confirmed or prompted change */
	int64_t pending_job;
	int pending_arg;
	char message[256];        /* the status line */
	int message_err;
	int message_conn;         /* about the connection being down: the
				   * reconnect clears it */
	double message_at;
	/* the message log (L): a ring of the last TUI_LOG_MAX messages */
	struct tui_logline log[TUI_LOG_MAX];
	int log_n, log_next;      /* how many, where the next one goes */
	int log_scroll;           /* lines up from the newest */
	int log_page;             /* lines the log view last showed */
	int log_unseen;           /* errors that answered no key (a change's
				   * result, the connection): L clears it */
	int in_key;               /* a key's handler runs (tui_key) */
	/* a boost or demotion counted before it is asked for (tf_count) */
	char pending_match[256];  /* its prefix or pattern */
	double pending_delta;     /* its points, negative to demote */
	enum tui_action counting; /* the count out for it, or TUI_ACT_NONE */
	int64_t counting_job;
	int lease_sel;            /* the leases view's selected row */
	int queue_sel;            /* the queue view's selected row */
	int queue_page;           /* rows the queue view last showed */
	char queue_search[256];   /* its path search; "" = the next tasks */
	char queue_sent[256];     /* the search of the queue query in flight:
				   * an answer to an older one is dropped */
	double found_at;          /* when the search last scanned the paths
				   * (refreshes between ask for its tasks by
				   * id) */
	double card_pos_at;       /* when the task view's place was counted;
				   * 0: count it at the next refresh */
	int64_t card_task;        /* the task view's task */
	int audit_sel;            /* the audit view's selected row */
	int audit_page;           /* rows it last showed */
	char audit_role[64];      /* its role filter (a part of the name) */
	char audit_sent[64];      /* the filter of the audit query in flight */
	int64_t arow_want;        /* the change opened whole (its id) */
	int64_t pending_task;     /* TUI_ACT_REQUEUE: the task */
	int help_scroll;
	int help_page, help_max;  /* the help's lines on screen, its last scroll */
	int quit_status;          /* the exit status of TUI_QUIT (q 0, Ctrl-C 130) */
	enum tui_mode back_mode;  /* where a prompt or confirmation returns */
	int mode_pick;            /* TUI_MODESEL: index in tui_modes */
	int64_t mode_job;

	/* retuning (tune.c) */
	struct tui_settings sets;
	struct tui_weights w;
	struct tw *work;          /* the worker thread; NULL in batch mode */
	struct tw_progress wprog; /* its progress as last polled */
	struct tw_req queued;     /* to start when a preview has stopped */
	char *queued_json;        /* queued.json's text (owned) */
	int has_queued;
	FILE *keylog;             /* CRAWLTOP_KEYLOG (loop.c), or NULL */

	int utf8;
	int mono_forced;           /* NO_COLOR set, or a terminal without colours */
	int cols, lines;          /* terminal size (crt.c keeps it) */
};

/* A new state from the command line and (use_prefs 1) the saved console
 * settings; a bad settings line becomes the status message. NULL when out
 * of memory. The caller frees it. */
struct tui *tui_new(const struct tui_opts *o, int use_prefs);

/* Free t and what it owns; the worker thread is stopped first (waiting
 * up to 2 s for its batch). NULL is fine. */
void tui_free(struct tui *t);

/* Monotonic seconds. */
double tui_now(void);

/* Set the status line (printf-style); err 1 shows it as an error. */
void tui_msg(struct tui *t, int err, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4)))
#endif
	;

/* Keep text in the message log (L) without showing it on the status
 * line (tui_msg does both); the same text again right after counts as a
 * repeat. */
void tui_log(struct tui *t, int err, const char *text);

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
/* A boost or demotion (a, TUI_ACT_BOOST or TUI_ACT_DEMOTE) of job's
 * pending tasks under match by delta: count the tasks it would change
 * first (crawltop.adjustable_count); then ask (TUI_CONFIRM, "Boost 12
 * pending tasks of news under /blog by +20?"), or, when none would
 * change, say so and ask nothing. */
void tf_count(struct tui *t, enum tui_action a, int64_t job,
	      const char *match, double delta);
/* Set the user's interval (clamped to nothing: callers pass valid ones)
 * and reset the backoff. */
void tf_set_interval(struct tui *t, double seconds, double now);
/* The name of the refresh query with index i of q_ms ("jobs", "cells",
 * "rate", "next", "audit"), NULL for the other indexes. Static. */
const char *tf_query_name(int i);
/* "LIVE", "PAUSED", "STALE 12s", "DISCONNECTED", "CONNECTING". */
const char *tf_state(const struct tui *t, double now, char *buf, size_t len);

/* Load the two latest settings versions (again): at connect, on NOTIFY
 * crawltop_settings, after an apply. */
void tf_load_settings(struct tui *t);

/* ---- tune.c: the weights panel's model, and the worker's jobs -------- */

/* The modes a job can have, in the chooser's order. Static. */
extern const char *const tui_modes[];
#define TUI_N_MODES 6

/* The settings query's rows (version, value, created_by, created_at,
 * note; the current version first, then the one before): the stored
 * settings are replaced, and the draft keeps its edits on top of them. */
void tws_loaded(struct tui *t, const struct ct_arows *r);
/* The value of row in c as the panel shows and edits it ("0.28", "true",
 * "a, b"); "" for a heading. Returns buf. */
const char *tws_value(const struct ct_config *c, const struct tui_wrow *row,
		      char *buf, size_t len);
/* The dotted path of a row ("classes.p0", "frontier.types.nav"). */
const char *tws_path(const struct tui_wrow *row, char *buf, size_t len);
/* The help text of a row (the key table's), or "". Static. */
const char *tws_help(const struct tui_wrow *row, char *buf, size_t len);
/* Whether the draft's value of row differs from the stored one. */
int tws_edited(const struct tui *t, const struct tui_wrow *row);
/* Set row's value in the draft from text: parsed for the key's type,
 * checked against its range and then against every rule between keys
 * (ct_config_validate; the discovery weight sum is left to apply, as one
 * weight alone cannot keep it). 0 and the draft changed, or -1 with the
 * rule in why (the draft unchanged). */
int tws_edit(struct tui *t, int row, const char *text, char *why, size_t len);
/* Back to the stored value: one row, or every row. */
void tws_revert(struct tui *t, int row);
void tws_revert_all(struct tui *t);
/* The built-in default of one row, as an edit (tws_edit's rules). */
int tws_default(struct tui *t, int row, char *why, size_t len);
/* Scale the discovery weights the user did not edit so that the eight
 * sum to 1. 0, or -1 with why. */
int tws_normalise(struct tui *t, char *why, size_t len);
/* The draft against every rule, as apply will check it. 0, or -1 with
 * why. */
int tws_check(const struct tui *t, char *why, size_t len);
/* The job the preview and the apply start with: the focused job, else
 * the selected one; NULL when there is none. */
const struct tm_job *tws_target(const struct tui *t);
/* Ask for a preview of the draft on the target job (now, or when the
 * worker is free). */
void tws_preview(struct tui *t);
/* Start the apply (or the undo) the user confirmed. Messages say how it
 * went; returns TUI_* flags. */
int tws_apply(struct tui *t, int undo);
/* The question for the confirmation of apply (undo 0) or undo (1), in
 * buf; 0, or -1 with the reason it cannot be asked in buf. */
int tws_confirm_text(const struct tui *t, int undo, char *buf, size_t len);
/* Set job's mode and rescore it on the worker. */
int tui_set_mode(struct tui *t, int64_t job, const char *mode);
/* Start r on the worker, or queue it behind a preview being cancelled.
 * 0, or -1 with the message set. */
int tui_work_start(struct tui *t, const struct tw_req *r);
/* The worker's pipe was readable: take its progress and, at its end,
 * its result (messages, the preview, a refresh). Returns TUI_* flags. */
int tui_work_poll(struct tui *t);
/* Stop the worker's job (x). */
int tui_work_cancel(struct tui *t);

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
	TK_PASTE_BEGIN, TK_PASTE_END, /* a bracketed paste's marks */
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
/* Whether a read-only console refuses k in mode m (tui_key refuses it
 * as it is pressed, the help shows it refused). */
int tui_key_refusable(const struct tui_key *k, enum tui_mode m);
/* Handle one key in the current mode. Returns TUI_* flags. */
int tui_key(struct tui *t, int key);
/* Whether the current mode binds key itself (not as text or "any key"). */
int tui_mode_binds(const struct tui *t, int key);
/* Ctrl-C (SIGINT; the terminal keeps its signal keys): a prompt or an
 * editor abandons what is being typed; elsewhere it quits as q does,
 * asking first when the weights draft has edits or a rescore runs (a
 * second Ctrl-C at that question quits). Returns TUI_* flags; on
 * TUI_QUIT the exit status is t->quit_status (130). */
int tui_interrupt(struct tui *t);

/* ---- batch.c ---------------------------------------------------------- */

/* Print one snapshot of the dashboard as plain text (top -b) or as one
 * JSON line. Returns 0, or -1 when writing failed. */
int tui_print_text(const struct tui *t, FILE *fp);
int tui_print_json(const struct tui *t, FILE *fp);

#endif
