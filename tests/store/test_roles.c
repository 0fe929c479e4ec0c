/* test_roles.c: roles and privileges (0009_roles.sql).
 *
 * Login roles created here, each granted one group role, connect and try
 * things: a viewer reads the statistics and may change nothing (every
 * refusal is CT_EINVAL, SQLSTATE 42501, with a message naming the
 * operation and "permission denied", and nothing changes); an operator
 * retunes and reprioritises but cannot claim; a worker enqueues, claims,
 * completes, fails and releases but cannot reprioritise, retune or write
 * the counters. audit_log is append-only for all of them and for a
 * superuser. PUBLIC has nothing; every function of the schema has a
 * decision (granted to a role, or one of the known trigger functions);
 * the roles survive a second database's migration. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pgtest.h"
#include "stats.h"

static int fresh(void **state)
{
	struct ct_store *s = pgt_fresh("ct_roles", 1);
	/* login roles are cluster-wide: create them once */
	pgt_exec(s, "DO $$ BEGIN "
		 "IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'ct_view') THEN "
		 "CREATE ROLE ct_view LOGIN IN ROLE crawltop_viewer; "
		 "CREATE ROLE ct_oper LOGIN IN ROLE crawltop_operator; "
		 "CREATE ROLE ct_work LOGIN IN ROLE crawltop_worker; "
		 "CREATE ROLE ct_none LOGIN; "
		 "END IF; END $$");
	*state = s;
	return 0;
}

static int close_store(void **state)
{
	ct_store_close(*state);
	return 0;
}

/* Connect to the test database as login role `user`. */
static struct ct_store *as(const char *user)
{
	char dsn[1200];
	snprintf(dsn, sizeof dsn, "%s user=%s", pgt_dsn("ct_roles"), user);
	struct ct_store *s;
	struct ct_error err = {{0}};
	if (ct_store_open(dsn, &s, &err) != CT_OK)
		fail_msg("%s", err.msg);
	return s;
}

/* Assert that a call failed for lack of privilege: CT_EINVAL, SQLSTATE
 * 42501, a message that starts with the operation and says "permission
 * denied" and names the role. */
static void refused(struct ct_store *s, ct_status st, const struct ct_error *err,
		    const char *what, const char *role)
{
	if (st != CT_EINVAL || strcmp(ct_store_sqlstate(s), "42501") != 0)
		fail_msg("%s as %s: expected a permission error, got status %d "
			 "SQLSTATE '%s': %s", what, role, (int)st,
			 ct_store_sqlstate(s), err->msg);
	char want[128];
	snprintf(want, sizeof want, "%s: permission denied", what);
	if (strncmp(err->msg, want, strlen(want)) != 0 ||
	    !strstr(err->msg, "(SQLSTATE 42501)") || !strstr(err->msg, role))
		fail_msg("unclear refusal: %s", err->msg);
}

/* Run sql with ct_store_exec and assert a permission refusal. */
static void refused_sql(struct ct_store *s, const char *what, const char *sql,
			const char *role)
{
	struct ct_error err = {{0}};
	refused(s, ct_store_exec(s, what, sql, &err), &err, what, role);
}

/* What a snapshot of everything a refusal must leave alone looks like. */
static char *snapshot(struct ct_store *su)
{
	return pgt_text(su, "SELECT (SELECT count(*) FROM crawltop.audit_log) "
			"|| '/' || (SELECT count(*) FROM crawltop.settings) || '/' "
			"|| (SELECT string_agg(priority || status || total_pages, ',' "
			"ORDER BY id) FROM crawltop.jobs) || '/' || (SELECT "
			"string_agg(status || score, ',' ORDER BY id) FROM "
			"crawltop.tasks) || '/' || (SELECT sum(n) FROM "
			"crawltop.task_counts)", 0, NULL);
}

static int64_t setup_job(struct ct_store *su)
{
	int64_t job = pgt_job(su, "r1", "r1.example", 5, "fifo");
	const char *paths[] = {"/a", "/b", "/c", "/d"};
	pgt_enqueue_from(su, job, paths, 4, NULL, CT_SRC_LINK, 0);
	return job;
}

