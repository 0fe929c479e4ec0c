/* frontier_queue.h: seed 002's QueueManager, with the rules of SPEC.md.
 *
 * Two min-heaps, discovery and acquisition (ct_frontier_queue_type),
 * each ordered by the store's claim key for the tasks of one job
 * (ct_task_key_cmp): score higher first (the priority mapped onto 0..100
 * once, at enqueue), then earlier discovered_ms, then insertion sequence
 * (equal keys first-in first-out; the store has the task id there).
 * Within one heap a lower priority never pops after a higher one; two
 * priorities that map to the same double score are tied and go by
 * discovery time, as in the store. Priorities come from
 * ct_frontier_score() with the queue's own copy of the parameters.
 *
 * The pop order agrees with the store's claim order only within one queue
 * type: the items of one heap come out in the order the store claims
 * those tasks (while no host is deferred: deferred items are passed over
 * and keep their place). Across the heaps it does not: ct_fq_pull takes
 * turns between them in bursts (below), so an item of one heap can come
 * out before higher-scored items of the other, while the store claims a
 * job's tasks in one score order whatever their type, and models neither
 * the turns nor host deferral (nor has the queue the store's starvation
 * guard). While one heap is empty there are no turns, and (no host
 * deferred) the two orders agree for every queued task.
 *
 * Enqueue runs the seed's checks in the seed's order and gives the seed's
 * reasons: "invalid-url", "queue-full" (max_queue counts both heaps),
 * "max-depth" (unless the bypass callback says otherwise), the eligibility
 * callback's reason, "duplicate" (same normalised URL already queued), then
 * "deprioritised" (total prioritisation class "other"). A bad input or a
 * non-finite priority is refused with a status and an error sentence.
 *
 * Pull alternates between the heaps with a burst limit, skips hosts that
 * are deferred at `now` (a callback tells, the engine reads no clock) and
 * puts deferred items back; with no eligible item it returns the earliest
 * wake time it saw.
 *
 * Ownership: the queue copies every string it keeps (URL, type, method).
 * Callback pointers and ctx are borrowed and must outlive the queue. A
 * pulled item's strings belong to the caller until ct_fq_item_release().
 * The queue is not thread-safe: one thread at a time. */
#ifndef CRAWLTOP_FRONTIER_QUEUE_H
#define CRAWLTOP_FRONTIER_QUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "export.h"
#include "frontier.h"
#include "scale.h"
#include "status.h"

CT_BEGIN_DECLS

struct ct_fq; /* opaque */

/* What the queue tells its event callback (seed's emitQueueEvent). */
typedef enum ct_fq_event_kind {
	CT_FQ_EV_ENQUEUED, /* an enqueue accepted url */
	CT_FQ_EV_DROPPED,  /* an enqueue refused url: reason says why */
	CT_FQ_EV_DEFERRED, /* a pull passed over url: its host resumes at
			    * until_ms */
	CT_FQ_EV_PULLED    /* a pull handed url out */
} ct_fq_event_kind;

struct ct_fq_event {
	ct_fq_event_kind kind;
	const char *url;     /* borrowed for the call; "" for a NULL one */
	const char *reason;  /* DROPPED: as ct_fq_enqueue_result.reason; else
			      * NULL */
	double priority;     /* native (lower = sooner) and 0..100, once the
			      * item was scored; else 0 */
	double score;
	int64_t until_ms;    /* DEFERRED: the host's resume time; else 0 */
	bool force_cache;    /* PULLED: to be served from the cache (see
			      * ct_fq_item.force_cache) */
};

/* The callbacks run inside ct_fq_enqueue and ct_fq_pull, and must not
 * change their own queue: ct_fq_enqueue, ct_fq_pull and ct_fq_set_params
 * called from one return CT_EINVAL and change nothing (a pull may have
 * items set aside at that moment); ct_fq_destroy must not be called from
 * one. Reading the queue (ct_fq_size, ct_fq_contains) is fine. */
