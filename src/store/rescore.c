/* rescore.c: setting a job's mode, and rescoring a job's unfinished tasks
 * in batches with the engine (data/sql/0005_claims_and_modes.sql,
 * section 3).
 *
 * One batch is one transaction: crawltop.rescore_fetch locks the job and
 * the next batch of tasks (a range of page ids) and returns their engine
 * inputs; this file computes each score with the engine and the caller's
 * struct ct_settings; crawltop.rescore_apply writes them back (one
 * set-based UPDATE over unnest of three arrays, one audit_log row). The
 * cancel flag is read between batches, never inside one. */
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "crawltop/importance.h"
#include "store_int.h"

#define RESCORE_BATCH_DEFAULT 10000
#define RESCORE_BATCH_MAX 100000

enum mode { M_FIFO, M_HIERARCHY, M_FRONTIER, M_DISCOVERY, M_FRESHNESS,
	    M_IMPORTANCE, M_COUNT };

static const char *const mode_names[M_COUNT] = {
	[M_FIFO] = "fifo",
	[M_HIERARCHY] = "hierarchy",
	[M_FRONTIER] = "frontier",
	[M_DISCOVERY] = "discovery",
	[M_FRESHNESS] = "freshness",
	[M_IMPORTANCE] = "importance",
};

/* The columns of crawltop.rescore_fetch, in its order. The eight
 * sub-score columns follow enum ct_subscore. */
enum col {
	C_TASK_ID, C_PAGE_ID, C_SCORE, C_CLASS, C_BASE, C_ADJ, C_DOMAIN, C_PATH,
	C_PAGE_SCORE,
	C_TYPE, C_DEPTH, C_METHOD, C_RANKED,
	C_BIAS, C_CLUSTER, C_CLASSIFICATION, C_REUSE, C_COST, C_GAP_CONF,
	C_GAP_LIFT,
	C_HAS_SUB, C_SUB0, C_SUB_LAST = C_SUB0 + CT_SUB_COUNT - 1,
	C_HAS_SIG, C_CT_AGE, C_NS, C_ASN, C_WHOIS, C_BACKLINKS, C_FIRST_SEEN,
	C_RARE_TLD, C_SUBDOMAIN, C_PARKING, C_DOC_PATH, C_DOC_EXT, C_VENDOR,
	C_SOURCE, C_AGE, C_MALWARE, C_ADULT, C_FOR_SALE, C_SUSP_TLD, C_TOPIC,
	C_VISITS, C_LAST_VISITED, C_LAST_CHANGED, C_RELEVANCE, C_HUB_DEPTH,
	C_IS_HUB,
	C_COUNT
};

static const char *const col_names[C_COUNT] = {
	"task_id", "page_id", "score", "class", "base_score", "adjustment",
	"domain", "path", "page_score",
	"type", "depth", "discovery_method", "ranked",
	"bias", "cluster_occurrences", "classification", "knowledge_reuse",
	"estimated_cost_ms", "gap_confidence", "gap_lift",
	"has_subscores", "unseen_likelihood", "host_novelty",
	"content_readiness", "link_yield", "source_reliability", "freshness",
	"quality_safety", "topic_boost",
	"has_signals", "ct_age_hours", "ns_changes", "asn_changes",
	"whois_age_days", "backlinks", "first_seen_host", "rare_tld",
	"subdomain_depth", "parking_score", "document_path",
	"document_extension", "vendor_fingerprint", "source", "age_hours",
	"malware", "adult", "for_sale", "suspicious_tld", "topic_match",
	"visits", "last_visited", "last_changed", "topic_relevance",
	"hub_depth", "is_hub",
};

static const char fetch_sql[] =
	"SELECT * FROM crawltop.rescore_fetch($1::bigint, $2, $3::bigint, "
	"$4::integer, $5::bigint)";
static const char importance_sql[] =
	"SELECT task_id, inlinks, cash, discovered, seed FROM "
	"crawltop.importance_inputs($1::bigint, $2::bigint[])";
static const char apply_sql[] =
	"SELECT crawltop.rescore_apply($1::bigint, $2, $3::bigint[], "
	"$4::double precision[], $5::smallint[], $6::jsonb)";

/* One row of a fetched batch, read column by column; NULL -> fallback. */
struct row {
	const PGresult *r;
	int i;
};

static int is_null(const struct row *w, enum col c)
{
	return PQgetisnull(w->r, w->i, (int)c);
}

