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

-- A worker name: 1 to 128 of A-Z a-z 0-9 . _ : @ / -.
CREATE FUNCTION crawltop.check_worker(p_worker text) RETURNS void
	LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
	IF p_worker IS NULL OR p_worker !~ '^[A-Za-z0-9._:@/-]{1,128}$' THEN
		RAISE EXCEPTION 'worker name % is not allowed: 1 to 128 of A-Z a-z 0-9 . _ : @ / -',
			crawltop.shown(p_worker) USING ERRCODE = '22023';
	END IF;
END $$;

-- Return up to p_limit expired leases (oldest first; rows other sessions
-- hold are skipped) to pending. An expired lease WITH an owner was a
-- worker that vanished: it counts as a failed attempt (retry_count + 1, or
-- failed when the job's max_retries are used up). One WITHOUT owner is a
-- retry whose backoff is over. A cancelled job's task becomes skipped.
-- job_priority is recomputed from the job (+ 100 while paused).
-- Returns the number of tasks changed.
CREATE FUNCTION crawltop.reap_expired(p_limit integer DEFAULT 100)
	RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
	n integer;
BEGIN
	WITH expired AS (
		SELECT t.id FROM crawltop.tasks t
		WHERE t.status = 'running' AND t.lease_expires_at < now()
		ORDER BY t.lease_expires_at
		LIMIT p_limit
		FOR UPDATE SKIP LOCKED
	), next AS (
		SELECT t.id,
		       CASE WHEN j.status = 'cancelled' THEN 'skipped'
			    WHEN t.lease_owner IS NULL THEN 'pending'
			    WHEN t.retry_count >= j.max_retries THEN 'failed'
			    ELSE 'pending' END AS status,
		       j.priority + CASE WHEN j.status = 'paused' THEN 100 ELSE 0 END
			   AS job_priority
		FROM expired e
		JOIN crawltop.tasks t ON t.id = e.id
		JOIN crawltop.jobs j ON j.id = t.job_id
	)
	UPDATE crawltop.tasks t
	SET status = x.status,
	    job_priority = x.job_priority,
	    retry_count = t.retry_count + CASE WHEN t.lease_owner IS NOT NULL
		AND x.status = 'pending' THEN 1 ELSE 0 END,
	    last_error = CASE WHEN t.lease_owner IS NOT NULL
		THEN 'lease of ' || t.lease_owner || ' expired' ELSE t.last_error END,
	    completed_at = CASE WHEN x.status <> 'pending' THEN now() END,
	    lease_owner = NULL,
	    lease_expires_at = NULL
	FROM next x
	WHERE t.id = x.id;
	GET DIAGNOSTICS n = ROW_COUNT;
	RETURN n;
END $$;

-- Claim up to p_n tasks for worker p_worker, from job p_job_id or (NULL)
-- from all jobs, in SPEC.md's order, under a lease of p_lease_seconds
-- (NULL: setting store.lease_seconds, 30). Expired leases are reaped
-- first. Rows other workers are claiming are skipped, never waited for.
-- A paused, cancelled or completed job hands out nothing. The rows come
-- back in no particular order (the C API sorts them).
CREATE FUNCTION crawltop.claim(p_worker text, p_n integer DEFAULT 1,
		p_job_id bigint DEFAULT NULL,
		p_lease_seconds double precision DEFAULT NULL)
	RETURNS TABLE (task_id bigint, job_id bigint, page_id bigint,
		job_priority smallint, score double precision, class smallint,
		created_at timestamptz, retry_count smallint, depth integer,
		source_type text, lease_expires_at timestamptz, domain text,
		path text)
	LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
	v_lease double precision := coalesce(p_lease_seconds,
		(crawltop.setting('{store,lease_seconds}'))::double precision, 30);
	v_exp timestamptz;
	v_status text;
BEGIN
	PERFORM crawltop.check_worker(p_worker);
	IF p_n IS NULL OR p_n NOT BETWEEN 1 AND 10000 THEN
		RAISE EXCEPTION 'claim size % is outside 1..10000', coalesce(p_n::text, 'NULL')
			USING ERRCODE = '22003';
	END IF;
	IF NOT (v_lease > 0 AND v_lease <= 86400) THEN
		RAISE EXCEPTION 'lease of % seconds is outside (0, 86400]', v_lease
			USING ERRCODE = '22003';
	END IF;
	v_exp := now() + make_interval(secs => v_lease);
	PERFORM crawltop.reap_expired(100);

	IF p_job_id IS NULL THEN
		RETURN QUERY
		WITH c AS (
			SELECT t.id FROM crawltop.tasks t
			WHERE t.status = 'pending' AND t.job_priority <= 10
			ORDER BY t.job_priority, t.score DESC, t.created_at, t.id
			LIMIT p_n
			FOR UPDATE SKIP LOCKED
		), u AS (
			UPDATE crawltop.tasks t
			SET status = 'running', lease_owner = p_worker,
			    lease_expires_at = v_exp, started_at = now()
			FROM c WHERE t.id = c.id
			RETURNING t.*
		)
		SELECT u.id, u.job_id, u.page_id, u.job_priority, u.score, u.class,
		       u.created_at, u.retry_count, u.depth, u.source_type,
		       u.lease_expires_at, d.name, p.path
		FROM u
		JOIN crawltop.pages p ON p.id = u.page_id
		JOIN crawltop.domains d ON d.id = p.domain_id;
		RETURN;
	END IF;

	SELECT status INTO v_status FROM crawltop.jobs WHERE id = p_job_id;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'job % does not exist', p_job_id USING ERRCODE = 'P0002';
	END IF;
	IF v_status NOT IN ('pending', 'running') THEN
		RETURN;
	END IF;
	RETURN QUERY
	WITH c AS (
		SELECT t.id FROM crawltop.tasks t
		WHERE t.status = 'pending' AND t.job_id = p_job_id
		ORDER BY t.score DESC, t.created_at, t.id
		LIMIT p_n
		FOR UPDATE SKIP LOCKED
	), u AS (
		UPDATE crawltop.tasks t
		SET status = 'running', lease_owner = p_worker,
		    lease_expires_at = v_exp, started_at = now()
		FROM c WHERE t.id = c.id
		RETURNING t.*
	)
	SELECT u.id, u.job_id, u.page_id, u.job_priority, u.score, u.class,
	       u.created_at, u.retry_count, u.depth, u.source_type,
	       u.lease_expires_at, d.name, p.path
	FROM u
	JOIN crawltop.pages p ON p.id = u.page_id
	JOIN crawltop.domains d ON d.id = p.domain_id;
END $$;

-- Complete the tasks of p_task_ids that run under a live lease of
-- p_worker; returns the ids completed. Any other id (completed already,
-- leased to someone else, lease expired, unknown) is left alone: a task is
-- never completed twice.
CREATE FUNCTION crawltop.complete(p_worker text, p_task_ids bigint[])
	RETURNS SETOF bigint LANGUAGE sql AS $$
	UPDATE crawltop.tasks
	SET status = 'completed', completed_at = now(),
	    lease_owner = NULL, lease_expires_at = NULL
	WHERE id = ANY (p_task_ids) AND status = 'running'
	  AND lease_owner = p_worker AND lease_expires_at > now()
	RETURNING id
$$;

-- Record a failed attempt of tasks leased to p_worker (live lease). With
-- retries left (retry_count < the job's max_retries) the task waits for
-- min(retry_base_seconds x 2^retry_count, retry_max_seconds) under a lease
-- without owner, then is claimable again; otherwise it is failed. Returns
-- each task handled with its new status and retry time.
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
BEGIN
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
END $$;

-- Give tasks leased to p_worker back without counting an attempt: they are
-- pending again at once (skipped if their job was cancelled). Returns the
-- ids released.
CREATE FUNCTION crawltop.release(p_worker text, p_task_ids bigint[])
	RETURNS SETOF bigint LANGUAGE sql AS $$
	UPDATE crawltop.tasks t
	SET status = CASE WHEN j.status = 'cancelled' THEN 'skipped' ELSE 'pending' END,
	    job_priority = j.priority + CASE WHEN j.status = 'paused' THEN 100 ELSE 0 END,
	    completed_at = CASE WHEN j.status = 'cancelled' THEN now() END,
	    lease_owner = NULL, lease_expires_at = NULL
	FROM crawltop.jobs j
	WHERE j.id = t.job_id AND t.id = ANY (p_task_ids) AND t.status = 'running'
	  AND t.lease_owner = p_worker
	RETURNING t.id
$$;
