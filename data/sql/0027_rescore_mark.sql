-- 0027_rescore_mark.sql: a job left half-rescored says so until a
-- rescore completes.
--
-- A mode change (set_job_mode) leaves a job's tasks on their old scores
-- until a rescore rewrites them, batch by batch (0005); so does a new
-- settings version until the console's apply has rescored each job. A
-- rescore stopped from the console, or one that failed, left the job in
-- its new mode, or under the new settings, with most tasks on old scores,
-- and nothing showed it afterwards. Two columns of the job say so:
--   rescore_needed_at  when a change its tasks are not yet all rescored
--                      for was made; NULL: none;
--   rescore_reason     that change, in words ("mode fifo", "settings v7").
-- set_job_mode sets them (for a job with unfinished tasks);
-- crawltop.rescore_needed sets them for the jobs a settings change is
-- about to rescore (the console calls it before its first rescore, so
-- that the jobs a stopped apply never reached are marked too); and
-- crawltop.rescore_finish, called by the C API when a rescore went
-- through every unfinished task, clears them unless a newer change came
-- after the rescore began. Nothing is written per task. A settings change
-- made without a rescore (`crawltop settings set`) marks nothing: which
-- modes a key changes is the engine's to say, not the store's.
ALTER TABLE crawltop.jobs ADD COLUMN rescore_needed_at timestamptz,
	ADD COLUMN rescore_reason text;

-- 0005's set_job_mode, marking the job until its rescore completes.
CREATE OR REPLACE FUNCTION crawltop.set_job_mode(p_job_id bigint, p_mode text)
	RETURNS bigint LANGUAGE plpgsql SECURITY DEFINER
	SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	j crawltop.jobs;
	n bigint;
BEGIN
	PERFORM crawltop.check_mode(p_mode);
	j := crawltop.lock_job(p_job_id);
	IF j.status IN ('completed', 'cancelled') THEN
		RAISE EXCEPTION 'job % (%) is %: its mode cannot change', j.id, j.name,
			j.status USING ERRCODE = '55000';
	END IF;
	SELECT count(*) INTO n FROM crawltop.tasks
	WHERE job_id = j.id AND status IN ('pending', 'running');
	UPDATE crawltop.jobs SET prioritization_mode = p_mode, updated_at = now(),
		rescore_needed_at = CASE WHEN n > 0 THEN now()
			ELSE rescore_needed_at END,
		rescore_reason = CASE WHEN n > 0 THEN 'mode ' || p_mode
			ELSE rescore_reason END
	WHERE id = j.id;
	INSERT INTO crawltop.audit_log (action, job_id, before, after, rows_affected)
	VALUES ('job.mode', j.id, jsonb_build_object('mode', j.prioritization_mode),
		jsonb_build_object('mode', p_mode, 'tasks_to_rescore', n), 1);
	RETURN n;
END $$;

-- Jobs p_jobs are about to be rescored for p_reason (at most 200
-- characters, say "settings v7"): marked until their rescore completes.
-- Finished jobs are skipped. Returns the jobs marked.
CREATE FUNCTION crawltop.rescore_needed(p_jobs bigint[], p_reason text)
	RETURNS bigint LANGUAGE plpgsql SECURITY DEFINER
	SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	n bigint;
BEGIN
	IF p_reason IS NULL OR p_reason = '' OR length(p_reason) > 200 THEN
		RAISE EXCEPTION 'a rescore reason is 1 to 200 characters, not %',
			crawltop.shown(p_reason) USING ERRCODE = '22023';
	END IF;
	UPDATE crawltop.jobs SET rescore_needed_at = now(),
		rescore_reason = p_reason
	WHERE id = ANY (p_jobs) AND status NOT IN ('completed', 'cancelled');
	GET DIAGNOSTICS n = ROW_COUNT;
	RETURN n;
END $$;

-- A rescore of job p_job_id in mode p_mode, begun at p_began, went
-- through every unfinished task: the job's mark is cleared, unless the
-- mode changed meanwhile or a change came after p_began. Returns
-- whether it cleared one.
CREATE FUNCTION crawltop.rescore_finish(p_job_id bigint, p_mode text,
		p_began timestamptz)
	RETURNS boolean LANGUAGE plpgsql SECURITY DEFINER
	SET search_path = pg_catalog, pg_temp AS $$
BEGIN
	UPDATE crawltop.jobs SET rescore_needed_at = NULL, rescore_reason = NULL
	WHERE id = p_job_id AND prioritization_mode = p_mode
	  AND rescore_needed_at <= p_began;
	RETURN FOUND;
END $$;

DO $$
DECLARE
	f regprocedure;
BEGIN
	FOREACH f IN ARRAY ARRAY[
		'crawltop.rescore_needed(bigint[], text)',
		'crawltop.rescore_finish(bigint, text, timestamptz)'
	]::regprocedure[] LOOP
		EXECUTE format('REVOKE ALL ON FUNCTION %s FROM PUBLIC', f);
		EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO crawltop_operator', f);
	END LOOP;
END $$;

-- 0024's job_health with the mark (and the window computed once).
DROP FUNCTION crawltop.job_health(integer);
CREATE FUNCTION crawltop.job_health(p_window integer)
	RETURNS TABLE (job_id bigint, last_claim_s double precision,
		quiet_s double precision, live_leases bigint, expired_leases bigint,
		workers bigint, next_expiry_s double precision,
		rescore_needed_s double precision, rescore_reason text)
	LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $$
	WITH w AS (SELECT make_interval(secs => greatest(least(
		coalesce(p_window, 60), crawltop.rate_retention_seconds()), 1))
		AS span)
	SELECT j.id,
	       extract(epoch FROM now() - r.last)::double precision,
	       extract(epoch FROM least(now() - greatest(r.last, j.updated_at,
		       j.created_at), w.span))::double precision,
	       coalesce(l.live, 0), coalesce(l.expired, 0),
	       coalesce(l.workers, 0),
	       extract(epoch FROM l.next_expiry - now())::double precision,
	       extract(epoch FROM now() - j.rescore_needed_at)::double precision,
	       j.rescore_reason
	FROM crawltop.jobs j
	CROSS JOIN w
	LEFT JOIN (
		SELECT k.job_id, max(k.second) AS last
		FROM crawltop.rate_ticks_now k, w
		WHERE k.claims > 0 AND k.second > now() - w.span
		GROUP BY k.job_id
	) r ON r.job_id = j.id
	LEFT JOIN (
		SELECT t.job_id,
		       count(*) FILTER (WHERE t.lease_expires_at > now()) AS live,
		       count(*) FILTER (WHERE t.lease_expires_at <= now()) AS expired,
		       count(DISTINCT t.lease_owner)
			   FILTER (WHERE t.lease_expires_at > now()) AS workers,
		       min(t.lease_expires_at)
			   FILTER (WHERE t.lease_expires_at > now()) AS next_expiry
		FROM crawltop.leases le
		JOIN crawltop.tasks t ON t.id = le.task_id
		WHERE t.status = 'running' AND t.lease_owner IS NOT NULL
		GROUP BY t.job_id
	) l ON l.job_id = j.id
	ORDER BY j.id
$$;
REVOKE ALL ON FUNCTION crawltop.job_health(integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION crawltop.job_health(integer) TO crawltop_viewer;
