/* settings_json.c: struct ct_settings <-> crawltop.settings.value
 * (settings_json.h).
 *
 * Both directions work from the config key table (config_keys.h), the one
 * list of tunables: reading walks the document, looks every member up in
 * the table and hands its value to config_value.c, as config_file.c does
 * with a libconfig tree; writing builds the nested objects from the
 * table's dotted paths. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_gen.h>
#include <yajl/yajl_tree.h>

#include "config_keys.h"
#include "crawltop/number.h"
#include "settings_json.h"

/* The one key the store spells differently (0001_schema.sql). */
static const char store_prio[] = "default_priority";
static const char config_prio[] = "tier.default_priority";

/* ---- reading ---------------------------------------------------------- */

struct reader {
	struct ct_value_reader v;    /* first: the ops cast back to the reader */
	struct ct_config_source src; /* of every value read */
	char where[64];              /* "crawltop.settings:7" */
};

/* A string value's text ("" for any other value). */
static const char *str_of(const struct yajl_val_s *v)
{
	const char *s = YAJL_IS_STRING(v) ? YAJL_GET_STRING(v) : NULL;

	return s ? s : "";
}

/* What a JSON value is, in words, for "must be X, not Y". */
static const char *type_words(const struct yajl_val_s *v)
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

/* What a JSON value holds, for the shared readers; a number is whole when
 * written without a decimal point or exponent. */
static void view(const void *node, struct ct_value *v)
{
	const struct yajl_val_s *j = node;

	*v = (struct ct_value){ .kind = CT_VALUE_OTHER,
				.words = type_words(j) };
	if (YAJL_IS_NUMBER(j)) {
		v->kind = CT_VALUE_NUMBER;
		/* JSON numbers are plain decimals: CT_ERANGE is the one
		 * refusal (1e-400, 1e400) */
		v->unheld = ct_number_read(j->u.number.r, true, &v->d) ==
			    CT_ERANGE;
		v->whole = !strpbrk(j->u.number.r, ".eE");
		if (v->whole)
			v->i = strtoll(j->u.number.r, NULL, 10);
	} else if (YAJL_IS_STRING(j)) {
		v->kind = CT_VALUE_STRING;
		v->s = str_of(j);
	} else if (YAJL_IS_TRUE(j) || YAJL_IS_FALSE(j)) {
		v->kind = CT_VALUE_BOOL;
		v->b = YAJL_IS_TRUE(j);
	} else if (YAJL_IS_ARRAY(j)) {
		v->kind = CT_VALUE_ARRAY;
		v->n = j->u.array.len;
	}
}

static const void *elem(const void *node, size_t j)
{
	return ((const struct yajl_val_s *)node)->u.array.values[j];
}

