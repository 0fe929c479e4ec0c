#!/usr/bin/env bash
# bench_store.sh BUILD_DIR: ./dev bench store.
# Starts its own PostgreSQL 15 cluster (tests/store/pg-cluster.sh: fsync
# and synchronous_commit on, durable commits), migrates, loads 1,000,000
# pending tasks across 10 jobs, and measures (median of 3, each figure
# beside its baseline measured in the same run):
#   claim+complete, one task and 100 tasks per transaction, 1/4/16
#   connections, for FIFO, crawltop.claim (SPEC.md's order) and seed 000's
#   view; enqueue (batches of 1,000) beside seed 000's per-row trigger;
#   counter reads beside GROUP BY at 1M and BIG_TASKS (default 10M) tasks;
#   claim throughput with the counter triggers on and off.
# Environment: SECS (seconds per measurement, default 5), BIG_TASKS
# (default 10000000; 0 skips the big load), REPS (default 3), PARTS (the
# sections to run, default "claims counters enqueue reads"), POINTS (claim
# points as BATCH:CONNS, default "1:1 1:4 1:16 100:1 100:4 100:16"), ORDERS
# (default "fifo prio view"; also fifo_lite), CT_PG_CONF (extra server settings, see
# tests/store/pg-cluster.sh).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
build=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
if [ "${2:-}" != --inner ]; then
	exec "$root/tests/store/pg-cluster.sh" run "$0" "$build" --inner
fi

SECS=${SECS:-5}
REPS=${REPS:-3}
PARTS=" ${PARTS:-claims counters enqueue reads} "
POINTS=${POINTS:-1:1 1:4 1:16 100:1 100:4 100:16}
ORDERS=${ORDERS:-fifo prio view}
part() { [[ $PARTS == *" $1 "* ]]; }
BIG=${BIG_TASKS:-10000000}
TASKS=${TASKS:-1000000}
B=$build/tests/bench/bench_store
DSN=$CT_TEST_DSN
PSQL=(psql -X -q -At -v ON_ERROR_STOP=1 -d "$DSN")
sql() { "${PSQL[@]}" -c "$1"; }
med() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "load at start: $(uptime | sed 's/.*load average/load average/')"
echo "server: $(sql 'SHOW server_version'), fsync=$(sql 'SHOW fsync'), synchronous_commit=$(sql 'SHOW synchronous_commit'), shared_buffers=$(sql 'SHOW shared_buffers'), huge_pages=$(sql 'SHOW huge_pages') (kernel: $(kernel_huge_pages)), wal_compression=$(sql 'SHOW wal_compression'), max_wal_size=$(sql 'SHOW max_wal_size'); $SECS s per measurement, median of $REPS"
"$build/src/cli/crawltop" migrate -d "$DSN" >/dev/null

# ---- data ----------------------------------------------------------------
# 10 jobs (frontier mode: scores spread over 0..100), priorities 1..10.
sql "SELECT crawltop.create_job('b' || g, 'b' || g || '.example', g, 'frontier')
     FROM generate_series(1, 10) g" >/dev/null

# load N: N pending tasks (N/10 per job) with their pages, set-based, the
# counter triggers off during the insert, then the counters rebuilt.
load() {
	local n=$1 t0
	t0=$(date +%s.%N)
	"${PSQL[@]}" <<SQL
ALTER TABLE crawltop.tasks DISABLE TRIGGER tasks_count_insert;
INSERT INTO crawltop.pages (domain_id, path)
SELECT j.domain_id, '/p/' || g FROM crawltop.jobs j,
	generate_series((SELECT count(*) FROM crawltop.pages WHERE domain_id = j.domain_id) + 1,
			(SELECT count(*) FROM crawltop.pages WHERE domain_id = j.domain_id) + $n / 10) g
WHERE j.name ~ '^b[0-9]+\$';
INSERT INTO crawltop.tasks (job_id, page_id, job_priority, score, base_score,
	class, source_type, depth, type, discovery_method)
SELECT j.id, p.id, j.priority, (p.id * 7919 % 10000) / 100.0,
	(p.id * 7919 % 10000) / 100.0,
	crawltop.class_of((p.id * 7919 % 10000) / 100.0, 80, 60, 40),
	'link', (p.id % 5)::integer, CASE WHEN p.id % 3 = 0 THEN 'article' ELSE 'nav' END,
	CASE WHEN p.id % 2 = 0 THEN 'link' ELSE 'sitemap' END
FROM crawltop.jobs j JOIN crawltop.pages p ON p.domain_id = j.domain_id
WHERE j.name ~ '^b[0-9]+\$'
  AND NOT EXISTS (SELECT 1 FROM crawltop.tasks t WHERE t.job_id = j.id AND t.page_id = p.id)
ORDER BY p.id;
ALTER TABLE crawltop.tasks ENABLE TRIGGER tasks_count_insert;
UPDATE crawltop.jobs j SET total_pages = (SELECT count(*) FROM crawltop.tasks t WHERE t.job_id = j.id);
SELECT crawltop.rebuild_counts() \\g /dev/null
VACUUM ANALYZE crawltop.pages;
VACUUM ANALYZE crawltop.tasks;
SQL
	echo "loaded to $(sql 'SELECT count(*) FROM crawltop.tasks') tasks in $(since "$t0") s" >&2
}

