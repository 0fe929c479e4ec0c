/* enqueue.c: jobs and enqueue, as thin calls of crawltop.create_job and
 * crawltop.enqueue (data/sql/0002_enqueue.sql). Every outside value is a
 * parameter; arrays travel as array literals in one parameter each. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_int.h"

ct_status ct_store_job_create(struct ct_store *s, const char *name,
			      const char *domain, int priority,
			      const char *mode, int64_t *id,
			      struct ct_error *err)
{
	char prio[16];
	snprintf(prio, sizeof prio, "%d", priority);
	const char *params[] = {name, domain, prio, mode ? mode : CT_MODE_DEFAULT};
	PGresult *r;
	ct_status st = st_exec(s, "create job",
		"SELECT crawltop.create_job($1, $2, $3::integer, $4)", 4, params,
		&r, err);
	if (st != CT_OK)
		return st;
	*id = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
	PQclear(r);
	return CT_OK;
}

ct_status ct_store_page_id(struct ct_store *s, int64_t job_id,
			   const char *path, int64_t *id, struct ct_error *err)
{
	char job[24];
	snprintf(job, sizeof job, "%" PRId64, job_id);
	const char *params[] = {job, path};
	PGresult *r;
	*id = 0;
	ct_status st = st_exec(s, "page id",
		"SELECT crawltop.page_id($1::bigint, $2)", 2, params, &r, err);
	if (st != CT_OK)
		return st;
	if (PQgetisnull(r, 0, 0))
		st = ct_error_set(err, CT_ENOENT, "page id: job %" PRId64
				  " has no page %.100s", job_id, path);
	else
		*id = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
	PQclear(r);
	return st;
}

/* A double as PostgreSQL reads it back exactly (NaN and infinities too,
 * so that the server, not the client, refuses them with its message). */
static void put_double(struct st_buf *b, double v)
{
	if (isnan(v))
		st_buf_puts(b, "NaN");
	else if (isinf(v))
		st_buf_puts(b, v > 0 ? "Infinity" : "-Infinity");
	else
		st_buf_printf(b, "%.17g", v);
}

ct_status ct_store_enqueue(struct ct_store *s, const struct ct_enqueue_batch *b,
			   struct ct_enqueue_result *res, struct ct_error *err)
{
	*res = (struct ct_enqueue_result){0};
	if (b->n && !b->paths)
		return ct_error_set(err, CT_EINVAL, "enqueue: %zu paths but "
				    "no array", b->n);
	if ((unsigned)b->source >= CT_SRC_COUNT)
		return ct_error_set(err, CT_EINVAL, "enqueue: unknown source "
				    "type %d", (int)b->source);
	struct st_buf paths = {0}, scores = {0}, inputs = {0};
	st_buf_putc(&paths, '{');
	for (size_t i = 0; i < b->n; i++) {
		if (!b->paths[i]) {
			st_buf_free(&paths);
			return ct_error_set(err, CT_EINVAL, "enqueue: paths[%zu] "
					    "is NULL", i + 1);
		}
		if (i)
			st_buf_putc(&paths, ',');
		st_buf_array_elem(&paths, b->paths[i]);
	}
	st_buf_putc(&paths, '}');
	if (b->scores) {
		st_buf_putc(&scores, '{');
		for (size_t i = 0; i < b->n; i++) {
			if (i)
				st_buf_putc(&scores, ',');
			put_double(&scores, b->scores[i]);
		}
		st_buf_putc(&scores, '}');
	}
	if (b->inputs) {
		st_buf_putc(&inputs, '{');
		for (size_t i = 0; i < b->n; i++) {
			if (i)
				st_buf_putc(&inputs, ',');
			if (b->inputs[i])
				st_buf_array_elem(&inputs, b->inputs[i]);
			else
				st_buf_puts(&inputs, "NULL");
		}
		st_buf_putc(&inputs, '}');
	}
	ct_status st;
	if (paths.oom || scores.oom || inputs.oom) {
		st = ct_error_set(err, CT_ENOMEM, "enqueue: out of memory");
		goto out;
	}
	char job[24], src_page[24], depth[16], links[24];
	snprintf(job, sizeof job, "%" PRId64, b->job_id);
	snprintf(links, sizeof links, "%ld", b->page_links);
	snprintf(src_page, sizeof src_page, "%" PRId64, b->source_page_id);
	snprintf(depth, sizeof depth, "%d", b->depth);
	const char *params[] = {
		job,
		paths.p,
		ct_source_type_name(b->source),
		b->source_page_id != 0 ? src_page : NULL,
		b->depth != -1 ? depth : NULL,
		b->type,
		b->discovery_method,
		b->source_url,
		b->scores ? scores.p : NULL,
		b->page_links > 0 ? links : NULL,
	};
	/* With inputs: enqueue and inputs in one transaction, ours unless the
	 * caller already has one open. */
	int own_tx = b->inputs && PQtransactionStatus(s->conn) == PQTRANS_IDLE;
	if (own_tx && (st = st_exec(s, "enqueue", "BEGIN", 0, NULL, NULL,
				    err)) != CT_OK)
		goto out;
	PGresult *r;
	/* the page's links in all only when given: a schema from before
	 * 0033 has no such argument */
	st = st_exec(s, "enqueue", b->page_links > 0 ?
		"SELECT inserted, raised FROM crawltop.enqueue($1::bigint, "
		"$2::text[], $3, $4::bigint, $5::integer, $6, $7, $8, "
		"$9::double precision[], $10::integer)" :
		"SELECT inserted, raised FROM crawltop.enqueue($1::bigint, "
		"$2::text[], $3, $4::bigint, $5::integer, $6, $7, $8, "
		"$9::double precision[])", b->page_links > 0 ? 10 : 9, params,
		&r, err);
	if (st == CT_OK) {
		res->inserted = atol(PQgetvalue(r, 0, 0));
		res->raised = atol(PQgetvalue(r, 0, 1));
		PQclear(r);
	}
	if (st == CT_OK && b->inputs) {
		const char *ip[] = {job, paths.p, inputs.p};
		st = st_exec(s, "enqueue: score inputs",
			"SELECT crawltop.set_score_inputs($1::bigint, $2::text[], "
			"crawltop.jsonb_array($3::text[], 'score inputs'))", 3, ip,
			NULL, err);
	}
	if (own_tx) {
		if (st == CT_OK)
			st = st_exec(s, "enqueue", "COMMIT", 0, NULL, NULL, err);
		else /* not through st_exec: keep the failure's SQLSTATE */
			PQclear(PQexec(s->conn, "ROLLBACK"));
	}
	if (st != CT_OK)
		*res = (struct ct_enqueue_result){0};
out:
	st_buf_free(&paths);
	st_buf_free(&scores);
	st_buf_free(&inputs);
	return st;
}
