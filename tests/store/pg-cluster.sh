#!/usr/bin/env bash
# pg-cluster.sh: a throwaway PostgreSQL 15 cluster for the store tests.
#
#   pg-cluster.sh run CMD [ARGS...]
#       initdb a fresh cluster in a new temp dir, start it, run CMD with
#       CT_TEST_DSN (and PGHOST/PGPORT/PGUSER/PGDATABASE) pointing at it,
#       then stop the server and remove the dir whatever CMD did (also on
#       failure, Ctrl-C or a meson timeout's SIGTERM). Exits with CMD's
#       status. CMD's stdout is untouched (TAP goes through); the server log
#       is copied to stderr when CMD fails.
#   pg-cluster.sh start DIR     start a cluster in the empty dir DIR and
#                               print its connection string (for manual use)
#   pg-cluster.sh stop DIR      stop it and remove DIR
#
# The server listens only on a unix socket inside the temp dir (no TCP), runs
# with fsync and synchronous_commit on, in UTF8 with the C locale (or
# $CT_PG_LOCALE, e.g. en_US.UTF-8, to run the suites as a database made with
# a language's locale would; the locale must exist). When run as
# root, the server runs as the `postgres` user (runuser), which owns the dir.
# PostgreSQL binaries: $PG_BINDIR, else /usr/lib/postgresql/15/bin, else PATH.
# CT_PG_TEMPLATE: a directory (the test suites give one in the build
# tree): the first cluster initdb's its data directory there, under a lock,
# and every cluster after it starts from a copy (cp -a, 0.1 s, where initdb
# takes 1.5 to 2 s of CPU; each test still has a cluster of its own). The
# template is made again when the server's version or the locale differs.
# CT_PG_CONF: extra server settings, ';'-separated ("shared_buffers = 2GB;
# wal_compression = lz4"), appended after the defaults (benchmarks only).
set -euo pipefail

PG_BINDIR=${PG_BINDIR:-/usr/lib/postgresql/15/bin}
[ -x "$PG_BINDIR/initdb" ] || PG_BINDIR=$(dirname "$(command -v initdb 2>/dev/null || echo /nonexistent/initdb)")
if [ ! -x "$PG_BINDIR/initdb" ]; then
	echo "pg-cluster.sh: PostgreSQL server binaries not found (install postgresql-15 or set PG_BINDIR)" >&2
	exit 77 # meson: skipped
fi

# as_pg CMD...: run CMD as the cluster's owner.
as_pg() {
	if [ "$(id -u)" -eq 0 ]; then
		runuser -u postgres -- "$@"
	else
		"$@"
	fi
}

# own DIR: a directory the cluster's owner may use.
own() {
	mkdir -p "$1"
	if [ "$(id -u)" -eq 0 ]; then chown postgres: "$1"; fi
	chmod 700 "$1"
}

# initdb_into DIR [OPTION...]: a new data directory DIR/data (log in
# DIR/initdb.log).
initdb_into() {
	local dir=$1
	shift
	as_pg "$PG_BINDIR/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 \
		--locale="${CT_PG_LOCALE:-C}" --no-instructions "$@" \
		>"$dir/initdb.log" 2>&1 || {
		cat "$dir/initdb.log" >&2
		return 1
	}
}

# template: make $CT_PG_TEMPLATE/<locale>/data once (locked: tests start
# side by side) and print that directory.
template() {
	local tpl=$CT_PG_TEMPLATE/${CT_PG_LOCALE:-C} stamp
	stamp="$("$PG_BINDIR/postgres" --version) locale=${CT_PG_LOCALE:-C} wal-segsize=1"
	mkdir -p "$CT_PG_TEMPLATE"
	(
		flock 9
		if [ "$(cat "$tpl/stamp" 2>/dev/null)" != "$stamp" ]; then
			rm -rf "$tpl" "$tpl.new"
			own "$tpl.new"
			# 1 MB WAL segments: each test's cluster, a copy of
			# the template, starts with one, not with 16 MB to
			# copy (the benchmarks initdb with the defaults)
			initdb_into "$tpl.new" --wal-segsize=1 >&2 || exit 1
			printf '%s\n' "$stamp" >"$tpl.new/stamp"
			mv "$tpl.new" "$tpl"
		fi
	) 9>"$CT_PG_TEMPLATE/lock" || return 1
	echo "$tpl"
}

