/* stats.h: the task store's live statistics and change notifications
 * (issue 3 points 6 and 7), seen from C.
 *
 * The statistics are thin wrappers of the SQL read API of
 * data/sql/0007_counters.sql, which the console may also call directly:
 *   crawltop.dashboard_jobs()             -> ct_store_stats_jobs
 *   crawltop.dashboard_cells(job)         -> ct_store_stats_cells
 *   crawltop.rate_series(job, seconds)    -> ct_store_stats_rates
 *   crawltop.next_tasks(job, limit)       -> ct_store_next_tasks
 * Each reads counters that the database keeps incrementally, so a call
 * costs O(cells), not O(tasks), and works on a read-only standby.
 *
 * Notifications (data/sql/0008_notify.sql): after ct_store_listen, the
 * handle's socket (ct_store_socket) becomes readable when a notification
 * arrives; ct_store_notification_next takes them without blocking.
 *
 * Errors follow store.h: a ct_status, and err names the call, the
 * server's message and the SQLSTATE. A role without the privilege gets
 * CT_EINVAL and "<what>: permission denied ... (SQLSTATE 42501)". */
#ifndef CRAWLTOP_STORE_STATS_H
#define CRAWLTOP_STORE_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "store.h"

/* ---- statistics (stats.c) ---------------------------------------------- */

/* One row of crawltop.dashboard_jobs(). Strings point into the list's
 * storage. */
struct ct_job_stats {
	int64_t job_id;
	const char *name, *domain;
	const char *mode;         /* fifo, hierarchy, frontier, ... */
	int priority;             /* 1..10 */
	const char *status;       /* shown (crawltop.job_status_shown): pending,
				   * running, retrying, paused, completed,
				   * cancelled */
	long total_pages;
	/* tasks by shown status: running = leased to a worker, retrying =
	 * failed, waiting for the retry backoff (nobody fetches it) */
	int64_t pending, running, retrying, completed, failed, skipped;
	double claims_per_s;      /* averaged over the last 60 s */
	double completions_per_s;
};

/* Every job, by id. Owns its rows and strings. */
struct ct_job_stats_list {
	struct ct_job_stats *jobs;
	size_t n;
};

/* Fill *out with one row per job. Free it with ct_job_stats_list_free. */
ct_status ct_store_stats_jobs(struct ct_store *s, struct ct_job_stats_list *out,
			      struct ct_error *err);
void ct_job_stats_list_free(struct ct_job_stats_list *l);

/* One counter: dim is status, class, depth, heat, priority, score or rank;
 * key as crawltop.dashboard_cells documents ('P0', '3+', 'sitemap|article',
 * '80-100', ...). Strings point into the set's storage. */
struct ct_stat_cell {
	const char *dim, *key;
	int64_t n;
};

/* The counters of one job or of all jobs, in the SQL function's order.
 * Owns its cells and strings. */
struct ct_stat_cells {
	struct ct_stat_cell *cells;
	size_t n;
};

/* Fill *out with the counters of job_id (0: all jobs summed); CT_ENOENT
 * for a job that does not exist. Free with ct_stat_cells_free. */
ct_status ct_store_stats_cells(struct ct_store *s, int64_t job_id,
			       struct ct_stat_cells *out, struct ct_error *err);
void ct_stat_cells_free(struct ct_stat_cells *c);
/* The count of (dim, key) in c; 0 when c has no such cell. */
int64_t ct_stat_cells_get(const struct ct_stat_cells *c, const char *dim,
			  const char *key);

/* Claims and completions in one second. */
struct ct_rate_point {
	int64_t second; /* start of the second, seconds since the epoch (UTC) */
	int64_t claims, completions;
};

/* A series of seconds, oldest first, the current second last. */
struct ct_rate_series {
	struct ct_rate_point *points;
	size_t n;
};

/* The last `seconds` seconds (1..600) of job_id (0: all jobs), a second
 * without claims or completions as 0. Free with ct_rate_series_free. */
