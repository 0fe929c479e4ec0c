#!/usr/bin/env bash
# test_escape.sh CRAWLTOP: every text the commands print from the database
# reaches the terminal escaped (\xNN), never as the bytes another client
# wrote: an ESC sequence that would set the terminal's title and clear its
# screen, in a job's name (a store whose checks were dropped: no command
# can write one), in a settings version's author and note, in a store key
# (with a newline that would forge a line of its own) and in a map key of
# the engine settings; JSON output escapes them as \u001b. Text is shown
# whole: a note of one character is not cut to "...".
set -u
CT=$1
here=$(dirname "$0")
. "$here/../cli/tap.sh"
. "$here/lib.sh"
db_setup cli_escape
export CRAWLTOP_DSN=$DSN
T=$(mktemp -d "${TMPDIR:-/tmp}/ct-esc.XXXXXX")
trap 'rm -rf "$T"' EXIT
# raw TEXT: how many ESC and BEL bytes TEXT holds
raw() { printf '%s' "$1" | tr -dc '\033\007' | wc -c; }
SHOWN='evil\\x1b]0;pwned\\x07\\x1b\[2J'

"$CT" job create site --domain example.com >/dev/null
"$CT" job create disc --domain example.com --mode discovery >/dev/null
urlset 3 example.com | "$CT" enqueue --job site --sitemap - >/dev/null
urlset 3 example.com | "$CT" enqueue --job disc --sitemap - >/dev/null
"$CT" rank --job disc >/dev/null
printf '/\t/s-1/p-1.html\n' >"$T/site.tsv"
# the names no command can write: the check dropped, as a restore without
# it, or a tampered store, would have it
q "ALTER TABLE crawltop.jobs DROP CONSTRAINT jobs_name_valid;
   UPDATE crawltop.jobs SET name = E'evil\\x1b]0;pwned\\x07\\x1b[2J' || id" >/dev/null
ok_eq "the job names hold ESC and BEL" "$(raw "$(q "SELECT string_agg(name, '') FROM crawltop.jobs")")" 6

# every command that names a job
while IFS= read -r cmd; do
	eval "run $cmd"
	ok_eq "$cmd: no raw ESC or BEL" "$(raw "$OUT")" 0
	ok_match "$cmd: the name shown escaped" "$OUT" "${SHOWN}1"
done <<'EOF'
job list
job show 1
job set-priority 1 4
job pause 1
job resume 1
job boost 1 --prefix /s-1 --by 1
job sitemap-priorities 1
job set-mode 1 hierarchy
enqueue --job 1 --urls <(echo /more)
explain https://example.com/s-1/p-1.html --job 1
simulate --graph "$T/site.tsv" --job 1 --domain example.com --workers 1 --latency-ms 0
stats
EOF
for cmd in "rank --job 2" "stats --ranking" "stats"; do
	run $cmd
	ok_eq "$cmd (a ranked job): no raw ESC or BEL" "$(raw "$OUT")" 0
	ok_match "$cmd (a ranked job): the name shown escaped" "$OUT" "${SHOWN}2"
done
# the dashboard as text, focused on the job (its Focus line) and not
run top -b -n 1 -j 1
ok_eq "top -b -j (the Focus line): no raw ESC or BEL" "$(raw "$OUT")" 0
ok_match "top -b -j: the Focus line names the job, control characters as '?'" "$OUT" \
	'Focus: +job 1 evil\?\]0;pwned\?\?\[2J1'
run top -b -n 1
ok_eq "top -b: no raw ESC or BEL" "$(raw "$OUT")" 0
run stats --json
ok_eq "stats --json: no raw ESC or BEL" "$(raw "$OUT")" 0
ok_match "stats --json: JSON's escapes" "$OUT" '"name":"evil\\u001[bB]\]0;pwned\\u0007\\u001[bB]\[2J1"'

# a settings version another session wrote: its author and note
q "INSERT INTO crawltop.settings (value, created_by, note)
   SELECT value, E'mallory\\x1b[31m', E'note\\x1b]0;pwned\\x07'
   FROM crawltop.settings ORDER BY version DESC LIMIT 1" >/dev/null
run settings get
ok_eq "settings get: exit 0" "$RC" 0
ok_eq "settings get: no raw ESC or BEL" "$(raw "$OUT")" 0
ok_match "settings get: author and note escaped" "$(printf '%s\n' "$OUT" | head -1)" \
	'^# settings version [0-9]+, .* by mallory\\x1b\[31m: note\\x1b\]0;pwned\\x07$'
run settings history
ok_eq "settings history: no raw ESC or BEL" "$(raw "$OUT")" 0
ok_match "settings history: author and note escaped" "$OUT" 'mallory\\x1b\[31m +note\\x1b\]0;pwned\\x07'
# a short note is shown whole (the escaping once cut texts of 1 or 2
# bytes to "...")
"$CT" settings set hierarchy.floor 0.2 --note x >/dev/null
run settings history
ok_match "settings history: a one-character note whole" \
	"$(printf '%s\n' "$OUT" | grep -E '^ *[0-9]+  ' | tail -1)" ' x$'

# keys the rules refuse, written past them (session_replication_role:
# the superuser's way around triggers): a store key holding a newline, and
# a frontier.bonuses entry named with an ESC sequence
V=$(q "SELECT max(version) FROM crawltop.settings")
q "SET session_replication_role = replica;
   INSERT INTO crawltop.settings (value, note)
   SELECT jsonb_set(value, '{store}', value->'store' ||
	jsonb_build_object(E'x\\x1b[2J\\nstore.fake', 1)), 'keys'
   FROM crawltop.settings WHERE version = $V" >/dev/null
run settings get
ok_eq "a store key with ESC and a newline: no raw ESC or BEL" "$(raw "$OUT")" 0
ok_match "a store key with ESC and a newline: one line, escaped" "$OUT" \
	'store\.x\\x1b\[2J\\x0astore\.fake = 1'
ok_eq "a store key with a newline: forges no line" "$(printf '%s\n' "$OUT" | grep -c '^store\.fake')" 0
q "SET session_replication_role = replica;
   INSERT INTO crawltop.settings (value, note)
   SELECT jsonb_set(value, '{frontier,bonuses}', coalesce(value #> '{frontier,bonuses}', '{}') ||
	jsonb_build_object(E'x\\x1b]0;pwned\\x07\\x1b[2J', 5)), 'bonus'
   FROM crawltop.settings WHERE version = $V" >/dev/null
# shown escaped, or refused by the reader with the key escaped: never raw
run settings get frontier.bonuses
ok_eq "a frontier.bonuses key with an ESC sequence: no raw ESC or BEL" "$(raw "$OUT")" 0
ok_match "a frontier.bonuses key with an ESC sequence: named, escaped" "$OUT" \
	'frontier\.bonuses\.x(\\x1b|\?)\]0;pwned(\\x07|\?)(\\x1b|\?)\[2J'
done_testing
