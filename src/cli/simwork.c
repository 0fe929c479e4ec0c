/* simwork.c: the workers of a simulated crawl (sim.h). Each loops:
 * claim one task of the job, wait for the host's politeness slot, "fetch"
 * (sleep the latency), then either report a failure (deterministic, see
 * sim_fails) or, in one transaction, enqueue the page's links (source
 * link, source page = the fetched page) and complete the task. When a
 * claim finds nothing, the worker looks whether anything is pending or
 * running in the job (a retry waiting out its backoff, another worker's
 * fetch that may add links) and polls again, or leaves when nothing is.
 * On stop a worker gives its claimed task back (release). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli_ops.h"
#include "pathbatch.h"
#include "sim.h"
#include "store.h"

int64_t sim_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int sim_init(struct sim *s)
{
	pthread_condattr_t ca;
	if (pthread_mutex_init(&s->mu, NULL) != 0)
		return -1;
	if (pthread_condattr_init(&ca) != 0 ||
	    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) != 0 ||
	    pthread_cond_init(&s->cv, &ca) != 0) {
		pthread_mutex_destroy(&s->mu);
		return -1;
	}
	pthread_condattr_destroy(&ca);
	return 0;
}

void sim_destroy(struct sim *s)
{
	pthread_cond_destroy(&s->cv);
	pthread_mutex_destroy(&s->mu);
}

void sim_stop(struct sim *s)
{
	pthread_mutex_lock(&s->mu);
	s->stop = 1;
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
}

/* splitmix64's finaliser. */
static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

int sim_fails(uint64_t seed, const char *path, int attempt, double rate)
{
	if (rate <= 0)
		return 0;
	uint64_t h = 1469598103934665603ull;
	for (const char *p = path; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ull;
	uint64_t x = mix(mix(seed) ^ h ^ mix((uint64_t)attempt + 1));
	return (double)(x >> 11) * 0x1.0p-53 < rate;
}

/* Sleep until the monotonic deadline or until stop; 1 when stopped.
 * Called with s->mu held. */
static int wait_until(struct sim *s, int64_t deadline_ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(deadline_ns / 1000000000),
		.tv_nsec = (long)(deadline_ns % 1000000000),
	};
	while (!s->stop && sim_now_ns() < deadline_ns)
		if (pthread_cond_timedwait(&s->cv, &s->mu, &ts) == ETIMEDOUT)
			break;
	return s->stop;
}

/* Record a store error once and stop everyone. */
static void worker_error(struct sim *s, int index, const char *msg)
{
	pthread_mutex_lock(&s->mu);
	if (!s->error) {
		s->error = 1;
		snprintf(s->err, sizeof s->err, "worker %d: %.600s", index,
			 msg);
	}
	s->stop = 1;
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
}

/* Wait for the politeness slot, then the latency; 1 when stopped. */
static int fetch_delay(struct sim *s)
{
	pthread_mutex_lock(&s->mu);
	int64_t now = sim_now_ns();
	int64_t start = s->next_fetch_ns > now ? s->next_fetch_ns : now;
	s->next_fetch_ns = start + s->host_delay_ms * 1000000;
	int stopped = wait_until(s, start) ||
		      wait_until(s, start + s->latency_ms * 1000000);
	pthread_mutex_unlock(&s->mu);
	return stopped;
}

/* Whether the store's last error was a transaction the server rolled
 * back to break a conflict (deadlock 40P01, serialization 40001): the
 * statement is to be tried again, as any client of a database must; it
 * changed nothing. Counted in s->conflicts. */
static int conflict(struct sim *s, struct ct_store *st)
{
	if (!ct_store_rolled_back(st))
		return 0;
	pthread_mutex_lock(&s->mu);
	s->conflicts++;
	pthread_mutex_unlock(&s->mu);
	return 1;
}