static void viewer_reads_and_changes_nothing(void **state)
{
	struct ct_store *su = *state;
	int64_t job = setup_job(su);
	struct ct_store *v = as("ct_view");
	struct ct_error err = {{0}};

	/* reads */
	struct ct_job_stats_list j;
	assert_int_equal(ct_store_stats_jobs(v, &j, &err), CT_OK);
	assert_int_equal(j.n, 1);
	assert_int_equal(j.jobs[0].pending, 4);
	ct_job_stats_list_free(&j);
	struct ct_stat_cells c;
	assert_int_equal(ct_store_stats_cells(v, job, &c, &err), CT_OK);
	assert_int_equal(ct_stat_cells_get(&c, "status", "pending"), 4);
	ct_stat_cells_free(&c);
	struct ct_rate_series r;
	assert_int_equal(ct_store_stats_rates(v, 0, 300, &r, &err), CT_OK);
	ct_rate_series_free(&r);
	struct ct_next_tasks n;
	assert_int_equal(ct_store_next_tasks(v, 0, 10, &n, &err), CT_OK);
	assert_int_equal(n.n, 4);
	ct_next_tasks_free(&n);
	assert_int_equal(pgt_int(v, "SELECT count(*) FROM crawltop.audit_log"), 1);
	assert_int_equal(pgt_int(v, "SELECT count(*) FROM crawltop.tasks"), 4);
	assert_int_equal(pgt_int(v, "SELECT count(*) FROM crawltop.run_manifest"), 0);
	/* the console's own test of its rights */
	assert_int_equal(pgt_int(v, "SELECT pg_has_role(current_user, "
				 "'crawltop_operator', 'USAGE')::int"), 0);

	/* every kind of change, refused, nothing changed */
	char *before = snapshot(su);
	long rows;
	int64_t id = 1;
	size_t done;
	refused(v, ct_store_job_set_priority(v, job, 1, &rows, &err), &err,
		"set job priority", "ct_view");
	refused(v, ct_store_job_act(v, job, CT_JOB_PAUSE, &rows, &err), &err,
		"pause job", "ct_view");
	refused(v, ct_store_adjust_scores(v, job, "/", 10, &rows, &err), &err,
		"boost tasks", "ct_view");
	int64_t nj;
	refused(v, ct_store_job_create(v, "x", "x.example", 5, "fifo", &nj, &err),
		&err, "create job", "ct_view");
	const char *paths[] = {"/z"};
	struct ct_enqueue_batch b = CT_ENQUEUE_BATCH_INIT;
	struct ct_enqueue_result er;
	b.job_id = job;
	b.paths = paths;
	b.n = 1;
	refused(v, ct_store_enqueue(v, &b, &er, &err), &err, "enqueue", "ct_view");
	struct ct_claim k;
	refused(v, ct_store_claim(v, "w", 0, 1, 0, &k, &err), &err, "claim",
		"ct_view");
	refused(v, ct_store_claim_next(v, "w", NULL, 0, 0, 1, 0, &k, &err), &err,
		"claim_next", "ct_view");
	refused(v, ct_store_complete(v, "w", &id, 1, &done, &err), &err,
		"complete", "ct_view");
	refused(v, ct_store_release(v, "w", &id, 1, &done, &err), &err,
		"release", "ct_view");
	refused(v, ct_store_compact_counts(v, NULL, &err), &err,
		"compact counters", "ct_view");
	refused_sql(v, "settings", "INSERT INTO crawltop.settings (value) "
		    "VALUES ('{}')", "ct_view");
	refused_sql(v, "update tasks", "UPDATE crawltop.tasks SET score = 99",
		    "ct_view");
	refused_sql(v, "update jobs", "UPDATE crawltop.jobs SET priority = 1",
		    "ct_view");
	refused_sql(v, "delete tasks", "DELETE FROM crawltop.tasks", "ct_view");
	refused_sql(v, "counters", "UPDATE crawltop.task_counts SET n = 0",
		    "ct_view");
	refused_sql(v, "audit", "DELETE FROM crawltop.audit_log", "ct_view");
	refused_sql(v, "audit", "INSERT INTO crawltop.audit_log (action) "
		    "VALUES ('forged')", "ct_view");
	refused_sql(v, "manifest", "INSERT INTO crawltop.run_manifest DEFAULT "
		    "VALUES", "ct_view");
	char *after = snapshot(su);
	assert_string_equal(before, after);
	free(before);
	free(after);

	/* the message a person reads */
	assert_int_equal(ct_store_job_set_priority(v, job, 1, &rows, &err), CT_EINVAL);
	assert_string_equal(err.msg, "set job priority: permission denied for "
			    "function set_job_priority: connected as role "
			    "\"ct_view\" (SQLSTATE 42501)");
	ct_store_close(v);

	/* a login role in no group sees nothing at all */
	struct ct_store *x = as("ct_none");
	refused(x, ct_store_stats_jobs(x, &j, &err), &err, "dashboard jobs",
		"ct_none");
	ct_store_close(x);
}

