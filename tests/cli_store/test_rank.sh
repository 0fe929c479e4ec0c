#!/usr/bin/env bash
# test_rank.sh CRAWLTOP: `crawltop rank`, `stats` and `explain` against a
# throwaway cluster: seed 003's classes for sub-scores on the bounds
# exactly, the stored ranking record, the backoff schedule, the run
# manifest, the statistics as text and JSON, one task explained; then bad
# input (weights that do not sum to 1, bad bounds, unknown or non-discovery
# jobs, a read-only role): a clear message, a non-zero exit, nothing
# changed.
set -u
CT=$1
here=$(dirname "$0")
. "$here/../cli/tap.sh"
. "$here/lib.sh"
# flat: $OUT on one line, for patterns that span lines
flat() { printf '%s' "$OUT" | tr '\n' ' '; }
db_setup cli_rank
export CRAWLTOP_DSN=$DSN
export XDG_CONFIG_HOME=/nonexistent
unset CRAWLTOP_CONFIG
unset RANK_WEIGHTS_UNSEEN RANK_WEIGHTS_HOST_NOVELTY PROFILE_SCORE MIN_PUBLISH_SCORE
SUBS="ARRAY['unseen_likelihood','host_novelty','content_readiness','link_yield','source_reliability','freshness','quality_safety','topic_boost']"

# rank_state: state plus the ranking record and the manifests.
rank_state() {
	echo "$(state) $(q "SELECT count(*) FROM crawltop.run_manifest")"
}

# ---- a discovery job: every sub-score x, so the score is 100 x --------
"$CT" job create disc --domain d.example --mode discovery >/dev/null
"$CT" job create sig --domain s.example --mode discovery >/dev/null
"$CT" job create hier --domain h.example --mode hierarchy >/dev/null
q "SELECT crawltop.enqueue(1, ARRAY['/a','/b','/c','/d','/e','/f','/g','/h','/i'],
	'link', NULL, 1, NULL, NULL, NULL, array_fill(40::float8, ARRAY[9]))" >/dev/null
q "SELECT crawltop.set_score_inputs(1, ARRAY['/a','/b','/c','/d','/e','/f','/g','/h'],
	(SELECT array_agg(jsonb_build_object('subscores',
		(SELECT jsonb_object_agg(k, x) FROM unnest($SUBS) k)) ORDER BY o)
	 FROM unnest(ARRAY[0.8, 1.0, 0.6, 0.7999, 0.4, 0.5999, 0.39, 0.0])
	 WITH ORDINALITY AS u(x, o)))" >/dev/null
# /f and /h carry a stale backoff step 1: a first ranking starts at step 0
q "UPDATE crawltop.tasks SET backoff_step = 1 WHERE page_id IN
	(SELECT id FROM crawltop.pages WHERE path IN ('/f', '/h'))" >/dev/null
# raw signals on the second job
q "SELECT crawltop.enqueue(2, ARRAY['/doc.pdf'], 'link', NULL, 1, NULL, NULL,
	NULL, ARRAY[40::float8])" >/dev/null
