/* test_settings_store.c: the settings the console edits, against a
 * throwaway PostgreSQL (pg-cluster.sh): the version 0011 writes holds every
 * tunable at its built-in default (so the migration's document and
 * ct_settings_default() agree); a new version is one audited transaction,
 * refused when its base is stale or it changes nothing; the preview scores
 * exactly what a rescore then writes, in every mode, and samples a large
 * job without missing its head. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pgtest.h"
#include "settings_json.h"
#include "settings_store.h"

static int fresh(void **state)
{
	*state = pgt_fresh("ct_settings", 1);
	return 0;
}

static int close_store(void **state)
{
	ct_store_close(*state);
	return 0;
}

static const char *num(long long v)
{
	static char b[4][24];
	static int i;
	i = (i + 1) % 4;
	snprintf(b[i], sizeof b[i], "%lld", v);
	return b[i];
}

/* The migrated current version: every key, at the engine's defaults. */
static void migrated_version_is_the_defaults(void **state)
{
	struct ct_store *s = *state;
	struct ct_settings_row row;
	struct ct_settings d, r;
	struct ct_error err;
	assert_int_equal(ct_store_settings_get(s, 0, &row, &err), CT_OK);
	assert_int_equal(row.version, 3);
	assert_non_null(strstr(row.note, "0011_settings_console.sql"));
	assert_non_null(strstr(row.value, "\"store\""));
	ct_settings_default(&d);
	assert_int_equal(ct_settings_from_json(row.value, row.version, &r, &err),
			 CT_OK);
	char *want = ct_settings_to_json(&d, row.value, &err);
	char *got = ct_settings_to_json(&r, row.value, &err);
	assert_string_equal(got, want);
	/* and spelled out: the stored document names every key itself */
	char *t = pgt_text(s, "SELECT (SELECT value FROM crawltop.settings WHERE "
			   "version = 3) @> $1::jsonb", 1,
			   (const char *const[]){want});
	assert_string_equal(t, "t");
	free(t);
	free(want);
	free(got);
	ct_settings_row_free(&row);
	assert_int_equal(ct_store_settings_get(s, 99, &row, &err), CT_ENOENT);
}

/* settings_put: audited, refused when stale or empty. */
static void put_is_audited_and_checked(void **state)
{
	struct ct_store *s = *state;
	struct ct_settings_row row;
	struct ct_settings set;
	struct ct_error err;
	int v = 0;
	long changed = 0;
	assert_int_equal(ct_store_settings_get(s, 0, &row, &err), CT_OK);
	assert_int_equal(ct_settings_from_json(row.value, 3, &set, &err), CT_OK);
	set.classes.p1 = 55;
	set.hierarchy.decay = 0.75;
	char *json = ct_settings_to_json(&set, row.value, &err);

	/* the current version is 3: a change based on 2 is stale */
	assert_int_equal(ct_store_settings_put(s, json, 2, "settings.update",
					       NULL, &v, &changed, &err), CT_EINVAL);
	assert_string_equal(ct_store_sqlstate(s), "55000");
	assert_non_null(strstr(err.msg, "settings version 3 is current, not 2"));
	/* nothing to change */
	assert_int_equal(ct_store_settings_put(s, row.value, 3, "settings.update",
					       NULL, &v, &changed, &err), CT_EINVAL);
	assert_non_null(strstr(err.msg, "nothing to change"));
	assert_int_equal(ct_store_settings_put(s, json, 3, "settings.bogus",
					       NULL, &v, &changed, &err), CT_EINVAL);
	assert_int_equal(pgt_int(s, "SELECT max(version) FROM crawltop.settings"), 3);
	assert_int_equal(pgt_int(s, "SELECT count(*) FROM crawltop.audit_log"), 0);

	assert_int_equal(ct_store_settings_put(s, json, 3, "settings.update",
					       "test", &v, &changed, &err), CT_OK);
	assert_int_equal(v, 4);
	assert_int_equal(changed, 2);
	char *t = pgt_text(s, "SELECT before::text || ' ' || after::text || ' ' || "
			   "rows_affected FROM crawltop.audit_log WHERE action = "
			   "'settings.update'", 0, NULL);
	assert_string_equal(t, "{\"version\": 3, \"classes.p1\": 60, "
			    "\"hierarchy.decay\": 0.8} {\"version\": 4, "
			    "\"classes.p1\": 55, \"hierarchy.decay\": 0.75} 2");
	free(t);
	/* the store's own keys came along */
	assert_int_equal(pgt_int(s, "SELECT (value->'store'->>'lease_seconds')::int "
				 "FROM crawltop.settings WHERE version = 4"), 30);
	struct ct_settings_row r4;
	assert_int_equal(ct_store_settings_get(s, 4, &r4, &err), CT_OK);
	assert_string_equal(r4.note, "test");
	struct ct_settings back;
	assert_int_equal(ct_settings_from_json(r4.value, 4, &back, &err), CT_OK);
	assert_true(back.classes.p1 == 55 && back.hierarchy.decay == 0.75);
	ct_settings_row_free(&r4);

	/* undo: version 3's document again, as version 5 */
	assert_int_equal(ct_store_settings_put(s, row.value, 4, "settings.undo",
					       NULL, &v, &changed, &err), CT_OK);
	assert_int_equal(v, 5);
	assert_int_equal(pgt_int(s, "SELECT count(*) FROM crawltop.settings a, "
				 "crawltop.settings b WHERE a.version = 3 AND "
				 "b.version = 5 AND a.value = b.value"), 1);
	assert_int_equal(pgt_int(s, "SELECT count(*) FROM crawltop.audit_log "
				 "WHERE action = 'settings.undo'"), 1);
	free(json);
	ct_settings_row_free(&row);
}

