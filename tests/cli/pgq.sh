# pgq.sh: a test's queries through one psql session kept open (sourced).
#   pgq DB SQL   run SQL in database DB and print its rows as
#                `psql -qAt -c SQL` does; errors go to stderr and the
#                status is psql's (0, or 1 on an error)
#
# On two cores a psql process and its connection cost about 80 ms of CPU
# (an exec, a server backend started, page faults); the tests query
# thousands of times, polls included. One psql runs for the test and
# reads each query from a FIFO; `\echo` marks the end of its output on
# another. It is not a child of the test's shell (a bare `wait` in a test
# would wait for it forever), and it ends when the test does (its input
# closes). Started in the test's own shell (pgq_start), it serves the
# command substitutions too: $(pgq ...) runs in a subshell that shares
# the FIFOs. A psql that stopped (an error: ON_ERROR_STOP, as -c stops;
# the server restarted by the test) is started again by the next call.
# Unlike -c, statements of one SQL text each commit on their own.
PGQ_DB=
PGQ_PID=
PGQ_IN=
PGQ_OUT=

pgq_start() { # DB
	[ -n "$PGQ_PID" ] && kill "$PGQ_PID" 2>/dev/null
	[ -n "$PGQ_IN" ] && exec {PGQ_IN}>&- {PGQ_OUT}<&-
	PGQ_PID=
	local d
	d=$(mktemp -d "${TMPDIR:-/tmp}/ct-pgq.XXXXXX") || return 1
	mkfifo "$d/in" "$d/out" || return 1
	# the input read-write: this open does not wait for psql's
	exec {PGQ_IN}<>"$d/in"
	# a grandchild (its subshell ends at once), without the input's
	# write end, so that it sees the end of its input with the test's
	(psql -X -qAt -v ON_ERROR_STOP=1 -d "$1" <"$d/in" >"$d/out" \
		{PGQ_IN}>&- & echo $! >"$d/pid")
	# read-only, once psql has it open for writing: a psql that ends
	# (an error, its server gone) is an end of file here
	exec {PGQ_OUT}<"$d/out"
	read -r PGQ_PID <"$d/pid"
	rm -rf "$d"
	PGQ_DB=$1
}

# pgq_alive: the psql runs (a zombie does not: it is not our child, and
# kill -0 succeeds on one until its parent reaps it)
pgq_alive() {
	local st=Z
	[ -n "$PGQ_PID" ] && read -r _ _ st _ 2>/dev/null <"/proc/$PGQ_PID/stat"
	[ "$st" != Z ]
}

pgq() { # DB SQL
	if [ "$PGQ_DB" != "$1" ] || ! pgq_alive; then
		# one started in a subshell ($(pgq ...)) serves that call only
		pgq_start "$1"
	fi
	local sql=$2 line out="" end=0 trimmed
	trimmed=${sql%"${sql##*[![:space:]]}"}
	[[ $trimmed == *";" ]] || sql+=$'\n;'
	printf '%s\n\\echo __pgq_end__\n' "$sql" >&"$PGQ_IN"
	while IFS= read -r line <&"$PGQ_OUT"; do
		if [ "$line" = __pgq_end__ ]; then
			end=1
			break
		fi
		out+=$line$'\n'
	done
	printf '%s' "${out%$'\n'}"
	[ -n "$out" ] && printf '\n'
	[ $end = 1 ]
}
