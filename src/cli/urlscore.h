/* urlscore.h: the score of a task known only by its path, for jobs whose
 * mode takes its scores from the caller (frontier, discovery, freshness;
 * store.h: struct ct_enqueue_batch). Used by `crawltop enqueue` and
 * `crawltop simulate`, which know nothing else about a page.
 *
 *   frontier   seed 002 with the type given (unknown: the default
 *              weight), depth as given (0 when unknown), the discovery
 *              method given, else the source type's (sitemap, link; none
 *              for manual), bias 0
 *   freshness  seed 004 for a page never visited, with SPEC.md's defaults
 *   discovery  unranked: the P2 lower bound (SPEC.md: a URL not yet ranked
 *              is stored as P2)
 * These are the scores a rescore (store.h: ct_store_job_rescore) gives
 * the same tasks, which carry the same depth and discovery method
 * (pathbatch.c) and no score inputs.
 * fifo and hierarchy are scored by the store, importance takes none: for
 * those no score is computed. The engine's settings are the ones in force
 * in the store (dbcmd.h: db_settings, its current crawltop.settings
 * version), which the console, `crawltop job set-mode` and a rescore use
 * too; a configuration file does not change these scores. */
#ifndef CRAWLTOP_URLSCORE_H
#define CRAWLTOP_URLSCORE_H

#include <stdint.h>

#include "crawltop/hierarchy.h"
#include "crawltop/settings.h"

struct ct_store;

/* The help paragraph of the commands that score with urlscore_of. */
#define SCORED_WITH_STORED_SETTINGS \
	"\nThe tasks of a frontier, discovery or freshness job are scored\n" \
	"with the settings the store keeps (its current version: crawltop\n" \
	"settings get), as a rescore scores them; the configuration file\n" \
	"($CRAWLTOP_CONFIG, crawltop.conf) does not change them.\n"

struct urlscore {
	int needed;             /* 1: the mode wants a score per path */
	char mode[16];
	char domain[260];
	struct ct_settings st;
	int64_t now_ms;
};

/* Prepare for job mode and domain; reads the store's settings from s when
 * the mode needs scores (prints the error as cmd and returns -1). */
int urlscore_init(struct urlscore *u, const char *cmd, struct ct_store *s,
		  const char *mode, const char *domain);

/* The score (0..100) of path found through src at depth (-1: unknown),
 * of page type type (NULL: unknown) and discovery method method (NULL:
 * urlscore_method(src)), as the task will carry them; -1 with the
 * engine's message in why (n bytes) when it refuses. */
int urlscore_of(const struct urlscore *u, const char *path, ct_source_type src,
		int depth, const char *type, const char *method, double *out,
		char *why, size_t n);

/* The discovery method a task found through src carries: "sitemap",
 * "link", or NULL (manual, other). Static. */
const char *urlscore_method(ct_source_type src);

#endif
