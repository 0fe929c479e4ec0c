#!/usr/bin/env bash
# test_simulate.sh CRAWLTOP: `crawltop simulate` against a throwaway
# cluster, on a small synthetic site written here: a 3-level tree (4
# sections, 3 pages each, 2 leaves each: 41 pages) plus a sitemap page.
# Hierarchy order with one worker, every reachable page fetched exactly
# once with two, retries with --fail-rate, --max-pages, Ctrl-C releasing
# the claimed tasks, and bad input refused before anything is written;
# last, a frontier job scored with the store's settings version, not with
# the configuration file's.
set -u
CT=$1
here=$(dirname "$0")
. "$here/../cli/tap.sh"
. "$here/lib.sh"
db_setup cli_simulate
export CRAWLTOP_DSN=$DSN
T=$(mktemp -d "${TMPDIR:-/tmp}/ct-sim.XXXXXX")
trap 'rm -rf "$T"' EXIT

# / -> /aI -> /aI/bJ -> /aI/bJ/cK; each page's links in page order
{
	for i in 1 2 3 4; do printf '/\t/a%d\n' "$i"; done
	for i in 1 2 3 4; do for j in 1 2 3; do
		printf '/a%d\t/a%d/b%d\n' "$i" "$i" "$j"
		printf '/a%d/b%d\t/\n' "$i" "$j" # a link back home
	done; done
	for i in 1 2 3 4; do for j in 1 2 3; do for k in 1 2; do
		printf '/a%d/b%d\t/a%d/b%d/c%d\n' "$i" "$j" "$i" "$j" "$k"
	done; done; done
} >"$T/tree.tsv"
printf '/orphan\n/a1\n' >"$T/tree.sitemap"
depth() { # a path's depth in the tree
	awk -F/ '{ print ($0 == "/") ? 0 : NF - 1 }'
}
counts() { # JOB: total completed failed pending running
	q "SELECT j.total_pages || ' ' ||
		count(*) FILTER (WHERE t.status = 'completed') || ' ' ||
		count(*) FILTER (WHERE t.status = 'failed') || ' ' ||
		count(*) FILTER (WHERE t.status = 'pending') || ' ' ||
		count(*) FILTER (WHERE t.status = 'running')
	   FROM crawltop.jobs j LEFT JOIN crawltop.tasks t ON t.job_id = j.id
	   WHERE j.name = '$1' GROUP BY j.id"
}

# ---- one worker, hierarchy mode ---------------------------------------
run simulate --graph "$T/tree.tsv" --job tree1 --mode hierarchy --workers 1 --latency-ms 1 \
	--order-out "$T/o1"
ok_eq "1 worker: exit 0" "$RC" 0
ok_match "1 worker: creates the job over sim.<graph>" "$OUT" 'created job tree1 \(id [0-9]+\) over sim\.tree'
ok_match "1 worker: reports the graph" "$OUT" '41 pages, 52 links, 41 reachable'
ok_match "1 worker: summary" "$OUT" 'fetched 41 pages in'
ok_eq "1 worker: '/' first" "$(head -1 "$T/o1")" /
ok_eq "1 worker: 41 pages, each once" "$(sort -u "$T/o1" | wc -l) $(wc -l <"$T/o1")" "41 41"
ok_eq "1 worker: depth never decreases (all depth 1 before depth 2 before depth 3)" \
	"$(depth <"$T/o1" | sort -n | tr '\n' ' ')" "$(depth <"$T/o1" | tr '\n' ' ')"
ok_eq "1 worker: the store agrees" "$(counts tree1)" "41 41 0 0 0"
ok_eq "1 worker: the job shows completed" \
	"$("$CT" job show tree1 | awk '$1 == "status" { print $2 }')" completed
# it is stored pending: simulate goes by that, as enqueue does
run simulate --graph "$T/tree.tsv" --job tree1 --workers 1 --latency-ms 1
ok_eq "a job shown completed is simulated again, not refused: exit 0" "$RC" 0
ok_eq "again: nothing new to fetch" "$(counts tree1)" "41 41 0 0 0"

# ---- two workers, a sitemap -------------------------------------------
run simulate --graph "$T/tree.tsv" --sitemap "$T/tree.sitemap" --job tree2 --mode hierarchy \
	--workers 2 --latency-ms 3 --host-delay-ms 1 --order-out "$T/o2"