q "SELECT crawltop.set_score_inputs(2, ARRAY['/doc.pdf'], ARRAY['{\"signals\":
	{\"ct_age_hours\": 2, \"first_seen_host\": true, \"document_extension\": true,
	 \"source\": \"ct\", \"age_hours\": 1, \"parking_score\": 0}}'::jsonb])" >/dev/null
"$CT" enqueue --job hier --urls <(printf '/\n/x\n') >/dev/null

# ---- bad input first: nothing may change ------------------------------
before=$(rank_state)
run rank --job nosuch
ok_eq "unknown job: exit 1" "$RC" 1
ok_eq "unknown job: names it" "$OUT" \
	"crawltop rank: job 'nosuch' does not exist (no job has that name)"
run rank --job hier
ok_eq "a hierarchy job: exit 1" "$RC" 1
ok_match "a hierarchy job: says rank needs discovery mode" "$OUT" \
	'job hier is in hierarchy mode: rank scores the tasks of discovery jobs'
OUT=$(RANK_WEIGHTS_UNSEEN=0.35 RANK_WEIGHTS_HOST_NOVELTY=0.25 "$CT" rank 2>&1)
RC=$?
ok_eq "weights summing to 1.12: exit 2" "$RC" 2
ok_match "weights summing to 1.12: refused with the sum" "$OUT" \
	'sum to 1\.12, not 1.*unseen_likelihood=0\.35 \(environment RANK_WEIGHTS_UNSEEN\)'
OUT=$(RANK_WEIGHTS_UNSEEN=abc "$CT" rank 2>&1)
RC=$?
ok_eq "a weight that is no number: exit 2" "$RC" 2
ok_match "a weight that is no number: names it" "$OUT" 'RANK_WEIGHTS_UNSEEN=abc'
run rank --profile-score 120
ok_eq "--profile-score 120: exit 2" "$RC" 2
ok_match "--profile-score 120: the rule" "$OUT" '--profile-score 120: must be a number in 0\.\.100'
run rank --min-publish-score 85
ok_eq "P1 bound above P0: exit 2" "$RC" 2
ok_match "P1 bound above P0: names each bound and where it came from" "$OUT" \
	'class bounds P0 80 \(crawltop\.settings v[0-9]+\), P1 85 \(--min-publish-score\), P2 40 \(crawltop\.settings v[0-9]+\)'
run rank --profile-score 30
ok_match "P0 bound below P1: --profile-score named for P0 only" "$OUT" \
	'class bounds P0 30 \(--profile-score\), P1 60 \(crawltop\.settings v[0-9]+\), P2 40'
run rank --bogus
ok_eq "unknown option: exit 2" "$RC" 2
psql -qc "CREATE ROLE rank_ro LOGIN IN ROLE crawltop_viewer" >/dev/null
RO="$CT_TEST_DSN dbname=$DB user=rank_ro"
run rank -d "$RO"
ok_eq "read-only role: exit 1" "$RC" 1
ok_match "read-only role: permission denied" "$OUT" 'permission denied.*SQLSTATE 42501'
ok_eq "bad input: database unchanged" "$(rank_state)" "$before"

# ---- rank: the classes on the bounds ----------------------------------
run rank --job disc
ok_eq "rank --job: exit 0" "$RC" 0
ok_match "rank: summary line" "$OUT" \
	'^Ranked 8 URLs of job disc in [0-9.]+ s \(1 without inputs left unranked\); run manifest 1'
ok_eq "rank: its batches are audited (tasks.rank, the tasks written)" \
	"$(q "SELECT count(*) > 0, sum(rows_affected) FROM crawltop.audit_log WHERE action = 'tasks.rank'")" "t|8"
ok_eq "rank --job: the audit rows name the job" \
	"$(q "SELECT string_agg(DISTINCT coalesce(job_id::text, 'none'), ',') FROM crawltop.audit_log WHERE action = 'tasks.rank'")" \
	"$(q "SELECT id FROM crawltop.jobs WHERE name = 'disc'")"
ok_eq "rank: the seed's run statistics" "$(printf '%s\n' "$OUT" | sed 1d)" \
"Run Statistics:
  P0 (≥80): 2 URLs
  P1 (60-79): 2 URLs
  P2 (40-59): 2 URLs
  P3 (<40): 2 URLs
  Average Score: 57.4"
ok_eq "rank: score, class, discovery_score, priority_class per task" \
	"$(q "SELECT string_agg(p.path || '=' || t.score || '/' || t.class || '/' ||
		coalesce(t.discovery_score::text, '-') || '/' || t.priority_class, ' ' ORDER BY p.path)
		FROM crawltop.tasks t JOIN crawltop.pages p ON p.id = t.page_id WHERE t.job_id = 1")" \
	"/a=80/0/80/0 /b=100/0/100/0 /c=60/1/60/1 /d=79.99/1/79.99/1 /e=40/2/40/2 /f=59.99/2/59.99/2 /g=39/3/39/3 /h=0/3/0/3 /i=40/2/-/2"
ok_eq "rank: next_check_at: none for P0/P1; P2 6 h, P3 12 h (first ranking: step 0)" \
	"$(q "SELECT string_agg(p.path || '=' || coalesce(extract(epoch FROM
		t.next_check_at - t.ranked_at)::bigint / 3600 || 'h', '-'), ' ' ORDER BY p.path)
		FROM crawltop.tasks t JOIN crawltop.pages p ON p.id = t.page_id WHERE t.job_id = 1")" \
	"/a=- /b=- /c=- /d=- /e=6h /f=6h /g=12h /h=12h /i=-"
ok_eq "rank: a first ranking writes backoff step 0" \
	"$(q "SELECT string_agg(DISTINCT backoff_step::text, ',') FROM crawltop.tasks WHERE job_id = 1 AND ranked_at IS NOT NULL")" 0
ok_eq "rank: signals hold the sub-scores used" \
	"$(q "SELECT t.signals->>'unseen_likelihood' || ' ' || (t.signals->>'topic_boost') || ' ' || (t.signals->>'from')
		FROM crawltop.tasks t JOIN crawltop.pages p ON p.id = t.page_id WHERE p.path = '/d'")" \
	"0.7999 0.7999 subscores"
ok_eq "rank: the run manifest row" \
	"$(q "SELECT concat_ws(' ', job_id, p0_count, p1_count, p2_count, p3_count,
		unranked_count, round(avg_score::numeric, 4), score_0_20, score_20_40,
		score_40_60, score_60_80, score_80_100) FROM crawltop.run_manifest")" \
	"1 2 2 2 2 1 57.3725 1 1 2 2 2"
ok_eq "rank: the other discovery job untouched" \
	"$(q "SELECT ranked_at IS NULL FROM crawltop.tasks WHERE job_id = 2")" t

run rank
ok_eq "rank (all discovery jobs): exit 0" "$RC" 0
ok_match "rank (all): 9 URLs of every discovery job" "$OUT" '^Ranked 9 URLs of every discovery job'
# hier's pending tasks are never ranked: not counted as unranked URLs
ok_eq "rank (all): the manifest's unranked are the discovery jobs' (/i), not hier's" \
	"$(q "SELECT unranked_count FROM crawltop.run_manifest WHERE job_id IS NULL")" 1
ok_eq "rank: raw signals scored through the engine" \
	"$(q "SELECT (discovery_score > 0 AND discovery_score <= 100)::text || ' ' || (signals->>'from')
		FROM crawltop.tasks WHERE job_id = 2")" "true signals"
ok_eq "rank: the hierarchy job untouched" \
	"$(q "SELECT count(*) FROM crawltop.tasks WHERE job_id = 3 AND ranked_at IS NOT NULL")" 0

# bounds from the options, then from the environment
run rank --job disc --profile-score 85 --min-publish-score 70
ok_match "--profile-score 85 --min-publish-score 70: labels and counts" "$(flat)" \
	'P0 \(≥85\): 1 URLs.*P1 \(70-84\): 2 URLs.*P2 \(40-69\): 3 URLs.*P3 \(<40\): 2 URLs'
ok_eq "--profile-score: 80 is P1 now" \
	"$(q "SELECT t.priority_class || ' ' || t.class FROM crawltop.tasks t JOIN crawltop.pages p ON p.id = t.page_id WHERE p.path = '/a'")" "1 1"
OUT=$(PROFILE_SCORE=79.99 MIN_PUBLISH_SCORE=59.99 "$CT" rank --job disc 2>&1)
ok_match "PROFILE_SCORE and MIN_PUBLISH_SCORE from the environment" "$(flat)" \
	'P0 \(≥79\.99\): 3 URLs.*P1 \(59\.99-<79\.99\): 2 URLs.*P2 \(40-<59\.99\): 1 URLs'

# ---- which settings a run uses, and what its manifest says ------------
# the store's current version (what `settings set` and the console's
# weights panel change), named in the manifest
"$CT" settings set classes.p0 90 classes.p1 85 classes.p2 50 >/dev/null
ver=$(q "SELECT max(version) FROM crawltop.settings")
run rank --job disc
ok_eq "store settings: exit 0" "$RC" 0
ok_match "store settings: its bounds" "$(flat)" 'P0 \(≥90\): 1 URLs.*P1 \(85-89\): 0 URLs.*P2 \(50-84\): 4 URLs.*P3 \(<50\): 3 URLs'
ok_eq "store settings: class of /a (80) as the store says" \
	"$(q "SELECT t.priority_class || ' ' || t.class FROM crawltop.tasks t JOIN crawltop.pages p ON p.id = t.page_id WHERE p.path = '/a'")" "2 2"
ok_eq "store settings: the manifest names the version" \
	"$(q "SELECT settings_version FROM crawltop.run_manifest ORDER BY id DESC LIMIT 1")" "$ver"
ok_match "store settings: the note says so" \
	"$(q "SELECT note FROM crawltop.run_manifest ORDER BY id DESC LIMIT 1")" "bounds 90/85/50 .* from crawltop\.settings v$ver\$"
# an environment override: not the stored version as it stands
RC=0
OUT=$(RANK_WEIGHTS_UNSEEN=0.3 RANK_WEIGHTS_HOST_NOVELTY=0.18 "$CT" rank --job disc 2>&1) || RC=$?
ok_eq "env override: exit 0" "$RC" 0
ok_eq "env override: no settings version" \
	"$(q "SELECT coalesce(settings_version::text, 'none') FROM crawltop.run_manifest ORDER BY id DESC LIMIT 1")" none
ok_match "env override: the note names the variables" \
	"$(q "SELECT note FROM crawltop.run_manifest ORDER BY id DESC LIMIT 1")" \
	"from crawltop\.settings v$ver with RANK_WEIGHTS_UNSEEN=0\.3 RANK_WEIGHTS_HOST_NOVELTY=0\.18\$"
# a file: its values, no version, the file named
conf=$(mktemp --suffix=.conf)
printf 'classes = { p0 = 30.0; p1 = 20.0; p2 = 10.0; };\n' >"$conf"
run rank --job disc --config "$conf"
ok_match "--config: its bounds" "$(flat)" 'P0 \(≥30\): 7 URLs'
ok_eq "--config: no settings version" \
	"$(q "SELECT coalesce(settings_version::text, 'none') FROM crawltop.run_manifest ORDER BY id DESC LIMIT 1")" none
ok_match "--config: the note names the file" \
	"$(q "SELECT note FROM crawltop.run_manifest ORDER BY id DESC LIMIT 1")" "from $conf\$"
rm -f "$conf"
run stats --ranking --json
ok_eq "stats --json of a run with no settings version: null, not 0" \
	"$(printf '%s' "$OUT" | python3 -c 'import json,sys; print(json.load(sys.stdin)["run"]["settings_version"])')" None
"$CT" settings undo >/dev/null

# ---- stats -------------------------------------------------------------
"$CT" rank --job disc >/dev/null
run stats --ranking
ok_eq "stats --ranking: exit 0" "$RC" 0
ok_eq "stats --ranking: the seed's layout" "$(printf '%s\n' "$OUT" | sed -n 1,20p)" \
"Run Statistics:
  P0 (≥80): 2 URLs
  P1 (60-79): 2 URLs
  P2 (40-59): 2 URLs
  P3 (<40): 2 URLs
  Average Score: 57.4

Detailed Ranking Statistics:
  Priority Distribution:
    P0: 2
    P1: 2
    P2: 2
    P3: 2
  Score Distribution:
    0-20: 1
    20-40: 1
    40-60: 2
    60-80: 2
    80-100: 2
  Unranked: 1"
# hier's two pending tasks are never ranked (hierarchy mode): not unranked
ok_match "stats --ranking: the live counters of the discovery jobs' pending tasks (disc, sig; not hier)" "$(flat)" \
	'Live Queue \(pending tasks of every discovery job\): +P0: 2 +P1: 3 +P2: 2 +P3: 2 +Unranked: 1'
ok_match "stats --ranking: the latest run is named with its job (a run of disc)" "$(flat)" \
	'Run: [0-9]+ at [-0-9: ]+, of job disc '
run stats --ranking --job disc
ok_match "stats --ranking --job: the run and the live counts of that job" "$(flat)" \
	'Run: [0-9]+ at [-0-9: ]+, of job disc +Live Queue \(pending tasks of job disc\): +P0: 2 +P1: 2 +P2: 2 +P3: 2 +Unranked: 1'
run stats --ranking --json
ok_eq "stats --json: exit 0" "$RC" 0
ok_eq "stats --json: one object with the seed's numbers" \
	"$(printf '%s' "$OUT" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["priority_distribution"], d["score_distribution"]["80-100"], d["average_score"], d["classes"][1]["label"], d["unranked"], d["live_pending"]["P3"])')" \
	"{'P0': 2, 'P1': 2, 'P2': 2, 'P3': 2} 2 57.3725 P1 (60-79) 1 2"
ok_eq "stats --json: the run's settings version, a number" \
	"$(printf '%s' "$OUT" | python3 -c 'import json,sys; print(json.load(sys.stdin)["run"]["settings_version"])')" \
	"$(q "SELECT settings_version FROM crawltop.run_manifest ORDER BY id DESC LIMIT 1")"
run stats --ranking --date "$(q "SELECT to_char(now(), 'YYYY-MM-DD')")"
ok_match "stats --date today: the latest run of the day" "$OUT" 'Average Score: 57\.4'
run stats --ranking --date 2000-01-01
ok_eq "stats --date without a run: exit 1" "$RC" 1
ok_eq "stats --date without a run: says so" "$OUT" \
	"crawltop stats: no ranking run on 2000-01-01 is recorded (run crawltop rank)"
for d in 2024-13-45 2024-13-01 2023-02-29 2024-04-31 0000-01-01; do
	run stats --ranking --date $d
	ok_eq "stats --date $d (no such day): exit 2" "$RC" 2
	ok_eq "stats --date $d (no such day): says so" "$OUT" \
		"crawltop stats: --date $d: must be a date YYYY-MM-DD that exists"
done
run stats --ranking --date 2024-02-29
ok_eq "stats --date of a leap day: accepted (no run that day: exit 1)" "$RC" 1
run stats --ranking --config /nonexistent/no-such.conf
ok_eq "stats --config of a missing file: exit 2" "$RC" 2
ok_match "stats --config of a missing file: names it" "$OUT" 'no-such\.conf.*No such file'
run stats --config /nonexistent/no-such.conf
ok_eq "stats --config without --ranking: exit 2" "$RC" 2
run stats --ranking --date yesterday
ok_eq "stats --date not a date: exit 2" "$RC" 2
run stats --ranking --job hier
ok_eq "stats --ranking of a job never ranked: exit 1" "$RC" 1
ok_match "stats --ranking of a job never ranked alone: where the runs are" "$OUT" \
	'no ranking run of job [0-9]+ alone is recorded \(crawltop rank --job ranks one job; the runs over every job are shown without --job\)'
run stats
ok_match "stats: totals by status" "$OUT" 'total +12 +12 +0 +0 +0 +0 +0$'
# seed 003: stats shows ranking metrics when available
ok_match "stats: the latest ranking run's classes below the totals" "$OUT" \
	'^Ranking: run [0-9]+ at [0-9-]+ [0-9:]+, of [a-z ]+: P0 [0-9]+, P1 [0-9]+, P2 [0-9]+, P3 [0-9]+, unranked [0-9]+, average score [0-9.]+ '
run stats --json
ok_eq "stats --json: the latest run's classes, as stats --ranking --json has them" \
	"$(printf '%s' "$OUT" | python3 -c 'import json,sys; d=json.load(sys.stdin)["ranking"]; print(d["P0"] + d["P1"] + d["P2"] + d["P3"], d["unranked"], d["average_score"])')" \
	"$("$CT" stats --ranking --json | python3 -c 'import json,sys; d=json.load(sys.stdin); print(sum(c["urls"] for c in d["classes"]), d["unranked"], d["average_score"])')"
run stats --job hier
ok_eq "stats --job of a job no run ranked alone: no ranking line" "$(printf '%s\n' "$OUT" | grep -c '^Ranking')" 0
run stats --job disc --json
ok_eq "stats --job --json: the job's totals" \
	"$(printf '%s' "$OUT" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["totals"]["jobs"], d["totals"]["pending"])')" "1 9"
run stats --job nosuch
ok_eq "stats of an unknown job: exit 1" "$RC" 1
run stats --ranking -d "$RO"
ok_eq "stats as a read-only role: exit 0" "$RC" 0

# ---- explain -------------------------------------------------------------
run explain https://d.example/d
ok_eq "explain: exit 0" "$RC" 0
ok_match "explain: score and class" "$(flat)" 'Score: +79\.99.*Class: +P1'
ok_match "explain: recomputed from the stored sub-scores" "$OUT" 'Recomputed: +79\.99 \(P1\) from the stored subscores'
ok_match "explain: the reasons" "$(flat)" '- Unseen likelihood 0\.80 x 0\.28.*- P1: list on daily discovery page'
ok_match "explain: the queue position" "$OUT" \
	'Queue: +3 pending tasks ahead of it \(all jobs\), 2 in job disc'
# the scheme's default port names the same host (urlpath_of's rule), both
# ways: in the URL, or in the job's domain
run explain https://D.example:443/d
ok_eq "explain a URL with the default port: exit 0" "$RC" 0
ok_match "explain a URL with the default port: the task" "$(flat)" 'Score: +79\.99.*Class: +P1'
"$CT" job create port443 --domain p.example:443 --mode fifo >/dev/null
q "SELECT crawltop.enqueue((SELECT id FROM crawltop.jobs WHERE name = 'port443'), ARRAY['/p'])" >/dev/null
run explain https://p.example/p
ok_eq "explain a URL whose job names the default port: exit 0" "$RC" 0
ok_match "explain a URL whose job names the default port: its job" "$OUT" 'port443'
run explain http://d.example:443/d
ok_eq "explain: port 443 over http is another host: exit 1" "$RC" 1
run explain https://h.example/x
ok_match "explain (hierarchy): page score and source" "$(flat)" 'Page score: +0\.100.*Source manual: floor 0\.100'
ok_match "explain (hierarchy): the class is a score band, not seed 003's action" \
	"$(flat)" 'Class: +P3 \(score band\)'
ok_eq "explain (hierarchy): no discovery action" "$(printf '%s' "$OUT" | grep -c 'weekly tiny sample')" 0
run explain /e --job disc -d "$RO"
ok_match "explain a path with --job, as a read-only role" "$OUT" 'next check 20[0-9-]+ [0-9:]+ \(backoff step 0\)'
# a score just below a class bound is printed so that it reads back as
# itself, never as the bound (%.6g printed "Score: 80" beside "Class: P1")
"$CT" job create fr --domain fr.example --mode frontier >/dev/null
q "SELECT crawltop.enqueue((SELECT id FROM crawltop.jobs WHERE name = 'fr'),
	ARRAY['/x'], 'link', NULL, 1, NULL, NULL, NULL, ARRAY[79.9999999968::float8])" >/dev/null
