/* test_ranking.c: seed 003's ranking data on tasks and run_manifest
 * (0006_ranking.sql), and the counters' first count of tasks that exist
 * when 0007 is applied.
 *
 * Tasks that exist before the ranking columns are added become P2 and
 * unranked (the seed's backward compatibility) and are counted, with every
 * other dimension, by the counters 0007 creates; the columns' rules refuse
 * bad values; the seed's two indexes serve their queries;
 * record_run_manifest summarises a ranking run; successive ranking runs
 * (ct_store_rank) keep seed 003's backoff schedule, and class every
 * task's score with the run's class bounds. */
#include <dirent.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "counts.h"
#include "crawltop/settings.h"
#include "pgtest.h"
#include "rank_ops.h"

static int close_store(void **state)
{
	ct_store_close(*state);
	return 0;
}

static int fresh(void **state)
{
	*state = pgt_fresh("ct_rank", 1);
	return 0;
}

static void enq(struct ct_store *s, int64_t job, const char *const *paths,
		size_t n, const double *scores)
{
	struct ct_enqueue_batch b = CT_ENQUEUE_BATCH_INIT;
	b.job_id = job;
	b.paths = paths;
	b.n = n;
	b.scores = scores;
	b.depth = 1;
	b.type = "article";
	pgt_enqueue_batch(s, &b);
}

/* A directory holding links to migrations 0001..upto of the real one. */
static char *partial_sql_dir(int upto)
{
	static char dir[] = "/tmp/ct-sql-XXXXXX";
	assert_non_null(mkdtemp(dir));
	const char *src = ct_store_sql_dir();
	DIR *d = opendir(src);
	assert_non_null(d);
	struct dirent *e;
	while ((e = readdir(d))) {
		int v = atoi(e->d_name);
		if (v < 1 || v > upto || !strstr(e->d_name, ".sql"))
			continue;
		char from[4096], to[4096];
		snprintf(from, sizeof from, "%s/%s", src, e->d_name);
		snprintf(to, sizeof to, "%s/%s", dir, e->d_name);
		assert_int_equal(symlink(from, to), 0);
	}
	closedir(d);
	return dir;
}

static void remove_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char p[4096];
		snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
		unlink(p);
	}
	if (d)
		closedir(d);
	rmdir(dir);
}

static void existing_tasks_become_unranked_p2_and_counted(void **state)
{
	struct ct_store *s = pgt_fresh("ct_rank_old", 0);
	*state = s;
	struct ct_error err = {{0}};
	struct ct_migrate_result r;
	char *dir = partial_sql_dir(5);
	assert_int_equal(ct_store_migrate(s, dir, &r, &err), CT_OK);
	remove_dir(dir);
	assert_int_equal(r.to_version, 5);

	/* a store in use before ranking and counters existed */
	int64_t a = pgt_job(s, "old", "old.example", 3, "frontier");
	int64_t b = pgt_job(s, "old2", "old2.example", 8, "hierarchy");
	const char *p[] = {"/1", "/2", "/3", "/4", "/5", "/6"};
	const double sc[] = {10, 30, 50, 70, 90, 100};
	enq(s, a, p, 6, sc);
	enq(s, b, p, 3, NULL);
	struct ct_claim k;
	assert_int_equal(ct_store_claim(s, "w", a, 2, 0, &k, &err), CT_OK);
	size_t done;
	assert_int_equal(ct_store_complete(s, "w", &k.tasks[0].id, 1, &done, &err),
			 CT_OK);
	ct_claim_free(&k);

	assert_int_equal(ct_store_migrate(s, NULL, &r, &err), CT_OK);
	assert_true(r.applied >= 4);
	assert_int_equal(pgt_int(s, "SELECT count(*) FROM crawltop.tasks WHERE "
				 "priority_class = 2 AND ranked_at IS NULL AND "
				 "discovery_score IS NULL AND signals IS NULL AND "
				 "next_check_at IS NULL AND backoff_step = 0"), 9);
	/* counted once, in every dimension, from the migration on */
	pgt_assert_counts_exact(s, "after migrating a store with tasks");
	/* a frontier and a hierarchy job: their tasks are never ranked, so
	 * none of them is an "unranked" URL */
	assert_int_equal(pgt_int(s, "SELECT n FROM crawltop.dashboard_cells(NULL) "
				 "WHERE dim = 'rank' AND key = 'unranked'"), 0);
	/* the job in discovery mode: its 4 pending tasks are */
	pgt_exec(s, "UPDATE crawltop.jobs SET prioritization_mode = 'discovery' "
		    "WHERE name = 'old'");
	assert_int_equal(pgt_int(s, "SELECT n FROM crawltop.dashboard_cells(NULL) "
				 "WHERE dim = 'rank' AND key = 'unranked'"), 4);
	assert_int_equal(pgt_int(s, "SELECT n FROM crawltop.dashboard_cells(NULL) "
				 "WHERE dim = 'rank' AND key = 'P2'"), 0);
	pgt_assert_counts_exact(s, "after the mode change");
	enq(s, b, p + 3, 3, NULL);
	pgt_assert_counts_exact(s, "after the next enqueue");
}

