/* rank_ops.c: seed 003's ranking run, the run manifest, the settings
 * history and one task's record (rank_ops.h).
 *
 * A ranking batch is one transaction: one SELECT locks the next tasks by
 * id (the order complete, fail and release lock theirs), unpacks their
 * score inputs into columns and reads their last ranking; the engine
 * scores them here and row_backoff decides each one's backoff step and
 * next check; one UPDATE ... FROM unnest(arrays) writes them back. Every
 * value is a parameter.
 * With several connections, the task id range is cut into one stripe per
 * connection, each ranked by its own thread: the stripes are disjoint, so
 * the threads never wait for each other's rows. */
#include <inttypes.h>
#include <math.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crawltop/discovery.h"
#include "rank_ops.h"
#include "store_int.h"

#define RANK_BATCH_DEFAULT 10000
/* A batch rolled back by a deadlock or serialization failure is tried
 * again up to this many times in a row before the run fails. */
#define RANK_RETRIES 5
#define RANK_BATCH_MAX 100000

/* The columns every input fetch returns after its first `base` columns:
 * has_subscores, the eight sub-scores (enum ct_subscore order),
 * has_signals and the raw signals in this order. */
enum icol {
	I_HAS_SUB, I_SUB0, I_HAS_SIG = I_SUB0 + CT_SUB_COUNT, I_CT_AGE, I_NS,
	I_ASN, I_WHOIS, I_BACKLINKS, I_FIRST_SEEN, I_RARE_TLD, I_SUBDOMAIN,
	I_PARKING, I_DOC_PATH, I_DOC_EXT, I_VENDOR, I_SOURCE, I_AGE, I_MALWARE,
	I_ADULT, I_FOR_SALE, I_SUSP_TLD, I_TOPIC, I_COUNT
};

/* The columns enum icol reads, from crawltop.discovery_input_columns
 * (0005, where t.score_inputs is unpacked), joined as x. */
#define INPUT_COLS \
	"x.has_subscores, x.unseen_likelihood, x.host_novelty, " \
	"x.content_readiness, x.link_yield, x.source_reliability, " \
	"x.freshness, x.quality_safety, x.topic_boost, " \
	"x.has_signals, x.ct_age_hours, x.ns_changes, " \
	"x.asn_changes, x.whois_age_days, x.backlinks, x.first_seen_host, " \
	"x.rare_tld, x.subdomain_depth, x.parking_score, x.document_path, " \
	"x.document_extension, x.vendor_fingerprint, x.source, x.age_hours, " \
	"x.malware, x.adult, x.for_sale, x.suspicious_tld, x.topic_match "
#define INPUT_JOINS \
	"CROSS JOIN LATERAL crawltop.discovery_input_columns(t.score_inputs) x "

/* The columns of a batch's fetch before its inputs: what rank_lock says
 * of each task's last ranking (0013). */
enum fcol {
	F_ID, F_STEP, F_CLASS, F_RANKED, F_DUE, F_RESULT, F_NS_ASN, F_BASE
};

/* One batch: id, the last ranking (enum fcol), then the inputs, locked
 * and read by crawltop.rank_lock (0013: the store's function, as the
 * caller may not write tasks itself) and unpacked here. */
static const char fetch_sql[] =
	"SELECT t.task_id, t.backoff_step, t.prev_class, t.ranked, t.due, "
	"t.prev_result, t.prev_ns_asn, " INPUT_COLS
	"FROM crawltop.rank_lock($1::bigint[], $2::bigint, $4::bigint, "
	"$3::integer) t "
	"CROSS JOIN LATERAL crawltop.discovery_input_columns(t.score_inputs) x "
	"ORDER BY t.task_id";

/* The batch's results, written by crawltop.rank_apply (0013), bounded to
 * the batch's id range ($17, $18], with the run's class bounds ($19..$21:
 * every task's derived score is classed with the bounds its discovery
 * score was, boosted or not): without the id bounds the planner merge-
 * joined from the first task id, so every batch read every id before its
 * own and a run of N tasks grew as N squared (measured: the last of 30
 * batches over 300,000 tasks took 0.5-0.86 s unbounded, 0.38-0.41 s
 * bounded). */
static const char update_sql[] =
	"SELECT crawltop.rank_apply($1::bigint[], $2::float8[], "
	"$3::smallint[], $4::smallint[], $5::float8[], $6::boolean[], "
	"$7::float8[], $8::float8[], $9::float8[], $10::float8[], "
	"$11::float8[], $12::float8[], $13::float8[], $14::float8[], "
	"$15::text[], $16::bigint[], $17::bigint, $18::bigint, "
	"$19::float8, $20::float8, $21::float8)";

static int is_null(const PGresult *r, int i, int c)
{
	return PQgetisnull(r, i, c);
}

static double num_or(const PGresult *r, int i, int c, double def)
{
	return is_null(r, i, c) ? def : strtod(PQgetvalue(r, i, c), NULL);
}

static long long int_or(const PGresult *r, int i, int c, long long def)
{
	return is_null(r, i, c) ? def : strtoll(PQgetvalue(r, i, c), NULL, 10);
}

static bool bool_or(const PGresult *r, int i, int c, bool def)
{
	return is_null(r, i, c) ? def : PQgetvalue(r, i, c)[0] == 't';
}

