-- 0016_job_locks.sql: the reaper and release no longer deadlock with
-- enqueue.
--
-- 0005 made release and the reaper hold their tasks' job rows FOR SHARE,
-- so that a job change (pause, resume, cancel, priority; lock_job held the
-- row FOR NO KEY UPDATE) comes wholly before or after them. But enqueue
-- holds its job row FOR NO KEY UPDATE too (it keeps total_pages), and
-- FOR SHARE waits for that. The reaper takes its expired tasks first
-- (SKIP LOCKED), then the job; an enqueue that holds the job and reports
-- one of those tasks' pages again waits for the task: a deadlock (a
-- review: `crawltop simulate --fail-rate 0.05` with short retry backoffs
-- died of it 5 runs in 5).
--
-- Now the lock strengths say who must wait for whom:
--   lock_job (every job change)          FOR UPDATE
--   enqueue, set_score_inputs,
--   apply_sitemap_priorities (UPDATE)    FOR NO KEY UPDATE, as before
--   release, reap_expired                FOR KEY SHARE
-- FOR KEY SHARE conflicts with FOR UPDATE only: release and the reaper
-- still come wholly before or after a job change, and no longer wait for
-- an enqueue, which never waits for them on the job row either. (The
-- foreign key checks of tasks inserted for a job take FOR KEY SHARE as
-- well, so a job change also waits for, and holds off, inserts of the
-- job's tasks, which enqueue's own lock already did.) A job change still
-- never waits for running tasks, so release and the reaper, which lock
-- running tasks, cannot form a cycle with it.

-- The job row of p_job_id, locked for a change of the job (FOR UPDATE);
-- P0002 when there is none. Every operator change of a job calls it first.
CREATE OR REPLACE FUNCTION crawltop.lock_job(p_job_id bigint)
	RETURNS crawltop.jobs LANGUAGE plpgsql SECURITY DEFINER
	SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	j crawltop.jobs;
BEGIN
	SELECT * INTO j FROM crawltop.jobs WHERE id = p_job_id FOR UPDATE;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'job % does not exist', coalesce(p_job_id::text, 'NULL')
			USING ERRCODE = 'P0002';
	END IF;
	RETURN j;
END $$;

-- As in 0005 (reap_expired: see there), the job rows FOR KEY SHARE.
CREATE OR REPLACE FUNCTION crawltop.reap_expired(p_limit integer DEFAULT 100)
	RETURNS integer LANGUAGE plpgsql SECURITY DEFINER
	SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	n integer;
	v_ids bigint[];
BEGIN
	IF p_limit IS NULL OR p_limit < 0 THEN
		RAISE EXCEPTION 'reap limit % is negative', coalesce(p_limit::text, 'NULL')
			USING ERRCODE = '22003';
	END IF;
	-- every claim calls this: when nothing expired (the common case), one
	-- probe of tasks_lease, and no UPDATE (whose statement trigger would
	-- fire for no row)
	IF NOT EXISTS (SELECT 1 FROM crawltop.tasks t
		       WHERE t.status = 'running' AND t.lease_expires_at < now()) THEN
		RETURN 0;
	END IF;
	SELECT array_agg(e.id) INTO v_ids FROM (
		SELECT t.id FROM crawltop.tasks t
		WHERE t.status = 'running' AND t.lease_expires_at < now()
		ORDER BY t.lease_expires_at
		LIMIT p_limit
		FOR UPDATE SKIP LOCKED) e;
	IF v_ids IS NULL THEN
		RETURN 0;
	END IF;
	-- their jobs' state and priority, held until commit (KEY SHARE: see
	-- the top)
	PERFORM 1 FROM crawltop.jobs j
	WHERE j.id IN (SELECT t.job_id FROM crawltop.tasks t WHERE t.id = ANY (v_ids))
	ORDER BY j.id FOR KEY SHARE;
	WITH next AS (
		SELECT t.id,
		       CASE WHEN j.status = 'cancelled' THEN 'skipped'
			    WHEN t.lease_owner IS NULL THEN 'pending'
			    WHEN t.retry_count >= j.max_retries THEN 'failed'
			    ELSE 'pending' END AS status,
		       j.priority + CASE WHEN j.status = 'paused' THEN 100 ELSE 0 END
			   AS job_priority
		FROM crawltop.tasks t
		JOIN crawltop.jobs j ON j.id = t.job_id
		WHERE t.id = ANY (v_ids)
	)
	UPDATE crawltop.tasks t
	SET status = x.status,
	    job_priority = x.job_priority,
	    retry_count = t.retry_count + CASE WHEN t.lease_owner IS NOT NULL
		AND x.status = 'pending' THEN 1 ELSE 0 END,
	    last_error = CASE WHEN t.lease_owner IS NOT NULL
		THEN 'lease of ' || t.lease_owner || ' expired' ELSE t.last_error END,
	    completed_at = CASE WHEN x.status <> 'pending' THEN now() END,
	    pending_since = CASE WHEN x.status = 'pending' THEN now()
		ELSE t.pending_since END,
	    lease_owner = NULL,
	    lease_expires_at = NULL
	FROM next x
	WHERE t.id = x.id;
	GET DIAGNOSTICS n = ROW_COUNT;
	RETURN n;
END $$;

-- As in 0005 (release: see there), the job rows FOR KEY SHARE.
CREATE OR REPLACE FUNCTION crawltop.release(p_worker text, p_task_ids bigint[])
	RETURNS SETOF bigint LANGUAGE plpgsql SECURITY DEFINER
	SET search_path = pg_catalog, pg_temp AS $$
BEGIN
	-- the jobs first, held until commit (KEY SHARE: see the top)
	PERFORM 1 FROM crawltop.jobs j
	WHERE j.id IN (SELECT t.job_id FROM crawltop.tasks t
		       WHERE t.id = ANY (p_task_ids) AND t.status = 'running'
			 AND t.lease_owner = p_worker)
	ORDER BY j.id FOR KEY SHARE;
	RETURN QUERY
	WITH mine AS (
		SELECT t.id FROM crawltop.tasks t
		WHERE t.id = ANY (p_task_ids) AND t.status = 'running'
		  AND t.lease_owner = p_worker
		ORDER BY t.id
		FOR NO KEY UPDATE
	)
	UPDATE crawltop.tasks t
	SET status = CASE WHEN j.status = 'cancelled' THEN 'skipped' ELSE 'pending' END,
	    job_priority = j.priority + CASE WHEN j.status = 'paused' THEN 100 ELSE 0 END,
	    completed_at = CASE WHEN j.status = 'cancelled' THEN now() END,
	    pending_since = now(),
	    lease_owner = NULL, lease_expires_at = NULL
	FROM mine, crawltop.jobs j
	WHERE t.id = mine.id AND j.id = t.job_id
	RETURNING t.id;
END $$;
