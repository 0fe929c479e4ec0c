#!/usr/bin/env bash
# test_task.sh CRAWLTOP: drill-down (issue 24, point 6; 0028). n opens the
# queue view: the next tasks in claim order, scrolled and selected; / finds
# tasks by a part of their path, any status; Enter opens the task view: its
# score (the mode's and the operator's points), class, why it is where it
# is, its place in the claim order, how it was found, its history (retries,
# the last error) and its inputs. b and d boost or demote that one task, R
# retries a failed one, each after asking, each audited; a read-only
# console refuses them. The store refuses what does not apply. A opens
# the audit log: scrolled, filtered by role, a change opened whole.
set -u
[ -n "${CT_TRACE:-}" ] && set -x
CT=$1
HERE=$(dirname "$0")
. "$HERE/../cli/tap.sh"
. "$HERE/seed.sh"
. "$HERE/tmux.sh"

seed_db tui_task
# alpha's /news/x failed for good: its retries used, its last error kept
sql "UPDATE crawltop.tasks SET status = 'failed', retry_count = 3,
     last_error = 'HTTP 503 from alpha.example.com after 3 tries',
     completed_at = now()
     WHERE id = (SELECT t.id FROM crawltop.tasks t JOIN crawltop.pages p
		 ON p.id = t.page_id WHERE t.job_id = 1 AND p.path = '/news/x')" >/dev/null