ok_eq "2 workers: exit 0" "$RC" 0
# (the order file records completions: with two workers fetching at once,
# '/' is claimed first but may finish second)
ok_match "2 workers: '/' among the first two fetched" "$(head -2 "$T/o2")" '^/$'
ok_eq "2 workers: every reachable page (and the sitemap's orphan) exactly once" \
	"$(sort "$T/o2" | uniq -c | awk '$1 != 1' | wc -l) $(wc -l <"$T/o2")" "0 42"
ok_match "2 workers: a sitemap path the graph lacks is warned about" "$OUT" \
	"warning: 1 of the sitemap's paths are not in .*tree\.tsv \(the first: /orphan\)"
ok_match "2 workers: the orphan came from the sitemap" \
	"$(q "SELECT t.source_type FROM crawltop.tasks t JOIN crawltop.pages p ON p.id = t.page_id JOIN crawltop.jobs j ON j.id = t.job_id WHERE j.name = 'tree2' AND p.path = '/orphan'")" '^sitemap$'
avg() { # DEPTH FILE: mean line number of the paths of that depth
	depth <"$2" | awk -v d="$1" '$1 == d { s += NR; n++ } END { print int(s / n) }'
}
ok_eq "2 workers: depth-1 pages come before depth-3 pages on average" \
	"$([ "$(avg 1 "$T/o2")" -lt "$(avg 3 "$T/o2")" ] && echo yes)" yes
ok_eq "2 workers: the store agrees" "$(counts tree2)" "42 42 0 0 0"
# page types and discovery methods from the graph: the median page has no
# link (24 leaves of 41), so a page with links is a hub, a leaf an
# article; '/' is found by "seed", the sitemap's by "sitemap", the rest
# by a link on a hub
ok_eq "2 workers: types and methods from the graph (method/type)" \
	"$(q "SELECT string_agg(x, ' ' ORDER BY x) FROM (SELECT DISTINCT
		coalesce(t.discovery_method, '-') || '/' || coalesce(t.type, '-') AS x
		FROM crawltop.tasks t JOIN crawltop.jobs j ON j.id = t.job_id
		WHERE j.name = 'tree2') s")" \
	"hub-link/article hub-link/hub seed/hub sitemap/article sitemap/hub"
ok_eq "2 workers: hierarchy propagated (a leaf: 0.8^3)" \
	"$(q "SELECT round(p.priority_score::numeric, 3) FROM crawltop.pages p JOIN crawltop.domains d ON d.id = p.domain_id WHERE d.name = 'sim.tree' AND p.path = '/a2/b2/c2'")" 0.512

# ---- the order tells the modes apart ----------------------------------
# a sitemap of depth-3 pages: FIFO fetches them with '/', before any
# depth-1 page; hierarchy fetches by score (/ 1, then 0.8, 0.64, 0.512;
# a sitemap page's 0.5 is raised when a link finds it), depth never
# going back
printf '/a3/b3/c2\n/a1/b2/c1\n' >"$T/deep.sitemap"
decreases() { depth <"$1" | awk 'NR > 1 && $1 < last { n++ } { last = $1 } END { print n + 0 }'; }
run simulate --graph "$T/tree.tsv" --sitemap "$T/deep.sitemap" --job deep-h --mode hierarchy \
	--workers 1 --latency-ms 1 --order-out "$T/oh" -q
ok_eq "deep sitemap, hierarchy: exit 0" "$RC" 0
ok_eq "deep sitemap, hierarchy: depth never decreases" "$(decreases "$T/oh") $(wc -l <"$T/oh")" "0 41"
run simulate --graph "$T/tree.tsv" --sitemap "$T/deep.sitemap" --job deep-f \
	--mode fifo --workers 1 --latency-ms 1 --order-out "$T/of" -q
ok_eq "deep sitemap, fifo: exit 0" "$RC" 0
ok_eq "deep sitemap, fifo: the depth goes back (the check above can fail)" \
	"$([ "$(decreases "$T/of")" -gt 0 ] && echo yes) $(wc -l <"$T/of")" "yes 41"

