/* model.h: what the console knows about the task store, as plain data.
 *
 * The model is filled from query results (rows of strings, aquery.h) and
 * read by the views and the batch printer. It never calls curses and
 * never talks to the database: fetch.c does that. Every array is fixed
 * size and owned by the model; nothing here allocates. */
#ifndef CT_TUI_MODEL_H
#define CT_TUI_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "aquery.h"

#define TM_MAX_JOBS 512
#define TM_MAX_HEAT 256
#define TM_MAX_SERIES 600
#define TM_MAX_NEXT 64
#define TM_MAX_AUDIT 200 /* the audit view's rows; the panel loads 64 */
#define TM_MAX_LEASES 64
#define TM_MAX_QUEUE 200 /* the queue view's rows (next_tasks, find_tasks) */
#define TM_SERIES_SECONDS 300 /* the sparkline covers the last 5 minutes */

/* One row of crawltop.dashboard_jobs(). */
struct tm_job {
	int64_t id;
	char name[72];
	char domain[256];
	char mode[16];
	int priority;
	char status[16]; /* shown: crawltop.job_status_shown() */
	/* tasks by shown status: running = leased to a worker, retrying =
	 * failed and waiting for its retry backoff (nobody fetches it) */
	long long total, pending, running, retrying, completed, failed, skipped;
	double claims_s, completions_s;
	/* crawltop.job_health() (0024): the store's view of the crawlers */
	double last_claim_s;     /* since the last claim; -1: none in the window */
	double quiet_s;          /* since the last claim or change of the job */
	long long live_leases, expired_leases, workers;
	double next_expiry_s;    /* until the first live lease runs out; -1 none */
	/* a change its tasks are not all rescored for yet (0027) */
	double rescore_needed_s; /* since that change; -1: none */
	char rescore_reason[64]; /* "mode fifo", "settings v7" */
	/* the console's own: failed tasks over the last minute (model.c) */
	long long fail_mark;     /* failed at fail_mark_at */
	double fail_mark_at;     /* monotonic seconds; 0 = not yet */
	long long failed_per_min;/* the last full minute's increase, -1 unknown */
};

/* When a job is a problem (the console's settings, prefs.c). */
struct tm_health_opts {
	double stall_s;          /* pending work, no claim and no live lease
				  * for this long: stalled */
	long long retrying_max;  /* more tasks than this waiting for a retry */
	long long failed_per_min;/* more tasks than this failed in a minute */
};

/* A job's problem, if any. */
enum tm_problem { TM_OK, TM_STALLED, TM_FAILING, TM_STALE };

/* A dataset's freshness: when it was last loaded, and its last error. */
struct tm_age {
	double loaded_at;  /* monotonic seconds; 0 = never */
	char error[256];   /* "" when the last load worked */
};

enum { TM_DEPTH_N = 5, TM_SCORE_N = 5, TM_PRIO_N = 10, TM_CLASS_N = 4,
       TM_STATUS_N = 6 };

struct tm_heat {
	char method[33], type[33];
	long long n;
};

/* crawltop.dashboard_cells(job): the queue's distributions. */
struct tm_cells {
	long long cls[TM_CLASS_N];      /* P0..P3 */
	long long depth[TM_DEPTH_N];    /* 0, 1, 2, 3+, unknown */
	long long score[TM_SCORE_N];    /* 0-20 .. 80-100 */
	long long prio[TM_PRIO_N];      /* job priority 1..10 */
	long long status[TM_STATUS_N];  /* pending running retrying completed
					 * failed skipped */
	struct tm_heat heat[TM_MAX_HEAT];
	int n_heat;
	int64_t job;                    /* which job they describe; 0 = all */
};

struct tm_next {
	int64_t task_id, job_id;
	char path[256];
	double score;
	int cls, job_priority;
	double age_s;      /* since discovery */
	int depth;         /* -1 unknown */
	char type[33], method[33];
	char status[16];   /* shown; "pending" for the next-up rows */
	long long inlinks; /* a job in importance mode: links in (0033);
			    * -1 in the other modes */
};
#define TM_TASK_COLS 12 /* the columns of fetch.c's task rows */

