# lib.sh: shell helpers the benchmark scripts share (sourced).

# since T0: seconds from T0 (a `date +%s.%N`) to now, to the millisecond;
# with awk, since bc is not on every machine.
since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f", b - a }'; }
