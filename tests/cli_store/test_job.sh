#!/usr/bin/env bash
# test_job.sh CRAWLTOP: `crawltop job` against a throwaway cluster: every
# subcommand's happy path, then bad input (unknown job, priority 0 and 11,
# bad names and modes, a refused transition, cancel without --yes, a
# read-only role): each a clear message, a non-zero exit, and the database
# unchanged; last, set-mode scores with the store's settings version, not
# with the configuration file's.
set -u
CT=$1
here=$(dirname "$0")
. "$here/../cli/tap.sh"
. "$here/lib.sh"
db_setup cli_job
export CRAWLTOP_DSN=$DSN
NODB="host=/nonexistent dbname=x"

# ---- happy paths -------------------------------------------------------
run job create news --domain Example.COM --priority 3 --mode hierarchy
ok_eq "create: exit 0" "$RC" 0
ok_match "create: says what it created" "$OUT" \
	'^created job news \(id 1\) over example\.com, priority 3, mode hierarchy$'
run job create docs --domain docs.example.com
ok_match "create: default priority 5 and mode importance (0034)" "$OUT" \
	'priority 5, mode importance$'
ok_eq "create: stored" "$(q "SELECT name || ' ' || priority || ' ' || prioritization_mode FROM crawltop.jobs ORDER BY id" | tr '\n' ';')" \
	"news 3 hierarchy;docs 5 importance;"

"$CT" enqueue --job news --urls <(printf '/\n/a/1\n/a/2\n/b/1\n') >/dev/null
run job list
ok_eq "list: exit 0" "$RC" 0
ok_eq "list: a header and one line per job" "$(printf '%s\n' "$OUT" | wc -l)" 3
ok_match "list: id, name, domain, mode, priority, status, pages, counts" \
	"$(printf '%s\n' "$OUT" | sed -n 2p)" \
	'^ +1 +news +example\.com +hierarchy +3 +pending +4 +4 +0 +0 +0 +0$'

run job show news
ok_eq "show by name: exit 0" "$RC" 0
ok_match "show: the domain" "$OUT" 'domain +example\.com'
ok_match "show: the pending count" "$OUT" 'pending +4'
run job show 2
ok_match "show by id" "$OUT" 'name +docs'

run job set-priority news 2
ok_eq "set-priority: exit 0" "$RC" 0
ok_match "set-priority: before, after and tasks" "$OUT" \
	'^job news \(1\): priority 3 -> 2; 4 pending tasks follow$'
ok_eq "set-priority: tasks follow" "$(q "SELECT DISTINCT job_priority FROM crawltop.tasks")" 2
ok_eq "set-priority: the audit row names the command as the application" \
	"$(q "SELECT application_name FROM crawltop.audit_log WHERE action = 'job.priority' ORDER BY id DESC LIMIT 1")" "crawltop job"
audit=$(q "SELECT count(*) FROM crawltop.audit_log")
run job set-priority news 2
ok_eq "set-priority to the same: exit 0" "$RC" 0
ok_match "set-priority to the same: says so" "$OUT" '^job news \(1\): priority 2 already; nothing changed$'
ok_eq "set-priority to the same: no audit row" "$(q "SELECT count(*) FROM crawltop.audit_log")" "$audit"

run job pause news
ok_match "pause" "$OUT" 'paused \(was pending\); 4 pending tasks held back'
ok_eq "pause: job paused" "$(q "SELECT status FROM crawltop.jobs WHERE id = 1")" paused
run job resume news
ok_match "resume" "$OUT" 'resumed \(was paused\)'
ok_eq "resume: claimable again" "$(q "SELECT DISTINCT job_priority FROM crawltop.tasks")" 2

run job boost news --prefix /a --by 10
ok_match "boost: two tasks under /a" "$OUT" '2 pending tasks under /a boosted by 10 points'
ok_eq "boost: scores" "$(q "SELECT string_agg(t.score::text, ' ' ORDER BY p.path) FROM crawltop.tasks t JOIN crawltop.pages p ON p.id = t.page_id")" \
	"100 20 20 10"
run job boost news --prefix /a/1 --by 5 --demote
ok_match "demote" "$OUT" '1 pending task under /a/1 demoted by 5 points'
run job boost news --pattern '*/1' --by 2
ok_match "boost by a pattern: the whole path matches" "$OUT" '2 pending tasks matching \*/1 boosted by 2 points'
ok_eq "boost by a pattern: its audit row" \
	"$(q "SELECT after->>'pattern' FROM crawltop.audit_log WHERE action = 'tasks.boost' ORDER BY id DESC LIMIT 1")" '*/1'
audits=$(q "SELECT count(*) FROM crawltop.audit_log")
# --dry-run: how many it would change, changing nothing (0026)
before=$(state)
run job boost news --prefix /a --by 3 --dry-run
ok_eq "boost --dry-run: exit 0" "$RC" 0
ok_match "boost --dry-run: the count, nothing changed" "$OUT" \
	'^job news \(1\): 2 pending tasks under /a would be boosted by 3 points \(--dry-run: nothing changed\)$'
run job boost news --pattern '*/1' --by 100 --demote --dry-run
ok_match "demote --dry-run by a pattern" "$OUT" \
	'2 pending tasks matching \*/1 would be demoted by 100 points'