struct ct_fq_callbacks {
	void *ctx; /* passed to every callback; borrowed */
	/* seed's shouldBypassDepth: true lets an item deeper than max_depth
	 * in. NULL = never bypass. */
	bool (*bypass_depth)(void *ctx, const char *url, int depth,
			     const char *type);
	/* seed's urlEligibilityService: return false to refuse and set
	 * *reason to a string that lives at least as long as the queue (NULL
	 * gives "ineligible"). NULL callback = every URL is eligible. */
	bool (*eligible)(void *ctx, const char *url, const char **reason);
	/* seed's getHostResumeTime: epoch ms from which host may be fetched
	 * again; a host is deferred while the value is > now. host is the
	 * lower-cased host name, borrowed for the call. NULL = never deferred. */
	int64_t (*host_resume_ms)(void *ctx, const char *host);
	/* seed's emitQueueEvent: every enqueue's decision and every item a
	 * pull defers or hands out; the library itself prints nothing.
	 * While a pull runs, the items it has set aside (deferred) are not
	 * counted by ct_fq_size. NULL = no events. */
	void (*event)(void *ctx, const struct ct_fq_event *ev);
	/* seed's isHostRateLimited (the host answered 429) and cache.get:
	 * a pulled item whose host is rate limited and whose URL the cache
	 * has is handed out with force_cache set, to be served from the
	 * cache rather than fetched. Both are needed; NULL = never. */
	bool (*host_rate_limited)(void *ctx, const char *host);
	bool (*cache_has)(void *ctx, const char *url);
};

/* Creates an empty queue. p must pass ct_frontier_params_check() and
 * bounds (NULL = defaults) ct_class_bounds_check(); both are copied, cb
 * (may be NULL) is copied but its ctx is borrowed. *out owns the queue:
 * free it with ct_fq_destroy(). CT_ENOMEM when allocation fails. */
CT_API ct_status ct_fq_create(const struct ct_frontier_params *p,
			      const struct ct_class_bounds *bounds,
			      const struct ct_fq_callbacks *cb,
			      struct ct_fq **out, struct ct_error *err);
/* Frees the queue and every item still in it. NULL is fine. */
CT_API void ct_fq_destroy(struct ct_fq *q);

/* Replaces the parameters (seed's runtime config update): queued items
 * keep the priority they were given. The queue is unchanged on error. */
CT_API ct_status ct_fq_set_params(struct ct_fq *q,
				  const struct ct_frontier_params *p,
				  struct ct_error *err);
/* The queue's copy of the parameters (valid until the next set_params). */
CT_API const struct ct_frontier_params *ct_fq_params(const struct ct_fq *q);

/* Items in both heaps, and in one. */
CT_API size_t ct_fq_size(const struct ct_fq *q);
CT_API size_t ct_fq_size_of(const struct ct_fq *q, ct_queue_type t);
/* True when the normalised form of url is queued now. */
CT_API bool ct_fq_contains(const struct ct_fq *q, const char *url);

/* Dedup key: lower-case scheme and host, no fragment, no default port
 * (http 80, https 443, ws 80, wss 443, ftp 21), empty path as "/"; userinfo,
 * path and query kept as given. Writes the key into buf (snprintf
 * semantics) and returns its length, or -1 when url has no scheme://host or
 * a bad port (these are "invalid-url"). */
CT_API long ct_fq_normalise_url(const char *url, char *buf, size_t n);

struct ct_fq_enqueue_result {
	bool enqueued;
	/* importance mode: the URL was queued already ("duplicate") and
	 * gained the links and cash given (its score rose or stayed) */
	bool raised;
	/* NULL when enqueued; else "invalid-url", "queue-full", "max-depth",
	 * the eligibility callback's reason (or "ineligible"), "duplicate",
	 * "deprioritised", "invalid-input" or "non-finite-priority" (static,
	 * or the callback's string). */
	const char *reason;
	/* Filled once scoring ran (enqueued, or "deprioritised"): priority,
	 * score, class, source, reasons. Reason strings point into the queue's
	 * parameters or into the input. */
	bool scored;
	struct ct_frontier_result score;
};

