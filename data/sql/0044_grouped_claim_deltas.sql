-- 0044_grouped_claim_deltas.sql: a claim appends one counter delta a
-- group of its tasks, not one a task.
--
-- claim and claim_next append the counter deltas of the tasks they claim
-- in their claiming statement (0020, 0022, 0037): one row a task, which a
-- counter read adds to the folded cells until fold_counts (one call in
-- 32, 0041) takes them. A claim of 10,000 tasks appended 10,000 rows, and
-- a dashboard read after two such claims took 123-127 ms instead of 1.5
-- (the reads are O(cells) only when the deltas are). A claim's tasks
-- mostly share their cells: a delta's cells depend only on its job,
-- class, depth, discovery method, type, job priority, score bucket,
-- whether it is ranked and priority class (the fold's own grouping,
-- 0041). The claiming statement now groups its tasks by those and
-- appends one row a group, its count in n and claims, its least score and
-- ranking time standing for the group's (crawltop.task_cells reads them
-- only through the bucket and IS NULL). The cells and their counts are the
-- same, and so are the rate ticks; a claim of 100 tasks appends one to a
-- few rows.
--
-- The new text replaces one part of each function's current body (the
-- all-jobs and the one-job claiming statement: twice a function), and the
-- migration fails unless it finds that part exactly twice.

DO $do$
DECLARE
	v_old constant text := $old$
			SELECT u.job_id, 1, 'pending', 'running', p_worker, u.class,
			       u.depth, u.discovery_method, u.type, u.job_priority, u.score,
			       u.ranked_at, u.priority_class, 1,
			       date_trunc('second', clock_timestamp())
			FROM u
$old$;
	v_new constant text := $new$
			SELECT u.job_id, count(*), 'pending', 'running', p_worker,
			       u.class, u.depth, u.discovery_method, u.type,
			       u.job_priority, min(u.score), min(u.ranked_at),
			       u.priority_class, count(*),
			       date_trunc('second', clock_timestamp())
			FROM u
			GROUP BY u.job_id, u.class, u.depth, u.discovery_method, u.type,
				 u.job_priority, crawltop.score_bucket(u.score),
				 u.ranked_at IS NULL, u.priority_class
$new$;
	v_fn regprocedure;
	v_def text;
	v_found integer;
BEGIN
	FOREACH v_fn IN ARRAY ARRAY[
		'crawltop.claim(text, integer, bigint, double precision)',
		'crawltop.claim_next(text, bigint[], integer, bigint, double precision)'
	]::regprocedure[] LOOP
		v_def := pg_get_functiondef(v_fn);
		v_found := (length(v_def) - length(replace(v_def, v_old, '')))
			   / length(v_old);
		IF v_found <> 2 THEN
			RAISE EXCEPTION '0044: %''s claiming statements are not the '
				'ones this migration replaces (found % of 2)', v_fn,
				v_found;
		END IF;
		EXECUTE replace(v_def, v_old, v_new);
	END LOOP;
END $do$;