run job boost news --prefix /none --by 5 --dry-run
ok_match "--dry-run matching nothing" "$OUT" '0 pending tasks under /none: nothing would change'
ok_unchanged "boost --dry-run" "$before"
run job boost news --prefix /none --by 5
ok_match "a boost that matches nothing says so" "$OUT" '0 pending tasks under /none: nothing changed'
run job boost news --pattern '*/none' --by 5 --demote
ok_match "a pattern that matches nothing says so" "$OUT" '0 pending tasks match \*/none: nothing changed'
ok_eq "neither is audited" "$(q "SELECT count(*) FROM crawltop.audit_log")" "$audits"

run job set-mode news fifo
ok_eq "set-mode: exit 0" "$RC" 0
ok_match "set-mode: tasks rescored" "$OUT" 'mode hierarchy -> fifo; 4 unfinished tasks rescored'
ok_match "set-mode: says what fifo makes of the running crawlers" "$OUT" \
	'^job news \(1\): running crawlers keep working: new tasks queue in the order found$'
# fifo scores 0 unless an operator boosted the task (SPEC.md): the points
# of the boost (+10 under /a), the demotion (-5 of /a/1) and the pattern's
# (+2 of */1) are kept
ok_eq "set-mode: fifo scores are 0 plus the operators' points" "$(scores news)" \
	"/ 0.0000 P3; /a/1 7.0000 P3; /a/2 10.0000 P3; /b/1 2.0000 P3"

# ---- bad input: message, exit status, nothing changed -------------------
before=$(state)
run job show nosuch
ok_eq "unknown job: exit 1" "$RC" 1
ok_eq "unknown job: names it" "$OUT" \
	"crawltop job: job 'nosuch' does not exist (no job has that name)"
run job set-priority nosuch 3
ok_match "set-priority of an unknown job names it" "$OUT" "job 'nosuch' does not exist"
ok_eq "set-priority of an unknown job: exit 1" "$RC" 1

for p in 0 11; do
	run job set-priority news $p -d "$NODB"
	ok_eq "priority $p: exit 2 before connecting" "$RC" 2
	ok_match "priority $p: the rule" "$OUT" \
		"^crawltop job: priority $p is outside 1\.\.10 \(1 is the most urgent"
done
run job set-priority news 1.5
ok_eq "priority 1.5: exit 2" "$RC" 2
# plain decimal numbers only: no blanks, '+' or hexadecimal
for p in " 3" "+3" "0x3" "3 " ""; do
	run job set-priority news "$p" -d "$NODB"
	ok_eq "priority '$p': exit 2 before connecting" "$RC" 2
	ok_match "priority '$p': not a whole number" "$OUT" "is not a whole number: a job priority is 1\\.\\.10"
done
for by in 0x10 " 5" +5 inf nan 1e 1.2.3 .; do
	run job boost news --prefix / --by "$by" -d "$NODB"
	ok_eq "boost --by '$by': exit 2 before connecting" "$RC" 2
done
run job boost news --prefix / --by 1e1 -d "$NODB"
ok_eq "boost --by 1e1 (a plain decimal exponent): parsed, then no database (exit 1)" "$RC" 1
run job create other --domain o.example --priority 11
ok_eq "create --priority 11: exit 2" "$RC" 2
run job create other --domain o.example --mode bogus
ok_match "create --mode bogus: lists the modes" "$OUT" "mode 'bogus' is unknown: use fifo"
run job create news --domain example.com
ok_eq "create a taken name: exit 1" "$RC" 1
ok_match "create a taken name: says so" "$OUT" "job name 'news' is taken"
run job create "bad name;" --domain example.com
ok_match "create a bad name: the rule" "$OUT" "is not allowed: use 1 to 64 of"
run job create "$(printf 'a\033[31mRED')" --domain example.com
ok_match "a name with an ESC sequence: refused, the ESC shown as \\x1b" "$OUT" \
	"name 'a\\\\x1b\\[31mRED' holds control or invisible characters: refused"
ok_eq "... and no ESC byte reaches the terminal" "$(printf '%s' "$OUT" | tr -cd '\033' | wc -c)" 0
run job boost news --prefix "$(printf '/a\302\205b')" --by 5
ok_eq "a --prefix with a C1 control (U+0085): exit 1" "$RC" 1
ok_match "a --prefix with a C1 control: refused, shown as its bytes" "$OUT" \
	"--prefix '/a\\\\xc2\\\\x85b' holds control or invisible characters: refused"
run job create "$(printf 'n\377')" --domain example.com
ok_eq "a name that is not UTF-8: exit 1" "$RC" 1
ok_match "a name that is not UTF-8: named, the byte, the rule" "$OUT" \
	"name 'n\\\\xff' is not UTF-8 text \\(byte 2\\): a job is named by"
run job boost news --prefix "$(printf '/a\300')" --by 5
ok_match "a --prefix that is not UTF-8: refused before the server" "$OUT" \
	"--prefix '/a\\\\xc0' is not UTF-8 text"
run job create 42 --domain example.com
ok_eq "create a name of digits only: exit 1" "$RC" 1
ok_match "create a name of digits only: why" "$OUT" "job name '42' is not allowed: a name of digits only would read as a job id"
ok_match "rename to digits only (SQL): refused too" \
	"$(psql -qAtd "$DB" -c "UPDATE crawltop.jobs SET name = '7' WHERE name = 'news'" 2>&1)" \
	"job name '7' is not allowed"
