-- 0003_claim.sql: handing tasks out to workers under leases.
--
-- Life of a task:
--   pending --claim--> running (lease_owner = worker, lease_expires_at)
--   running --complete (owner, live lease)--> completed
--   running --fail, retries left--> running without owner until the
--            backoff time (a lease nobody holds), then pending again
--   running --fail, no retries left--> failed
--   running --release (owner)--> pending
--   running --lease expired--> pending (retry_count + 1), or failed when
--            the retries are used up, or skipped when the job was cancelled
-- Expired leases are returned by crawltop.reap_expired, which every claim
-- runs first, so no timer process is needed and nothing scans for retry
-- times: an index on lease_expires_at of running tasks finds them.
--
-- Claim order is SPEC.md's: job priority (1 first), score (higher first),
-- discovery time (earlier first), task id. The partial indexes of
-- 0001_schema.sql hold exactly that order, so a claim is an index range
-- scan that stops after n rows: no Sort over the pending set.
--
-- This file defines check_worker, complete and fail. claim, reap_expired
-- and release set tasks.pending_since, the starvation guard's clock, and
-- so are defined in 0005_claims_and_modes.sql, which adds that column.
--
-- Lock order: complete, fail and release (0005) lock the worker's task
-- rows in task id order before they change them, as the operator's
-- functions (0004, 0005) and a rescore (0005) lock a job's tasks, so
-- that the functions that wait for many task rows all take them in task
-- id order and cannot deadlock with one another (claim and the reaper
-- never wait: SKIP LOCKED).

-- A worker name: 1 to 128 of A-Z a-z 0-9 . _ : @ / -.
CREATE FUNCTION crawltop.check_worker(p_worker text) RETURNS void
	LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
	IF p_worker IS NULL OR p_worker !~ '^[A-Za-z0-9._:@/-]{1,128}$' THEN
		RAISE EXCEPTION 'worker name % is not allowed: 1 to 128 of A-Z a-z 0-9 . _ : @ / -',
			crawltop.shown(p_worker) USING ERRCODE = '22023';
	END IF;
END $$;

-- Complete the tasks of p_task_ids that run under a live lease of
-- p_worker (a name check_worker refuses is 22023, as in claim, when no
-- task was completed); returns the ids completed. Any other id (completed already,
-- leased to someone else, lease expired, unknown) is left alone: a task is
-- never completed twice. The worker's rows are locked in task id order
-- first (a single UPDATE would lock them in whatever order its plan met
-- them, through tasks_lease: lease expiry order, which could deadlock with
-- anyone locking many tasks in id order). One statement, in PL/pgSQL so
-- that its plan is cached for the session: a LANGUAGE sql function is
-- parsed and planned again at every call (that was 17 % of a one-task
-- claim+complete, measured with perf).
CREATE FUNCTION crawltop.complete(p_worker text, p_task_ids bigint[])
	RETURNS SETOF bigint LANGUAGE plpgsql AS $$
DECLARE
	n bigint;
BEGIN
	RETURN QUERY
	WITH mine AS (
		SELECT t.id FROM crawltop.tasks t
		WHERE t.id = ANY (p_task_ids) AND t.status = 'running'
		  AND t.lease_owner = p_worker AND t.lease_expires_at > now()
		ORDER BY t.id
		FOR NO KEY UPDATE
	)
	UPDATE crawltop.tasks t
	SET status = 'completed', completed_at = now(),
	    lease_owner = NULL, lease_expires_at = NULL
	FROM mine WHERE t.id = mine.id
	RETURNING t.id;
	-- a name claim refuses leases nothing: it is checked (and refused)
	-- only when nothing was completed, off the path of every success
	GET DIAGNOSTICS n = ROW_COUNT;
	IF n = 0 THEN
		PERFORM crawltop.check_worker(p_worker);
	END IF;
END $$;

-- Record a failed attempt of tasks leased to p_worker (live lease). With
-- retries left (retry_count < the job's max_retries) the task waits for
-- min(retry_base_seconds x 2^retry_count, retry_max_seconds) under a lease
-- without owner, then is claimable again; otherwise it is failed. The
-- worker's rows are locked in task id order first. Returns each task
-- handled with its new status and retry time.
CREATE FUNCTION crawltop.fail(p_worker text, p_task_ids bigint[],
		p_error text DEFAULT NULL)
	RETURNS TABLE (task_id bigint, status text, retry_at timestamptz)
	LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
	v_base double precision := coalesce(
		(crawltop.setting('{store,retry_base_seconds}'))::double precision, 10);
	v_max double precision := coalesce(
		(crawltop.setting('{store,retry_max_seconds}'))::double precision, 600);
	n bigint;
BEGIN
	PERFORM 1 FROM crawltop.tasks t
	WHERE t.id = ANY (p_task_ids) AND t.status = 'running'
	  AND t.lease_owner = p_worker AND t.lease_expires_at > now()
	ORDER BY t.id FOR NO KEY UPDATE;
	RETURN QUERY
	UPDATE crawltop.tasks t
	SET status = CASE WHEN t.retry_count < j.max_retries THEN 'running'
			  ELSE 'failed' END,
	    retry_count = t.retry_count + CASE WHEN t.retry_count < j.max_retries
		THEN 1 ELSE 0 END,
	    lease_owner = NULL,
	    lease_expires_at = CASE WHEN t.retry_count < j.max_retries
		THEN now() + make_interval(secs => least(v_base * 2 ^ t.retry_count, v_max))
		END,
	    completed_at = CASE WHEN t.retry_count < j.max_retries THEN NULL
		ELSE now() END,
	    last_error = left(p_error, 2000)
	FROM crawltop.jobs j
	WHERE j.id = t.job_id AND t.id = ANY (p_task_ids) AND t.status = 'running'
	  AND t.lease_owner = p_worker AND t.lease_expires_at > now()
	RETURNING t.id, t.status, t.lease_expires_at;
	GET DIAGNOSTICS n = ROW_COUNT;
	IF n = 0 THEN -- as in complete
		PERFORM crawltop.check_worker(p_worker);
	END IF;
END $$;
