#!/usr/bin/env bash
# test_score.sh CRAWLTOP: `crawltop score` end to end, through the real
# binary and pipes. Expected values are derived by hand from the seeds.
set -u
CT=$1
. "$(dirname "$0")/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# no stray config from the machine: defaults only
export XDG_CONFIG_HOME=$tmp HOME=$tmp
unset CRAWLTOP_CONFIG RANK_WEIGHTS_UNSEEN RANK_WEIGHTS_HOST_NOVELTY \
	MIN_PUBLISH_SCORE PROFILE_SCORE BACKOFF_START_HOURS BACKOFF_MAX_HOURS \
	BACKOFF_MULTIPLIER 2>/dev/null || true

NOW=2024-06-15T08:00:00Z
# seed 004: 50 + 20 (changed 10 h ago) + round(0.9 x 15) = 14 + 10 (hub) = 94
out=$(echo '{"url":"https://reuters.com/world/europe","visits":150,"lastVisited":"2024-06-10T08:00:00Z","lastChanged":"2024-06-14T22:00:00Z","topicRelevance":0.9,"hubDepth":1,"isHub":true}' |
	"$CT" score freshness --now "$NOW")
ok_eq "freshness: reuters example is 94 with its three reasons" "$out" \
	'{"url":"https://reuters.com/world/europe","score":94,"level":"very-high","reasons":["Changed in last 24h","High topic relevance","Is a hub page"]}'

# seed 004 ranking: 30 min ago, 0.3, depth 4: 50 - 30 + 5 - 5 = 20 (low);
# 8 days ago, 0.9, hub, depth 0: 50 + 15 + 14 + 10 = 89 (very-high)
printf '%s\n' \
	'{"url":"old-piece","visits":50,"lastVisited":"2024-06-15T07:30:00Z","topicRelevance":0.3,"hubDepth":4,"isHub":false}' \
	'{"url":"world","visits":10,"lastVisited":1717574400000,"topicRelevance":0.9,"hubDepth":0,"isHub":true}' \
	> "$tmp/rank.jsonl"
