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
#   scores JOB       the job's tasks as "path score Pclass; ..."
#   stored_settings DIR   a configuration file and a stored settings
#                    version that score differently; sets CONF and SV
#   ok_rescore_agrees JOB   pass when rescoring JOB in its own mode (set-mode,
#                    with CONF) changes no task: its scores are SV's
CT=${CT:?set CT to the crawltop binary}
. "$(dirname "${BASH_SOURCE[0]}")/../cli/pgq.sh"

db_setup() {
	DB=$1
	psql -qAtc "CREATE DATABASE $DB" >/dev/null
	DSN="$CT_TEST_DSN dbname=$DB"
	"$CT" migrate -d "$DSN" >/dev/null || { echo "Bail out! migrate failed"; exit 1; }
	pgq_start "$DB"
}

run() {
	OUT=$("$CT" "$@" 2>&1)
	RC=$?
}

q() { # one psql session for the test's queries (pgq.sh)
	pgq "$DB" "$1"
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

scores() { # JOB: its tasks in path order, scores to 4 places
	q "SELECT string_agg(p.path || ' ' || round(t.score::numeric, 4) || ' P' || t.class, '; ' ORDER BY p.path)
	   FROM crawltop.tasks t JOIN crawltop.pages p ON p.id = t.page_id
	   WHERE t.job_id = (SELECT id FROM crawltop.jobs WHERE name = '$1')"
}

# The configuration file DIR/file.conf (CONF) and a new stored settings
# version (SV) that differ in what scores a task known only by its path;
# set-mode, enqueue and simulate must score with SV, never with CONF:
#                              CONF  SV   (defaults)
#   frontier.types.default      20    0   (12)
#   freshness.never              0   30   (15)
#   classes.p1                  60   45   (60)
#   classes.p2                  40   35   (40)
# A task of no type and no bias has frontier priority p = the default
# weight + depth, - 10 when found in a sitemap, and scores
# 50 x 25 / (p + 25) for p >= 0, 100 - 50 x 25 / (25 - p) below:
#   --urls line (p = weight)    CONF 27.7778   SV 50.0000 P1
#   sitemap (p = weight - 10)   CONF 35.7143   SV 64.2857 P1
# A page never visited scores 50 + never + round(0.5 x 15) in freshness:
#                               CONF 58        SV 88 P0
# An unranked discovery task is stored at the P2 bound: CONF 40, SV 35 P2.
# (The store classes a score with SV's bounds whoever computed it.)
stored_settings() { # DIR
	CONF=$1/file.conf
	printf '%s\n' 'frontier = { types = { default = 20.0; }; };' \
		'freshness = { never = 0.0; };' >"$CONF"
	"$CT" settings set frontier.types.default 0 freshness.never 30 \
		classes.p1 45 classes.p2 35 >/dev/null || { echo "Bail out! settings set failed"; exit 1; }
	SV=$(q "SELECT max(version) FROM crawltop.settings")
}

ok_rescore_agrees() { # JOB
	local before mode
	before=$(scores "$1")
	mode=$(q "SELECT prioritization_mode FROM crawltop.jobs WHERE name = '$1'")
	CRAWLTOP_CONFIG=$CONF run job set-mode "$1" "$mode"
	ok_match "$1: a rescore with settings v$SV changes no task" "$OUT" \
		"mode $mode -> $mode; [0-9]+ unfinished tasks? rescored with settings v$SV, 0 changed\$"
	ok_eq "$1: the rescore leaves every score and class as it was" \
		"$(scores "$1")" "$before"
}
