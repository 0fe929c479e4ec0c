/* rank_ops.h: what `crawltop rank`, `stats --ranking`, `settings history`
 * and `explain` need from the store beyond store.h, stats.h, cli_ops.h and
 * settings_store.h: seed 003's ranking run over the discovered URLs, the
 * run manifest, the settings history and one task's record.
 *
 * Errors follow store.h: a ct_status, and err says "<what>: message
 * (SQLSTATE xxxxx)". */
#ifndef CRAWLTOP_STORE_RANK_OPS_H
#define CRAWLTOP_STORE_RANK_OPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "crawltop/settings.h"
#include "store.h"

/* ---- the ranking run ---------------------------------------------------- */

struct ct_rank_opts {
	const struct ct_settings *settings; /* weights, class bounds, backoff;
					     * borrowed, must pass
					     * ct_settings_check */
	int64_t job_id;   /* 0: every job in discovery mode */
	size_t batch;     /* tasks per transaction; 0: 10,000 */
	const char *note; /* the manifest's note; may be NULL */
	/* The stored settings version `settings` is, unchanged; 0 when it is
	 * none (a file, environment overrides, bounds from the command
	 * line). The manifest records it (NULL for 0). */
	int settings_version;
	/* More connections to rank with in parallel (n_extra of them, each
	 * its own ct_store, none the main one; borrowed): the task id range
	 * is cut into 1 + n_extra stripes, each ranked on its own thread. */
	struct ct_store *const *extra;
	size_t n_extra;
};

/* At most this many connections (the main one included) rank at once. */
#define CT_RANK_MAX_CONNS 16

/* One run_manifest row. */
struct ct_run_manifest {
	int64_t id;
	int64_t job_id;          /* 0: a run over all discovery jobs */
	char run_at[32];         /* "YYYY-MM-DD HH:MM:SS" in the session's zone */
	long long count[4];      /* P0..P3 */
	long long unranked;
	double avg_score;
	long long bucket[5];     /* 0-20, 20-40, 40-60, 60-80, 80-100 */
	int settings_version;    /* 0: none */
	char note[256];
	char job_name[65];       /* job_id's name; "" for a run of all jobs */
};

struct ct_rank_result {
	long long ranked;        /* tasks scored and classed by this run */
	long long unranked;      /* unfinished tasks without inputs, left
				  * unranked */
	long batches;            /* transactions committed */
	long retried;            /* batches the server rolled back (deadlock,
				  * serialization failure) and tried again */
	struct ct_run_manifest manifest; /* the row recorded */
};

/* Rank the unfinished (pending and running) tasks of o->job_id, which
 * must be in discovery mode (CT_EINVAL otherwise), or of every discovery
 * job: each task's sub-scores (score_inputs.subscores, else the raw
 * score_inputs.signals through ct_discovery_subscores) are scored with
 * the engine under o->settings; discovery_score, priority_class, score,
 * class, ranked_at, signals (the sub-scores used, and for raw signals
 * ns_asn_changes, their NS + ASN changes), backoff_step and next_check_at
 * (seed 003's backoff, from the task's last ranking: doc/scoring.md,
 * Backoff; the wait is ct_backoff_hours, NULL for P0/P1) are written with
 * one set-based UPDATE per batch, each batch its own transaction, the
 * tasks locked in id order. Tasks without inputs
 * stay unranked. Then one run_manifest row is recorded
 * (crawltop.record_run_manifest) and read back into out->manifest.
 * Refused before anything is written when there is no discovery job, or
 * when a connection is inside a transaction. An error in a batch rolls
 * that batch back and stops the other stripes after their current batch;
 * batches committed before it stay (out->batches, out->ranked). */
ct_status ct_store_rank(struct ct_store *s, const struct ct_rank_opts *o,
			struct ct_rank_result *out, struct ct_error *err);

/* The latest run_manifest row of job_id (0: of any run), or, with date
 * ("YYYY-MM-DD", may be NULL), the latest of that day in the session's
 * zone. CT_ENOENT when there is none. */
ct_status ct_store_run_manifest(struct ct_store *s, int64_t job_id,
				const char *date, struct ct_run_manifest *out,
				struct ct_error *err);

/* ---- settings history --------------------------------------------------- */

/* One settings version with what changed from the version before it. */
struct ct_settings_hist {
	int version;
	char created_at[32];
	char created_by[64];
	char note[160];
	char *changes;  /* "key: old -> new; ..." (malloc'd; "" for the first) */
};

struct ct_settings_hist_list {
	struct ct_settings_hist *v;
	size_t n;
};

