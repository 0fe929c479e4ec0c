#!/usr/bin/env bash
# test_console.sh CRAWLTOP: the real console in tmux (100x30) against the
# cluster pg-cluster.sh started: start, navigate, filter, focus, change
# priority (the database and the audit panel agree), pause a job, cancel
# with confirmation, boost by prefix, pause the refresh, help, keys while
# a query is stuck, resize to 60x15 and back, the database stopped and
# started under it, a flood of NOTIFYs, read-only mode, a viewer role,
# NO_COLOR with LANG=C,
# SIGTERM and SIGHUP, a crash, Ctrl-S, the saved settings, and q giving
# the terminal back.
set -u
CT=$1
HERE=$(dirname "$0")
. "$HERE/../cli/tap.sh"
. "$HERE/tmux.sh"
. "$HERE/seed.sh"

seed_db tui_console

tm_start 100 30
tm_run "stty -g > $TM_HOME/stty.before"
# the shell's terminal modes now, in stty.after, once the shell wrote them
# (the prompt is on the screen before the command has run)
stty_after() {
	rm -f "$TM_HOME/stty.after"
	tm_run "stty -g > $TM_HOME/stty.tmp && mv $TM_HOME/stty.tmp $TM_HOME/stty.after"
	for _ in $(seq 1 100); do
		[ -s "$TM_HOME/stty.after" ] && return 0
		sleep 0.1
	done
}
# the password must never reach the screen (trust auth ignores it)
tm_run "crawltop() { '$CT' \"\$@\"; }; clear"
tm_run "CRAWLTOP_KEYLOG=$TM_HOME/keylog crawltop -d '$DSN password=s3cr3t' -i 1 --timeout 20000; echo exit=\$?"

# ---- start ---------------------------------------------------------------
ok_screen "header says LIVE" '^ crawltop +LIVE +every 1s'
ok_screen "job rows: alpha, beta, gamma" 'gamma\.example\.net'
ok_match "jobs sorted by priority" "$SCREEN" \
	'1 alpha +alpha\.example\.com.*'$'\n''.*2 beta +beta\.example\.org.*'$'\n''.*3 gamma'
ok_match "header shows the connection" "$SCREEN" 'postgres@/[^ ]*:5432/tui_console'
ok_eq "the password is not on the screen" "$(printf '%s' "$SCREEN" | grep -c s3cr3t)" 0
ok_match "totals in the header" "$SCREEN" 'pending 12  running 2  retrying 0  completed 0  failed 0'
ok_match "queue panels are drawn" "$SCREEN" 'Class.*Depth.*Score.*Priority'
ok_match "heatmap cells with counts" "$SCREEN" 'link +[^ ]+ +8'
ok_match "next up lists alpha's tasks first, with why" "$SCREEN" \
	'P2 +50\.0 /blog +prio 3, age [0-9]'
# the heatmap takes the width its columns need: at 100 columns next up
# has room for the job's name beside the path
ok_match "next up names each task's job" "$SCREEN" '/blog +prio 3, age [0-9][^ ]* .*alpha'
ok_match "the selected row is marked" "$SCREEN" '▶ +1 alpha'
ok_match "status: alpha (2 tasks claimed) shows running" "$SCREEN" \
	'1 alpha +alpha\.example\.com +[a-z]+ +3 +running '
ok_match "status: beta (nothing claimed) shows pending" "$SCREEN" \
	'2 beta +beta\.example\.org +[a-z]+ +5 +pending '
ok_match "jobs table: RUN, then RETRY" "$SCREEN" ' PEND +RUN +RETRY +FAIL '

# ---- a failed attempt waiting for its retry: retrying, not running --------
# (fail with retries left: status running, no lease owner, until the backoff)
sql "SELECT count(*) FROM crawltop.fail('w1', ARRAY(SELECT id FROM crawltop.tasks WHERE lease_owner = 'w1' ORDER BY id LIMIT 1), 'timeout')" >/dev/null
# its retry backoff (10 s) made an hour: the console takes a task whose
# backoff is over back to pending before it refreshes (0018)
sql "UPDATE crawltop.tasks SET lease_expires_at = now() + interval '1 hour' WHERE status = 'running' AND lease_owner IS NULL" >/dev/null
ok_screen "header: the failed attempt is retrying, not running" \
	'pending 12  running 1  retrying 1  completed 0  failed 0'
