/* cmd_settings.c: `crawltop settings get|set|history|undo`: the engine
 * settings the store keeps as versions of crawltop.settings.
 *
 * The JSON document <-> struct ct_settings mapping is settings_json.h's
 * (the console's); writes go through ct_store_settings_put (one
 * transaction, audited, NOTIFY by 0008). A `set` is checked whole, the
 * way a configuration file is (every key's rule, the rules between keys,
 * the weight sum), before anything is written: a refused value names the
 * key, the value and the rule, and nothing changes. Exit 0, 1 when the
 * database refused, 2 on a usage error or a refused value. */
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "config.h"
#include "config_keys.h"
#include "dbcmd.h"
#include "jsonin.h"
#include "rank_ops.h"
#include "settings_json.h"
#include "settings_store.h"
#include "urlpath.h"

#define DOC_MAX (1 << 20) /* a settings document's size limit here */

/* Print one scalar key of s as "key = value" (tokens, names and texts
 * come from a stored version: escaped, cli_shown). */
static void print_key(const struct ct_key *k, const struct ct_settings *s)
{
	struct ct_settings t = *s;
	if (k->type == CT_KEY_TOKENS) {
		size_t *count;
		char (*tok)[CT_NAME_LEN] = ct_key_tokens(k, &t, &count);
		struct cli_shown_set sh = {0};
		printf("%s = [", k->path);
		for (size_t i = 0; i < *count; i++)
			printf("%s\"%s\"", i ? ", " : "", cli_show(&sh, tok[i]));
		printf("]\n");
		cli_show_free(&sh);
	} else if (k->type == CT_KEY_BOOL) {
		printf("%s = %s\n", k->path, ct_key_get(k, s) != 0 ? "true" : "false");
	} else {
		printf("%s = %.15g\n", k->path, ct_key_get(k, s));
	}
}

/* Print the entries of an open map ("frontier.types.article = 8"). */
static void print_map(const struct ct_map *m, const struct ct_settings *s,
		      const char *only)
{
	const struct ct_frontier_params *f = &s->frontier;
	size_t n = m->kind == CT_MAP_TYPES ? f->n_types
		 : m->kind == CT_MAP_BONUSES ? f->n_bonuses : f->n_aliases;
	for (size_t i = 0; i < n; i++) {
		const char *name = m->kind == CT_MAP_TYPES ? f->types[i].name
				 : m->kind == CT_MAP_BONUSES ? f->bonuses[i].name
				 : f->aliases[i].from;
		if (only && strcmp(only, name) != 0)
			continue;
		struct cli_shown_set sh = {0};
		if (m->kind == CT_MAP_ALIASES)
			printf("%s.%s = \"%s\"\n", m->path, cli_show(&sh, name),
			       cli_show(&sh, f->aliases[i].to));
		else
			printf("%s.%s = %.15g\n", m->path, cli_show(&sh, name),
			       m->kind == CT_MAP_TYPES ? f->types[i].value
						       : f->bonuses[i].value);
		cli_show_free(&sh);
	}
}