# reset: every task pending again (counter triggers off; a repair
# afterwards where counts matter), vacuumed, so each measurement starts
# from the same 1,000,000 pending tasks.
reset() {
	"${PSQL[@]}" <<'SQL' >/dev/null
ALTER TABLE crawltop.tasks DISABLE TRIGGER tasks_count_update;
UPDATE crawltop.tasks SET status = 'pending', lease_owner = NULL,
	lease_expires_at = NULL, started_at = NULL, completed_at = NULL,
	retry_count = 0
WHERE status <> 'pending';
ALTER TABLE crawltop.tasks ENABLE TRIGGER tasks_count_update;
DELETE FROM crawltop.rate_ticks;
VACUUM crawltop.tasks;
SQL
}

load "${TASKS:-1000000}" 2>&1
echo "pending: $(sql "SELECT count(*) FROM crawltop.tasks WHERE status = 'pending'")"

# ---- the three claim orders ---------------------------------------------
# FIFO: crawltop.claim itself, generated from its definition with only the
# main path's ORDER BY changed to created_at (over an index of the queue of its
# own): the same reaper, settings read, starvation guard, lease, UPDATE and
# joins, so that FIFO and priority differ by the order alone. fifo_lite is
# the lighter hand-written FIFO claim of earlier runs (reap, ids into an
# array under FOR UPDATE SKIP LOCKED, one UPDATE, page and domain joined;
# no settings read, no guard), kept for comparison with them.
"${PSQL[@]}" <<'SQL'
CREATE SCHEMA bench;
CREATE INDEX tasks_fifo ON crawltop.tasks (created_at) WHERE status = 'pending';
CREATE INDEX queue_fifo ON crawltop.queue (created_at);
DO $do$
DECLARE
	d text := pg_get_functiondef(
		'crawltop.claim(text, integer, bigint, double precision)'::regprocedure);
	spec constant text := 'ORDER BY q.job_priority, q.score DESC, q.created_at, q.task_id';
BEGIN
	IF d NOT LIKE '%' || spec || '%' THEN
		RAISE EXCEPTION 'crawltop.claim no longer orders by "%"', spec;
	END IF;
	d := replace(d, 'FUNCTION crawltop.claim(', 'FUNCTION bench.claim_fifo(');
	EXECUTE replace(d, spec, 'ORDER BY q.created_at');
END $do$;
CREATE FUNCTION bench.claim_fifo_lite(p_worker text, p_n integer)
	RETURNS TABLE (task_id bigint, domain text, path text) LANGUAGE plpgsql
	SET plan_cache_mode = force_generic_plan AS $$
#variable_conflict use_column
DECLARE v_ids bigint[];
BEGIN
	PERFORM crawltop.check_worker(p_worker);
	PERFORM crawltop.reap_expired(100);
	SELECT coalesce(array_agg(c.id), '{}') INTO v_ids FROM (
		SELECT t.id FROM crawltop.tasks t WHERE t.status = 'pending'
		ORDER BY t.created_at LIMIT p_n FOR UPDATE SKIP LOCKED) c;
	RETURN QUERY
	WITH u AS (
		UPDATE crawltop.tasks t SET status = 'running', lease_owner = p_worker,
			lease_expires_at = now() + interval '30 seconds', started_at = now()
		WHERE t.id = ANY (v_ids) AND t.status = 'pending' RETURNING t.*)
	SELECT u.id, d.name, p.path::text FROM u
	JOIN crawltop.pages p ON p.id = u.page_id
	JOIN crawltop.domains d ON d.id = p.domain_id;
END $$;
-- Seed 000's view, as designed (its CTE with DISTINCT over jobs).
CREATE VIEW bench.prioritized_pending_tasks AS
WITH job_config AS (
	SELECT DISTINCT j.id AS job_id, j.prioritization_mode, j.total_pages
	FROM crawltop.jobs j)