ok_match "alpha's row: PEND 5, RUN 1, RETRY 1" "$SCREEN" \
	'1 alpha +alpha\.example\.com +[a-z]+ +3 +running .* 5 +1 +1 +0 '
sql "SELECT count(*) FROM crawltop.complete('w1', ARRAY(SELECT id FROM crawltop.tasks WHERE lease_owner = 'w1'))" >/dev/null
ok_screen "alpha: nobody holds a task, one retrying: shown pending" \
	'1 alpha +alpha\.example\.com +[a-z]+ +3 +pending .* 5 +0 +1 +0 '
ok_match "header: retrying 1, running 0" "$SCREEN" \
	'pending 12  running 0  retrying 1  completed 1  failed 0'
# back as seeded: two tasks held by w1 (the rest of the test counts them)
sql "UPDATE crawltop.tasks SET status = 'running', lease_owner = 'w1', lease_expires_at = now() + interval '1 hour', completed_at = NULL, retry_count = 0 WHERE job_id = 1 AND status IN ('running', 'completed')" >/dev/null
ok_screen "header: both held again" 'pending 12  running 2  retrying 0  completed 0  failed 0'

# ---- a flood of notifications: the settings read once at a time -----------
# (anyone who may connect may NOTIFY; each settings read is an index scan
# of crawltop.settings, counted in its statistics, which the console's
# backend reports within a second or two)
scans() { sql "SELECT coalesce(idx_scan, 0) + coalesce(seq_scan, 0) FROM pg_stat_user_tables WHERE relid = 'crawltop.settings'::regclass"; }
sleep 2.5
before=$(scans)
sql "SELECT count(pg_notify('crawltop_settings', g::text)) FROM generate_series(1, 20000) g" >/dev/null
sleep 4
after=$(scans)
ok_eq "20,000 settings notifications: a few settings reads, not one each ($before -> $after)" \
	"$([ $((after - before)) -lt 50 ] && echo few || echo $((after - before)))" few
ok_screen "... and the console still refreshes" '^ crawltop +LIVE +every 1s'

# ---- navigate, filter, focus ------------------------------------------------
tm_keys j
ok_screen "Down selects beta" '▶ +2 beta'
tm_keys /
tm_keys -l gam
ok_screen "filter: one job of three" 'Jobs 1 of 3 .*filter .gam.'
ok_match "filter: only gamma shown" "$SCREEN" '▶ +3 gamma'
tm_keys Enter
ok_screen "Enter keeps the filter" "Jobs 1 of 3"
tm_keys Escape
ok_screen "Esc clears the filter" 'Jobs 3 of 3'
tm_keys g Enter
ok_screen "Enter focuses every panel on alpha" ' job alpha: pending 5  running 2'
ok_match "the jobs title names the focus" "$SCREEN" 'focus alpha'
ok_noscreen "focused next up holds only alpha's tasks" 'prio 5, age'
tm_keys Escape
ok_screen "Esc returns to all jobs" 'focus all jobs'

# ---- sort ---------------------------------------------------------------------
tm_keys '>' '>' '>'
ok_screen "> moves the sort to PEND" 'sort PEND▲'
tm_keys i
ok_screen "i inverts it" 'sort PEND▼'
tm_keys '<' '<' '<' i
ok_screen "back to priority order" 'sort PRI▲'

# ---- reprioritise -----------------------------------------------------------------
tm_keys j ']'
ok_screen "] on beta: done message" 'job beta: priority 5 -> 4: done \(5 tasks changed\)'
ok_sql "the database has beta at priority 4" \
	"SELECT priority FROM crawltop.jobs WHERE name = 'beta'" 4
ok_sql "beta's pending tasks follow" \
	"SELECT DISTINCT job_priority FROM crawltop.tasks WHERE job_id = 2" 4
ok_screen "the jobs row shows priority 4" '▶ +2 beta +beta\.example\.org +fifo +4 '
tm_keys a
ok_screen "audit panel: the change, who, rows, before and after" \
	'job\.priority +2 +5 +priority 5 → 4'
ok_match "audit panel: role and application (the console's own name)" "$SCREEN" 'postgres/console +job\.priority'
ok_sql "audit log: the console's change is recorded as its" \
	"SELECT application_name FROM crawltop.audit_log WHERE action = 'job.priority' ORDER BY id DESC LIMIT 1" \
	'crawltop console'
tm_keys p
ok_screen "p pauses beta" 'job beta: pause: done'
ok_sql "beta is paused in the database" \
	"SELECT status FROM crawltop.jobs WHERE name = 'beta'" paused
