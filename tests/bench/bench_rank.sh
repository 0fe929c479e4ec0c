#!/usr/bin/env bash
# bench_rank.sh BUILD_DIR: ./dev bench rank.
# `crawltop rank` over N (default 1,000,000) discovered URLs of one
# discovery job in a throwaway cluster (tests/store/pg-cluster.sh): the
# tasks are loaded set-based with raw signals (half) or sub-scores (half)
# as score inputs, then ranked three times; prints each time and the
# median (target: under 20 s for 1,000,000). RANK_N and RANK_RUNS
# change the size and the number of runs; RANK_CONNS the connection
# counts compared side by side in each run (default "1 2").
set -euo pipefail
. "$(dirname "$0")/lib.sh"
run_in_cluster "$0" "$@"
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$2
CT="$build/src/cli/crawltop"
n=${RANK_N:-1000000}
bench_db bench_rank
"$CT" job create disc --domain bench.example --mode discovery >/dev/null
echo "machine: $(nproc) cores; load $(uptime | sed 's/.*load average: //'); server: shared_buffers=$(q 'SHOW shared_buffers'), huge_pages=$(q 'SHOW huge_pages') (kernel: $(kernel_huge_pages)), wal_compression=$(q 'SHOW wal_compression')"
echo "loading $n discovery tasks ..."
t0=$(date +%s.%N)
q "INSERT INTO crawltop.pages (domain_id, path)
	SELECT j.domain_id, '/p/' || g FROM crawltop.jobs j, generate_series(1, $n) g
	WHERE j.name = 'disc'"
q "INSERT INTO crawltop.tasks (job_id, page_id, job_priority, score,
		base_score, class, source_type, depth, score_inputs)
	SELECT j.id, p.id, j.priority, 40, 40, 2, 'link', 1,
	       CASE WHEN p.id % 2 = 0 THEN jsonb_build_object('signals', jsonb_build_object(
			'ct_age_hours', p.id % 200, 'ns_changes', p.id % 3,
			'whois_age_days', p.id % 900, 'backlinks', p.id % 50,
			'first_seen_host', p.id % 5 = 0, 'document_path', p.id % 7 = 0,
			'parking_score', (p.id % 10) / 10.0, 'source', 'ct',
			'age_hours', p.id % 48, 'topic_match', (p.id % 4) / 4.0))
	       ELSE jsonb_build_object('subscores', jsonb_build_object(
			'unseen_likelihood', (p.id % 101) / 100.0,
			'host_novelty', (p.id % 53) / 52.0,
			'content_readiness', (p.id % 17) / 16.0,
			'link_yield', (p.id % 11) / 10.0,
			'source_reliability', 0.5, 'freshness', (p.id % 7) / 6.0,
			'quality_safety', 1, 'topic_boost', 0)) END
	FROM crawltop.jobs j JOIN crawltop.pages p ON p.domain_id = j.domain_id
	WHERE j.name = 'disc'"
q "UPDATE crawltop.jobs SET total_pages = $n WHERE name = 'disc'"
q "VACUUM ANALYZE crawltop.tasks"
echo "loaded in $(since "$t0") s"
runs=${RANK_RUNS:-3}
conns_list=${RANK_CONNS:-1 2}
declare -A times
for i in $(seq 1 "$runs"); do
	for c in $conns_list; do
		# every run starts from the same table: the last run's dead row
		# versions vacuumed away (not timed)
		q "VACUUM crawltop.tasks"
		t0=$(date +%s.%N)
		"$CT" rank --connections "$c" >"/tmp/bench_rank.$$"
		t=$(since "$t0")
		times[$c]+="$t "
		echo "run $i, $c connection(s): $t s: $(head -1 "/tmp/bench_rank.$$")"
	done
done
sed 1d "/tmp/bench_rank.$$"
rm -f "/tmp/bench_rank.$$"
for c in $conns_list; do
	median=$(median ${times[$c]})
	echo "crawltop rank --connections $c over $n discovered URLs: median of $runs = $median s (target < 20 s)"
done
echo "load at end: $(uptime | sed 's/.*load average/load average/')"
