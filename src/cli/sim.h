/* sim.h: a simulated crawl (`crawltop simulate`), shared by
 * cmd_simulate.c (options, setup, progress, signals) and simwork.c (the
 * workers). Workers claim through the store's claim API, one connection
 * each; everything they share is in struct sim under its mutex. */
#ifndef CRAWLTOP_SIM_H
#define CRAWLTOP_SIM_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#include "pathbatch.h"
#include "simgraph.h"
#include "urlscore.h"

struct sim {
	/* set up before the workers start, read-only afterwards */
	const char *dsn;
	int64_t job_id;
	const struct simgraph *g;
	size_t median_links;        /* the graph's: page types (simgraph.h) */
	const unsigned *backlinks;  /* discovery mode: each page's links in
				     * the graph (its in-degree), enqueued
				     * as its raw signal; NULL otherwise */
	const struct urlscore *us;
	int one_call;               /* importance mode: a page's links in one
				     * enqueue call, without their types: one
				     * count of the pages discovered for all
				     * of them (calls by type would count
				     * each run's new pages apart, and a
				     * page's later links would outrank its
				     * first) */
	int workers;
	long latency_ms, host_delay_ms;
	double fail_rate;           /* 0..1 */
	uint64_t seed;
	long max_pages;             /* 0: no limit */
	long stall_after;           /* 0: never; else the workers hang after
				     * this many pages, holding nothing */
	double lease_s;
	FILE *order;                /* --order-out, or NULL */
	int reconnect;              /* --reconnect: a worker whose server went
				     * away connects again (backoff up to 5 s)
				     * instead of stopping the run */

	/* shared, under mu */
	pthread_mutex_t mu;
	pthread_cond_t cv;          /* CLOCK_MONOTONIC; broadcast on stop */
	int stop;                   /* workers finish their task and leave */
	int64_t next_fetch_ns;      /* politeness: the host's next free slot */
	long fetched;               /* pages completed by this run */
	long finishing;             /* pages between fetch and completion */
	long attempts_failed;       /* simulated failures reported */
	long pages_failed;          /* of those, tasks failed for good */
	long released;              /* tasks given back on stop */
	long conflicts;             /* transactions the server rolled back
				     * (deadlock, serialization) and the
				     * worker tried again */
	long reconnects;            /* connections made again (--reconnect) */
	int running;                /* workers still in their loop */
	int error;                  /* a worker hit a store error (err) */
	int cancelled;              /* the job was cancelled meanwhile */
	char err[700];
};

/* Add path (page i of the graph) to b, with its raw discovery signals
 * when s carries them (a discovery job): backlinks, document_path (an
 * article or a page), vendor_fingerprint (a hub), age_hours (24 a level
 * of b's depth), topic_match (log2(1 + backlinks) / 8, at most 1),
 * source cc. */
int sim_add(const struct sim *s, struct pathbatch *b, long i);

/* Monotonic clock in nanoseconds. */
int64_t sim_now_ns(void);

/* Initialise the mutex and condition variable of s (the rest is the
 * caller's); -1 on failure. */
int sim_init(struct sim *s);
void sim_destroy(struct sim *s);

/* Ask every worker to stop (takes the mutex). */
void sim_stop(struct sim *s);

/* One worker: pthread entry point; arg is a struct sim_worker. */
struct sim_worker {
	struct sim *sim;
	int index;
	pthread_t thread;
};
void *sim_worker_main(void *arg);

/* Whether attempt `attempt` (the task's retry count) at path fails: a
 * pure function of seed, path and attempt, so that a run's failures do
 * not depend on which worker fetched what. */
int sim_fails(uint64_t seed, const char *path, int attempt, double rate);

#endif
