# tmux.sh: drive the real console in a private tmux server (sourced by the
# tui tests, after tests/cli/tap.sh). The tmux regress/*.sh pattern: start
# a server on our own socket, send keys, capture-pane -p, compare.
#
#   tm_start W H          private server, one window W x H running a plain
#                         shell (prompt "$ ") with the environment below
#   tm_session NAME W H   another session on the same server, the same way
#                         (the functions below act on session $TM_T,
#                         default ct: TM_T=NAME tm_keys ...)
#   tm CMD...             tmux command on our server
#   tm_keys KEYS...       send-keys to the pane
#   tm_run "CMDLINE"      type a command line into the shell and run it
#   tm_wait REGEX [SECS]  poll capture-pane until REGEX (grep -E) matches;
#                         0 when it did; the last screen is in $SCREEN
#   tm_gone REGEX [SECS]  poll until REGEX no longer matches
#   ok_screen NAME REGEX [SECS]   TAP: the screen shows REGEX in time
#   ok_noscreen NAME REGEX [SECS] TAP: REGEX disappears in time
#   pg_ctl_stop, pg_ctl_start     stop / start the test cluster (the one
#                         pg-cluster.sh started, data in $PGHOST/data)
# Every wait polls (every 0.05 s, after half a second every 0.1 s, after
# two every 0.2 s) up to
# its timeout: no fixed sleeps.
TM_SOCK=
SCREEN=

tm() { tmux -S "$TM_SOCK" "$@"; }

tm_start() {
	TM_SOCK=$(mktemp -u "${TMPDIR:-/tmp}/ct-tmux.XXXXXX")
	TM_HOME=$(mktemp -d "${TMPDIR:-/tmp}/ct-home.XXXXXX")
	trap 'tm kill-server 2>/dev/null; rm -rf "$TM_SOCK" "$TM_HOME"' EXIT
	tm_session ct "$1" "$2"
}

tm_session() { # NAME W H
	# shellcheck disable=SC2016
	tm -f /dev/null new-session -d -x "$2" -y "$3" -s "$1" \
		"env -i PATH='$PATH' HOME='$TM_HOME' TERM=screen-256color \
		LANG=${TM_LANG:-C.UTF-8} PGHOST='$PGHOST' PGPORT='$PGPORT' \
		PGUSER='$PGUSER' PGDATABASE='$PGDATABASE' PS1='$ ' \
		ASAN_OPTIONS='${ASAN_OPTIONS:-}' UBSAN_OPTIONS='${UBSAN_OPTIONS:-}' \
		LSAN_OPTIONS='${LSAN_OPTIONS:-}' \
		bash --norc --noprofile"
	tm set-option -g status off >/dev/null
	tm set-option -g remain-on-exit on >/dev/null
	TM_T=$1 tm_wait '^\$ *$' 5 >/dev/null
}

tm_keys() { tm send-keys -t "${TM_T:-ct}" "$@"; }

tm_run() {
	tm send-keys -t "${TM_T:-ct}" -l "$1"
	tm send-keys -t "${TM_T:-ct}" Enter
}

# tm_poll WANT REGEX SECS: capture the pane until grep -E REGEX matches
# (WANT 0) or stops matching (WANT 1).
tm_poll() {
	local deadline rc n=0
	ms_now
	deadline=$((NOW_MS + $3 * 1000))
	while :; do
		SCREEN=$(tm capture-pane -p -t "${TM_T:-ct}" 2>/dev/null)
		has_line "$2" "$SCREEN"
		rc=$?
		[ $rc -eq "$1" ] && return 0
		ms_now
		[ "$NOW_MS" -ge "$deadline" ] && return 1
		# 0.05 s for the first half second, then 0.1 s, after two
		# seconds 0.2 s: a capture is a tmux process (about 15 ms of
		# CPU on two cores), and a console refreshing every second
		# changes its screen about once a second
		nap
		[ $((n += 1)) -gt 10 ] && nap
		[ "$n" -gt 25 ] && nap && nap
	done
}

tm_wait() { tm_poll 0 "$1" "${2:-10}"; } # REGEX [SECS]
tm_gone() { tm_poll 1 "$1" "${2:-10}"; } # REGEX [SECS]

# The screen as TAP diagnostics.
screen_diag() {
	local IFS=$'\n' lines=() l
	for l in $SCREEN; do lines+=("|$l"); done
	printf '%s\n' "${lines[@]}"
}

