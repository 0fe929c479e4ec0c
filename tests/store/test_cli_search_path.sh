#!/usr/bin/env bash
# test_cli_search_path.sh CRAWLTOP: the programs' own sessions search only
# pg_catalog (then pg_temp), so that an object another role planted in
# public (writable by everyone, as in databases made before PostgreSQL 15)
# never stands in for a built-in that a statement of the console or the
# CLI calls. Each planted object records that it ran and, when a superuser
# runs it, makes its role a superuser; a superuser then opens the console
# (top -b: the same queries), ranks and explains tasks of every mode. The
# commands must work and nothing planted may run.
set -u
CT=$1
. "$(dirname "$0")/../cli/tap.sh"

psql -qAtc "CREATE DATABASE cli_path" >/dev/null
psql -qAtc "DROP ROLE IF EXISTS ct_planter; CREATE ROLE ct_planter LOGIN" >/dev/null
DSN="$CT_TEST_DSN dbname=cli_path"
export CRAWLTOP_DSN=$DSN XDG_CONFIG_HOME=/nonexistent
unset CRAWLTOP_CONFIG
"$CT" migrate >/dev/null || { echo "Bail out! migrate failed"; exit 1; }
q() { psql -qAtd cli_path -c "$1"; }

q "GRANT CREATE ON SCHEMA public TO PUBLIC;
   CREATE TABLE public.planted_ran (what text);
   GRANT INSERT ON public.planted_ran TO PUBLIC" >/dev/null

# plant NAME BODY...: as ct_planter, create a plpgsql function
# public.NAME whose body first calls trap(NAME), then returns RET.
plant_sql() { # name, args, return type, return expression
	printf '%s' "CREATE FUNCTION public.$1($2) RETURNS $3 LANGUAGE plpgsql AS \$f\$
BEGIN
	INSERT INTO public.planted_ran VALUES ('$1');
	IF current_setting('is_superuser') = 'on' THEN
		EXECUTE 'ALTER ROLE ct_planter SUPERUSER';
	END IF;
	RETURN $4;
END \$f\$"
}
planted=$(psql -qAtd cli_path -U ct_planter -v ON_ERROR_STOP=1 2>&1 <<EOF
$(plant_sql textcat_planted 'a name, b name' text 'pg_catalog.textcat(a::text, b::text)');
CREATE OPERATOR public.|| (LEFTARG = name, RIGHTARG = name,
	FUNCTION = public.textcat_planted);
$(plant_sql jsonb_build_object 'a text, b text' jsonb 'pg_catalog.jsonb_build_object(a, b)');
$(plant_sql array_agg_step 's bigint[], v bigint' 'bigint[]' 'pg_catalog.array_append(s, v)');
CREATE AGGREGATE public.array_agg(bigint) (SFUNC = public.array_agg_step,
	STYPE = bigint[]);
EOF
); rc=$?
ok_eq "the planted operator, function and aggregate are made" "$rc" 0
[ "$rc" -eq 0 ] || echo "# $planted"

# The plants would be picked: with public searched (the default path),
# each one runs in place of pg_catalog's. This is what the programs'
# statements would call without a search_path of their own.
out=$(psql -qAtd cli_path -U ct_planter -c "SELECT 'role ' || current_user;
	SELECT jsonb_build_object('url', 'x'::text);
	SELECT array_agg(x::bigint ORDER BY x) FROM generate_series(1, 2) x" 2>&1)
ok_eq "the plants would be picked from public by the default search_path" \
	"$(q "SELECT string_agg(DISTINCT what, ',' ORDER BY what) FROM public.planted_ran")" \
	"array_agg_step,jsonb_build_object,textcat_planted"
q "TRUNCATE public.planted_ran" >/dev/null

# Tasks for every path the commands take: a discovery job to rank, a
# freshness and a frontier job to explain.
"$CT" job create disc --domain d.example --mode discovery >/dev/null
"$CT" job create fresh --domain f.example --mode freshness >/dev/null
"$CT" job create front --domain x.example --mode frontier >/dev/null
for j in disc fresh front; do
	"$CT" enqueue --job "$j" --urls <(printf '/\n/a\n/b\n') >/dev/null
done

nothing_ran() { # NAME: the planted objects never ran, ct_planter is no superuser
	ok_eq "$1: no planted object ran" \
		"$(q "SELECT coalesce(string_agg(what, ','), 'none') FROM public.planted_ran")" none
	ok_eq "$1: ct_planter is no superuser" \
		"$(q "SELECT rolsuper FROM pg_roles WHERE rolname = 'ct_planter'")" f
}

out=$("$CT" top -b -n 1 2>&1); rc=$?
ok_eq "the console (top -b) as a superuser: exit 0" "$rc" 0
ok_match "the console (top -b) as a superuser: shows the jobs" "$out" 'front'
nothing_ran "the console"

out=$("$CT" rank 2>&1); rc=$?
ok_eq "rank as a superuser: exit 0" "$rc" 0
ok_match "rank as a superuser: ranks the discovery job's tasks" "$out" '3 '
nothing_ran "rank"

for j in fresh front disc; do
	out=$("$CT" explain /a --job "$j" 2>&1); rc=$?
	ok_eq "explain a $j task as a superuser: exit 0" "$rc" 0
	ok_match "explain a $j task as a superuser: shows it" "$out" 'Task: '
	nothing_ran "explain a $j task"
done

out=$("$CT" stats 2>&1); rc=$?
ok_eq "stats as a superuser: exit 0" "$rc" 0
out=$("$CT" job list 2>&1); rc=$?
ok_eq "job list as a superuser: exit 0" "$rc" 0
nothing_ran "stats and job list"
done_testing
