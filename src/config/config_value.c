/* config_value.c: one value of a settings tree checked against its row of
 * the key table (or its open map) and stored, with its source.
 *
 * config_file.c walks libconfig trees and settings_json.c (src/store)
 * JSON ones; both hand every value here through struct ct_value_ops, so
 * a type or range rule and its words exist once. The walk, and how a
 * message names the value's place, stay with them. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "config_keys.h"

/* "where: path = value: rule": the one shape of a value error. */
ct_status ct_value_fail(const struct ct_value_reader *r, const void *node,
			const char *path, ct_status st, const char *rule)
{
	char at[CT_CONFIG_PATH_LEN + 16], v[96], msg[CT_ERROR_LEN];

	snprintf(msg, sizeof(msg), "%s: %s = %s: %s",
		 r->ops->where(r, node, at, sizeof(at)), path,
		 r->ops->spell(node, v, sizeof(v)), rule);
	/* the path and the value are the document's own bytes (a stored
	 * version's, which SQL wrote): no control character of theirs may
	 * reach a terminal through the message */
	for (char *c = msg; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
	return ct_error_set(r->err, st, "%s", msg);
}

/* "must be X, not Y" for a value of the wrong type. */
static ct_status fail_type(const struct ct_value_reader *r, const void *node,
			   const char *path, const char *want,
			   const struct ct_value *v)
{
	char rule[128];

	snprintf(rule, sizeof(rule), "must be %s, not %s", want, v->words);
	return ct_value_fail(r, node, path, CT_EINVAL, rule);
}

/* A name of 1 to CT_NAME_LEN - 1 characters. The rule starts with pre. */
static ct_status check_len(const struct ct_value_reader *r, const void *node,
			   const char *path, const char *s, const char *pre)
{
	char rule[96];

	if (s[0] != '\0' && strlen(s) < CT_NAME_LEN)
		return CT_OK;
	if (s[0] == '\0')
		snprintf(rule, sizeof(rule), "%smust not be empty", pre);
	else
		snprintf(rule, sizeof(rule), "%slonger than %d characters", pre,
			 CT_NAME_LEN - 1);
	return ct_value_fail(r, node, path, CT_EINVAL, rule);
}

/* A map entry's name, or the method an alias names: 1 to CT_NAME_LEN - 1
 * of A-Z, a-z, 0-9, '_' and '-', the characters of a task's type and
 * discovery method (the store's tasks.type). The rule starts with pre. */
static ct_status check_name(const struct ct_value_reader *r, const void *node,
			    const char *path, const char *s, const char *pre)
{
	static const char chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				    "abcdefghijklmnopqrstuvwxyz0123456789_-";
	char rule[96];
	ct_status st = check_len(r, node, path, s, pre);

	if (st != CT_OK || s[strspn(s, chars)] == '\0')
		return st;
	snprintf(rule, sizeof(rule), "%sholds only A-Z, a-z, 0-9, _ and -",
		 pre);
	return ct_value_fail(r, node, path, CT_EINVAL, rule);
}

/* A number in [min, max] with the open ends of flags; whole (no decimal
 * point) when the key stores an integer. */
static ct_status read_number(const struct ct_value_reader *r, const void *node,
			     const struct ct_value *v, const char *path,
			     bool need_whole, double min, double max,
			     unsigned flags, double *d, long long *i)
{
	char rule[192];

	if (v->kind != CT_VALUE_NUMBER)
		return fail_type(r, node, path,
				 need_whole ? "a whole number" : "a number", v);
	if (need_whole && !v->whole)
		return ct_value_fail(r, node, path, CT_EINVAL,
				     "must be a whole number (no decimal point)");
	/* a subnormal (0 < |x| < DBL_MIN) is refused as the store's
	 * setting_number_fault refuses it: it reads with lost precision, and
	 * the literal that gave it was most likely meant otherwise */
	if (v->unheld || (v->d != 0 && fabs(v->d) < DBL_MIN)) {
		snprintf(rule, sizeof(rule), "a double cannot hold it (it "
			 "would read as %g; a number other than 0 must be at "
			 "least 2.2250738585072014e-308 in magnitude)", v->d);
		return ct_value_fail(r, node, path, CT_ERANGE, rule);
	}
	*d = need_whole ? (double)v->i : v->d;
	*i = v->i;
	if (!ct_key_range_ok(min, max, flags, *d))
		return ct_value_fail(r, node, path, CT_ERANGE,
				     ct_key_range_str(min, max, flags, rule,
						      sizeof(rule)));
	return CT_OK;
}

/* A token list: an array of strings of a-z and 0-9, as the engine splits
 * and lower-cases the words it matches. It replaces the whole list, and
 * only when every token is good. */
static ct_status read_tokens(const struct ct_value_reader *r, const void *node,
			     const struct ct_value *v, const char *path,
			     const struct ct_key *k)
{
	const char *chars = "must hold only a-z and 0-9 (tokens match the "
		"lower-cased words of type, method and URL path)";
	size_t *count;
	char (*tok)[CT_NAME_LEN] = ct_key_tokens(k, &r->c->settings, &count);
	char rule[96];
	struct ct_value e;

	if (v->kind != CT_VALUE_ARRAY)
		return fail_type(r, node, path,
				 "an array of strings [\"a\", \"b\"]", v);
	if (v->n > CT_FRONTIER_MAX_TOKENS) {
		snprintf(rule, sizeof(rule), "%zu tokens, at most %d allowed",
			 v->n, CT_FRONTIER_MAX_TOKENS);
		return ct_value_fail(r, node, path, CT_EFULL, rule);
	}
	for (size_t j = 0; j < v->n; j++) {
		const void *en = r->ops->elem(node, j);
		char epath[CT_KEY_PATH_LEN + 16];
		ct_status st;

		snprintf(epath, sizeof(epath), "%s[%zu]", path, j);
		r->ops->view(en, &e);
		if (e.kind != CT_VALUE_STRING)
			return fail_type(r, en, epath, "a string", &e);
		st = check_len(r, en, epath, e.s, "");
		if (st != CT_OK)
			return st;
		if (e.s[strspn(e.s, "abcdefghijklmnopqrstuvwxyz0123456789")])
			return ct_value_fail(r, en, epath, CT_EINVAL, chars);
	}
	for (size_t j = 0; j < v->n; j++) {
		r->ops->view(r->ops->elem(node, j), &e);
		memset(tok[j], 0, CT_NAME_LEN);
		memcpy(tok[j], e.s, strlen(e.s));
	}
	*count = v->n;
	return CT_OK;
}

/* Type check, range check, store, source. */
ct_status ct_value_read_key(const struct ct_value_reader *r, const void *node,
			    const char *path, const struct ct_key *k,
			    size_t idx)
{
	struct ct_settings *set = &r->c->settings;
	struct ct_config_source src;
	struct ct_value v;
	ct_status st = r->ops->source(r, node, &src);
	double d;
	long long i;

	if (st != CT_OK)
		return st;
	r->ops->view(node, &v);
	switch (k->type) {
	case CT_KEY_BOOL:
		if (v.kind != CT_VALUE_BOOL)
			return fail_type(r, node, path, "true or false", &v);
		ct_key_put_bool(k, set, v.b);
		break;
	case CT_KEY_TOKENS:
		st = read_tokens(r, node, &v, path, k);
		break;
	case CT_KEY_DOUBLE:
	case CT_KEY_INT:
	case CT_KEY_LONG:
	case CT_KEY_SIZE:
		st = read_number(r, node, &v, path, k->type != CT_KEY_DOUBLE,
				 k->min, k->max, k->flags, &d, &i);
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

/* A number (types, bonuses) or an alias string naming a method. */
ct_status ct_value_read_entry(const struct ct_value_reader *r,
			      const void *node, const char *name,
			      const char *path, const struct ct_map *m)
{
	struct ct_frontier_params *fp = &r->c->settings.frontier;
	struct ct_value v;
	char rule[CT_KEY_PATH_LEN + 96];
	const char *near = ct_map_reserved_near(m, name);
	ct_status st = check_name(r, node, path, name, "name ");

	if (st != CT_OK)
		return st;
	if (near) {
		snprintf(rule, sizeof(rule),
			 "a new entry within 2 edits of the reserved key %s is taken for a typo (did you mean %s?)",
			 near, near);
		return ct_value_fail(r, node, path, CT_EINVAL, rule);
	}
	r->ops->view(node, &v);
	if (m->kind == CT_MAP_ALIASES) {
		struct ct_config_source src;

		if (v.kind != CT_VALUE_STRING)
			return fail_type(r, node, path,
					 "a string naming a method", &v);
		st = check_name(r, node, path, v.s, "");
		if (st == CT_OK)
			st = r->ops->source(r, node, &src);
		if (st != CT_OK)
			return st;
		st = ct_frontier_set_alias(fp, name, v.s);
		if (st == CT_OK) {
			size_t a = alias_index(fp, name);

			if (a < CT_FRONTIER_MAX_NAMES)
				r->c->alias_src[a] = src;
		}
	} else {
		double d;
		long long i;

		st = read_number(r, node, &v, path, false, m->min, m->max,
				 m->flags, &d, &i);
		if (st != CT_OK)
			return st;
		st = m->kind == CT_MAP_TYPES ? ct_frontier_set_type(fp, name, d)
					     : ct_frontier_set_bonus(fp, name, d);
	}
	if (st == CT_EFULL) {
		snprintf(rule, sizeof(rule), "more than %d entries in %s",
			 CT_FRONTIER_MAX_NAMES, m->path);
		return ct_value_fail(r, node, path, CT_EFULL, rule);
	}
	if (st != CT_OK)
		return ct_value_fail(r, node, path, st,
				     "refused by the frontier table");
	return CT_OK;
}

/* A name in neither table, with the nearest known name. */
ct_status ct_value_unknown(const struct ct_value_reader *r, const void *node,
			   const char *path)
{
	char at[CT_CONFIG_PATH_LEN + 16], near[CT_KEY_PATH_LEN];

	ct_key_suggest(path, near, sizeof(near));
	return ct_error_set(r->err, CT_EINVAL, "%s: unknown key %s%s%s%s",
			    r->ops->where(r, node, at, sizeof(at)), path,
			    near[0] ? " (did you mean " : "", near,
			    near[0] ? "?)" : "");
}