static void operator_retunes_but_does_not_claim(void **state)
{
	struct ct_store *su = *state;
	int64_t job = setup_job(su);
	struct ct_store *o = as("ct_oper");
	struct ct_error err = {{0}};
	long rows;
	assert_int_equal(ct_store_job_set_priority(o, job, 2, &rows, &err), CT_OK);
	assert_int_equal(rows, 4);
	assert_int_equal(ct_store_adjust_scores(o, job, "/a", 50, &rows, &err), CT_OK);
	assert_int_equal(ct_store_job_act(o, job, CT_JOB_PAUSE, &rows, &err), CT_OK);
	assert_int_equal(ct_store_job_act(o, job, CT_JOB_RESUME, &rows, &err), CT_OK);
	int64_t j2;
	assert_int_equal(ct_store_job_create(o, "op2", "op2.example", 3, "fifo",
					     &j2, &err), CT_OK);
	pgt_exec(o, "SELECT crawltop.settings_put(jsonb_set(value, "
		 "'{classes,p0}', '81'), version, 'settings.update', 'operator') "
		 "FROM crawltop.settings ORDER BY version DESC LIMIT 1");
	pgt_exec(o, "SELECT crawltop.set_job_mode(2, 'hierarchy')");
	pgt_exec(o, "SELECT crawltop.record_run_manifest(NULL, now())");
	assert_int_equal(ct_store_compact_counts(o, NULL, &err), CT_OK);
	pgt_exec(o, "SELECT crawltop.rebuild_counts()");
	assert_int_equal(pgt_int(o, "SELECT count(*) FROM crawltop.dashboard_cells(NULL)"),
			 36);
	/* the audit trail names the operator's role, the new settings version
	 * too (the functions run as their owner: the login role is kept) */
	assert_int_equal(pgt_int(su, "SELECT count(*) FROM crawltop.audit_log "
				 "WHERE db_role = 'ct_oper'"), 7);
	assert_int_equal(pgt_int(su, "SELECT count(*) FROM crawltop.settings "
				 "WHERE created_by = 'ct_oper'"), 1);

	/* not a worker */
	struct ct_claim k;
	refused(o, ct_store_claim(o, "w", 0, 1, 0, &k, &err), &err, "claim",
		"ct_oper");
	/* and the audit trail is append-only */
	refused_sql(o, "audit", "UPDATE crawltop.audit_log SET action = 'x'",
		    "ct_oper");
	refused_sql(o, "audit", "DELETE FROM crawltop.audit_log", "ct_oper");
	refused_sql(o, "audit", "TRUNCATE crawltop.audit_log", "ct_oper");
	/* an audit row or settings version written by hand cannot claim
	 * another time, role or id (the columns' defaults fill them) */
	refused_sql(o, "audit", "INSERT INTO crawltop.audit_log (at, db_role, "
		    "action) VALUES ('2020-01-01', 'postgres', 'job.priority')",
		    "ct_oper");
	refused_sql(o, "audit", "INSERT INTO crawltop.audit_log (id, action) "
		    "OVERRIDING SYSTEM VALUE VALUES (1000000, 'squat')", "ct_oper");
	refused_sql(o, "settings", "INSERT INTO crawltop.settings (value, "
		    "created_by) SELECT value, 'postgres' FROM crawltop.settings "
		    "ORDER BY version DESC LIMIT 1", "ct_oper");
	/* only through the functions (0013): no direct write that skips
	 * their checks and their audit rows */
	char *before = snapshot(su);
	refused_sql(o, "settings", "INSERT INTO crawltop.settings (value) "
		    "SELECT value FROM crawltop.settings ORDER BY version DESC "
		    "LIMIT 1", "ct_oper");
	refused_sql(o, "audit", "INSERT INTO crawltop.audit_log (action) "
		    "VALUES ('job.priority')", "ct_oper");
	refused_sql(o, "job", "UPDATE crawltop.jobs SET status = 'completed'",
		    "ct_oper");
	refused_sql(o, "job", "INSERT INTO crawltop.jobs (name, domain_id) "
		    "SELECT 'sneak', id FROM crawltop.domains LIMIT 1", "ct_oper");
	refused_sql(o, "tasks", "UPDATE crawltop.tasks SET score = 100",
		    "ct_oper");
	refused_sql(o, "pages", "UPDATE crawltop.pages SET priority_score = 1",
		    "ct_oper");
	/* the ranking run's write takes discovery jobs' tasks only: not a
	 * way to set any task's score (this job is fifo) */
	assert_int_equal(pgt_int(o, "SELECT crawltop.rank_apply(ARRAY(SELECT id "
				 "FROM crawltop.tasks WHERE status = 'pending' LIMIT 1), "
				 "ARRAY[99.0], ARRAY[0]::smallint[], ARRAY[0]::smallint[], "
				 "ARRAY[1.0], ARRAY[false], ARRAY[1.0], "
				 "ARRAY[1.0], ARRAY[1.0], ARRAY[1.0], ARRAY[1.0], ARRAY[1.0], "
				 "ARRAY[1.0], ARRAY[1.0], ARRAY['x'], ARRAY[NULL]::bigint[], "
				 "0, 1000000, 80, 60, 40)"), 0);
	assert_int_equal(pgt_int(su, "SELECT count(*) FROM crawltop.tasks WHERE "
				 "score = 99"), 0);
	refused_sql(o, "lock", "SELECT crawltop.lock_job(1)", "ct_oper");
	char *after = snapshot(su);
	assert_string_equal(before, after);
	free(before);
	free(after);
	refused_sql(o, "counters", "DELETE FROM crawltop.task_counts", "ct_oper");
	ct_store_close(o);
}

