-- 0036_rescore_stripes.sql: a rescore's batches in stripes of page ids,
-- so that a rescore can run on several connections at once.
--
-- rescore_fetch (0006, as 0021 left it) takes the next p_n unfinished
-- tasks of a job after a page id; with one connection a rescore goes
-- through the job's pages in order. With several (ct_rescore_opts.extra,
-- `crawltop job set-mode --connections`, the console), the job's page ids
-- are cut into one stripe per connection, each rescored batch by batch on
-- its own connection and thread, as `crawltop rank` does with task ids:
-- p_upto_page ends a stripe, so no two connections fetch (and lock) the
-- same task. NULL, the default, keeps 0021's function: callers that pass
-- four arguments are unchanged. Everything else is 0021's text.
--
-- A batch holds its job's row for its transaction (rescore_lock_job,
-- 0006: the mode cannot change under it). It took it FOR SHARE, which
-- also kept out enqueue (FOR NO KEY UPDATE): with one connection an
-- enqueue waited for a batch, but the batches of several stripes overlap,
-- and share locks granted one after another, each compatible with the
-- last, kept a waiting enqueue out until the whole rescore ended. Now
-- FOR KEY SHARE: it still conflicts with lock_job's FOR UPDATE (mode,
-- priority, state changes, boosts), so the mode stays fixed under a
-- batch, and enqueues go on beside it (an enqueue that raises a task of
-- a batch waits for that task's row, as before; a rescore in importance
-- mode counts the job's pages as they stand). The operators' changes get
-- their turn between the stripes' rounds of batches (rescore.c).
CREATE OR REPLACE FUNCTION crawltop.rescore_lock_job(p_job_id bigint,
		p_mode text)
	RETURNS void LANGUAGE plpgsql
	SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	v_mode text;
BEGIN
	SELECT j.prioritization_mode INTO v_mode FROM crawltop.jobs j
	WHERE j.id = p_job_id FOR KEY SHARE;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'job % does not exist', coalesce(p_job_id::text, 'NULL')
			USING ERRCODE = 'P0002';
	END IF;
	IF v_mode IS DISTINCT FROM p_mode THEN
		RAISE EXCEPTION 'job % is now in % mode, not %: this rescore stops (the mode change runs its own)',
			p_job_id, v_mode, crawltop.shown(p_mode) USING ERRCODE = '55000';
	END IF;
END $$;

DROP FUNCTION crawltop.rescore_fetch(bigint, text, bigint, integer);

CREATE FUNCTION crawltop.rescore_fetch(p_job_id bigint, p_mode text,
		p_after_page bigint, p_n integer, p_upto_page bigint DEFAULT NULL)
 RETURNS TABLE(task_id bigint, page_id bigint, score double precision, class smallint, base_score double precision, adjustment double precision, domain text, path text, page_score double precision, type text, depth integer, discovery_method text, ranked boolean, bias double precision, cluster_occurrences bigint, classification text, knowledge_reuse double precision, estimated_cost_ms double precision, gap_confidence double precision, gap_lift double precision, has_subscores boolean, unseen_likelihood double precision, host_novelty double precision, content_readiness double precision, link_yield double precision, source_reliability double precision, freshness double precision, quality_safety double precision, topic_boost double precision, has_signals boolean, ct_age_hours double precision, ns_changes integer, asn_changes integer, whois_age_days double precision, backlinks bigint, first_seen_host boolean, rare_tld boolean, subdomain_depth integer, parking_score double precision, document_path boolean, document_extension boolean, vendor_fingerprint boolean, source text, age_hours double precision, malware boolean, adult boolean, for_sale boolean, suspicious_tld boolean, topic_match double precision, visits bigint, last_visited bigint, last_changed bigint, topic_relevance double precision, hub_depth integer, is_hub boolean)
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
#variable_conflict use_column
DECLARE
	v_ids bigint[];
BEGIN
	IF p_n IS NULL OR p_n NOT BETWEEN 1 AND 100000 THEN
		RAISE EXCEPTION 'rescore batch size % is outside 1..100000',
			coalesce(p_n::text, 'NULL') USING ERRCODE = '22003';
	END IF;
	PERFORM crawltop.rescore_lock_job(p_job_id, p_mode);
	-- The batch: one range scan of UNIQUE (job_id, page_id), first, so
	-- that what follows reads these rows only (by primary key).
	SELECT coalesce(array_agg(b.id), '{}') INTO v_ids FROM (
		SELECT b.id FROM crawltop.tasks b
		WHERE b.job_id = p_job_id AND b.page_id > coalesce(p_after_page, 0)
		  -- one range of the index, also in a generic plan
		  AND b.page_id <= coalesce(p_upto_page, 9223372036854775807)
		  AND b.status IN ('pending', 'running')
		ORDER BY b.page_id
		LIMIT p_n) b;
	RETURN QUERY
	SELECT t.id, t.page_id, t.score, t.class::smallint,
	       t.base_score::double precision, t.adjustment::double precision,
	       d.name, p.path::text,
	       p.priority_score, t.type::text, t.depth::integer,
	       t.discovery_method::text,
	       t.ranked_at IS NOT NULL, x.*
	FROM crawltop.tasks t
	JOIN crawltop.pages p ON p.id = t.page_id
	JOIN crawltop.domains d ON d.id = p.domain_id
	CROSS JOIN LATERAL crawltop.score_input_columns(t.score_inputs) x
	WHERE t.id = ANY (v_ids)
	  AND t.status IN ('pending', 'running')
	ORDER BY t.id
	FOR NO KEY UPDATE OF t;
END $function$;

-- Operators rescore (0010's grant, for the new argument list).
REVOKE ALL ON FUNCTION crawltop.rescore_fetch(bigint, text, bigint, integer,
	bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION crawltop.rescore_fetch(bigint, text, bigint, integer,
	bigint) TO crawltop_operator;