static void columns_refuse_bad_values(void **state)
{
	struct ct_store *s = *state;
	struct ct_error err = {{0}};
	int64_t job = pgt_job(s, "cols", "cols.example", 5, "discovery");
	const char *p[] = {"/x"};
	const double sc[] = {42};
	enq(s, job, p, 1, sc);
	static const char *const bad[] = {
		/* ranked without a score, a score without ranked_at */
		"UPDATE crawltop.tasks SET ranked_at = now()",
		"UPDATE crawltop.tasks SET discovery_score = 50",
		"UPDATE crawltop.tasks SET ranked_at = now(), discovery_score = 100.5",
		"UPDATE crawltop.tasks SET ranked_at = now(), discovery_score = 'NaN'",
		"UPDATE crawltop.tasks SET ranked_at = now(), discovery_score = -1",
		"UPDATE crawltop.tasks SET priority_class = 4",
		"UPDATE crawltop.tasks SET priority_class = -1",
		"UPDATE crawltop.tasks SET signals = '[1, 2]'",
		"UPDATE crawltop.tasks SET backoff_step = -1",
		"INSERT INTO crawltop.run_manifest (p0_count) VALUES (1)",
		"INSERT INTO crawltop.run_manifest (avg_score) VALUES (101)",
		"INSERT INTO crawltop.run_manifest (p1_count, score_0_20) VALUES (-1, -1)",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		if (ct_store_exec(s, "ranking", bad[i], &err) != CT_EINVAL)
			fail_msg("accepted: %s", bad[i]);
		assert_string_equal(ct_store_sqlstate(s), "23514");
	}
	pgt_exec(s, "UPDATE crawltop.tasks SET ranked_at = now(), discovery_score = "
		 "81.5, priority_class = 0, signals = '{\"host_novelty\": 0.7}', "
		 "next_check_at = now() + interval '6 h', backoff_step = 1");
	pgt_assert_counts_exact(s, "after ranking");
	assert_int_equal(pgt_int(s, "SELECT n FROM crawltop.dashboard_cells(NULL) "
				 "WHERE dim = 'rank' AND key = 'P0'"), 1);
}

