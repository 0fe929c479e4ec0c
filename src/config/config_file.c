/* config_file.c: overlays one libconfig file on a struct ct_config.
 *
 * The only file of the project that includes <libconfig.h>. It walks the
 * parsed tree, and for every setting finds its row in the key table (or the
 * open map it belongs to), checks the type and the range, stores the value
 * and records the file and line it came from. Anything not in the tables is
 * an unknown key. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <libconfig.h>

#include "config.h"
#include "config_keys.h"
#include "config_private.h"

#define PATH_MAX_KEY 128 /* longest dotted key path */

struct reader {
	struct ct_config *c;
	const char *path;    /* the file named by the caller */
	const char *dir;     /* its directory, where @include looks */
	struct ct_error *err;
	/* [CT_CONFIG_MAX_FILES], by index in c->files: */
	bool *touched;       /* files of this read */
	const char **raw;    /* the names libconfig gave them, or NULL */
};

/* The name libconfig records for the setting's file: the main path, or an
 * @include name as written (relative to r->dir unless absolute). */
static const char *raw_file(const struct reader *r, const config_setting_t *s)
{
	const char *f = config_setting_source_file(s);

	return f ? f : r->path;
}

/* The file a setting came from, as a path usable from the current
 * directory (an @include may differ from the main file). */
static const char *setting_file(const struct reader *r,
				const config_setting_t *s)
{
	const char *f = raw_file(r, s);

	for (size_t i = 0; i < r->c->n_files; i++)
		if (r->raw[i] && strcmp(r->raw[i], f) == 0)
			return r->c->files[i];
	return f;
}

/* What the setting holds, in words, for "must be X, not Y". */
static const char *type_words(const config_setting_t *s)
{
	switch (config_setting_type(s)) {
	case CONFIG_TYPE_GROUP:
		return "a group";
	case CONFIG_TYPE_INT:
	case CONFIG_TYPE_INT64:
	case CONFIG_TYPE_FLOAT:
		return "a number";
	case CONFIG_TYPE_STRING:
		return "a string";
	case CONFIG_TYPE_BOOL:
		return "a boolean";
	case CONFIG_TYPE_ARRAY:
		return "an array";
	case CONFIG_TYPE_LIST:
		return "a list";
	}
	return "an unknown type";
}

/* The value as the file would spell it (strings quoted and shortened). */
static const char *value_str(const config_setting_t *s, char *buf, size_t len)
{
	switch (config_setting_type(s)) {
	case CONFIG_TYPE_GROUP:
		snprintf(buf, len, "{ ... }");
		break;
	case CONFIG_TYPE_INT:
		snprintf(buf, len, "%d", config_setting_get_int(s));
		break;
	case CONFIG_TYPE_INT64:
		snprintf(buf, len, "%lldL", config_setting_get_int64(s));
		break;
	case CONFIG_TYPE_FLOAT:
		snprintf(buf, len, "%.15g", config_setting_get_float(s));
		break;
	case CONFIG_TYPE_STRING:
		snprintf(buf, len, "\"%.60s%s\"", config_setting_get_string(s),
			 strlen(config_setting_get_string(s)) > 60 ? "..." : "");
		break;
	case CONFIG_TYPE_BOOL:
		snprintf(buf, len, "%s",
			 config_setting_get_bool(s) ? "true" : "false");
		break;
	case CONFIG_TYPE_ARRAY:
		snprintf(buf, len, "[ ... ]");
		break;
	case CONFIG_TYPE_LIST:
		snprintf(buf, len, "( ... )");
		break;
	default:
		snprintf(buf, len, "?");
		break;
	}
	return buf;
}

/* "file:line: path = value: rule": the one shape of a value error. */
static ct_status fail_value(const struct reader *r, const config_setting_t *s,
			    const char *path, ct_status st, const char *rule)
{
	char v[96];

	return ct_error_set(r->err, st, "%s:%u: %s = %s: %s",
			    setting_file(r, s), config_setting_source_line(s),
			    path, value_str(s, v, sizeof(v)), rule);
}

/* Records the file libconfig calls raw in c->files, resolved against
 * r->dir; *idx receives its index. */
