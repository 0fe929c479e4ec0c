-- 0009_roles.sql: database roles (issue 3 point 8) and an append-only
-- audit_log.
--
--   crawltop_viewer    reads: SELECT on every table of schema crawltop,
--                      EXECUTE on the read functions (dashboard_*,
--                      rate_series, next_tasks, setting, page_id)
--   crawltop_operator  a viewer that also retunes and reprioritises:
--                      inserts settings, creates jobs, sets priority and
--                      state, boosts and demotes, records ranking runs,
--                      compacts and rebuilds the counters (setting modes
--                      and rescoring: 0010_claims_grants.sql)
--   crawltop_worker    enqueues, claims, completes, fails, releases (and
--                      reads what those need)
--
-- The three are NOLOGIN group roles, created once per cluster (roles are
-- cluster-wide; a second database or a second run finds them). Log in as a
-- role that is granted one of them, e.g.
--   CREATE ROLE crawler1 LOGIN IN ROLE crawltop_worker;
-- Nothing is granted to PUBLIC: every table, sequence and function of the
-- schema is revoked from it, and the schema itself too. The functions are
-- SECURITY INVOKER and the grants are plain table grants, except the
-- counter triggers (0007_counters.sql), which are SECURITY DEFINER so that
-- no role needs (or has) a write grant on the counters.
--
-- A later migration that adds a function grants it here-style to the roles
-- that need it (and revokes it from PUBLIC, which PostgreSQL grants new
-- functions): tests/store/test_roles.c fails on a function no role was
-- given a decision about.
--
-- audit_log is append-only: no role has UPDATE, DELETE or TRUNCATE on it,
-- and a trigger refuses those for every role, superusers included (42501).

-- The roles, if this cluster does not have them yet.
DO $$
DECLARE
	r text;
BEGIN
	FOREACH r IN ARRAY ARRAY['crawltop_viewer', 'crawltop_operator',
				 'crawltop_worker'] LOOP
		CONTINUE WHEN EXISTS (SELECT 1 FROM pg_roles WHERE rolname = r);
		BEGIN
			EXECUTE format('CREATE ROLE %I NOLOGIN', r);
		EXCEPTION
			WHEN duplicate_object OR unique_violation THEN
				NULL; -- another database's migration created it just now
			WHEN insufficient_privilege THEN
				RAISE EXCEPTION 'role % does not exist and role % may not create roles',
					r, current_user
					USING ERRCODE = '42501',
					HINT = format('ask a superuser to run CREATE ROLE %I NOLOGIN, then migrate again', r);
		END;
	END LOOP;
END $$;

-- An operator is a viewer too.
GRANT crawltop_viewer TO crawltop_operator;

-- Nothing for PUBLIC.
REVOKE ALL ON SCHEMA crawltop FROM PUBLIC;
REVOKE ALL ON ALL TABLES IN SCHEMA crawltop FROM PUBLIC;
REVOKE ALL ON ALL SEQUENCES IN SCHEMA crawltop FROM PUBLIC;
REVOKE ALL ON ALL FUNCTIONS IN SCHEMA crawltop FROM PUBLIC;

GRANT USAGE ON SCHEMA crawltop TO crawltop_viewer, crawltop_operator,
	crawltop_worker;

-- ---- tables -----------------------------------------------------------

-- Viewers (and so operators) read everything.
GRANT SELECT ON ALL TABLES IN SCHEMA crawltop TO crawltop_viewer;

-- Operators: what the operator functions write (revoked by 0013, where
-- those functions run as their owner).
GRANT INSERT ON crawltop.settings, crawltop.audit_log, crawltop.domains,
	crawltop.jobs, crawltop.run_manifest TO crawltop_operator;
GRANT UPDATE ON crawltop.jobs, crawltop.tasks, crawltop.pages
	TO crawltop_operator;

-- Workers: what enqueue, claim, complete, fail and release read and write,
-- and the job counters a worker program reads to find its job (read only:
-- only the counter triggers write them). Of a job they may only move the
-- task count (enqueue).
GRANT SELECT ON crawltop.jobs, crawltop.domains, crawltop.pages,
	crawltop.tasks, crawltop.settings, crawltop.task_counts
	TO crawltop_worker;
GRANT INSERT, UPDATE ON crawltop.pages, crawltop.tasks TO crawltop_worker;
GRANT UPDATE (total_pages, updated_at) ON crawltop.jobs TO crawltop_worker;

