#!/usr/bin/env bash
# test_cli_migrate.sh CRAWLTOP: `crawltop migrate` against the cluster that
# pg-cluster.sh started (PGHOST etc. are set; CT_TEST_DSN names it).
# Migrate twice (the second is a no-op), -d and $CRAWLTOP_DSN, a newer
# database refused with exit 1 and a clear message, a usage error exit 2.
set -u
CT=$1
. "$(dirname "$0")/../cli/tap.sh"

psql -qAtc "CREATE DATABASE cli_mig" >/dev/null
DSN="$CT_TEST_DSN dbname=cli_mig"

# before migrate: the commands say what to do
for cmd in "job list" "stats" "settings get"; do
	out=$("$CT" $cmd -d "$DSN" 2>&1); rc=$?
	ok_eq "$cmd before migrate: exit 1" "$rc" 1
	ok_match "$cmd before migrate: says to migrate" "$out" \
		'does not exist: is the database migrated\? run crawltop migrate'
done

# a first migration that fails leaves a new database as it was: no
# schema crawltop, no version table (both came from the bootstrap)
bad=$(mktemp -d "${TMPDIR:-/tmp}/ct-mig.XXXXXX")
printf 'CREATE TABLE crawltop.t (a int);\nSELECT 1/0;\n' >"$bad/0001_broken.sql"
out=$("$CT" migrate -d "$DSN" --sql-dir "$bad" 2>&1); rc=$?
rm -rf "$bad"
ok_eq "failed first migration: exit 1" "$rc" 1
ok_match "failed first migration: names it" "$out" 'migration 0001_broken.sql: division by zero'
ok_eq "failed first migration: database unchanged" \
	"$(psql -qAtd cli_mig -c "SELECT count(*) FROM pg_namespace WHERE nspname = 'crawltop'")" 0

out=$("$CT" migrate -d "$DSN" 2>&1); rc=$?
ok_eq "first migrate exits 0" "$rc" 0
ok_match "first migrate reports what it did" "$out" \
	'^schema crawltop migrated from version 0 to [0-9]+ \([0-9]+ migrations applied\)$'
known=$(psql -qAtd cli_mig -c "SELECT max(version) FROM crawltop.schema_version")

out=$(CRAWLTOP_DSN="$DSN" "$CT" migrate 2>&1); rc=$?
ok_eq "second migrate (DSN from CRAWLTOP_DSN) exits 0" "$rc" 0
ok_eq "second migrate is a no-op" "$out" "schema crawltop is up to date at version $known"

psql -qAtd cli_mig -c "INSERT INTO crawltop.schema_version (version, name) VALUES ($known + 1, 'x.sql')" >/dev/null
out=$("$CT" migrate -d "$DSN" 2>&1); rc=$?
ok_eq "newer database: exit 1" "$rc" 1
ok_match "newer database: clear message" "$out" \
	"^crawltop migrate: the database schema is at version $((known + 1)), newer than this crawltop knows \($known"

# a function planted in public (writable for everyone, as in databases
# made before PostgreSQL 15) that shadows a built-in the migrations call:
# format(text, regprocedure) matches 0013's format('... %s', f) better
# than pg_catalog.format(text, VARIADIC "any"). Migrating as a superuser
# must not run it.
psql -qAtc "CREATE DATABASE cli_plant" >/dev/null
psql -qAtc "DROP ROLE IF EXISTS ct_planter; CREATE ROLE ct_planter LOGIN" >/dev/null
psql -qAtd cli_plant -c "GRANT CREATE ON SCHEMA public TO PUBLIC" >/dev/null
psql -qAtd cli_plant -U ct_planter -c 'CREATE FUNCTION public.format(fmt text, f regprocedure) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	IF current_setting($q$is_superuser$q$) = $q$on$q$ THEN
		EXECUTE $q$ALTER ROLE ct_planter SUPERUSER$q$;
	END IF;
	RETURN pg_catalog.format(fmt, f);
