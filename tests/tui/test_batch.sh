#!/usr/bin/env bash
# test_batch.sh CRAWLTOP: `crawltop top -b` (plain text, like top -b) and
# `--json` against the cluster pg-cluster.sh started; usage errors.
set -u
CT=$1
HERE=$(dirname "$0")
. "$HERE/../cli/tap.sh"
. "$HERE/seed.sh"

seed_db tui_batch

out=$("$CT" top -b -n 2 -i 0.5 -d "$DSN password=s3cr3t" 2>&1); rc=$?
ok_eq "-b -n 2: exit 0" "$rc" 0
ok_eq "-b -n 2: two snapshots" "$(printf '%s\n' "$out" | grep -c '^crawltop ')" 2
ok_match "header: connection without password, state, interval" "$out" \
	'^crawltop [0-9-]+ [0-9:]+  postgres@/[^ ]+:5432/tui_batch  LIVE  every 0\.5s  db [0-9.]+ ms'
ok_eq "no password in the output" "$(printf '%s' "$out" | grep -c s3cr3t)" 0
ok_match "totals" "$out" '^Tasks: +pending 12, running 2, retrying 0, completed 0, failed 0, skipped 0;'
ok_match "class distribution with percentages" "$out" \
	'^Class: +P0 0 \(0\.0%\) P1 0 \(0\.0%\) P2 5 \(41\.7%\) P3 7 \(58\.3%\)'
ok_match "depth buckets" "$out" '^Depth: +0 2 1 5 2 3 3\+ 0 unknown 2'
ok_match "priority histogram" "$out" '^Priority: 1 0 2 0 3 5 4 0 5 5 6 0 7 2 8 0 9 0 10 0'
ok_match "heatmap cells" "$out" '^Heatmap: .*link\|article 8'
ok_match "job rows, in priority order" "$out" \
	'1 alpha +alpha\.example\.com +hierarchy +3 +running +7 +0 +5 +2 +0 +0'
ok_match "job table: RUN, then RETRY" "$out" ' PEND +RUN +RETRY +FAIL '
ok_match "status: alpha (2 of 7 claimed) running, beta and gamma pending" \
	"$(printf '%s\n' "$out" | awk '$1 ~ /^[123]$/ && $2 ~ /^(alpha|beta|gamma)$/ { print $2, $6 }' | sort -u | tr '\n' ,)" \
	'^alpha running,beta pending,gamma pending,$'
ok_match "next up: task, job, class, score, path and why" "$out" \
	'P2 +50\.00  /blog +prio 3, waited [0-9]+s, depth 0, sitemap/page'

out=$("$CT" top -b -n 1 -j beta -d "$DSN" 2>&1); rc=$?
ok_eq "-j beta: exit 0" "$rc" 0
ok_match "-j beta: focus line" "$out" '^Focus: +job 2 beta'
ok_match "-j beta: totals of beta only" "$out" '^Tasks: +pending 5, running 0,'
for fmt in "" --json; do
	out=$("$CT" top -b -n 1 $fmt -j nosuch -d "$DSN" 2>&1); rc=$?
	ok_eq "-j nosuch $fmt: exit 1" "$rc" 1
	ok_eq "-j nosuch $fmt: says so, prints no snapshot" "$out" \
		"crawltop top: -j nosuch: no such job (no job has that name or id)"
done

# the jobs cannot be read: -j cannot be resolved, and top says so
# instead of waiting for ever
sql "ALTER FUNCTION crawltop.job_health(integer) RENAME TO job_health_gone" >/dev/null
out=$(timeout 30 "$CT" top -b -n 1 -j beta -d "$DSN" 2>&1); rc=$?
sql "ALTER FUNCTION crawltop.job_health_gone(integer) RENAME TO job_health" >/dev/null
ok_eq "-j beta, the jobs unreadable: exit 1, not a wait" "$rc" 1
ok_match "-j beta, the jobs unreadable: says why" "$out" \
	'^crawltop top: -j beta: dashboard jobs: function crawltop.job_health\(integer\) does not exist'

