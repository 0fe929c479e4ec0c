-- 0028_task_card.sql: one task, whole, for the console's task view; tasks
-- found by path; one task boosted, demoted or retried by an operator.
--
--   queue_position(task, all_jobs, limit)  pending tasks claimed before
--       it: of every job (all_jobs) or of its own; three index ranges of
--       the claim order (crawltop.queue: better job priority, higher
--       score, then the same score and earlier), each cut at limit, so a
--       deep task costs at most 3 x limit index entries. NULL when the
--       task is not pending. `crawltop explain` and the console read it.
--   task_card(task, limit)  every field the task view shows, in one row:
--       job, path, shown status, score = base + adjustment, class, job
--       priority, depth, type, method, source, retries and the last
--       error, the lease, the score inputs and ranking record, and its
--       place in the claim order (queue_position at limit, both ways).
--   find_tasks(job, text, limit)  the job's (or every job's) tasks whose
--       path holds text, any status, as next_tasks's rows plus the
--       status: the console's '/' search. A plain substring: '%', '_'
--       and '\' are characters like any other.
--   adjust_task(task, delta)  adjust_scores for one pending task (0004's
--       rules: the adjustment is kept in -100..100 and outlives
--       rescores), audited task.boost or task.demote with the task and
--       its path; returns the new score.
--   retry_task(task)  a failed task back to the queue as the reaper
--       returns one (the job's priority of now, held back while paused;
--       the mode's score of now), its retries and expiries counted
--       afresh, audited task.retry with its last error; returns its new
--       status.
-- The two writers pin crawltop.inline empty, as every writer of tasks but
-- claim's and complete's does (0020): a session's setting never makes
-- them skip the queue's and the counters' triggers.
CREATE FUNCTION crawltop.queue_position(p_task bigint, p_all boolean,
		p_limit bigint)
	RETURNS bigint LANGUAGE plpgsql STABLE
	SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	q crawltop.queue;
	n bigint;
BEGIN
	SELECT * INTO q FROM crawltop.queue x WHERE x.task_id = p_task;
	IF NOT FOUND THEN
		RETURN NULL;
	END IF;
	-- one query a case, so that each range is read through its own
	-- index (the claim order of all jobs, of one job)
	IF p_all THEN
		SELECT (SELECT count(*) FROM (SELECT 1 FROM crawltop.queue x
			WHERE x.job_priority < q.job_priority
			  AND x.job_priority <= 10 LIMIT p_limit) a)
		     + (SELECT count(*) FROM (SELECT 1 FROM crawltop.queue x
			WHERE x.job_priority = q.job_priority
			  AND x.score > q.score LIMIT p_limit) b)
		     + (SELECT count(*) FROM (SELECT 1 FROM crawltop.queue x
			WHERE x.job_priority = q.job_priority
			  AND x.score = q.score
			  AND (x.created_at, x.task_id) < (q.created_at, q.task_id)
			LIMIT p_limit) c) INTO n;
	ELSE
		SELECT (SELECT count(*) FROM (SELECT 1 FROM crawltop.queue x
			WHERE x.job_id = q.job_id AND x.score > q.score
			LIMIT p_limit) b)
		     + (SELECT count(*) FROM (SELECT 1 FROM crawltop.queue x
			WHERE x.job_id = q.job_id AND x.score = q.score
			  AND (x.created_at, x.task_id) < (q.created_at, q.task_id)
			LIMIT p_limit) c) INTO n;
	END IF;
	RETURN n;
END $$;

CREATE FUNCTION crawltop.task_card(p_task bigint, p_limit bigint)
	RETURNS TABLE (task_id bigint, job_id bigint, job_name text, mode text,
		path text, status text, score double precision,
		base_score double precision, adjustment double precision,
		class smallint, job_priority smallint, depth integer, type text,
		discovery_method text, source_type text, source_path text,
		age_s double precision, retry_count integer, max_retries integer,
		expiries integer, last_error text, lease_owner text,
		lease_left_s double precision, inputs text, ranked boolean,
		discovery_score double precision, priority_class smallint,
		ahead_all bigint, ahead_job bigint, position_limit bigint)
	LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $$
	SELECT t.id, t.job_id, j.name::text, j.prioritization_mode::text,
	       p.path::text, crawltop.task_status_shown(t.status, t.lease_owner),
	       t.score, t.base_score, t.adjustment, t.class::smallint,
	       t.job_priority::smallint, t.depth::integer, t.type::text,
	       t.discovery_method::text, t.source_type::text, sp.path::text,
	       extract(epoch FROM now() - t.created_at)::double precision,
	       t.retry_count::integer, j.max_retries::integer,
	       t.expiries::integer, t.last_error, t.lease_owner,
	       extract(epoch FROM t.lease_expires_at - now())::double precision,
	       t.score_inputs::text, t.ranked_at IS NOT NULL,
	       t.discovery_score, t.priority_class::smallint,
	       crawltop.queue_position(t.id, true, p_limit),
	       crawltop.queue_position(t.id, false, p_limit), p_limit
	FROM crawltop.tasks t
	JOIN crawltop.jobs j ON j.id = t.job_id
	JOIN crawltop.pages p ON p.id = t.page_id
	LEFT JOIN crawltop.pages sp ON sp.id = t.source_page_id
	WHERE t.id = p_task
$$;

CREATE FUNCTION crawltop.find_tasks(p_job bigint, p_text text,
		p_limit integer)
	RETURNS TABLE (task_id bigint, job_id bigint, path text,
		score double precision, class smallint, job_priority smallint,
		created_at timestamptz, depth integer, type text,
		discovery_method text, status text)
	LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp AS $$
#variable_conflict use_column
BEGIN
	IF p_limit IS NULL OR p_limit NOT BETWEEN 1 AND 1000 THEN
		RAISE EXCEPTION 'found tasks limit % is outside 1..1000',
			coalesce(p_limit::text, 'NULL') USING ERRCODE = '22003';
	END IF;
	IF p_text IS NULL OR p_text = '' OR octet_length(p_text) > 2048 THEN
		RAISE EXCEPTION 'search text % is not 1 to 2048 bytes',
			crawltop.shown(p_text) USING ERRCODE = '22023';
	END IF;
	PERFORM crawltop.check_job(p_job);
	RETURN QUERY
	SELECT t.id, t.job_id, p.path::text, t.score, t.class::smallint,
	       t.job_priority::smallint, t.created_at, t.depth::integer,
	       t.type::text, t.discovery_method::text,
	       crawltop.task_status_shown(t.status, t.lease_owner)
	FROM crawltop.tasks t
	JOIN crawltop.pages p ON p.id = t.page_id
	WHERE (p_job IS NULL OR t.job_id = p_job)
	  AND strpos(p.path::text, p_text) > 0
	ORDER BY t.status <> 'pending', t.job_priority, t.score DESC,
		 t.created_at, t.id
	LIMIT p_limit;
END $$;

-- Task p_task locked for a change (P0002 when there is none): its job
-- first, then the task, as every change locks them. Called by the
-- owner-rights functions below only.
CREATE FUNCTION crawltop.lock_task(p_task bigint) RETURNS crawltop.tasks
	LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	t crawltop.tasks;
BEGIN
	SELECT * INTO t FROM crawltop.tasks WHERE id = p_task;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'task % does not exist', coalesce(p_task::text, 'NULL')
			USING ERRCODE = 'P0002';
	END IF;
	PERFORM crawltop.lock_job(t.job_id);
	SELECT * INTO t FROM crawltop.tasks WHERE id = p_task FOR NO KEY UPDATE;
	RETURN t;
END $$;
REVOKE ALL ON FUNCTION crawltop.lock_task(bigint) FROM PUBLIC;

CREATE FUNCTION crawltop.adjust_task(p_task bigint, p_delta double precision)
	RETURNS double precision LANGUAGE plpgsql SECURITY DEFINER
	SET search_path = pg_catalog, pg_temp SET crawltop.inline = '' AS $$
DECLARE
	t crawltop.tasks;
	j crawltop.jobs;
	c jsonb := crawltop.setting('{classes}');
	v_path text;
	v_adj double precision;
	v_score double precision;
BEGIN
	IF p_delta IS NULL OR NOT (p_delta >= -100 AND p_delta <= 100) THEN
		RAISE EXCEPTION 'score change % is outside -100..100',
			coalesce(p_delta::text, 'NULL') USING ERRCODE = '22003';
	END IF;
	t := crawltop.lock_task(p_task);
	SELECT * INTO j FROM crawltop.jobs WHERE id = t.job_id;
	IF t.status <> 'pending' THEN
		RAISE EXCEPTION 'task % is %: only a pending task''s score changes',
			p_task, crawltop.task_status_shown(t.status, t.lease_owner)
			USING ERRCODE = '55000';
	END IF;
	v_adj := least(100, greatest(-100, t.adjustment + p_delta));
	v_score := least(100, greatest(0, t.base_score + v_adj));
	SELECT p.path INTO v_path FROM crawltop.pages p WHERE p.id = t.page_id;
	IF v_adj = t.adjustment THEN
		RETURN t.score; -- at the bound already: nothing to write
	END IF;
	UPDATE crawltop.tasks
	SET adjustment = v_adj, score = v_score,
	    class = crawltop.class_of(v_score, (c->>'p0')::double precision,
		(c->>'p1')::double precision, (c->>'p2')::double precision)
	WHERE id = p_task;
	INSERT INTO crawltop.audit_log (action, job_id, before, after, rows_affected)
	VALUES (CASE WHEN p_delta >= 0 THEN 'task.boost' ELSE 'task.demote' END,
		j.id, jsonb_build_object('task', p_task, 'path', v_path,
			'score', t.score, 'adjustment', t.adjustment),
		jsonb_build_object('task', p_task, 'path', v_path, 'delta', p_delta,
			'score', v_score, 'adjustment', v_adj), 1);
	RETURN v_score;
END $$;

CREATE FUNCTION crawltop.retry_task(p_task bigint) RETURNS text
	LANGUAGE plpgsql SECURITY DEFINER
	SET search_path = pg_catalog, pg_temp SET crawltop.inline = '' AS $$
DECLARE
	t crawltop.tasks;
	j crawltop.jobs;
	c jsonb := crawltop.setting('{classes}');
BEGIN
	t := crawltop.lock_task(p_task);
	SELECT * INTO j FROM crawltop.jobs WHERE id = t.job_id;
	IF t.status <> 'failed' THEN
		RAISE EXCEPTION 'task % is %: only a failed task is retried',
			p_task, crawltop.task_status_shown(t.status, t.lease_owner)
			USING ERRCODE = '55000';
	END IF;
	IF j.status IN ('completed', 'cancelled') THEN
		RAISE EXCEPTION 'job % (%) is %: its tasks are not retried',
			j.id, j.name, j.status USING ERRCODE = '55000';
	END IF;
	-- back as the reaper returns a task (0020): the job's priority as
	-- it is now (held back while paused), the mode's score of now, and
	-- its retries and expiries counted afresh
	UPDATE crawltop.tasks tk
	SET status = 'pending', retry_count = 0, expiries = 0,
	    completed_at = NULL, pending_since = now(),
	    job_priority = j.priority + CASE WHEN j.status = 'paused' THEN 100
		ELSE 0 END,
	    base_score = x.base,
	    score = least(100, greatest(0, x.base + tk.adjustment)),
	    class = crawltop.class_of(least(100, greatest(0,
		x.base + tk.adjustment)), (c->>'p0')::double precision,
		(c->>'p1')::double precision, (c->>'p2')::double precision)
	FROM (SELECT crawltop.base_on_return(j.prioritization_mode,
		t2.base_score, pg.priority_score) AS base
	      FROM crawltop.tasks t2 JOIN crawltop.pages pg ON pg.id = t2.page_id
	      WHERE t2.id = p_task) x
	WHERE tk.id = p_task;
	INSERT INTO crawltop.audit_log (action, job_id, before, after, rows_affected)
	VALUES ('task.retry', j.id, jsonb_build_object('task', p_task,
			'status', 'failed', 'retries', t.retry_count,
			'last_error', t.last_error),
		jsonb_build_object('task', p_task, 'status', 'pending'), 1);
	RETURN 'pending';
END $$;

DO $$
DECLARE
	f regprocedure;
BEGIN
	FOREACH f IN ARRAY ARRAY[
		'crawltop.queue_position(bigint, boolean, bigint)',
		'crawltop.task_card(bigint, bigint)',
		'crawltop.find_tasks(bigint, text, integer)'
	]::regprocedure[] LOOP
		EXECUTE format('REVOKE ALL ON FUNCTION %s FROM PUBLIC', f);
		EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO crawltop_viewer', f);
	END LOOP;
	FOREACH f IN ARRAY ARRAY[
		'crawltop.adjust_task(bigint, double precision)',
		'crawltop.retry_task(bigint)'
	]::regprocedure[] LOOP
		EXECUTE format('REVOKE ALL ON FUNCTION %s FROM PUBLIC', f);
		EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO crawltop_operator', f);
	END LOOP;
END $$;
