/* test_config.c: the configuration layer (src/config/).
 *
 * Runs with workdir tests/unit: fixtures are under config/ and the default
 * file is ../../data/crawltop.conf. Error cases write their own files into
 * a fresh mkdtemp() directory, removed after each test. Every error test
 * asserts on the message: file, line, key, value and rule. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include <crawltop/crawltop.h>

#include "config.h"
#include "config_keys.h"

#define DEFAULT_CONF "../../data/crawltop.conf"
#define FIXTURE(name) "config/" name

/* ---- helpers ------------------------------------------------------- */

static const char *const override_vars[] = {
	"RANK_WEIGHTS_UNSEEN", "RANK_WEIGHTS_HOST_NOVELTY",
	"RANK_WEIGHTS_CONTENT_READY", "RANK_WEIGHTS_LINK_YIELD",
	"RANK_WEIGHTS_SOURCE_REL", "RANK_WEIGHTS_FRESHNESS",
	"RANK_WEIGHTS_SAFETY", "RANK_WEIGHTS_TOPIC", "MIN_PUBLISH_SCORE",
	"PROFILE_SCORE", "BACKOFF_START_HOURS", "BACKOFF_MAX_HOURS",
	"BACKOFF_MULTIPLIER",
};
#define N_OVERRIDES (sizeof(override_vars) / sizeof(override_vars[0]))

/* The per-test scratch directory and what was created in it. */
static struct {
	char dir[64];
	char made[32][CT_CONFIG_PATH_LEN];
	bool is_dir[32];
	int n;
} tmp;

static void clear_env(void)
{
	for (size_t i = 0; i < N_OVERRIDES; i++)
		unsetenv(override_vars[i]);
	unsetenv("CRAWLTOP_CONFIG");
	unsetenv("XDG_CONFIG_HOME");
}

static int setup(void **state)
{
	clear_env();
	tmp.n = 0;
	snprintf(tmp.dir, sizeof(tmp.dir), "/tmp/ct-config-test-XXXXXX");
	if (!mkdtemp(tmp.dir))
		return -1;
	/* no user file unless a test makes one */
	setenv("HOME", tmp.dir, 1);
	return 0;
}

static int teardown(void **state)
{
	for (int i = tmp.n - 1; i >= 0; i--) {
		if (tmp.is_dir[i])
			rmdir(tmp.made[i]);
		else
			unlink(tmp.made[i]);
	}
	rmdir(tmp.dir);
	clear_env();
	return 0;
}

/* tmp.dir/name, remembered for removal. */
static const char *tmp_path(const char *name, bool is_dir)
{
	char full[CT_CONFIG_PATH_LEN];

	assert_true(tmp.n < 32);
	snprintf(full, sizeof(full), "%s/%s", tmp.dir, name);
	memcpy(tmp.made[tmp.n], full, sizeof(full));
	tmp.is_dir[tmp.n] = is_dir;
	return tmp.made[tmp.n++];
}

static const char *tmp_mkdir(const char *name)
{
	const char *p = tmp_path(name, true);

	assert_int_equal(mkdir(p, 0700), 0);
	return p;
}

/* Writes text to tmp.dir/name (replacing it); returns the path. */
static const char *tmp_write(const char *name, const char *text)
{
	char full[CT_CONFIG_PATH_LEN];
	const char *p = NULL;
	FILE *f;

	snprintf(full, sizeof(full), "%s/%s", tmp.dir, name);
	for (int i = 0; i < tmp.n; i++)
		if (strcmp(tmp.made[i], full) == 0)
			p = tmp.made[i];
	if (!p)
		p = tmp_path(name, false);
	f = fopen(p, "w");
	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
	return p;
}

/* Fails with the whole message when it lacks s. */
#define assert_msg_has(e, s) do { \
	if (!strstr((e).msg, (s))) \
		fail_msg("message \"%s\"\n  lacks \"%s\"", (e).msg, (s)); \
} while (0)

/* "path:line:" */
static const char *at(const char *path, int line)
{
	static char buf[CT_CONFIG_PATH_LEN + 16];

	snprintf(buf, sizeof(buf), "%s:%d:", path, line);
	return buf;
}

/* Loads text as a file; the status, with *out and *e filled. */
static ct_status load_text(const char *text, const char **path,
			   struct ct_settings *out, struct ct_error *e)
{
	*path = tmp_write("test.conf", text);
	memset(e, 0, sizeof(*e));
	return ct_config_load_file(*path, out, e);
}

/* Loads text as a file and expects status st with a message that holds
 * want, and "path:line:" when line > 0. */
static void assert_refused(const char *text, ct_status st, int line,
			   const char *want)
{
	struct ct_settings s;
	struct ct_error e;
	const char *p;

	assert_int_equal(load_text(text, &p, &s, &e), st);
	if (line > 0)
		assert_msg_has(e, at(p, line));
	assert_msg_has(e, want);
}

/* The scalar fields of struct ct_settings, written from the header (not
 * from the key table, so the table is checked against it). */
#define SCALAR_FIELDS(X) \
	X(classes.p0) X(classes.p1) X(classes.p2) \
	X(hierarchy.root) X(hierarchy.sitemap) X(hierarchy.decay) \
	X(hierarchy.floor) X(default_priority) \
	X(frontier.default_type_weight) X(frontier.w_base) X(frontier.w_gap) \
	X(frontier.w_reuse) X(frontier.gap_driven) \
	X(frontier.knowledge_reuse) X(frontier.problem_clustering) \
	X(frontier.cost_aware) X(frontier.cluster_problem_threshold) \
	X(frontier.cluster_boost_factor) X(frontier.cluster_boost_cap) \
	X(frontier.cost_fast_ms) X(frontier.cost_slow_ms) \
	X(frontier.cost_factor) X(frontier.total_prioritisation) \
	X(frontier.offset_country) X(frontier.offset_related) \
	X(frontier.offset_other) X(frontier.n_country_tokens) \
	X(frontier.n_related_tokens) X(frontier.max_depth) \
	X(frontier.max_queue) X(frontier.burst) X(frontier.max_scan) \
	X(discovery.weights[0]) X(discovery.weights[1]) \
	X(discovery.weights[2]) X(discovery.weights[3]) \
	X(discovery.weights[4]) X(discovery.weights[5]) \
	X(discovery.weights[6]) X(discovery.weights[7]) \
	X(discovery.backoff.start_hours) X(discovery.backoff.max_hours) \
	X(discovery.backoff.multiplier) \
	X(freshness.base) X(freshness.recent) X(freshness.today) \
	X(freshness.stale) X(freshness.never) X(freshness.changed) \
	X(freshness.topic_max) X(freshness.topic_high) X(freshness.hub) \
	X(freshness.deep) X(freshness.deep_depth)

/* Same names with the same values, in any order. */
static bool named_equal(const struct ct_named_value *a, size_t na,
			const struct ct_named_value *b, size_t nb)
{
	if (na != nb)
		return false;
	for (size_t i = 0; i < na; i++) {
		bool found = false;

		for (size_t j = 0; j < nb && !found; j++)
			found = strcmp(a[i].name, b[j].name) == 0 &&
				a[i].value == b[j].value;
		if (!found)
			return false;
	}
	return true;
}

static bool aliases_equal(const struct ct_frontier_params *a,
			  const struct ct_frontier_params *b)
{
	if (a->n_aliases != b->n_aliases)
		return false;
	for (size_t i = 0; i < a->n_aliases; i++) {
		bool found = false;

		for (size_t j = 0; j < b->n_aliases && !found; j++)
			found = strcmp(a->aliases[i].from, b->aliases[j].from) == 0 &&
				strcmp(a->aliases[i].to, b->aliases[j].to) == 0;
		if (!found)
			return false;
	}
	return true;
}

/* Field-by-field equality; names the first differing field. */
static void assert_settings_equal(const struct ct_settings *a,
				  const struct ct_settings *b)
{
#define CMP(f) if (a->f != b->f) fail_msg("field " #f " differs: %g vs %g", \
					   (double)a->f, (double)b->f);
	SCALAR_FIELDS(CMP)
#undef CMP
	for (size_t i = 0; i < a->frontier.n_country_tokens; i++)
		assert_string_equal(a->frontier.country_tokens[i],
				    b->frontier.country_tokens[i]);
	for (size_t i = 0; i < a->frontier.n_related_tokens; i++)
		assert_string_equal(a->frontier.related_tokens[i],
				    b->frontier.related_tokens[i]);
	if (!named_equal(a->frontier.types, a->frontier.n_types,
			 b->frontier.types, b->frontier.n_types))
		fail_msg("frontier.types differ");
	if (!named_equal(a->frontier.bonuses, a->frontier.n_bonuses,
			 b->frontier.bonuses, b->frontier.n_bonuses))
		fail_msg("frontier.bonuses differ");
	if (!aliases_equal(&a->frontier, &b->frontier))
		fail_msg("frontier.aliases differ");
}

static double type_weight(const struct ct_settings *s, const char *name)
{
	for (size_t i = 0; i < s->frontier.n_types; i++)
		if (strcmp(s->frontier.types[i].name, name) == 0)
			return s->frontier.types[i].value;
	return -1;
}

/* ---- the default file ---------------------------------------------- */

/* data/crawltop.conf yields exactly ct_settings_default(). */
static void test_default_file_is_defaults(void **state)
{
	struct ct_settings def, got;
	struct ct_error e = { { 0 } };

	ct_settings_default(&def);
	assert_int_equal(ct_config_load_file(DEFAULT_CONF, &got, &e), CT_OK);
	assert_settings_equal(&got, &def);
}

/* data/crawltop.conf names every key of the table, and every entry of the
 * default maps: loaded over empty maps it still gives the defaults. */
static void test_default_file_lists_everything(void **state)
{
	struct ct_config c;
	struct ct_settings def;
	struct ct_error e = { { 0 } };

	ct_settings_default(&def);
	ct_config_init(&c);
	c.settings.frontier.n_types = 0;
	c.settings.frontier.n_bonuses = 0;
	c.settings.frontier.n_aliases = 0;
	assert_int_equal(ct_config_read_file(&c, DEFAULT_CONF, &e), CT_OK);
	for (size_t i = 0; i < ct_n_keys; i++)
		if (c.key_src[i].origin != CT_FROM_FILE)
			fail_msg("%s is not in " DEFAULT_CONF, ct_keys[i].path);
	assert_settings_equal(&c.settings, &def);
	assert_int_equal(ct_config_validate(&c, &e), CT_OK);
}

/* No file: the defaults, valid. */
static void test_builtin_defaults(void **state)
{
	struct ct_settings def, got;
	struct ct_error e = { { 0 } };
	struct ct_config c;

	ct_settings_default(&def);
	assert_int_equal(ct_config_load_file(NULL, &got, &e), CT_OK);
	assert_settings_equal(&got, &def);
	ct_config_init(&c);
	assert_int_equal(ct_config_validate(&c, &e), CT_OK);
	assert_int_equal(c.key_src[0].origin, CT_FROM_DEFAULT);
}

