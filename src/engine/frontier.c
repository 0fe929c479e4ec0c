/* frontier.c: seed 002's frontier priority (lower = sooner), as decided by
 * SPEC.md "Seed 002, frontier".
 *
 * The stages run in the seed's order (PriorityScorer.computeEnhancedPriority):
 * base x w_base, discovery bonus, gap prediction, cluster boost, knowledge
 * reuse, cost-aware +- cost_factor (10%) of |priority|, then the
 * total-prioritisation offset of the QueueManager. Changes from the seed: no discoveredAt x 1e-9 tie-breaker
 * (the queue breaks ties by discovery time and insertion sequence), the
 * cost-aware step works on |priority| so "faster" always means "sooner",
 * and inputs outside their ranges are refused instead of used.
 *
 * Everything here is pure: no I/O, no clock, no mutable globals. The hot
 * path (ct_frontier_score) does a few short strcmp() table scans, a log2()
 * for the cluster boost, one division to map the priority onto 0..100, and
 * never formats text. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "crawltop/number.h"
#include "crawltop/frontier.h"

#define PS_BASE "base"
#define PS_DISCOVERY "discovery-bonus"
#define PS_GAP "gap-prediction"
#define PS_CLUSTER "cluster-boost"
#define PS_SEED "seed"

/* Defaults, as declarative tables (seed 002's ConfigManager defaults). */
static const struct ct_named_value default_types[] = {
	{ "article", 0 },
	{ "hub-seed", 4 },
	{ "history", 6 },
	{ "nav", 10 },
	{ "refresh", 25 },
};
static const struct ct_named_value default_bonuses[] = {
	{ "adaptive-seed", 20 },
	{ "gap-prediction", 15 },
	{ "sitemap", 10 },
	{ "hub-validated", 8 },
	{ "link", 0 },
};
static const struct ct_alias default_aliases[] = {
	{ "intelligent-seed", "adaptive-seed" },
	{ "adaptive-seed", "adaptive-seed" },
	{ "hub-seed", "adaptive-seed" },
	{ "sitemap", "sitemap" },
	{ "validated-hub", "hub-validated" },
	{ "link-discovery", "link" },
};
/* seed 002's _determineQueueType: these types go to acquisition. */
static const char *const acquisition_types[] = { "article", "refresh", "history" };

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

/* True when the table name t equals s; the first byte is compared inline
 * because most misses differ there. */
static inline bool name_eq(const char *t, const char *s)
{
	return t[0] == s[0] && strcmp(t, s) == 0;
}

/* Index of name in a named-value table, or -1. */
static inline long find_named(const struct ct_named_value *tab, size_t n,
			      const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (name_eq(tab[i].name, name))
			return (long)i;
	return -1;
}

/* Index of from in the alias table, or -1. */
static inline long find_alias(const struct ct_alias *tab, size_t n,
			      const char *from)
{
	for (size_t i = 0; i < n; i++)
		if (name_eq(tab[i].from, from))
			return (long)i;
	return -1;
}

/* True when s is a usable table name: 1..CT_NAME_LEN-1 bytes. */
static bool name_ok(const char *s)
{
	return s && s[0] && strnlen(s, CT_NAME_LEN) < CT_NAME_LEN;
}

/* True when a name stored in a fixed array is NUL-terminated and non-empty. */
static bool stored_name_ok(const char name[CT_NAME_LEN])
{
	return name[0] != '\0' && memchr(name, '\0', CT_NAME_LEN) != NULL;
}

/* ASCII letter or digit (locale-independent, unlike isalnum()). */
static bool is_alnum_ascii(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
	       (c >= 'A' && c <= 'Z');
}

/* ASCII lower-casing (locale-independent). */
static unsigned char lower_ascii(unsigned char c)
{
	return (c >= 'A' && c <= 'Z') ? (unsigned char)(c - 'A' + 'a') : c;
}

/* Copy a table of defaults into params (the tables fit by construction). */
static size_t copy_named(struct ct_named_value *dst,
			 const struct ct_named_value *src, size_t n)
{
	memcpy(dst, src, n * sizeof(*src));
	return n;
}

/* Fills p with seed 002's defaults (SPEC.md): the type and bonus tables and
 * the alias map above, weights 1, gap/reuse/clustering on, cost-aware and
 * total prioritisation off, no tokens, queue limits 10 / 10000 / 5 / 64. */
void ct_frontier_input_init(struct ct_frontier_input *in)
{
	memset(in, 0, sizeof *in);
	in->estimated_cost_ms = NAN;
}

