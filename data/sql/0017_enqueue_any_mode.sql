-- 0017_enqueue_any_mode.sql: a job's mode may change under its crawlers.
--
-- A crawler enqueues the links it finds with the scores of the mode it
-- knew: none for fifo and hierarchy (the store computes those), one per
-- path for frontier, discovery and freshness (the engine computes those).
-- An operator who switched a fifo job to frontier made its crawlers'
-- next enqueue fail ("pass one score (0..100) per path"), and one who
-- switched a frontier job to hierarchy made it fail the other way ("the
-- store computes its scores, pass none"): the crawlers stopped. Now
-- crawltop.enqueue takes either in any mode:
--   * fifo, hierarchy: scores given are not used (the store's own rule
--     scores the tasks, as for a crawler that gave none);
--   * frontier, discovery, freshness: without scores, each task takes the
--     score the engine gives for what the store knows of it, computed
--     here in SQL (crawltop.provisional_scores): the task's type, depth
--     and discovery method (frontier), a page never visited (freshness),
--     an unranked URL (discovery: the P2 bound); a task of this job
--     that has score inputs or a ranking is not raised by it (its own
--     score stands). A rescore of the job
--     (set-mode, the console's apply) computes the same score until score
--     inputs are stored for the task (set_score_inputs), so the task is
--     scored from the moment it is queued; tests/cli_store/test_modes.sh
--     holds the two to one score.
-- The checks and the writing stay in 0002's function, renamed
-- crawltop.enqueue_batch and now for the store's own use.

ALTER FUNCTION crawltop.enqueue(bigint, text[], text, bigint, integer, text,
	text, text, double precision[]) RENAME TO enqueue_batch;
REVOKE EXECUTE ON FUNCTION crawltop.enqueue_batch(bigint, text[], text,
	bigint, integer, text, text, text, double precision[])
	FROM crawltop_worker;

-- C's round(): half away from zero, exactly, for any double (PostgreSQL's
-- round(double precision) rounds half to even).
CREATE FUNCTION crawltop.round_half_away(x double precision)
	RETURNS double precision LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
	SELECT CASE WHEN abs(x - trunc(x)) >= 0.5 THEN trunc(x) + sign(x)
		    ELSE trunc(x) END
$$;

-- The engine's frontier score (src/engine/frontier.c, ct_frontier_score,
-- and ct_score_from_frontier) of a task with type p_type, depth p_depth
-- (NULL: 0) and discovery method p_method on path p_path, with no bias
-- and no score inputs (no gap prediction, cluster, knowledge reuse or
-- cost), under frontier settings f (the engine's defaults with the
-- current version laid over them, maps merged entry by entry, as the C
-- reader does): the same operations in the same order, so the same
-- double. Total prioritisation classifies the lower-cased ASCII words
-- (runs of A-Z a-z 0-9, under 32 characters) of the type, the method and
-- the path up to '?': a country token makes it country, else a related
-- token country-related, else other.
CREATE FUNCTION crawltop.frontier_provisional(f jsonb, p_type text,
		p_depth integer, p_method text, p_path text)
	RETURNS double precision LANGUAGE plpgsql IMMUTABLE
	SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	tw double precision := coalesce(
		CASE WHEN p_type <> '' THEN (f->'types'->>p_type)::double precision END,
		(f->'types'->>'default')::double precision);
	p double precision;
	b double precision := 0;
	canon text;
	tp jsonb := f->'total_prioritisation';
	cls text;
BEGIN
	p := (tw + coalesce(p_depth, 0)::double precision + 0::double precision)
		* (f->'weights'->>'base')::double precision;
	IF p_method <> '' THEN
		canon := coalesce(f->'aliases'->>p_method, p_method);
		b := coalesce((f->'bonuses'->>canon)::double precision, 0);
	END IF;
	IF b > 0 THEN
		p := p - b;
	END IF;
	IF (tp->>'enabled')::boolean THEN
		SELECT CASE WHEN bool_or(w IN (SELECT jsonb_array_elements_text(tp->'country_tokens')))
			    THEN 'country'
			    WHEN bool_or(w IN (SELECT jsonb_array_elements_text(tp->'related_tokens')))
			    THEN 'country_related'
			    ELSE 'other' END
		INTO cls
		FROM regexp_split_to_table(translate(
			coalesce(p_type, '') || ' ' || coalesce(p_method, '') || ' '
			|| split_part(coalesce(p_path, ''), '?', 1),
			'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz'),
			'[^a-z0-9]+') AS w
		WHERE length(w) BETWEEN 1 AND 31;
		p := p + (tp->>coalesce(cls, 'other'))::double precision;
	END IF;
	IF p >= 0 THEN
		RETURN 50.0::double precision * 25 / (p + 25);
	END IF;
	RETURN 100.0::double precision - 50.0::double precision * 25 / (25 - p);
END $$;

-- The scores tasks of a job in mode p_mode take when their crawler gives
-- none, one per path of p_paths (above); NULL for fifo, hierarchy and
-- importance, whose enqueue needs none.
CREATE FUNCTION crawltop.provisional_scores(p_mode text, p_paths text[],
		p_type text, p_depth integer, p_method text)
	RETURNS double precision[] LANGUAGE plpgsql STABLE
	SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	f jsonb;
	fr jsonb;
	v double precision;
