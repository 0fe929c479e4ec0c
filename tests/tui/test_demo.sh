#!/usr/bin/env bash
# test_demo.sh DEV BUILD: `./dev demo` in tmux, as the README's first
# command runs it, with its state in a temporary folder (CT_DEMO_STATE)
# and this build's binaries (CT_DEMO_BUILD: no packages, no build step).
# It must start its own cluster, show a live console, and stop everything
# it started however it ends: q; q with the terminal closed at once (the
# SIGHUP came while it was stopping, and the server was left running);
# the terminal closed with the console up. The second and third runs
# reuse the cluster.
set -u
DEV=$1
BUILD=$2
HERE=$(dirname "$0")
. "$HERE/../cli/tap.sh"
. "$HERE/tmux.sh"

# the cluster runs as postgres when we are root: it must reach its folder
STATE=$(mktemp -d "${TMPDIR:-/tmp}/ct-demo.XXXXXX")
chmod 755 "$STATE"

# no test cluster here: the demo makes its own, and tmux.sh passes these
# on (an empty PGPORT would stop its initdb)
PGHOST=$STATE PGPORT=5432 PGUSER=postgres PGDATABASE=postgres
# In a sanitizer build, no leak check for the demo's console here: when
# the terminal closes, the kernel sends SIGHUP and SIGCONT to a process
# group that loses its leader while one of its members is stopped, and a
# console that LeakSanitizer had stopped for its check at exit then spun
# with its tracer waiting for good (1 run in 6-8). The other console
# tests check its leaks; this one checks what the demo leaves running.
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
tm_start 100 32
trap 'tm kill-server 2>/dev/null; stop_all; rm -rf "$TM_SOCK" "$TM_HOME" "$STATE"' EXIT

# What a demo left running: its server (postgres -D STATE/demo/data) and
# its workers and console (crawltop ... host=STATE/demo).
left() { pgrep -fa -- "$STATE/demo" | grep -v pgrep || true; }
# running: 1 for a live server (the postmaster of the pid file: a process
# the server has just forked carries the postmaster's command line until
# it names itself, and the demo's autovacuum forks a worker every few
# seconds) plus the crawlers running.
running() {
	local pm
	pm=$(head -n 1 "$STATE/demo/data/postmaster.pid" 2>/dev/null)
	{
		[ -n "$pm" ] && kill -0 "$pm" 2>/dev/null && echo server
		left | grep -e 'crawltop simulate'
	} | grep -c .
}
stop_all() {
	pkill -f -- "host=$STATE/demo" 2>/dev/null
	"$HERE/../store/pg-cluster.sh" stop "$STATE/demo" >/dev/null 2>&1
	return 0
}
# ok_nothing_left NAME: within 30 s nothing of the demo runs and its lock
# and pid files are gone.
ok_nothing_left() {
	local deadline=$(($(date +%s) + 30)) l
	while :; do
		l=$(left)
		[ -z "$l" ] && [ ! -e "$STATE/demo.lock" ] && [ ! -e "$STATE/demo.pids" ] && break
		[ "$(date +%s)" -ge "$deadline" ] && break
		sleep 0.1
	done
	ok_eq "$1: nothing left running" "$l" ""
	if [ -n "$l" ]; then
		# what they were doing: process state (T: stopped) and kernel
		# wait channel, and the demo cluster's sessions and their waits
		# shellcheck disable=SC2046
		ps -o pid,ppid,pgid,stat,wchan:24,etime,args -p \
			$(printf '%s\n' "$l" | awk '{ print $1 }' | paste -sd, -) |
			sed 's/^/# ps: /'
		psql -XAt -h "$STATE/demo" -U postgres -d postgres -c "SELECT pid, \
			application_name, state, wait_event_type, wait_event, \
			now() - query_start, left(query, 100) FROM pg_stat_activity \
			WHERE backend_type = 'client backend'" 2>&1 | sed 's/^/# pg: /'
	fi
	ok_eq "$1: lock and pid files removed" \
		"$(ls "$STATE" | grep -c 'demo\.\(lock\|pids\)')" 0
}
# demo_up SESSION: a new terminal running ./dev demo; the console shows
# its five jobs, live.
demo_up() {
	TM_T=$1
	[ "$1" = ct ] || tm_session "$1" 100 32
	tm_run "CT_DEMO_STATE='$STATE' CT_DEMO_BUILD='$BUILD' '$DEV' demo; echo demo-exit=\$?"
	ok_screen "$1: the console is live" '^ crawltop +LIVE ' 60
	# the workers make their jobs as they start, maybe after the console,
	# and in no fixed order (the table lists them by id)
	local deadline=$(($(date +%s) + 30)) n j
	while :; do
		SCREEN=$(tm capture-pane -p -t "$1")
		n=0
		for j in 'postgres-manu' 'python-docs' 'postgres-fifo' 'python-stal' 'python-sig'; do
			printf '%s\n' "$SCREEN" | grep -q -- "$j" && n=$((n + 1))
		done
		[ $n = 5 ] || [ "$(date +%s)" -ge $deadline ] && break
		sleep 0.1
	done
	ok_eq "$1: the five jobs on the screen" "$n" 5
	ok_eq "$1: a server and five crawlers run" "$(running)" 6
}

