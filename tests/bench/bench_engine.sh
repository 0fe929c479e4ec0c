#!/usr/bin/env bash
# bench_engine.sh BUILD_DIR: ./dev bench engine.
# In-process model throughput (median of 5), then `crawltop score` lines/s
# for each model over generated JSON Lines (median of 5 runs).
set -euo pipefail
build=$1
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "== in process (one thread)"
taskset -c 0 "$build/tests/bench/bench_engine" "${ENGINE_ITERS:-2000}"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=${LINES_N:-1000000}
python3 - "$tmp" "$n" <<'PY'
import json, random, sys
d, n = sys.argv[1], int(sys.argv[2])
r = random.Random(1)
now = 1718438400000
with open(f"{d}/freshness.jsonl", "w") as f:
    for i in range(n):
        o = {"url": f"https://example.org/p/{i}", "visits": r.randint(0, 500),
             "lastVisited": now - r.randint(0, 20 * 86400000),
             "lastChanged": now - r.randint(0, 4 * 86400000),
             "topicRelevance": round(r.random(), 3), "hubDepth": r.randint(0, 6),
             "isHub": r.random() < 0.3}
        f.write(json.dumps(o, separators=(",", ":")) + "\n")
types = ["article", "hub-seed", "history", "nav", "refresh", "other"]
with open(f"{d}/frontier.jsonl", "w") as f:
    for i in range(n):
        o = {"url": f"https://example.org/p/{i}", "type": r.choice(types),
             "depth": r.randint(0, 6), "meta": {"discoveryMethod": r.choice(["sitemap", "link-discovery", "hub-seed"])}}
        f.write(json.dumps(o, separators=(",", ":")) + "\n")
names = ["unseen_likelihood", "host_novelty", "content_readiness", "link_yield",
         "source_reliability", "freshness", "quality_safety", "topic_boost"]
with open(f"{d}/discovery.jsonl", "w") as f:
    for i in range(n):
        o = {"url": f"https://example.org/p/{i}", "subscores": {k: round(r.random(), 3) for k in names}}
        f.write(json.dumps(o, separators=(",", ":")) + "\n")
with open(f"{d}/hierarchy.jsonl", "w") as f:
    for i in range(n):
        o = {"path": f"/p/{i}", "sourceType": r.choice(["link", "sitemap"]), "sourceScore": round(r.random(), 3)}
        f.write(json.dumps(o, separators=(",", ":")) + "\n")
PY
echo "== crawltop score, $n lines each (median of 5 runs, one process)"
XDG_CONFIG_HOME=$tmp CRAWLTOP_CONFIG= python3 - "$build/src/cli/crawltop" "$tmp" "$n" <<'PY'
import os, statistics, subprocess, sys, time
exe, d, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
env = dict(os.environ)
env.pop("CRAWLTOP_CONFIG", None)
for model in ["freshness", "frontier", "discovery", "hierarchy"]:
    args = [exe, "score", model] + (["--now", "2024-06-15T08:00:00Z"] if model == "freshness" else [])
    ts = []
    for _ in range(5):
        with open(f"{d}/{model}.jsonl", "rb") as fin:
            t0 = time.perf_counter()
            r = subprocess.run(args, stdin=fin, stdout=subprocess.DEVNULL, env=env)
            ts.append(time.perf_counter() - t0)
        if r.returncode != 0:
            sys.exit(f"{model}: exit {r.returncode}")
    m = statistics.median(ts)
    print(f"{model:<10} median {n / m / 1e3:8.1f} k lines/s  ({m:.3f} s; runs {', '.join(f'{t:.3f}' for t in ts)})")
PY