static const char *text_or(const struct row *w, enum col c, const char *def)
{
	return is_null(w, c) ? def : PQgetvalue(w->r, w->i, (int)c);
}

static double num_or(const struct row *w, enum col c, double def)
{
	return is_null(w, c) ? def : strtod(PQgetvalue(w->r, w->i, (int)c), NULL);
}

static long long int_or(const struct row *w, enum col c, long long def)
{
	return is_null(w, c) ? def
			     : strtoll(PQgetvalue(w->r, w->i, (int)c), NULL, 10);
}

static bool bool_or(const struct row *w, enum col c, bool def)
{
	return is_null(w, c) ? def : PQgetvalue(w->r, w->i, (int)c)[0] == 't';
}

/* The result has the columns this file reads, in its order: otherwise the
 * schema and the library are out of step, which is refused clearly. */
static ct_status check_columns(const PGresult *r, struct ct_error *err)
{
	if (PQnfields(r) != C_COUNT)
		return ct_error_set(err, CT_EIO, "rescore: crawltop.rescore_fetch "
				    "returns %d columns, this library reads %d "
				    "(schema and library out of step: migrate)",
				    PQnfields(r), (int)C_COUNT);
	for (int i = 0; i < C_COUNT; i++)
		if (strcmp(PQfname(r, i), col_names[i]) != 0)
			return ct_error_set(err, CT_EIO, "rescore: crawltop."
					    "rescore_fetch column %d is %s, this "
					    "library reads %s (migrate)", i + 1,
					    PQfname(r, i), col_names[i]);
	return CT_OK;
}

/* Frontier score (seed 002) of one row: type, depth, method from the task,
 * the rest from its score inputs. */
static ct_status frontier_score(const struct row *w, const struct ct_settings *set,
				double *score, struct ct_error *err)
{
	char url[2400];
	snprintf(url, sizeof url, "https://%s%s", text_or(w, C_DOMAIN, ""),
		 text_or(w, C_PATH, "/"));
	struct ct_frontier_input in = CT_FRONTIER_INPUT_INIT;
	in.url = url;
	in.type = text_or(w, C_TYPE, NULL);
	in.depth = (int)int_or(w, C_DEPTH, 0);
	in.bias = num_or(w, C_BIAS, 0);
	in.discovery_method = text_or(w, C_METHOD, NULL);
	in.knowledge_reuse = num_or(w, C_REUSE, 0);
	if (!is_null(w, C_COST))
		in.estimated_cost_ms = num_or(w, C_COST, 0);
	in.has_gap = !is_null(w, C_GAP_CONF) || !is_null(w, C_GAP_LIFT);
	in.gap_confidence = num_or(w, C_GAP_CONF, 0);
	in.gap_lift = num_or(w, C_GAP_LIFT, 0);
	in.cluster_occurrences = (long)int_or(w, C_CLUSTER, 0);
	const char *cls = text_or(w, C_CLASSIFICATION, NULL);
	if (cls && !ct_tp_class_parse(cls, &in.classification))
		return ct_error_set(err, CT_EINVAL, "classification '%.32s' is "
				    "unknown", cls);
	struct ct_frontier_result fr;
	ct_status st = ct_frontier_score(&set->frontier, &set->classes, &in,
					 &fr, err);
	if (st == CT_OK)
		*score = fr.score;
	return st;
}

/* Discovery score (seed 003) of one row that a ranking run ranked: its
 * sub-scores, else its raw signals. A task no run has ranked yet, or one
 * with neither, is unranked (*unranked set, stored at the P2 bound:
 * SPEC.md's backward compatibility); its inputs wait for `crawltop rank`. */
