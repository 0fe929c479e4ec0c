/* test_rescore.c: setting a job's mode and rescoring its tasks in batches
 * (0005_claims_and_modes.sql section 3, src/store/rescore.c).
 *
 * A job switched through every mode gets the scores and classes SPEC.md
 * gives (fixed points from doc/scoring.md, and the engine's own values for
 * the stored inputs); running tasks are rescored too; the progress
 * callback sees monotone progress ending at total; a cancel stops between
 * batches, leaving the batches before it rescored and the rest untouched;
 * every mode change and every batch writes an audit row; a settings
 * change rescored with the same machinery moves scores and classes; an
 * operator's boost or demotion outlives every rescore (a settings change,
 * a mode change, a ranking run) and a duplicate's raise at enqueue; a
 * rescore runs beside claiming workers; several connections rescore each
 * task once, as one does; bad input is refused with a clear message and
 * nothing changed. */
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pgtest.h"
#include "rank_ops.h"
#include "settings_store.h"

static int fresh(void **state)
{
	*state = pgt_fresh("ct_rescore", 1);
	return 0;
}

static int close_store(void **state)
{
	ct_store_close(*state);
	return 0;
}

static char *num(long long v)
{
	static char b[4][24];
	static int k;
	k = (k + 1) % 4;
	snprintf(b[k], sizeof b[k], "%lld", v);
	return b[k];
}

/* Progress as the callback saw it. */
struct progress {
	size_t done[1024], total[1024];
	int n;
	atomic_int *cancel;
	size_t cancel_at; /* set *cancel once done reaches this (0: never) */
};

static void on_progress(void *ctx, size_t done, size_t total)
{
	struct progress *p = ctx;
	if (p->n < 1024) {
		p->done[p->n] = done;
		p->total[p->n] = total;
		p->n++;
	}
	if (p->cancel && p->cancel_at && done >= p->cancel_at)
		atomic_store(p->cancel, 1);
}

/* Progress never goes back and ends at (total, total). */
static void check_progress(const struct progress *p, size_t total, int calls)
{
	assert_int_equal(p->n, calls);
	assert_int_equal(p->done[0], 0);
	for (int i = 1; i < p->n; i++) {
		if (p->done[i] < p->done[i - 1] || p->done[i] > p->total[i])
			fail_msg("progress %d: %zu/%zu after %zu/%zu", i, p->done[i],
				 p->total[i], p->done[i - 1], p->total[i - 1]);
	}
	assert_int_equal(p->done[p->n - 1], total);
	assert_int_equal(p->total[p->n - 1], total);
}

struct fixture {
	int64_t job;
	struct ct_settings set;
};

/* 25 tasks of one job: 5 of each flavour of inputs, with a known score in
 * each mode. Paths /k/NN so that page ids follow the path order. */
static const char *const inputs_of[5] = {
	/* frontier: article at depth 2 from a sitemap: p = 0 + 2 - 10 = -8 */
	"{\"bias\": 0}",
	/* discovery: every sub-score 0.5 -> 50; freshness: seed example */
	"{\"subscores\": {\"unseen_likelihood\": 0.5, \"host_novelty\": 0.5, "
	"\"content_readiness\": 0.5, \"link_yield\": 0.5, "
	"\"source_reliability\": 0.5, \"freshness\": 0.5, "
	"\"quality_safety\": 0.5, \"topic_boost\": 0.5}, "
	"\"lastVisited\": 1000000000000, \"lastChanged\": 1000396000000, "
	"\"topicRelevance\": 0.9, \"hubDepth\": 1, \"isHub\": true}",
	/* discovery from raw signals; frontier with a gap prediction */
	"{\"signals\": {\"ct_age_hours\": 2, \"first_seen_host\": true, "
	"\"source\": \"ct\", \"document_path\": true}, "
	"\"gap\": {\"confidence\": 1, \"lift\": 1}}",
	/* nothing: discovery unranked (P2 at the P2 bound), freshness
	 * never visited: 50 + 15 + round(7.5) = 73 */
	NULL,
	/* frontier cluster boost and cost, freshness visited 30 min ago */
	"{\"clusterOccurrences\": 256, \"meta\": {\"estimatedCostMs\": 50, "
	"\"knowledgeReuse\": 0.5}, \"lastVisited\": 1000430200000}",
};
#define NOW_MS 1000432000000LL /* 5 days after lastVisited of inputs_of[1] */

static void make_job(struct ct_store *s, struct fixture *f, const char *name,
		     int n)
{
	char dom[64];
	snprintf(dom, sizeof dom, "%s.example", name);
	f->job = pgt_job(s, name, dom, 5, "frontier");
	ct_settings_default(&f->set);
	static char names[1000][16];
	const char *paths[1000];
	const char *inputs[1000];
	double scores[1000];
	assert_true(n <= 1000);
	for (int i = 0; i < n; i++) {
		snprintf(names[i], sizeof names[i], "/k/%03d", i);
		paths[i] = names[i];
		inputs[i] = inputs_of[i % 5];
		scores[i] = 1; /* whatever the crawler said: rescoring replaces it */
	}
	struct ct_enqueue_batch b = CT_ENQUEUE_BATCH_INIT;
	b.job_id = f->job;
	b.paths = paths;
	b.n = (size_t)n;
	b.scores = scores;
	b.inputs = inputs;
	b.source = CT_SRC_SITEMAP;
	b.depth = 2;
	b.type = "article";
	b.discovery_method = "sitemap";
	assert_int_equal(pgt_enqueue_batch(s, &b).inserted, n);
}

/* Whether a ranking run ranked the task at path in job. */
static bool is_ranked(struct ct_store *s, int64_t job, const char *path)
{
	const char *p[] = {num(job), path};
	char *t = pgt_text(s, "SELECT t.ranked_at IS NOT NULL FROM "
			   "crawltop.tasks t JOIN crawltop.pages p ON p.id = "
			   "t.page_id WHERE t.job_id = $1 AND p.path = $2", 2, p);
	bool r = strcmp(t, "t") == 0;
	free(t);
	return r;
}

/* As a ranking run would have: the fixture's tasks with discovery inputs
 * (flavours 1 and 2) ranked, but for the task at path skip (NULL: none). */
static void mark_ranked(struct ct_store *s, int64_t job, const char *skip)
{
	const char *p[] = {num(job), skip ? skip : ""};
	free(pgt_text(s, "UPDATE crawltop.tasks t SET ranked_at = now(), "
		      "discovery_score = 0, priority_class = 3 FROM "
		      "crawltop.pages p WHERE p.id = t.page_id AND t.job_id = $1 "
		      "AND right(p.path, 3)::int % 5 IN (1, 2) AND p.path <> $2",
		      2, p));
}

/* Score and class of the task at path in job, as "score class". */
static void task_score(struct ct_store *s, int64_t job, const char *path,
		       double *score, int *cls)
{
	const char *p[] = {num(job), path};
	char *t = pgt_text(s, "SELECT t.score || ' ' || t.class FROM "
			   "crawltop.tasks t JOIN crawltop.pages p ON p.id = "
			   "t.page_id WHERE t.job_id = $1 AND p.path = $2", 2, p);
	if (sscanf(t, "%lf %d", score, cls) != 2)
		fail_msg("no task %s: '%s'", path, t);
	free(t);
}

static struct ct_rescore_opts opts(const struct fixture *f, size_t batch,
				   struct progress *p)
{
	struct ct_rescore_opts o = {0};
	o.settings = &f->set;
	o.batch = batch;
	o.now_ms = NOW_MS;
	o.progress = p ? on_progress : NULL;
	o.progress_ctx = p;
	o.cancel = p ? p->cancel : NULL;
	return o;
}