static void worker_works_and_nothing_else(void **state)
{
	struct ct_store *su = *state;
	int64_t job = setup_job(su);
	struct ct_store *w = as("ct_work");
	struct ct_error err = {{0}};
	const char *paths[] = {"/e", "/f"};
	struct ct_enqueue_result er =
		pgt_enqueue_from(w, job, paths, 2, NULL, CT_SRC_LINK, 0);
	assert_int_equal(er.inserted, 2);
	struct ct_claim k;
	assert_int_equal(ct_store_claim(w, "w1", 0, 3, 0, &k, &err), CT_OK);
	assert_int_equal(k.n, 3);
	size_t done, retried, failed;
	int64_t two[2] = {k.tasks[0].id, k.tasks[1].id};
	assert_int_equal(ct_store_complete(w, "w1", two, 1, &done, &err), CT_OK);
	/* the second completed by the call that claims the fourth */
	struct ct_claim k4;
	assert_int_equal(ct_store_claim_next(w, "w1", two + 1, 1, 0, 1, 0, &k4,
					     &err), CT_OK);
	assert_int_equal(k4.n, 1);
	assert_int_equal(ct_store_fail(w, "w1", &k.tasks[2].id, 1, "x", &retried,
				       &failed, &err), CT_OK);
	assert_int_equal(ct_store_release(w, "w1", &k4.tasks[0].id, 1, &done,
					  &err), CT_OK);
	ct_claim_free(&k4);
	ct_claim_free(&k);
	assert_int_equal(ct_store_compact_counts(w, NULL, &err), CT_OK);
	pgt_exec(w, "SELECT crawltop.set_score_inputs(1, ARRAY['/e'], ARRAY[NULL::jsonb])");
	/* the counters followed, though the worker cannot write them */
	assert_int_equal(pgt_int(su, "SELECT sum(n) FROM crawltop.task_counts "
				 "WHERE dim = 'status' AND key = 'completed'"), 2);

	long rows;
	char *before = snapshot(su);
	refused(w, ct_store_job_set_priority(w, job, 1, &rows, &err), &err,
		"set job priority", "ct_work");
	refused(w, ct_store_job_act(w, job, CT_JOB_CANCEL, &rows, &err), &err,
		"cancel job", "ct_work");
	refused_sql(w, "settings", "INSERT INTO crawltop.settings (value) "
		    "VALUES ('{}')", "ct_work");
	refused_sql(w, "job priority", "UPDATE crawltop.jobs SET priority = 1",
		    "ct_work");
	/* only through the functions (0013): not a task's score or status,
	 * not a task or page of its own, not a job's count */
	refused_sql(w, "tasks", "UPDATE crawltop.tasks SET score = 100, "
		    "job_priority = 1", "ct_work");
	refused_sql(w, "tasks", "UPDATE crawltop.tasks SET status = 'pending' "
		    "WHERE status = 'completed'", "ct_work");
	refused_sql(w, "tasks", "INSERT INTO crawltop.tasks (job_id, page_id, "
		    "job_priority, score) SELECT job_id, page_id, 1, 100 FROM "
		    "crawltop.tasks LIMIT 1", "ct_work");
	refused_sql(w, "pages", "UPDATE crawltop.pages SET priority_score = 1",
		    "ct_work");
	refused_sql(w, "job count", "UPDATE crawltop.jobs SET total_pages = "
		    "123456", "ct_work");
	refused_sql(w, "counters", "INSERT INTO crawltop.task_counts VALUES "
		    "(1, 'status', 'pending', 1, 1000)", "ct_work");
	refused_sql(w, "ticks", "DELETE FROM crawltop.rate_ticks", "ct_work");
	refused_sql(w, "audit", "SELECT count(*) FROM crawltop.audit_log", "ct_work");
	refused_sql(w, "audit", "DELETE FROM crawltop.audit_log", "ct_work");
	refused_sql(w, "delete tasks", "DELETE FROM crawltop.tasks", "ct_work");
	refused_sql(w, "shard", "SELECT crawltop.counter_shard()", "ct_work");
	char *after = snapshot(su);
	assert_string_equal(before, after);
	free(before);
	free(after);
	ct_store_close(w);
}

