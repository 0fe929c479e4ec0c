# lib.sh: shell helpers the benchmark scripts share (sourced).

# since T0: seconds from T0 (a `date +%s.%N`) to now, to the millisecond;
# with awk, since bc is not on every machine.
since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f", b - a }'; }

# kernel_huge_pages: how many 2 MB huge pages the kernel has reserved
# (vm.nr_hugepages). PostgreSQL maps its shared memory with them under
# huge_pages = on (or try, when enough are free); doc/PERFORMANCE.md,
# "Huge pages".
kernel_huge_pages() { awk '/^HugePages_Total:/ { print $2 " reserved" }' /proc/meminfo; }

# bench_db NAME: inside a throwaway cluster (pg-cluster.sh run), a new
# database NAME migrated by $CT; exports CRAWLTOP_DSN for it, and q SQL
# runs SQL there (unaligned rows).
bench_db() {
	BENCH_DB=$1
	psql -qAtc "CREATE DATABASE $BENCH_DB" >/dev/null
	export CRAWLTOP_DSN="$CT_TEST_DSN dbname=$BENCH_DB"
	"$CT" migrate >/dev/null
}
q() { psql -qAtd "$BENCH_DB" -c "$1"; }

# run_in_cluster "$0" "$@": outside a throwaway cluster, runs the script
# again inside one (tests/store/pg-cluster.sh run) as SCRIPT --inside
# ARGS, and never returns; inside, returns at once.
run_in_cluster() {
	local script=$1
	shift
	[ "${1:-}" = --inside ] && return 0
	exec "$(cd "$(dirname "$script")/../.." && pwd)/tests/store/pg-cluster.sh" \
		run "$script" --inside "$@"
}

# median V...: the middle of the values (the lower middle of an even
# count).
median() { printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