static void seed_indexes_serve_their_queries(void **state)
{
	struct ct_store *s = *state;
	int64_t job = pgt_job(s, "idx", "idx.example", 5, "discovery");
	static char names[500][16];
	const char *p[500];
	double sc[500];
	for (int i = 0; i < 500; i++) {
		snprintf(names[i], sizeof names[i], "/%d", i);
		p[i] = names[i];
		sc[i] = (i * 37) % 101;
	}
	enq(s, job, p, 500, sc);
	pgt_exec(s, "UPDATE crawltop.tasks SET ranked_at = now(), discovery_score "
		 "= score, priority_class = class, next_check_at = CASE WHEN "
		 "class >= 2 THEN now() + (id % 48) * interval '1 h' END "
		 "WHERE id % 2 = 0");
	pgt_exec(s, "ANALYZE crawltop.tasks");
	pgt_exec(s, "SET enable_seqscan = off");
	char *plan = pgt_text(s, "EXPLAIN (FORMAT JSON) SELECT id FROM crawltop.tasks "
			      "WHERE ranked_at IS NOT NULL AND priority_class <= 1 ORDER BY "
			      "priority_class, created_at LIMIT 20", 0, NULL);
	if (!strstr(plan, "tasks_priority_class"))
		fail_msg("P0/P1 listing does not use tasks_priority_class: %s", plan);
	free(plan);
	plan = pgt_text(s, "EXPLAIN (FORMAT JSON) SELECT id FROM crawltop.tasks "
			"WHERE next_check_at <= now() + interval '3 h' ORDER BY "
			"next_check_at LIMIT 20", 0, NULL);
	if (!strstr(plan, "tasks_next_check"))
		fail_msg("due rechecks do not use tasks_next_check: %s", plan);
	free(plan);
	pgt_exec(s, "RESET enable_seqscan");
	/* the indexes hold only what they serve */
	assert_int_equal(pgt_int(s, "SELECT count(*) FROM pg_indexes WHERE "
				 "indexname IN ('tasks_priority_class', "
				 "'tasks_next_check') AND indexdef LIKE '%WHERE%'"), 2);
}

static void run_manifest_records_a_run(void **state)
{
	struct ct_store *s = *state;
	struct ct_error err = {{0}};
	int64_t job = pgt_job(s, "run", "run.example", 5, "discovery");
	const char *p[] = {"/a", "/b", "/c", "/d", "/e", "/f", "/g"};
	const double sc[] = {5, 25, 45, 65, 85, 100, 60};
	enq(s, job, p, 7, sc);
	char *t0 = pgt_text(s, "SELECT now()", 0, NULL);
	/* a ranking run: six of seven tasks ranked (class from the score) */
	pgt_exec(s, "UPDATE crawltop.tasks SET ranked_at = clock_timestamp(), "
		 "discovery_score = score, priority_class = class "
		 "WHERE score <> 60");
	const char *params[] = {"1", t0};
	char *id = pgt_text(s, "SELECT crawltop.record_run_manifest($1::bigint, "
			    "$2::timestamptz, 'nightly', 1)", 2, params);
	assert_string_equal(id, "1");
	free(id);
	char *row = pgt_text(s, "SELECT concat_ws(' ', job_id, p0_count, p1_count, "
			     "p2_count, p3_count, unranked_count, round(avg_score::numeric, 4), "
			     "score_0_20, score_20_40, score_40_60, score_60_80, "
			     "score_80_100, settings_version, note) "
			     "FROM crawltop.run_manifest", 0, NULL);
	/* P0: 85, 100; P1: 65; P2: 45; P3: 5, 25; avg 54.1667 */
	assert_string_equal(row, "1 2 1 1 2 1 54.1667 1 1 1 1 2 1 nightly");
	free(row);
	/* the version is what the caller says its run used, not the newest
	 * (it recorded max(version) whatever the run had used) */
	pgt_exec(s, "SELECT crawltop.settings_put(value || '{\"default_priority\": 4}', "
		 "version, 'settings.update', 'v2') FROM crawltop.settings "
		 "ORDER BY version DESC LIMIT 1");
	pgt_exec(s, "SELECT crawltop.record_run_manifest(NULL, now(), 'file')");
	assert_int_equal(pgt_int(s, "SELECT count(*) FROM crawltop.run_manifest "
				 "WHERE note = 'file' AND settings_version IS NULL"), 1);
	assert_int_equal(ct_store_exec(s, "manifest", "SELECT crawltop."
				       "record_run_manifest(1, now(), 'x', 99)", &err),
			 CT_ENOENT);
	assert_non_null(strstr(err.msg, "settings version 99 does not exist"));
	/* all jobs; nothing ranked since now: zero counts, avg 0 */
	pgt_exec(s, "SELECT crawltop.record_run_manifest(NULL, now() + interval '1 s')");
	assert_int_equal(pgt_int(s, "SELECT p0_count + p1_count + p2_count + "
				 "p3_count + avg_score FROM crawltop.run_manifest "
				 "WHERE note IS NULL"), 0);
	assert_int_equal(pgt_int(s, "SELECT unranked_count FROM "
				 "crawltop.run_manifest WHERE note IS NULL"), 1);
	assert_int_equal(ct_store_exec(s, "manifest", "SELECT crawltop."
				       "record_run_manifest(99, now())", &err),
			 CT_ENOENT);
	assert_non_null(strstr(err.msg, "job 99 does not exist"));
	assert_int_equal(ct_store_exec(s, "manifest", "SELECT crawltop."
				       "record_run_manifest(1, NULL)", &err),
			 CT_EINVAL);
	assert_non_null(strstr(err.msg, "run start is NULL"));
	free(t0);
}

