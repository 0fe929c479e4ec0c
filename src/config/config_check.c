/* config_check.c: the rules that tie keys together, checked once the file
 * and the environment have both been applied. Single-key ranges were
 * checked as each value was read. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "config_keys.h"
#include "config_private.h"

/* upper must be > lower (strict) or >= lower. */
struct order_rule {
	const char *upper, *lower;
	bool strict;
	const char *why;
};

static const struct order_rule order_rules[] = {
	{ "classes.p0", "classes.p1", true,
	  "class bounds must be strictly decreasing, p0 > p1 > p2" },
	{ "classes.p1", "classes.p2", true,
	  "class bounds must be strictly decreasing, p0 > p1 > p2" },
	{ "hierarchy.root", "hierarchy.sitemap", false,
	  "hierarchy scores must keep floor <= sitemap <= root" },
	{ "hierarchy.sitemap", "hierarchy.floor", false,
	  "hierarchy scores must keep floor <= sitemap <= root" },
	{ "frontier.cost.slow_ms", "frontier.cost.fast_ms", false,
	  "a cost cannot be both fast and slow" },
	{ "discovery.backoff.max_hours", "discovery.backoff.start_hours", false,
	  "the longest wait cannot be shorter than the first" },
};

/* One order rule; the message names both values and their sources. */
static ct_status check_order(const struct ct_config *c,
			     const struct order_rule *o, struct ct_error *err)
{
	size_t iu, il;
	const struct ct_key *ku = ct_key_find(o->upper, &iu);
	const struct ct_key *kl = ct_key_find(o->lower, &il);
	double u, l;
	char su[CT_CONFIG_PATH_LEN + 16], sl[CT_CONFIG_PATH_LEN + 16];

	if (!ku || !kl)
		return CT_OK;
	u = ct_key_get(ku, &c->settings);
	l = ct_key_get(kl, &c->settings);
	if (o->strict ? u > l : u >= l)
		return CT_OK;
	return ct_error_set(err, CT_EINVAL,
			    "%s = %.15g (%s) must be %s %s = %.15g (%s): %s",
			    ku->path, u,
			    ct_config_source_str(c, &c->key_src[iu], su, sizeof(su)),
			    o->strict ? ">" : ">=", kl->path, l,
			    ct_config_source_str(c, &c->key_src[il], sl, sizeof(sl)),
			    o->why);
}

/* Every alias must lead to a method that has a bonus entry. */
static ct_status check_aliases(const struct ct_config *c, struct ct_error *err)
{
	const struct ct_frontier_params *p = &c->settings.frontier;

	for (size_t i = 0; i < p->n_aliases; i++) {
		bool found = false;
		char src[CT_CONFIG_PATH_LEN + 16], to[256];

		for (size_t j = 0; j < p->n_bonuses && !found; j++)
			found = strcmp(p->bonuses[j].name, p->aliases[i].to) == 0;
		if (found)
			continue;
		return ct_error_set(err, CT_EINVAL,
				    "%s: frontier.aliases.%s = \"%s\": no method \"%s\" in frontier.bonuses",
				    ct_config_source_str(c, &c->alias_src[i],
							 src, sizeof(src)),
				    p->aliases[i].from,
				    ct_config_escape(p->aliases[i].to, 60, to,
						     sizeof(to)),
				    to);
	}
	return CT_OK;
}

/* Total prioritisation drops every item that is not a country item, so it
 * needs at least one country token. */
static ct_status check_total(const struct ct_config *c, struct ct_error *err)
{
	const struct ct_frontier_params *p = &c->settings.frontier;
	size_t ie = 0, it = 0;
	char se[CT_CONFIG_PATH_LEN + 16], stok[CT_CONFIG_PATH_LEN + 16];

	if (!p->total_prioritisation || p->n_country_tokens > 0)
		return CT_OK;
	ct_key_find("frontier.total_prioritisation.enabled", &ie);
	ct_key_find("frontier.total_prioritisation.country_tokens", &it);
	return ct_error_set(err, CT_EINVAL,
			    "frontier.total_prioritisation.enabled = true (%s) with frontier.total_prioritisation.country_tokens = [] (%s): total prioritisation needs at least one country token",
			    ct_config_source_str(c, &c->key_src[ie], se, sizeof(se)),
			    ct_config_source_str(c, &c->key_src[it], stok,
						 sizeof(stok)));
}

/* Source text for the weight-sum message. Compact form: "env NAME", and a
 * file named once, later lines from the same file as "line N". */