run job create other --domain 'not a host'
ok_match "create a bad domain: the rule" "$OUT" "is not a host name"
run job create other
ok_eq "create without --domain: exit 2" "$RC" 2
run job set-mode news bogus
ok_eq "set-mode bogus: exit 2" "$RC" 2
for n in 0 x 17; do
	run job set-mode news fifo --connections $n
	ok_eq "set-mode --connections $n: exit 2" "$RC" 2
done
ok_match "set-mode --connections 17: the range" "$OUT" '1\.\.16'
run job pause news --connections 2
ok_match "--connections belongs to set-mode only" "$OUT" '--connections does not apply to job pause'
run job resume news
ok_eq "resume a running job: exit 1" "$RC" 1
ok_match "resume a running job: the transition is named" "$OUT" 'is not paused: cannot resume'
run job cancel news
ok_eq "cancel without --yes: exit 1" "$RC" 1
ok_match "cancel without --yes: says how many tasks" "$OUT" \
	'would skip its 4 pending tasks for good: add --yes'
run job boost news --prefix /a
ok_eq "boost without --by: exit 2" "$RC" 2
run job boost news --prefix /a --by 101
ok_match "boost --by 101: the range" "$OUT" 'must be a number in 0\.\.100'
run job boost news --prefix a --by 1
ok_match "boost --prefix without /: the rule" "$OUT" "starts with '/'"
run job boost news --pattern 'a*' --by 1
ok_eq "boost --pattern without / or *: exit 2" "$RC" 2
ok_match "boost --pattern without / or *: the rule" "$OUT" "starts with '/' or '\*'"
run job boost news --prefix /a --pattern '/b*' --by 1
ok_eq "boost with --prefix and --pattern: exit 2" "$RC" 2
ok_match "boost with --prefix and --pattern: one of them" "$OUT" 'one of --prefix /PATH and --pattern GLOB'
run job boost news --pattern '/a *' --by 1
ok_eq "boost --pattern with a space: refused by the store, exit 1" "$RC" 1
ok_match "boost --pattern with a space: the store's rule" "$OUT" "is not a pattern of page paths"
run job list --yes
ok_match "an option of another subcommand" "$OUT" '--yes does not apply to job list'
run job frobnicate
ok_eq "unknown subcommand: exit 2" "$RC" 2
ok_match "unknown subcommand: lists every one, from the table" "$OUT" '\(list, show, .*, boost, sitemap-priorities\)'
# no subcommand: the list comes from the same table, so it names every
# subcommand the usage names (it once left out sitemap-priorities)
run job
ok_eq "no subcommand: exit 2" "$RC" 2
ok_eq "no subcommand: lists every one, from the table" "$OUT" \
	"crawltop job: which subcommand? ($("$CT" job --help | sed -n '1s/^usage: crawltop job \([^ ]*\) .*/\1/p' | sed 's/|/, /g'); crawltop job --help)"
ok_match "no subcommand: sitemap-priorities among them" "$OUT" 'boost, sitemap-priorities;'
run enqueue --job news --urls "$(printf '/nonexistent/a\tb')"
ok_match "a tab in an argument stays escaped" "$OUT" '/nonexistent/a.x09b: cannot open'
run settings set default_priority -h
ok_match "settings set KEY -h: a value, not a cry for help" "$RC $OUT" "^2 crawltop settings: .*default_priority"
run job show news extra
ok_eq "extra argument: exit 2" "$RC" 2
run job list -d "$NODB"
ok_eq "unreachable server: exit 1" "$RC" 1
ok_match "unreachable server: says so" "$OUT" '^crawltop job: connect: '
ok_match "unreachable server: libpq's second line indented, no escaped tab" "$OUT" '^ Is the server running'
ok_unchanged "bad input" "$before"

# ---- a read-only role --------------------------------------------------
psql -qc "CREATE ROLE cli_ro LOGIN IN ROLE crawltop_viewer" >/dev/null
RO="$CT_TEST_DSN dbname=$DB user=cli_ro"
run job list -d "$RO"
ok_eq "read-only role: list works" "$RC" 0
for cmd in "create ro1 --domain ro.example" "set-priority news 4" "pause news" \
	"cancel news --yes" "boost news --prefix / --by 1" "set-mode news hierarchy"; do
	# shellcheck disable=SC2086
	run job $cmd -d "$RO"
	ok_eq "read-only role: job ${cmd%% *} exits 1" "$RC" 1
	ok_match "read-only role: job ${cmd%% *} says permission denied" "$OUT" \
		'permission denied .*connected as role "cli_ro" \(SQLSTATE 42501\)'
done
ok_unchanged "read-only role" "$before"
psql -qc "CREATE ROLE cli_op LOGIN IN ROLE crawltop_operator" >/dev/null
run job set-priority news 2 -d "$CT_TEST_DSN dbname=$DB user=cli_op"
ok_eq "a crawltop_operator role may reprioritise" "$RC" 0

# ---- cancel for good ---------------------------------------------------
run job cancel news --yes
# (resumed, it stores running, but shows pending: nothing claimed yet)
ok_match "cancel --yes" "$OUT" 'cancelled \(was pending\); 4 pending tasks skipped'
ok_eq "cancel: tasks skipped" "$(q "SELECT string_agg(DISTINCT status, ',') FROM crawltop.tasks")" skipped
run enqueue --job news --urls <(echo /new)
ok_eq "enqueue into a cancelled job: exit 1" "$RC" 1
ok_match "enqueue into a cancelled job: says so" "$OUT" 'is cancelled: it takes no new tasks'
run job resume news
ok_match "resume a cancelled job: says it is cancelled" "$RC $OUT" '^1 .*is cancelled: cannot resume'
audits=$(q "SELECT count(*) FROM crawltop.audit_log")
prio=$(q "SELECT priority FROM crawltop.jobs WHERE name = 'news'")
run job set-priority news $((prio == 2 ? 3 : 2))
ok_match "priority of a cancelled job: refused, says why (0019)" "$RC $OUT" \
	'^1 .*is cancelled: its priority orders nothing any more'
