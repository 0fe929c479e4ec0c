/* work.h: the console's worker thread (work.c): long database work off
 * the event loop.
 *
 * A mode change with its rescore, a settings apply with the rescore of
 * every unfinished job, and the preview of a settings change can take
 * seconds on a large queue; the event loop must never wait for them. One
 * job at a time runs on a thread of its own with its own blocking
 * connection (store.h: one connection per thread). The thread reports
 * through a pipe the loop polls: a byte after every committed batch and
 * one at the end; the loop then reads the progress (and, at the end, the
 * result) under the worker's lock. Cancel is a flag the store reads
 * between batches: committed batches stay, the rest is untouched.
 *
 * No curses and no struct tui here: work.c knows the store only. */
#ifndef CT_TUI_WORK_H
#define CT_TUI_WORK_H

/* The console's application_name, which the audit rows of its changes
 * record (unless the DSN or PGAPPNAME names another). */
#define TUI_APP_NAME "crawltop console"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "crawltop/settings.h"
#include "crawltop/status.h"
#include "settings_store.h"

enum tw_kind { TW_NONE, TW_PREVIEW, TW_MODE, TW_APPLY };

#define TW_MAX_JOBS 64

/* What to do. Copied by tw_start (json too). */
struct tw_req {
	enum tw_kind kind;
	int tag;                     /* the caller's, back in the result */
	int64_t job;                 /* PREVIEW, MODE: the job */
	char job_name[72];
	char mode[16];               /* MODE: the new mode */
	struct ct_settings settings; /* PREVIEW: the draft; MODE: the
				      * current; APPLY: the new ones */
	size_t sample;               /* PREVIEW: 0 = CT_PREVIEW_SAMPLE_MAX */
	const char *json;            /* APPLY: the document to insert */
	int base_version;            /* APPLY: the version it replaces; MODE:
				      * the version settings came from */
	char action[24];             /* APPLY: settings.update / .undo */
	char note[120];
	int n_jobs;                  /* APPLY: then rescore these */
	int64_t jobs[TW_MAX_JOBS];
	char job_names[TW_MAX_JOBS][72];
};

/* Where the running job is (read with tw_poll). */
struct tw_progress {
	enum tw_kind kind;     /* TW_NONE when idle */
	size_t done, total;    /* tasks of the current rescore */
	int job_i, n_jobs;     /* APPLY: which job of how many (1-based) */
	char what[160];        /* "rescore job alpha (frontier)" */
	double started;        /* monotonic seconds */
	bool cancelling;
};

/* How it ended. */
struct tw_result {
	enum tw_kind kind;
	int tag;               /* tw_req.tag */
	ct_status st;          /* the first failure, or CT_OK */
	char msg[600];         /* what happened, one line */
	bool cancelled;
	int64_t job;
	int new_version;       /* APPLY: the version written (0: none) */
	size_t done, changed;  /* tasks rescored, of those changed */
	double secs;
	struct ct_preview preview; /* PREVIEW */
};

struct tw;

/* A worker for dsn (copied; NULL = libpq defaults) whose queries are
 * bounded by timeout_ms. NULL when out of memory or out of pipes. */
struct tw *tw_new(const char *dsn, int timeout_ms);
/* Cancel what runs and wait up to wait_s seconds for it to stop; free
 * the worker if it did (a thread still running keeps it: the process is
 * ending). NULL is fine. */
void tw_free(struct tw *w, double wait_s);
/* The read end of the pipe, for poll(). */
int tw_fd(const struct tw *w);
/* Start r on a new thread. -1 with err when a job is running already or
 * the thread cannot start. */
int tw_start(struct tw *w, const struct tw_req *r, struct ct_error *err);
/* Ask the running job to stop (no-op when idle). */
void tw_cancel(struct tw *w);
/* The kind of the job running, TW_NONE when idle. */
enum tw_kind tw_running(const struct tw *w);
/* After the fd was readable (or any time): drain the pipe, copy the
 * progress to *p. When the job has ended, copy its result to *res, reap
 * the thread and return 1 (the worker is idle again); else 0. */
int tw_poll(struct tw *w, struct tw_progress *p, struct tw_result *res);

#endif
