-- 0013_definer.sql: workers and operators change the store only through
-- its functions.
--
-- Until now the worker and operator functions ran with their caller's
-- rights (SECURITY INVOKER), so each role held the table grants those
-- functions need, and could use them directly, past the functions'
-- checks and audit rows: a worker could UPDATE any task (its score, its
-- status, a cancelled job's task back to pending), an operator could
-- UPDATE a job without an audit row. Now those functions run with the
-- rights of their owner, the role that migrates (SECURITY DEFINER, with
-- search_path pinned to pg_catalog and pg_temp so that no object of a
-- caller's can stand in for a built-in one; every crawltop name in them is
-- schema-qualified), and the direct write grants are revoked: a role
-- writes what its functions write, checked and audited, and nothing else.
-- Reads stay as they were (every role may SELECT; the read functions run
-- with the caller's rights).
--
-- Inside a SECURITY DEFINER function current_user is the owner, so audit
-- rows, settings versions and run manifests now record session_user: the
-- role that logged in.

ALTER TABLE crawltop.audit_log ALTER COLUMN db_role SET DEFAULT session_user;
ALTER TABLE crawltop.settings ALTER COLUMN created_by SET DEFAULT session_user;
ALTER TABLE crawltop.run_manifest ALTER COLUMN created_by SET DEFAULT session_user;

-- A ranking run's batch (src/store/rank_ops.c), which wrote tasks with
-- plain SQL: lock the next p_n unfinished tasks of jobs p_jobs with an id
-- in (p_after, p_upto], in id order (the order complete, fail and release
-- lock theirs), and return their score inputs (the caller unpacks them
-- with discovery_input_columns) and what the caller's backoff decision
-- needs of their last ranking (doc/scoring.md, Backoff): backoff_step,
-- the stored priority_class, ranked (ranked_at is set), due (no
-- next_check_at, or one not after now()), prev_result (the stored
-- discovery_score and the eight sub-scores of signals, in enum
-- ct_subscore order, space-separated; NULL when unranked or one is
-- missing) and prev_ns_asn (signals.ns_asn_changes, NULL when absent).
-- extra_float_digits is pinned so that prev_result's numbers are the
-- shortest text that reads back as the very same double, whatever the
-- session's setting: the caller compares them with == ...
CREATE FUNCTION crawltop.rank_lock(p_jobs bigint[], p_after bigint,
		p_upto bigint, p_n integer)
	RETURNS TABLE (task_id bigint, backoff_step smallint, score_inputs jsonb,
		prev_class smallint, ranked boolean, due boolean,
		prev_result text, prev_ns_asn text)
	LANGUAGE plpgsql SECURITY DEFINER
	SET search_path = pg_catalog, pg_temp
	SET extra_float_digits = 3 AS $$
BEGIN
	IF p_n IS NULL OR p_n NOT BETWEEN 1 AND 100000 THEN
		RAISE EXCEPTION 'ranking batch of % tasks is outside 1..100000',
			coalesce(p_n::text, 'NULL') USING ERRCODE = '22003';
	END IF;
	RETURN QUERY
	SELECT t.id, t.backoff_step, t.score_inputs::jsonb, t.priority_class,
	       t.ranked_at IS NOT NULL,
	       t.next_check_at IS NULL OR t.next_check_at <= now(),
	       t.discovery_score::text || ' ' ||
	       (t.signals->>'unseen_likelihood') || ' ' ||
	       (t.signals->>'host_novelty') || ' ' ||
	       (t.signals->>'content_readiness') || ' ' ||
	       (t.signals->>'link_yield') || ' ' ||
	       (t.signals->>'source_reliability') || ' ' ||
	       (t.signals->>'freshness') || ' ' ||
	       (t.signals->>'quality_safety') || ' ' ||
	       (t.signals->>'topic_boost'),
	       t.signals->>'ns_asn_changes'
	FROM crawltop.tasks t
	WHERE t.job_id = ANY (p_jobs) AND t.id > p_after AND t.id <= p_upto
	  AND t.status IN ('pending', 'running')
	ORDER BY t.id LIMIT p_n
	FOR NO KEY UPDATE OF t;
END $$;

-- ... and write what the engine computed for them: the discovery score
-- (also the claim order's base score: the score is derived with the
-- task's operator adjustment, 0001), its class (priority_class, as the
-- engine gave it), the claim order's class (tasks.class: the derived
-- score's class under the run's class bounds p_p0/p_p1/p_p2, the bounds
-- the engine classed the discovery scores with, for every row: with the
-- store's bounds for an adjusted task only, a boosted task of score 65
-- was P1 next to a P0 task of score 65 when a run's P0 bound was 62;
-- SPEC.md gives one class per score), the sub-scores and where
-- they came from as signals (with ns_asn_changes, the raw signals' NS +
-- ASN changes, when they came from raw signals: p_ns_asn NULL otherwise),
-- the backoff step the caller decided, and the next check: kept as it is
-- where p_keep (a run before the check was due), else now + p_hours, or
-- none where p_hours is NULL (P0, P1). extra_float_digits is pinned so
-- that the sub-scores reach signals as the shortest text of the very
-- double given (rank_lock reads them back to compare). Only
-- unfinished tasks of discovery jobs are written (a ranking run ranks
-- nothing else; this keeps the function from being a way to set any
-- task's score), and a batch that wrote any writes one audit row
-- (tasks.rank: the id range, the number of tasks, and the job when all are
-- of one). The batch's id range (p_after,
-- p_upto] bounds the join to its stretch of the primary key (unbounded,
-- each batch read every id before its own). Bounds that are not numbers
-- in 0..100, strictly decreasing, are refused (22023). Returns the tasks
-- written.
CREATE FUNCTION crawltop.rank_apply(p_ids bigint[],
		p_scores double precision[], p_classes smallint[],
		p_steps smallint[], p_hours double precision[], p_keep boolean[],
		p_s0 double precision[],
		p_s1 double precision[], p_s2 double precision[],
		p_s3 double precision[], p_s4 double precision[],
		p_s5 double precision[], p_s6 double precision[],
		p_s7 double precision[], p_from text[], p_ns_asn bigint[],
		p_after bigint, p_upto bigint, p_p0 double precision,
		p_p1 double precision, p_p2 double precision)
	RETURNS bigint LANGUAGE plpgsql SECURITY DEFINER
	SET search_path = pg_catalog, pg_temp
	SET extra_float_digits = 3 AS $$
DECLARE
	n bigint;
	j_min bigint;
	j_max bigint;
BEGIN
	-- the bounds ct_class_bounds_check accepts (NaN fails: PostgreSQL
	-- orders it above every number)
	IF p_p0 IS NULL OR p_p1 IS NULL OR p_p2 IS NULL
	   OR NOT (p_p0 <= 100 AND p_p0 > p_p1 AND p_p1 > p_p2 AND p_p2 >= 0) THEN
		RAISE EXCEPTION 'class bounds p0 = %, p1 = %, p2 = %: must be numbers in 0..100, strictly decreasing',
			coalesce(p_p0::text, 'NULL'), coalesce(p_p1::text, 'NULL'),
			coalesce(p_p2::text, 'NULL') USING ERRCODE = '22023';
	END IF;
	WITH w AS (
	UPDATE crawltop.tasks t
	SET discovery_score = u.sc, priority_class = u.c, base_score = u.sc,
	    score = least(100, greatest(0, u.sc + t.adjustment)),
	    class = crawltop.class_of(least(100, greatest(0, u.sc + t.adjustment)),
		p_p0, p_p1, p_p2),
	    ranked_at = now(),
	    signals = jsonb_build_object('unseen_likelihood', u.s0,
		'host_novelty', u.s1, 'content_readiness', u.s2,
		'link_yield', u.s3, 'source_reliability', u.s4,
		'freshness', u.s5, 'quality_safety', u.s6, 'topic_boost', u.s7,
		'from', u.src) ||
		CASE WHEN u.na IS NULL THEN '{}'::jsonb
		     ELSE jsonb_build_object('ns_asn_changes', u.na) END,
	    backoff_step = u.st,
	    next_check_at = CASE WHEN u.keep THEN t.next_check_at
				 WHEN u.h IS NULL THEN NULL
				 ELSE now() + make_interval(secs => u.h * 3600) END
	FROM unnest(p_ids, p_scores, p_classes, p_steps, p_hours, p_keep,
		p_s0, p_s1, p_s2, p_s3, p_s4, p_s5, p_s6, p_s7, p_from, p_ns_asn)
		AS u (id, sc, c, st, h, keep, s0, s1, s2, s3, s4, s5, s6, s7,
		      src, na)
	WHERE t.id = u.id AND t.status IN ('pending', 'running')
	  AND t.id > p_after AND t.id <= p_upto
	  AND t.job_id IN (SELECT j.id FROM crawltop.jobs j
			   WHERE j.prioritization_mode = 'discovery')
	RETURNING t.job_id)
	SELECT count(*), min(w.job_id), max(w.job_id) INTO n, j_min, j_max
	FROM w;
	-- the batch's job when all its tasks are of one (rank --job, or a
	-- stretch of ids of one job); NULL for a batch across jobs
	IF n > 0 THEN
		INSERT INTO crawltop.audit_log (action, job_id, after, rows_affected)
		VALUES ('tasks.rank', CASE WHEN j_min = j_max THEN j_min END,
			jsonb_build_object('after_id', p_after, 'upto_id', p_upto,
				'tasks', cardinality(p_ids)), n);
	END IF;
	RETURN n;