# ---- every panel shows something real (issue 24, point 7) ----------------
# a stalled job is flagged once quiet for stall_after (here 5 s: its
# crawler hangs after 40 pages, about 12 s in)
mkdir -p "$TM_HOME/.config/crawltop"
printf 'stall_after = 5\n' >"$TM_HOME/.config/crawltop/console.conf"
demo_up ct
ok_screen "the crawler that hangs: its job flagged stalled" \
	'^(▶| ) +[0-9]+ python-stal[a-z.…-]* .* stalled ' 60
ok_match "... counted in the header" "$SCREEN" ' [1-9] PROBLEMS? '
# the discovery job's tasks carry raw signals and are ranked (every 10 s)
ranked=f
for _ in $(seq 60); do
	ranked=$(psql -XAt -h "$STATE/demo" -U postgres -d postgres -c "SELECT
		count(*) FILTER (WHERE t.ranked_at IS NOT NULL
			AND t.score_inputs->'signals' ? 'backlinks') > 0
		FROM crawltop.tasks t JOIN crawltop.jobs j ON j.id = t.job_id
		WHERE j.name = 'python-signals'" 2>&1)
	[ "$ranked" = t ] && break
	sleep 0.5
done
ok_eq "the discovery job's tasks: raw signals, ranked" "$ranked" t
# the heatmap: page types as columns, discovery methods as rows, and
# several cells with tasks in them
cells=$(printf '%s\n' "$SCREEN" | grep -E '^ (hub-link|link|sitemap|article…|seed) ' |
	grep -oE '[0-9]+ ' | wc -l)
ok_eq "the heatmap: three methods or more, six cells or more" \
	"$( [ "$(printf '%s\n' "$SCREEN" | grep -cE '^ (hub-link|link|sitemap|article…|seed) ')" -ge 3 ] &&
	    [ "$cells" -ge 6 ] && echo yes)" yes
ok_match "its columns are page types" "$SCREEN" '^ +page +artic… +hub '
ok_match "the depth panel: more than one depth with tasks" \
	"$(printf '%s\n' "$SCREEN" | grep -cE '^ P[0-3] .* (1|2|3\+) +[^ ]+ +[1-9][0-9]* ')" '^[2-9]$|^[1-9][0-9]+$'
tm_keys q
ok_screen "q: the demo ends with status 0" '^demo-exit=0$' 30
ok_nothing_left "q"

# ---- q, then the terminal closed at once ---------------------------------
touch "$STATE/demo/kept" # gone if the cluster were made again
demo_up second
ok_eq "second run: the cluster is reused" "$(ls "$STATE/demo/kept" 2>&1)" "$STATE/demo/kept"
tm send-keys -t second q
tm kill-session -t second
ok_nothing_left "q and the terminal closed"

# ---- the terminal closed with the console up -----------------------------
demo_up third
tm kill-session -t third
ok_nothing_left "terminal closed"

done_testing