run explain https://fr.example/x
ok_match "explain: a score just below P0's bound, in full, beside its class" "$(flat)" \
	'Score: +79\.9999999968 +Class: +P1 '
"$CT" job boost fr --prefix /x --by 0.0000000032 >/dev/null
run explain https://fr.example/x
ok_match "explain: a boost's sum and parts in full" "$OUT" \
	'^  - Operator adjustment: \+3\.2e-09 \(boost\), kept across rescores: mode score 79\.9999999968 \+ 3\.2e-09 = 80$'
# frontier and freshness: the reasons, recomputed from the stored inputs
# with the task's type, depth and discovery method (SPEC.md: reasons are
# part of every score)
q "SELECT crawltop.enqueue((SELECT id FROM crawltop.jobs WHERE name = 'fr'),
	ARRAY['/y'], 'link', NULL, 2, 'article', 'sitemap', NULL, ARRAY[50::float8])" >/dev/null
q "SELECT crawltop.set_score_inputs((SELECT id FROM crawltop.jobs WHERE name = 'fr'),
	ARRAY['/y'], ARRAY['{\"bias\": 2, \"clusterOccurrences\": 8, \"gap\": {\"confidence\": 0.5, \"lift\": 0.2}}'::jsonb])" >/dev/null
run explain https://fr.example/y
ok_match "explain (frontier): recomputed from the stored inputs, with the engine's priority" "$OUT" \
	'^Recomputed: +71\.91011235955057 \(P1\) from the stored inputs: priority -19\.5 \(cluster-boost, acquisition queue\)$'