/* The expected score of flavour k (0..4) in mode m. */
static double expected(const struct fixture *f, const char *m, int k,
		       double page_score)
{
	if (strcmp(m, "fifo") == 0)
		return 0;
	if (strcmp(m, "hierarchy") == 0)
		return page_score * 100;
	if (strcmp(m, "frontier") == 0) {
		struct ct_frontier_input in = CT_FRONTIER_INPUT_INIT;
		in.url = "https://modes.example/k";
		in.type = "article";
		in.depth = 2;
		in.discovery_method = "sitemap";
		if (k == 2) {
			in.has_gap = true;
			in.gap_confidence = in.gap_lift = 1;
		}
		if (k == 4) {
			in.cluster_occurrences = 256;
			in.estimated_cost_ms = 50;
			in.knowledge_reuse = 0.5;
		}
		struct ct_frontier_result r;
		struct ct_error e;
		assert_int_equal(ct_frontier_score(&f->set.frontier,
			&f->set.classes, &in, &r, &e), CT_OK);
		if (k == 0 || k == 1 || k == 3) /* doc/scoring.md: p = -8 */
			assert_true(fabs(r.score - 62.121212121) < 1e-6);
		return r.score;
	}
	if (strcmp(m, "discovery") == 0) {
		if (k == 1)
			return 50;
		if (k == 2) {
			struct ct_discovery_signals g;
			ct_discovery_signals_init(&g);
			g.ct_age_hours = 2;
			g.first_seen_host = true;
			g.source = CT_SOURCE_CT;
			g.document_path = true;
			double sub[CT_SUB_COUNT];
			struct ct_discovery_result r;
			struct ct_error e;
			assert_int_equal(ct_discovery_subscores(&g, sub, &e), CT_OK);
			assert_int_equal(ct_discovery_score(&f->set.discovery,
				&f->set.classes, sub, &r, &e), CT_OK);
			return r.score;
		}
		return f->set.classes.p2; /* unranked */
	}
	if (strcmp(m, "freshness") == 0) {
		if (k == 1)
			return 94; /* the seed's reuters example */
		if (k == 4)
			return 50 - 30 + 8; /* visited 30 min ago */
		return 73; /* never visited */
	}
	return -1;
}

/* Every task of the fixture has the score and class mode m gives;
 * importance 0: it counts the links found since the job came to it
 * (0033), and none came (no path of the fixture is a seed). */
static void check_scores(struct ct_store *s, const struct fixture *f,
			 const char *m, int n)
{
	for (int i = 0; i < n; i++) {
		char path[16];
		snprintf(path, sizeof path, "/k/%03d", i);
		double score;
		int cls;
		task_score(s, f->job, path, &score, &cls);
		double want = strcmp(m, "importance") ?
			expected(f, m, i % 5, 0.5) : 0;
		/* a discovery task no ranking run ranked waits at the P2 bound,
		 * inputs or not */
		if (strcmp(m, "discovery") == 0 && !is_ranked(s, f->job, path))
			want = f->set.classes.p2;
		if (fabs(score - want) > 1e-9)
			fail_msg("%s %s: score %.17g, want %.17g", m, path, score, want);
		assert_int_equal(cls, (int)ct_class_of(want, &f->set.classes));
	}
}

/* fifo -> hierarchy -> frontier -> discovery -> freshness -> importance:
 * each switch one audit row, then ceil(25 / 7) = 4 batches, each an audit
 * row; progress 0, 7, 14, 21, 25 of 25. */
static void modes_switched_and_rescored(void **state)
{
	struct ct_store *s = *state;
	struct ct_error err = {{0}};
	struct fixture f;
	make_job(s, &f, "modes", 25);
	/* two tasks are running: they are rescored too */
	struct ct_claim c;
	assert_int_equal(ct_store_claim(s, "w", f.job, 2, 0, &c, &err), CT_OK);
	assert_int_equal(c.n, 2);

	/* a ranking run ranked the tasks with inputs (flavours 1 and 2), all
	 * but /k/001: its discovery score waits for a run (SPEC.md: a URL not
	 * yet ranked is stored as P2) */
	mark_ranked(s, f.job, "/k/001");
	static const char *const modes[] = {"fifo", "hierarchy", "frontier",
		"discovery", "freshness", "importance"};
	for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
		struct progress p = {.n = 0};
		struct ct_rescore_opts o = opts(&f, 7, &p);
		struct ct_rescore_result r;
		long long audit = pgt_int(s, "SELECT count(*) FROM crawltop.audit_log");
		if (ct_store_job_set_mode(s, f.job, modes[i], &o, &r, &err) != CT_OK)
			fail_msg("%s: %s", modes[i], err.msg);
		assert_string_equal(r.mode, modes[i]);
		assert_int_equal(r.total, 25);
		assert_int_equal(r.done, 25);
		assert_int_equal(r.batches, 4);
		assert_false(r.cancelled);
		/* discovery: 3 of the 5 flavours have neither sub-scores nor
		 * signals, and /k/001 is not ranked */
		assert_int_equal(r.unranked, strcmp(modes[i], "discovery") ? 0 : 16);
		/* a ranked task's ranking record follows its new score */
		if (strcmp(modes[i], "discovery") == 0)
			assert_int_equal(pgt_int(s, "SELECT count(*) FROM "
				"crawltop.tasks WHERE ranked_at IS NOT NULL AND "
				"discovery_score = base_score AND priority_class = "
				"class AND base_score <> 40"), 9);
		check_progress(&p, 25, 5);
		assert_int_equal(p.done[1], 7);
		assert_int_equal(p.done[3], 21);
		check_scores(s, &f, modes[i], 25);
		assert_int_equal(pgt_int(s, "SELECT count(*) FROM crawltop.audit_log")
				 - audit, 1 + 4);
		const char *pj[] = {num(f.job), modes[i]};
		char *a = pgt_text(s, "SELECT string_agg(action || ':' || "
			"rows_affected || ':' || coalesce(after->>'batch', '-') || "
			"':' || (after->>'mode') || ':' || coalesce(after->>'cause', '-') || "
			"':' || (db_role = current_user), ' ' ORDER BY id) FROM "
			"crawltop.audit_log WHERE job_id = $1 AND after->>'mode' = $2",
			2, pj);
		assert_non_null(strstr(a, "job.mode:1:-:"));
		for (int b = 1; b <= 4; b++) {
			char want[64];
			snprintf(want, sizeof want, ":%d:%s:mode:true", b, modes[i]);
			if (!strstr(a, want))
				fail_msg("audit of %s lacks batch %d: %s", modes[i], b, a);
		}
		free(a);
	}
	/* the previous mode is in the audit row's `before` */
	assert_int_equal(pgt_int(s, "SELECT count(*) FROM crawltop.audit_log WHERE "
		"action = 'job.mode' AND before->>'mode' = 'discovery' AND "
		"after->>'mode' = 'freshness' AND after->>'tasks_to_rescore' = '25'"), 1);
	/* the released running tasks come back with their new scores */
	size_t done;
	int64_t ids[2] = {c.tasks[0].id, c.tasks[1].id};
	assert_int_equal(ct_store_release(s, "w", ids, 2, &done, &err), CT_OK);
	check_scores(s, &f, "importance", 25);
	assert_int_equal(pgt_int(s, "SELECT count(*) FROM crawltop.tasks WHERE "
		"status = 'pending' AND score = 0"), 25);
	ct_claim_free(&c);

	/* claims follow the new scores: freshness 94 first */
	assert_int_equal(ct_store_job_set_mode(s, f.job, "freshness",
		(struct ct_rescore_opts[]){opts(&f, 0, NULL)}, NULL, &err), CT_OK);
	assert_int_equal(ct_store_claim(s, "w", 0, 5, 0, &c, &err), CT_OK);
	for (size_t i = 0; i < c.n; i++)
		assert_true(c.tasks[i].score == 94 && c.tasks[i].cls == CT_P0);
	ct_claim_free(&c);
}