void ct_frontier_params_default(struct ct_frontier_params *p)
{
	if (!p)
		return;
	memset(p, 0, sizeof(*p));
	p->n_types = copy_named(p->types, default_types, COUNT_OF(default_types));
	p->default_type_weight = 12;
	p->n_bonuses = copy_named(p->bonuses, default_bonuses,
				  COUNT_OF(default_bonuses));
	memcpy(p->aliases, default_aliases, sizeof(default_aliases));
	p->n_aliases = COUNT_OF(default_aliases);
	p->w_base = 1;
	p->w_gap = 1;
	p->w_reuse = 1;
	p->gap_driven = true;
	p->knowledge_reuse = true;
	p->problem_clustering = true;
	p->cost_aware = false;
	p->cluster_problem_threshold = 5;
	p->cluster_boost_factor = 2.5;
	p->cluster_boost_cap = 20;
	p->cost_fast_ms = 100;
	p->cost_slow_ms = 500;
	p->cost_factor = 0.1;
	p->total_prioritisation = false;
	p->offset_country = -5000;
	p->offset_related = -3000;
	p->offset_other = 5e6;
	p->n_country_tokens = 0;
	p->n_related_tokens = 0;
	p->max_depth = 10;
	p->max_queue = 10000;
	p->burst = 5;
	p->max_scan = 64;
}

/* Checks one table of names and values: size, names, duplicates, and
 * values finite and >= 0. */
static ct_status check_named(const struct ct_named_value *tab, size_t n,
			     const char *field, struct ct_error *err)
{
	if (n > CT_FRONTIER_MAX_NAMES)
		return ct_error_set(err, CT_EINVAL,
				    "frontier.%s has %zu entries: at most %d are allowed",
				    field, n, CT_FRONTIER_MAX_NAMES);
	for (size_t i = 0; i < n; i++) {
		if (!stored_name_ok(tab[i].name))
			return ct_error_set(err, CT_EINVAL,
					    "frontier.%s entry %zu has an empty or unterminated name: a name must have 1 to %d bytes",
					    field, i, CT_NAME_LEN - 1);
		if (!isfinite(tab[i].value) || tab[i].value < 0)
			return ct_error_set(err, CT_ERANGE,
					    "frontier.%s.%s = %s is out of range: it must be finite and >= 0",
					    field, tab[i].name, CT_NUM(tab[i].value));
		for (size_t j = 0; j < i; j++)
			if (strcmp(tab[j].name, tab[i].name) == 0)
				return ct_error_set(err, CT_EINVAL,
						    "frontier.%s lists \"%s\" twice: each name may appear once",
						    field, tab[i].name);
	}
	return CT_OK;
}

/* Checks one token list: size, and every token [a-z0-9]+ (tokens are
 * compared with lower-cased words split on non-alphanumerics, so any other
 * token could never match). */
static ct_status check_tokens(const char (*tok)[CT_NAME_LEN], size_t n,
			      const char *field, struct ct_error *err)
{
	if (n > CT_FRONTIER_MAX_TOKENS)
		return ct_error_set(err, CT_EINVAL,
				    "frontier.%s has %zu tokens: at most %d are allowed",
				    field, n, CT_FRONTIER_MAX_TOKENS);
	for (size_t i = 0; i < n; i++) {
		if (!stored_name_ok(tok[i]))
			return ct_error_set(err, CT_EINVAL,
					    "frontier.%s token %zu is empty or unterminated: a token must have 1 to %d bytes",
					    field, i, CT_NAME_LEN - 1);
		for (const unsigned char *c = (const unsigned char *)tok[i]; *c; c++)
			if (!is_alnum_ascii(*c) || (*c >= 'A' && *c <= 'Z'))
				return ct_error_set(err, CT_EINVAL,
						    "frontier.%s token \"%s\" is not a lower-case word: tokens may hold only a-z and 0-9, as they are matched against lower-cased words",
						    field, tok[i]);
	}
	return CT_OK;
}

/* Range check of one double: finite and >= lo. */
static ct_status check_min(double v, double lo, const char *field,
			   struct ct_error *err)
{
	if (!isfinite(v) || v < lo)
		return ct_error_set(err, CT_ERANGE,
				    "frontier.%s = %s is out of range: it must be finite and >= %s",
				    field, CT_NUM(v), CT_NUM(lo));
	return CT_OK;
}

/* Every rule of frontier.h on the parameters; the first broken rule is
 * reported (field, value, rule). Type weights, bonuses and the weights
 * w_base/w_gap/w_reuse must be finite and >= 0. */