/* sim.h */
int sim_add(const struct sim *s, struct pathbatch *b, long i)
{
	if (!s->backlinks)
		return pathbatch_add(b, s->g->path[i]);
	/* signals a crawl of a site can know of a page, from the graph: its
	 * backlinks, whether it reads as a document (an article or a page)
	 * or an index (a hub), how deep it lies (24 h of age a level), and
	 * a topic match growing with its backlinks */
	unsigned bl = s->backlinks[i];
	int kind = strcmp(simgraph_type(s->g, i, s->median_links), "hub") != 0;
	double topic = log2(1.0 + bl) / 8.0;
	char in[256];
	snprintf(in, sizeof in, "{\"signals\": {\"backlinks\": %u, "
		 "\"document_path\": %s, \"document_extension\": true, "
		 "\"vendor_fingerprint\": %s, \"age_hours\": %d, "
		 "\"topic_match\": %.3f, \"source\": \"cc\"}}", bl,
		 kind ? "true" : "false", kind ? "false" : "true",
		 24 * (b->depth > 0 ? b->depth : 0), topic > 1 ? 1.0 : topic);
	return pathbatch_add_inputs(b, s->g->path[i], in);
}

/* Enqueue the links of task t's page and complete it, in one
 * transaction. *done: 1 when the task was completed (0 when the store
 * refused the completion: the lease expired; nothing is kept then). -1 with msg on an error,
 * -2 when the server rolled the transaction back to break a conflict. */
static int finish(struct sim *s, struct ct_store *st, const char *worker,
		  const struct ct_task *t, int *done, char *msg, size_t n)
{
	struct ct_error err;
	struct pathbatch b;
	size_t completed = 0;
	long page = simgraph_find(s->g, t->path);
	*done = 0;
	if (ct_store_begin(st, &err) != CT_OK) {
		snprintf(msg, n, "%s", err.msg);
		return -1;
	}
	/* the links in page order, each with its page type (one call per
	 * run of a type; importance: one call, no types, sim.h), found by
	 * the method the source page's type gives */
	pathbatch_init(&b, st, s->us, s->job_id, CT_SRC_LINK);
	b.source_page_id = t->page_id;
	b.depth = t->depth >= 0 ? t->depth + 1 : -1;
	b.method = simgraph_link_method(s->g, page, s->median_links);
	int rc = 0;
	if (page >= 0)
		for (size_t k = s->g->first[page]; rc == 0 &&
		     k < s->g->first[page + 1]; k++) {
			long to = s->g->link[k];
			if (!s->one_call)
				rc = pathbatch_type(&b, simgraph_type(s->g, to,
							s->median_links));
			if (rc == 0)
				rc = sim_add(s, &b, to);
		}
	if (rc == 0)
		rc = pathbatch_flush(&b);
	if (rc != 0)
		snprintf(msg, n, "enqueue the links of %s: %s", t->path, b.err);
	pathbatch_free(&b);
	if (rc == 0) {
		ct_status cs = ct_store_complete(st, worker, &t->id, 1,
						 &completed, &err);
		if (cs != CT_OK && cs != CT_EINVAL) {
			snprintf(msg, n, "%s", err.msg);
			rc = -1;
		} else if (completed != 1) {
			/* the lease ran out and the task went back: its links
			 * go with it (its next fetch sends them; an importance
			 * job counted them twice) */
			ct_store_rollback(st, NULL);
			return 0;
		}
	}
	if (rc == 0 && ct_store_commit(st, &err) != CT_OK) {
		snprintf(msg, n, "%s", err.msg);
		rc = -1;
	}
	if (rc != 0) {
		int again = conflict(s, st); /* before the rollback resets it */
		ct_store_rollback(st, NULL);
		return again ? -2 : -1;
	}
	*done = completed == 1;
	return 0;
}

/* Handle one claimed task; -1 on a store error (msg filled), -2 when the
 * server rolled the work back to break a conflict (to be done again). */