/* A cancel between batches: 100 tasks, batches of 10, cancel raised when
 * 30 are done: exactly the first three batches (the 30 lowest page ids)
 * are rescored, the other 70 untouched; 3 audit rows. Then a rescore
 * finishes the job. */
static void cancel_between_batches(void **state)
{
	struct ct_store *s = *state;
	struct ct_error err = {{0}};
	struct fixture f;
	make_job(s, &f, "cancel", 100);
	atomic_int cancel = 0;
	struct progress p = {.n = 0, .cancel = &cancel, .cancel_at = 30};
	struct ct_rescore_opts o = opts(&f, 10, &p);
	struct ct_rescore_result r;
	assert_int_equal(ct_store_job_set_mode(s, f.job, "fifo", &o, &r, &err),
			 CT_OK);
	assert_true(r.cancelled);
	assert_int_equal(r.done, 30);
	assert_int_equal(r.batches, 3);
	assert_int_equal(r.total, 100);
	assert_int_equal(p.n, 4); /* 0, 10, 20, 30 */
	assert_int_equal(p.done[3], 30);
	const char *pj[] = {num(f.job)};
	char *t = pgt_text(s, "SELECT count(*) FILTER (WHERE t.score = 0) || '/' || "
		"count(*) FILTER (WHERE t.score = 1) || '/' || "
		"coalesce(max(p.path) FILTER (WHERE t.score = 0), '') || '/' || "
		"coalesce(min(p.path) FILTER (WHERE t.score = 1), '') FROM "
		"crawltop.tasks t JOIN crawltop.pages p ON p.id = t.page_id WHERE "
		"t.job_id = $1", 1, pj);
	assert_string_equal(t, "30/70//k/029//k/030");
	free(t);
	assert_int_equal(pgt_int(s, "SELECT count(*) FROM crawltop.audit_log "
				 "WHERE action = 'tasks.rescore'"), 3);
	/* the stopped rescore leaves the job marked (0027) */
	char *mark = pgt_text(s, "SELECT rescore_reason FROM crawltop.jobs "
			      "WHERE id = $1", 1, pj);
	assert_string_equal(mark, "mode fifo");
	free(mark);
	/* cancelled before the first batch: nothing */
	struct progress p0 = {.n = 0, .cancel = &cancel};
	o = opts(&f, 10, &p0);
	assert_int_equal(ct_store_job_rescore(s, f.job, &o, &r, &err), CT_OK);
	assert_true(r.cancelled);
	assert_int_equal(r.done, 0);
	/* again without cancel: all done */
	atomic_store(&cancel, 0);
	struct progress p2 = {.n = 0, .cancel = &cancel};
	o = opts(&f, 10, &p2);
	assert_int_equal(ct_store_job_rescore(s, f.job, &o, &r, &err), CT_OK);
	assert_false(r.cancelled);
	assert_int_equal(r.done, 100);
	assert_int_equal(r.changed, 70);
	check_progress(&p2, 100, 11);
	assert_int_equal(pgt_int(s, "SELECT count(*) FROM crawltop.tasks WHERE "
				 "score = 0 AND class = 3"), 100);
	/* a complete rescore clears the mark */
	const char *mark_sql = "SELECT count(*) FROM crawltop.jobs WHERE "
			       "rescore_needed_at IS NOT NULL";
	assert_int_equal(pgt_int(s, mark_sql), 0);
	/* the console's apply writes a version and marks every job it will
	 * rescore in one transaction (0030): a job it never reached stays
	 * marked; a rescore with older settings, or naming none, leaves the
	 * mark; one with that version clears it */
	int cur = pgt_int(s, "SELECT max(version) FROM crawltop.settings");
	char *json = pgt_text(s, "SELECT jsonb_set(value, '{store,"
			      "starvation_every}', '11')::text FROM "
			      "crawltop.settings ORDER BY version DESC LIMIT 1", 0,
			      NULL);
	int v = 0;
	int64_t jobs[] = {f.job, 999999};
	assert_int_equal(ct_store_settings_put_marked(s, json, cur - 1,
						      "settings.update", "t",
						      jobs, 2, &v, NULL, &err),
			 CT_EINVAL); /* stale base: nothing written or marked */
	assert_int_equal(pgt_int(s, mark_sql), 0);
	assert_int_equal(ct_store_settings_put_marked(s, json, cur,
						      "settings.update", "t",
						      jobs, 2, &v, NULL, &err),
			 CT_OK);
	free(json);
	assert_int_equal(v, cur + 1);
	char *why = pgt_text(s, "SELECT rescore_reason || ' ' || "
			     "rescore_needed_version FROM crawltop.jobs "
			     "WHERE rescore_needed_at IS NOT NULL", 0, NULL);
	char want[64];
	snprintf(want, sizeof want, "settings v%d %d", v, v);
	assert_string_equal(why, want);
	free(why);
	for (int older = 0; older < 2; older++) {
		atomic_store(&cancel, 0);
		struct progress p3 = {.n = 0, .cancel = &cancel};
		o = opts(&f, 10, &p3);
		o.settings_version = older ? v - 1 : 0;
		assert_int_equal(ct_store_job_rescore(s, f.job, &o, &r, &err),
				 CT_OK);
		assert_int_equal(r.done, 100);
		assert_int_equal(pgt_int(s, mark_sql), 1);
	}
	atomic_store(&cancel, 0);
	struct progress p3 = {.n = 0, .cancel = &cancel};
	o = opts(&f, 10, &p3);
	o.settings_version = v;
	assert_int_equal(ct_store_job_rescore(s, f.job, &o, &r, &err), CT_OK);
	assert_int_equal(pgt_int(s, mark_sql), 0);
}

/* A settings change, rescored with the same machinery: new class bounds
 * move classes, new discovery weights move scores. */
static void settings_change_rescore(void **state)
{
	struct ct_store *s = *state;
	struct ct_error err = {{0}};
	struct fixture f;
	make_job(s, &f, "retune", 25);
	struct ct_rescore_opts o = opts(&f, 0, NULL);
	assert_int_equal(ct_store_job_set_mode(s, f.job, "freshness", &o, NULL,
					       &err), CT_OK);
	double score;
	int cls;
	task_score(s, f.job, "/k/003", &score, &cls); /* 73: P1 */
	assert_true(score == 73 && cls == 1);
	f.set.classes = (struct ct_class_bounds){90, 75, 50};
	struct ct_rescore_result r;
	assert_int_equal(ct_store_job_rescore(s, f.job, &o, &r, &err), CT_OK);
	assert_int_equal(r.done, 25);
	task_score(s, f.job, "/k/003", &score, &cls);
	assert_true(score == 73 && cls == 2);
	task_score(s, f.job, "/k/001", &score, &cls); /* 94: P0 */
	assert_true(score == 94 && cls == 0);
	check_scores(s, &f, "freshness", 25);
	assert_int_equal(r.changed, 15); /* the 73s, from P1 to P2 */

	/* discovery weights: all on unseen_likelihood */
	f.set.classes = CT_CLASS_BOUNDS_DEFAULT;
	mark_ranked(s, f.job, NULL);
	assert_int_equal(ct_store_job_set_mode(s, f.job, "discovery", &o, &r,
					       &err), CT_OK);
	task_score(s, f.job, "/k/001", &score, &cls);
	assert_true(score == 50 && cls == 2);
	for (int i = 0; i < CT_SUB_COUNT; i++)
		f.set.discovery.weights[i] = i == CT_SUB_UNSEEN ? 1 : 0;
	assert_int_equal(ct_store_job_rescore(s, f.job, &o, &r, &err), CT_OK);
	task_score(s, f.job, "/k/001", &score, &cls);
	assert_true(score == 50); /* 100 x 0.5 */
	task_score(s, f.job, "/k/002", &score, &cls);
	check_scores(s, &f, "discovery", 25);
	assert_int_equal(pgt_int(s, "SELECT count(*) FROM crawltop.audit_log WHERE "
		"action = 'tasks.rescore' AND after->>'cause' = 'rescore'"), 2);
}