ct_status ct_frontier_params_check(const struct ct_frontier_params *p,
				   struct ct_error *err)
{
	ct_status st;

	if (!p)
		return ct_error_set(err, CT_EINVAL, "frontier parameters are NULL");
	if ((st = check_named(p->types, p->n_types, "types", err)) != CT_OK)
		return st;
	if ((st = check_min(p->default_type_weight, 0, "default_type_weight", err)) != CT_OK)
		return st;
	if ((st = check_named(p->bonuses, p->n_bonuses, "bonuses", err)) != CT_OK)
		return st;
	if (p->n_aliases > CT_FRONTIER_MAX_NAMES)
		return ct_error_set(err, CT_EINVAL,
				    "frontier.aliases has %zu entries: at most %d are allowed",
				    p->n_aliases, CT_FRONTIER_MAX_NAMES);
	for (size_t i = 0; i < p->n_aliases; i++) {
		const struct ct_alias *a = &p->aliases[i];
		if (!stored_name_ok(a->from) || !stored_name_ok(a->to))
			return ct_error_set(err, CT_EINVAL,
					    "frontier.aliases entry %zu has an empty or unterminated name: a name must have 1 to %d bytes",
					    i, CT_NAME_LEN - 1);
		for (size_t j = 0; j < i; j++)
			if (strcmp(p->aliases[j].from, a->from) == 0)
				return ct_error_set(err, CT_EINVAL,
						    "frontier.aliases maps \"%s\" twice: each method may be aliased once",
						    a->from);
		if (find_named(p->bonuses, p->n_bonuses, a->to) < 0)
			return ct_error_set(err, CT_EINVAL,
					    "frontier.aliases maps \"%s\" to \"%s\", which is not a bonus name: an alias target must be listed in frontier.bonuses",
					    a->from, a->to);
	}
	if ((st = check_min(p->w_base, 0, "w_base", err)) != CT_OK ||
	    (st = check_min(p->w_gap, 0, "w_gap", err)) != CT_OK ||
	    (st = check_min(p->w_reuse, 0, "w_reuse", err)) != CT_OK)
		return st;
	if (p->cluster_problem_threshold < 1)
		return ct_error_set(err, CT_ERANGE,
				    "frontier.cluster_problem_threshold = %ld is out of range: it must be >= 1",
				    p->cluster_problem_threshold);
	if ((st = check_min(p->cluster_boost_factor, 0, "cluster_boost_factor", err)) != CT_OK ||
	    (st = check_min(p->cluster_boost_cap, 0, "cluster_boost_cap", err)) != CT_OK ||
	    (st = check_min(p->cost_fast_ms, 0, "cost_fast_ms", err)) != CT_OK ||
	    (st = check_min(p->cost_slow_ms, 0, "cost_slow_ms", err)) != CT_OK)
		return st;
	if (p->cost_fast_ms > p->cost_slow_ms)
		return ct_error_set(err, CT_ERANGE,
				    "frontier.cost_fast_ms = %s is above frontier.cost_slow_ms = %s: the fast bound must be <= the slow bound",
				    CT_NUM(p->cost_fast_ms), CT_NUM(p->cost_slow_ms));
	if (!isfinite(p->cost_factor) || p->cost_factor < 0 || p->cost_factor >= 1)
		return ct_error_set(err, CT_ERANGE,
				    "frontier.cost_factor = %s is out of range: it must be >= 0 and < 1",
				    CT_NUM(p->cost_factor));
	if (!isfinite(p->offset_country))
		return ct_error_set(err, CT_ERANGE,
				    "frontier.offset_country = %g is not finite", p->offset_country);
	if (!isfinite(p->offset_related))
		return ct_error_set(err, CT_ERANGE,
				    "frontier.offset_related = %g is not finite", p->offset_related);
	if (!isfinite(p->offset_other))
		return ct_error_set(err, CT_ERANGE,
				    "frontier.offset_other = %g is not finite", p->offset_other);
	if ((st = check_tokens(p->country_tokens, p->n_country_tokens,
			       "country_tokens", err)) != CT_OK ||
	    (st = check_tokens(p->related_tokens, p->n_related_tokens,
			       "related_tokens", err)) != CT_OK)
		return st;
	if (p->total_prioritisation && p->n_country_tokens == 0)
		return ct_error_set(err, CT_EINVAL,
				    "frontier.total_prioritisation is on with no country tokens: total prioritisation needs at least one country token");
	if (p->max_depth < 0)
		return ct_error_set(err, CT_ERANGE,
				    "frontier.max_depth = %d is out of range: it must be >= 0",
				    p->max_depth);
	if (p->max_queue < 1)
		return ct_error_set(err, CT_ERANGE,
				    "frontier.max_queue = %zu is out of range: it must be >= 1",
				    p->max_queue);
	if (p->burst < 1)
		return ct_error_set(err, CT_ERANGE,
				    "frontier.burst = %d is out of range: it must be >= 1",
				    p->burst);
	if (p->max_scan < 1)
		return ct_error_set(err, CT_ERANGE,
				    "frontier.max_scan = %d is out of range: it must be >= 1",
				    p->max_scan);
	return CT_OK;
}