static ct_status discovery_score(const struct row *w, const struct ct_settings *set,
				 double *score, bool *unranked,
				 struct ct_error *err)
{
	double sub[CT_SUB_COUNT];
	ct_status st;
	if (!bool_or(w, C_RANKED, false)) {
		*unranked = true;
		*score = set->classes.p2;
		return CT_OK;
	}
	if (bool_or(w, C_HAS_SUB, false)) {
		for (int i = 0; i < CT_SUB_COUNT; i++) {
			if (is_null(w, (enum col)(C_SUB0 + i)))
				return ct_error_set(err, CT_EINVAL, "sub-score %s "
						    "is missing", col_names[C_SUB0 + i]);
			sub[i] = num_or(w, (enum col)(C_SUB0 + i), 0);
		}
	} else if (bool_or(w, C_HAS_SIG, false)) {
		struct ct_discovery_signals g;
		ct_discovery_signals_init(&g);
		g.ct_age_hours = num_or(w, C_CT_AGE, g.ct_age_hours);
		g.ns_changes = (int)int_or(w, C_NS, 0);
		g.asn_changes = (int)int_or(w, C_ASN, 0);
		g.whois_age_days = num_or(w, C_WHOIS, g.whois_age_days);
		g.backlinks = (long)int_or(w, C_BACKLINKS, g.backlinks);
		g.first_seen_host = bool_or(w, C_FIRST_SEEN, false);
		g.rare_tld = bool_or(w, C_RARE_TLD, false);
		g.subdomain_depth = (int)int_or(w, C_SUBDOMAIN, 0);
		g.parking_score = num_or(w, C_PARKING, g.parking_score);
		g.document_path = bool_or(w, C_DOC_PATH, false);
		g.document_extension = bool_or(w, C_DOC_EXT, false);
		g.vendor_fingerprint = bool_or(w, C_VENDOR, false);
		const char *src = text_or(w, C_SOURCE, NULL);
		if (src && !ct_source_kind_parse(src, &g.source))
			return ct_error_set(err, CT_EINVAL, "signals.source '%.32s' "
					    "is unknown", src);
		g.age_hours = num_or(w, C_AGE, g.age_hours);
		g.malware = bool_or(w, C_MALWARE, false);
		g.adult = bool_or(w, C_ADULT, false);
		g.for_sale = bool_or(w, C_FOR_SALE, false);
		g.suspicious_tld = bool_or(w, C_SUSP_TLD, false);
		g.topic_match = num_or(w, C_TOPIC, g.topic_match);
		if ((st = ct_discovery_subscores(&g, sub, err)) != CT_OK)
			return st;
	} else {
		*unranked = true;
		*score = set->classes.p2;
		return CT_OK;
	}
	struct ct_discovery_result dr;
	st = ct_discovery_score(&set->discovery, &set->classes, sub, &dr, err);
	if (st == CT_OK)
		*score = dr.score;
	return st;
}

/* Freshness score (seed 004) of one row at now_ms. */
static ct_status freshness_score(const struct row *w, const struct ct_settings *set,
				 int64_t now_ms, double *score,
				 struct ct_error *err)
{
	struct ct_freshness_input in = CT_FRESHNESS_INPUT_INIT;
	in.has_last_visited = !is_null(w, C_LAST_VISITED);
	in.last_visited_ms = (int64_t)int_or(w, C_LAST_VISITED, 0);
	in.has_last_changed = !is_null(w, C_LAST_CHANGED);
	in.last_changed_ms = (int64_t)int_or(w, C_LAST_CHANGED, 0);
	in.topic_relevance = num_or(w, C_RELEVANCE, 0.5);
	in.hub_depth = (int)int_or(w, C_HUB_DEPTH, 0);
	in.is_hub = bool_or(w, C_IS_HUB, false);
	in.visits = (long)int_or(w, C_VISITS, 0);
	struct ct_freshness_result fr;
	ct_status st = ct_freshness_score(&set->freshness, &set->classes, &in,
					  now_ms, &fr, err);
	if (st == CT_OK)
		*score = fr.score;
	return st;
}

/* Importance score (importance.h) of the task with id `id`: row i of
 * crawltop.importance_inputs over the batch, in the batch's order. */
static ct_status importance_score(const PGresult *ir, int i, int64_t id,
				  double *score, struct ct_error *err)
{
	if (!ir || i >= PQntuples(ir) || PQnfields(ir) != 5 ||
	    strtoll(PQgetvalue(ir, i, 0), NULL, 10) != id)
		return ct_error_set(err, CT_EIO, "crawltop.importance_inputs "
				    "is out of step with the batch (migrate)");
	struct ct_importance_input in = {
		.inlinks = strtod(PQgetvalue(ir, i, 1), NULL),
		.cash = strtod(PQgetvalue(ir, i, 2), NULL),
		.discovered = strtod(PQgetvalue(ir, i, 3), NULL),
		.seed = PQgetvalue(ir, i, 4)[0] == 't',
	};
	struct ct_importance_result r;
	ct_status st = ct_importance_score(&in, &r, err);
	if (st == CT_OK)
		*score = r.score;
	return st;
}

/* The score of one fetched row under mode m; *unranked as above; imp:
 * the batch's importance inputs (importance mode only). */
