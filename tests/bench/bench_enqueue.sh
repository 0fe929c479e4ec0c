#!/usr/bin/env bash
# bench_enqueue.sh BUILD_DIR: ./dev bench enqueue.
# `crawltop enqueue --sitemap` of one 50,000-URL sitemap (sitemaps.org
# XML with <lastmod>, generated), timed end to end (parse, score, send,
# commit), into a fresh job each run so that every URL is new, one job of
# each mode of MODES (default "hierarchy importance": the default mode
# before 0034 and after) in turn, on a throwaway cluster
# (tests/store/pg-cluster.sh; CT_PG_CONF adds server settings) that
# already holds BASE_TASKS (default 1,000,000) tasks of another job.
# Prints each run and each mode's median of RUNS (default 5). Target:
# under 2 s.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
build=$(cd "$1" && pwd)
root=$(cd "$(dirname "$0")/../.." && pwd)
if [ "${2:-}" != --inner ]; then
	exec "$root/tests/store/pg-cluster.sh" run "$0" "$build" --inner
fi
CT="$build/src/cli/crawltop"
N=${URLS:-50000}
RUNS=${RUNS:-5}
MODES=${MODES:-hierarchy importance}
BASE=${BASE_TASKS:-1000000}
export CRAWLTOP_DSN="$CT_TEST_DSN"
q() { psql -X -qAt -v ON_ERROR_STOP=1 -c "$1"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "machine: $(nproc) cores; load $(uptime | sed 's/.*load average: //'); server: shared_buffers=$(q 'SHOW shared_buffers'), huge_pages=$(q 'SHOW huge_pages') (kernel: $(kernel_huge_pages)), fsync=$(q 'SHOW fsync'), synchronous_commit=$(q 'SHOW synchronous_commit')"
"$CT" migrate >/dev/null
"$CT" job create base --domain base.example --mode hierarchy >/dev/null
q "ALTER TABLE crawltop.tasks DISABLE TRIGGER tasks_count_insert;
INSERT INTO crawltop.pages (domain_id, path)
	SELECT j.domain_id, '/p/' || g FROM crawltop.jobs j, generate_series(1, $BASE) g;
INSERT INTO crawltop.tasks (job_id, page_id, job_priority, score, base_score, class, source_type, depth)
	SELECT j.id, p.id, j.priority, 50, 50, 2, 'link', 1
	FROM crawltop.jobs j JOIN crawltop.pages p ON p.domain_id = j.domain_id;
ALTER TABLE crawltop.tasks ENABLE TRIGGER tasks_count_insert;
SELECT crawltop.rebuild_counts();" >/dev/null
q "VACUUM ANALYZE"
echo "$(q 'SELECT count(*) FROM crawltop.tasks') tasks in the store"

sitemap() { # HOST > file: N URLs https://HOST/section-K/page-I.html
	awk -v n="$N" -v h="$1" 'BEGIN {
		print "<?xml version=\"1.0\" encoding=\"UTF-8\"?>"
		print "<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">"
		for (i = 1; i <= n; i++)
			printf "  <url><loc>https://%s/section-%d/page-%d.html</loc><lastmod>2024-06-01</lastmod></url>\n", h, i % 100, i
		print "</urlset>"
	}'
}
declare -A times
for i in $(seq 1 "$RUNS"); do
	for mode in $MODES; do
		host="s$i-$mode.example"
		sitemap "$host" >"$tmp/s.xml"
		"$CT" job create "s$i-$mode" --domain "$host" --mode "$mode" >/dev/null
		t0=$(date +%s.%N)
		out=$("$CT" enqueue --job "s$i-$mode" --sitemap "$tmp/s.xml")
		t=$(since "$t0")
		times[$mode]+="$t "
		echo "run $i, $mode: $t s: $out"
	done
done
for mode in $MODES; do
	median=$(printf '%s\n' ${times[$mode]} | sort -n | sed -n "$(((RUNS + 1) / 2))p")
	echo "crawltop enqueue --sitemap ($N URLs), $mode job: median of $RUNS = $median s (target < 2 s)"
done
echo "load at end: $(uptime | sed 's/.*load average: //')"
