-- floor.sql: an upper bound for ./dev bench peers (CT_BOUNDS), not a
-- design to ship. claim_next doing only what graphile-worker's default
-- mode does, on crawltop's tables as they are: the held task marked
-- completed, the next pending task in SPEC.md's order (all jobs) marked
-- running and its queue row deleted. Left out: the leases table, the
-- counter deltas and their fold, the starvation guard, the store
-- settings, the worker-name check, the reaper's probe, the job check and
-- the task's domain and path in the result. What one/C can reach with
-- the wide task row written twice a task.
CREATE OR REPLACE FUNCTION crawltop.claim_next(p_worker text,
	p_task_ids bigint[], p_n integer DEFAULT 1, p_job_id bigint DEFAULT NULL,
	p_lease_seconds double precision DEFAULT NULL)
RETURNS TABLE (task_id bigint, job_id bigint, page_id bigint,
	job_priority smallint, score double precision, class smallint,
	created_at timestamptz, retry_count smallint, depth integer,
	source_type text, lease_expires_at timestamptz, domain text, path text)
LANGUAGE plpgsql SECURITY DEFINER
	SET plan_cache_mode = force_generic_plan
	SET crawltop.inline = 'on'
	SET search_path = pg_catalog, pg_temp
	SET enable_seqscan = off SET enable_sort = off SET enable_material = off
	SET enable_hashjoin = off SET enable_mergejoin = off SET jit = off AS $f$
#variable_conflict use_column
BEGIN
	IF cardinality(p_task_ids) > 0 THEN
		UPDATE crawltop.tasks t
		SET status = 'completed', completed_at = now(),
		    lease_owner = NULL, lease_expires_at = NULL
		WHERE t.id = ANY (p_task_ids) AND t.status = 'running'
		  AND t.lease_owner = p_worker;
	END IF;
	RETURN QUERY
	WITH u AS (
		UPDATE crawltop.tasks t
		SET status = 'running', lease_owner = p_worker,
		    lease_expires_at = now() + interval '600 s', started_at = now()
		WHERE t.id = ANY (ARRAY(
			SELECT c.id FROM crawltop.queue q
			JOIN crawltop.tasks c ON c.id = q.task_id
			WHERE q.job_priority <= 10 AND c.status = 'pending'
			ORDER BY q.job_priority, q.score DESC, q.created_at, q.task_id
			LIMIT 1
			FOR UPDATE OF c SKIP LOCKED))
		  AND t.status = 'pending'
		RETURNING t.id, t.job_id
	), dq AS (
		DELETE FROM crawltop.queue q USING u WHERE q.task_id = u.id
	)
	SELECT u.id, u.job_id, NULL::bigint, NULL::smallint, NULL::float8,
	       NULL::smallint, NULL::timestamptz, NULL::smallint, NULL::integer,
	       NULL::text, NULL::timestamptz, NULL::text, NULL::text
	FROM u;
END $f$;
