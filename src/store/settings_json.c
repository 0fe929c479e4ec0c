/* settings_json.c: struct ct_settings <-> crawltop.settings.value
 * (settings_json.h).
 *
 * Both directions work from the config key table (config_keys.h), the one
 * list of tunables: reading walks the document and looks every member up
 * in the table, as config_file.c walks a libconfig tree; writing builds
 * the nested objects from the table's dotted paths. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_gen.h>
#include <yajl/yajl_tree.h>

#include "config_keys.h"
#include "settings_json.h"

#define PATH_MAX_KEY 128

/* The one key the store spells differently (0001_schema.sql). */
static const char store_prio[] = "default_priority";
static const char config_prio[] = "tier.default_priority";

/* ---- reading ---------------------------------------------------------- */

struct reader {
	struct ct_config *c;
	struct ct_config_source src; /* of every value read */
	char where[64];              /* "crawltop.settings:7" */
	struct ct_error *err;
};

/* A string value's text ("" for any other value). */
static const char *str_of(yajl_val v)
{
	const char *s = YAJL_IS_STRING(v) ? YAJL_GET_STRING(v) : NULL;

	return s ? s : "";
}

/* What a JSON value is, in words, for "must be X, not Y". */
static const char *type_words(yajl_val v)
{
	if (YAJL_IS_OBJECT(v))
		return "an object";
	if (YAJL_IS_ARRAY(v))
		return "an array";
	if (YAJL_IS_STRING(v))
		return "a string";
	if (YAJL_IS_NUMBER(v))
		return "a number";
	if (YAJL_IS_TRUE(v) || YAJL_IS_FALSE(v))
		return "a boolean";
	return "null";
}

/* The value as the document spells it, shortened. */
static const char *value_str(yajl_val v, char *buf, size_t len)
{
	if (YAJL_IS_NUMBER(v))
		snprintf(buf, len, "%.60s", v->u.number.r);
	else if (YAJL_IS_STRING(v))
		snprintf(buf, len, "\"%.60s%s\"", str_of(v),
			 strlen(str_of(v)) > 60 ? "..." : "");
	else if (YAJL_IS_TRUE(v))
		snprintf(buf, len, "true");
	else if (YAJL_IS_FALSE(v))
		snprintf(buf, len, "false");
	else if (YAJL_IS_OBJECT(v))
		snprintf(buf, len, "{...}");
	else if (YAJL_IS_ARRAY(v))
		snprintf(buf, len, "[...]");
	else
		snprintf(buf, len, "null");
	return buf;
}

/* "crawltop.settings:7: path = value: rule": the config layer's shape. */
static ct_status fail_value(const struct reader *r, yajl_val v,
			    const char *path, ct_status st, const char *rule)
{
	char b[96];

	return ct_error_set(r->err, st, "%s: %s = %s: %s", r->where, path,
			    value_str(v, b, sizeof(b)), rule);
}

/* A number in [min, max] (flags as the key table); whole numbers only
 * when whole is set. */
static ct_status read_number(const struct reader *r, yajl_val v,
			     const char *path, bool whole, double min,
			     double max, unsigned flags, double *d,
			     long long *i)
{
	char rule[96];

	if (!YAJL_IS_NUMBER(v)) {
		snprintf(rule, sizeof(rule), "must be a number, not %s",
			 type_words(v));
		return fail_value(r, v, path, CT_EINVAL, rule);
	}
	const char *t = v->u.number.r;
	*d = strtod(t, NULL);
	*i = 0;
	if (whole) {
		if (strpbrk(t, ".eE"))
			return fail_value(r, v, path, CT_EINVAL,
					  "must be a whole number (no decimal point)");
		*i = strtoll(t, NULL, 10);
		*d = (double)*i;
	}
	if (!ct_key_range_ok(min, max, flags, *d))
		return fail_value(r, v, path, CT_ERANGE,
				  ct_key_range_str(min, max, flags, rule,
						   sizeof(rule)));
	return CT_OK;
}