END $$' >/dev/null
out=$("$CT" migrate -d "$CT_TEST_DSN dbname=cli_plant" 2>&1); rc=$?
ok_eq "a planted public.format: migrate exits 0" "$rc" 0
ok_eq "a planted public.format: never run (its role is no superuser)" \
	"$(psql -qAtc "SELECT rolsuper FROM pg_roles WHERE rolname = 'ct_planter'")" f

# the same database, after migrating: a function planted where a trigger
# function calls a built-in. jsonb_build_object(text, bigint, text, text,
# text, jsonb) matches notify_jobs's call better than pg_catalog's
# VARIADIC one; a superuser's plain UPDATE of crawltop.jobs, with the
# default search_path, fires notify_jobs and must not run it (0015)
psql -qAtd cli_plant -U ct_planter -c 'CREATE FUNCTION public.jsonb_build_object(a text, b bigint, c text, d text, e text, f jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
BEGIN
	IF current_setting($q$is_superuser$q$) = $q$on$q$ THEN
		EXECUTE $q$ALTER ROLE ct_planter SUPERUSER$q$;
	END IF;
	RETURN pg_catalog.jsonb_build_object(a, b, c, d, e, f);
END $$' >/dev/null
out=$(psql -qAtd cli_plant -c "SELECT crawltop.create_job('plant', 'plant.example', 5, 'fifo')" 2>&1); rc=$?
ok_eq "a planted public.jsonb_build_object: a job made" "$rc" 0
out=$(psql -qAtd cli_plant -c "SET search_path = \"\$user\", public; UPDATE crawltop.jobs SET priority = 4 WHERE name = 'plant'" 2>&1); rc=$?
ok_eq "a planted public.jsonb_build_object: a superuser's UPDATE of jobs goes through" "$rc" 0
ok_eq "a planted public.jsonb_build_object: never run by the trigger (its role is no superuser)" \
	"$(psql -qAtc "SELECT rolsuper FROM pg_roles WHERE rolname = 'ct_planter'")" f

# the domains' checks run inlined into whoever writes the column: a
# superuser writing a page with public searched first must not run a
# planted public.octet_length(text) (path_ok names pg_catalog's)
psql -qAtd cli_plant -U ct_planter -c 'CREATE FUNCTION public.octet_length(t text) RETURNS integer LANGUAGE plpgsql AS $$
BEGIN
	IF current_setting($q$is_superuser$q$) = $q$on$q$ THEN
		EXECUTE $q$ALTER ROLE ct_planter SUPERUSER$q$;
	END IF;
	RETURN pg_catalog.octet_length(t);
END $$' >/dev/null
out=$(psql -qAtd cli_plant -c "SET search_path = public, pg_catalog; INSERT INTO crawltop.pages (domain_id, path) SELECT id, '/planted' FROM crawltop.domains LIMIT 1; INSERT INTO crawltop.tasks (job_id, page_id, job_priority, score, base_score, class, source_type, source_url) SELECT j.id, p.id, 5, 0, 0, 3, 'link', 'https://plant.example/a' FROM crawltop.jobs j, crawltop.pages p WHERE p.path = '/planted' LIMIT 1" 2>&1); rc=$?
ok_eq "a planted public.octet_length: a superuser's page and task go in" "$rc" 0
ok_eq "a planted public.octet_length: never run by the domains' checks" \
	"$(psql -qAtc "SELECT rolsuper FROM pg_roles WHERE rolname = 'ct_planter'")" f