ok_screen "audit panel shows the pause" 'job\.pause +2 +5 +status pending → paused'
ok_screen "the jobs row shows beta paused" '▶ +2 beta +beta\.example\.org +fifo +4 +paused '
tm_keys a Enter
ok_screen "focused on paused beta: next up says why nothing is claimable" \
	'nothing claimable: 5 pending tasks of 1 paused job'
ok_match "a paused job has no ETA" "$SCREEN" 'pending 5 .*ETA -'
tm_keys Escape a
ok_screen "the audit panel again" 'Audit: latest'
ok_match "back to all jobs" "$SCREEN" 'focus all jobs'
tm_keys p
ok_sql "p again resumes it" "SELECT status FROM crawltop.jobs WHERE name = 'beta'" running
ok_screen "resumed, beta shows pending again (nothing claimed)" \
	'▶ +2 beta +beta\.example\.org +fifo +4 +pending '
# two presses before the first is done: the second does not resend the
# first's change from the last refresh's priority (it said "done (0 tasks
# changed)"); it waits, and the first says what it did
audits=$(sql "SELECT count(*) FROM crawltop.audit_log WHERE action = 'job.priority'")
tm_keys '[' '['
ok_screen "[ [: the first change's own message" 'job beta: priority 4 -> 5: done \(5 tasks changed\)'
ok_sql "[ [: one step" "SELECT priority FROM crawltop.jobs WHERE name = 'beta'" 5
ok_sql "[ [: one audited change" \
	"SELECT count(*) FROM crawltop.audit_log WHERE action = 'job.priority'" $((audits + 1))
tm_keys ']'
ok_screen "] after it is done starts from 5" 'job beta: priority 5 -> 4: done \(5 tasks changed\)'

tm_keys G C
ok_screen "C asks, naming the job and its pending count" \
	'Cancel job gamma \(id 3\)\? Its 2 pending tasks become skipped'
tm_keys n
ok_screen "any other key: nothing changed" 'nothing changed'
ok_sql "gamma still pending" "SELECT status FROM crawltop.jobs WHERE name = 'gamma'" pending
tm_keys C y
ok_sql "C y cancels gamma" "SELECT status FROM crawltop.jobs WHERE name = 'gamma'" cancelled
ok_sql "its pending tasks are skipped" \
	"SELECT count(*) FROM crawltop.tasks WHERE job_id = 3 AND status = 'skipped'" 2
ok_screen "the header counts the skipped tasks, so its counts add up" \
	'failed 0  skipped 2 '

tm_keys g b
ok_screen "b prompts for a path prefix" 'Boost pending tasks of alpha, path prefix or pattern \(\*\) \[points, default 10\]: /_'
tm_keys -l 'blog 20'
tm_keys Enter
ok_screen "boost: counted first, then asked" \
	'Boost 4 pending tasks of alpha under /blog by \+20\? \[y/N\]'
ok_sql "... nothing changed while it asks" \
	"SELECT count(*) FROM crawltop.tasks WHERE job_id = 1 AND adjustment <> 0" 0
tm_keys y
ok_screen "boost done" 'job alpha: boost /blog \+20: done \(4 tasks changed\)'
ok_sql "the scores under /blog rose by 20" \
	"SELECT string_agg(score::text, ',' ORDER BY score DESC) FROM crawltop.tasks WHERE job_id = 1 AND status = 'pending'" \
	'70,70,60,60,40'
ok_screen "the audit row of the boost" 'tasks\.boost +1 +4 +delta 20, prefix /blog' 5
# the path typed as the docs spell it, its '/' included, into the '/'
# the prompt opened with: one slash ('//none' matched nothing, silently)
tm_keys g b
tm_keys -l '/none 5'
ok_screen "b: a typed '/' is the prefilled one" 'path prefix or pattern .*: /none 5_'
tm_keys Enter
ok_screen "a boost that matches nothing says so, asking nothing" \
	'job alpha: boost /none \+5: 0 pending tasks under /none: nothing changed'
ok_sql "and is not audited" \
	"SELECT count(*) FROM crawltop.audit_log WHERE after::text LIKE '%/none%'" 0
# a text with '*' is a pattern of the whole path: /*s/x is /news/x alone
tm_keys d
tm_keys -l '*s/x 5'
tm_keys Enter
ok_screen "demote by a pattern: asked, with the count" \
	'Demote 1 pending task of alpha matching /\*s/x by -5\? \[y/N\]'