/* A token list: an array of strings of a-z and 0-9 (config_file.c's
 * rule), replacing the whole list. */
static ct_status read_tokens(const struct reader *r, yajl_val v,
			     const char *path, const struct ct_key *k)
{
	size_t *count;
	char (*tok)[CT_NAME_LEN] = ct_key_tokens(k, &r->c->settings, &count);
	char rule[96];

	if (!YAJL_IS_ARRAY(v)) {
		snprintf(rule, sizeof(rule),
			 "must be an array of strings [\"a\", \"b\"], not %s",
			 type_words(v));
		return fail_value(r, v, path, CT_EINVAL, rule);
	}
	size_t n = v->u.array.len;
	if (n > CT_FRONTIER_MAX_TOKENS) {
		snprintf(rule, sizeof(rule), "%zu tokens, at most %d allowed", n,
			 CT_FRONTIER_MAX_TOKENS);
		return fail_value(r, v, path, CT_EFULL, rule);
	}
	for (size_t j = 0; j < n; j++) {
		yajl_val e = v->u.array.values[j];
		char epath[PATH_MAX_KEY + 16];

		snprintf(epath, sizeof(epath), "%s[%zu]", path, j);
		if (!YAJL_IS_STRING(e)) {
			snprintf(rule, sizeof(rule), "must be a string, not %s",
				 type_words(e));
			return fail_value(r, e, epath, CT_EINVAL, rule);
		}
		const char *t = str_of(e);
		if (t[0] == '\0')
			return fail_value(r, e, epath, CT_EINVAL,
					  "must not be empty");
		if (strlen(t) >= CT_NAME_LEN) {
			snprintf(rule, sizeof(rule), "longer than %d characters",
				 CT_NAME_LEN - 1);
			return fail_value(r, e, epath, CT_EINVAL, rule);
		}
		for (const char *p = t; *p; p++)
			if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9')))
				return fail_value(r, e, epath, CT_EINVAL,
						  "must hold only a-z and 0-9");
	}
	for (size_t j = 0; j < n; j++) {
		memset(tok[j], 0, CT_NAME_LEN);
		memcpy(tok[j], str_of(v->u.array.values[j]),
		       strlen(str_of(v->u.array.values[j])));
	}
	*count = n;
	return CT_OK;
}

/* One row of the key table: type, range, store, source. */
static ct_status read_key(const struct reader *r, yajl_val v, const char *path,
			  const struct ct_key *k, size_t idx)
{
	struct ct_settings *set = &r->c->settings;
	ct_status st = CT_OK;
	double d;
	long long i;
	char rule[96];

	switch (k->type) {
	case CT_KEY_BOOL:
		if (!YAJL_IS_TRUE(v) && !YAJL_IS_FALSE(v)) {
			snprintf(rule, sizeof(rule), "must be true or false, not %s",
				 type_words(v));
			return fail_value(r, v, path, CT_EINVAL, rule);
		}
		ct_key_put_bool(k, set, YAJL_IS_TRUE(v));
		break;
	case CT_KEY_TOKENS:
		st = read_tokens(r, v, path, k);
		break;
	case CT_KEY_DOUBLE:
	case CT_KEY_INT:
	case CT_KEY_LONG:
	case CT_KEY_SIZE:
		st = read_number(r, v, path, k->type != CT_KEY_DOUBLE, k->min,
				 k->max, k->flags, &d, &i);
		if (st == CT_OK)
			ct_key_put_number(k, set, d, i);
		break;
	}
	if (st == CT_OK)
		r->c->key_src[idx] = r->src;
	return st;
}

