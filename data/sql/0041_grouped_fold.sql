-- 0041_grouped_fold.sql: a fold groups the counter deltas before it
-- expands them into cells.
--
-- claim, complete and claim_next append one counter delta a statement
-- (0020, 0022) and fold them into shard 0 once in 32 calls
-- (crawltop.fold_counts). The fold expanded every delta into its cells
-- (old side and new side, up to seven each) and then grouped the cells:
-- 16-24 us a delta, 1.6-1.75 ms for the 68 deltas of 34 claim_next calls,
-- so some 50 us a claim. The deltas of a fold mostly share their cells:
-- a delta's cells depend on its job, its two statuses, whether each has
-- a lease owner, class, depth, method, type, job priority, score bucket,
-- whether it is ranked and priority class, and the 68 deltas of that
-- fold were 4 such groups. The deltas are now grouped by those first
-- (each group's least owners, score and ranking time standing for its
-- own: crawltop.task_cells reads them only through IS NULL and the
-- bucket; 0039 does the same for the counter trigger's rows), their
-- counts summed, and only the groups are expanded. The cells and their
-- counts are the same; the rate ticks are summed from the deltas as
-- before.
--
-- The new text replaces one part of the function's current body, and the
-- migration fails unless it finds that part exactly once.

DO $do$
DECLARE
	v_def text := pg_get_functiondef('crawltop.fold_counts()'::regprocedure);
	v_old text := $old$
		FROM moved d
		CROSS JOIN LATERAL ($old$;
	v_new text := $new$
		FROM (SELECT m.job_id, m.old_status, min(m.old_owner) AS old_owner,
			     m.new_status, min(m.new_owner) AS new_owner, m.class,
			     m.depth, m.discovery_method, m.type, m.job_priority,
			     min(m.score) AS score, min(m.ranked_at) AS ranked_at,
			     m.priority_class, sum(m.n) AS n
		      FROM moved m
		      GROUP BY m.job_id, m.old_status, m.old_owner IS NULL,
			       m.new_status, m.new_owner IS NULL, m.class, m.depth,
			       m.discovery_method, m.type, m.job_priority,
			       crawltop.score_bucket(m.score), m.ranked_at IS NULL,
			       m.priority_class) d
		CROSS JOIN LATERAL ($new$;
	v_at integer := position(v_old IN v_def);
BEGIN
	IF v_at = 0 OR position(v_old IN substr(v_def, v_at + 1)) <> 0 THEN
		RAISE EXCEPTION '0041: fold_counts''s read of the deltas is not '
			'the one this migration replaces (found % times)',
			CASE WHEN v_at = 0 THEN 0 ELSE 2 END;
	END IF;
	EXECUTE replace(v_def, v_old, v_new);
END $do$;
