-- 0014_no_op_changes.sql: a change that changes nothing writes nothing.
--
-- set_job_priority to the priority the job already has rewrote every
-- pending task of the job (a new row version and index entries each: on
-- a job of 1,000,000 pending tasks, seconds of work and as many dead rows)
-- and wrote an audit row whose before and after were the same. A boost or
-- demotion by 0, or one that the 0..100 clamp makes empty (a boost of
-- tasks already at 100), did the same to the tasks it matched. Now the
-- job is still checked (and locked) as before, but nothing is written
-- and no audit row either: the functions return 0, the tasks changed.
-- Both keep running as their owner with search_path pinned (0013); a
-- CREATE OR REPLACE restates that, and keeps the grants.

-- Set job p_job_id's priority (1..10). Its pending tasks take it over
-- (paused jobs' tasks keep their + 100), locked in task id order first;
-- one audit row (job.priority: before, after, tasks changed). Returns the
-- pending tasks changed: 0, with nothing written, when the job already
-- has that priority.
CREATE OR REPLACE FUNCTION crawltop.set_job_priority(p_job_id bigint,
		p_priority integer)
	RETURNS bigint LANGUAGE plpgsql SECURITY DEFINER
	SET search_path = pg_catalog, pg_temp AS $$
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

-- Add p_delta (-100..100, finite) to the score of job p_job_id's pending
-- tasks whose path starts with p_prefix (a plain string: no wildcards),
-- clamped to 0..100 as the scale requires; the class follows. A positive
-- delta boosts, a negative one demotes. Only tasks whose score changes
-- are locked (in task id order first) and written; one audit row
-- (tasks.boost or tasks.demote) when any was. Returns the tasks changed.
CREATE OR REPLACE FUNCTION crawltop.adjust_scores(p_job_id bigint,
		p_prefix text, p_delta double precision)
	RETURNS bigint LANGUAGE plpgsql SECURITY DEFINER
	SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	j crawltop.jobs;
	c jsonb := crawltop.setting('{classes}');
	n bigint;
BEGIN
	IF p_prefix IS NULL OR left(p_prefix, 1) <> '/' OR NOT crawltop.path_ok(p_prefix) THEN
		RAISE EXCEPTION 'path prefix % is not a page path prefix (it starts with ''/'')',
			crawltop.shown(p_prefix) USING ERRCODE = '22023';
	END IF;
	IF p_delta IS NULL OR NOT (p_delta >= -100 AND p_delta <= 100) THEN
		RAISE EXCEPTION 'score change % is outside -100..100', coalesce(p_delta::text, 'NULL')
			USING ERRCODE = '22003';
	END IF;
	j := crawltop.lock_job(p_job_id);
	IF p_delta = 0 THEN
		RETURN 0;
	END IF;
	PERFORM 1 FROM crawltop.tasks t
	JOIN crawltop.pages p ON p.id = t.page_id
	WHERE t.job_id = j.id AND t.status = 'pending'
	  AND left(p.path, length(p_prefix)) = p_prefix
	  AND least(100, greatest(0, t.score + p_delta)) <> t.score
	ORDER BY t.id FOR NO KEY UPDATE OF t;
	UPDATE crawltop.tasks t
	SET score = least(100, greatest(0, t.score + p_delta)),
	    class = crawltop.class_of(least(100, greatest(0, t.score + p_delta)),
		(c->>'p0')::double precision, (c->>'p1')::double precision,
		(c->>'p2')::double precision)
	FROM crawltop.pages p
	WHERE t.job_id = j.id AND t.status = 'pending' AND p.id = t.page_id
	  AND left(p.path, length(p_prefix)) = p_prefix
	  AND least(100, greatest(0, t.score + p_delta)) <> t.score;
	GET DIAGNOSTICS n = ROW_COUNT;
	IF n > 0 THEN
		INSERT INTO crawltop.audit_log (action, job_id, before, after, rows_affected)
		VALUES (CASE WHEN p_delta >= 0 THEN 'tasks.boost' ELSE 'tasks.demote' END,
			j.id, jsonb_build_object('prefix', p_prefix),
			jsonb_build_object('prefix', p_prefix, 'delta', p_delta), n);
	END IF;
	RETURN n;
END $$;