/* ---- the backoff schedule over successive ranking runs ------------------ */

/* One ranking run of job with the default settings (backoff 6/2/48). */
static void rank_run(struct ct_store *s, int64_t job)
{
	struct ct_settings set;
	ct_settings_default(&set);
	struct ct_rank_opts o = {.settings = &set, .job_id = job};
	struct ct_rank_result res;
	struct ct_error err = {{0}};
	if (ct_store_rank(s, &o, &res, &err) != CT_OK)
		fail_msg("rank: %s", err.msg);
}

/* "path=<expr>" of every task t of job, by path (pages p). */
static char *per_path(struct ct_store *s, int64_t job, const char *expr)
{
	char id[24], sql[1024];
	snprintf(id, sizeof id, "%lld", (long long)job);
	snprintf(sql, sizeof sql, "SELECT string_agg(p.path || '=' || %s, ' ' "
		 "ORDER BY p.path) FROM crawltop.tasks t JOIN crawltop.pages p "
		 "ON p.id = t.page_id WHERE t.job_id = $1::bigint", expr);
	const char *p[] = {id};
	return pgt_text(s, sql, 1, p);
}

/* "class/step/wait" of every task of job by path: the wait in hours from
 * the run that set next_check_at ('-' when there is none), e.g.
 * "/p0=0/0/- /p2=2/1/12". */
static char *backoff_of(struct ct_store *s, int64_t job)
{
	return per_path(s, job, "t.priority_class || '/' || t.backoff_step || "
			"'/' || coalesce(round(extract(epoch FROM t.next_check_at "
			"- t.ranked_at) / 3600)::text, '-')");
}

static void assert_backoff(struct ct_store *s, int64_t job, const char *want,
			   const char *when)
{
	char *got = backoff_of(s, job);
	if (strcmp(got, want) != 0)
		fail_msg("%s:\n  got  %s\n  want %s", when, got, want);
	free(got);
}

/* Every check of the job's tasks made due (a recheck time in the past). */
static void make_due(struct ct_store *s)
{
	pgt_exec(s, "UPDATE crawltop.tasks SET next_check_at = now() - "
		 "interval '1 minute' WHERE next_check_at IS NOT NULL");
}

/* The check of the task of one path made due. */
static void make_due_path(struct ct_store *s, const char *path)
{
	const char *p[] = {path};
	char *n = pgt_text(s, "WITH d AS (UPDATE crawltop.tasks t SET "
			   "next_check_at = now() - interval '1 minute' FROM "
			   "crawltop.pages p WHERE p.id = t.page_id AND p.path "
			   "= $1 RETURNING 1) SELECT count(*) FROM d", 1, p);
	assert_string_equal(n, "1");
	free(n);
}

