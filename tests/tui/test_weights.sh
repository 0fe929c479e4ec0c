#!/usr/bin/env bash
# test_weights.sh CRAWLTOP: retuning from the console, in tmux (100x30)
# against the cluster pg-cluster.sh started: the weights panel (every
# tunable of the stored settings version; a value that breaks a rule is
# refused with the rule and nothing changes; a valid one goes into the
# draft; the preview's P0-P3 counts and next-up lists; apply writes an
# audited version, rescores, and a second console picks it up by LISTEN;
# the audit row and the changed distribution; undo), set mode with a
# progress bar, completion and stop (a row lock holds the rescore's
# second batch, so what the screen shows does not depend on the machine's
# speed), keys answered meanwhile, read-only, and golden screens (the
# panel with default settings, the help).
set -u
CT=$1
HERE=$(dirname "$0")
GOLDEN=$HERE/golden
. "$HERE/../cli/tap.sh"
. "$HERE/tmux.sh"
. "$HERE/seed.sh"

seed_db tui_weights
# A fourth job, frontier, with 15,000 tasks: three rescore batches.
sql "SELECT crawltop.create_job('delta', 'delta.example.org', 8, 'frontier')" >/dev/null
sql "SELECT crawltop.enqueue(4, (SELECT array_agg('/d/' || i) FROM generate_series(1, 15000) i), 'link', NULL, 2, 'article', 'link', NULL, (SELECT array_agg((i % 100)::float8) FROM generate_series(1, 15000) i))" >/dev/null

# lock_batch2: hold a row lock on a task of delta's second rescore batch
# (batches are page-id ranges of 5,000) until unlock; the rescore waits
# there, its first batch committed.
lock_batch2() {
	lock_rows "a row of the second batch is locked" "SELECT 1 FROM \
crawltop.tasks WHERE id = (SELECT id FROM crawltop.tasks WHERE job_id = 4 \
ORDER BY page_id OFFSET 7500 LIMIT 1) FOR UPDATE"
}

tm_start 100 30
tm_run "crawltop() { '$CT' \"\$@\"; }; clear"
# a second console, to see a new version arrive by LISTEN
tm_session ct2 100 30
TM_T=ct2 tm_run "'$CT' -d '$DSN' -i 1; echo exit=\$?"
TM_T=ct2 ok_screen "second console: LIVE" '^ crawltop +LIVE'
TM_T=ct2 tm_keys w
TM_T=ct2 ok_screen "second console: the weights panel" 'Weights · settings v3 by postgres'

tm_run "CRAWLTOP_KEYLOG=$TM_HOME/keylog crawltop -d '$DSN' -i 1 --timeout 20000; echo exit=\$?"
ok_screen "header says LIVE" '^ crawltop +LIVE +every 1s'

# ---- the panel: every tunable, from the stored version ---------------------------
tm_keys w
ok_screen "w: the panel names the stored version" \
	'^─ Weights · settings v3 by postgres · 0 edits'
ok_match "class bounds first" "$SCREEN" '▶  p0 +80 '
ok_match "... with where each value comes from" "$SCREEN" \
	'v3: 80 \(crawltop\.settings:3\)'
ok_match "hierarchy factors" "$SCREEN" 'decay +0\.8'
ok_match "type weights" "$SCREEN" 'frontier\.types'
ok_match "the preview says what it will do" "$SCREEN" 'No edits\. Edit a value \(Enter\)'
ok_golden "golden: the weights panel with default settings, 100x30" \
	"$GOLDEN/weights_default_100x30.txt"
# the help, generated from the key table
tm_keys '?'
ok_screen "the help" 'Help \(any key closes\)'
ok_golden "golden: the help, 100x30" "$GOLDEN/help_100x30.txt"
tm_keys Escape
ok_screen "any key: back to the panel" '^─ Weights'
tm_keys PageDown PageDown
# waits for a row the second PageDown brings (the detail panel's title
# names frontier.bonuses after the first one already)
ok_screen "discovery bonuses: each method's" 'adaptive-seed +20'
ok_match "... under their heading" "$SCREEN" '^ +frontier\.bonuses( |$)'
tm_keys G
ok_screen "the freshness table at the end" 'deep_depth +3'
ok_match "ranking weights, with their sum" "$SCREEN" \
	'discovery\.weights  \(sum 1\).*'$'\n''.*unseen_likelihood +0\.28'
ok_match "backoff" "$SCREEN" 'multiplier +2'
tm_keys g
ok_screen "Home: back to the top" '▶  p0 +80'
# a hierarchy value applies to pages scored from now on: its preview
# would say "0 change", and the side panel says why
tm_keys j j j
ok_screen "a hierarchy value: what a rescore does with it" \
	'for pages scored from now on: a page keeps'
