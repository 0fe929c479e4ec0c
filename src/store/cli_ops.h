/* cli_ops.h: the reads and small helpers the scripting commands need
 * (`crawltop job`, `enqueue`, `simulate`) beyond store.h: finding a job
 * by name or id, one job's or every job's row with its task counts, and
 * transactions around several store.h calls.
 *
 * The reads are plain SELECTs on the tables (a crawltop_viewer may run
 * them); nothing here writes except through the transaction helpers.
 * Errors follow store.h: a ct_status, and err says "<what>: message
 * (SQLSTATE xxxxx)". */
#ifndef CRAWLTOP_STORE_CLI_OPS_H
#define CRAWLTOP_STORE_CLI_OPS_H

#include <stddef.h>
#include <stdint.h>

#include "store.h"

/* One job with its task counts. Strings are copied into the struct. */
struct ct_job_info {
	int64_t id;
	char name[65];
	char domain[260];
	char mode[16];
	char status[16];        /* shown: crawltop.job_status_shown() */
	char stored_status[16]; /* jobs.status, the operator's state: what
				 * claim and enqueue go by */
	int priority;         /* 1..10 */
	int max_retries;
	long total_pages;
	/* tasks by shown status (crawltop.task_status_shown): running ones
	 * are leased to a worker; retrying ones failed and wait for their
	 * retry backoff (status running without a lease owner) */
	int64_t pending, running, retrying, completed, failed, skipped;
	char created[40], updated[40]; /* ISO 8601, UTC */
	/* a change its tasks are not all rescored for yet (0027): "" none */
	char rescore_reason[64];
	char rescore_needed[40]; /* since when, ISO 8601, UTC */
};

/* Every job, by id. Owns its array. */
struct ct_job_info_list {
	struct ct_job_info *jobs;
	size_t n;
};

/* Find a job by name, or, when spec is all digits and no job has that
 * name, by id. CT_ENOENT, with err naming spec, when there is none. */
ct_status ct_store_job_find(struct ct_store *s, const char *spec,
			    int64_t *id, struct ct_error *err);

/* The job job_id with its task counts; CT_ENOENT when it does not exist. */
ct_status ct_store_job_get(struct ct_store *s, int64_t job_id,
			   struct ct_job_info *out, struct ct_error *err);

/* Every job with its task counts, by id. Free with ct_job_info_list_free. */
ct_status ct_store_job_list(struct ct_store *s, struct ct_job_info_list *out,
			    struct ct_error *err);
void ct_job_info_list_free(struct ct_job_info_list *l);

/* Whether job_id has pending and running tasks, and its stored status
 * (jobs.status), cheap to poll whatever the job's size: one probe of a
 * partial index each, no count. running is tasks.status: it includes the
 * tasks waiting for a retry (leased to nobody), which are work still to
 * do. CT_ENOENT when the job does not exist. */
ct_status ct_store_job_active(struct ct_store *s, int64_t job_id,
			      bool *pending, bool *running,
			      char status[16], struct ct_error *err);

/* The store's longest accepted path or URL in bytes
 * (crawltop.max_url_bytes()). */
ct_status ct_store_max_url_bytes(struct ct_store *s, int *out,
				 struct ct_error *err);

/* The database's default job priority (setting default_priority; 5 when
 * unset). */
ct_status ct_store_default_priority(struct ct_store *s, int *out,
				    struct ct_error *err);

/* Transactions around several calls on one handle: begin, then commit or
 * roll back. A failed statement inside leaves the transaction aborted:
 * roll it back. ct_store_rollback never fails the caller (it is the
 * cleanup path); it returns the status for those who care. */
ct_status ct_store_begin(struct ct_store *s, struct ct_error *err);
ct_status ct_store_commit(struct ct_store *s, struct ct_error *err);
ct_status ct_store_rollback(struct ct_store *s, struct ct_error *err);

#endif