/* Set the score inputs of one path of job to the JSON object json. */
static void set_inputs(struct ct_store *s, int64_t job, const char *path,
		       const char *json)
{
	char id[24];
	snprintf(id, sizeof id, "%lld", (long long)job);
	const char *p[] = {id, path, json};
	char *n = pgt_text(s, "SELECT crawltop.set_score_inputs($1::bigint, "
			   "ARRAY[$2], ARRAY[$3::jsonb])", 3, p);
	assert_string_equal(n, "1");
	free(n);
}

/* Every sub-score x (score 100 x). */
static void set_subs(struct ct_store *s, int64_t job, const char *path,
		     const char *x)
{
	char json[512];
	snprintf(json, sizeof json, "{\"subscores\": {\"unseen_likelihood\": %s, "
		 "\"host_novelty\": %s, \"content_readiness\": %s, "
		 "\"link_yield\": %s, \"source_reliability\": %s, "
		 "\"freshness\": %s, \"quality_safety\": %s, "
		 "\"topic_boost\": %s}}", x, x, x, x, x, x, x, x);
	set_inputs(s, job, path, json);
}

/* Raw signals with these NS and ASN change counts: a P3 score (about 31)
 * that one more change moves by less than a class. */
static void set_sig(struct ct_store *s, int64_t job, int ns, int asn)
{
	char json[512];
	snprintf(json, sizeof json, "{\"signals\": {\"ct_age_hours\": 100, "
		 "\"source\": \"ct\", \"age_hours\": 100, \"parking_score\": 0, "
		 "\"whois_age_days\": 400, \"backlinks\": 10, "
		 "\"ns_changes\": %d, \"asn_changes\": %d}}", ns, asn);
	set_inputs(s, job, "/sig", json);
}

static char *next_checks(struct ct_store *s)
{
	return pgt_text(s, "SELECT string_agg(coalesce(next_check_at::text, '-'), "
			"' ' ORDER BY id) FROM crawltop.tasks", 0, NULL);
}

/* Seed 003: backoff counted from step 0 at classification; each recheck
 * (a run once the check is due) that finds the same result advances one
 * step (P2 6, 12, 24, 48 h; P3 twice that); a run before the check is due
 * keeps the step and the check; an NS or ASN change, or a new class,
 * resets to step 0; P0 and P1 have no check. Before the fix every run
 * wrote step 0's wait from now, whatever had happened. */