out=$("$CT" score freshness --now "$NOW" --rank < "$tmp/rank.jsonl" | grep -o '"url":"[^"]*","score":[0-9]*' | tr '\n' ' ')
ok_eq "freshness --rank: 89 before 20" "$out" '"url":"world","score":89 "url":"old-piece","score":20 '
out=$("$CT" score freshness --now "$NOW" < "$tmp/rank.jsonl" | cut -c1-20)
ok_eq "freshness without --rank keeps input order" "$out" \
	"$(printf '%s\n%s' '{"url":"old-piece","' '{"url":"world","scor')"

# stable ranking: equal scores keep input order
printf '{"url":"a%d","lastVisited":"2024-06-01"}\n' 1 2 3 > "$tmp/eq.jsonl"
out=$("$CT" score freshness --now "$NOW" --rank < "$tmp/eq.jsonl" | grep -o '"url":"a[0-9]"' | tr -d '\n')
ok_eq "freshness --rank is stable" "$out" '"url":"a1""url":"a2""url":"a3"'

# never visited, defaults: 50 + 15 + round(7.5) = 8 -> 73
out=$(echo '{"url":"n"}' | "$CT" score freshness --now "$NOW")
ok_eq "freshness: never visited with defaults is 73" "$out" \
	'{"url":"n","score":73,"level":"high","reasons":["Never visited"]}'

# malformed lines: each gets its own error, the rest are scored, exit 1
printf '%s\n' '{"url":"ok1"}' 'not json' '{"url":"x","topicRelevance":1.5}' \
	'{"url":"y","visits":"many"}' '[1,2]' '{"url":"z","lastVisited":"yesterday"}' \
	'{"url":"t","colour":"red"}' '{"url":"ok2"}' > "$tmp/bad.jsonl"
out=$("$CT" score freshness --now "$NOW" < "$tmp/bad.jsonl")
rc=$?
ok_eq "malformed lines: exit status 1" "$rc" 1
ok_eq "malformed lines: one output line per input line" "$(printf '%s\n' "$out" | wc -l)" 8
ok_match "line 2: malformed JSON" "$(sed -n 2p <<<"$out")" '^\{"line":2,"error":"malformed JSON'
ok_match "line 3: relevance out of range" "$(sed -n 3p <<<"$out")" '^\{"line":3,"error":"topicRelevance = 1.5: must be a number in 0..1"\}$'
ok_match "line 4: wrong field type" "$(sed -n 4p <<<"$out")" "^\\{\"line\":4,\"error\":\"field 'visits': expected an integer, got a string\"\\}$"
ok_match "line 5: not an object" "$(sed -n 5p <<<"$out")" '^\{"line":5,"error":"expected a JSON object"\}$'
ok_match "line 6: bad time" "$(sed -n 6p <<<"$out")" "^\\{\"line\":6,\"error\":\"field 'lastVisited': time 'yesterday'"
ok_match "line 7: unknown field" "$(sed -n 7p <<<"$out")" "unknown field 'colour'"
ok_match "lines 1 and 8 still scored" "$(sed -n '1p;8p' <<<"$out" | tr -d '\n')" '^\{"url":"ok1","score":73.*\{"url":"ok2","score":73'

# null means absent for every field, numbers included (SPEC.md, seed 004:
# "Defaults when absent"): relevance 0.5 and depth 0 -> 50 + 15 + 8 = 73,
# as for {"url":"n"}; a frontier bias or depth of null is 0 (nav: 10)
out=$(printf '%s\n' '{"url":"n","topicRelevance":null,"hubDepth":null,"visits":null,"lastVisited":null,"isHub":null}' |
	"$CT" score freshness --now "$NOW")
ok_eq "freshness: null numbers are absent, defaults apply" "$out" \
	'{"url":"n","score":73,"level":"high","reasons":["Never visited"]}'
out=$(echo '{"url":"u","type":"nav","depth":null,"bias":null,"clusterOccurrences":null,"meta":{"knowledgeReuse":null,"estimatedCostMs":null}}' |
	"$CT" score frontier)
ok_match "frontier: null numbers are absent" "$out" '^\{"url":"u","priority":10,"prioritySource":"base"'
out=$(echo '{"path":"/a","sourceType":"link","sourceScore":null,"current":null}' | "$CT" score hierarchy)
ok_eq "hierarchy: a null source score is an unknown source page" "$out" \
	'{"path":"/a","score":0.1,"reasons":["Source page unknown: floor 0.100"]}'
out=$(echo '{"url":"d","subscores":{"unseen_likelihood":null}}' | "$CT" score discovery)
ok_match "discovery: a null sub-score is missing, not a type error" "$out" 'subscores.unseen_likelihood is required'

# a value just outside its range is written so that it reads back as
# itself: 1.0000001 is not "1", which would look valid
out=$(printf '%s\n' '{"url":"u","topicRelevance":1.0000001}' | "$CT" score freshness --now "$NOW")
ok_eq "freshness: 1.0000001 named as itself" "$out" \
	'{"line":1,"error":"topicRelevance = 1.0000001: must be a number in 0..1"}'
out=$(printf '%s\n' '{"path":"/a","current":1.0000001}' '{"path":"/a","sourceType":"link","sourceScore":-1e-9}' |
	"$CT" score hierarchy)
ok_eq "hierarchy: values just outside 0..1 named as themselves" "$out" \
	"$(printf '%s\n%s' '{"line":1,"error":"current = 1.0000001: must be a number in 0..1"}' \
	'{"line":2,"error":"sourceScore = -1e-09: must be a number in 0..1"}')"

# binary garbage and invalid UTF-8 are errors, not crashes
out=$(printf '\xff\xfe\x00\x01garbage\n{"url":"\xc3\x28"}\n' | "$CT" score freshness --now "$NOW")
ok_eq "binary garbage: exit 1" "$?" 1
ok_eq "binary garbage: two error lines" "$(grep -c '"error"' <<<"$out")" 2

# the JSON reader's edge cases, each line on its own (the parser is reused
# from line to line, also after an error)
printf '%s\n' '{"url":"a","url":"b"}' '{"url":"a","visits":[1,2]}' '' \
	'{"url":"a"} {"url":"b"}' '{"url":"a\ud800"}' '{"url":"a\u0000"}' \
	'{"url":"x","visits":2.0}' '{"url":"x","visits":2.5}' \
	'{"url":"x","lastVisited":1e12}' '{"url":"ok"}' > "$tmp/edge.jsonl"
out=$("$CT" score freshness --now "$NOW" < "$tmp/edge.jsonl")
ok_eq "reader: exit 1, one output line per input line" "$?:$(printf '%s\n' "$out" | wc -l)" 1:10
ok_match "reader: duplicate key refused" "$(sed -n 1p <<<"$out")" \
	'^\{"line":1,"error":"malformed JSON: duplicate object key'
ok_eq "reader: array in a field refused" "$(sed -n 2p <<<"$out")" \
	"{\"line\":2,\"error\":\"field 'visits': expected an integer, got an array\"}"
ok_match "reader: empty line is an error line" "$(sed -n 3p <<<"$out")" \
	'^\{"line":3,"error":"malformed JSON: [^"]+"\}$'
ok_match "reader: two values on one line refused" "$(sed -n 4p <<<"$out")" '^\{"line":4,"error":"malformed JSON'
ok_match "reader: unpaired surrogate escape refused" "$(sed -n 5p <<<"$out")" '^\{"line":5,"error":"malformed JSON'
ok_match "reader: \\u0000 refused" "$(sed -n 6p <<<"$out")" '^\{"line":6,"error":"malformed JSON'
ok_match "reader: integer field takes 2.0" "$(sed -n 7p <<<"$out")" '^\{"url":"x","score":73,'
ok_eq "reader: integer field refuses 2.5" "$(sed -n 8p <<<"$out")" \
	"{\"line\":8,\"error\":\"field 'visits': expected an integer, got a number\"}"
ok_match "reader: 1e12 is a real, not epoch ms" "$(sed -n 9p <<<"$out")" \
	"got a number\"\\}$"
ok_match "reader: a good line after errors is scored" "$(sed -n 10p <<<"$out")" '^\{"url":"ok","score":73,'
# arrays and objects too deep are refused with the field's name
out=$(printf '%s\n' '{"url":"u","meta":{"discoveryMethod":["a"]}}' \
	'{"url":"u","meta":{"discoveryMethod":{"a":{"b":1}}}}' '{"url":"u","meta":[{}]}' |
	"$CT" score frontier)
ok_eq "reader: nested arrays and objects refused" "$out" \
	"$(printf '%s\n%s\n%s' \
	"{\"line\":1,\"error\":\"field 'discoveryMethod': expected a string, got an array\"}" \
	"{\"line\":2,\"error\":\"field 'discoveryMethod': expected a string, got an object\"}" \
	"{\"line\":3,\"error\":\"field 'meta': expected an object, got an array\"}")"
# escapes are decoded on input and written back: '"' and control
# characters escaped, '/' and UTF-8 as they are
out=$(echo '{"url":"a\"b\u00e9\/c\u0001\n"}' | "$CT" score freshness --now "$NOW")
ok_eq "reader: escaped string round-trips" "$out" \
	'{"url":"a\"bé/c\u0001\n","score":73,"level":"high","reasons":["Never visited"]}'
out=$(printf '{"url":"\xe0\x80\xaf"}\n{"url":"\xed\xa0\x80"}\n' | "$CT" score freshness --now "$NOW")
ok_eq "reader: overlong and surrogate UTF-8 refused" "$(grep -c '"error":"malformed JSON' <<<"$out")" 2
# a very long line: a 200 KB url comes back whole
long=$(head -c 200000 /dev/zero | tr '\0' 'a')
out=$(printf '{"url":"https://e.org/%s"}\n{"url":"b"}\n' "$long" | "$CT" score freshness --now "$NOW")
ok_eq "reader: 200 KB line scored, url whole" "$(sed -n 1p <<<"$out")" \
	"{\"url\":\"https://e.org/$long\",\"score\":73,\"level\":\"high\",\"reasons\":[\"Never visited\"]}"
ok_eq "reader: line after the long one" "$(sed -n 2p <<<"$out")" \
	'{"url":"b","score":73,"level":"high","reasons":["Never visited"]}'
# the limit: a line of 1 MiB (1048576 bytes) is read, a longer one is a bad
# line named by its number, consumed to its newline: the next line is still
# scored
pad=$(head -c $((1048576 - 10)) /dev/zero | tr '\0' ' ')
out=$(printf '{"url":"m"}%s\n{"url":"n"}%s\n' "${pad:1}" "$pad" | "$CT" score freshness --now "$NOW")
ok_eq "reader: a line of exactly 1048576 bytes is scored, one of 1048577 is not" \
	"$(tr '\n' ' ' <<<"$out")" \
	'{"url":"m","score":73,"level":"high","reasons":["Never visited"]} {"line":2,"error":"line longer than 1048576 bytes"} '
printf '{"url":"a"}\n' >"$tmp/over.jsonl"
head -c 3000000 /dev/zero | tr '\0' 'x' >>"$tmp/over.jsonl"
printf '\n{"url":"b"}\n{"url":"c"}' >>"$tmp/over.jsonl"
out=$("$CT" score freshness --now "$NOW" <"$tmp/over.jsonl")
rc=$?
ok_eq "reader: a line over 1 MiB is a bad line, the others scored, exit 1" \
	"$rc $(tr '\n' ' ' <<<"$out")" \
	'1 {"url":"a","score":73,"level":"high","reasons":["Never visited"]} {"line":2,"error":"line longer than 1048576 bytes"} {"url":"b","score":73,"level":"high","reasons":["Never visited"]} {"url":"c","score":73,"level":"high","reasons":["Never visited"]} '
out=$("$CT" score freshness --now "$NOW" --rank <"$tmp/over.jsonl" | tr '\n' ' ')
ok_match "reader: the over-long line with --rank too" "$out" '^\{"line":2,"error":"line longer than 1048576 bytes"\} \{"url":"a"'
ok_match "score --help gives the limit" "$("$CT" score --help)" 'A line is at most 1048576 bytes'
# a read error stops the command, naming it (not the end of the input)
out=$("$CT" score freshness --now "$NOW" <"$tmp" 2>&1)
ok_eq "reader: a read error: exit 2, named with its line" "$? $out" \
	"2 crawltop score: line 1: read error: Is a directory"
# a failed allocation is an error, never the end of the input: under
# AddressSanitizer with allocations over 1 MiB failing, the buffer the
# 3 MB line needs cannot grow past 1 MiB; the line before it is written,
# the ones after it are not taken for the end
if sanitized "$CT"; then
	out=$(ASAN_OPTIONS=allocator_may_return_null=1:max_allocation_size_mb=1 \
		"$CT" score freshness --now "$NOW" <"$tmp/over.jsonl" 2>"$tmp/err")
	rc=$?
	ok_eq "reader: a failed allocation: exit 2, the lines before written" "$rc $out" \
		'2 {"url":"a","score":73,"level":"high","reasons":["Never visited"]}'
	ok_match "reader: a failed allocation: named with its line" "$(cat "$tmp/err")" \
		'^crawltop score: line 2: out of memory$'
else
	tap_skip "reader: a failed allocation (AddressSanitizer builds only)"
fi

# frontier: article (0) + depth 2, sitemap bonus 10 -> -8; discovery-bonus;
# score 100 - 1250 / (25 + 8) = 62.12 -> P1
out=$(echo '{"url":"https://e.org/a","type":"article","depth":2,"meta":{"discoveryMethod":"sitemap"}}' | "$CT" score frontier)
ok_match "frontier: sitemap article at depth 2 is priority -8" "$out" \
	'^\{"url":"https://e.org/a","priority":-8,"prioritySource":"discovery-bonus","bonusApplied":10,"basePriority":2,"queue":"acquisition","score":62\.1212[0-9]*,"class":"P1","reasons":\["Type article weight 0 \+ depth/bias 2","Discovery bonus: sitemap -10"\]\}$'
# nav 10, gap 1/1 -> 15, cluster 256 -> log2(256) x 2.5 = 20: 10 - 35 = -25 -> 75
out=$(echo '{"url":"u","type":"nav","gap":{"confidence":1,"lift":1},"clusterOccurrences":256}' | "$CT" score frontier)
ok_match "frontier: gap and cluster boost, score 75 at priority -25" "$out" \
	'"priority":-25,"prioritySource":"cluster-boost","bonusApplied":35,"basePriority":10,"queue":"discovery","score":75(\.0)?,"class":"P1"'
out=$(echo '{"url":"u","gap":{"confidence":2}}' | "$CT" score frontier)
ok_match "frontier: gap confidence 2 refused" "$out" '^\{"line":1,"error":".*confidence'
out=$(echo '{"url":"u","clusterOccurrences":-1}' | "$CT" score frontier)
ok_match "frontier: negative cluster count refused" "$out" '^\{"line":1,"error":'
# every numeric input has a range, the store's (score_input_spec): the
# most negative double as a bias gave score 100, class P0
out=$(echo '{"url":"u","bias":-1.7976931348623157e308}' | "$CT" score frontier)
ok_eq "frontier: bias -1.8e308 refused" "$out" \
	'{"line":1,"error":"bias = -1.7976931348623157e+308: must be -1000000..1000000"}'
out=$(printf '%s\n' '{"url":"u","bias":1000000.5}' '{"url":"u","bias":-1000000}' | "$CT" score frontier)
ok_eq "frontier: bias just past 1e6 refused" "$(printf '%s\n' "$out" | sed -n 1p)" \
	'{"line":1,"error":"bias = 1000000.5: must be -1000000..1000000"}'
ok_match "frontier: bias -1e6 scored" "$(printf '%s\n' "$out" | sed -n 2p)" \
	'^\{"url":"u","priority":-999988,'
out=$(echo '{"url":"u","clusterOccurrences":1000000000001}' | "$CT" score frontier)
ok_eq "frontier: cluster count above 1e12 refused" "$out" \
	'{"line":1,"error":"clusterOccurrences = 1000000000001: must be 0..1000000000000"}'
out=$(echo '{"url":"u","meta":{"estimatedCostMs":1e13}}' | "$CT" score frontier)
ok_eq "frontier: cost above 1e12 ms refused" "$out" \
	'{"line":1,"error":"meta.estimatedCostMs = 10000000000000: must be 0..1000000000000"}'
out=$(echo '{"url":"u","classification":"planet"}' | "$CT" score frontier)
ok_match "frontier: unknown classification refused" "$out" "unknown class 'planet'"

# discovery: all sub-scores 0.6 -> 60 exactly -> P1
sub='"unseen_likelihood":0.6,"host_novelty":0.6,"content_readiness":0.6,"link_yield":0.6,"source_reliability":0.6,"freshness":0.6,"quality_safety":0.6,"topic_boost":0.6'
out=$(echo "{\"url\":\"d\",\"subscores\":{$sub}}" | "$CT" score discovery)
ok_match "discovery: sub-scores 0.6 give 60, P1" "$out" '^\{"url":"d","score":60(\.0)?,"class":"P1","label":"P1 \(Medium\)"'
out=$(echo '{"url":"d","subscores":{"unseen_likelihood":0.6}}' | "$CT" score discovery)
ok_match "discovery: missing sub-score refused" "$out" 'subscores.host_novelty is required'
out=$(echo '{"url":"d","signals":{"first_seen_host":true,"source":"ct","age_hours":2}}' | "$CT" score discovery)
ok_match "discovery: raw signals scored" "$out" '^\{"url":"d","score":[0-9.]+,"class":"P[0-3]"'
out=$(printf '%s\n' '{"class":"P2","step":0}' '{"class":"P2","step":4}' '{"class":"P3","step":3}' \
	'{"class":"P3","step":3,"nsAsnChanged":true}' '{"class":"P0","step":2}' '{"class":"P9"}' |
	"$CT" score discovery --backoff | tr '\n' ' ')
ok_match "discovery --backoff: 6, 48 cap, 96, reset 12, null, error" "$out" \
	'^\{"hours":6\} \{"hours":48\} \{"hours":96\} \{"hours":12\} \{"hours":null\} \{"line":6,"error":'

# weights from the environment: the seed's own example must refuse to start
err=$(RANK_WEIGHTS_UNSEEN=0.35 RANK_WEIGHTS_HOST_NOVELTY=0.25 "$CT" score discovery </dev/null 2>&1 >/dev/null)
ok_eq "weights summing to 1.12: exit 2" "$?" 2
ok_match "weights summing to 1.12: message names the sum and sources" "$err" \
	'1\.12.*RANK_WEIGHTS_UNSEEN.*RANK_WEIGHTS_HOST_NOVELTY'
out=$(RANK_WEIGHTS_UNSEEN=0.38 RANK_WEIGHTS_HOST_NOVELTY=0.10 "$CT" score discovery <<<"{\"url\":\"d\",\"subscores\":{$sub}}")
ok_match "weights that sum to 1 from the environment are used" "$out" '"score":60(\.0)?,'

# hierarchy: link from the homepage is 0.8; current 0.9 is kept
out=$(printf '%s\n' '{"path":"/a","sourceType":"link","sourceScore":1,"sourcePath":"/"}' \
	'{"path":"/b","sourceType":"link","sourceScore":0.5,"current":0.9}' '{"path":"/c","sourceType":"teleport"}' |
	"$CT" score hierarchy)
ok_eq "hierarchy: link, kept score, unknown source type" "$out" \
	"$(printf '%s\n%s\n%s' '{"path":"/a","score":0.8,"reasons":["Linked from / (0.8 x 1.000)"]}' \
	'{"path":"/b","score":0.9,"reasons":["Linked from source page (0.8 x 0.500)","Kept higher current score 0.900"]}' \
	"{\"line\":3,\"error\":\"field 'sourceType': unknown type 'teleport' (sitemap, link, manual, other)\"}")"

# a page path starts with '/': "a" is refused like the empty path
out=$(printf '%s\n' '{"path":"a"}' '{"path":""}' | "$CT" score hierarchy)
ok_eq "hierarchy: a path without a leading '/' is refused" "$out" \
	"$(printf '%s\n%s' "{\"line\":1,\"error\":\"path 'a': a page path starts with '/'\"}" \
	"{\"line\":2,\"error\":\"path '': a page path starts with '/'\"}")"

# usage errors
"$CT" score nosuchmodel </dev/null >/dev/null 2>&1
ok_eq "unknown model: exit 2" "$?" 2
"$CT" score frontier --now 2024-01-01 </dev/null >/dev/null 2>&1
ok_eq "--now with frontier: exit 2" "$?" 2
"$CT" score freshness --config "$tmp/missing.conf" </dev/null >/dev/null 2>&1
ok_eq "missing --config file: exit 2" "$?" 2
out=$("$CT" score --help)
ok_match "score --help comes from the command table" "$out" '^usage: crawltop score MODEL'

done_testing
