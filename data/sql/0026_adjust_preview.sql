-- 0026_adjust_preview.sql: how many tasks a boost or demotion would
-- change, before it is made.
--
-- crawltop.adjustable_count(p_job, p_match, p_delta, p_pattern) counts
-- the tasks crawltop.adjust_scores(p_job, p_match, p_delta, p_pattern)
-- (0004) would change now: the job's pending tasks whose path matches
-- (a prefix, or with p_pattern a whole-path pattern with '*' for any
-- run) and whose adjustment the points would move (one at the clamp
-- already is not changed, and not counted). The console asks with it
-- ("Boost 12 pending tasks of news under /blog by +20?") and says "0
-- pending tasks under /x: nothing changed" without asking. It changes
-- nothing, takes no lock, and refuses what adjust_scores refuses (the
-- match and the points, 22023 and 22003; an unknown job, P0002).
-- The match as a LIKE pattern: adjust_scores's rule, kept in one place
-- from here on (crawltop.path_like).
CREATE FUNCTION crawltop.path_like(p_match text, p_pattern boolean)
	RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp AS $$
	SELECT CASE WHEN p_pattern THEN replace(l, '*', '%') ELSE l || '%' END
	FROM (SELECT replace(replace(replace(p_match, E'\\', E'\\\\'), '%',
		E'\\%'), '_', E'\\_') AS l) x
$$;

CREATE FUNCTION crawltop.adjustable_count(p_job bigint, p_match text,
		p_delta double precision, p_pattern boolean)
	RETURNS bigint LANGUAGE plpgsql STABLE
	SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	n bigint;
BEGIN
	IF p_pattern IS NULL THEN
		RAISE EXCEPTION 'whether % is a pattern is NULL: pass true or false',
			crawltop.shown(p_match) USING ERRCODE = '22023';
	END IF;
	-- adjust_scores's rules, in its words
	IF p_pattern AND (p_match IS NULL OR left(p_match, 1) NOT IN ('/', '*')
	   OR NOT crawltop.path_ok(CASE WHEN left(p_match, 1) = '*' THEN '/'
		ELSE '' END || replace(p_match, '*', 'x'))) THEN
		RAISE EXCEPTION 'path pattern % is not a pattern of page paths',
			crawltop.shown(p_match) USING ERRCODE = '22023';
	ELSIF NOT p_pattern AND (p_match IS NULL OR left(p_match, 1) <> '/'
	   OR NOT crawltop.path_ok(p_match)) THEN
		RAISE EXCEPTION 'path prefix % is not a page path prefix',
			crawltop.shown(p_match) USING ERRCODE = '22023';
	END IF;
	IF p_delta IS NULL OR NOT (p_delta >= -100 AND p_delta <= 100) THEN
		RAISE EXCEPTION 'score change % is outside -100..100',
			coalesce(p_delta::text, 'NULL') USING ERRCODE = '22003';
	END IF;
	IF p_job IS NULL THEN -- as adjust_scores (lock_job) refuses it
		RAISE EXCEPTION 'job NULL does not exist' USING ERRCODE = 'P0002';
	END IF;
	PERFORM crawltop.check_job(p_job);
	IF p_delta = 0 THEN
		RETURN 0;
	END IF;
	SELECT count(*) INTO n
	FROM crawltop.tasks t
	JOIN crawltop.pages p ON p.id = t.page_id
	WHERE t.job_id = p_job AND t.status = 'pending'
	  AND p.path::text LIKE crawltop.path_like(p_match, p_pattern)
	  AND least(100, greatest(-100, t.adjustment + p_delta)) <> t.adjustment;
	RETURN n;
END $$;
REVOKE ALL ON FUNCTION crawltop.path_like(text, boolean),
	crawltop.adjustable_count(bigint, text, double precision, boolean)
	FROM PUBLIC;
GRANT EXECUTE ON FUNCTION crawltop.path_like(text, boolean),
	crawltop.adjustable_count(bigint, text, double precision, boolean)
	TO crawltop_viewer;