/* One entry of an open map: a number, or an alias string. */
static ct_status read_map_entry(const struct reader *r, yajl_val v,
				const char *name, const char *path,
				const struct ct_map *m)
{
	struct ct_frontier_params *fp = &r->c->settings.frontier;
	char rule[96];
	ct_status st;

	if (name[0] == '\0' || strlen(name) >= CT_NAME_LEN) {
		snprintf(rule, sizeof(rule), "name must be 1 to %d characters",
			 CT_NAME_LEN - 1);
		return fail_value(r, v, path, CT_EINVAL, rule);
	}
	if (m->kind == CT_MAP_ALIASES) {
		if (!YAJL_IS_STRING(v)) {
			snprintf(rule, sizeof(rule),
				 "must be a string naming a method, not %s",
				 type_words(v));
			return fail_value(r, v, path, CT_EINVAL, rule);
		}
		const char *to = str_of(v);
		if (to[0] == '\0' || strlen(to) >= CT_NAME_LEN) {
			snprintf(rule, sizeof(rule), "must be 1 to %d characters",
				 CT_NAME_LEN - 1);
			return fail_value(r, v, path, CT_EINVAL, rule);
		}
		st = ct_frontier_set_alias(fp, name, to);
		for (size_t a = 0; st == CT_OK && a < fp->n_aliases; a++)
			if (strcmp(fp->aliases[a].from, name) == 0)
				r->c->alias_src[a] = r->src;
	} else {
		double d;
		long long i;

		st = read_number(r, v, path, false, m->min, m->max, m->flags,
				 &d, &i);
		if (st != CT_OK)
			return st;
		st = m->kind == CT_MAP_TYPES ? ct_frontier_set_type(fp, name, d)
					     : ct_frontier_set_bonus(fp, name, d);
	}
	if (st == CT_EFULL) {
		snprintf(rule, sizeof(rule), "more than %d entries in %s",
			 CT_FRONTIER_MAX_NAMES, m->path);
		return fail_value(r, v, path, CT_EFULL, rule);
	}
	if (st != CT_OK)
		return fail_value(r, v, path, st, "refused by the frontier table");
	return CT_OK;
}

/* The key-table path of a document path: the store's default_priority
 * is the config's tier.default_priority. */
static const char *config_path(const char *doc_path)
{
	return strcmp(doc_path, store_prio) == 0 ? config_prio : doc_path;
}

static ct_status read_object(const struct reader *r, yajl_val o,
			     const char *gpath, const struct ct_map *m);

/* Members of an object: keys, maps, groups; at the top level, members
 * that hold no key of the table are other readers' and skipped. */
static ct_status read_object(const struct reader *r, yajl_val o,
			     const char *gpath, const struct ct_map *m)
{
	for (size_t j = 0; j < o->u.object.len; j++) {
		const char *name = o->u.object.keys[j];
		yajl_val v = o->u.object.values[j];
		char path[PATH_MAX_KEY];
		int n = gpath[0] ? snprintf(path, sizeof(path), "%s.%s", gpath, name)
				 : snprintf(path, sizeof(path), "%s", name);
		const char *cp = config_path(path);
		const struct ct_key *k;
		const struct ct_map *sub;
		size_t idx;
		ct_status st;

		if (n < 0 || (size_t)n >= sizeof(path))
			return ct_error_set(r->err, CT_ERANGE, "%s: key %.64s...: "
					    "name too long", r->where, path);
		if ((k = ct_key_find(cp, &idx)) != NULL) {
			st = read_key(r, v, cp, k, idx);
		} else if (m) {
			st = read_map_entry(r, v, name, path, m);
		} else if ((sub = ct_map_find(cp)) != NULL ||
			   ct_key_is_group(cp)) {
			if (!YAJL_IS_OBJECT(v)) {
				char rule[96];
				snprintf(rule, sizeof(rule), "must be an object, "
					 "not %s", type_words(v));
				return fail_value(r, v, cp, CT_EINVAL, rule);
			}
			st = read_object(r, v, cp, sub);
		} else if (!gpath[0]) {
			continue; /* "store" and the like: not ours */
		} else {
			char near[PATH_MAX_KEY];
			ct_key_suggest(cp, near, sizeof(near));
			return ct_error_set(r->err, CT_EINVAL, "%s: unknown key "
					    "%s%s%s%s", r->where, cp,
					    near[0] ? " (did you mean " : "", near,
					    near[0] ? "?)" : "");
		}
		if (st != CT_OK)
			return st;
	}
	return CT_OK;
}