static const char *weight_source(const struct ct_config *c,
				 const struct ct_config_source *src,
				 bool compact, bool *file_named,
				 char *buf, size_t len)
{
	if (!compact)
		return ct_config_source_str(c, src, buf, len);
	if (src->origin == CT_FROM_ENV)
		snprintf(buf, len, "env %s", src->env);
	else if (src->origin == CT_FROM_FILE &&
		 src->file < CT_CONFIG_MAX_FILES && file_named[src->file])
		snprintf(buf, len, "line %u", src->line);
	else if (src->origin == CT_FROM_FILE && src->file < CT_CONFIG_MAX_FILES) {
		file_named[src->file] = true;
		ct_config_source_str(c, src, buf, len);
	} else {
		ct_config_source_str(c, src, buf, len);
	}
	return buf;
}

#define STR_(x) #x
#define STR(x) STR_(x)

/* Significant digits that show the sum outside 1 +- the tolerance (the
 * engine's test): 9, or more when 9 would round it back inside
 * (1.0000010001 is not 1.000001). */
static int sum_digits(double sum)
{
	int p;

	for (p = 9; p < 17; p++) {
		char b[32];

		snprintf(b, sizeof(b), "%.*g", p, sum);
		if (!(fabs(strtod(b, NULL) - 1.0) <=
		      CT_WEIGHT_SUM_TOLERANCE + 1e-12))
			break;
	}
	return p;
}

/* Renders the weight-sum message; false when it did not fit in len. The
 * compact form (for long file names or many environment sources) has a
 * shorter head, 9 significant digits per weight and shorter sources. */
static bool weight_message(const struct ct_config *c, double sum,
			   bool compact, char *out, size_t len)
{
	static const char prefix[] = "discovery.weights.";
	bool file_named[CT_CONFIG_MAX_FILES] = { false };
	bool first = true;
	int n = snprintf(out, len,
			 compact ? "discovery weights sum to %.*g, not 1+-"
				   STR(CT_WEIGHT_SUM_TOLERANCE) ": "
				 : "discovery weights sum to %.*g, not 1 (tolerance "
				   STR(CT_WEIGHT_SUM_TOLERANCE) "): ",
			 sum_digits(sum), sum);
	size_t used = n > 0 ? (size_t)n : 0;

	for (size_t i = 0; i < ct_n_keys && used < len; i++) {
		const struct ct_key *k = &ct_keys[i];
		char src[CT_CONFIG_PATH_LEN + 16];

		if (strncmp(k->path, prefix, sizeof(prefix) - 1) != 0)
			continue;
		n = snprintf(out + used, len - used,
			     compact ? "%s%s=%.9g (%s)" : "%s%s=%.15g (%s)",
			     first ? "" : ", ", k->path + sizeof(prefix) - 1,
			     ct_key_get(k, &c->settings),
			     weight_source(c, &c->key_src[i], compact,
					   file_named, src, sizeof(src)));
		used += n > 0 ? (size_t)n : 0;
		first = false;
	}
	return used < len;
}

/* The weight sum, judged by the engine; on failure our own message with
 * every weight's source (compact when the full one does not fit). */
static ct_status check_weights(const struct ct_config *c, struct ct_error *err)
{
	struct ct_error e;
	double sum = 0;
	ct_status st = ct_discovery_weights_check(c->settings.discovery.weights,
						  &sum, &e);

	if (st == CT_OK)
		return CT_OK;
	if (err && !weight_message(c, sum, false, err->msg, sizeof(err->msg)))
		weight_message(c, sum, true, err->msg, sizeof(err->msg));
	return st;
}

/* Order rules, aliases, total prioritisation, weights, then the engine's
 * own check. */
ct_status ct_config_validate(const struct ct_config *c, struct ct_error *err)
{
	struct ct_error e;
	ct_status st;

	for (size_t i = 0; i < sizeof(order_rules) / sizeof(order_rules[0]); i++) {
		st = check_order(c, &order_rules[i], err);
		if (st != CT_OK)
			return st;
	}
	st = check_aliases(c, err);
	if (st == CT_OK)
		st = check_total(c, err);
	if (st == CT_OK)
		st = check_weights(c, err);
	if (st != CT_OK)
		return st;
	st = ct_settings_check(&c->settings, &e);
	if (st != CT_OK)
		return ct_error_set(err, st, "%s: %s",
				    c->n_files ? c->files[0]
					       : CT_CONFIG_DEFAULTS_NAME,
				    e.msg);
	return CT_OK;
}
