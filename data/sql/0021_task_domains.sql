-- 0021_task_domains.sql: the single-column checks of tasks as domains.
--
-- PostgreSQL reads and prepares every CHECK constraint of a table again
-- for each statement that writes it: for the one-row UPDATEs of a claim
-- and a completion, 18 expressions parsed from text and compiled for one
-- row (with all of them dropped, a test, the same claim + complete pairs
-- ran 1,260 -> 1,575 a second on one connection). A domain's check runs
-- only where a value is written to the column, and its compiled form is
-- cached per session. So the 13 checks of one column each become domains
-- (the same rules, the same SQLSTATE 23514 when broken); the 5 checks
-- that the hot path's columns take part in stay table checks: status, the
-- lease pair (tasks_lease_only_running, tasks_running_has_lease), the
-- derived score and the ranking pair.
--
-- The column types change (ALTER TABLE rewrites tasks once: its pages get
-- 0020's fillfactor too). Functions that return these columns through
-- RETURN QUERY, which wants the declared types exactly, cast them to the
-- base type: claim and next_tasks (0020), rank_lock and rescore_fetch
-- (restated below).

CREATE DOMAIN crawltop.task_points AS double precision
	CHECK (VALUE >= -100 AND VALUE <= 100);
CREATE DOMAIN crawltop.task_score AS double precision
	CHECK (VALUE >= 0 AND VALUE <= 100);
CREATE DOMAIN crawltop.task_class AS smallint CHECK (VALUE BETWEEN 0 AND 3);
CREATE DOMAIN crawltop.task_step AS smallint CHECK (VALUE BETWEEN 0 AND 100);
CREATE DOMAIN crawltop.task_count AS smallint CHECK (VALUE >= 0);
CREATE DOMAIN crawltop.task_depth AS integer CHECK (VALUE >= 0);
CREATE DOMAIN crawltop.task_token AS text
	CHECK (VALUE ~ '^[A-Za-z0-9_-]{1,32}$');
CREATE DOMAIN crawltop.task_job_priority AS smallint
	CHECK (VALUE BETWEEN 1 AND 10 OR VALUE BETWEEN 101 AND 110);
CREATE DOMAIN crawltop.task_signals AS jsonb
	CHECK (jsonb_typeof(VALUE) = 'object');
CREATE DOMAIN crawltop.task_source AS text
	CHECK (VALUE IN ('sitemap', 'link', 'manual', 'other'));

ALTER TABLE crawltop.tasks
	DROP CONSTRAINT tasks_adjustment_check,
	DROP CONSTRAINT tasks_backoff_step_check,
	DROP CONSTRAINT tasks_base_score_check,
	DROP CONSTRAINT tasks_class_check,
	DROP CONSTRAINT tasks_depth_check,
	DROP CONSTRAINT tasks_discovery_method_check,
	DROP CONSTRAINT tasks_discovery_score_check,
	DROP CONSTRAINT tasks_job_priority_check,
	DROP CONSTRAINT tasks_priority_class_check,
	DROP CONSTRAINT tasks_retry_count_check,
	DROP CONSTRAINT tasks_signals_check,
	DROP CONSTRAINT tasks_source_type_check,
	DROP CONSTRAINT tasks_type_check,
	ALTER COLUMN adjustment TYPE crawltop.task_points,
	ALTER COLUMN backoff_step TYPE crawltop.task_step,
	ALTER COLUMN base_score TYPE crawltop.task_score,
	ALTER COLUMN class TYPE crawltop.task_class,
	ALTER COLUMN depth TYPE crawltop.task_depth,
	ALTER COLUMN discovery_method TYPE crawltop.task_token,
	ALTER COLUMN discovery_score TYPE crawltop.task_score,
	ALTER COLUMN job_priority TYPE crawltop.task_job_priority,
	ALTER COLUMN priority_class TYPE crawltop.task_class,
	ALTER COLUMN retry_count TYPE crawltop.task_count,
	ALTER COLUMN signals TYPE crawltop.task_signals,
	ALTER COLUMN source_type TYPE crawltop.task_source,
	ALTER COLUMN type TYPE crawltop.task_token;

-- 0016's rank_lock and 0006's rescore_fetch (as later migrations left them: owner's rights, pinned search_path), their domain columns cast
CREATE OR REPLACE FUNCTION crawltop.rank_lock(p_jobs bigint[], p_after bigint, p_upto bigint, p_n integer)
 RETURNS TABLE(task_id bigint, backoff_step smallint, score_inputs jsonb, prev_class smallint, ranked boolean, due boolean, prev_result text, prev_ns_asn text)
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'pg_temp'
 SET extra_float_digits TO '3'
AS $function$
BEGIN
	IF p_n IS NULL OR p_n NOT BETWEEN 1 AND 100000 THEN
		RAISE EXCEPTION 'ranking batch of % tasks is outside 1..100000',
			coalesce(p_n::text, 'NULL') USING ERRCODE = '22003';
	END IF;
	RETURN QUERY
	SELECT t.id, t.backoff_step::smallint, t.score_inputs::jsonb,
	       t.priority_class::smallint,
	       t.ranked_at IS NOT NULL,
	       t.next_check_at IS NULL OR t.next_check_at <= now(),
	       t.discovery_score::text || ' ' ||
	       (t.signals->>'unseen_likelihood') || ' ' ||
	       (t.signals->>'host_novelty') || ' ' ||
	       (t.signals->>'content_readiness') || ' ' ||
	       (t.signals->>'link_yield') || ' ' ||
	       (t.signals->>'source_reliability') || ' ' ||
	       (t.signals->>'freshness') || ' ' ||
	       (t.signals->>'quality_safety') || ' ' ||
	       (t.signals->>'topic_boost'),
	       t.signals->>'ns_asn_changes'
	FROM crawltop.tasks t
	WHERE t.job_id = ANY (ARRAY(SELECT j.id FROM crawltop.jobs j
				    WHERE j.id = ANY (p_jobs)
				      AND j.prioritization_mode = 'discovery'))
	  AND t.id > p_after AND t.id <= p_upto
	  AND t.status IN ('pending', 'running')
	ORDER BY t.id LIMIT p_n
	FOR NO KEY UPDATE OF t;
END $function$;

CREATE OR REPLACE FUNCTION crawltop.rescore_fetch(p_job_id bigint, p_mode text, p_after_page bigint, p_n integer)
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