ok_eq "priority of a cancelled job: no audit row, the priority kept" \
	"$(q "SELECT count(*) FROM crawltop.audit_log") $(q "SELECT priority FROM crawltop.jobs WHERE name = 'news'")" \
	"$audits $prio"

# ---- the status shown follows the tasks -------------------------------
# jobs.status keeps the operator's state; job list, job show and stats
# show running while a worker holds a task, pending while tasks wait to be
# claimed, completed when all are done, paused and cancelled as stored.
shown() { # JOB: the status job show, job list and stats show, "|"-joined
	local id
	id=$(q "SELECT id FROM crawltop.jobs WHERE name = '$1'")
	printf '%s|%s|%s' \
		"$("$CT" job show "$1" | awk '$1 == "status" { print $2 }')" \
		"$("$CT" job list | awk -v id="$id" '$1 == id { print $6 }')" \
		"$("$CT" stats --job "$1" | awk -v id="$id" '$1 == id { print $4 }')"
}
claim() { # JOB N: claim N of its tasks as worker w1; their ids, comma-separated
	q "SELECT string_agg(task_id::text, ',') FROM crawltop.claim('w1', $2,
		(SELECT id FROM crawltop.jobs WHERE name = '$1'))"
}
"$CT" job create flow --domain flow.example >/dev/null
"$CT" enqueue --job flow --urls <(printf '/\n/a\n/b\n') >/dev/null
ok_eq "status: tasks, none claimed: pending" "$(shown flow)" "pending|pending|pending"
ids=$(claim flow 1)
ok_eq "status: a task claimed: running" "$(shown flow)" "running|running|running"
q "SELECT count(*) FROM crawltop.complete('w1', '{$ids}')" >/dev/null
ok_eq "status: one done, two pending, none held: pending" "$(shown flow)" "pending|pending|pending"
ids=$(claim flow 5)
q "SELECT count(*) FROM crawltop.complete('w1', '{$ids}')" >/dev/null
ok_eq "status: every task done: completed" "$(shown flow)" "completed|completed|completed"
ok_eq "status: stored status unchanged" "$(q "SELECT status FROM crawltop.jobs WHERE name = 'flow'")" pending
run stats --job flow --json
ok_match "status: stats --json too" "$OUT" '"status":"completed"'
run enqueue --job flow --urls <(echo /c)
ok_eq "status: a completed job still takes tasks: exit 0" "$RC" 0
ok_eq "status: one more enqueued: pending again" "$(shown flow)" "pending|pending|pending"
ids=$(claim flow 1)
ok_eq "status: claimed: running again" "$(shown flow)" "running|running|running"
q "SELECT count(*) FROM crawltop.release('w1', '{$ids}')" >/dev/null
run job pause flow
ok_match "status: pause names the status shown" "$OUT" 'paused \(was pending\)'
ids=$(claim flow 1)
ok_eq "status: a paused job hands nothing out" "$ids" ""
ok_eq "status: paused stays paused" "$(shown flow)" "paused|paused|paused"
run job resume flow
ids=$(claim flow 1)
q "SELECT count(*) FROM crawltop.complete('w1', '{$ids}')" >/dev/null
ok_eq "status: resumed (stored running), every task done: completed" \
	"$(shown flow)" "completed|completed|completed"

# ---- failed attempts waiting for a retry: retrying, not running ----------
# fail with retries left keeps a task 'running' with no lease owner until
# its backoff ends: nobody fetches it, so every read counts it as retrying
# (job list's RETRYING column, job show, stats, top -b) and the job is not
# shown running
"$CT" job create flaky --domain flaky.example >/dev/null
"$CT" enqueue --job flaky --urls <(printf '/\n/a\n/b\n/c\n') >/dev/null
fid=$(q "SELECT id FROM crawltop.jobs WHERE name = 'flaky'")
ids=$(claim flaky 3)
q "SELECT count(*) FROM crawltop.fail('w1', '{$ids}', 'timeout')" >/dev/null
# a backoff of an hour (10 s by default), so that no claim below reaps them
# before the test says so, however slow the machine
q "UPDATE crawltop.tasks SET lease_expires_at = now() + interval '1 hour' WHERE job_id = $fid AND status = 'running'" >/dev/null
ok_eq "retrying: stored running without an owner" \
	"$(q "SELECT count(*) FROM crawltop.tasks WHERE job_id = $fid AND status = 'running' AND lease_owner IS NULL")" 3
ok_match "retrying: job list has a RETRYING column" "$("$CT" job list | head -1)" \
	' PENDING +RUNNING +RETRYING +COMPLETED +FAILED$'
ok_eq "retrying: job list counts them apart (pending running retrying)" \
	"$("$CT" job list | awk -v id="$fid" '$1 == id { print $8, $9, $10 }')" "1 0 3"
ok_eq "retrying: job show counts them apart" \
	"$("$CT" job show flaky | awk '$1 == "running" || $1 == "retrying" { printf "%s %s;", $1, $2 }')" \
	"running 0;retrying 3;"
