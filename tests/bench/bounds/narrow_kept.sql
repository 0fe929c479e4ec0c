-- narrow_kept.sql: an upper bound for ./dev bench peers (CT_BOUNDS), not a
-- design to ship. narrow.sql's writes (never the task row) with the rest
-- of what claim_next does kept: the completion only of the worker's live
-- leases (else SQLSTATE 55000), one counter delta for the completion and
-- one for the claim (the claimed task's cells read from its row), the
-- settings, worker and reaper probe read in one statement, the starvation
-- guard's quota and its oldest-first path, the claim in SPEC.md's order
-- (all jobs; the queue row locked, SKIP LOCKED), the lease with its
-- owner, the result with the task's columns, domain and path, and the
-- counter fold one call in 32. The task row keeps the status it had at
-- enqueue, so nothing else of the store works with it. What one/C could
-- reach with a task's running state in its lease and its completion in a
-- log folded into the task row later.
CREATE TABLE crawltop.bound_leases (task_id bigint PRIMARY KEY,
	job_id bigint NOT NULL, owner text NOT NULL,
	expires_at timestamptz NOT NULL);
CREATE INDEX bound_leases_expiry ON crawltop.bound_leases (expires_at);
CREATE TABLE crawltop.bound_done (task_id bigint NOT NULL,
	worker text NOT NULL, at timestamptz NOT NULL);
-- the function runs with its owner's rights (CREATE OR REPLACE keeps the
-- owner, crawltop_owner)
ALTER TABLE crawltop.bound_leases OWNER TO crawltop_owner;
ALTER TABLE crawltop.bound_done OWNER TO crawltop_owner;
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
	v_done bigint[];
	v_set text;
BEGIN
	IF cardinality(p_task_ids) > 0 THEN
		WITH d AS (
			DELETE FROM crawltop.bound_leases l
			WHERE l.task_id = ANY (p_task_ids) AND l.owner = p_worker
			  AND l.expires_at > now()
			RETURNING l.task_id, l.job_id
		), g AS (
			INSERT INTO crawltop.bound_done
			SELECT d.task_id, p_worker, now() FROM d
		), dc AS (
			INSERT INTO crawltop.count_deltas (job_id, n, old_status,
				old_owner, new_status, completions, second)
			SELECT d.job_id, count(*), 'running', p_worker, 'completed',
			       count(*), date_trunc('second', clock_timestamp())
			FROM d GROUP BY d.job_id
		)
		SELECT array_agg(d.task_id) INTO v_done FROM d;
		IF coalesce(cardinality(v_done), 0) < cardinality(p_task_ids) THEN
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
		RETURNING q.task_id, q.job_id
	), t AS (
		SELECT c.id, c.job_id, c.page_id, c.job_priority, c.score, c.class,
		       c.created_at, c.retry_count, c.depth, c.source_type,
		       c.discovery_method, c.type, c.ranked_at, c.priority_class
		FROM u JOIN crawltop.tasks c ON c.id = u.task_id
	), dl AS (
		INSERT INTO crawltop.bound_leases (task_id, job_id, owner, expires_at)
		SELECT u.task_id, u.job_id, p_worker, v_exp FROM u
	), dc AS (
		INSERT INTO crawltop.count_deltas (job_id, n, old_status,
			new_status, new_owner, class, depth, discovery_method, type,
			job_priority, score, ranked_at, priority_class, claims, second)
		SELECT t.job_id, 1, 'pending', 'running', p_worker, t.class,
		       t.depth, t.discovery_method, t.type, t.job_priority, t.score,
		       t.ranked_at, t.priority_class, 1,
		       date_trunc('second', clock_timestamp())
		FROM t
	)
	SELECT t.id, t.job_id, t.page_id, t.job_priority::smallint, t.score,
	       t.class::smallint, t.created_at, t.retry_count::smallint,
	       t.depth::integer, t.source_type::text, v_exp, d.name, p.path::text
	FROM t
	JOIN crawltop.pages p ON p.id = t.page_id
	JOIN crawltop.domains d ON d.id = p.domain_id;
	IF random() < 1.0 / 32 THEN
		PERFORM crawltop.fold_counts();
	END IF;
END $f$;