/* Sets or replaces one entry of a named-value table. */
static ct_status set_named(struct ct_named_value *tab, size_t *n,
			   const char *name, double v)
{
	if (!name_ok(name))
		return CT_EINVAL;
	long i = find_named(tab, *n, name);
	if (i >= 0) {
		tab[i].value = v;
		return CT_OK;
	}
	if (*n >= CT_FRONTIER_MAX_NAMES)
		return CT_EFULL;
	memset(tab[*n].name, 0, CT_NAME_LEN);
	strcpy(tab[*n].name, name);
	tab[*n].value = v;
	(*n)++;
	return CT_OK;
}

/* Sets the weight of a type (added if new). The value is not range
 * checked here: ct_frontier_params_check() does that. */
ct_status ct_frontier_set_type(struct ct_frontier_params *p, const char *name,
			       double w)
{
	if (!p)
		return CT_EINVAL;
	return set_named(p->types, &p->n_types, name, w);
}

/* Sets the bonus of a canonical discovery method (added if new). */
ct_status ct_frontier_set_bonus(struct ct_frontier_params *p, const char *name,
				double v)
{
	if (!p)
		return CT_EINVAL;
	return set_named(p->bonuses, &p->n_bonuses, name, v);
}

/* Maps method `from` to canonical name `to` (replacing an existing alias of
 * `from`). Whether `to` is a bonus name is checked by params_check. */
ct_status ct_frontier_set_alias(struct ct_frontier_params *p, const char *from,
				const char *to)
{
	if (!p || !name_ok(from) || !name_ok(to))
		return CT_EINVAL;
	long i = find_alias(p->aliases, p->n_aliases, from);
	if (i < 0) {
		if (p->n_aliases >= CT_FRONTIER_MAX_NAMES)
			return CT_EFULL;
		i = (long)p->n_aliases++;
		memset(p->aliases[i].from, 0, CT_NAME_LEN);
		strcpy(p->aliases[i].from, from);
	}
	memset(p->aliases[i].to, 0, CT_NAME_LEN);
	strcpy(p->aliases[i].to, to);
	return CT_OK;
}

/* Adds one token to a token list, lower-cased; an existing token is kept
 * once. CT_EINVAL for an empty, too long, or non-alphanumeric token. */
static ct_status add_token(char (*tok)[CT_NAME_LEN], size_t *n, const char *s)
{
	char low[CT_NAME_LEN];
	size_t len;

	if (!name_ok(s))
		return CT_EINVAL;
	len = strlen(s);
	for (size_t i = 0; i < len; i++) {
		if (!is_alnum_ascii((unsigned char)s[i]))
			return CT_EINVAL;
		low[i] = (char)lower_ascii((unsigned char)s[i]);
	}
	memset(low + len, 0, CT_NAME_LEN - len);
	for (size_t i = 0; i < *n; i++)
		if (strcmp(tok[i], low) == 0)
			return CT_OK;
	if (*n >= CT_FRONTIER_MAX_TOKENS)
		return CT_EFULL;
	memcpy(tok[*n], low, CT_NAME_LEN);
	(*n)++;
	return CT_OK;
}

/* Adds a country token (lower-cased; [A-Za-z0-9]+). */
ct_status ct_frontier_add_country_token(struct ct_frontier_params *p,
					const char *token)
{
	if (!p)
		return CT_EINVAL;
	return add_token(p->country_tokens, &p->n_country_tokens, token);
}

/* Adds a country-related token (lower-cased; [A-Za-z0-9]+). */
ct_status ct_frontier_add_related_token(struct ct_frontier_params *p,
					const char *token)
{
	if (!p)
		return CT_EINVAL;
	return add_token(p->related_tokens, &p->n_related_tokens, token);
}

/* Type lookup: index in the type table, or -1 for NULL, "" or unlisted. */
static inline long type_index(const struct ct_frontier_params *p,
			      const char *type)
{
	if (!type || !type[0])
		return -1;
	return find_named(p->types, p->n_types, type);
}

