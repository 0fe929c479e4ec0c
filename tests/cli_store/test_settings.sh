#!/usr/bin/env bash
# test_settings.sh CRAWLTOP: `crawltop settings get|set|history|undo`
# against a throwaway cluster: reading every key and one key, a change
# written as an audited new version, the history, undo; then bad input
# (unknown key, a value that breaks its rule, weights that no longer sum to
# 1, binary garbage, a read-only role): a clear message, a non-zero exit,
# nothing changed.
set -u
CT=$1
here=$(dirname "$0")
. "$here/../cli/tap.sh"
. "$here/lib.sh"
# flat: $OUT on one line, for patterns that span lines
flat() { printf '%s' "$OUT" | tr '\n' ' '; }
db_setup cli_settings
export CRAWLTOP_DSN=$DSN
v0=$(q "SELECT max(version) FROM crawltop.settings")

# ---- get ------------------------------------------------------------------
run settings get
ok_eq "get: exit 0" "$RC" 0
ok_match "get: names the version" "$(printf '%s\n' "$OUT" | head -1)" "^# settings version $v0, "
ok_match "get: every key" "$(flat)" 'classes\.p0 = 80.*discovery\.weights\.unseen_likelihood = 0\.28.*frontier\.types\.article = 0.*store\.starvation_every = 10'
run settings get discovery.weights.unseen_likelihood
ok_eq "get KEY" "$OUT" "discovery.weights.unseen_likelihood = 0.28"
run settings get default_priority
ok_eq "get default_priority" "$OUT" "tier.default_priority = 5"
run settings get store.starvation_seconds
ok_eq "get a store key" "$OUT" "store.starvation_seconds = 300"

# ---- bad input: nothing may change -----------------------------------------
before=$(state)
run settings get nosuch.key
ok_eq "get an unknown key: exit 2" "$RC" 2
ok_match "get an unknown key: names it" "$OUT" "unknown settings key 'nosuch\.key'"
run settings set classes.p00 70
ok_eq "set an unknown key: exit 2" "$RC" 2
ok_match "set an unknown key: suggests the near one" "$OUT" "unknown settings key 'classes\.p00'.*did you mean 'classes\.p0"
run settings set discovery.weights.unseen_likelihood 1.5
ok_eq "set a value outside its range: exit 2" "$RC" 2
ok_match "set a value outside its range: key, value and rule" "$OUT" \
	'refused, nothing written: .*discovery\.weights\.unseen_likelihood = 1\.5: must be'
ok_match "... naming the new version, not a version number it never gets" "$OUT" \
	'crawltop\.settings \(the new version\): discovery\.weights'
run settings set discovery.weights.unseen_likelihood 0.35
ok_eq "set one weight alone: exit 2" "$RC" 2
ok_match "set one weight alone: refused with the sum" "$OUT" 'discovery weights sum to 1\.07, not 1'
V=$(q "SELECT max(version) FROM crawltop.settings")
ok_match "... each weight's source: the command line, or the version kept" "$OUT" \
	"unseen_likelihood=0\\.35 \\(the command line\\), host_novelty=0\\.2 \\(crawltop\\.settings:$V\\),"
run settings set classes.p1 90
ok_eq "set bounds out of order: exit 2" "$RC" 2
ok_match "set bounds out of order: names them and their sources" "$OUT" \
	"classes\\.p0 = 80 \\(crawltop\\.settings:$V\\) must be > classes\\.p1 = 90 \\(the command line\\)"
run settings set classes.p0 abc
ok_match "set a word for a number: the rule" "$OUT" 'classes\.p0 = "abc": must be a number'
run settings set classes.p0 "$(printf '\377\376garbage')"
ok_eq "set binary garbage: exit 2" "$RC" 2
ok_match "set binary garbage: not UTF-8" "$OUT" "value '\\\\xff\\\\xfegarbage' is not UTF-8 text"
run settings set classes.p0 "$(printf '8\0010')"
ok_eq "set control characters: exit 2" "$RC" 2
run settings set store.starvation_every 1
ok_eq "set a store key against its rule: exit 1" "$RC" 1
ok_match "set a store key against its rule: the store's message" "$OUT" 'store\.starvation_every = 1 is not allowed'
run settings set classes.p0
ok_eq "set without a value: exit 2" "$RC" 2
run settings set classes.p1 61 classes.p1 62
ok_eq "a key given twice: exit 2" "$RC" 2
ok_match "a key given twice: says so" "$OUT" "key 'classes\.p1' is given twice"
run settings set default_priority 3 tier.default_priority 4
ok_eq "a key given twice in its two spellings: exit 2" "$RC" 2
ok_match "a key given twice in its two spellings: names both" "$OUT" \
	"key 'tier\.default_priority' is given twice \(as 'default_priority' too\)"