/* The sub-scores of row i, whose enum icol columns start at base: the
 * stored sub-scores, else the raw signals through the engine. *from is
 * "subscores", "signals", or NULL when the row has neither (then sub is
 * untouched and CT_OK returned). *ns_asn (may be NULL) receives the raw
 * signals' ns_changes + asn_changes, or -1 when the sub-scores did not
 * come from raw signals. */
static ct_status row_subscores(const PGresult *r, int i, int base,
			       double sub[CT_SUB_COUNT], const char **from,
			       long long *ns_asn, struct ct_error *err)
{
	*from = NULL;
	if (ns_asn)
		*ns_asn = -1;
	if (bool_or(r, i, base + I_HAS_SUB, false)) {
		for (int k = 0; k < CT_SUB_COUNT; k++) {
			if (is_null(r, i, base + I_SUB0 + k))
				return ct_error_set(err, CT_EINVAL, "rank: task %s: "
						    "sub-score %s is missing",
						    PQgetvalue(r, i, 0),
						    ct_subscore_name((ct_subscore)k));
			sub[k] = num_or(r, i, base + I_SUB0 + k, 0);
		}
		*from = "subscores";
		return CT_OK;
	}
	if (!bool_or(r, i, base + I_HAS_SIG, false))
		return CT_OK;
	struct ct_discovery_signals g;
	ct_discovery_signals_init(&g);
	g.ct_age_hours = num_or(r, i, base + I_CT_AGE, g.ct_age_hours);
	g.ns_changes = (int)int_or(r, i, base + I_NS, 0);
	g.asn_changes = (int)int_or(r, i, base + I_ASN, 0);
	g.whois_age_days = num_or(r, i, base + I_WHOIS, g.whois_age_days);
	g.backlinks = (long)int_or(r, i, base + I_BACKLINKS, g.backlinks);
	g.first_seen_host = bool_or(r, i, base + I_FIRST_SEEN, false);
	g.rare_tld = bool_or(r, i, base + I_RARE_TLD, false);
	g.subdomain_depth = (int)int_or(r, i, base + I_SUBDOMAIN, 0);
	g.parking_score = num_or(r, i, base + I_PARKING, g.parking_score);
	g.document_path = bool_or(r, i, base + I_DOC_PATH, false);
	g.document_extension = bool_or(r, i, base + I_DOC_EXT, false);
	g.vendor_fingerprint = bool_or(r, i, base + I_VENDOR, false);
	if (!is_null(r, i, base + I_SOURCE) &&
	    !ct_source_kind_parse(PQgetvalue(r, i, base + I_SOURCE), &g.source))
		return ct_error_set(err, CT_EINVAL, "rank: task %s: signals.source "
				    "'%.32s' is unknown", PQgetvalue(r, i, 0),
				    PQgetvalue(r, i, base + I_SOURCE));
	g.age_hours = num_or(r, i, base + I_AGE, g.age_hours);
	g.malware = bool_or(r, i, base + I_MALWARE, false);
	g.adult = bool_or(r, i, base + I_ADULT, false);
	g.for_sale = bool_or(r, i, base + I_FOR_SALE, false);
	g.suspicious_tld = bool_or(r, i, base + I_SUSP_TLD, false);
	g.topic_match = num_or(r, i, base + I_TOPIC, g.topic_match);
	ct_status st = ct_discovery_subscores(&g, sub, err);
	if (st != CT_OK)
		return st;
	*from = "signals";
	if (ns_asn) /* each >= 0 and an int: the sum fits */
		*ns_asn = (long long)g.ns_changes + g.asn_changes;
	return CT_OK;
}

/* The highest backoff step the column takes (0006: 0..100); the wait has
 * long reached its maximum there. */
#define BACKOFF_STEP_MAX 100

/* Whether row i's stored result (F_RESULT: the discovery score and the
 * eight sub-scores, as rank_lock prints them: text that reads back as
 * the very doubles stored) is the one just computed, exactly. */
static bool same_result(const PGresult *r, int i,
			const struct ct_discovery_result *dr,
			const double sub[CT_SUB_COUNT])
{
	if (is_null(r, i, F_RESULT))
		return false;
	const char *p = PQgetvalue(r, i, F_RESULT);
	char *end;
	double v = strtod(p, &end);
	if (end == p || v != dr->score)
		return false;
	for (int k = 0; k < CT_SUB_COUNT; k++) {
		p = end;
		v = strtod(p, &end);
		if (end == p || v != sub[k])
			return false;
	}
	return *end == '\0';
}

/* Seed 003's backoff for fetched row i, now ranked dr from sub (ns_asn:
 * row_subscores' sum, -1 for none), from its last ranking (enum fcol):
 * *step to write, and either *keep (the stored next_check_at stays) or
 * the check to write: *has and *hours from ct_backoff_hours, the one
 * schedule (doc/scoring.md, Backoff):
 *   first ranking, or a class other than the stored one: step 0;
 *   P0, P1: step 0, no check;
 *   P2, P3 with more NS + ASN changes than recorded: step 0;
 *   a run before the check is due: step and check kept;
 *   a due recheck finding the stored result: one step on;
 *   a due recheck finding another result: the step stays. */