tm_keys y
ok_screen "demote by a pattern" 'job alpha: demote /\*s/x -5: done \(1 task changed\)'
ok_sql "only the path the pattern matches went down" \
	"SELECT string_agg(p.path || ' ' || t.adjustment, ',' ORDER BY p.path) FROM crawltop.tasks t JOIN crawltop.pages p ON p.id = t.page_id WHERE t.job_id = 1 AND t.status = 'pending' AND t.adjustment < 0" \
	'/news/x -5'
ok_sql "its audit row names the pattern" \
	"SELECT after->>'pattern' || ' ' || (after->>'delta') FROM crawltop.audit_log WHERE action = 'tasks.demote' ORDER BY id DESC LIMIT 1" \
	'/*s/x -5'
tm_keys d
tm_keys -l 'x 500'
tm_keys Enter
ok_screen "demote: bad points refused with the rule" "points '500' refused: a number in 0\.\.100"
ok_screen "demote: the refused line stays open with its text, to mend" \
	'Demote pending tasks of alpha, .*: /x 500_'
tm_keys Escape
ok_noscreen "Esc abandons it" 'Demote pending tasks of'
tm_keys d
tm_keys -l 'x#y'
tm_keys Enter
ok_screen "demote: the server's rule for a bad prefix" "demote /x#y -10 refused: .*path prefix '/x#y' is not a page path prefix"
tm_keys a
ok_screen "a returns to the queue panels" 'Class.*Depth.*Score.*Priority'

# ---- refresh control, help ------------------------------------------------------------
tm_keys Space
ok_screen "Space pauses the refresh" '^ crawltop +PAUSED'
tm_keys Space
ok_screen "Space again: LIVE" '^ crawltop +LIVE'
tm_keys +
ok_screen "+ lengthens the interval" 'every 2s'
tm_keys - -
ok_screen "- shortens it" 'every 0\.5s'
tm_keys -
ok_screen "- at the floor says so" 'already at its floor \(0\.5 s\)'
tm_keys +
tm_keys '?'
ok_screen "? shows the help from the key table" '\] F7 +raise the priority \(more urgent, toward 1\)'
ok_match "help lists quit" "$SCREEN" 'q +quit'
tm_keys x
ok_noscreen "any key closes the help" 'Help \(any key closes\)'
# Ctrl-S is a key, not the terminal's flow control: without the change the
# pty stopped output there and the help below never showed (until Ctrl-Q)
tm_keys C-s
tm_keys '?'
ok_screen "Ctrl-S does not freeze the screen" 'Help \(any key closes\)'
tm_keys x
ok_noscreen "and the help closes after it" 'Help \(any key closes\)'

# ---- keys while a query is stuck: a lock holds dashboard_jobs ---------------------------
PGAPPNAME=ct_jobs_locker psql -qAtd "$DB" -c "BEGIN; LOCK TABLE crawltop.jobs IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(60); COMMIT" >/dev/null 2>&1 &
LOCKER=$!
# the console's refresh waits on the lock (seen from the server) ...
tm_keys r
ok_sql "a refresh of the console waits on the lock" "SELECT count(*) > 0 FROM \
pg_stat_activity WHERE application_name = 'crawltop console' AND wait_event_type = 'Lock'" t
# ... and a key is answered all the same, before the lock goes
tm_keys '?'
tm_wait 'Help \(any key closes\)' 10
held=$(psql -qAtd "$DB" -c "SELECT CASE WHEN count(*) > 0 THEN 'held' ELSE \
'released' END FROM pg_stat_activity WHERE application_name = 'crawltop console' AND \
wait_event_type = 'Lock'")
ok_key_answered "? answered while a query waits on a lock" \
	"$TM_HOME/keylog" 63 "$held"
tm_keys x
ok_screen "the stuck refresh shows STALE" '^ crawltop +STALE [0-9]+s' 8
psql -qAtd "$DB" -c "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE \
application_name = 'ct_jobs_locker'" >/dev/null
wait "$LOCKER"
ok_screen "back to LIVE when the lock goes" '^ crawltop +LIVE' 10
ok_match "slow queries back the interval off, and the header says so" \
	"$SCREEN" 'every [0-9]+s \(backed off from 1s\)' 
