-- 0032_seed_first.sql: a page a job is seeded with comes first.
--
-- The engine's frontier model (frontier.h) gives a page found by the
-- discovery method "seed" (the pages a crawl starts from: a crawler
-- passes p_discovery_method 'seed' to crawltop.enqueue) the lowest
-- priority there is, score 100: no sitemap page or
-- bonus puts a page before it. Before, in frontier mode with a sitemap,
-- '/' was fetched after the whole sitemap (the sitemap bonus outranked
-- the seed; issue 23). frontier_provisional, the engine's frontier score
-- for a crawler that gives none (0017), does the same: the model's body
-- is kept under the name frontier_model, and frontier_provisional puts
-- a seed first before asking it.
ALTER FUNCTION crawltop.frontier_provisional(jsonb, text, integer, text, text)
	RENAME TO frontier_model;

CREATE FUNCTION crawltop.frontier_provisional(f jsonb, p_type text,
		p_depth integer, p_method text, p_path text)
	RETURNS double precision LANGUAGE sql IMMUTABLE
	SET search_path = pg_catalog, pg_temp AS $$
	SELECT CASE WHEN p_method = 'seed' THEN 100::double precision
		    ELSE crawltop.frontier_model(f, p_type, p_depth, p_method,
						 p_path) END
$$;
REVOKE ALL ON FUNCTION crawltop.frontier_provisional(jsonb, text, integer,
	text, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION crawltop.frontier_provisional(jsonb, text, integer,
	text, text) TO crawltop_viewer, crawltop_operator, crawltop_worker;