static ct_status row_backoff(const PGresult *r, int i,
			     const struct ct_rank_opts *o,
			     const struct ct_discovery_result *dr,
			     const double sub[CT_SUB_COUNT], long long ns_asn,
			     int *step, bool *keep, bool *has, double *hours,
			     struct ct_error *err)
{
	int old = (int)int_or(r, i, F_STEP, 0);
	*keep = false;
	*has = false;
	*hours = 0;
	if (!bool_or(r, i, F_RANKED, false) ||
	    int_or(r, i, F_CLASS, -1) != (long long)dr->cls ||
	    dr->cls == CT_P0 || dr->cls == CT_P1)
		*step = 0;
	else if (ns_asn >= 0 && !is_null(r, i, F_NS_ASN) &&
		 ns_asn > int_or(r, i, F_NS_ASN, 0))
		*step = 0;
	else if (!bool_or(r, i, F_DUE, true)) {
		*step = old;
		*keep = true;
		return CT_OK;
	} else if (same_result(r, i, dr, sub))
		*step = old < BACKOFF_STEP_MAX ? old + 1 : BACKOFF_STEP_MAX;
	else
		*step = old;
	return ct_backoff_hours(&o->settings->discovery.backoff, dr->cls,
				*step, false, has, hours, err);
}

/* The arrays of one batch's UPDATE, as PostgreSQL array literals, in
 * rank_apply's order. */
enum { A_ID, A_SCORE, A_CLASS, A_STEP, A_HOURS, A_KEEP, A_SUB0,
       A_FROM = A_SUB0 + CT_SUB_COUNT, A_NS_ASN, A_COUNT };

static void arr_sep(struct st_buf *b, int first)
{
	st_buf_putc(b, first ? '{' : ',');
}

/* Score row i of a fetched batch and append it to the arrays; counts it
 * in *ranked or *unranked. */
static ct_status rank_row(const PGresult *r, int i, const struct ct_rank_opts *o,
			  struct st_buf a[A_COUNT], long long *n,
			  long long *unranked, struct ct_error *err)
{
	double sub[CT_SUB_COUNT];
	const char *from;
	long long ns_asn;
	ct_status st = row_subscores(r, i, F_BASE, sub, &from, &ns_asn, err);
	if (st != CT_OK)
		return st;
	if (!from) {
		(*unranked)++;
		return CT_OK;
	}
	struct ct_discovery_result dr;
	struct ct_error why = {{0}};
	st = ct_discovery_score(&o->settings->discovery, &o->settings->classes,
				sub, &dr, &why);
	if (st != CT_OK)
		return ct_error_set(err, st, "rank: task %s: %s",
				    PQgetvalue(r, i, 0), why.msg);
	int step;
	bool keep, has;
	double hours;
	st = row_backoff(r, i, o, &dr, sub, ns_asn, &step, &keep, &has, &hours,
			 err);
	if (st != CT_OK)
		return st;
	int first = *n == 0;
	for (int k = 0; k < A_COUNT; k++)
		arr_sep(&a[k], first);
	st_buf_puts(&a[A_ID], PQgetvalue(r, i, 0));
	st_buf_printf(&a[A_SCORE], "%.17g", dr.score);
	st_buf_printf(&a[A_CLASS], "%d", (int)dr.cls);
	st_buf_printf(&a[A_STEP], "%d", step);
	if (has && !keep)
		st_buf_printf(&a[A_HOURS], "%.17g", hours);
	else
		st_buf_puts(&a[A_HOURS], "NULL");
	st_buf_putc(&a[A_KEEP], keep ? 't' : 'f');
	for (int k = 0; k < CT_SUB_COUNT; k++)
		st_buf_printf(&a[A_SUB0 + k], "%.17g", sub[k]);
	st_buf_puts(&a[A_FROM], from);
	if (ns_asn >= 0)
		st_buf_printf(&a[A_NS_ASN], "%lld", ns_asn);
	else
		st_buf_puts(&a[A_NS_ASN], "NULL");
	(*n)++;
	return CT_OK;
}

/* The ids of the jobs a run covers, as an array literal in buf. */
static ct_status rank_jobs(struct ct_store *s, int64_t job_id, char *buf,
			   size_t len, struct ct_error *err)
{
	PGresult *r;
	ct_status st;
	if (job_id) {
		char id[24];
		snprintf(id, sizeof id, "%" PRId64, job_id);
		const char *p[] = {id};
		st = st_exec(s, "rank", "SELECT prioritization_mode, name FROM "
			     "crawltop.jobs WHERE id = $1::bigint", 1, p, &r, err);
		if (st != CT_OK)
			return st;
		if (PQntuples(r) == 0) {
			PQclear(r);
			return ct_error_set(err, CT_ENOENT, "rank: job %s does not "
					    "exist", id);
		}
		if (strcmp(PQgetvalue(r, 0, 0), "discovery") != 0) {
			st = ct_error_set(err, CT_EINVAL, "rank: job %s is in %s "
					  "mode: rank scores the tasks of "
					  "discovery jobs (crawltop job set-mode "
					  "%s discovery)", PQgetvalue(r, 0, 1),
					  PQgetvalue(r, 0, 0), PQgetvalue(r, 0, 1));
			PQclear(r);
			return st;
		}
		PQclear(r);
		snprintf(buf, len, "{%s}", id);
		return CT_OK;
	}
	st = st_exec(s, "rank", "SELECT count(*), coalesce(array_agg(id "
		     "ORDER BY id)::text, '{}') FROM crawltop.jobs "
		     "WHERE prioritization_mode = 'discovery'", 0, NULL, &r, err);
	if (st != CT_OK)
		return st;
	if (strcmp(PQgetvalue(r, 0, 0), "0") == 0)
		st = ct_error_set(err, CT_ENOENT, "rank: no job is in discovery "
				  "mode: nothing to rank (create one with "
				  "--mode discovery, or name one with --job)");
	else if (strlen(PQgetvalue(r, 0, 1)) >= len)
		st = ct_error_set(err, CT_ENOMEM, "rank: too many discovery jobs");
	else
		snprintf(buf, len, "%s", PQgetvalue(r, 0, 1));
	PQclear(r);
	return st;
}