static void backoff_follows_the_rechecks(void **state)
{
	struct ct_store *s = *state;
	int64_t job = pgt_job(s, "bo", "bo.example", 5, "discovery");
	const char *p[] = {"/p0", "/p1", "/p2", "/p3", "/sig"};
	const double sc[] = {40, 40, 40, 40, 40};
	enq(s, job, p, 5, sc);
	set_subs(s, job, "/p0", "0.9");
	set_subs(s, job, "/p1", "0.7");
	set_subs(s, job, "/p2", "0.5");
	set_subs(s, job, "/p3", "0.2");
	set_sig(s, job, 0, 0);
	/* a stale step on a task never ranked: classification starts at 0 */
	pgt_exec(s, "UPDATE crawltop.tasks SET backoff_step = 2");

	rank_run(s, job);
	assert_backoff(s, job, "/p0=0/0/- /p1=1/0/- /p2=2/0/6 /p3=3/0/12 "
		       "/sig=3/0/12", "first classification");
	/* the raw signals' NS + ASN changes are recorded; sub-scores have none */
	assert_int_equal(pgt_int(s, "SELECT count(*) FROM crawltop.tasks WHERE "
				 "signals ? 'ns_asn_changes'"), 1);
	assert_int_equal(pgt_int(s, "SELECT (signals->>'ns_asn_changes')::int "
				 "FROM crawltop.tasks WHERE signals->>'from' = "
				 "'signals'"), 0);

	make_due(s);
	rank_run(s, job);
	assert_backoff(s, job, "/p0=0/0/- /p1=1/0/- /p2=2/1/12 /p3=3/1/24 "
		       "/sig=3/1/24", "second run, due, no change");
	make_due(s);
	rank_run(s, job);
	assert_backoff(s, job, "/p0=0/0/- /p1=1/0/- /p2=2/2/24 /p3=3/2/48 "
		       "/sig=3/2/48", "third run, due, no change");
	make_due(s);
	rank_run(s, job);
	assert_backoff(s, job, "/p0=0/0/- /p1=1/0/- /p2=2/3/48 /p3=3/3/96 "
		       "/sig=3/3/96", "fourth run, due, no change");

	/* a run before the check is due is no recheck: step and check kept,
	 * the score written again */
	char *before = next_checks(s);
	char *ranked = pgt_text(s, "SELECT max(ranked_at)::text FROM "
				"crawltop.tasks", 0, NULL);
	rank_run(s, job);
	char *after = next_checks(s);
	assert_string_equal(after, before);
	assert_int_equal(pgt_int(s, "SELECT string_agg(backoff_step::text, '' "
				 "ORDER BY id)::bigint FROM crawltop.tasks"), 333);
	const char *rp[] = {ranked};
	char *newer = pgt_text(s, "SELECT bool_and(ranked_at > $1::timestamptz) "
			       "FROM crawltop.tasks", 1, rp);
	assert_string_equal(newer, "t");
	free(newer);
	free(ranked);
	free(before);
	free(after);

	/* an NS change, before the check is due: back to step 0 at once */
	set_sig(s, job, 1, 0);
	rank_run(s, job);
	assert_backoff(s, job, "/p0=0/0/- /p1=1/0/- /p2=2/3/48 /p3=3/3/96 "
		       "/sig=3/0/12", "NS change");
	assert_int_equal(pgt_int(s, "SELECT (signals->>'ns_asn_changes')::int "
				 "FROM crawltop.tasks WHERE signals->>'from' = "
				 "'signals'"), 1);
	/* the same sum (one ASN change instead of the NS one, the same
	 * sub-scores): no change, so a due recheck advances */
	set_sig(s, job, 0, 1);
	make_due_path(s, "/sig");
	rank_run(s, job);
	char *sig = backoff_of(s, job);
	assert_non_null(strstr(sig, "/sig=3/1/24"));
	free(sig);
	/* an ASN change: step 0 */
	set_sig(s, job, 0, 2);
	rank_run(s, job);
	sig = backoff_of(s, job);
	assert_non_null(strstr(sig, "/sig=3/0/12"));
	free(sig);

	/* a changed result in the same class, due: the step stays */
	set_subs(s, job, "/p3", "0.25");
	/* a new class, not due: step 0 */
	set_subs(s, job, "/p2", "0.3");
	make_due_path(s, "/p3");
	rank_run(s, job);
	assert_backoff(s, job, "/p0=0/0/- /p1=1/0/- /p2=3/0/12 /p3=3/3/96 "
		       "/sig=3/0/12", "changed result; class change");
	/* into P1 and back: no check while P1, step 0 again in P3 */
	set_subs(s, job, "/p3", "0.65");
	rank_run(s, job);
	assert_backoff(s, job, "/p0=0/0/- /p1=1/0/- /p2=3/0/12 /p3=1/0/- "
		       "/sig=3/0/12", "P3 to P1");
	set_subs(s, job, "/p3", "0.25");
	rank_run(s, job);
	assert_backoff(s, job, "/p0=0/0/- /p1=1/0/- /p2=3/0/12 /p3=3/0/12 "
		       "/sig=3/0/12", "P1 to P3");

	/* the comparison is exact whatever the session prints floats with:
	 * the raw signals' sub-scores (thirds, logarithms) need 17 digits,
	 * and with 15 the stored ones differed from the new ones, so a
	 * recheck never found "no change" */
	pgt_exec(s, "SET extra_float_digits = 0");
	for (int i = 1; i <= 2; i++) {
		make_due_path(s, "/sig");
		rank_run(s, job);
		char want[32];
		snprintf(want, sizeof want, "/sig=3/%d/%d", i, 12 << i);
		sig = backoff_of(s, job);
		if (!strstr(sig, want))
			fail_msg("extra_float_digits 0, recheck %d: %s", i, sig);
		free(sig);
	}
	pgt_exec(s, "RESET extra_float_digits");
}