/* Each of the n statements is refused for the superuser su: 42501 and a
 * message naming table as append-only. */
static void append_only_refuses(struct ct_store *su, const char *table,
				const char *const *sql, size_t n)
{
	struct ct_error err = {{0}};
	char want[96];
	snprintf(want, sizeof want, "permission denied: %s is append-only", table);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(ct_store_exec(su, table, sql[i], &err), CT_EINVAL);
		assert_string_equal(ct_store_sqlstate(su), "42501");
		if (!strstr(err.msg, want))
			fail_msg("%s: %s", sql[i], err.msg);
	}
}

static void audit_log_append_only_for_superuser(void **state)
{
	struct ct_store *su = *state;
	setup_job(su);
	long long n = pgt_int(su, "SELECT count(*) FROM crawltop.audit_log");
	assert_true(n >= 1);
	static const char *const sql[] = {
		"UPDATE crawltop.audit_log SET action = 'forged'",
		"DELETE FROM crawltop.audit_log",
		"TRUNCATE crawltop.audit_log",
		"DELETE FROM crawltop.audit_log WHERE false",
	};
	append_only_refuses(su, "audit_log", sql, sizeof sql / sizeof *sql);
	assert_int_equal(pgt_int(su, "SELECT count(*) FROM crawltop.audit_log"), n);
	/* appending still works */
	pgt_exec(su, "INSERT INTO crawltop.audit_log (action) VALUES ('note')");
	/* settings versions are history too: a changed current version went
	 * unannounced, and consoles kept the old values */
	long long v = pgt_int(su, "SELECT max(version) FROM crawltop.settings");
	static const char *const ssql[] = {
		"UPDATE crawltop.settings SET value = jsonb_set(value, "
		"'{classes,p0}', '90') WHERE version = (SELECT max(version) FROM "
		"crawltop.settings)",
		"DELETE FROM crawltop.settings WHERE version > 1",
		"TRUNCATE crawltop.settings CASCADE",
	};
	append_only_refuses(su, "settings", ssql, sizeof ssql / sizeof *ssql);
	assert_int_equal(pgt_int(su, "SELECT max(version) FROM crawltop.settings"), v);
	assert_int_equal(pgt_int(su, "SELECT count(*) FROM crawltop.settings "
				 "WHERE value #>> '{classes,p0}' = '90'"), 0);
}

