-- narrow.sql: an upper bound for ./dev bench peers (CT_BOUNDS), not a
-- design to ship. claim_next writing narrow tables only, never the task
-- row: a claim deletes the next queue row in SPEC.md's order (all jobs;
-- the queue row itself locked, SKIP LOCKED) and inserts its lease; a
-- completion deletes the lease and appends the task to a log. The task
-- row keeps the status it had at enqueue, so nothing else of the store
-- works with it; left out as in floor.sql: the counters, the starvation
-- guard, the settings, the checks and the domain and path. What one/C can
-- reach once a status change no longer writes the task row.
CREATE TABLE crawltop.bound_done (task_id bigint NOT NULL,
	worker text NOT NULL, at timestamptz NOT NULL);
-- the function runs with its owner's rights (CREATE OR REPLACE keeps the
-- owner, crawltop_owner)
ALTER TABLE crawltop.bound_done OWNER TO crawltop_owner;
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
		WITH d AS (
			DELETE FROM crawltop.leases l
			WHERE l.task_id = ANY (p_task_ids)
			RETURNING l.task_id
		)
		INSERT INTO crawltop.bound_done
		SELECT d.task_id, p_worker, now() FROM d;
	END IF;
	RETURN QUERY
	WITH u AS (
		DELETE FROM crawltop.queue q
		WHERE q.task_id = ANY (ARRAY(
			SELECT x.task_id FROM crawltop.queue x
			WHERE x.job_priority <= 10
			ORDER BY x.job_priority, x.score DESC, x.created_at, x.task_id
			LIMIT 1
			FOR UPDATE SKIP LOCKED))
		RETURNING q.task_id, q.job_id
	), dl AS (
		INSERT INTO crawltop.leases (task_id, expires_at)
		SELECT u.task_id, now() + interval '600 s' FROM u
	)
	SELECT u.task_id, u.job_id, NULL::bigint, NULL::smallint, NULL::float8,
	       NULL::smallint, NULL::timestamptz, NULL::smallint, NULL::integer,
	       NULL::text, NULL::timestamptz, NULL::text, NULL::text
	FROM u;
END $f$;