ok_eq "retrying: stats counts them apart (pending running retrying)" \
	"$("$CT" stats --job flaky | awk -v id="$fid" '$1 == id { print $6, $7, $8 }')" "1 0 3"
run stats --job flaky --json
ok_match "retrying: stats --json" "$OUT" '"running":0,"retrying":3,'
run top -b -n 1 -j flaky
ok_match "retrying: top -b totals" "$OUT" 'Tasks: +pending 1, running 0, retrying 3, completed 0,'
ok_match "retrying: top -b has a RETRY column" "$OUT" ' PEND +RUN +RETRY +FAIL '
ok_match "retrying: top -b job row (pend run retry)" "$OUT" \
	"^ +$fid flaky .* pending +[0-9]+ +0 +1 +0 +3 +0 +[0-9.]+ "
run top -b -n 1 -j flaky --json
ok_match "retrying: top -b --json totals" "$OUT" '"totals":\{"pending":1,"running":0,"retrying":3,'
ok_eq "retrying: one pending, none held: pending" "$(shown flaky)" "pending|pending|pending"
path_of() { # TASK-ID: its path
	q "SELECT p.path FROM crawltop.tasks t JOIN crawltop.pages p ON p.id = t.page_id WHERE t.id = $1"
}
rpath=$(path_of "${ids%%,*}")
run explain "$rpath" --job flaky
ok_match "retrying: explain names the status" "$OUT" 'Task: +[0-9]+, retrying, '
ok_match "retrying: explain says when it is claimable again" "$OUT" \
	'Queue: +not queued: retrying after a failure \(retry 1 of 3\), claimable again at [0-9-]+ [0-9:]+ \(in [0-9]+s\)'
ok_match "retrying: explain shows the last error" "$OUT" "Last error: +'timeout'"
ids=$(claim flaky 1)
ok_eq "retrying: the pending one claimed: running" "$(shown flaky)" "running|running|running"
run explain "$(path_of "$ids")" --job flaky
ok_match "retrying: explain names a running task's worker" "$OUT" \
	'Queue: +not queued: running, leased to w1 until '
q "SELECT count(*) FROM crawltop.complete('w1', '{$ids}')" >/dev/null
ok_eq "retrying: only retries left: retrying" "$(shown flaky)" "retrying|retrying|retrying"
q "UPDATE crawltop.tasks SET lease_expires_at = now() - interval '1 second' WHERE job_id = $fid AND status = 'running'" >/dev/null
run explain "$rpath" --job flaky
ok_match "retrying: backoff over: claimable now" "$OUT" \
	'claimable again now \(since [0-9-]+ [0-9:]+; the next claim makes it pending\)'
ids=$(claim flaky 5)
ok_eq "retrying: the next claim reaps and hands them out" "$(echo "$ids" | tr ',' '\n' | wc -l)" 3
ok_eq "retrying: claimed again: running (pending running retrying)" \
	"$("$CT" job list | awk -v id="$fid" '$1 == id { print $6, $8, $9, $10 }')" "running 0 3 0"
# a lease that runs out with its worker gone: an expiry, no retry used
q "UPDATE crawltop.tasks SET lease_expires_at = now() - interval '1 second' WHERE job_id = $fid AND status = 'running'" >/dev/null
q "SELECT crawltop.reap_expired(100)" >/dev/null
run explain "$rpath" --job flaky
ok_match "expired: explain counts the expiry apart" "$OUT" \
	'Expiries: +1 lease ran out with the worker gone \(no retry used; store\.max_expiries limits them\)'
ok_eq "expired: no retry used (retry_count, expiries)" \
	"$(q "SELECT t.retry_count || ' ' || t.expiries FROM crawltop.tasks t JOIN crawltop.pages p ON p.id = t.page_id WHERE t.job_id = $fid AND p.path = '$rpath'")" "1 1"

run job --help
ok_match "--help lists every subcommand" "$OUT" \
	'list\|show\|create\|set-priority\|set-mode\|pause\|resume\|cancel\|boost\|sitemap-priorities'
run job show news --help
ok_match "--help after the arguments: the help, exit 0" "$RC $OUT" '^0 usage: crawltop job '
# -h as an option's value is that value, not a cry for help
run enqueue --job news --urls -h
ok_match "--urls -h: a file named -h" "$RC $OUT" "^1 crawltop enqueue: -h: cannot open"
run settings set default_priority 6 --note -h
ok_eq "--note -h: a note '-h', written" \
	"$RC $(q "SELECT note FROM crawltop.settings ORDER BY version DESC LIMIT 1")" "0 -h"
run settings set default_priority 5
run job sitemap-priorities news
ok_eq "sitemap-priorities: exit 0" "$RC" 0
ok_match "sitemap-priorities: what it did" "$OUT" 'job news \(1\): .* [0-9]+ pending tasks? raised'
run job sitemap-priorities nosuch
ok_eq "sitemap-priorities of an unknown job: exit 1" "$RC" 1

# ---- operator adjustments outlive rescores -------------------------------
# The review's case: /library of a freshness job boosted by 20 (73 -> 93),
# then a settings change and a rescore (set-mode to its own mode, as the
# console's apply rescores every job) put it back to 73. The points are
# kept: score = clamp(mode score + adjustment).
"$CT" job create fresh --domain fresh.example --mode freshness >/dev/null
"$CT" enqueue --job fresh --urls <(printf '/library/a\n/library/b\n/news\n') >/dev/null
ok_eq "adjust: never visited, 73" "$(scores fresh)" \
	"/library/a 73.0000 P1; /library/b 73.0000 P1; /news 73.0000 P1"