/* "path=score/class/priority_class" of every task of job, by path. */
static char *classes_of(struct ct_store *s, int64_t job)
{
	return per_path(s, job, "t.score || '/' || t.class || '/' || "
			"t.priority_class");
}

/* SPEC.md: one class per score. A run with its own bounds (P0 62, P1 50,
 * P2 30; the store keeps 80/60/40) classes every task's derived score with
 * them, boosted, demoted or neither: rank_apply classed an adjusted task
 * with the store's bounds, so /b (60 + 5 = 65) was P1 beside /c (65, no
 * points) in P0, and /d (70 - 20 = 50) P2 where the run says P1. */
static void rank_classes_every_score_with_the_runs_bounds(void **state)
{
	struct ct_store *s = *state;
	int64_t job = pgt_job(s, "rb", "rb.example", 5, "discovery");
	const char *p[] = {"/b", "/c", "/d", "/e"};
	const double sc[] = {40, 40, 40, 40};
	enq(s, job, p, 4, sc);
	set_subs(s, job, "/b", "0.6");
	set_subs(s, job, "/c", "0.65");
	set_subs(s, job, "/d", "0.7");
	set_subs(s, job, "/e", "0.45");
	char q[256];
	snprintf(q, sizeof q, "SELECT crawltop.adjust_scores(%lld, '/b', 5), "
		 "crawltop.adjust_scores(%lld, '/d', -20)", (long long)job,
		 (long long)job);
	pgt_exec(s, q);

	struct ct_settings set;
	ct_settings_default(&set);
	set.classes = (struct ct_class_bounds){62, 50, 30};
	struct ct_rank_opts o = {.settings = &set, .job_id = job};
	struct ct_rank_result res;
	struct ct_error err = {{0}};
	if (ct_store_rank(s, &o, &res, &err) != CT_OK)
		fail_msg("rank: %s", err.msg);
	char *got = classes_of(s, job);
	assert_string_equal(got, "/b=65/0/1 /c=65/0/0 /d=50/1/0 /e=45/2/2");
	free(got);
	/* the store's bounds again: 65 is P1 for both */
	rank_run(s, job);
	got = classes_of(s, job);
	assert_string_equal(got, "/b=65/1/1 /c=65/1/1 /d=50/2/1 /e=45/2/2");
	free(got);

	/* rank_apply itself refuses bounds no run could have */
	static const char *const bad[] = {"80, 80, 40", "101, 60, 40",
					  "80, 60, -1", "'NaN', 60, 40",
					  "NULL, 60, 40"};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		char sql[512];
		snprintf(sql, sizeof sql, "SELECT crawltop.rank_apply('{}', '{}', "
			 "'{}', '{}', '{}', '{}', '{}', '{}', '{}', '{}', '{}', "
			 "'{}', '{}', '{}', '{}', '{}', 0, 0, %s)", bad[i]);
		assert_int_equal(ct_store_exec(s, "rank_apply", sql, &err),
				 CT_EINVAL);
		if (!strstr(err.msg, "strictly decreasing"))
			fail_msg("bounds %s: %s", bad[i], err.msg);
	}
}

/* A sub-score out of 0..1 that reached a task's inputs past
 * set_score_inputs (the owner's own UPDATE) stops the run with the task
 * and the engine's reason, both in the message (the message was written
 * over itself before: vsnprintf from err->msg into err->msg). */