static ct_status file_index_of(const struct reader *r, const char *raw,
			       unsigned *idx)
{
	struct ct_config *c = r->c;
	char full[CT_CONFIG_PATH_LEN];
	int n;

	for (size_t i = 0; i < c->n_files; i++) {
		if (r->raw[i] && strcmp(r->raw[i], raw) == 0) {
			*idx = (unsigned)i;
			return CT_OK;
		}
	}
	if (strcmp(raw, r->path) == 0 || raw[0] == '/')
		n = snprintf(full, sizeof(full), "%s", raw);
	else
		n = snprintf(full, sizeof(full), "%s/%s", r->dir, raw);
	if (n < 0 || (size_t)n >= sizeof(full))
		return ct_error_set(r->err, CT_ERANGE,
				    "%.64s...: file name longer than %d bytes",
				    raw, CT_CONFIG_PATH_LEN - 1);
	for (size_t i = 0; i < c->n_files; i++) {
		if (strcmp(c->files[i], full) == 0) {
			*idx = (unsigned)i;
			r->touched[i] = true;
			r->raw[i] = raw;
			return CT_OK;
		}
	}
	if (c->n_files == CT_CONFIG_MAX_FILES)
		return ct_error_set(r->err, CT_EFULL,
				    "%s: more than %d configuration files (@include)",
				    full, CT_CONFIG_MAX_FILES);
	memcpy(c->files[c->n_files], full, (size_t)n + 1);
	r->touched[c->n_files] = true;
	r->raw[c->n_files] = raw;
	*idx = (unsigned)c->n_files++;
	return CT_OK;
}

/* Records the setting's file in c->files; *idx receives its index. */
static ct_status file_index(const struct reader *r, const config_setting_t *s,
			    unsigned *idx)
{
	return file_index_of(r, raw_file(r, s), idx);
}

/* Where the setting came from, as a source record. */
static ct_status source_of(const struct reader *r, const config_setting_t *s,
			   struct ct_config_source *src)
{
	unsigned idx;
	ct_status st = file_index(r, s, &idx);

	if (st != CT_OK)
		return st;
	*src = (struct ct_config_source){
		.origin = CT_FROM_FILE,
		.file = idx,
		.line = config_setting_source_line(s),
	};
	return CT_OK;
}

/* Reads a number into *d (and *i for whole numbers); *whole tells which. */
static bool get_number(const config_setting_t *s, double *d, long long *i,
		       bool *whole)
{
	switch (config_setting_type(s)) {
	case CONFIG_TYPE_INT:
		*i = config_setting_get_int(s);
		*d = (double)*i;
		*whole = true;
		return true;
	case CONFIG_TYPE_INT64:
		*i = config_setting_get_int64(s);
		*d = (double)*i;
		*whole = true;
		return true;
	case CONFIG_TYPE_FLOAT:
		*d = config_setting_get_float(s);
		*i = 0;
		*whole = false;
		return true;
	}
	return false;
}

/* A number checked against [min, max]; CT_EINVAL for a wrong type,
 * CT_ERANGE outside the range. */
static ct_status read_number(const struct reader *r, const config_setting_t *s,
			     const char *path, bool need_whole, double min,
			     double max, unsigned flags, double *d,
			     long long *i)
{
	char rule[128];
	bool whole;

	if (!get_number(s, d, i, &whole)) {
		snprintf(rule, sizeof(rule), "must be %s, not %s",
			 need_whole ? "a whole number" : "a number",
			 type_words(s));
		return fail_value(r, s, path, CT_EINVAL, rule);
	}
	if (need_whole && !whole)
		return fail_value(r, s, path, CT_EINVAL,
				  "must be a whole number (no decimal point)");
	if (!ct_key_range_ok(min, max, flags, *d))
		return fail_value(r, s, path, CT_ERANGE,
				  ct_key_range_str(min, max, flags, rule,
						   sizeof(rule)));
	return CT_OK;
}

/* One token list: an array of strings of a-z and 0-9, as the engine
 * splits and lower-cases the words it matches. */