run settings get classes
ok_eq "get of a group: exit 2" "$RC" 2
ok_match "get of a group: says it is one, naming a key" "$OUT" "'classes' is a group of keys, not a key: name one, such as 'classes\.p0'"
run settings frob
ok_eq "an unknown subcommand: exit 2" "$RC" 2
run settings set classes.p0 80
ok_eq "set to the current value: exit 1" "$RC" 1
ok_match "set to the current value: nothing to change" "$OUT" 'nothing to change'
psql -qc "CREATE ROLE set_ro LOGIN IN ROLE crawltop_viewer" >/dev/null
RO="$CT_TEST_DSN dbname=$DB user=set_ro"
run settings get classes.p0 -d "$RO"
ok_eq "read-only role: get works" "$OUT" "classes.p0 = 80"
run settings get classes.p0 --dsn="$RO"
ok_eq "--dsn=DSN after the subcommand" "$OUT" "classes.p0 = 80"
for a in "set classes.p0 85 --note" "history -d" "undo --dsn"; do
	# shellcheck disable=SC2086
	run settings $a
	ok_eq "settings $a: exit 2" "$RC" 2
	ok_match "settings $a: names the option without its value" "$OUT" \
		"${a##* } needs a value"
done
run settings history --note x
ok_eq "history --note: exit 2" "$RC" 2
ok_match "history --note: says what --note is for" "$OUT" 'history: --note is for set and undo'
run settings set classes.p0 85 -d "$RO"
ok_eq "read-only role: set exits 1" "$RC" 1
ok_match "read-only role: permission denied" "$OUT" 'permission denied.*SQLSTATE 42501'
run settings undo -d "$RO"
ok_eq "read-only role: undo exits 1" "$RC" 1
ok_unchanged "bad input" "$before"

# ---- set, history, undo --------------------------------------------------
run settings set classes.p0 85 --note "raise P0"
ok_eq "set: exit 0" "$RC" 0
ok_eq "set: the new version" "$OUT" "settings version $((v0 + 2)) (was $v0): 1 key changed"
v1=$(q "SELECT max(version) FROM crawltop.settings")
ok_eq "set: stored" "$(q "SELECT value->'classes'->>'p0' || ' ' || note FROM crawltop.settings WHERE version = $v1")" "85 raise P0"
ok_eq "set: audited" "$(q "SELECT action || ' ' || (before->>'classes.p0') || ' ' || (after->>'classes.p0') FROM crawltop.audit_log ORDER BY id DESC LIMIT 1")" \
	"settings.update 80 85"
run settings get classes.p0
ok_eq "get after set" "$OUT" "classes.p0 = 85"
run settings set discovery.weights.unseen_likelihood 0.35 discovery.weights.host_novelty 0.13
ok_eq "set weights together (sum 1): exit 0" "$RC" 0
ok_match "set weights together: 2 keys" "$OUT" ': 2 keys changed$'
run settings set frontier.types.article 3 frontier.total_prioritisation.country_tokens "de, fr"
ok_eq "set a map entry and a token list: exit 0" "$RC" 0
run settings get frontier.total_prioritisation.country_tokens
ok_eq "get a token list" "$OUT" 'frontier.total_prioritisation.country_tokens = ["de", "fr"]'
run settings history
ok_eq "history: exit 0" "$RC" 0
ok_match "history: version, when, who, note" "$OUT" "$v1  20[0-9-]+ [0-9:]+  [a-z_]+ +raise P0"
ok_match "history: what changed" "$OUT" 'classes\.p0: 80 -> 85'
ok_match "history: both weights" "$(flat)" 'discovery\.weights\.host_novelty: 0\.2 -> 0\.13; discovery\.weights\.unseen_likelihood: 0\.28 -> 0\.35'
run settings undo
ok_eq "undo: exit 0" "$RC" 0
ok_match "undo: restores the version before" "$OUT" 'version [0-9]+ restored \(2 keys changed back'
run settings get frontier.types.article
ok_eq "undo: the value is back" "$OUT" "frontier.types.article = 0"
ok_eq "undo: audited" "$(q "SELECT action FROM crawltop.audit_log ORDER BY id DESC LIMIT 1")" "settings.undo"
run settings get discovery.weights.unseen_likelihood
ok_eq "undo: only the last change" "$OUT" "discovery.weights.unseen_likelihood = 0.35"
# undo VERSION: an earlier version's values, whichever
run settings undo "$v1"
ok_eq "undo VERSION: exit 0" "$RC" 0
ok_match "undo VERSION: says which" "$OUT" "version $v1 restored"
run settings get discovery.weights.unseen_likelihood
ok_eq "undo VERSION: its weights" "$OUT" "discovery.weights.unseen_likelihood = 0.28"
run settings get classes.p0
ok_eq "undo VERSION: its P0" "$OUT" "classes.p0 = 85"
before=$(q "SELECT count(*) FROM crawltop.settings")
cur=$(q "SELECT max(version) FROM crawltop.settings")
for bad in "$cur" 99999 0 abc 1.5; do
	run settings undo "$bad"
	ok_eq "undo $bad: exit 2" "$RC" 2
