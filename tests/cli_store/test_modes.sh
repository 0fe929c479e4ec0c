#!/usr/bin/env bash
# test_modes.sh CRAWLTOP: a job's mode changes under its running crawlers
# (0017). Crawlers (`crawltop simulate`) started in fifo and in frontier
# mode crawl a site to the end while an operator switches the job through
# every mode; then the scores the store gives tasks enqueued without
# scores in frontier, freshness and discovery mode are the engine's:
# rescoring the job in its own mode changes none of them.
set -u
CT=$1
here=$(dirname "$0")
. "$here/../cli/tap.sh"
. "$here/lib.sh"
db_setup cli_modes
export CRAWLTOP_DSN=$DSN
export XDG_CONFIG_HOME=/nonexistent
unset CRAWLTOP_CONFIG
T=$(mktemp -d "${TMPDIR:-/tmp}/ct-modes.XXXXXX")
trap 'rm -rf "$T"' EXIT

# a site of 1 + 6 + 36 + 216 pages, every page linking home
{
	for i in 1 2 3 4 5 6; do
		printf '/\t/s%d\n/s%d\t/\n' "$i" "$i"
		for j in 1 2 3 4 5 6; do
			printf '/s%d\t/s%d/t%d\n' "$i" "$i" "$j"
			for k in 1 2 3 4 5 6; do
				printf '/s%d/t%d\t/s%d/t%d/u%d.html\n' "$i" "$j" "$i" "$j" "$k"
			done
		done
	done
} >"$T/site.tsv"

# through JOB START MODES: simulate JOB created in mode START in the
# background, switch it through MODES (twice) while it runs, then wait for
# it. The first switch comes while the crawlers still find new pages (60 ms
# a fetch: at 30 ms a crawl under the sanitizers once ended after 5).
through() {
	local job=$1 start=$2 modes=$3 pid rc m n=0
	"$CT" simulate --graph "$T/site.tsv" --job "$job" --mode "$start" \
		--workers 2 --latency-ms 60 >"$T/$job.out" 2>&1 &
	pid=$!
	# the job exists once simulate has created it
	for _ in $(seq 100); do
		[ -n "$(q "SELECT id FROM crawltop.jobs WHERE name = '$job'")" ] && break
		sleep 0.1
	done
	for m in $modes $modes; do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.4
		"$CT" job set-mode "$job" "$m" >>"$T/$job.modes" 2>&1 && n=$((n + 1))
	done
	wait "$pid"
	rc=$?
	ok_eq "$start crawlers through $n mode changes: simulate exits 0" "$rc" 0
	[ "$rc" -eq 0 ] || sed 's/^/# /' "$T/$job.out"
	ok_eq "$start crawlers: at least 6 mode changes made while they ran" \
		"$([ "$n" -ge 6 ] && echo yes || echo "no ($n)")" yes
	ok_eq "$start crawlers: every page crawled once, none left (pages completed failed pending running)" \
		"$(q "SELECT j.total_pages || ' ' ||
			count(*) FILTER (WHERE t.status = 'completed') || ' ' ||
			count(*) FILTER (WHERE t.status = 'failed') || ' ' ||
			count(*) FILTER (WHERE t.status = 'pending') || ' ' ||
			count(*) FILTER (WHERE t.status = 'running')
		   FROM crawltop.jobs j JOIN crawltop.tasks t ON t.job_id = j.id
		   WHERE j.name = '$job' GROUP BY j.id")" "259 259 0 0 0"
}
through from-fifo fifo "frontier hierarchy discovery freshness importance fifo"
through from-frontier frontier "hierarchy fifo discovery freshness importance frontier"

