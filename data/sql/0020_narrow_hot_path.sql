-- 0020_narrow_hot_path.sql: the pending queue and the leases in narrow tables
-- of their own; the task record is no longer re-indexed when its status
-- changes.
--
--   crawltop.queue   one row per pending task: the claim key (job,
--                    job priority, score, created_at, task id) and
--                    pending_since, with the claim orders' and the
--                    starvation guard's indexes (they were partial indexes
--                    of tasks: every status change wrote five index
--                    entries into them)
--   crawltop.leases  one row per running task (leased, or waiting out a
--                    retry's backoff): its expiry, indexed for the reaper
--   crawltop.tasks   keeps every column (status, lease owner and expiry
--                    stay the record's truth) with only its primary key,
--                    (job_id, page_id) and the two ranking indexes; no
--                    index covers a column a claim, completion, failure or
--                    release writes, so PostgreSQL updates those rows in
--                    place (HOT) when the page has room: fillfactor 70
--
-- Who keeps queue and leases equal to tasks:
--   claim, complete  in their own statement (one statement claims: the
--                    task's row, its queue row and its lease; complete:
--                    the row and the lease), with crawltop.inline set for
--                    that statement only, so the trigger below skips it
--   everything else  the statement trigger tasks_queue_sync, from the
--                    statement's transition tables (set-based: a rescore
--                    of a million tasks is three statements, not a
--                    million). Every other function that writes tasks
--                    pins crawltop.inline empty (ALTER FUNCTION ... SET,
--                    at the end), so no session setting can make it skip
--                    its sync; direct writes of the owner sync too.
--
-- Counters (0007's task_counts and rate_ticks): claim and complete append
-- one row each to crawltop.count_deltas, the task's move (from status and
-- lease owner to status and lease owner, with the attributes its cells
-- depend on): no index, no lock, no trigger. 0007's counter trigger (a
-- PL/pgSQL call per statement, transition tables, a writer shard's row
-- lock, an upsert of every cell moved and of the second's rate tick) was
-- a quarter of the server's CPU in a one-task claim and complete; it
-- skips those two statements as the queue sync does, and counts every
-- other write. Readers add the deltas not folded yet (task_counts_now,
-- rate_ticks_now: a few dozen rows), so a read is exact at once;
-- fold_counts() moves the deltas into shard 0 (claim and complete call it
-- about once in 32 calls, never waiting; compact_counts() first of all).
--
-- Locks: a task's row in tasks is the lock every writer takes first (a
-- claim locks it FOR UPDATE SKIP LOCKED through the queue's order, then
-- deletes the queue row); queue and leases rows are written only by
-- transactions that hold the task's row, so there is one lock order.

-- ---- tables ---------------------------------------------------------------

CREATE TABLE crawltop.queue (
	task_id bigint PRIMARY KEY,
	job_id bigint NOT NULL,
	job_priority smallint NOT NULL,
	score double precision NOT NULL,
	created_at timestamptz NOT NULL,
	pending_since timestamptz NOT NULL
);
CREATE TABLE crawltop.leases (
	task_id bigint PRIMARY KEY,
	expires_at timestamptz NOT NULL
);
REVOKE ALL ON crawltop.queue, crawltop.leases FROM PUBLIC;
-- read as tasks is read (0009): viewers (and operators), and workers
GRANT SELECT ON crawltop.queue, crawltop.leases TO crawltop_viewer,
	crawltop_worker;

-- the tasks there are now (the migration holds tasks: DROP INDEX below
-- takes it exclusively, and so does this LOCK first)
LOCK TABLE crawltop.tasks IN SHARE ROW EXCLUSIVE MODE;
INSERT INTO crawltop.queue
SELECT id, job_id, job_priority, score, created_at, pending_since
FROM crawltop.tasks WHERE status = 'pending';
INSERT INTO crawltop.leases
SELECT id, lease_expires_at FROM crawltop.tasks WHERE status = 'running';

-- SPEC.md's claim order, all jobs and one job, and the starvation guard's
-- oldest-pending orders (0001, 0005), now over the queue
CREATE INDEX queue_claim_all ON crawltop.queue
	(job_priority, score DESC, created_at, task_id);
CREATE INDEX queue_claim_job ON crawltop.queue
	(job_id, score DESC, created_at, task_id);
CREATE INDEX queue_starve_all ON crawltop.queue (pending_since, task_id)
	WHERE job_priority <= 10;
CREATE INDEX queue_starve_job ON crawltop.queue (job_id, pending_since, task_id);
CREATE INDEX leases_expiry ON crawltop.leases (expires_at);

DROP INDEX crawltop.tasks_claim_all;
DROP INDEX crawltop.tasks_claim_job;
DROP INDEX crawltop.tasks_starve_all;
DROP INDEX crawltop.tasks_starve_job;
DROP INDEX crawltop.tasks_lease;
-- room on each page for the new versions of its rows (pages written from
-- now on; VACUUM FULL would rewrite the old ones)
ALTER TABLE crawltop.tasks SET (fillfactor = 70);

-- ---- the sync trigger -----------------------------------------------------