/* Every field of the struct can be set from a file (the fixture changes
 * each one). */
static void test_every_key_reaches_its_field(void **state)
{
	struct ct_settings def, got;
	struct ct_error e = { { 0 } };

	ct_settings_default(&def);
	assert_int_equal(ct_config_load_file(FIXTURE("every-key.conf"), &got, &e),
			 CT_OK);
#define DIFF(f) if (got.f == def.f) fail_msg("field " #f " kept its default");
	SCALAR_FIELDS(DIFF)
#undef DIFF
	assert_string_equal(got.frontier.country_tokens[0], "de");
	assert_string_equal(got.frontier.country_tokens[1], "germany");
	assert_string_equal(got.frontier.related_tokens[0], "berlin");
	assert_true(type_weight(&got, "article") == 1.0);
	assert_true(type_weight(&got, "hub") == 3.0);
	assert_true(type_weight(&got, "nav") == 10.0); /* merged, kept */
	assert_true(ct_frontier_bonus(&got.frontier, "feed") == 5.0);
	assert_true(ct_frontier_bonus(&got.frontier, "link-discovery") == 12.0);
}

/* The key table and the engine agree on the discovery names. */
static void test_weight_keys_match_engine(void **state)
{
	for (int i = 0; i < CT_SUB_COUNT; i++) {
		char path[96];
		const struct ct_key *k;

		snprintf(path, sizeof(path), "discovery.weights.%s",
			 ct_subscore_name((ct_subscore)i));
		k = ct_key_find(path, NULL);
		if (!k)
			fail_msg("no key %s", path);
		assert_string_equal(k->env, ct_subscore_env((ct_subscore)i));
		assert_string_equal(k->env, override_vars[i]);
	}
}

/* ---- values that load ---------------------------------------------- */

/* Integers where floats are expected; 64-bit integers with L. */
static void test_integers_for_floats(void **state)
{
	struct ct_settings s;
	struct ct_error e;
	const char *p;

	assert_int_equal(load_text("frontier = { weights = { base = 2; };\n"
				   "  total_prioritisation = { other = 5000000000L; }; };\n"
				   "classes = { p0 = 90; };\n", &p, &s, &e), CT_OK);
	assert_true(s.frontier.w_base == 2.0);
	assert_true(s.frontier.offset_other == 5e9);
	assert_true(s.classes.p0 == 90.0);
}

/* A file overlays the defaults; maps merge entry by entry. */
static void test_partial_file_overlays(void **state)
{
	struct ct_settings s, def;
	struct ct_error e;
	const char *p;

	ct_settings_default(&def);
	assert_int_equal(load_text("frontier = { types = { hub = 3.0; article = 1.0; }; };\n",
				   &p, &s, &e), CT_OK);
	assert_true(type_weight(&s, "hub") == 3.0);
	assert_true(type_weight(&s, "article") == 1.0);
	assert_true(type_weight(&s, "nav") == 10.0);
	assert_true(s.frontier.default_type_weight == 12.0);
	assert_int_equal(s.frontier.n_types, def.frontier.n_types + 1);
	assert_true(s.classes.p0 == 80.0);
	/* an empty file is the defaults */
	assert_int_equal(load_text("# nothing\n", &p, &s, &e), CT_OK);
	assert_settings_equal(&s, &def);
}

/* @include is read next to the including file. */
static void test_include(void **state)
{
	struct ct_settings s;
	struct ct_error e = { { 0 } };

	assert_int_equal(ct_config_load_file(FIXTURE("include-main.conf"), &s, &e),
			 CT_OK);
	assert_true(s.classes.p0 == 85.0);
	assert_true(s.freshness.base == 45.0);
}

/* A syntax error inside an included file names that file. */
static void test_include_syntax_error(void **state)
{
	struct ct_settings s;
	struct ct_error e;
	const char *p;
	char want[CT_CONFIG_PATH_LEN + 16];

	tmp_write("bad-part.conf", "classes = {\n p0 = ;\n};\n");
	assert_int_equal(load_text("# main\n@include \"bad-part.conf\"\n", &p, &s, &e),
			 CT_EINVAL);
	snprintf(want, sizeof(want), "%s/bad-part.conf:2: syntax error", tmp.dir);
	assert_msg_has(e, want);
	/* an included file setting again what the including file set: both
	 * places named */
	tmp_write("again.conf", "classes = {\n p0 = 90.0;\n};\n");
	assert_int_equal(load_text("classes = { p1 = 50.0; };\n"
				   "@include \"again.conf\"\n", &p, &s, &e),
			 CT_EINVAL);
	snprintf(want, sizeof(want), "%s/again.conf:1: duplicate setting name "
		 "classes (set already on %s:1)", tmp.dir, p);
	assert_msg_has(e, want);
}

/* @include of a missing file, a directory or an unreadable file: the
 * including file and line, the file as written and as opened, and why
 * (libconfig 1.5 exits the process on a directory). Nothing loads. */
/* head, then line (with one %u: 0, 1, ..., or none) n times, then tail; the caller
 * frees it. */
static char *repeat_text(const char *head, const char *line, unsigned n,
			 const char *tail)
{
	size_t cap = strlen(head) + strlen(tail) + (size_t)n * (strlen(line) + 10) + 1;
	char *buf = malloc(cap);
	size_t used;

	assert_non_null(buf);
	used = (size_t)snprintf(buf, cap, "%s", head);
	for (unsigned i = 0; i < n; i++)
		used += (size_t)snprintf(buf + used, cap - used, line, i);
	snprintf(buf + used, cap - used, "%s", tail);
	return buf;
}

