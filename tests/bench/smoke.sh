#!/usr/bin/env bash
# smoke.sh BUILD_DIR: the benchmark scripts run end to end at toy sizes
# (each on its own throwaway cluster) and print their result lines, so
# that ./dev bench cannot rot between the runs whose figures
# doc/PERFORMANCE.md quotes. The figures here mean nothing and are not
# checked; that every order, point and part produced a number is.
set -u
build=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../cli/tap.sh"
num='[0-9]*\.?[0-9]+'

out=$(TASKS=1000 BIG_TASKS=0 SECS=0.2 REPS=1 POINTS="1:1 100:2" \
	ORDERS="fifo prio view fifo_lite" PARTS="claims counters reads" \
	"$here/bench_store.sh" "$build" 2>&1)
ok_eq "bench_store: exit status" "$?" 0
ok_match "bench_store: the view claim is tried as designed" "$out" \
	"seed 000's view claim as designed:
   (accepted|refused) by PostgreSQL"
for pt in "1 per txn, 1 conn" "100 per txn, 2 conn"; do
	ok_match "bench_store: $pt: FIFO, priority, view, FIFO lite and ratios" "$out" \
		"^$pt +$num +$num +$num +$num +$num +$num +$num\$"
done
ok_match "bench_store: the FIFO claim is crawltop.claim with another order" \
	"$out" "rep 1 batch 1 conns 1 fifo: $num"
for n in 1 100; do
	ok_match "bench_store: counters on and off, $n per transaction" "$out" \
		"^$n per txn, 4 conn +on +$num +off +$num +cost -?$num%\$"
done
ok_match "bench_store: counter reads beside GROUP BY" "$out" \
	"1000 tasks: dashboard_cells median $num ms \(p95 $num\), GROUP BY \(dashboard_cells_exact\) median $num ms"

out=$(RANK_N=500 RANK_RUNS=1 RANK_CONNS="1 2" "$here/bench_rank.sh" "$build" 2>&1)
ok_eq "bench_rank: exit status" "$?" 0
for c in 1 2; do
	ok_match "bench_rank: $c connection(s) ranked every URL" "$out" \
		"run 1, $c connection\(s\): $num s: Ranked 500 URLs"
	ok_match "bench_rank: median with $c connection(s)" "$out" \
		"crawltop rank --connections $c over 500 discovered URLs: median of 1 = $num s"
done

out=$(RESCORE_N=300 RESCORE_CONNS="1 2" "$here/bench_rescore.sh" "$build" 2>&1)
ok_eq "bench_rescore: exit status" "$?" 0
for c in 1 2; do
	for m in hierarchy frontier; do
		ok_match "bench_rescore: $c connection(s), $m: every task rescored" "$out" \
			"run 1, $c connection\(s\), set-mode $m: $num s: .*300 unfinished tasks rescored"
	done
	ok_match "bench_rescore: median with $c connection(s)" "$out" \
		"crawltop job set-mode --connections $c over 300 pending tasks: median of 2 = $num s"
done

out=$(URLS=500 RUNS=1 BASE_TASKS=500 "$here/bench_enqueue.sh" "$build" 2>&1)
ok_eq "bench_enqueue: exit status" "$?" 0
ok_match "bench_enqueue: every URL of the sitemap is a new task" "$out" \
	"500 new tasks, 0 already queued"
for mode in hierarchy importance; do
	ok_match "bench_enqueue: $mode median" "$out" \
		"crawltop enqueue --sitemap \(500 URLs\), $mode job: median of 1 = $num s"
done

# crawltop's side of ./dev bench peers (the peers stay out of the tests:
# only the benchmark installs them)
out=$(PEERS= REPS=1 N_ENQ=1000 N_ONE=1000 N_BATCH=1000 CLAIMERS=2 \
	CT_BOUNDS="$here/bounds/floor.sql $here/bounds/narrow.sql $here/bounds/narrow_kept.sql $here/bounds/narrow_lean.sql" \
	"$here/bench_peers.sh" "$build" 2>&1)
ok_eq "bench_peers: exit status" "$?" 0
for w in enqueue one/2 batch; do
	ok_match "bench_peers: $w: tasks/s and busy CPU per task" "$out" \
		"^$w +crawltop +$num +$num +- +- +- +-\$"
done
for w in one/2 batch; do
	ok_match "bench_peers: $w: claim_next's tasks/s and busy CPU per task" \
		"$out" "^$w +crawltop-next +$num +$num +- +- +- +-\$"
done
for b in floor narrow narrow_kept narrow_lean; do
	ok_match "bench_peers: one/2: the $b bound's tasks/s and busy CPU per task" \
		"$out" "^one/2 +bound:$b +$num +$num +- +- +- +-\$"
done
ok_match "bench_peers: each round's rate, one round" "$out" \
	"^batch +crawltop-next +$num\$"
ok_match "bench_peers: every task handed out once" "$out" \
	"^exactly once: every system handed out every task once"

# ./dev bench ordering, without crawltop's modes (each is a simulated
# crawl of the whole site: seconds), on the smaller bundled graph
out=$(SITES=python-3.11 MODES= "$here/bench_ordering.sh" "$build" 2>&1)
ok_eq "bench_ordering: exit status" "$?" 0
for p in oracle opic backlink fifo; do
	for seeds in "/" "/ + sitemap"; do
		ok_match "bench_ordering: $p from $seeds: a row of figures" "$out" \
			"^\\| $p \\| ${seeds/+/\\+} \\| [0-9]+ \\|( $num \\|){6} $num % \\| ([0-9]+|never) \\|\$"
	done
done

# ./dev bench frontier, the C side at toy sizes (the JavaScript baseline
# needs Node.js, which only the benchmark installs)
out=$(JS=0 N=2000 M=2000 Q=200 U=2000 REPS=1 "$here/bench_frontier.sh" "$build" 2>&1)
ok_eq "bench_frontier: exit status" "$?" 0
for w in push-pop mixed enqueue; do
	ok_match "bench_frontier: $w: milliseconds" "$out" "^$w +$num +- +-\$"
done
ok_match "bench_frontier: bytes per queued item" "$out" \
	"^bytes per queued item beyond its URL \\($num bytes\\): C ($num|-), JS -\$"

done_testing