/* The task at path in job has score and class cls (what names the step). */
static void want(struct ct_store *s, int64_t job, const char *what,
		 const char *path, double score, int cls)
{
	double got;
	int gc;
	task_score(s, job, path, &got, &gc);
	if (fabs(got - score) > 1e-9 || gc != cls)
		fail_msg("%s: %s has score %.17g P%d, want %.17g P%d", what, path,
			 got, gc, score, cls);
}

/* The review's case: an operator boosts part of a freshness job (73 ->
 * 93) and demotes another part; a settings change rescored by the
 * console (here one that does not touch freshness), a mode change and a
 * ranking run each rescore the tasks from their inputs. Each keeps the
 * operators' points: the score stays the mode's score plus the
 * adjustment, clamped to 0..100, and the class follows the score. */
static void adjustments_survive_rescores(void **state)
{
	struct ct_store *s = *state;
	struct ct_error err = {{0}};
	struct fixture f;
	make_job(s, &f, "keep", 25);
	struct ct_rescore_opts o = opts(&f, 0, NULL);
	struct ct_rescore_result r;
	long rows;
	assert_int_equal(ct_store_job_set_mode(s, f.job, "freshness", &o, NULL,
					       &err), CT_OK);
	want(s, f.job, "freshness", "/k/003", 73, 1);
	/* boost /k/00 (ten tasks) by 20, demote /k/01 by 30 */
	assert_int_equal(ct_store_adjust_scores(s, f.job, "/k/00", 20, &rows,
						&err), CT_OK);
	assert_int_equal(rows, 10);
	assert_int_equal(ct_store_adjust_scores(s, f.job, "/k/01", -30, &rows,
						&err), CT_OK);
	assert_int_equal(rows, 10);
	static const char *const step[] = {"boost", "settings rescore",
		"class bounds rescore"};
	for (int k = 0; k < 3; k++) {
		if (k == 1) {
			/* a settings change that has nothing to do with
			 * freshness: every task keeps its score, none is
			 * written */
			for (int i = 0; i < CT_SUB_COUNT; i++)
				f.set.discovery.weights[i] = i == CT_SUB_UNSEEN;
			assert_int_equal(ct_store_job_rescore(s, f.job, &o, &r,
							      &err), CT_OK);
			assert_int_equal(r.done, 25);
			assert_int_equal(r.changed, 0);
		}
		if (k == 2) {
			/* new class bounds: classes follow the adjusted score */
			f.set.classes = (struct ct_class_bounds){90, 75, 50};
			assert_int_equal(ct_store_job_rescore(s, f.job, &o, &r,
							      &err), CT_OK);
		}
		const struct ct_class_bounds *b = &f.set.classes;
		want(s, f.job, step[k], "/k/003", 93, ct_class_of(93, b));
		want(s, f.job, step[k], "/k/001", 100, 0);      /* 94 + 20 */
		want(s, f.job, step[k], "/k/004", 48, ct_class_of(48, b));
		want(s, f.job, step[k], "/k/013", 43, ct_class_of(43, b));
		want(s, f.job, step[k], "/k/014", 0, 3);        /* 28 - 30 */
		want(s, f.job, step[k], "/k/023", 73, ct_class_of(73, b));
	}
	f.set.classes = CT_CLASS_BOUNDS_DEFAULT;

	/* a mode change: discovery (weights all on unseen_likelihood);
	 * unranked tasks sit at the P2 bound, 40 (the ones with inputs were
	 * ranked) */
	mark_ranked(s, f.job, NULL);
	assert_int_equal(ct_store_job_set_mode(s, f.job, "discovery", &o, &r,
					       &err), CT_OK);
	want(s, f.job, "discovery", "/k/003", 60, 1);  /* 40 + 20 */
	want(s, f.job, "discovery", "/k/001", 70, 1);  /* 50 + 20 */
	want(s, f.job, "discovery", "/k/011", 20, 3);  /* 50 - 30 */
	want(s, f.job, "discovery", "/k/014", 10, 3);  /* 40 - 30 */
	want(s, f.job, "discovery", "/k/021", 50, 2);

	/* a ranking run of the job, with the default weights */
	ct_settings_default(&f.set);
	struct ct_rank_opts ro = {.settings = &f.set, .job_id = f.job};
	struct ct_rank_result rr;
	assert_int_equal(ct_store_rank(s, &ro, &rr, &err), CT_OK);
	double d = expected(&f, "discovery", 2, 0.5);
	assert_true(d > 30 && d < 70);
	want(s, f.job, "rank", "/k/002", d + 20, ct_class_of(d + 20, &f.set.classes));
	want(s, f.job, "rank", "/k/012", d - 30, ct_class_of(d - 30, &f.set.classes));
	want(s, f.job, "rank", "/k/022", d, ct_class_of(d, &f.set.classes));
	want(s, f.job, "rank", "/k/001", 70, 1);
	want(s, f.job, "rank", "/k/011", 20, 3);
	const char *pj[] = {num(f.job)};
	/* the ranking's record is the mode score, kept apart from the points */
	char *t = pgt_text(s, "SELECT string_agg(p.path || ':' || t.adjustment "
		"|| ':' || (t.discovery_score = t.base_score), ' ' ORDER BY "
		"p.path) FROM crawltop.tasks t JOIN crawltop.pages p ON p.id = "
		"t.page_id WHERE t.job_id = $1 AND p.path IN ('/k/001', "
		"'/k/002', '/k/012') AND t.ranked_at IS NOT NULL", 1, pj);
	assert_string_equal(t, "/k/001:20:true /k/002:20:true /k/012:-30:true");
	free(t);

	/* undone: the adjustments add back to 0, the scores are the mode's */
	assert_int_equal(ct_store_adjust_scores(s, f.job, "/k/00", -20, &rows,
						&err), CT_OK);
	assert_int_equal(ct_store_adjust_scores(s, f.job, "/k/01", 30, &rows,
						&err), CT_OK);
	want(s, f.job, "undone", "/k/002", d, ct_class_of(d, &f.set.classes));
	want(s, f.job, "undone", "/k/014", 40, 2);
	assert_int_equal(pgt_int(s, "SELECT count(*) FROM crawltop.tasks "
				 "WHERE adjustment <> 0 OR score <> base_score"), 0);
}

/* A duplicate's raise at enqueue (hierarchy: a better source) raises the
 * task's mode score and keeps its adjustment; a duplicate that would
 * lower it changes nothing. */
