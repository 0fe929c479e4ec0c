-- 0004_reprioritise.sql: operator changes to jobs and their pending tasks.
--
-- Each function is one transaction (one call) that locks the job row,
-- changes the job and its pending tasks, and writes one audit_log row:
-- database role, application_name, what, before, after, rows affected.
-- Running tasks keep their lease; they pick up the job's state when they
-- return to pending (reap_expired and release recompute job_priority).

-- Lock job p_job_id and return it; P0002 when it does not exist.
CREATE FUNCTION crawltop.lock_job(p_job_id bigint) RETURNS crawltop.jobs
	LANGUAGE plpgsql AS $$
DECLARE
	j crawltop.jobs;
BEGIN
	SELECT * INTO j FROM crawltop.jobs WHERE id = p_job_id FOR NO KEY UPDATE;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'job % does not exist', coalesce(p_job_id::text, 'NULL')
			USING ERRCODE = 'P0002';
	END IF;
	RETURN j;
END $$;

-- Set a job's priority (1..10); its pending tasks follow at once (a
-- paused job's stay 100 further back). Returns the pending tasks moved.
CREATE FUNCTION crawltop.set_job_priority(p_job_id bigint, p_priority integer)
	RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
	j crawltop.jobs;
	n bigint;
BEGIN
	PERFORM crawltop.check_priority(p_priority);
	j := crawltop.lock_job(p_job_id);
	UPDATE crawltop.jobs SET priority = p_priority, updated_at = now()
	WHERE id = j.id;
	UPDATE crawltop.tasks
	SET job_priority = p_priority + CASE WHEN j.status = 'paused' THEN 100 ELSE 0 END
	WHERE job_id = j.id AND status = 'pending';
	GET DIAGNOSTICS n = ROW_COUNT;
	INSERT INTO crawltop.audit_log (action, job_id, before, after, rows_affected)
	VALUES ('job.priority', j.id, jsonb_build_object('priority', j.priority),
		jsonb_build_object('priority', p_priority), n);
	RETURN n;
END $$;

-- Change a job's state: 'pause' (pending/running -> paused: its pending
-- tasks move out of every claim's range), 'resume' (paused -> running),
-- 'cancel' (any but completed -> cancelled: pending tasks are skipped,
-- running ones finish or expire into skipped). Returns the pending tasks
-- changed. A transition that does not apply is refused (55000).
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
		RAISE EXCEPTION 'job % (%) is %: cannot %', j.id, j.name, j.status,
			p_action USING ERRCODE = '55000';
	END IF;
	UPDATE crawltop.jobs SET status = v_to, updated_at = now() WHERE id = j.id;
	IF p_action = 'cancel' THEN
		UPDATE crawltop.tasks SET status = 'skipped', completed_at = now()
		WHERE job_id = j.id AND status = 'pending';
	ELSE
		UPDATE crawltop.tasks
		SET job_priority = j.priority + CASE WHEN p_action = 'pause' THEN 100 ELSE 0 END
		WHERE job_id = j.id AND status = 'pending';
	END IF;
	GET DIAGNOSTICS n = ROW_COUNT;
	INSERT INTO crawltop.audit_log (action, job_id, before, after, rows_affected)
	VALUES ('job.' || p_action, j.id, jsonb_build_object('status', j.status),
		jsonb_build_object('status', v_to), n);
	RETURN n;
END $$;

-- Add p_delta (-100..100, finite) to the score of job p_job_id's pending
-- tasks whose path starts with p_prefix (compared as a plain string: no
-- wildcards), clamped to 0..100 as the scale requires; the class follows.
-- A positive delta boosts, a negative one demotes. Returns the tasks
-- changed.
CREATE FUNCTION crawltop.adjust_scores(p_job_id bigint, p_prefix text,
		p_delta double precision)
	RETURNS bigint LANGUAGE plpgsql AS $$
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
	UPDATE crawltop.tasks t
	SET score = least(100, greatest(0, t.score + p_delta)),
	    class = crawltop.class_of(least(100, greatest(0, t.score + p_delta)),
		(c->>'p0')::double precision, (c->>'p1')::double precision,
		(c->>'p2')::double precision)
	FROM crawltop.pages p
	WHERE t.job_id = j.id AND t.status = 'pending' AND p.id = t.page_id
	  AND left(p.path, length(p_prefix)) = p_prefix;
	GET DIAGNOSTICS n = ROW_COUNT;
	INSERT INTO crawltop.audit_log (action, job_id, before, after, rows_affected)
	VALUES (CASE WHEN p_delta >= 0 THEN 'tasks.boost' ELSE 'tasks.demote' END,
		j.id, jsonb_build_object('prefix', p_prefix),
		jsonb_build_object('prefix', p_prefix, 'delta', p_delta), n);
	RETURN n;
END $$;
