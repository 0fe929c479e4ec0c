/* pathbatch.c: batched enqueue of paths (pathbatch.h). */
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pathbatch.h"

void pathbatch_init(struct pathbatch *b, struct ct_store *s,
		    const struct urlscore *us, int64_t job_id,
		    ct_source_type source)
{
	memset(b, 0, sizeof *b);
	b->s = s;
	b->us = us;
	b->job_id = job_id;
	b->source = source;
	b->depth = -1;
}

/* Allocate the per-path arrays on first use. */
static int arrays(struct pathbatch *b)
{
	if (b->off)
		return 0;
	b->off = malloc(PATHBATCH_SIZE * sizeof *b->off);
	b->ioff = malloc(PATHBATCH_SIZE * sizeof *b->ioff);
	b->scores = malloc(PATHBATCH_SIZE * sizeof *b->scores);
	b->ptrs = malloc(PATHBATCH_SIZE * sizeof *b->ptrs);
	b->iptrs = malloc(PATHBATCH_SIZE * sizeof *b->iptrs);
	if (b->off && b->ioff && b->scores && b->ptrs && b->iptrs)
		return 0;
	snprintf(b->err, sizeof b->err, "out of memory");
	return -1;
}

int pathbatch_add(struct pathbatch *b, const char *path)
{
	return pathbatch_add_inputs(b, path, NULL);
}

int pathbatch_add_inputs(struct pathbatch *b, const char *path,
			 const char *inputs)
{
	size_t lp = strlen(path) + 1, l = lp + (inputs ? strlen(inputs) + 1 : 0);
	if (arrays(b) != 0)
		return -1;
	if (b->used + l > b->tcap) {
		size_t cap = b->tcap ? b->tcap : 1 << 16;
		while (cap < b->used + l)
			cap *= 2;
		char *t = realloc(b->text, cap);
		if (!t) {
			snprintf(b->err, sizeof b->err, "out of memory");
			return -1;
		}
		b->text = t;
		b->tcap = cap;
	}
	if (b->us && b->us->needed &&
	    urlscore_of(b->us, path, b->source, b->depth, b->type, b->method,
			&b->scores[b->n], b->err, sizeof b->err) != 0)
		return -1;
	memcpy(b->text + b->used, path, lp);
	b->ioff[b->n] = SIZE_MAX;
	if (inputs) {
		memcpy(b->text + b->used + lp, inputs, l - lp);
		b->ioff[b->n] = b->used + lp;
		b->n_inputs++;
	}
	b->off[b->n++] = b->used;
	b->used += l;
	return b->n == PATHBATCH_SIZE ? pathbatch_flush(b) : 0;
}

int pathbatch_flush(struct pathbatch *b)
{
	if (b->n == 0)
		return 0;
	for (size_t i = 0; i < b->n; i++) {
		b->ptrs[i] = b->text + b->off[i];
		b->iptrs[i] = b->ioff[i] == SIZE_MAX ? NULL : b->text + b->ioff[i];
	}
	struct ct_enqueue_batch e = CT_ENQUEUE_BATCH_INIT;
	struct ct_enqueue_result r;
	struct ct_error err;
	e.job_id = b->job_id;
	e.paths = b->ptrs;
	e.n = b->n;
	e.scores = b->us && b->us->needed ? b->scores : NULL;
	e.source = b->source;
	e.source_page_id = b->source_page_id;
	e.page_links = b->page_links;
	e.depth = b->depth;
	e.type = b->type;
	e.inputs = b->n_inputs ? b->iptrs : NULL;
	e.discovery_method = b->method ? b->method : urlscore_method(b->source);
	ct_status st = ct_store_enqueue(b->s, &e, &r, &err);
	size_t n = b->n;
	b->n = b->n_inputs = 0;
	b->used = 0;
	if (st != CT_OK) {
		snprintf(b->err, sizeof b->err, "%s", err.msg);
		return -1;
	}
	b->sent += (long)n;
	b->inserted += r.inserted;
	b->raised += r.raised;
	return 0;
}

int pathbatch_type(struct pathbatch *b, const char *type)
{
	if (b->type == type || (b->type && type && !strcmp(b->type, type)))
		return 0;
	int rc = pathbatch_flush(b);
	b->type = type;
	return rc;
}

void pathbatch_free(struct pathbatch *b)
{
	free(b->text);
	free(b->off);
	free(b->ioff);
	free(b->scores);
	free(b->ptrs);
	free(b->iptrs);
	b->text = NULL;
	b->off = b->ioff = NULL;
	b->scores = NULL;
	b->ptrs = b->iptrs = NULL;
	b->n = b->n_inputs = b->used = b->tcap = 0;
}