SELECT t.id, t.job_id, t.page_id, p.path, t.created_at, t.retry_count,
       t.source_type, t.source_url,
       CASE WHEN jc.prioritization_mode = 'fifo' THEN 0
	    ELSE coalesce(p.priority_score, 0.000) END AS effective_priority
FROM crawltop.tasks t
JOIN crawltop.pages p ON t.page_id = p.id
JOIN job_config jc ON t.job_id = jc.job_id
WHERE t.status = 'pending';
SQL
echo "== seed 000's view claim as designed:"
if out=$(sql "SELECT id FROM bench.prioritized_pending_tasks
	ORDER BY effective_priority DESC, created_at ASC LIMIT 1 FOR UPDATE SKIP LOCKED" 2>&1); then
	echo "   accepted by PostgreSQL"
else
	echo "   refused by PostgreSQL: $(echo "$out" | head -1)"
fi
# The claim through the view as designed (FOR UPDATE SKIP LOCKED on the
# view, which PostgreSQL accepts: it locks the rows of every base table),
# ordered by the computed priority; claimed and completed like the others.
"${PSQL[@]}" <<'SQL'
CREATE FUNCTION bench.claim_view(p_worker text, p_n integer)
	RETURNS TABLE (task_id bigint) LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE v_ids bigint[];
BEGIN
	PERFORM crawltop.reap_expired(100);
	SELECT coalesce(array_agg(c.id), '{}') INTO v_ids FROM (
		SELECT v.id FROM bench.prioritized_pending_tasks v
		ORDER BY v.effective_priority DESC, v.created_at ASC
		LIMIT p_n FOR UPDATE SKIP LOCKED) c;
	RETURN QUERY
	UPDATE crawltop.tasks t SET status = 'running', lease_owner = p_worker,
		lease_expires_at = now() + interval '30 seconds', started_at = now()
	WHERE t.id = ANY (v_ids) AND t.status = 'pending' RETURNING t.id;
END $$;
SQL

cc() { # ORDER N: one statement (one transaction) that claims N and completes them
	local f
	case $1 in
	fifo) f="bench.claim_fifo(\$1, $2)" ;;
	fifo_lite) f="bench.claim_fifo_lite(\$1, $2)" ;;
	prio) f="crawltop.claim(\$1, $2)" ;;
	view) f="bench.claim_view(\$1, $2)" ;;
	esac
	echo "SELECT count(*) FROM crawltop.complete(\$1, ARRAY(SELECT task_id FROM $f))"
}