ok_match "... on the hierarchy row" "$SCREEN" '▶  root +1 '
tm_keys g
ok_screen "Home again" '▶  p0 +80'

# ---- a value that breaks a rule is refused; nothing changes ----------------------
tm_keys Enter
ok_screen "Enter: the value to edit" '^ classes\.p0 = 80_'
tm_keys BSpace BSpace
tm_keys -l 150
tm_keys Enter
ok_screen "out of range: refused with the range rule, in the panel" \
	'Refused: classes\.p0 = 150: must be >= 0 and'
ok_match "... the rule's end" "$SCREEN" '^ .* {3}<= 100$'
ok_match "the row keeps its value" "$SCREEN" '▶  p0 +80 '
ok_match "the line stays open with what was typed" "$SCREEN" '^ classes\.p0 = 150_'
ok_sql "the database is unchanged" "SELECT max(version) FROM crawltop.settings" 3
tm_keys Escape
ok_screen "Esc abandons the line" 'edit abandoned'
tm_keys j Enter BSpace BSpace
tm_keys -l 90
tm_keys Enter
ok_screen "a rule between keys: refused with the config layer's message" \
	'Refused: classes\.p0 = 80$'
ok_match "... both keys and where each value comes from" "$SCREEN" \
	'\(crawltop\.settings:3\) must be > classes\.p1 =$'
ok_match "... the line stays open with what was typed" "$SCREEN" '^ classes\.p1 = 90_'
ok_match "the panel shows the whole rule" "$SCREEN" 'strictly'
ok_match "still no edit" "$SCREEN" '· 0 edits'
tm_keys Escape

# ---- a valid value: the draft and its preview -------------------------------------
tm_keys Enter BSpace BSpace
tm_keys -l 45
tm_keys Enter
ok_screen "a valid value goes into the draft" 'classes\.p1 = 45 in the draft \(1 edit; A applies\)'
ok_match "the row shows stored -> draft" "$SCREEN" '▶\* p1 +60 → 45'
ok_screen "preview: P1 gains two of alpha's tasks" 'P1 +0 +2 +\+2' 20
ok_match "preview: P2 loses them" "$SCREEN" 'P2 +5 +3 +-2'
ok_match "preview: next up now and with the draft" "$SCREEN" \
	'P2 +50\.0 /blog +P1 +50\.0 /blog'
ok_match "preview: on the selected job, its mode" "$SCREEN" \
	'Preview: job alpha .*'$'\n''.*hierarchy: 5 pending tasks, 2 change'
ok_sql "the preview wrote nothing" "SELECT max(version) || ' ' || \
(SELECT count(*) FROM crawltop.tasks WHERE job_id = 1 AND class = 1) FROM \
crawltop.settings" "3 0"

# ---- Ctrl-C right after another key: the key first, as when they come apart ------
tm_keys Enter C-c
ok_screen "Enter then Ctrl-C at once: the edit is abandoned" 'edit abandoned'
ok_match "... the console still runs" "$SCREEN" '^ crawltop +(LIVE|STALE)'
ok_match "... the draft keeps its edit" "$SCREEN" 'settings v3 by postgres · 1 edit'
# ---- Ctrl-C with a draft not applied asks, as q does ------------------------------
tm_keys C-c
ok_screen "Ctrl-C with a draft: the quit question" \
	'The weights draft has 1 edit not applied .*quit anyway\? y quits'
tm_keys Escape
ok_screen "any other key: back to the panel" 'nothing changed'
ok_match "... the draft kept, the console running" "$SCREEN" \
	'settings v3 by postgres · 1 edit'

# ---- apply: a new version, audited, rescored, seen by the other console ----------
tm_keys A
ok_screen "A asks first, naming what it will do" \
	'Apply 1 change as a new version after v3 and rescore 4 jobs \(15014 tasks\)\? \[y/N\]'
tm_keys y
# the version commits before the rescore starts: the other console hears
# of it at once (its message lasts 10 s, less than a rescore may take)
TM_T=ct2 ok_screen "the other console picked v4 up (LISTEN)" \
	'Weights · settings v4 by postgres · 0 edits'
TM_T=ct2 ok_match "... and says so" "$SCREEN" 'settings v4 \(postgres, 1 change \(console\)\) is now current'
ok_screen "applied and rescored" \
	'settings v4 written \(1 key changed\); 15014 tasks of 4 jobs rescored' 60