# a schema crawltop that an ordinary role made is not taken over
psql -qAtc "CREATE DATABASE cli_adopt" >/dev/null
psql -qAtc "DROP ROLE IF EXISTS ct_squatter; CREATE ROLE ct_squatter LOGIN" >/dev/null
psql -qAtd cli_adopt -c "GRANT CREATE ON DATABASE cli_adopt TO ct_squatter" >/dev/null
psql -qAtd cli_adopt -U ct_squatter -c "CREATE SCHEMA crawltop" >/dev/null
out=$("$CT" migrate -d "$CT_TEST_DSN dbname=cli_adopt" 2>&1); rc=$?
ok_eq "a schema crawltop of another role: exit 1" "$rc" 1
ok_match "a schema crawltop of another role: names the owner" "$out" \
	'schema crawltop already exists and belongs to role "ct_squatter", neither the role migrating nor a superuser'
ok_eq "a schema crawltop of another role: nothing made in it" \
	"$(psql -qAtd cli_adopt -c "SELECT count(*) FROM pg_class WHERE relnamespace = 'crawltop'::regnamespace")" 0

# a database made before 0016 whose settings name map entries 0016 no
# longer takes ("blog post", a terminal escape, an alias to a bonus taken
# out): migrating takes them out in a new version that names them, and
# every program reads the settings again
psql -qAtc "CREATE DATABASE cli_names" >/dev/null
old=$(mktemp -d "${TMPDIR:-/tmp}/ct-mig.XXXXXX")
for f in "$CRAWLTOP_SQL_DIR"/00*.sql; do
	n=$(basename "$f"); [ "${n%%_*}" -le 15 ] && cp "$f" "$old/"
done
ND="$CT_TEST_DSN dbname=cli_names"
"$CT" migrate -d "$ND" --sql-dir "$old" >/dev/null
rm -rf "$old"
psql -qAtd cli_names -c "SELECT crawltop.settings_put(jsonb_set(jsonb_set(jsonb_set(value,
	'{frontier,types}', value #> '{frontier,types}' || jsonb_build_object('blog post', 3, 'blog', 4)),
	'{frontier,bonuses}', value #> '{frontier,bonuses}' || jsonb_build_object(E'x\x1b]0;t\x07', 2)),
	'{frontier,aliases}', value #> '{frontier,aliases}' || jsonb_build_object('feed', E'x\x1b]0;t\x07')),
	version) FROM crawltop.settings ORDER BY version DESC LIMIT 1" >/dev/null
v15=$(psql -qAtd cli_names -c "SELECT max(version) FROM crawltop.settings")
out=$("$CT" migrate -d "$ND" 2>&1); rc=$?
ok_eq "names 0016 refuses: migrate exits 0" "$rc" 0
ok_eq "names 0016 refuses: a new version without them, the rest kept" \
	"$(psql -qAtd cli_names -c "SELECT (value #> '{frontier,types}') ? 'blog post', (value #> '{frontier,types,blog}')::text, (value #> '{frontier,aliases}') ? 'feed', version > $v15 FROM crawltop.settings ORDER BY version DESC LIMIT 1")" \
	"f|4|f|t"
ok_match "names 0016 refuses: the new version's note names them" \
	"$(psql -qAtd cli_names -c "SELECT note FROM crawltop.settings ORDER BY version DESC LIMIT 1")" \
	'taken out: frontier.types."blog post", frontier.bonuses."x\\u001b\]0;t\\u0007", frontier.aliases."feed"'
ok_eq "names 0016 refuses: an audit row" \
	"$(psql -qAtd cli_names -c "SELECT action || ' ' || rows_affected FROM crawltop.audit_log ORDER BY id DESC LIMIT 1")" \
	"settings.update 3"
out=$("$CT" settings get frontier.types.blog -d "$ND" 2>&1); rc=$?
ok_eq "names 0016 refuses: the settings read again" "$rc $out" "0 frontier.types.blog = 4"

out=$("$CT" migrate -d "host=/nonexistent dbname=x" 2>&1); rc=$?
ok_eq "unreachable server: exit 1" "$rc" 1
ok_match "unreachable server: says so" "$out" '^crawltop migrate: connect: '

out=$("$CT" migrate extra 2>&1); rc=$?
ok_eq "stray argument: exit 2" "$rc" 2
done_testing
