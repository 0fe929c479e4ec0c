/* test_settings_rules.c: the store's check of a settings version (0014:
 * crawltop.setting_rules, crawltop.settings_defaults, the trigger
 * settings_check_row) and the C configuration layer (src/config: the key
 * table, the defaults, ct_settings_from_json) agree.
 *
 *   - every key and map of the C tables has its row, with the same kind and
 *     range, and no row names a key the C tables lack;
 *   - the SQL defaults are the engine's;
 *   - a few hundred documents, each the current version with one value
 *     changed (every key at and past its bounds, wrong types, map entries,
 *     token lists, the rules between keys), get the same verdict from both:
 *     the store never holds a version the programs cannot read, and never
 *     refuses one they can. The one difference by design: an unknown
 *     member at the top level, which the C layer leaves to other readers,
 *     is refused by the store (`stricter` below). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "config_keys.h"
#include "pgtest.h"
#include "settings_json.h"

static int fresh(void **state)
{
	*state = pgt_fresh("ct_setting_rules", 1);
	return 0;
}

static int close_store(void **state)
{
	ct_store_close(*state);
	return 0;
}

/* The store's spelling of a key's path. */
static const char *doc_path(const char *path)
{
	return strcmp(path, "tier.default_priority") == 0 ? "default_priority"
							 : path;
}

/* "lo|lo_out|hi|hi_out" as the rules table should hold them. */
static void want_range(double lo, double hi, unsigned flags, int numeric,
		       char *buf, size_t len)
{
	char l[32] = "", h[32] = "";
	if (numeric && isfinite(lo))
		snprintf(l, sizeof l, "%.17g", lo);
	if (numeric && isfinite(hi))
		snprintf(h, sizeof h, "%.17g", hi);
	snprintf(buf, len, "%s|%s|%s|%s", l,
		 flags & CT_KEY_GT_MIN ? "true" : "false", h,
		 flags & CT_KEY_LT_MAX ? "true" : "false");
}

static char *row_of(struct ct_store *s, const char *path)
{
	const char *p[] = {path};
	return pgt_text(s, "SELECT kind || '|' || coalesce(lo::text, '') || '|' "
			"|| lo_out || '|' || coalesce(hi::text, '') || '|' || "
			"hi_out FROM crawltop.setting_rules WHERE path = $1", 1, p);
}

static void rows_match_the_key_table(void **state)
{
	struct ct_store *s = *state;
	static const char *const kinds[] = {
		[CT_KEY_DOUBLE] = "number", [CT_KEY_INT] = "integer",
		[CT_KEY_LONG] = "integer", [CT_KEY_SIZE] = "integer",
		[CT_KEY_BOOL] = "boolean", [CT_KEY_TOKENS] = "tokens",
	};
	pgt_exec(s, "SET extra_float_digits = 3");
	for (size_t i = 0; i < ct_n_keys; i++) {
		const struct ct_key *k = &ct_keys[i];
		int numeric = k->type != CT_KEY_BOOL && k->type != CT_KEY_TOKENS;
		char range[128], want[160];
		want_range(k->min, k->max, k->flags, numeric, range, sizeof range);
		snprintf(want, sizeof want, "%s|%s", kinds[k->type], range);
		char *got = row_of(s, doc_path(k->path));
		if (strcmp(got, want) != 0)
			fail_msg("%s: the store's rule '%s', the C table's '%s'",
				 k->path, got, want);
		free(got);
	}
	for (size_t i = 0; i < ct_n_maps; i++) {
		const struct ct_map *m = &ct_maps[i];
		int numeric = m->kind != CT_MAP_ALIASES;
		char range[128], want[160];
		want_range(m->min, m->max, m->flags, numeric, range, sizeof range);
		snprintf(want, sizeof want, "%s|%s",
			 numeric ? "map_number" : "map_string", range);
		char *got = row_of(s, m->path);
		if (strcmp(got, want) != 0)
			fail_msg("%s: the store's rule '%s', the C table's '%s'",
				 m->path, got, want);
		free(got);
	}
	/* nothing more: the store's own keys aside, a row per C key and map */
	assert_int_equal(pgt_int(s, "SELECT count(*) FROM crawltop.setting_rules "
				 "WHERE path NOT LIKE 'store.%'"),
			 (long long)(ct_n_keys + ct_n_maps));
}

