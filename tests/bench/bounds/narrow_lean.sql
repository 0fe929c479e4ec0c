-- narrow_lean.sql: an upper bound for ./dev bench peers (CT_BOUNDS), not a
-- design to ship. narrow_kept.sql's work with the counter deltas gone
-- from the hot path: a task's running state is its lease row and its
-- completion a row of a log, and each carries the attributes the
-- counters' cells need, so neither a claim nor a completion appends a
-- delta. A counter read would add the live leases (O(running)) to the
-- folded cells. The fold, one call in 32 and never waiting, takes the
-- log: the completed tasks' rows are written (status, completed_at) in
-- one statement, and their cells moved from pending to completed
-- (task_cells, as fold_counts does) with the second's completion ticks.
-- Kept as narrow_kept keeps it: the completion only of the worker's live
-- leases (else SQLSTATE 55000), the settings, worker and reaper probe
-- read, the starvation guard's quota and oldest-first path, the claim in
-- SPEC.md's order (all jobs; the queue row locked, SKIP LOCKED), the
-- lease with its owner, the result with the task's columns, domain and
-- path. The task row keeps status 'pending' while its lease lives.
CREATE TABLE crawltop.bound_leases (task_id bigint PRIMARY KEY,
	job_id bigint NOT NULL, owner text NOT NULL,
	expires_at timestamptz NOT NULL, class smallint, depth integer,
	discovery_method text, type text, job_priority smallint,
	score double precision, ranked_at timestamptz, priority_class smallint);
CREATE INDEX bound_leases_expiry ON crawltop.bound_leases (expires_at);
CREATE TABLE crawltop.bound_done (task_id bigint NOT NULL,
	job_id bigint NOT NULL, worker text NOT NULL, at timestamptz NOT NULL,
	class smallint, depth integer, discovery_method text, type text,
	job_priority smallint, score double precision, ranked_at timestamptz,
	priority_class smallint);
-- the function runs with its owner's rights (CREATE OR REPLACE keeps the
-- owner, crawltop_owner)
ALTER TABLE crawltop.bound_leases OWNER TO crawltop_owner;
ALTER TABLE crawltop.bound_done OWNER TO crawltop_owner;
CREATE FUNCTION crawltop.bound_fold() RETURNS void
	LANGUAGE plpgsql SECURITY DEFINER
	SET search_path = pg_catalog, pg_temp SET crawltop.inline = 'on'
	SET enable_sort = on SET jit = off AS $f$
BEGIN
	PERFORM 1 FROM crawltop.counter_slots c WHERE c.shard = 0
	FOR UPDATE SKIP LOCKED;
	IF NOT FOUND THEN
		RETURN;
	END IF;
	WITH moved AS (
		DELETE FROM crawltop.bound_done d RETURNING d.*
	), rows AS (
		UPDATE crawltop.tasks t
		SET status = 'completed', completed_at = m.at
		FROM moved m WHERE t.id = m.task_id
	), cells AS (
		INSERT INTO crawltop.task_counts AS c (job_id, dim, key, shard, n)
		SELECT d.job_id, x.dim, x.key, 0, sum(x.sign * d.n)
		FROM (SELECT m.job_id, m.class, m.depth, m.discovery_method,
			     m.type, m.job_priority, min(m.score) AS score,
			     min(m.ranked_at) AS ranked_at, m.priority_class,
			     count(*) AS n
		      FROM moved m
		      GROUP BY m.job_id, m.class, m.depth, m.discovery_method,
			       m.type, m.job_priority,
			       crawltop.score_bucket(m.score), m.ranked_at IS NULL,
			       m.priority_class) d
		CROSS JOIN LATERAL (
			SELECT -1 AS sign, y.dim, y.key
			FROM crawltop.task_cells('pending', NULL, d.class,
				d.depth, d.discovery_method, d.type, d.job_priority,
				d.score, d.ranked_at, d.priority_class) y
			UNION ALL
			SELECT 1, y.dim, y.key
			FROM crawltop.task_cells('completed', NULL, d.class,
				d.depth, d.discovery_method, d.type, d.job_priority,
				d.score, d.ranked_at, d.priority_class) y) x
		GROUP BY 1, 2, 3
		HAVING sum(x.sign * d.n) <> 0
		ON CONFLICT (job_id, dim, key, shard) DO UPDATE SET n = c.n + excluded.n
	)
	INSERT INTO crawltop.rate_ticks AS k (second, shard, job_id, claims,
		completions)
	SELECT date_trunc('second', m.at), 0, m.job_id, 0, count(*)
	FROM moved m GROUP BY 1, 3
	ON CONFLICT (shard, second, job_id) DO UPDATE
	SET completions = k.completions + excluded.completions;
END $f$;
ALTER FUNCTION crawltop.bound_fold() OWNER TO crawltop_owner;
CREATE OR REPLACE FUNCTION crawltop.claim_next(p_worker text,
	p_task_ids bigint[], p_n integer DEFAULT 1, p_job_id bigint DEFAULT NULL,
	p_lease_seconds double precision DEFAULT NULL)