ok_match "explain (frontier): every stage as a reason" "$(flat)" \
	'Reasons: +- Type article weight 0 \+ depth/bias 4 +- Discovery bonus: sitemap -10 +- Gap prediction -6 +- Cluster boost -7\.5 \(8 occurrences\)'
"$CT" job create fs --domain fs.example --mode freshness >/dev/null
q "SELECT crawltop.enqueue((SELECT id FROM crawltop.jobs WHERE name = 'fs'),
	ARRAY['/v', '/n'], 'link', NULL, NULL, NULL, NULL, NULL, ARRAY[50, 50]::float8[])" >/dev/null
q "SELECT crawltop.set_score_inputs((SELECT id FROM crawltop.jobs WHERE name = 'fs'),
	ARRAY['/v'], ARRAY[jsonb_build_object('lastVisited',
	(extract(epoch FROM now()) * 1000)::bigint - 600000, 'isHub', true)])" >/dev/null
run explain https://fs.example/v
ok_match "explain (freshness): recomputed now, with seed 004's reasons" "$(flat)" \
	'Recomputed: +38 \(P3\) from the stored inputs now .*Reasons: +- Recently visited \(<1h\) +- Is a hub page'
run explain https://fs.example/n
ok_match "explain (freshness): no inputs: never visited" "$(flat)" 'Recomputed: +73 \(P1\) .*Reasons: +- Never visited'
# inputs holding another model's keys too (a job that changed mode keeps
# them): each model reads its own
q "SELECT crawltop.set_score_inputs((SELECT id FROM crawltop.jobs WHERE name = 'fs'),
	ARRAY['/n'], ARRAY['{\"bias\": 2, \"isHub\": true}'::jsonb])" >/dev/null