static void duplicate_raise_keeps_adjustment(void **state)
{
	struct ct_store *s = *state;
	struct ct_error err = {{0}};
	int64_t j = pgt_job(s, "dup", "dup.example", 5, "hierarchy");
	const char *p[] = {"/a", "/b"};
	long rows;
	/* found from an unknown source: the floor, 10 */
	pgt_enqueue_from(s, j, p, 2, NULL, CT_SRC_OTHER, 0);
	want(s, j, "enqueue", "/a", 10, 3);
	assert_int_equal(ct_store_adjust_scores(s, j, "/a", 20, &rows, &err), CT_OK);
	assert_int_equal(ct_store_adjust_scores(s, j, "/b", -25, &rows, &err), CT_OK);
	want(s, j, "boost", "/a", 30, 3);
	want(s, j, "demote", "/b", 0, 3);
	/* both again, from a sitemap: 0.5 x 100 = 50 */
	struct ct_enqueue_result r = pgt_enqueue(s, j, p, 2, NULL);
	assert_int_equal(r.inserted, 0);
	assert_int_equal(r.raised, 2);
	want(s, j, "sitemap duplicate", "/a", 70, 1);
	want(s, j, "sitemap duplicate", "/b", 25, 3);
	/* and from an unknown source again: lower, nothing changes */
	r = pgt_enqueue_from(s, j, p, 2, NULL, CT_SRC_OTHER, 0);
	assert_int_equal(r.raised, 0);
	want(s, j, "lower duplicate", "/a", 70, 1);
	want(s, j, "lower duplicate", "/b", 25, 3);
	/* apply_sitemap_priorities raises the base the same way */
	assert_int_equal(ct_store_adjust_scores(s, j, "/", 100, &rows, &err), CT_OK);
	want(s, j, "boost all", "/a", 100, 0);
	assert_int_equal(pgt_int(s, "SELECT adjustment FROM crawltop.tasks t "
		"JOIN crawltop.pages p ON p.id = t.page_id WHERE p.path = '/a'"), 100);

	/* the invariant holds for every row, whoever writes */
	assert_int_equal(ct_store_exec(s, "forge", "UPDATE crawltop.tasks SET "
				       "score = 50", &err), CT_EINVAL);
	if (!strstr(err.msg, "tasks_score_derived"))
		fail_msg("unclear: %s", err.msg);
	assert_int_equal(ct_store_exec(s, "forge", "UPDATE crawltop.tasks SET "
				       "adjustment = 'NaN'", &err), CT_EINVAL);
	assert_int_equal(ct_store_exec(s, "forge", "UPDATE crawltop.tasks SET "
				       "base_score = 101, score = 100", &err),
			 CT_EINVAL);
}

struct worker_arg {
	int64_t job;
	long completed;
	char error[CT_ERROR_LEN + 32];
};

/* Claims and completes batches of 7 of job until nothing is left. */
static void *worker(void *arg)
{
	struct worker_arg *w = arg;
	struct ct_store *s;
	struct ct_error err = {{0}};
	if (ct_store_open(pgt_dsn("ct_rescore"), &s, &err) != CT_OK) {
		snprintf(w->error, sizeof w->error, "%s", err.msg);
		return NULL;
	}
	for (int empty = 0; empty < 3;) {
		struct ct_claim c;
		if (ct_store_claim(s, "bg", w->job, 7, 0, &c, &err) != CT_OK) {
			snprintf(w->error, sizeof w->error, "claim: %s", err.msg);
			break;
		}
		if (c.n == 0) {
			empty++;
			continue;
		}
		int64_t ids[7];
		for (size_t i = 0; i < c.n; i++)
			ids[i] = c.tasks[i].id;
		size_t done;
		if (ct_store_complete(s, "bg", ids, c.n, &done, &err) != CT_OK) {
			snprintf(w->error, sizeof w->error, "complete: %s", err.msg);
			ct_claim_free(&c);
			break;
		}
		w->completed += (long)done;
		ct_claim_free(&c);
	}
	ct_store_close(s);
	return NULL;
}

/* A rescore beside a worker that claims and completes the same job: no
 * error, no deadlock, every task completed once, and the tasks still
 * pending at the end carry the new mode's scores. */
static void rescore_beside_worker(void **state)
{
	struct ct_store *s = *state;
	struct ct_error err = {{0}};
	struct fixture f;
	make_job(s, &f, "busy", 1000);
	struct worker_arg w = {.job = f.job};
	pthread_t th;
	assert_int_equal(pthread_create(&th, NULL, worker, &w), 0);
	struct ct_rescore_opts o = opts(&f, 50, NULL);
	struct ct_rescore_result r;
	ct_status st = ct_store_job_set_mode(s, f.job, "freshness", &o, &r, &err);
	pthread_join(th, NULL);
	if (st != CT_OK)
		fail_msg("%s", err.msg);
	if (w.error[0])
		fail_msg("worker: %s", w.error);
	assert_true(r.done <= 1000 && r.batches >= 1);
	assert_int_equal(w.completed + pgt_int(s, "SELECT count(*) FROM "
		"crawltop.tasks WHERE status = 'pending'"), 1000);
	/* whatever is still pending was rescored (scores 73, 94 or 28) */
	assert_int_equal(pgt_int(s, "SELECT count(*) FROM crawltop.tasks WHERE "
		"status = 'pending' AND score NOT IN (73, 94, 28)"), 0);
	assert_int_equal(pgt_int(s, "SELECT count(*) FROM crawltop.tasks WHERE "
		"status = 'completed'"), w.completed);
	printf("# rescore of 1000 tasks in batches of 50 beside a worker: %zu "
	       "rescored in %zu batches, %ld completed meanwhile\n", r.done,
	       r.batches, w.completed);
}

