# seed.sh: a migrated database with three jobs and a few tasks, through
# the store's own SQL functions (sourced; needs CT and the pg-cluster.sh
# environment).
#   seed_db NAME    create database NAME, migrate it with the binary under
#                   test, create jobs alpha (priority 3, hierarchy),
#                   beta (5, fifo) and gamma (7, hierarchy), enqueue 14
#                   tasks and claim 2 of alpha's. Exits the test (bail
#                   out) when any step fails. Sets DB (NAME) and DSN
#                   (its connection string) for the test.
#   sql SQL         run SQL in $DB, print the rows unaligned
#   ok_sql NAME SQL WANT [SECS]   TAP: poll until SQL returns WANT
#   lock_rows NAME SELECT   a session (application ct_locker) runs SELECT
#                   (rows FOR UPDATE) and holds them for 60 s or until
#                   unlock; TAP: NAME once it holds them
#   unlock          end that session (its locks go)
. "$(dirname "${BASH_SOURCE[0]}")/../cli/pgq.sh"

seed_db() {
	local db=$1
	DB=$db
	DSN="$CT_TEST_DSN dbname=$db"
	psql -qAtc "CREATE DATABASE $db" >/dev/null || {
		echo "Bail out! cannot create database $db"
		exit 1
	}
	"$CT" migrate -d "$CT_TEST_DSN dbname=$db" >/dev/null || {
		echo "Bail out! crawltop migrate failed"
		exit 1
	}
	psql -qAt -v ON_ERROR_STOP=1 -d "$db" >/dev/null <<'EOF' || {
SELECT crawltop.create_job('alpha', 'alpha.example.com', 3, 'hierarchy');
SELECT crawltop.create_job('beta', 'beta.example.org', 5, 'fifo');
SELECT crawltop.create_job('gamma', 'gamma.example.net', 7, 'hierarchy');
SELECT crawltop.enqueue(1, ARRAY['/', '/about', '/blog', '/blog/a'],
	'sitemap', NULL, 0, 'page', 'sitemap');
SELECT crawltop.enqueue(1, ARRAY['/blog/b', '/blog/c', '/news/x'], 'link',
	crawltop.page_id(1, '/blog'), 2, 'article', 'link');
SELECT crawltop.enqueue(2, ARRAY['/a', '/b', '/c', '/d', '/e'], 'link',
	NULL, 1, 'article', 'link');
SELECT crawltop.enqueue(3, ARRAY['/x', '/y'], 'manual', NULL, NULL, 'hub',
	'search');
SELECT count(*) FROM crawltop.claim('w1', 2, 1, 3600);
EOF
		echo "Bail out! seeding the database failed"
		exit 1
	}
	pgq_start "$db"
}

# one psql session for the test's queries (pgq.sh)
sql() { pgq "$DB" "$1"; }

ok_sql() { # NAME SQL WANT [SECS]
	local deadline got
	ms_now
	deadline=$((NOW_MS + ${4:-10} * 1000))
	while :; do
		got=$(sql "$2" 2>&1)
		[ "$got" = "$3" ] && break
		ms_now
		[ "$NOW_MS" -ge "$deadline" ] && break
		nap
	done
	ok_eq "$1" "$got" "$3"
}

lock_rows() { # NAME SELECT
	PGAPPNAME=ct_locker psql -qAtd "$DB" -c "BEGIN" -c "$2" \
		-c "SELECT pg_sleep(60)" >/dev/null 2>&1 &
	LOCKER=$!
	ok_sql "$1" "SELECT count(*) FROM pg_stat_activity WHERE \
application_name = 'ct_locker' AND query LIKE '%pg_sleep%'" 1
}
unlock() {
	sql "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE application_name = 'ct_locker'" >/dev/null
	wait "$LOCKER" 2>/dev/null
}