static int handle(struct sim *s, struct ct_store *st, const char *worker,
		  const struct ct_task *t, char *msg, size_t n)
{
	struct ct_error err;
	if (fetch_delay(s)) {
		size_t done = 0;
		ct_store_release(st, worker, &t->id, 1, &done, &err);
		pthread_mutex_lock(&s->mu);
		s->released += (long)done;
		pthread_mutex_unlock(&s->mu);
		return 0;
	}
	if (sim_fails(s->seed, t->path, t->retry_count, s->fail_rate)) {
		size_t retried = 0, failed = 0;
		ct_status cs = ct_store_fail(st, worker, &t->id, 1,
					     "simulated fetch failure",
					     &retried, &failed, &err);
		if (cs != CT_OK && cs != CT_EINVAL) {
			snprintf(msg, n, "%s", err.msg);
			return conflict(s, st) ? -2 : -1;
		}
		pthread_mutex_lock(&s->mu);
		s->attempts_failed += (long)(retried + failed);
		s->pages_failed += (long)failed;
		pthread_mutex_unlock(&s->mu);
		return 0;
	}
	/* --max-pages: a page that would pass the limit is given back */
	pthread_mutex_lock(&s->mu);
	int over = s->max_pages && s->fetched + s->finishing >= s->max_pages;
	if (!over)
		s->finishing++;
	pthread_mutex_unlock(&s->mu);
	if (over) {
		size_t done = 0;
		ct_store_release(st, worker, &t->id, 1, &done, &err);
		pthread_mutex_lock(&s->mu);
		s->released += (long)done;
		pthread_mutex_unlock(&s->mu);
		return 0;
	}
	int done, rc = finish(s, st, worker, t, &done, msg, n);
	pthread_mutex_lock(&s->mu);
	s->finishing--;
	pthread_mutex_unlock(&s->mu);
	if (rc != 0)
		return rc;
	if (!done)
		return 0;
	pthread_mutex_lock(&s->mu);
	s->fetched++;
	if (s->order) { /* a line at a time: a killed run keeps its lines */
		fprintf(s->order, "%s\n", t->path);
		fflush(s->order);
	}
	if (s->max_pages && s->fetched >= s->max_pages) {
		s->stop = 1;
		pthread_cond_broadcast(&s->cv);
	}
	pthread_mutex_unlock(&s->mu);
	return 0;
}

/* The run is over, not failed: the job was cancelled (or deleted)
 * meanwhile. Marks s->cancelled and stops every worker. */
static void mark_cancelled(struct sim *s)
{
	pthread_mutex_lock(&s->mu);
	s->cancelled = 1;
	s->stop = 1;
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
}

/* Whether ct_store_job_active's answer (cs, status) says the job was
 * cancelled or deleted. */
static int gone(ct_status cs, const char *status)
{
	return cs == CT_ENOENT || (cs == CT_OK && strcmp(status, "cancelled") == 0);
}

/* After a store error: whether it came from the job being cancelled
 * meanwhile (then marked, see mark_cancelled). */
static int cancelled(struct sim *s, struct ct_store *st)
{
	struct ct_error err;
	bool pending, running;
	char status[16];
	if (!gone(ct_store_job_active(st, s->job_id, &pending, &running,
				      status, &err), status))
		return 0;
	mark_cancelled(s);
	return 1;
}

/* Nothing to claim: 1 when the job has nothing pending or running (the
 * crawl is over) or was cancelled, 0 after waiting a little for work (a
 * paused job's workers wait here), -1 on an error. */
static int idle(struct sim *s, struct ct_store *st, int64_t *wait_ms,
		char *msg, size_t n)
{
	struct ct_error err;
	bool pending, running;
	char status[16];
	ct_status cs = ct_store_job_active(st, s->job_id, &pending, &running,
					   status, &err);
	if (gone(cs, status)) {
		mark_cancelled(s);
		return 1;
	}
	if (cs != CT_OK) {
		snprintf(msg, n, "%s", err.msg);
		return -1;
	}
	if (!pending && !running)
		return 1;
	pthread_mutex_lock(&s->mu);
	wait_until(s, sim_now_ns() + *wait_ms * 1000000);
	pthread_mutex_unlock(&s->mu);
	*wait_ms = *wait_ms * 2 > 200 ? 200 : *wait_ms * 2;
	return 0;
}

/* A worker's session: simulated fetches commit without waiting for the
 * disk (synchronous_commit off: a crash loses the last few simulated
 * pages, which is nothing; the 1,169-page PostgreSQL graph at one worker,
 * importance mode, medians of 3 side by side: 8.1 s before, 7.1 s). */
static ct_status sim_open(const struct sim *s, struct ct_store **st,
			  struct ct_error *err)
{
	ct_status rc = ct_store_open_as(s->dsn, "crawltop simulate", st, err);
	char out[8];
	if (rc == CT_OK && (rc = ct_store_query(*st, "simulate",
			"SELECT set_config('synchronous_commit', 'off', false)",
			0, NULL, out, sizeof out, NULL, err)) != CT_OK) {
		ct_store_close(*st);
		*st = NULL;
	}
	return rc;
}