static ct_status read_tokens(const struct reader *r, const config_setting_t *s,
			     const char *path, const struct ct_key *k)
{
	size_t *count;
	char (*tok)[CT_NAME_LEN] = ct_key_tokens(k, &r->c->settings, &count);
	int n = config_setting_length(s);
	char rule[96];

	if (config_setting_type(s) != CONFIG_TYPE_ARRAY) {
		snprintf(rule, sizeof(rule),
			 "must be an array of strings [\"a\", \"b\"], not %s",
			 type_words(s));
		return fail_value(r, s, path, CT_EINVAL, rule);
	}
	if (n > CT_FRONTIER_MAX_TOKENS) {
		snprintf(rule, sizeof(rule), "%d tokens, at most %d allowed", n,
			 CT_FRONTIER_MAX_TOKENS);
		return fail_value(r, s, path, CT_EFULL, rule);
	}
	for (int j = 0; j < n; j++) {
		const config_setting_t *e = config_setting_get_elem(s, (unsigned)j);
		const char *t;
		char epath[PATH_MAX_KEY + 16];

		snprintf(epath, sizeof(epath), "%s[%d]", path, j);
		if (config_setting_type(e) != CONFIG_TYPE_STRING) {
			snprintf(rule, sizeof(rule), "must be a string, not %s",
				 type_words(e));
			return fail_value(r, e, epath, CT_EINVAL, rule);
		}
		t = config_setting_get_string(e);
		if (t[0] == '\0')
			return fail_value(r, e, epath, CT_EINVAL,
					  "must not be empty");
		if (strlen(t) >= CT_NAME_LEN) {
			snprintf(rule, sizeof(rule),
				 "longer than %d characters", CT_NAME_LEN - 1);
			return fail_value(r, e, epath, CT_EINVAL, rule);
		}
		for (const char *p = t; *p; p++) {
			if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9')))
				return fail_value(r, e, epath, CT_EINVAL,
						  "must hold only a-z and 0-9 (tokens match the lower-cased words of type, method and URL path)");
		}
	}
	for (int j = 0; j < n; j++) {
		const char *t = config_setting_get_string_elem(s, j);

		memset(tok[j], 0, CT_NAME_LEN);
		memcpy(tok[j], t, strlen(t));
	}
	*count = (size_t)n;
	return CT_OK;
}

/* One row of the key table: type check, range check, store, source. */
static ct_status read_key(const struct reader *r, const config_setting_t *s,
			  const char *path, const struct ct_key *k, size_t idx)
{
	struct ct_settings *set = &r->c->settings;
	struct ct_config_source src;
	ct_status st = source_of(r, s, &src);
	double d;
	long long i;
	char rule[96];

	if (st != CT_OK)
		return st;
	switch (k->type) {
	case CT_KEY_BOOL:
		if (config_setting_type(s) != CONFIG_TYPE_BOOL) {
			snprintf(rule, sizeof(rule),
				 "must be true or false, not %s",
				 type_words(s));
			return fail_value(r, s, path, CT_EINVAL, rule);
		}
		ct_key_put_bool(k, set, config_setting_get_bool(s) != 0);
		break;
	case CT_KEY_TOKENS:
		st = read_tokens(r, s, path, k);
		break;
	case CT_KEY_DOUBLE:
	case CT_KEY_INT:
	case CT_KEY_LONG:
	case CT_KEY_SIZE:
		st = read_number(r, s, path, k->type != CT_KEY_DOUBLE, k->min,
				 k->max, k->flags, &d, &i);
		if (st == CT_OK)
			ct_key_put_number(k, set, d, i);
		break;
	}
	if (st == CT_OK)
		r->c->key_src[idx] = src;
	return st;
}

/* Index of an alias by its from-name, or n_aliases. */
static size_t alias_index(const struct ct_frontier_params *p, const char *from)
{
	size_t i;

	for (i = 0; i < p->n_aliases; i++)
		if (strcmp(p->aliases[i].from, from) == 0)
			break;
	return i;
}

/* One entry of an open map (any name): a number or an alias string. */
static ct_status read_map_entry(const struct reader *r,
				const config_setting_t *s, const char *path,
				const struct ct_map *m)
{
	struct ct_frontier_params *fp = &r->c->settings.frontier;
	const char *name = config_setting_name(s);
	char rule[96];
	ct_status st;
	double d;
	long long i;

	if (strlen(name) >= CT_NAME_LEN) {
		snprintf(rule, sizeof(rule), "name longer than %d characters",
			 CT_NAME_LEN - 1);
		return fail_value(r, s, path, CT_EINVAL, rule);
	}
	if (m->kind == CT_MAP_ALIASES) {
		const char *to;
		struct ct_config_source src;

		if (config_setting_type(s) != CONFIG_TYPE_STRING) {
			snprintf(rule, sizeof(rule),
				 "must be a string naming a method, not %s",
				 type_words(s));
			return fail_value(r, s, path, CT_EINVAL, rule);
		}
		to = config_setting_get_string(s);
		if (to[0] == '\0')
			return fail_value(r, s, path, CT_EINVAL,
					  "must not be empty");
		if (strlen(to) >= CT_NAME_LEN) {
			snprintf(rule, sizeof(rule),
				 "longer than %d characters", CT_NAME_LEN - 1);
			return fail_value(r, s, path, CT_EINVAL, rule);
		}
		st = source_of(r, s, &src);
		if (st != CT_OK)
			return st;
		st = ct_frontier_set_alias(fp, name, to);
		if (st == CT_OK) {
			size_t a = alias_index(fp, name);

			if (a < CT_FRONTIER_MAX_NAMES)
				r->c->alias_src[a] = src;
		}
	} else {
		st = read_number(r, s, path, false, m->min, m->max, m->flags,
				 &d, &i);
		if (st != CT_OK)
			return st;
		st = m->kind == CT_MAP_TYPES ? ct_frontier_set_type(fp, name, d)
					     : ct_frontier_set_bonus(fp, name, d);
	}
	if (st == CT_EFULL) {
		snprintf(rule, sizeof(rule), "more than %d entries in %s",
			 CT_FRONTIER_MAX_NAMES, m->path);
		return fail_value(r, s, path, CT_EFULL, rule);
	}
	if (st != CT_OK)
		return fail_value(r, s, path, st, "refused by the frontier table");
	return CT_OK;
}