/* Seconds on the monotonic clock. */
static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Loads text, expecting st and want, within 10 s however slow the build
 * (a sanitizer's included): libconfig's time grows with the square of a
 * group's members and of a token's length, so these took minutes before
 * the text was bounded ahead of it; refused now after reading at most
 * 1024 settings, and a file that is only big (comments) loads. */
static void assert_fast(char *text, ct_status st, const char *want)
{
	struct ct_settings s;
	struct ct_error e;
	const char *p;
	double t0 = now_s();
	ct_status got = load_text(text, &p, &s, &e);

	if (got != st)
		fail_msg("status %d, not %d: %s", (int)got, (int)st, e.msg);
	if (want)
		assert_msg_has(e, want);
	if (now_s() - t0 > 10)
		fail_msg("%.1f s to load %zu bytes (%s)", now_s() - t0,
			 strlen(text), want ? want : "accepted");
	free(text);
}

static void test_big_files_refused_fast(void **state)
{
	/* 200,000 keys in one open map, at the top, in one array */
	assert_fast(repeat_text("frontier = {\n types = {\n", "  t%u = 1.0;\n",
				200000, " };\n};\n"),
		    CT_EFULL, ":1025: frontier.types.t1022: more than 1024 settings and array elements in this configuration");
	assert_fast(repeat_text("", "k%u = 1;\n", 200000, ""), CT_EFULL,
		    ":1025: k1024: more than 1024 settings");
	assert_fast(repeat_text("x = [\n", "%u,\n", 200000, "0];\n"), CT_EFULL,
		    ":1025: x: more than 1024 settings");
	/* 200,000 comment lines: read, and fast */
	assert_fast(repeat_text("", "# comment %u\n", 200000,
				"frontier = { queue = { burst = 6; }; };\n"),
		    CT_OK, NULL);
	/* one long token: a 4 MB string, a 4 MB comment line */
	assert_fast(repeat_text("classes = { p0 = \"", "x\n", 2000000,
				"\"; };\n"),
		    CT_ERANGE, ":1: classes.p0: a string longer than 8192 bytes");
	assert_fast(repeat_text("classes = { p0 = 90.0; }; #", "xx",
				2000000, "\n"),
		    CT_ERANGE, ":1: a line longer than 8192 bytes");
}

/* A file that includes the next one 8 times, 7 deep: libconfig would read
 * 8^7 files; refused at the 33rd @include. */
static void test_include_fan_out_bounded(void **state)
{
	char name[16];
	double t0;

	for (int i = 0; i < 8; i++) {
		char *text;

		snprintf(name, sizeof(name), "f%d.conf", i);
		text = i == 7 ? strdup("# leaf\n")
			      : repeat_text("", "@include \"fX.conf\" #%u\n", 8, "");
		assert_non_null(text);
		for (char *x = text; (x = strstr(x, "fX")) != NULL; x++)
			x[1] = (char)('0' + i + 1);
		tmp_write(name, text);
		free(text);
	}
	t0 = now_s();
	{
		struct ct_settings s;
		struct ct_error e;
		char path[CT_CONFIG_PATH_LEN];

		snprintf(path, sizeof(path), "%s/f0.conf", tmp.dir);
		memset(&e, 0, sizeof(e));
		assert_int_equal(ct_config_load_file(path, &s, &e), CT_EFULL);
		assert_msg_has(e, "f5.conf:4: @include \"f6.conf\": more than 32 @include lines followed in one configuration");
	}
	if (now_s() - t0 > 10)
		fail_msg("%.1f s to refuse 8^7 includes", now_s() - t0);
}

/* A file someone else could change is refused, the main file and an
 * @include alike, naming the file, why and the remedy: writable by others,
 * by a group that is not the owner's private one, or owned by another
 * user (those two need root to set up). Mode 0644 passes, and root's
 * files pass for anyone. */
static void test_untrusted_file_refused(void **state)
{
	struct ct_settings s;
	struct ct_error e;
	const char *p, *part;
	char want[2 * CT_CONFIG_PATH_LEN + 64];

	assert_int_equal(load_text("classes = { p2 = 30.0; };\n", &p, &s, &e),
			 CT_OK);
	assert_int_equal(chmod(p, 0666), 0);
	memset(&e, 0, sizeof(e));
	assert_int_equal(ct_config_load_file(p, &s, &e), CT_EINVAL);
	snprintf(want, sizeof(want), "%s is writable by others (mode 0666): refusing it, as anyone could change what crawltop does; chmod go-w %s", p, p);
	assert_msg_has(e, want);
	assert_int_equal(chmod(p, 0644), 0);

	part = tmp_write("part.conf", "classes = { p2 = 30.0; };\n");
	assert_int_equal(chmod(part, 0602), 0);
	assert_int_equal(load_text("@include \"part.conf\"\n", &p, &s, &e),
			 CT_EINVAL);
	snprintf(want, sizeof(want), "%s/part.conf is writable by others (mode 0602)", tmp.dir);
	assert_msg_has(e, want);
	assert_int_equal(chmod(part, 0644), 0);
	assert_int_equal(load_text("@include \"part.conf\"\n", &p, &s, &e),
			 CT_OK);
	assert_true(s.classes.p2 == 30.0);

	/* at libconfig's deepest level too, the tenth @include below the
	 * main file (the check stopped at the ninth) */
	char name[32], text[64];
	for (int i = 1; i <= 9; i++) {
		snprintf(name, sizeof(name), "deep%d.conf", i);
		snprintf(text, sizeof(text), "@include \"deep%d.conf\"\n", i + 1);
		tmp_write(name, text);
	}
	const char *deep = tmp_write("deep10.conf", "classes = { p2 = 30.0; };\n");
	assert_int_equal(chmod(deep, 0666), 0);
	assert_int_equal(load_text("@include \"deep1.conf\"\n", &p, &s, &e),
			 CT_EINVAL);
	snprintf(want, sizeof(want), "%s/deep10.conf is writable by others (mode 0666)", tmp.dir);
	assert_msg_has(e, want);
	assert_int_equal(chmod(deep, 0644), 0);
	assert_int_equal(load_text("@include \"deep1.conf\"\n", &p, &s, &e),
			 CT_OK);

	if (geteuid() != 0)
		return;
	/* root's private group "root" may write; nogroup may not */
	assert_int_equal(chmod(part, 0664), 0);
	assert_int_equal(chown(part, 0, 0), 0);
	assert_int_equal(load_text("@include \"part.conf\"\n", &p, &s, &e),
			 CT_OK);
	assert_int_equal(chown(part, 0, 65534), 0);
	assert_int_equal(load_text("@include \"part.conf\"\n", &p, &s, &e),
			 CT_EINVAL);
	snprintf(want, sizeof(want), "%s/part.conf is writable by its group (gid 65534, mode 0664): refusing it, as the group's members could change what crawltop does; chmod g-w %s/part.conf", tmp.dir, tmp.dir);
	assert_msg_has(e, want);
	assert_int_equal(chmod(part, 0644), 0);
	assert_int_equal(chown(part, 65534, 65534), 0);
	assert_int_equal(load_text("@include \"part.conf\"\n", &p, &s, &e),
			 CT_EINVAL);
	snprintf(want, sizeof(want), "%s/part.conf is owned by uid 65534, neither you (uid 0) nor root: refusing it, as its owner could change what crawltop does", tmp.dir);
	assert_msg_has(e, want);
}

static void test_include_cannot_open(void **state)
{
	struct ct_settings s, before;
	struct ct_error e;
	const char *p;
	char want[2 * CT_CONFIG_PATH_LEN + 128];

	ct_settings_default(&before);
	s = before;
	assert_int_equal(load_text("# m\n@include \"absent.conf\"\n", &p, &s, &e),
			 CT_ENOENT);
	snprintf(want, sizeof(want), "%s cannot open include file \"absent.conf\" (%s/absent.conf): No such file or directory",
		 at(p, 2), tmp.dir);
	assert_msg_has(e, want);
	tmp_mkdir("sub");
	assert_int_equal(load_text("@include \"sub\"\n", &p, &s, &e), CT_EIO);
	snprintf(want, sizeof(want), "%s cannot open include file \"sub\" (%s/sub): is a directory",
		 at(p, 1), tmp.dir);
	assert_msg_has(e, want);
	/* an absolute name is refused: libconfig 1.5 reads it under the
	 * including file's directory (1.7 as it is), and the rest of the
	 * reader would take it as it is */
	{
		char abs[CT_CONFIG_PATH_LEN + 16], text[2 * CT_CONFIG_PATH_LEN];
		snprintf(abs, sizeof(abs), "%s/abs.conf", tmp.dir);
		tmp_write("abs.conf", "classes = { p0 = 90.0; };\n");
		snprintf(text, sizeof(text), "@include \"%s\"\n", abs);
		assert_int_equal(load_text(text, &p, &s, &e), CT_EINVAL);
		snprintf(want, sizeof(want), "%s @include \"%s\": an absolute name is not supported",
			 at(p, 1), abs);
		assert_msg_has(e, want);
		assert_msg_has(e, "write it relative to");
	}
	/* from an included file: that file and its line */
	tmp_write("part.conf", "\n\n@include \"sub\"\n");
	assert_int_equal(load_text("@include \"part.conf\"\n", &p, &s, &e), CT_EIO);
	snprintf(want, sizeof(want), "%s/part.conf:3: cannot open include file \"sub\"", tmp.dir);
	assert_msg_has(e, want);
	/* in comments and strings it is no directive */
	assert_int_equal(load_text("/* @include \"sub\" */\n# @include \"sub\"\n"
				   "frontier = { aliases = { x = \"\n@include \\\"sub\\\"\"; }; };\n",
				   &p, &s, &e), CT_EINVAL);
	assert_msg_has(e, "frontier.aliases.x = ");
	/* unreadable (not for root, who reads anything) */
	if (geteuid() != 0) {
		const char *u = tmp_write("locked.conf", "");

		assert_int_equal(chmod(u, 0), 0);
		assert_int_equal(load_text("@include \"locked.conf\"\n", &p, &s, &e),
				 CT_EIO);
		assert_msg_has(e, "locked.conf): Permission denied");
	}
	/* a file that includes itself: libconfig's own limit */
	assert_int_equal(load_text("@include \"test.conf\"\n", &p, &s, &e), CT_EINVAL);
	assert_msg_has(e, "include file nesting too deep");
	assert_settings_equal(&s, &before);
}

/* A UTF-8 byte-order mark is named, in the main file or an included one. */
static void test_byte_order_mark(void **state)
{
	struct ct_settings s;
	struct ct_error e;
	const char *p;
	char want[CT_CONFIG_PATH_LEN + 64];

	assert_int_equal(load_text("\xef\xbb\xbf" "classes = { p0 = 81.0; };\n", &p, &s, &e),
			 CT_EINVAL);
	assert_msg_has(e, at(p, 1));
	assert_msg_has(e, "starts with a UTF-8 byte-order mark (bytes EF BB BF)");
	tmp_write("bom.conf", "\xef\xbb\xbf# part\n");
	assert_int_equal(load_text("@include \"bom.conf\"\n", &p, &s, &e), CT_EINVAL);
	snprintf(want, sizeof(want), "%s/bom.conf:1: the file starts with a UTF-8 byte-order mark", tmp.dir);
	assert_msg_has(e, want);
}

/* An error in an included file names that file and its line. */
static void test_include_error_names_included_file(void **state)
{
	struct ct_settings s;
	struct ct_error e;
	const char *p;
	char want[CT_CONFIG_PATH_LEN + 16];

	tmp_write("part.conf", "\n\nclasses = { p0 = 200.0; };\n");
	assert_int_equal(load_text("@include \"part.conf\"\n", &p, &s, &e),
			 CT_ERANGE);
	snprintf(want, sizeof(want), "%s/part.conf:3: classes.p0 = 200.0: must be >= 0 and <= 100",
		 tmp.dir);
	assert_msg_has(e, want);
}

/* ---- syntax, missing files, types, unknown keys -------------------- */

static void test_syntax_error(void **state)
{
	struct ct_settings s;
	struct ct_error e;
	const char *p;

	assert_int_equal(load_text("classes = {\n  p0 = 80.0;\n  p1 = ;\n};\n",
				   &p, &s, &e), CT_EINVAL);
	assert_msg_has(e, at(p, 3));
	/* libconfig says only "syntax error": the line and the grammar too */
	assert_msg_has(e, "syntax error in \"p1 = ;\" (a setting is name = value;");
	assert_int_equal(load_text("classes = { p0 = nan; };\n", &p, &s, &e),
			 CT_EINVAL);
	assert_msg_has(e, "syntax error in \"classes = { p0 = nan; };\"");
	assert_msg_has(e, "nan and inf are not numbers");
	/* libconfig's duplicate check, with its line and the key */
	assert_refused("classes = {\n  p0 = 80.0;\n  p0 = 81.0;\n};\n", CT_EINVAL,
		       3, "duplicate setting name classes.p0 (set already on line 2)");
	assert_refused("classes = { p0 = 80.0; p0 = 81.0; };\n", CT_EINVAL, 1,
		       "duplicate setting name classes.p0 (set already on line 1)");
	assert_refused("classes = { p0 = 80.0; };\n# x = 1;\n"
		       "frontier = { types = { x = 1; }; };\nclasses = { p1 = 1.0; };\n",
		       CT_EINVAL, 4,
		       "duplicate setting name classes (set already on line 1)");
	/* groups need '=' or ':' in libconfig */
	assert_int_equal(load_text("classes { p0 = 80.0; };\n", &p, &s, &e),
			 CT_EINVAL);
	assert_msg_has(e, at(p, 1));
}

static void test_missing_explicit_file(void **state)
{
	struct ct_settings s, before;
	struct ct_error e = { { 0 } };
	char used[CT_CONFIG_PATH_LEN] = "unchanged";
	char missing[CT_CONFIG_PATH_LEN];

	ct_settings_default(&before);
	s = before;
	snprintf(missing, sizeof(missing), "%s/nope.conf", tmp.dir);
	assert_int_equal(ct_config_load(missing, &s, used, sizeof(used), &e),
			 CT_ENOENT);
	assert_msg_has(e, missing);
	assert_msg_has(e, "--config");
	assert_msg_has(e, "No such file");
	assert_string_equal(used, "unchanged");
	/* named by CRAWLTOP_CONFIG: the same */
	setenv("CRAWLTOP_CONFIG", missing, 1);
	assert_int_equal(ct_config_load(NULL, &s, used, sizeof(used), &e),
			 CT_ENOENT);
	assert_msg_has(e, missing);
	assert_msg_has(e, "CRAWLTOP_CONFIG");
	/* ct_config_load_file on a missing file */
	assert_int_equal(ct_config_load_file(missing, &s, &e), CT_ENOENT);
	assert_msg_has(e, missing);
	/* empty names */
	assert_int_equal(ct_config_load("", &s, used, sizeof(used), &e),
			 CT_EINVAL);
	assert_msg_has(e, "empty");
	setenv("CRAWLTOP_CONFIG", "", 1);
	assert_int_equal(ct_config_load(NULL, &s, used, sizeof(used), &e),
			 CT_EINVAL);
	assert_msg_has(e, "CRAWLTOP_CONFIG");
	/* a directory is not a file */
	assert_int_equal(ct_config_load(tmp.dir, &s, used, sizeof(used), &e),
			 CT_EIO);
	assert_msg_has(e, "directory");
	assert_settings_equal(&s, &before);
}

/* Wrong types: number, whole number, bool, group, array, string. */
static void test_wrong_type(void **state)
{
	static const struct {
		const char *text;
		int line;
		const char *want;
	} cases[] = {
		{ "frontier = {\n weights = {\n  base = \"abc\";\n };\n};\n", 3,
		  "frontier.weights.base = \"abc\": must be a number, not a string" },
		{ "classes = { p0 = true; };\n", 1,
		  "classes.p0 = true: must be a number, not a boolean" },
		{ "frontier = { queue = {\n burst = 2.5; }; };\n", 2,
		  "frontier.queue.burst = 2.5: must be a whole number" },
		{ "tier = { default_priority = \"5\"; };\n", 1,
		  "tier.default_priority = \"5\": must be a whole number, not a string" },
		{ "frontier = { features = { cost_aware_priority = 1; }; };\n", 1,
		  "frontier.features.cost_aware_priority = 1: must be true or false, not a number" },
		{ "frontier = 1;\n", 1,
		  "frontier = 1: must be a group frontier = { ... }, not a number" },
		{ "frontier = { types = 3.0; };\n", 1,
		  "frontier.types = 3.0: must be a group types = { ... }, not a number" },
		{ "frontier = { weights = { base = { x = 1; }; }; };\n", 1,
		  "frontier.weights.base = { ... }: must be a number, not a group" },
		{ "frontier = { total_prioritisation = {\n country_tokens = \"de\"; }; };\n", 2,
		  "frontier.total_prioritisation.country_tokens = \"de\": must be an array of strings" },
		{ "frontier = { total_prioritisation = { country_tokens = [1, 2]; }; };\n", 1,
		  "frontier.total_prioritisation.country_tokens[0] = 1: must be a string, not a number" },
		{ "frontier = { aliases = { feed = 3; }; };\n", 1,
		  "frontier.aliases.feed = 3: must be a string naming a method, not a number" },
		{ "frontier = { types = { nav = \"ten\"; }; };\n", 1,
		  "frontier.types.nav = \"ten\": must be a number, not a string" },
		{ "classes = { p0 = (1, 2); };\n", 1,
		  "classes.p0 = ( ... ): must be a number, not a list" },
		/* a decimal is shown as one, even when whole */
		{ "tier = { default_priority = 5.0; };\n", 1,
		  "tier.default_priority = 5.0: must be a whole number (no decimal point)" },
		{ "frontier = { queue = { burst = -3e2; }; };\n", 1,
		  "frontier.queue.burst = -300.0: must be a whole number" },
		/* bytes that are not UTF-8, and control characters, escaped */
		{ "frontier = { types = { nav = \"\xc3\xa9t\xe9\\n\\\"\"; }; };\n", 1,
		  "frontier.types.nav = \"\xc3\xa9t\\xe9\\n\\\"\": must be a number, not a string" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ct_settings s;
		struct ct_error e;
		const char *p;

		assert_int_equal(load_text(cases[i].text, &p, &s, &e), CT_EINVAL);
		assert_msg_has(e, at(p, cases[i].line));
		assert_msg_has(e, cases[i].want);
	}
}

static void test_unknown_key(void **state)
{
	struct ct_settings s;
	struct ct_error e;
	const char *p;

	assert_int_equal(load_text("frontier = {\n  weigths = { base = 1.0; };\n};\n",
				   &p, &s, &e), CT_EINVAL);
	assert_msg_has(e, at(p, 2));
	assert_msg_has(e, "unknown key frontier.weigths");
	assert_msg_has(e, "did you mean frontier.weights?");
	assert_int_equal(load_text("classes = { p9 = 1.0; };\n", &p, &s, &e),
			 CT_EINVAL);
	assert_msg_has(e, at(p, 1));
	assert_msg_has(e, "unknown key classes.p9");
	assert_int_equal(load_text("\n\nbogus_thing_here = 1;\n", &p, &s, &e),
			 CT_EINVAL);
	assert_msg_has(e, at(p, 3));
	assert_msg_has(e, "unknown key bogus_thing_here");
	assert_int_equal(load_text("frontier = { queue = { max_sacn = 3; }; };\n",
				   &p, &s, &e), CT_EINVAL);
	assert_msg_has(e, "unknown key frontier.queue.max_sacn (did you mean frontier.queue.max_scan?)");
	/* a key written outside its group: the one key of that name */
	assert_int_equal(load_text("p0 = 90.0;\n", &p, &s, &e), CT_EINVAL);
	assert_msg_has(e, "unknown key p0 (did you mean classes.p0?)");
	/* a name several groups have: no guess */
	assert_int_equal(load_text("base = 1.0;\n", &p, &s, &e), CT_EINVAL);
	assert_msg_has(e, "unknown key base");
	assert_null(strstr(e.msg, "did you mean"));
	/* the fixture with the same typo */
	memset(&e, 0, sizeof(e));
	assert_int_equal(ct_config_load_file(FIXTURE("typo.conf"), &s, &e),
			 CT_EINVAL);
	assert_msg_has(e, "config/typo.conf:3: unknown key frontier.weigths");
}

/* Each range rule, with file, line, key, value and rule. */
static void test_out_of_range(void **state)
{
	static const struct {
		const char *text;
		const char *want;
	} cases[] = {
		{ "frontier = { weights = { base = -1; }; };",
		  "frontier.weights.base = -1: must be >= 0 and finite" },
		{ "frontier = { weights = { gap-score = -0.5; }; };",
		  "frontier.weights.gap-score = -0.5: must be >= 0" },
		{ "classes = { p0 = 101.0; };",
		  "classes.p0 = 101.0: must be >= 0 and <= 100" },
		{ "classes = { p2 = -1.0; };",
		  "classes.p2 = -1.0: must be >= 0 and <= 100" },
		{ "hierarchy = { decay = 1.0; };",
		  "hierarchy.decay = 1.0: must be > 0 and < 1" },
		{ "hierarchy = { floor = 0.0; };",
		  "hierarchy.floor = 0.0: must be > 0 and <= 1" },
		{ "tier = { default_priority = 0; };",
		  "tier.default_priority = 0: must be >= 1 and <= 10" },
		{ "tier = { default_priority = 11; };",
		  "tier.default_priority = 11: must be >= 1 and <= 10" },
		{ "frontier = { types = { article = -1.0; }; };",
		  "frontier.types.article = -1.0: must be >= 0 and finite" },
		{ "frontier = { types = { default = -2.0; }; };",
		  "frontier.types.default = -2.0: must be >= 0 and finite" },
		{ "frontier = { bonuses = { link = -1.0; }; };",
		  "frontier.bonuses.link = -1.0: must be >= 0 and finite" },
		{ "frontier = { clustering = { problem_threshold = 0; }; };",
		  "frontier.clustering.problem_threshold = 0: must be >= 1" },
		{ "frontier = { cost = { factor = 1.0; }; };",
		  "frontier.cost.factor = 1.0: must be >= 0 and < 1" },
		{ "frontier = { queue = { max_queue = 0; }; };",
		  "frontier.queue.max_queue = 0: must be >= 1" },
		{ "frontier = { queue = { max_depth = -1; }; };",
		  "frontier.queue.max_depth = -1: must be >= 0" },
		{ "frontier = { queue = { burst = 0; }; };",
		  "frontier.queue.burst = 0: must be >= 1" },
		{ "frontier = { queue = { max_scan = 0; }; };",
		  "frontier.queue.max_scan = 0: must be >= 1" },
		{ "frontier = { total_prioritisation = { other = 1e999; }; };",
		  "frontier.total_prioritisation.other = inf: must be finite" },
		{ "discovery = { weights = { unseen_likelihood = -0.1; }; };",
		  "discovery.weights.unseen_likelihood = -0.1: must be >= 0 and <= 1" },
		{ "discovery = { weights = { topic_boost = 1e999; }; };",
		  "discovery.weights.topic_boost = inf: must be >= 0 and <= 1" },
		{ "discovery = { backoff = { start_hours = 0.0; }; };",
		  "discovery.backoff.start_hours = 0.0: must be > 0 and <= 87600" },
		{ "discovery = { backoff = { multiplier = 0.5; }; };",
		  "discovery.backoff.multiplier = 0.5: must be >= 1 and <= 1000" },
		{ "discovery = { backoff = { multiplier = 1000.5; }; };",
		  "discovery.backoff.multiplier = 1000.5: must be >= 1 and <= 1000" },
		{ "discovery = { backoff = { max_hours = 87601.0; }; };",
		  "discovery.backoff.max_hours = 87601.0: must be > 0 and <= 87600" },
		{ "discovery = { backoff = { start_hours = 1e300; }; };",
		  "discovery.backoff.start_hours = 1e+300: must be > 0 and <= 87600" },
		{ "freshness = { base = 101.0; };",
		  "freshness.base = 101.0: must be >= 0 and <= 100" },
		{ "freshness = { recent = -101.0; };",
		  "freshness.recent = -101.0: must be >= -100 and <= 100" },
		{ "freshness = { topic_high = 1.5; };",
		  "freshness.topic_high = 1.5: must be >= 0 and <= 1" },
		{ "freshness = { deep_depth = -1; };",
		  "freshness.deep_depth = -1: must be >= 0" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ct_settings s;
		struct ct_error e;
		const char *p;
		char text[256];

		/* the value on line 2 */
		snprintf(text, sizeof(text), "# case %zu\n%s\n", i, cases[i].text);
		assert_int_equal(load_text(text, &p, &s, &e), CT_ERANGE);
		assert_msg_has(e, at(p, 2));
		assert_msg_has(e, cases[i].want);
	}
}

/* libconfig 1.5 would wrap these; they are refused instead. */
/* A float literal a double cannot hold is refused with its file, line
 * and key: 1e-400 read as 0 (here a class bound of 0, or a type weight of
 * 0 without a word), 1e-310 as a subnormal; 0 written small and the
 * smallest normal double are numbers. */
static void test_float_underflow_refused(void **state)
{
	struct ct_settings s;
	struct ct_error e;
	const char *p;
	char want[CT_CONFIG_PATH_LEN + 128];

	assert_refused("classes = {\n p2 = 1e-400;\n};\n", CT_ERANGE, 2,
		       "classes.p2 = 1e-400: too small for a double: it would read as 0 (a number other than 0 must be at least 2.2250738585072014e-308 in magnitude: write 0 or a larger number)");
	assert_refused("frontier = { types = { hub = -1.5e-400; }; };\n",
		       CT_ERANGE, 1,
		       "frontier.types.hub = -1.5e-400: too small for a double: it would read as -0");
	assert_refused("classes = { p2 = 1e-310; };\n", CT_ERANGE, 1,
		       "classes.p2 = 1e-310: too small for a double: it would read as 1e-310");
	tmp_write("small.conf", "\nfreshness = { hub = 2E-999; };\n");
	assert_int_equal(load_text("@include \"small.conf\"\n", &p, &s, &e),
			 CT_ERANGE);
	snprintf(want, sizeof(want), "%s/small.conf:2: freshness.hub = 2E-999: too small for a double", tmp.dir);
	assert_msg_has(e, want);
	assert_int_equal(load_text("classes = { p2 = 0.0e-400; };\n"
				   "freshness = { topic_high = 2.2250738585072014e-308; };\n",
				   &p, &s, &e), CT_OK);
	assert_true(s.classes.p2 == 0);
	assert_true(s.freshness.topic_high == 2.2250738585072014e-308);
}

/* libconfig reads ".", "-." and ".e5" as the float 0, and any literal
 * however long: a point with no digit is refused, a long literal that
 * rounds to 0 too, an overflow shows as inf (not "inf.0"), and a name too
 * long is named. */
static void test_literal_edges_refused(void **state)
{
	struct ct_settings s;
	struct ct_error e;
	const char *p;
	char text[512];

	assert_refused("freshness = { recent = .; };\n", CT_EINVAL, 1,
		       "freshness.recent = .: not a number: it has no digit (libconfig would read it as 0)");
	assert_refused("\nfrontier = { types = { hub = -.; }; };\n", CT_EINVAL, 2,
		       "frontier.types.hub = -.: not a number: it has no digit");
	assert_refused("classes = { p2 = .e5; };\n", CT_EINVAL, 1,
		       "classes.p2 = .e5: not a number");
	assert_int_equal(load_text("classes = { p2 = .5e1; };\n", &p, &s, &e),
			 CT_OK);
	assert_true(s.classes.p2 == 5);
	int n = snprintf(text, sizeof(text), "freshness = { deep = 0.");
	for (int i = 0; i < 330; i++)
		text[n++] = '0';
	snprintf(text + n, sizeof(text) - (size_t)n, "1; };\n");
	assert_refused(text, CT_ERANGE, 1, "too small for a double: it would read as 0");
	assert_refused("classes = { p0 = 1e400; };\n", CT_ERANGE, 1,
		       "classes.p0 = inf: must be");
	/* a value alone in a file @included in the middle of a setting:
	 * libconfig reads 0x100000005 as 5 there too */
	tmp_write("v.conf", "0x100000005\n");
	assert_int_equal(load_text("tier = { default_priority =\n@include \"v.conf\"\n; };\n",
				   &p, &s, &e), CT_ERANGE);
	char want[CT_CONFIG_PATH_LEN + 64];
	snprintf(want, sizeof(want), "%s/v.conf:1: a value = 0x100000005: above 0x7fffffff", tmp.dir);
	assert_msg_has(e, want);
	tmp_write("v.conf", "4\n");
	assert_int_equal(load_text("tier = { default_priority =\n@include \"v.conf\"\n; };\n",
				   &p, &s, &e), CT_OK);
	n = snprintf(text, sizeof(text), "freshness = { ");
	for (int i = 0; i < 130; i++)
		text[n++] = 'k';
	snprintf(text + n, sizeof(text) - (size_t)n, " = 1; };\n");
	assert_refused(text, CT_ERANGE, 1, "key freshness.kkkkkkkkkk");
}

static void test_integer_wrap_refused(void **state)
{
	static const struct {
		const char *text;
		int line;
		const char *want;
	} wrap[] = {
		/* leading zeros are decimal to libconfig, not octal */
		{ "tier = { default_priority = 04294967297; };\n", 1,
		  "tier.default_priority = 04294967297: does not fit in 32 bits (libconfig would read it as 1)" },
		{ "\nclasses = { p0 = 08589934672; };\n", 2,
		  "classes.p0 = 08589934672: does not fit in 32 bits (libconfig would read it as 80)" },
		{ "freshness = { recent = -04294967286; };\n", 1,
		  "freshness.recent = -04294967286: does not fit in 32 bits (libconfig would read it as 10)" },
		{ "freshness = { recent = -2147483649; };\n", 1,
		  "(libconfig would read it as 2147483647)" },
		{ "frontier = { queue = { max_queue = 0x80000000; }; };\n", 1,
		  "max_queue = 0x80000000: above 0x7fffffff, does not fit in a signed 32-bit integer (libconfig would read it as -2147483648): write it with an L suffix" },
		/* the L suffix is checked against 64 bits: no clamp, no wrap */
		{ "frontier = { total_prioritisation = {\n country = 0x1ffffffffffffffffL; }; };\n", 2,
		  "frontier.total_prioritisation.country = 0x1ffffffffffffffffL: above 0x7fffffffffffffff, does not fit in a signed 64-bit integer (libconfig would read it as -1)" },
		{ "frontier = { total_prioritisation = { country = 0x8000000000000000L; }; };\n", 1,
		  "libconfig would read it as -9223372036854775808" },
		{ "frontier = { total_prioritisation = { other = 99999999999999999999999L; }; };\n", 1,
		  "frontier.total_prioritisation.other = 99999999999999999999999L: does not fit in 64 bits (libconfig would read it as 9223372036854775807): write it as a float" },
		{ "frontier = { total_prioritisation = { other = -9223372036854775809LL; }; };\n", 1,
		  "-9223372036854775809LL: does not fit in 64 bits" },
	};
	struct ct_settings s;
	struct ct_error e;
	const char *p;

	assert_int_equal(load_text("# big\nfrontier = { queue = {\n max_queue = 99999999999; }; };\n",
				   &p, &s, &e), CT_ERANGE);
	assert_msg_has(e, at(p, 3));
	assert_msg_has(e, "frontier.queue.max_queue = 99999999999: does not fit in 32 bits (libconfig would read it as 1215752191): write it with an L suffix or as a float");
	assert_int_equal(load_text("frontier = { total_prioritisation = { other = 2147483648; }; };\n",
				   &p, &s, &e), CT_ERANGE);
	assert_msg_has(e, "2147483648");
	assert_int_equal(load_text("frontier = { queue = { max_queue = 0xffffffff; }; };\n",
				   &p, &s, &e), CT_ERANGE);
	assert_msg_has(e, "0xffffffff");
	for (size_t i = 0; i < sizeof(wrap) / sizeof(wrap[0]); i++) {
		assert_int_equal(load_text(wrap[i].text, &p, &s, &e), CT_ERANGE);
		assert_msg_has(e, at(p, wrap[i].line));
		assert_msg_has(e, wrap[i].want);
	}
	/* ... and what fits in 64 bits loads, as do long runs of zeros */
	assert_int_equal(load_text("frontier = { queue = { max_queue = 0x7fffffffL; max_depth = 0000000000000000000000000000000000000000000000000000000000000000000000000000012; };\n"
				   "  total_prioritisation = { country = -9223372036854775808L;\n"
				   "    other = 0x7fffffffffffffffL; country_related = 99999999999L; }; };\n",
				   &p, &s, &e), CT_OK);
	assert_int_equal(s.frontier.max_queue, 2147483647);
	assert_int_equal(s.frontier.max_depth, 12);
	assert_true(s.frontier.offset_country == -9223372036854775808.0);
	assert_true(s.frontier.offset_other == 9223372036854775807.0);
	assert_true(s.frontier.offset_related == 99999999999.0);
	/* the edges, comments, strings, floats and names are fine */
	assert_int_equal(load_text("# 99999999999\n/* 99999999999 */\n"
				   "frontier = { queue = { max_queue = 2147483647; };\n"
				   "  total_prioritisation = { country = -2147483648;\n"
				   "    other = 99999999999.0; related_tokens = [\"x99999999999\"]; }; };\n",
				   &p, &s, &e), CT_OK);
	assert_int_equal(s.frontier.max_queue, 2147483647);
	assert_true(s.frontier.offset_other == 99999999999.0);
}

/* ---- rules between keys -------------------------------------------- */

static void test_bounds_strictly_decreasing(void **state)
{
	struct ct_settings s;
	struct ct_error e;
	const char *p;
	char want[CT_CONFIG_PATH_LEN + 64];

	assert_int_equal(load_text("classes = {\n  p1 = 80.0;\n};\n", &p, &s, &e),
			 CT_EINVAL);
	snprintf(want, sizeof(want),
		 "classes.p0 = 80 (default) must be > classes.p1 = 80 (%s:2)", p);
	assert_msg_has(e, want);
	assert_msg_has(e, "strictly decreasing");
	assert_int_equal(load_text("classes = {\n  p2 = 70.0;\n};\n", &p, &s, &e),
			 CT_EINVAL);
	snprintf(want, sizeof(want),
		 "classes.p1 = 60 (default) must be > classes.p2 = 70 (%s:2)", p);
	assert_msg_has(e, want);
	/* from the environment */
	setenv("PROFILE_SCORE", "50", 1);
	assert_int_equal(ct_config_load_file(NULL, &s, &e), CT_EINVAL);
	assert_msg_has(e, "classes.p0 = 50 (environment PROFILE_SCORE) must be > classes.p1 = 60 (default)");
	unsetenv("PROFILE_SCORE");
	setenv("MIN_PUBLISH_SCORE", "40", 1);
	assert_int_equal(ct_config_load_file(NULL, &s, &e), CT_EINVAL);
	assert_msg_has(e, "classes.p1 = 40 (environment MIN_PUBLISH_SCORE) must be > classes.p2 = 40 (default)");
}

static void test_other_order_rules(void **state)
{
	struct ct_settings s;
	struct ct_error e;
	const char *p;
	char want[CT_CONFIG_PATH_LEN + 64];

	assert_int_equal(load_text("hierarchy = {\n floor = 0.6;\n};\n", &p, &s, &e),
			 CT_EINVAL);
	snprintf(want, sizeof(want),
		 "hierarchy.sitemap = 0.5 (default) must be >= hierarchy.floor = 0.6 (%s:2)", p);
	assert_msg_has(e, want);
	assert_int_equal(load_text("hierarchy = { sitemap = 0.9; root = 0.8; };\n",
				   &p, &s, &e), CT_EINVAL);
	assert_msg_has(e, "hierarchy.root = 0.8");
	assert_msg_has(e, "floor <= sitemap <= root");
	assert_int_equal(load_text("frontier = { cost = {\n fast_ms = 600.0; }; };\n",
				   &p, &s, &e), CT_EINVAL);
	snprintf(want, sizeof(want),
		 "frontier.cost.slow_ms = 500 (default) must be >= frontier.cost.fast_ms = 600 (%s:2)", p);
	assert_msg_has(e, want);
	setenv("BACKOFF_MAX_HOURS", "3", 1);
	assert_int_equal(ct_config_load_file(NULL, &s, &e), CT_EINVAL);
	assert_msg_has(e, "discovery.backoff.max_hours = 3 (environment BACKOFF_MAX_HOURS) must be >= discovery.backoff.start_hours = 6 (default)");
}

static void test_alias_and_tokens(void **state)
{
	struct ct_settings s;
	struct ct_error e;
	const char *p;
	char text[2048], want[CT_CONFIG_PATH_LEN + 64];
	size_t n;

	assert_int_equal(load_text("frontier = { aliases = {\n  feed = \"nope\"; }; };\n",
				   &p, &s, &e), CT_EINVAL);
	assert_msg_has(e, at(p, 2));
	assert_msg_has(e, "frontier.aliases.feed = \"nope\": no method \"nope\" in frontier.bonuses");
	/* a target that is not UTF-8 is escaped in the message, and refused
	 * for its characters: a method's name is a task's discovery method */
	assert_refused("frontier = { aliases = { feed = \"a\xff\"; }; };\n",
		       CT_EINVAL, 1,
		       "frontier.aliases.feed = \"a\\xff\": holds only A-Z, a-z, 0-9, _ and -");
	/* so is one with a terminal escape, which the message does not pass on */
	assert_int_equal(load_text("frontier = { aliases = { feed = \"x\\x1b]0;t\\x07\"; }; };\n",
				   &p, &s, &e), CT_EINVAL);
	assert_msg_has(e, "holds only A-Z, a-z, 0-9, _ and -");
	assert_null(strchr(e.msg, 0x1b));
	assert_null(strchr(e.msg, 0x07));
	assert_int_equal(load_text("frontier = { aliases = { feed = \"\"; }; };\n",
				   &p, &s, &e), CT_EINVAL);
	assert_msg_has(e, "frontier.aliases.feed = \"\": must not be empty");
	/* tokens */
	assert_int_equal(load_text("frontier = { total_prioritisation = {\n"
				   "  enabled = true;\n  country_tokens = [\"de\", \"Germany\"]; }; };\n",
				   &p, &s, &e), CT_EINVAL);
	assert_msg_has(e, at(p, 3));
	assert_msg_has(e, "country_tokens[1] = \"Germany\": must hold only a-z and 0-9");
	assert_int_equal(load_text("frontier = { total_prioritisation = { related_tokens = [\"\"]; }; };\n",
				   &p, &s, &e), CT_EINVAL);
	assert_msg_has(e, "related_tokens[0] = \"\": must not be empty");
	assert_int_equal(load_text("frontier = { total_prioritisation = {\n  enabled = true; }; };\n",
				   &p, &s, &e), CT_EINVAL);
	snprintf(want, sizeof(want),
		 "frontier.total_prioritisation.enabled = true (%s:2)", p);
	assert_msg_has(e, want);
	assert_msg_has(e, "country_tokens = [] (default): total prioritisation needs at least one country token");
	n = (size_t)snprintf(text, sizeof(text),
			     "frontier = { total_prioritisation = { country_tokens = [");
	for (int i = 0; i <= CT_FRONTIER_MAX_TOKENS; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "%s\"t%d\"",
				      i ? ", " : "", i);
	snprintf(text + n, sizeof(text) - n, "]; }; };\n");
	assert_int_equal(load_text(text, &p, &s, &e), CT_EFULL);
	assert_msg_has(e, "65 tokens, at most 64 allowed");
	assert_int_equal(load_text("frontier = { total_prioritisation = {\n"
				   "  enabled = true; country_tokens = [\"de\"]; }; };\n",
				   &p, &s, &e), CT_OK);
	assert_true(s.frontier.total_prioritisation);
	assert_int_equal(s.frontier.n_country_tokens, 1);
}

/* A new entry named like a reserved key is taken for a typo of it. */
static void test_open_map_typo_of_reserved(void **state)
{
	static const char *const typos[] = { "defualt", "Default", "defaults",
					     "defalt" };
	struct ct_settings s;
	struct ct_error e;
	const char *p;
	char text[128], want[256];

	for (size_t i = 0; i < sizeof(typos) / sizeof(typos[0]); i++) {
		snprintf(text, sizeof(text),
			 "frontier = {\n types = { %s = 1.0; }; };\n", typos[i]);
		snprintf(want, sizeof(want),
			 "frontier.types.%s = 1.0: a new entry within 2 edits of the reserved key frontier.types.default is taken for a typo (did you mean frontier.types.default?)",
			 typos[i]);
		assert_refused(text, CT_EINVAL, 2, want);
	}
	/* farther names are new types; default itself is the key */
	assert_int_equal(load_text("frontier = { types = { dflt = 1.0; nav2 = 2.0;\n"
				   "  default = 3.0; }; bonuses = { defualt = 1.0; }; };\n",
				   &p, &s, &e), CT_OK);
	assert_true(s.frontier.default_type_weight == 3.0);
}

/* Open maps: any name, up to CT_FRONTIER_MAX_NAMES entries and
 * CT_NAME_LEN - 1 characters. */
static void test_open_map_limits(void **state)
{
	struct ct_settings s;
	struct ct_error e;
	const char *p;
	char text[4096];
	size_t n = (size_t)snprintf(text, sizeof(text), "frontier = { types = {\n");

	for (int i = 0; i < CT_FRONTIER_MAX_NAMES; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "t%d = 1.0;\n", i);
	snprintf(text + n, sizeof(text) - n, "}; };\n");
	assert_int_equal(load_text(text, &p, &s, &e), CT_EFULL);
	assert_msg_has(e, "more than 32 entries in frontier.types");
	assert_int_equal(load_text("frontier = { bonuses = {\n"
				   "  a-very-long-discovery-method-name-indeed = 1.0; }; };\n",
				   &p, &s, &e), CT_EINVAL);
	assert_msg_has(e, at(p, 2));
	assert_msg_has(e, "name longer than 31 characters");
}

/* ---- discovery weights ---------------------------------------------- */

static void test_weight_sums(void **state)
{
	struct ct_settings s;
	struct ct_error e;
	const char *p;
	char want[CT_CONFIG_PATH_LEN + 64];

	/* 0.999999 and 1.000001 are accepted (SPEC.md) */
	assert_int_equal(load_text("discovery = { weights = { unseen_likelihood = 0.279999; }; };\n",
				   &p, &s, &e), CT_OK);
	assert_int_equal(load_text("discovery = { weights = { unseen_likelihood = 0.280001; }; };\n",
				   &p, &s, &e), CT_OK);
	assert_true(s.discovery.weights[CT_SUB_UNSEEN] == 0.280001);
	/* 0.9999 is not */
	assert_int_equal(load_text("discovery = {\n  weights = {\n    unseen_likelihood = 0.2799;\n  };\n};\n",
				   &p, &s, &e), CT_EINVAL);
	assert_msg_has(e, "discovery weights sum to 0.9999, not 1 (tolerance 1e-6)");
	snprintf(want, sizeof(want), "unseen_likelihood=0.2799 (%s:3)", p);
	assert_msg_has(e, want);
	assert_msg_has(e, "host_novelty=0.2 (default)");
	assert_msg_has(e, "topic_boost=0.02 (default)");
	/* 1.0000011 is not either */
	assert_int_equal(load_text("discovery = { weights = { unseen_likelihood = 0.2800011; }; };\n",
				   &p, &s, &e), CT_EINVAL);
	assert_msg_has(e, "sum to 1.0000011");
	/* as many digits as show the sum is outside the tolerance */
	assert_refused("discovery = { weights = { unseen_likelihood = 0.2800010001; }; };\n",
		       CT_EINVAL, 0, "sum to 1.0000010001, not 1 (tolerance 1e-6)");
	assert_refused("discovery = { weights = { unseen_likelihood = 0.2799989999; }; };\n",
		       CT_EINVAL, 0, "sum to 0.9999989999, not 1 (tolerance 1e-6)");
	/* every weight from the file: each one's line */
	assert_int_equal(ct_config_load_file(DEFAULT_CONF, &s, &e), CT_OK);
	assert_int_equal(load_text("discovery = { weights = {\n"
				   "unseen_likelihood = 0.3;\nhost_novelty = 0.2;\n"
				   "content_readiness = 0.2;\nlink_yield = 0.1;\n"
				   "source_reliability = 0.1;\nfreshness = 0.05;\n"
				   "quality_safety = 0.05;\ntopic_boost = 0.05;\n}; };\n",
				   &p, &s, &e), CT_EINVAL);
	/* eight file names do not fit: the file once, then its lines */
	assert_msg_has(e, "sum to 1.05,");
	snprintf(want, sizeof(want), "unseen_likelihood=0.3 (%s:2)", p);
	assert_msg_has(e, want);
	assert_msg_has(e, "host_novelty=0.2 (line 3)");
	assert_msg_has(e, "topic_boost=0.05 (line 9)");
}

/* The seed's own example export sums to 1.12 and is refused, naming both
 * variables. */
static void test_seed_example_env_refused(void **state)
{
	struct ct_settings s, before;
	struct ct_error e = { { 0 } };

	ct_settings_default(&before);
	s = before;
	setenv("RANK_WEIGHTS_UNSEEN", "0.35", 1);
	setenv("RANK_WEIGHTS_HOST_NOVELTY", "0.25", 1);
	assert_int_equal(ct_config_load_file(NULL, &s, &e), CT_EINVAL);
	assert_msg_has(e, "1.12");
	assert_msg_has(e, "unseen_likelihood=0.35 (environment RANK_WEIGHTS_UNSEEN)");
	assert_msg_has(e, "host_novelty=0.25 (environment RANK_WEIGHTS_HOST_NOVELTY)");
	assert_msg_has(e, "content_readiness=0.16 (default)");
	assert_settings_equal(&s, &before);
	/* and balanced by a third variable, they load */
	setenv("RANK_WEIGHTS_CONTENT_READY", "0.04", 1);
	assert_int_equal(ct_config_load_file(NULL, &s, &e), CT_OK);
	assert_true(s.discovery.weights[CT_SUB_UNSEEN] == 0.35);
}

/* With every weight from the environment, or from a long file name, the
 * message still names the sum and all eight sources. */
static void test_weight_message_fits(void **state)
{
	static const char *const names[] = {
		"unseen_likelihood", "host_novelty", "content_readiness",
		"link_yield", "source_reliability", "freshness",
		"quality_safety", "topic_boost",
	};
	struct ct_settings s;
	struct ct_error e = { { 0 } };
	char path[700], dir[600], text[1024];
	size_t n = 0;

	for (int i = 0; i < 8; i++)
		setenv(override_vars[i], "0.123456789", 1);
	assert_int_equal(ct_config_load_file(NULL, &s, &e), CT_EINVAL);
	assert_msg_has(e, "sum to 0.987654312");
	for (int i = 0; i < 8; i++) {
		assert_msg_has(e, names[i]);
		assert_msg_has(e, override_vars[i]);
	}
	assert_msg_has(e, "topic_boost=0.123456789 (env RANK_WEIGHTS_TOPIC)");
	clear_env();
	/* a long directory name */
	snprintf(dir, sizeof(dir), "%s/%s", tmp.dir,
		 "a-rather-long-directory-name-for-the-configuration-of-crawltop");
	tmp_mkdir(dir + strlen(tmp.dir) + 1);
	n += (size_t)snprintf(text + n, sizeof(text) - n, "discovery = { weights = {\n");
	for (int i = 0; i < 8; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "%s = 0.123456789;\n",
				      names[i]);
	snprintf(text + n, sizeof(text) - n, "}; };\n");
	snprintf(path, sizeof(path), "%s/w.conf", dir + strlen(tmp.dir) + 1);
	tmp_write(path, text);
	snprintf(path, sizeof(path), "%s/w.conf", dir);
	assert_int_equal(ct_config_load_file(path, &s, &e), CT_EINVAL);
	assert_msg_has(e, "sum to 0.987654312");
	assert_msg_has(e, path);
	for (int i = 0; i < 8; i++)
		assert_msg_has(e, names[i]);
	assert_msg_has(e, "topic_boost=0.123456789 (line 9)");
}

/* ---- environment ---------------------------------------------------- */

/* The key an override variable sets, from the table. */
static const char *key_of_env(const char *var)
{
	for (size_t i = 0; i < ct_n_keys; i++)
		if (ct_keys[i].env && strcmp(ct_keys[i].env, var) == 0)
			return ct_keys[i].path;
	fail_msg("no key for %s", var);
	return NULL;
}

/* Every override variable, every kind of bad value. */
static void test_env_bad_values(void **state)
{
	static const struct {
		const char *value, *shown, *why;
	} bad[] = {
		{ "abc", "abc", "not a number" },
		{ "", "\"\"", "not a number (empty)" },
		{ "1e999", "1e999", "not a finite number" },
		{ "-1e999", "-1e999", "not a finite number" },
		{ "nan", "nan", "not a finite number" },
		{ "inf", "inf", "not a finite number" },
		{ " 0.3", "\" 0.3\"", "not a number (leading space)" },
		{ "0.3 ", "\"0.3 \"", "not a number (trailing space)" },
		{ "0.3\n", "\"0.3\\n\"", "not a number (trailing space)" },
		{ "0.3 x", "\"0.3 x\"", "not a number" },
		{ "0.3x", "0.3x", "not a number" },
		{ "0.3\xff", "\"0.3\\xff\"", "not a number" },
		{ "1e-400", "1e-400", "out of the range of a double" },
		{ "+0.3", "+0.3", "not a plain decimal number" },
		{ "0x1p-2", "0x1p-2", "not a plain decimal number" },
	};

	for (size_t v = 0; v < N_OVERRIDES; v++) {
		for (size_t b = 0; b < sizeof(bad) / sizeof(bad[0]); b++) {
			struct ct_settings s, before;
			struct ct_error e = { { 0 } };
			char want[256];

			ct_settings_default(&before);
			s = before;
			setenv(override_vars[v], bad[b].value, 1);
			assert_int_equal(ct_config_load_file(NULL, &s, &e), CT_EINVAL);
			snprintf(want, sizeof(want), "environment %s=%s: %s: %s",
				 override_vars[v], bad[b].shown,
				 key_of_env(override_vars[v]),
				 bad[b].why);
			assert_msg_has(e, want);
			assert_settings_equal(&s, &before);
			unsetenv(override_vars[v]);
		}
	}
}

/* Well-formed numbers outside the key's range name the key and rule. */
static void test_env_out_of_range(void **state)
{
	static const struct {
		const char *var, *value, *want;
	} cases[] = {
		{ "RANK_WEIGHTS_UNSEEN", "-0.1",
		  "environment RANK_WEIGHTS_UNSEEN=-0.1: discovery.weights.unseen_likelihood must be >= 0 and <= 1" },
		{ "RANK_WEIGHTS_TOPIC", "1.5",
		  "environment RANK_WEIGHTS_TOPIC=1.5: discovery.weights.topic_boost must be >= 0 and <= 1" },
		{ "PROFILE_SCORE", "120",
		  "environment PROFILE_SCORE=120: classes.p0 must be >= 0 and <= 100" },
		{ "MIN_PUBLISH_SCORE", "-5",
		  "environment MIN_PUBLISH_SCORE=-5: classes.p1 must be >= 0 and <= 100" },
		{ "BACKOFF_START_HOURS", "0",
		  "environment BACKOFF_START_HOURS=0: discovery.backoff.start_hours must be > 0" },
		{ "BACKOFF_MAX_HOURS", "-48",
		  "environment BACKOFF_MAX_HOURS=-48: discovery.backoff.max_hours must be > 0" },
		{ "BACKOFF_MULTIPLIER", "0.5",
		  "environment BACKOFF_MULTIPLIER=0.5: discovery.backoff.multiplier must be >= 1" },
		{ "BACKOFF_MULTIPLIER", "1e308",
		  "environment BACKOFF_MULTIPLIER=1e308: discovery.backoff.multiplier must be >= 1 and <= 1000" },
		{ "BACKOFF_MAX_HOURS", "1e308",
		  "environment BACKOFF_MAX_HOURS=1e308: discovery.backoff.max_hours must be > 0 and <= 87600" },
		{ "BACKOFF_START_HOURS", "1e300",
		  "environment BACKOFF_START_HOURS=1e300: discovery.backoff.start_hours must be > 0 and <= 87600" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ct_settings s;
		struct ct_error e = { { 0 } };

		setenv(cases[i].var, cases[i].value, 1);
		assert_int_equal(ct_config_load_file(NULL, &s, &e), CT_ERANGE);
		assert_msg_has(e, cases[i].want);
		unsetenv(cases[i].var);
	}
}

/* At the largest backoff the file allows, every wait is a finite time. */
static void test_backoff_limits_keep_waits_finite(void **state)
{
	struct ct_settings s;
	struct ct_error e;
	const char *p;
	bool has;
	double h = 0;

	assert_int_equal(load_text("discovery = { backoff = { start_hours = 87600.0;\n"
				   "  max_hours = 87600.0; multiplier = 1000.0; }; };\n",
				   &p, &s, &e), CT_OK);
	assert_int_equal(ct_backoff_hours(&s.discovery.backoff, CT_P3, INT_MAX,
					  false, &has, &h, &e), CT_OK);
	assert_true(has);
	assert_true(h == 2 * 87600.0);
}

/* The environment wins over the file; good values load. */
static void test_env_overrides_file(void **state)
{
	struct ct_settings s;
	struct ct_error e;
	const char *p;

	setenv("MIN_PUBLISH_SCORE", "70", 1);
	setenv("PROFILE_SCORE", "85.5", 1);
	setenv("BACKOFF_START_HOURS", "3", 1);
	setenv("BACKOFF_MAX_HOURS", "24", 1);
	setenv("BACKOFF_MULTIPLIER", "1.5", 1);
	assert_int_equal(load_text("classes = { p1 = 65.0; p2 = 30.0; };\n"
				   "discovery = { backoff = { start_hours = 5.0; }; };\n",
				   &p, &s, &e), CT_OK);
	assert_true(s.classes.p1 == 70.0);
	assert_true(s.classes.p0 == 85.5);
	assert_true(s.classes.p2 == 30.0);
	assert_true(s.discovery.backoff.start_hours == 3.0);
	assert_true(s.discovery.backoff.max_hours == 24.0);
	assert_true(s.discovery.backoff.multiplier == 1.5);
}

/* ---- lookup order --------------------------------------------------- */

static void write_conf_p2(const char *name, double p2)
{
	char text[64];

	snprintf(text, sizeof(text), "classes = { p2 = %.1f; };\n", p2);
	tmp_write(name, text);
}

static void test_lookup_order(void **state)
{
	char got[CT_CONFIG_PATH_LEN], want[CT_CONFIG_PATH_LEN];
	char sys[CT_CONFIG_PATH_LEN], xdg[CT_CONFIG_PATH_LEN];
	struct ct_error e = { { 0 } };
	struct ct_settings s;

	tmp_mkdir("xdg");
	tmp_mkdir("xdg/crawltop");
	tmp_mkdir("home");
	tmp_mkdir("home/.config");
	tmp_mkdir("home/.config/crawltop");
	write_conf_p2("flag.conf", 11);
	write_conf_p2("env.conf", 12);
	write_conf_p2("xdg/crawltop/crawltop.conf", 13);
	write_conf_p2("home/.config/crawltop/crawltop.conf", 14);
	write_conf_p2("system.conf", 15);
	snprintf(sys, sizeof(sys), "%s/system.conf", tmp.dir);
	snprintf(xdg, sizeof(xdg), "%s/xdg", tmp.dir);
	snprintf(want, sizeof(want), "%s/env.conf", tmp.dir);
	setenv("CRAWLTOP_CONFIG", want, 1);
	setenv("XDG_CONFIG_HOME", xdg, 1);
	snprintf(want, sizeof(want), "%s/home", tmp.dir);
	setenv("HOME", want, 1);

	/* 1. the flag beats everything */
	snprintf(want, sizeof(want), "%s/flag.conf", tmp.dir);
	assert_int_equal(ct_config_find(want, sys, got, sizeof(got), &e), CT_OK);
	assert_string_equal(got, want);
	assert_int_equal(ct_config_load(want, &s, got, sizeof(got), &e), CT_OK);
	assert_string_equal(got, want);
	assert_true(s.classes.p2 == 11.0);
	/* 2. then CRAWLTOP_CONFIG */
	snprintf(want, sizeof(want), "%s/env.conf", tmp.dir);
	assert_int_equal(ct_config_find(NULL, sys, got, sizeof(got), &e), CT_OK);
	assert_string_equal(got, want);
	assert_int_equal(ct_config_load(NULL, &s, got, sizeof(got), &e), CT_OK);
	assert_true(s.classes.p2 == 12.0);
	/* 3. then $XDG_CONFIG_HOME/crawltop/crawltop.conf */
	unsetenv("CRAWLTOP_CONFIG");
	snprintf(want, sizeof(want), "%s/xdg/crawltop/crawltop.conf", tmp.dir);
	assert_int_equal(ct_config_find(NULL, sys, got, sizeof(got), &e), CT_OK);
	assert_string_equal(got, want);
	assert_int_equal(ct_config_load(NULL, &s, got, sizeof(got), &e), CT_OK);
	assert_string_equal(got, want);
	assert_true(s.classes.p2 == 13.0);
	/* 4. ~/.config when XDG_CONFIG_HOME is unset (or relative) */
	setenv("XDG_CONFIG_HOME", "relative/dir", 1);
	snprintf(want, sizeof(want), "%s/home/.config/crawltop/crawltop.conf",
		 tmp.dir);
	assert_int_equal(ct_config_find(NULL, sys, got, sizeof(got), &e), CT_OK);
	assert_string_equal(got, want);
	unsetenv("XDG_CONFIG_HOME");
	assert_int_equal(ct_config_find(NULL, sys, got, sizeof(got), &e), CT_OK);
	assert_string_equal(got, want);
	/* 5. the system file when no user file exists */
	snprintf(want, sizeof(want), "%s/home/.config/crawltop/crawltop.conf",
		 tmp.dir);
	assert_int_equal(unlink(want), 0);
	assert_int_equal(ct_config_find(NULL, sys, got, sizeof(got), &e), CT_OK);
	assert_string_equal(got, sys);
	/* 6. no system file either: the built-in defaults */
	snprintf(want, sizeof(want), "%s/none.conf", tmp.dir);
	assert_int_equal(ct_config_find(NULL, want, got, sizeof(got), &e), CT_OK);
	assert_string_equal(got, "");
	/* 7. ct_config_load with nothing: defaults, used_path "" (unless the
	 * machine has a system file installed) */
	if (access(CT_CONFIG_SYSTEM_PATH, F_OK) != 0) {
		struct ct_settings def;

		ct_settings_default(&def);
		assert_int_equal(ct_config_load(NULL, &s, got, sizeof(got), &e),
				 CT_OK);
		assert_string_equal(got, "");
		assert_settings_equal(&s, &def);
	}
	/* an implicit file that is a directory is an error, not skipped */
	setenv("XDG_CONFIG_HOME", xdg, 1);
	snprintf(want, sizeof(want), "%s/xdg/crawltop/crawltop.conf", tmp.dir);
	assert_int_equal(unlink(want), 0);
	tmp_mkdir("xdg/crawltop/crawltop.conf");
	assert_int_equal(ct_config_find(NULL, sys, got, sizeof(got), &e), CT_EIO);
	assert_msg_has(e, want);
	assert_msg_has(e, "directory");
	/* a pipe (say, --config <(...)) is refused: the file is read more
	 * than once, and the later reads would find nothing (the settings
	 * fell back to the defaults without a word) */
	snprintf(want, sizeof(want), "%s/fifo.conf", tmp.dir);
	assert_int_equal(mkfifo(want, 0600), 0);
	assert_int_equal(ct_config_load(want, &s, got, sizeof(got), &e), CT_EINVAL);
	assert_msg_has(e, want);
	assert_msg_has(e, "is a pipe or a socket, which can be read only once");
	assert_int_equal(unlink(want), 0);
	/* a used_path buffer too small */
	snprintf(want, sizeof(want), "%s/flag.conf", tmp.dir);
	assert_int_equal(ct_config_load(want, &s, got, 8, &e), CT_ERANGE);
	assert_msg_has(e, "longer than");
}

/* ---- reload and watchers -------------------------------------------- */

struct watch_log {
	int n;
	int order[8];
	double p2_seen[8];
};

static struct watch_log wlog;

static void watcher_a(const struct ct_settings *s, void *ud)
{
	wlog.order[wlog.n] = *(int *)ud;
	wlog.p2_seen[wlog.n++] = s->classes.p2;
}

static void watcher_b(const struct ct_settings *s, void *ud)
{
	watcher_a(s, ud);
}

static void test_reload_notifies_in_order(void **state)
{
	struct ct_config_holder h;
	struct ct_error e = { { 0 } };
	int ids[3] = { 1, 2, 3 };
	const char *p = tmp_write("r.conf", "classes = { p2 = 30.0; };\n");

	memset(&wlog, 0, sizeof(wlog));
	assert_int_equal(ct_config_holder_init(&h, p, &e), CT_OK);
	assert_string_equal(h.path, p);
	assert_true(h.settings.classes.p2 == 30.0);
	assert_int_equal(ct_config_add_watcher(&h, watcher_a, &ids[0], &e), CT_OK);
	assert_int_equal(ct_config_add_watcher(&h, watcher_b, &ids[1], &e), CT_OK);
	assert_int_equal(ct_config_add_watcher(&h, watcher_a, &ids[2], &e), CT_OK);
	assert_int_equal(wlog.n, 0);

	tmp_write("r.conf", "classes = { p2 = 35.0; };\n");
	assert_int_equal(ct_config_reload(&h, &e), CT_OK);
	assert_int_equal(wlog.n, 3);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(wlog.order[i], i + 1);
		assert_true(wlog.p2_seen[i] == 35.0);
	}
	assert_true(h.settings.classes.p2 == 35.0);
	/* the environment is read again too */
	setenv("PROFILE_SCORE", "90", 1);
	assert_int_equal(ct_config_reload(&h, &e), CT_OK);
	assert_int_equal(wlog.n, 6);
	assert_true(h.settings.classes.p0 == 90.0);
}

static void test_bad_reload_keeps_old(void **state)
{
	static const char *const bad[] = {
		"classes = { p2 = ; };\n",                         /* syntax */
		"classes = { p2 = 61.0; };\n",                     /* order */
		"frontier = { weigths = { base = 1.0; }; };\n",    /* unknown */
		"discovery = { weights = { topic_boost = 0.5; }; };\n", /* sum */
		"frontier = { weights = { base = -1.0; }; };\n",   /* range */
	};
	struct ct_config_holder h;
	struct ct_settings before;
	struct ct_error e = { { 0 } };
	int id = 1;
	const char *p = tmp_write("r.conf", "classes = { p2 = 30.0; };\n");

	memset(&wlog, 0, sizeof(wlog));
	assert_int_equal(ct_config_holder_init(&h, p, &e), CT_OK);
	assert_int_equal(ct_config_add_watcher(&h, watcher_a, &id, &e), CT_OK);
	before = h.settings;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		tmp_write("r.conf", bad[i]);
		memset(&e, 0, sizeof(e));
		assert_int_not_equal(ct_config_reload(&h, &e), CT_OK);
		assert_msg_has(e, p);
		assert_memory_equal(&h.settings, &before, sizeof(before));
		assert_int_equal(wlog.n, 0);
	}
	/* a bad environment value */
	tmp_write("r.conf", "classes = { p2 = 31.0; };\n");
	setenv("RANK_WEIGHTS_UNSEEN", "abc", 1);
	assert_int_equal(ct_config_reload(&h, &e), CT_EINVAL);
	assert_msg_has(e, "environment RANK_WEIGHTS_UNSEEN=abc: discovery.weights.unseen_likelihood: not a number");
	assert_memory_equal(&h.settings, &before, sizeof(before));
	unsetenv("RANK_WEIGHTS_UNSEEN");
	/* the file removed */
	assert_int_equal(unlink(p), 0);
	assert_int_equal(ct_config_reload(&h, &e), CT_ENOENT);
	assert_memory_equal(&h.settings, &before, sizeof(before));
	assert_int_equal(wlog.n, 0);
	/* and back: the watcher hears of it */
	tmp_write("r.conf", "classes = { p2 = 31.0; };\n");
	assert_int_equal(ct_config_reload(&h, &e), CT_OK);
	assert_int_equal(wlog.n, 1);
	assert_true(wlog.p2_seen[0] == 31.0);
}

static void test_holder_limits(void **state)
{
	struct ct_config_holder h;
	struct ct_error e = { { 0 } };
	char missing[CT_CONFIG_PATH_LEN];
	struct ct_settings def;
	int id = 0;

	ct_settings_default(&def);
	snprintf(missing, sizeof(missing), "%s/missing.conf", tmp.dir);
	assert_int_equal(ct_config_holder_init(&h, missing, &e), CT_ENOENT);
	assert_msg_has(e, missing);
	assert_string_equal(h.path, "");
	assert_settings_equal(&h.settings, &def);
	assert_int_equal(ct_config_add_watcher(&h, NULL, NULL, &e), CT_EINVAL);
	for (int i = 0; i < CT_CONFIG_MAX_WATCHERS; i++)
		assert_int_equal(ct_config_add_watcher(&h, watcher_a, &id, &e),
				 CT_OK);
	assert_int_equal(ct_config_add_watcher(&h, watcher_a, &id, &e), CT_EFULL);
	assert_msg_has(e, "at most 8 watchers");
	/* reload of the defaults (no file) works and notifies */
	memset(&wlog, 0, sizeof(wlog));
	assert_int_equal(ct_config_reload(&h, &e), CT_OK);
	assert_int_equal(wlog.n, CT_CONFIG_MAX_WATCHERS);
}

/* ---- small pieces ---------------------------------------------------- */

static void test_source_and_range_strings(void **state)
{
	struct ct_config c;
	struct ct_config_source src = { .origin = CT_FROM_ENV, .env = "X" };
	char buf[64];

	ct_config_init(&c);
	assert_string_equal(ct_config_source_str(&c, &src, buf, sizeof(buf)),
			    "environment X");
	src.origin = CT_FROM_DEFAULT;
	assert_string_equal(ct_config_source_str(&c, &src, buf, sizeof(buf)),
			    "default");
	assert_string_equal(ct_key_range_str(0, 1, CT_KEY_GT_MIN | CT_KEY_LT_MAX,
					     buf, sizeof(buf)),
			    "must be > 0 and < 1");
	assert_string_equal(ct_key_range_str(-HUGE_VAL, HUGE_VAL, 0, buf,
					     sizeof(buf)), "must be finite");
	assert_false(ct_key_range_ok(0, 1, 0, NAN));
	assert_true(ct_key_range_ok(0, 1, 0, 1));
	assert_false(ct_key_range_ok(0, 1, CT_KEY_LT_MAX, 1));
	assert_true(ct_key_is_group("frontier"));
	assert_true(ct_key_is_group("frontier.types"));
	assert_false(ct_key_is_group("frontier.weights.base"));
	assert_false(ct_key_is_group("nope"));
	assert_string_equal(ct_key_suggest("clases", buf, sizeof(buf)), "classes");
	assert_string_equal(ct_key_suggest("zzzzzzzzzz", buf, sizeof(buf)), "");
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_default_file_is_defaults),
		T(test_default_file_lists_everything),
		T(test_builtin_defaults),
		T(test_every_key_reaches_its_field),
		T(test_weight_keys_match_engine),
		T(test_integers_for_floats),
		T(test_partial_file_overlays),
		T(test_include),
		T(test_include_error_names_included_file),
		T(test_include_cannot_open),
		T(test_byte_order_mark),
		T(test_big_files_refused_fast),
		T(test_include_fan_out_bounded),
		T(test_untrusted_file_refused),
		T(test_include_syntax_error),
		T(test_syntax_error),
		T(test_missing_explicit_file),
		T(test_wrong_type),
		T(test_unknown_key),
		T(test_out_of_range),
		T(test_integer_wrap_refused),
		T(test_float_underflow_refused),
		T(test_literal_edges_refused),
		T(test_bounds_strictly_decreasing),
		T(test_other_order_rules),
		T(test_alias_and_tokens),
		T(test_open_map_limits),
		T(test_open_map_typo_of_reserved),
		T(test_weight_sums),
		T(test_seed_example_env_refused),
		T(test_weight_message_fits),
		T(test_env_bad_values),
		T(test_env_out_of_range),
		T(test_env_overrides_file),
		T(test_backoff_limits_keep_waits_finite),
		T(test_lookup_order),
		T(test_reload_notifies_in_order),
		T(test_bad_reload_keeps_old),
		T(test_holder_limits),
		T(test_source_and_range_strings),
	};

	return cmocka_run_group_tests_name("config", tests, NULL, NULL);
}
