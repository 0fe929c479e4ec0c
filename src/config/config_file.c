/* config_file.c: overlays one libconfig file on a struct ct_config.
 *
 * The only file of the project that includes <libconfig.h>. It walks the
 * parsed tree, and for every setting finds its row in the key table (or the
 * open map it belongs to) and hands it to config_value.c, which checks the
 * type and the range, stores the value and records the file and line it
 * came from. Anything not in the tables is an unknown key. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <libconfig.h>

#include "config.h"
#include "config_keys.h"
#include "config_private.h"

struct reader {
	struct ct_value_reader v; /* first: the ops cast back to the reader */
	const char *path;    /* the file named by the caller */
	const char *dir;     /* its directory, where @include looks */
	/* [CT_CONFIG_MAX_FILES], by index in c->files: */
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

	for (size_t i = 0; i < r->v.c->n_files; i++)
		if (r->raw[i] && strcmp(r->raw[i], f) == 0)
			return r->v.c->files[i];
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

/* What the setting holds, for the shared readers. */
static void view(const void *node, struct ct_value *v)
{
	const config_setting_t *s = node;

	*v = (struct ct_value){ .kind = CT_VALUE_OTHER,
				.words = type_words(s) };
	switch (config_setting_type(s)) {
	case CONFIG_TYPE_INT:
	case CONFIG_TYPE_INT64:
		v->kind = CT_VALUE_NUMBER;
		v->i = config_setting_get_int64(s);
		v->d = (double)v->i;
		v->whole = true;
		break;
	case CONFIG_TYPE_FLOAT:
		v->kind = CT_VALUE_NUMBER;
		v->d = config_setting_get_float(s);
		break;
	case CONFIG_TYPE_STRING:
		v->kind = CT_VALUE_STRING;
		v->s = config_setting_get_string(s);
		break;
	case CONFIG_TYPE_BOOL:
		v->kind = CT_VALUE_BOOL;
		v->b = config_setting_get_bool(s) != 0;
		break;
	case CONFIG_TYPE_ARRAY:
		v->kind = CT_VALUE_ARRAY;
		v->n = (size_t)config_setting_length(s);
		break;
	}
}

static const void *elem(const void *node, size_t j)
{
	return config_setting_get_elem(node, (unsigned)j);
}