# ---- the homepage first (issue 23) ---------------------------------------
# on a bundled graph with its sitemap, '/' is fetched first in the modes
# whose scores come from the engine: the page a job is seeded with is
# never outranked by the sitemap's pages (in frontier mode the sitemap
# bonus used to put '/' after the sitemap). In the other modes the
# sitemap's pages score as '/' does or lower, and '/' was enqueued first
# (the tests above and in cli_store_modes)
root=$(cd "$(dirname "$0")/../.." && pwd)
for mode in frontier freshness; do
	run simulate --graph "$root/data/sites/python-3.11.tsv" \
		--sitemap "$root/data/sites/python-3.11.sitemap" --job "home-$mode" \
		--mode "$mode" --workers 1 --latency-ms 0 --max-pages 2 \
		--order-out "$T/home-$mode" -q
	ok_eq "python-3.11 with its sitemap, $mode: '/' fetched first" \
		"$RC $(head -n 1 "$T/home-$mode")" "0 /"
done

# ---- a page's links in the page's order --------------------------------
# one worker, fifo: / first, then its links as / lists them (not sorted),
# then theirs; the sitemap's paths in the sitemap's order (a batch shares
# its created_at; the tasks' ids follow the batch)
printf '/\t/z\n/\t/a\n/\t/m\n/a\t/y\n/a\t/b\n/z\t/x\n' >"$T/order.tsv"
printf '/s2\n/s1\n' >"$T/order.sitemap"
run simulate --graph "$T/order.tsv" --job order-f --mode fifo --workers 1 \
	--latency-ms 1 --order-out "$T/oo" -q
ok_eq "fifo, 1 worker: links in page order" "$(tr '\n' ' ' <"$T/oo")" "/ /z /a /m /x /y /b "
run simulate --graph "$T/order.tsv" --sitemap "$T/order.sitemap" --job order-h --mode hierarchy \
	--workers 1 --latency-ms 1 --order-out "$T/os" -q
ok_eq "hierarchy, 1 worker: equal scores in the order given" \
	"$(tr '\n' ' ' <"$T/os")" "/ /z /a /m /x /y /b /s2 /s1 "

# ---- importance: links raise pages (0033) ----------------------------------
# / links a b c; a and b link x and c; c links y; x links y. Worked by
# hand (value = links in + cash x pages discovered): after / the three
# tie at 1 + 1/3 x 4; /a gives c its second link and half its cash
# (2 + 1/2 x 5 = 4.5) and x its first (1 + 1/6 x 5); /c gives y all of
# its cash (1 + 1/2 x 6 = 4), which puts y before b (1 + 1/3 x 4); b
# gives x its second link (2 + 1/3 x 6). Breadth first: / a b c x y.
printf '/\t/a\n/\t/b\n/\t/c\n/a\t/x\n/a\t/c\n/b\t/x\n/b\t/c\n/c\t/y\n/x\t/y\n' \
	>"$T/imp.tsv"
run simulate --graph "$T/imp.tsv" --job imp --mode importance --workers 1 \
	--latency-ms 1 --order-out "$T/oi" -q
ok_eq "importance, 1 worker: exit 0" "$RC" 0
ok_eq "importance, 1 worker: the pages linked most and with most cash first" \
	"$(tr '\n' ' ' <"$T/oi")" "/ /a /c /y /b /x "
run explain /x --job imp
ok_match "importance: explain counts the links in" "$OUT" \
	'- Linked from 2 fetched pages'
ok_match "importance: explain shows the cash and the pages discovered" "$OUT" \
	'- Cash 0.3333 x 6 pages discovered'
ok_match "importance: explain recomputes the score" "$OUT" \
	'Recomputed: +[0-9.]+ from 2 links in and cash 0.3333'
run explain / --job imp
ok_match "importance: explain puts the homepage first" "$OUT" \
	'- Seed page: before every other page'

# ---- politeness ---------------------------------------------------------
# one host, 3 workers, 150 ms between fetches: 12 fetches take at least
# 11 x 150 ms from the first claim to the last completion, however the
# workers interleave (a lower bound the code guarantees, not a timing goal)
run simulate --graph "$T/tree.tsv" --job polite --workers 3 --latency-ms 1 \
	--host-delay-ms 150 --max-pages 12 -q