static ct_status score_row(const struct row *w, enum mode m,
			   const struct ct_settings *set, int64_t now_ms,
			   const PGresult *imp, double *score, bool *unranked,
			   struct ct_error *err)
{
	*unranked = false;
	switch (m) {
	case M_FIFO:
		*score = 0;
		return CT_OK;
	case M_HIERARCHY:
		*score = ct_score_from_hierarchy(num_or(w, C_PAGE_SCORE, 0));
		return CT_OK;
	case M_FRONTIER:
		return frontier_score(w, set, score, err);
	case M_DISCOVERY:
		return discovery_score(w, set, score, unranked, err);
	case M_FRESHNESS:
		return freshness_score(w, set, now_ms, score, err);
	case M_IMPORTANCE:
		/* no engine setting moves it: a preview (imp NULL) keeps it */
		if (!imp) {
			*score = num_or(w, C_BASE, 0);
			return CT_OK;
		}
		return importance_score(imp, w->i, (int64_t)int_or(w, C_TASK_ID, 0),
					score, err);
	case M_COUNT:
		break;
	}
	return ct_error_set(err, CT_EINVAL, "mode %d is unknown", (int)m);
}

/* The score a mode score gives a fetched row with the operator adjustment
 * the row keeps: the store's least(100, greatest(0, base_score +
 * adjustment)) (data/sql/0001_schema.sql), the same double arithmetic. */
static double adjusted(const struct row *w, double base)
{
	double v = base + num_or(w, C_ADJ, 0);
	return v < CT_SCORE_MIN ? CT_SCORE_MIN : v > CT_SCORE_MAX ? CT_SCORE_MAX : v;
}

/* The wall clock in epoch milliseconds (freshness's default "now"). */
static int64_t wall_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* End a batch's transaction after a failure, keeping the failure's
 * SQLSTATE (so not through st_exec). */
static void rollback(struct ct_store *s)
{
	PQclear(PQexec(s->conn, "ROLLBACK"));
}

/* What every stripe of one rescore shares (one stripe: the whole job). */
struct rescore_run {
	const char *job;
	enum mode m;
	const struct ct_rescore_opts *o;
	int64_t now_ms;
	size_t n;                /* tasks a batch */
	int settings_version;
	const char *cause;
	pthread_mutex_t lock;    /* what follows; the progress calls */
	size_t done, total;
	int batch_no;
	/* rounds: with several stripes, each runs one batch a round and the
	 * next round begins when every stripe still working has committed
	 * (round_end) */
	pthread_cond_t round_end;
	size_t active, arrived;
	unsigned long round;
	atomic_int failed;       /* a stripe failed: the others stop */
	int first_failed;        /* its index, -1 */
	/* with several stripes, each stripe's canceller: the first failure
	 * cancels the others' statements (one may wait on a row a worker
	 * or an operator holds) */
	struct ct_store_canceller *canceller[CT_RESCORE_MAX_CONNS];
	size_t nconn;            /* stripes; rounds when more than one */
};

/* Between two rounds no stripe holds the job's row: a change waiting
 * for it (lock_job's FOR UPDATE: a pause, a priority) gets it here. The
 * stripes' batches overlap, and their locks, each compatible with the
 * one before, would otherwise keep it out until the last batch. */
#define ROUND_GAP_NS 2000000L

/* A stripe waits at most this long for the others to end a round (one
 * held up by a worker's row lock, or run in turn where a thread could
 * not start): then it goes on alone. */
#define ROUND_WAIT_S 1

/* Stripe w is done with its round's batch: the last of the round to be
 * (or a stripe leaving, done for good) begins the next round after the
 * gap; the others wait for it, ROUND_WAIT_S at most. */
static void round_done(struct rescore_run *x, bool leaving)
{
	pthread_mutex_lock(&x->lock);
	if (leaving)
		x->active--;
	else
		x->arrived++;
	unsigned long round = x->round;
	if (x->arrived >= x->active) {
		pthread_mutex_unlock(&x->lock);
		struct timespec gap = {0, ROUND_GAP_NS};
		nanosleep(&gap, NULL);
		pthread_mutex_lock(&x->lock);
		x->arrived = 0;
		x->round++;
		pthread_cond_broadcast(&x->round_end);
	} else if (!leaving) {
		struct timespec until;
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += ROUND_WAIT_S;
		int rc = 0;
		while (x->round == round && rc == 0)
			rc = pthread_cond_timedwait(&x->round_end, &x->lock,
						    &until);
		if (x->round == round) /* waited enough: not in this round */
			x->arrived--;
	}
	pthread_mutex_unlock(&x->lock);
}

