/* store.h: the PostgreSQL task store (issue 3), seen from C.
 *
 * Everything here is a thin wrapper around SQL functions in schema
 * `crawltop` (data/sql/), which crawlers in any language call the same way.
 * Only src/store/ includes libpq-fe.h; this header exposes no libpq type.
 *
 * Every function returns a ct_status and, on failure, fills err (which may
 * be NULL) with one sentence that names the statement, the server's message
 * and the SQLSTATE, e.g.
 *   "enqueue: job 42 does not exist (SQLSTATE P0002)".
 * ct_store_sqlstate() returns that SQLSTATE for programs that branch on it.
 * Status mapping: SQLSTATE P0002 -> CT_ENOENT; 22003 -> CT_ERANGE; other
 * class 22 and 23, 42501, 55000 and 25006 (a read-only server or session)
 * -> CT_EINVAL; 53xxx -> CT_ENOMEM; anything else (connection lost,
 * server error) -> CT_EIO.
 *
 * A store handle is one connection: use one per thread. The library never
 * prints: server notices go to the hook set with ct_store_set_notice_hook
 * (dropped by default). */
#ifndef CRAWLTOP_STORE_H
#define CRAWLTOP_STORE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "crawltop/hierarchy.h"
#include "crawltop/settings.h"
#include "crawltop/status.h"

struct ct_store;

/* Connect. dsn is a libpq connection string or URI; NULL or "" uses the
 * libpq defaults (PGHOST, PGDATABASE, ...). The session uses UTF8 and, when
 * neither the DSN nor PGAPPNAME names one, application_name "crawltop"
 * (ct_store_open_as: app, such as "crawltop console", which audit rows
 * then record). On success *out is a new handle the caller frees with
 * ct_store_close. */
ct_status ct_store_open_as(const char *dsn, const char *app,
			   struct ct_store **out, struct ct_error *err);
ct_status ct_store_open(const char *dsn, struct ct_store **out,
			struct ct_error *err);
/* Close the connection and free the handle (NULL is fine). */
void ct_store_close(struct ct_store *s);

/* ids[0..n) as an array literal, "{1,2,3}", for a $n::bigint[]
 * parameter. NULL: out of memory. The caller frees it. */
char *ct_store_id_array(const int64_t *ids, size_t n);

/* SQLSTATE of the last failed call on s ("" when the failure did not come
 * from the server, or nothing failed yet). Borrowed, valid until the next
 * call on s. */
const char *ct_store_sqlstate(const struct ct_store *s);

/* Whether the last failed call on s was rolled back by the server to break
 * a deadlock (40P01) or a serialization failure (40001): it changed
 * nothing, and the transaction is to be tried again. */
bool ct_store_rolled_back(const struct ct_store *s);

/* Whether s lost its server: the connection is broken (the server was
 * stopped, restarted or crashed, the session terminated, the network
 * dropped). Nothing more can be done on s: close it and open another. */
bool ct_store_lost(const struct ct_store *s);

/* Stopping what a session runs, from another thread. ct_store_canceller
 * is made while no call on s runs, and stays valid after s is closed.
 * ct_store_canceller_send asks the server to cancel the statement the
 * session runs at that moment (nothing, if it runs none): it connects to
 * the server and waits for its answer, so it belongs on a thread that may
 * wait, never on an event loop. The cancelled call fails with SQLSTATE
 * 57014 (ct_store_cancelled) and its transaction is rolled back. */
struct ct_store_canceller;
struct ct_store_canceller *ct_store_canceller_new(struct ct_store *s);
void ct_store_canceller_send(struct ct_store_canceller *c);
void ct_store_canceller_free(struct ct_store_canceller *c);
/* Whether the last failed call on s was cancelled (57014: that way, or by
 * statement_timeout). */
bool ct_store_cancelled(const struct ct_store *s);

/* Receive server notices (severity and message, both borrowed for the
 * call). fn NULL drops them, which is the default. */
typedef void ct_store_notice_fn(void *ctx, const char *severity,
				const char *message);
void ct_store_set_notice_hook(struct ct_store *s, ct_store_notice_fn *fn,
			      void *ctx);

/* Run one SQL text with no parameters and discard its result: for tests,
 * tools and migrations, never for outside values. */
