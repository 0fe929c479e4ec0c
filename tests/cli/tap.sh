# tap.sh: a minimal TAP producer for the shell tests (sourced).
#   ok_eq NAME GOT WANT     pass when GOT equals WANT
#   ok_match NAME GOT REGEX pass when a line of GOT matches the extended
#                           regex (as grep -E would, without a process)
#   has_line REGEX TEXT     the same test, true or false (a REGEX of
#                           several lines: over the whole TEXT)
#   tap_skip NAME           a test this build cannot run
#   sanitized PROGRAM       true when PROGRAM runs under AddressSanitizer
#   done_testing            print the plan; exit 1 if anything failed
#   ms_now, nap             NOW_MS, a 0.05 s pause (no process)
TAP_N=0
TAP_FAILED=0
tap_result() { # OK? NAME [DIAG...]
	TAP_N=$((TAP_N + 1))
	if [ "$1" = 1 ]; then
		echo "ok $TAP_N - $2"
	else
		TAP_FAILED=$((TAP_FAILED + 1))
		echo "not ok $TAP_N - $2"
		shift 2
		# every line of a diagnostic is a comment: a screen or a
		# message of several lines must not read as TAP
		printf '%s\n' "$@" | sed 's/^/# /'
	fi
}
ok_eq() {
	if [ "$2" = "$3" ]; then tap_result 1 "$1"
	else tap_result 0 "$1" "got:  $2" "want: $3"; fi
}
# has_line REGEX TEXT: whether a line of TEXT matches REGEX, as
# `grep -Eq` (bash's =~ is the same POSIX regcomp, line by line). On two
# cores a grep costs 15 ms of CPU (its exec, page faults), and the tests
# call it tens of thousands of times; a long text still goes to grep,
# which compiles the regex once.
has_line() {
	local -a lines
	local l
	[ -n "$2" ] || return 1 # no line at all
	# a regex of several lines matches the text as a whole (grep would
	# take each line of it as a pattern of its own)
	if [[ $1 == *$'\n'* ]]; then
		[[ $2 =~ $1 ]]
		return
	fi
	mapfile -t lines <<<"${2%$'\n'}"
	if [ ${#lines[@]} -gt 300 ]; then
		printf '%s' "$2" | grep -Eq -- "$1"
		return
	fi
	for l in "${lines[@]}"; do
		[[ $l =~ $1 ]] && return 0
	done
	return 1
}
ok_match() {
	if has_line "$3" "$2"; then tap_result 1 "$1"
	else tap_result 0 "$1" "got:  $2" "want /$3/"; fi
}
tap_skip() {
	TAP_N=$((TAP_N + 1))
	echo "ok $TAP_N - $1 # SKIP"
}
sanitized() { # the runtime lists its flags when asked to
	ASAN_OPTIONS=help=1 "$1" --version 2>&1 | grep -q 'AddressSanitizer'
}
done_testing() {
	echo "1..$TAP_N"
	[ "$TAP_FAILED" -eq 0 ]
}

# ms_now: NOW_MS = the clock in milliseconds, without a process
# ($EPOCHREALTIME; a $(date) would fork twice).
ms_now() { local t=${EPOCHREALTIME/[.,]/}; NOW_MS=$((t / 1000)); }

# nap: 0.05 s without a process: a read that times out on a FIFO nobody
# writes (a poll used to fork five processes: tmux, grep, its printf,
# date and sleep; on two cores running four tests, that was CPU taken
# from the programs under test).
nap() {
	if [ -z "${NAP_FD:-}" ]; then
		local f
		f=$(mktemp -u "${TMPDIR:-/tmp}/ct-nap.XXXXXX")
		mkfifo "$f" && exec {NAP_FD}<>"$f" && rm -f "$f"
	fi
	read -r -t 0.05 -u "$NAP_FD" _ || :
}
