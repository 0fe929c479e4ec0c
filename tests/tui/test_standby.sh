#!/usr/bin/env bash
# test_standby.sh CRAWLTOP: the read path on a read-only replica
# (doc/scaling.md). A hot standby of the cluster pg-cluster.sh started is
# made with pg_basebackup; `top -b`, `stats`, `job list`, `explain` and the
# console read from it, follow the primary's changes without LISTEN (a
# standby refuses it), and every change is refused with a clear error.
set -u
[ -n "${CT_TRACE:-}" ] && set -x
CT=$1
HERE=$(dirname "$0")
. "$HERE/../cli/tap.sh"
. "$HERE/seed.sh"
. "$HERE/tmux.sh"

PG_BINDIR=${PG_BINDIR:-/usr/lib/postgresql/15/bin}
as_pg() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

seed_db tui_standby
PRIMARY="$CT_TEST_DSN dbname=$DB"

# The standby: a base backup with standby.signal (-R), its own socket dir
# and port, stopped and removed on exit whatever happens.
SB=$(mktemp -d "${TMPDIR:-/tmp}/ct-standby.XXXXXX")
[ "$(id -u)" -eq 0 ] && chown postgres: "$SB" && chmod 700 "$SB"
stop_standby() {
	as_pg "$PG_BINDIR/pg_ctl" -D "$SB/data" -m immediate -w stop >/dev/null 2>&1
	rm -rf "$SB"
}
trap stop_standby EXIT
as_pg "$PG_BINDIR/pg_basebackup" -h "$PGHOST" -p "${PGPORT:-5432}" -U postgres \
	-D "$SB/data" -R -X stream -c fast >"$SB/backup.log" 2>&1 || {
	cat "$SB/backup.log" >&2
	echo "Bail out! pg_basebackup failed"
	exit 1
}
cat >>"$SB/data/postgresql.conf" <<EOF
unix_socket_directories = '$SB'
port = 5433
hot_standby = on
EOF
as_pg "$PG_BINDIR/pg_ctl" -D "$SB/data" -l "$SB/server.log" -w -t 60 start \
	>/dev/null || { cat "$SB/server.log" >&2; echo "Bail out! standby did not start"; exit 1; }
STANDBY="host=$SB port=5433 user=postgres dbname=$DB"
sq() { psql -qAt -d "$STANDBY" -c "$1"; }

ok_eq "the replica is a hot standby" "$(sq 'SELECT pg_is_in_recovery()')" t

# replay_caught_up: the standby has replayed everything the primary wrote.
replay_caught_up() {
	local lsn i
	lsn=$(psql -qAt -d "$PRIMARY" -c 'SELECT pg_current_wal_lsn()')
	for i in $(seq 1 200); do
		[ "$(sq "SELECT pg_last_wal_replay_lsn() >= '$lsn'")" = t ] && return 0
		sleep 0.05
	done
	return 1
}

# Batch snapshots and statistics: the same figures as on the primary.
strip() { sed -E 's/^crawltop [0-9-]+ [0-9:]+ .*$/HEADER/; s/ +[0-9.]+ ms//g; s/waited [0-9]+s/waited Ns/'; }
p_out=$("$CT" top -b -n 1 -d "$PRIMARY" 2>&1)
out=$("$CT" top -b -n 1 -d "$STANDBY" 2>&1); rc=$?
ok_eq "top -b on the standby: exit 0" "$rc" 0
ok_match "top -b on the standby: LIVE" "$out" "^crawltop .*:5433/$DB  LIVE "
ok_eq "top -b: the standby shows what the primary shows" \
	"$(printf '%s\n' "$out" | strip)" "$(printf '%s\n' "$p_out" | strip)"

out=$("$CT" top -b -n 1 --json -d "$STANDBY" 2>&1); rc=$?
ok_eq "top -b --json on the standby: exit 0" "$rc" 0
ok_match "top --json: totals from the counters" "$out" '"pending":12'

p_out=$("$CT" stats --json -d "$PRIMARY" 2>&1)
out=$("$CT" stats --json -d "$STANDBY" 2>&1); rc=$?
ok_eq "stats --json on the standby: exit 0" "$rc" 0
ok_eq "stats --json: same as on the primary" "$out" "$p_out"

out=$("$CT" job list -d "$STANDBY" 2>&1); rc=$?
ok_eq "job list on the standby: exit 0" "$rc" 0
ok_match "job list: three jobs" "$(printf '%s\n' "$out" | grep -cE '^ +[0-9]+  (alpha|beta|gamma) ')" '^3$'

out=$("$CT" explain https://alpha.example.com/blog --job alpha -d "$STANDBY" 2>&1); rc=$?
ok_eq "explain on the standby: exit 0" "$rc" 0
ok_match "explain: the task and its queue position" "$out" '^Queue: +[0-9]+ pending tasks ahead'

# Changes are refused, clearly, and nothing changes.
before=$(psql -qAt -d "$PRIMARY" -c "SELECT priority FROM crawltop.jobs WHERE name = 'alpha'")
out=$("$CT" job set-priority alpha 2 -d "$STANDBY" 2>&1); rc=$?
ok_eq "set-priority on the standby: refused (exit 1)" "$rc" 1
ok_match "set-priority: says the server is a read-only standby" "$out" \
	'read-only standby; changes go to the primary \(SQLSTATE 25006\)'
ok_eq "set-priority: the job is unchanged" \
	"$(psql -qAt -d "$PRIMARY" -c "SELECT priority FROM crawltop.jobs WHERE name = 'alpha'")" "$before"

# The console on the standby: live, marked standby, changes greyed out
# with the reason, and the primary's changes show up without LISTEN.
tm_start 120 32
trap 'tm kill-server 2>/dev/null; rm -rf "$TM_SOCK" "$TM_HOME"; stop_standby' EXIT
tm_run "$CT -i 0.5 -d '$STANDBY'; echo exit=\$?"
ok_screen "console on the standby: LIVE" ' LIVE .*standby ' 15 || screen_diag
ok_screen "console: job alpha at priority 3" 'alpha\.example\.com +hierarchy +3 ' 5 || screen_diag
tm_keys ']'
ok_screen "console: a change is refused with the reason" 'read-only standby' 5 || screen_diag
"$CT" job set-priority alpha 4 -d "$PRIMARY" >/dev/null 2>&1
replay_caught_up
ok_eq "the change reached the standby" \
	"$(sq "SELECT priority FROM crawltop.jobs WHERE name = 'alpha'")" 4
ok_screen "console: the primary's change shows up (polled, no LISTEN)" \
	'alpha\.example\.com +hierarchy +4 ' 10 || screen_diag
ok_eq "the standby log has no LISTEN error" \
	"$(grep -c 'LISTEN' "$SB/server.log")" 0
tm_keys q
ok_screen "console: quits to the shell" '^\$ ?$' 5 || screen_diag
ok_match "console: exit status 0" "$SCREEN" '^exit=0$'

done_testing