/* Joins group path and member name; CT_ERANGE when too long. */
static ct_status join_path(const struct reader *r, const config_setting_t *s,
			   const char *group, char *buf, size_t len)
{
	const char *name = config_setting_name(s);
	int n = group[0] ? snprintf(buf, len, "%s.%s", group, name)
			 : snprintf(buf, len, "%s", name);

	if (n < 0 || (size_t)n >= len)
		return ct_error_set(r->err, CT_ERANGE,
				    "%s:%u: key %.64s...: name too long",
				    setting_file(r, s),
				    config_setting_source_line(s), group);
	return CT_OK;
}

static ct_status read_group(const struct reader *r, const config_setting_t *g,
			    const char *gpath);

/* Error for a name in neither table, with the nearest known name. */
static ct_status fail_unknown(const struct reader *r, const config_setting_t *s,
			      const char *path)
{
	char near[PATH_MAX_KEY];

	ct_key_suggest(path, near, sizeof(near));
	if (near[0])
		return ct_error_set(r->err, CT_EINVAL,
				    "%s:%u: unknown key %s (did you mean %s?)",
				    setting_file(r, s),
				    config_setting_source_line(s), path, near);
	return ct_error_set(r->err, CT_EINVAL, "%s:%u: unknown key %s",
			    setting_file(r, s), config_setting_source_line(s),
			    path);
}

/* A member that must be a group { ... }. */
static ct_status need_group(const struct reader *r, const config_setting_t *s,
			    const char *path)
{
	char rule[96];

	if (config_setting_type(s) == CONFIG_TYPE_GROUP)
		return CT_OK;
	snprintf(rule, sizeof(rule), "must be a group %s = { ... }, not %s",
		 config_setting_name(s), type_words(s));
	return fail_value(r, s, path, CT_EINVAL, rule);
}

/* The members of an open map: a fixed key of the table (like
 * frontier.types.default) or an entry of any name. */
static ct_status read_map(const struct reader *r, const config_setting_t *g,
			  const char *gpath, const struct ct_map *m)
{
	int n = config_setting_length(g);

	for (int j = 0; j < n; j++) {
		const config_setting_t *s = config_setting_get_elem(g, (unsigned)j);
		char path[PATH_MAX_KEY];
		const struct ct_key *k;
		size_t idx;
		ct_status st = join_path(r, s, gpath, path, sizeof(path));

		if (st != CT_OK)
			return st;
		k = ct_key_find(path, &idx);
		st = k ? read_key(r, s, path, k, idx)
		       : read_map_entry(r, s, path, m);
		if (st != CT_OK)
			return st;
	}
	return CT_OK;
}

/* The members of a fixed group, in file order: keys, maps, subgroups. */
static ct_status read_group(const struct reader *r, const config_setting_t *g,
			    const char *gpath)
{
	int n = config_setting_length(g);

	for (int j = 0; j < n; j++) {
		const config_setting_t *s = config_setting_get_elem(g, (unsigned)j);
		char path[PATH_MAX_KEY];
		const struct ct_key *k;
		const struct ct_map *m;
		size_t idx;
		ct_status st = join_path(r, s, gpath, path, sizeof(path));

		if (st != CT_OK)
			return st;
		if ((k = ct_key_find(path, &idx)) != NULL) {
			st = read_key(r, s, path, k, idx);
		} else if ((m = ct_map_find(path)) != NULL) {
			st = need_group(r, s, path);
			if (st == CT_OK)
				st = read_map(r, s, path, m);
		} else if (ct_key_is_group(path)) {
			st = need_group(r, s, path);
			if (st == CT_OK)
				st = read_group(r, s, path);
		} else {
			st = fail_unknown(r, s, path);
		}
		if (st != CT_OK)
			return st;
	}
	return CT_OK;
}

