-- 0031_console_costs.sql: what the console's drill-down asks each
-- refresh costs what the answer needs, and a boost at its bound says so.
--
--   task_rows(ids)  the rows find_tasks returns (0028), for the tasks
--       ids, in find_tasks's order: the console runs a path search once
--       (a scan of the job's pages) and then refreshes the tasks it
--       found by id (one index probe each), searching again only now
--       and then for tasks enqueued since.
--   find_tasks(job, text, limit)  the search, its rows through
--       task_rows.
--   (task_card (0028) at limit 0 counts no place: the console counts a
--   task's place, up to 3 index ranges of 100,000 entries each way, when
--   the view opens, after a change and every 10 s, not on every
--   refresh.)
--   adjust_task(task, delta)  returns NULL when the adjustment is at
--       its bound (-100 or 100) already and nothing was written or
--       audited (it returned the unchanged score, and the console said
--       "1 task changed").
CREATE FUNCTION crawltop.task_rows(p_ids bigint[])
	RETURNS TABLE (task_id bigint, job_id bigint, path text,
		score double precision, class smallint, job_priority smallint,
		created_at timestamptz, depth integer, type text,
		discovery_method text, status text)
	LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $$
	SELECT t.id, t.job_id, p.path::text, t.score, t.class::smallint,
	       t.job_priority::smallint, t.created_at, t.depth::integer,
	       t.type::text, t.discovery_method::text,
	       crawltop.task_status_shown(t.status, t.lease_owner)
	FROM crawltop.tasks t
	JOIN crawltop.pages p ON p.id = t.page_id
	WHERE t.id = ANY (p_ids)
	ORDER BY t.status <> 'pending', t.job_priority, t.score DESC,
		 t.created_at, t.id
$$;

CREATE OR REPLACE FUNCTION crawltop.find_tasks(p_job bigint, p_text text,
		p_limit integer)
	RETURNS TABLE (task_id bigint, job_id bigint, path text,
		score double precision, class smallint, job_priority smallint,
		created_at timestamptz, depth integer, type text,
		discovery_method text, status text)
	LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp AS $$
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
	RETURN QUERY SELECT * FROM crawltop.task_rows(ARRAY(
		SELECT t.id FROM crawltop.tasks t
		JOIN crawltop.pages p ON p.id = t.page_id
		WHERE (p_job IS NULL OR t.job_id = p_job)
		  AND strpos(p.path::text, p_text) > 0
		ORDER BY t.status <> 'pending', t.job_priority, t.score DESC,
			 t.created_at, t.id
		LIMIT p_limit));
END $$;

CREATE OR REPLACE FUNCTION crawltop.adjust_task(p_task bigint,
		p_delta double precision)
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
	IF v_adj = t.adjustment THEN
		RETURN NULL; -- at the bound already: nothing to write
	END IF;
	v_score := least(100, greatest(0, t.base_score + v_adj));
	SELECT p.path INTO v_path FROM crawltop.pages p WHERE p.id = t.page_id;
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

REVOKE ALL ON FUNCTION crawltop.task_rows(bigint[]) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION crawltop.task_rows(bigint[]) TO crawltop_viewer;
