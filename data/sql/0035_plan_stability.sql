-- 0035_plan_stability.sql: the hot path's plans stay index plans however
-- small the store was when a session made them.
--
-- A session plans each statement of a plpgsql function once and keeps
-- the plan (claim, claim_next and complete even force the generic plan).
-- A worker or crawler whose session begins on an empty or young store
-- (the usual start: workers up, then the crawl seeded) got plans costed
-- for a few rows: the claim joined queue and tasks by sequential scans in
-- a nested loop and sorted the result, and kept doing so as the job grew.
-- Measured: a session that claimed once at 20 tasks then took 1.7 s a
-- claim at 5,000 (a fresh session: 1.7 ms), quadratic in the queue; the
-- one-job claim also sorted every pending task of its job where the
-- generic estimate made the job look small. 0005 had fixed the same for
-- set_score_inputs alone.
--
-- With enable_seqscan off a plan scans a whole table only where no index
-- serves; with enable_sort off the claims read the claim-order indexes in
-- order (queue_claim_all, queue_claim_job, queue_starve_*) rather than
-- sorting a job's queue. A function's SET applies to the functions and
-- triggers it calls. jit goes off with them: the planner marks a plan it
-- could not avoid (a scan of count_deltas, which has no index, in
-- fold_counts) with a cost of 1e10, far past jit_above_cost, and each
-- execution then compiled its plan (800 ms a fold, measured); no
-- statement of the hot path is worth compiling. tests/store/test_plans.c
-- checks the plans of a session that grew.
ALTER FUNCTION crawltop.claim(text, integer, bigint, double precision)
	SET enable_seqscan = off;
ALTER FUNCTION crawltop.claim(text, integer, bigint, double precision)
	SET enable_sort = off;
ALTER FUNCTION crawltop.claim_next(text, bigint[], integer, bigint,
		double precision)
	SET enable_seqscan = off;
ALTER FUNCTION crawltop.claim_next(text, bigint[], integer, bigint,
		double precision)
	SET enable_sort = off;
ALTER FUNCTION crawltop.complete(text, bigint[]) SET enable_seqscan = off;
ALTER FUNCTION crawltop.fail(text, bigint[], text) SET enable_seqscan = off;
ALTER FUNCTION crawltop.release(text, bigint[]) SET enable_seqscan = off;
ALTER FUNCTION crawltop.reap_expired(integer) SET enable_seqscan = off;
ALTER FUNCTION crawltop.enqueue(bigint, text[], text, bigint, integer, text,
		text, text, double precision[], integer)
	SET enable_seqscan = off;
ALTER FUNCTION crawltop.enqueue_modes(bigint, text[], text, bigint, integer,
		text, text, text, double precision[])
	SET enable_seqscan = off;
ALTER FUNCTION crawltop.enqueue_batch(bigint, text[], text, bigint, integer,
		text, text, text, double precision[])
	SET enable_seqscan = off;
ALTER FUNCTION crawltop.claim(text, integer, bigint, double precision) SET jit = off;
ALTER FUNCTION crawltop.claim_next(text, bigint[], integer, bigint,
		double precision) SET jit = off;
ALTER FUNCTION crawltop.complete(text, bigint[]) SET jit = off;
ALTER FUNCTION crawltop.fail(text, bigint[], text) SET jit = off;
ALTER FUNCTION crawltop.release(text, bigint[]) SET jit = off;
ALTER FUNCTION crawltop.reap_expired(integer) SET jit = off;
ALTER FUNCTION crawltop.enqueue(bigint, text[], text, bigint, integer, text,
		text, text, double precision[], integer) SET jit = off;
ALTER FUNCTION crawltop.enqueue_modes(bigint, text[], text, bigint, integer,
		text, text, text, double precision[]) SET jit = off;
ALTER FUNCTION crawltop.enqueue_batch(bigint, text[], text, bigint, integer,
		text, text, text, double precision[]) SET jit = off;
-- 0005's function of the same kind
ALTER FUNCTION crawltop.set_score_inputs(bigint, text[], jsonb[])
	SET jit = off;