ok_sql "the new version holds the value" \
	"SELECT value->'classes'->>'p1' FROM crawltop.settings WHERE version = 4" 45
ok_sql "no job left marked: each rescore completed" \
	"SELECT count(*) FROM crawltop.jobs WHERE rescore_needed_at IS NULL" 4
ok_sql "one audit row: before and after" "SELECT before::text || ' ' || \
after::text || ' ' || rows_affected FROM crawltop.audit_log WHERE action = 'settings.update'" \
	'{"version": 3, "classes.p1": 60} {"version": 4, "classes.p1": 45} 1'
ok_sql "alpha's tasks at 50 are P1 now" "SELECT count(*) FROM crawltop.tasks \
WHERE job_id = 1 AND status = 'pending' AND class = 1" 2
ok_screen "the panel is at v4, the draft empty" 'Weights · settings v4 by postgres · 0 edits'
tm_keys Escape a
ok_screen "the audit panel shows the change" \
	'settings\.upd. +- +1 +classes\.p1 60 → 45, version 3 → 4'
ok_match "... and the rescore batches" "$SCREEN" 'tasks\.rescore'
tm_keys a Enter
ok_screen "the class distribution changed: alpha has two P1 tasks" \
	'^ P1 [^0-9]*2 +40%'
tm_keys Escape

# ---- undo: the previous version again, as a new version -------------------------
tm_keys w U
ok_screen "U asks, naming the version it undoes" \
	'Undo settings v4 \(postgres, [0-9-]+ [0-9:]+\): write v3.s values as a new version'
tm_keys y
ok_screen "undone and rescored" 'settings v5 written \(1 key changed\)' 60
ok_sql "v5 equals v3" "SELECT (SELECT value FROM crawltop.settings WHERE version = 5) \
= (SELECT value FROM crawltop.settings WHERE version = 3)" t
ok_sql "the undo is audited" "SELECT after::text FROM crawltop.audit_log \
WHERE action = 'settings.undo'" '{"version": 5, "classes.p1": 60}'
ok_sql "alpha's tasks are P2 again" "SELECT count(*) FROM crawltop.tasks \
WHERE job_id = 1 AND status = 'pending' AND class = 1" 0
tm_keys Escape

# ---- set mode: progress bar, keys meanwhile, completion -------------------------
tm_keys G
ok_screen "delta selected" '▶ +4 delta'
lock_batch2
tm_keys m
ok_screen "m: the mode chooser, at the job's mode" 'Mode of delta: .*3 frontier'
ok_match "at 100 columns: every mode with its digit, and the keys" "$SCREEN" \
	'Mode of delta: 1 fifo 2 hierarchy 3 frontier 4 discovery 5 freshness 6 importance  Enter; Esc'
tm resize-window -t ct -x 80 -y 30
ok_screen "at 80 columns: the modes without digits or keys" \
	'Mode of delta: fifo hierarchy frontier discovery freshness importance *$'
tm resize-window -t ct -x 100 -y 30
ok_screen "back at 100 columns, frontier picked" 'Mode of delta: .*3 frontier'
ok_match "before Enter: what frontier makes of the running crawlers" "$SCREEN" \
	'^ running crawlers keep working: tasks sent unscored get a type/depth score *$'
tm_keys 1
ok_screen "fifo picked: what fifo makes of them" \
	'^ running crawlers keep working: new tasks queue in the order found *$'
tm_keys 4
ok_screen "discovery picked: what discovery makes of them" \
	'^ running crawlers keep working: tasks sent unscored wait in P2 until ranked *$'
tm_keys Enter
ok_screen "a progress bar while the rescore runs" \
	'^ Rescore .* 33% 5000/15000 · [0-9]+s · x stops · set mode discovery, rescore jo' 20
ok_match "the header says RESCORE" "$SCREEN" '^ crawltop +LIVE .*RESCORE 33%'
ok_sql "the mode changed in one audited transaction" "SELECT prioritization_mode \
|| ' ' || (SELECT count(*) FROM crawltop.audit_log WHERE action = 'job.mode') \
FROM crawltop.jobs WHERE id = 4" "discovery 1"
tm_keys '?'
tm_wait 'Help \(any key closes\)' 10
held=$(sql "SELECT CASE WHEN count(*) > 0 THEN 'held' ELSE 'released' END FROM \
pg_stat_activity WHERE application_name = 'ct_locker' AND query LIKE '%pg_sleep%'")
ok_key_answered "? answered while the rescore waits on the lock" \
	"$TM_HOME/keylog" 63 "$held"
