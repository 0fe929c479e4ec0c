#!/usr/bin/env bash
# bench_rescore.sh BUILD_DIR: ./dev bench rescore.
# `crawltop job set-mode` over a frontier job of N (default 1,000,000)
# pending tasks in a throwaway cluster (tests/store/pg-cluster.sh): the
# tasks are loaded set-based (types, depths and discovery methods varied),
# then the job is switched to hierarchy and back to frontier with each
# connection count of RESCORE_CONNS (default "1 2") in turn, RESCORE_RUNS
# (default 1) times, vacuumed before each; prints each time and the median
# per connection count (issue 22's target: 10 s for 1,000,000).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
run_in_cluster "$0" "$@"
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$2
CT="$build/src/cli/crawltop"
n=${RESCORE_N:-1000000}
bench_db bench_rescore
"$CT" job create fr --domain bench.example --mode frontier >/dev/null
echo "machine: $(nproc) cores; load $(uptime | sed 's/.*load average: //'); commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
echo "loading $n pending tasks ..."
t0=$(date +%s.%N)
q "INSERT INTO crawltop.pages (domain_id, path)
	SELECT j.domain_id, '/p/' || (g % 50) || '/' || g
	FROM crawltop.jobs j, generate_series(1, $n) g WHERE j.name = 'fr'"
q "INSERT INTO crawltop.tasks (job_id, page_id, job_priority, score,
		base_score, class, source_type, depth, type, discovery_method)
	SELECT j.id, p.id, j.priority, 40, 40, 2, 'link', 1 + p.id % 5,
	       (ARRAY['article', 'nav', 'hub', 'refresh'])[1 + p.id % 4],
	       (ARRAY['link', 'sitemap', 'link-discovery'])[1 + p.id % 3]
	FROM crawltop.jobs j JOIN crawltop.pages p ON p.domain_id = j.domain_id
	WHERE j.name = 'fr'"
q "UPDATE crawltop.jobs SET total_pages = $n WHERE name = 'fr'"
q "VACUUM ANALYZE"
echo "loaded in $(since "$t0") s"
declare -A times
for r in $(seq 1 "${RESCORE_RUNS:-1}"); do
	for c in ${RESCORE_CONNS:-1 2}; do
		for m in hierarchy frontier; do
			q "VACUUM crawltop.tasks"
			q "VACUUM crawltop.queue"
			t0=$(date +%s.%N)
			out=$("$CT" job set-mode fr "$m" --connections "$c")
			t=$(since "$t0")
			times[$c]+="$t "
			echo "run $r, $c connection(s), set-mode $m: $t s: $(head -1 <<<"$out")"
		done
	done
done
for c in ${RESCORE_CONNS:-1 2}; do
	median=$(median ${times[$c]})
	echo "crawltop job set-mode --connections $c over $n pending tasks: median of $(wc -w <<<"${times[$c]}") = $median s (target < 10 s at 1,000,000)"
done
echo "load at end: $(uptime | sed 's/.*load average/load average/')"