# the next refresh is cheap: the interval comes back at once (it came back
# one halving per refresh: 8 s, 4 s, 2 s, 1 s)
backed=$(printf '%s' "$SCREEN" | sed -n 's/.*every \([0-9]*\)s (backed off.*/\1/p' | head -n1)
echo "# backed off to ${backed:-?} s"
tm_keys r
ok_screen "cheap again (r: refresh now): back to every 1s at once" \
	'^ crawltop +LIVE +every 1s ' 2

# ---- resize ------------------------------------------------------------------------------
tm resize-window -t ct -x 60 -y 15
ok_screen "60x15: says what it needs" 'crawltop needs 80x24, have 60x15'
jobs_now="SELECT string_agg(name || ':' || priority || ':' || status, ',' ORDER BY id) FROM crawltop.jobs"
jobs_before=$(sql "$jobs_now")
logged=$(wc -l <"$TM_HOME/keylog")
tm_keys ']' p C y b
# the console has read all five keys (they are in its key log: ] p C y b
# are 93 112 67 121 98) and has no query of its own in flight: whatever
# they did is done
read_keys() { tail -n +$((logged + 1)) "$TM_HOME/keylog" | awk '$1 ~ /^(93|112|67|121|98)$/' | wc -l; }
for _ in $(seq 100); do
	[ "$(read_keys)" -ge 5 ] &&
		[ "$(sql "SELECT count(*) FROM pg_stat_activity WHERE \
application_name = 'crawltop console' AND state <> 'idle'")" = 0 ] && break
	nap
done
ok_eq "60x15: the console read the five keys" "$(read_keys)" 5
ok_sql "60x15: change keys act on nothing unseen" "$jobs_now" "$jobs_before"
ok_screen "60x15: still only the size message" 'crawltop needs 80x24, have 60x15'
tm resize-window -t ct -x 20 -y 5
ok_screen "20x5: the size message in words that fit" '^ +have 20x5$'
ok_match "20x5: what it needs, and q" "$SCREEN" 'needs 80x24'
ok_match "20x5: ... and q" "$SCREEN" 'or press q'
tm resize-window -t ct -x 80 -y 24
ok_screen "80x24: every panel again" 'Heatmap'
# every essential panel, each on its own line, in this order
panels=$(printf '%s\n' "$SCREEN" | grep -oE '^ crawltop +[A-Z]+|^ pending|Jobs [0-9]+ of|^─ Class|Heatmap|Next up|^qQuit' | tr '\n' ',')
ok_eq "80x24: header, totals, jobs, queue, heatmap, next up, key bar" "$panels" \
	" crawltop  LIVE, pending,Jobs 3 of,─ Class,Heatmap,Next up,qQuit,"
ok_match "80x24: the header keeps state, interval and db cost" "$SCREEN" \
	'^ crawltop +LIVE +every [0-9]+s.* db [0-9]+ ms'
tm resize-window -t ct -x 100 -y 30
ok_screen "back to 100x30" 'gamma\.example\.net'

# ---- Ctrl-C in a prompt abandons the prompt, not the console ------------------------------------
tm_keys b
ok_screen "b: the boost prompt" 'Boost pending tasks of .*path prefix'
tm_keys docs C-c
ok_screen "Ctrl-C in the prompt: the prompt is gone" '^qQuit'
ok_match "Ctrl-C in the prompt: the console still runs" "$SCREEN" '^ crawltop +(LIVE|STALE)'
ok_sql "Ctrl-C in the prompt: nothing changed" "$jobs_now" "$jobs_before"
# ... and in the filter and at a y/N question (both quit the console before)
tm_keys / ; tm_keys -l zzz
ok_screen "the filter is open" "filter 'zzz'"
tm_keys C-c
ok_screen "Ctrl-C in the filter: the filter is cleared" 'Jobs 3 of 3'
ok_match "Ctrl-C in the filter: the console still runs" "$SCREEN" '^ crawltop +(LIVE|STALE)'
tm_keys C
ok_screen "C: the cancel question" 'Cancel job .*\[y/N\]'
tm_keys C-c
ok_screen "Ctrl-C at the question: nothing changed" 'nothing changed'
ok_match "Ctrl-C at the question: the console still runs" "$SCREEN" '^ crawltop +(LIVE|STALE)'
ok_sql "Ctrl-C at the question: the job is not cancelled" "$jobs_now" "$jobs_before"
# Ctrl-C right after the key (one send-keys): the key first, then Ctrl-C
# acts on the question it opened (it quit the console, exit 130, before)
tm_keys x
ok_screen "x: a message to replace" 'nothing is running'
tm_keys C C-c
ok_screen "C then Ctrl-C at once: nothing changed" 'nothing changed'
ok_match "C then Ctrl-C at once: the console still runs" "$SCREEN" '^ crawltop +(LIVE|STALE)'
ok_sql "C then Ctrl-C at once: the job is not cancelled" "$jobs_now" "$jobs_before"