first=$(sql "SELECT task_id || ' ' || path FROM crawltop.next_tasks(NULL, 1)")
second=$(sql "SELECT task_id || ' ' || path FROM crawltop.next_tasks(NULL, 2) OFFSET 1")
sid=${second%% *} spath=${second#* }
failed=$(sql "SELECT t.id FROM crawltop.tasks t WHERE t.status = 'failed'")

tm_start 120 32
tm_run "'$CT' -d '$DSN' -i 1"
ok_screen "the console is live" '^ crawltop +LIVE'
tm_keys n
ok_screen "n: the queue view, every pending task in claim order" \
	'^─ Queue of all jobs: next 11 in claim order'
ok_match "its columns" "$SCREEN" 'TASK +CLS +SCORE +STATUS +PRIO +DEPTH +AGE +METHOD/TYPE +JOB +PATH'
ok_match "the first task selected" "$SCREEN" "^▶ +${first%% *} P[0-3] .* ${first#* }\$"
tm_keys j
ok_screen "j: the next one selected" "^▶ +$sid P[0-3] .* $spath\$"
# the first task claimed ahead of it: the list moves up, the selection
# stays on its task; released, it comes back above it
fid=${first%% *}
sql "SELECT count(*) FROM crawltop.claim('w9', 1)" >/dev/null
tm_gone "^ +$fid P[0-3] " 5
ok_screen "a task claimed ahead: the selection stays on its task" \
	"^▶ +$sid P[0-3] .* $spath\$"
ok_match "... now the first row" "$(printf '%s\n' "$SCREEN" | grep -A1 '^ *TASK ' | tail -1)" "^▶ +$sid "
sql "SELECT count(*) FROM crawltop.release('w9', ARRAY[$fid])" >/dev/null
ok_screen "released, it comes back" "^ +$fid P[0-3] "
ok_match "... above, the selection still on its task" \
	"$(printf '%s\n' "$SCREEN" | grep -E -A1 "^ +$fid P[0-3] " | tail -1)" \
	"^▶ +$sid P[0-3] .* $spath\$"
tm_keys Enter
ok_screen "Enter: the task view" "^─ Task $sid $spath "
ok_match "its status" "$SCREEN" '^  status +pending$'
ok_match "its score: the mode's and the operator's" "$SCREEN" \
	'^  score +P[0-3] [0-9.]+ = mode score [0-9.]+ \+ operator \+0\.00$'
ok_match "why it is where it is" "$SCREEN" \
	'^  why +job priority 3 first, then score [0-9.]+, then discovery [0-9]+s ago$'
ok_match "its place in the claim order" "$SCREEN" \
	'^  place +1 task of every job before it, 1 of its job$'
ok_match "how it was found" "$SCREEN" '^  found +by sitemap, depth 0, type page, method sitemap$'
ok_match "its history" "$SCREEN" '^  history +0 of [0-9]+ retries used, 0 leases expired$'

tm_keys b
ok_screen "b asks, naming the task and the score it would get" \
	"Boost task $sid $spath by \\+10 \\(score ([0-9.]+) -> [0-9.]+\\)\\? \\[y/N\\]"
tm_keys y
ok_screen "y: done" "job alpha: boost task $sid by \\+10: done \\(1 task changed\\)"
ok_sql "the task's adjustment is 10, its score derived" \
	"SELECT adjustment || ' ' || (score = least(100, base_score + 10)) FROM crawltop.tasks WHERE id = $sid" "10 true"
ok_sql "audited: task.boost with its path, before and after" \
	"SELECT (after->>'path') || ' ' || (before->>'adjustment') || ' ' || (after->>'adjustment') FROM crawltop.audit_log WHERE action = 'task.boost'" \
	"$spath 0 10"
ok_screen "the view follows: the operator's points" \
	'^  score +P[0-3] [0-9.]+ = mode score [0-9.]+ \+ operator \+10\.00$'
ok_match "... and its new place: first" "$SCREEN" '^  place +0 tasks of every job before it, 0 of its job$'
tm_keys d
ok_screen "d asks for a demotion" "Demote task $sid $spath by -10"
tm_keys n
ok_screen "n: nothing changed" 'nothing changed'
# at the bound: a boost writes nothing and says so (0031)
# (set in the table: not audited, so the audit view below is as made)
was=$(sql "SELECT adjustment || ',' || score || ',' || class FROM crawltop.tasks WHERE id = $sid")
sql "UPDATE crawltop.tasks SET adjustment = 100, score = 100, class = 0 WHERE id = $sid" >/dev/null
ok_screen "the view follows: +100" '^  score .* \+ operator \+100\.00( |$)'
boosts=$(sql "SELECT count(*) FROM crawltop.audit_log WHERE action = 'task.boost'")
tm_keys b
ok_screen "b at +100 asks" "Boost task $sid $spath by \+10"
tm_keys y
ok_screen "y: nothing changed, saying why" \
	"boost task $sid by \+10: its adjustment is at \+100 already: nothing changed"
ok_sql "... and nothing audited" \
	"SELECT count(*) FROM crawltop.audit_log WHERE action = 'task.boost'" "$boosts"
sql "UPDATE crawltop.tasks SET adjustment = ${was%%,*}, score = $(echo "$was" | cut -d, -f2), class = ${was##*,} WHERE id = $sid" >/dev/null
ok_screen "back at +10" '^  score .* \+ operator \+10\.00$'

# a search by path, any status; the failed task retried
tm_keys Escape
ok_screen "any other key: back to the queue" '^─ Queue of all jobs: next'
tm_keys / n e w s Enter
ok_screen "/news: the tasks whose path holds it, the failed one too" \
	'^─ Queue of all jobs: tasks whose path holds "news"'
ok_screen "... one row, failed" "^▶ +$failed P[0-3] .* failed .* /news/x\$"
tm_keys Enter
ok_screen "the failed task: its status" '^  status +failed$'
ok_match "its history" "$SCREEN" '^  history +3 of [0-9]+ retries used'
ok_match "its last error" "$SCREEN" '^  error +HTTP 503 from alpha\.example\.com after 3 tries'
ok_match "not queued" "$SCREEN" '^  place +not queued \(failed\)$'
tm_keys b
ok_screen "b on a failed task: refused, saying why" \
	"task $failed is failed: only a pending task's score changes"
tm_keys R
ok_screen "R asks to retry it" "Retry failed task $failed /news/x: back to the queue"
tm_keys y
ok_screen "y: done" "job alpha: retry task $failed: done \\(1 task changed\\)"
ok_sql "pending again, its retries counted afresh" \
	"SELECT status || ' ' || retry_count FROM crawltop.tasks WHERE id = $failed" "pending 0"
ok_sql "audited: task.retry with the last error" \
	"SELECT (before->>'last_error') || ' / ' || (after->>'status') FROM crawltop.audit_log WHERE action = 'task.retry'" \
	"HTTP 503 from alpha.example.com after 3 tries / pending"
ok_screen "the view follows: pending, in the queue" '^  place +[0-9]+ tasks? of every job before it'
tm_keys Escape
ok_screen "back to the tasks found, asked again by id: pending now" \
	"^▶ +$failed P[0-3] .* pending .* /news/x\$"
tm_keys Enter
ok_screen "... and opened again" '^  status +pending$'
tm_keys Escape / Escape
ok_screen "Esc in the search: back to the next tasks" '^─ Queue of all jobs: next 12 in claim order'
tm_keys G
ok_screen "G: the last row selected" '^▶ .*$'
tm_keys q
ok_screen "q closes the view" '^─ Jobs 3 of 3'

# the audit log: scrolled, filtered by role, a change opened whole
tm_keys A
ok_screen "A: the audit view, newest first" '^─ Audit of all jobs: [0-9]+ changes'
# the title comes at once, the rows with the refresh that loads them
ok_screen "the retry selected, first" '^▶[0-9:]+ .* task\.retry '
ok_match "the boost below it" "$SCREEN" '^ [0-9:]+ .* task\.boost '
tm_keys Enter
ok_screen "Enter: the change whole" \
	'^─ Change [0-9]+: task\.retry by postgres \(crawltop console\)'
# (the change's rows come with the query that loads them, after its title)
ok_screen "before and after side by side" '^ BEFORE +AFTER'
ok_match "the last error, whole (wrapped in its column)" \
	"$(printf '%s\n' "$SCREEN" | cut -c1-60 | tr -d ' \n')" \
	'"last_error":"HTTP503fromalpha\.example\.comafter3tries"'
tm_keys x
ok_screen "any key: back to the view" '^─ Audit of all jobs'
tm_keys j
ok_screen "j: the boost selected" '^▶[0-9:]+ .* task\.boost '
sql "SELECT crawltop.set_job_priority(1, 4)" >/dev/null
ok_screen "a change comes in on top" '^ [0-9:]+ .* job\.priority '
ok_match "... the selection stays on the boost, two rows down" \
	"$(printf '%s\n' "$SCREEN" | grep -E -A2 '^ [0-9:]+ .* job\.priority ' | tail -1)" \
	'^▶[0-9:]+ .* task\.boost '
sql "SELECT crawltop.set_job_priority(1, 3)" >/dev/null
tm_keys / n o b o d y Enter
ok_screen "/nobody: no role's name holds it" 'no change matches'
tm_keys / Escape / p o s t Enter
ok_screen "/post: the changes of postgres" \
	'^─ Audit of all jobs by roles holding "post": [0-9]+ changes'
# a change whose JSON line is longer than 1 KiB, opened whole
long=$(printf 'x%.0s' $(seq 1200))
sql "INSERT INTO crawltop.audit_log (action, before, after, rows_affected)
     VALUES ('test.long', '{}', jsonb_build_object('k', '${long}END'), 0)" >/dev/null
# (selected or not: the filter's rows may come after it)
ok_screen "a long change comes in" '^(▶| )[0-9:]+ .* test\.long '
tm_keys Home Enter
ok_screen "opened: its line wrapped in its column, whole, to its end" 'xxxEND"'
tm_keys x
tm_keys q
ok_screen "q closes it" '^─ Jobs 3 of 3'
tm_keys q
ok_screen "q quits" '^\$ *$'

# a read-only console looks, and changes nothing
tm_run "'$CT' -r -d '$DSN' -i 1"
ok_screen "a read-only console" '^ crawltop +LIVE'
tm_keys n
ok_screen "it opens the queue" '^─ Queue of all jobs: next 12 in claim order'
tm_keys Enter
ok_screen "... and a task" '^  status +pending$'
tm_keys b
ok_screen "b refused, saying why" 'cannot boost or demote this pending task.*read-only'
tm_keys q q q
ok_screen "q quits" '^\$ *$'

# the store refuses what does not apply, changing nothing
before=$(sql "SELECT count(*) FROM crawltop.audit_log")
running=$(sql "SELECT id FROM crawltop.tasks WHERE status = 'running' LIMIT 1")
out=$(psql -qAtd "$DB" -c "SELECT crawltop.adjust_task($running, 5)" 2>&1)
ok_match "adjust_task of a running task: refused" "$out" \
	"task $running is running: only a pending task's score changes"
out=$(psql -qAtd "$DB" -c "SELECT crawltop.adjust_task($sid, 101)" 2>&1)
ok_match "adjust_task by 101: refused" "$out" 'score change 101 is outside -100..100'
out=$(psql -qAtd "$DB" -c "SELECT crawltop.retry_task($sid)" 2>&1)
ok_match "retry_task of a pending task: refused" "$out" \
	"task $sid is pending: only a failed task is retried"
out=$(psql -qAtd "$DB" -c "SELECT crawltop.retry_task(999999)" 2>&1)
ok_match "retry_task of no task: refused" "$out" 'task 999999 does not exist'
out=$(psql -qAtd "$DB" -c "SELECT count(*) FROM crawltop.find_tasks(NULL, '', 10)" 2>&1)
ok_match "find_tasks with nothing to find: refused" "$out" "search text '' is not 1 to 2048 bytes"
ok_eq "... and nothing audited" "$(sql "SELECT count(*) FROM crawltop.audit_log")" "$before"
# a failed task retried in a paused job is held back as its pending tasks
# are, its retries and expiries counted afresh
sql "SELECT crawltop.set_job_state(1, 'pause')" >/dev/null
sql "UPDATE crawltop.tasks SET status = 'failed', retry_count = 3,
     expiries = 2, completed_at = now(), last_error = 'HTTP 500'
     WHERE id = $sid" >/dev/null
sql "SELECT crawltop.retry_task($sid)" >/dev/null
ok_eq "retried in a paused job: held back, retries and expiries afresh" \
	"$(sql "SELECT status || ' ' || job_priority || ' ' || retry_count || ' ' || expiries FROM crawltop.tasks WHERE id = $sid")" \
	"pending 103 0 0"
ok_eq "... and no claim takes it" \
	"$(sql "SELECT count(*) FROM crawltop.claim('wz', 10, 1, 60)")" 0
done_testing