-- The statement's net change to the queue (pending rows) and the leases
-- (running rows). An UPDATE writes only the rows whose queue or lease
-- fields changed: a rescore that leaves a task's score as it was, or a
-- ranking that writes signals only, costs a primary-key probe per row and
-- nothing else.
CREATE FUNCTION crawltop.tasks_queue_sync() RETURNS trigger
	LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
	IF TG_OP = 'INSERT' THEN
		INSERT INTO crawltop.queue
		SELECT n.id, n.job_id, n.job_priority, n.score, n.created_at,
		       n.pending_since
		FROM new_rows n WHERE n.status = 'pending';
		INSERT INTO crawltop.leases
		SELECT n.id, n.lease_expires_at
		FROM new_rows n WHERE n.status = 'running';
		RETURN NULL;
	END IF;
	IF TG_OP = 'DELETE' THEN
		DELETE FROM crawltop.queue q USING old_rows o
		WHERE q.task_id = o.id AND o.status = 'pending';
		DELETE FROM crawltop.leases l USING old_rows o
		WHERE l.task_id = o.id AND o.status = 'running';
		RETURN NULL;
	END IF;
	-- UPDATE (ids never change: tasks.id is an identity column). Each
	-- statement compares the new rows with the queue or the leases
	-- themselves, one primary-key probe per row: PL/pgSQL keeps the plan
	-- it made for the first statement's transition tables, and a join of
	-- old_rows with new_rows planned for a few rows was a nested loop
	-- that took 12-20 s for a rescore batch of 5,000 tasks.
	DELETE FROM crawltop.queue q USING new_rows n
	WHERE q.task_id = n.id AND n.status <> 'pending';
	DELETE FROM crawltop.leases l USING new_rows n
	WHERE l.task_id = n.id AND n.status <> 'running';
	UPDATE crawltop.queue q
	SET job_id = n.job_id, job_priority = n.job_priority, score = n.score,
	    created_at = n.created_at, pending_since = n.pending_since
	FROM new_rows n
	WHERE q.task_id = n.id AND n.status = 'pending'
	  AND (q.job_id, q.job_priority, q.score, q.created_at, q.pending_since)
	      IS DISTINCT FROM
	      (n.job_id, n.job_priority, n.score, n.created_at, n.pending_since);
	INSERT INTO crawltop.queue
	SELECT n.id, n.job_id, n.job_priority, n.score, n.created_at,
	       n.pending_since
	FROM new_rows n
	WHERE n.status = 'pending'
	  AND NOT EXISTS (SELECT 1 FROM crawltop.queue q WHERE q.task_id = n.id);
	UPDATE crawltop.leases l SET expires_at = n.lease_expires_at
	FROM new_rows n
	WHERE l.task_id = n.id AND n.status = 'running'
	  AND l.expires_at IS DISTINCT FROM n.lease_expires_at;
	INSERT INTO crawltop.leases
	SELECT n.id, n.lease_expires_at
	FROM new_rows n
	WHERE n.status = 'running'
	  AND NOT EXISTS (SELECT 1 FROM crawltop.leases l WHERE l.task_id = n.id);
	RETURN NULL;
END $$;

-- The sync trigger's three statement triggers (and, below, 0007's counter
-- triggers again): skipped by the one statement of claim and complete
-- that keeps queue, leases and counters itself (crawltop.inline is 'on'
-- for that statement only; the WHEN clause spares the function call).
CREATE FUNCTION crawltop.inline_skipped_triggers(p_prefix text, p_function text)
	RETURNS void LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
BEGIN
	EXECUTE format('DROP TRIGGER IF EXISTS %I ON crawltop.tasks', p_prefix || '_insert');
	EXECUTE format('DROP TRIGGER IF EXISTS %I ON crawltop.tasks', p_prefix || '_update');
	EXECUTE format('DROP TRIGGER IF EXISTS %I ON crawltop.tasks', p_prefix || '_delete');
	EXECUTE format('CREATE TRIGGER %I AFTER INSERT ON crawltop.tasks '
		'REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT '
		'WHEN (current_setting(''crawltop.inline'', true) IS DISTINCT FROM ''on'') '
		'EXECUTE FUNCTION crawltop.%I()', p_prefix || '_insert', p_function);
	EXECUTE format('CREATE TRIGGER %I AFTER UPDATE ON crawltop.tasks '
		'REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT '
		'WHEN (current_setting(''crawltop.inline'', true) IS DISTINCT FROM ''on'') '
		'EXECUTE FUNCTION crawltop.%I()', p_prefix || '_update', p_function);
	EXECUTE format('CREATE TRIGGER %I AFTER DELETE ON crawltop.tasks '
		'REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT '
		'WHEN (current_setting(''crawltop.inline'', true) IS DISTINCT FROM ''on'') '
		'EXECUTE FUNCTION crawltop.%I()', p_prefix || '_delete', p_function);
END $$;
SELECT crawltop.inline_skipped_triggers('tasks_queue', 'tasks_queue_sync');

CREATE FUNCTION crawltop.tasks_queue_truncate() RETURNS trigger
	LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
	TRUNCATE crawltop.queue, crawltop.leases;
	RETURN NULL;
END $$;
CREATE TRIGGER tasks_queue_truncate AFTER TRUNCATE ON crawltop.tasks
	FOR EACH STATEMENT EXECUTE FUNCTION crawltop.tasks_queue_truncate();
REVOKE ALL ON FUNCTION crawltop.tasks_queue_sync(), crawltop.tasks_queue_truncate()
	FROM PUBLIC;

-- ---- counters: deltas appended by claim and complete ------------------------