/* One stripe: the job's unfinished tasks of page ids in (lo, hi] (hi
 * INT64_MAX: no end), rescored batch by batch on one connection. */
struct rstripe {
	struct ct_store *s;
	struct rescore_run *run;
	size_t index;
	int64_t lo, hi;
	size_t done, changed, unranked, batches;
	bool cancelled;
	ct_status st;
	struct ct_error err;
};

/* One batch of stripe sw, in its own transaction: fetch up to n tasks of
 * the job after page *after (and up to sw->hi), score them, apply.
 * *rows receives the tasks fetched (0: nothing left), *after the highest
 * page id among them; sw's counts add up. On failure the batch is rolled
 * back. */
static ct_status run_batch(struct rstripe *sw, int64_t *after, int batch_no,
			   size_t *rows, struct ct_error *err)
{
	struct ct_store *s = sw->s;
	const struct rescore_run *x = sw->run;
	const char *job = x->job, *cause = x->cause;
	enum mode m = x->m;
	const struct ct_rescore_opts *o = x->o;
	int64_t now_ms = x->now_ms;
	int settings_version = x->settings_version;
	char after_s[24], n_s[24], upto_s[24];
	snprintf(after_s, sizeof after_s, "%" PRId64, *after);
	snprintf(n_s, sizeof n_s, "%zu", x->n);
	snprintf(upto_s, sizeof upto_s, "%" PRId64, sw->hi);
	const char *fp[] = {job, mode_names[m], after_s, n_s,
			    sw->hi == INT64_MAX ? NULL : upto_s};
	PGresult *r = NULL, *imp = NULL;
	struct st_buf ids = {0}, scores = {0}, classes = {0};
	*rows = 0;
	ct_status st = st_exec(s, "rescore", "BEGIN", 0, NULL, NULL, err);
	if (st != CT_OK)
		return st;
	if ((st = st_exec(s, "rescore", fetch_sql, 5, fp, &r, err)) != CT_OK)
		goto fail;
	if ((st = check_columns(r, err)) != CT_OK)
		goto fail;
	int count = PQntuples(r);
	if (count == 0) {
		PQclear(r);
		return st_exec(s, "rescore", "COMMIT", 0, NULL, NULL, err);
	}
	/* the batch's ids, in its order: rescore_apply's rows, and (importance)
	 * the tasks whose links and cash to read */
	st_buf_putc(&ids, '{');
	for (int i = 0; i < count; i++)
		st_buf_printf(&ids, i ? ",%s" : "%s", PQgetvalue(r, i, C_TASK_ID));
	st_buf_putc(&ids, '}');
	if (ids.oom) {
		st = ct_error_set(err, CT_ENOMEM, "rescore: out of memory for a "
				  "batch of %d tasks", count);
		goto fail;
	}
	if (m == M_IMPORTANCE) {
		const char *ip[] = {job, ids.p};
		if ((st = st_exec(s, "rescore", importance_sql, 2, ip, &imp,
				  err)) != CT_OK)
			goto fail;
	}
	int64_t max_page = *after;
	size_t unr = 0;
	st_buf_putc(&scores, '{');
	st_buf_putc(&classes, '{');
	for (int i = 0; i < count; i++) {
		struct row w = {r, i};
		int64_t id = (int64_t)int_or(&w, C_TASK_ID, 0);
		int64_t page = (int64_t)int_or(&w, C_PAGE_ID, 0);
		double score = 0;
		bool unr_row;
		struct ct_error e;
		st = score_row(&w, m, o->settings, now_ms, imp, &score, &unr_row,
			       &e);
		if (st == CT_OK && !(score >= CT_SCORE_MIN && score <= CT_SCORE_MAX))
			st = ct_error_set(&e, CT_ERANGE, "score %g is outside "
					  "0..100", score);
		if (st != CT_OK) {
			ct_error_set(err, st, "rescore: job %s task %" PRId64
				     " (%.100s): %s", job, id,
				     text_or(&w, C_PATH, "?"), e.msg);
			goto fail;
		}
		unr += unr_row;
		if (page > max_page)
			max_page = page;
		/* the mode score goes to base_score; the class is the
		 * class of the score it gives with the task's adjustment */
		ct_class cls = ct_class_of(adjusted(&w, score),
					   &o->settings->classes);
		st_buf_printf(&scores, i ? ",%.17g" : "%.17g", score);
		st_buf_printf(&classes, i ? ",%d" : "%d", (int)cls);
	}
	st_buf_putc(&scores, '}');
	st_buf_putc(&classes, '}');
	PQclear(r);
	r = NULL;
	if (scores.oom || classes.oom) {
		st = ct_error_set(err, CT_ENOMEM, "rescore: out of memory for a "
				  "batch of %d tasks", count);
		goto fail;
	}
	char note[256];
	snprintf(note, sizeof note, "{\"cause\": \"%s\", \"batch\": %d, "
		 "\"after_page\": %s, \"settings_version\": %d, "
		 "\"unranked\": %zu}", cause, batch_no, after_s,
		 settings_version, unr);
	const char *ap[] = {job, mode_names[m], ids.p, scores.p, classes.p,
			    note};
	if ((st = st_exec(s, "rescore", apply_sql, 6, ap, &r, err)) != CT_OK)
		goto fail;
	size_t ch = (size_t)strtoull(PQgetvalue(r, 0, 0), NULL, 10);
	PQclear(r);
	r = NULL;
	if ((st = st_exec(s, "rescore", "COMMIT", 0, NULL, NULL, err)) != CT_OK)
		goto out;
	*rows = (size_t)count;
	*after = max_page;
	sw->changed += ch;
	sw->unranked += unr;
	goto out;
fail:
	PQclear(r);
	rollback(s);
out:
	PQclear(imp);
	st_buf_free(&ids);
	st_buf_free(&scores);
	st_buf_free(&classes);
	return st;
}