/* Enqueues one URL. in is borrowed for the call (the queue copies url,
 * type and discovery_method); discovered_ms is the tie-breaker after
 * score. Returns CT_OK when a decision was made (see res->enqueued and
 * res->reason); CT_ERANGE or CT_EINVAL when scoring refused the input
 * (reason "invalid-input", or "non-finite-priority" for a NaN or infinite
 * priority), with err filled; CT_ERANGE with reason "invalid-input" also
 * for a type or discovery method new to a queue that has kept 65,535
 * distinct ones, or a pair of type and discovery method new to one that
 * has kept 65,535 pairs (names and pairs stay for the queue's life), and
 * for an item of more than 1 MiB (its URL and a NUL, its normalised key
 * and a NUL when that differs, 4 bytes more for a depth past 65,534);
 * reason "queue-full" when the queue's strings take 4 GiB of blocks;
 * CT_ENOMEM when allocation failed, and then the queue is unchanged. res
 * and err may be NULL. */
CT_API ct_status ct_fq_enqueue(struct ct_fq *q,
			       const struct ct_frontier_input *in,
			       int64_t discovered_ms,
			       struct ct_fq_enqueue_result *res,
			       struct ct_error *err);

/* How new items are scored (issue 23). Frontier: seed 002's priority
 * (ct_frontier_score), fixed at enqueue. Importance (importance.h): the
 * links found to the URL and the cash they passed, scored as the store
 * scores them (data/sql/0033_importance.sql); a queued item's score rises
 * as ct_fq_enqueue_links brings more, and it moves up its heap.
 * The seed's checks and the queue type are the frontier model's in both
 * modes; in importance mode a result's score and class are the
 * importance score's. */
typedef enum ct_fq_mode { CT_FQ_FRONTIER, CT_FQ_IMPORTANCE } ct_fq_mode;

/* Sets the mode (a new queue is in frontier mode). Refused (CT_EINVAL)
 * while the queue holds items and the mode would change. */
CT_API ct_status ct_fq_set_mode(struct ct_fq *q, ct_fq_mode mode,
				struct ct_error *err);
CT_API ct_fq_mode ct_fq_get_mode(const struct ct_fq *q);

/* Importance mode: enqueue in[0..n), the links of one fetched page
 * (links 1, cash the page's: a pulled item's cash) or a list of start
 * pages or a sitemap (links 0, cash CT_FQ_CASH_MEAN). Each URL gains
 * `links` links and cash / n (give each URL once; CT_FQ_CASH_MEAN: one
 * page's mean share, 1 / the pages discovered after the call, the
 * store's rule for a call without a source page, which gives the first
 * page of a crawl one unit); the pages discovered are the items accepted
 * before the call and the call's URLs not queued now, as the store
 * counts a call. Each URL as ct_fq_enqueue, with the same checks and
 * reasons into res[i] (res may be NULL); a URL queued already gains its
 * link and share (res[i].raised) and its score rises. A seed (the
 * homepage, or the method "seed") scores 100. CT_EINVAL in frontier
 * mode; CT_ERANGE for negative or non-finite links or cash. A URL whose
 * input the frontier model refuses is skipped (res[i].reason) and the
 * others go in: the call returns the first such status, err its
 * message; CT_ENOMEM stops at the URL it failed on (those before it are
 * in). ct_fq_enqueue
 * in importance mode is a call of one URL with no link and no cash. */
#define CT_FQ_CASH_MEAN (-1.0)
CT_API ct_status ct_fq_enqueue_links(struct ct_fq *q,
				     const struct ct_frontier_input *in,
				     size_t n, int64_t discovered_ms,
				     double links, double cash,
				     struct ct_fq_enqueue_result *res,
				     struct ct_error *err);