ok_screen() { # NAME REGEX [SECS]
	if tm_wait "$2" "${3:-10}"; then
		tap_result 1 "$1"
	else
		local IFS=$'\n'
		# shellcheck disable=SC2046
		tap_result 0 "$1" "want /$2/ on the screen:" $(screen_diag)
	fi
}

ok_noscreen() { # NAME REGEX [SECS]
	if tm_gone "$2" "${3:-10}"; then
		tap_result 1 "$1"
	else
		local IFS=$'\n'
		# shellcheck disable=SC2046
		tap_result 0 "$1" "want /$2/ gone from the screen:" $(screen_diag)
	fi
}

# Golden screens (tests/tui/golden/NAME.txt, README.md there): the screen
# with what changes from run to run masked: the clock, the database cost,
# the count of problem jobs (the seeded jobs nobody crawls are stalled
# after a minute) and the connection on the header line, the rates and the sparkline on
# the totals line. CRAWLTOP_GOLDEN_UPDATE=1 writes the file instead.
golden_mask() {
	sed -E -e '1s#db [0-9]+ ms#db N ms#' -e '1s# [0-9]+ PROBLEMS?  ##' \
		-e '1s#postgres@[^ ]+ +[0-9]{2}:[0-9]{2}:[0-9]{2}$#postgres@SOCKET/DB HH:MM:SS#' \
		-e '2s#claims/s .*$#claims/s RATE SPARKLINE ETA#'
}

ok_golden() { # NAME FILE
	local got want n=0
	got=$(printf '%s\n' "$SCREEN" | golden_mask)
	want=$(cat "$2" 2>/dev/null)
	# the capture that found the frame's first line may have caught
	# tmux half-way through the frame: the screen again, for up to 2 s,
	# until it is the golden one
	while [ -z "${CRAWLTOP_GOLDEN_UPDATE:-}" ] && [ "$got" != "$want" ] &&
		[ $((n += 1)) -le 40 ]; do
		nap
		SCREEN=$(tm capture-pane -p -t "${TM_T:-ct}" 2>/dev/null)
		got=$(printf '%s\n' "$SCREEN" | golden_mask)
	done
	if [ -n "${CRAWLTOP_GOLDEN_UPDATE:-}" ]; then
		printf '%s\n' "$got" >"$2"
		tap_result 1 "$1 (golden file written: $2)"
	elif [ "$got" = "$want" ]; then
		tap_result 1 "$1"
	else
		local IFS=$'\n'
		# shellcheck disable=SC2046
		tap_result 0 "$1" "differs from $2 (diff: want, got):" \
			$(diff <(cat "$2" 2>/dev/null) <(printf '%s\n' "$got") | head -40)
	fi
}

# keylog_ms FILE KEYCODE: how long the console took, in whole ms, from
# reading the last key KEYCODE to flushing the frame that answers it, from
# its CRAWLTOP_KEYLOG file (loop.c); "none" when the key is not logged.
keylog_ms() {
	awk -v k="$2" '$1 == k { ms = int(($3 - $2) * 1000) } END { print ms == "" ? "none" : ms }' \
		"$1" 2>/dev/null || echo none
}
# ok_key_answered NAME FILE KEYCODE HELD: the console answered the key
# KEYCODE (its CRAWLTOP_KEYLOG FILE logged the frame that answers it)
# while the database was still holding the console's query (HELD is
# "held", from a check made after the answer showed): the keyboard does
# not wait for the database. How fast it answers is a benchmark's
# figure (./dev bench console); the console's own time is shown here.
ok_key_answered() {
	local ms
	ms=$(keylog_ms "$2" "$3")
	ok_match "$1 (${ms} ms in the console)" "$ms $4" '^[0-9]+ held$'
}

PG_BINDIR=${PG_BINDIR:-/usr/lib/postgresql/15/bin}
[ -x "$PG_BINDIR/pg_ctl" ] || PG_BINDIR=$(dirname "$(command -v pg_ctl)")
as_pg() {
	if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}
pg_ctl_stop() {
	as_pg "$PG_BINDIR/pg_ctl" -D "$PGHOST/data" -m fast -w -t 30 stop >/dev/null
}
pg_ctl_start() {
	as_pg "$PG_BINDIR/pg_ctl" -D "$PGHOST/data" -l "$PGHOST/server.log" \
		-w -t 30 start >/dev/null
	# the test's psql session (pgq.sh) lost its server: a new one
	if declare -F pgq_start >/dev/null && [ -n "${DB:-}" ]; then
		pgq_start "$DB"
	fi
}