/* Tell the caller's progress callback, if any. */
static void report(const struct ct_rescore_opts *o, size_t done, size_t total)
{
	if (o->progress)
		o->progress(o->progress_ctx, done, total);
}

size_t ct_rescore_conns(size_t unfinished, size_t conns, size_t stripe_min)
{
	size_t least = stripe_min ? stripe_min : CT_RESCORE_STRIPE_MIN;
	size_t n = unfinished / least;
	return n < 1 ? 1 : n < conns ? n : conns;
}

/* Stripe w's batches until none is left, a cancel, an error, or
 * another stripe's error. */
static void *stripe_run(void *arg)
{
	struct rstripe *w = arg;
	struct rescore_run *x = w->run;
	int64_t after = w->lo;
	bool rounds = x->nconn > 1; /* set before the threads, never changed */
	w->st = CT_OK;
	for (;;) {
		if (x->o->cancel && atomic_load(x->o->cancel)) {
			w->cancelled = true;
			break;
		}
		if (atomic_load(&x->failed))
			break;
		pthread_mutex_lock(&x->lock);
		int batch_no = ++x->batch_no;
		pthread_mutex_unlock(&x->lock);
		size_t rows;
		w->st = run_batch(w, &after, batch_no, &rows, &w->err);
		if (w->st != CT_OK) {
			pthread_mutex_lock(&x->lock);
			bool first = x->first_failed < 0;
			if (first)
				x->first_failed = (int)w->index;
			atomic_store(&x->failed, 1);
			pthread_mutex_unlock(&x->lock);
			for (size_t i = 0; first && i < x->nconn; i++)
				if (i != w->index && x->canceller[i])
					ct_store_canceller_send(x->canceller[i]);
			break;
		}
		if (rows == 0)
			break;
		w->done += rows;
		w->batches++;
		pthread_mutex_lock(&x->lock);
		x->done += rows;
		report(x->o, x->done, x->done > x->total ? x->done : x->total);
		pthread_mutex_unlock(&x->lock);
		if (rounds)
			round_done(x, false);
	}
	if (rounds)
		round_done(x, true);
	return NULL;
}

/* The rescore loop shared by ct_store_job_rescore and
 * ct_store_job_set_mode; cause names it in the audit rows. With extra
 * connections the job's page ids are cut into stripes, one a
 * connection, each on its own thread (st_parallel). */