/* The value of hex digit c (0..15), or -1. */
static int hex_digit(char c)
{
	return c >= '0' && c <= '9' ? c - '0' :
	       c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* The store's own keys ("store.lease_seconds") of document doc, as
 * "key = value" lines, and those the store has a rule for that doc leaves
 * out as "key = (not set: RULE)"; only the one named `only` when it is
 * not NULL.
 * Each line comes hex-encoded (a key is any text: one holding a newline
 * would otherwise print as two lines) and is printed escaped. Returns the
 * number printed (0 or 1: some or none), or -1 when the query failed. */
static int print_store_keys(struct ct_store *s, const char *doc,
			    const char *only)
{
	char buf[65536];
	struct ct_error err;
	const char *p[] = {doc, only};
	if (ct_store_query(s, "settings get",
			   "SELECT coalesce(string_agg(encode(convert_to("
			   "l.path || ' = ' || l.v, 'UTF8'), 'hex'), "
			   "E'\\n' ORDER BY l.path), '') FROM ("
			   "SELECT d.path, d.value::text AS v "
			   "FROM crawltop.jsonb_leaves($1::jsonb) d "
			   "WHERE d.path LIKE 'store.%' UNION ALL "
			   "SELECT r.path, '(not set: ' || r.rule || ')' "
			   "FROM crawltop.setting_rules r "
			   "WHERE r.path LIKE 'store.%' AND NOT EXISTS ("
			   "SELECT 1 FROM crawltop.jsonb_leaves($1::jsonb) d "
			   "WHERE d.path = r.path)) l "
			   "WHERE $2::text IS NULL OR l.path = $2", 2, p, buf,
			   sizeof buf, NULL, &err) != CT_OK) {
		cli_error("settings", "%s", err.msg);
		return -1;
	}
	for (char *line = buf, *next; *line; line = next) {
		size_t n = strcspn(line, "\n");
		next = line + n + (line[n] == '\n');
		/* decoded in place: half as long */
		size_t k = 0;
		for (size_t i = 0; i + 1 < n; i += 2) {
			int hi = hex_digit(line[i]), lo = hex_digit(line[i + 1]);
			line[k++] = hi < 0 || lo < 0 ? '?' : (char)(hi * 16 + lo);
		}
		line[k] = '\0';
		char *shown = cli_shown(line);
		printf("%s\n", shown ? shown : "(out of memory)");
		free(shown);
	}
	return *buf ? 1 : 0;
}

/* Read the current version and the settings it holds. */
static int current(struct ct_store *s, struct ct_settings_row *row,
		   struct ct_settings *set)
{
	struct ct_error err;
	if (ct_store_settings_get(s, 0, row, &err) != CT_OK) {
		cli_error("settings", "%s", err.msg);
		return -1;
	}
	if (ct_settings_from_json(row->value, row->version, set, &err) != CT_OK) {
		cli_error("settings", "the stored version %d does not read: %s",
			  row->version, err.msg);
		ct_settings_row_free(row);
		return -1;
	}
	return 0;
}

/* key in the config's spelling: the store's "default_priority" is
 * "tier.default_priority". */
static const char *spelled(const char *key)
{
	return strcmp(key, "default_priority") == 0 ? "tier.default_priority"
						    : key;
}

/* The scalar key or map entry named by key: *k or (*m and *entry). */
static bool find_key(const char *key, const struct ct_key **k,
		     const struct ct_map **m, const char **entry)
{
	*k = NULL;
	*m = NULL;
	*entry = NULL;
	key = spelled(key);
	if ((*k = ct_key_find(key, NULL)))
		return true;
	const char *dot = strrchr(key, '.');
	if (!dot)
		return false;
	char parent[128];
	if ((size_t)(dot - key) >= sizeof parent)
		return false;
	memcpy(parent, key, (size_t)(dot - key));
	parent[dot - key] = '\0';
	if ((*m = ct_map_find(parent)) && dot[1]) {
		*entry = dot + 1;
		return true;
	}
	*m = NULL;
	return false;
}

/* Refuse an unknown key, naming the closest known one; a group's name
 * ("classes") is told so, with one of its keys. */
static void unknown_key(const char *key)
{
	size_t l = strlen(key);
	for (size_t i = 0; i < ct_n_keys; i++)
		if (strncmp(ct_keys[i].path, key, l) == 0 &&
		    ct_keys[i].path[l] == '.') {
			cli_error("settings", "'%.80s' is a group of keys, not a "
				  "key: name one, such as '%s' (crawltop "
				  "settings get lists them)", key,
				  ct_keys[i].path);
			return;
		}
	char near[128];
	ct_key_suggest(key, near, sizeof near);
	cli_error("settings", "unknown settings key '%.80s'%s%s%s (crawltop "
		  "settings get lists them)", key, *near ? ": did you mean '" : "",
		  near, *near ? "'?" : "");
}

/* `settings get [KEY]`. */
static int s_get(struct ct_store *s, int argc, char **argv)
{
	struct ct_settings_row row;
	struct ct_settings set;
	if (current(s, &row, &set) != 0)
		return DB_EXIT_FAIL;
	int rc = DB_EXIT_OK;
	if (argc == 0) {
		struct cli_shown_set sh = {0}; /* any session wrote these */
		printf("# settings version %d, %s by %s%s%s\n", row.version,
		       cli_show(&sh, row.created_at), cli_show(&sh, row.created_by),
		       *row.note ? ": " : "", cli_show(&sh, row.note));
		cli_show_free(&sh);
		for (size_t i = 0; i < ct_n_keys; i++)
			print_key(&ct_keys[i], &set);
		for (size_t i = 0; i < ct_n_maps; i++)
			print_map(&ct_maps[i], &set, NULL);
		if (print_store_keys(s, row.value, NULL) < 0)
			rc = DB_EXIT_FAIL;
	} else {
		const struct ct_key *k;
		const struct ct_map *m;
		const char *entry;
		const char *key = argv[0];
		if (find_key(key, &k, &m, &entry)) {
			if (k) {
				print_key(k, &set);
			} else {
				struct ct_map mm = *m;
				print_map(&mm, &set, entry);
			}
		} else if (strncmp(key, "store.", 6) == 0) {
			int n = print_store_keys(s, row.value, key);
			if (n == 0)
				unknown_key(key);
			rc = n == 1 ? DB_EXIT_OK : DB_EXIT_FAIL;
		} else if (ct_map_find(key)) {
			print_map(ct_map_find(key), &set, NULL);
		} else {
			unknown_key(key);
			rc = DB_EXIT_USAGE;
		}
	}
	ct_settings_row_free(&row);
	return rc;
}

/* True when v is a JSON number (RFC 8259's grammar). */
static bool json_number(const char *v)
{
	const char *p = v;
	if (*p == '-')
		p++;
	if (*p == '0')
		p++;
	else if (*p >= '1' && *p <= '9')
		while (*p >= '0' && *p <= '9')
			p++;
	else
		return false;
	if (*p == '.') {
		if (!(*++p >= '0' && *p <= '9'))
			return false;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (!(*p >= '0' && *p <= '9'))
			return false;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	return *p == '\0';
}

/* Write the value text v for key k (NULL: a map entry or a store key) to
 * g: true, false, a JSON number, a comma-separated token list for a
 * token key, else a string (which the key's rule then judges). */
static void gen_value(yajl_gen g, const struct ct_key *k, const char *v)
{
	if (k && k->type == CT_KEY_TOKENS) {
		yajl_gen_array_open(g);
		const char *p = v;
		while (*p) {
			const char *e = strchr(p, ',');
			size_t n = e ? (size_t)(e - p) : strlen(p);
			while (n && *p == ' ')
				p++, n--;
			while (n && p[n - 1] == ' ')
				n--;
			if (n)
				yajl_gen_string(g, (const unsigned char *)p, n);
			p += n;
			while (*p == ' ')
				p++;
			if (*p == ',')
				p++;
		}
		yajl_gen_array_close(g);
	} else if (strcmp(v, "true") == 0 || strcmp(v, "false") == 0) {
		yajl_gen_bool(g, v[0] == 't');
	} else if (json_number(v)) {
		yajl_gen_number(g, v, strlen(v));
	} else {
		jout_string(g, v);
	}
}

/* Write the overlay {"a": {"b": VALUE}} of one dotted key into g (an
 * open map). The path's segments are written one nested map each. */
static void gen_path(yajl_gen g, const char *path, const struct ct_key *k,
		     const char *v)
{
	const char *dot = strchr(path, '.');
	size_t n = dot ? (size_t)(dot - path) : strlen(path);
	yajl_gen_string(g, (const unsigned char *)path, n);
	if (!dot) {
		gen_value(g, k, v);
		return;
	}
	yajl_gen_map_open(g);
	gen_path(g, dot + 1, k, v);
	yajl_gen_map_close(g);
}

/* `settings set KEY VALUE [KEY VALUE ...] [--note TEXT]`: the new
 * document is the current one with the values laid over it (one merge),
 * read and checked whole, then written as a new version. */
static int s_set(struct ct_store *s, int argc, char **argv, const char *note)
{
	if (argc == 0 || argc % 2) {
		cli_error("settings", "set takes KEY VALUE pairs (crawltop "
			  "settings --help)");
		return DB_EXIT_USAGE;
	}
	for (int i = 0; i < argc; i++) {
		if (cli_text_ok("settings", i % 2 ? "value" : "key", argv[i], i % 2 ?
			    "a value is a number, true, false or text" :
			    "a key is a dotted name") != 0)
			return DB_EXIT_USAGE;
		for (int j = 0; i % 2 == 0 && j < i; j += 2)
			if (strcmp(spelled(argv[i]), spelled(argv[j])) == 0) {
				cli_error("settings", "key '%.80s' is given twice%s%s%s: "
					  "set each key once", spelled(argv[i]),
					  strcmp(argv[i], argv[j]) ? " (as '" : "",
					  strcmp(argv[i], argv[j]) ? argv[j] : "",
					  strcmp(argv[i], argv[j]) ? "' too)" : "");
				return DB_EXIT_USAGE;
			}
	}
	struct ct_settings_row row;
	struct ct_settings set;
	if (current(s, &row, &set) != 0)
		return DB_EXIT_FAIL;
	int rc = DB_EXIT_USAGE;
	char *doc = NULL, *tmp = NULL;
	const char **given = NULL; /* the keys the command line sets */
	struct ct_error err;
	doc = malloc(DOC_MAX);
	tmp = malloc(DOC_MAX);
	given = malloc(sizeof *given * (size_t)(argc / 2));
	if (!doc || !tmp || !given) {
		cli_error("settings", "out of memory");
		goto out;
	}
	if (strlen(row.value) >= DOC_MAX - 1) {
		cli_error("settings", "the settings document is larger than %d "
			  "bytes", DOC_MAX - 2);
		rc = DB_EXIT_FAIL;
		goto out;
	}
	snprintf(doc, DOC_MAX, "%s", row.value);
	for (int i = 0; i < argc; i += 2) {
		const struct ct_key *k;
		const struct ct_map *m;
		const char *entry, *key = argv[i];
		bool known = find_key(argv[i], &k, &m, &entry);
		if (strcmp(key, "tier.default_priority") == 0)
			key = "default_priority"; /* the store's spelling */
		if (!known && strncmp(key, "store.", 6) == 0) {
			char buf[16];
			const char *p[] = {row.value, key};
			if (ct_store_query(s, "settings set", "SELECT EXISTS (SELECT "
					   "1 FROM crawltop.jsonb_leaves($1::jsonb) l "
					   "WHERE l.path = $2) OR EXISTS (SELECT 1 "
					   "FROM crawltop.setting_rules r WHERE "
					   "r.path = $2)", 2, p, buf,
					   sizeof buf, NULL, &err) != CT_OK) {
				cli_error("settings", "%s", err.msg);
				rc = DB_EXIT_FAIL;
				goto out;
			}
			known = buf[0] == 't';
		}
		if (!known) {
			unknown_key(argv[i]);
			goto out;
		}
		/* the overlay {"a": {"b": VALUE}}, merged into the document */
		yajl_gen g = jout_alloc();
		if (!g) {
			cli_error("settings", "out of memory");
			goto out;
		}
		yajl_gen_map_open(g);
		gen_path(g, key, k, argv[i + 1]);
		yajl_gen_map_close(g);
		const unsigned char *ov;
		size_t ovlen;
		yajl_gen_get_buf(g, &ov, &ovlen);
		const char *mp[] = {doc, (const char *)ov};
		ct_status st = ct_store_query(s, "settings set", "SELECT crawltop."
					      "jsonb_merge($1::jsonb, $2::jsonb)"
					      "::text", 2, mp, tmp, DOC_MAX, NULL,
					      &err);
		yajl_gen_free(g);
		char *swap = doc;
		doc = tmp;
		tmp = swap;
		if (st == CT_OK && strlen(doc) >= DOC_MAX - 1) {
			cli_error("settings", "the new settings document is "
				  "larger than %d bytes", DOC_MAX - 2);
			rc = DB_EXIT_FAIL;
			goto out;
		}
		if (st != CT_OK) {
			cli_error("settings", "%s", err.msg);
			rc = DB_EXIT_FAIL;
			goto out;
		}
	}
	struct ct_settings next;
	for (int i = 0; i < argc; i += 2)
		given[i / 2] = spelled(argv[i]);
	if (ct_settings_from_json_draft(doc, row.version, given,
					(size_t)argc / 2, "the command line",
					&next, &err) != CT_OK) {
		cli_error("settings", "refused, nothing written: %s", err.msg);
		goto out;
	}
	int version;
	long changed;
	if (ct_store_settings_put(s, doc, row.version, "settings.update", note,
				  &version, &changed, &err) != CT_OK) {
		cli_error("settings", "%s", err.msg);
		rc = DB_EXIT_FAIL;
		goto out;
	}
	printf("settings version %d (was %d): %ld key%s changed\n", version,
	       row.version, changed, changed == 1 ? "" : "s");
	rc = DB_EXIT_OK;
out:
	free(doc);
	free(tmp);
	free(given);
	ct_settings_row_free(&row);
	return rc;
}

/* `settings history`: every version, oldest first, with what changed. */
static int s_history(struct ct_store *s)
{
	struct ct_settings_hist_list l;
	struct ct_error err;
	if (ct_store_settings_history(s, &l, &err) != CT_OK) {
		cli_error("settings", "%s", err.msg);
		return DB_EXIT_FAIL;
	}
	for (size_t i = 0; i < l.n; i++) {
		const struct ct_settings_hist *h = &l.v[i];
		/* any session may have written these: escaped */
		struct cli_shown_set sh = {0};
		const char *changes = cli_show(&sh, h->changes);
		printf("%4d  %s  %-16s %s\n", h->version,
		       cli_show(&sh, h->created_at), cli_show(&sh, h->created_by),
		       cli_show(&sh, h->note));
		if (*changes)
			printf("      %s\n", changes);
		cli_show_free(&sh);
	}
	ct_settings_hist_free(&l);
	return DB_EXIT_OK;
}

/* `settings undo [VERSION]`: the version before the current one, or
 * VERSION (an earlier one), checked, written as a new version (action
 * settings.undo). */
static int s_undo(struct ct_store *s, const char *to, const char *note)
{
	struct ct_settings_row cur, prev;
	struct ct_settings set;
	struct ct_error err;
	int pv, version;
	long changed;
	if (ct_store_settings_get(s, 0, &cur, &err) != CT_OK) {
		cli_error("settings", "%s", err.msg);
		return DB_EXIT_FAIL;
	}
	int rc = DB_EXIT_FAIL;
	long want = 0;
	if (to && db_parse_long("settings", "undo: the version", to, 1,
				INT32_MAX, &want) != 0) {
		ct_settings_row_free(&cur);
		return DB_EXIT_USAGE;
	}
	if (want >= cur.version) {
		cli_error("settings", "undo: version %ld is not before the "
			  "current version %d: name an earlier one (settings "
			  "history)", want, cur.version);
		ct_settings_row_free(&cur);
		return DB_EXIT_USAGE;
	}
	pv = (int)want;
	if ((!want && ct_store_settings_previous(s, cur.version, &pv,
						 &err) != CT_OK) ||
	    ct_store_settings_get(s, pv, &prev, &err) != CT_OK) {
		cli_error("settings", "%s", err.msg);
		ct_settings_row_free(&cur);
		return DB_EXIT_FAIL;
	}
	char dflt[96];
	snprintf(dflt, sizeof dflt, "undo: version %d restored", pv);
	if (ct_settings_from_json(prev.value, pv, &set, &err) != CT_OK)
		cli_error("settings", "version %d does not read, not restored: "
			  "%s", pv, err.msg);
	else if (ct_store_settings_put(s, prev.value, cur.version,
				       "settings.undo", note ? note : dflt,
				       &version, &changed, &err) != CT_OK)
		cli_error("settings", "%s", err.msg);
	else {
		printf("settings version %d: version %d restored (%ld key%s "
		       "changed back from version %d)\n", version, pv, changed,
		       changed == 1 ? "" : "s", cur.version);
		rc = DB_EXIT_OK;
	}
	ct_settings_row_free(&cur);
	ct_settings_row_free(&prev);
	return rc;
}

/* `crawltop settings SUB ...`: parse, check the arguments, connect, run. */
static int run(int argc, char **argv)
{
	static const struct option opts[] = {
		{"dsn", required_argument, NULL, 'd'},
		{"note", required_argument, NULL, 'n'},
		{NULL, 0, NULL, 0},
	};
	const char *dsn = db_default_dsn(), *note = NULL;
	int c;
	/* "+": options before the subcommand; values may start with '-'. */
	struct cli_getopt go = CLI_GETOPT("settings", "+d:", opts);
	while ((c = cli_getopt(&go, argc, argv)) != -1) {
		switch (c) {
		case 'd': dsn = optarg; break;
		case 'n': note = optarg; break;
		default:
			return DB_EXIT_USAGE;
		}
	}
	char **pos = argv + optind;
	int npos = argc - optind;
	/* Options after the subcommand: -d and --note, then the arguments. */
	char *args[64];
	int nargs = 0;
	for (int i = 1; i < npos; i++) {
		/* -d V, --dsn V, --note V, --dsn=V, --note=V */
		const char *a = pos[i], *eq = NULL;
		int opt = 0;
		if (strcmp(a, "-d") == 0 || strcmp(a, "--dsn") == 0)
			opt = 'd';
		else if (strcmp(a, "--note") == 0)
			opt = 'n';
		else if (strncmp(a, "--dsn=", 6) == 0)
			opt = 'd', eq = a + 6;
		else if (strncmp(a, "--note=", 7) == 0)
			opt = 'n', eq = a + 7;
		if (opt && !eq && i + 1 >= npos) {
			cli_error("settings", "%s needs a value (crawltop settings "
				  "--help)", a);
			return DB_EXIT_USAGE;
		}
		if (opt) {
			if (cli_getopt_once(&go, opt) != 0)
				return DB_EXIT_USAGE;
			const char *v = eq ? eq : pos[++i];
			if (opt == 'n')
				note = v;
			else
				dsn = v;
		} else if (nargs == 0 && cli_is_help(pos[i])) {
			/* where an option may stand: not as a KEY's VALUE */
			cli_help("settings");
		} else if (nargs < 64) {
			args[nargs++] = pos[i];
		} else {
			cli_error("settings", "too many arguments");
			return DB_EXIT_USAGE;
		}
	}
	if (npos == 0) {
		cli_error("settings", "which subcommand? get, set, history or "
			  "undo (crawltop settings --help)");
		return DB_EXIT_USAGE;
	}
	if (note && cli_text_ok("settings", "note", note, "a note is one line of text") != 0)
		return DB_EXIT_USAGE;
	const char *sub = pos[0];
	int max = strcmp(sub, "get") == 0 || strcmp(sub, "undo") == 0 ? 1 :
		  strcmp(sub, "set") == 0 ? 64 : 0;
	if (strcmp(sub, "get") && strcmp(sub, "set") && strcmp(sub, "history") &&
	    strcmp(sub, "undo")) {
		cli_error("settings", "unknown subcommand '%.40s': get, set, "
			  "history or undo", sub);
		return DB_EXIT_USAGE;
	}
	if (nargs > max) {
		cli_error("settings", "%s: too many arguments (crawltop settings "
			  "--help)", sub);
		return DB_EXIT_USAGE;
	}
	if (note && (strcmp(sub, "get") == 0 || strcmp(sub, "history") == 0)) {
		cli_error("settings", "%s: --note is for set and undo (the note "
			  "goes with the version they write)", sub);
		return DB_EXIT_USAGE;
	}
	struct ct_store *s;
	if (db_open("settings", dsn, &s) != 0)
		return DB_EXIT_FAIL;
	int rc;
	if (strcmp(sub, "get") == 0)
		rc = s_get(s, nargs, args);
	else if (strcmp(sub, "set") == 0)
		rc = s_set(s, nargs, args, note);
	else if (strcmp(sub, "history") == 0)
		rc = s_history(s);
	else
		rc = s_undo(s, nargs ? args[0] : NULL, note);
	ct_store_close(s);
	return rc;
}

const struct cli_cmd cli_cmd_settings = {
	.name = "settings",
	.usage = "get [KEY] | set KEY VALUE [KEY VALUE ...] | history | undo "
		 "[VERSION] [-d DSN] [--note TEXT]",
	.summary = "Read and change the engine settings the store keeps",
	.help = DB_HELP_DSN
		"  get [KEY]           the current version: every key, or one "
		"dotted key\n"
		"                      (discovery.weights.unseen_likelihood)\n"
		"  set KEY VALUE ...   a new version with these values; the "
		"whole new\n"
		"                      settings are checked first (key rules, "
		"class bounds,\n"
		"                      weights summing to 1): change weights "
		"together\n"
		"  history             every version: number, when, who, note, "
		"what changed\n"
		"  undo [VERSION]      restore the version before the current "
		"one, or the\n"
		"                      earlier VERSION, as a new version (a "
		"second undo\n"
		"                      restores what the first replaced)\n"
		"  --note TEXT         the note of the new version (set, undo)\n",
	.run = run,
};
