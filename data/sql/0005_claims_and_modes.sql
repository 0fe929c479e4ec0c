-- 0005_claims_and_modes.sql: the starvation guard (seed 001), the engine
-- inputs a rescore needs (tasks.score_inputs), setting a job's mode, and
-- the two SQL halves of a batched rescore whose scores the C engine
-- computes.
--
-- The guard adds tasks.pending_since, so the functions that maintain it
-- are defined here rather than in 0003 and 0004:
--   reap_expired   returns expired leases to pending (0003's lease cycle)
--                  and sets pending_since
--   release        gives a worker's tasks back, sets pending_since
--   set_job_state  pause, resume, cancel (0004's operator changes); resume
--                  sets pending_since of the job's pending tasks
--   claim          takes starving tasks first, within their share
-- release and set_job_state lock the task rows they wait for in task id
-- order first, as complete and fail (0003) and set_job_priority and
-- adjust_scores (0004) do, so that the functions that wait for many task
-- rows all take them in task id order and cannot deadlock with one
-- another (claim and the reaper never wait: SKIP LOCKED); enqueue (0002)
-- locks the existing tasks of its duplicates in task id order too.
-- release and the reaper, which put running tasks back to pending with
-- their job's state and priority, hold the job row FOR KEY SHARE while
-- they read it: a pause, resume, cancel or priority change of the job
-- (which holds the row FOR UPDATE, lock_job in 0004, and then changes the
-- job's pending tasks) comes wholly before or wholly after them, so that
-- no released task misses it. FOR KEY SHARE does not wait for an
-- enqueue, which holds the job row FOR NO KEY UPDATE while it reports
-- pages (FOR SHARE would: the reaper, holding expired tasks, then waited
-- for an enqueue that waited for one of those tasks, a deadlock that
-- stopped simulated crawls). release takes the job rows before the task
-- rows, as those do; the reaper takes its tasks without waiting (SKIP
-- LOCKED), and running tasks are never waited for by a job change.
-- The roles do not exist yet at this point: claim, reap_expired, release
-- and set_job_state are granted in 0009_roles.sql with the other worker
-- and operator functions, the functions of sections 2 and 3 in
-- 0010_claims_grants.sql.


-- ==== 1. The starvation guard ==========================================
--
-- Claims follow SPEC.md's order through tasks_claim_all / tasks_claim_job.
-- Under a steady flood of priority-1 work that order never reaches a
-- priority-10 task. The guard: a task that has been pending for longer
-- than G = store.starvation_seconds (default 300) is "starving". Of the
-- slots a session claims, one in m = store.starvation_every (default 10)
-- goes to starving tasks, oldest pending first; the other slots, and every
-- starving slot that finds no starving task, follow SPEC.md's order. Both
-- paths are ordered index range scans with LIMIT and SKIP LOCKED: the
-- starving one reads tasks_starve_all (pending_since, id), or, for a
-- one-job claim, tasks_starve_job (job_id, pending_since, id).
--
-- Slots are counted per session (database connection) in the custom
-- setting crawltop.claim_slots: after its earlier claims took c slots, a
-- claim of n gets floor((c + n) / m) - floor(c / m) starving slots, so
-- exactly one in every m of a session's slots. A batch of 10 with m = 10
-- always has one; a session claiming one task at a time gets one on every
-- tenth call. (Not "at least one per call": that would make one-task
-- claims plain FIFO whenever anything starves.) m = 0 turns the guard off.
--
-- THE BOUND. Let T become pending at t0 (enqueued, released, back from a
-- lease or a retry backoff, or its job resumed) and stay pending. From
-- t0 + G it is starving. Let A be the number of tasks ahead of it in the
-- starving order at t0 + G (pending since before t0, or at t0 with a
-- smaller id; at most the number of tasks pending at t0). Nothing joins
-- the starving order ahead of T later, because pending_since is only ever
-- set to the current time (short of a transaction that made a task
-- pending before t0 and is still open at t0 + G, i.e. for longer than
-- G). Each starving slot takes the head of that
-- order (a head that another transaction holds locked, in practice a
-- concurrent claim taking it, is skipped for that call; a rescore batch or
-- an operator's update holds it for one short transaction at most). So T
-- is claimed, at the latest, by the
-- (A + 1)-th starving slot of the all-jobs claims after t0 + G. If those
-- claims take R tasks per second in total from W sessions, they hand out
-- at least S/m - W starving slots in S slots, and
--
--     wait(T) <= G + m x (A + 1 + W) / R
--
-- (with a single session claiming batches that are multiples of m:
-- G + m x (A + 1) / R, i.e. within A + 1 claims). One-job claims serve
-- their job's starving tasks the same way and only ever shorten A. A
-- paused job's tasks are outside both orders; resuming restarts the clock.
-- tests/store/test_guard.c measures this bound.

-- When the task last became pending (meaningful while status = 'pending').
-- Rows present before this migration count from the migration: the
-- default is evaluated once, so adding the column rewrites nothing.
ALTER TABLE crawltop.tasks
	ADD COLUMN pending_since timestamptz NOT NULL DEFAULT now();
ALTER TABLE crawltop.tasks
	ALTER COLUMN pending_since SET DEFAULT clock_timestamp();

-- The starving order: all claimable tasks (paused jobs, whose tasks carry
-- job_priority + 100, are outside), and per job.
CREATE INDEX tasks_starve_all ON crawltop.tasks (pending_since, id)
	WHERE status = 'pending' AND job_priority <= 10;
CREATE INDEX tasks_starve_job ON crawltop.tasks (job_id, pending_since, id)
	WHERE status = 'pending';

-- (Every settings version is checked as it is written: 0014.)

-- The guard's defaults, as a new settings version that keeps every value
-- already set (keys present win over the defaults).
INSERT INTO crawltop.settings (value, note)
SELECT s.value || jsonb_build_object('store',
	'{"starvation_seconds": 300, "starvation_every": 10}'::jsonb
	|| coalesce(s.value->'store', '{}'::jsonb)),
	'starvation guard defaults (0005_claims_and_modes.sql)'
FROM crawltop.settings s ORDER BY s.version DESC LIMIT 1;

-- The base score a task takes when it comes back to pending (the reaper,
-- release): in hierarchy mode at least its page's score x 100. Only a
-- pending task rises when its page is found again (0002), so a page
-- raised while its task was running (or while the release that returns
-- it had not committed) left the task below its page; the page's score is
-- the hierarchy score, and it only rises. The other modes' scores come
-- from the engine, not from a column, and stay as they are.
CREATE FUNCTION crawltop.base_on_return(p_mode text, p_base double precision,
		p_page_score double precision)
	RETURNS double precision LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
	SELECT CASE WHEN p_mode = 'hierarchy'
		    THEN greatest(p_base, p_page_score * 100) ELSE p_base END
$$;

-- Return up to p_limit expired leases (oldest first; rows other sessions
-- hold are skipped) to pending. An expired lease WITH an owner was a
-- worker that vanished: it counts as a failed attempt (retry_count + 1, or
-- failed when the job's max_retries are used up). One WITHOUT owner is a
-- retry whose backoff is over. A cancelled job's task becomes skipped.
-- job_priority is recomputed from the job (+ 100 while paused); a task
-- back in pending has pending_since now and, in hierarchy mode, at least
-- its page's score (base_on_return). Returns the number of tasks
-- changed.
CREATE FUNCTION crawltop.reap_expired(p_limit integer DEFAULT 100)
	RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
	n integer;
	v_ids bigint[];
	c jsonb;
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
	-- their jobs' state and priority, held until commit (see the top)
	PERFORM 1 FROM crawltop.jobs j
	WHERE j.id IN (SELECT t.job_id FROM crawltop.tasks t WHERE t.id = ANY (v_ids))
	ORDER BY j.id FOR KEY SHARE;
	c := crawltop.setting('{classes}');
	WITH next AS (
		SELECT t.id,
		       CASE WHEN j.status = 'cancelled' THEN 'skipped'
			    WHEN t.lease_owner IS NULL THEN 'pending'
			    WHEN t.retry_count >= j.max_retries THEN 'failed'
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

-- Give tasks leased to p_worker back without counting an attempt: they are
-- pending again at once (skipped if their job was cancelled), with
-- pending_since now and, in hierarchy mode, at least their page's score
-- (base_on_return). Only under a live lease, as complete and fail: a
-- lease that ran out is the reaper's, which counts the attempt (a worker
-- that overran and then released would otherwise never use up its
-- retries). They are locked in task id order first (see complete, 0003;
-- PL/pgSQL for its cached plan, as complete). Returns the ids released.
CREATE FUNCTION crawltop.release(p_worker text, p_task_ids bigint[])
	RETURNS SETOF bigint LANGUAGE plpgsql AS $$
DECLARE
	n bigint;
	c jsonb := crawltop.setting('{classes}');
BEGIN
	-- the jobs first, held until commit (see the top)
	PERFORM 1 FROM crawltop.jobs j
	WHERE j.id IN (SELECT t.job_id FROM crawltop.tasks t
		       WHERE t.id = ANY (p_task_ids) AND t.status = 'running'
			 AND t.lease_owner = p_worker
			 AND t.lease_expires_at > now())
	ORDER BY j.id FOR KEY SHARE;
	RETURN QUERY
	WITH mine AS (
		-- with the base score each takes back (hierarchy: its page's,
		-- when that rose while the task ran)
		SELECT t.id, crawltop.base_on_return(j.prioritization_mode,
			t.base_score, p.priority_score) AS base
		FROM crawltop.tasks t
		JOIN crawltop.jobs j ON j.id = t.job_id
		JOIN crawltop.pages p ON p.id = t.page_id
		WHERE t.id = ANY (p_task_ids) AND t.status = 'running'
		  AND t.lease_owner = p_worker AND t.lease_expires_at > now()
		ORDER BY t.id
		FOR NO KEY UPDATE OF t
	)
	UPDATE crawltop.tasks t
	SET status = CASE WHEN j.status = 'cancelled' THEN 'skipped' ELSE 'pending' END,
	    job_priority = j.priority + CASE WHEN j.status = 'paused' THEN 100 ELSE 0 END,
	    completed_at = CASE WHEN j.status = 'cancelled' THEN now() END,
	    pending_since = now(),
	    lease_owner = NULL, lease_expires_at = NULL,
	    base_score = mine.base,
	    score = CASE WHEN mine.base > t.base_score
		THEN least(100, greatest(0, mine.base + t.adjustment))
		ELSE t.score END,
	    class = CASE WHEN mine.base > t.base_score
		THEN crawltop.class_of(least(100, greatest(0,
		    mine.base + t.adjustment)), (c->>'p0')::double precision,
		    (c->>'p1')::double precision, (c->>'p2')::double precision)
		ELSE t.class END
	FROM mine, crawltop.jobs j
	WHERE t.id = mine.id AND j.id = t.job_id
	RETURNING t.id;
	GET DIAGNOSTICS n = ROW_COUNT;
	IF n = 0 THEN -- as in complete (0003)
		PERFORM crawltop.check_worker(p_worker);
	END IF;
END $$;

-- Change a job's state: 'pause' (pending/running -> paused: its pending
-- tasks move out of every claim's range), 'resume' (paused -> running),
-- 'cancel' (any but completed -> cancelled: pending tasks are skipped,
-- running ones finish or expire into skipped). The pending tasks are
-- locked in task id order first (see 0004); resuming also restarts the
-- starvation clock of the job's pending tasks (time spent paused does not
-- count as waiting). Returns the pending tasks changed. A transition that
-- does not apply is refused (55000). One audit_log row, as in 0004.
CREATE FUNCTION crawltop.set_job_state(p_job_id bigint, p_action text)
	RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
	j crawltop.jobs;
	v_to text;
	n bigint;
BEGIN
	IF p_action IS NULL OR p_action NOT IN ('pause', 'resume', 'cancel') THEN
		RAISE EXCEPTION 'job action % is unknown: use pause, resume or cancel',
			crawltop.shown(p_action) USING ERRCODE = '22023';
	END IF;
	j := crawltop.lock_job(p_job_id);
	v_to := CASE p_action WHEN 'pause' THEN 'paused' WHEN 'resume' THEN 'running'
		ELSE 'cancelled' END;
	IF (p_action = 'pause' AND j.status NOT IN ('pending', 'running'))
	   OR (p_action = 'resume' AND j.status <> 'paused')
	   OR (p_action = 'cancel' AND j.status IN ('completed', 'cancelled')) THEN
		-- a job not paused is not named by its stored status: pending
		-- or running, as no worker may be on it (job_status_shown)
		RAISE EXCEPTION 'job % (%) is %: cannot %', j.id, j.name,
			CASE WHEN p_action = 'resume' AND j.status IN ('pending', 'running')
			     THEN 'not paused' ELSE j.status END,
			p_action USING ERRCODE = '55000';
	END IF;
	UPDATE crawltop.jobs SET status = v_to, updated_at = now() WHERE id = j.id;
	PERFORM 1 FROM crawltop.tasks t
	WHERE t.job_id = j.id AND t.status = 'pending'
	ORDER BY t.id FOR NO KEY UPDATE;
	IF p_action = 'cancel' THEN
		UPDATE crawltop.tasks SET status = 'skipped', completed_at = now()
		WHERE job_id = j.id AND status = 'pending';
	ELSE
		UPDATE crawltop.tasks
		SET job_priority = j.priority + CASE WHEN p_action = 'pause' THEN 100 ELSE 0 END,
		    pending_since = CASE WHEN p_action = 'resume' THEN now()
			ELSE pending_since END
		WHERE job_id = j.id AND status = 'pending';
	END IF;
	GET DIAGNOSTICS n = ROW_COUNT;
	INSERT INTO crawltop.audit_log (action, job_id, before, after, rows_affected)
	VALUES ('job.' || p_action, j.id, jsonb_build_object('status', j.status),
		jsonb_build_object('status', v_to), n);
	RETURN n;
END $$;

-- Claim up to p_n tasks for worker p_worker, from job p_job_id or (NULL)
-- from all jobs, under a lease of p_lease_seconds (NULL: setting
-- store.lease_seconds, 30). Expired leases are reaped first. The claim's
-- starving slots (one in store.starvation_every of this session's slots,
-- counted in crawltop.claim_slots) first take the oldest starving tasks
-- (pending for more than store.starvation_seconds), then the rest of the
-- batch follows SPEC.md's order (0003). Both are index range scans with
-- LIMIT and SKIP LOCKED: rows other workers are claiming are skipped,
-- never waited for, and nothing sorts the pending set. A paused,
-- cancelled or completed job hands out nothing and uses no slot. Returns
-- the rows in no particular order (the C API sorts them).
CREATE FUNCTION crawltop.claim(p_worker text, p_n integer DEFAULT 1,
		p_job_id bigint DEFAULT NULL,
		p_lease_seconds double precision DEFAULT NULL)
	RETURNS TABLE (task_id bigint, job_id bigint, page_id bigint,
		job_priority smallint, score double precision, class smallint,
		created_at timestamptz, retry_count smallint, depth integer,
		source_type text, lease_expires_at timestamptz, domain text,
		path text)
	LANGUAGE plpgsql
	-- Generic plans: the plan cache otherwise kept choosing custom plans
	-- and planned every statement again at every call (28 % of a
	-- one-task claim+complete). The generic plans are the same index
	-- range scans with LIMIT and no Sort (tests/store/test_claim.c and
	-- test_guard.c check them), also at p_n 10,000; like the custom
	-- plans, they sort the few candidates instead when the statistics
	-- say that almost nothing is pending (the next ANALYZE replans).
	SET plan_cache_mode = force_generic_plan AS $$
#variable_conflict use_column
DECLARE
	v_store jsonb := coalesce(crawltop.setting('{store}'), '{}');
	v_lease double precision := coalesce(p_lease_seconds,
		(v_store->>'lease_seconds')::double precision, 30);
	v_guard double precision := coalesce(
		(v_store->>'starvation_seconds')::double precision, 300);
	v_every integer := coalesce((v_store->>'starvation_every')::integer, 10);
	v_exp timestamptz;
	v_cutoff timestamptz;
	v_slots bigint;
	v_quota integer := 0;
	v_old bigint[] := '{}';
	v_ids bigint[] := '{}';
	v_status text;
BEGIN
	PERFORM crawltop.check_worker(p_worker);
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
	PERFORM crawltop.reap_expired(100);

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
		v_slots := coalesce(nullif(current_setting('crawltop.claim_slots', true),
			'')::bigint, 0);
		v_quota := ((v_slots + p_n) / v_every - v_slots / v_every)::integer;
		PERFORM set_config('crawltop.claim_slots',
			((v_slots + p_n) % (v_every::bigint * 1000000))::text, false);
	END IF;

	-- Each path collects the ids it locked into an array in a statement of
	-- its own (the subquery's LIMIT bounds it), and one UPDATE ... WHERE
	-- id = ANY (array) then changes exactly those rows. (Until this
	-- change the batch's ids came from a LIMIT ... FOR UPDATE SKIP LOCKED
	-- CTE that a join fed into the UPDATE; under concurrency its plan
	-- could read the CTE more often than its LIMIT produced and hand out
	-- more than p_n tasks, which tests/store/test_stats.c caught.)
	-- The starving cutoff is compared as (SELECT v_cutoff), an InitPlan
	-- value the planner cannot estimate from the statistics: it then
	-- assumes a third of the pending set is starving and always chooses
	-- the ordered range scan of tasks_starve_all / tasks_starve_job with
	-- LIMIT, never a Bitmap scan plus Sort (which it chose when it
	-- estimated that almost nothing starves).
	IF p_job_id IS NULL THEN
		IF v_quota > 0 THEN
			-- starving path: oldest pending first
			SELECT coalesce(array_agg(s.id), '{}') INTO v_old FROM (
				SELECT t.id FROM crawltop.tasks t
				WHERE t.status = 'pending' AND t.job_priority <= 10
				  AND t.pending_since < (SELECT v_cutoff)
				ORDER BY t.pending_since, t.id
				LIMIT v_quota
				FOR UPDATE SKIP LOCKED
			) s;
		END IF;
		-- SPEC.md's order for the other slots
		IF cardinality(v_old) < p_n THEN
			SELECT coalesce(array_agg(c.id), '{}') INTO v_ids FROM (
				SELECT t.id FROM crawltop.tasks t
				WHERE t.status = 'pending' AND t.job_priority <= 10
				  AND t.id <> ALL (v_old)
				ORDER BY t.job_priority, t.score DESC, t.created_at, t.id
				LIMIT p_n - cardinality(v_old)
				FOR UPDATE SKIP LOCKED
			) c;
		END IF;
	ELSE
		IF v_quota > 0 THEN
			-- starving path of one job: oldest pending first
			SELECT coalesce(array_agg(s.id), '{}') INTO v_old FROM (
				SELECT t.id FROM crawltop.tasks t
				WHERE t.status = 'pending' AND t.job_id = p_job_id
				  AND t.pending_since < (SELECT v_cutoff)
				ORDER BY t.pending_since, t.id
				LIMIT v_quota
				FOR UPDATE SKIP LOCKED
			) s;
		END IF;
		IF cardinality(v_old) < p_n THEN
			SELECT coalesce(array_agg(c.id), '{}') INTO v_ids FROM (
				SELECT t.id FROM crawltop.tasks t
				WHERE t.status = 'pending' AND t.job_id = p_job_id
				  AND t.id <> ALL (v_old)
				ORDER BY t.score DESC, t.created_at, t.id
				LIMIT p_n - cardinality(v_old)
				FOR UPDATE SKIP LOCKED
			) c;
		END IF;
	END IF;
	v_ids := v_ids || v_old;
	IF cardinality(v_ids) = 0 THEN
		RETURN;
	END IF;
	-- at most cardinality(v_ids) <= p_n rows: ids are primary keys, and
	-- this transaction holds every one of them locked
	RETURN QUERY
	WITH u AS (
		UPDATE crawltop.tasks t
		SET status = 'running', lease_owner = p_worker,
		    lease_expires_at = v_exp, started_at = now()
		WHERE t.id = ANY (v_ids) AND t.status = 'pending'
		RETURNING t.*
	)
	SELECT u.id, u.job_id, u.page_id, u.job_priority, u.score, u.class,
	       u.created_at, u.retry_count, u.depth, u.source_type,
	       u.lease_expires_at, d.name, p.path::text
	FROM u
	JOIN crawltop.pages p ON p.id = u.page_id
	JOIN crawltop.domains d ON d.id = p.domain_id;
END $$;


-- ==== 2. Score inputs: what a rescore needs besides the task's columns ==
--
-- tasks.score_inputs holds the engine inputs of a task that have no column
-- of their own (type, depth and discovery_method have), in the shapes
-- `crawltop score` reads (doc/scoring.md), so that a rescore can compute
-- a task's score again under another mode or other settings:
--   frontier (seed 002)  bias, clusterOccurrences, classification,
--                        meta {knowledgeReuse, estimatedCostMs},
--                        gap {confidence, lift}
--   discovery (seed 003) subscores {all eight sub-scores} or
--                        signals {the raw signals}; subscores win
--   freshness (seed 004) visits, lastVisited, lastChanged (epoch
--                        milliseconds), topicRelevance, hubDepth, isHub
-- One object may hold the inputs of several modes, so a job can switch.
-- crawltop.set_score_inputs checks every key against score_input_spec():
-- unknown keys, wrong types and values outside their range are refused,
-- so a rescore never meets an input the engine refuses. (Seed 003's own
-- record of a ranking, tasks.signals, is 0006's.)

--
-- The column's rule (an object of at most 4 KB as text) is its type's, a
-- domain, not a CHECK: a table's CHECKs run for every row that any UPDATE
-- writes, and this one prints the whole object to measure it, while claims,
-- completions and ranking runs never assign score_inputs (see 0001 on
-- page_path and url).
CREATE DOMAIN crawltop.score_inputs AS jsonb
	CONSTRAINT score_inputs_object CHECK (
		VALUE IS NULL OR (jsonb_typeof(VALUE) = 'object'
				  AND octet_length(VALUE::text) <= 4096));
ALTER TABLE crawltop.tasks ADD COLUMN score_inputs crawltop.score_inputs;

-- The keys a score inputs object may hold: (parent object, key, kind,
-- lowest, highest, allowed strings). parent '' is the top level; kind is
-- number, integer, boolean, string or object.
CREATE FUNCTION crawltop.score_input_spec()
	RETURNS TABLE (parent text, key text, kind text, lo double precision,
		       hi double precision, choices text[])
	LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
	VALUES
	-- frontier (seed 002)
	('', 'bias', 'number', -1e6, 1e6, NULL::text[]),
	('', 'clusterOccurrences', 'integer', 0, 1e12, NULL),
	('', 'classification', 'string', NULL, NULL,
		ARRAY['none', 'country', 'country-related', 'other']),
	('', 'meta', 'object', NULL, NULL, NULL),
	('meta', 'knowledgeReuse', 'number', 0, 1, NULL),
	('meta', 'estimatedCostMs', 'number', 0, 1e12, NULL),
	('', 'gap', 'object', NULL, NULL, NULL),
	('gap', 'confidence', 'number', 0, 1, NULL),
	('gap', 'lift', 'number', 0, 1, NULL),
	-- discovery (seed 003): sub-scores, all eight when given
	('', 'subscores', 'object', NULL, NULL, NULL),
	('subscores', 'unseen_likelihood', 'number', 0, 1, NULL),
	('subscores', 'host_novelty', 'number', 0, 1, NULL),
	('subscores', 'content_readiness', 'number', 0, 1, NULL),
	('subscores', 'link_yield', 'number', 0, 1, NULL),
	('subscores', 'source_reliability', 'number', 0, 1, NULL),
	('subscores', 'freshness', 'number', 0, 1, NULL),
	('subscores', 'quality_safety', 'number', 0, 1, NULL),
	('subscores', 'topic_boost', 'number', 0, 1, NULL),
	-- discovery (seed 003): raw signals (negative ages: unknown)
	('', 'signals', 'object', NULL, NULL, NULL),
	('signals', 'ct_age_hours', 'number', -1e12, 1e12, NULL),
	('signals', 'ns_changes', 'integer', 0, 1000000, NULL),
	('signals', 'asn_changes', 'integer', 0, 1000000, NULL),
	('signals', 'whois_age_days', 'number', -1e12, 1e12, NULL),
	('signals', 'backlinks', 'integer', -1, 1e15, NULL),
	('signals', 'first_seen_host', 'boolean', NULL, NULL, NULL),
	('signals', 'rare_tld', 'boolean', NULL, NULL, NULL),
	('signals', 'subdomain_depth', 'integer', 0, 1000, NULL),
	('signals', 'parking_score', 'number', 0, 1, NULL),
	('signals', 'document_path', 'boolean', NULL, NULL, NULL),
	('signals', 'document_extension', 'boolean', NULL, NULL, NULL),
	('signals', 'vendor_fingerprint', 'boolean', NULL, NULL, NULL),
	('signals', 'source', 'string', NULL, NULL,
		ARRAY['unknown', 'ct', 'rss', 'cc', 'social']),
	('signals', 'age_hours', 'number', -1e12, 1e12, NULL),
	('signals', 'malware', 'boolean', NULL, NULL, NULL),
	('signals', 'adult', 'boolean', NULL, NULL, NULL),
	('signals', 'for_sale', 'boolean', NULL, NULL, NULL),
	('signals', 'suspicious_tld', 'boolean', NULL, NULL, NULL),
	('signals', 'topic_match', 'number', 0, 1, NULL),
	-- freshness (seed 004): times in epoch milliseconds
	('', 'visits', 'integer', 0, 1e15, NULL),
	('', 'lastVisited', 'integer', -1e15, 1e15, NULL),
	('', 'lastChanged', 'integer', -1e15, 1e15, NULL),
	('', 'topicRelevance', 'number', 0, 1, NULL),
	('', 'hubDepth', 'integer', 0, 1000000, NULL),
	('', 'isHub', 'boolean', NULL, NULL, NULL)
$$;

-- NULL when p_inputs is an acceptable score inputs object (or NULL), else one
-- sentence naming the key, its value and the rule it breaks.
CREATE FUNCTION crawltop.score_inputs_problem(p_inputs jsonb) RETURNS text
	LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
	e record;
	sp record;
	v_path text;
	v_num numeric; -- JSON's own number: 1e400 compares, it does not overflow
	v_n integer;
BEGIN
	IF p_inputs IS NULL THEN
		RETURN NULL;
	END IF;
	IF jsonb_typeof(p_inputs) <> 'object' THEN
		RETURN format('score inputs must be a JSON object, not %s',
			jsonb_typeof(p_inputs));
	END IF;
	IF octet_length(p_inputs::text) > 4096 THEN
		RETURN format('score inputs take %s bytes: at most 4096',
			octet_length(p_inputs::text));
	END IF;
	FOR e IN
		SELECT '' AS parent, t.key, t.value FROM jsonb_each(p_inputs) t
		UNION ALL
		SELECT o.key, t.key, t.value FROM jsonb_each(p_inputs) o
		CROSS JOIN LATERAL jsonb_each(CASE WHEN jsonb_typeof(o.value) = 'object'
			THEN o.value ELSE '{}' END) t
	LOOP
		v_path := CASE WHEN e.parent = '' THEN e.key ELSE e.parent || '.' || e.key END;
		SELECT * INTO sp FROM crawltop.score_input_spec() s
		WHERE s.parent = e.parent AND s.key = e.key;
		IF NOT FOUND THEN
			RETURN format('score input %s is unknown: use %s', quote_literal(v_path),
				(SELECT string_agg(CASE WHEN s.parent = '' THEN s.key
					ELSE s.parent || '.' || s.key END, ', ')
				 FROM crawltop.score_input_spec() s WHERE s.kind <> 'object'));
		END IF;
		IF sp.kind = 'object' THEN
			IF jsonb_typeof(e.value) <> 'object' THEN
				RETURN format('%s = %s: must be an object', v_path,
					left(e.value::text, 80));
			END IF;
		ELSIF sp.kind IN ('number', 'integer') THEN
			IF jsonb_typeof(e.value) <> 'number' THEN
				RETURN format('%s = %s: must be a number', v_path,
					left(e.value::text, 80));
			END IF;
			v_num := e.value::numeric;
			IF sp.kind = 'integer' AND e.value::text !~ '^-?[0-9]+$' THEN
				RETURN format('%s = %s: must be an integer', v_path,
					left(e.value::text, 80));
			END IF;
			IF NOT (v_num >= sp.lo::numeric AND v_num <= sp.hi::numeric) THEN
				RETURN format('%s = %s: must be in %s..%s', v_path,
					left(e.value::text, 80), sp.lo::numeric, sp.hi::numeric);
			END IF;
		ELSIF sp.kind = 'boolean' THEN
			IF jsonb_typeof(e.value) <> 'boolean' THEN
				RETURN format('%s = %s: must be true or false', v_path,
					left(e.value::text, 80));
			END IF;
		ELSIF sp.kind = 'string' THEN
			IF jsonb_typeof(e.value) <> 'string'
			   OR NOT (e.value #>> '{}') = ANY (sp.choices) THEN
				RETURN format('%s = %s: must be one of %s', v_path,
					left(e.value::text, 80), array_to_string(sp.choices, ', '));
			END IF;
		END IF;
	END LOOP;
	IF p_inputs ? 'gap' AND NOT (p_inputs->'gap' ?& ARRAY['confidence', 'lift']) THEN
		RETURN 'gap needs both confidence and lift';
	END IF;
	IF p_inputs ? 'subscores' THEN
		SELECT count(*) INTO v_n FROM jsonb_object_keys(p_inputs->'subscores');
		IF v_n <> 8 THEN
			RETURN format('subscores has %s of the 8 sub-scores: give all of them (%s)',
				v_n, (SELECT string_agg(s.key, ', ') FROM crawltop.score_input_spec() s
				      WHERE s.parent = 'subscores'));
		END IF;
	END IF;
	RETURN NULL;
END $$;

-- p_texts as jsonb[]; an element that is not JSON is refused with its
-- index (22P02), named as p_what (e.g. 'score inputs').
CREATE FUNCTION crawltop.jsonb_array(p_texts text[], p_what text)
	RETURNS jsonb[] LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
	v_i integer;
BEGIN
	RETURN p_texts::jsonb[];
EXCEPTION WHEN invalid_text_representation THEN
	FOR v_i IN 1 .. coalesce(cardinality(p_texts), 0) LOOP
		BEGIN
			PERFORM p_texts[v_i]::jsonb;
		EXCEPTION WHEN invalid_text_representation THEN
			RAISE EXCEPTION '%[%] = % is not JSON', p_what, v_i,
				crawltop.shown(p_texts[v_i]) USING ERRCODE = '22P02';
		END;
	END LOOP;
	RAISE;
END $$;

-- Store the score inputs of job p_job_id's tasks at p_paths (one object,
-- or NULL to clear, per path). Every object
-- is checked first (22023 naming the index, key and rule); a path without
-- a task in the job is refused (P0002); nothing changes on a refusal.
-- Rows are locked in task id order after the job row, as everywhere.
-- Call it after enqueue, in the same transaction (the C API does).
-- Returns the number of tasks updated.
--
-- Every statement here reads a few rows by a unique key, and must do so
-- however small the store was when the session's plans were made: a
-- crawler's session often begins on an empty job, and its cached plans
-- would then scan the job's tasks, or all of them, until the next
-- autoanalyze. With enable_seqscan off the planner takes a sequential scan
-- only where no index serves (here: never), so the lock and the UPDATE by
-- id stay primary-key probes, as the look-ups' LATERAL ... LIMIT 1 are
-- (tests/store/test_enqueue.c checks the plans of a session that grew).
CREATE FUNCTION crawltop.set_score_inputs(p_job_id bigint, p_paths text[],
		p_inputs jsonb[])
	RETURNS integer LANGUAGE plpgsql SET enable_seqscan = off AS $$
DECLARE
	j crawltop.jobs;
	v_i bigint;
	v_bad text;
	v_ids bigint[];
	v_objs jsonb[];
	n integer;
BEGIN
	-- the job row first (as enqueue): workers may not call lock_job
	SELECT * INTO j FROM crawltop.jobs WHERE id = p_job_id FOR NO KEY UPDATE;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'job % does not exist', coalesce(p_job_id::text, 'NULL')
			USING ERRCODE = 'P0002';
	END IF;
	-- as enqueue: a cancelled job's tasks are finished for good
	IF j.status = 'cancelled' THEN
		RAISE EXCEPTION 'job % (%) is cancelled: its tasks take no score inputs',
			j.id, j.name USING ERRCODE = '55000';
	END IF;
	IF p_paths IS NULL OR array_ndims(p_paths) > 1 OR p_inputs IS NULL
	   OR array_ndims(p_inputs) > 1
	   OR cardinality(p_inputs) <> cardinality(p_paths) THEN
		RAISE EXCEPTION '% score inputs for % paths: pass one object (or NULL) per path',
			coalesce(cardinality(p_inputs), 0), coalesce(cardinality(p_paths), 0)
			USING ERRCODE = '22023';
	END IF;
	SELECT u.i, crawltop.score_inputs_problem(u.s) INTO v_i, v_bad
	FROM unnest(p_inputs) WITH ORDINALITY AS u(s, i)
	WHERE crawltop.score_inputs_problem(u.s) IS NOT NULL
	ORDER BY u.i LIMIT 1;
	IF FOUND THEN
		RAISE EXCEPTION 'score inputs[%]: %', v_i, v_bad USING ERRCODE = '22023';
	END IF;
	-- Each distinct path's task (its last object wins), found with one
	-- probe of pages and then one of tasks by their unique keys: a
	-- LATERAL with LIMIT is never turned into a join, so no plan reads
	-- the whole job (with joins, a session that began on an empty store
	-- kept plans that did: 50 paths took 0.3-1.8 s at 16,000-41,000
	-- tasks). A path without a task is refused, the first in the caller's
	-- order (first_i: the path's first position).
	SELECT coalesce(array_agg(x.id), '{}'), coalesce(array_agg(u.s), '{}'),
	       min(u.first_i) FILTER (WHERE x.id IS NULL),
	       (array_agg(u.p ORDER BY u.first_i) FILTER (WHERE x.id IS NULL))[1]
	INTO v_ids, v_objs, v_i, v_bad
	FROM (SELECT DISTINCT ON (u.p) u.p, u.s,
		     min(u.i) OVER (PARTITION BY u.p) AS first_i
	      FROM unnest(p_paths, p_inputs) WITH ORDINALITY AS u(p, s, i)
	      ORDER BY u.p, u.i DESC) u
	LEFT JOIN LATERAL (
		SELECT pg.id FROM crawltop.pages pg
		WHERE pg.domain_id = j.domain_id AND pg.path = u.p LIMIT 1) pg ON true
	LEFT JOIN LATERAL (
		SELECT t.id FROM crawltop.tasks t
		WHERE t.job_id = j.id AND t.page_id = pg.id LIMIT 1) x ON true;
	IF v_i IS NOT NULL THEN
		RAISE EXCEPTION 'paths[%] = % has no task in job %', v_i,
			crawltop.shown(v_bad), j.id USING ERRCODE = 'P0002';
	END IF;
	PERFORM 1 FROM crawltop.tasks t WHERE t.id = ANY (v_ids)
	ORDER BY t.id FOR NO KEY UPDATE;
	UPDATE crawltop.tasks t SET score_inputs = x.s
	FROM unnest(v_ids, v_objs) AS x(id, s)
	WHERE t.id = ANY (v_ids) AND t.id = x.id
	  AND t.score_inputs IS DISTINCT FROM x.s;
	GET DIAGNOSTICS n = ROW_COUNT;
	RETURN n;
END $$;


-- ==== 3. Job modes and batched rescoring ===============================
--
-- Setting a job's mode is one transaction (set_job_mode, one audit row).
-- The job's unfinished tasks (pending, and running ones, which may come
-- back) are then rescored in batches, each its own transaction:
-- rescore_fetch locks the job (FOR SHARE, so its mode cannot change under
-- the batch) and the batch's tasks, and returns every input the engine
-- needs; the caller computes scores and classes (the C API does it with
-- the engine and its struct ct_settings) and rescore_apply writes them
-- back with one set-based UPDATE and one audit row. Batches are ranges of
-- page ids of the job, read through the UNIQUE (job_id, page_id) index,
-- so a whole rescore reads each task of the job once; inside a batch the
-- rows are locked in task id order, the order complete, fail and release
-- lock in, so a rescore and the workers cannot deadlock; and the job row
-- is locked before any task, as enqueue and the 0004 functions do.

-- Set job p_job_id's prioritisation mode (one of check_mode's). The job's
-- tasks keep their scores until a rescore (the C API runs one at once),
-- which rewrites their base scores and keeps their operator adjustments.
-- Refused for a completed or cancelled job (55000). Writes one audit row
-- (job.mode: before and after, and the tasks awaiting the rescore).
-- Returns the number of unfinished (pending or running) tasks.
CREATE FUNCTION crawltop.set_job_mode(p_job_id bigint, p_mode text)
	RETURNS bigint LANGUAGE plpgsql AS $$
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
	UPDATE crawltop.jobs SET prioritization_mode = p_mode, updated_at = now()
	WHERE id = j.id;
	SELECT count(*) INTO n FROM crawltop.tasks
	WHERE job_id = j.id AND status IN ('pending', 'running');
	INSERT INTO crawltop.audit_log (action, job_id, before, after, rows_affected)
	VALUES ('job.mode', j.id, jsonb_build_object('mode', j.prioritization_mode),
		jsonb_build_object('mode', p_mode, 'tasks_to_rescore', n), 1);
	RETURN n;
END $$;

-- What a rescore of job p_job_id starts from: its mode, its number of
-- unfinished tasks, and the current settings version.
CREATE FUNCTION crawltop.rescore_start(p_job_id bigint,
		OUT mode text, OUT total bigint, OUT settings_version integer)
	LANGUAGE plpgsql STABLE AS $$
BEGIN
	SELECT j.prioritization_mode INTO mode FROM crawltop.jobs j
	WHERE j.id = p_job_id;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'job % does not exist', coalesce(p_job_id::text, 'NULL')
			USING ERRCODE = 'P0002';
	END IF;
	SELECT count(*) INTO total FROM crawltop.tasks t
	WHERE t.job_id = p_job_id AND t.status IN ('pending', 'running');
	SELECT max(s.version) INTO settings_version FROM crawltop.settings s;
END $$;

-- A task's discovery inputs (seed 003) as columns: whether it has
-- sub-scores and the eight of them, whether it has raw signals and the
-- signals. Absent keys are NULL. Read by the ranking run
-- (src/store/rank_ops.c) and, inside score_input_columns, by rescores and
-- the console's preview. Plain SQL, inlined into the query that calls it.
CREATE FUNCTION crawltop.discovery_input_columns(p_inputs jsonb)
	RETURNS TABLE (
		has_subscores boolean,
		unseen_likelihood double precision, host_novelty double precision,
		content_readiness double precision, link_yield double precision,
		source_reliability double precision, freshness double precision,
		quality_safety double precision, topic_boost double precision,
		has_signals boolean,
		ct_age_hours double precision, ns_changes integer,
		asn_changes integer, whois_age_days double precision,
		backlinks bigint, first_seen_host boolean, rare_tld boolean,
		subdomain_depth integer, parking_score double precision,
		document_path boolean, document_extension boolean,
		vendor_fingerprint boolean, source text, age_hours double precision,
		malware boolean, adult boolean, for_sale boolean,
		suspicious_tld boolean, topic_match double precision)
	LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
	SELECT coalesce(p_inputs ? 'subscores', false),
	       s.unseen_likelihood, s.host_novelty, s.content_readiness,
	       s.link_yield, s.source_reliability, s.freshness, s.quality_safety,
	       s.topic_boost,
	       coalesce(p_inputs ? 'signals', false),
	       r.ct_age_hours, r.ns_changes, r.asn_changes, r.whois_age_days,
	       r.backlinks, r.first_seen_host, r.rare_tld, r.subdomain_depth,
	       r.parking_score, r.document_path, r.document_extension,
	       r.vendor_fingerprint, r.source, r.age_hours, r.malware, r.adult,
	       r.for_sale, r.suspicious_tld, r.topic_match
	FROM jsonb_to_record(coalesce(p_inputs->'subscores', '{}')) AS s(
		unseen_likelihood double precision, host_novelty double precision,
		content_readiness double precision, link_yield double precision,
		source_reliability double precision, freshness double precision,
		quality_safety double precision, topic_boost double precision)
	CROSS JOIN jsonb_to_record(coalesce(p_inputs->'signals', '{}')) AS r(
		ct_age_hours double precision, ns_changes integer,
		asn_changes integer, whois_age_days double precision,
		backlinks bigint, first_seen_host boolean, rare_tld boolean,
		subdomain_depth integer, parking_score double precision,
		document_path boolean, document_extension boolean,
		vendor_fingerprint boolean, source text, age_hours double precision,
		malware boolean, adult boolean, for_sale boolean,
		suspicious_tld boolean, topic_match double precision)
$$;

-- All of a task's score inputs as columns, in the order rescore_fetch
-- returns them after the task's own columns (also the console's preview,
-- 0011): the one place, with discovery_input_columns, that unpacks the
-- shapes score_input_spec() checks. Plain SQL, inlined.
CREATE FUNCTION crawltop.score_input_columns(p_inputs jsonb)
	RETURNS TABLE (
		-- frontier
		bias double precision, cluster_occurrences bigint,
		classification text, knowledge_reuse double precision,
		estimated_cost_ms double precision, gap_confidence double precision,
		gap_lift double precision,
		-- discovery sub-scores (all or none)
		has_subscores boolean,
		unseen_likelihood double precision, host_novelty double precision,
		content_readiness double precision, link_yield double precision,
		source_reliability double precision, freshness double precision,
		quality_safety double precision, topic_boost double precision,
		-- discovery raw signals
		has_signals boolean,
		ct_age_hours double precision, ns_changes integer,
		asn_changes integer, whois_age_days double precision,
		backlinks bigint, first_seen_host boolean, rare_tld boolean,
		subdomain_depth integer, parking_score double precision,
		document_path boolean, document_extension boolean,
		vendor_fingerprint boolean, source text, age_hours double precision,
		malware boolean, adult boolean, for_sale boolean,
		suspicious_tld boolean, topic_match double precision,
		-- freshness
		visits bigint, last_visited bigint, last_changed bigint,
		topic_relevance double precision, hub_depth integer, is_hub boolean)
	LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
	SELECT f.bias, f."clusterOccurrences", f.classification,
	       m."knowledgeReuse", m."estimatedCostMs", g.confidence, g.lift,
	       d.*,
	       f.visits, f."lastVisited", f."lastChanged", f."topicRelevance",
	       f."hubDepth", f."isHub"
	FROM jsonb_to_record(coalesce(p_inputs, '{}')) AS f(
		bias double precision, "clusterOccurrences" bigint,
		classification text, visits bigint, "lastVisited" bigint,
		"lastChanged" bigint, "topicRelevance" double precision,
		"hubDepth" integer, "isHub" boolean)
	CROSS JOIN jsonb_to_record(coalesce(p_inputs->'meta', '{}')) AS m(
		"knowledgeReuse" double precision, "estimatedCostMs" double precision)
	CROSS JOIN jsonb_to_record(coalesce(p_inputs->'gap', '{}')) AS g(
		confidence double precision, lift double precision)
	CROSS JOIN crawltop.discovery_input_columns(p_inputs) AS d
$$;

-- (rescore_fetch and rescore_apply, which read and write a rescore's
-- batches, are in 0006: they read and keep a discovery task's ranking.)
