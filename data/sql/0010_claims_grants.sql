-- 0010_claims_grants.sql: privileges on the functions 0005 added for
-- score inputs, job modes and rescoring, for the roles of 0009 (0005 runs
-- before those roles exist; 0009 revoked every function from PUBLIC). The
-- other functions of 0005 (claim, release, reap_expired, set_job_state)
-- are granted in 0009 with the rest of the worker and operator calls.
-- The settings_check trigger needs no grant: a trigger function is not
-- checked for EXECUTE where it fires.

-- Pure helpers, used by set_score_inputs, rescores, the console's preview
-- and ranking runs (and by anyone checking or reading inputs).
GRANT EXECUTE ON FUNCTION
	crawltop.score_input_spec(),
	crawltop.score_inputs_problem(jsonb),
	crawltop.score_input_columns(jsonb),
	crawltop.discovery_input_columns(jsonb),
	crawltop.jsonb_array(text[], text),
	crawltop.base_on_return(text, double precision, double precision)
	TO crawltop_viewer, crawltop_operator, crawltop_worker;

-- Workers store the score inputs of what they enqueue.
GRANT EXECUTE ON FUNCTION
	crawltop.set_score_inputs(bigint, text[], jsonb[])
	TO crawltop_worker;

-- Operators set a job's mode and rescore its tasks.
GRANT EXECUTE ON FUNCTION
	crawltop.set_job_mode(bigint, text),
	crawltop.rescore_start(bigint),
	crawltop.rescore_lock_job(bigint, text),
	crawltop.rescore_fetch(bigint, text, bigint, integer),
	crawltop.rescore_apply(bigint, text, bigint[], double precision[],
		smallint[], jsonb)
	TO crawltop_operator;