/* The directory of path ("." when none) into buf, for @include. */
static void dir_of(const char *path, char *buf, size_t len)
{
	const char *slash = strrchr(path, '/');
	size_t n;

	if (!slash) {
		snprintf(buf, len, ".");
		return;
	}
	n = slash == path ? 1 : (size_t)(slash - path);
	if (n >= len)
		n = len - 1;
	memcpy(buf, path, n);
	buf[n] = '\0';
}

/* Refuses a missing file (CT_ENOENT), a directory and an unreadable file
 * (CT_EIO) with the system's reason. */
static ct_status check_readable(const char *path, struct ct_error *err)
{
	struct stat sb;
	FILE *f;

	if (stat(path, &sb) != 0)
		return ct_error_set(err, errno == ENOENT ? CT_ENOENT : CT_EIO,
				    "%s: cannot open configuration file: %s",
				    path, strerror(errno));
	if (S_ISDIR(sb.st_mode))
		return ct_error_set(err, CT_EIO,
				    "%s: cannot open configuration file: is a directory",
				    path);
	f = fopen(path, "r");
	if (!f)
		return ct_error_set(err, CT_EIO,
				    "%s: cannot open configuration file: %s",
				    path, strerror(errno));
	fclose(f);
	return CT_OK;
}

/* Collects every file that contributed a setting (main and @includes). */
static ct_status scan_files(const struct reader *r, const config_setting_t *g)
{
	int n = config_setting_length(g);

	for (int j = 0; j < n; j++) {
		const config_setting_t *s = config_setting_get_elem(g, (unsigned)j);
		unsigned idx;
		ct_status st = file_index(r, s, &idx);

		if (st == CT_OK && config_setting_is_group(s))
			st = scan_files(r, s);
		if (st != CT_OK)
			return st;
	}
	return CT_OK;
}

/* Parse with libconfig, refuse wrapped integers, then walk the tree. */
ct_status ct_config_read_file(struct ct_config *c, const char *path,
			      struct ct_error *err)
{
	bool touched[CT_CONFIG_MAX_FILES] = { false };
	const char *raw[CT_CONFIG_MAX_FILES] = { NULL };
	char dir[CT_CONFIG_PATH_LEN];
	struct reader r = { c, path, dir, err, touched, raw };
	config_t cf;
	unsigned idx;
	ct_status st;

	if (!path || !path[0])
		return ct_error_set(err, CT_EINVAL,
				    "configuration file: empty file name");
	if (strlen(path) >= CT_CONFIG_PATH_LEN)
		return ct_error_set(err, CT_ERANGE,
				    "%.64s...: file name longer than %d bytes",
				    path, CT_CONFIG_PATH_LEN - 1);
	st = check_readable(path, err);
	if (st != CT_OK)
		return st;

	config_init(&cf);
	dir_of(path, dir, sizeof(dir));
	config_set_include_dir(&cf, dir);
	if (config_read_file(&cf, path) != CONFIG_TRUE) {
		const char *ef = config_error_file(&cf);
		bool rel = ef && ef[0] != '/' && strcmp(ef, path) != 0;

		if (!ef)
			ef = path;
		if (config_error_type(&cf) == CONFIG_ERR_FILE_IO)
			st = ct_error_set(err, CT_EIO, "%s%s%s: %s",
					  rel ? dir : "", rel ? "/" : "", ef,
					  config_error_text(&cf));
		else
			st = ct_error_set(err, CT_EINVAL, "%s%s%s:%d: %s",
					  rel ? dir : "", rel ? "/" : "", ef,
					  config_error_line(&cf),
					  config_error_text(&cf));
		config_destroy(&cf);
		return st;
	}
	/* The main file first, even when it holds no setting. */
	st = file_index_of(&r, path, &idx);
	if (st == CT_OK)
		st = scan_files(&r, config_root_setting(&cf));
	for (size_t i = 0; st == CT_OK && i < c->n_files; i++)
		if (touched[i])
			st = ct_config_scan_int_literals(c->files[i], err);
	if (st == CT_OK)
		st = read_group(&r, config_root_setting(&cf), "");
	config_destroy(&cf);
	return st;
}