done
run settings undo "$cur"
ok_match "undo of the current version: says to name an earlier one" "$OUT" "version $cur is not before the current version $cur"
run settings undo abc
ok_match "undo abc: names the argument" "$OUT" "undo: the version"
run settings undo 1 2
ok_eq "undo with two versions: exit 2" "$RC" 2
ok_eq "bad undos: no version written" "$(q "SELECT count(*) FROM crawltop.settings")" "$before"
run settings --help
ok_match "--help from the command table" "$OUT" 'get \[KEY\] \| set KEY VALUE'
# ---- settings written by plain SQL (last: failed inserts use up versions) ----
run settings set store.lease_seconds abc
ok_eq "set store.lease_seconds to a word: refused" "$RC" 1
ok_match "set store.lease_seconds to a word: the rule" "$OUT" 'store\.lease_seconds = "abc" is not allowed: a number of seconds, 0\.01\.\.86400'
# written by plain SQL, every value SQL reads is checked as well
for kv in 'store,lease_seconds:"abc"' 'store,max_retries:2.5' 'store,retry_base_seconds:0' \
	'hierarchy,root:2' 'hierarchy,decay:1' 'classes,p1:101'; do
	path=${kv%%:*} val=${kv#*:}
	OUT=$(psql -qAtd "$DB" -c "INSERT INTO crawltop.settings (value) SELECT jsonb_set(value, '{$path}', '$val') FROM crawltop.settings ORDER BY version DESC LIMIT 1" 2>&1)
	ok_match "SQL write of $path = $val: refused, naming the key" "$OUT" "setting ${path/,/.} = .* is not allowed"
done
# ... and so is every value the engine reads (0014): the weights' sum
# through settings_put, as any client may call it, and a key the engine
# does not know; nothing is written, and every command still reads the store
n=$(q "SELECT count(*) FROM crawltop.settings")
OUT=$(psql -qAtd "$DB" -c "SELECT * FROM crawltop.settings_put((SELECT jsonb_set(value, '{discovery,weights,topic_boost}', '0.5') FROM crawltop.settings ORDER BY version DESC LIMIT 1), (SELECT max(version) FROM crawltop.settings))" 2>&1)
ok_match "SQL settings_put of weights summing to 1.48: refused with the sum" "$OUT" \
	'discovery.weights are not allowed: they sum to 1.48, not 1 \(tolerance 1e-6\): unseen_likelihood=0.28, .*topic_boost=0.5'
OUT=$(psql -qAtd "$DB" -c "INSERT INTO crawltop.settings (value) SELECT jsonb_set(value, '{frontier,typo}', '1') FROM crawltop.settings ORDER BY version DESC LIMIT 1" 2>&1)
ok_match "SQL write of an unknown key: refused, naming it" "$OUT" 'setting frontier.typo is not a key of the settings'
ok_eq "refused SQL writes: no version written" "$(q "SELECT count(*) FROM crawltop.settings")" "$n"
run settings get discovery.weights.topic_boost
ok_eq "... and the settings still read" "$OUT" "discovery.weights.topic_boost = 0.02"
OUT=$(psql -qAtd "$DB" -c "INSERT INTO crawltop.settings (value) SELECT jsonb_set(value, '{classes,p2}', '70') FROM crawltop.settings ORDER BY version DESC LIMIT 1" 2>&1)
ok_match "SQL write of bounds out of order: refused" "$OUT" 'the bounds must fall, p0 > p1 > p2'
run settings set store.retry_max_seconds 1
ok_eq "retry_max_seconds below retry_base_seconds (10): refused" "$RC" 1
ok_match "retry_max_seconds below retry_base_seconds: the rule, both values" "$OUT" \
	'store\.retry_base_seconds = 10, retry_max_seconds = 1 are not allowed: .*retry_max_seconds >= retry_base_seconds'
# a note any session wrote with SQL cannot drive the terminal
psql -qAtd "$DB" -c "INSERT INTO crawltop.settings (value, note) SELECT value, E'evil\\x1b[31mRED' FROM crawltop.settings ORDER BY version DESC LIMIT 1"
run settings history
ok_match "history: a note's ESC shown as \\x1b" "$OUT" 'evil\\x1b\[31mRED'
ok_eq "history: no ESC byte reaches the terminal" "$(printf '%s' "$OUT" | tr -cd '\033' | wc -c)" 0
# a store key the version leaves out (store.max_expiries, added by 0016
# after the first version was written): shown with its rule, and set
run settings get store.max_expiries
ok_match "store key not set: shown with its rule" "$OUT" \
	'^store\.max_expiries = \(not set: an integer, 0\.\.1000 .*10 when not set\)\)$'
run settings set store.max_expiries 4
ok_eq "store key not set: set it, exit 0" "$RC" 0
run settings get store.max_expiries
ok_eq "store key not set: now set" "$OUT" "store.max_expiries = 4"
run settings set store.max_expiries 1001
ok_eq "store.max_expiries 1001: refused" "$RC" 1
ok_match "store.max_expiries 1001: the rule" "$OUT" 'store\.max_expiries = 1001 is not allowed: an integer, 0\.\.1000'
done_testing