CREATE TABLE crawltop.count_deltas (
	job_id           bigint NOT NULL,
	n                bigint NOT NULL,
	old_status       text,
	old_owner        text,
	new_status       text,
	new_owner        text,
	class            smallint,
	depth            integer,
	discovery_method text,
	type             text,
	job_priority     smallint,
	score            double precision,
	ranked_at        timestamptz,
	priority_class   smallint,
	claims           bigint NOT NULL DEFAULT 0,
	completions      bigint NOT NULL DEFAULT 0,
	second           timestamptz NOT NULL
);
REVOKE ALL ON crawltop.count_deltas FROM PUBLIC;
GRANT SELECT ON crawltop.count_deltas TO crawltop_viewer;

-- folded rate ticks go to shard 0, as folded cells do
ALTER TABLE crawltop.rate_ticks DROP CONSTRAINT rate_ticks_shard_check;
ALTER TABLE crawltop.rate_ticks ADD CONSTRAINT rate_ticks_shard_check
	CHECK (shard BETWEEN 0 AND 32);

-- The counters as they are now: the rows of every shard, and the deltas
-- not folded yet, one row per cell and delta group.
CREATE VIEW crawltop.task_counts_now AS
SELECT c.job_id, c.dim, c.key, c.n FROM crawltop.task_counts c
UNION ALL
SELECT d.job_id, x.dim, x.key, sum(x.sign * d.n)::bigint
FROM crawltop.count_deltas d
CROSS JOIN LATERAL (
	SELECT -1 AS sign, y.dim, y.key
	FROM crawltop.task_cells(d.old_status, d.old_owner, d.class, d.depth,
		d.discovery_method, d.type, d.job_priority, d.score,
		d.ranked_at, d.priority_class) y
	WHERE d.old_status IS NOT NULL
	UNION ALL
	SELECT 1, y.dim, y.key
	FROM crawltop.task_cells(d.new_status, d.new_owner, d.class, d.depth,
		d.discovery_method, d.type, d.job_priority, d.score,
		d.ranked_at, d.priority_class) y
	WHERE d.new_status IS NOT NULL) x
GROUP BY d.job_id, x.dim, x.key;

CREATE VIEW crawltop.rate_ticks_now AS
SELECT k.second, k.job_id, k.claims, k.completions FROM crawltop.rate_ticks k
UNION ALL
SELECT d.second, d.job_id, d.claims, d.completions FROM crawltop.count_deltas d
WHERE d.claims <> 0 OR d.completions <> 0;
REVOKE ALL ON crawltop.task_counts_now, crawltop.rate_ticks_now FROM PUBLIC;
GRANT SELECT ON crawltop.task_counts_now, crawltop.rate_ticks_now TO crawltop_viewer;
-- workers read the job counters (0009)
GRANT SELECT ON crawltop.task_counts_now TO crawltop_worker;

-- Move every delta into shard 0 of task_counts and of rate_ticks; returns
-- the number of delta rows folded. Never waits: when slot 0 is held (a
-- compaction, or another fold), it returns 0 and the deltas wait for the
-- next fold. Readers see the deltas or their sums, never both or neither
-- (one statement).
CREATE FUNCTION crawltop.fold_counts() RETURNS bigint
	LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	n bigint;
BEGIN
	PERFORM 1 FROM crawltop.counter_slots c WHERE c.shard = 0
	FOR UPDATE SKIP LOCKED;
	IF NOT FOUND THEN
		RETURN 0;
	END IF;
	WITH moved AS (
		DELETE FROM crawltop.count_deltas d RETURNING d.*
	), cells AS (
		INSERT INTO crawltop.task_counts AS c (job_id, dim, key, shard, n)
		SELECT d.job_id, x.dim, x.key, 0, sum(x.sign * d.n)
		FROM moved d
		CROSS JOIN LATERAL (
			SELECT -1 AS sign, y.dim, y.key
			FROM crawltop.task_cells(d.old_status, d.old_owner, d.class,
				d.depth, d.discovery_method, d.type, d.job_priority,
				d.score, d.ranked_at, d.priority_class) y
			WHERE d.old_status IS NOT NULL
			UNION ALL
			SELECT 1, y.dim, y.key
			FROM crawltop.task_cells(d.new_status, d.new_owner, d.class,
				d.depth, d.discovery_method, d.type, d.job_priority,
				d.score, d.ranked_at, d.priority_class) y
			WHERE d.new_status IS NOT NULL) x
		GROUP BY 1, 2, 3
		HAVING sum(x.sign * d.n) <> 0
		ON CONFLICT (job_id, dim, key, shard) DO UPDATE SET n = c.n + excluded.n
	), ticks AS (
		INSERT INTO crawltop.rate_ticks AS k (second, shard, job_id, claims,
			completions)
		SELECT d.second, 0, d.job_id, sum(d.claims), sum(d.completions)
		FROM moved d WHERE d.claims <> 0 OR d.completions <> 0
		GROUP BY 1, 3
		ON CONFLICT (shard, second, job_id) DO UPDATE
		SET claims = k.claims + excluded.claims,
		    completions = k.completions + excluded.completions
	)
	SELECT count(*) INTO n FROM moved;
	-- shard 0's seconds past the retention (writer shards sweep their
	-- own, 0007; compaction the rest)
	DELETE FROM crawltop.rate_ticks k WHERE k.shard = 0
	  AND k.second < date_trunc('second', clock_timestamp())
		- make_interval(secs => crawltop.rate_retention_seconds());
	RETURN n;
END $$;
REVOKE ALL ON FUNCTION crawltop.fold_counts() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION crawltop.fold_counts() TO crawltop_operator, crawltop_worker;

-- 0007's counter triggers: skipped by the statements that append a delta
SELECT crawltop.inline_skipped_triggers('tasks_count', 'tasks_count');
DROP FUNCTION crawltop.inline_skipped_triggers(text, text);