run job boost fresh --prefix /library --by 20
ok_match "adjust: boost" "$OUT" '2 pending tasks under /library boosted by 20 points'
run job boost fresh --prefix /news --by 10 --demote
ok_match "adjust: demote" "$OUT" '1 pending task under /news demoted by 10 points'
ok_eq "adjust: boosted to 93, demoted to 63" "$(scores fresh)" \
	"/library/a 93.0000 P0; /library/b 93.0000 P0; /news 63.0000 P1"
run settings set frontier.types.nav 11
ok_eq "adjust: a settings change (not of freshness): exit 0" "$RC" 0
run job set-mode fresh freshness --connections 3
ok_match "adjust: the rescore changes no task (--connections 3: one, below 50,000 tasks a connection)" "$OUT" \
	'mode freshness -> freshness; 3 unfinished tasks rescored with settings v[0-9]+, 0 changed$'
ok_eq "adjust: the boost and the demotion outlive it" "$(scores fresh)" \
	"/library/a 93.0000 P0; /library/b 93.0000 P0; /news 63.0000 P1"
run settings set freshness.never 5
run job set-mode fresh freshness --connections 1
ok_match "adjust: a freshness change rescores every task (one connection)" "$OUT" '3 changed$'
ok_eq "adjust: the new mode score plus the points (50 + 5 + 8 = 63)" \
	"$(scores fresh)" "/library/a 83.0000 P0; /library/b 83.0000 P0; /news 53.0000 P2"
run explain /library/a --job fresh
ok_match "adjust: explain shows the boost" "$OUT" \
	'^  - Operator adjustment: \+20 \(boost\), kept across rescores: mode score 63 \+ 20 = 83$'
run explain /news --job fresh
ok_match "adjust: explain shows the demotion" "$OUT" \
	'^  - Operator adjustment: -10 \(demotion\), kept across rescores: mode score 63 - 10 = 53$'
# a mode change whose rescore did not run (or stopped): the job says so,
# in job show and in the console's state and problems, until one
# completes (0027)
fid=$(q "SELECT id FROM crawltop.jobs WHERE name = 'fresh'")
q "SELECT crawltop.set_job_mode($fid, 'fifo')" >/dev/null
run job show fresh
ok_match "half-rescored: job show says so" "$OUT" \
	'^rescore +needed: tasks not all rescored for mode fifo \(since 20[0-9-]+T[0-9:]+Z; crawltop job set-mode fresh fifo\)$'
run top -b -n 1 -j fresh
ok_match "half-rescored: the console's state and problem" "$OUT" \
	'^Problems: 1; fresh stale: tasks not all rescored for mode fifo \([0-9]+s ago\): m, fifo again rescores$'
ok_eq "half-rescored: a rescore begun before the change does not end it" \
	"$(q "SELECT crawltop.rescore_finish($fid, 'fifo', now() - interval '1 minute', NULL)")" f
ok_eq "half-rescored: nor one in another mode" \
	"$(q "SELECT crawltop.rescore_finish($fid, 'freshness', now(), NULL)")" f
run job set-mode fresh fifo
run top -b -n 1 -j fresh
ok_match "half-rescored: a rescore that completes ends it" "$OUT" '^Problems: 0$'
run job show fresh
ok_eq "half-rescored: job show says nothing more" \
	"$(printf '%s\n' "$OUT" | grep -c '^rescore ')" 0
ok_eq "adjust: fifo, 0 plus the points (clamped at 0)" "$(scores fresh)" \
	"/library/a 20.0000 P3; /library/b 20.0000 P3; /news 0.0000 P3"
run explain /news --job fresh
ok_match "adjust: explain says when the clamp holds" "$OUT" \
	'mode score 0 - 10 = 0 \(clamped to 0\.\.100\)$'
run job set-mode fresh freshness
ok_eq "adjust: and back" "$(scores fresh)" \
	"/library/a 83.0000 P0; /library/b 83.0000 P0; /news 53.0000 P2"
run explain / --job news
ok_eq "adjust: explain of a task without points says nothing of them" \
	"$RC $(printf '%s\n' "$OUT" | grep -c 'Operator adjustment')" "0 0"
"$CT" settings set frontier.types.nav 10 freshness.never 15 >/dev/null

# ---- set-mode scores with the stored settings ----------------------------
# set-mode rescores with the settings the store keeps (its current version,
# as the console does), not with a configuration file's (lib.sh:
# stored_settings, which lists the scores under each).
T=$(mktemp -d "${TMPDIR:-/tmp}/ct-job.XXXXXX")
trap 'rm -rf "$T"' EXIT
"$CT" job create tuned --domain tuned.example --mode hierarchy >/dev/null
"$CT" enqueue --job tuned --urls <(printf '/\n/a\n') >/dev/null
"$CT" enqueue --job tuned --sitemap <(urlset 2 tuned.example) >/dev/null
stored_settings "$T"
CRAWLTOP_CONFIG=$CONF run job set-mode tuned frontier
ok_eq "set-mode with stored settings: exit 0" "$RC" 0
ok_match "set-mode: names the stored settings version" "$OUT" \
	"mode hierarchy -> frontier; 4 unfinished tasks rescored with settings v$SV, 4 changed"