/* crawltop.task_card() (0028): one task, whole (the task view). */
struct tm_card {
	int64_t task_id, job_id;
	char job[72], mode[16], path[512], status[16];
	double score, base_score, adjustment;
	int cls, job_priority, depth;      /* depth -1: unknown */
	char type[33], method[33], source_type[16], source_path[256];
	double age_s;                      /* since discovery */
	int retries, max_retries, expiries;
	char last_error[512], worker[64];
	double lease_left_s;               /* NAN: no lease */
	char inputs[1024];                 /* score inputs, JSON; "" none */
	int ranked;
	double discovery_score;
	int priority_class;
	long long ahead_all, ahead_job;    /* -1: not pending; -2: pending,
					    * not counted yet */
	long long position_limit;          /* counted up to this */
};

struct tm_audit {
	int64_t id;
	char at[24];       /* "HH:MM:SS" or "MM-DD HH:MM" */
	char role[64], app[64], action[32];
	int64_t job_id;    /* 0 = none */
	char before[1024], after[1024]; /* JSON text (change.h) */
	long long rows;
};

/* One row of crawltop.running_leases() (0025): a task a worker holds. */
struct tm_lease {
	int64_t task_id, job_id;
	char job[72], worker[64], path[256];
	double running_s;  /* since the claim; -1 unknown */
	double expires_s;  /* until the lease runs out; negative: expired */
	int retries;
};

/* The model. */
struct tm_model {
	struct tm_job jobs[TM_MAX_JOBS];
	int n_jobs;
	struct tm_age jobs_age;

	struct tm_cells cells;
	struct tm_age cells_age;

	/* claims and completions per second, index 0 = oldest, the last
	 * TM_SERIES_SECONDS seconds up to series_end (server epoch) */
	double claims[TM_SERIES_SECONDS], completions[TM_SERIES_SECONDS];
	long long series_end;
	struct tm_age series_age;

	struct tm_next next[TM_MAX_NEXT];
	int n_next;
	struct tm_age next_age;

	struct tm_audit audit[TM_MAX_AUDIT];
	int n_audit;
	struct tm_age audit_age;

	/* the audit view's opened row (A, Enter): its before and after
	 * whole, read again by id */
	int64_t arow_id;           /* 0: none loaded */
	char *arow_before, *arow_after; /* owned (tm_free), whole */
	struct tm_age arow_age;

	/* the queue view (n): the next tasks, or those found by path */
	struct tm_next queue[TM_MAX_QUEUE];
	int n_queue;
	struct tm_age queue_age;
	/* the task view (Enter on a queue row) */
	struct tm_card card;
	int have_card;
	struct tm_age card_age;

	/* the leases view (W): loaded only while it is open */
	struct tm_lease leases[TM_MAX_LEASES];
	int n_leases;
	struct tm_age leases_age;

	/* the session: who we are and what we may do */
	char user[64];
	char server[32];
	int can_change;        /* the role may reprioritise */
	char cannot_why[160];  /* why not, when can_change is 0 */
};

/* Totals over the jobs that match job (0 = all). */
struct tm_totals {
	long long total, pending, running, retrying, completed, failed, skipped;
	double claims_s, completions_s;
	double eta_s;          /* (pending + running + retrying) /
				* completions_s; -1 unknown */
};

void tm_init(struct tm_model *m);
/* Free what the model owns (the audit row opened); tm_init again to
 * reuse it. */
void tm_free(struct tm_model *m);

/* Load one query's rows into the model; on a failed query only the
 * dataset's error is set and its old data kept (the last frame stays).
 * now: monotonic seconds. Each returns 0, or -1 when the rows do not have
 * the expected columns (the error then says so). */
int tm_load_jobs(struct tm_model *m, const struct ct_arows *r, double now);
int tm_load_cells(struct tm_model *m, const struct ct_arows *r, int64_t job,
		  double now);
