-- 0015_pinned_functions.sql: every PL/pgSQL function of the store resolves
-- names in pg_catalog (and pg_temp) only, whoever calls it.
--
-- 0013 pinned the SECURITY DEFINER functions. The others ran with their
-- caller's search_path, and the trigger functions among them run whenever
-- a role writes the table, without calling anything by name. In a
-- database where public is writable by everyone (the default before
-- PostgreSQL 15, kept by pg_upgrade), any role could create a function
-- there that matches a built-in call better than pg_catalog's own (a
-- fixed argument list beats VARIADIC "any": jsonb_build_object(text,
-- bigint, text, text, text, jsonb) beats pg_catalog's for notify_jobs's
-- call). A superuser's plain UPDATE of crawltop.jobs then ran it with
-- superuser rights. Every crawltop name in these functions is
-- schema-qualified already (the migrations run with search_path pinned
-- too), so pinning changes nothing else. The SQL functions stay unpinned:
-- the planner inlines them into the query that calls them, which a
-- pinned search_path would prevent; inside the store's functions that
-- query is pinned itself.
DO $$
DECLARE
	f regprocedure;
BEGIN
	FOR f IN
		SELECT p.oid::regprocedure
		FROM pg_catalog.pg_proc p
		JOIN pg_catalog.pg_language l ON l.oid = p.prolang
		WHERE p.pronamespace = 'crawltop'::regnamespace
		  AND l.lanname = 'plpgsql'
		  AND NOT coalesce(p.proconfig @> ARRAY['search_path=pg_catalog, pg_temp'],
				   false)
		ORDER BY p.oid
	LOOP
		EXECUTE pg_catalog.format('ALTER FUNCTION %s SET search_path = pg_catalog, pg_temp',
			f::text);
	END LOOP;
END $$;