run explain https://fs.example/n
ok_match "explain (freshness): another model's keys in the inputs are left aside" "$(flat)" \
	'Recomputed: +83 \(P0\) .*Reasons: +- Never visited +- Is a hub page'
run explain https://d.example/nosuch
ok_eq "explain an unknown URL: exit 1" "$RC" 1
ok_eq "explain an unknown URL: says so" "$OUT" "crawltop explain: no job has a task for https://d.example/nosuch"
run explain /a --job nosuch
ok_eq "explain with an unknown job: exit 1" "$RC" 1
run explain "$(printf 'https://d.example/\001\377')"
ok_eq "explain binary garbage: exit 1" "$RC" 1
ok_match "explain binary garbage: shown escaped" "$OUT" '\\x01'
run explain not-a-url
ok_eq "explain a non-URL: exit 2" "$RC" 2
run explain HTTPS://D.EXAMPLE/d
ok_match "explain: the scheme and host in any case, as enqueue takes them" "$(flat)" 'Score: +79\.99'
run explain "https://d.example/$(printf 'x%.0s' $(seq 2100))"
ok_match "explain a URL over the store's limit: says the store's 2048 bytes" "$OUT" "longer than the store's limit of 2048 bytes"

# ---- parallel stripes: the same ranking over 1 and 5 connections ----------
ranked() {
	q "SELECT string_agg(concat_ws('/', t.id, t.score, t.class, t.discovery_score,
		t.priority_class, t.signals::text, extract(epoch FROM t.next_check_at - t.ranked_at)),
		' ' ORDER BY t.id) FROM crawltop.tasks t WHERE t.job_id IN (1, 2)"
}
unrank() {
	q "UPDATE crawltop.tasks SET ranked_at = NULL, discovery_score = NULL, signals = NULL,
		next_check_at = NULL, score = 0, base_score = 0, class = 3 WHERE job_id IN (1, 2)" >/dev/null
}
unrank
run rank --connections 1
ok_match "rank --connections 1: 9 URLs" "$OUT" '^Ranked 9 URLs of every discovery job'
one=$(ranked)
unrank
ok_eq "unranked again before the parallel run" "$(q "SELECT count(*) FROM crawltop.tasks WHERE ranked_at IS NOT NULL")" 0
run rank --connections 5
ok_match "rank --connections 5: 9 URLs" "$OUT" '^Ranked 9 URLs of every discovery job'
ok_eq "rank --connections 5: every task ranked as with one connection" "$(ranked)" "$one"
run rank --connections 0
ok_eq "--connections 0: exit 2" "$RC" 2
run rank --connections 17
ok_eq "--connections 17: exit 2" "$RC" 2
ok_match "--connections 17: the range" "$OUT" '--connections 17: must be .*1\.\.16'