static ct_status rescore(struct ct_store *s, int64_t job_id,
			 const struct ct_rescore_opts *o, const char *cause,
			 struct ct_rescore_result *res, struct ct_error *err)
{
	struct ct_error e;
	if (!o || !o->settings)
		return ct_error_set(err, CT_EINVAL, "rescore: options with "
				    "engine settings are required");
	if (ct_settings_check(o->settings, &e) != CT_OK)
		return ct_error_set(err, CT_EINVAL, "rescore: settings: %s", e.msg);
	size_t n = o->batch ? o->batch : RESCORE_BATCH_DEFAULT;
	if (n > RESCORE_BATCH_MAX)
		return ct_error_set(err, CT_ERANGE, "rescore: batch size %zu is "
				    "outside 1..%d", n, RESCORE_BATCH_MAX);
	ct_status st = st_conns_check(s, o->extra, o->n_extra,
				      CT_RESCORE_MAX_CONNS, "rescore", err);
	if (st != CT_OK)
		return st;
	int64_t now_ms = o->now_ms ? o->now_ms : wall_ms();

	char job[24];
	snprintf(job, sizeof job, "%" PRId64, job_id);
	const char *sp[] = {job};
	PGresult *r;
	/* now(): when it began, for rescore_finish (0027) */
	st = st_exec(s, "rescore", "SELECT mode, total, settings_version, "
		     "now()::text FROM crawltop.rescore_start($1::bigint)", 1,
		     sp, &r, err);
	if (st != CT_OK)
		return st;
	enum mode m = M_COUNT;
	for (int i = 0; i < M_COUNT; i++)
		if (strcmp(PQgetvalue(r, 0, 0), mode_names[i]) == 0)
			m = (enum mode)i;
	snprintf(res->mode, sizeof res->mode, "%s", PQgetvalue(r, 0, 0));
	res->total = (size_t)strtoull(PQgetvalue(r, 0, 1), NULL, 10);
	res->settings_version = atoi(PQgetvalue(r, 0, 2));
	char began[64];
	snprintf(began, sizeof began, "%s", PQgetvalue(r, 0, 3));
	PQclear(r);
	if (m == M_COUNT)
		return ct_error_set(err, CT_EINVAL, "rescore: job %s has mode "
				    "'%s', which this library does not know",
				    job, res->mode);

	/* the stripes: the job's unfinished page ids (the ends of its
	 * (job_id, page_id) range) cut into equal parts, each of at least
	 * stripe_min tasks; the last one has no end, for pages added
	 * meanwhile */
	size_t nconn = ct_rescore_conns(res->total, 1 + o->n_extra,
					o->stripe_min);
	int64_t lo = 0, hi = 0;
	if (nconn > 1) {
		st = st_exec(s, "rescore", "SELECT coalesce(min(page_id), 1) - 1, "
			     "coalesce(max(page_id), 0) FROM crawltop.tasks "
			     "WHERE job_id = $1::bigint AND status IN "
			     "('pending', 'running')", 1, sp, &r, err);
		if (st != CT_OK)
			return st;
		lo = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
		hi = strtoll(PQgetvalue(r, 0, 1), NULL, 10);
		PQclear(r);
	}
	struct rescore_run x = {.job = job, .m = m, .o = o, .now_ms = now_ms,
				.n = n, .settings_version = res->settings_version,
				.cause = cause, .total = res->total,
				.active = nconn, .first_failed = -1,
				.nconn = nconn};
	if (pthread_mutex_init(&x.lock, NULL) != 0)
		return ct_error_set(err, CT_ENOMEM, "rescore: no mutex");
	if (pthread_cond_init(&x.round_end, NULL) != 0) {
		pthread_mutex_destroy(&x.lock);
		return ct_error_set(err, CT_ENOMEM, "rescore: no condition "
				    "variable");
	}
	atomic_init(&x.failed, 0);
	struct rstripe w[CT_RESCORE_MAX_CONNS];
	int64_t span = nconn > 1 ? (hi - lo) / (int64_t)nconn + 1 : 0;
	for (size_t i = 0; i < nconn; i++) {
		w[i] = (struct rstripe){.s = i ? o->extra[i - 1] : s, .run = &x,
					.index = i};
		if (nconn > 1)
			x.canceller[i] = ct_store_canceller_new(w[i].s);
		w[i].lo = i == 0 ? 0 : lo + (int64_t)i * span;
		w[i].hi = i == nconn - 1 ? INT64_MAX : lo + (int64_t)(i + 1) * span;
	}
	report(o, 0, res->total);
	st_parallel(w, nconn, sizeof w[0], stripe_run);
	pthread_cond_destroy(&x.round_end);
	pthread_mutex_destroy(&x.lock);
	for (size_t i = 0; i < nconn; i++) {
		ct_store_canceller_free(x.canceller[i]);
		res->done += w[i].done;
		res->changed += w[i].changed;
		res->unranked += w[i].unranked;
		res->batches += w[i].batches;
		res->cancelled |= w[i].cancelled;
	}
	/* the failure that came first (the others' may be its cancels) */
	if (x.first_failed >= 0) {
		st = w[x.first_failed].st;
		if (err)
			*err = w[x.first_failed].err;
	}
	if (st != CT_OK || res->cancelled)
		return st;
	if (res->done < res->total) /* tasks finished meanwhile */
		report(o, res->done, res->done);
	/* every unfinished task went through: the job's mark goes, unless
	 * a change came after this rescore began or the mark asks for newer
	 * settings (0027, 0030) */
	char ver[16] = "";
	if (o->settings_version > 0)
		snprintf(ver, sizeof ver, "%d", o->settings_version);
	const char *fp[] = {job, res->mode, began, ver[0] ? ver : NULL};
	return st_exec(s, "rescore", "SELECT crawltop.rescore_finish("
		       "$1::bigint, $2, $3::timestamptz, $4::integer)", 4, fp,
		       NULL, err);
}