/* Bad input: refused with a clear message, nothing changed. */
static void bad_input_refused(void **state)
{
	struct ct_store *s = *state;
	struct ct_error err = {{0}};
	struct fixture f;
	make_job(s, &f, "bad", 10);
	struct ct_rescore_opts o = opts(&f, 0, NULL);
	struct ct_rescore_result r;
	char *before = pgt_text(s, "SELECT string_agg(score || ':' || class || ':' "
		"|| coalesce(score_inputs::text, ''), ',' ORDER BY id) || "
		"(SELECT count(*) FROM crawltop.audit_log) || (SELECT string_agg("
		"prioritization_mode, ',') FROM crawltop.jobs) FROM crawltop.tasks",
		0, NULL);
	static const struct {
		const char *mode;
		int64_t job;
		ct_status st;
		const char *state, *frag;
	} cases[] = {
		{"nope", 0, CT_EINVAL, "22023", "set job mode: mode 'nope' is unknown: use fifo, hierarchy"},
		{"fifo'; DROP TABLE crawltop.tasks; --", 0, CT_EINVAL, "22023", "mode 'fifo''; DROP"},
		{NULL, 0, CT_EINVAL, "22023", "mode NULL is unknown"},
		{"fifo", 424242, CT_ENOENT, "P0002", "set job mode: job 424242 does not exist"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		ct_status st = ct_store_job_set_mode(s, cases[i].job ? cases[i].job
			: f.job, cases[i].mode, &o, &r, &err);
		if (st != cases[i].st || strcmp(ct_store_sqlstate(s), cases[i].state) ||
		    !strstr(err.msg, cases[i].frag))
			fail_msg("case %zu: %s/%s: %s", i, ct_status_str(st),
				 ct_store_sqlstate(s), err.msg);
	}
	/* settings the engine refuses */
	struct fixture g = f;
	g.set.discovery.weights[0] = 0.35;
	o = opts(&g, 0, NULL);
	assert_int_equal(ct_store_job_rescore(s, f.job, &o, &r, &err), CT_EINVAL);
	if (!strstr(err.msg, "rescore: settings:") || !strstr(err.msg, "1.07"))
		fail_msg("unclear: %s", err.msg);
	o = opts(&f, 100001, NULL);
	assert_int_equal(ct_store_job_rescore(s, f.job, &o, &r, &err), CT_ERANGE);
	if (!strstr(err.msg, "batch size 100001 is outside 1..100000"))
		fail_msg("unclear: %s", err.msg);
	assert_int_equal(ct_store_job_rescore(s, f.job, NULL, &r, &err), CT_EINVAL);
	assert_int_equal(ct_store_job_rescore(s, 424242, (struct ct_rescore_opts[])
		{opts(&f, 0, NULL)}, &r, &err), CT_ENOENT);
	/* inside the caller's transaction */
	pgt_exec(s, "BEGIN");
	o = opts(&f, 0, NULL);
	assert_int_equal(ct_store_job_rescore(s, f.job, &o, &r, &err), CT_EINVAL);
	if (!strstr(err.msg, "inside a transaction"))
		fail_msg("unclear: %s", err.msg);
	pgt_exec(s, "ROLLBACK");
	/* the SQL halves check their input too */
	static const struct {
		const char *sql, *state, *frag;
	} sql[] = {
		{"SELECT crawltop.rescore_apply($1, 'frontier', '{1}', '{NaN}', '{0}')",
		 "22003", "scores[1] = NaN: a score must be a finite number in 0..100"},
		{"SELECT crawltop.rescore_apply($1, 'frontier', '{1}', '{50}', '{7}')",
		 "22003", "classes[1] = 7"},
		{"SELECT crawltop.rescore_apply($1, 'frontier', '{1,2}', '{50}', '{0}')",
		 "22023", "2 ids, 1 scores and 1 classes"},
		{"SELECT crawltop.rescore_apply($1, 'fifo', '{1}', '{50}', '{0}')",
		 "55000", "is now in frontier mode, not 'fifo'"},
		{"SELECT crawltop.rescore_apply($1, 'frontier', '{1}', '{50}', '{0}', '[1]')",
		 "22023", "a rescore note must be a JSON object of at most 4096 bytes, not array"},
		{"SELECT crawltop.rescore_apply($1, 'frontier', '{1}', '{50}', '{0}', "
		 "jsonb_build_object('why', repeat('x', 5000)))",
		 "22023", "at most 4096 bytes, not object of 5011 bytes"},
		{"SELECT count(*) FROM crawltop.rescore_fetch($1, 'frontier', 0, 0)",
		 "22003", "rescore batch size 0 is outside 1..100000"},
	};
	for (size_t i = 0; i < sizeof sql / sizeof sql[0]; i++) {
		const char *p[] = {num(f.job)};
		char buf[64];
		ct_status st = ct_store_query(s, "sql", sql[i].sql, 1, p, buf,
					      sizeof buf, NULL, &err);
		if (st == CT_OK || strcmp(ct_store_sqlstate(s), sql[i].state) ||
		    !strstr(err.msg, sql[i].frag))
			fail_msg("sql case %zu: %s/%s: %s", i, ct_status_str(st),
				 ct_store_sqlstate(s), err.msg);
	}
	/* a cancelled job's mode cannot change */
	long rows;
	int64_t gone = pgt_job(s, "gone", "gone.example", 5, "fifo");
	assert_int_equal(ct_store_job_act(s, gone, CT_JOB_CANCEL, &rows, &err), CT_OK);
	assert_int_equal(ct_store_job_set_mode(s, gone, "hierarchy", &o, &r, &err),
			 CT_EINVAL);
	if (strcmp(ct_store_sqlstate(s), "55000") ||
	    !strstr(err.msg, "is cancelled: its mode cannot change"))
		fail_msg("unclear: %s", err.msg);
	char *after = pgt_text(s, "SELECT string_agg(score || ':' || class || ':' "
		"|| coalesce(score_inputs::text, ''), ',' ORDER BY id) || "
		"(SELECT count(*) - 2 FROM crawltop.audit_log) || (SELECT "
		"string_agg(prioritization_mode, ',') FILTER (WHERE name <> 'gone') "
		"FROM crawltop.jobs) FROM crawltop.tasks", 0, NULL);
	assert_string_equal(before, after);
	free(before);
	free(after);
}

/* A task without score inputs reads as one whose inputs are an empty
 * object (0040 answers it from a branch of its own), and inputs that are
 * there are unpacked as before. */
static void no_inputs_read_as_empty(void **state)
{
	struct ct_store *s = *state;
	char *none = pgt_text(s, "SELECT row(x.*)::text FROM "
			      "crawltop.score_input_columns(NULL) x", 0, NULL);
	char *empty = pgt_text(s, "SELECT row(x.*)::text FROM "
			       "crawltop.score_input_columns('{}') x", 0, NULL);
	assert_string_equal(none, empty);
	free(none);
	free(empty);
	char *t = pgt_text(s, "SELECT row(x.*)::text FROM "
			   "crawltop.score_input_columns('{\"bias\": 2.5, \"gap\": "
			   "{\"lift\": 0.2}, \"signals\": {\"ns_changes\": 2}}') x",
			   0, NULL);
	assert_string_equal(t, "(2.5,,,,,,0.2,f,,,,,,,,,t,,2,,,,,,,,,,,,,,,,,,,,,,,)");
	free(t);
	t = pgt_text(s, "SELECT row(x.*)::text FROM crawltop.score_input_columns(NULL) x",
		     0, NULL);
	assert_string_equal(t, "(,,,,,,,f,,,,,,,,,f,,,,,,,,,,,,,,,,,,,,,,,,,)");
	free(t);
}

/* A rescore's note says why; it cannot write over what the audit row
 * says the rescore was (its mode, its batch's size). */
static void rescore_note_cannot_override(void **state)
{
	struct ct_store *s = *state;
	int64_t job = pgt_job(s, "noted", "noted.example", 5, "frontier");
	char q[512];
	snprintf(q, sizeof q, "SELECT crawltop.rescore_apply(%lld, 'frontier', "
		 "'{}', '{}', '{}', '{\"mode\": \"fifo\", \"tasks\": 999999, "
		 "\"cause\": \"test\"}')", (long long)job);
	assert_int_equal(pgt_int(s, q), 0);
	char *after = pgt_text(s, "SELECT after::text FROM crawltop.audit_log "
			       "WHERE action = 'tasks.rescore' ORDER BY id DESC "
			       "LIMIT 1", 0, NULL);
	assert_string_equal(after, "{\"mode\": \"frontier\", \"cause\": "
			    "\"test\", \"tasks\": 0}");
	free(after);
}

/* Score inputs at enqueue: checked key by key, refused batches leave
 * nothing behind. */
static void bad_inputs_refused(void **state)
{
	struct ct_store *s = *state;
	struct ct_error err = {{0}};
	int64_t job = pgt_job(s, "inputs", "inputs.example", 5, "frontier");
	static const struct {
		const char *json, *state, *frag;
	} bad[] = {
		{"not json", "22P02", "score inputs[2] = 'not json' is not JSON"},
		{"[1, 2]", "22023", "score inputs must be a JSON object, not array"},
		{"{\"bias\": \"high\"}", "22023", "score inputs[2]: bias = \"high\": must be a number"},
		{"{\"bais\": 1}", "22023", "score input 'bais' is unknown: use bias, clusterOccurrences"},
		{"{\"gap\": {\"confidence\": 2, \"lift\": 0}}", "22023", "gap.confidence = 2: must be in 0..1"},
		{"{\"gap\": {\"confidence\": 0.5}}", "22023", "gap needs both confidence and lift"},
		{"{\"subscores\": {\"freshness\": 0.5}}", "22023", "subscores has 1 of the 8 sub-scores"},
		{"{\"signals\": {\"source\": \"tv\"}}", "22023", "signals.source = \"tv\": must be one of unknown, ct, rss, cc, social"},
		{"{\"hubDepth\": -1}", "22023", "hubDepth = -1: must be in 0..1000000"},
		{"{\"visits\": 1.5}", "22023", "visits = 1.5: must be an integer"},
		{"{\"isHub\": 1}", "22023", "isHub = 1: must be true or false"},
		{"{\"classification\": \"Country\"}", "22023", "classification = \"Country\": must be one of none, country"},
		{"{\"meta\": 5}", "22023", "meta = 5: must be an object"},
		/* past double precision: compared as JSON's number */
		{"{\"bias\": 1e400}", "22023", "0000000000: must be in -1000000..1000000"},
	};
	const char *paths[] = {"/a", "/b"};
	double sc[] = {10, 20};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		const char *inputs[] = {"{\"bias\": 1}", bad[i].json};
		struct ct_enqueue_batch b = CT_ENQUEUE_BATCH_INIT;
		struct ct_enqueue_result r;
		b.job_id = job;
		b.paths = paths;
		b.n = 2;
		b.scores = sc;
		b.inputs = inputs;
		ct_status st = ct_store_enqueue(s, &b, &r, &err);
		if (st == CT_OK || strcmp(ct_store_sqlstate(s), bad[i].state) ||
		    !strstr(err.msg, bad[i].frag) || !strstr(err.msg, "enqueue"))
			fail_msg("case %zu (%s): %s/%s: %s", i, bad[i].json,
				 ct_status_str(st), ct_store_sqlstate(s), err.msg);
		assert_int_equal(r.inserted, 0);
	}
	assert_int_equal(pgt_int(s, "SELECT count(*) FROM crawltop.tasks"), 0);
	assert_int_equal(pgt_int(s, "SELECT total_pages FROM crawltop.jobs"), 0);
	/* good ones are stored; a NULL entry stores nothing */
	const char *good[] = {"{\"bias\": 1.5, \"isHub\": false}", NULL};
	struct ct_enqueue_batch b = CT_ENQUEUE_BATCH_INIT;
	struct ct_enqueue_result r;
	b.job_id = job;
	b.paths = paths;
	b.n = 2;
	b.scores = sc;
	b.inputs = good;
	assert_int_equal(ct_store_enqueue(s, &b, &r, &err), CT_OK);
	assert_int_equal(r.inserted, 2);
	char *t = pgt_text(s, "SELECT string_agg(coalesce(score_inputs::text, "
			   "'null'), ' ' ORDER BY id) FROM crawltop.tasks", 0, NULL);
	assert_string_equal(t, "{\"bias\": 1.5, \"isHub\": false} null");
	free(t);
	/* inside the caller's transaction: part of it */
	pgt_exec(s, "BEGIN");
	const char *p3[] = {"/c"};
	const char *i3[] = {"{\"visits\": 3}"};
	b.paths = p3;
	b.inputs = i3;
	b.n = 1;
	assert_int_equal(ct_store_enqueue(s, &b, &r, &err), CT_OK);
	pgt_exec(s, "ROLLBACK");
	assert_int_equal(pgt_int(s, "SELECT count(*) FROM crawltop.tasks"), 2);

	/* a cancelled job's tasks take no score inputs (as no new tasks) */
	char sql[200];
	snprintf(sql, sizeof sql, "SELECT crawltop.set_job_state(%" PRId64
		 ", 'cancel')", job);
	pgt_exec(s, sql);
	snprintf(sql, sizeof sql, "SELECT crawltop.set_score_inputs(%" PRId64
		 ", ARRAY['/a'], ARRAY['{\"bias\": 9}'::jsonb])", job);
	assert_int_not_equal(ct_store_exec(s, "inputs", sql, &err), CT_OK);
	assert_string_equal(ct_store_sqlstate(s), "55000");
	if (!strstr(err.msg, "is cancelled: its tasks take no score inputs"))
		fail_msg("unclear: %s", err.msg);
	t = pgt_text(s, "SELECT string_agg(coalesce(score_inputs::text, "
		     "'null'), ' ' ORDER BY id) FROM crawltop.tasks", 0, NULL);
	assert_string_equal(t, "{\"bias\": 1.5, \"isHub\": false} null");
	free(t);
}