ok_eq "--host-delay-ms 150: exit 0" "$RC" 0
ok_eq "--host-delay-ms 150: 12 fetches span at least 1.65 s" \
	"$(q "SELECT count(*) || ' ' || (extract(epoch FROM max(t.completed_at) - min(t.started_at)) >= 1.65)
	      FROM crawltop.tasks t JOIN crawltop.jobs j ON j.id = t.job_id
	      WHERE j.name = 'polite' AND t.status = 'completed'")" "12 true"

# ---- failures and retries ---------------------------------------------
# retries after 50..200 ms instead of 10 s, so the test stays short
q "INSERT INTO crawltop.settings (value, note)
   SELECT jsonb_set(jsonb_set(value, '{store,retry_base_seconds}', '0.05'),
	'{store,retry_max_seconds}', '0.2'), 'test: fast retries'
   FROM crawltop.settings ORDER BY version DESC LIMIT 1" >/dev/null
run simulate --graph "$T/tree.tsv" --job flaky --workers 2 --latency-ms 1 \
	--fail-rate 0.3 --seed 7 --order-out "$T/o3" -q
ok_eq "--fail-rate 0.3: exit 0" "$RC" 0
ok_match "--fail-rate 0.3: failures happened" "$OUT" ' [1-9][0-9]* failed attempts'
read -r total done failed pending running <<<"$(counts flaky)"
ok_eq "--fail-rate 0.3: nothing pending or running at the end" "$pending $running" "0 0"
ok_eq "--fail-rate 0.3: completed + failed = total" "$((done + failed))" "$total"
ok_eq "--fail-rate 0.3: order-out lists the completed pages once" \
	"$(sort -u "$T/o3" | wc -l) $(wc -l <"$T/o3")" "$done $done"
ok_eq "--fail-rate 0.3: retries counted in the store" \
	"$([ "$(q "SELECT sum(retry_count) FROM crawltop.tasks t JOIN crawltop.jobs j ON j.id = t.job_id WHERE j.name = 'flaky'")" -gt 0 ] && echo yes)" yes
# each attempt draws afresh: some page that failed was fetched on a retry
ok_eq "--fail-rate 0.3: a retry can succeed" \
	"$([ "$(q "SELECT count(*) FROM crawltop.tasks t JOIN crawltop.jobs j ON j.id = t.job_id WHERE j.name = 'flaky' AND t.status = 'completed' AND t.retry_count > 0")" -gt 0 ] && echo yes)" yes
run simulate --graph "$T/tree.tsv" --job doomed --workers 2 --latency-ms 0 \
	--fail-rate 1 -q
read -r total done failed pending running <<<"$(counts doomed)"
ok_eq "--fail-rate 1: '/' fails for good after its retries" "$total $done $failed" "1 0 1"
ok_match "--fail-rate 1: 1 + 3 retries = 4 attempts" "$OUT" '4 failed attempts, 1 page failed for good'

# ---- --max-pages and Ctrl-C -------------------------------------------
run simulate --graph "$T/tree.tsv" --job capped --workers 2 --latency-ms 1 \
	--max-pages 10 --order-out "$T/o4" -q
ok_eq "--max-pages 10: exit 0" "$RC" 0
ok_eq "--max-pages 10: 10 pages" "$(wc -l <"$T/o4")" 10
read -r total done failed pending running <<<"$(counts capped)"
ok_eq "--max-pages 10: nothing left running" "$done $running" "10 0"

# interrupted SIG RC JOB: simulate a slow job, send SIG once its workers
# hold tasks; it must exit RC, say it gave its claimed tasks back, and
# leave none running (SIGHUP: the terminal closed)
interrupted() {
	local sig=$1 want=$2 job=$3 pid rc
	"$CT" simulate --graph "$T/tree.tsv" --job "$job" --workers 3 \
		--latency-ms 400 -q >"$T/$job.out" 2>&1 &
	pid=$!
	for _ in $(seq 100); do # until the workers hold tasks
		[ "$(q "SELECT count(*) FROM crawltop.tasks t JOIN crawltop.jobs j ON j.id = t.job_id WHERE j.name = '$job' AND t.status = 'running'")" -ge 2 ] 2>/dev/null && break
		sleep 0.05
	done
	kill -"$sig" "$pid"
	rc=0
	wait "$pid" || rc=$?
	ok_eq "SIG$sig: exit $want" "$rc" "$want"
	ok_match "SIG$sig: says the claimed tasks were released" "$(cat "$T/$job.out")" \
		'interrupted: stopped, [1-9] claimed tasks? released'
	read -r total done failed pending running <<<"$(counts "$job")"
	ok_eq "SIG$sig: no task left running" "$running" 0
	ok_eq "SIG$sig: the rest still pending" "$([ "$pending" -gt 0 ] && echo yes)" yes
}
interrupted INT 130 slow
interrupted HUP 129 hup
# under nohup (SIGHUP ignored) a hangup does not stop it: pages are still
# completed after it, and it ends on SIGINT
(trap '' HUP; exec "$CT" simulate --graph "$T/tree.tsv" --job nohup --workers 2 \
	--latency-ms 200 -q >"$T/nohup.out" 2>&1) &