ct_status ct_store_exec(struct ct_store *s, const char *what, const char *sql,
			struct ct_error *err);

/* Run one statement with n text parameters (outside values go here, never
 * into sql) and copy the first column of its first row into buf, truncated
 * to len - 1 bytes; "" when there is no row or the value is NULL. *rows
 * (may be NULL) receives the number of rows returned or affected. For
 * tests and tools. */
ct_status ct_store_query(struct ct_store *s, const char *what, const char *sql,
			 int n, const char *const *params, char *buf,
			 size_t len, long *rows, struct ct_error *err);

/* ---- migrations (migrate.c) ------------------------------------------- */

/* The directory holding the numbered migrations: $CRAWLTOP_SQL_DIR when
 * set and non-empty, else the source tree's data/sql when it exists (baked
 * in at build time), else the installed datadir/crawltop/sql. Static. */
const char *ct_store_sql_dir(void);

struct ct_migrate_result {
	int from_version; /* recorded version before (0: none) */
	int to_version;   /* recorded version after */
	int known;        /* highest version found in the directory */
	int applied;      /* migrations applied by this call */
};

/* Apply the migrations NNNN_name.sql of sql_dir (NULL: ct_store_sql_dir())
 * that the database has not recorded, in order, each in one transaction
 * recorded in crawltop.schema_version. Concurrent callers serialise on an
 * advisory lock; a second run applies nothing. Refused (CT_EINVAL, nothing
 * changed) when the database records a newer version than the directory
 * knows, when the numbering has a gap or a duplicate, or when the server
 * encoding is not UTF8. A failing migration is rolled back and reported
 * with its file name; earlier ones stay applied. */
ct_status ct_store_migrate(struct ct_store *s, const char *sql_dir,
			   struct ct_migrate_result *res, struct ct_error *err);

/* The version recorded in crawltop.schema_version (0 when the table does
 * not exist yet). */
ct_status ct_store_schema_version(struct ct_store *s, int *out,
				  struct ct_error *err);

/* ---- jobs and enqueue (enqueue.c) ------------------------------------- */

/* The mode of a job created without one (0034; doc/ordering.md says
 * why). */
#define CT_MODE_DEFAULT "importance"

/* Create a job over a domain (created when new). name: 1..64 of
 * [A-Za-z0-9._-], starting with a letter or digit; domain: a lower-case
 * host name; priority 1..10; mode one of fifo, hierarchy, frontier,
 * discovery, freshness, importance (NULL: CT_MODE_DEFAULT). *id receives
 * the job id. */
ct_status ct_store_job_create(struct ct_store *s, const char *name,
			      const char *domain, int priority,
			      const char *mode, int64_t *id,
			      struct ct_error *err);

/* The id of the page at path in job_id's domain; CT_ENOENT when there is
 * none. */
ct_status ct_store_page_id(struct ct_store *s, int64_t job_id,
			   const char *path, int64_t *id, struct ct_error *err);

/* A batch of discovered paths for one job (crawltop.enqueue). Borrowed. */
struct ct_enqueue_batch {
	int64_t job_id;
	const char *const *paths; /* n page paths, each starting with '/' */
	size_t n;
	/* NULL, or n scores 0..100 for frontier, discovery and freshness
	 * jobs (computed by the engine); fifo, hierarchy and importance
	 * jobs take none: the store computes their scores (importance: from
	 * the links found, with source_page_id set: the page's cash is
	 * shared among its links, importance.h). */
	const double *scores;
	ct_source_type source;
	int64_t source_page_id;   /* page the paths were found on; 0 = unknown */
	const char *source_url;   /* optional, for display */
	int depth;                /* -1 = unknown; other negatives refused */
	const char *type;         /* optional: article, hub, nav, ... */
	const char *discovery_method; /* optional */
	/* NULL, or n JSON objects (each may be NULL): the engine inputs of
	 * each path that have no column (frontier bias, gap, cluster count;
	 * discovery sub-scores or raw signals; freshness visit times), kept
	 * in tasks.score_inputs for rescoring (shapes: 0005_claims_and_modes
	 * .sql, doc/architecture.md). Checked key by key; stored in the same
	 * transaction as the enqueue (crawltop.set_score_inputs). */
	const char *const *inputs;
	/* importance jobs: the links the source page has in all, when a
	 * crawler sends them in several batches (one per page type, say);
	 * 0: this batch's paths (0033) */
	long page_links;
};
#define CT_ENQUEUE_BATCH_INIT {.source = CT_SRC_LINK, .depth = -1}