/* With three connections (0036: the job's page ids in three stripes, each
 * on its own thread, at least stripe_min tasks each; fewer connections
 * below that) a rescore gives every task the score one connection
 * gives, fetches each unfinished task exactly once (the audit rows of its
 * batches count 300, the running ones among them), reports progress that
 * never goes back and ends at the total; a cancel stops every stripe
 * between batches, leaving whole batches rescored and the rest as they
 * were; extra connections that are the main one or inside a transaction
 * are refused before anything is written. */
static void stripes_rescore_each_task_once(void **state)
{
	struct ct_store *s = *state, *x[2];
	struct ct_error err = {{0}};
	struct fixture f;
	make_job(s, &f, "stripes", 300);
	struct ct_claim c;
	assert_int_equal(ct_store_claim(s, "w", f.job, 2, 0, &c, &err), CT_OK);
	assert_int_equal(c.n, 2);
	mark_ranked(s, f.job, NULL);
	for (int i = 0; i < 2; i++)
		if (ct_store_open(pgt_dsn("ct_rescore"), &x[i], &err) != CT_OK)
			fail_msg("%s", err.msg);
	static const char *const modes[] = {"hierarchy", "frontier",
		"discovery", "freshness", "fifo"};
	for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
		struct progress p = {.n = 0};
		struct ct_rescore_opts o = opts(&f, 7, &p);
		o.extra = x;
		o.n_extra = 2;
		o.stripe_min = 100;
		struct ct_rescore_result r;
		long long last = pgt_int(s, "SELECT coalesce(max(id), 0) FROM "
					 "crawltop.audit_log");
		if (ct_store_job_set_mode(s, f.job, modes[i], &o, &r, &err) != CT_OK)
			fail_msg("%s: %s", modes[i], err.msg);
		assert_int_equal(r.total, 300);
		assert_int_equal(r.done, 300);
		/* one connection takes ceil(300 / 7) = 43 batches */
		assert_true(r.batches >= 44);
		assert_false(r.cancelled);
		check_scores(s, &f, modes[i], 300);
		/* 0 first, then once a batch */
		check_progress(&p, 300, 1 + (int)r.batches);
		char sql[256];
		snprintf(sql, sizeof sql, "SELECT sum((after->>'tasks')::int) FROM "
			 "crawltop.audit_log WHERE action = 'tasks.rescore' AND "
			 "id > %lld", last);
		assert_int_equal(pgt_int(s, sql), 300);
		/* the mark of the mode change is gone (rescore_finish) */
		const char *pj[] = {num(f.job)};
		char *t = pgt_text(s, "SELECT rescore_needed_at IS NULL FROM "
				   "crawltop.jobs WHERE id = $1", 1, pj);
		assert_string_equal(t, "t");
		free(t);
	}
	/* below stripe_min tasks a connection, one connection does it all */
	struct ct_rescore_opts o1 = opts(&f, 7, NULL);
	o1.extra = x;
	o1.n_extra = 2;
	o1.stripe_min = 1000;
	struct ct_rescore_result r1;
	if (ct_store_job_set_mode(s, f.job, "frontier", &o1, &r1, &err) != CT_OK)
		fail_msg("frontier: %s", err.msg);
	assert_int_equal(r1.done, 300);
	assert_int_equal(r1.batches, 43);
	/* a cancel after 60 tasks: the stripes stop between batches */
	atomic_int cancel = 0;
	struct progress p = {.n = 0, .cancel = &cancel, .cancel_at = 60};
	struct ct_rescore_opts o = opts(&f, 10, &p);
	o.extra = x;
	o.n_extra = 2;
	o.stripe_min = 100;
	struct ct_rescore_result r;
	assert_int_equal(ct_store_job_set_mode(s, f.job, "hierarchy", &o, &r,
					       &err), CT_OK);
	assert_true(r.cancelled);
	assert_true(r.done >= 60 && r.done < 300 && r.done % 10 == 0);
	const char *pj[] = {num(f.job)};
	char *t = pgt_text(s, "SELECT count(*) FILTER (WHERE score = 50) || '/' "
			   "|| count(*) FILTER (WHERE score <> 50) FROM "
			   "crawltop.tasks WHERE job_id = $1", 1, pj);
	char want[32];
	snprintf(want, sizeof want, "%zu/%zu", r.done, 300 - r.done);
	assert_string_equal(t, want);
	free(t);
	/* refused before anything is written */
	struct ct_store *bad[2] = {x[0], s};
	o = opts(&f, 10, NULL);
	o.extra = bad;
	o.n_extra = 2;
	assert_int_equal(ct_store_job_rescore(s, f.job, &o, &r, &err), CT_EINVAL);
	assert_non_null(strstr(err.msg, "is missing or is the main one"));
	pgt_exec(x[1], "BEGIN");
	o.extra = x;
	assert_int_equal(ct_store_job_rescore(s, f.job, &o, &r, &err), CT_EINVAL);
	assert_non_null(strstr(err.msg, "inside a transaction"));
	pgt_exec(x[1], "ROLLBACK");
	ct_claim_free(&c);
	for (int i = 0; i < 2; i++)
		ct_store_close(x[i]);
}

