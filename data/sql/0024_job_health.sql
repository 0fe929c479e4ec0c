-- 0024_job_health.sql: what the store knows of a job's crawlers.
--
-- A job whose crawlers are gone looked "pending" like a job about to be
-- crawled. crawltop.job_health(p_window) says, per job, what the console
-- needs to tell them apart, from the store alone (never from a demo or a
-- worker's own report):
--   last_claim_s    seconds since the newest second with a claim within
--                   the last p_window seconds (the rate ticks: O(ticks
--                   of the window), never tasks); NULL: none in it;
--   quiet_s         seconds since the job last showed life: its last
--                   claim, or its last change (created, resumed,
--                   reprioritised: jobs.updated_at), whichever is later
--                   (p_window at most when neither is in the window), so
--                   that a job created a moment ago is not "stalled";
--   live_leases     tasks running on a lease that has not run out;
--   expired_leases  tasks still running on a lease that has (the reaper,
--                   run by claims and by an operator's console, takes
--                   them back);
--   workers         distinct workers holding live leases;
--   next_expiry_s   seconds until the first live lease runs out.
-- The leases are read through crawltop.leases (running tasks only: its
-- rows are as many as the tasks being fetched, not the queue).
CREATE FUNCTION crawltop.job_health(p_window integer)
	RETURNS TABLE (job_id bigint, last_claim_s double precision,
		quiet_s double precision, live_leases bigint, expired_leases bigint, workers bigint,
		next_expiry_s double precision)
	LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $$
	SELECT j.id,
	       extract(epoch FROM now() - r.last)::double precision,
	       extract(epoch FROM least(now() - greatest(r.last, j.updated_at,
		       j.created_at), w.span))::double precision,
	       coalesce(l.live, 0), coalesce(l.expired, 0),
	       coalesce(l.workers, 0),
	       extract(epoch FROM l.next_expiry - now())::double precision
	FROM crawltop.jobs j
	CROSS JOIN (SELECT make_interval(secs => greatest(least(
		coalesce(p_window, 60), crawltop.rate_retention_seconds()), 1))
		AS span) w
	LEFT JOIN (
		SELECT k.job_id, max(k.second) AS last
		FROM crawltop.rate_ticks_now k
		WHERE k.claims > 0 AND k.second > now() - make_interval(secs =>
			greatest(least(coalesce(p_window, 60),
				crawltop.rate_retention_seconds()), 1))
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