/* 60 tasks of one job with varied engine inputs (the shapes 0005 keeps). */
static int64_t varied_job(struct ct_store *s, const char *name, const char *mode)
{
	static const char *const in[6] = {
		"{\"bias\": 3}",
		"{\"subscores\": {\"unseen_likelihood\": 0.9, \"host_novelty\": 0.8, "
		"\"content_readiness\": 0.7, \"link_yield\": 0.9, "
		"\"source_reliability\": 0.6, \"freshness\": 0.5, "
		"\"quality_safety\": 0.9, \"topic_boost\": 0.4}, "
		"\"lastVisited\": 1000000000000, \"topicRelevance\": 0.9}",
		"{\"gap\": {\"confidence\": 1, \"lift\": 0.5}, \"signals\": "
		"{\"ct_age_hours\": 2, \"first_seen_host\": true, \"source\": \"ct\"}}",
		NULL,
		"{\"clusterOccurrences\": 64, \"meta\": {\"knowledgeReuse\": 0.5}, "
		"\"isHub\": true, \"hubDepth\": 5}",
		"{\"subscores\": {\"unseen_likelihood\": 0.2, \"host_novelty\": 0.1, "
		"\"content_readiness\": 0.3, \"link_yield\": 0.2, "
		"\"source_reliability\": 0.2, \"freshness\": 0.1, "
		"\"quality_safety\": 0.2, \"topic_boost\": 0.1}}",
	};
	static const char *const types[3] = {"article", "nav", "refresh"};
	char dom[64];
	snprintf(dom, sizeof dom, "%s.example", name);
	int64_t job = pgt_job(s, name, dom, 5, mode);
	for (int ty = 0; ty < 3; ty++) {
		static char names[20][24];
		const char *paths[20], *inputs[20];
		double scores[20];
		for (int i = 0; i < 20; i++) {
			snprintf(names[i], sizeof names[i], "/%s/%02d", types[ty], i);
			paths[i] = names[i];
			inputs[i] = in[(i + ty) % 6];
			scores[i] = 50;
		}
		struct ct_enqueue_batch b = CT_ENQUEUE_BATCH_INIT;
		struct ct_enqueue_result r;
		struct ct_error err;
		b.job_id = job;
		b.paths = paths;
		b.n = 20;
		int scored = strcmp(mode, "fifo") && strcmp(mode, "hierarchy");
		b.scores = scored ? scores : NULL;
		b.inputs = inputs;
		b.depth = ty;
		b.type = types[ty];
		b.discovery_method = ty == 1 ? "sitemap" : "link";
		b.source = ty == 1 ? CT_SRC_SITEMAP : CT_SRC_LINK;
		if (ct_store_enqueue(s, &b, &r, &err) != CT_OK)
			fail_msg("%s", err.msg);
	}
	return job;
}

/* Pending tasks of job per class, after the fact. */
static void classes_of(struct ct_store *s, int64_t job, long long out[4])
{
	for (int c = 0; c < 4; c++) {
		char sql[200];
		snprintf(sql, sizeof sql, "SELECT count(*) FROM crawltop.tasks "
			 "WHERE job_id = %lld AND status = 'pending' AND class = %d",
			 (long long)job, c);
		out[c] = pgt_int(s, sql);
	}
}

/* In every mode, the preview's "after" is what the rescore writes,
 * operators' boosts and demotions included (they are kept), and its next
 * up names each task's path. */
