-- 0004_reprioritise.sql: operator changes to jobs and their pending tasks.
--
-- Each function is one transaction (one call) that locks the job row,
-- changes the job and its pending tasks, and writes one audit_log row:
-- database role, application_name, what, before, after, rows affected.
-- Running tasks keep their lease; they pick up the job's state when they
-- return to pending (reap_expired and release recompute job_priority).
--
-- set_job_priority and adjust_scores change many pending tasks of a job
-- (so does set_job_state, which also restarts the starvation clock and so
-- is defined in 0005_claims_and_modes.sql, with tasks.pending_since).
-- complete, fail and release lock a worker's tasks in task id order; so
-- that a worker finishing some of them cannot deadlock with the operator,
-- each of these first locks the rows it will change in task id order
-- (PERFORM ... ORDER BY t.id FOR NO KEY UPDATE, as enqueue does for
-- pages); rows a worker holds are waited for, rows that stop being pending
-- meanwhile are left out. (Inline rather than a helper: a helper would
-- need grants of its own.)

-- Lock job p_job_id for a change of the job and return it; P0002 when it
-- does not exist. FOR UPDATE, the strongest row lock: enqueue holds the
-- row FOR NO KEY UPDATE (it keeps total_pages) and release and the
-- reaper FOR KEY SHARE (0005), and a job change must come wholly before
-- or after each of them, while they need not wait for one another.
CREATE FUNCTION crawltop.lock_job(p_job_id bigint) RETURNS crawltop.jobs
	LANGUAGE plpgsql AS $$
DECLARE
	j crawltop.jobs;
BEGIN
	SELECT * INTO j FROM crawltop.jobs WHERE id = p_job_id FOR UPDATE;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'job % does not exist', coalesce(p_job_id::text, 'NULL')
			USING ERRCODE = 'P0002';
	END IF;
	RETURN j;
END $$;

-- Set a job's priority (1..10); its pending tasks follow at once (a
-- paused job's stay 100 further back), locked in task id order first.
-- Returns the pending tasks moved. The priority the job has already
-- changes nothing: no task is rewritten (on a job of 1,000,000 pending
-- tasks, seconds of work and as many dead rows) and no audit row is
-- written; it returns 0.
CREATE FUNCTION crawltop.set_job_priority(p_job_id bigint,
		p_priority integer)
	RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
	j crawltop.jobs;
	n bigint;
BEGIN
	PERFORM crawltop.check_priority(p_priority);
	j := crawltop.lock_job(p_job_id);
	IF j.priority = p_priority THEN
		RETURN 0;
	END IF;
	UPDATE crawltop.jobs SET priority = p_priority, updated_at = now()
	WHERE id = j.id;
	PERFORM 1 FROM crawltop.tasks t
	WHERE t.job_id = j.id AND t.status = 'pending'
	ORDER BY t.id FOR NO KEY UPDATE;
	UPDATE crawltop.tasks
	SET job_priority = p_priority + CASE WHEN j.status = 'paused' THEN 100 ELSE 0 END
	WHERE job_id = j.id AND status = 'pending';
	GET DIAGNOSTICS n = ROW_COUNT;
	INSERT INTO crawltop.audit_log (action, job_id, before, after, rows_affected)
	VALUES ('job.priority', j.id, jsonb_build_object('priority', j.priority),
		jsonb_build_object('priority', p_priority), n);
	RETURN n;
END $$;

-- Add p_delta (-100..100, finite) to the operator adjustment of job
-- p_job_id's pending tasks whose path matches p_match; a positive delta
-- boosts, a negative one demotes. p_match is a path prefix ('/docs/',
-- compared as a plain string: '%', '_' and '*' are characters like any
-- other), or with p_pattern a pattern the whole path must match, in which
-- '*' stands for any run of characters, '/' included, and every other
-- character for itself ('/docs/*/print', '*.pdf'). Both become one LIKE
-- with '\', '%' and '_' escaped. The adjustment is the sum of every boost
-- and demotion, kept in -100..100, and the score is derived from it and
-- the score the job's mode gives the task: least(100, greatest(0,
-- base_score + adjustment)) (0001), the class follows. A rescore rewrites
-- base_score only, so the adjustment outlives it; and because the sum is
-- kept, the clamp loses nothing: +30 on 90 gives 100, a later -30 gives 90
-- again. Only the tasks whose adjustment changes (none for a delta of 0,
-- none already at the -100..100 bound the delta points to) are locked, in
-- task id order first, and written, a change that keeps the score at 0 or
-- 100 included; the audit row (before and after name the prefix or the
-- pattern) is written when any was. Returns the tasks changed.
CREATE FUNCTION crawltop.adjust_scores(p_job_id bigint,
		p_match text, p_delta double precision,
		p_pattern boolean DEFAULT false)
	RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
	j crawltop.jobs;
	c jsonb := crawltop.setting('{classes}');
	v_like text;
	v_what jsonb;
	n bigint;