# start DIR: initdb (or a copy of the template) + start; prints the DSN.
start() {
	local dir=$1 tpl
	own "$dir"
	if [ -n "${CT_PG_TEMPLATE:-}" ]; then
		tpl=$(template) && cp -a "$tpl/data" "$dir/data" || return 1
	else
		initdb_into "$dir" || return 1
	fi
	cat >>"$dir/data/postgresql.conf" <<EOF
# crawltop test cluster
listen_addresses = ''
unix_socket_directories = '$dir'
unix_socket_permissions = 0700
port = 5432
fsync = on
synchronous_commit = on
max_connections = 60
shared_buffers = 128MB
max_wal_size = 1GB
log_min_messages = warning
log_line_prefix = '%m [%p] %a '
EOF
	[ -n "${CT_PG_CONF:-}" ] && printf '%s\n' "${CT_PG_CONF//;/$'\n'}" |
		sed 's/^ *//' >>"$dir/data/postgresql.conf"
	as_pg "$PG_BINDIR/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
		start >/dev/null || {
		cat "$dir/server.log" >&2
		return 1
	}
	echo "host=$dir port=5432 user=postgres dbname=postgres"
}

# stop DIR: stop the server and remove DIR. The data goes with the
# directory, so the server stops at once (immediate: no shutdown
# checkpoint writing out every page a test dirtied, only to delete it).
stop() {
	local dir=$1
	if [ -f "$dir/data/postmaster.pid" ]; then
		as_pg "$PG_BINDIR/pg_ctl" -D "$dir/data" -m immediate -w -t 30 \
			stop >/dev/null 2>&1 || true
	fi
	rm -rf "$dir"
}

# Where a cluster's directory goes: the test suites' (a template given)
# in memory (/dev/shm) when it has 2 GB free, else $TMPDIR. The same
# server, fsync on, with its writes and fsyncs costing no journal: a test's
# server took 7 % less CPU (test concurrency: 20.6 -> 19.1 s). The
# benchmarks (no template) stay on disk, as a store would be.
cluster_base() {
	local free
	if [ -n "${CT_PG_TEMPLATE:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ]; then
		free=$(df -Pk /dev/shm 2>/dev/null | awk 'NR == 2 { print $4 }')
		if [ "${free:-0}" -ge 2097152 ]; then
			echo /dev/shm
			return
		fi
	fi
	echo "${TMPDIR:-/tmp}"
}

run() {
	local dir rc=0
	dir=$(mktemp -d "$(cluster_base)/ct-pg.XXXXXX")
	# shellcheck disable=SC2064
	trap "stop '$dir'" EXIT
	trap 'exit 143' TERM
	trap 'exit 130' INT
	local dsn
	dsn=$(start "$dir") || exit 1
	export CT_TEST_DSN=$dsn PGHOST=$dir PGPORT=5432 PGUSER=postgres \
		PGDATABASE=postgres
	# psql and pg_ctl themselves, not Debian's pg_wrapper (a Perl script
	# that chooses a version: 60 ms of CPU a call, where the tests call
	# psql thousands of times)
	export PATH="$PG_BINDIR:$PATH"
	"$@" || rc=$?
	if [ $rc -ne 0 ] && [ -f "$dir/server.log" ]; then
		echo "--- server log ($dir/server.log) ---" >&2
		tail -n 50 "$dir/server.log" >&2
	fi
	exit $rc
}

case ${1:-} in
run) shift; [ $# -ge 1 ] || { echo "usage: $0 run CMD [ARGS...]" >&2; exit 2; }; run "$@" ;;
start) [ $# -eq 2 ] || { echo "usage: $0 start DIR" >&2; exit 2; }; start "$2" ;;
stop) [ $# -eq 2 ] || { echo "usage: $0 stop DIR" >&2; exit 2; }; stop "$2" ;;
*) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
