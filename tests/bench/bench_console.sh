#!/usr/bin/env bash
# bench_console.sh BUILD_DIR: ./dev bench console (issue 4 point 7).
#
# A throwaway PostgreSQL 15 cluster (tests/store/pg-cluster.sh) with
# 1,000,000 pending tasks in one frontier job (two set-based INSERTs, the
# live counters kept by their statement triggers) and a simulated crawl
# running (`crawltop simulate` over the PostgreSQL manual's link graph:
# 4 workers claiming, fetching for 250 ms, completing). Then the console
# itself, in tmux at 100x30 with a 1 s refresh:
#   cpu      its own CPU over 60 s, from /proc/PID/stat (utime + stime),
#            as a share of one core (target <= 2 %)
#   rss      VmRSS at the end and VmHWM (peak) from /proc/PID/status
#            (target <= 20 MB)
#   db       its database time per refresh: the header's "db N ms" read
#            every 2 s meanwhile, and `crawltop top -b --json` (db_ms, and
#            db_ms_by_query) over 30 refreshes afterwards; then the same
#            queries timed on the server alone, in one warm session
#            (target < 5 ms)
#   keys     key-to-screen latency while a query is stuck (crawltop.jobs
#            held by an ACCESS EXCLUSIVE lock, so the refresh waits): 20
#            keys sent with tmux; CRAWLTOP_KEYLOG gives, per key, when the
#            console read it and when the frame answering it was flushed;
#            medians in process and end to end from send-keys
#            (target < 50 ms)
# Environment: TASKS (1000000), SECONDS_CPU (60), SIM_LATENCY_MS (250).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
build=$(cd "$1" && pwd)
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
if [ -z "${CT_TEST_DSN:-}" ]; then
	exec "$ROOT/tests/store/pg-cluster.sh" run "$0" "$build"
fi
CT=$build/src/cli/crawltop
TASKS=${TASKS:-1000000}
SECS=${SECONDS_CPU:-60}
DB=bench
DSN="$CT_TEST_DSN dbname=$DB"
export CRAWLTOP_SQL_DIR=$ROOT/data/sql
tmp=$(mktemp -d)
SOCK=$tmp/tmux
tm() { tmux -S "$SOCK" "$@"; }
SIM=
cleanup() {
	[ -n "$SIM" ] && kill -INT "$SIM" 2>/dev/null && { wait "$SIM" 2>/dev/null || true; }
	tm kill-server 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT
log() { printf '== %s\n' "$*" >&2; }
now() { date +%s.%N; }

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1-3 /proc/loadavg)"
psql -qAtc "CREATE DATABASE $DB" >/dev/null
"$CT" migrate -d "$DSN" >/dev/null

log "$TASKS tasks (set-based INSERT)"
t0=$(now)
psql -qAt -v ON_ERROR_STOP=1 -d "$DB" >/dev/null <<EOF
SELECT crawltop.create_job('bulk', 'bulk.example.com', 5, 'frontier');
INSERT INTO crawltop.pages (domain_id, path)
SELECT j.domain_id, '/p/' || i FROM crawltop.jobs j, generate_series(1, $TASKS) i
WHERE j.name = 'bulk';
INSERT INTO crawltop.tasks (job_id, page_id, job_priority, score, base_score,
	class, source_type, depth, type, discovery_method)
SELECT j.id, p.id, j.priority, s.score, s.score,
       crawltop.class_of(s.score, 80, 60, 40),
       'link', (p.id % 6)::integer,
       (ARRAY['article', 'nav', 'hub-seed', 'refresh', 'history'])[1 + p.id % 5],
       (ARRAY['link', 'sitemap', 'hub-validated'])[1 + p.id % 3]
FROM crawltop.jobs j JOIN crawltop.pages p ON p.domain_id = j.domain_id
CROSS JOIN LATERAL (SELECT ((hashint8(p.id) % 10000 + 10000) % 10000) / 100.0
	AS score) s
WHERE j.name = 'bulk';
UPDATE crawltop.jobs SET total_pages = $TASKS WHERE name = 'bulk';
VACUUM ANALYZE crawltop.tasks;
VACUUM ANALYZE crawltop.pages;
EOF
printf 'data: %s pending tasks in %.0f s\n' \
	"$(psql -qAtd "$DB" -c "SELECT count(*) FROM crawltop.tasks WHERE status = 'pending'")" \
	"$(since "$t0")"