declare -A R
if part claims; then
echo "== claim+complete (tasks/s, median of $REPS; each point: the orders back to back)"
for rep in $(seq 1 "$REPS"); do
	for pt in $POINTS; do
		n=${pt%:*} conns=${pt#*:}
		for o in $ORDERS; do
			reset
			r=$("$B" rate "$DSN" "$SECS" "$conns" "$(cc $o $n)" | cut -d' ' -f1)
			R[$o,$n,$conns]+="$r "
			echo "   rep $rep batch $n conns $conns $o: $r" >&2
		done
	done
done
printf '%-28s %12s %12s %12s %12s %10s %10s %10s\n' "batch / connections" "FIFO" "priority" "seed000 view" "FIFO lite" "prio/FIFO" "prio/view" "prio/lite"
for pt in $POINTS; do
	n=${pt%:*} conns=${pt#*:}
	f=$(echo ${R[fifo,$n,$conns]:-} | tr ' ' '\n' | med)
	p=$(echo ${R[prio,$n,$conns]:-} | tr ' ' '\n' | med)
	v=$(echo ${R[view,$n,$conns]:-} | tr ' ' '\n' | med)
	l=$(echo ${R[fifo_lite,$n,$conns]:-} | tr ' ' '\n' | med)
	printf '%-28s %12s %12s %12s %12s %10s %10s %10s\n' "$n per txn, $conns conn" "${f:--}" "${p:--}" "${v:--}" "${l:--}" \
		"$(ratio "${p:-0}" "${f:-0}")" "$(ratio "${p:-0}" "${v:-0}")" "$(ratio "${p:-0}" "${l:-0}")"
done
fi
sql "DROP INDEX crawltop.tasks_fifo"

# ---- counters on and off ---------------------------------------------------
if part counters; then
echo "== claim+complete with the live counters on and off (crawltop.claim, tasks/s)"
declare -A C
for rep in $(seq 1 "$REPS"); do
	for n in 1 100; do
		for mode in on off; do
			reset
			[ $mode = off ] && sql "ALTER TABLE crawltop.tasks DISABLE TRIGGER tasks_count_update"
			r=$("$B" rate "$DSN" "$SECS" 4 "$(cc prio $n)" | cut -d' ' -f1)
			[ $mode = off ] && sql "ALTER TABLE crawltop.tasks ENABLE TRIGGER tasks_count_update"
			C[$mode,$n]+="$r "
		done
	done
done
for n in 1 100; do
	on=$(echo ${C[on,$n]} | tr ' ' '\n' | med)
	off=$(echo ${C[off,$n]} | tr ' ' '\n' | med)
	printf '%-28s on %10s  off %10s  cost %s%%\n' "$n per txn, 4 conn" "$on" "$off" \
		"$(awk -v a="$on" -v b="$off" 'BEGIN{printf "%.1f", (1 - a / b) * 100}')"
done
reset
fi

# ---- enqueue ---------------------------------------------------------------
if part enqueue; then
echo "== enqueue, batches of 1,000 new paths (tasks/s, median of $REPS)"
sql "SELECT crawltop.create_job('enq', 'enq.example', 5, 'hierarchy')" >/dev/null
src=$(sql "SELECT (crawltop.enqueue(j.id, ARRAY['/', '/src'], 'sitemap')).inserted, 0 FROM crawltop.jobs j WHERE j.name = 'enq'" >/dev/null;
      sql "SELECT p.id FROM crawltop.pages p JOIN crawltop.domains d ON d.id = p.domain_id WHERE d.name = 'enq.example' AND p.path = '/src'")
ENQ="SELECT inserted FROM crawltop.enqueue((SELECT id FROM crawltop.jobs WHERE name = 'enq'),
	ARRAY(SELECT '/e/' || \$1 || '/' || g FROM generate_series(1, 1000) g), 'link', $src)"
# seed 000's design: its own tables (1,000,000 pages like ours), an AFTER
# INSERT trigger per task row that finds the source page by
# d.name || p.path = NEW.source_url, then update_page_priority.
"${PSQL[@]}" <<'SQL'
CREATE SCHEMA seed0;
CREATE TABLE seed0.domains (id serial PRIMARY KEY, name text UNIQUE);
CREATE TABLE seed0.pages (id serial PRIMARY KEY, domain_id integer REFERENCES seed0.domains,
	path text, priority_score numeric(4,3) DEFAULT 0, UNIQUE (domain_id, path));
CREATE TABLE seed0.jobs (id serial PRIMARY KEY, domain_id integer REFERENCES seed0.domains,
	status text DEFAULT 'running', total_pages integer DEFAULT 0,
	prioritization_mode text DEFAULT 'hierarchy');
CREATE TABLE seed0.tasks (id bigserial PRIMARY KEY, job_id integer REFERENCES seed0.jobs,
	page_id integer REFERENCES seed0.pages, status text DEFAULT 'pending',
	source_type text, source_url text, created_at timestamptz DEFAULT now(),
	retry_count integer DEFAULT 0);
CREATE INDEX ON seed0.tasks (status, created_at);
INSERT INTO seed0.domains (name) SELECT 's' || g || '.example' FROM generate_series(1, 10) g;
INSERT INTO seed0.pages (domain_id, path)
SELECT d, '/p/' || g FROM generate_series(1, 10) d, generate_series(1, 100000) g;
INSERT INTO seed0.pages (domain_id, path, priority_score) VALUES (1, '/src', 0.5);
INSERT INTO seed0.jobs (domain_id, total_pages) VALUES (1, 1000001);
VACUUM ANALYZE seed0.pages;
CREATE FUNCTION seed0.update_page_priority(p_page_id integer, p_source_type text,
	p_source_page_id integer DEFAULT NULL) RETURNS void AS $$
DECLARE
	v_domain_id integer; v_total_pages integer; v_path text;
	v_source_priority numeric(4,3); v_new_priority numeric(4,3);
BEGIN
	SELECT domain_id, path INTO v_domain_id, v_path FROM seed0.pages WHERE id = p_page_id;
	SELECT coalesce(max(j.total_pages), 0) INTO v_total_pages FROM seed0.jobs j
	JOIN seed0.domains d ON j.domain_id = d.id
	WHERE d.id = v_domain_id AND j.status IN ('pending', 'running');
	IF v_total_pages = 0 THEN RETURN; END IF;
	IF v_path = '/' THEN v_new_priority := 1.000;
	ELSIF p_source_type = 'sitemap' THEN v_new_priority := 0.500;
	ELSIF p_source_type = 'link' AND p_source_page_id IS NOT NULL THEN
		SELECT coalesce(priority_score, 0.000) INTO v_source_priority
		FROM seed0.pages WHERE id = p_source_page_id;
		v_new_priority := greatest(v_source_priority * 0.8, 0.100);
	ELSE v_new_priority := 0.100;
	END IF;
	UPDATE seed0.pages SET priority_score = greatest(priority_score, v_new_priority)
	WHERE id = p_page_id;
END $$ LANGUAGE plpgsql;
CREATE FUNCTION seed0.task_created_update_priority() RETURNS trigger AS $$
DECLARE v_source_page_id integer;
BEGIN
	IF NEW.source_type = 'link' AND NEW.source_url IS NOT NULL THEN
		SELECT p.id INTO v_source_page_id FROM seed0.pages p
		JOIN seed0.domains d ON p.domain_id = d.id
		WHERE d.name || p.path = NEW.source_url LIMIT 1;
		IF v_source_page_id IS NOT NULL THEN
			PERFORM seed0.update_page_priority(NEW.page_id, NEW.source_type, v_source_page_id);
		END IF;
	END IF;
	RETURN NEW;
END $$ LANGUAGE plpgsql;
CREATE TRIGGER trigger_task_priority_update AFTER INSERT ON seed0.tasks
	FOR EACH ROW EXECUTE FUNCTION seed0.task_created_update_priority();
SQL
SEEDN=${SEED_BATCH:-20}
SEEDQ="WITH pg AS (INSERT INTO seed0.pages (domain_id, path)
	SELECT 1, '/e/' || \$1 || '/' || g FROM generate_series(1, $SEEDN) g
	ON CONFLICT DO NOTHING RETURNING id), t AS (
	INSERT INTO seed0.tasks (job_id, page_id, source_type, source_url)
	SELECT 1, pg.id, 'link', 's1.example/src' FROM pg RETURNING 1)
	SELECT count(*) FROM t"