ct_status ct_store_stats_rates(struct ct_store *s, int64_t job_id, int seconds,
			       struct ct_rate_series *out, struct ct_error *err);
void ct_rate_series_free(struct ct_rate_series *r);

/* One row of crawltop.next_tasks(). Strings point into the list's
 * storage; type and discovery_method are NULL when unknown. */
struct ct_next_task {
	int64_t task_id, job_id;
	const char *path;
	double score;
	int cls;                  /* 0..3: P0..P3 */
	int job_priority;
	int64_t discovered_us;    /* created_at, microseconds since the epoch */
	int depth;                /* -1 = unknown */
	const char *type, *discovery_method;
};

struct ct_next_tasks {
	struct ct_next_task *tasks;
	size_t n;
};

/* The next `limit` (1..1000) tasks a claim from job_id (0: all jobs) would
 * hand out now, in claim order; a plain read that locks nothing. Free with
 * ct_next_tasks_free. */
ct_status ct_store_next_tasks(struct ct_store *s, int64_t job_id, int limit,
			      struct ct_next_tasks *out, struct ct_error *err);
void ct_next_tasks_free(struct ct_next_tasks *t);

/* Fold the counter shards no transaction holds into one (optional
 * maintenance; never waits). *shards (may be NULL) receives the number
 * folded. */
ct_status ct_store_compact_counts(struct ct_store *s, int *shards,
				  struct ct_error *err);

/* ---- notifications (notify.c) ------------------------------------------ */

/* The channels the store notifies on. */
#define CT_CHANNEL_SETTINGS "crawltop_settings" /* payload: settings version */
#define CT_CHANNEL_JOBS "crawltop_jobs"
/* payload of CT_CHANNEL_JOBS: JSON, e.g. {"op": "update", "job_id": 42,
 * "changed": ["priority"]} (op: insert, update or delete; changed: the
 * columns whose value changed, sorted; every column for insert and
 * delete; total_pages and updated_at alone do not notify) */

/* PostgreSQL's limits: a channel name is below 64 bytes, a payload below
 * 8000. */
#define CT_CHANNEL_MAX 64
#define CT_PAYLOAD_MAX 8000

struct ct_notification {
	char channel[CT_CHANNEL_MAX];
	char payload[CT_PAYLOAD_MAX];
	int be_pid; /* server process that sent it (ct_store_backend_pid) */
};

/* Start (LISTEN) or stop (UNLISTEN) receiving notifications on channel:
 * 1 to 63 of [a-z0-9_], starting with a letter or '_' (other names are
 * refused with CT_EINVAL before anything is sent). Notifications sent by
 * transactions that commit after LISTEN returns are received. */
ct_status ct_store_listen(struct ct_store *s, const char *channel,
			  struct ct_error *err);
ct_status ct_store_unlisten(struct ct_store *s, const char *channel,
			    struct ct_error *err);

/* The connection's socket, for poll()/select() readability in an event
 * loop; -1 when the connection is gone. Valid until ct_store_close. */
int ct_store_socket(const struct ct_store *s);

/* The server process id of this connection: notifications whose be_pid
 * equals it were caused by this handle's own changes. */
int ct_store_backend_pid(const struct ct_store *s);

/* Take the next notification that has arrived, without blocking: reads
 * what the socket has (PQconsumeInput), then returns the oldest one in *n
 * with *got = 1, or *got = 0 when there is none. CT_EIO when the
 * connection is lost. A payload longer than the buffer is truncated. */
ct_status ct_store_notification_next(struct ct_store *s,
				     struct ct_notification *n, int *got,
				     struct ct_error *err);

/* Wait up to timeout_ms (0: do not wait; negative: no limit) until a
 * notification is available; *got as ct_store_notification_next, which
 * it calls. For programs without an event loop (tools, tests). */
ct_status ct_store_notification_wait(struct ct_store *s, int timeout_ms,
				     struct ct_notification *n, int *got,
				     struct ct_error *err);

#endif
