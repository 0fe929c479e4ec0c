/* pathbatch.h: paths collected for one job and sent to the store in
 * batches (ct_store_enqueue), with the scores the job's mode wants
 * (urlscore.h). Used by `crawltop enqueue` and `crawltop simulate`. */
#ifndef CRAWLTOP_PATHBATCH_H
#define CRAWLTOP_PATHBATCH_H

#include <stddef.h>
#include <stdint.h>

#include "crawltop/hierarchy.h"
#include "store.h"
#include "urlscore.h"

/* Paths per call of crawltop.enqueue. A 50,000-URL sitemap took 3.0 s in
 * batches of 1,000 and 2.3 s in batches of 5,000 or 10,000 (each call has
 * a fixed cost in the server; 50,000 in one call: 2.5 s). */
#define PATHBATCH_SIZE 10000

struct pathbatch {
	struct ct_store *s;         /* borrowed */
	const struct urlscore *us;  /* borrowed */
	int64_t job_id;
	ct_source_type source;
	int64_t source_page_id;     /* 0: unknown */
	int depth;                  /* -1: unknown */
	const char *type;           /* NULL: unknown; borrowed */
	const char *method;         /* NULL: the source's (urlscore_method) */
	long page_links;            /* the source page's links in all
				     * (importance jobs); 0: a flush's paths */
	/* the pending batch: n paths as offsets into text */
	char *text;
	size_t used, tcap;
	size_t *off;
	size_t *ioff;               /* each path's score inputs (JSON) in
				     * text, or SIZE_MAX: none */
	double *scores;
	const char **ptrs, **iptrs;
	size_t n, n_inputs;         /* paths, of them with inputs */
	/* totals over every flush */
	long sent, inserted, raised;
	char err[CT_ERROR_LEN + 64];
};

/* An empty batch for job_id on store s (both borrowed until
 * pathbatch_free). The source fields may be changed between flushes. */
void pathbatch_init(struct pathbatch *b, struct ct_store *s,
		    const struct urlscore *us, int64_t job_id,
		    ct_source_type source);

/* Add one path (copied); sends the batch when it holds PATHBATCH_SIZE.
 * -1 with b->err on a failure (the store's refusal, a score the engine
 * refused, out of memory). */
int pathbatch_add(struct pathbatch *b, const char *path);
/* The same with the path's score inputs, a JSON object (NULL: none),
 * stored with the task (struct ct_enqueue_batch .inputs). */
int pathbatch_add_inputs(struct pathbatch *b, const char *path,
			 const char *inputs);

/* The page type of the paths added from now on: what is pending is sent
 * first when the type changes (one call carries one type), so the paths
 * keep their order. -1 with b->err. */
int pathbatch_type(struct pathbatch *b, const char *type);

/* Send what is pending (nothing to do when empty); -1 with b->err. */
int pathbatch_flush(struct pathbatch *b);

/* Drop what is pending and free the buffers. */
void pathbatch_free(struct pathbatch *b);

#endif
