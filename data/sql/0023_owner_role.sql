-- 0023_owner_role.sql: the store belongs to crawltop_owner, a role that
-- cannot log in, not to whoever migrated.
--
-- The owner-rights functions (0013) run with the rights of their owner.
-- Until now that was the role that ran `crawltop migrate`, often a
-- superuser, so every SECURITY DEFINER function ran as a superuser. Now
-- the schema and everything in it (tables, views, sequences, functions,
-- domains, types) belong to crawltop_owner (NOLOGIN, no superuser, no
-- CREATEROLE): it has every right on the store's own objects and nothing
-- beyond them. `crawltop migrate` still runs as a role that may create
-- objects; after each migration it calls crawltop.give_to_owner(), which
-- hands over what that migration made (src/store/migrate.c).
--
-- The role is made here when the cluster lacks it (as 0009 makes the
-- others); a migrating role that is not a superuser makes itself a member
-- (a role may give objects only to a role it is a member of).

DO $$
BEGIN
	IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'crawltop_owner') THEN
		BEGIN
			CREATE ROLE crawltop_owner NOLOGIN;
		EXCEPTION
			WHEN duplicate_object OR unique_violation THEN
				NULL; -- another database's migration created it just now
			WHEN insufficient_privilege THEN
				RAISE EXCEPTION 'role crawltop_owner does not exist and role % may not create roles',
					current_user
					USING ERRCODE = '42501',
					HINT = 'ask a superuser to run CREATE ROLE crawltop_owner NOLOGIN, then migrate again';
		END;
	END IF;
	IF NOT (SELECT r.rolsuper FROM pg_roles r WHERE r.rolname = current_user)
	   AND NOT pg_has_role(current_user, 'crawltop_owner', 'MEMBER') THEN
		EXECUTE format('GRANT crawltop_owner TO %I', current_user);
	END IF;
END $$;

-- Hands the schema and every object in it that crawltop_owner does not
-- own yet to crawltop_owner; returns how many it handed over. Indexes,
-- a table's own sequences and row types follow their table, array types
-- their element type.
CREATE FUNCTION crawltop.give_to_owner() RETURNS integer
	LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	owner constant regrole := 'crawltop_owner'::regrole;
	n integer := 0;
	r record;
BEGIN
	IF (SELECT s.nspowner FROM pg_namespace s WHERE s.nspname = 'crawltop')
	   <> owner THEN
		ALTER SCHEMA crawltop OWNER TO crawltop_owner;
		n := n + 1;
	END IF;
	FOR r IN
		SELECT CASE c.relkind WHEN 'v' THEN 'VIEW'
				      WHEN 'm' THEN 'MATERIALIZED VIEW'
				      WHEN 'S' THEN 'SEQUENCE'
				      ELSE 'TABLE' END AS kind, c.oid::regclass::text AS obj
		FROM pg_class c
		WHERE c.relnamespace = 'crawltop'::regnamespace
		  AND c.relkind IN ('r', 'p', 'v', 'm', 'S')
		  AND c.relowner <> owner
		  AND NOT (c.relkind = 'S' AND EXISTS (
			SELECT 1 FROM pg_depend d
			WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid
			  AND d.refclassid = 'pg_class'::regclass
			  AND d.deptype IN ('a', 'i')))
		UNION ALL
		SELECT CASE p.prokind WHEN 'p' THEN 'PROCEDURE'
				      WHEN 'a' THEN 'AGGREGATE'
				      ELSE 'FUNCTION' END, p.oid::regprocedure::text
		FROM pg_proc p
		WHERE p.pronamespace = 'crawltop'::regnamespace
		  AND p.proowner <> owner
		UNION ALL
		SELECT CASE t.typtype WHEN 'd' THEN 'DOMAIN' ELSE 'TYPE' END,
		       t.oid::regtype::text
		FROM pg_type t
		WHERE t.typnamespace = 'crawltop'::regnamespace
		  AND t.typowner <> owner
		  AND t.typtype IN ('d', 'e', 'r', 'c')
		  AND (t.typtype <> 'c' OR (SELECT c.relkind FROM pg_class c
					    WHERE c.oid = t.typrelid) = 'c')
	LOOP
		EXECUTE format('ALTER %s %s OWNER TO crawltop_owner', r.kind, r.obj);
		n := n + 1;
	END LOOP;
	RETURN n;
END $$;
REVOKE ALL ON FUNCTION crawltop.give_to_owner() FROM PUBLIC;