/* Copy the manifest row of the first result row (manifest_cols). */
#define MANIFEST_COLS \
	"m.id, coalesce(m.job_id, 0), to_char(m.run_at, 'YYYY-MM-DD HH24:MI:SS'), " \
	"m.p0_count, m.p1_count, m.p2_count, m.p3_count, m.unranked_count, " \
	"m.avg_score, m.score_0_20, m.score_20_40, m.score_40_60, " \
	"m.score_60_80, m.score_80_100, coalesce(m.settings_version, 0), " \
	"coalesce(m.note, ''), " \
	"coalesce((SELECT j.name FROM crawltop.jobs j WHERE j.id = m.job_id), '') "

static void manifest_row(const PGresult *r, struct ct_run_manifest *m)
{
	memset(m, 0, sizeof *m);
	m->id = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
	m->job_id = strtoll(PQgetvalue(r, 0, 1), NULL, 10);
	snprintf(m->run_at, sizeof m->run_at, "%s", PQgetvalue(r, 0, 2));
	for (int k = 0; k < 4; k++)
		m->count[k] = strtoll(PQgetvalue(r, 0, 3 + k), NULL, 10);
	m->unranked = strtoll(PQgetvalue(r, 0, 7), NULL, 10);
	m->avg_score = strtod(PQgetvalue(r, 0, 8), NULL);
	for (int k = 0; k < 5; k++)
		m->bucket[k] = strtoll(PQgetvalue(r, 0, 9 + k), NULL, 10);
	m->settings_version = atoi(PQgetvalue(r, 0, 14));
	snprintf(m->note, sizeof m->note, "%s", PQgetvalue(r, 0, 15));
	snprintf(m->job_name, sizeof m->job_name, "%s", PQgetvalue(r, 0, 16));
}

/* Rank one batch of the tasks after *after, up to task id hi, in its own
 * transaction; *got receives the rows fetched (0: done). *after moves on
 * only when the batch committed. *conflict: the server rolled the batch
 * back to break a deadlock (40P01) or a serialization failure (40001),
 * and it may be tried again (it changed nothing). */
static ct_status rank_batch(struct ct_store *s, const struct ct_rank_opts *o,
			    const char *jobs, int64_t *after, int64_t hi,
			    int *got, struct ct_rank_result *out,
			    bool *conflict, struct ct_error *err)
{
	*conflict = false;
	char aft[24], lim[24], top[24];
	snprintf(aft, sizeof aft, "%" PRId64, *after);
	snprintf(lim, sizeof lim, "%zu", o->batch ? o->batch : RANK_BATCH_DEFAULT);
	snprintf(top, sizeof top, "%" PRId64, hi);
	const char *fp[] = {jobs, aft, lim, top};
	struct st_buf a[A_COUNT];
	memset(a, 0, sizeof a);
	PGresult *r = NULL;
	long long n = 0, unranked = 0;
	ct_status st = st_exec(s, "rank", "BEGIN", 0, NULL, NULL, err);
	if (st != CT_OK)
		return st;
	st = st_exec(s, "rank", fetch_sql, 4, fp, &r, err);
	if (st == CT_OK && PQnfields(r) != F_BASE + I_COUNT)
		st = ct_error_set(err, CT_EIO, "rank: the input fetch returns %d "
				  "columns, not %d", PQnfields(r), F_BASE + I_COUNT);
	int rows = st == CT_OK ? PQntuples(r) : 0;
	for (int i = 0; st == CT_OK && i < rows; i++)
		st = rank_row(r, i, o, a, &n, &unranked, err);
	int64_t next = *after;
	if (st == CT_OK && rows > 0)
		next = strtoll(PQgetvalue(r, rows - 1, 0), NULL, 10);
	char last[24];
	snprintf(last, sizeof last, "%" PRId64, next);
	for (int k = 0; st == CT_OK && k < A_COUNT; k++) {
		st_buf_puts(&a[k], n ? "}" : "{}");
		if (a[k].oom)
			st = ct_error_set(err, CT_ENOMEM, "rank: out of memory");
	}
	if (st == CT_OK && n > 0) {
		/* the bounds the engine classed the batch with, exactly */
		const struct ct_class_bounds *cb = &o->settings->classes;
		char bnd[3][32];
		snprintf(bnd[0], sizeof bnd[0], "%.17g", cb->p0);
		snprintf(bnd[1], sizeof bnd[1], "%.17g", cb->p1);
		snprintf(bnd[2], sizeof bnd[2], "%.17g", cb->p2);
		const char *up[A_COUNT + 5];
		for (int k = 0; k < A_COUNT; k++)
			up[k] = a[k].p;
		up[A_COUNT] = aft;
		up[A_COUNT + 1] = last;
		for (int k = 0; k < 3; k++)
			up[A_COUNT + 2 + k] = bnd[k];
		st = st_exec(s, "rank", update_sql, A_COUNT + 5, up, NULL, err);
	}
	if (st == CT_OK)
		st = st_exec(s, "rank", "COMMIT", 0, NULL, NULL, err);
	if (st != CT_OK) {
		*conflict = ct_store_rolled_back(s); /* before ROLLBACK */
		st_exec(s, "rank", "ROLLBACK", 0, NULL, NULL, NULL);
	}
	PQclear(r);
	for (int k = 0; k < A_COUNT; k++)
		st_buf_free(&a[k]);
	if (st == CT_OK) {
		*after = next;
		*got = rows;
		out->ranked += n;
		out->unranked += unranked;
		if (rows > 0)
			out->batches++; /* an empty fetch, at the end, is no batch */
	}
	return st;
}

