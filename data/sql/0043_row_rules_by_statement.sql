-- 0043_row_rules_by_statement.sql: the rules of a task row are checked
-- once a statement, by its rows, off the hot path.
--
-- 0037 made tasks' five table checks one, tasks_row_ok, a call of
-- task_row_ok. A CHECK is still prepared again for every statement that
-- writes the table and then run for each row: a one-row UPDATE of a task
-- spent 15 to 18 us of its 56 to 61 in it (pg_stat_statements, one
-- connection; written as an inlined expression instead, the check took
-- longer: PostgreSQL plans the expression for each statement). claim,
-- complete and claim_next write two such UPDATEs a task, and enqueue's
-- INSERT its new tasks, with values fixed by their own text: status
-- 'running' with a lease, 'completed' without one, 'pending' with score =
-- base_score and no ranking. Those are the statements that run with
-- crawltop.inline set (0020, 0022, 0037, 0038); every other function pins
-- it empty.
--
-- So the constraint goes, and two statement triggers check the rows every
-- other statement writes (another function's, an operator's, the
-- owner's by hand), with the transition table PostgreSQL fills for the
-- queue and counter triggers anyway: one query finds the rows that break
-- a rule (the rules of task_row_ok, word for word), and task_row_ok raises
-- for the first of them what it raised as the CHECK (SQLSTATE 23514, the
-- rule's name as the constraint, the schema, the table and the values).
-- The trigger fires before the queue and counter triggers (by name), and
-- a refused statement is rolled back whole, as before. It runs once the
-- statement's rows are written: a statement that also breaks a unique
-- key, or moves a task to a job or page that does not exist (the row
-- trigger tasks_refs_update fires before any statement trigger), is
-- refused for that (23505, 23503); a row INSERT ... ON CONFLICT does not
-- write is not checked; a bad statement writes, and waits for the locks
-- of, all its rows before it is rolled back. A session that
-- sets crawltop.inline itself skips the check as it skips the queue and
-- counter triggers (as does session_replication_role = replica): only the
-- owner may write tasks (0013), and the owner may as well drop a
-- constraint.
CREATE FUNCTION crawltop.tasks_rows_check() RETURNS trigger
	LANGUAGE plpgsql
	SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	r record;
BEGIN
	-- each condition is one of task_row_ok's IF conditions as written
	-- there (NULL passes); the function raises for the row
	FOR r IN
		SELECT n.status, n.lease_owner, n.lease_expires_at, n.ranked_at,
		       n.discovery_score::double precision AS discovery,
		       n.score, n.base_score::double precision AS base,
		       n.adjustment::double precision AS adjustment
		FROM new_rows n
		WHERE (n.status::text <> ALL
		       ('{pending,running,completed,failed,skipped}'::text[])) IS TRUE
		   OR (NOT (n.score = least(100::double precision,
			greatest(0::double precision, n.base_score::double precision
				 + n.adjustment::double precision)))) IS TRUE
		   OR (NOT (n.status::text = 'running'
			    OR (n.lease_owner IS NULL AND n.lease_expires_at IS NULL))) IS TRUE
		   OR (NOT (n.status::text <> 'running'
			    OR n.lease_expires_at IS NOT NULL)) IS TRUE
		   OR ((n.ranked_at IS NULL) <> (n.discovery_score IS NULL)) IS TRUE
	LOOP
		PERFORM crawltop.task_row_ok(r.status, r.lease_owner,
			r.lease_expires_at, r.ranked_at, r.discovery, r.score, r.base,
			r.adjustment);
	END LOOP;
	RETURN NULL;
END $$;
REVOKE ALL ON FUNCTION crawltop.tasks_rows_check() FROM PUBLIC;

CREATE TRIGGER tasks_check_insert AFTER INSERT ON crawltop.tasks
	REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT
	WHEN (current_setting('crawltop.inline', true) IS DISTINCT FROM 'on')
	EXECUTE FUNCTION crawltop.tasks_rows_check();
CREATE TRIGGER tasks_check_update AFTER UPDATE ON crawltop.tasks
	REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT
	WHEN (current_setting('crawltop.inline', true) IS DISTINCT FROM 'on')
	EXECUTE FUNCTION crawltop.tasks_rows_check();

ALTER TABLE crawltop.tasks DROP CONSTRAINT tasks_row_ok;