# ---- a change in flight when the connection goes: not confirmed, not "refused" -----------------
# the refresh paused, so that no refresh waits on the lock ahead of the
# change (one connection: the change would queue behind it)
tm_keys Space
ok_screen "refresh paused for the next test" '^ crawltop +PAUSED'
PGAPPNAME=ct_jobs_locker psql -qAtd "$DB" -c "BEGIN; LOCK TABLE crawltop.jobs IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(60); COMMIT" >/dev/null 2>&1 &
LOCKER=$!
ok_sql "the jobs table is locked" "SELECT count(*) FROM pg_locks l JOIN \
pg_stat_activity a USING (pid) WHERE a.application_name = 'ct_jobs_locker' \
AND l.mode = 'AccessExclusiveLock' AND l.granted" 1
tm_keys ']'
ok_sql "the change waits on the lock" "SELECT count(*) > 0 FROM pg_stat_activity \
WHERE application_name = 'crawltop console' AND wait_event_type = 'Lock' AND query LIKE \
'%set_job_priority%'" t
psql -qAtd "$DB" -c "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'crawltop console'" >/dev/null
ok_screen "a change in flight when the connection went: not confirmed" \
	'raise the priority.*not confirmed: the connection was lost|priority .* not confirmed: the connection was lost'
psql -qAtd "$DB" -c "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE \
application_name = 'ct_jobs_locker'" >/dev/null
wait "$LOCKER"
tm_keys Space
ok_screen "and the console comes back" '^ crawltop +(LIVE|STALE)' 15

# ---- the database goes away and comes back ---------------------------------------------
pg_ctl_stop
ok_screen "server stopped: DISCONNECTED banner" '^ DISCONNECTED . retrying in'
ok_match "the last frame stays" "$SCREEN" 'alpha\.example\.com'
tm_keys j
ok_screen "keys still work while disconnected" '▶ +2 beta'
tm_keys ']'
ok_screen "changes are refused while disconnected" 'not connected'
pg_ctl_start
ok_screen "server back: LIVE again" '^ crawltop +LIVE' 15
ok_noscreen "the banner is gone" 'DISCONNECTED'
ok_noscreen "the refusal for want of the connection is gone too" 'not connected' 5

# ---- more jobs than rows: the title says which rows show -------------------------------------
sql "SELECT crawltop.create_job('extra' || g, 'extra' || g || '.example.org', 9, 'fifo') FROM generate_series(1, 30) g" >/dev/null
ok_screen "more jobs than rows: the title says which show" 'Jobs 33 of 33 \(rows 1-[0-9]+\)'
sql "SELECT crawltop.create_job('extra-a-job-with-a-name-as-long-as-a-job-name-may-be-0123456789', 'extra.example.org', 10, 'fifo')" >/dev/null
ok_screen "one more job" 'Jobs 34 of 34'
tm_keys G
ok_screen "at the last job: the last rows" 'Jobs 34 of 34 \(rows [0-9]+-34\)'
# a question longer than the line keeps its end in sight
tm_keys C
ok_screen "a long question: what it asks and its [y/N] stay on the line" \
	'^ Cancel job extra-a-job-with-a-name.* \[y/N\] *$'
tm_keys n
ok_screen "... and n leaves it" 'nothing changed'
tm_keys m
ok_screen "m, the long name: only the picked mode, with the keys" \
	'^ Mode of extra-a-job-with-a-name.*0123456789: < 1 fifo >  Enter; Esc *$'
tm_keys Right
ok_screen "... Right: the next mode" '^ Mode of extra-a-job.*: < 2 hierarchy >  Enter; Esc'
tm_keys Escape
tm_keys g
sql "DELETE FROM crawltop.jobs WHERE name LIKE 'extra%'" >/dev/null
ok_screen "all rows show again: no row range" 'Jobs 3 of 3 . sort'

# ---- q restores the terminal --------------------------------------------------------------
tm_keys q
ok_screen "q: the shell prompt is back" '^\$ ?$'
ok_match "q: exit status 0 (and no sanitizer report)" "$SCREEN" '^exit=0$'
ok_eq "q: the alternate screen is off" "$(tm display -p -t ct '#{alternate_on}')" 0
stty_after
ok_eq "q: terminal modes restored (stty -g)" \
	"$(cat "$TM_HOME/stty.after" 2>&1)" "$(cat "$TM_HOME/stty.before")"
