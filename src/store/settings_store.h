/* settings_store.h: the engine settings as the store keeps them, versions
 * of crawltop.settings (data/sql/0011_settings_console.sql), and the
 * preview of a settings change on a job's pending tasks.
 *
 * The document is JSON text here; settings_json.h turns it into a struct
 * ct_settings and back. Every call is one transaction on the caller's
 * connection (a ct_store is one connection: one per thread). */
#ifndef CRAWLTOP_SETTINGS_STORE_H
#define CRAWLTOP_SETTINGS_STORE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "crawltop/settings.h"
#include "crawltop/status.h"
#include "store.h"

/* One settings version. value is the caller's (ct_settings_row_free). */
struct ct_settings_row {
	int version;           /* 0 when there is none */
	char *value;           /* the JSON document */
	char created_by[64];
	char created_at[32];   /* "YYYY-MM-DD HH:MM:SS" in the session's zone */
	char note[160];
};
void ct_settings_row_free(struct ct_settings_row *r);

/* Version `version` of the settings, or the current one (version 0).
 * CT_ENOENT when there is no such version. */
ct_status ct_store_settings_get(struct ct_store *s, int version,
				struct ct_settings_row *out,
				struct ct_error *err);

/* Insert json (a JSON object) as the new current version: one transaction
 * (crawltop.settings_put) with one audit_log row whose before and after
 * name every changed key (dotted paths) and the versions. action is
 * "settings.update" or "settings.undo"; note may be NULL. Refused when
 * base_version is no longer the current version (someone else changed the
 * settings: CT_EINVAL, SQLSTATE 55000) or when json changes nothing
 * (CT_EINVAL, 22023). The insert NOTIFYs crawltop_settings (0008).
 * *version (may be NULL) receives the new version, *changed (may be NULL)
 * the number of keys that changed. */
ct_status ct_store_settings_put(struct ct_store *s, const char *json,
				int base_version, const char *action,
				const char *note, int *version, long *changed,
				struct ct_error *err);

/* ct_store_settings_put, and in the same transaction the unfinished jobs
 * among jobs[0..n_jobs) are marked "settings vN" (crawltop.job_health's
 * rescore_reason) until a rescore with version N or newer completes
 * (ct_rescore_opts.settings_version; 0030): the console's apply marks
 * every job it is about to rescore, so that a stop or a failure leaves
 * the ones it never reached marked. */
ct_status ct_store_settings_put_marked(struct ct_store *s, const char *json,
				       int base_version, const char *action,
				       const char *note, const int64_t *jobs,
				       size_t n_jobs, int *version,
				       long *changed, struct ct_error *err);

/* ---- the preview ------------------------------------------------------- */

#define CT_PREVIEW_SAMPLE_MAX 100000
#define CT_PREVIEW_NEXT 8

/* One task of a next-up list. */
struct ct_preview_task {
	int64_t id;
	char path[128];        /* cut to fit */
	double score;
	int cls;               /* 0..3 */
};

/* What a rescore with other settings would do to one job's pending tasks,
 * measured on a sample. Counts are of the sampled tasks. */
struct ct_preview {
	char mode[16];         /* the job's mode, which scores the tasks */
	size_t pending;        /* the job's pending tasks */
	size_t sampled;        /* tasks scored (all of them when pending
				* <= the sample size) */
	size_t changed;        /* sampled tasks whose score, class or mode
				* score (base_score) changes: the rescore
				* writes them */
	size_t unranked;       /* discovery tasks without inputs */
	size_t adjusted;       /* sampled tasks with an operator adjustment
				* (boost or demotion), which they keep:
				* "after" is the new mode score plus it */
	long long before[4];   /* sampled tasks per class P0..P3 now */
	long long after[4];    /* ... and under the new settings */
	/* the first tasks of the job's claim order (score, then discovery
	 * time, then id) among the sample, now and after */
	struct ct_preview_task next_before[CT_PREVIEW_NEXT];
	struct ct_preview_task next_after[CT_PREVIEW_NEXT];
	int n_next;
	bool cancelled;        /* stopped by the cancel flag */
};

struct ct_preview_opts {
	const struct ct_settings *settings; /* required, borrowed; must pass
					     * ct_settings_check */
	size_t sample;         /* 1..CT_PREVIEW_SAMPLE_MAX; 0 = the max */
	int64_t now_ms;        /* freshness "now"; 0 = the wall clock */
	const atomic_int *cancel; /* may be NULL; read between chunks */
};

/* Score a sample of job_id's pending tasks (all of them when there are
 * at most o->sample; else the job's first 100 in claim order and a random
 * sample of the rest: crawltop.preview_open) with the engine under
 * o->settings, exactly as ct_store_job_rescore would, without writing
 * anything: one read-only transaction, read in chunks so that memory
 * stays small whatever the sample size. */
ct_status ct_store_preview(struct ct_store *s, int64_t job_id,
			   const struct ct_preview_opts *o,
			   struct ct_preview *out, struct ct_error *err);

#endif
