-- 0034_importance_default.sql: new jobs default to the importance mode
-- (issue 23).
--
-- doc/ordering.md measured every mode on six site graphs, from the
-- homepage and from the homepage and the sitemap: importance collects a
-- site's PageRank sooner than hierarchy, the default until now, on every
-- graph and seed set (by 1.0 to 16.7 points of the oracle's AUC). A job
-- created without a mode, by `crawltop job create`, `crawltop simulate`,
-- crawltop.create_job or an INSERT, is now an importance job. Jobs that
-- exist keep their mode.
--
-- crawltop.create_job's body (0002, an owner's function since 0013) is
-- kept under the name create_job_in; create_job is the same call with the
-- new default.
ALTER TABLE crawltop.jobs ALTER COLUMN prioritization_mode
	SET DEFAULT 'importance';

ALTER FUNCTION crawltop.create_job(text, text, integer, text)
	RENAME TO create_job_in;
REVOKE EXECUTE ON FUNCTION crawltop.create_job_in(text, text, integer, text)
	FROM crawltop_operator;

CREATE FUNCTION crawltop.create_job(p_name text, p_domain text,
		p_priority integer DEFAULT 5, p_mode text DEFAULT 'importance')
	RETURNS bigint LANGUAGE sql SECURITY DEFINER
	SET search_path = pg_catalog, pg_temp AS $$
	SELECT crawltop.create_job_in(p_name, p_domain, p_priority, p_mode)
$$;
REVOKE ALL ON FUNCTION crawltop.create_job(text, text, integer, text)
	FROM PUBLIC;
GRANT EXECUTE ON FUNCTION crawltop.create_job(text, text, integer, text)
	TO crawltop_operator;