/* The weight of a type: its table value, or default_type_weight for NULL,
 * "" or a name not listed (case-sensitive). */
double ct_frontier_type_weight(const struct ct_frontier_params *p,
			       const char *type)
{
	long i;

	if (!p)
		return NAN;
	i = type_index(p, type);
	return i >= 0 ? p->types[i].value : p->default_type_weight;
}

/* Alias map lookup for a non-empty method. */
static inline const char *canonical_of(const struct ct_frontier_params *p,
				       const char *method)
{
	long i = find_alias(p->aliases, p->n_aliases, method);
	return i >= 0 ? p->aliases[i].to : method;
}

/* The canonical method after one pass through the alias map; the input
 * itself when it is not aliased (NULL for NULL). The result points into p
 * or is the input. */
const char *ct_frontier_method_canonical(const struct ct_frontier_params *p,
					 const char *method)
{
	if (!p || !method || !method[0])
		return method;
	return canonical_of(p, method);
}

/* Bonus of a method: the alias map first, then the bonus table; 0 for
 * NULL, "" or an unlisted name. *canon receives the canonical name. */
static inline double bonus_of(const struct ct_frontier_params *p,
			      const char *method, const char **canon)
{
	long i;

	*canon = method;
	if (!method || !method[0])
		return 0.0;
	*canon = canonical_of(p, method);
	i = find_named(p->bonuses, p->n_bonuses, *canon);
	return i >= 0 ? p->bonuses[i].value : 0.0;
}

/* The bonus of a discovery method as the scorer sees it: the alias map is
 * applied first, then the bonus table; 0 for NULL, "" or an unlisted name. */
double ct_frontier_bonus(const struct ct_frontier_params *p, const char *method)
{
	const char *canon;

	if (!p)
		return 0.0;
	return bonus_of(p, method, &canon);
}

/* Queue of a type (inlined on the hot path). */
static inline ct_queue_type queue_of(const char *type)
{
	if (!type)
		return CT_QUEUE_DISCOVERY;
	for (size_t i = 0; i < COUNT_OF(acquisition_types); i++)
		if (name_eq(acquisition_types[i], type))
			return CT_QUEUE_ACQUISITION;
	return CT_QUEUE_DISCOVERY;
}

/* seed 002's queue choice: article, refresh, history go to acquisition;
 * everything else, NULL included, to discovery. */
ct_queue_type ct_frontier_queue_type(const char *type)
{
	return queue_of(type);
}

/* "discovery" or "acquisition" (static; "?" for an invalid value). */
const char *ct_queue_type_name(ct_queue_type q)
{
	switch (q) {
	case CT_QUEUE_DISCOVERY:
		return "discovery";
	case CT_QUEUE_ACQUISITION:
		return "acquisition";
	}
	return "?";
}

static const char *const tp_names[] = {
	[CT_TP_NONE] = "none",
	[CT_TP_COUNTRY] = "country",
	[CT_TP_COUNTRY_RELATED] = "country-related",
	[CT_TP_OTHER] = "other",
};

/* "none", "country", "country-related", "other" (static; "?" otherwise). */
const char *ct_tp_class_name(ct_tp_class c)
{
	if ((unsigned)c < COUNT_OF(tp_names))
		return tp_names[c];
	return "?";
}

/* Inverse of ct_tp_class_name (exact, case-sensitive); false otherwise. */
bool ct_tp_class_parse(const char *s, ct_tp_class *out)
{
	if (!s)
		return false;
	for (size_t i = 0; i < COUNT_OF(tp_names); i++) {
		if (strcmp(tp_names[i], s) == 0) {
			if (out)
				*out = (ct_tp_class)i;
			return true;
		}
	}
	return false;
}

/* Token matching state for classification. */
struct tp_scan {
	const struct ct_frontier_params *p;
	bool related;
};

/* True when the lower-case word w is in the token list. */
static bool token_listed(const char (*tok)[CT_NAME_LEN], size_t n,
			 const char *w)
{
	for (size_t i = 0; i < n; i++)
		if (name_eq(tok[i], w))
			return true;
	return false;
}

/* Scans the words of s[0..len) (split on non-alphanumerics, lower-cased).
 * Returns true as soon as a word is a country token; records in st whether
 * some word was a country-related token. Words longer than any token are
 * skipped: they cannot match. */
