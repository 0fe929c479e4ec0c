#!/usr/bin/env bash
# test_stripes.sh CRAWLTOP: the console rescores a large job on two
# connections (0036, ct_rescore_opts.extra): a mode change on a job of
# 100,000 tasks waits on both connections at once when a task of each
# stripe is locked; x cancels the statements of both, at once, and
# nothing is rescored; once the locks are gone the same change rescores
# every task in two stripes, each task once.
set -u
CT=$1
HERE=$(dirname "$0")
. "$HERE/../cli/tap.sh"
. "$HERE/tmux.sh"
. "$HERE/seed.sh"

seed_db tui_stripes
sql "SELECT crawltop.create_job('big', 'big.example.org', 8, 'frontier')" >/dev/null
sql "SELECT crawltop.enqueue(4, (SELECT array_agg('/b/' || i) FROM generate_series(1, 100000) i), 'link', NULL, 2, 'article', 'link', NULL, (SELECT array_agg((i % 100)::float8) FROM generate_series(1, 100000) i))" >/dev/null
ok_sql "a job of 100,000 pending tasks" "SELECT count(*) FROM crawltop.tasks WHERE job_id = 4 AND status = 'pending'" 100000

# one task in each stripe's first batch (the stripes cut the job's page
# ids in two), locked by another session
lock_both() {
	lock_rows "a task of each stripe is locked" "SELECT id FROM \
crawltop.tasks WHERE id IN (SELECT id FROM crawltop.tasks WHERE job_id = 4 \
ORDER BY page_id OFFSET 100 LIMIT 1) OR id IN (SELECT id FROM crawltop.tasks \
WHERE job_id = 4 ORDER BY page_id OFFSET 50100 LIMIT 1) FOR UPDATE"
}
WAITING="SELECT count(*) FROM pg_stat_activity WHERE application_name = \
'crawltop console' AND wait_event_type = 'Lock'"

tm_start 100 30
tm_run "'$CT' -d '$DSN' -i 1; echo exit=\$?"
ok_screen "LIVE" '^ crawltop +LIVE'

lock_both
tm_keys G m 1 Enter
ok_screen "the rescore waits" '^ Rescore .* 0% ' 20
ok_sql "... on both of the console's connections at once" "$WAITING" 2
tm_keys x
ok_screen "x: stopped at once, nothing rescored" \
	'job big: mode fifo; rescored 0 of 100000 tasks, stopped \(m, fifo again: the rest\)' 10
ok_sql "... both statements cancelled" "$WAITING" 0
ok_sql "... the locks still held" "SELECT count(*) FROM pg_stat_activity WHERE \
application_name = 'ct_locker' AND query LIKE '%pg_sleep%'" 1
ok_sql "... and no batch committed" "SELECT count(*) FROM crawltop.audit_log \
WHERE action = 'tasks.rescore' AND job_id = 4" 0
unlock

tm_keys G m 1 Enter
ok_screen "the same change again: every task rescored" \
	'job big: mode fifo; rescored 100000 of 100000 tasks' 120
ok_sql "... each once, in two stripes (batches 1 and 2 begin them: after page 0 and after the middle page)" \
	"SELECT sum((after->>'tasks')::int) || ' ' || count(*) FILTER (WHERE \
(after->>'batch')::int <= 2 AND (after->>'after_page')::bigint IN (0, (SELECT \
min(page_id) - 1 + (max(page_id) - min(page_id) + 1) / 2 + 1 FROM \
crawltop.tasks WHERE job_id = 4))) FROM crawltop.audit_log WHERE action = \
'tasks.rescore' AND job_id = 4" "100000 2" 10
ok_sql "... all of them scored for fifo" "SELECT count(*) FROM crawltop.tasks \
WHERE job_id = 4 AND score <> 0" 0

tm_keys q
ok_screen "q: exit 0 (no sanitizer report)" '^exit=0$'
done_testing