# ---- backoff over successive runs (doc/scoring.md, Backoff) ----------------
# "path=step/wait" of job disc: the wait in hours from the run that set
# next_check_at
backoff() {
	q "SELECT string_agg(p.path || '=' || t.backoff_step || '/' ||
		coalesce(round(extract(epoch FROM t.next_check_at - t.ranked_at) / 3600)::text, '-'),
		' ' ORDER BY p.path) FROM crawltop.tasks t JOIN crawltop.pages p ON p.id = t.page_id
		WHERE t.job_id = 1 AND t.ranked_at IS NOT NULL"
}
due() {
	q "UPDATE crawltop.tasks SET next_check_at = now() - interval '1 minute'
		WHERE job_id = 1 AND next_check_at IS NOT NULL" >/dev/null
}
ok_eq "backoff: the last run ranked afresh: step 0" "$(backoff)" \
	"/a=0/- /b=0/- /c=0/- /d=0/- /e=0/6 /f=0/6 /g=0/12 /h=0/12"
for want in "1/12 1/24" "2/24 2/48" "3/48 3/96"; do
	due
	"$CT" rank --job disc >/dev/null
	set -- $want
	ok_eq "backoff: a due recheck finding no change: P2 $1 h, P3 $2 h (step/hours)" "$(backoff)" \
		"/a=0/- /b=0/- /c=0/- /d=0/- /e=$1 /f=$1 /g=$2 /h=$2"