# ---- provisional scores are the engine's ----------------------------------
# enq JOB PATHS-ARRAY DEPTH TYPE METHOD: enqueue without scores, as a
# crawler of another mode would
enq() {
	q "SELECT inserted FROM crawltop.enqueue((SELECT id FROM crawltop.jobs
		WHERE name = '$1'), $2, 'link', NULL, $3, $4, $5)" >/dev/null
}
# agrees JOB WHAT: rescoring JOB in its own mode changes no task
agrees() {
	local mode
	mode=$(q "SELECT prioritization_mode FROM crawltop.jobs WHERE name = '$1'")
	run job set-mode "$1" "$mode"
	ok_match "$2: the engine's rescore changes no task" "$OUT" \
		"rescored with settings v[0-9]+, 0 changed$"
}
fill() { # JOB PREFIX: tasks of every kind the store scores itself
	enq "$1" "ARRAY['$2/a', '$2/fr/news', '$2/Europe-x?q=fr']" NULL NULL NULL
	enq "$1" "ARRAY['$2/b']" 3 "'article'" "'sitemap'"
	enq "$1" "ARRAY['$2/c', '$2/d.html']" 7 "'blog'" "'feed'"
	enq "$1" "ARRAY['$2/e']" 0 "'France'" "'link-discovery'"
	enq "$1" "ARRAY['$2/f']" 25 "'nav'" "'rss'"
	enq "$1" "ARRAY['$2/g']" 400 "'unknown_type'" "'validated-hub'"
	enq "$1" "ARRAY['$2/s']" 2 "'nav'" "'seed'"
}
"$CT" job create front --domain front.example --mode frontier >/dev/null
fill front /v1
ok_eq "frontier: a task with no type, depth or method scores 50 x 25 / 37" \
	"$(q "SELECT t.score = 50.0::float8 * 25 / 37 FROM crawltop.tasks t
		JOIN crawltop.pages p ON p.id = t.page_id WHERE p.path = '/v1/a'")" t
ok_eq "frontier: a seed scores 100 (0032), as the engine scores it" \
	"$(q "SELECT t.score FROM crawltop.tasks t
		JOIN crawltop.pages p ON p.id = t.page_id WHERE p.path = '/v1/s'")" 100
agrees front "frontier, default settings"
"$CT" settings set frontier.types.blog 7 frontier.bonuses.rss 3.5 \
	frontier.aliases.feed rss frontier.weights.base 1.5 >/dev/null
"$CT" job set-mode front frontier >/dev/null # the tasks so far, rescored
fill front /v2
agrees front "frontier, types, bonuses, aliases and the base weight set"
"$CT" settings set frontier.total_prioritisation.enabled true \
	frontier.total_prioritisation.country_tokens fr,france \
	frontier.total_prioritisation.related_tokens europe >/dev/null
"$CT" job set-mode front frontier >/dev/null
fill front /v3
# words the engine splits as it does: non-ASCII letters, '://' in a path,
# words of 31 and 32 characters, a query, names that are JSON keys
enq front "ARRAY['/v3/é-fr-x', '/v3/ß/eu', '/v3/ｆｒ/x', '/v3/x://fr/y', '/v3/a?fr',
	'/v3/FR', '/v3/$(printf 'f%.0s' $(seq 31))', '/v3/$(printf 'r%.0s' $(seq 32))']" 2 NULL NULL
enq front "ARRAY['/v3/h']" 2147483647 "'default'" "'default'"
enq front "ARRAY['/v3/i']" 1 "'$(printf 'T%.0s' $(seq 32))'" "'adaptive-seed'"
agrees front "frontier, total prioritisation on"
ok_eq "frontier, total prioritisation: a country word in the path, the type, or none" \
	"$(q "SELECT string_agg(p.path || ' ' || round(t.score::numeric, 4), ', ' ORDER BY p.path)
		FROM crawltop.tasks t JOIN crawltop.pages p ON p.id = t.page_id
		WHERE p.path IN ('/v3/a', '/v3/fr/news', '/v3/e')")" \
	"/v3/a 0.0002, /v3/e 99.7503, /v3/fr/news 99.7503"

"$CT" settings set freshness.never 5 freshness.topic_max 13 >/dev/null
"$CT" job create fresh --domain fresh.example --mode freshness >/dev/null
fill fresh /v1
ok_eq "freshness: never visited, 50 + 5 + round(0.5 x 13) = 62" \
	"$(q "SELECT DISTINCT score FROM crawltop.tasks WHERE job_id =
		(SELECT id FROM crawltop.jobs WHERE name = 'fresh')")" 62
agrees fresh "freshness"
"$CT" job create disc --domain disc.example --mode discovery >/dev/null
fill disc /v1
ok_eq "discovery: unranked, at the P2 bound" \
	"$(q "SELECT DISTINCT score || ' ' || class || ' ' || (ranked_at IS NULL)
		FROM crawltop.tasks WHERE job_id =
		(SELECT id FROM crawltop.jobs WHERE name = 'disc')")" "40 2 true"
