-- 0035_plan_stability.sql: the hot path's plans stay index plans however
-- small the store was when a session made them.
--
-- A session plans each statement of a plpgsql function once and keeps
-- the plan (claim, claim_next and complete even force the generic plan).
-- A worker or crawler whose session begins on an empty or young store
-- (the usual start: workers up, then the crawl seeded) got plans costed
-- for a few rows: the claim joined queue and tasks by sequential scans in
-- a nested loop and sorted the result, and kept doing so as the job grew.
-- Measured: a session that claimed once at 20 tasks then took 1.7 s a
-- claim at 5,000 (a fresh session: 1.7 ms), quadratic in the queue; the
-- one-job claim also sorted every pending task of its job where the
-- generic estimate made the job look small. 0005 had fixed the same for
-- set_score_inputs alone.
--
-- With enable_seqscan off a plan scans a whole table only where no index
-- serves; with enable_sort off the claims read the claim-order indexes in
-- order (queue_claim_all, queue_claim_job, queue_starve_*) rather than
-- sorting a job's queue; with no materialising, hash or merge join they
-- reach a task by a primary-key probe. A function's SET applies to the
-- functions and triggers it calls: fold_counts, which the claims call,
-- pins sorting back on, and the reaper (below) plans with the claims'
-- settings whoever calls it. jit goes off with them: the planner marks a
-- plan it could not avoid (a scan of count_deltas, which has no index, in
-- fold_counts) with a cost of 1e10, far past jit_above_cost, and each
-- execution then compiled its plan (800 ms a fold, measured); no
-- statement of the hot path is worth compiling. tests/store/test_plans.c
-- checks the plans of a session that grew.
ALTER FUNCTION crawltop.claim(text, integer, bigint, double precision)
	SET enable_seqscan = off SET enable_sort = off SET enable_material = off
	SET enable_hashjoin = off SET enable_mergejoin = off SET jit = off;
ALTER FUNCTION crawltop.claim_next(text, bigint[], integer, bigint,
		double precision)
	SET enable_seqscan = off SET enable_sort = off SET enable_material = off
	SET enable_hashjoin = off SET enable_mergejoin = off SET jit = off;
ALTER FUNCTION crawltop.complete(text, bigint[])
	SET enable_seqscan = off SET jit = off;
ALTER FUNCTION crawltop.fail(text, bigint[], text)
	SET enable_seqscan = off SET jit = off;
ALTER FUNCTION crawltop.release(text, bigint[])
	SET enable_seqscan = off SET jit = off;
ALTER FUNCTION crawltop.enqueue(bigint, text[], text, bigint, integer, text,
		text, text, double precision[], integer)
	SET enable_seqscan = off SET jit = off;
ALTER FUNCTION crawltop.enqueue_modes(bigint, text[], text, bigint, integer,
		text, text, text, double precision[])
	SET enable_seqscan = off SET jit = off;
ALTER FUNCTION crawltop.enqueue_batch(bigint, text[], text, bigint, integer,
		text, text, text, double precision[])
	SET enable_seqscan = off SET jit = off;
-- 0005's function of the same kind
ALTER FUNCTION crawltop.set_score_inputs(bigint, text[], jsonb[])
	SET jit = off;
-- fold_counts, which the claims call, sorts as usual
ALTER FUNCTION crawltop.fold_counts() SET enable_sort = on SET jit = off;

-- The reaper (0029's body; its lock of the jobs without ORDER BY, by
-- probes of jobs_pkey) plans
-- with the claims' settings whoever calls it: the expired leases in
-- leases_expiry's order, each joined to its task by a primary-key probe.
-- Planned once on a young store, that join had read every task through
-- tasks_pkey (a hash join, or a nested loop over a materialised full
-- index scan: whole-table reads that enable_seqscan off does not prevent).
CREATE OR REPLACE FUNCTION crawltop.reap_expired(p_limit integer DEFAULT 100)
	RETURNS integer LANGUAGE plpgsql SECURITY DEFINER
	SET search_path = pg_catalog, pg_temp SET crawltop.inline = ''
	SET enable_seqscan = off SET enable_sort = off SET enable_material = off
	SET enable_hashjoin = off SET enable_mergejoin = off SET jit = off AS $$
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
	-- (no order: a lock taken with SKIP LOCKED never waits, so the order
	-- cannot close a cycle, and ORDER BY j.id without a sort read all of
	-- jobs_pkey; the job ids as an array, so that each job is a probe of
	-- jobs_pkey, where a semi-join could read every job: 0035)
	SELECT array_agg(j.id) INTO v_jobs FROM (
		SELECT j.id FROM crawltop.jobs j
		WHERE j.id = ANY (ARRAY(SELECT t.job_id FROM crawltop.tasks t
					WHERE t.id = ANY (v_ids)))
		FOR KEY SHARE SKIP LOCKED) j;
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