-- TRUNCATE tasks empties the deltas too
CREATE OR REPLACE FUNCTION crawltop.tasks_count_truncate() RETURNS trigger
	LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
	DELETE FROM crawltop.task_counts;
	DELETE FROM crawltop.count_deltas;
	RETURN NULL;
END $$;

-- 0007's rebuild: the deltas are recounted with everything else
CREATE OR REPLACE FUNCTION crawltop.rebuild_counts() RETURNS bigint
	LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	n bigint;
BEGIN
	LOCK TABLE crawltop.tasks IN SHARE MODE;
	DELETE FROM crawltop.task_counts;
	DELETE FROM crawltop.count_deltas;
	INSERT INTO crawltop.task_counts (job_id, dim, key, shard, n)
	SELECT t.job_id, x.dim, x.key, 0, count(*)
	FROM crawltop.tasks t CROSS JOIN LATERAL crawltop.task_cells(t.status,
		t.lease_owner,
		t.class, t.depth, t.discovery_method, t.type, t.job_priority,
		t.score, t.ranked_at, t.priority_class) x
	GROUP BY 1, 2, 3;
	GET DIAGNOSTICS n = ROW_COUNT;
	RETURN n;
END $$;

-- ---- claim: the queue's order, one statement for the claimed tasks --------

-- check_worker's rule as an expression the planner inlines: claim and
-- complete test it in their own plan and call check_worker (which says
-- why) only for a name it refuses.
CREATE FUNCTION crawltop.worker_ok(p_worker text) RETURNS boolean
	LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
	SELECT coalesce(p_worker ~ '^[A-Za-z0-9._:@/-]{1,128}$', false)
$$;
CREATE OR REPLACE FUNCTION crawltop.check_worker(p_worker text) RETURNS void
	LANGUAGE plpgsql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $$
BEGIN
	IF NOT crawltop.worker_ok(p_worker) THEN
		RAISE EXCEPTION 'worker name % is not allowed: 1 to 128 of A-Z a-z 0-9 . _ : @ / -',
			crawltop.shown(p_worker) USING ERRCODE = '22023';
	END IF;