done
checks=$(q "SELECT string_agg(coalesce(next_check_at::text, '-'), ' ' ORDER BY id) FROM crawltop.tasks WHERE job_id = 1")
"$CT" rank --job disc >/dev/null
ok_eq "backoff: a run before the check is due keeps the step" "$(q "SELECT string_agg(backoff_step::text, ' ' ORDER BY id) FROM crawltop.tasks WHERE job_id = 1")" \
	"0 0 0 0 3 3 3 3 0"
ok_eq "backoff: ... and next_check_at" \
	"$(q "SELECT string_agg(coalesce(next_check_at::text, '-'), ' ' ORDER BY id) FROM crawltop.tasks WHERE job_id = 1")" "$checks"
run explain /e --job disc
ok_match "backoff: explain shows the step" "$OUT" 'next check 20[0-9-]+ [0-9:]+ \(backoff step 3\)'
# /e (P2, 40) to P3: a new class starts at step 0, due or not
q "SELECT crawltop.set_score_inputs(1, ARRAY['/e'], ARRAY[jsonb_build_object('subscores',
	(SELECT jsonb_object_agg(k, 0.35) FROM unnest($SUBS) k))])" >/dev/null
"$CT" rank --job disc >/dev/null
ok_eq "backoff: a class change resets to step 0" "$(backoff)" \
	"/a=0/- /b=0/- /c=0/- /d=0/- /e=0/12 /f=3/48 /g=3/96 /h=3/96"