pid=$!
done_now() { q "SELECT count(*) FROM crawltop.tasks t JOIN crawltop.jobs j ON j.id = t.job_id WHERE j.name = 'nohup' AND t.status = 'completed'"; }
for _ in $(seq 100); do [ "$(done_now)" -ge 1 ] 2>/dev/null && break; sleep 0.05; done
kill -HUP "$pid"
at_hup=$(done_now)
for _ in $(seq 100); do [ "$(done_now)" -gt "$at_hup" ] && break; sleep 0.05; done
ok_eq "SIGHUP ignored (nohup): pages still completed after it" \
	"$([ "$(done_now)" -gt "$at_hup" ] && echo yes)" yes
kill -INT "$pid"
rc=0
wait "$pid" || rc=$?
ok_eq "SIGHUP ignored (nohup): SIGINT ends it (130)" "$rc" 130

# ---- --reconnect: the server restarts under the crawl -------------------
# (the demo's crawlers run so: they must outlive a restart of its server)
PG_BINDIR=${PG_BINDIR:-/usr/lib/postgresql/15/bin}
as_pg() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
"$CT" simulate --graph "$T/tree.tsv" --job phoenix --workers 2 \
	--latency-ms 150 --reconnect -q >"$T/phoenix.out" 2>&1 &
pid=$!
phoenix_done() { q "SELECT count(*) FROM crawltop.tasks t JOIN crawltop.jobs j ON j.id = t.job_id WHERE j.name = 'phoenix' AND t.status = 'completed'" 2>/dev/null; }
for _ in $(seq 200); do [ "$(phoenix_done)" -ge 3 ] 2>/dev/null && break; sleep 0.05; done
at_restart=$(phoenix_done)
as_pg "$PG_BINDIR/pg_ctl" -D "$PGHOST/data" -l "$PGHOST/server.log" -m fast \
	-w -t 60 restart >/dev/null
pgq_start "$DB" # the test's own session went with the server
rc=0
for _ in $(seq 1200); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
wait "$pid" || rc=$?
ok_eq "--reconnect: the run outlives a restart of the server (exit 0)" "$rc" 0
ok_match "--reconnect: says it connected again" "$(cat "$T/phoenix.out")" \
	'^simulate: [0-9]+ connections? made again after the server went away$'
read -r total done failed pending running <<<"$(counts phoenix)"
ok_eq "--reconnect: every page fetched, pages fetched after the restart" \
	"$done $pending $running $([ "$done" -gt "$at_restart" ] && echo after)" \
	"$total 0 0 after"

# ---- depth below an orphan sitemap page, paused and cancelled jobs ------
# /s is in the sitemap, no link reaches it: depth 1, and the pages under
# it count from there (frontier mode scores by depth)
printf '/\t/a\n/a\t/b\n/s\t/d1\n/d1\t/d2\n/d2\t/d3\n' >"$T/orphan.tsv"
printf '/s\n' >"$T/orphan.sitemap"
run simulate --graph "$T/orphan.tsv" --sitemap "$T/orphan.sitemap" \
	--job orphan --mode frontier --workers 1 --latency-ms 1 -q
ok_eq "orphan sitemap page: exit 0" "$RC" 0
ok_eq "orphan sitemap page: depth 1, its pages 2, 3, 4" \
	"$(q "SELECT string_agg(p.path || '=' || coalesce(t.depth::text, '-'), ' ' ORDER BY p.path)
	      FROM crawltop.tasks t JOIN crawltop.jobs j ON j.id = t.job_id
	      JOIN crawltop.pages p ON p.id = t.page_id WHERE j.name = 'orphan'")" \
	"/=0 /a=1 /b=2 /d1=2 /d2=3 /d3=4 /s=1"