ok_match "settings saved next to the config (XDG)" \
	"$(cat "$TM_HOME/.config/crawltop/console.conf" 2>&1)" 'interval = 1'

# ---- read-only --------------------------------------------------------------------------------
tm_run "clear; crawltop -d '$DSN' -r; echo exit=\$?"
ok_screen "-r: the header says read-only" 'LIVE.*read-only'
tm_keys j ']'
ok_screen "-r: a change is refused, saying why" 'cannot raise the priority.*read-only mode \(-r\)'
ok_sql "-r: nothing changed" "SELECT priority FROM crawltop.jobs WHERE name = 'beta'" 4
# a refused boost still opens its line, so that what is typed next goes
# there, not to the dashboard's keys (a: audit panel, i: sort order)
tm_keys b
ok_screen "-r: the boost line opens, saying it is refused now" \
	'Boost beta: refused now \(read-only mode \(-r\)\); path prefix or pattern'
tm_keys a i
ok_screen "-r: the keys typed go into the line" 'path prefix or pattern \[points\]: /ai'
tm_keys Enter
ok_screen "-r: Enter refuses it" 'cannot change anything: read-only mode \(-r\)'
ok_eq "-r: the keys changed nothing (no audit panel)" "$(printf '%s' "$SCREEN" | grep -c 'Audit log')" 0
tm_keys '?' NPage
ok_screen "-r: help greys out the changes and says why" 'refused: read-only mode \(-r\)'
tm_keys x C-c
ok_screen "Ctrl-C: the shell prompt is back" '^\$ ?$'
ok_match "Ctrl-C: exit status 130 (128 + SIGINT)" "$SCREEN" '^exit=130$'
ok_eq "Ctrl-C: the alternate screen is off" "$(tm display -p -t ct '#{alternate_on}')" 0

# ---- a viewer role ------------------------------------------------------------------------------
sql "CREATE ROLE tui_viewer LOGIN IN ROLE crawltop_viewer" >/dev/null
tm_run "clear; crawltop -d '$DSN user=tui_viewer'"
ok_screen "viewer: the dashboard works" 'gamma\.example\.net'
tm_keys ']'
ok_screen "viewer: a change is refused with the reason" \
	'cannot raise the priority.*: role tui_viewer is not in crawltop_operator'
ok_sql "viewer: nothing changed" "SELECT priority FROM crawltop.jobs WHERE name = 'alpha'" 3
tm_keys q
tm_wait '^\$ ?$' 5

# ---- NO_COLOR and LANG=C: ASCII, monochrome ---------------------------------------------------
tm_run "clear; LANG=C NO_COLOR=1 crawltop -d '$DSN'; echo exit=\$?"
ok_screen "LANG=C: the console runs" 'Jobs 3 of 3'
ok_eq "LANG=C: only ASCII on the screen" \
	"$(printf '%s' "$SCREEN" | LC_ALL=C grep -c '[^ -~]')" 0
ok_match "LANG=C: ASCII selection mark and rules" "$SCREEN" '^> +1 alpha'
tm_keys t
ok_screen "NO_COLOR: t says the theme stays monochrome" \
	'the theme stays monochrome: NO_COLOR is set; nothing changed'
ok_eq "NO_COLOR: t writes no theme = mono into the shared console.conf" \
	"$(cat "$TM_HOME"/.config/crawltop/console.conf 2>/dev/null | grep -c 'mono')" 0
# ---- SIGTERM restores the terminal too -------------------------------------------------------
pid=$(pgrep -P "$(tm display -p -t ct '#{pane_pid}')" | head -n1)
kill -TERM "$pid"
ok_screen "SIGTERM: the shell prompt is back" '^\$ ?$'
ok_match "SIGTERM: exit status 143 (128 + SIGTERM)" "$SCREEN" '^exit=143$'
ok_eq "SIGTERM: the alternate screen is off" "$(tm display -p -t ct '#{alternate_on}')" 0