/* One stripe of a run: task ids in (lo, hi], ranked batch by batch on
 * one connection until done, an error, or another stripe's error. */
struct stripe {
	struct ct_store *s;
	const struct ct_rank_opts *o;
	const char *jobs;
	int64_t lo, hi;
	atomic_int *failed;
	struct ct_rank_result res;
	ct_status st;
	struct ct_error err;
};

static void *stripe_run(void *arg)
{
	struct stripe *w = arg;
	int64_t after = w->lo;
	int got;
	w->st = CT_OK;
	int tries = 0;
	bool conflict;
	do {
		if (atomic_load(w->failed)) /* another stripe failed: stop */
			break;
		got = 0;
		w->st = rank_batch(w->s, w->o, w->jobs, &after, w->hi, &got,
				   &w->res, &conflict, &w->err);
		/* a batch the server rolled back to break a deadlock with a
		 * crawl's transactions (which may lock tasks in any order)
		 * is tried again, a few times */
		if (w->st != CT_OK && conflict && ++tries <= RANK_RETRIES) {
			st_retry_pause(tries);
			w->res.retried++;
			w->st = CT_OK;
			got = 1;
			continue;
		}
		tries = 0;
	} while (w->st == CT_OK && got > 0);
	if (w->st != CT_OK)
		atomic_store(w->failed, 1);
	return NULL;
}

/* Rank every stripe: stripe 0 on this thread, the others on threads of
 * their own. Sums the results into out; the first failure wins. */
static ct_status rank_stripes(struct stripe *w, size_t n,
			      struct ct_rank_result *out, struct ct_error *err)
{
	st_parallel(w, n, sizeof *w, stripe_run);
	ct_status st = CT_OK;
	for (size_t i = 0; i < n; i++) {
		out->ranked += w[i].res.ranked;
		out->unranked += w[i].res.unranked;
		out->batches += w[i].res.batches;
		out->retried += w[i].res.retried;
		if (st == CT_OK && w[i].st != CT_OK) {
			st = w[i].st;
			if (err)
				*err = w[i].err;
		}
	}
	return st;
}

ct_status ct_store_rank(struct ct_store *s, const struct ct_rank_opts *o,
			struct ct_rank_result *out, struct ct_error *err)
{
	memset(out, 0, sizeof *out);
	if (!o || !o->settings)
		return ct_error_set(err, CT_EINVAL, "rank: no settings given");
	if (o->batch > RANK_BATCH_MAX)
		return ct_error_set(err, CT_ERANGE, "rank: batch size %zu is "
				    "outside 1..%d", o->batch, RANK_BATCH_MAX);
	size_t nconn = 1 + o->n_extra;
	ct_status st = st_conns_check(s, o->extra, o->n_extra,
				      CT_RANK_MAX_CONNS, "rank", err);
	if (st != CT_OK)
		return st;
	if ((st = ct_settings_check(o->settings, err)) != CT_OK)
		return st;
	char jobs[65536];
	if ((st = rank_jobs(s, o->job_id, jobs, sizeof jobs, err)) != CT_OK)
		return st;
	PGresult *r;
	st = st_exec(s, "rank", "SELECT clock_timestamp()::text", 0, NULL, &r,
		     err);
	if (st != CT_OK)
		return st;
	char since[64];
	snprintf(since, sizeof since, "%s", PQgetvalue(r, 0, 0));
	PQclear(r);

	/* the stripes: the id range of the table (two primary key probes),
	 * cut into nconn equal parts */
	int64_t lo = 0, hi = INT64_MAX;
	if (nconn > 1) {
		st = st_exec(s, "rank", "SELECT coalesce(min(id), 0) - 1, "
			     "coalesce(max(id), 0) FROM crawltop.tasks", 0, NULL,
			     &r, err);
		if (st != CT_OK)
			return st;
		lo = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
		hi = strtoll(PQgetvalue(r, 0, 1), NULL, 10);
		PQclear(r);
	}
	struct stripe w[CT_RANK_MAX_CONNS];
	atomic_int failed = 0;
	/* (one connection: one stripe over every id; hi - lo fits, as lo
	 * is at least -1 and hi at most the largest id) */
	int64_t span = nconn > 1 ? (hi - lo) / (int64_t)nconn + 1 : 0;
	for (size_t i = 0; i < nconn; i++) {
		w[i] = (struct stripe){.s = i ? o->extra[i - 1] : s, .o = o,
				       .jobs = jobs, .failed = &failed};
		w[i].lo = nconn == 1 ? 0 : lo + (int64_t)i * span;
		w[i].hi = nconn == 1 || i == nconn - 1 ? INT64_MAX :
			  lo + (int64_t)(i + 1) * span;
	}
	st = rank_stripes(w, nconn, out, err);
	if (st != CT_OK)
		return st;

