-- 0007_counters.sql: live counters for the console (issue 3 point 6).
--
-- What is counted, per job:
--   status    every task, by status: pending running retrying completed
--             failed skipped, where running is a task leased to a worker
--             (lease_owner set) and retrying one that failed and waits for
--             its retry backoff (status 'running', lease_owner NULL: see
--             fail in 0003; the reaper makes it pending at
--             lease_expires_at). tasks.status has no 'retrying': the key
--             is the status as shown (task_status_shown)
--   class     pending tasks by class: P0 P1 P2 P3 (tasks.class, the claim
--             order's class of the score)
--   depth     pending tasks by depth bucket: 0 1 2 3+ unknown (seed 002)
--   heat      pending tasks by heatmap cell 'method|type' (seed 002: discovery
--             method x type; a NULL method or type shows as 'none')
--   priority  pending tasks by job priority 1..10 (tasks.job_priority; a
--             paused job's tasks, held at priority + 100, count under their
--             priority)
--   score     pending tasks by score bucket 0-20 20-40 40-60 60-80 80-100
--             (seed 003; 100 goes in 80-100)
--   rank      pending tasks by seed 003 ranking: P0..P3 from priority_class
--             when ranked, 'unranked' otherwise (the seed's backward
--             compatibility: unranked tasks are stored as P2 but counted
--             apart)
-- and, per job and second, claims (pending -> running under a worker's
-- lease) and completions (-> completed).
--
-- How (doc/architecture.md, "Live counters"): statement-level AFTER
-- triggers with transition tables aggregate each statement's changes into
-- a handful of (job, dim, key, +-n) deltas and add them to crawltop.task_counts
-- in the transaction's own SHARD. A transaction owns its shard through a
-- transaction-scoped advisory lock, taken at its first counted change
-- (first try: backend pid mod 32, then the next free one), so two
-- transactions never write the same counter row: workers never queue on
-- counter rows and cannot deadlock on them. A read sums the shards: O(cells
-- x shards), independent of the number of tasks. compact_counts() folds
-- idle shards into shard 0, at most 16 per call (optional: without it the
-- table stays bounded by cells x 32 shards).

-- Counter rows: n of the tasks of job_id in cell (dim, key), as far as the
-- transactions that owned `shard` changed it. The sum over shards is the
-- count. Shard 0 holds compacted sums; 1..32 belong to writers. No foreign
-- key: a deleted job's rows fall to 0 (its tasks are deleted with it,
-- through the triggers) and compaction removes them.
CREATE TABLE crawltop.task_counts (
	job_id bigint NOT NULL,
	dim    text NOT NULL,
	key    text NOT NULL,
	shard  smallint NOT NULL CHECK (shard BETWEEN 0 AND 32),
	n      bigint NOT NULL,
	PRIMARY KEY (job_id, dim, key, shard)
) WITH (fillfactor = 50); -- room for HOT updates: n is not indexed

-- Claims and completions per second, per job and writer shard. Rows older
-- than rate_retention_seconds() are deleted by the shard's own writer when
-- it starts a new second, and by compact_counts(): at most 32 shards x
-- (retention + 1) seconds x active jobs rows.
CREATE TABLE crawltop.rate_ticks (
	second      timestamptz NOT NULL, -- truncated to the second
	shard       smallint NOT NULL CHECK (shard BETWEEN 1 AND 32),
	job_id      bigint NOT NULL,
	claims      bigint NOT NULL DEFAULT 0,
	completions bigint NOT NULL DEFAULT 0,
	PRIMARY KEY (shard, second, job_id)
) WITH (fillfactor = 50);
CREATE INDEX rate_ticks_second ON crawltop.rate_ticks (second);