struct ct_enqueue_result {
	long inserted; /* new tasks */
	long raised;   /* existing pending tasks whose score went up */
};

/* Enqueue a batch in one statement: pages are created as needed, tasks are
 * deduplicated per job, scored by the job's mode (SPEC.md), hierarchy
 * scores only increase, total_pages is kept current. All or nothing: a bad
 * path, score or job refuses the whole batch. With b->inputs, the enqueue
 * and the inputs are one transaction (or part of the caller's, when the
 * connection is inside one); a bad input object refuses the batch. */
ct_status ct_store_enqueue(struct ct_store *s, const struct ct_enqueue_batch *b,
			   struct ct_enqueue_result *res, struct ct_error *err);

/* ---- claim, complete, fail, release (claim.c) -------------------------- */

/* One claimed task. Strings point into the claim's storage. */
struct ct_task {
	int64_t id, job_id, page_id;
	int job_priority;         /* 1..10 */
	double score;             /* 0..100 */
	int cls;                  /* 0..3: P0..P3 */
	int64_t discovered_us;    /* created_at, microseconds since the epoch */
	int64_t lease_expires_us; /* microseconds since the epoch */
	int retry_count;
	int depth;                /* -1 = unknown */
	ct_source_type source;
	const char *domain;       /* host name */
	const char *path;         /* page path, starting with '/' */
};

/* A claimed batch, in SPEC.md's order. Owns its tasks and strings. */
struct ct_claim {
	struct ct_task *tasks;
	size_t n;
};

/* Claim up to n (1..10000) pending tasks for worker, from job job_id or,
 * with job_id 0, from all jobs, in SPEC.md's order, under a lease of
 * lease_seconds (0: the store.lease_seconds setting, 30 by default).
 * Expired leases are returned to pending first. Starvation guard: one in
 * store.starvation_every (10) of the slots this connection claims goes to
 * the tasks pending longest, once they have waited store.starvation_seconds
 * (300); the bound on a task's wait is in doc/architecture.md. out->n may
 * be below n (0 when there is no work). Free out with ct_claim_free. */
ct_status ct_store_claim(struct ct_store *s, const char *worker,
			 int64_t job_id, int n, double lease_seconds,
			 struct ct_claim *out, struct ct_error *err);
void ct_claim_free(struct ct_claim *c);

/* Complete done (n_done ids, may be 0) and claim the next tasks as
 * ct_store_claim does, in one transaction (one round trip a task for a
 * worker that takes one at a time). Every id in done must run under a
 * live lease of worker: otherwise the call fails (SQLSTATE 55000, the
 * message lists them) and nothing is completed or claimed; complete them
 * with ct_store_complete, which says which it refused. */
ct_status ct_store_claim_next(struct ct_store *s, const char *worker,
			      const int64_t *done, size_t n_done,
			      int64_t job_id, int n, double lease_seconds,
			      struct ct_claim *out, struct ct_error *err);

/* Complete tasks that run under a live lease of worker. *done (may be
 * NULL) receives the number completed. CT_OK when every id was completed;
 * otherwise CT_EINVAL with a message listing the refused ids (completed
 * already, leased to another worker, lease expired, unknown). The others
 * are completed all the same: a task is never completed twice. */
ct_status ct_store_complete(struct ct_store *s, const char *worker,
			    const int64_t *ids, size_t n, size_t *done,
			    struct ct_error *err);

/* Record a failed attempt (error: optional text, kept in last_error).
 * With retries left a task is retried after a backoff (min(base x
 * 2^retry_count, max), settings store.retry_base_seconds and
 * store.retry_max_seconds), otherwise it is failed. *retried and *failed
 * (may be NULL) count each outcome; ids not leased to worker are refused
 * as in ct_store_complete. */
ct_status ct_store_fail(struct ct_store *s, const char *worker,
			const int64_t *ids, size_t n, const char *error,
			size_t *retried, size_t *failed, struct ct_error *err);