-- ---- functions ----------------------------------------------------------

-- Pure helpers the other functions call (and CHECK constraints use).
GRANT EXECUTE ON FUNCTION
	crawltop.max_url_bytes(), crawltop.path_ok(text), crawltop.url_ok(text),
	crawltop.url_authority(text), crawltop.url_page_path(text),
	crawltop.setting(text[]),
	crawltop.class_of(double precision, double precision, double precision,
		double precision),
	crawltop.shown(text), crawltop.check_priority(integer),
	crawltop.check_scores(double precision[]),
	crawltop.check_mode(text), crawltop.check_worker(text),
	crawltop.check_job(bigint), crawltop.score_bucket(double precision),
	crawltop.counter_shards(), crawltop.rate_retention_seconds(),
	crawltop.counter_lock_key(),
	crawltop.task_status_shown(text, text),
	crawltop.task_cells(text, text, smallint, integer, text, text, smallint,
		double precision, timestamptz, smallint),
	crawltop.dashboard_keys(),
	crawltop.job_status_shown(text, bigint, bigint, bigint, bigint),
	crawltop.job_status_counts(bigint)
	TO crawltop_viewer, crawltop_operator, crawltop_worker;

-- Reads.
GRANT EXECUTE ON FUNCTION
	crawltop.dashboard_jobs(), crawltop.dashboard_cells(bigint),
	crawltop.rate_series(bigint, integer), crawltop.next_tasks(bigint, integer),
	crawltop.page_id(bigint, text)
	TO crawltop_viewer;

-- Operator changes.
GRANT EXECUTE ON FUNCTION
	crawltop.create_job(text, text, integer, text),
	crawltop.lock_job(bigint),
	crawltop.set_job_priority(bigint, integer),
	crawltop.set_job_state(bigint, text),
	crawltop.adjust_scores(bigint, text, double precision, boolean),
	crawltop.apply_sitemap_priorities(bigint),
	crawltop.record_run_manifest(bigint, timestamptz, text, integer),
	crawltop.compact_counts(), crawltop.rebuild_counts(),
	crawltop.dashboard_cells_exact(bigint)
	TO crawltop_operator;

-- Worker calls.
GRANT EXECUTE ON FUNCTION
	crawltop.enqueue(bigint, text[], text, bigint, integer, text, text, text,
		double precision[]),
	crawltop.page_id(bigint, text),
	crawltop.claim(text, integer, bigint, double precision),
	crawltop.reap_expired(integer),
	crawltop.complete(text, bigint[]),
	crawltop.fail(text, bigint[], text),
	crawltop.release(text, bigint[]),
	crawltop.compact_counts()
	TO crawltop_worker;

-- Not granted to anyone (they run as triggers, or only inside the
-- triggers): counter_shard, tasks_count, tasks_count_truncate,
-- notify_settings, notify_jobs, append_only. (The functions
-- 0005 adds for score inputs, job modes and rescoring are granted by
-- 0010_claims_grants.sql.)

-- ---- audit_log: append-only -------------------------------------------

-- Refuse UPDATE, DELETE and TRUNCATE of audit_log, whoever asks; and of
-- settings: a version is history (undo writes a new one), and consoles
-- learn of new settings from the insert's notification (0008), so an
-- UPDATE of the current version changed what the store did while every
-- console on the primary kept showing the old values.
CREATE FUNCTION crawltop.append_only() RETURNS trigger
	LANGUAGE plpgsql AS $$
BEGIN
	RAISE EXCEPTION 'permission denied: % is append-only, % is refused for every role (role %)',
		TG_TABLE_NAME, TG_OP, current_user USING ERRCODE = '42501',
		HINT = CASE TG_TABLE_NAME WHEN 'settings' THEN
			'write a new version: crawltop settings set, or undo'
			ELSE 'it keeps every change for good' END;
END $$;
REVOKE ALL ON FUNCTION crawltop.append_only() FROM PUBLIC;

CREATE TRIGGER audit_log_append_only
	BEFORE UPDATE OR DELETE OR TRUNCATE ON crawltop.audit_log
	FOR EACH STATEMENT EXECUTE FUNCTION crawltop.append_only();
CREATE TRIGGER settings_append_only
	BEFORE UPDATE OR DELETE OR TRUNCATE ON crawltop.settings
	FOR EACH STATEMENT EXECUTE FUNCTION crawltop.append_only();
