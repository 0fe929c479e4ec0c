/* pathbatch.c: batched enqueue of paths (pathbatch.h). */
#include <stdio.h>
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
	b->scores = malloc(PATHBATCH_SIZE * sizeof *b->scores);
	b->ptrs = malloc(PATHBATCH_SIZE * sizeof *b->ptrs);
	if (b->off && b->scores && b->ptrs)
		return 0;
	snprintf(b->err, sizeof b->err, "out of memory");
	return -1;
}

int pathbatch_add(struct pathbatch *b, const char *path)
{
	size_t l = strlen(path) + 1;
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
	memcpy(b->text + b->used, path, l);
	b->off[b->n++] = b->used;
	b->used += l;
	return b->n == PATHBATCH_SIZE ? pathbatch_flush(b) : 0;
}

int pathbatch_flush(struct pathbatch *b)
{
	if (b->n == 0)
		return 0;
	for (size_t i = 0; i < b->n; i++)
		b->ptrs[i] = b->text + b->off[i];
	struct ct_enqueue_batch e = CT_ENQUEUE_BATCH_INIT;
	struct ct_enqueue_result r;
	struct ct_error err;
	e.job_id = b->job_id;
	e.paths = b->ptrs;
	e.n = b->n;
	e.scores = b->us && b->us->needed ? b->scores : NULL;
	e.source = b->source;
	e.source_page_id = b->source_page_id;
	e.depth = b->depth;
	e.type = b->type;
	e.discovery_method = b->method ? b->method : urlscore_method(b->source);
	ct_status st = ct_store_enqueue(b->s, &e, &r, &err);
	size_t n = b->n;
	b->n = 0;
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
	free(b->scores);
	free(b->ptrs);
	b->text = NULL;
	b->off = NULL;
	b->scores = NULL;
	b->ptrs = NULL;
	b->n = b->used = b->tcap = 0;
}
