# lib.sh: helpers of the store command tests (sourced; tap.sh first).
# Each script runs under tests/store/pg-cluster.sh, which exports PGHOST,
# PGUSER and CT_TEST_DSN for a throwaway cluster.
#   db_setup NAME    create database NAME, migrate it with the real binary;
#                    sets DB and DSN
#   run ARGS...      run crawltop ARGS; sets OUT (stdout and stderr) and RC
#   state            a digest of every row the commands may change: jobs,
#                    tasks, pages, domains, audit_log, settings
#   ok_unchanged NAME BEFORE   pass when state equals BEFORE
#   q SQL            one value from the database
CT=${CT:?set CT to the crawltop binary}

db_setup() {
	DB=$1
	psql -qAtc "CREATE DATABASE $DB" >/dev/null
	DSN="$CT_TEST_DSN dbname=$DB"
	"$CT" migrate -d "$DSN" >/dev/null || { echo "Bail out! migrate failed"; exit 1; }
}

run() {
	OUT=$("$CT" "$@" 2>&1)
	RC=$?
}

q() {
	psql -qAtd "$DB" -c "$1"
}

state() {
	q "SELECT concat_ws(' ',
		(SELECT md5(coalesce(string_agg(j::text, ',' ORDER BY j.id), '')) FROM crawltop.jobs j),
		(SELECT md5(coalesce(string_agg(t::text, ',' ORDER BY t.id), '')) FROM crawltop.tasks t),
		(SELECT md5(coalesce(string_agg(p::text, ',' ORDER BY p.id), '')) FROM crawltop.pages p),
		(SELECT count(*) FROM crawltop.domains),
		(SELECT count(*) FROM crawltop.audit_log),
		(SELECT count(*) FROM crawltop.settings))"
}

ok_unchanged() {
	ok_eq "$1: database unchanged" "$(state)" "$2"
}

# A sitemaps.org <urlset> of N URLs https://HOST/s-K/p-I.html (I = FROM
# .. FROM + N - 1) on stdout.
urlset() { # N HOST [FROM]
	awk -v n="$1" -v h="$2" -v f="${3:-1}" 'BEGIN {
		print "<?xml version=\"1.0\" encoding=\"UTF-8\"?>"
		print "<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">"
		for (i = f; i < f + n; i++)
			printf "  <url><loc>https://%s/s-%d/p-%d.html</loc><lastmod>2024-06-01</lastmod></url>\n", h, i % 100, i
		print "</urlset>"
	}'
}