END $$;
REVOKE ALL ON FUNCTION crawltop.worker_ok(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION crawltop.worker_ok(text) TO crawltop_viewer,
	crawltop_worker;

-- 0005's claim over the queue. The candidates are read in the queue's
-- order and locked in tasks (FOR UPDATE OF t SKIP LOCKED, with t.status
-- rechecked on the row's newest version), then one statement marks them
-- running, deletes their queue rows and writes their leases.
CREATE OR REPLACE FUNCTION crawltop.claim(p_worker text, p_n integer DEFAULT 1,
		p_job_id bigint DEFAULT NULL, p_lease_seconds double precision DEFAULT NULL)
	RETURNS TABLE (task_id bigint, job_id bigint, page_id bigint,
		job_priority smallint, score double precision, class smallint,
		created_at timestamptz, retry_count smallint, depth integer,
		source_type text, lease_expires_at timestamptz, domain text, path text)
	LANGUAGE plpgsql SECURITY DEFINER
	SET plan_cache_mode = force_generic_plan
	SET search_path = pg_catalog, pg_temp AS $$
#variable_conflict use_column
DECLARE
	v_lease double precision;
	v_guard double precision;
	v_every integer;
	v_exp timestamptz;
	v_cutoff timestamptz;
	v_slots bigint;
	v_quota integer := 0;
	v_old bigint[] := '{}';
	v_status text;
BEGIN
	-- the store's settings in one statement: the current version's over
	-- the defaults, as setting('{store}') merges them (its call, which
	-- sets and restores its pinned search_path, was a tenth of a claim)
	SELECT coalesce(p_lease_seconds, (x.st->>'lease_seconds')::double precision, 30),
	       coalesce((x.st->>'starvation_seconds')::double precision, 300),
	       coalesce((x.st->>'starvation_every')::integer, 10)
	INTO v_lease, v_guard, v_every
	FROM (SELECT coalesce(crawltop.settings_defaults()->'store', '{}')
		     || coalesce((SELECT s.value->'store' FROM crawltop.settings s
				  ORDER BY s.version DESC LIMIT 1), '{}') AS st) x;
	IF NOT crawltop.worker_ok(p_worker) THEN
		PERFORM crawltop.check_worker(p_worker);
	END IF;
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
	-- the reaper's own probe, here: most claims find nothing expired and
	-- need not call it (a call sets its settings and restores them)
	IF EXISTS (SELECT 1 FROM crawltop.leases l WHERE l.expires_at < now()) THEN
		PERFORM crawltop.reap_expired(100);
	END IF;

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

	-- The starving path collects the ids it locked into an array in a
	-- statement of its own (the subquery's LIMIT bounds it; 0005 says why
	-- not a CTE feeding the UPDATE). Its cutoff is an InitPlan value,
	-- (SELECT v_cutoff), so that the planner keeps the ordered range scan
	-- of queue_starve_* with LIMIT.
	IF v_quota > 0 AND p_job_id IS NULL THEN
		SELECT coalesce(array_agg(s.id), '{}') INTO v_old FROM (
			SELECT t.id FROM crawltop.queue q
			JOIN crawltop.tasks t ON t.id = q.task_id
			WHERE q.job_priority <= 10
			  AND q.pending_since < (SELECT v_cutoff)
			  AND t.status = 'pending'
			ORDER BY q.pending_since, q.task_id
			LIMIT v_quota
			FOR UPDATE OF t SKIP LOCKED
		) s;
	ELSIF v_quota > 0 THEN
		-- starving path of one job: oldest pending first
		SELECT coalesce(array_agg(s.id), '{}') INTO v_old FROM (
			SELECT t.id FROM crawltop.queue q
			JOIN crawltop.tasks t ON t.id = q.task_id
			WHERE q.job_id = p_job_id
			  AND q.pending_since < (SELECT v_cutoff)
			  AND t.status = 'pending'
			ORDER BY q.pending_since, q.task_id
			LIMIT v_quota
			FOR UPDATE OF t SKIP LOCKED
		) s;
	END IF;
	-- One statement claims the other slots in SPEC.md's order and marks
	-- them running: the ids come from an ARRAY(...) sub-select, an
	-- InitPlan run once (so at most p_n rows: ids are primary keys, and
	-- this transaction holds every one of them locked), all jobs' or one
	-- job's by a one-time filter on p_job_id. The statement keeps queue,
	-- leases and counters itself (the triggers skip it).
	PERFORM set_config('crawltop.inline', 'on', true);
	RETURN QUERY
	WITH u AS (
		UPDATE crawltop.tasks t
		SET status = 'running', lease_owner = p_worker,
		    lease_expires_at = v_exp, started_at = now()
		WHERE t.id = ANY (v_old || ARRAY(
			SELECT c.id FROM crawltop.queue q
			JOIN crawltop.tasks c ON c.id = q.task_id
			WHERE p_job_id IS NULL AND q.job_priority <= 10
			  AND q.task_id <> ALL (v_old)
			  AND c.status = 'pending'
			ORDER BY q.job_priority, q.score DESC, q.created_at, q.task_id
			LIMIT p_n - cardinality(v_old)
			FOR UPDATE OF c SKIP LOCKED) || ARRAY(
			SELECT c.id FROM crawltop.queue q
			JOIN crawltop.tasks c ON c.id = q.task_id
			WHERE q.job_id = p_job_id
			  AND q.task_id <> ALL (v_old)
			  AND c.status = 'pending'
			ORDER BY q.score DESC, q.created_at, q.task_id
			LIMIT p_n - cardinality(v_old)
			FOR UPDATE OF c SKIP LOCKED))
		  AND t.status = 'pending'
		RETURNING t.id, t.job_id, t.page_id,
			t.job_priority::smallint AS job_priority, t.score,
			t.class::smallint AS class, t.created_at,
			t.retry_count::smallint AS retry_count,
			t.depth::integer AS depth, t.source_type::text AS source_type,
			t.lease_expires_at, t.discovery_method, t.type, t.ranked_at,
			t.priority_class
	), dq AS (
		DELETE FROM crawltop.queue q USING u WHERE q.task_id = u.id
	), dl AS (
		INSERT INTO crawltop.leases (task_id, expires_at)
		SELECT u.id, u.lease_expires_at FROM u
	), dc AS (
		INSERT INTO crawltop.count_deltas (job_id, n, old_status,
			new_status, new_owner, class, depth, discovery_method, type,
			job_priority, score, ranked_at, priority_class, claims, second)
		SELECT u.job_id, 1, 'pending', 'running', p_worker, u.class,
		       u.depth, u.discovery_method, u.type, u.job_priority, u.score,
		       u.ranked_at, u.priority_class, 1,
		       date_trunc('second', clock_timestamp())
		FROM u
	)
	SELECT u.id, u.job_id, u.page_id, u.job_priority, u.score, u.class,
	       u.created_at, u.retry_count, u.depth, u.source_type,
	       u.lease_expires_at, d.name, p.path::text
	FROM u
	JOIN crawltop.pages p ON p.id = u.page_id
	JOIN crawltop.domains d ON d.id = p.domain_id;
	PERFORM set_config('crawltop.inline', '', true);
	IF random() < 1.0 / 32 THEN
		PERFORM crawltop.fold_counts();
	END IF;
END $$;

-- ---- complete: the row and its lease in one statement ---------------------

CREATE OR REPLACE FUNCTION crawltop.complete(p_worker text, p_task_ids bigint[])
	RETURNS SETOF bigint LANGUAGE plpgsql SECURITY DEFINER
	SET plan_cache_mode = force_generic_plan
	SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	n bigint;
BEGIN
	PERFORM set_config('crawltop.inline', 'on', true);
	RETURN QUERY
	WITH mine AS (
		SELECT t.id FROM crawltop.tasks t
		WHERE t.id = ANY (p_task_ids) AND t.status = 'running'
		  AND t.lease_owner = p_worker AND t.lease_expires_at > now()
		ORDER BY t.id
		FOR NO KEY UPDATE
	), u AS (
		UPDATE crawltop.tasks t
		SET status = 'completed', completed_at = now(),
		    lease_owner = NULL, lease_expires_at = NULL
		FROM mine WHERE t.id = mine.id
		RETURNING t.id, t.job_id
	), dl AS (
		DELETE FROM crawltop.leases l USING u WHERE l.task_id = u.id
	), dc AS (
		INSERT INTO crawltop.count_deltas (job_id, n, old_status,
			old_owner, new_status, completions, second)
		SELECT u.job_id, count(*), 'running', p_worker, 'completed',
		       count(*), date_trunc('second', clock_timestamp())
		FROM u GROUP BY u.job_id
	)
	SELECT u.id FROM u;
	GET DIAGNOSTICS n = ROW_COUNT;
	PERFORM set_config('crawltop.inline', '', true);
	IF n > 0 AND random() < 1.0 / 32 THEN
		PERFORM crawltop.fold_counts();
	END IF;
	-- a name claim refuses leases nothing: it is checked (and refused)
	-- only when nothing was completed, off the path of every success
	IF n = 0 THEN
		PERFORM crawltop.check_worker(p_worker);
	END IF;
END $$;

-- ---- reap_expired: the expired leases through leases_expiry ---------------

-- 0016's reaper, finding the expired leases in crawltop.leases (its
-- UPDATE of tasks keeps queue and leases through the sync trigger).
CREATE OR REPLACE FUNCTION crawltop.reap_expired(p_limit integer DEFAULT 100)
	RETURNS integer LANGUAGE plpgsql SECURITY DEFINER
	SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	n integer;
	v_ids bigint[];
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
	-- their jobs' state and priority, held until commit (0005)
	PERFORM 1 FROM crawltop.jobs j
	WHERE j.id IN (SELECT t.job_id FROM crawltop.tasks t WHERE t.id = ANY (v_ids))
	ORDER BY j.id FOR KEY SHARE;
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

-- ---- readers of the claim order: over the queue ---------------------------

-- 0007's next_tasks: the next tasks in claim order, read from the queue.
CREATE OR REPLACE FUNCTION crawltop.next_tasks(p_job bigint, p_limit integer)
	RETURNS TABLE (task_id bigint, job_id bigint, path text,
		score double precision, class smallint, job_priority smallint,
		created_at timestamptz, depth integer, type text,
		discovery_method text)
	LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp AS $$
#variable_conflict use_column
BEGIN
	IF p_limit IS NULL OR p_limit NOT BETWEEN 1 AND 1000 THEN
		RAISE EXCEPTION 'next tasks limit % is outside 1..1000',
			coalesce(p_limit::text, 'NULL') USING ERRCODE = '22003';
	END IF;
	PERFORM crawltop.check_job(p_job);
	IF p_job IS NULL THEN
		RETURN QUERY
		SELECT t.id, t.job_id, p.path::text, t.score, t.class::smallint,
		       t.job_priority::smallint, t.created_at, t.depth::integer,
		       t.type::text, t.discovery_method::text
		FROM (SELECT q.task_id FROM crawltop.queue q
		      WHERE q.job_priority <= 10
		      ORDER BY q.job_priority, q.score DESC, q.created_at, q.task_id
		      LIMIT p_limit) q
		JOIN crawltop.tasks t ON t.id = q.task_id
		JOIN crawltop.pages p ON p.id = t.page_id
		ORDER BY t.job_priority, t.score DESC, t.created_at, t.id;
		RETURN;
	END IF;
	IF NOT EXISTS (SELECT 1 FROM crawltop.jobs j WHERE j.id = p_job
		       AND j.status IN ('pending', 'running')) THEN
		RETURN;
	END IF;
	RETURN QUERY
	SELECT t.id, t.job_id, p.path::text, t.score, t.class::smallint,
	       t.job_priority::smallint, t.created_at, t.depth::integer,
	       t.type::text, t.discovery_method::text
	FROM (SELECT q.task_id FROM crawltop.queue q
	      WHERE q.job_id = p_job
	      ORDER BY q.score DESC, q.created_at, q.task_id
	      LIMIT p_limit) q
	JOIN crawltop.tasks t ON t.id = q.task_id
	JOIN crawltop.pages p ON p.id = t.page_id
	ORDER BY t.score DESC, t.created_at, t.id;
END $$;

-- 0011's preview_open: the job's pending tasks found through the queue.
CREATE OR REPLACE FUNCTION crawltop.preview_open(p_job_id bigint, p_n integer,
		p_cursor text)
	RETURNS bigint LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	v_total bigint;
	v_top bigint[] := '{}';
	v_frac double precision := 1;
	c refcursor := p_cursor;
BEGIN
	IF p_n IS NULL OR p_n NOT BETWEEN 1 AND 100000 THEN
		RAISE EXCEPTION 'preview sample size % is outside 1..100000',
			coalesce(p_n::text, 'NULL') USING ERRCODE = '22003';
	END IF;
	PERFORM 1 FROM crawltop.jobs j WHERE j.id = p_job_id;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'job % does not exist', coalesce(p_job_id::text, 'NULL')
			USING ERRCODE = 'P0002';
	END IF;
	SELECT count(*) INTO v_total FROM crawltop.queue q WHERE q.job_id = p_job_id;
	IF v_total > p_n THEN
		SELECT coalesce(array_agg(q.task_id), '{}') INTO v_top FROM (
			SELECT q.task_id FROM crawltop.queue q
			WHERE q.job_id = p_job_id
			ORDER BY q.score DESC, q.created_at, q.task_id
			LIMIT least(100, p_n)) q;
		-- a little under the room left, so that LIMIT rarely cuts
		v_frac := 0.98 * (p_n - cardinality(v_top)) / v_total;
	END IF;
	OPEN c NO SCROLL FOR
		SELECT t.id AS task_id, t.page_id, t.score, t.class,
		       t.base_score, t.adjustment, d.name AS domain, p.path, p.priority_score AS page_score,
		       t.type, t.depth, t.discovery_method,
		       t.ranked_at IS NOT NULL AS ranked, x.*
		-- the sample first (a LIMIT keeps the subquery, and so the
		-- volatile filter, below the joins: only sampled rows go on)
		FROM (SELECT q.task_id FROM crawltop.queue q
		      WHERE q.job_id = p_job_id
			AND (v_frac >= 1 OR q.task_id = ANY (v_top) OR random() < v_frac)
		      LIMIT p_n) s
		JOIN crawltop.tasks t ON t.id = s.task_id
		JOIN crawltop.pages p ON p.id = t.page_id
		JOIN crawltop.domains d ON d.id = p.domain_id
		CROSS JOIN LATERAL crawltop.score_input_columns(t.score_inputs) x;
	RETURN v_total;
END $$;

-- 0005's set_job_state: the job's pending tasks found through the queue
-- (the job's finished tasks are not read).
CREATE OR REPLACE FUNCTION crawltop.set_job_state(p_job_id bigint, p_action text)
	RETURNS bigint LANGUAGE plpgsql SECURITY DEFINER
	SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	j crawltop.jobs;
	v_to text;
	v_ids bigint[];
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
	-- the job row is held: no claim of this job's tasks starts meanwhile
	-- (claim reads the job; the reaper and release lock it KEY SHARE)
	SELECT coalesce(array_agg(x.id), '{}') INTO v_ids FROM (
		SELECT t.id FROM crawltop.queue q
		JOIN crawltop.tasks t ON t.id = q.task_id
		WHERE q.job_id = j.id AND t.status = 'pending'
		ORDER BY t.id FOR NO KEY UPDATE OF t) x;
	IF p_action = 'cancel' THEN
		UPDATE crawltop.tasks SET status = 'skipped', completed_at = now()
		WHERE id = ANY (v_ids) AND status = 'pending';
	ELSE
		UPDATE crawltop.tasks
		SET job_priority = j.priority + CASE WHEN p_action = 'pause' THEN 100 ELSE 0 END,
		    pending_since = CASE WHEN p_action = 'resume' THEN now()
			ELSE pending_since END
		WHERE id = ANY (v_ids) AND status = 'pending';
	END IF;
	GET DIAGNOSTICS n = ROW_COUNT;
	INSERT INTO crawltop.audit_log (action, job_id, before, after, rows_affected)
	VALUES ('job.' || p_action, j.id, jsonb_build_object('status', j.status),
		jsonb_build_object('status', v_to), n);
	RETURN n;
END $$;


-- ---- counter readers: the folded counters plus the deltas ----------------

-- 0007's readers, reading task_counts_now and rate_ticks_now
CREATE OR REPLACE FUNCTION crawltop.dashboard_cells(p_job bigint)
	RETURNS TABLE (dim text, key text, n bigint)
	LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp AS $$
#variable_conflict use_column
BEGIN
	PERFORM crawltop.check_job(p_job);
	-- Either branch of sums is empty: one job reads its primary key
	-- range, all jobs read the table (a one-time filter skips the other
	-- branch, also in a generic plan).
	RETURN QUERY
	WITH discovery AS (
		SELECT j.id FROM crawltop.jobs j
		WHERE j.prioritization_mode = 'discovery'
	), sums AS (
		SELECT c.dim, c.key, sum(c.n)::bigint AS n
		FROM crawltop.task_counts_now c WHERE c.job_id = p_job
		  AND (c.dim <> 'rank' OR c.job_id IN (SELECT id FROM discovery))
		GROUP BY c.dim, c.key
		UNION ALL
		SELECT c.dim, c.key, sum(c.n)::bigint
		FROM crawltop.task_counts_now c WHERE p_job IS NULL
		  AND (c.dim <> 'rank' OR c.job_id IN (SELECT id FROM discovery))
		GROUP BY c.dim, c.key
	)
	SELECT r.dim, r.key, r.n FROM (
		SELECT k.dim, k.key, coalesce(s.n, 0) AS n, k.dim_ord, k.key_ord
		FROM crawltop.dashboard_keys() k
		LEFT JOIN sums s ON s.dim = k.dim AND s.key = k.key
		UNION ALL
		SELECT s.dim, s.key, s.n, 4, 0 FROM sums s
		WHERE s.dim = 'heat' AND s.n <> 0
	) r
	ORDER BY r.dim_ord, r.key_ord, r.key;
END $$;
CREATE OR REPLACE FUNCTION crawltop.job_status_counts(p_job bigint)
	RETURNS TABLE (pending bigint, running bigint, retrying bigint,
		completed bigint, failed bigint, skipped bigint)
	LANGUAGE sql STABLE PARALLEL SAFE AS $$
	SELECT coalesce(sum(c.n) FILTER (WHERE c.key = 'pending'), 0)::bigint,
	       coalesce(sum(c.n) FILTER (WHERE c.key = 'running'), 0)::bigint,
	       coalesce(sum(c.n) FILTER (WHERE c.key = 'retrying'), 0)::bigint,
	       coalesce(sum(c.n) FILTER (WHERE c.key = 'completed'), 0)::bigint,
	       coalesce(sum(c.n) FILTER (WHERE c.key = 'failed'), 0)::bigint,
	       coalesce(sum(c.n) FILTER (WHERE c.key = 'skipped'), 0)::bigint
	FROM crawltop.task_counts_now c
	WHERE c.job_id = p_job AND c.dim = 'status'
$$;
CREATE OR REPLACE FUNCTION crawltop.dashboard_jobs()
	RETURNS TABLE (job_id bigint, name text, domain text, mode text,
		priority smallint, status text, total_pages integer,
		pending bigint, running bigint, retrying bigint,
		completed bigint, failed bigint, skipped bigint,
		claims_per_s double precision,
		completions_per_s double precision)
	LANGUAGE sql STABLE AS $$
	SELECT j.id, j.name, d.name, j.prioritization_mode, j.priority,
	       crawltop.job_status_shown(j.status, c.pending, c.running,
		       c.retrying, c.completed + c.failed + c.skipped),
	       j.total_pages, c.pending, c.running, c.retrying, c.completed,
	       c.failed, c.skipped,
	       coalesce(r.claims, 0) / 60.0, coalesce(r.completions, 0) / 60.0
	FROM crawltop.jobs j
	JOIN crawltop.domains d ON d.id = j.domain_id
	CROSS JOIN LATERAL crawltop.job_status_counts(j.id) c
	LEFT JOIN (
		SELECT k.job_id, sum(k.claims) AS claims,
		       sum(k.completions) AS completions
		FROM crawltop.rate_ticks_now k
		WHERE k.second > date_trunc('second', now()) - interval '60 seconds'
		GROUP BY k.job_id
	) r ON r.job_id = j.id
	ORDER BY j.id
$$;
CREATE OR REPLACE FUNCTION crawltop.rate_series(p_job bigint, p_seconds integer)
	RETURNS TABLE (second timestamptz, claims bigint, completions bigint)
	LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp AS $$
#variable_conflict use_column
DECLARE
	v_to timestamptz := date_trunc('second', now());
BEGIN
	IF p_seconds IS NULL OR p_seconds NOT BETWEEN 1
			AND crawltop.rate_retention_seconds() THEN
		RAISE EXCEPTION 'rate series of % seconds is outside 1..%',
			coalesce(p_seconds::text, 'NULL'),
			crawltop.rate_retention_seconds() USING ERRCODE = '22003';
	END IF;
	PERFORM crawltop.check_job(p_job);
	RETURN QUERY
	SELECT g.s, coalesce(sum(k.claims), 0)::bigint,
	       coalesce(sum(k.completions), 0)::bigint
	FROM generate_series(v_to - make_interval(secs => p_seconds - 1), v_to,
		interval '1 second') AS g (s)
	LEFT JOIN crawltop.rate_ticks_now k ON k.second = g.s
		AND (p_job IS NULL OR k.job_id = p_job)
	GROUP BY g.s
	ORDER BY g.s;
END $$;

-- 0016's compact_counts, folding the deltas first
CREATE OR REPLACE FUNCTION crawltop.compact_counts() RETURNS integer
	LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	v_cut timestamptz := date_trunc('second', clock_timestamp())
		- make_interval(secs => crawltop.rate_retention_seconds());
	folded integer := 0;
	s integer;
BEGIN
	IF EXISTS (SELECT 1 FROM crawltop.counter_slots c WHERE c.shard = 0
		   AND c.xmax::text = (pg_current_xact_id()::text::bigint
					% 4294967296)::text) THEN
		RETURN 0;
	END IF;
	PERFORM 1 FROM crawltop.counter_slots c WHERE c.shard = 0
	FOR UPDATE SKIP LOCKED;
	IF NOT FOUND THEN
		RETURN 0;
	END IF;
	-- the deltas first (slot 0 is held: fold_counts takes it at once)
	PERFORM crawltop.fold_counts();
	FOR s IN SELECT c.shard FROM crawltop.task_counts c WHERE c.shard > 0
		 UNION
		 SELECT r.shard FROM crawltop.rate_ticks r WHERE r.second < v_cut
		 ORDER BY 1 LOOP
		EXIT WHEN folded >= crawltop.counter_shards() / 2;
		PERFORM 1 FROM crawltop.counter_slots c WHERE c.shard = s
		FOR UPDATE SKIP LOCKED;
		CONTINUE WHEN NOT FOUND;
		WITH moved AS (
			DELETE FROM crawltop.task_counts c WHERE c.shard = s
			RETURNING c.job_id, c.dim, c.key, c.n
		)
		INSERT INTO crawltop.task_counts AS c (job_id, dim, key, shard, n)
		SELECT m.job_id, m.dim, m.key, 0, sum(m.n) FROM moved m
		GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
		ON CONFLICT (job_id, dim, key, shard) DO UPDATE SET n = c.n + excluded.n;
		DELETE FROM crawltop.rate_ticks r WHERE r.shard = s AND r.second < v_cut;
		folded := folded + 1;
	END LOOP;
	DELETE FROM crawltop.task_counts c WHERE c.shard = 0 AND c.n = 0;
	RETURN folded;
END $$;

-- ---- no session setting skips another function's sync --------------------

-- Every other function that writes crawltop.tasks runs with
-- crawltop.inline pinned empty, whatever the session set it to (a
-- worker's SET crawltop.inline = on then changes nothing). A migration
-- that replaces one of them must pin it again (CREATE OR REPLACE drops a
-- function's settings); tests/store/test_queue.c checks that every
-- such function does.
DO $$
DECLARE
	f regprocedure;
BEGIN
	FOR f IN
		SELECT p.oid::regprocedure FROM pg_proc p
		WHERE p.pronamespace = 'crawltop'::regnamespace
		  AND p.prolang = (SELECT oid FROM pg_language WHERE lanname = 'plpgsql')
		  AND p.prosrc ~* '(UPDATE|INSERT INTO|DELETE FROM|TRUNCATE)\s+crawltop\.tasks\M'
		  AND p.proname NOT IN ('claim', 'complete')
	LOOP
		EXECUTE format('ALTER FUNCTION %s SET crawltop.inline = %L', f, '');
	END LOOP;
END $$;
