#!/usr/bin/env bash
# test_paste.sh CRAWLTOP: pasted text in the real console (tmux, 100x30).
# The console asks for bracketed paste, so tmux's paste-buffer -p wraps a
# paste in ESC [ 200 ~ ... ESC [ 201 ~ only when the console turned the
# mode on: each case below goes through it, as a terminal would paste.
# A paste is text: in a line (filter, prompt) its ESC does not end the
# line and its line break does not submit it; elsewhere (the jobs view, a
# y/N question) it runs no key. A line that could not hold or take its
# input (too long, a refused paste) applies nothing on Enter. Each case
# checks the database: no priority, status or score changed, no audit
# row written. Last, the terminal is given back without the mode, after
# q and after a suspend (Ctrl-Z, fg turns it on again).
set -u
CT=$1
HERE=$(dirname "$0")
. "$HERE/../cli/tap.sh"
. "$HERE/tmux.sh"
. "$HERE/seed.sh"

seed_db tui_paste
# the seed's two leases last the whole test: one running out (a console
# returns it) would change scores between the two sides of a comparison
sql "UPDATE crawltop.tasks SET lease_expires_at = now() + interval '1 hour' WHERE lease_owner IS NOT NULL" >/dev/null

# paste TEXT: as a terminal pastes (bracketed when the pane asked for it)
paste_text() {
	printf '%s' "$1" | tm load-buffer -b ct_paste -
	tm paste-buffer -p -d -b ct_paste -t "${TM_T:-ct}"
}
# what no paste may change: every job's priority and status, every
# task's score, the audit log
state_now="SELECT (SELECT string_agg(name || ':' || priority || ':' || status, ',' ORDER BY id) FROM crawltop.jobs) || ' ' || (SELECT string_agg(score::text, ',' ORDER BY id) FROM crawltop.tasks) || ' audit ' || (SELECT count(*) FROM crawltop.audit_log)"
# a change the keys would have sent is given a moment to land before the
# state is compared (the keys are read at once; the database is slower)
ok_unchanged() { # NAME
	sleep 1
	ok_eq "$1" "$(sql "$state_now")" "$state_before"
}
# case_start: a case begins in the jobs view, every job shown, and keeps
# the state to compare with, so that on a console that ran an earlier
# paste as keys each case still fails for what it does itself
case_start() {
	tm_keys Escape
	tm_keys Escape
	tm_wait 'Jobs 3 of 3 .*focus all jobs' 5 >/dev/null
	state_before=$(sql "$state_now")
}
# select_job NAME: the filter shows job NAME alone, selected (whatever
# order earlier changes left the jobs in)
select_job() {
	tm_keys /
	tm_keys -l "$1"
	tm_keys Enter
	tm_wait "▶ +[0-9]+ $1 " 5 >/dev/null
}

tm_start 100 30
# the shell leaves the mode alone (readline would turn it on at its
# prompt and off before each command): what the pane has is the console's
tm_run "bind 'set enable-bracketed-paste off'"
tm_run "crawltop() { '$CT' \"\$@\"; }; clear"
tm_run "crawltop -d '$DSN' -i 1; echo exit=\$?; cat -v"
ok_screen "the console runs" 'Jobs 3 of 3'

# ---- a paste with ESC into the filter: ESC does not end it -----------------
case_start
select_job beta
tm_keys Escape
ok_screen "every job shown" 'Jobs 3 of 3'
ok_screen "... beta selected" '▶ +2 beta' 1
tm_keys /
ok_screen "the filter is open" 'Filter: _'
paste_text $'x\e[[[['
ok_screen "filter: a paste holding ESC is refused, saying so" \
	'paste refused: it holds ESC: Enter applies nothing' 5
ok_screen "filter: still open, nothing of the paste in it" 'Filter: _' 1
ok_unchanged "filter: the paste's [[[[ lowered no priority, no audit row"
tm_keys Enter
ok_screen "filter: Enter applies nothing and says why" \
	'nothing applied: paste refused: it holds ESC'
ok_screen "filter: closed and empty" 'Jobs 3 of 3' 1
ok_unchanged "filter: Enter changed nothing either"
# the same bytes sent raw, markers included (a terminal that sends them
# whether or not it was asked)
tm_keys /
ok_screen "the filter again" 'Filter: _'
tm_keys -l $'\e[200~be\e[201~'
ok_screen "raw markers: plain text goes in" 'Filter: be_'
tm_keys -l $'\e[200~ta\e]]]]\e[201~'
ok_screen "raw markers: ESC refused" 'paste refused: it holds ESC'
ok_screen "raw markers: the line as it was before that paste" 'Filter: be_' 1
ok_unchanged "raw markers: ]]]] raised no priority"
tm_keys Escape
ok_screen "Esc closes the filter" 'Jobs 3 of 3'