/* The value as the document spells it, shortened. */
static const char *value_str(const void *node, char *buf, size_t len)
{
	const struct yajl_val_s *v = node;

	if (YAJL_IS_NUMBER(v))
		snprintf(buf, len, "%.60s%s", v->u.number.r,
			 strlen(v->u.number.r) > 60 ? "..." : "");
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

/* Every value stands at "crawltop.settings:7" and comes from there. */
static const char *where(const struct ct_value_reader *v, const void *node,
			 char *buf, size_t len)
{
	return ((const struct reader *)v)->where;
}

static ct_status source(const struct ct_value_reader *v, const void *node,
			struct ct_config_source *src)
{
	*src = ((const struct reader *)v)->src;
	return CT_OK;
}

static const struct ct_value_ops json_ops = {
	.view = view, .elem = elem, .spell = value_str, .where = where,
	.source = source,
};

/* The key-table path of a document path: the store's default_priority
 * is the config's tier.default_priority. */
static const char *config_path(const char *doc_path)
{
	return strcmp(doc_path, store_prio) == 0 ? config_prio : doc_path;
}

/* Members of an object: keys, maps, groups; at the top level, members
 * that hold no key of the table are other readers' and skipped. */
static ct_status read_object(const struct reader *r, yajl_val o,
			     const char *gpath, const struct ct_map *m)
{
	for (size_t j = 0; j < o->u.object.len; j++) {
		const char *name = o->u.object.keys[j];
		yajl_val v = o->u.object.values[j];
		char path[CT_KEY_PATH_LEN];
		int n = gpath[0] ? snprintf(path, sizeof(path), "%s.%s", gpath, name)
				 : snprintf(path, sizeof(path), "%s", name);
		const char *cp = config_path(path);
		const struct ct_key *k;
		const struct ct_map *sub;
		size_t idx;
		ct_status st;

		if (n < 0 || (size_t)n >= sizeof(path))
			return ct_error_set(r->v.err, CT_ERANGE, "%s: key %.64s...: "
					    "name too long", r->where, path);
		if ((k = ct_key_find(cp, &idx)) != NULL) {
			st = ct_value_read_key(&r->v, v, cp, k, idx);
		} else if (m) {
			st = ct_value_read_entry(&r->v, v, name, path, m);
		} else if ((sub = ct_map_find(cp)) != NULL ||
			   ct_key_is_group(cp)) {
			if (!YAJL_IS_OBJECT(v)) {
				char rule[96];
				snprintf(rule, sizeof(rule), "must be an object, "
					 "not %s", type_words(v));
				return ct_value_fail(&r->v, v, cp, CT_EINVAL, rule);
			}
			st = read_object(r, v, cp, sub);
		} else if (!gpath[0]) {
			continue; /* "store" and the like: not ours */
		} else {
			return ct_value_unknown(&r->v, v, cp);
		}
		if (st != CT_OK)
			return st;
	}
	return CT_OK;
}

ct_status ct_settings_json_read(const char *json, int version,
				struct ct_config *c, struct ct_error *err)
{
	struct reader r = {.v = {&json_ops, c, err}};
	char ebuf[256];
	size_t fi;

	if (version > 0)
		snprintf(r.where, sizeof(r.where), CT_SETTINGS_SOURCE ":%d",
			 version);
	else /* a document not written yet: no version to name */
		snprintf(r.where, sizeof(r.where), CT_SETTINGS_SOURCE
			 " (the new version)");
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

/* A new version being checked before it is written: the keys it sets
 * anew (config spellings) and the version it starts from. */
struct draft {
	const char *const *keys;
	size_t n_keys;
	int base_version;
	const char *label;
};

/* The index of source file name in c->files, added when missing; -1 when
 * there is no room. */
static int file_index(struct ct_config *c, const char *name)
{
	for (size_t i = 0; i < c->n_files; i++)
		if (strcmp(c->files[i], name) == 0)
			return (int)i;
	if (c->n_files == CT_CONFIG_MAX_FILES)
		return -1;
	snprintf(c->files[c->n_files], CT_CONFIG_PATH_LEN, "%s", name);
	return (int)c->n_files++;
}

/* Sources of a draft's values: d->label for the keys it sets anew, the
 * version it starts from for the others. */
static void draft_sources(struct ct_config *c, const struct draft *d)
{
	int doc = file_index(c, CT_SETTINGS_SOURCE), cli = file_index(c, d->label);
	for (size_t i = 0; doc >= 0 && i < ct_n_keys; i++) {
		struct ct_config_source *src = &c->key_src[i];
		if (src->origin != CT_FROM_FILE || src->file != (unsigned)doc)
			continue;
		src->line = d->base_version > 0 ? (unsigned)d->base_version : 0;
		for (size_t k = 0; cli >= 0 && k < d->n_keys; k++)
			if (strcmp(config_path(d->keys[k]), ct_keys[i].path) == 0) {
				src->file = (unsigned)cli;
				src->line = 0;
			}
	}
}

/* Defaults, the document, the environment when env (listing in env_out
 * the variables that overrode a value), then ct_config_validate(). */
static ct_status from_json(const char *json, int version, bool env,
			   char *env_out, size_t env_len, const struct draft *d,
			   struct ct_settings *out, struct ct_error *err)
{
	struct ct_config *c = malloc(sizeof(*c));
	ct_status st;

	if (!c)
		return ct_error_set(err, CT_ENOMEM, "settings: out of memory");
	ct_config_init(c);
	st = ct_settings_json_read(json, version, c, err);
	if (st == CT_OK && d)
		draft_sources(c, d);
	if (st == CT_OK && env)
		st = ct_config_apply_env(c, err);
	if (st == CT_OK)
		st = ct_config_validate(c, err);
	if (st == CT_OK)
		*out = c->settings;
	if (st == CT_OK && env && env_len) {
		size_t n = 0;
		env_out[0] = '\0';
		for (size_t i = 0; i < ct_n_keys && n < env_len; i++) {
			if (c->key_src[i].origin != CT_FROM_ENV)
				continue;
			const char *v = getenv(ct_keys[i].env);
			int w = snprintf(env_out + n, env_len - n, "%s%s=%s",
					 n ? " " : "", ct_keys[i].env, v ? v : "");
			n = w < 0 ? env_len : n + (size_t)w;
		}
	}
	free(c);
	return st;
}

ct_status ct_settings_from_json(const char *json, int version,
				struct ct_settings *out, struct ct_error *err)
{
	return from_json(json, version, false, NULL, 0, NULL, out, err);
}

ct_status ct_settings_from_json_draft(const char *json, int base_version,
				      const char *const *keys, size_t n_keys,
				      const char *label, struct ct_settings *out,
				      struct ct_error *err)
{
	struct draft d = {keys, n_keys, base_version, label};
	return from_json(json, 0, false, NULL, 0, &d, out, err);
}

ct_status ct_settings_from_json_env(const char *json, int version,
				    struct ct_settings *out, char *env,
				    size_t env_len, struct ct_error *err)
{
	return from_json(json, version, true, env, env_len, NULL, out, err);
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
