# lib.sh: shell helpers the benchmark scripts share (sourced).

# since T0: seconds from T0 (a `date +%s.%N`) to now, to the millisecond;
# with awk, since bc is not on every machine.
since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f", b - a }'; }

# kernel_huge_pages: how many 2 MB huge pages the kernel has reserved
# (vm.nr_hugepages). PostgreSQL maps its shared memory with them under
# huge_pages = on (or try, when enough are free); doc/PERFORMANCE.md,
# "Huge pages".
kernel_huge_pages() { awk '/^HugePages_Total:/ { print $2 " reserved" }' /proc/meminfo; }
