-- 0025_leases_view.sql: who holds what, and an operator's way to take a
-- stuck task back.
--
-- crawltop.running_leases(p_job, p_limit): the tasks running on a lease
-- (of one job, or all with NULL), the soonest to expire first: worker,
-- job, path, how long it has run (started_at) and how long its lease has
-- left (negative: expired, the reaper's). Read through crawltop.leases,
-- whose rows are the running tasks, never the queue.
--
-- crawltop.requeue_task(p_task): an operator gives a task back to the
-- queue that a worker holds on a live lease (a worker hung on a fetch):
-- it is released as the worker would release it (crawltop.release: no
-- attempt counted, pending again at once, skipped if its job was
-- cancelled), and audited (task.requeue: the worker and the lease before,
-- the status after). A task not running on a live lease is refused
-- (55000), and so is one whose lease ended meanwhile: nothing changes.
-- An expired lease is the reaper's: claims and an operator's console
-- return those within seconds (0018).
CREATE FUNCTION crawltop.running_leases(p_job bigint, p_limit integer)
	RETURNS TABLE (task_id bigint, job_id bigint, job_name text,
		worker text, path text, running_s double precision,
		expires_s double precision, retry_count smallint)
	LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $$
	SELECT t.id, t.job_id, j.name, t.lease_owner, p.path::text,
	       extract(epoch FROM now() - t.started_at)::double precision,
	       extract(epoch FROM t.lease_expires_at - now())::double precision,
	       t.retry_count
	FROM crawltop.leases l
	JOIN crawltop.tasks t ON t.id = l.task_id
	JOIN crawltop.jobs j ON j.id = t.job_id
	JOIN crawltop.pages p ON p.id = t.page_id
	WHERE t.status = 'running' AND t.lease_owner IS NOT NULL
	  AND (p_job IS NULL OR t.job_id = p_job)
	ORDER BY t.lease_expires_at, t.id
	LIMIT greatest(coalesce(p_limit, 50), 0)
$$;
REVOKE ALL ON FUNCTION crawltop.running_leases(bigint, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION crawltop.running_leases(bigint, integer)
	TO crawltop_viewer;

CREATE FUNCTION crawltop.requeue_task(p_task bigint) RETURNS text
	LANGUAGE plpgsql SECURITY DEFINER
	SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	t crawltop.tasks;
	n bigint;
	v_status text;
BEGIN
	SELECT * INTO t FROM crawltop.tasks WHERE id = p_task;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'task % does not exist', coalesce(p_task::text, 'NULL')
			USING ERRCODE = '22023';
	END IF;
	IF t.status <> 'running' OR t.lease_owner IS NULL THEN
		RAISE EXCEPTION 'task % is % and held by no worker: nothing to requeue',
			p_task, CASE WHEN t.status = 'running' THEN 'waiting for a retry'
			ELSE t.status END USING ERRCODE = '55000';
	END IF;
	IF t.lease_expires_at <= now() THEN
		RAISE EXCEPTION 'task %''s lease (worker %) has expired: the reaper returns it (a claim or an operator''s console does within seconds)',
			p_task, crawltop.shown(t.lease_owner) USING ERRCODE = '55000';
	END IF;
	-- as the worker would: its locks in its order (jobs, then tasks)
	SELECT count(*) INTO n FROM crawltop.release(t.lease_owner, ARRAY[p_task]);
	IF n = 0 THEN
		RAISE EXCEPTION 'task % was finished or its lease ended meanwhile: nothing requeued',
			p_task USING ERRCODE = '55000';
	END IF;
	SELECT status INTO v_status FROM crawltop.tasks WHERE id = p_task;
	INSERT INTO crawltop.audit_log (action, job_id, before, after, rows_affected)
	VALUES ('task.requeue', t.job_id,
		jsonb_build_object('task', p_task, 'status', 'running',
			'worker', t.lease_owner, 'lease_expires_at', t.lease_expires_at),
		jsonb_build_object('task', p_task, 'status', v_status), 1);
	RETURN v_status;
END $$;
REVOKE ALL ON FUNCTION crawltop.requeue_task(bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION crawltop.requeue_task(bigint) TO crawltop_operator;