log "simulated crawl"
"$CT" simulate -d "$DSN" --graph "$ROOT/data/sites/postgresql-15.tsv" \
	--sitemap "$ROOT/data/sites/postgresql-15.sitemap" --job sim \
	--workers 4 --latency-ms "${SIM_LATENCY_MS:-250}" -q >"$tmp/sim.log" 2>&1 &
SIM=$!
sleep 3

# console NAME [ENV...]: the console in its own tmux session, 100x30
# (its statements may wait 30 s: the key test holds a lock that long)
console() {
	local name=$1
	shift
	tm -f /dev/null new-session -d -x 100 -y 30 -s "$name" \
		"env -i PATH='$PATH' HOME='$tmp' TERM=screen-256color LANG=C.UTF-8 $* \
		'$CT' -d '$DSN' -i 1 --timeout 30000"
	tm set-option -g status off >/dev/null
	local deadline=$((SECONDS + 20))
	until tm capture-pane -p -t "$name" | grep -q '^ crawltop  LIVE'; do
		[ $SECONDS -ge $deadline ] && { echo "console $name not LIVE" >&2; tm capture-pane -p -t "$name" >&2; exit 1; }
		sleep 0.1
	done
}
ticks() { # PID: utime + stime in clock ticks
	sed 's/.*) //' "/proc/$1/stat" | awk '{print $12 + $13}'
}

log "console CPU, RSS and db time over $SECS s"
console cpu
pid=$(tm display -p -t cpu '#{pane_pid}')
sleep 5 # past the first refreshes (connect, plans)
c0=$(ticks "$pid")
t0=$(now)
: >"$tmp/dbms"
end=$((SECONDS + SECS))
while [ $SECONDS -lt $end ]; do
	tm capture-pane -p -t cpu | sed -n '1s/.* db \([0-9]*\) ms.*/\1/p' >>"$tmp/dbms"
	sleep 2
done
c1=$(ticks "$pid")
t1=$(now)
grep -E 'VmRSS|VmHWM' "/proc/$pid/status" | tr -s ' ' >"$tmp/mem"
tm capture-pane -p -t cpu >"$tmp/screen"
simrunning=$(kill -0 "$SIM" 2>/dev/null && echo yes || echo "no (it ended early)")
tm send-keys -t cpu q

log "db time per refresh, batch --json"
"$CT" top -b --json -i 1 -n 31 -d "$DSN" >"$tmp/json"

log "server-side time of the refresh's queries (one warm session)"
psql -qAtd "$DB" -F ' ' >"$tmp/server" <<'EOF'
CREATE FUNCTION pg_temp.ms(q text, n integer) RETURNS SETOF double precision
	LANGUAGE plpgsql AS $f$
DECLARE
	t0 timestamptz;
BEGIN
	FOR i IN 0 .. n LOOP
		t0 := clock_timestamp();
		EXECUTE q;
		CONTINUE WHEN i = 0; -- the first run warms the plan caches
		RETURN NEXT extract(epoch FROM clock_timestamp() - t0) * 1000;
	END LOOP;
END $f$;
SELECT q, percentile_cont(0.5) WITHIN GROUP (ORDER BY m)
FROM (VALUES (1, 'jobs', 'SELECT * FROM crawltop.dashboard_jobs()'),
	(2, 'cells', 'SELECT * FROM crawltop.dashboard_cells(NULL)'),
	(3, 'rate', 'SELECT * FROM crawltop.rate_series(NULL, 300)'),
	(4, 'next', 'SELECT * FROM crawltop.next_tasks(NULL, 20)'),
	(5, 'audit', 'SELECT * FROM crawltop.audit_log ORDER BY id DESC LIMIT 64'))
	AS v (o, q, sql)
CROSS JOIN LATERAL pg_temp.ms(v.sql, 10) AS m
GROUP BY v.o, v.q ORDER BY v.o;
EOF
echo "load at the end of the measurements: $(cut -d' ' -f1-3 /proc/loadavg)" >"$tmp/load"

log "key-to-screen latency while a query waits on a lock"
console keys "CRAWLTOP_KEYLOG='$tmp/keylog'"
PGAPPNAME=bench_locker psql -qAtd "$DB" -c "BEGIN" \
	-c "LOCK TABLE crawltop.jobs IN ACCESS EXCLUSIVE MODE" \
	-c "SELECT pg_sleep(60)" >/dev/null 2>&1 &
