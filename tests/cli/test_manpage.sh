#!/usr/bin/env bash
# test_manpage.sh CRAWLTOP MANPAGE: the man page renders without warnings
# and names every command and every option that `crawltop --help` and
# `crawltop COMMAND --help` (both generated from the command table) list.
set -u
CT=$1 MAN=$2
. "$(dirname "$0")/tap.sh"
warn=$(groff -man -ww -z "$MAN" 2>&1)
ok_eq "groff renders the man page without warnings" "$warn" ""
text=$(groff -man -Tascii -P-c -P-b -P-u "$MAN" 2>/dev/null | col -bx 2>/dev/null || groff -man -Tascii "$MAN")
cmds=$("$CT" --help | awk '/^commands:/{f=1; next} f && /^  [a-z]/{print $1}')
ok_match "crawltop --help lists commands" "$cmds" 'score'
# the entries: the first line after each .TP (a command's entry starts
# with its name in bold: \fBname\fR, .B name, .BR name or .BI "name ...)
entries=$(awk 'prev == ".TP" { print } { prev = $0 }' "$MAN")
for c in $cmds; do
	if grep -qE "^(\\\\fB$c\\\\fR|\.BI? \"?$c[ \"]|\.BR $c( |$)|\.B $c$)" <<<"$entries"
	then tap_result 1 "man page has an entry for command $c"
	else tap_result 0 "man page has an entry for command $c"; fi
	missing=""
	for o in $("$CT" "$c" --help | grep -oE -- '--[a-z][a-z-]*[a-z]' | sort -u); do
		grep -qF -- "$o" <<<"$text" || missing="$missing $o"
	done
	ok_eq "man page names every option of $c" "$missing" ""
done
done_testing