declare -A E
for rep in $(seq 1 "$REPS"); do
	E[ours]+="$("$B" enqueue "$DSN" 20 "$(echo "$ENQ" | sed "s/'\/e\/'/'\/e$rep\/'/")" | cut -d' ' -f1) "
	E[seed]+="$("$B" enqueue "$DSN" 1 "$(echo "$SEEDQ" | sed "s/'\/e\/'/'\/e$rep\/'/")" | cut -d' ' -f1) "
done
eo=$(echo ${E[ours]} | tr ' ' '\n' | med)
es=$(echo ${E[seed]} | tr ' ' '\n' | med)
echo "   crawltop.enqueue, 20 batches of 1,000 (link, source page by id): $eo tasks/s"
echo "   seed 000 per-row trigger, 1 batch of $SEEDN (source by d.name || p.path over 1,000,001 pages): $es tasks/s"
echo "   ratio: $(ratio "$eo" "$es")"
sitemap_t=$(
	t0=$(date +%s.%N)
	sql "SELECT crawltop.enqueue((SELECT id FROM crawltop.jobs WHERE name = 'enq'),
		ARRAY(SELECT '/sm/' || g FROM generate_series(1, 50000) g), 'sitemap')" >/dev/null
	since "$t0")
echo "   one sitemap of 50,000 new paths in one call: $sitemap_t s"
fi

# ---- counter reads ---------------------------------------------------------
counters() {
	local tasks live exact
	sql "SELECT crawltop.rebuild_counts()" >/dev/null
	tasks=$(sql "SELECT count(*) FROM crawltop.tasks")
	live=$("$B" latency "$DSN" 200 "SELECT count(*) FROM crawltop.dashboard_cells(NULL)")
	exact=$("$B" latency "$DSN" 3 "SELECT count(*) FROM crawltop.dashboard_cells_exact(NULL)")
	echo "   $tasks tasks: dashboard_cells median ${live% *} ms (p95 ${live#* }), GROUP BY (dashboard_cells_exact) median ${exact% *} ms, ratio $(ratio "${exact% *}" "${live% *}")"
}
if part reads; then
echo "== counter reads, all jobs (ms)"
counters
if [ "$BIG" -gt "$TASKS" ]; then
	load $((BIG - $(sql 'SELECT count(*) FROM crawltop.tasks'))) 2>&1
	counters
fi
fi
echo "load at end: $(uptime | sed 's/.*load average/load average/')"