/* Give tasks back without counting an attempt: pending again at once.
 * Refusals as in ct_store_complete. */
ct_status ct_store_release(struct ct_store *s, const char *worker,
			   const int64_t *ids, size_t n, size_t *done,
			   struct ct_error *err);

/* ---- reprioritisation (reprio.c) --------------------------------------
 * Each call is one transaction that also writes an audit_log row (role,
 * application_name, what, before, after, rows affected); a change that
 * changes nothing writes none. *rows (may be NULL) receives the number of
 * pending tasks changed. A call that PostgreSQL rolls back to break a
 * deadlock (40P01) or a serialization failure (40001) changed nothing and
 * is made again, up to 3 times in all, unless it ran inside a transaction
 * of the caller's (then the caller's transaction is aborted: its to say). */

/* Set a job's priority, 1..10; its pending tasks follow at once. */
ct_status ct_store_job_set_priority(struct ct_store *s, int64_t job_id,
				    int priority, long *rows,
				    struct ct_error *err);

typedef enum ct_job_action {
	CT_JOB_PAUSE,  /* pending or running -> paused: nothing is claimed */
	CT_JOB_RESUME, /* paused -> running */
	CT_JOB_CANCEL, /* -> cancelled: pending tasks become skipped */
} ct_job_action;

/* Pause, resume or cancel a job; a transition that does not apply (resume
 * a running job, cancel a cancelled one) is refused with CT_EINVAL. */
ct_status ct_store_job_act(struct ct_store *s, int64_t job_id,
			   ct_job_action action, long *rows,
			   struct ct_error *err);

/* Boost (delta > 0) or demote (delta < 0) the pending tasks of a job whose
 * path starts with prefix (plain string, no wildcards) by delta points on
 * the 0..100 scale, kept within 0..100. delta: finite, -100..100. */
ct_status ct_store_adjust_scores(struct ct_store *s, int64_t job_id,
				 const char *prefix, double delta, long *rows,
				 struct ct_error *err);
/* The same for the pending tasks whose whole path matches pattern: '*'
 * stands for any run of characters ('/' included), every other character
 * for itself ("*.pdf", "/docs*print"). A pattern starts with '/' or
 * '*'. */
ct_status ct_store_adjust_matching(struct ct_store *s, int64_t job_id,
				   const char *pattern, double delta,
				   long *rows, struct ct_error *err);
/* How many tasks ct_store_adjust_scores (pattern false) or
 * ct_store_adjust_matching (true) would change now, in *rows; nothing is
 * changed or locked (crawltop.adjustable_count, 0026). */
ct_status ct_store_adjustable_count(struct ct_store *s, int64_t job_id,
				    const char *match, bool pattern,
				    double delta, long *rows,
				    struct ct_error *err);

/* Seed 000's batch update after a sitemap: the job's domain's '/' gets
 * at least the settings' hierarchy.root score and every page the job took
 * from a sitemap at least hierarchy.sitemap; in a hierarchy job the
 * pending tasks' mode scores rise to match (operator adjustments kept).
 * Enqueue does this as it goes: this repairs a job after those settings
 * changed. One transaction, one tasks.sitemap audit row when anything
 * rose; *rows: the tasks raised. */
ct_status ct_store_apply_sitemap(struct ct_store *s, int64_t job_id,
				 long *rows, struct ct_error *err);

/* ---- job modes and rescoring (rescore.c) ------------------------------
 * A rescore recomputes the score and class of a job's unfinished (pending
 * and running) tasks with the engine, in batches: each batch is one
 * transaction that locks the job (its mode cannot change meanwhile) and
 * the batch's tasks, computes their scores in C and writes them back with
 * one set-based UPDATE and one audit_log row (tasks.rescore). Scores by
 * mode (SPEC.md): fifo 0; hierarchy = page priority_score x 100;
 * frontier, discovery, freshness from the task's type, depth, discovery
 * method and score inputs (ct_enqueue_batch.inputs) through the engine;
 * importance keeps its score. Class: ct_class_of with the settings'
 * bounds. A discovery task without sub-scores or signals is unranked:
 * stored as P2 at the P2 bound (SPEC.md). */