BEGIN
	IF p_mode = 'frontier' THEN
		f := crawltop.jsonb_merge(crawltop.settings_defaults()->'frontier',
			coalesce((SELECT s.value->'frontier' FROM crawltop.settings s
				  ORDER BY s.version DESC LIMIT 1), '{}'));
		IF (f->'total_prioritisation'->>'enabled')::boolean THEN
			RETURN ARRAY(SELECT crawltop.frontier_provisional(f, p_type,
					p_depth, p_method, u.p)
				     FROM unnest(p_paths) WITH ORDINALITY AS u(p, i)
				     ORDER BY u.i);
		END IF;
		v := crawltop.frontier_provisional(f, p_type, p_depth, p_method, '/');
	ELSIF p_mode = 'freshness' THEN
		-- never visited; relevance 0.5, hub depth 0, no hub (seed 004's
		-- defaults): base + never + round(0.5 x topic_max), in 0..100
		fr := crawltop.setting('{freshness}');
		v := least(100, greatest(0, (fr->>'base')::double precision
			+ (fr->>'never')::double precision
			+ crawltop.round_half_away(0.5 * (fr->>'topic_max')::double precision)));
	ELSIF p_mode = 'discovery' THEN
		-- unranked: stored at the P2 bound until a ranking run (0006)
		v := (crawltop.setting('{classes}')->>'p2')::double precision;
	ELSE
		RETURN NULL;
	END IF;
	RETURN array_fill(v, ARRAY[cardinality(p_paths)]);
END $$;

-- crawltop.enqueue, for crawlers: 0002's arguments and result. The job's
-- row is locked first (as enqueue_batch locks it), so its mode cannot
-- change between the scores chosen here and the tasks written.
CREATE FUNCTION crawltop.enqueue(
		p_job_id bigint,
		p_paths text[],
		p_source_type text DEFAULT 'link',
		p_source_page_id bigint DEFAULT NULL,
		p_depth integer DEFAULT NULL,
		p_type text DEFAULT NULL,
		p_discovery_method text DEFAULT NULL,
		p_source_url text DEFAULT NULL,
		p_scores double precision[] DEFAULT NULL,
		OUT inserted integer, OUT raised integer)
	LANGUAGE plpgsql SECURITY DEFINER
	SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	v_mode text;
	v_scores double precision[] := p_scores;
BEGIN
	SELECT j.prioritization_mode INTO v_mode FROM crawltop.jobs j
	WHERE j.id = p_job_id FOR NO KEY UPDATE;
	IF v_mode IN ('fifo', 'hierarchy') THEN
		v_scores := NULL;
	ELSIF v_mode IN ('frontier', 'discovery', 'freshness') AND p_scores IS NULL
	      AND coalesce(array_ndims(p_paths), 1) = 1
	      AND cardinality(p_paths) <= 100000 THEN
		-- a page whose task in this job has score inputs or a ranking
		-- gets 0, which raises nothing: the engine's score of that task
		-- is not the one for what this call says of it
		SELECT array_agg(CASE WHEN EXISTS (SELECT 1 FROM crawltop.pages pg
				JOIN crawltop.tasks t ON t.page_id = pg.id
				 AND t.job_id = p_job_id
				WHERE pg.domain_id = (SELECT j.domain_id FROM
					crawltop.jobs j WHERE j.id = p_job_id)
				  AND pg.path = u.p
				  AND (t.score_inputs IS NOT NULL
				       OR t.ranked_at IS NOT NULL))
			THEN 0 ELSE u.s END ORDER BY u.i)
		INTO v_scores
		FROM unnest(p_paths, crawltop.provisional_scores(v_mode, p_paths,
			p_type, p_depth, p_discovery_method))
			WITH ORDINALITY AS u(p, s, i);
		v_scores := coalesce(v_scores, '{}');
	END IF;
	SELECT e.inserted, e.raised INTO inserted, raised
	FROM crawltop.enqueue_batch(p_job_id, p_paths, p_source_type,
		p_source_page_id, p_depth, p_type, p_discovery_method,
		p_source_url, v_scores) e;
END $$;

REVOKE ALL ON FUNCTION crawltop.enqueue(bigint, text[], text, bigint, integer,
	text, text, text, double precision[]) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION crawltop.enqueue(bigint, text[], text, bigint,
	integer, text, text, text, double precision[]) TO crawltop_worker;
DO $$
DECLARE
	f regprocedure;
BEGIN
	FOREACH f IN ARRAY ARRAY[
		'crawltop.round_half_away(double precision)',
		'crawltop.frontier_provisional(jsonb, text, integer, text, text)',
		'crawltop.provisional_scores(text, text[], text, integer, text)'
	]::regprocedure[] LOOP
		EXECUTE format('REVOKE ALL ON FUNCTION %s FROM PUBLIC', f);
		EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO crawltop_viewer, '
			'crawltop_operator, crawltop_worker', f);
	END LOOP;
END $$;
