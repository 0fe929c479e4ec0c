-- 0037_lean_claim.sql: less work a claim, the same rules.
--
-- Where a one-task claim_next spent its CPU at 16 claimers (perf, doc/
-- PERFORMANCE.md "Where a one-task claim spends its time"): 7 % in
-- ExecConstraints, half of it parsing the node strings of tasks' five
-- CHECK constraints, which PostgreSQL reads and prepares again for every
-- statement that writes the table (the claim's UPDATE and the
-- completion's: one row each); 0.7 % decompressing the newest settings
-- version (1.4 kB, compressed) that every claim read for three numbers of
-- its store section; and the set-up of statements and expressions that
-- run once a call. With the five CHECKs dropped, a test, claim_next took
-- 15 % less backend CPU on one connection. This migration:
--
--   * the five table checks become one, tasks_row_ok: an IMMUTABLE
--     PL/pgSQL function of the eight columns, compiled once a session,
--     whose call is the whole expression PostgreSQL prepares a statement.
--     The rules are the same and so is a refusal: SQLSTATE 23514 naming
--     the rule that broke as the constraint (tasks_status_check,
--     tasks_score_derived, tasks_lease_only_running,
--     tasks_running_has_lease, tasks_ranked_has_score), the schema and the
--     table, with the values in the message;
--   * store_settings: the store section of the newest settings version
--     (over the defaults) as one narrow row, rewritten by a statement
--     trigger on settings (append-only, 0009), so that a claim reads three
--     numbers instead of the whole document;
--   * claim and claim_next (0022's bodies otherwise): the claiming
--     statement comes in two forms, all jobs' and one job's, so that a
--     call prepares only the one it runs; the session's slot count is set
--     by an assignment (a simple expression) rather than a PERFORM (a
--     statement); claim_next completes one task by its UPDATE alone
--     (several are first locked in id order, as before: that lock was a
--     WAL record a task) and looks for tasks it could not complete only
--     when it completed fewer than it was given.
-- The functions keep 0035's planner settings.

-- The five checks as one. Each rule as its constraint had it (NULL
-- passes, as in a CHECK); a broken rule raises what PostgreSQL raises
-- for a broken CHECK, with the rule's name and the values.
CREATE FUNCTION crawltop.task_row_ok(p_status text, p_owner text,
		p_expires timestamptz, p_ranked timestamptz,
		p_discovery double precision, p_score double precision,
		p_base double precision, p_adjustment double precision)
	RETURNS boolean LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
	v_rule pg_catalog.text;
BEGIN
	-- Every name qualified (OPERATOR(pg_catalog.=), pg_catalog.text): a
	-- CHECK runs under the search path of whoever writes the row. The
	-- function has no SET search_path, unlike every other PL/pgSQL
	-- function of the store (0013): a SET makes each call save and
	-- restore the settings, which took back half of what this migration
	-- saves a claim (measured); it names nothing a search path resolves.
	IF p_status OPERATOR(pg_catalog.<>) ALL
	   ('{pending,running,completed,failed,skipped}'::pg_catalog.text[]) THEN
		v_rule := 'tasks_status_check';
	ELSIF NOT (p_score OPERATOR(pg_catalog.=) least(100::double precision,
		greatest(0::double precision,
			 p_base OPERATOR(pg_catalog.+) p_adjustment))) THEN
		v_rule := 'tasks_score_derived';
	ELSIF NOT (p_status OPERATOR(pg_catalog.=) 'running'
		   OR (p_owner IS NULL AND p_expires IS NULL)) THEN
		v_rule := 'tasks_lease_only_running';
	ELSIF NOT (p_status OPERATOR(pg_catalog.<>) 'running'
		   OR p_expires IS NOT NULL) THEN
		v_rule := 'tasks_running_has_lease';
	ELSIF (p_ranked IS NULL) OPERATOR(pg_catalog.<>) (p_discovery IS NULL) THEN
		v_rule := 'tasks_ranked_has_score';
	ELSE
		RETURN true;
	END IF;
	RAISE EXCEPTION 'new row for relation "tasks" violates check constraint "%" (status %, score %, base_score %, adjustment %, lease_owner %, lease_expires_at %, ranked_at %, discovery_score %)',
		v_rule, p_status, p_score, p_base, p_adjustment,
		coalesce(p_owner, 'NULL'),
		coalesce(p_expires::pg_catalog.text, 'NULL'),
		coalesce(p_ranked::pg_catalog.text, 'NULL'),
		coalesce(p_discovery::pg_catalog.text, 'NULL')
		USING ERRCODE = '23514', CONSTRAINT = v_rule, SCHEMA = 'crawltop',
		TABLE = 'tasks';
END $$;
REVOKE ALL ON FUNCTION crawltop.task_row_ok(text, text, timestamptz,
	timestamptz, double precision, double precision, double precision,
	double precision) FROM PUBLIC;
-- (a CHECK calls its function with the rights of whoever writes the row:
-- the owner, through the owner-rights functions; no role writes tasks
-- directly)

ALTER TABLE crawltop.tasks
	DROP CONSTRAINT tasks_status_check,
	DROP CONSTRAINT tasks_score_derived,
	DROP CONSTRAINT tasks_lease_only_running,
	DROP CONSTRAINT tasks_running_has_lease,
	DROP CONSTRAINT tasks_ranked_has_score,
	ADD CONSTRAINT tasks_row_ok CHECK (crawltop.task_row_ok(status,
		lease_owner, lease_expires_at, ranked_at, discovery_score, score,
		base_score, adjustment));

-- The store settings a claim reads, as one row. version is the settings
-- version they come from; the trigger never puts an older one over a
-- newer (two versions written at once: the one whose transaction commits
-- last reads both, and keeps the newest).
CREATE TABLE crawltop.store_settings (
	only_row           boolean PRIMARY KEY DEFAULT true CHECK (only_row),
	version            integer NOT NULL,
	lease_seconds      double precision,
	starvation_seconds double precision,
	starvation_every   integer
);
CREATE FUNCTION crawltop.store_settings_refresh() RETURNS void
	LANGUAGE plpgsql
	SET search_path = pg_catalog, pg_temp AS $$
BEGIN
	INSERT INTO crawltop.store_settings AS c (only_row, version,
		lease_seconds, starvation_seconds, starvation_every)
	SELECT true, s.version, (x.st->>'lease_seconds')::double precision,
	       (x.st->>'starvation_seconds')::double precision,
	       (x.st->>'starvation_every')::integer
	FROM (SELECT s.version, s.value FROM crawltop.settings s
	      ORDER BY s.version DESC LIMIT 1) s,
	     LATERAL (SELECT coalesce(crawltop.settings_defaults()->'store', '{}')
			     || coalesce(s.value->'store', '{}') AS st) x
	ON CONFLICT (only_row) DO UPDATE
	SET version = EXCLUDED.version,
	    lease_seconds = EXCLUDED.lease_seconds,
	    starvation_seconds = EXCLUDED.starvation_seconds,
	    starvation_every = EXCLUDED.starvation_every
	WHERE c.version <= EXCLUDED.version;
END $$;
CREATE FUNCTION crawltop.store_settings_sync() RETURNS trigger
	LANGUAGE plpgsql
	SET search_path = pg_catalog, pg_temp AS $$
BEGIN
	PERFORM crawltop.store_settings_refresh();
	RETURN NULL;
END $$;
REVOKE ALL ON FUNCTION crawltop.store_settings_refresh() FROM PUBLIC;
REVOKE ALL ON FUNCTION crawltop.store_settings_sync() FROM PUBLIC;
CREATE TRIGGER settings_store_sync AFTER INSERT ON crawltop.settings
	FOR EACH STATEMENT EXECUTE FUNCTION crawltop.store_settings_sync();
SELECT crawltop.store_settings_refresh();

-- claim and claim_next: 0022's texts but for the three changes above.
DO $do$
DECLARE
	-- the completion: the tasks this worker holds with a live lease
	-- become completed, their leases go, the counters get one delta row
	-- a job; its last CTE is u (the completed ids and their jobs). With
	-- one task its UPDATE locks the one row; with several, mine locks them
	-- in id order first, so that two completions cannot deadlock (that
	-- lock was a WAL record a task).
	held constant text := $sql$t.status = 'running'
		  AND t.lease_owner = p_worker AND t.lease_expires_at > now()$sql$;
	completed constant text := $sql$UPDATE crawltop.tasks t
		SET status = 'completed', completed_at = now(),
		    lease_owner = NULL, lease_expires_at = NULL$sql$;
	gone constant text := $sql$
		RETURNING t.id, t.job_id
	), dl AS (
		DELETE FROM crawltop.leases l USING u WHERE l.task_id = u.id
	), dc AS (
		INSERT INTO crawltop.count_deltas (job_id, n, old_status,
			old_owner, new_status, completions, second)
		SELECT u.job_id, count(*), 'running', p_worker, 'completed',
		       count(*), date_trunc('second', clock_timestamp())
		FROM u GROUP BY u.job_id
	)$sql$;
	completion constant text := E'\tWITH mine AS (\n\t\tSELECT t.id '
		|| E'FROM crawltop.tasks t\n\t\tWHERE t.id = ANY (p_task_ids) AND '
		|| held || E'\n\t\tORDER BY t.id\n\t\tFOR NO KEY UPDATE\n'
		|| E'\t), u AS (\n\t\t' || completed
		|| E'\n\t\tFROM mine WHERE t.id = mine.id' || gone;
	completion_one constant text := E'\tWITH u AS (\n\t\t' || completed
		|| E'\n\t\tWHERE t.id = ANY (p_task_ids) AND ' || held || gone;
	-- the claiming statement; [pick] is the ARRAY(...) of the slots
	-- claimed in SPEC.md's order, all jobs' or one job's
	claiming constant text := $sql$
		RETURN QUERY
		WITH u AS (
			UPDATE crawltop.tasks t
			SET status = 'running', lease_owner = p_worker,
			    lease_expires_at = v_exp, started_at = now()
			WHERE t.id = ANY (v_old || [pick])
			  AND t.status = 'pending'
			RETURNING t.id, t.job_id, t.page_id,
				t.job_priority::smallint AS job_priority, t.score,
				t.class::smallint AS class, t.created_at,
				t.retry_count::smallint AS retry_count,
				t.depth::integer AS depth, t.source_type::text AS source_type,
				t.lease_expires_at, t.discovery_method, t.type, t.ranked_at,
				t.priority_class
		), dq AS (
			DELETE FROM crawltop.queue q USING u WHERE q.task_id = u.id
		), dl AS (
			INSERT INTO crawltop.leases (task_id, expires_at)
			SELECT u.id, u.lease_expires_at FROM u
		), dc AS (
			INSERT INTO crawltop.count_deltas (job_id, n, old_status,
				new_status, new_owner, class, depth, discovery_method, type,
				job_priority, score, ranked_at, priority_class, claims, second)
			SELECT u.job_id, 1, 'pending', 'running', p_worker, u.class,
			       u.depth, u.discovery_method, u.type, u.job_priority, u.score,
			       u.ranked_at, u.priority_class, 1,
			       date_trunc('second', clock_timestamp())
			FROM u
		)
		SELECT u.id, u.job_id, u.page_id, u.job_priority, u.score, u.class,
		       u.created_at, u.retry_count, u.depth, u.source_type,
		       u.lease_expires_at, d.name, p.path::text
		FROM u
		JOIN crawltop.pages p ON p.id = u.page_id
		JOIN crawltop.domains d ON d.id = p.domain_id;
$sql$;
	-- the slots claimed in SPEC.md's order: [which] picks all jobs or
	-- one, [order] puts the job priority first for all jobs
	pick constant text := $sql$ARRAY(
				SELECT c.id FROM crawltop.queue q
				JOIN crawltop.tasks c ON c.id = q.task_id
				WHERE [which]
				  AND q.task_id <> ALL (v_old)
				  AND c.status = 'pending'
				ORDER BY [order]q.score DESC, q.created_at, q.task_id
				LIMIT p_n - cardinality(v_old)
				FOR UPDATE OF c SKIP LOCKED)$sql$;
	-- the starving slots, oldest pending first, of all jobs or one
	starving constant text := $sql$		SELECT coalesce(array_agg(s.id), '{}') INTO v_old FROM (
			SELECT t.id FROM crawltop.queue q
			JOIN crawltop.tasks t ON t.id = q.task_id
			WHERE [which]
			  AND q.pending_since < (SELECT v_cutoff)
			  AND t.status = 'pending'
			ORDER BY q.pending_since, q.task_id
			LIMIT v_quota
			FOR UPDATE OF t SKIP LOCKED
		) s;
$sql$;
	all_jobs constant text := 'q.job_priority <= 10';
	one_job constant text := 'q.job_id = p_job_id';
	claim_body constant text := $sql$
#variable_conflict use_column
DECLARE
	v_lease double precision;
	v_guard double precision;
	v_every integer;
	v_exp timestamptz;
	v_cutoff timestamptz;
	v_slots bigint;
	v_quota integer := 0;
	v_old bigint[] := '{}';
	v_status text;
	v_ok boolean;
	v_reap boolean;
	v_done bigint[];
	v_set text;
BEGIN
-- [the completion step]
	-- One statement reads what a claim needs before it claims: the store
	-- settings (store_settings: the newest version's over the defaults),
	-- whether the worker's name is allowed, whether a lease has expired
	-- (the reaper's own probe) and this session's count of claimed slots
	-- (the starvation guard's).
	SELECT coalesce(p_lease_seconds, x.lease_seconds, 30),
	       coalesce(x.starvation_seconds, 300),
	       coalesce(x.starvation_every, 10),
	       crawltop.worker_ok(p_worker),
	       EXISTS (SELECT 1 FROM crawltop.leases l WHERE l.expires_at < now()),
	       coalesce(nullif(current_setting('crawltop.claim_slots', true), '')::bigint, 0)
	INTO v_lease, v_guard, v_every, v_ok, v_reap, v_slots
	FROM (SELECT true AS only_row) o
	LEFT JOIN crawltop.store_settings x ON x.only_row = o.only_row;
	IF NOT v_ok THEN
		PERFORM crawltop.check_worker(p_worker);
	END IF;
	IF p_n IS NULL OR p_n NOT BETWEEN 1 AND 10000 THEN
		RAISE EXCEPTION 'claim size % is outside 1..10000', coalesce(p_n::text, 'NULL')
			USING ERRCODE = '22003';
	END IF;
	-- at least 10 ms: a shorter lease would be over before the claim
	-- commits (1e-300 gave a task no worker could ever complete)
	IF NOT (v_lease >= 0.01 AND v_lease <= 86400) THEN
		RAISE EXCEPTION 'lease of % seconds is outside 0.01..86400', v_lease
			USING ERRCODE = '22003';
	END IF;
	v_exp := now() + make_interval(secs => v_lease);
	v_cutoff := now() - make_interval(secs => v_guard);

	-- the reaper, only when the probe found an expired lease
	IF v_reap THEN
		PERFORM crawltop.reap_expired(100);
	END IF;

	IF p_job_id IS NOT NULL THEN
		SELECT status INTO v_status FROM crawltop.jobs WHERE id = p_job_id;
		IF NOT FOUND THEN
			RAISE EXCEPTION 'job % does not exist', p_job_id USING ERRCODE = 'P0002';
		END IF;
		IF v_status NOT IN ('pending', 'running') THEN
			RETURN;
		END IF;
	END IF;

	-- This claim's starving slots: after c earlier slots of the session,
	-- floor((c + n) / m) - floor(c / m). The count wraps at a multiple of
	-- m; a rolled-back claim leaves it as it was.
	IF v_every > 0 THEN
		v_quota := ((v_slots + p_n) / v_every - v_slots / v_every)::integer;
		v_set := set_config('crawltop.claim_slots',
			((v_slots + p_n) % (v_every::bigint * 1000000))::text, false);
	END IF;

	-- The starving path collects the ids it locked into an array in a
	-- statement of its own (the subquery's LIMIT bounds it; 0005 says why
	-- not a CTE feeding the UPDATE). Its cutoff is an InitPlan value,
	-- (SELECT v_cutoff), so that the planner keeps the ordered range scan
	-- of queue_starve_* with LIMIT.
	IF v_quota > 0 AND p_job_id IS NULL THEN
[starve all]
	ELSIF v_quota > 0 THEN
		-- starving path of one job: oldest pending first
[starve job]
	END IF;
	-- One statement claims the other slots in SPEC.md's order and marks
	-- them running: the ids come from an ARRAY(...) sub-select, an
	-- InitPlan run once (so at most p_n rows: ids are primary keys, and
	-- this transaction holds every one of them locked), all jobs' or one
	-- job's, each its own statement. The statement keeps queue, leases
	-- and counters itself (crawltop.inline is on: the triggers skip it).
	IF p_job_id IS NULL THEN
[claim all]
	ELSE
[claim job]
	END IF;
	IF random() < 1.0 / 32 THEN
		PERFORM crawltop.fold_counts();
	END IF;
END $sql$;
	claim_result constant text := $sql$
	RETURNS TABLE (task_id bigint, job_id bigint, page_id bigint,
		job_priority smallint, score double precision, class smallint,
		created_at timestamptz, retry_count smallint, depth integer,
		source_type text, lease_expires_at timestamptz, domain text, path text)$sql$;
	-- claim_next's first step: all of p_task_ids completed, or an error
	-- and nothing done; which ones were not completed is looked for only
	-- when fewer were
	claim_next_completion constant text := $sql$
	IF cardinality(p_task_ids) = 1 THEN
$sql$ || completion_one || $sql$
		SELECT array_agg(u.id) INTO v_done FROM u;
	ELSIF cardinality(p_task_ids) > 1 THEN
$sql$ || completion || $sql$
		SELECT array_agg(u.id) INTO v_done FROM u;
	END IF;
	IF coalesce(cardinality(v_done), 0) < cardinality(p_task_ids) THEN
		IF EXISTS (SELECT 1 FROM unnest(p_task_ids) x
			   WHERE x <> ALL (coalesce(v_done, '{}'))) THEN
			IF NOT crawltop.worker_ok(p_worker) THEN
				PERFORM crawltop.check_worker(p_worker);
			END IF;
			RAISE EXCEPTION 'claim_next: tasks % are not running under a live lease of worker %: nothing was completed or claimed',
				(SELECT array_agg(DISTINCT x ORDER BY x) FROM unnest(p_task_ids) x
				 WHERE x <> ALL (coalesce(v_done, '{}'))), crawltop.shown(p_worker)
				USING ERRCODE = '55000';
		END IF;
	END IF;
$sql$;
	-- 0022's SET clauses and 0035's
	hot constant text := $sql$
	LANGUAGE plpgsql SECURITY DEFINER
	SET plan_cache_mode = force_generic_plan
	SET crawltop.inline = 'on'
	SET search_path = pg_catalog, pg_temp
	SET enable_seqscan = off SET enable_sort = off SET enable_material = off
	SET enable_hashjoin = off SET enable_mergejoin = off SET jit = off AS $sql$;
	body text := replace(replace(replace(replace(claim_body,
		E'[starve all]\n', replace(starving, '[which]', all_jobs)),
		E'[starve job]\n', replace(starving, '[which]', one_job)),
		E'[claim all]\n', replace(claiming, '[pick]', replace(replace(pick,
			'[which]', all_jobs), '[order]', 'q.job_priority, '))),
		E'[claim job]\n', replace(claiming, '[pick]', replace(replace(pick,
			'[which]', one_job), '[order]', '')));
BEGIN
	EXECUTE 'CREATE OR REPLACE FUNCTION crawltop.claim(p_worker text, '
		'p_n integer DEFAULT 1, p_job_id bigint DEFAULT NULL, '
		'p_lease_seconds double precision DEFAULT NULL)' || claim_result
		|| hot || quote_literal(replace(body,
			E'-- [the completion step]\n', ''));
	EXECUTE 'CREATE OR REPLACE FUNCTION crawltop.claim_next(p_worker text, '
		'p_task_ids bigint[], p_n integer DEFAULT 1, '
		'p_job_id bigint DEFAULT NULL, '
		'p_lease_seconds double precision DEFAULT NULL)' || claim_result
		|| hot || quote_literal(replace(body,
			E'-- [the completion step]\n',
			claim_next_completion));
END $do$;
