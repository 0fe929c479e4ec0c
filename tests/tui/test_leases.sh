#!/usr/bin/env bash
# test_leases.sh CRAWLTOP: workers and their leases (issue 24, point 4;
# 0025). W lists the tasks workers hold, the soonest to expire first, with
# the worker, how long it has run and how long its lease has left; an
# expired lease is flagged (a read-only console leaves it to the reaper;
# an operator's console returns it at its next refresh); R gives a task
# held on a live lease back to the queue after asking, audited, no attempt
# counted. crawltop.requeue_task refuses what is not running on a live
# lease and changes nothing then.
set -u
[ -n "${CT_TRACE:-}" ] && set -x
CT=$1
HERE=$(dirname "$0")
. "$HERE/../cli/tap.sh"
. "$HERE/seed.sh"
. "$HERE/tmux.sh"

# alpha: two tasks held by w1 for an hour; beta: one held by w9 for 1 s
seed_db tui_leases
sql "SELECT count(*) FROM crawltop.claim('w9', 1, 2, 1)" >/dev/null

tm_start 120 30
tm_run "'$CT' -r -d '$DSN' -i 1"
ok_screen "the console is live (read-only)" '^ crawltop +LIVE'
tm_keys W
ok_screen "W: the leases, three tasks held" '^─ Leases: 3 tasks held'
ok_match "columns" "$SCREEN" 'TASK +JOB +WORKER +RUNNING +LEASE +RETRY +PATH'
ok_screen "w9's lease ran out: flagged EXPIRED, listed first" \
	'^▶ +[0-9]+ beta +w9 +[0-9]+s +EXPIRED [0-9]+s ago +0  /[a-e]$'
ok_match "w1's two, with their time left" "$SCREEN" \
	'^ +[0-9]+ alpha +w1 +[0-9]+s +(59m[0-9]+s|1h00m) left +0  /'
tm_keys R
ok_screen "read-only: R is refused, saying why" 'cannot requeue the selected task.*read-only'
tm_keys q
tm_keys q
ok_screen "q quits" '^\$ *$'

tm_run "'$CT' -d '$DSN' -i 1"
ok_screen "an operator's console" '^ crawltop +LIVE'
tm_keys W
ok_screen "its refresh returned the expired lease: two held" '^─ Leases: 2 tasks held'
ok_sql "w9's task is pending again, one expiry counted" \
	"SELECT status || ' ' || expiries FROM crawltop.tasks WHERE job_id = 2 AND expiries > 0" "pending 1"
task=$(sql "SELECT id FROM crawltop.tasks WHERE lease_owner = 'w1' ORDER BY lease_expires_at, id LIMIT 1")
path=$(sql "SELECT p.path FROM crawltop.tasks t JOIN crawltop.pages p ON p.id = t.page_id WHERE t.id = $task")
tm_keys R
ok_screen "R asks first, naming the task, its job and its worker" \
	"Requeue task $task $path of job alpha, held by w1\\? It goes back to the queue"
tm_keys n
ok_screen "n: nothing changed" 'nothing changed'
ok_sql "... still running" "SELECT status FROM crawltop.tasks WHERE id = $task" running
tm_keys R y
ok_screen "y: done" "job alpha: requeue task $task: done \\(1 task changed\\)"
ok_sql "the task is pending, no attempt counted" \
	"SELECT status || ' ' || retry_count || ' ' || expiries FROM crawltop.tasks WHERE id = $task" "pending 0 0"
ok_sql "audited: the worker and the lease before, the status after" \
	"SELECT db_role || ' ' || application_name || ' ' || (before->>'worker') || ' ' || (after->>'status') FROM crawltop.audit_log WHERE action = 'task.requeue'" \
	"postgres crawltop console w1 pending"
ok_screen "the view follows: one task held" '^─ Leases: 1 task held'
tm_keys Escape
ok_screen "any other key closes it" '^─ Jobs 3 of 3'
tm_keys q
ok_screen "q quits" '^\$ *$'

# the store refuses what is not running on a live lease, changing nothing
before=$(sql "SELECT count(*) FROM crawltop.audit_log")
out=$(psql -qAtd "$DB" -c "SELECT crawltop.requeue_task($task)" 2>&1)
ok_match "requeue_task of a pending task: refused" "$out" \
	"task $task is pending and held by no worker: nothing to requeue"
out=$(psql -qAtd "$DB" -c "SELECT crawltop.requeue_task(999999)" 2>&1)
ok_match "requeue_task of no task: refused" "$out" 'task 999999 does not exist'
ok_eq "... and nothing audited" "$(sql "SELECT count(*) FROM crawltop.audit_log")" "$before"
done_testing