/* The value as the file would spell it (strings quoted and shortened). */
static const char *value_str(const void *node, char *buf, size_t len)
{
	const config_setting_t *s = node;

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
		/* a decimal stays one: 5.0, not 5 */
		snprintf(buf, len, "%.15g", config_setting_get_float(s));
		if (isfinite(config_setting_get_float(s)) &&
		    !buf[strspn(buf, "-0123456789")])
			snprintf(buf + strlen(buf), len - strlen(buf), ".0");
		break;
	case CONFIG_TYPE_STRING: {
		char esc[256];

		snprintf(buf, len, "\"%s\"",
			 ct_config_escape(config_setting_get_string(s), 60, esc,
					  sizeof(esc)));
		break;
	}
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

/* "file:line" of a setting, the place a message names. */
static const char *where(const struct ct_value_reader *v, const void *node,
			 char *buf, size_t len)
{
	const config_setting_t *s = node;

	snprintf(buf, len, "%s:%u", setting_file((const struct reader *)v, s),
		 config_setting_source_line(s));
	return buf;
}

/* Records the file libconfig calls raw in c->files, resolved against
 * r->dir; *idx receives its index. */
static ct_status file_index_of(const struct reader *r, const char *raw,
			       unsigned *idx)
{
	struct ct_config *c = r->v.c;
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
		return ct_error_set(r->v.err, CT_ERANGE,
				    "%.64s...: file name longer than %d bytes",
				    raw, CT_CONFIG_PATH_LEN - 1);
	for (size_t i = 0; i < c->n_files; i++) {
		if (strcmp(c->files[i], full) == 0) {
			*idx = (unsigned)i;
			r->raw[i] = raw;
			return CT_OK;
		}
	}
	if (c->n_files == CT_CONFIG_MAX_FILES)
		return ct_error_set(r->v.err, CT_EFULL,
				    "%s: more than %d configuration files (@include)",
				    full, CT_CONFIG_MAX_FILES);
	memcpy(c->files[c->n_files], full, (size_t)n + 1);
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
static ct_status source_of(const struct ct_value_reader *v, const void *node,
			   struct ct_config_source *src)
{
	const config_setting_t *s = node;
	unsigned idx;
	ct_status st = file_index((const struct reader *)v, s, &idx);

	if (st != CT_OK)
		return st;
	*src = (struct ct_config_source){
		.origin = CT_FROM_FILE,
		.file = idx,
		.line = config_setting_source_line(s),
	};
	return CT_OK;
}

static const struct ct_value_ops file_ops = {
	.view = view, .elem = elem, .spell = value_str, .where = where,
	.source = source_of,
};

/* Joins group path and member name; CT_ERANGE when too long. */
static ct_status join_path(const struct reader *r, const config_setting_t *s,
			   const char *group, char *buf, size_t len)
{
	const char *name = config_setting_name(s);
	int n = group[0] ? snprintf(buf, len, "%s.%s", group, name)
			 : snprintf(buf, len, "%s", name);

	if (n < 0 || (size_t)n >= len)
		return ct_error_set(r->v.err, CT_ERANGE,
				    "%s:%u: key %.64s...: name too long",
				    setting_file(r, s),
				    config_setting_source_line(s), buf);
	return CT_OK;
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
	return ct_value_fail(&r->v, s, path, CT_EINVAL, rule);
}

/* The members of an open map: a fixed key of the table (like
 * frontier.types.default) or an entry of any name. */
static ct_status read_map(const struct reader *r, const config_setting_t *g,
			  const char *gpath, const struct ct_map *m)
{
	int n = config_setting_length(g);

	for (int j = 0; j < n; j++) {
		const config_setting_t *s = config_setting_get_elem(g, (unsigned)j);
		char path[CT_KEY_PATH_LEN];
		const struct ct_key *k;
		size_t idx;
		ct_status st = join_path(r, s, gpath, path, sizeof(path));

		if (st != CT_OK)
			return st;
		k = ct_key_find(path, &idx);
		st = k ? ct_value_read_key(&r->v, s, path, k, idx)
		       : ct_value_read_entry(&r->v, s, config_setting_name(s),
					     path, m);
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
		char path[CT_KEY_PATH_LEN];
		const struct ct_key *k;
		const struct ct_map *m;
		size_t idx;
		ct_status st = join_path(r, s, gpath, path, sizeof(path));

		if (st != CT_OK)
			return st;
		if ((k = ct_key_find(path, &idx)) != NULL) {
			st = ct_value_read_key(&r->v, s, path, k, idx);
		} else if ((m = ct_map_find(path)) != NULL) {
			st = need_group(r, s, path);
			if (st == CT_OK)
				st = read_map(r, s, path, m);
		} else if (ct_key_is_group(path)) {
			st = need_group(r, s, path);
			if (st == CT_OK)
				st = read_group(r, s, path);
		} else {
			st = ct_value_unknown(&r->v, s, path);
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
	ct_status st;
	const char *why = ct_config_open_problem(path, &st);

	return why ? ct_error_set(err, st,
				  "%s: cannot open configuration file: %s",
				  path, why)
		   : CT_OK;
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

/* libconfig's syntax error at "file:line"; its "duplicate setting name"
 * says which key, found in the file's text (libconfig does not say). */
static ct_status parse_error(const config_t *cf, const char *main_path,
			     const char *dir, const char *ef,
			     struct ct_error *err)
{
	char file[CT_CONFIG_PATH_LEN + 8], key[CT_KEY_PATH_LEN];
	unsigned line = (unsigned)config_error_line(cf), first;
	const char *text = config_error_text(cf);

	snprintf(file, sizeof(file), "%s%s%s", dir ? dir : "", dir ? "/" : "",
		 ef);
	if (strcmp(text, "syntax error") == 0) {
		/* libconfig says no more: show the line and the grammar */
		char shown[400];
		ct_config_line_text(file, line, shown, sizeof(shown));
		return ct_error_set(err, CT_EINVAL, "%s:%u: syntax error%s%s%s "
				    "(a setting is name = value; with a number "
				    "such as 80 or 0.35, a \"string\", true or "
				    "false, or a { group }; nan and inf are not "
				    "numbers)", file, line, shown[0] ? " in \"" : "",
				    shown, shown[0] ? "\"" : "");
	}
	if (strcmp(text, "duplicate setting name") != 0)
		return ct_error_set(err, CT_EINVAL, "%s:%u: %s", file, line,
				    text);
	ct_config_find_duplicate(file, line, key, sizeof(key), &first);
	if (first)
		return ct_error_set(err, CT_EINVAL,
				    "%s:%u: duplicate setting name %s (set already on line %u)",
				    file, line, key, first);
	/* an included file that sets again what the including file set */
	if (key[0] && strcmp(file, main_path) != 0 &&
	    (first = ct_config_key_line(main_path, key)) != 0)
		return ct_error_set(err, CT_EINVAL,
				    "%s:%u: duplicate setting name %s (set already on %s:%u)",
				    file, line, key, main_path, first);
	return ct_error_set(err, CT_EINVAL, "%s:%u: duplicate setting name%s%s",
			    file, line, key[0] ? " " : "", key);
}

/* Check the @include lines, parse with libconfig, refuse wrapped integers
 * and floats a double cannot hold, then walk the tree. */
ct_status ct_config_read_file(struct ct_config *c, const char *path,
			      struct ct_error *err)
{
	const char *raw[CT_CONFIG_MAX_FILES] = { NULL };
	char dir[CT_CONFIG_PATH_LEN];
	struct reader r = { { &file_ops, c, err }, path, dir, raw };
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

	dir_of(path, dir, sizeof(dir));
	st = ct_config_scan_includes(path, dir, err);
	if (st != CT_OK)
		return st;
	config_init(&cf);
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
			st = parse_error(&cf, path, rel ? dir : NULL, ef, err);
		config_destroy(&cf);
		return st;
	}
	/* The main file first, even when it holds no setting. */
	st = file_index_of(&r, path, &idx);
	if (st == CT_OK)
		st = scan_files(&r, config_root_setting(&cf));
	/* the included files' numbers were checked before libconfig read
	 * them (ct_config_scan_includes); the main file's are now, so that
	 * its syntax errors come first */
	if (st == CT_OK)
		st = ct_config_scan_literals(path, err);
	if (st == CT_OK)
		st = read_group(&r, config_root_setting(&cf), "");
	config_destroy(&cf);
	return st;
}
