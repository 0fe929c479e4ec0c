-- 0022_claim_next.sql: one transaction a task for a worker that takes its
-- tasks one at a time, and a claim with fewer statements.
--
--   crawltop.claim_next(worker, task_ids, n, job, lease)
--       completes task_ids and then claims the next n (as claim does),
--       in one call: one transaction and one round trip per task instead
--       of two. Every one of task_ids must be running under a live lease
--       of this worker; if one is not (the reaper took it back), the call
--       raises SQLSTATE 55000 naming them and changes nothing. The claim runs after the completion, so a claim's
--       SKIP LOCKED scan never holds a row another completion waits for
--       while it waits itself (no deadlock between two workers). A worker
--       that stops completes its last tasks with complete.
--
-- The three functions are made from one text each for the completion
-- and the claim (below), so claim and claim_next cannot drift apart:
-- claim_next is claim's body with the completion step first.
--
-- What else changes on the hot path:
--   * claim reads its settings, the worker check, the reaper's probe and
--     the starvation count in one statement (four before);
--   * claim, complete and claim_next set crawltop.inline = on by a SET
--     clause of the function (two set_config calls a call before); every
--     function they call that writes tasks pins it empty (0020).

DO $do$
DECLARE
	-- the completion: the tasks this worker holds with a live lease
	-- become completed, their leases go, the counters get one delta row
	-- a job; its last CTE is u (the completed ids and their jobs)
	completion constant text := $sql$	WITH mine AS (
		SELECT t.id FROM crawltop.tasks t
		WHERE t.id = ANY (p_task_ids) AND t.status = 'running'
		  AND t.lease_owner = p_worker AND t.lease_expires_at > now()
		ORDER BY t.id
		FOR NO KEY UPDATE
	), u AS (
		UPDATE crawltop.tasks t
		SET status = 'completed', completed_at = now(),
		    lease_owner = NULL, lease_expires_at = NULL
		FROM mine WHERE t.id = mine.id
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
	complete_body constant text := $sql$
DECLARE
	n bigint;
BEGIN
	RETURN QUERY
$sql$ || completion || $sql$
	SELECT u.id FROM u;
	GET DIAGNOSTICS n = ROW_COUNT;
	IF n > 0 AND random() < 1.0 / 32 THEN
		PERFORM crawltop.fold_counts();
	END IF;
	-- a name claim refuses leases nothing: it is checked (and refused)
	-- only when nothing was completed, off the path of every success
	IF n = 0 THEN
		PERFORM crawltop.check_worker(p_worker);
	END IF;
END $sql$;
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
BEGIN
-- [the completion step]
	-- One statement reads what a claim needs before it claims: the store
	-- settings (the current version's over the defaults, as setting()
	-- merges them), whether the worker's name is allowed, whether a lease
	-- has expired (the reaper's own probe) and this session's count of
	-- claimed slots (the starvation guard's).
	SELECT coalesce(p_lease_seconds, (x.st->>'lease_seconds')::double precision, 30),
	       coalesce((x.st->>'starvation_seconds')::double precision, 300),
	       coalesce((x.st->>'starvation_every')::integer, 10),
	       crawltop.worker_ok(p_worker),
	       EXISTS (SELECT 1 FROM crawltop.leases l WHERE l.expires_at < now()),
	       coalesce(nullif(current_setting('crawltop.claim_slots', true), '')::bigint, 0)
	INTO v_lease, v_guard, v_every, v_ok, v_reap, v_slots
	FROM (SELECT coalesce(crawltop.settings_defaults()->'store', '{}')
		     || coalesce((SELECT s.value->'store' FROM crawltop.settings s
				  ORDER BY s.version DESC LIMIT 1), '{}') AS st) x;
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
		PERFORM set_config('crawltop.claim_slots',
			((v_slots + p_n) % (v_every::bigint * 1000000))::text, false);
	END IF;

	-- The starving path collects the ids it locked into an array in a
	-- statement of its own (the subquery's LIMIT bounds it; 0005 says why
	-- not a CTE feeding the UPDATE). Its cutoff is an InitPlan value,
	-- (SELECT v_cutoff), so that the planner keeps the ordered range scan
	-- of queue_starve_* with LIMIT.
	IF v_quota > 0 AND p_job_id IS NULL THEN
		SELECT coalesce(array_agg(s.id), '{}') INTO v_old FROM (
			SELECT t.id FROM crawltop.queue q
			JOIN crawltop.tasks t ON t.id = q.task_id
			WHERE q.job_priority <= 10
			  AND q.pending_since < (SELECT v_cutoff)
			  AND t.status = 'pending'
			ORDER BY q.pending_since, q.task_id
			LIMIT v_quota
			FOR UPDATE OF t SKIP LOCKED
		) s;
	ELSIF v_quota > 0 THEN
		-- starving path of one job: oldest pending first
		SELECT coalesce(array_agg(s.id), '{}') INTO v_old FROM (
			SELECT t.id FROM crawltop.queue q
			JOIN crawltop.tasks t ON t.id = q.task_id
			WHERE q.job_id = p_job_id
			  AND q.pending_since < (SELECT v_cutoff)
			  AND t.status = 'pending'
			ORDER BY q.pending_since, q.task_id
			LIMIT v_quota
			FOR UPDATE OF t SKIP LOCKED
		) s;
	END IF;
	-- One statement claims the other slots in SPEC.md's order and marks
	-- them running: the ids come from an ARRAY(...) sub-select, an
	-- InitPlan run once (so at most p_n rows: ids are primary keys, and
	-- this transaction holds every one of them locked), all jobs' or one
	-- job's by a one-time filter on p_job_id. The statement keeps queue,
	-- leases and counters itself (crawltop.inline is on: the triggers
	-- skip it).
	RETURN QUERY
	WITH u AS (
		UPDATE crawltop.tasks t
		SET status = 'running', lease_owner = p_worker,
		    lease_expires_at = v_exp, started_at = now()
		WHERE t.id = ANY (v_old || ARRAY(
			SELECT c.id FROM crawltop.queue q
			JOIN crawltop.tasks c ON c.id = q.task_id
			WHERE p_job_id IS NULL AND q.job_priority <= 10
			  AND q.task_id <> ALL (v_old)
			  AND c.status = 'pending'
			ORDER BY q.job_priority, q.score DESC, q.created_at, q.task_id
			LIMIT p_n - cardinality(v_old)
			FOR UPDATE OF c SKIP LOCKED) || ARRAY(
			SELECT c.id FROM crawltop.queue q
			JOIN crawltop.tasks c ON c.id = q.task_id
			WHERE q.job_id = p_job_id
			  AND q.task_id <> ALL (v_old)
			  AND c.status = 'pending'
			ORDER BY q.score DESC, q.created_at, q.task_id
			LIMIT p_n - cardinality(v_old)
			FOR UPDATE OF c SKIP LOCKED))
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
	-- and nothing done (a lease lost to the reaper is rare; the worker
	-- then completes what it still holds with complete, which says which)
	claim_next_completion constant text := $sql$
	IF cardinality(p_task_ids) > 0 THEN
$sql$ || completion || $sql$
		SELECT array_agg(u.id) INTO v_done FROM u;
		IF coalesce(cardinality(v_done), 0) < cardinality(p_task_ids) AND
		   EXISTS (SELECT 1 FROM unnest(p_task_ids) x
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
	hot constant text := $sql$
	LANGUAGE plpgsql SECURITY DEFINER
	SET plan_cache_mode = force_generic_plan
	SET crawltop.inline = 'on'
	SET search_path = pg_catalog, pg_temp AS $sql$;
BEGIN
	EXECUTE 'CREATE OR REPLACE FUNCTION crawltop.complete(p_worker text, '
		'p_task_ids bigint[]) RETURNS SETOF bigint' || hot
		|| quote_literal(complete_body);
	EXECUTE 'CREATE OR REPLACE FUNCTION crawltop.claim(p_worker text, '
		'p_n integer DEFAULT 1, p_job_id bigint DEFAULT NULL, '
		'p_lease_seconds double precision DEFAULT NULL)' || claim_result
		|| hot || quote_literal(replace(claim_body,
			E'-- [the completion step]\n', ''));
	EXECUTE 'CREATE FUNCTION crawltop.claim_next(p_worker text, '
		'p_task_ids bigint[], p_n integer DEFAULT 1, '
		'p_job_id bigint DEFAULT NULL, '
		'p_lease_seconds double precision DEFAULT NULL)' || claim_result
		|| hot || quote_literal(replace(claim_body,
			E'-- [the completion step]\n',
			claim_next_completion));
END $do$;

REVOKE ALL ON FUNCTION crawltop.claim_next(text, bigint[], integer, bigint,
	double precision) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION crawltop.claim_next(text, bigint[], integer, bigint,
	double precision) TO crawltop_worker;