	char job[24], ver[16];
	snprintf(job, sizeof job, "%" PRId64, o->job_id);
	snprintf(ver, sizeof ver, "%d", o->settings_version);
	const char *mp[] = {o->job_id ? job : NULL, since, o->note,
			    o->settings_version > 0 ? ver : NULL};
	st = st_exec(s, "rank: run manifest", "SELECT crawltop.record_run_"
		     "manifest($1::bigint, $2::timestamptz, $3, $4::integer)", 4,
		     mp, &r, err);
	if (st != CT_OK)
		return st;
	char mid[24];
	snprintf(mid, sizeof mid, "%s", PQgetvalue(r, 0, 0));
	PQclear(r);
	const char *ip[] = {mid};
	st = st_exec(s, "rank: run manifest", "SELECT " MANIFEST_COLS
		     "FROM crawltop.run_manifest m WHERE m.id = $1::bigint", 1,
		     ip, &r, err);
	if (st != CT_OK)
		return st;
	if (PQntuples(r) == 1)
		manifest_row(r, &out->manifest);
	else
		st = ct_error_set(err, CT_EIO, "rank: the run manifest was not "
				  "recorded");
	PQclear(r);
	return st;
}

ct_status ct_store_run_manifest(struct ct_store *s, int64_t job_id,
				const char *date, struct ct_run_manifest *out,
				struct ct_error *err)
{
	char job[24];
	snprintf(job, sizeof job, "%" PRId64, job_id);
	const char *p[] = {job_id ? job : NULL, date};
	PGresult *r;
	ct_status st = st_exec(s, "stats: run manifest",
		"SELECT " MANIFEST_COLS "FROM crawltop.run_manifest m "
		"WHERE ($1::bigint IS NULL OR m.job_id = $1::bigint) "
		"AND ($2::date IS NULL OR (m.run_at >= $2::date "
		"AND m.run_at < $2::date + 1)) "
		"ORDER BY m.run_at DESC, m.id DESC LIMIT 1", 2, p, &r, err);
	if (st != CT_OK)
		return st;
	/* a run over every job has its manifest under no job: say where it
	 * is, rather than ask for the run just made */
	if (PQntuples(r) == 0 && job_id)
		st = ct_error_set(err, CT_ENOENT, "stats: no ranking run of job "
				  "%s alone is recorded%s%s (crawltop rank --job "
				  "ranks one job; the runs over every job are "
				  "shown without --job)", job, date ? " on " : "",
				  date ? date : "");
	else if (PQntuples(r) == 0)
		st = ct_error_set(err, CT_ENOENT, "stats: no ranking run%s%s "
				  "is recorded (run crawltop rank)",
				  date ? " on " : "", date ? date : "");
	else
		manifest_row(r, out);
	PQclear(r);
	return st;
}

/* ---- settings history --------------------------------------------------- */

ct_status ct_store_settings_history(struct ct_store *s,
				    struct ct_settings_hist_list *out,
				    struct ct_error *err)
{
	memset(out, 0, sizeof *out);
	PGresult *r;
	ct_status st = st_exec(s, "settings history",
		"SELECT v.version, to_char(v.created_at, 'YYYY-MM-DD HH24:MI:SS'), "
		"v.created_by, coalesce(v.note, ''), "
		"coalesce((SELECT string_agg(coalesce(n.path, o.path) || ': ' || "
		"coalesce(o.value::text, '(none)') || ' -> ' || "
		"coalesce(n.value::text, '(none)'), '; ' "
		"ORDER BY coalesce(n.path, o.path)) "
		"FROM crawltop.jsonb_leaves(v.value) n "
		"FULL JOIN crawltop.jsonb_leaves(p.value) o ON o.path = n.path "
		"WHERE p.version IS NOT NULL "
		"AND o.value IS DISTINCT FROM n.value), '') "
		"FROM crawltop.settings v LEFT JOIN LATERAL ("
		"SELECT q.version, q.value FROM crawltop.settings q "
		"WHERE q.version < v.version ORDER BY q.version DESC LIMIT 1) p "
		"ON true ORDER BY v.version", 0, NULL, &r, err);
	if (st != CT_OK)
		return st;
	int n = PQntuples(r);
	out->v = calloc(n ? (size_t)n : 1, sizeof *out->v);
	if (!out->v) {
		PQclear(r);
		return ct_error_set(err, CT_ENOMEM, "settings history: out of memory");
	}
	for (int i = 0; i < n; i++) {
		struct ct_settings_hist *h = &out->v[i];
		h->version = atoi(PQgetvalue(r, i, 0));
		snprintf(h->created_at, sizeof h->created_at, "%s", PQgetvalue(r, i, 1));
		snprintf(h->created_by, sizeof h->created_by, "%s", PQgetvalue(r, i, 2));
		snprintf(h->note, sizeof h->note, "%s", PQgetvalue(r, i, 3));
		h->changes = strdup(PQgetvalue(r, i, 4));
		out->n++;
		if (!h->changes) {
			PQclear(r);
			ct_settings_hist_free(out);
			return ct_error_set(err, CT_ENOMEM, "settings history: out "
					    "of memory");
		}
	}
	PQclear(r);
	return CT_OK;
}