static void grants_are_complete_and_public_has_none(void **state)
{
	struct ct_store *su = *state;
	/* group roles: NOLOGIN; operator is a viewer */
	assert_int_equal(pgt_int(su, "SELECT count(*) FROM pg_roles WHERE rolname "
				 "IN ('crawltop_viewer', 'crawltop_operator', "
				 "'crawltop_worker') AND NOT rolcanlogin"), 3);
	assert_int_equal(pgt_int(su, "SELECT pg_has_role('crawltop_operator', "
				 "'crawltop_viewer', 'USAGE')::int"), 1);
	assert_int_equal(pgt_int(su, "SELECT pg_has_role('crawltop_worker', "
				 "'crawltop_viewer', 'USAGE')::int"), 0);
	/* PUBLIC: nothing on the schema or anything in it (a relation
	 * without ACL is its owner's only; a function without ACL is
	 * PUBLIC's) */
	char *t = pgt_text(su,
		"SELECT coalesce(string_agg(x, ', '), '') FROM ("
		"SELECT 'schema' AS x WHERE has_schema_privilege('public', "
		"'crawltop', 'USAGE') OR has_schema_privilege('public', "
		"'crawltop', 'CREATE') "
		"UNION ALL SELECT c.relname FROM pg_class c JOIN pg_namespace n "
		"ON n.oid = c.relnamespace WHERE n.nspname = 'crawltop' AND "
		"c.relkind IN ('r', 'S', 'v', 'm') AND EXISTS (SELECT 1 FROM "
		"aclexplode(c.relacl) a WHERE a.grantee = 0) "
		"UNION ALL SELECT p.oid::regprocedure::text FROM pg_proc p JOIN "
		"pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = "
		"'crawltop' AND (p.proacl IS NULL OR EXISTS (SELECT 1 FROM "
		"aclexplode(p.proacl) a WHERE a.grantee = 0))) y", 0, NULL);
	if (t[0])
		fail_msg("PUBLIC may use: %s", t);
	free(t);
	/* every function: granted to a crawltop role, or a known trigger
	 * function granted to nobody */
	t = pgt_text(su,
		"SELECT coalesce(string_agg(p.oid::regprocedure::text, ', '), '') "
		"FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace "
		"WHERE n.nspname = 'crawltop' AND p.proname NOT IN ("
		"'counter_shard', 'tasks_count', 'tasks_count_truncate', "
		"'tasks_queue_sync', 'tasks_queue_truncate', "
		"'notify_settings', 'notify_jobs', 'settings_check_row', "
		"'append_only', 'refs_keep', 'pages_refs_check', "
		"'tasks_refs_check', 'jobs_delete_tasks', 'jobs_truncate_tasks', "
		"'jobs_keep_id', 'jobs_name_not_number', 'lock_job', 'lock_task', "
		"'enqueue_batch', 'enqueue_modes', 'create_job_in', 'give_to_owner', "
		"'task_links_gone', 'task_row_ok', 'tasks_rows_check', "
		"'store_settings_refresh', 'store_settings_sync') AND NOT (has_function_privilege("
		"'crawltop_viewer', p.oid, 'EXECUTE') OR has_function_privilege("
		"'crawltop_operator', p.oid, 'EXECUTE') OR has_function_privilege("
		"'crawltop_worker', p.oid, 'EXECUTE'))", 0, NULL);
	if (t[0])
		fail_msg("functions no role may call (grant them in their "
			 "migration, or list them here as internal): %s", t);
	free(t);
	/* the internal ones really are closed */
	assert_int_equal(pgt_int(su, "SELECT count(*) FROM pg_proc p JOIN "
				 "pg_namespace n ON n.oid = p.pronamespace WHERE "
				 "n.nspname = 'crawltop' AND p.proname IN "
				 "('counter_shard', 'tasks_count') AND "
				 "has_function_privilege('crawltop_worker', p.oid, "
				 "'EXECUTE')"), 0);
	/* the functions that write run as their owner (0013), each with
	 * search_path pinned; no viewer may call one; the reads run with
	 * the caller's rights */
	t = pgt_text(su, "SELECT string_agg(p.proname, ',' ORDER BY p.proname) "
		     "FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace "
		     "WHERE n.nspname = 'crawltop' AND p.prosecdef", 0, NULL);
	assert_string_equal(t, "adjust_scores,adjust_task,"
			    "apply_sitemap_priorities,claim,claim_next,"
			    "compact_counts,complete,create_job,create_job_in,enqueue,"
			    "enqueue_batch,enqueue_modes,fail,fold_counts,"
			    "jobs_delete_tasks,"
			    "lock_job,rank_apply,rank_lock,reap_expired,"
			    "rebuild_counts,record_run_manifest,release,requeue_task,"
			    "rescore_apply,rescore_fetch,rescore_finish,"
			    "rescore_start,retry_task,"
			    "set_job_mode,set_job_priority,set_job_state,"
			    "set_score_inputs,settings_put,settings_put_marked,"
			    "task_links_gone,tasks_count,tasks_count_truncate,"
			    "tasks_queue_sync,tasks_queue_truncate");
	free(t);
	/* every definer and every PL/pgSQL function (the trigger functions
	 * run for whoever writes a table) resolves names in pg_catalog only
	 * (0013, 0015); SQL functions stay inlinable; task_row_ok, which
	 * raises for a row that breaks tasks' rules (0037; since 0043 called
	 * by tasks_rows_check, whose pinned path it runs under), qualifies
	 * every name instead */
	t = pgt_text(su, "SELECT string_agg(p.proname, ',' ORDER BY p.proname) "
		     "FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace "
		     "JOIN pg_language l ON l.oid = p.prolang "
		     "WHERE n.nspname = 'crawltop' "
		     "AND (p.prosecdef OR l.lanname = 'plpgsql') "
		     "AND p.proname <> 'task_row_ok' AND NOT "
		     "coalesce(p.proconfig @> ARRAY['search_path=pg_catalog, "
		     "pg_temp'], false)", 0, NULL);
	if (t[0])
		fail_msg("functions without search_path pinned: %s", t);
	free(t);
	assert_true(pgt_int(su, "SELECT count(*) FROM pg_proc p JOIN "
			    "pg_language l ON l.oid = p.prolang WHERE "
			    "p.pronamespace = 'crawltop'::regnamespace AND "
			    "l.lanname = 'plpgsql' AND p.prorettype = "
			    "'trigger'::regtype") >= 8);
	assert_int_equal(pgt_int(su, "SELECT count(*) FROM pg_proc p JOIN "
				 "pg_namespace n ON n.oid = p.pronamespace WHERE "
				 "n.nspname = 'crawltop' AND p.prosecdef AND "
				 "has_function_privilege('crawltop_viewer', p.oid, "
				 "'EXECUTE')"), 0);

	/* everything of the store belongs to crawltop_owner (0023), which
	 * cannot log in and has no power beyond its objects: the definers
	 * run as it, not as the superuser that migrated */
	assert_int_equal(pgt_int(su, "SELECT count(*) FROM pg_roles WHERE "
				 "rolname = 'crawltop_owner' AND NOT rolcanlogin "
				 "AND NOT rolsuper AND NOT rolcreaterole AND NOT "
				 "rolcreatedb AND NOT rolbypassrls"), 1);
	t = pgt_text(su,
		"SELECT coalesce(string_agg(x, ', '), '') FROM ("
		"SELECT 'schema' AS x FROM pg_namespace WHERE nspname = "
		"'crawltop' AND nspowner <> 'crawltop_owner'::regrole "
		"UNION ALL SELECT relname FROM pg_class WHERE relnamespace = "
		"'crawltop'::regnamespace AND relowner <> "
		"'crawltop_owner'::regrole "
		"UNION ALL SELECT p.oid::regprocedure::text FROM pg_proc p WHERE "
		"p.pronamespace = 'crawltop'::regnamespace AND p.proowner <> "
		"'crawltop_owner'::regrole "
		"UNION ALL SELECT t.oid::regtype::text FROM pg_type t WHERE "
		"t.typnamespace = 'crawltop'::regnamespace AND t.typowner <> "
		"'crawltop_owner'::regrole) y", 0, NULL);
	if (t[0])
		fail_msg("not owned by crawltop_owner: %s", t);
	free(t);
	assert_int_equal(pgt_int(su, "SELECT crawltop.give_to_owner()"), 0);

	/* a second database of the cluster: the roles exist, migrate works */
	struct ct_store *s2 = pgt_fresh("ct_roles_two", 1);
	assert_int_equal(pgt_int(s2, "SELECT count(*) FROM pg_roles WHERE rolname "
				 "LIKE 'crawltop\\_%'"), 4);
	ct_store_close(s2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(viewer_reads_and_changes_nothing, fresh, close_store),
		cmocka_unit_test_setup_teardown(operator_retunes_but_does_not_claim, fresh, close_store),
		cmocka_unit_test_setup_teardown(worker_works_and_nothing_else, fresh, close_store),
		cmocka_unit_test_setup_teardown(audit_log_append_only_for_superuser, fresh, close_store),
		cmocka_unit_test_setup_teardown(grants_are_complete_and_public_has_none, fresh, close_store),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