int tm_load_series(struct tm_model *m, const struct ct_arows *r, double now);
int tm_load_next(struct tm_model *m, const struct ct_arows *r, double now);
int tm_load_audit(struct tm_model *m, const struct ct_arows *r, double now);
int tm_load_role(struct tm_model *m, const struct ct_arows *r);
int tm_load_leases(struct tm_model *m, const struct ct_arows *r, double now);
/* The queue view's rows: fetch.c's TM_TASK_COLS columns of next_tasks,
 * find_tasks or task_rows. */
int tm_load_queue(struct tm_model *m, const struct ct_arows *r, double now);
int tm_load_card(struct tm_model *m, const struct ct_arows *r, double now);
/* id, before, after of one audit row. */
int tm_load_arow(struct tm_model *m, const struct ct_arows *r, double now);

/* The job with this id, or NULL. Borrowed from m. */
const struct tm_job *tm_job_by_id(const struct tm_model *m, int64_t id);
/* A change of job id that the database confirmed, until the next load of
 * the jobs: priority (0: kept) and shown status (NULL: kept). */
void tm_job_changed(struct tm_model *m, int64_t id, int priority,
		    const char *status);
/* The job named name, or with id given as digits; NULL if none. */
const struct tm_job *tm_job_find(const struct tm_model *m, const char *name);
/* Totals over all jobs (job 0) or one. */
void tm_totals(const struct tm_model *m, int64_t job, struct tm_totals *t);
/* A job's unfinished tasks: pending, running and retrying (what a
 * rescore rescores, 0005: status pending or running). */
long long tm_job_unfinished(const struct tm_job *j);
/* A job's ETA in seconds: its pending, running and retrying tasks at
 * its completion rate; 0 when every task is finished. -1 when there is
 * no estimate: no completions, paused, cancelled, no tasks, or only
 * retries waiting for their backoff. */
double tm_job_eta(const struct tm_job *j);

/* TM_STALE when a job has unfinished tasks and a change (a mode, a
 * settings version) whose rescore was stopped or failed (0027), with
 * why. */
enum tm_problem tm_job_stale(const struct tm_job *j, char *why, size_t len);
/* A job's problem under o, and (when why is not NULL) why, in words an
 * operator acts on: "no claim for 2m, no live lease", "14 tasks waiting
 * for a retry". Cancelled and finished jobs have none; a paused one may
 * be stale only. Failing comes first, then stalled, then stale. */
enum tm_problem tm_job_problem(const struct tm_job *j,
			       const struct tm_health_opts *o, char *why,
			       size_t len);
/* The word the STATUS column shows: "stalled", "failing" or "stale" for a
 * problem, else the shown status. Static. */
const char *tm_job_state(const struct tm_job *j,
			 const struct tm_health_opts *o);
/* How many jobs (of job, 0 = all) have a problem. */
int tm_problems(const struct tm_model *m, int64_t job,
		const struct tm_health_opts *o);

/* ---- the jobs table: columns, sort and filter ------------------------ */

enum tm_col {
	TM_COL_ID, TM_COL_NAME, TM_COL_DOMAIN, TM_COL_MODE, TM_COL_PRI,
	TM_COL_STATUS, TM_COL_PROGRESS, TM_COL_PENDING, TM_COL_RUNNING,
	TM_COL_RETRYING, TM_COL_FAILED, TM_COL_RATE, TM_COL_ETA, TM_COL_N
};

/* Column names as the header, the sort setting and the batch output show
 * them ("ID", "NAME", ...). Static. */
const char *tm_col_name(enum tm_col c);
/* The column with this name (case-insensitive), or -1. */
int tm_col_by_name(const char *name);

/* The short words a narrow job table shows for a mode ("impt") and a
 * status ("done"); other words as they are. */
const char *tm_mode_short(const char *mode);
const char *tm_status_short(const char *status);

/* Fill idx (capacity TM_MAX_JOBS) with the indexes of the jobs that match
 * filter (a case-insensitive substring of name, domain, mode or status,
 * or of their short words; NULL or "" = all), sorted by column col (desc: descending), ties by id.
 * Returns how many. */
int tm_jobs_view(const struct tm_model *m, const char *filter,
		 enum tm_col col, int desc, int *idx);

#endif