void ct_settings_hist_free(struct ct_settings_hist_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].changes);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

ct_status ct_store_settings_previous(struct ct_store *s, int version,
				     int *prev, struct ct_error *err)
{
	char v[16];
	snprintf(v, sizeof v, "%d", version);
	const char *p[] = {v};
	PGresult *r;
	ct_status st = st_exec(s, "settings undo", "SELECT max(version) FROM "
			       "crawltop.settings WHERE version < $1::integer",
			       1, p, &r, err);
	if (st != CT_OK)
		return st;
	if (PQgetisnull(r, 0, 0))
		st = ct_error_set(err, CT_ENOENT, "settings undo: version %d is "
				  "the first: there is nothing to undo", version);
	else
		*prev = atoi(PQgetvalue(r, 0, 0));
	PQclear(r);
	return st;
}

/* ---- one task ----------------------------------------------------------- */

void ct_task_view_free(struct ct_task_view *t)
{
	free(t->inputs);
	free(t->signals);
	t->inputs = t->signals = NULL;
}

static char *dup_or_null(const PGresult *r, int c)
{
	return PQgetisnull(r, 0, c) ? NULL : strdup(PQgetvalue(r, 0, c));
}

ct_status ct_store_task_view(struct ct_store *s, int64_t job_id,
			     const char *path, struct ct_task_view *out,
			     struct ct_error *err)
{
	memset(out, 0, sizeof *out);
	char job[24];
	snprintf(job, sizeof job, "%" PRId64, job_id);
	const char *p[] = {job, path};
	PGresult *r;
	ct_status st = st_exec(s, "explain",
		"SELECT t.id, t.job_id, t.page_id, j.name, j.prioritization_mode, "
		/* the status as shown everywhere: a running task nobody
		 * holds is retrying */
		"crawltop.task_status_shown(t.status, t.lease_owner), t.job_priority, t.score, t.class, t.ranked_at IS NOT NULL, "
		"coalesce(t.discovery_score, 0), t.priority_class, "
		"coalesce(to_char(t.next_check_at, 'YYYY-MM-DD HH24:MI:SS'), ''), "
		"t.backoff_step, p.priority_score, t.source_type, "
		"coalesce(sp.path, ''), coalesce(sp.priority_score, -1), "
		"coalesce(t.depth, -1), t.score_inputs::text, t.signals::text, "
		"to_char(t.created_at, 'YYYY-MM-DD HH24:MI:SS'), "
		"t.base_score, t.adjustment, "
		/* the lease: its holder, the attempts */
		"coalesce(t.lease_owner, ''), "
		"coalesce(to_char(t.lease_expires_at, 'YYYY-MM-DD HH24:MI:SS'), ''), "
		"coalesce(ceil(extract(epoch FROM t.lease_expires_at - now())), 0)"
		"::bigint, t.retry_count, j.max_retries, "
		/* quoted and shortened (0002), control characters blanked */
		"CASE WHEN t.last_error IS NULL THEN '' ELSE crawltop.shown("
		"regexp_replace(t.last_error, '[[:cntrl:]]', ' ', 'g')) END, "
		"coalesce(rm.id, 0), coalesce(rm.note, ''), t.expiries "
		"FROM crawltop.jobs j "
		"JOIN crawltop.pages p ON p.domain_id = j.domain_id AND p.path = $2 "
		"JOIN crawltop.tasks t ON t.job_id = j.id AND t.page_id = p.id "
		"LEFT JOIN crawltop.pages sp ON sp.id = t.source_page_id "
		/* the run that ranked it last: a run's batches set ranked_at
		 * between its start and its manifest's run_at */
		"LEFT JOIN LATERAL (SELECT m.id, m.note FROM crawltop.run_manifest m "
		"WHERE m.started_at <= t.ranked_at AND m.run_at >= t.ranked_at "
		"AND (m.job_id IS NULL OR m.job_id = t.job_id) "
		"ORDER BY m.started_at DESC, m.id DESC LIMIT 1) rm ON true "
		"WHERE j.id = $1::bigint", 2, p, &r, err);
	if (st != CT_OK)
		return st;
	if (PQntuples(r) == 0) {
		PQclear(r);
		return ct_error_set(err, CT_ENOENT, "explain: job %s has no task "
				    "for %.200s", job, path);
	}
	out->task_id = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
	out->job_id = strtoll(PQgetvalue(r, 0, 1), NULL, 10);
	out->page_id = strtoll(PQgetvalue(r, 0, 2), NULL, 10);
	snprintf(out->job_name, sizeof out->job_name, "%s", PQgetvalue(r, 0, 3));
	snprintf(out->mode, sizeof out->mode, "%s", PQgetvalue(r, 0, 4));
	snprintf(out->status, sizeof out->status, "%s", PQgetvalue(r, 0, 5));
	out->job_priority = atoi(PQgetvalue(r, 0, 6));
	out->score = strtod(PQgetvalue(r, 0, 7), NULL);
	out->cls = atoi(PQgetvalue(r, 0, 8));
	out->ranked = PQgetvalue(r, 0, 9)[0] == 't';
	out->discovery_score = strtod(PQgetvalue(r, 0, 10), NULL);
	out->priority_class = atoi(PQgetvalue(r, 0, 11));
	snprintf(out->next_check_at, sizeof out->next_check_at, "%s",
		 PQgetvalue(r, 0, 12));
	out->backoff_step = atoi(PQgetvalue(r, 0, 13));
	out->page_score = strtod(PQgetvalue(r, 0, 14), NULL);
	snprintf(out->source_type, sizeof out->source_type, "%s",
		 PQgetvalue(r, 0, 15));
	snprintf(out->source_path, sizeof out->source_path, "%s",
		 PQgetvalue(r, 0, 16));
	out->source_score = strtod(PQgetvalue(r, 0, 17), NULL);
	out->depth = atoi(PQgetvalue(r, 0, 18));
	out->inputs = dup_or_null(r, 19);
	out->signals = dup_or_null(r, 20);
	snprintf(out->created_at, sizeof out->created_at, "%s",
		 PQgetvalue(r, 0, 21));
	out->base_score = strtod(PQgetvalue(r, 0, 22), NULL);
	out->adjustment = strtod(PQgetvalue(r, 0, 23), NULL);
	struct ct_task_lease *l = &out->lease;
	snprintf(l->owner, sizeof l->owner, "%s", PQgetvalue(r, 0, 24));
	snprintf(l->expires_at, sizeof l->expires_at, "%s", PQgetvalue(r, 0, 25));
	l->expires_in = strtoll(PQgetvalue(r, 0, 26), NULL, 10);
	l->retry_count = atoi(PQgetvalue(r, 0, 27));
	l->max_retries = atoi(PQgetvalue(r, 0, 28));
	snprintf(l->last_error, sizeof l->last_error, "%s", PQgetvalue(r, 0, 29));
	out->rank_run = strtoll(PQgetvalue(r, 0, 30), NULL, 10);
	snprintf(out->rank_note, sizeof out->rank_note, "%s", PQgetvalue(r, 0, 31));
	l->expiries = atoi(PQgetvalue(r, 0, 32));
	PQclear(r);
	return CT_OK;
}