/* --reconnect: *st lost its server; close it and connect again, waiting
 * 0.25 s, then twice as long each time up to 5 s, until it works, the
 * run stops, or 5 minutes have passed (a server that does not come back,
 * a password or a database that is no more). 0 with a new *st; -1 when
 * the run stopped meanwhile; -2 with the last error in msg when it gave
 * up. */
static int reopen(struct sim *s, struct ct_store **st, char *msg, size_t n)
{
	ct_store_close(*st);
	*st = NULL;
	int64_t wait_ms = 250, give_up = sim_now_ns() + 300 * 1000000000LL;
	snprintf(msg, n, "the server went away");
	for (;;) {
		pthread_mutex_lock(&s->mu);
		if (!s->stop)
			wait_until(s, sim_now_ns() + wait_ms * 1000000);
		int stop = s->stop;
		pthread_mutex_unlock(&s->mu);
		if (stop)
			return -1;
		struct ct_error err;
		if (sim_open(s, st, &err) == CT_OK) {
			pthread_mutex_lock(&s->mu);
			s->reconnects++;
			pthread_mutex_unlock(&s->mu);
			return 0;
		}
		snprintf(msg, n, "no connection again for 5 minutes: %s",
			 err.msg);
		if (sim_now_ns() >= give_up)
			return -2;
		wait_ms = wait_ms * 2 > 5000 ? 5000 : wait_ms * 2;
	}
}

void *sim_worker_main(void *arg)
{
	struct sim_worker *w = arg;
	struct sim *s = w->sim;
	struct ct_store *st = NULL;
	struct ct_error err;
	char worker[64], msg[600];
	snprintf(worker, sizeof worker, "simulate-%ld-%d", (long)getpid(),
		 w->index);
	if (sim_open(s, &st, &err) != CT_OK) {
		worker_error(s, w->index, err.msg);
		goto out;
	}
	int64_t wait_ms = 5;
	for (;;) {
		pthread_mutex_lock(&s->mu);
		/* --stall-after: hang, holding nothing, until stopped */
		while (!s->stop && s->stall_after &&
		       s->fetched + s->finishing >= s->stall_after)
			pthread_cond_wait(&s->cv, &s->mu);
		int stop = s->stop;
		pthread_mutex_unlock(&s->mu);
		if (stop)
			break;
		struct ct_claim c;
		if (ct_store_claim(st, worker, s->job_id, 1, s->lease_s, &c,
				   &err) != CT_OK) {
			if (conflict(s, st))
				continue;
			if (s->reconnect && ct_store_lost(st)) {
				int ro = reopen(s, &st, msg, sizeof msg);
				if (ro == 0)
					continue;
				if (ro == -2)
					worker_error(s, w->index, msg);
				break;
			}
			worker_error(s, w->index, err.msg);
			break;
		}
		int rc = 0;
		if (c.n == 0) {
			rc = idle(s, st, &wait_ms, msg, sizeof msg);
			if (rc == 1)
				break;
		} else {
			wait_ms = 5;
			rc = handle(s, st, worker, &c.tasks[0], msg, sizeof msg);
		}
		if (rc < 0) {
			/* give the task back (best effort): to fetch again
			 * after a conflict, or before leaving */
			int64_t held = c.n ? c.tasks[0].id : 0;
			if (c.n)
				ct_store_release(st, worker, &held, 1, NULL,
						 NULL);
			ct_claim_free(&c);
			if (rc == -2)
				continue;
			/* the server went away: back on a new connection, the
			 * task held is given back at once (its lease is still
			 * this worker's), else the reaper's at its expiry */
			if (s->reconnect && ct_store_lost(st)) {
				int ro = reopen(s, &st, msg, sizeof msg);
				if (ro != 0) {
					if (ro == -2)
						worker_error(s, w->index, msg);
					break;
				}
				if (held)
					ct_store_release(st, worker, &held, 1,
							 NULL, NULL);
				continue;
			}
			if (!cancelled(s, st))
				worker_error(s, w->index, msg);
			break;
		}
		ct_claim_free(&c);
	}
out:
	ct_store_close(st);
	pthread_mutex_lock(&s->mu);
	s->running--;
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
	return NULL;
}