ct_status ct_settings_json_read(const char *json, int version,
				struct ct_config *c, struct ct_error *err)
{
	struct reader r = {.c = c, .err = err};
	char ebuf[256];
	size_t fi;

	snprintf(r.where, sizeof(r.where), CT_SETTINGS_SOURCE ":%d", version);
	for (fi = 0; fi < c->n_files; fi++)
		if (strcmp(c->files[fi], CT_SETTINGS_SOURCE) == 0)
			break;
	if (fi == c->n_files) {
		if (c->n_files == CT_CONFIG_MAX_FILES)
			return ct_error_set(err, CT_EFULL, "%s: no room for "
					    "another source", r.where);
		snprintf(c->files[c->n_files++], CT_CONFIG_PATH_LEN, "%s",
			 CT_SETTINGS_SOURCE);
	}
	r.src = (struct ct_config_source){.origin = CT_FROM_FILE,
		.file = (unsigned)fi, .line = version > 0 ? (unsigned)version : 0};
	yajl_val doc = yajl_tree_parse(json ? json : "", ebuf, sizeof(ebuf));
	if (!doc) {
		for (char *p = ebuf; *p; p++)
			if (*p == '\n')
				*p = ' ';
		return ct_error_set(err, CT_EINVAL, "%s: not JSON: %s", r.where,
				    ebuf[0] ? ebuf : "parse error");
	}
	ct_status st = YAJL_IS_OBJECT(doc) ? read_object(&r, doc, "", NULL) :
		       ct_error_set(err, CT_EINVAL, "%s: the settings must be "
				    "a JSON object, not %s", r.where,
				    type_words(doc));
	yajl_tree_free(doc);
	return st;
}

ct_status ct_settings_from_json(const char *json, int version,
				struct ct_settings *out, struct ct_error *err)
{
	struct ct_config *c = malloc(sizeof(*c));
	ct_status st;

	if (!c)
		return ct_error_set(err, CT_ENOMEM, "settings: out of memory");
	ct_config_init(c);
	st = ct_settings_json_read(json, version, c, err);
	if (st == CT_OK)
		st = ct_config_validate(c, err);
	if (st == CT_OK)
		*out = c->settings;
	free(c);
	return st;
}

/* ---- writing ---------------------------------------------------------- */

/* A node of the document being written: a group (object) with children,
 * a key of the table, or an open map's entries (inside a group). */
struct node {
	char name[48];
	const struct ct_key *key;  /* leaf */
	const struct ct_map *map;  /* group whose entries this map adds */
	int child, next;           /* indexes into the node array; -1 none */
};

#define MAX_NODES 192

struct tree {
	struct node n[MAX_NODES];
	int used;
};

/* The child of parent named name, created when missing (at the end). */
static int child_of(struct tree *t, int parent, const char *name, size_t len)
{
	int *link = &t->n[parent].child;

	while (*link >= 0) {
		struct node *c = &t->n[*link];
		if (strlen(c->name) == len && strncmp(c->name, name, len) == 0)
			return *link;
		link = &c->next;
	}
	if (t->used == MAX_NODES || len >= sizeof(t->n[0].name))
		return -1;
	int i = t->used++;
	memset(&t->n[i], 0, sizeof(t->n[i]));
	memcpy(t->n[i].name, name, len);
	t->n[i].child = t->n[i].next = -1;
	*link = i;
	return i;
}

