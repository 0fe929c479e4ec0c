#!/usr/bin/env bash
# chaos.sh BUILD_DIR [--short] [SCENARIO...]: ./dev chaos, run inside
# tests/store/pg-cluster.sh (which gives CT_TEST_DSN, PGHOST, PGDATA's
# parent). Each scenario: a fresh database, N tasks in one job, W workers
# (chaos_worker: crawltop.claim_next, BATCH a call, LEASE s leases, WORK_MS
# per batch) crawling until nothing is pending or running; once a quarter
# is done the fault comes:
#   kill       SIGKILL two workers mid-lease, two new ones take their place
#   terminate  pg_terminate_backend on every worker connection, 3 times 1 s
#              apart (the workers connect again)
#   restart    pg_ctl restart -m immediate
#   xmin       a REPEATABLE READ transaction holds its snapshot for HOLD s
#              (dead rows cannot be removed meanwhile): table sizes and
#              dead rows before, at its end and after the run
#   idle       300 idle connections beside the workers for HOLD s (xmin
#              and idle: 5 N tasks in a full run, to outlast the hold)
# A console (crawltop top, in tmux when there is one) watches each
# scenario and must be live at the end. Then it checks: every task completed, none pending or running (none
# lost or stuck), the counters' completions equal to the tasks (each
# completed exactly once), every worker ended cleanly, and the completion
# rate back to at least half the rate before the fault; and prints the
# rate before, during (the fault to its recovery, at least a lease; for
# xmin and idle the hold) and after, the recovery time,
# the leases reclaimed and the reconnections. Output is TAP.
# --short (the default suite): 1,000 tasks of 20 ms, 2 s leases, a 1 s hold, two
# terminations 0.5 s apart, the fault at half
# way; the rates are printed but not checked (the suite runs tests side by
# side: a rate there says little). Environment: N, W, BATCH, LEASE,
# WORK_MS, HOLD (xmin: 5 N tasks in a full run, to outlast the hold).
set -uo pipefail
build=$(cd "$1" && pwd)
shift
short=0
if [ "${1:-}" = --short ]; then
	short=1
	shift
fi
scenarios=("$@")
[ ${#scenarios[@]} -eq 0 ] && scenarios=(kill terminate restart xmin idle)
if [ $short = 1 ]; then
	N=${N:-1000} W=${W:-4} BATCH=${BATCH:-10} LEASE=${LEASE:-2} WORK_MS=${WORK_MS:-20} HOLD=${HOLD:-1}
else
	N=${N:-20000} W=${W:-6} BATCH=${BATCH:-10} LEASE=${LEASE:-5} WORK_MS=${WORK_MS:-40} HOLD=${HOLD:-60}
fi
CT=$build/src/cli/crawltop
WORKER=$build/tests/chaos/chaos_worker
PSQL=(psql -X -q -At -v ON_ERROR_STOP=1)
tmp=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
	rm -rf "$tmp"
}
trap cleanup EXIT

as_pg() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
now_ms() { date +%s%3N; }
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../cli/tap.sh"
. "$here/../tui/tmux.sh"
ok() { # STATUS (0: passed) MESSAGE
	if [ "$1" = 0 ]; then tap_result 1 "$2"; else tap_result 0 "$2"; fi
}
# The console watches every scenario (in tmux, when there is one) and
# must be live at the end: it reconnects by itself.
console=0
if command -v tmux >/dev/null; then
	tm_start 150 40
	trap 'cleanup; tm kill-server 2>/dev/null; rm -rf "$TM_SOCK" "$TM_HOME"' EXIT
	console=1
fi

# sample FILE: "ms completed" every 250 ms until killed (every second in
# a short run, whose rates are not checked: a psql is about 80 ms of CPU
# on two cores, taken from the workers under test)
sample() {
	local every=0.25
	[ $short = 1 ] && every=1
	while :; do
		c=$("${PSQL[@]}" -d "$DSN" -c "SELECT count(*) FROM crawltop.tasks WHERE status = 'completed'" 2>/dev/null) &&
			echo "$(now_ms) $c" >>"$1"
		sleep $every
	done
}

completed() { "${PSQL[@]}" -d "$DSN" -c "SELECT count(*) FROM crawltop.tasks WHERE status = 'completed'" 2>/dev/null || echo 0; }

bloat() { # sizes of the hot tables and their dead rows
	"${PSQL[@]}" -d "$DSN" -c "SELECT string_agg(relname || ' ' ||
		pg_size_pretty(pg_total_relation_size(relid)) || ' (' || n_dead_tup || ' dead)', ', ' ORDER BY relname)
		FROM pg_stat_user_tables WHERE schemaname = 'crawltop'
		AND relname IN ('tasks', 'queue', 'leases', 'count_deltas')" 2>/dev/null
}