BEGIN
	IF p_pattern IS NULL THEN
		RAISE EXCEPTION 'whether % is a pattern is NULL: pass true or false',
			crawltop.shown(p_match) USING ERRCODE = '22023';
	END IF;
	IF p_pattern THEN
		-- the characters of a path (path_ok), with '*' for any run
		IF p_match IS NULL OR left(p_match, 1) NOT IN ('/', '*')
		   OR NOT crawltop.path_ok(CASE WHEN left(p_match, 1) = '*'
			THEN '/' ELSE '' END || replace(p_match, '*', 'x')) THEN
			RAISE EXCEPTION 'path pattern % is not a pattern of page paths: it must start with ''/'' or ''*'' (any characters) and otherwise be a path: no spaces, control or invisible characters, ''#'' or ''.'' and ''..'' segments, at most % bytes',
				crawltop.shown(p_match), crawltop.max_url_bytes()
				USING ERRCODE = '22023';
		END IF;
	ELSIF p_match IS NULL OR left(p_match, 1) <> '/' OR NOT crawltop.path_ok(p_match) THEN
		RAISE EXCEPTION 'path prefix % is not a page path prefix: like a path, it must start with ''/'', have no spaces, control characters, ''#'' or ''.'' and ''..'' segments, and be at most % bytes',
			crawltop.shown(p_match), crawltop.max_url_bytes()
			USING ERRCODE = '22023';
	END IF;
	IF p_delta IS NULL OR NOT (p_delta >= -100 AND p_delta <= 100) THEN
		RAISE EXCEPTION 'score change % is outside -100..100', coalesce(p_delta::text, 'NULL')
			USING ERRCODE = '22003';
	END IF;
	j := crawltop.lock_job(p_job_id);
	IF p_delta = 0 THEN
		RETURN 0;
	END IF;
	v_like := replace(replace(replace(p_match, E'\\', E'\\\\'), '%', E'\\%'),
		'_', E'\\_');
	v_like := CASE WHEN p_pattern THEN replace(v_like, '*', '%')
		       ELSE v_like || '%' END;
	v_what := jsonb_build_object(CASE WHEN p_pattern THEN 'pattern'
				      ELSE 'prefix' END, p_match);
	PERFORM 1 FROM crawltop.tasks t
	JOIN crawltop.pages p ON p.id = t.page_id
	WHERE t.job_id = j.id AND t.status = 'pending'
	  AND p.path::text LIKE v_like
	  AND least(100, greatest(-100, t.adjustment + p_delta)) <> t.adjustment
	ORDER BY t.id FOR NO KEY UPDATE OF t;
	UPDATE crawltop.tasks t
	SET adjustment = least(100, greatest(-100, t.adjustment + p_delta)),
	    score = least(100, greatest(0, t.base_score
		+ least(100, greatest(-100, t.adjustment + p_delta)))),
	    class = crawltop.class_of(least(100, greatest(0, t.base_score
		+ least(100, greatest(-100, t.adjustment + p_delta)))),
		(c->>'p0')::double precision, (c->>'p1')::double precision,
		(c->>'p2')::double precision)
	FROM crawltop.pages p
	WHERE t.job_id = j.id AND t.status = 'pending' AND p.id = t.page_id
	  AND p.path::text LIKE v_like
	  AND least(100, greatest(-100, t.adjustment + p_delta)) <> t.adjustment;
	GET DIAGNOSTICS n = ROW_COUNT;
	IF n > 0 THEN
		INSERT INTO crawltop.audit_log (action, job_id, before, after,
			rows_affected)
		VALUES (CASE WHEN p_delta >= 0 THEN 'tasks.boost' ELSE 'tasks.demote' END,
			j.id, v_what, v_what || jsonb_build_object('delta', p_delta), n);
	END IF;
	RETURN n;
END $$;