# ---- SIGQUIT (Ctrl-\) too ----------------------------------------------------------------------
tm_run "clear; crawltop -d '$DSN'; echo exit=\$?"
ok_screen "SIGQUIT: the console runs" 'Jobs 3 of 3'
tm_keys 'C-\'
ok_screen "SIGQUIT: the shell prompt is back" '^\$ ?$'
ok_match "SIGQUIT: exit status 131 (128 + SIGQUIT)" "$SCREEN" '^exit=131$'
ok_eq "SIGQUIT: the alternate screen is off" "$(tm display -p -t ct '#{alternate_on}')" 0
ok_eq "SIGQUIT: the cursor is visible" "$(tm display -p -t ct '#{cursor_flag}')" 1

# ---- a crash (SIGSEGV, SIGABRT) gives the terminal back, then dies of it ---------------------------
# Plain builds only: under AddressSanitizer the crash signals are ASan's.
if ! ldd "$CT" 2>/dev/null | grep -q libasan; then
	for sig in SEGV ABRT; do
		code=$((128 + $(kill -l "$sig")))
		tm_run "clear; stty -g > $TM_HOME/stty.before; crawltop -d '$DSN'; echo exit=\$?"
		ok_screen "SIG$sig: the console runs" 'Jobs 3 of 3'
		pid=$(pgrep -P "$(tm display -p -t ct '#{pane_pid}')" | head -n1)
		kill -"$sig" "$pid"
		ok_screen "SIG$sig: the shell prompt is back" '^\$ ?$'
		ok_match "SIG$sig: exit status $code (died of it)" "$SCREEN" "^exit=$code\$"
		ok_eq "SIG$sig: the alternate screen is off" "$(tm display -p -t ct '#{alternate_on}')" 0
		stty_after
		ok_eq "SIG$sig: terminal modes restored (stty -g)" \
			"$(cat "$TM_HOME/stty.after" 2>&1)" "$(cat "$TM_HOME/stty.before")"
	done
fi

# ---- SIGTERM and then SIGINT while a prompt is open: the SIGTERM is not lost --------------------
tm_run "clear; crawltop -d '$DSN'; echo exit=\$?"
ok_screen "two signals: the console runs" 'Jobs 3 of 3'
tm_keys b
ok_screen "two signals: the boost prompt is open" 'Boost pending tasks of'
pid=$(pgrep -P "$(tm display -p -t ct '#{pane_pid}')" | head -n1)
kill -TERM "$pid"; kill -INT "$pid"
ok_screen "two signals: the shell prompt is back" '^\$ ?$'
ok_match "two signals: exit status 143 (SIGTERM), not the prompt's Ctrl-C" "$SCREEN" '^exit=143$'

# ---- SIGHUP (the terminal went away) takes the same way out -------------------------------------
tm_run "clear; crawltop -d '$DSN'; echo exit=\$?"
ok_screen "SIGHUP: the console runs" 'Jobs 3 of 3'
pid=$(pgrep -P "$(tm display -p -t ct '#{pane_pid}')" | head -n1)
kill -HUP "$pid"
ok_screen "SIGHUP: the shell prompt is back" '^\$ ?$'
ok_match "SIGHUP: exit status 129 (128 + SIGHUP)" "$SCREEN" '^exit=129$'
ok_eq "SIGHUP: the alternate screen is off" "$(tm display -p -t ct '#{alternate_on}')" 0

# ---- the terminal goes away and no SIGHUP comes (setsid: not the console's controlling tty) -----
# A hung-up tty then polls readable with POLLHUP for ever: the console must end, not spin.
hup_pid="${TMPDIR:-/tmp}/ct-hup.$$"
tm_session hup 100 32
hup_status="${TMPDIR:-/tmp}/ct-hup-status.$$"
rm -f "$hup_status"
TM_T=hup tm_run "exec setsid -w sh -c 'echo \$\$ > $hup_pid; \"$CT\" -d \"$DSN\"; echo \$? > $hup_status'"
TM_T=hup ok_screen "no SIGHUP: the console runs" 'Jobs 3 of 3'
pid=$(cat "$hup_pid" 2>/dev/null || echo 0)
tm kill-session -t hup
gone=0
for _ in $(seq 1 100); do
	kill -0 "$pid" 2>/dev/null || { gone=1; break; }
	nap
done
ok_eq "no SIGHUP: the console ends when its terminal closes" "$gone" 1
[ "$gone" = 1 ] || kill -KILL "$pid" 2>/dev/null
ok_eq "no SIGHUP: the exit status says the terminal hung up (129), not a quit" \
	"$(cat "$hup_status" 2>/dev/null)" 129
rm -f "$hup_pid" "$hup_status"

done_testing