# ---- a line break in a paste does not submit ------------------------------------
case_start
tm_keys /
paste_text $'gam\n'
ok_screen "a paste's last line break is not Enter" \
	"Filter: gam_"
ok_screen "... and the line below says so" 'not taken as Enter' 1
tm_keys Enter
ok_screen "Enter keeps the pasted filter" "Jobs 1 of 3 .*filter 'gam'"
tm_keys Escape
ok_screen "Esc clears it" 'Jobs 3 of 3'
case_start
tm_keys g b
ok_screen "b: the boost prompt" 'Boost pending tasks of alpha.*: /_'
paste_text $'blog 20\n*'
ok_screen "boost: a line break inside a paste refuses it" \
	'paste refused: it holds a line break before more text'
tm_keys Enter
ok_screen "boost: Enter applies nothing" 'nothing applied: paste refused'
ok_unchanged "boost: the paste's first line was not applied"

# ---- a 6,000-character paste into the boost prompt ------------------------------
# "/blog" and 5,000 spaces and more words: cut at the line's size it
# would be "/blog", a boost of 4 tasks; whole, the prompt refuses it
long="blog$(printf '%5000s' '')20 more words $(printf 'x%.0s' $(seq 982))"
ok_eq "the paste is 6,000 characters long" "${#long}" 6000
case_start
tm_keys g b
ok_screen "b: the boost prompt again" 'Boost pending tasks of alpha.*: /_'
paste_text "$long"
ok_screen "too long: the line below says so" \
	'input too long: 255 bytes at most \(UTF-8\): Enter applies nothing' 5
ok_screen "too long: the prompt as it was before the paste" \
	'\[points, default 10\]: /_' 1
tm_keys Enter
ok_screen "too long: Enter applies nothing and says why" \
	'nothing applied: input too long: 255 bytes at most \(UTF-8\)'
ok_unchanged "too long: no score changed, no audit row"
# typed (no paste) past the end of the filter: the same
tm_keys /
tm_keys -l "$(printf 'y%.0s' $(seq 70))"
ok_screen "typed too long: the line below says so" \
	'input too long: 63 bytes at most \(UTF-8\)'
tm_keys Enter
ok_screen "typed too long: Enter applies nothing" \
	'nothing applied: input too long: 63 bytes at most \(UTF-8\)'
ok_screen "typed too long: no filter kept" 'Jobs 3 of 3' 1

# ---- a paste where no line is open runs no key -----------------------------------
case_start
select_job beta
ok_screen "beta selected again" '▶ +2 beta'
paste_text '[[[[pC'
ok_screen "jobs view: the paste is ignored, saying so" \
	'paste ignored: not in a prompt'
ok_unchanged "jobs view: no priority lowered, beta not paused, nothing asked"
ok_screen "jobs view: no question opened" '^qQuit' 1
case_start
select_job beta
tm_keys C
ok_screen "C: the cancel question" 'Cancel job beta .*\[y/N\]'
state_before=$(sql "$state_now")
paste_text 'y'
ok_screen "a y/N question: a pasted y is not the answer" \
	'paste ignored: not in a prompt'
ok_unchanged "a y/N question: beta not cancelled"
tm_keys n
ok_screen "n leaves the question" 'nothing changed'

# ---- q gives the terminal back without bracketed paste --------------------------
tm_keys q
ok_screen "q: the console ends" '^exit=0$'
# cat -v runs now: a bracketed paste would show its markers as ^[[200~
paste_text 'AFTERQ'
ok_screen "q: the paste reaches cat" 'AFTERQ'
ok_eq "q: bracketed paste is off (no markers around the paste)" \
	"$(printf '%s\n' "$SCREEN" | grep -c '20[01]~')" 0
tm_keys C-c
tm_wait '^\$ ?$' 5

# ---- Ctrl-Z and fg: off while suspended, on again after ---------------------------
tm_run "clear; crawltop -d '$DSN' -i 1"
ok_screen "the console runs again" 'Jobs 3 of 3'
state_before=$(sql "$state_now")
tm_keys C-z
ok_screen "Ctrl-Z: the shell is back" 'Stopped'
tm_run "cat -v"
paste_text 'WHILESTOPPED'
ok_screen "suspended: the paste reaches cat" 'WHILESTOPPED'
ok_eq "suspended: bracketed paste is off" \
	"$(printf '%s\n' "$SCREEN" | grep -c '20[01]~')" 0
tm_keys C-c
tm_wait '^\$ ?$' 5
tm_run "clear; fg; echo exit=\$?"
ok_screen "fg: the console is back" 'Jobs 3 of 3'
select_job beta
ok_screen "fg: beta selected" '▶ +2 beta'
paste_text '[['
ok_screen "fg: a paste is a paste again" 'paste ignored: not in a prompt'
ok_unchanged "fg: no priority lowered"
tm_keys q
ok_screen "q after fg: the console ends with status 0 (and no sanitizer report)" \
	'^exit=0$'

done_testing