/* The node for a dotted document path, groups created on the way. */
static int node_at(struct tree *t, const char *path)
{
	int at = 0;

	while (at >= 0) {
		const char *dot = strchr(path, '.');
		size_t len = dot ? (size_t)(dot - path) : strlen(path);
		at = child_of(t, at, path, len);
		if (!dot)
			break;
		path = dot + 1;
	}
	return at;
}

/* The shortest decimal that reads back as d. */
static void put_double(yajl_gen g, double d)
{
	char b[40];

	if (d == floor(d) && fabs(d) < 1e15) {
		snprintf(b, sizeof(b), "%.0f", d);
	} else {
		for (int p = 1; p <= 17; p++) {
			snprintf(b, sizeof(b), "%.*g", p, d);
			if (strtod(b, NULL) == d)
				break;
		}
	}
	yajl_gen_number(g, b, strlen(b));
}

static void put_string(yajl_gen g, const char *s)
{
	yajl_gen_string(g, (const unsigned char *)s, strlen(s));
}

/* One key's value. */
static void put_key(yajl_gen g, const struct ct_key *k,
		    const struct ct_settings *s)
{
	switch (k->type) {
	case CT_KEY_BOOL:
		yajl_gen_bool(g, ct_key_get(k, s) != 0);
		break;
	case CT_KEY_TOKENS: {
		size_t *count;
		char (*tok)[CT_NAME_LEN] = ct_key_tokens(
			k, (struct ct_settings *)s, &count); /* read only */
		yajl_gen_array_open(g);
		for (size_t i = 0; i < *count; i++)
			put_string(g, tok[i]);
		yajl_gen_array_close(g);
		break;
	}
	case CT_KEY_DOUBLE:
		put_double(g, ct_key_get(k, s));
		break;
	case CT_KEY_INT:
	case CT_KEY_LONG:
	case CT_KEY_SIZE: {
		char b[32];
		snprintf(b, sizeof(b), "%.0f", ct_key_get(k, s));
		yajl_gen_number(g, b, strlen(b));
		break;
	}
	}
}

/* An open map's entries, as members of the current object. */
static void put_map(yajl_gen g, const struct ct_map *m,
		    const struct ct_settings *s)
{
	const struct ct_frontier_params *p = &s->frontier;

	if (m->kind == CT_MAP_ALIASES) {
		for (size_t i = 0; i < p->n_aliases; i++) {
			put_string(g, p->aliases[i].from);
			put_string(g, p->aliases[i].to);
		}
		return;
	}
	const struct ct_named_value *v = m->kind == CT_MAP_TYPES ? p->types
								 : p->bonuses;
	size_t n = m->kind == CT_MAP_TYPES ? p->n_types : p->n_bonuses;
	for (size_t i = 0; i < n; i++) {
		put_string(g, v[i].name);
		put_double(g, v[i].value);
	}
}

static void put_node(yajl_gen g, const struct tree *t, int i,
		     const struct ct_settings *s)
{
	const struct node *nd = &t->n[i];

	if (nd->key) {
		put_key(g, nd->key, s);
		return;
	}
	yajl_gen_map_open(g);
	if (nd->map)
		put_map(g, nd->map, s);
	for (int c = nd->child; c >= 0; c = t->n[c].next) {
		put_string(g, t->n[c].name);
		put_node(g, t, c, s);
	}
	yajl_gen_map_close(g);
}