-- Number of writer shards (1..32; 0 is compaction's).
CREATE FUNCTION crawltop.counter_shards() RETURNS integer
	LANGUAGE sql IMMUTABLE PARALLEL SAFE AS 'SELECT 32';

-- How long rate_ticks keeps a second, in seconds.
CREATE FUNCTION crawltop.rate_retention_seconds() RETURNS integer
	LANGUAGE sql IMMUTABLE PARALLEL SAFE AS 'SELECT 600';

-- The first key of the counter shards' advisory locks ('ctct'); the second
-- key is the shard.
CREATE FUNCTION crawltop.counter_lock_key() RETURNS integer
	LANGUAGE sql IMMUTABLE PARALLEL SAFE AS 'SELECT 1668572020';

-- The shard this transaction writes its counter changes to, taken on the
-- first call and kept until commit or rollback (an advisory xact lock,
-- remembered in the transaction-local setting crawltop.counter_shard).
-- Tries the backend's home shard (pid mod 32) and then the next ones
-- without waiting; only when all 32 are held by other transactions does it
-- wait for the home shard. Any session can set crawltop.counter_shard, so
-- the remembered shard is trusted only if this transaction holds its lock
-- (taking an advisory lock the transaction already holds succeeds at once;
-- one that another transaction holds fails, and a shard is then taken
-- as if nothing were remembered).
CREATE FUNCTION crawltop.counter_shard() RETURNS smallint
	LANGUAGE plpgsql VOLATILE AS $$
DECLARE
	v text := current_setting('crawltop.counter_shard', true);
	n integer := crawltop.counter_shards();
	home integer;
	s integer;
BEGIN
	IF v ~ '^[0-9]{1,2}$' AND v::integer BETWEEN 1 AND n
	   AND pg_try_advisory_xact_lock(crawltop.counter_lock_key(), v::integer) THEN
		RETURN v::smallint;
	END IF;
	home := pg_backend_pid() % n;
	FOR i IN 0 .. n - 1 LOOP
		s := 1 + (home + i) % n;
		IF pg_try_advisory_xact_lock(crawltop.counter_lock_key(), s) THEN
			PERFORM set_config('crawltop.counter_shard', s::text, true);
			RETURN s;
		END IF;
	END LOOP;
	s := 1 + home;
	PERFORM pg_advisory_xact_lock(crawltop.counter_lock_key(), s);
	PERFORM set_config('crawltop.counter_shard', s::text, true);
	RETURN s;
END $$;

-- The status a task is counted and shown under: its tasks.status, except
-- that a running task without a lease owner (a failed attempt waiting for
-- its retry backoff, 0003's fail) is 'retrying': nobody is fetching it.
-- Inlined by the planner.
CREATE FUNCTION crawltop.task_status_shown(p_status text, p_lease_owner text)
	RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
	SELECT CASE WHEN p_status = 'running' AND p_lease_owner IS NULL
		    THEN 'retrying' ELSE p_status END
$$;

-- The cells (dim, key) one task counts in: its status as shown
-- (task_status_shown: running or retrying by its lease owner), and, while
-- it is pending, one key in each of the other dimensions. Inlined by the
-- planner.
-- One SELECT per cell under UNION ALL, not a VALUES list: the triggers run
-- this LATERAL once per row of a statement, and a VALUES scan prepares its
-- expressions again at every row (a Result node prepares them once). The
-- counter trigger of a 20,000-row UPDATE took 184-205 ms with VALUES and
-- 109-115 ms like this (EXPLAIN ANALYZE, four runs each, alternating).
CREATE FUNCTION crawltop.task_cells(p_status text, p_lease_owner text,
		p_class smallint, p_depth integer, p_method text, p_type text,
		p_job_priority smallint, p_score double precision,
		p_ranked_at timestamptz, p_priority_class smallint)
	RETURNS TABLE (dim text, key text)
	LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
	SELECT 'status'::text, crawltop.task_status_shown(p_status, p_lease_owner)
	UNION ALL
	SELECT 'class', 'P' || p_class WHERE p_status = 'pending'
	UNION ALL
	SELECT 'depth', CASE WHEN p_depth IS NULL THEN 'unknown'
			     WHEN p_depth >= 3 THEN '3+' ELSE p_depth::text END
	WHERE p_status = 'pending'
	UNION ALL
	SELECT 'heat', coalesce(p_method, 'none') || '|' || coalesce(p_type, 'none')
	WHERE p_status = 'pending'
	UNION ALL
	SELECT 'priority', ((p_job_priority - 1) % 100 + 1)::text
	WHERE p_status = 'pending'
	UNION ALL
	SELECT 'score', crawltop.score_bucket(p_score) WHERE p_status = 'pending'
	UNION ALL
	SELECT 'rank', CASE WHEN p_ranked_at IS NULL THEN 'unranked'
			    ELSE 'P' || p_priority_class END
	WHERE p_status = 'pending'
$$;

-- The statement-level trigger on tasks (INSERT, UPDATE, DELETE): adds the
-- statement's net change of every cell to the transaction's shard, and its
-- claims and completions to rate_ticks. A statement that changes no cell
-- (0 rows, or only columns no cell depends on) takes no shard.
-- SECURITY DEFINER: the counters are written here only; no role has a
-- write grant on them. Every name is schema-qualified. The upserts need no
-- ORDER BY: a shard's rows are written by one transaction at a time, so
-- two writers never lock the same counter rows (a sort cost 9 us of the
-- trigger's 122 per one-task statement; doc/PERFORMANCE.md).
CREATE FUNCTION crawltop.tasks_count() RETURNS trigger
	LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	v_now timestamptz;
	v_shard smallint;
	v_rows bigint;
BEGIN
	-- The shard is an uncorrelated scalar subquery (an InitPlan), which
	-- PostgreSQL evaluates only when a first row needs it: an empty delta
	-- takes no shard. A statement that changed no row (every claim's
	-- reaper, mostly) returns at once.
	IF TG_OP = 'INSERT' THEN
		IF NOT EXISTS (SELECT 1 FROM new_rows) THEN
			RETURN NULL;
		END IF;
		INSERT INTO crawltop.task_counts AS c (job_id, dim, key, shard, n)
		SELECT d.job_id, d.dim, d.key, (SELECT crawltop.counter_shard()), d.n
		FROM (SELECT r.job_id, x.dim, x.key, count(*) AS n
		      FROM new_rows r CROSS JOIN LATERAL crawltop.task_cells(r.status,
			r.lease_owner,
			r.class, r.depth, r.discovery_method, r.type, r.job_priority,
			r.score, r.ranked_at, r.priority_class) x
		      GROUP BY 1, 2, 3) d
		ON CONFLICT (job_id, dim, key, shard) DO UPDATE SET n = c.n + excluded.n;
		RETURN NULL;
	END IF;
	IF NOT EXISTS (SELECT 1 FROM old_rows) THEN
		RETURN NULL;
	END IF;
	IF TG_OP = 'DELETE' THEN
		INSERT INTO crawltop.task_counts AS c (job_id, dim, key, shard, n)
		SELECT d.job_id, d.dim, d.key, (SELECT crawltop.counter_shard()), -d.n
		FROM (SELECT r.job_id, x.dim, x.key, count(*) AS n
		      FROM old_rows r CROSS JOIN LATERAL crawltop.task_cells(r.status,
			r.lease_owner,
			r.class, r.depth, r.discovery_method, r.type, r.job_priority,
			r.score, r.ranked_at, r.priority_class) x
		      GROUP BY 1, 2, 3) d
		ON CONFLICT (job_id, dim, key, shard) DO UPDATE SET n = c.n + excluded.n;
		RETURN NULL;
	END IF;

	-- UPDATE: + the new rows' cells, - the old rows' cells; rows whose
	-- cells did not change cancel out. A lease given up with the task left
	-- running (fail with retries left) moves the task from running to
	-- retrying; the reaper moves it on to pending.
	INSERT INTO crawltop.task_counts AS c (job_id, dim, key, shard, n)
	SELECT d.job_id, d.dim, d.key, (SELECT crawltop.counter_shard()), d.n
	FROM (SELECT u.job_id, x.dim, x.key, sum(u.sign) AS n
	      FROM (SELECT r.job_id, r.status, r.lease_owner, r.class, r.depth,
			   r.discovery_method, r.type, r.job_priority, r.score,
			   r.ranked_at, r.priority_class, 1 AS sign
		    FROM new_rows r
		    UNION ALL
		    SELECT r.job_id, r.status, r.lease_owner, r.class, r.depth,
			   r.discovery_method, r.type, r.job_priority, r.score,
			   r.ranked_at, r.priority_class, -1
		    FROM old_rows r) u
	      CROSS JOIN LATERAL crawltop.task_cells(u.status, u.lease_owner,
		u.class, u.depth, u.discovery_method, u.type, u.job_priority,
		u.score, u.ranked_at, u.priority_class) x
	      GROUP BY 1, 2, 3
	      HAVING sum(u.sign) <> 0) d
	ON CONFLICT (job_id, dim, key, shard) DO UPDATE SET n = c.n + excluded.n;

	-- Claims (pending -> running under a worker's lease: what claim does)
	-- and completions: only statements that leave a task leased or
	-- completed can have any, so the others skip the join (fail, whose
	-- retries stay running without an owner, among them).
	IF NOT EXISTS (SELECT 1 FROM new_rows r
		       WHERE (r.status = 'running' AND r.lease_owner IS NOT NULL)
			  OR r.status = 'completed') THEN
		RETURN NULL;
	END IF;
	v_now := date_trunc('second', clock_timestamp());
	INSERT INTO crawltop.rate_ticks AS k (second, shard, job_id, claims,
		completions)
	SELECT v_now, (SELECT crawltop.counter_shard()), n.job_id,
	       count(*) FILTER (WHERE n.status = 'running'),
	       count(*) FILTER (WHERE n.status = 'completed')
	FROM old_rows o JOIN new_rows n ON n.id = o.id
	WHERE (o.status = 'pending' AND n.status = 'running'
		AND n.lease_owner IS NOT NULL)
	   OR (o.status <> 'completed' AND n.status = 'completed')
	GROUP BY n.job_id
	ON CONFLICT (shard, second, job_id) DO UPDATE
		SET claims = k.claims + excluded.claims,
		    completions = k.completions + excluded.completions;
	GET DIAGNOSTICS v_rows = ROW_COUNT;
	IF v_rows = 0 THEN
		RETURN NULL;
	END IF;
	-- Once a second per session and shard, the shard's seconds past the
	-- retention are dropped (through the primary key: the shard is a
	-- plain value here). The session remembers the last shard and second
	-- it swept in crawltop.rate_swept. The upsert above wrote a row, so
	-- counter_shard() ran and crawltop.counter_shard names the shard this
	-- transaction holds.
	v_shard := current_setting('crawltop.counter_shard')::smallint;
	IF current_setting('crawltop.rate_swept', true)
	   IS DISTINCT FROM v_shard || '@' || v_now THEN
		DELETE FROM crawltop.rate_ticks k
		WHERE k.shard = v_shard
		  AND k.second < v_now - make_interval(secs =>
			crawltop.rate_retention_seconds());
		PERFORM set_config('crawltop.rate_swept', v_shard || '@' || v_now, false);
	END IF;
	RETURN NULL;
END $$;

-- Transition tables need one trigger per event.
CREATE TRIGGER tasks_count_insert AFTER INSERT ON crawltop.tasks
	REFERENCING NEW TABLE AS new_rows
	FOR EACH STATEMENT EXECUTE FUNCTION crawltop.tasks_count();
CREATE TRIGGER tasks_count_update AFTER UPDATE ON crawltop.tasks
	REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
	FOR EACH STATEMENT EXECUTE FUNCTION crawltop.tasks_count();
CREATE TRIGGER tasks_count_delete AFTER DELETE ON crawltop.tasks
	REFERENCING OLD TABLE AS old_rows
	FOR EACH STATEMENT EXECUTE FUNCTION crawltop.tasks_count();

-- TRUNCATE tasks empties the counters (TRUNCATE waits for every writer of
-- tasks, so no shard is in use).
CREATE FUNCTION crawltop.tasks_count_truncate() RETURNS trigger
	LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
	DELETE FROM crawltop.task_counts;
	RETURN NULL;
END $$;
CREATE TRIGGER tasks_count_truncate AFTER TRUNCATE ON crawltop.tasks
	FOR EACH STATEMENT EXECUTE FUNCTION crawltop.tasks_count_truncate();

-- The tasks that exist now: counted once, into shard 0. The triggers above
-- already hold tasks against writers (CREATE TRIGGER locks it until this
-- migration commits), so nothing is missed or counted twice.
INSERT INTO crawltop.task_counts (job_id, dim, key, shard, n)
SELECT t.job_id, x.dim, x.key, 0, count(*)
FROM crawltop.tasks t CROSS JOIN LATERAL crawltop.task_cells(t.status,
	t.lease_owner, t.class,
	t.depth, t.discovery_method, t.type, t.job_priority, t.score, t.ranked_at,
	t.priority_class) x
GROUP BY 1, 2, 3;

-- Fold writer shards that no transaction holds now into shard 0, drop
-- the cells that are 0, and the rate_ticks past the retention. Never
-- waits: a shard in use, or a second compaction at the same time, is
-- skipped. Takes at most half of the shards (those with rows, lowest
-- first), and holds them until it commits, so that up to 16 concurrent
-- writers still find a free shard meanwhile; a second call folds the
-- rest. Optional maintenance (a worker or the operator may call it any
-- time); returns the number of shards folded.
CREATE FUNCTION crawltop.compact_counts() RETURNS integer
	LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	k integer := crawltop.counter_lock_key();
	v_cut timestamptz := date_trunc('second', clock_timestamp())
		- make_interval(secs => crawltop.rate_retention_seconds());
	folded integer := 0;
	s integer;
BEGIN
	IF NOT pg_try_advisory_xact_lock(k, 0) THEN
		RETURN 0;
	END IF;
	FOR s IN SELECT c.shard FROM crawltop.task_counts c WHERE c.shard > 0
		 UNION
		 SELECT r.shard FROM crawltop.rate_ticks r WHERE r.second < v_cut
		 ORDER BY 1 LOOP
		EXIT WHEN folded >= crawltop.counter_shards() / 2;
		CONTINUE WHEN NOT pg_try_advisory_xact_lock(k, s);
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

-- Recount everything from tasks into shard 0 (a repair: after the triggers
-- were disabled, say). Holds writers off tasks while it counts. O(tasks).
CREATE FUNCTION crawltop.rebuild_counts() RETURNS bigint
	LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	n bigint;
BEGIN
	LOCK TABLE crawltop.tasks IN SHARE MODE;
	DELETE FROM crawltop.task_counts;
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

-- ---- read API (the console and the CLI; the result shapes are fixed) ---

-- The dimensions and their fixed keys, in display order. 'heat' has no
-- fixed keys: its cells are the (method, type) pairs that occur.
CREATE FUNCTION crawltop.dashboard_keys()
	RETURNS TABLE (dim text, key text, dim_ord integer, key_ord integer)
	LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
	SELECT * FROM (VALUES
		('status', 'pending', 1, 1), ('status', 'running', 1, 2),
		('status', 'retrying', 1, 3), ('status', 'completed', 1, 4),
		('status', 'failed', 1, 5), ('status', 'skipped', 1, 6),
		('class', 'P0', 2, 1), ('class', 'P1', 2, 2), ('class', 'P2', 2, 3),
		('class', 'P3', 2, 4),
		('depth', '0', 3, 1), ('depth', '1', 3, 2), ('depth', '2', 3, 3),
		('depth', '3+', 3, 4), ('depth', 'unknown', 3, 5),
		('priority', '1', 5, 1), ('priority', '2', 5, 2),
		('priority', '3', 5, 3), ('priority', '4', 5, 4),
		('priority', '5', 5, 5), ('priority', '6', 5, 6),
		('priority', '7', 5, 7), ('priority', '8', 5, 8),
		('priority', '9', 5, 9), ('priority', '10', 5, 10),
		('score', '0-20', 6, 1), ('score', '20-40', 6, 2),
		('score', '40-60', 6, 3), ('score', '60-80', 6, 4),
		('score', '80-100', 6, 5),
		('rank', 'P0', 7, 1), ('rank', 'P1', 7, 2), ('rank', 'P2', 7, 3),
		('rank', 'P3', 7, 4), ('rank', 'unranked', 7, 5)
	) AS k (dim, key, dim_ord, key_ord)
$$;

-- Refuse a job id that does not exist (P0002); NULL passes (all jobs).
CREATE FUNCTION crawltop.check_job(p_job bigint) RETURNS void
	LANGUAGE plpgsql STABLE AS $$
BEGIN
	IF p_job IS NOT NULL AND NOT EXISTS (
			SELECT 1 FROM crawltop.jobs WHERE id = p_job) THEN
		RAISE EXCEPTION 'job % does not exist', p_job USING ERRCODE = 'P0002';
	END IF;
END $$;

-- The counters of job p_job (NULL: all jobs summed), one row per cell:
-- every fixed key of status, class, depth, priority, score and rank (0 when
-- empty), then the heat cells that are not empty ('method|type', 'none'
-- for a NULL method or type). Ordered by dimension (status, class, depth,
-- heat, priority, score, rank), then key. The rank cells are those of the
-- jobs in discovery mode only: the other modes' tasks are never ranked, and
-- are not seed 003's "unranked" URLs (the triggers count every task's
-- rank cell, since a job may change mode; a read keeps the discovery jobs'
-- ones). Reads task_counts and jobs only: O(cells x shards + jobs), never
-- tasks. P0002 for an unknown job.
CREATE FUNCTION crawltop.dashboard_cells(p_job bigint)
	RETURNS TABLE (dim text, key text, n bigint)
	LANGUAGE plpgsql STABLE AS $$
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
		FROM crawltop.task_counts c WHERE c.job_id = p_job
		  AND (c.dim <> 'rank' OR c.job_id IN (SELECT id FROM discovery))
		GROUP BY c.dim, c.key
		UNION ALL
		SELECT c.dim, c.key, sum(c.n)::bigint
		FROM crawltop.task_counts c WHERE p_job IS NULL
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

-- The same rows counted the slow way, with a GROUP BY over tasks (rank
-- cells of discovery jobs only, as above): for checks and benchmarks.
-- O(tasks).
CREATE FUNCTION crawltop.dashboard_cells_exact(p_job bigint)
	RETURNS TABLE (dim text, key text, n bigint)
	LANGUAGE plpgsql STABLE AS $$
#variable_conflict use_column
BEGIN
	PERFORM crawltop.check_job(p_job);
	RETURN QUERY
	WITH sums AS (
		SELECT x.dim, x.key, count(*)::bigint AS n
		FROM crawltop.tasks t CROSS JOIN LATERAL crawltop.task_cells(
			t.status, t.lease_owner, t.class, t.depth,
			t.discovery_method, t.type, t.job_priority, t.score,
			t.ranked_at, t.priority_class) x
		WHERE (p_job IS NULL OR t.job_id = p_job)
		  AND (x.dim <> 'rank' OR t.job_id IN (SELECT j.id FROM crawltop.jobs j
				WHERE j.prioritization_mode = 'discovery'))
		GROUP BY x.dim, x.key
	)
	SELECT r.dim, r.key, r.n FROM (
		SELECT k.dim, k.key, coalesce(s.n, 0) AS n, k.dim_ord, k.key_ord
		FROM crawltop.dashboard_keys() k
		LEFT JOIN sums s ON s.dim = k.dim AND s.key = k.key
		UNION ALL
		SELECT s.dim, s.key, s.n, 4, 0 FROM sums s WHERE s.dim = 'heat'
	) r
	ORDER BY r.dim_ord, r.key_ord, r.key;
END $$;

-- The status a job is shown with, by every read (dashboard_jobs: the
-- console and `top`; `crawltop job list` and `job show`; `stats`), from
-- its stored jobs.status (the operator's state) and its task counts by
-- shown status (task_status_shown): paused, cancelled and completed are
-- shown as stored; a pending or running one (running is what resume
-- stores) shows 'running' while a worker holds one of its tasks (a task
-- running with a lease owner), else 'pending' while it has pending tasks
-- (a worker could claim one now), else 'retrying' while it has tasks
-- waiting for their retry backoff (nothing to claim until one ends), else
-- 'completed' when it has tasks (all finished: completed, failed or
-- skipped), else 'pending'. So a job nobody works on is never shown
-- running, however many of its tasks failed and wait for a retry. Derived
-- on every read, never stored: claims and completions do not write the
-- job's row (no hot row, no race), and claim and enqueue go by the stored
-- state (a job shown completed still takes new tasks, and shows pending
-- or running again when it gets them).
CREATE FUNCTION crawltop.job_status_shown(p_stored text, p_pending bigint,
		p_running bigint, p_retrying bigint, p_finished bigint)
	RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
	SELECT CASE
		WHEN p_stored NOT IN ('pending', 'running') THEN p_stored
		WHEN coalesce(p_running, 0) > 0 THEN 'running'
		WHEN coalesce(p_pending, 0) > 0 THEN 'pending'
		WHEN coalesce(p_retrying, 0) > 0 THEN 'retrying'
		WHEN coalesce(p_finished, 0) > 0 THEN 'completed'
		ELSE 'pending' END
$$;

-- The tasks of job p_job by shown status (running: leased to a worker;
-- retrying: waiting for a retry backoff), from the counters: O(shards),
-- never tasks. The one place that reads the status cells of one job
-- (dashboard_jobs; `crawltop job list` and `job show`). Inlined.
CREATE FUNCTION crawltop.job_status_counts(p_job bigint)
	RETURNS TABLE (pending bigint, running bigint, retrying bigint,
		completed bigint, failed bigint, skipped bigint)
	LANGUAGE sql STABLE PARALLEL SAFE AS $$
	SELECT coalesce(sum(c.n) FILTER (WHERE c.key = 'pending'), 0)::bigint,
	       coalesce(sum(c.n) FILTER (WHERE c.key = 'running'), 0)::bigint,
	       coalesce(sum(c.n) FILTER (WHERE c.key = 'retrying'), 0)::bigint,
	       coalesce(sum(c.n) FILTER (WHERE c.key = 'completed'), 0)::bigint,
	       coalesce(sum(c.n) FILTER (WHERE c.key = 'failed'), 0)::bigint,
	       coalesce(sum(c.n) FILTER (WHERE c.key = 'skipped'), 0)::bigint
	FROM crawltop.task_counts c
	WHERE c.job_id = p_job AND c.dim = 'status'
$$;

-- One row per job (by id): its settings, its shown status
-- (job_status_shown), its tasks by shown status (counters: running is
-- leased to a worker, retrying waits for its retry backoff), and claims
-- and completions per second averaged over the last 60 seconds (the
-- current second included).
CREATE FUNCTION crawltop.dashboard_jobs()
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
		FROM crawltop.rate_ticks k
		WHERE k.second > date_trunc('second', now()) - interval '60 seconds'
		GROUP BY k.job_id
	) r ON r.job_id = j.id
	ORDER BY j.id
$$;

-- Claims and completions of job p_job (NULL: all jobs) in each of the last
-- p_seconds seconds (1..rate_retention_seconds()), oldest first, the
-- current second last; a second without any is 0.
CREATE FUNCTION crawltop.rate_series(p_job bigint, p_seconds integer)
	RETURNS TABLE (second timestamptz, claims bigint, completions bigint)
	LANGUAGE plpgsql STABLE AS $$
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
	LEFT JOIN crawltop.rate_ticks k ON k.second = g.s
		AND (p_job IS NULL OR k.job_id = p_job)
	GROUP BY g.s
	ORDER BY g.s;
END $$;

-- The next p_limit (1..1000) tasks a claim would hand out now, from job
-- p_job or (NULL) from all jobs: pending tasks in the claim's index order
-- (job priority, score desc, discovery time, id), paused jobs excluded as
-- the claim excludes them; nothing for a job that is paused, cancelled or
-- completed. A plain read: no locks, so tasks other workers are claiming
-- at this moment may be listed.
CREATE FUNCTION crawltop.next_tasks(p_job bigint, p_limit integer)
	RETURNS TABLE (task_id bigint, job_id bigint, path text,
		score double precision, class smallint, job_priority smallint,
		created_at timestamptz, depth integer, type text,
		discovery_method text)
	LANGUAGE plpgsql STABLE AS $$
#variable_conflict use_column
BEGIN
	IF p_limit IS NULL OR p_limit NOT BETWEEN 1 AND 1000 THEN
		RAISE EXCEPTION 'next tasks limit % is outside 1..1000',
			coalesce(p_limit::text, 'NULL') USING ERRCODE = '22003';
	END IF;
	PERFORM crawltop.check_job(p_job);
	IF p_job IS NULL THEN
		RETURN QUERY
		SELECT t.id, t.job_id, p.path::text, t.score, t.class, t.job_priority,
		       t.created_at, t.depth, t.type, t.discovery_method
		FROM (SELECT * FROM crawltop.tasks t
		      WHERE t.status = 'pending' AND t.job_priority <= 10
		      ORDER BY t.job_priority, t.score DESC, t.created_at, t.id
		      LIMIT p_limit) t
		JOIN crawltop.pages p ON p.id = t.page_id
		ORDER BY t.job_priority, t.score DESC, t.created_at, t.id;
		RETURN;
	END IF;
	IF NOT EXISTS (SELECT 1 FROM crawltop.jobs j WHERE j.id = p_job
		       AND j.status IN ('pending', 'running')) THEN
		RETURN;
	END IF;
	RETURN QUERY
	SELECT t.id, t.job_id, p.path::text, t.score, t.class, t.job_priority,
	       t.created_at, t.depth, t.type, t.discovery_method
	FROM (SELECT * FROM crawltop.tasks t
	      WHERE t.status = 'pending' AND t.job_id = p_job
	      ORDER BY t.score DESC, t.created_at, t.id
	      LIMIT p_limit) t
	JOIN crawltop.pages p ON p.id = t.page_id
	ORDER BY t.score DESC, t.created_at, t.id;
END $$;