/* Every settings version, oldest first, each with the dotted keys whose
 * value differs from the version before it. Free with
 * ct_settings_hist_free. */
ct_status ct_store_settings_history(struct ct_store *s,
				    struct ct_settings_hist_list *out,
				    struct ct_error *err);
void ct_settings_hist_free(struct ct_settings_hist_list *l);

/* The newest settings version older than `version`; CT_ENOENT when
 * version is the first. */
ct_status ct_store_settings_previous(struct ct_store *s, int version,
				     int *prev, struct ct_error *err);

/* ---- one task ----------------------------------------------------------- */

/* A task's lease and attempts (`crawltop explain`). A running task with a
 * lease owner is being fetched by that worker; one without an owner failed
 * and waits for its retry backoff ("retrying": the claims' reaper makes it
 * pending once expires_at has passed). */
struct ct_task_lease {
	char owner[132];      /* the worker holding the lease; "" for none */
	char expires_at[32];  /* lease_expires_at, "YYYY-MM-DD HH:MM:SS" in
			       * the session's time zone; "" for none */
	long long expires_in; /* whole seconds until then (<= 0: passed) */
	int retry_count;      /* failed attempts so far */
	int max_retries;      /* the job's limit */
	int expiries;         /* leases that ran out with their worker
			       * gone (no failed attempt: 0016) */
	char last_error[400]; /* the last failure's message, quoted and
			       * shortened (crawltop.shown); "" for none */
};

/* One task of a page, with its ranking record and the inputs of its
 * score. Strings are copied; inputs is malloc'd (ct_task_view_free). */
struct ct_task_view {
	int64_t task_id, job_id, page_id;
	char job_name[65];
	char mode[16];
	char status[16];         /* shown (crawltop.task_status_shown):
				  * pending, running, retrying, completed,
				  * failed, skipped */
	int job_priority;        /* 1..10 (101..110: paused) */
	double score;
	int cls;
	bool ranked;
	double discovery_score;
	int priority_class;
	char next_check_at[32];  /* "" when none */
	int backoff_step;
	double page_score;       /* hierarchy priority_score, 0..1 */
	char source_type[16];
	char source_path[256];   /* the source page's path, "" when unknown */
	double source_score;     /* the source page's priority_score; -1 */
	int depth;               /* -1 unknown */
	char *inputs;            /* score_inputs as JSON text, NULL when none */
	char *signals;           /* tasks.signals as JSON text, NULL when none */
	char created_at[32];
	double base_score;       /* the score its mode gives it, 0..100 */
	double adjustment;       /* operator boosts (+) and demotions (-) kept
				  * across rescores: score = base_score +
				  * adjustment, clamped to 0..100 */
	struct ct_task_lease lease;
	int64_t rank_run;        /* the run manifest of the ranking run that
				  * ranked it last (the run whose span, from
				  * its start to its record, holds ranked_at,
				  * of its job or of every job); 0 when none */
	char rank_note[256];     /* that manifest's note ("" when none): a
				  * `crawltop rank` note gives the run's
				  * class bounds (rankfmt_note_bounds) */
};
void ct_task_view_free(struct ct_task_view *t);

/* The task of the page at path in job job_id's domain. CT_ENOENT when the
 * job has no such task. */
ct_status ct_store_task_view(struct ct_store *s, int64_t job_id,
			     const char *path, struct ct_task_view *out,
			     struct ct_error *err);

/* The sub-scores of task task_id from its stored score inputs
 * (score_inputs.subscores, else its raw signals through the engine);
 * *from is "subscores", "signals", or NULL when it has neither. */
ct_status ct_store_task_subscores(struct ct_store *s, int64_t task_id,
				  double sub[CT_SUB_COUNT], const char **from,
				  struct ct_error *err);

/* The jobs over domain (a lower-case host) that have a task for path, by
 * id: up to max ids in ids, the total in *n. */
ct_status ct_store_task_jobs(struct ct_store *s, const char *domain,
			     const char *path, int64_t *ids, size_t max,
			     size_t *n, struct ct_error *err);

/* How many pending tasks a claim would hand out before task_id (claim
 * order: job priority, score descending, discovery time, id), counted up
 * to limit; with all_jobs the order of claims from every job, else of
 * claims from its job. *beyond is set when the count reached limit. */
ct_status ct_store_queue_position(struct ct_store *s, int64_t task_id,
				  bool all_jobs, long long limit,
				  long long *ahead, bool *beyond,
				  struct ct_error *err);

#endif