/* Copy a parsed value (another reader's member of base). */
static void put_value(yajl_gen g, yajl_val v)
{
	if (YAJL_IS_OBJECT(v)) {
		yajl_gen_map_open(g);
		for (size_t i = 0; i < v->u.object.len; i++) {
			put_string(g, v->u.object.keys[i]);
			put_value(g, v->u.object.values[i]);
		}
		yajl_gen_map_close(g);
	} else if (YAJL_IS_ARRAY(v)) {
		yajl_gen_array_open(g);
		for (size_t i = 0; i < v->u.array.len; i++)
			put_value(g, v->u.array.values[i]);
		yajl_gen_array_close(g);
	} else if (YAJL_IS_STRING(v)) {
		put_string(g, str_of(v));
	} else if (YAJL_IS_NUMBER(v)) {
		yajl_gen_number(g, v->u.number.r, strlen(v->u.number.r));
	} else if (YAJL_IS_TRUE(v) || YAJL_IS_FALSE(v)) {
		yajl_gen_bool(g, YAJL_IS_TRUE(v));
	} else {
		yajl_gen_null(g);
	}
}

/* Whether a top-level member name holds settings keys (ours). */
static bool owned(const char *name)
{
	return strcmp(name, store_prio) == 0 || ct_key_find(name, NULL) ||
	       ct_key_is_group(name);
}

char *ct_settings_to_json(const struct ct_settings *s, const char *base,
			  struct ct_error *err)
{
	struct tree *t = calloc(1, sizeof(*t));
	yajl_val doc = NULL;
	char ebuf[256];
	char *out = NULL;

	if (!t) {
		ct_error_set(err, CT_ENOMEM, "settings: out of memory");
		return NULL;
	}
	for (size_t i = 0; i < ct_n_keys; i++)
		if (!isfinite(ct_key_get(&ct_keys[i], s)) &&
		    ct_keys[i].type != CT_KEY_TOKENS) {
			ct_error_set(err, CT_ERANGE, "settings: %s is not finite",
				     ct_keys[i].path);
			goto out;
		}
	if (base && !(doc = yajl_tree_parse(base, ebuf, sizeof(ebuf)))) {
		ct_error_set(err, CT_EINVAL, "settings: the base document is "
			     "not JSON: %s", ebuf);
		goto out;
	}
	if (doc && !YAJL_IS_OBJECT(doc)) {
		ct_error_set(err, CT_EINVAL, "settings: the base document is "
			     "not a JSON object");
		goto out;
	}
	t->used = 1;
	t->n[0].child = t->n[0].next = -1;
	/* keys in table order, each map at its group */
	for (size_t i = 0; i < ct_n_keys; i++) {
		const char *p = strcmp(ct_keys[i].path, config_prio) == 0 ?
				store_prio : ct_keys[i].path;
		int at = node_at(t, p);
		if (at < 0)
			goto full;
		t->n[at].key = &ct_keys[i];
	}
	for (size_t i = 0; i < ct_n_maps; i++) {
		int at = node_at(t, ct_maps[i].path);
		if (at < 0)
			goto full;
		t->n[at].map = &ct_maps[i];
	}
	yajl_gen g = yajl_gen_alloc(NULL);
	if (!g) {
		ct_error_set(err, CT_ENOMEM, "settings: out of memory");
		goto out;
	}
	yajl_gen_map_open(g);
	for (int c = t->n[0].child; c >= 0; c = t->n[c].next) {
		put_string(g, t->n[c].name);
		put_node(g, t, c, s);
	}
	for (size_t i = 0; doc && i < doc->u.object.len; i++) {
		if (owned(doc->u.object.keys[i]))
			continue;
		put_string(g, doc->u.object.keys[i]);
		put_value(g, doc->u.object.values[i]);
	}
	yajl_gen_map_close(g);
	const unsigned char *buf;
	size_t len;
	if (yajl_gen_get_buf(g, &buf, &len) == yajl_gen_status_ok &&
	    (out = malloc(len + 1)) != NULL) {
		memcpy(out, buf, len);
		out[len] = '\0';
	} else {
		ct_error_set(err, CT_ENOMEM, "settings: out of memory");
	}
	yajl_gen_free(g);
	goto out;
full:
	ct_error_set(err, CT_EFULL, "settings: more than %d keys and groups",
		     MAX_NODES);
out:
	if (doc)
		yajl_tree_free(doc);
	free(t);
	return out;
}