/* A rescore in stripes while an operator and a crawler work on the job:
 * each batch holds the job's row (its mode cannot change under it), and
 * the stripes' batches overlap. An enqueue into the job goes through
 * beside them (they hold the row FOR KEY SHARE, 0036), and a priority
 * change (FOR UPDATE) gets its turn between two rounds of batches: both
 * return while the rescore still has batches to run. */
struct beside {
	struct ct_store *s;
	const struct fixture *f;
	struct ct_store *const *x;
	atomic_int go;              /* the rescore is under way */
	atomic_int enqueued, moved; /* the crawler's and the operator's calls
				     * returned */
	size_t done_enqueued, done_moved; /* the rescore's progress then */
	size_t done;
	struct ct_rescore_result r;
	ct_status st;
	struct ct_error err;
};

static void beside_progress(void *ctx, size_t done, size_t total)
{
	struct beside *b = ctx;
	(void)total;
	b->done = done;
	if (done >= 60)
		atomic_store(&b->go, 1);
	if (atomic_load(&b->enqueued) && !b->done_enqueued)
		b->done_enqueued = done;
	if (atomic_load(&b->moved) && !b->done_moved)
		b->done_moved = done;
}

static void *beside_rescore(void *arg)
{
	struct beside *b = arg;
	struct ct_rescore_opts o = opts(b->f, 40, NULL);
	o.progress = beside_progress;
	o.progress_ctx = b;
	o.extra = b->x;
	o.n_extra = 2;
	o.stripe_min = 100;
	b->st = ct_store_job_set_mode(b->s, b->f->job, "hierarchy", &o, &b->r,
				      &b->err);
	atomic_store(&b->go, 1);
	return NULL;
}

static void stripes_leave_room_for_changes(void **state)
{
	struct ct_store *s = *state, *x[2], *e;
	struct ct_error err = {{0}};
	struct fixture f;
	make_job(s, &f, "beside", 1000);
	for (int i = 0; i < 2; i++)
		if (ct_store_open(pgt_dsn("ct_rescore"), &x[i], &err) != CT_OK)
			fail_msg("%s", err.msg);
	if (ct_store_open(pgt_dsn("ct_rescore"), &e, &err) != CT_OK)
		fail_msg("%s", err.msg);
	pgt_exec(e, "SET lock_timeout = '20s'");
	struct beside b = {.s = s, .f = &f, .x = x};
	pthread_t th;
	assert_int_equal(pthread_create(&th, NULL, beside_rescore, &b), 0);
	while (!atomic_load(&b.go)) {
		struct timespec t = {0, 1000000};
		nanosleep(&t, NULL);
	}
	const char *p[] = {"/beside/new"};
	pgt_enqueue(e, f.job, p, 1, NULL);
	atomic_store(&b.enqueued, 1);
	char sql[128];
	snprintf(sql, sizeof sql, "SELECT crawltop.set_job_priority(%" PRId64
		 ", 3)", f.job);
	pgt_exec(e, sql);
	atomic_store(&b.moved, 1);
	pthread_join(th, NULL);
	if (b.st != CT_OK)
		fail_msg("rescore: %s", b.err.msg);
	assert_true(b.r.done >= 1000);
	/* both came back while batches were left to run */
	if (!b.done_enqueued || b.done_enqueued >= b.r.done ||
	    !b.done_moved || b.done_moved >= b.r.done)
		fail_msg("the enqueue returned at %zu and the priority change at "
			 "%zu tasks of %zu (0: after the last batch)",
			 b.done_enqueued, b.done_moved, b.r.done);
	for (int i = 0; i < 2; i++)
		ct_store_close(x[i]);
	ct_store_close(e);
}

/* The first stripe to fail stops the others at once: an operator's
 * transaction holds a task of the first stripe's first batch and one of
 * the last's; the last stripe's connection gives up waiting after 1 s,
 * the first's would wait 20 s: the rescore fails with the last stripe's
 * lock timeout, and the first's statement was cancelled then (57014),
 * not left to its own timeout (55P03). */
static void stripes_stop_each_other(void **state)
{
	struct ct_store *s = *state, *x[2], *h;
	struct ct_error err = {{0}};
	struct fixture f;
	make_job(s, &f, "stop", 300);
	for (int i = 0; i < 2; i++)
		if (ct_store_open(pgt_dsn("ct_rescore"), &x[i], &err) != CT_OK)
			fail_msg("%s", err.msg);
	if (ct_store_open(pgt_dsn("ct_rescore"), &h, &err) != CT_OK)
		fail_msg("%s", err.msg);
	const char *pj[] = {num(f.job)};
	pgt_exec(h, "BEGIN");
	char *held = pgt_text(h, "SELECT count(*) FROM (SELECT id FROM "
			      "crawltop.tasks WHERE id IN (SELECT id FROM "
			      "crawltop.tasks WHERE job_id = $1 ORDER BY page_id "
			      "OFFSET 5 LIMIT 1) OR id IN (SELECT id FROM "
			      "crawltop.tasks WHERE job_id = $1 ORDER BY page_id "
			      "OFFSET 205 LIMIT 1) FOR UPDATE) l", 1, pj);
	assert_string_equal(held, "2");
	free(held);
	pgt_exec(s, "SET lock_timeout = '20s'");
	pgt_exec(x[1], "SET lock_timeout = '1s'");
	struct ct_rescore_opts o = opts(&f, 10, NULL);
	o.extra = x;
	o.n_extra = 2;
	o.stripe_min = 100;
	struct ct_rescore_result r;
	assert_int_not_equal(ct_store_job_rescore(s, f.job, &o, &r, &err), CT_OK);
	assert_non_null(strstr(err.msg, "lock timeout"));
	assert_string_equal(ct_store_sqlstate(x[1]), "55P03");
	assert_string_equal(ct_store_sqlstate(s), "57014");
	pgt_exec(h, "ROLLBACK");
	for (int i = 0; i < 2; i++)
		ct_store_close(x[i]);
	ct_store_close(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(modes_switched_and_rescored, fresh, close_store),
		cmocka_unit_test_setup_teardown(cancel_between_batches, fresh, close_store),
		cmocka_unit_test_setup_teardown(stripes_rescore_each_task_once, fresh, close_store),
		cmocka_unit_test_setup_teardown(stripes_leave_room_for_changes, fresh, close_store),
		cmocka_unit_test_setup_teardown(stripes_stop_each_other, fresh, close_store),
		cmocka_unit_test_setup_teardown(settings_change_rescore, fresh, close_store),
		cmocka_unit_test_setup_teardown(adjustments_survive_rescores, fresh, close_store),
		cmocka_unit_test_setup_teardown(duplicate_raise_keeps_adjustment, fresh, close_store),
		cmocka_unit_test_setup_teardown(rescore_beside_worker, fresh, close_store),
		cmocka_unit_test_setup_teardown(bad_input_refused, fresh, close_store),
		cmocka_unit_test_setup_teardown(bad_inputs_refused, fresh, close_store),
		cmocka_unit_test_setup_teardown(rescore_note_cannot_override, fresh, close_store),
		cmocka_unit_test_setup_teardown(no_inputs_read_as_empty, fresh, close_store),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
