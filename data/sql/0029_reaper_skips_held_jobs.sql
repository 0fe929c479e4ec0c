-- 0029_reaper_skips_held_jobs.sql: the reaper never waits for a job row.
--
-- reap_expired (0020) locks the expired tasks it takes (SKIP LOCKED),
-- then their jobs' rows FOR KEY SHARE, waiting for a job a change holds
-- FOR UPDATE. A change locks the job first and then the job's tasks: with
-- the reaper holding one of those tasks and waiting for the job, the two
-- waited for each other, and deadlock detection rolled one back. Every
-- claim calls the reaper, so the claim was the one lost now and then
-- (test store_stats, 6 workers and an operator: "claim: deadlock
-- detected"). The reaper now skips the tasks of a job held by a change
-- (FOR KEY SHARE SKIP LOCKED); the next reap, by the next claim or an
-- operator's console, takes them once the change has committed.
CREATE OR REPLACE FUNCTION crawltop.reap_expired(p_limit integer DEFAULT 100)
	RETURNS integer LANGUAGE plpgsql SECURITY DEFINER
	SET search_path = pg_catalog, pg_temp SET crawltop.inline = '' AS $$
DECLARE
	n integer;
	v_ids bigint[];
	v_jobs bigint[];
	c jsonb;
	v_max integer;
BEGIN
	IF p_limit IS NULL OR p_limit < 0 THEN
		RAISE EXCEPTION 'reap limit % is negative', coalesce(p_limit::text, 'NULL')
			USING ERRCODE = '22003';
	END IF;
	-- every claim calls this: when nothing expired (the common case), one
	-- probe of leases_expiry, and no UPDATE
	IF NOT EXISTS (SELECT 1 FROM crawltop.leases l WHERE l.expires_at < now()) THEN
		RETURN 0;
	END IF;
	-- the expired leases first (a subquery with its own LIMIT, which the
	-- planner keeps: it cannot start from tasks, whose statistics say
	-- almost no task runs), up to four times the batch so that leases
	-- another reaper holds are stepped over; then their tasks, locked,
	-- with the lease's expiry rechecked on the row's newest version (a
	-- completion may have ended it meanwhile)
	SELECT array_agg(e.id) INTO v_ids FROM (
		SELECT t.id FROM (
			SELECT l.task_id, l.expires_at FROM crawltop.leases l
			WHERE l.expires_at < now()
			ORDER BY l.expires_at
			LIMIT 4 * p_limit) l
		JOIN crawltop.tasks t ON t.id = l.task_id
		WHERE t.status = 'running' AND t.lease_expires_at < now()
		ORDER BY l.expires_at
		LIMIT p_limit
		FOR UPDATE OF t SKIP LOCKED) e;
	IF v_ids IS NULL THEN
		RETURN 0;
	END IF;
	-- their jobs' state and priority, held until commit (0005); a job
	-- a change holds (FOR UPDATE: set_job_priority, set_job_state, ...)
	-- is skipped, its tasks left for the next reap: waiting for the job
	-- row while holding task rows the change will lock next closed a
	-- cycle, and deadlock detection rolled back the claim that reaped
	SELECT array_agg(j.id) INTO v_jobs FROM (
		SELECT j.id FROM crawltop.jobs j
		WHERE j.id IN (SELECT t.job_id FROM crawltop.tasks t
			       WHERE t.id = ANY (v_ids))
		ORDER BY j.id FOR KEY SHARE SKIP LOCKED) j;
	IF v_jobs IS NULL THEN
		RETURN 0;
	END IF;
	v_ids := ARRAY(SELECT t.id FROM crawltop.tasks t
		       WHERE t.id = ANY (v_ids) AND t.job_id = ANY (v_jobs));
	c := crawltop.setting('{classes}');
	v_max := coalesce((crawltop.setting('{store,max_expiries}'))::integer, 10);
	WITH next AS (
		SELECT t.id,
		       CASE WHEN j.status = 'cancelled' THEN 'skipped'
			    WHEN t.lease_owner IS NULL THEN 'pending'
			    WHEN t.expiries >= v_max THEN 'failed'
			    ELSE 'pending' END AS status,
		       j.priority + CASE WHEN j.status = 'paused' THEN 100 ELSE 0 END
			   AS job_priority,
		       crawltop.base_on_return(j.prioritization_mode, t.base_score,
			   p.priority_score) AS base
		FROM crawltop.tasks t
		JOIN crawltop.jobs j ON j.id = t.job_id
		JOIN crawltop.pages p ON p.id = t.page_id
		WHERE t.id = ANY (v_ids)
	)
	UPDATE crawltop.tasks t
	SET status = x.status,
	    job_priority = x.job_priority,
	    base_score = CASE WHEN x.status = 'pending' THEN x.base
		ELSE t.base_score END,
	    score = CASE WHEN x.status = 'pending' AND x.base > t.base_score
		THEN least(100, greatest(0, x.base + t.adjustment))
		ELSE t.score END,
	    class = CASE WHEN x.status = 'pending' AND x.base > t.base_score
		THEN crawltop.class_of(least(100, greatest(0,
		    x.base + t.adjustment)), (c->>'p0')::double precision,
		    (c->>'p1')::double precision, (c->>'p2')::double precision)
		ELSE t.class END,
	    expiries = t.expiries + CASE WHEN t.lease_owner IS NOT NULL
		THEN 1 ELSE 0 END,
	    last_error = CASE
		WHEN t.lease_owner IS NOT NULL AND x.status = 'failed'
		THEN 'lease of ' || t.lease_owner || ' expired (' ||
		     (t.expiries + 1) || ' expiries, store.max_expiries = ' ||
		     v_max || ')'
		WHEN t.lease_owner IS NOT NULL
		THEN 'lease of ' || t.lease_owner || ' expired'
		ELSE t.last_error END,
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
