#!/usr/bin/env bash
# test_log.sh CRAWLTOP: the message log and the priority typed as a number
# (issue 24, point 5). P asks for a priority and refuses one outside
# 1..10 with the line kept open; every message goes to the log (L) with
# its time; a change that fails with nobody's key to answer (it waited on
# a lock until its statement timeout) is counted in the header as an
# unseen error until the log is opened, however many messages came after
# (what answers a key, such as a refused input, is read as it is typed).
set -u
[ -n "${CT_TRACE:-}" ] && set -x
CT=$1
HERE=$(dirname "$0")
. "$HERE/../cli/tap.sh"
. "$HERE/seed.sh"
. "$HERE/tmux.sh"

seed_db tui_log
tm_start 110 30
tm_run "'$CT' -d '$DSN' -i 1 --timeout 2000"
ok_screen "the console is live" '^ crawltop +LIVE'

# ---- P: a priority typed as a number -------------------------------------
tm_keys P
ok_screen "P asks for alpha's priority, saying the one it has" \
	'Priority of alpha \(now 3; 1\.\.10, 1 the most urgent\): _'
tm_keys -l 11
tm_keys Enter
ok_screen "11 refused under the line, the prompt still open" \
	"priority '11' refused: a whole number in 1\.\.10 \(1 the most urgent\)"
ok_match "... with its text" "$SCREEN" 'Priority of alpha .*: 11_'
tm_keys BSpace BSpace
tm_keys -l 9
tm_keys Enter
ok_screen "9: done in one change" 'job alpha: priority 3 -> 9: done'
ok_sql "alpha is at 9 in the database, one audit row" \
	"SELECT priority || ' ' || (SELECT count(*) FROM crawltop.audit_log WHERE action = 'job.priority') FROM crawltop.jobs WHERE name = 'alpha'" "9 1"
ok_screen "alpha's row moved below beta (priority order)" '▶ +1 alpha +alpha\.example\.com +hier[a-z]* +9 '
tm_keys P
tm_keys -l 9
tm_keys Enter
ok_screen "the same priority again: nothing changed, nothing sent" \
	'job alpha is at priority 9 already: nothing changed'
ok_sql "... and no audit row" \
	"SELECT count(*) FROM crawltop.audit_log WHERE action = 'job.priority'" 1

# ---- a change that fails while the operator looks elsewhere ---------------
# beta's row held by another session: the change waits for it until the
# console's statement timeout (2 s) and fails then
PGAPPNAME=ct_row_locker psql -qAtd "$DB" -c "BEGIN; SELECT id FROM crawltop.jobs WHERE name = 'beta' FOR UPDATE; SELECT pg_sleep(30); COMMIT" >/dev/null 2>&1 &
LOCKER=$!
ok_sql "beta's row is locked" "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'ct_row_locker' AND query LIKE '%pg_sleep%'" 1
tm_keys g
ok_screen "beta selected (the first row now)" '▶ +2 beta '
tm_keys ']'
# the operator goes on: a filter opened and closed says something new
# before the failure comes back
tm_keys /
tm_keys Escape
ok_screen "the failure comes back from the database" \
	'job beta: .*(statement timeout|canceling statement)' 15
tm_keys /
tm_keys Escape
tm_keys P Escape
ok_screen "later messages replace it on the message line" 'nothing changed'
ok_match "the header still counts it: 1 unseen error" "$SCREEN" \
	'^ crawltop +LIVE .* 1 UNSEEN ERROR \(L\) '
kill "$LOCKER" 2>/dev/null
psql -qAtd "$DB" -c "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE application_name = 'ct_row_locker'" >/dev/null
wait "$LOCKER" 2>/dev/null

# ---- L: the log ------------------------------------------------------------
tm_keys L
ok_screen "L opens the log" '^─ Messages: [0-9]+ \(newest last'
ok_match "each message with its time: the refusal" "$SCREEN" \
	"^ [0-9]{2}:[0-9]{2}:[0-9]{2}  priority '11' refused: a whole number in 1\.\.10"
ok_match "... the change done" "$SCREEN" \
	'^ [0-9]{2}:[0-9]{2}:[0-9]{2}  job alpha: priority 3 -> 9: done'
ok_match "... the failure" "$SCREEN" \
	'^ [0-9]{2}:[0-9]{2}:[0-9]{2}  job beta: .*(statement timeout|canceling statement)'
ok_match "... and what came after it" "$SCREEN" \
	'^ [0-9]{2}:[0-9]{2}:[0-9]{2}  nothing changed'
ok_match "seen: the header no longer counts it" "$(printf '%s\n' "$SCREEN" | head -1)" \
	'^ crawltop +LIVE +every 1s · db [0-9]+ ms · postgres'
tm_keys q
ok_screen "any other key closes it" '^─ Jobs 3 of 3'

# ---- scrolling: more messages than lines -------------------------------------
for i in $(seq 1 30); do tm_keys ']' '['; done
# (each press says something: the change sent and done, or "still being
# made" while the one before is in flight)
ok_screen "the last change answered" 'job beta: .*(done|still being made)' 30
tm_keys L
ok_screen "the newest at the bottom, older ones above" '-- older: Up / PgUp --'
tm_keys Home
ok_screen "Home: the oldest first" "^ [0-9:]{8}  priority '11' refused"
ok_noscreen "... nothing older" '-- older'
tm_keys End
ok_screen "End: the newest again" '-- older: Up / PgUp --'
tm_keys Escape
tm_keys q
ok_screen "q quits" '^\$ *$'
done_testing