static void rank_names_a_bad_stored_subscore(void **state)
{
	struct ct_store *s = *state;
	int64_t job = pgt_job(s, "rx", "rx.example", 5, "discovery");
	const char *p[] = {"/x"};
	const double sc[] = {40};
	enq(s, job, p, 1, sc);
	set_subs(s, job, "/x", "0.5");
	pgt_exec(s, "UPDATE crawltop.tasks SET score_inputs = jsonb_set("
		 "score_inputs, '{subscores,host_novelty}', '1.5')");
	long long id = pgt_int(s, "SELECT id FROM crawltop.tasks");
	struct ct_settings set;
	ct_settings_default(&set);
	struct ct_rank_opts o = {.settings = &set, .job_id = job};
	struct ct_rank_result res;
	struct ct_error err = {{0}};
	assert_int_equal(ct_store_rank(s, &o, &res, &err), CT_ERANGE);
	char want[128];
	snprintf(want, sizeof want, "rank: task %lld: sub-score host_novelty = 1.5: "
		 "must be a number in 0..1", id);
	assert_string_equal(err.msg, want);
}

/* A ranking batch locks unfinished tasks of discovery jobs only, the
 * tasks rank_apply may write: a batch held open (by an operator, say)
 * that names a fifo job locks none of its tasks, so that job's workers
 * claim and complete as if it were not there. */
static void rank_lock_takes_discovery_tasks_only(void **state)
{
	struct ct_store *s = *state, *o;
	struct ct_error err = {{0}};
	int64_t fifo = pgt_job(s, "rlf", "rlf.example", 5, "fifo");
	int64_t disc = pgt_job(s, "rld", "rld.example", 5, "discovery");
	const char *p[] = {"/a", "/b", "/c"};
	pgt_enqueue(s, fifo, p, 3, NULL);
	double sc[] = {40, 40, 40};
	pgt_enqueue(s, disc, p, 3, sc);
	if (ct_store_open(pgt_dsn("ct_rank"), &o, &err) != CT_OK)
		fail_msg("%s", err.msg);
	pgt_exec(o, "BEGIN");
	char sql[200];
	snprintf(sql, sizeof sql, "SELECT count(*) FROM crawltop.rank_lock(ARRAY[%"
		 PRId64 ", %" PRId64 "], 0, 9000000000000000000, 100000)",
		 fifo, disc);
	assert_int_equal(pgt_int(o, sql), 3);
	pgt_exec(s, "SET lock_timeout = '1s'");
	struct ct_claim k;
	if (ct_store_claim(s, "rlw", fifo, 3, 0, &k, &err) != CT_OK)
		fail_msg("claim beside an open ranking batch: %s", err.msg);
	assert_int_equal(k.n, 3);
	int64_t ids[3] = {k.tasks[0].id, k.tasks[1].id, k.tasks[2].id};
	ct_claim_free(&k);
	size_t done;
	if (ct_store_complete(s, "rlw", ids, 3, &done, &err) != CT_OK)
		fail_msg("complete beside an open ranking batch: %s", err.msg);
	assert_int_equal(done, 3);
	/* the discovery job's tasks are the batch's until it ends */
	assert_int_equal(ct_store_claim(s, "rlw", disc, 1, 0, &k, &err), CT_OK);
	assert_int_equal(k.n, 0);
	ct_claim_free(&k);
	pgt_exec(o, "COMMIT");
	pgt_exec(s, "RESET lock_timeout");
	k = pgt_claim(s, "rlw", disc, 3, 0);
	assert_int_equal(k.n, 3);
	ct_claim_free(&k);
	ct_store_close(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(existing_tasks_become_unranked_p2_and_counted, close_store),
		cmocka_unit_test_setup_teardown(columns_refuse_bad_values, fresh, close_store),
		cmocka_unit_test_setup_teardown(seed_indexes_serve_their_queries, fresh, close_store),
		cmocka_unit_test_setup_teardown(run_manifest_records_a_run, fresh, close_store),
		cmocka_unit_test_setup_teardown(backoff_follows_the_rechecks, fresh, close_store),
		cmocka_unit_test_setup_teardown(rank_classes_every_score_with_the_runs_bounds, fresh, close_store),
		cmocka_unit_test_setup_teardown(rank_lock_takes_discovery_tasks_only, fresh, close_store),
		cmocka_unit_test_setup_teardown(rank_names_a_bad_stored_subscore, fresh, close_store),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