# a paused job: simulate says so and waits; resumed, it crawls to the end
"$CT" job create held --domain held.example >/dev/null
"$CT" job pause held >/dev/null
"$CT" simulate --graph "$T/tree.tsv" --job held --domain HELD.example \
	--workers 2 --latency-ms 1 -q >"$T/held.out" 2>&1 &
pid=$!
for _ in $(seq 100); do grep -q 'is paused' "$T/held.out" && break; sleep 0.05; done
ok_match "paused job: says the workers wait (the domain's case aside)" \
	"$(cat "$T/held.out")" 'job held is paused: the workers wait until it is resumed'
sleep 0.5
ok_eq "paused job: nothing fetched while paused (/ waits)" "$(counts held)" "1 0 0 1 0"
"$CT" job resume held >/dev/null
rc=0
wait "$pid" || rc=$?
ok_eq "paused job, resumed: exit 0, every page fetched" "$rc $(counts held)" "0 41 41 0 0 0"
# a job cancelled during the run ends it: exit 0, with a note
"$CT" simulate --graph "$T/tree.tsv" --job cut --workers 2 --latency-ms 300 \
	-q >"$T/cut.out" 2>&1 &
pid=$!
for _ in $(seq 100); do
	[ "$(q "SELECT count(*) FROM crawltop.tasks t JOIN crawltop.jobs j ON j.id = t.job_id WHERE j.name = 'cut' AND t.status = 'completed'")" -ge 1 ] 2>/dev/null && break
	sleep 0.05
done
"$CT" job cancel cut --yes >/dev/null
rc=0
wait "$pid" || rc=$?
ok_eq "job cancelled during the run: exit 0" "$rc" 0
ok_match "job cancelled during the run: says so" "$(cat "$T/cut.out")" \
	'job cut was cancelled during the run'
ok_eq "job cancelled during the run: nothing left running" \
	"$(counts cut | awk '{ print $5 }')" 0

# ---- bad input ---------------------------------------------------------
before=$(state)
run simulate --graph "$T/missing.tsv" --job bad
ok_eq "missing graph: exit 1" "$RC" 1
ok_match "missing graph: says so" "$OUT" 'missing\.tsv: cannot open: No such file'
printf '/\t/a\n/a /b\n' >"$T/notab.tsv"
run simulate --graph "$T/notab.tsv" --job bad
ok_match "a line without a TAB: names it" "$OUT" "notab\.tsv:2: expected 'source-path<TAB>target-path'"
printf '/\tnot-a-path\n' >"$T/nopath.tsv"
run simulate --graph "$T/nopath.tsv" --job bad
ok_match "a target that is not a path: names it" "$OUT" "nopath\.tsv:1: a path starts with '/'"
printf '/\t/ok\n/ok\t/caf\351\n' >"$T/latin1.tsv"
run simulate --graph "$T/latin1.tsv" --job bad
ok_eq "a path that is not UTF-8: exit 1" "$RC" 1
ok_match "a path that is not UTF-8: names the line, before the database" "$OUT" \
	"latin1\.tsv:2: a path is UTF-8 text"
head -c 4096 /dev/urandom >"$T/garbage.tsv"
run simulate --graph "$T/garbage.tsv" --job bad
ok_eq "binary garbage graph: exit 1" "$RC" 1
ok_match "binary garbage graph: names a line" "$OUT" 'garbage\.tsv:[0-9]+: '
run simulate --graph "$T/tree.tsv" --sitemap "$T/garbage.tsv" --job bad
ok_match "binary garbage sitemap: names a line" "$OUT" 'garbage\.tsv:[0-9]+: '
# a line over 1 MiB (crawltop(1)) is refused with its file and line, in the
# graph and in the sitemap, before the database; a failed allocation is an
# error too, never the end of the file (under AddressSanitizer with
# allocations over 1 MiB failing, the 1.5 MB second line of a 3-link graph
# cannot be buffered: the graph is not taken as its first link)
{ printf '/\t/a\n'; head -c 1500000 /dev/zero | tr '\0' 'x'; printf '\n/a\t/b\n'; } >"$T/long.tsv"
run simulate --graph "$T/long.tsv" --job bad -q
ok_eq "a graph line over 1 MiB: exit 1" "$RC" 1
ok_eq "a graph line over 1 MiB: names file and line" "$OUT" \
	"crawltop simulate: $T/long.tsv:2: line longer than 1048576 bytes"
{ printf '/a1\n'; head -c 1500000 /dev/zero | tr '\0' 'x'; printf '\n/a2\n'; } >"$T/long.sitemap"
run simulate --graph "$T/tree.tsv" --sitemap "$T/long.sitemap" --job bad -q
ok_eq "a sitemap line over 1 MiB: names file and line" "$OUT" \
	"crawltop simulate: $T/long.sitemap:2: line longer than 1048576 bytes"