ok_eq "set-mode: scores and classes from the stored settings, not the file" \
	"$(scores tuned)" \
	"/ 50.0000 P1; /a 50.0000 P1; /s-1/p-1.html 64.2857 P1; /s-2/p-2.html 64.2857 P1"
ok_eq "set-mode: the rescore's audit row names that version" \
	"$(q "SELECT after->>'settings_version' FROM crawltop.audit_log
		WHERE action = 'tasks.rescore' ORDER BY id DESC LIMIT 1")" "$SV"

# ---- every command: an option given twice, an unknown one ----------------
# (the second value used to win silently: --urls a --urls b enqueued only b)
before=$(state)
printf '/\n' >"$T/u1"
for args in "enqueue --job news --job docs --urls $T/u1" \
	"enqueue --job news --urls $T/u1 --urls $T/u1" \
	"job create twice --domain a.example --domain b.example" \
	"job set-priority news 2 -d x -d y" \
	"job boost news --prefix /a --prefix /b --by 5" \
	"simulate --graph $T/u1 --graph $T/u1 --job g" \
	"rank --batch 10 --batch 20" \
	"stats --json --json" \
	"explain /a --job news --job docs" \
	"migrate --sql-dir x --sql-dir y" \
	"score --now 1 --now 2" \
	"top -b -i 1 -i 2" \
	"settings --note a set default_priority 4 --note b" \
	"settings set default_priority 4 -d x --dsn y"; do
	# shellcheck disable=SC2086
	run $args </dev/null
	ok_eq "twice: $args: exit 2" "$RC" 2
	ok_match "twice: $args: names the option" "$OUT" 'given twice: give each option once'
done
run enqueue --job news -xyz
ok_eq "clustered unknown option: exit 2" "$RC" 2
ok_match "clustered unknown option: names its letter, not the argument before" \
	"$OUT" "unknown option, or an option without its value: '-x'"
run stats --json --bogus=1
ok_match "unknown long option: named as typed" "$OUT" "'--bogus'"
# a note is text like a value: no control characters (a note holding an
# escape sequence was shown raw by settings history), UTF-8
run settings set default_priority 4 --note "$(printf 'a\033[31mred')"
ok_eq "note with an escape: exit 2" "$RC" 2
ok_match "note with an escape: says why" "$OUT" "note 'a.x1b\[31mred' holds control or invisible characters"
run settings set default_priority 4 --note "$(printf 'x \342\200\256 y')"
ok_eq "note with a right-to-left override: exit 2" "$RC" 2
ok_match "note with a right-to-left override: escaped, says why" "$OUT" \
	"note 'x .xe2.x80.xae y' holds control or invisible characters"
run settings set default_priority 4 --note "$(printf 'caf\xe9')"
ok_eq "note not UTF-8: exit 2" "$RC" 2
ok_match "note not UTF-8: says which argument" "$OUT" "note 'caf.*' is not UTF-8 text"
ok_unchanged "options twice, unknown options, bad notes" "$before"

# ---- a job named by what no job name can be --------------------------------
# (bytes that are not UTF-8 came back as the server's encoding error)
before=$(state)
for cmd in "job show" "stats --job" "rank --job"; do
	# shellcheck disable=SC2086
	run $cmd "$(printf 'caf\xff')"
	ok_eq "$cmd with a non-UTF-8 job: exit 1" "$RC" 1
	ok_match "$cmd with a non-UTF-8 job: does not exist, shown escaped" "$OUT" \
		"job 'caf.xff' does not exist \\(a job is named by 1 to 64 of"
done
ok_unchanged "non-UTF-8 job names" "$before"

# ---- a connection the server ends during a command ------------------------
# The server's FATAL message came with the CONTEXT of the function it
# interrupted: the SQL source of crawltop.enqueue, on the terminal.
urlset 200000 cut.example >"$T/big.xml"
"$CT" job create cut --domain cut.example >/dev/null
before=$(state)
( "$CT" enqueue --job cut --sitemap "$T/big.xml" >"$T/out" 2>&1; echo $? >"$T/rc" ) &
for _ in $(seq 1 100); do
	[ "$(q "SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND query LIKE '%crawltop.enqueue(%' AND pid <> pg_backend_pid()")" = 1 ] && break
	sleep 0.1
done
q "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE '%crawltop.enqueue(%' AND pid <> pg_backend_pid()" >/dev/null
wait
OUT=$(cat "$T/out")
ok_eq "connection ended: exit 1" "$(cat "$T/rc")" 1
ok_match "connection ended: says so" "$OUT" 'enqueue: terminating connection due to administrator command \(connection lost\); nothing was enqueued'
ok_eq "connection ended: one line, no SQL" "$(printf '%s\n' "$OUT" | grep -c -e CONTEXT -e 'SQL statement' -e '^.')" 1
ok_unchanged "connection ended" "$before"

# ---- a client that dies while its change waits for a lock: the server rolls the change back -----
# (client_connection_check_interval, set by every store session) instead of running it once the
# lock is free, for nobody
before=$(state)
psql -X -qAtd "$DB" -c BEGIN -c "SELECT 1 FROM crawltop.jobs WHERE name = 'news' FOR UPDATE" \
	-c "SELECT pg_sleep(4)" -c COMMIT >/dev/null &