ct_status ct_store_task_subscores(struct ct_store *s, int64_t task_id,
				  double sub[CT_SUB_COUNT], const char **from,
				  struct ct_error *err)
{
	char id[24];
	snprintf(id, sizeof id, "%" PRId64, task_id);
	const char *p[] = {id};
	PGresult *r;
	ct_status st = st_exec(s, "explain",
			       "SELECT t.id, t.backoff_step, " INPUT_COLS
			       "FROM crawltop.tasks t " INPUT_JOINS
			       "WHERE t.id = $1::bigint", 1, p, &r, err);
	if (st != CT_OK)
		return st;
	*from = NULL;
	if (PQntuples(r) == 1)
		st = row_subscores(r, 0, 2, sub, from, NULL, err);
	PQclear(r);
	return st;
}

ct_status ct_store_task_jobs(struct ct_store *s, const char *domain,
			     const char *path, int64_t *ids, size_t max,
			     size_t *n, struct ct_error *err)
{
	const char *p[] = {domain, path};
	PGresult *r;
	ct_status st = st_exec(s, "explain",
		"SELECT t.job_id FROM crawltop.domains d "
		"JOIN crawltop.pages p ON p.domain_id = d.id AND p.path = $2 "
		"JOIN crawltop.tasks t ON t.page_id = p.id "
		"WHERE d.name = $1 ORDER BY t.job_id", 2, p, &r, err);
	if (st != CT_OK)
		return st;
	*n = (size_t)PQntuples(r);
	for (size_t i = 0; i < *n && i < max; i++)
		ids[i] = strtoll(PQgetvalue(r, (int)i, 0), NULL, 10);
	PQclear(r);
	return CT_OK;
}

ct_status ct_store_queue_position(struct ct_store *s, int64_t task_id,
				  bool all_jobs, long long limit,
				  long long *ahead, bool *beyond,
				  struct ct_error *err)
{
	/* three index ranges of the claim order, each cut at the limit
	 * (crawltop.queue_position, 0028: the console's task view too) */
	static const char sql[] =
		"SELECT crawltop.queue_position($1::bigint, $3::boolean, "
		"$2::bigint)";
	char id[24], lim[24];
	snprintf(id, sizeof id, "%" PRId64, task_id);
	snprintf(lim, sizeof lim, "%lld", limit);
	const char *p[] = {id, lim, all_jobs ? "true" : "false"};
	PGresult *r;
	ct_status st = st_exec(s, "explain: queue position", sql, 3, p, &r,
			       err);
	if (st != CT_OK)
		return st;
	if (PQgetisnull(r, 0, 0)) {
		PQclear(r);
		return ct_error_set(err, CT_ENOENT, "explain: task %s is not "
				    "queued", id);
	}
	long long c = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
	PQclear(r);
	*beyond = c >= limit;
	*ahead = c >= limit ? limit : c;
	return CT_OK;
}