tm_keys Escape
unlock
ok_screen "completion: the message says what was done" \
	'job delta: mode discovery; rescored 15000 of 15000 tasks' 30
ok_sql "every batch audited" "SELECT count(*) FROM crawltop.audit_log WHERE \
action = 'tasks.rescore' AND job_id = 4 AND after->>'cause' = 'mode'" 3
ok_screen "the jobs table shows the new mode" '▶ +4 delta +delta\.example\.org +disc(overy)? '
ok_noscreen "... its rescore complete: not stale" '4 delta .* stale '

# ---- stop a rescore: the batch waiting is cancelled at once, the batches done stay --------
lock_batch2
tm_keys m 3 Enter
ok_screen "rescore back to frontier: running" '^ Rescore .* 33% 5000/15000' 20
tm_keys x
ok_screen "x: stopped at once, while its batch still waits for the lock" \
	'job delta: mode frontier; rescored 5000 of 15000 tasks, stopped \(m, frontier again: the rest\)' 10
ok_sql "... the lock still held" "SELECT count(*) FROM pg_stat_activity WHERE \
application_name = 'ct_locker' AND query LIKE '%pg_sleep%'" 1
unlock
ok_sql "one batch committed, the cancelled one rolled back" "SELECT count(*) \
FROM crawltop.audit_log WHERE action = 'tasks.rescore' AND job_id = 4 AND \
after->>'cause' = 'mode' AND after->>'mode' = 'frontier'" 1
ok_screen "the jobs table: delta left half-rescored, stale" \
	'4 delta +delta\.example\.org +front[a-z]* +[0-9]+ +stale '
ok_match "... the title says why" "$SCREEN" \
	'delta stale: tasks not all rescored for mode frontier'

tm_keys q
ok_screen "q: exit 0 (no sanitizer report)" '^exit=0$'

# ---- q while a rescore waits: the console leaves, the batch rolls back ----------
lock_batch2
tm_run "clear; crawltop -d '$DSN' -i 1; echo exit=\$?"
ok_screen "restarted" '^ crawltop +LIVE'
tm_keys G m 4 Enter
ok_screen "a rescore waits on the lock" '^ Rescore .* 33% ' 20
tm_keys q
ok_screen "q during a rescore asks first, saying it stops it" \
	'rescore job delta: 5000/15000 done\. Quit and stop it there\? \[y/N\]' 10
tm_keys n
ok_screen "any other key: it stays, the rescore still running" '^ Rescore .* 33% '
tm_keys q y
ok_screen "q y during a rescore: exit 0 (no sanitizer report)" '^exit=0$' 10
ok_sql "... while the batch it waited for was still locked" "SELECT count(*) \
FROM pg_stat_activity WHERE application_name = 'ct_locker' AND query LIKE \
'%pg_sleep%'" 1
unlock
ok_sql "its connection gone, the batch in flight rolled back" "SELECT count(*) \
FROM crawltop.audit_log WHERE action = 'tasks.rescore' AND job_id = 4 AND \
after->>'cause' = 'mode' AND after->>'mode' = 'discovery'" 4

# ---- x while the worker cannot even connect (postmaster stopped): nothing changes -------
tm_run "clear; crawltop -d '$DSN' -i 1; echo exit=\$?"
ok_screen "restarted" '^ crawltop +LIVE'
pm=$(head -n1 "$PGHOST/data/postmaster.pid")
kill -STOP "$pm"
tm_keys G m 3 Enter
ok_screen "a mode change waits for its connection" \
	'job delta: mode discovery -> frontier, rescoring .*x stops' 10
tm_keys x
kill -CONT "$pm"
ok_screen "x before it connected: it stops there" \
	'stopped before it began; nothing changed' 20
ok_sql "... and the mode stays discovery" "SELECT prioritization_mode FROM \
crawltop.jobs WHERE id = 4" discovery
tm_keys q
ok_screen "q: exit 0" '^exit=0$'

# ---- read-only: the panel shows, edits are refused -------------------------------
tm_run "clear; crawltop -d '$DSN' -r; echo exit=\$?"
ok_screen "-r: LIVE" 'LIVE.*read-only'
tm_keys w
ok_screen "-r: the panel shows" 'Weights · settings v5'
tm_keys Enter
ok_screen "-r: an edit is refused, saying why" \
	'cannot edit the value: read-only mode \(-r\)'
tm_keys q q
ok_screen "-r: q leaves, exit 0" '^exit=0$'
TM_T=ct2 tm_keys q q
TM_T=ct2 ok_screen "second console: q leaves, exit 0 (no sanitizer report)" '^exit=0$'

done_testing
