#!/usr/bin/env bash
# test_layout.sh CRAWLTOP: what the console makes of large counts and long
# names in the real binary (tmux): the totals line drops whole segments
# and leaves the ETA its place, counts of 100k and more keep a blank from
# their bars, NAME comes before DOMAIN in the jobs table, and no ETA (-)
# where there is no estimate.
set -u
CT=$1
HERE=$(dirname "$0")
. "$HERE/../cli/tap.sh"
. "$HERE/tmux.sh"
. "$HERE/seed.sh"

seed_db tui_layout

# job 4: 100,800 pending tasks (one class, one heatmap cell); job 5 with
# 1005 tasks, cancelled, and beta and gamma cancelled too (1012 skipped);
# job 6 without tasks; completions in the last minute of alpha and job 4,
# the jobs left, so that there is an ETA
sql "SELECT crawltop.create_job('archive-crawl-2024-q3', 'big.example.org', 2, 'fifo')" >/dev/null
sql "SELECT inserted FROM crawltop.enqueue(4, ARRAY(SELECT '/p' || g FROM generate_series(1, 100000) g), 'link', NULL, 1, 'article', 'link')" >/dev/null
sql "SELECT inserted FROM crawltop.enqueue(4, ARRAY(SELECT '/q' || g FROM generate_series(1, 800) g), 'link', NULL, 1, 'article', 'link')" >/dev/null
sql "SELECT crawltop.create_job('old', 'old.example.org', 9, 'fifo')" >/dev/null
sql "SELECT inserted FROM crawltop.enqueue(5, ARRAY(SELECT '/o' || g FROM generate_series(1, 1005) g), 'link', NULL, 1, 'article', 'link')" >/dev/null
for j in 2 3 5; do
	sql "SELECT crawltop.set_job_state($j, 'cancel')" >/dev/null
done
sql "SELECT crawltop.create_job('empty', 'empty.example.org', 9, 'fifo')" >/dev/null
sql "SELECT count(*) FROM crawltop.complete('w1', ARRAY(SELECT id FROM crawltop.tasks WHERE lease_owner = 'w1'))" >/dev/null
# the seed's two leases last an hour; should they have run out (a very
# busy machine), complete was refused, and alpha must still have two
# completions in the last minute (the claim takes the expired ones back)
left=$((2 - $(sql "SELECT count(*) FROM crawltop.tasks WHERE job_id = 1 AND status = 'completed'")))
[ "$left" -gt 0 ] && sql "SELECT count(*) FROM crawltop.complete('w1', ARRAY(SELECT task_id FROM crawltop.claim('w1', $left, 1)))" >/dev/null
sql "SELECT count(*) FROM crawltop.complete('w3', ARRAY(SELECT task_id FROM crawltop.claim('w3', 20, 4)))" >/dev/null
ok_eq "seeded: 100,780 pending in job 4, 1012 skipped" \
	"$(sql "SELECT count(*) FILTER (WHERE job_id = 4 AND status = 'pending') || ' ' || count(*) FILTER (WHERE job_id IN (2, 3, 5)) FROM crawltop.tasks")" \
	"100780 1012"

tm_start 80 24
tm_run "clear; '$CT' -d '$DSN' -i 1; echo exit=\$?"
ok_screen "80x24: LIVE" '^ crawltop +LIVE'
ok_screen "80x24: the totals have an ETA" '^ pending .* ETA [0-9]'
line2=$(printf '%s\n' "$SCREEN" | sed -n 2p)
# every segment whole: a label and its whole number, the ETA last
ok_match "80x24: the totals line holds whole segments, then the ETA" "$line2" \
	'^ pending 100\.8k  running 0  completed 22  failed 0  claims/s [0-9.]+ .* ETA [0-9][0-9a-z]* *$'
ok_eq "80x24: no segment cut or written over (skipped left out whole)" \
	"$(printf '%s\n' "$line2" | grep -cE 'skip( |$)|skipped 1($| )|skipped [0-9]+[^0-9 ]')" 0
ok_match "80x24: NAME is shown (DOMAIN left out)" "$SCREEN" \
	' ID NAME +MODE '
ok_match "80x24: the job's name in its row" "$SCREEN" ' 4 archive-c'
ok_match "80x24: a count of 100.8k keeps a blank from its bar" "$SCREEN" \
	'^ P3 [^ ]*[█▏▎▍▌▋▊▉] +100\.8k 100%'
ok_match "80x24: the heatmap cell: its shade, a blank, 100.8k" "$SCREEN" \
	'link +[^ ] 100\.8k'
ok_match "80x24: no ETA (-) for the cancelled job" "$SCREEN" \
	' 5 old .*cancel.* -$'
tm_keys G
ok_screen "80x24: no ETA (-) for the job without tasks" ' 6 empty .* -$'

tm resize-window -t ct -x 100 -y 30
ok_screen "100x30: NAME and DOMAIN" ' ID NAME +DOMAIN +MODE '
ok_match "100x30: the name first, then the domain" "$SCREEN" \
	' 1 alpha +alpha\.ex'
ok_match "100x30: the totals line: retrying (0) left out whole, skipped shown" "$SCREEN" \
	'^ pending 100\.8k  running 0  completed 22  failed 0  skipped 1012  claims/s [0-9.]+ .* ETA [0-9]'

tm resize-window -t ct -x 200 -y 30
ok_screen "200x30: the whole name" ' 4 archive-crawl-2024-q3 +big\.example\.org '
# a tall terminal: "Next up" asks for as many tasks as the model keeps
# (64); it asked for 20 once it had more rows than that
tm resize-window -t ct -x 200 -y 110
rows=0
for _ in $(seq 1 60); do
	SCREEN=$(tm capture-pane -p -t ct)
	rows=$(printf '%s\n' "$SCREEN" | grep -cE '/[pq][0-9]+ ')
	[ "$rows" -ge 64 ] && break
	nap
done
ok_eq "200x110: Next up shows the model's 64 tasks" "$rows" 64
[ "$rows" = 64 ] || screen_diag
tm resize-window -t ct -x 200 -y 30

tm_keys q
ok_screen "q: exit 0" '^exit=0$'

# ---- top -b: no ETA where there is no estimate, null in JSON ----------------
out=$("$CT" top -b -n 1 --json -d "$DSN" 2>&1)
got=$(printf '%s' "$out" | python3 -c '
import json, sys
d = json.loads(sys.stdin.read())
print(" ".join(str(j["eta_s"]) for j in d["jobs"] if j["name"] in ("old", "empty")))')
ok_eq "--json: eta_s null for the cancelled job and the one without tasks" "$got" "None None"

done_testing