# ---- one class per score, under the run's own bounds ----------------------
# /b = 60 boosted by 5 and /c = 65 without points: equal scores (65). A run
# with its own P0 bound (62) gives both P0: the boosted task's derived score
# is classed with the run's bounds, as the other's, not with the store's
# (80/60/40, which made /b P1 next to a P0 /c of the same score).
"$CT" job create bnd --domain bnd.example --mode discovery >/dev/null
bnd=$(q "SELECT id FROM crawltop.jobs WHERE name = 'bnd'")
q "SELECT crawltop.enqueue($bnd, ARRAY['/b','/c'], 'link', NULL, 1, NULL, NULL, NULL,
	ARRAY[40::float8, 40])" >/dev/null
q "SELECT crawltop.set_score_inputs($bnd, ARRAY['/b','/c'],
	(SELECT array_agg(jsonb_build_object('subscores',
		(SELECT jsonb_object_agg(k, x) FROM unnest($SUBS) k)) ORDER BY o)
	 FROM unnest(ARRAY[0.6, 0.65]) WITH ORDINALITY AS u(x, o)))" >/dev/null
"$CT" job boost bnd --prefix /b --by 5 >/dev/null
bnd_classes() {
	q "SELECT string_agg(p.path || '=' || t.score || '/' || t.class || '/' ||
		t.discovery_score || '/' || t.priority_class, ' ' ORDER BY p.path)
		FROM crawltop.tasks t JOIN crawltop.pages p ON p.id = t.page_id WHERE t.job_id = $bnd"
}
run rank --job bnd --profile-score 62
ok_eq "run bounds: exit 0" "$RC" 0
ok_eq "run bounds: equal scores, equal classes (score/class/discovery/priority)" \
	"$(bnd_classes)" "/b=65/0/60/1 /c=65/0/65/0"
# explain recomputes with the store's bounds: it says which bounds the
# stored class came from, and labels the recomputation (it printed "Class:
# P0" above "Recomputed: 65 (P1)" and "- P1: ...", unexplained)
brun=$(q "SELECT max(id) FROM crawltop.run_manifest")
run explain /c --job bnd
ok_match "explain, run bounds: where the class came from" "$OUT" \
	"^Bounds: +P0 under the class bounds of ranking run $brun \\(P0 62, P1 60, P2 40\\), which ranked it; the store's \\(P0 80, P1 60, P2 40\\), which the recomputation below uses, make 65 P1\$"
ok_match "explain, run bounds: the recomputed class is labelled the store's" "$OUT" \
	'^Recomputed: +65 \(P1 under the store.s class bounds\) from the stored subscores$'
ok_match "explain, run bounds: so are the reasons" "$(flat)" \
	'Reasons \(recomputed, under the store.s class bounds\): .*- P1: list on daily discovery page'
# a boost since the run: the class is the store's again
"$CT" job boost bnd --prefix /c --by 1 >/dev/null
run explain /c --job bnd
ok_match "explain, run bounds, boosted since: the class is the store's" "$OUT" \
	"^Bounds: +P1 under the store's class bounds \\(P0 80, P1 60, P2 40\\), written since ranking run $brun ranked it with P0 62, P1 60, P2 40"
"$CT" job boost bnd --prefix /c --by 1 --demote >/dev/null
run rank --job bnd
ok_eq "store bounds: both P1 again (65 under 80/60/40)" \
	"$(bnd_classes)" "/b=65/1/60/1 /c=65/1/65/1"
run explain /c --job bnd
ok_eq "explain, store bounds: no Bounds line, the recomputation unlabelled" \
	"$(printf '%s\n' "$OUT" | grep -cE '^Bounds:|under the store')" 0
# settings changed since the run (no rescore): the class is the run's, and
# without the manifest nothing says where it came from but the store's
# bounds do not give it
"$CT" settings set classes.p0 64 >/dev/null
run explain /c --job bnd
ok_match "explain, store bounds changed since: the run's bounds named" "$OUT" \
	"^Bounds: +P1 under the class bounds of ranking run [0-9]+ \\(P0 80, P1 60, P2 40\\), which ranked it; the store's \\(P0 64, P1 60, P2 40\\), which the recomputation below uses, make 65 P0\$"
q "DELETE FROM crawltop.run_manifest" >/dev/null
run explain /c --job bnd
ok_match "explain, no manifest: the class is not the store's bounds' one" "$OUT" \
	"^Bounds: +P1 is not the class of 65 under the store's class bounds \\(P0 64, P1 60, P2 40\\), which make it P0: it was classed under other bounds"
"$CT" settings undo >/dev/null

run rank --help
ok_match "rank --help from the command table" "$OUT" '^usage: crawltop rank .*--min-publish-score'
done_testing