if sanitized "$CT"; then
	ASAN_OPTIONS=allocator_may_return_null=1:max_allocation_size_mb=1 \
		run simulate --graph "$T/long.tsv" --job bad -q
	ok_eq "a failed allocation while reading the graph: exit 1" "$RC" 1
	ok_match "a failed allocation while reading the graph: names file and line" \
		"$OUT" "^crawltop simulate: $T/long\.tsv:2: out of memory\$"
else
	tap_skip "a failed allocation while reading the graph (AddressSanitizer builds only)"
fi
ok_unchanged "lines over 1 MiB" "$before"
# a path the store's path_ok refuses is refused while reading, with its
# file and line, before the job is created or anything enqueued: a '..'
# segment (a graph holds paths, not URLs: nothing is resolved) and a C1
# control (U+0085, NEL: [:cntrl:]) in the graph and in the sitemap
printf '/\t/a\n/a\t/a/../b\n' >"$T/dots.tsv"
run simulate --graph "$T/dots.tsv" --job bad -q
ok_eq "a dot segment in the graph: exit 1" "$RC" 1
ok_match "a dot segment in the graph: names file and line" "$OUT" \
	"dots\.tsv:2: a path has no '\.' or '\.\.' segment before its query"
ok_unchanged "a dot segment in the graph" "$before"
printf '/\t/a\n/a\t/a\302\205b\n' >"$T/c1.tsv"
run simulate --graph "$T/c1.tsv" --job bad -q
ok_eq "a C1 control in the graph: exit 1" "$RC" 1
ok_match "a C1 control in the graph: names file and line" "$OUT" \
	"c1\.tsv:2: a path holds no white space or control character: byte 3 is one"
ok_unchanged "a C1 control in the graph" "$before"
printf '/a1\n/a1/b1/.\n' >"$T/dots.sitemap"
run simulate --graph "$T/tree.tsv" --sitemap "$T/dots.sitemap" --job bad -q
ok_match "a dot segment in the sitemap: names file and line" "$OUT" \
	"dots\.sitemap:2: a path has no '\.' or '\.\.' segment"
printf '/a1\n/a\302\205b\n' >"$T/c1.sitemap"
run simulate --graph "$T/tree.tsv" --sitemap "$T/c1.sitemap" --job bad -q
ok_eq "a C1 control in the sitemap: exit 1" "$RC" 1
ok_match "a C1 control in the sitemap: names file and line" "$OUT" \
	"c1\.sitemap:2: a path holds no white space or control character: byte 3 is one"