END $$;

-- Operators rank; nobody else (0009's rule: nothing for PUBLIC).
DO $$
DECLARE
	f regprocedure;
BEGIN
	FOREACH f IN ARRAY ARRAY[
		'crawltop.rank_lock(bigint[], bigint, bigint, integer)',
		'crawltop.rank_apply(bigint[], double precision[], smallint[], smallint[], double precision[], boolean[], double precision[], double precision[], double precision[], double precision[], double precision[], double precision[], double precision[], double precision[], text[], bigint[], bigint, bigint, double precision, double precision, double precision)'
	]::regprocedure[] LOOP
		EXECUTE format('REVOKE ALL ON FUNCTION %s FROM PUBLIC', f);
		EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO crawltop_operator', f);
	END LOOP;
END $$;

-- Every function a worker or an operator calls to change something.
DO $$
DECLARE
	f regprocedure;
BEGIN
	FOREACH f IN ARRAY ARRAY[
		-- workers
		'crawltop.enqueue(bigint, text[], text, bigint, integer, text, text, text, double precision[])',
		'crawltop.claim(text, integer, bigint, double precision)',
		'crawltop.reap_expired(integer)',
		'crawltop.complete(text, bigint[])',
		'crawltop.fail(text, bigint[], text)',
		'crawltop.release(text, bigint[])',
		'crawltop.set_score_inputs(bigint, text[], jsonb[])',
		-- operators
		'crawltop.create_job(text, text, integer, text)',
		'crawltop.lock_job(bigint)',
		'crawltop.set_job_priority(bigint, integer)',
		'crawltop.set_job_state(bigint, text)',
		'crawltop.adjust_scores(bigint, text, double precision, boolean)',
		'crawltop.apply_sitemap_priorities(bigint)',
		'crawltop.record_run_manifest(bigint, timestamptz, text, integer)',
		'crawltop.set_job_mode(bigint, text)',
		'crawltop.rescore_start(bigint)',
		'crawltop.rescore_fetch(bigint, text, bigint, integer)',
		'crawltop.rescore_apply(bigint, text, bigint[], double precision[], smallint[], jsonb)',
		'crawltop.settings_put(jsonb, integer, text, text)'
	]::regprocedure[] LOOP
		EXECUTE format('ALTER FUNCTION %s SECURITY DEFINER '
			'SET search_path = pg_catalog, pg_temp', f);
	END LOOP;
END $$;

-- lock_job is called by the functions above, as their owner; an operator
-- holding a job row open in a transaction of its own would stall the
-- job's enqueues, releases and the reaper (and so every claim).
REVOKE EXECUTE ON FUNCTION crawltop.lock_job(bigint) FROM crawltop_operator;

-- The direct writes, revoked (0009 granted them for the functions).
REVOKE INSERT, UPDATE ON crawltop.pages, crawltop.tasks FROM crawltop_worker;
REVOKE UPDATE (total_pages, updated_at) ON crawltop.jobs FROM crawltop_worker;
REVOKE INSERT ON crawltop.settings, crawltop.audit_log, crawltop.domains,
	crawltop.jobs, crawltop.run_manifest FROM crawltop_operator;
REVOKE UPDATE ON crawltop.jobs, crawltop.tasks, crawltop.pages
	FROM crawltop_operator;