start_worker() { # NAME
	"$WORKER" work "$DSN" "$1" "$BATCH" "$LEASE" "$WORK_MS" >"$tmp/$1.out" 2>"$tmp/$1.err" &
	pids+=($!)
	disown $! # no "Killed" line from the shell for the kill scenario
	echo "$!" >"$tmp/$1.pid"
}

scenario() {
	local s=$1 db=chaos_$1 t0 tf te deadline
	# each scenario's database is a copy of one migrated once
	if [ -z "$(${PSQL[*]} -d postgres -c "SELECT 1 FROM pg_database WHERE datname = 'chaos_migrated'")" ]; then
		"${PSQL[@]}" -d postgres -c "CREATE DATABASE chaos_migrated"
		"$CT" migrate -d "$CT_TEST_DSN dbname=chaos_migrated" >/dev/null
	fi
	"${PSQL[@]}" -d postgres -c "DROP DATABASE IF EXISTS $db" \
		-c "CREATE DATABASE $db TEMPLATE chaos_migrated"
	DSN="$CT_TEST_DSN dbname=$db"
	"${PSQL[@]}" -d "$DSN" -c "SELECT crawltop.create_job('chaos', 'chaos.example', 5, 'hierarchy')" >/dev/null
	local n_tasks=$N at=4
	# a fault held for HOLD s: enough tasks to run on after it
	case $s in xmin | idle) [ $short = 0 ] && n_tasks=$((N * 5)) ;; esac
	# a short run: the fault at half, so that a second passes before it
	[ $short = 1 ] && at=2
	"${PSQL[@]}" -d "$DSN" -c "SELECT sum(e.inserted) FROM generate_series(0, $((n_tasks / 1000 - 1))) b,
		LATERAL crawltop.enqueue(1, ARRAY(SELECT '/d' || (g % 50) || '/p' || g
			FROM generate_series(b * 1000, b * 1000 + 999) g)) e" >/dev/null
	rm -f "$tmp"/*.out "$tmp"/*.err "$tmp"/*.pid "$tmp/samples"
	pids=()
	if [ $console = 1 ]; then
		tm_run "'$CT' top -d '$DSN' -i 1"
		tm_wait '^ crawltop +LIVE' 30 >/dev/null
	fi
	sample "$tmp/samples" &
	local sampler=$!
	t0=$(now_ms)
	for i in $(seq 1 "$W"); do start_worker "chaos-worker-$i"; done
	deadline=$((SECONDS + 60))
	while [ "$(completed)" -lt $((n_tasks / at)) ] && [ $SECONDS -lt $deadline ]; do
		if [ $short = 1 ]; then sleep 0.3; else sleep 0.1; fi
	done
	tf=$(now_ms)
	local extra="" before_bloat=""
	case $s in
	kill)
		kill -9 "$(cat "$tmp/chaos-worker-1.pid")" "$(cat "$tmp/chaos-worker-2.pid")"
		start_worker chaos-worker-k1
		start_worker chaos-worker-k2
		;;
	terminate)
		local k
		for k in $(seq 1 $((short ? 2 : 3))); do
			"${PSQL[@]}" -d postgres -c "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
				WHERE application_name LIKE 'chaos-worker%'" >/dev/null
			if [ $short = 1 ]; then sleep 0.5; else sleep 1; fi
		done
		;;
	restart)
		as_pg pg_ctl -D "$PGHOST/data" -m immediate -w -t 60 restart >/dev/null 2>&1 ||
			extra="restart failed"
		;;
	xmin)
		before_bloat=$(bloat)
		"${PSQL[@]}" -d "$DSN" -c "BEGIN ISOLATION LEVEL REPEATABLE READ;
			SELECT count(*) FROM crawltop.jobs; SELECT pg_sleep($HOLD); COMMIT" >/dev/null &
		local holder=$!
		sleep "$HOLD"
		extra="during the hold: $(bloat)"
		wait "$holder"
		;;
	idle)
		"$WORKER" idle "$DSN" 300 "$HOLD" >"$tmp/idle.out" &
		local idler=$!
		sleep "$HOLD"
		wait "$idler"
		extra="idle connections opened: $(cut -d' ' -f1 "$tmp/idle.out")"
		;;
	esac
	# every worker ends once nothing is pending or running
	deadline=$((SECONDS + (short ? 120 : 600)))
	local alive=1
	while [ $alive = 1 ] && [ $SECONDS -lt $deadline ]; do
		alive=0
		for f in "$tmp"/*.pid; do kill -0 "$(cat "$f")" 2>/dev/null && alive=1; done
		sleep 0.2
	done
	te=$(now_ms)
	sleep 0.5
	kill "$sampler" 2>/dev/null
	[ -n "${CHAOS_KEEP:-}" ] && cp "$tmp/samples" "$CHAOS_KEEP/$s.samples" && echo "$t0 $tf $te" >"$CHAOS_KEEP/$s.times"
	wait "$sampler" 2>/dev/null
	ok $((alive)) "$s: every worker ended"
	if [ $console = 1 ]; then
		ok_screen "$s: the console is live at the end (it reconnected)" '^ crawltop +LIVE' 30
		ok_screen "$s: the console shows the job" ' chaos ' 10
		tm_keys q
		tm_wait '^\$ ?$' 10 >/dev/null
	fi
	local bad
	bad=$("${PSQL[@]}" -d "$DSN" -c "SELECT count(*) FROM crawltop.tasks WHERE status <> 'completed'")
	ok $((bad != 0)) "$s: all $n_tasks tasks completed, none pending or running ($bad left)"
	local counted
	counted=$("${PSQL[@]}" -d "$DSN" -c "SELECT coalesce(sum(completions), 0) FROM crawltop.rate_ticks_now")
	ok $((counted != n_tasks)) "$s: $counted completions counted for $n_tasks tasks (each completed once)"
	local errs=0 f
	for f in "$tmp"/chaos-worker-*.err; do
		case $s in kill) [[ $f == */chaos-worker-[12].err ]] && continue ;; esac
		[ -s "$f" ] && { errs=1; sed 's/^/# /' "$f"; }
	done
	ok $errs "$s: no worker stopped on an error"
	local reclaimed reconnects
	reclaimed=$("${PSQL[@]}" -d "$DSN" -c "SELECT coalesce(sum(expiries), 0) FROM crawltop.tasks")
	reconnects=$(cat "$tmp"/chaos-worker-*.out 2>/dev/null | awk '{ r += $6 } END { print r + 0 }')
	local span=$LEASE
	case $s in xmin | idle) span=$HOLD ;; esac
	# rates in 1 s windows; recovery: the first window after the fault
	# back to half the median rate before it
	read -r before during after recovery <<<"$(awk -v t0="$t0" -v tf="$tf" -v te="$te" -v n="$n_tasks" -v span="$span" '
		{ t[NR] = $1; c[NR] = $2 }
		# the rate over the first window of at least 1 s from sample i
		function rate(i,   j) {
			for (j = i; j <= NR; j++)
				if (t[j] - t[i] >= 1000)
					return (c[j] - c[i]) * 1000 / (t[j] - t[i])
			return -1
		}
		END {
			nb = 0
			for (i = 1; i <= NR; i++)
				if (t[i] >= t0 + 500 && t[i] + 1000 <= tf && (r = rate(i)) >= 0)
					rb[++nb] = r
			for (i = 2; i <= nb; i++)	# insertion sort, for the median
				for (j = i; j > 1 && rb[j - 1] > rb[j]; j--) {
					x = rb[j]; rb[j] = rb[j - 1]; rb[j - 1] = x
				}
			med = nb ? rb[int((nb + 1) / 2)] : 0
			rec = 0
			for (i = 1; i <= NR && !rec; i++)
				if (t[i] >= tf && (c[i] >= n || rate(i) >= med / 2))
					rec = t[i]
			if (!rec) rec = te
			# during: the fault to its recovery, and at least span
			# (a lease: the abandoned leases run out meanwhile; the
			# hold of xmin and idle)
			dend = rec > tf + span * 1000 ? rec : tf + span * 1000
			cf = cd = ce = 0; td = tf; tend = dend
			for (i = 1; i <= NR; i++) {
				if (t[i] <= tf) cf = c[i]
				if (t[i] <= dend && cd < n) { cd = c[i]; td = t[i] }
				if (c[i] > ce) { ce = c[i]; tend = t[i] }
			}
			during = td > tf ? (cd - cf) * 1000 / (td - tf) : 0
			after = tend > td ? (ce - cd) * 1000 / (tend - td) : med
			printf "%.0f %.0f %.0f %.1f\n", med, during, after, (rec - tf) / 1000
		}' "$tmp/samples")"
	local back
	back=$(awk -v a="$after" -v b="$before" -v r="$recovery" -v rest="$((te - tf))" \
		'BEGIN { print (a >= b / 2 || r * 1000 >= rest - 1500) ? 0 : 1 }')
	if [ $short = 0 ]; then
		ok "$back" "$s: completion rate after the fault back to at least half of before ($after against $before tasks/s)"
	fi
	[ "$s" = xmin ] && "${PSQL[@]}" -d "$DSN" -c "VACUUM" 2>/dev/null
	echo "# $s: $n_tasks tasks, $W workers: $before tasks/s before, $during during, $after after; recovered in $recovery s; $reclaimed leases reclaimed, $reconnects reconnections${extra:+; $extra}${before_bloat:+; before the hold: $before_bloat; after the run and a VACUUM: $(bloat)}"
}

for s in "${scenarios[@]}"; do
	case $s in kill | terminate | restart | xmin | idle) scenario "$s" ;; *)
		echo "chaos.sh: unknown scenario '$s' (kill, terminate, restart, xmin, idle)" >&2
		exit 2 ;;
	esac
done
done_testing