/* store.h: rescore a job's unfinished tasks for its current mode. */
ct_status ct_store_job_rescore(struct ct_store *s, int64_t job_id,
			       const struct ct_rescore_opts *o,
			       struct ct_rescore_result *res,
			       struct ct_error *err)
{
	struct ct_rescore_result local;
	if (!res)
		res = &local;
	memset(res, 0, sizeof *res);
	return rescore(s, job_id, o, "rescore", res, err);
}

/* store.h: set a job's mode (one audited transaction), then rescore. */
ct_status ct_store_job_set_mode(struct ct_store *s, int64_t job_id,
				const char *mode,
				const struct ct_rescore_opts *o,
				struct ct_rescore_result *res,
				struct ct_error *err)
{
	struct ct_rescore_result local;
	if (!res)
		res = &local;
	memset(res, 0, sizeof *res);
	/* extra connections the rescore would refuse: before the mode
	 * changes */
	ct_status st = o ? st_conns_check(s, o->extra, o->n_extra,
					  CT_RESCORE_MAX_CONNS, "rescore", err)
			 : CT_OK;
	if (st != CT_OK)
		return st;
	char job[24];
	snprintf(job, sizeof job, "%" PRId64, job_id);
	const char *params[] = {job, mode};
	st = st_exec(s, "set job mode",
			       "SELECT crawltop.set_job_mode($1::bigint, $2)", 2,
			       params, NULL, err);
	if (st != CT_OK || !o)
		return st;
	return rescore(s, job_id, o, "mode", res, err);
}

/* ---- the same scoring, read only (settings_store.c's preview) ---------- */

ct_status st_rescore_columns(const PGresult *r, struct ct_error *err)
{
	return check_columns(r, err);
}

ct_status st_rescore_row(const PGresult *r, int i, const char *mode,
			 const struct ct_settings *set, int64_t now_ms,
			 double *score, double *base, bool *unranked,
			 double *adjustment, struct ct_error *err)
{
	struct row w = {r, i};
	*adjustment = num_or(&w, C_ADJ, 0);
	for (int m = 0; m < M_COUNT; m++)
		if (strcmp(mode, mode_names[m]) == 0) {
			ct_status st = score_row(&w, (enum mode)m, set, now_ms,
						 NULL, base, unranked, err);
			if (st == CT_OK)
				*score = adjusted(&w, *base);
			return st;
		}
	return ct_error_set(err, CT_EINVAL, "mode '%.32s' is unknown", mode);
}

const char *ct_store_mode_effect(const char *mode)
{
	/* each fits an 80-column line */
	static const struct { const char *mode, *effect; } e[] = {
		{"fifo", "running crawlers keep working: new tasks queue in "
		 "the order found"},
		{"hierarchy", "running crawlers keep working: the store scores "
		 "new tasks by depth"},
		{"frontier", "running crawlers keep working: tasks sent unscored "
		 "get a type/depth score"},
		{"discovery", "running crawlers keep working: tasks sent "
		 "unscored wait in P2 until ranked"},
		{"freshness", "running crawlers keep working: tasks sent "
		 "unscored score as never visited"},
		{"importance", "running crawlers keep working: the store scores "
		 "tasks by the links in"},
	};
	for (size_t i = 0; mode && i < sizeof e / sizeof e[0]; i++)
		if (strcmp(mode, e[i].mode) == 0)
			return e[i].effect;
	return "running crawlers keep working: enqueue takes paths with or "
	       "without scores";
}