locker=$!
deadline=$((SECONDS + 15))
until [ "$(psql -qAtd "$DB" -c "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'crawltop' AND wait_event_type = 'Lock' AND query LIKE '%dashboard_jobs%'")" -ge 1 ]; do
	[ $SECONDS -ge $deadline ] && { echo "the console's refresh never waited on the lock" >&2; exit 1; }
	sleep 0.1
done
: >"$tmp/keylog"
: >"$tmp/sent"
for i in $(seq 1 20); do
	k=j
	[ $((i % 2)) -eq 0 ] && k=k
	echo "$EPOCHREALTIME" >>"$tmp/sent" # no fork: bash's own clock
	tm send-keys -t keys "$k"
	sleep 0.25
done
sleep 0.5
waiting=$(psql -qAtd "$DB" -c "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'crawltop' AND wait_event_type = 'Lock' AND query LIKE '%dashboard_jobs%'")
psql -qAtd "$DB" -c "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE application_name = 'bench_locker'" >/dev/null
wait "$locker" 2>/dev/null || true
tm send-keys -t keys q

python3 - "$tmp" "$c0" "$c1" "$t0" "$t1" "$(getconf CLK_TCK)" "$simrunning" "$waiting" <<'PY'
import json, statistics as st, sys
d, c0, c1, t0, t1, hz = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5]), int(sys.argv[6])
simrunning, waiting = sys.argv[7], sys.argv[8]
cpu = (c1 - c0) / hz / (t1 - t0) * 100
mem = dict(l.split(':') for l in open(f"{d}/mem").read().splitlines())
kb = lambda k: int(mem[k].split()[0])
hdr = [int(x) for x in open(f"{d}/dbms").read().split() if x.strip()]
snaps = [json.loads(l) for l in open(f"{d}/json") if l.startswith("{")][1:]
js = [o["db_ms"] for o in snaps]
byq = {q: st.median(o["db_ms_by_query"][q] for o in snaps) for q in snaps[0]["db_ms_by_query"]}
keys = [l.split() for l in open(f"{d}/keylog").read().splitlines()]
sent = [float(x) for x in open(f"{d}/sent").read().split()]
inproc = [(float(k[2]) - float(k[1])) * 1e3 for k in keys]
deliver = [(float(k[3]) - s) * 1e3 for k, s in zip(keys, sent)]
e2e = [(float(k[4]) - s) * 1e3 for k, s in zip(keys, sent)]
fmt = lambda v: ", ".join(f"{x:.1f}" for x in v)
print(f"simulated crawl still running at the end of the window: {simrunning}")
print(f"console CPU at a 1 s refresh over {t1 - t0:.0f} s: {cpu:.2f} % of one core (target <= 2 %)")
print(f"console RSS: VmRSS {kb('VmRSS') / 1024:.1f} MB, VmHWM {kb('VmHWM') / 1024:.1f} MB (target <= 20 MB)")
print(f"db time per refresh, header 'db N ms' every 2 s: median {st.median(hdr):.0f} ms, mean {st.mean(hdr):.1f} ms, max {max(hdr)} ms (n={len(hdr)})")
print(f"db time per refresh, top -b --json db_ms: median {st.median(js):.2f} ms, mean {st.mean(js):.2f} ms, max {max(js):.2f} ms (n={len(js)}) (target < 5 ms)")
print("  median per query, as the console measures it (send -> result): " + ", ".join(f"{q} {v:.2f} ms" for q, v in byq.items()))
ex = [l.split() for l in open(f"{d}/server") if l.strip()]
print("  median per query, server side (plan + run in one warm session, n=10): "
      + ", ".join(f"{q} {float(v):.2f} ms" for q, v in ex)
      + f"; sum {sum(float(v) for q, v in ex):.2f} ms")
print("  " + open(f"{d}/load").read().strip())
print(f"key-to-screen during a stuck refresh (console's refresh still waiting on the lock after the keys: {'yes' if waiting != '0' else 'no'}): "
      f"median {st.median(inproc):.2f} ms in the console (key read -> frame flushed), max {max(inproc):.2f} ms (n={len(keys)}) (target < 50 ms); "
      f"end to end from the start of tmux send-keys: median {st.median(e2e):.1f} ms, "
      f"of which the delivery through tmux (send-keys started -> key read) median {st.median(deliver):.1f} ms")
print(f"  in the console: {fmt(inproc)}")
print(f"  delivery:       {fmt(deliver)}")
print(f"  end to end:     {fmt(e2e)}")
PY
echo "-- the console's screen at the end of the CPU window:"
cat "$tmp/screen"
