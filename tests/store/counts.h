/* counts.h: checks of the live counters (data/sql/0007_counters.sql)
 * against a plain GROUP BY over crawltop.tasks, for the store tests. */
#ifndef CRAWLTOP_TEST_COUNTS_H
#define CRAWLTOP_TEST_COUNTS_H

#include "store.h"

/* Fail the test unless every counter equals its GROUP BY over tasks, for
 * every job, dimension and key (cells that are 0 on both sides aside), and
 * unless crawltop.dashboard_cells (per job and for all jobs) and
 * crawltop.dashboard_jobs report the same numbers. when names the moment
 * in the failure message. */
void pgt_assert_counts_exact(struct ct_store *s, const char *when);

#endif
