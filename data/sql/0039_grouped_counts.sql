-- 0039_grouped_counts.sql: the counter trigger groups a statement's rows
-- before it expands them into counter cells.
--
-- crawltop.tasks_count() (0007) turns every row of a statement (old and
-- new, for an UPDATE) into its seven cells with crawltop.task_cells and
-- then groups the cells: a rescore of 10,000 tasks expands 140,000 rows,
-- 6 us of a rescore's 48 a task (doc/PERFORMANCE.md "Rescore"), and a
-- ranking batch the same. A row's cells depend on its job, status,
-- whether it has a lease owner, class, depth, method, type, job priority,
-- score bucket, whether it is ranked and priority class, and rows of a
-- statement mostly share them: the rows are grouped by those first (each
-- group's least lease owner, score and ranking time standing for its
-- own: the cells read them only through IS NULL and the bucket), an
-- UPDATE's old and new rows netted within a group (a rescore that keeps
-- a task's bucket nets to nothing), and only the groups are expanded.
-- The cells and their counts are the same (0038 does the same for
-- enqueue's new tasks).
--
-- The new texts replace three parts of the function's current body, and
-- the migration fails unless it finds each once.

DO $do$
DECLARE
	v_def text := pg_get_functiondef('crawltop.tasks_count()'::regprocedure);
	-- the rows of source %1$s grouped by what their cells depend on;
	-- %2$s the group's count and %3$s what a group must have
	v_group text := $g$(SELECT s.job_id, s.status,
			   min(s.lease_owner) AS lease_owner, s.class, s.depth,
			   s.discovery_method, s.type, s.job_priority,
			   min(s.score) AS score, min(s.ranked_at) AS ranked_at,
			   s.priority_class, %2$s
		    FROM %1$s s
		    GROUP BY s.job_id, s.status, s.lease_owner IS NULL, s.class,
			     s.depth, s.discovery_method, s.type, s.job_priority,
			     crawltop.score_bucket(s.score), s.ranked_at IS NULL,
			     s.priority_class%3$s)$g$;
	-- INSERT and DELETE: the rows of %s, each counted once
	v_one_old text := $o$count(*) AS n
		      FROM %s r CROSS JOIN LATERAL$o$;
	v_one_new text := $n$sum(r.n) AS n
		      FROM %s r CROSS JOIN LATERAL$n$;
	-- UPDATE: the new rows +1, the old -1, netted by group
	v_upd_old text := $u$		    FROM old_rows r) u
	      CROSS JOIN LATERAL$u$;
	v_upd_head_old text := $h$FROM (SELECT u.job_id, x.dim, x.key, sum(u.sign) AS n
	      FROM (SELECT r.job_id,$h$;
	v_upd_head_new text := $i$FROM (SELECT u.job_id, x.dim, x.key, sum(u.sign) AS n
	      FROM (SELECT u.job_id, u.status, min(u.lease_owner) AS lease_owner,
			   u.class, u.depth, u.discovery_method, u.type,
			   u.job_priority, min(u.score) AS score,
			   min(u.ranked_at) AS ranked_at, u.priority_class,
			   sum(u.sign) AS sign
		    FROM (SELECT r.job_id,$i$;
	v_upd_tail_new text := $t$		    FROM old_rows r) u
		    GROUP BY u.job_id, u.status, u.lease_owner IS NULL, u.class,
			     u.depth, u.discovery_method, u.type, u.job_priority,
			     crawltop.score_bucket(u.score), u.ranked_at IS NULL,
			     u.priority_class
		    HAVING sum(u.sign) <> 0) u
	      CROSS JOIN LATERAL$t$;
	v_old text;
	v_new text;
BEGIN
	FOR i IN 1 .. 3 LOOP
		IF i < 3 THEN
			v_old := format(v_one_old, CASE i WHEN 1 THEN 'new_rows'
						 ELSE 'old_rows' END);
			v_new := format(v_one_new, format(v_group,
				CASE i WHEN 1 THEN 'new_rows' ELSE 'old_rows' END,
				'count(*) AS n', ''));
		ELSE
			v_old := v_upd_head_old;
			v_new := v_upd_head_new;
		END IF;
		IF position(v_old IN v_def) = 0 OR position(v_old IN
		   substr(v_def, position(v_old IN v_def) + 1)) <> 0 THEN
			RAISE EXCEPTION '0039: part % of tasks_count() is not the one '
				'this migration replaces', i;
		END IF;
		v_def := replace(v_def, v_old, v_new);
	END LOOP;
	-- the UPDATE's union is now one level deeper: its end closes both
	IF position(v_upd_old IN v_def) = 0 THEN
		RAISE EXCEPTION '0039: the end of tasks_count()''s UPDATE union is '
			'not the one this migration replaces';
	END IF;
	v_def := replace(v_def, v_upd_old, v_upd_tail_new);
	EXECUTE v_def;
END $do$;
