-- 0040_no_inputs_fast.sql: a task without score inputs costs
-- score_input_columns nothing.
--
-- crawltop.score_input_columns(jsonb) (0005) unpacks a task's score
-- inputs into columns for rescore_fetch (and the console's preview): five
-- jsonb_to_record calls over the inputs or over '{}' when there are none.
-- For a task without inputs (every task of a crawler that sends none, and
-- a hierarchy or fifo job's) that was 4 us of a rescore's 35 a task
-- (rescore_fetch over 10,000 tasks, EXPLAIN ANALYZE: 62 ms with it, 22
-- without, doc/PERFORMANCE.md "Rescore"). The function now has a second
-- branch for NULL inputs, the same row as before written out (every
-- column NULL, has_subscores and has_signals false), and the unpacking
-- branch runs only for inputs that are there; each branch's WHERE is a
-- one-time filter of the inlined function, so a row reads one of them.
--
-- The row is made from the function's own result columns, and the
-- migration fails unless it finds the end of the body it extends once.

DO $do$
DECLARE
	v_fn regprocedure := 'crawltop.score_input_columns(jsonb)';
	v_def text := pg_get_functiondef(v_fn);
	v_end text := E'AS d\n$function$';
	v_row text;
BEGIN
	SELECT string_agg(CASE WHEN a.n IN ('has_subscores', 'has_signals')
			       THEN 'false'
			       ELSE 'NULL::' || format_type(a.t, NULL) END,
			  ', ' ORDER BY a.o)
	INTO v_row
	FROM pg_proc p,
	     unnest(p.proallargtypes, p.proargmodes, p.proargnames)
		WITH ORDINALITY AS a(t, m, n, o)
	WHERE p.oid = v_fn AND a.m = 't';
	IF position(v_end IN v_def) = 0 OR position(v_end IN
	   substr(v_def, position(v_end IN v_def) + 1)) <> 0 THEN
		RAISE EXCEPTION '0040: score_input_columns() does not end as this '
			'migration expects';
	END IF;
	EXECUTE replace(v_def, v_end, E'AS d\n\tWHERE p_inputs IS NOT NULL\n'
		|| E'\tUNION ALL\n\tSELECT ' || v_row
		|| E'\n\tWHERE p_inputs IS NULL\n$function$');
END $do$;