static void defaults_are_the_engines(void **state)
{
	struct ct_store *s = *state;
	struct ct_settings def;
	struct ct_error err;
	ct_settings_default(&def);
	char *json = ct_settings_to_json(&def, NULL, &err);
	assert_non_null(json);
	const char *p[] = {json};
	char *same = pgt_text(s, "SELECT crawltop.settings_defaults() = $1::jsonb",
			      1, p);
	if (strcmp(same, "t") != 0) {
		char *diff = pgt_text(s, "SELECT string_agg(coalesce(a.path, "
			"b.path) || ': ' || coalesce(a.value::text, '-') || ' / ' "
			"|| coalesce(b.value::text, '-'), '; ') FROM "
			"crawltop.jsonb_leaves(crawltop.settings_defaults()) a FULL "
			"JOIN crawltop.jsonb_leaves($1::jsonb) b ON a.path = b.path "
			"WHERE a.value IS DISTINCT FROM b.value", 1, p);
		fail_msg("SQL / C defaults differ: %s", diff);
	}
	free(same);
	free(json);
}

/* ---- verdicts ----------------------------------------------------------- */

struct verdicts {
	struct ct_store *s;
	char *base;     /* the current version's document */
	int cases, refused;
};

/* Set path (dotted; "" segments allowed) of the base document to value
 * (JSON text) and ask both; stricter: the store may refuse what the C
 * layer accepts. */
static void verdict(struct verdicts *v, const char *path, const char *value,
		    int stricter)
{
	char arr[512];
	size_t k = 0;
	arr[k++] = '{';
	for (const char *c = path; *c && k < sizeof arr - 4; c++) {
		if (c == path)
			arr[k++] = '"';
		if (*c == '.') {
			memcpy(arr + k, "\",\"", 3);
			k += 3;
		} else {
			arr[k++] = *c;
		}
	}
	memcpy(arr + k, "\"}", 3);
	const char *p[] = {v->base, arr, value};
	char *doc = pgt_text(v->s, "SELECT jsonb_set($1::jsonb, $2::text[], "
			     "$3::jsonb, true)::text", 3, p);
	struct ct_settings out;
	struct ct_error cerr = {{0}}, serr = {{0}};
	int c_ok = ct_settings_from_json(doc, 0, &out, &cerr) == CT_OK;
	pgt_exec(v->s, "SAVEPOINT v");
	const char *q[] = {doc};
	int sql_ok = ct_store_query(v->s, "insert", "INSERT INTO "
				    "crawltop.settings (value) VALUES ($1::jsonb)",
				    1, q, NULL, 0, NULL, &serr) == CT_OK;
	pgt_exec(v->s, "ROLLBACK TO SAVEPOINT v");
	v->cases++;
	v->refused += !sql_ok;
	if (sql_ok && !c_ok)
		fail_msg("%s = %s: the store took it, the programs cannot read "
			 "it: %s", path, value, cerr.msg);
	if (c_ok && !sql_ok && !stricter)
		fail_msg("%s = %s: the programs read it, the store refused: %s",
			 path, value, serr.msg);
	if (!sql_ok && !strstr(serr.msg, "not allowed") &&
	    !strstr(serr.msg, "not a key"))
		fail_msg("%s = %s: refused without naming the rule: %s", path,
			 value, serr.msg);
	free(doc);
}

/* Values at and past a number key's bounds, and of other types. */
static void number_cases(struct verdicts *v, const char *path, double lo,
			 double hi, int whole)
{
	char b[64];
	double pts[] = {lo, hi, lo - 1, hi + 1, lo - 0.5, hi + 0.5,
			lo + 0.25, hi - 0.25, (lo + hi) / 2, -1, 0, 1, 0.5};
	for (size_t i = 0; i < sizeof pts / sizeof pts[0]; i++) {
		if (!isfinite(pts[i]))
			continue;
		snprintf(b, sizeof b, "%.17g", pts[i]);
		verdict(v, path, b, 0);
	}
	static const char *const other[] = {
		"\"5\"", "true", "null", "[1]", "{}", "1e400", "-1e400",
		"1e-400", "1e-310", "1.5", "2.0", "1e2", "5000000",
		"2147483647", "2147483648", "-2147483649",
	};
	for (size_t i = 0; i < sizeof other / sizeof other[0]; i++)
		verdict(v, path, other[i], 0);
	(void)whole;
}

