-- 0019_finished_job_priority.sql: a cancelled or completed job's priority
-- is not changed. It orders nothing (the job has no pending task and takes
-- no new one), yet the change was made and audited with 0 rows, which
-- told an operator something had happened. Refused now, as enqueue
-- refuses such a job (55000). Otherwise 0004's function as it was.
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
	IF j.status IN ('cancelled', 'completed') THEN
		RAISE EXCEPTION 'job % (%) is %: its priority orders nothing any more',
			j.id, j.name, j.status USING ERRCODE = '55000';
	END IF;
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