holder=$!
waiting() { q "SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%set_job_priority(%' AND pid <> pg_backend_pid()"; }
for _ in $(seq 1 100); do
	[ "$(q "SELECT count(*) FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(4)'")" = 1 ] && break
	sleep 0.02
done
"$CT" job set-priority news 9 >/dev/null 2>&1 &
client=$!
for _ in $(seq 1 100); do
	[ "$(waiting)" = 1 ] && break
	sleep 0.02
done
ok_eq "dead client: its change waits for the lock" "$(waiting)" 1
kill -KILL "$client"
wait "$client" 2>/dev/null
for _ in $(seq 1 100); do
	[ "$(waiting)" = 0 ] && break
	sleep 0.05
done
ok_eq "dead client: the server ends its statement while the lock is still held" \
	"$(waiting)/$(kill -0 "$holder" 2>/dev/null && echo held)" "0/held"
wait "$holder"
ok_unchanged "dead client: after the lock is free" "$before"

# ---- a boost's prefix or pattern is spelt as enqueue spells paths ------------
"$CT" job create spelt --domain spelt.example --mode fifo >/dev/null
printf '/caf\303\251/x\n/a%%1b\n/z%%E2%%80%%8Bw\n' | "$CT" enqueue --job spelt --urls - >/dev/null
run job boost spelt --prefix /caf%C3%A9 --by 1
ok_match "boost --prefix /caf%C3%A9 finds /café" "$OUT" '1 pending task under /caf.* boosted'
run job boost spelt --prefix /a%1b --by 2
ok_match "boost --prefix /a%1b finds /a%1B" "$OUT" '1 pending task under /a%1B boosted'
run job boost spelt --pattern '*z%e2%80%8bw' --by 3
ok_match "boost --pattern: a zero-width space's escapes in lower case find it" "$OUT" '1 pending task matching \*z%E2%80%8Bw boosted'
run job boost spelt --pattern "$(printf '*z\342\200\213w')" --by 3
ok_match "boost --pattern with a raw zero-width space: refused, escaped" "$OUT" "pattern '\*z.xe2.x80.x8bw' holds control or invisible characters"

ok_eq "boost: each path got its points" \
	"$(q "SELECT string_agg(p.path || ' ' || t.adjustment, ' ' ORDER BY p.path COLLATE \"C\") FROM crawltop.tasks t JOIN crawltop.pages p ON p.id = t.page_id JOIN crawltop.jobs j ON j.id = t.job_id WHERE j.name = 'spelt'")" \
	"/a%1B 2 /caf$(printf '\303\251')/x 1 /z%E2%80%8Bw 3"
run job boost spelt --prefix /50% --by 1
ok_eq "boost --prefix /50%: exit 2" "$RC" 2
ok_match "boost --prefix /50%: why" "$OUT" "does not start a %XX escape"

# ---- a server that does not answer: the connect gives up (10 s, or the DSN's connect_timeout) ----
pm=$(head -n1 "$PGHOST/data/postmaster.pid")
kill -STOP "$pm"
t0=$(date +%s%N)
OUT=$(timeout 60 "$CT" job list 2>&1); RC=$?
t1=$(date +%s%N)
OUT2=$(timeout 60 "$CT" job list -d "$DSN connect_timeout=2" 2>&1); RC2=$?
t2=$(date +%s%N)
kill -CONT "$pm"
ok_eq "no answer: exit 1" "$RC" 1
ok_match "no answer: the connect says it timed out" "$OUT" '^crawltop job: connect: .*timeout expired$'
ok_eq "no answer: gives up after about 10 s" \
	"$(( (t1 - t0) / 1000000000 >= 9 && (t1 - t0) / 1000000000 <= 20 ))" 1
ok_eq "no answer, connect_timeout=2 in the DSN: exit 1" "$RC2" 1
ok_eq "no answer, connect_timeout=2 in the DSN: the DSN's timeout wins" \
	"$(( (t2 - t1) / 1000000000 <= 6 ))" 1

# ---- an operator's console takes expired leases back ----------------------
# a crawler claimed and vanished: its leases ran out, nobody claims. The
# console (top -b: the same refresh) of an operator returns them as a
# claim would (0018), so the job is not shown running; a read-only one
# (-r) changes nothing.
"$CT" job create gone --domain gone.example --mode fifo >/dev/null
"$CT" enqueue --job gone --urls <(printf '/a\n/b\n') >/dev/null
gid=$(q "SELECT id FROM crawltop.jobs WHERE name = 'gone'")
q "SELECT count(*) FROM crawltop.claim('vanished', 2, $gid, 0.05)" >/dev/null
sleep 0.3
gone_counts() { "$CT" job list | awk -v id="$gid" '$1 == id { print $8, $9 }'; }
ok_eq "vanished crawler: its tasks shown running (pending running)" "$(gone_counts)" "0 2"
run top -r -b -n 3 -i 0.5 -j gone
ok_eq "a read-only console: exit 0" "$RC" 0
ok_eq "a read-only console takes nothing back" "$(gone_counts)" "0 2"
run top -b -n 3 -i 0.5 -j gone
ok_eq "an operator's console: exit 0" "$RC" 0
ok_match "an operator's console: its last frame shows them pending" \
	"$(printf '%s' "$OUT" | grep '^Tasks:' | tail -1)" '^Tasks: +pending 2, running 0,'
ok_eq "an operator's console took the expired leases back (pending running)" "$(gone_counts)" "2 0"
ok_eq "... as an expiry each, no retry used" \
	"$(q "SELECT string_agg(status || ' ' || expiries || ' ' || retry_count, ',') FROM crawltop.tasks WHERE job_id = $gid")" \
	"pending 1 0,pending 1 0"

done_testing