static void verdicts_agree(void **state)
{
	struct verdicts v = {.s = *state};
	v.base = pgt_text(v.s, "SELECT value::text FROM crawltop.settings "
			  "ORDER BY version DESC LIMIT 1", 0, NULL);
	pgt_exec(v.s, "BEGIN");
	for (size_t i = 0; i < ct_n_keys; i++) {
		const struct ct_key *k = &ct_keys[i];
		const char *p = doc_path(k->path);
		switch (k->type) {
		case CT_KEY_BOOL:
			verdict(&v, p, "true", 0);
			verdict(&v, p, "false", 0);
			verdict(&v, p, "1", 0);
			verdict(&v, p, "\"true\"", 0);
			break;
		case CT_KEY_TOKENS: {
			static const char *const toks[] = {
				"[]", "[\"de\"]", "[\"de\", \"at\", \"ch1\"]",
				"[\"DE\"]", "[\"a b\"]", "[\"\"]", "[1]", "\"de\"",
				"[\"abcdefghijklmnopqrstuvwxyz01234\"]",
				"[\"abcdefghijklmnopqrstuvwxyz012345\"]",
				"[\"caf\u00e9\"]", "{}",
			};
			for (size_t t = 0; t < sizeof toks / sizeof toks[0]; t++)
				verdict(&v, p, toks[t], 0);
			char many[1024];
			size_t n = 0;
			for (int t = 0; t < 65; t++)
				n += (size_t)snprintf(many + n, sizeof many - n,
						      "%s\"t%d\"", t ? "," : "[", t);
			snprintf(many + n, sizeof many - n, "]");
			verdict(&v, p, many, 0);
			many[strlen(many) - 1] = '\0';
			*strrchr(many, ',') = '\0';
			strcat(many, "]");
			verdict(&v, p, many, 0); /* 64 */
			break;
		}
		default:
			number_cases(&v, p, isfinite(k->min) ? k->min : -1e6,
				     isfinite(k->max) ? k->max : 1e6,
				     k->type != CT_KEY_DOUBLE);
		}
	}
	/* the open maps: entries, their names, their values */
	static const struct {
		const char *path, *value;
	} entries[] = {
		{"frontier.types.blog", "7"}, {"frontier.types.blog", "-1"},
		{"frontier.types.blog", "\"x\""}, {"frontier.types.blog", "1e400"},
		{"frontier.types.", "3"},
		{"frontier.types.abcdefghijklmnopqrstuvwxyz01234", "3"},
		{"frontier.types.abcdefghijklmnopqrstuvwxyz012345", "3"},
		{"frontier.types.defualt", "3"}, {"frontier.types.defaults", "3"},
		{"frontier.types.fault", "3"}, {"frontier.types.deflt", "3"},
		{"frontier.types.Article", "3"}, {"frontier.types.nav", "0"},
		{"frontier.types", "{}"}, {"frontier.types", "5"},
		{"frontier.bonuses.rss", "4"}, {"frontier.bonuses.rss", "-4"},
		{"frontier.bonuses.rss", "null"}, {"frontier.bonuses.default", "4"},
		{"frontier.aliases.feed", "\"link\""},
		{"frontier.aliases.feed", "\"nope\""},
		{"frontier.aliases.feed", "3"}, {"frontier.aliases.feed", "\"\""},
		{"frontier.aliases.sitemap", "\"link\""},
		{"frontier.aliases", "[]"},
		/* entry names and alias targets: 1..31 of A-Z a-z 0-9 _ - */
		{"frontier.types", "{\"hub_seed-2\": 1}"},
		{"frontier.types", "{\"a b\": 1}"},
		{"frontier.types", "{\"caf\\u00e9\": 1}"},
		{"frontier.types", "{\"a\\u00a0b\": 1}"},
		{"frontier.bonuses", "{\"x\\u001b]0;t\\u0007\": 1}"},
		{"frontier.bonuses.rss*", "1"},
		{"frontier.aliases", "{\"feed\": \"li nk\"}"},
		{"frontier.aliases", "{\"fe\\u001bed\": \"link\"}"},
		/* unknown keys inside the settings' groups, a group as a value */
		{"classes.p3", "20"}, {"frontier.weights.gap", "1"},
		{"discovery.weights", "1"}, {"freshness", "[]"},
	};
	for (size_t i = 0; i < sizeof entries / sizeof entries[0]; i++)
		verdict(&v, entries[i].path, entries[i].value, 0);
	/* 32 entries in a map at most, its defaults included (5 types) */
	char types[2048];
	for (int extra = 26; extra <= 28; extra++) {
		size_t n = (size_t)snprintf(types, sizeof types, "{");
		for (int t = 0; t < extra; t++)
			n += (size_t)snprintf(types + n, sizeof types - n,
					      "%s\"x%d\": 1", t ? ", " : "", t);
		snprintf(types + n, sizeof types - n, "}");
		verdict(&v, "frontier.types", types, 0);
	}
	/* the rules between keys, against the current values */
	static const struct {
		const char *path, *value;
	} rules[] = {
		{"classes.p0", "60"}, {"classes.p0", "60.5"}, {"classes.p1", "80"},
		{"classes.p1", "40"}, {"classes.p2", "59.999"},
		{"hierarchy.sitemap", "1"}, {"hierarchy.sitemap", "0.1"},
		{"hierarchy.sitemap", "0.05"}, {"hierarchy.floor", "0.6"},
		{"frontier.cost.fast_ms", "500"}, {"frontier.cost.fast_ms", "501"},
		{"discovery.backoff.start_hours", "48"},
		{"discovery.backoff.start_hours", "49"},
		{"frontier.total_prioritisation.enabled", "true"},
		{"discovery.weights.unseen_likelihood", "0.280001"},
		{"discovery.weights.unseen_likelihood", "0.2800011"},
		{"discovery.weights.unseen_likelihood", "0.279999"},
		{"discovery.weights.unseen_likelihood", "0.2799989"},
		{"discovery.weights", "{\"unseen_likelihood\": 0.35, "
		 "\"host_novelty\": 0.13}"},
		{"discovery.weights", "{\"unseen_likelihood\": 1, "
		 "\"host_novelty\": 0, \"content_readiness\": 0, "
		 "\"link_yield\": 0, \"source_reliability\": 0, "
		 "\"freshness\": 0, \"quality_safety\": 0, \"topic_boost\": 0}"},
		{"frontier.total_prioritisation", "{\"enabled\": true, "
		 "\"country_tokens\": [\"de\"]}"},
		{"classes", "{\"p1\": 85}"}, {"classes", "{}"},
	};
	for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++)
		verdict(&v, rules[i].path, rules[i].value, 0);
	/* by design stricter: the top level holds settings and the store's */
	verdict(&v, "bogus", "1", 1);
	pgt_exec(v.s, "ROLLBACK");
	print_message("# %d documents, %d refused by both\n", v.cases, v.refused);
	assert_true(v.cases > 300);
	assert_true(v.refused > 100 && v.refused < v.cases - 100);
	free(v.base);
}