/* A pulled item. url, host, key, type and discovery_method all live in one
 * block owned by the caller after the pull; ct_fq_item_release() frees it
 * and sets the pointers to NULL. type and discovery_method are NULL when
 * none was given. */
struct ct_fq_item {
	char *url;                    /* as enqueued */
	const char *key;              /* normalised URL (the dedup key) */
	const char *host;             /* lower-case host */
	const char *type;
	const char *discovery_method;
	int depth;
	double priority;              /* native, lower = sooner */
	double score;                 /* 0..100 */
	ct_class cls;
	const char *priority_source;  /* static */
	ct_queue_type queue;
	ct_tp_class tp;
	int64_t discovered_ms;
	double inlinks, cash;         /* importance mode: what it gathered;
				       * its links share cash (importance.h) */
	uint64_t seq;                 /* insertion sequence, from 0 */
	int64_t deferred_until_ms;    /* last resume time seen; 0 = never deferred */
	bool force_cache;             /* host rate limited and the URL cached:
				       * serve it from the cache (callbacks) */
	void *block_;                 /* private */
};
CT_API void ct_fq_item_release(struct ct_fq_item *item);

struct ct_fq_pull_result {
	bool has_item;
	struct ct_fq_item item;  /* when has_item: the caller's to release */
	/* when !has_item: has_wake says some scanned item was deferred, and
	 * wake_ms is the earliest resume time seen; both queues empty gives
	 * has_wake false. Items past the scan limit are not looked at. */
	bool has_wake;
	int64_t wake_ms;
};

/* Pulls the next item whose host is not deferred at now_ms.
 *
 * Queue order: the heap that has the turn first, the other second. A turn
 * lasts `burst` pulls counted while the other heap has items; then the
 * other heap gets the turn. Pulling from a heap that did not have the turn
 * (because the turn's heap was empty or all deferred) gives it the turn.
 * The first turn is discovery's. In each heap at most max_scan items are
 * looked at, in heap order; deferred ones go back unchanged. The pulled
 * item's dedup key is released: the URL may be enqueued again. The
 * item's block is allocated by the pull: CT_ENOMEM when that fails, and
 * then nothing is handed out and the item stays queued (the queue as it
 * was; items a host callback deferred keep their new resume time).
 * CT_EINVAL for NULL arguments. */
CT_API ct_status ct_fq_pull(struct ct_fq *q, int64_t now_ms,
			    struct ct_fq_pull_result *res);

/* Heatmap of the queued items (seed's getHeatmapSnapshot). */
enum {
	CT_FQ_DEPTH_0,
	CT_FQ_DEPTH_1,
	CT_FQ_DEPTH_2,
	CT_FQ_DEPTH_3_PLUS,
	CT_FQ_DEPTH_UNKNOWN, /* kept for the seed's shape: the engine requires
				a depth, so this stays 0 */
	CT_FQ_DEPTH_BUCKETS
};
struct ct_fq_heat_cell {
	const char *method;  /* discovery method as enqueued, "none" if none */
	const char *type;    /* type as enqueued, "none" if none */
	size_t count;
};
struct ct_fq_heatmap {
	size_t queued;          /* items in both heaps now */
	size_t enqueued_total;  /* items ever accepted (the seed's total) */
	size_t depth[CT_FQ_DEPTH_BUCKETS];
	size_t n_cells;
	/* sorted by method then type (strcmp); cells and their strings are one
	 * block owned by the caller: free with ct_fq_heatmap_free() */
	struct ct_fq_heat_cell *cells;
};
/* Counts the queued items by (method, type) and by depth bucket. Does not
 * change the queue. CT_ENOMEM when allocation failed (out->cells NULL). */
CT_API ct_status ct_fq_heatmap(const struct ct_fq *q, struct ct_fq_heatmap *out);
CT_API void ct_fq_heatmap_free(struct ct_fq_heatmap *h);

CT_END_DECLS

#endif
