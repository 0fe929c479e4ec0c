/* test_ranking.c: seed 003's ranking data on tasks and run_manifest
 * (0006_ranking.sql), and the counters' first count of tasks that exist
 * when 0007 is applied.
 *
 * Tasks that exist before the ranking columns are added become P2 and
 * unranked (the seed's backward compatibility) and are counted, with every
 * other dimension, by the counters 0007 creates; the columns' rules refuse
 * bad values; the seed's two indexes serve their queries;
 * record_run_manifest summarises a ranking run. */
#include <dirent.h>
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
#include "pgtest.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(existing_tasks_become_unranked_p2_and_counted, close_store),
		cmocka_unit_test_setup_teardown(columns_refuse_bad_values, fresh, close_store),
		cmocka_unit_test_setup_teardown(seed_indexes_serve_their_queries, fresh, close_store),
		cmocka_unit_test_setup_teardown(run_manifest_records_a_run, fresh, close_store),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