static bool scan_words(struct tp_scan *st, const char *s, size_t len)
{
	char w[CT_NAME_LEN];
	size_t i = 0;

	while (i < len) {
		while (i < len && !is_alnum_ascii((unsigned char)s[i]))
			i++;
		size_t start = i;
		while (i < len && is_alnum_ascii((unsigned char)s[i]))
			i++;
		size_t wl = i - start;
		if (wl == 0 || wl >= CT_NAME_LEN)
			continue;
		for (size_t k = 0; k < wl; k++)
			w[k] = (char)lower_ascii((unsigned char)s[start + k]);
		w[wl] = '\0';
		if (token_listed(st->p->country_tokens, st->p->n_country_tokens, w))
			return true;
		if (!st->related &&
		    token_listed(st->p->related_tokens, st->p->n_related_tokens, w))
			st->related = true;
	}
	return false;
}

/* The path of a URL: after "scheme://authority", up to '?' or '#'. A string
 * without "://" is taken as a path as a whole (up to '?' or '#'). */
static void url_path(const char *url, const char **path, size_t *len)
{
	const char *s = url;
	const char *sep = strstr(url, "://");

	if (sep) {
		s = sep + 3;
		s += strcspn(s, "/?#");
	}
	*path = s;
	*len = strcspn(s, "?#");
}

/* Total-prioritisation class from the lower-cased words of type, method and
 * the URL path: country when any word is a country token, else
 * country-related when any word is a related token, else other. NULL
 * arguments contribute no words. */
ct_tp_class ct_frontier_classify(const struct ct_frontier_params *p,
				 const char *type, const char *method,
				 const char *url)
{
	struct tp_scan st = { p, false };

	if (!p)
		return CT_TP_OTHER;
	if (type && scan_words(&st, type, strlen(type)))
		return CT_TP_COUNTRY;
	if (method && scan_words(&st, method, strlen(method)))
		return CT_TP_COUNTRY;
	if (url) {
		const char *path;
		size_t len;
		url_path(url, &path, &len);
		if (scan_words(&st, path, len))
			return CT_TP_COUNTRY;
	}
	return st.related ? CT_TP_COUNTRY_RELATED : CT_TP_OTHER;
}

/* Checks the per-input rules; the cold path, kept out of line. */
static ct_status check_input(const struct ct_frontier_input *in,
			     struct ct_error *err)
{
	if (in->depth < 0)
		return ct_error_set(err, CT_ERANGE,
				    "frontier input depth = %d is out of range: a depth must be >= 0",
				    in->depth);
	if (!isfinite(in->bias))
		return ct_error_set(err, CT_ERANGE,
				    "frontier input bias = %g is not finite: a bias must be a finite number",
				    in->bias);
	if (in->cluster_occurrences < 0)
		return ct_error_set(err, CT_ERANGE,
				    "frontier input cluster_occurrences = %ld is out of range: a count must be >= 0",
				    in->cluster_occurrences);
	if (!(in->knowledge_reuse >= 0 && in->knowledge_reuse <= 1))
		return ct_error_set(err, CT_ERANGE,
				    "frontier input knowledge_reuse = %s is out of range: it must be in 0..1",
				    CT_NUM(in->knowledge_reuse));
	if (!isnan(in->estimated_cost_ms) &&
	    !(in->estimated_cost_ms >= 0 && isfinite(in->estimated_cost_ms)))
		return ct_error_set(err, CT_ERANGE,
				    "frontier input estimated_cost_ms = %s is out of range: a cost must be finite and >= 0 (NaN means unknown)",
				    CT_NUM(in->estimated_cost_ms));
	if (in->has_gap && !(in->gap_confidence >= 0 && in->gap_confidence <= 1))
		return ct_error_set(err, CT_ERANGE,
				    "frontier input gap_confidence = %s is out of range: it must be in 0..1",
				    CT_NUM(in->gap_confidence));
	if (in->has_gap && !(in->gap_lift >= 0 && in->gap_lift <= 1))
		return ct_error_set(err, CT_ERANGE,
				    "frontier input gap_lift = %s is out of range: it must be in 0..1",
				    CT_NUM(in->gap_lift));
	if ((unsigned)in->classification > CT_TP_OTHER)
		return ct_error_set(err, CT_EINVAL,
				    "frontier input classification = %d is not a total-prioritisation class",
				    (int)in->classification);
	return CT_OK;
}

