-- 0038_lean_enqueue.sql: enqueue keeps the queue and the counters in its
-- own statement.
--
-- Where an enqueue of new pages spent the server's time (a 50,000-URL
-- sitemap into a hierarchy job, pg_stat_statements, doc/PERFORMANCE.md
-- "Enqueue"): of 1.9 s, 1.14 s in the INSERT of the tasks, and of that
-- 0.35 s in tasks_queue_insert (the queue rows), 0.17 s in
-- tasks_count_insert (each new row expanded into its seven counter cells,
-- 350,000 rows grouped for 50,000 tasks) and 0.09 s in tasks_refs (each
-- new task's job and page looked up again), all three fed by a transition
-- table that captured every inserted row. enqueue_batch knows all they
-- find out: its job row is locked (FOR NO KEY UPDATE, which a DELETE of
-- the job waits for, as it waits for the reference check's FOR KEY
-- SHARE), its pages were inserted or found by this call and pages are
-- never deleted (0001), its source page was checked before; and every new
-- task of a call has the same status, depth, type, method and job
-- priority, so its counter cells are those of a few groups.
--
-- So the INSERT of enqueue_batch (0002's body otherwise) runs with
-- crawltop.inline set for that statement, for which the three trigger
-- functions are not called (the queue and counter triggers by 0020's
-- WHEN, tasks_refs by its new one; PostgreSQL still fills their
-- transition table, which a WHEN does not stop), and writes in the same
-- statement the queue rows (a CTE over its
-- RETURNING) and the counter deltas (the new rows grouped by every column
-- a cell depends on, the score by its bucket, then expanded by
-- crawltop.task_cells: the same cells the trigger gives). The function
-- still pins crawltop.inline empty for every other statement (0020), so
-- its raise UPDATE keeps its sync, and a session that sets it changes
-- nothing. Anyone else's INSERT into tasks runs every trigger as before,
-- unless it sets crawltop.inline itself: only the owner may write tasks
-- (0013), and the owner can as well drop a trigger.
--
-- The new text replaces one statement of the function's current body,
-- and the migration fails unless it finds that statement exactly once.

DO $do$
DECLARE
	v_fn regprocedure := 'crawltop.enqueue_batch(bigint, text[], text,
		bigint, integer, text, text, text, double precision[])';
	v_def text := pg_get_functiondef(v_fn);
	v_old text := $old$
	INSERT INTO crawltop.tasks (job_id, page_id, job_priority, score,
		base_score, class, source_type, source_url, source_page_id,
		depth, type, discovery_method, created_at)
	SELECT j.id, u.page_id,
	       j.priority + CASE WHEN j.status = 'paused' THEN 100 ELSE 0 END,
	       u.s, u.s, crawltop.class_of(u.s, v_p0, v_p1, v_p2),
	       p_source_type, p_source_url, v_src_page, p_depth, p_type,
	       p_discovery_method, v_now
	FROM unnest(v_ins_ids, v_ins_scores) WITH ORDINALITY AS u(page_id, s, i)
	ORDER BY u.i;
	GET DIAGNOSTICS inserted = ROW_COUNT;
$old$;
	-- the statement's last two lines, which the new text replaces: the
	-- INSERT becomes the first CTE of a statement that also writes the
	-- queue rows and the counter deltas
	v_tail text := $tail$
	ORDER BY u.i;
	GET DIAGNOSTICS inserted = ROW_COUNT;
$tail$;
	v_new text := $pre$
	-- (0038) The queue rows and the counter deltas in the same statement,
	-- the triggers that would add them skipped for it (crawltop.inline).
	PERFORM pg_catalog.set_config('crawltop.inline', 'on', true);
	WITH n AS ($pre$ || replace(v_old, v_tail, $post$
	ORDER BY u.i
	RETURNING id, job_id, job_priority, score, created_at, pending_since,
		  status, lease_owner, class, depth, discovery_method, type,
		  ranked_at, priority_class
	), q AS (
		INSERT INTO crawltop.queue (task_id, job_id, job_priority, score,
			created_at, pending_since)
		SELECT n.id, n.job_id, n.job_priority, n.score, n.created_at,
		       n.pending_since
		FROM n WHERE n.status = 'pending'
	), c AS (
		-- tasks_count's INSERT branch, over groups of rows that share
		-- every cell (a group's least score stands for its bucket)
		INSERT INTO crawltop.task_counts AS c (job_id, dim, key, shard, n)
		SELECT d.job_id, d.dim, d.key, (SELECT crawltop.counter_shard()), d.n
		FROM (SELECT g.job_id, x.dim, x.key, sum(g.n) AS n
		      FROM (SELECT n.job_id, n.status, n.lease_owner, n.class,
				   n.depth, n.discovery_method, n.type,
				   n.job_priority, min(n.score) AS score,
				   n.ranked_at, n.priority_class, count(*) AS n
			    FROM n
			    GROUP BY n.job_id, n.status, n.lease_owner, n.class,
				     n.depth, n.discovery_method, n.type,
				     n.job_priority, crawltop.score_bucket(n.score),
				     n.ranked_at, n.priority_class) g
		      CROSS JOIN LATERAL crawltop.task_cells(g.status,
			g.lease_owner, g.class, g.depth, g.discovery_method,
			g.type, g.job_priority, g.score, g.ranked_at,
			g.priority_class) x
		      GROUP BY 1, 2, 3) d
		ON CONFLICT (job_id, dim, key, shard) DO UPDATE SET n = c.n + excluded.n
	)
	SELECT count(*) INTO inserted FROM n;
	PERFORM pg_catalog.set_config('crawltop.inline', '', true);
$post$);
	v_at integer := position(v_old IN v_def);
BEGIN
	IF v_at = 0 OR position(v_old IN substr(v_def, v_at + 1)) <> 0 THEN
		RAISE EXCEPTION '0038: enqueue_batch''s INSERT of new tasks is not '
			'the one this migration replaces (found % times)',
			CASE WHEN v_at = 0 THEN 0 ELSE 2 END;
	END IF;
	EXECUTE replace(v_def, v_old, v_new);
END $do$;

-- tasks_refs skips a statement that runs with crawltop.inline (only
-- enqueue_batch's INSERT, above: claims and completions, which set it
-- too, insert no task).
DROP TRIGGER tasks_refs ON crawltop.tasks;
CREATE TRIGGER tasks_refs AFTER INSERT ON crawltop.tasks
	REFERENCING NEW TABLE AS new_rows
	FOR EACH STATEMENT
	WHEN (current_setting('crawltop.inline', true) IS DISTINCT FROM 'on')
	EXECUTE FUNCTION crawltop.tasks_refs_check();
