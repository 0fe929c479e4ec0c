#!/usr/bin/env bash
# bench_ordering.sh BUILD_DIR: ./dev bench ordering (issue 23).
# For each site graph of data/sites (SITES: their names, default every
# *.tsv there), the share of the site's PageRank each crawl order
# collects (tests/bench/ordering: PageRank, AUC, share of the oracle's,
# fetches until the ten highest pages are in): the baselines fifo,
# backlink, OPIC and the oracle, and crawltop's modes (MODES, default
# "fifo hierarchy frontier importance") crawled through the store by
# `crawltop simulate --workers 1 --latency-ms 0 --order-out`, each from
# '/' alone and from '/' and the site's sitemap, on a throwaway cluster.
# Prints one markdown table a graph (doc/ordering.md quotes them).
set -euo pipefail
build=$(cd "$1" && pwd)
root=$(cd "$(dirname "$0")/../.." && pwd)
if [ "${2:-}" != --inner ]; then
	exec "$root/tests/store/pg-cluster.sh" run "$0" "$build" --inner
fi
CT="$build/src/cli/crawltop"
ORD="$build/tests/bench/ordering"
MODES=${MODES-fifo hierarchy frontier importance}
export CRAWLTOP_DSN="$CT_TEST_DSN"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$CT" migrate >/dev/null

if [ -z "${SITES:-}" ]; then
	SITES=$(cd "$root/data/sites" && ls ./*.tsv | sed 's|^\./||; s|\.tsv$||')
fi
echo "commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown), $(date -u '+%Y-%m-%d %H:%M UTC')"
for site in $SITES; do
	graph=$root/data/sites/$site.tsv sitemap=$root/data/sites/$site.sitemap
	args=()
	for mode in $MODES; do
		for with in 0 1; do
			job=$(printf '%s-%s-%s' "$site" "$mode" "$with" | tr -c 'A-Za-z0-9\n-' -)
			sm=()
			[ "$with" = 1 ] && sm=(--sitemap "$sitemap")
			t0=$(date +%s.%N)
			"$CT" simulate --graph "$graph" "${sm[@]}" --job "$job" \
				--mode "$mode" --workers 1 --latency-ms 0 -q \
				--order-out "$tmp/$job.order" >/dev/null
			echo "   simulate $job: $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }') s" >&2
			if [ "$with" = 1 ]; then
				args+=(--order-sitemap "crawltop $mode=$tmp/$job.order")
			else
				args+=(--order "crawltop $mode=$tmp/$job.order")
			fi
		done
	done
	echo
	echo "### $site"
	echo
	"$ORD" "$graph" --sitemap "$sitemap" --markdown "${args[@]}"
done