/* True when every input rule holds; one branch on the hot path. */
static inline bool input_ok(const struct ct_frontier_input *in)
{
	return in->depth >= 0 && isfinite(in->bias) &&
	       in->cluster_occurrences >= 0 &&
	       in->knowledge_reuse >= 0 && in->knowledge_reuse <= 1 &&
	       (isnan(in->estimated_cost_ms) ||
		(in->estimated_cost_ms >= 0 && isfinite(in->estimated_cost_ms))) &&
	       (!in->has_gap ||
		(in->gap_confidence >= 0 && in->gap_confidence <= 1 &&
		 in->gap_lift >= 0 && in->gap_lift <= 1)) &&
	       (unsigned)in->classification <= CT_TP_OTHER;
}

/* Scores one frontier input (see frontier.h for the formula). The params
 * must have passed ct_frontier_params_check(). On CT_OK every field of out
 * is set. On an error out->priority is 0, except for a non-finite result,
 * where out->priority holds that value (the queue uses this to tell a
 * refused priority from a bad input). The reasons' strings point into p,
 * into the input, or to static text. */
ct_status ct_frontier_score(const struct ct_frontier_params *p,
			    const struct ct_class_bounds *bounds,
			    const struct ct_frontier_input *in,
			    struct ct_frontier_result *out,
			    struct ct_error *err)
{
	static const struct ct_class_bounds default_bounds = CT_CLASS_BOUNDS_INIT;
	struct ct_reasons *rs;
	const char *tname, *canon;
	const char *source = PS_BASE;
	double tw, base, priority, b, bonus = 0.0;
	long ti;

	if (!p || !in || !out)
		return ct_error_set(err, CT_EINVAL,
				    "ct_frontier_score: params, input and result must not be NULL");
	out->priority = 0.0;
	out->reasons.n = 0;
	if (!input_ok(in))
		return check_input(in, err);
	rs = &out->reasons;

	/* 1. base: (typeWeight + depth + bias) x w_base */
	ti = type_index(p, in->type);
	tw = ti >= 0 ? p->types[ti].value : p->default_type_weight;
	tname = ti >= 0 ? p->types[ti].name : "default";
	base = tw + (double)in->depth + in->bias;
	ct_reasons_add(rs, CT_R_FR_BASE, tw, (double)in->depth + in->bias, tname);
	priority = base;
	if (p->w_base != 1.0) {
		priority *= p->w_base;
		ct_reasons_add(rs, CT_R_FR_BASE_WEIGHT, p->w_base, 0, NULL);
	}

	/* 2. discovery-method bonus, after the alias map */
	b = bonus_of(p, in->discovery_method, &canon);
	if (b > 0) {
		priority -= b;
		bonus += b;
		source = PS_DISCOVERY;
		ct_reasons_add(rs, CT_R_FR_DISCOVERY, b, 0, canon);
	}

	/* 3. gap prediction: (conf x 10 + lift x 5) x w_gap */
	if (p->gap_driven && in->has_gap) {
		double g = (in->gap_confidence * 10.0 + in->gap_lift * 5.0) * p->w_gap;
		if (g > 0) {
			priority -= g;
			bonus += g;
			source = PS_GAP;
			ct_reasons_add(rs, CT_R_FR_GAP, g, 0, NULL);
		}
	}

	/* 4. problem-cluster boost: min(log2(n) x factor, cap) */
	if (p->problem_clustering &&
	    in->cluster_occurrences >= p->cluster_problem_threshold) {
		double c = log2((double)in->cluster_occurrences) * p->cluster_boost_factor;
		if (c > p->cluster_boost_cap)
			c = p->cluster_boost_cap;
		if (c > 0) {
			priority -= c;
			bonus += c;
			source = PS_CLUSTER;
			ct_reasons_add(rs, CT_R_FR_CLUSTER, c,
				       (double)in->cluster_occurrences, NULL);
		}
	}

	/* 5. knowledge reuse: value x w_reuse (prioritySource unchanged) */
	if (p->knowledge_reuse && in->knowledge_reuse > 0) {
		double r = in->knowledge_reuse * p->w_reuse;
		if (r > 0) {
			priority -= r;
			bonus += r;
			ct_reasons_add(rs, CT_R_FR_REUSE, r, 0, NULL);
		}
	}

	/* 6. cost-aware: +-cost_factor x |priority|; the bounds themselves and
	 * an unknown (NaN) cost change nothing */
	if (p->cost_aware && !isnan(in->estimated_cost_ms)) {
		if (in->estimated_cost_ms < p->cost_fast_ms) {
			priority -= p->cost_factor * fabs(priority);
			ct_reasons_add(rs, CT_R_FR_COST_FAST, in->estimated_cost_ms,
				       p->cost_factor * 100.0, NULL);
		} else if (in->estimated_cost_ms > p->cost_slow_ms) {
			priority += p->cost_factor * fabs(priority);
			ct_reasons_add(rs, CT_R_FR_COST_SLOW, in->estimated_cost_ms,
				       p->cost_factor * 100.0, NULL);
		}
	}