out=$("$CT" top -b -n 1 --json -d "$DSN" 2>&1); rc=$?
ok_eq "--json: exit 0" "$rc" 0
got=$(printf '%s' "$out" | python3 -c '
import json, sys
d = json.loads(sys.stdin.read())
print(len(d["jobs"]), d["totals"]["pending"], d["queue"]["class"]["P3"],
      d["next"][0]["path"], d["state"], d["errors"],
      ",".join(j["status"] for j in d["jobs"]))')
ok_eq "--json: one parseable object with jobs, totals, queue, next" "$got" \
	"3 12 7 /blog LIVE {} running,pending,pending"
# a decimal-comma locale (LC_ALL=de_DE.UTF-8) changes no number: the JSON
# stays JSON, scores and shares keep their point
# (stdout alone: LeakSanitizer's list of the suppressions it used goes to
# stderr in the sanitizer build)
out=$("$HERE/../unit/in_locale.sh" "$CT" top -b -n 1 --json -d "$DSN" 2>/dev/null); rc=$?
ok_eq "de_DE.UTF-8: --json exit 0" "$rc" 0
got=$(printf '%s' "$out" | python3 -c '
import json, sys
d = json.loads(sys.stdin.read())
print(d["next"][0]["path"], d["next"][0]["score"], type(d["db_ms"]).__name__)' 2>&1)
ok_eq "de_DE.UTF-8: --json parses, db_ms a number" "$got" "/blog 50 float"
out=$("$HERE/../unit/in_locale.sh" "$CT" top -b -n 1 -d "$DSN" 2>&1)
ok_match "de_DE.UTF-8: text shares and scores with a point" "$out" \
	'^Class: +P0 0 \(0\.0%\) P1 0 \(0\.0%\) P2 5 \(41\.7%\)'
ok_match "de_DE.UTF-8: next up's score" "$out" 'P2 +50\.00  /blog'
out=$("$CT" top -b -n 2 -i 0.5 --json -d "$DSN" 2>&1)
ok_eq "--json -n 2: one line per snapshot" "$(printf '%s\n' "$out" | grep -c '^{')" 2

# a failed attempt waiting for its retry (running, no lease owner) is
# retrying: in the totals, the job row, the JSON and the queue's status
# cells, never running; alpha, with one task still held, stays running
psql -qAtd tui_batch -c "SELECT count(*) FROM crawltop.fail('w1', ARRAY(SELECT id FROM crawltop.tasks WHERE lease_owner = 'w1' ORDER BY id LIMIT 1), 'timeout')" >/dev/null
# its retry backoff (10 s) made an hour: the console takes a task whose
# backoff is over back to pending before it refreshes (0018)
psql -qAtd tui_batch -c "UPDATE crawltop.tasks SET lease_expires_at = now() + interval '1 hour' WHERE status = 'running' AND lease_owner IS NULL" >/dev/null
out=$("$CT" top -b -n 1 -d "$DSN" 2>&1)
ok_match "retrying: totals" "$out" '^Tasks: +pending 12, running 1, retrying 1, completed 0,'
ok_match "retrying: alpha's row (pend run retry fail)" "$out" \
	'1 alpha +alpha\.example\.com +hierarchy +3 +running +7 +0 +5 +1 +1 +0'
out=$("$CT" top -b -n 1 --json -d "$DSN" 2>&1)
got=$(printf '%s' "$out" | python3 -c '
import json, sys
d = json.loads(sys.stdin.read())
a = d["jobs"][0]
print(d["totals"]["running"], d["totals"]["retrying"], a["running"],
      a["retrying"], d["queue"]["status"]["running"],
      d["queue"]["status"]["retrying"])')
ok_eq "retrying: --json totals, job, queue status (running retrying)" "$got" "1 1 1 1 1 1"

# paths in CJK and emoji, and one longer than its column: next up's
# columns by display width (two columns a CJK character or an emoji), the
# long one cut, so that WHY starts at one column in every row
PGCLIENTENCODING=UTF8 psql -qAtd tui_batch -c "SELECT inserted FROM crawltop.enqueue(1, ARRAY['/日本語/ページ', '/🚀/launch', '/a-path-much-longer-than-the-forty-columns-of-its-field'], 'link', NULL, 0, 'page', 'link')" >/dev/null
out=$(LC_ALL=C.UTF-8 "$CT" top -b -n 1 -d "$DSN" 2>&1)
cols=$(printf '%s\n' "$out" | python3 -c '
import sys, unicodedata
def w(s):
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)
print(" ".join(str(c) for c in sorted({w(l[:l.index(" prio ")])
    for l in sys.stdin if " prio " in l})))')
ok_eq "CJK and emoji paths: WHY starts at one display column in every row" "$cols" 73
ok_match "next up: the CJK path whole" "$out" '  /日本語/ページ +prio 3'
ok_match "next up: the emoji path whole" "$out" '  /🚀/launch +prio 3'
ok_match "next up: the long path cut to its column" "$out" \
	'  /a-path-much-longer-than-the-forty-colu… prio 3'

# NAME and DOMAIN as wide as their longest value: out of a terminal (a
# file, a pipe) nothing is cut (DOMAIN was cut at 24 columns)
psql -qAtd tui_batch -c "SELECT crawltop.create_job('a-job-name-longer-than-twenty', 'a-very-long-subdomain.of-an-example-site.example.org', 5, 'fifo')" >/dev/null
# a missing type or discovery method is null in --json, in the heatmap's
# cells and in next up alike (they said "none" and "")
psql -qAtd tui_batch -c "SELECT inserted FROM crawltop.enqueue(1, ARRAY['/no-type-here'])" >/dev/null
got=$("$CT" top -b -n 1 --json -d "$DSN" 2>&1 | python3 -c '
import json, sys
d = json.loads(sys.stdin.read())
vals = {c["type"] for c in d["queue"]["heat"]} | {n["type"] for n in d["next"]}
print("none" in vals, "" in vals, None in vals)')
ok_eq "--json: a missing type is null in heat and next, never \"none\" or \"\"" "$got" "False False True"
TMPF=$(mktemp)
"$CT" top -b -n 1 -d "$DSN" >"$TMPF" 2>&1
out=$(cat "$TMPF")
ok_match "top -b to a file: a long name and domain whole" "$out" \
	' a-job-name-longer-than-twenty +a-very-long-subdomain\.of-an-example-site\.example\.org +fifo +5 '
ok_eq "top -b to a file: the header's MODE over the rows' mode" \
	"$(awk '/ NAME +DOMAIN /{ print index($0, " MODE") } / a-job-name-longer/{ print index($0, " fifo") }' "$TMPF" | sort -u | wc -l)" 1
rm -f "$TMPF"

out=$("$CT" top -b -n 1 -d "host=/nonexistent dbname=x" 2>&1); rc=$?
ok_eq "unreachable server: exit 1" "$rc" 1
ok_match "unreachable server: says why" "$out" '^crawltop top: connection to server'
# a database that was never migrated: the dashboard shows the error, and
# stderr says it too (it used to be on stdout only)
psql -qAtc "CREATE DATABASE tui_batch_bare" >/dev/null
err=$("$CT" top -b -n 1 -d "$CT_TEST_DSN dbname=tui_batch_bare" 2>&1 >/dev/null); rc=$?
ok_eq "unmigrated database: exit 1" "$rc" 1
ok_match "unmigrated database: stderr says why" "$err" \
	'^crawltop top: .*(not migrated|does not exist)'
out=$("$CT" top -b -i 0.1 2>&1); rc=$?
ok_eq "-i below the floor: exit 2" "$rc" 2
ok_match "-i below the floor: names the value and the rule" "$out" \
	'-i 0\.1: the interval must be 0\.5\.\.3600 seconds \(0\.5 is the refresh floor\)'
for v in 0x10 ' 2' +2 inf; do
	out=$("$CT" top -b -n 1 -i "$v" 2>&1); rc=$?
	ok_eq "-i '$v' (not plain decimal): exit 2" "$rc" 2
	ok_match "-i '$v': not a number" "$out" ': not a number of seconds$'
done
out=$("$CT" top -b -n 0x2 2>&1); rc=$?
ok_eq "-n 0x2: exit 2" "$rc" 2
out=$("$CT" top -n 2 2>&1); rc=$?
ok_eq "-n without -b: exit 2" "$rc" 2
out=$("$CT" -r -b -n 1 -d "$DSN" 2>&1); rc=$?
ok_match "crawltop with options only runs the console command" "$out" '^crawltop [0-9-]+ '
out=$("$CT" top -d "$DSN" </dev/null 2>&1); rc=$?
ok_eq "the console without a terminal: exit 1" "$rc" 1
ok_match "the console without a terminal: says to use -b" "$out" \
	'needs a terminal.*crawltop top -b'
# a terminal that cannot move the cursor: refused before anything is drawn
# (TERM=dumb showed the key line only); script(1) gives it a terminal
out=$(TERM=dumb script -qec "$CT top -d '$DSN'" /dev/null 2>&1 </dev/null); rc=$?
ok_eq "TERM=dumb: exit 1" "$rc" 1
ok_match "TERM=dumb: says why" "$out" \
	"terminal type 'dumb' cannot move the cursor: the console needs one that can"

# an importance job (0033): next up says how many links each task has in,
# in text, in --json and on the console's screen
imp=$(psql -qAtd tui_batch -c "SELECT crawltop.create_job('imp', 'imp.example', 1, 'importance')")
psql -qAtd tui_batch -c "SELECT inserted FROM crawltop.enqueue($imp, '{/}', 'manual')" >/dev/null
home=$(psql -qAtd tui_batch -c "SELECT p.id FROM crawltop.pages p JOIN crawltop.jobs j ON j.domain_id = p.domain_id WHERE j.id = $imp AND p.path = '/'")
psql -qAtd tui_batch -c "SELECT inserted FROM crawltop.enqueue($imp, '{/i1,/i2}', 'link', $home)" >/dev/null
i1=$(psql -qAtd tui_batch -c "SELECT p.id FROM crawltop.pages p JOIN crawltop.jobs j ON j.domain_id = p.domain_id WHERE j.id = $imp AND p.path = '/i1'")
psql -qAtd tui_batch -c "SELECT inserted FROM crawltop.enqueue($imp, '{/i2}', 'link', $i1)" >/dev/null
out=$("$CT" top -b -n 1 -j imp -d "$DSN" 2>&1); rc=$?
ok_eq "importance job: exit 0" "$rc" 0
ok_eq "importance job: next up, the homepage (a seed) first, then /i2, linked twice, then /i1" \
	"$(printf '%s\n' "$out" | grep -E '  /(i[12])? ' | sed -E 's/.*  (\/i?[12]?) +prio 1, waited [0-9]+s, /\1 /' | tr '\n' '|')" \
	'/ 0 links in|/i2 2 links in|/i1 1 link in|'
got=$("$CT" top -b -n 1 -j imp --json -d "$DSN" 2>&1 | python3 -c '
import json, sys
d = json.loads(sys.stdin.read())
print(" ".join("%s=%s" % (n["path"], n["links_in"]) for n in d["next"]))')
ok_eq "importance job: --json links_in" "$got" "/=0 /i2=2 /i1=1"
got=$("$CT" top -b -n 1 -j alpha --json -d "$DSN" 2>&1 | python3 -c '
import json, sys
d = json.loads(sys.stdin.read())
print({n["links_in"] for n in d["next"]})')
ok_eq "a job of another mode: --json links_in null" "$got" "{None}"
. "$HERE/tmux.sh"
tm_start 120 30
tm_run "'$CT' -d '$DSN' -i 1 -j imp"
ok_screen "importance job: the console's next up says the links in" \
	' /i2 +2 links in, prio 1, age '
ok_screen "... and one for /i1" ' /i1 +1 link in, prio 1, age '
tm_keys q
done_testing