RETURNS TABLE (task_id bigint, job_id bigint, page_id bigint,
	job_priority smallint, score double precision, class smallint,
	created_at timestamptz, retry_count smallint, depth integer,
	source_type text, lease_expires_at timestamptz, domain text, path text)
LANGUAGE plpgsql SECURITY DEFINER
	SET plan_cache_mode = force_generic_plan
	SET crawltop.inline = 'on'
	SET search_path = pg_catalog, pg_temp
	SET enable_seqscan = off SET enable_sort = off SET enable_material = off
	SET enable_hashjoin = off SET enable_mergejoin = off SET jit = off AS $f$
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
	v_ok boolean;
	v_reap boolean;
	v_done bigint;
	v_set text;
BEGIN
	IF cardinality(p_task_ids) > 0 THEN
		WITH d AS (
			DELETE FROM crawltop.bound_leases l
			WHERE l.task_id = ANY (p_task_ids) AND l.owner = p_worker
			  AND l.expires_at > now()
			RETURNING l.*
		), g AS (
			INSERT INTO crawltop.bound_done
			SELECT d.task_id, d.job_id, p_worker, now(), d.class, d.depth,
			       d.discovery_method, d.type, d.job_priority, d.score,
			       d.ranked_at, d.priority_class
			FROM d
		)
		SELECT count(*) INTO v_done FROM d;
		IF v_done < cardinality(p_task_ids) THEN
			RAISE EXCEPTION 'claim_next: tasks % are not running under a live lease of worker %',
				p_task_ids, p_worker USING ERRCODE = '55000';
		END IF;
	END IF;
	SELECT coalesce(p_lease_seconds, x.lease_seconds, 30),
	       coalesce(x.starvation_seconds, 300),
	       coalesce(x.starvation_every, 10),
	       crawltop.worker_ok(p_worker),
	       EXISTS (SELECT 1 FROM crawltop.bound_leases l WHERE l.expires_at < now()),
	       coalesce(nullif(current_setting('crawltop.claim_slots', true), '')::bigint, 0)
	INTO v_lease, v_guard, v_every, v_ok, v_reap, v_slots
	FROM (SELECT true AS only_row) o
	LEFT JOIN crawltop.store_settings x ON x.only_row = o.only_row;
	IF NOT v_ok THEN
		PERFORM crawltop.check_worker(p_worker);
	END IF;
	v_exp := now() + make_interval(secs => v_lease);
	v_cutoff := now() - make_interval(secs => v_guard);
	IF v_every > 0 THEN
		v_quota := ((v_slots + p_n) / v_every - v_slots / v_every)::integer;
		v_set := set_config('crawltop.claim_slots',
			((v_slots + p_n) % (v_every::bigint * 1000000))::text, false);
	END IF;
	IF v_quota > 0 THEN
		SELECT coalesce(array_agg(s.task_id), '{}') INTO v_old FROM (
			SELECT q.task_id FROM crawltop.queue q
			WHERE q.job_priority <= 10
			  AND q.pending_since < (SELECT v_cutoff)
			ORDER BY q.pending_since, q.task_id
			LIMIT v_quota
			FOR UPDATE OF q SKIP LOCKED
		) s;
	END IF;
	RETURN QUERY
	WITH u AS (
		DELETE FROM crawltop.queue q
		WHERE q.task_id = ANY (v_old || ARRAY(
			SELECT x.task_id FROM crawltop.queue x
			WHERE x.job_priority <= 10
			  AND x.task_id <> ALL (v_old)
			ORDER BY x.job_priority, x.score DESC, x.created_at, x.task_id
			LIMIT p_n - cardinality(v_old)
			FOR UPDATE SKIP LOCKED))
		RETURNING q.task_id
	), t AS (
		SELECT c.id, c.job_id, c.page_id, c.job_priority, c.score, c.class,
		       c.created_at, c.retry_count, c.depth, c.source_type,
		       c.discovery_method, c.type, c.ranked_at, c.priority_class
		FROM u JOIN crawltop.tasks c ON c.id = u.task_id
	), dl AS (
		INSERT INTO crawltop.bound_leases
		SELECT t.id, t.job_id, p_worker, v_exp, t.class, t.depth,
		       t.discovery_method, t.type, t.job_priority, t.score,
		       t.ranked_at, t.priority_class
		FROM t
	)
	SELECT t.id, t.job_id, t.page_id, t.job_priority::smallint, t.score,
	       t.class::smallint, t.created_at, t.retry_count::smallint,
	       t.depth::integer, t.source_type::text, v_exp, d.name, p.path::text
	FROM t
	JOIN crawltop.pages p ON p.id = t.page_id
	JOIN crawltop.domains d ON d.id = p.domain_id;
	IF random() < 1.0 / 32 THEN
		PERFORM crawltop.bound_fold();
	END IF;
END $f$;