	/* 7. total prioritisation: an offset per class; "other" is dropped */
	out->tp = CT_TP_NONE;
	out->dropped = false;
	if (p->total_prioritisation) {
		ct_tp_class c = in->classification;
		double off;
		if (c == CT_TP_NONE)
			c = ct_frontier_classify(p, in->type, in->discovery_method,
						 in->url);
		off = c == CT_TP_COUNTRY ? p->offset_country :
		      c == CT_TP_COUNTRY_RELATED ? p->offset_related :
		      p->offset_other;
		priority += off;
		out->tp = c;
		out->dropped = (c == CT_TP_OTHER);
		ct_reasons_add(rs, CT_R_FR_TOTAL, off, 0, tp_names[c]);
	}

	/* 8. a page the job is seeded with (method "seed", frontier.h) comes
	 * before every other page whatever the tables give the others: the
	 * lowest priority there is, which the scale maps to 100 */
	if (in->discovery_method && name_eq(in->discovery_method,
					    CT_FRONTIER_SEED_METHOD)) {
		priority = -DBL_MAX;
		source = PS_SEED;
		out->dropped = false; /* nor dropped by total prioritisation */
		ct_reasons_add(rs, CT_R_FR_SEED, 0, 0, NULL);
	}

	if (!isfinite(priority)) {
		out->priority = priority;
		return ct_error_set(err, CT_ERANGE,
				    "frontier priority = %g for %s is not finite: a priority must be a finite number",
				    priority, in->url ? in->url : "(no url)");
	}
	out->priority = priority;
	out->base_priority = base;
	out->bonus_applied = bonus;
	out->priority_source = source;
	out->queue = queue_of(in->type);
	out->score = ct_score_from_frontier(priority);
	out->cls = ct_class_of(out->score, bounds ? bounds : &default_bounds);
	return CT_OK;
}

/* ---- batches (seed 002's computeBatchPriorities) ---------------------- */

const char *ct_frontier_feature_name(unsigned bit)
{
	switch (bit) {
	case CT_FR_FEATURE_GAP: return "gap-prediction";
	case CT_FR_FEATURE_CLUSTER: return "problem-clustering";
	case CT_FR_FEATURE_REUSE: return "knowledge-reuse";
	case CT_FR_FEATURE_COST: return "cost-aware";
	case CT_FR_FEATURE_TOTAL: return "total-prioritisation";
	default: return NULL;
	}
}

ct_status ct_frontier_score_batch(const struct ct_frontier_params *p,
				  const struct ct_class_bounds *bounds,
				  const struct ct_frontier_input *in, size_t n,
				  struct ct_frontier_result *out,
				  ct_status *status,
				  double (*clock_ms)(void *clock_ctx),
				  void *clock_ctx,
				  struct ct_frontier_batch_stats *stats,
				  struct ct_error *err)
{
	struct ct_frontier_batch_stats st = { .items = n };
	ct_status first = CT_OK;

	if (stats)
		*stats = (struct ct_frontier_batch_stats){ 0 };
	if (!p || (n > 0 && (!in || !out)))
		return ct_error_set(err, CT_EINVAL,
				    "ct_frontier_score_batch: params, inputs and results must not be NULL");
	st.features = (p->gap_driven ? CT_FR_FEATURE_GAP : 0) |
		      (p->problem_clustering ? CT_FR_FEATURE_CLUSTER : 0) |
		      (p->knowledge_reuse ? CT_FR_FEATURE_REUSE : 0) |
		      (p->cost_aware ? CT_FR_FEATURE_COST : 0) |
		      (p->total_prioritisation ? CT_FR_FEATURE_TOTAL : 0);
	double t0 = clock_ms ? clock_ms(clock_ctx) : 0;
	for (size_t i = 0; i < n; i++) {
		struct ct_error e;
		ct_status s = ct_frontier_score(p, bounds, &in[i], &out[i], &e);
		if (status)
			status[i] = s;
		if (s == CT_OK) {
			st.scored++;
			continue;
		}
		st.refused++;
		if (first == CT_OK) {
			first = s;
			ct_error_set(err, s, "item %zu: %s", i, e.msg);
		}
	}
	if (clock_ms) {
		st.total_ms = clock_ms(clock_ctx) - t0;
		st.avg_ms = n ? st.total_ms / (double)n : 0;
	}
	if (stats)
		*stats = st;
	return first;
}