/* A version may leave keys out (the rules above check what it has); the
 * store's own SQL then reads their defaults, as the C layer does: enqueue
 * scores and classes with them. */
static void absent_keys_read_as_defaults(void **state)
{
	struct ct_store *s = *state;
	pgt_exec(s, "INSERT INTO crawltop.settings (value, note) "
		 "SELECT value #- '{classes,p0}' #- '{hierarchy,decay}', 'test' "
		 "FROM crawltop.settings ORDER BY version DESC LIMIT 1");
	char *v = pgt_text(s, "SELECT crawltop.setting('{classes,p0}')::text || ' ' "
			   "|| (crawltop.setting('{hierarchy}')->>'decay')", 0, NULL);
	assert_string_equal(v, "80 0.8");
	free(v);
	int64_t job = pgt_job(s, "absent", "absent.example", 5, "hierarchy");
	char sql[512];
	snprintf(sql, sizeof sql, "SELECT count(*) FROM crawltop.enqueue(%lld, "
		 "ARRAY['/'], 'manual')", (long long)job);
	pgt_exec(s, sql);
	snprintf(sql, sizeof sql, "SELECT count(*) FROM crawltop.enqueue(%lld, "
		 "ARRAY['/kid'], 'link', crawltop.page_id(%lld, '/'))",
		 (long long)job, (long long)job);
	pgt_exec(s, sql);
	/* whole groups left out */
	pgt_exec(s, "INSERT INTO crawltop.settings (value, note) "
		 "SELECT value - 'hierarchy' - 'classes', 'test' "
		 "FROM crawltop.settings ORDER BY version DESC LIMIT 1");
	snprintf(sql, sizeof sql, "SELECT count(*) FROM crawltop.enqueue(%lld, "
		 "ARRAY['/kid/deeper'], 'link', crawltop.page_id(%lld, '/kid'))",
		 (long long)job, (long long)job);
	pgt_exec(s, sql);
	snprintf(sql, sizeof sql, "SELECT string_agg(p.path || ' ' || round(t.score::numeric, 6) || "
		 "' P' || t.class, ', ' ORDER BY p.path) FROM crawltop.tasks t "
		 "JOIN crawltop.pages p ON p.id = t.page_id WHERE t.job_id = %lld",
		 (long long)job);
	v = pgt_text(s, sql, 0, NULL);
	assert_string_equal(v, "/ 100.000000 P0, /kid 80.000000 P0, /kid/deeper 64.000000 P1");
	free(v);
}