static void preview_is_what_the_rescore_writes(void **state)
{
	struct ct_store *s = *state;
	static const char *const modes[] = {"frontier", "discovery", "freshness",
					    "hierarchy", "fifo"};
	for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
		char name[32];
		snprintf(name, sizeof name, "pv-%s", modes[m]);
		int64_t job = varied_job(s, name, modes[m]);
		struct ct_settings set;
		struct ct_error err;
		ct_settings_default(&set);
		set.classes = (struct ct_class_bounds){70, 45, 20};
		assert_int_equal(ct_frontier_set_type(&set.frontier, "nav", 1), CT_OK);
		set.discovery.weights[0] = 0.18;
		set.discovery.weights[1] = 0.30;
		set.freshness.hub = 25;
		struct ct_preview p;
		struct ct_preview_opts o = {.settings = &set, .now_ms = 1000432000000LL};
		long rows;
		assert_int_equal(ct_store_adjust_scores(s, job, "/nav/", 25, &rows,
							&err), CT_OK);
		assert_int_equal(ct_store_adjust_scores(s, job, "/refresh/0", -30,
							&rows, &err), CT_OK);
		long long before[4];
		classes_of(s, job, before);
		if (ct_store_preview(s, job, &o, &p, &err) != CT_OK)
			fail_msg("%s: %s", modes[m], err.msg);
		assert_string_equal(p.mode, modes[m]);
		assert_int_equal(p.pending, 60);
		assert_int_equal(p.sampled, 60);
		assert_int_equal(p.adjusted, 30);
		for (int c = 0; c < 4; c++)
			assert_int_equal(p.before[c], before[c]);
		/* nothing written */
		long long still[4];
		classes_of(s, job, still);
		assert_memory_equal(still, before, sizeof before);

		struct ct_rescore_opts ro = {.settings = &set,
					     .now_ms = 1000432000000LL};
		struct ct_rescore_result rr;
		if (ct_store_job_rescore(s, job, &ro, &rr, &err) != CT_OK)
			fail_msg("%s: %s", modes[m], err.msg);
		long long after[4];
		classes_of(s, job, after);
		for (int c = 0; c < 4; c++)
			if (after[c] != p.after[c])
				fail_msg("%s: P%d preview %lld, rescore %lld",
					 modes[m], c, p.after[c], after[c]);
		assert_int_equal(p.changed, rr.changed);
		/* the preview's next up is the claim order after the rescore */
		char *t = pgt_text(s, "SELECT string_agg(id::text, ',') FROM (SELECT "
				   "id FROM crawltop.tasks WHERE job_id = $1 AND status "
				   "= 'pending' ORDER BY score DESC, created_at, id "
				   "LIMIT 8) x", 1, (const char *const[]){num(job)});
		char want[256] = "";
		for (int i = 0; i < p.n_next; i++)
			snprintf(want + strlen(want), sizeof want - strlen(want),
				 "%s%lld", i ? "," : "", (long long)p.next_after[i].id);
		assert_string_equal(t, want);
		free(t);
		t = pgt_text(s, "SELECT string_agg(p.path, ',' ORDER BY t.score "
			     "DESC, t.created_at, t.id) FROM (SELECT id, page_id, "
			     "score, created_at FROM crawltop.tasks WHERE job_id = $1 "
			     "AND status = 'pending' ORDER BY score DESC, created_at, "
			     "id LIMIT 8) t JOIN crawltop.pages p ON p.id = t.page_id",
			     1, (const char *const[]){num(job)});
		want[0] = '\0';
		for (int i = 0; i < p.n_next; i++) {
			char sql[120];
			snprintf(want + strlen(want), sizeof want - strlen(want),
				 "%s%s", i ? "," : "", p.next_after[i].path);
			snprintf(sql, sizeof sql, "SELECT score FROM crawltop.tasks "
				 "WHERE id = %lld", (long long)p.next_after[i].id);
			if (pgt_double(s, sql) != p.next_after[i].score)
				fail_msg("%s: %s scores %.17g, preview %.17g", modes[m],
					 p.next_after[i].path, pgt_double(s, sql),
					 p.next_after[i].score);
		}
		assert_string_equal(t, want);
		free(t);
	}
}

/* A job larger than the sample: a sample of about that size that holds
 * the job's head (its first tasks in claim order). */
static void preview_samples_a_large_job(void **state)
{
	struct ct_store *s = *state;
	int64_t job = varied_job(s, "pv-sample", "frontier");
	struct ct_settings set;
	struct ct_error err;
	ct_settings_default(&set);
	pgt_exec(s, "UPDATE crawltop.tasks SET score = 99, base_score = 99, "
		 "class = 0 WHERE id = "
		 "(SELECT max(id) FROM crawltop.tasks)");
	struct ct_preview p;
	struct ct_preview_opts o = {.settings = &set, .sample = 20};
	assert_int_equal(ct_store_preview(s, job, &o, &p, &err), CT_OK);
	assert_int_equal(p.pending, 60);
	assert_true(p.sampled == 20);
	assert_true(p.next_before[0].score == 99);
	assert_int_equal(p.next_before[0].id,
			 pgt_int(s, "SELECT max(id) FROM crawltop.tasks"));
	o.sample = 100001;
	assert_int_equal(ct_store_preview(s, job, &o, &p, &err), CT_ERANGE);
	o.sample = 0;
	assert_int_equal(ct_store_preview(s, 999, &o, &p, &err), CT_ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(migrated_version_is_the_defaults,
						fresh, close_store),
		cmocka_unit_test_setup_teardown(put_is_audited_and_checked, fresh,
						close_store),
		cmocka_unit_test_setup_teardown(preview_is_what_the_rescore_writes,
						fresh, close_store),
		cmocka_unit_test_setup_teardown(preview_samples_a_large_job, fresh,
						close_store),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
