#!/usr/bin/env bash
# test_health.sh CRAWLTOP: health at a glance (0024, issue 24 point 3).
# With the thresholds of console.conf (stall_after = 5, retrying_max = 2),
# a job with pending work, no claim and no live lease turns "stalled"
# once it has been quiet for 5 s; one whose retries pile up turns
# "failing"; the header counts them, the jobs title says why for the
# selected one, and each clears when it stops being true (a claim, a
# pause, the retries done). A paused job shows no ETA. `top -b` says the
# same in text and JSON.
set -u
[ -n "${CT_TRACE:-}" ] && set -x
CT=$1
HERE=$(dirname "$0")
. "$HERE/../cli/tap.sh"
. "$HERE/seed.sh"
. "$HERE/tmux.sh"

# alpha: 2 tasks claimed on hour-long leases (live); beta: 5 pending and
# nobody claims; gamma: 2 pending
seed_db tui_health
# failing: delta's crawler fails three tasks (retries wait 60 s)
"$CT" settings set store.retry_base_seconds 600 -d "$DSN" >/dev/null ||
	echo "Bail out! settings set failed"
sql "SELECT crawltop.create_job('delta', 'delta.example.org', 4, 'fifo');
     SELECT crawltop.enqueue(4, ARRAY['/1', '/2', '/3', '/4'], 'link', NULL,
	1, 'article', 'link')" >/dev/null
ids=$(sql "SELECT string_agg(task_id::text, ',') FROM crawltop.claim('flaky', 3, 4, 3600)")
sql "SELECT count(*) FROM crawltop.fail('flaky', '{$ids}', 'HTTP 503')" >/dev/null

tm_start 120 32
mkdir -p "$TM_HOME/.config/crawltop"
printf 'stall_after = 5\nretrying_max = 2\n' >"$TM_HOME/.config/crawltop/console.conf"
tm_run "'$CT' -d '$DSN' -i 1"
ok_screen "the console is live" '^ crawltop +LIVE'
# beta and gamma were created a moment ago: not stalled yet (their
# quiet starts at their creation)
ok_screen "delta is failing at once: 3 retries waiting, more than 2" \
	'4 delta +delta\.example\.org +fifo +4 +failing '
ok_screen "after 5 s without a claim, beta is stalled" \
	'2 beta +beta\.example\.org +fifo +5 +stalled ' 15
ok_screen "... and gamma" '3 gamma +gamma\.example\.net +hier[a-z]* +7 +stalled '
ok_match "alpha, whose leases are live, is running" "$SCREEN" \
	'1 alpha +alpha\.example\.com +hier[a-z]* +3 +running '
ok_match "the header counts the problem jobs" "$SCREEN" '^ crawltop +LIVE .* 3 PROBLEMS '

# the selected job's problem in words, on the jobs title (the rows by
# priority: alpha, delta, beta, gamma)
tm_keys j
ok_screen "selected delta: why it is failing" \
	'Jobs 4 of 4 .* delta failing: 3 tasks waiting for a retry \(more than 2\)'
tm_keys j
ok_screen "selected beta: why it is stalled" \
	'beta stalled: no claim in the last [0-9]+s, no live lease'

# a crawler for beta claims: it clears, with the lease live
sql "SELECT count(*) FROM crawltop.claim('w2', 1, 2, 3600)" >/dev/null
ok_screen "beta claimed: running again" '2 beta +beta\.example\.org +fifo +5 +running '
ok_screen "the header counts two" ' 2 PROBLEMS '
# gamma paused: not a problem, and no ETA
sql "SELECT crawltop.set_job_state(3, 'pause')" >/dev/null
ok_screen "gamma paused: paused, not stalled" \
	'3 gamma +gamma\.example\.net +hier[a-z]* +7 +paused '
ok_match "a paused job shows no ETA" "$SCREEN" '3 gamma .* -$'
ok_screen "the header counts one" ' 1 PROBLEM '
# gamma's mode changed and no rescore ran: stale (paused or not) until
# one completes (0027)
sql "SELECT crawltop.set_job_mode(3, 'frontier')" >/dev/null
ok_screen "gamma half-rescored: stale, paused or not" \
	'3 gamma +gamma\.example\.net +frontier +7 +stale '
ok_screen "... a problem the header counts" ' 2 PROBLEMS '
"$CT" job set-mode gamma hierarchy -d "$DSN" >/dev/null
ok_screen "gamma rescored whole (job set-mode): paused, not stale" \
	'3 gamma +gamma\.example\.net +hier[a-z]* +7 +paused '
# delta's retries go back to pending and are claimed: it clears
sql "UPDATE crawltop.tasks SET lease_expires_at = now() - interval '1 second'
     WHERE job_id = 4 AND status = 'running' AND lease_owner IS NULL;
     UPDATE crawltop.leases SET expires_at = now() - interval '1 second'
     WHERE task_id IN (SELECT id FROM crawltop.tasks WHERE job_id = 4)" >/dev/null
ok_sql "the console's session takes the retries back" \
	"SELECT count(*) FROM crawltop.tasks WHERE job_id = 4 AND status = 'pending'" 4
sql "SELECT count(*) FROM crawltop.claim('w3', 4, 4, 3600)" >/dev/null
ok_screen "delta's retries claimed again: running" \
	'4 delta +delta\.example\.org +fifo +4 +running '
ok_noscreen "no problem left: the header says none" 'PROBLEM'

# beta's lease expires and nobody claims: stalled again once quiet
sql "UPDATE crawltop.tasks SET lease_expires_at = now() - interval '1 second'
     WHERE job_id = 2 AND status = 'running'" >/dev/null
sql "UPDATE crawltop.leases SET expires_at = now() - interval '1 second'
     WHERE task_id IN (SELECT id FROM crawltop.tasks WHERE job_id = 2)" >/dev/null
ok_screen "beta's crawler gone: stalled again" \
	'2 beta +beta\.example\.org +fifo +5 +stalled ' 15
tm_keys q
ok_screen "q quits" '^\$ *$'

# top -b: the same verdicts, in text and JSON, by console.conf's rules
out=$(HOME=$TM_HOME XDG_CONFIG_HOME= "$CT" top -b -n 1 -d "$DSN" 2>&1)
ok_match "top -b: the problems line names each and why" "$out" \
	'^Problems: 1; beta stalled: no claim (in the last|for) [0-9]+s, no live lease$'
ok_match "top -b: STATUS says stalled" "$out" \
	'^ +2 beta +beta\.example\.org +fifo +5 stalled '
json=$(HOME=$TM_HOME XDG_CONFIG_HOME= "$CT" top -b -n 1 --json -d "$DSN" 2>&1)
ok_eq "top --json: state, problem, leases and workers per job" \
	"$(printf '%s' "$json" | python3 -c '
import json, sys
d = json.load(sys.stdin)
for j in d["jobs"]:
    print(j["name"], j["state"], j["problem"] is not None, j["live_leases"],
          j["expired_leases"], j["workers"],
          j["last_claim_s"] is None or j["last_claim_s"] >= 0)
print("problems", d["problems"])')" \
	"alpha running False 2 0 1 True
delta running False 4 0 1 True
beta stalled True 0 0 0 True
gamma paused False 0 0 0 True
problems 1"

done_testing