/* settings_put of the current version with its path `at` set to the
 * JSON of SQL expression `value`: refused with a message holding want,
 * and nothing written. */
static void put_refused(struct ct_store *s, const char *at, const char *value,
			const char *want)
{
	struct ct_error err = {{0}};
	char sql[600];
	long long before = pgt_int(s, "SELECT max(version) FROM crawltop.settings");
	snprintf(sql, sizeof sql, "SELECT crawltop.settings_put(jsonb_set(value, "
		 "'%s', %s), version) FROM crawltop.settings ORDER BY version "
		 "DESC LIMIT 1", at, value);
	assert_int_not_equal(ct_store_exec(s, "put", sql, &err), CT_OK);
	if (!strstr(err.msg, want))
		fail_msg("%s = %s: not refused with '%s': %s", at, value, want,
			 err.msg);
	assert_int_equal(pgt_int(s, "SELECT max(version) FROM crawltop.settings"),
			 before);
}

/* settings_put as a console calls it: the key of a terminal escape is
 * refused by its characters; a version too big for the rules is refused
 * by its size before any of the checks whose work grows with it (a
 * 200,000-entry map was diffed and checked entry by entry for 43 s:
 * here one entry's name is bad too, and the size is what is named). */
static void settings_put_checks_names_and_sizes_first(void **state)
{
	struct ct_store *s = *state;
	put_refused(s, "{frontier,bonuses}", "(value #> '{frontier,bonuses}') || "
		    "jsonb_build_object(E'x\\x1b]0;pwned\\x07\\x1b[2J', 1)",
		    "an entry's name is 1 to 31 of A-Z, a-z, 0-9, _ and -");
	put_refused(s, "{frontier,types}", "(SELECT jsonb_object_agg(CASE WHEN "
		    "g = 7 THEN 'bad name' ELSE 'x' || g END, 1) FROM "
		    "generate_series(1, 200000) g)",
		    "bytes (as JSON text) is not allowed: at most 65536");
	/* 33 entries: small, refused for the count before the names */
	put_refused(s, "{frontier,bonuses}", "(SELECT jsonb_object_agg(CASE WHEN "
		    "g = 7 THEN 'bad name' ELSE 'x' || g END, 1) FROM "
		    "generate_series(1, 33) g)",
		    "setting frontier.bonuses is not allowed: more than 32 entries");
	/* READ COMMITTED only: a snapshot taken before the lock would write
	 * over a version written meanwhile */
	struct ct_error err = {{0}};
	pgt_exec(s, "BEGIN ISOLATION LEVEL REPEATABLE READ");
	assert_int_not_equal(ct_store_exec(s, "put", "SELECT crawltop.settings_put("
		"jsonb_set(value, '{frontier,types,hub_seed-2}', '3'), version) "
		"FROM crawltop.settings ORDER BY version DESC LIMIT 1", &err), CT_OK);
	if (!strstr(err.msg, "settings are written in READ COMMITTED only, not "
		    "REPEATABLE READ"))
		fail_msg("unclear: %s", err.msg);
	pgt_exec(s, "ROLLBACK");
	/* a plain new name goes in */
	assert_int_equal(pgt_int(s, "SELECT (crawltop.settings_put(jsonb_set("
		"value, '{frontier,types,hub_seed-2}', '3'), version)).changed "
		"FROM crawltop.settings ORDER BY version DESC LIMIT 1"), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(rows_match_the_key_table, fresh, close_store),
		cmocka_unit_test_setup_teardown(defaults_are_the_engines, fresh, close_store),
		cmocka_unit_test_setup_teardown(verdicts_agree, fresh, close_store),
		cmocka_unit_test_setup_teardown(absent_keys_read_as_defaults, fresh, close_store),
		cmocka_unit_test_setup_teardown(settings_put_checks_names_and_sizes_first, fresh, close_store),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