ok_unchanged "a C1 control in the sitemap" "$before"
run simulate --graph "$T/tree.tsv" --job bad --workers 0
ok_eq "--workers 0: exit 2" "$RC" 2
ok_match "--workers 0: the range" "$OUT" '--workers 0: must be a whole number in 1\.\.64'
run simulate --graph "$T/tree.tsv" --job bad --fail-rate 1.5
ok_match "--fail-rate 1.5: the range" "$OUT" '--fail-rate 1\.5: must be a number in 0\.\.1'
run simulate --graph "$T/tree.tsv" --job bad --priority 0
ok_match "--priority 0: the rule" "$OUT" 'priority 0 is outside 1\.\.10'
run simulate --graph "$T/tree.tsv"
ok_eq "no --job: exit 2" "$RC" 2
run simulate --graph "$T/tree.tsv" --job bad --order-out "$T/no/such/dir/order"
ok_eq "--order-out in a missing directory: exit 1" "$RC" 1
ok_match "--order-out in a missing directory: says so" "$OUT" 'order: cannot create: No such file'
run simulate --graph "$T/tree.tsv" --job tree1 --mode fifo
ok_eq "existing job in another mode: exit 1" "$RC" 1
ok_match "existing job in another mode: says so" "$OUT" 'job tree1 exists in mode hierarchy, not fifo'
psql -qc "CREATE ROLE cli_sim_ro LOGIN IN ROLE crawltop_viewer" >/dev/null
run simulate --graph "$T/tree.tsv" --job bad -d "$CT_TEST_DSN dbname=$DB user=cli_sim_ro"
ok_eq "read-only role: exit 1" "$RC" 1
ok_match "read-only role: permission denied" "$OUT" 'permission denied for function create_job'
ok_unchanged "bad input" "$before"

# ---- scores from the store's settings, not the configuration file -------
# simulate scores the pages it seeds and the links it finds with the
# settings version the store keeps, as a rescore does (lib.sh:
# stored_settings lists the scores under each). '/' (the seed: 100 under
# any settings, frontier.h) and the sitemap's /orphan (depth 1: no link
# reaches it; CONF 34.7222 P3, SV 63.2353 P1 with the sitemap's bonus)
# are seeded; the two are fetched, '/' first, and '/' yields /a1../a4
# (link, depth 1: p = weight + 1, CONF 27.1739 P3, SV 48.0769 P1), left
# pending and rescored.
stored_settings "$T"
printf '/orphan\n' >"$T/orphan.sitemap"
CRAWLTOP_CONFIG=$CONF run simulate --graph "$T/tree.tsv" --sitemap "$T/orphan.sitemap" \
	--job st-sim --mode frontier --workers 1 --latency-ms 0 --max-pages 2 -q
ok_eq "stored settings: exit 0" "$RC" 0
ok_eq "stored settings: seeds and links scored with the stored version, not the file" \
	"$(scores st-sim)" "/ 100.0000 P0; /a1 48.0769 P1; /a2 48.0769 P1; /a3 48.0769 P1; /a4 48.0769 P1; /orphan 63.2353 P1"
ok_rescore_agrees st-sim

# ---- a discovery job: raw signals from the graph, ranked by crawltop rank -----
# '/' has 12 links to it in the tree (the bJ pages link home), /a1 one
CRAWLTOP_CONFIG=$CONF run simulate --graph "$T/tree.tsv" --job sig-sim \
	--mode discovery --workers 1 --latency-ms 0 --max-pages 2 -q
ok_eq "discovery: exit 0" "$RC" 0
ok_eq "discovery: each task's raw signals from the graph (/ and /a1)" \
	"$(q "SELECT string_agg(p.path || ' ' || (t.score_inputs->'signals'->>'backlinks')
		|| ' ' || (t.score_inputs->'signals'->>'vendor_fingerprint')
		|| ' ' || (t.score_inputs->'signals'->>'age_hours'), '; ' ORDER BY p.path)
	      FROM crawltop.tasks t JOIN crawltop.jobs j ON j.id = t.job_id
	      JOIN crawltop.pages p ON p.id = t.page_id
	      WHERE j.name = 'sig-sim' AND p.path IN ('/', '/a1')")" \
	"/ 12 true 0; /a1 1 true 24"
ok_eq "discovery: unranked, every task at the P2 bound" \
	"$(q "SELECT count(DISTINCT score) || ' ' || bool_and(ranked_at IS NULL) FROM crawltop.tasks t
	      JOIN crawltop.jobs j ON j.id = t.job_id WHERE j.name = 'sig-sim'")" "1 true"
run rank --job sig-sim
ok_eq "discovery: crawltop rank (the store's settings) ranks them from their signals" "$RC" 0
ok_eq "discovery: ranked, scores apart" \
	"$(q "SELECT bool_and(ranked_at IS NOT NULL) || ' ' || (count(DISTINCT score) > 1)
	      FROM crawltop.tasks t JOIN crawltop.jobs j ON j.id = t.job_id
	      WHERE j.name = 'sig-sim' AND t.status = 'pending'")" "true true"
ok_rescore_agrees sig-sim
done_testing