agrees disc "discovery"

# ---- what a call without scores does not change ---------------------------
# a task with score inputs (frontier), a ranking (discovery) or a visit
# (freshness) keeps its own score when its page comes again without scores
"$CT" settings set frontier.total_prioritisation.enabled false >/dev/null
"$CT" job set-mode front frontier >/dev/null
q "SELECT crawltop.set_score_inputs((SELECT id FROM crawltop.jobs WHERE name = 'front'),
	ARRAY['/v1/a'], ARRAY['{\"bias\": 40}'::jsonb])" >/dev/null
"$CT" job set-mode front frontier >/dev/null
before=$(q "SELECT t.score FROM crawltop.tasks t JOIN crawltop.pages p ON p.id = t.page_id WHERE p.path = '/v1/a' AND t.job_id = (SELECT id FROM crawltop.jobs WHERE name = 'front')")
enq front "ARRAY['/v1/a']" NULL NULL NULL
ok_eq "frontier: a task with score inputs is not raised by a call without scores" \
	"$(q "SELECT t.score FROM crawltop.tasks t JOIN crawltop.pages p ON p.id = t.page_id WHERE p.path = '/v1/a' AND t.job_id = (SELECT id FROM crawltop.jobs WHERE name = 'front')")" "$before"
agrees front "frontier, a task with inputs enqueued again"
q "SELECT crawltop.set_score_inputs((SELECT id FROM crawltop.jobs WHERE name = 'fresh'),
	ARRAY['/v1/a'], ARRAY[jsonb_build_object('lastVisited', (extract(epoch FROM now()) * 1000)::bigint - 60000)])" >/dev/null
"$CT" job set-mode fresh freshness >/dev/null
enq fresh "ARRAY['/v1/a']" NULL NULL NULL
agrees fresh "freshness, a visited page enqueued again"
q "SELECT crawltop.set_score_inputs((SELECT id FROM crawltop.jobs WHERE name = 'disc'),
	ARRAY['/v1/a'], ARRAY['{\"subscores\": {\"unseen_likelihood\": 0.05, \"host_novelty\": 0.05, \"content_readiness\": 0.05, \"link_yield\": 0.05, \"source_reliability\": 0.05, \"freshness\": 0.05, \"quality_safety\": 0.05, \"topic_boost\": 0.05}}'::jsonb])" >/dev/null
"$CT" rank --job disc >/dev/null
enq disc "ARRAY['/v1/a']" NULL NULL NULL
ok_eq "discovery: a ranked task (score 5, P3) keeps its ranking" \
	"$(q "SELECT t.score || ' ' || t.class || ' ' || t.priority_class FROM crawltop.tasks t JOIN crawltop.pages p ON p.id = t.page_id WHERE p.path = '/v1/a' AND t.job_id = (SELECT id FROM crawltop.jobs WHERE name = 'disc')")" "5 3 3"
# a leaf page: no link, no score, nothing refused
ok_eq "frontier: an empty batch without scores: nothing, no refusal" \
	"$(q "SELECT inserted || ' ' || raised FROM crawltop.enqueue((SELECT id FROM crawltop.jobs WHERE name = 'front'), '{}')" 2>&1)" "0 0"

# ---- scores given ---------------------------------------------------------
# scores a crawler gives still count in the scored modes, and are not
# used where the store scores (hierarchy: page score x 100)
q "SELECT inserted FROM crawltop.enqueue((SELECT id FROM crawltop.jobs WHERE
	name = 'front'), ARRAY['/given'], p_scores => ARRAY[77::float8])" >/dev/null
ok_eq "frontier: a given score is kept" \
	"$(q "SELECT t.score FROM crawltop.tasks t JOIN crawltop.pages p ON
		p.id = t.page_id WHERE p.path = '/given'")" 77
"$CT" job create hier --domain hier.example >/dev/null
q "SELECT inserted FROM crawltop.enqueue((SELECT id FROM crawltop.jobs WHERE
	name = 'hier'), ARRAY['/'], p_scores => ARRAY[3::float8])" >/dev/null
ok_eq "hierarchy: a given score is not used (the homepage: 100)" \
	"$(q "SELECT t.score FROM crawltop.tasks t JOIN crawltop.jobs j ON
		j.id = t.job_id WHERE j.name = 'hier'")" 100
done_testing