/* Progress after each committed batch (and (0, total) first): done tasks
 * of total. done never decreases; total is the count at the start, raised
 * to done if tasks were added meanwhile, and, when the rescore ends
 * without cancel, the last call has done == total. */
typedef void ct_rescore_progress_fn(void *ctx, size_t done, size_t total);

struct ct_rescore_opts {
	const struct ct_settings *settings; /* required, borrowed: must pass
					     * ct_settings_check */
	size_t batch;            /* tasks per transaction, 1..100000; 0 = 10000 */
	int64_t now_ms;          /* freshness "now" (epoch ms); 0 = wall clock */
	ct_rescore_progress_fn *progress; /* may be NULL */
	void *progress_ctx;
	/* may be NULL; when it reads nonzero the rescore stops before its
	 * next batch: batches committed stay rescored, the rest untouched */
	const atomic_int *cancel;
	/* the crawltop.settings version *settings came from; 0 = not known.
	 * A job marked for settings version N (ct_store_settings_put_marked)
	 * stays marked after a rescore that names no version or an older
	 * one (0030) */
	int settings_version;
	/* More connections to rescore with in parallel (n_extra of them,
	 * each its own ct_store, none the main one; borrowed): the job's
	 * page ids are cut into 1 + n_extra stripes, each rescored batch by
	 * batch on its own thread and connection (0036). The progress
	 * callback is then called from those threads too, one call at a
	 * time. */
	struct ct_store *const *extra;
	size_t n_extra;
	/* Tasks a stripe at least (0: CT_RESCORE_STRIPE_MIN): a job with
	 * fewer unfinished tasks than this many for each connection is
	 * rescored on fewer connections (one below it), whose batches are
	 * then those of one connection. */
	size_t stripe_min;
};

/* At most this many connections (the main one included) rescore at once. */
#define CT_RESCORE_MAX_CONNS 16
/* A second connection pays for its connect and its thread from about
 * this many tasks on (doc/PERFORMANCE.md, "Rescore"). */
#define CT_RESCORE_STRIPE_MIN 50000

/* The connections a rescore of `unfinished` tasks uses when given
 * `conns`: one for each stripe_min tasks (0: CT_RESCORE_STRIPE_MIN), at
 * least one, at most conns. */
size_t ct_rescore_conns(size_t unfinished, size_t conns, size_t stripe_min);

struct ct_rescore_result {
	char mode[16];     /* the mode the tasks were scored for */
	size_t total;      /* unfinished tasks when the rescore started */
	size_t done;       /* tasks rescored */
	size_t changed;    /* of those, tasks whose score or class changed */
	size_t batches;    /* transactions committed */
	size_t unranked;   /* discovery tasks without sub-scores or signals */
	int settings_version; /* crawltop.settings version at the start */
	bool cancelled;    /* stopped by *cancel (the call still returns CT_OK) */
};

/* Rescore job_id's unfinished tasks for its current mode with o->settings
 * (after a settings change, or a mode change). *res (may be NULL) says
 * what was done, also on failure: a failing batch is rolled back, the
 * batches before it stay. Refused (CT_EINVAL) on a connection inside a
 * transaction: every batch is its own. */
ct_status ct_store_job_rescore(struct ct_store *s, int64_t job_id,
			       const struct ct_rescore_opts *o,
			       struct ct_rescore_result *res,
			       struct ct_error *err);

/* Set job_id's mode (fifo, hierarchy, frontier, discovery, freshness,
 * importance) in one transaction with one audit_log row (job.mode), then,
 * when o is not NULL, rescore its tasks as ct_store_job_rescore does (o
 * NULL: the tasks keep their scores until a rescore). A completed or
 * cancelled job's mode cannot change (CT_EINVAL). If the rescore fails
 * or is cancelled, the mode change stays. */
ct_status ct_store_job_set_mode(struct ct_store *s, int64_t job_id,
				const char *mode,
				const struct ct_rescore_opts *o,
				struct ct_rescore_result *res,
				struct ct_error *err);

/* What switching a job to mode does to the crawlers already enqueueing
 * and claiming for it (0017: crawltop.enqueue takes paths with or without
 * scores in every mode), in one sentence for the console's mode chooser
 * and `job set-mode`. Static; a mode not known gets a generic sentence. */
const char *ct_store_mode_effect(const char *mode);

#endif
