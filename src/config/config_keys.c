/* config_keys.c: the table of configuration keys and the helpers that read
 * it. data/crawltop.conf lists the same keys with the same help text. */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "config_keys.h"

#define OFF(field) offsetof(struct ct_settings, field)
#define INF HUGE_VAL
#define CT_BACKOFF_MAX_HOURS 87600.0    /* 10 years */
#define CT_BACKOFF_MAX_MULTIPLIER 1000.0

/* A number key: path, type, field, min, max, flags, env, help. */
#define NUM(p, t, f, lo, hi, fl, env, help) \
	{ p, t, OFF(f), 0, lo, hi, fl, env, help }
#define DBL(p, f, lo, hi, fl, env, help) \
	NUM(p, CT_KEY_DOUBLE, f, lo, hi, fl, env, help)
#define FLAG(p, f, help) \
	{ p, CT_KEY_BOOL, OFF(f), 0, 0, 0, 0, NULL, help }
#define TOKENS(p, f, n, help) \
	{ p, CT_KEY_TOKENS, OFF(f), OFF(n), 0, 0, 0, NULL, help }
#define W(name, i, env) \
	DBL("discovery.weights." name, discovery.weights[i], 0, 1, 0, env, \
	    "share of the score, 0..1, the eight sum to 1 (+-1e-6)")

const struct ct_key ct_keys[] = {
	DBL("classes.p0", classes.p0, 0, 100, 0, "PROFILE_SCORE",
	    "P0 lower bound, score 0..100, > p1; higher = fewer P0 tasks"),
	DBL("classes.p1", classes.p1, 0, 100, 0, "MIN_PUBLISH_SCORE",
	    "P1 lower bound, score 0..100, > p2; higher = fewer P1 tasks"),
	DBL("classes.p2", classes.p2, 0, 100, 0, NULL,
	    "P2 lower bound, score 0..100; below it is P3"),

	DBL("hierarchy.root", hierarchy.root, 0, 1, CT_KEY_GT_MIN, NULL,
	    "score of path /, 0 < x <= 1, >= sitemap"),
	DBL("hierarchy.sitemap", hierarchy.sitemap, 0, 1, CT_KEY_GT_MIN, NULL,
	    "score of a sitemap page, 0 < x <= 1, between floor and root"),
	DBL("hierarchy.decay", hierarchy.decay, 0, 1,
	    CT_KEY_GT_MIN | CT_KEY_LT_MAX, NULL,
	    "linked page = decay x source score, 0 < x < 1; lower = faster fall"),
	DBL("hierarchy.floor", hierarchy.floor, 0, 1, CT_KEY_GT_MIN, NULL,
	    "lowest score, 0 < x <= 1, <= sitemap"),

	NUM("tier.default_priority", CT_KEY_INT, default_priority, 1, 10, 0,
	    NULL, "job priority when none is given, 1..10; lower = sooner"),

	DBL("frontier.types.default", frontier.default_type_weight, 0, INF, 0,
	    NULL, "weight of a type not listed, >= 0; lower = sooner"),
	DBL("frontier.weights.base", frontier.w_base, 0, INF, 0, NULL,
	    "multiplies typeWeight + depth + bias, >= 0"),
	DBL("frontier.weights.gap-score", frontier.w_gap, 0, INF, 0, NULL,
	    "multiplies the gap score, >= 0; higher = gaps sooner"),
	DBL("frontier.weights.knowledge-reuse", frontier.w_reuse, 0, INF, 0,
	    NULL, "multiplies knowledge reuse (0..1), >= 0; higher = sooner"),
	FLAG("frontier.features.gap_driven_prioritization", frontier.gap_driven,
	     "true/false: subtract the gap score"),
	FLAG("frontier.features.planner_knowledge_reuse",
	     frontier.knowledge_reuse, "true/false: subtract knowledge reuse"),
	FLAG("frontier.features.problem_clustering", frontier.problem_clustering,
	     "true/false: subtract the cluster boost"),
	FLAG("frontier.features.cost_aware_priority", frontier.cost_aware,
	     "true/false: fast actions sooner, slow ones later"),
	NUM("frontier.clustering.problem_threshold", CT_KEY_LONG,
	    frontier.cluster_problem_threshold, 1, INT_MAX, 0, NULL,
	    "occurrences before a cluster boosts, whole >= 1"),
	DBL("frontier.clustering.boost_factor_per_cluster",
	    frontier.cluster_boost_factor, 0, INF, 0, NULL,
	    "boost = log2(occurrences) x this, >= 0; higher = sooner"),
	DBL("frontier.clustering.boost_cap", frontier.cluster_boost_cap, 0, INF,
	    0, NULL, "largest cluster boost, priority units, >= 0"),
	DBL("frontier.cost.fast_ms", frontier.cost_fast_ms, 0, INF, 0, NULL,
	    "ms; cost below this is fast (sooner), >= 0, <= slow_ms"),
	DBL("frontier.cost.slow_ms", frontier.cost_slow_ms, 0, INF, 0, NULL,
	    "ms; cost above this is slow (later), >= fast_ms"),
	DBL("frontier.cost.factor", frontier.cost_factor, 0, 1, CT_KEY_LT_MAX,
	    NULL, "fraction of |priority| moved, 0 <= x < 1"),
	FLAG("frontier.total_prioritisation.enabled",
	     frontier.total_prioritisation,
	     "true/false: offset by country class, drop 'other'"),
	DBL("frontier.total_prioritisation.country", frontier.offset_country,
	    -INF, INF, 0, NULL, "offset added to country items; lower = sooner"),
	DBL("frontier.total_prioritisation.country_related",
	    frontier.offset_related, -INF, INF, 0, NULL,
	    "offset added to country-related items; lower = sooner"),
	DBL("frontier.total_prioritisation.other", frontier.offset_other,
	    -INF, INF, 0, NULL, "offset added to other items (dropped)"),
	TOKENS("frontier.total_prioritisation.country_tokens",
	       frontier.country_tokens, frontier.n_country_tokens,
	       "lower-case words marking a country item, at most 64"),
	TOKENS("frontier.total_prioritisation.related_tokens",
	       frontier.related_tokens, frontier.n_related_tokens,
	       "lower-case words marking a country-related item, at most 64"),
	NUM("frontier.queue.max_depth", CT_KEY_INT, frontier.max_depth, 0,
	    INT_MAX, 0, NULL, "deepest link depth enqueued, whole >= 0"),
	NUM("frontier.queue.max_queue", CT_KEY_SIZE, frontier.max_queue, 1,
	    INT_MAX, 0, NULL, "items in both queues together, >= 1"),
	NUM("frontier.queue.burst", CT_KEY_INT, frontier.burst, 1, INT_MAX, 0,
	    NULL, "pulls from one queue while the other waits, >= 1"),
	NUM("frontier.queue.max_scan", CT_KEY_INT, frontier.max_scan, 1,
	    INT_MAX, 0, NULL, "items one pull scans for a ready host, >= 1"),

	W("unseen_likelihood", CT_SUB_UNSEEN, "RANK_WEIGHTS_UNSEEN"),
	W("host_novelty", CT_SUB_HOST_NOVELTY, "RANK_WEIGHTS_HOST_NOVELTY"),
	W("content_readiness", CT_SUB_CONTENT_READY,
	  "RANK_WEIGHTS_CONTENT_READY"),
	W("link_yield", CT_SUB_LINK_YIELD, "RANK_WEIGHTS_LINK_YIELD"),
	W("source_reliability", CT_SUB_SOURCE_REL, "RANK_WEIGHTS_SOURCE_REL"),
	W("freshness", CT_SUB_FRESHNESS, "RANK_WEIGHTS_FRESHNESS"),
	W("quality_safety", CT_SUB_SAFETY, "RANK_WEIGHTS_SAFETY"),
	W("topic_boost", CT_SUB_TOPIC, "RANK_WEIGHTS_TOPIC"),
	/* The engine waits min(start x multiplier^step, max) hours, P3 twice
	 * that: with max_hours at most 10 years the wait stays finite (a
	 * multiplier^step past a double's range is capped at max_hours). */
	DBL("discovery.backoff.start_hours", discovery.backoff.start_hours, 0,
	    CT_BACKOFF_MAX_HOURS, CT_KEY_GT_MIN, "BACKOFF_START_HOURS",
	    "hours, first P2 wait, > 0, <= max_hours; lower = sooner"),
	DBL("discovery.backoff.max_hours", discovery.backoff.max_hours, 0,
	    CT_BACKOFF_MAX_HOURS, CT_KEY_GT_MIN, "BACKOFF_MAX_HOURS",
	    "hours, longest P2 wait, >= start_hours, <= 87600 (10 years; P3: twice)"),
	DBL("discovery.backoff.multiplier", discovery.backoff.multiplier, 1,
	    CT_BACKOFF_MAX_MULTIPLIER, 0, "BACKOFF_MULTIPLIER",
	    "wait x this per unchanged recheck, 1..1000"),

	DBL("freshness.base", freshness.base, 0, 100, 0, NULL,
	    "starting score, 0..100; higher = sooner"),
	DBL("freshness.recent", freshness.recent, -100, 100, 0, NULL,
	    "added when visited < 1 h ago, -100..100"),
	DBL("freshness.today", freshness.today, -100, 100, 0, NULL,
	    "added when visited < 24 h ago, -100..100"),
	DBL("freshness.stale", freshness.stale, -100, 100, 0, NULL,
	    "added when not visited for > 7 days, -100..100"),
	DBL("freshness.never", freshness.never, -100, 100, 0, NULL,
	    "added when never visited, -100..100"),
	DBL("freshness.changed", freshness.changed, -100, 100, 0, NULL,
	    "added when changed < 24 h ago, -100..100"),
	DBL("freshness.topic_max", freshness.topic_max, 0, 100, 0, NULL,
	    "added: round(relevance x this), 0..100"),
	DBL("freshness.topic_high", freshness.topic_high, 0, 1, 0, NULL,
	    "relevance above this is 'High topic relevance', 0..1"),
	DBL("freshness.hub", freshness.hub, -100, 100, 0, NULL,
	    "added for a hub page, -100..100"),
	DBL("freshness.deep", freshness.deep, -100, 100, 0, NULL,
	    "added when hub depth > deep_depth, -100..100"),
	NUM("freshness.deep_depth", CT_KEY_INT, freshness.deep_depth, 0,
	    INT_MAX, 0, NULL, "hub depth above this is deep, whole >= 0"),
};
const size_t ct_n_keys = sizeof(ct_keys) / sizeof(ct_keys[0]);

const struct ct_map ct_maps[] = {
	{ "frontier.types", CT_MAP_TYPES, 0, INF, 0,
	  "type = weight, >= 0, any type name; lower = sooner" },
	{ "frontier.bonuses", CT_MAP_BONUSES, 0, INF, 0,
	  "method = bonus subtracted, >= 0; higher = sooner" },
	{ "frontier.aliases", CT_MAP_ALIASES, 0, 0, 0,
	  "method = \"method whose bonus it takes\"" },
};
const size_t ct_n_maps = sizeof(ct_maps) / sizeof(ct_maps[0]);

_Static_assert(sizeof(ct_keys) / sizeof(ct_keys[0]) <= CT_CONFIG_MAX_KEYS,
	       "raise CT_CONFIG_MAX_KEYS");

/* Exact match on the dotted path; linear, the table is short. */
const struct ct_key *ct_key_find(const char *path, size_t *idx)
{
	for (size_t i = 0; i < ct_n_keys; i++) {
		if (strcmp(ct_keys[i].path, path) == 0) {
			if (idx)
				*idx = i;
			return &ct_keys[i];
		}
	}
	return NULL;
}

/* Exact match on a map's dotted path. */
const struct ct_map *ct_map_find(const char *path)
{
	for (size_t i = 0; i < ct_n_maps; i++)
		if (strcmp(ct_maps[i].path, path) == 0)
			return &ct_maps[i];
	return NULL;
}

/* True when `full` continues `group` after a dot. */
static bool has_prefix_group(const char *full, const char *group)
{
	size_t n = strlen(group);

	return strncmp(full, group, n) == 0 && full[n] == '.';
}

/* A group is any proper dotted prefix of a key or a map. */
bool ct_key_is_group(const char *path)
{
	for (size_t i = 0; i < ct_n_keys; i++)
		if (has_prefix_group(ct_keys[i].path, path))
			return true;
	for (size_t i = 0; i < ct_n_maps; i++)
		if (has_prefix_group(ct_maps[i].path, path) ||
		    strcmp(ct_maps[i].path, path) == 0)
			return true;
	return false;
}

#define SUGGEST_MAX 96

/* Levenshtein distance of two short strings (SUGGEST_MAX - 1 at most). */
static size_t edit_distance(const char *a, size_t na, const char *b, size_t nb)
{
	size_t row[SUGGEST_MAX];

	for (size_t j = 0; j <= nb; j++)
		row[j] = j;
	for (size_t i = 1; i <= na; i++) {
		size_t diag = row[0];

		row[0] = i;
		for (size_t j = 1; j <= nb; j++) {
			size_t up = row[j];
			size_t best = diag + (a[i - 1] != b[j - 1]);

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[nb];
}

static size_t count_dots(const char *s, size_t n)
{
	size_t d = 0;

	for (size_t i = 0; i < n; i++)
		d += s[i] == '.';
	return d;
}

/* Tries every prefix of `known` with as many dots as `path`. */
static void suggest_from(const char *path, const char *known,
			 size_t *best, char *buf, size_t len)
{
	size_t np = strlen(path), dots = count_dots(path, np);
	size_t nk = 0;

	while (count_dots(known, nk) < dots && known[nk])
		nk++;
	while (known[nk] && known[nk] != '.')
		nk++;
	if (count_dots(known, nk) != dots || nk >= SUGGEST_MAX ||
	    np >= SUGGEST_MAX)
		return;
	size_t d = edit_distance(path, np, known, nk);

	if (d < *best && nk < len) {
		*best = d;
		memcpy(buf, known, nk);
		buf[nk] = '\0';
	}
}

/* Closest known name with the same number of components, within a third of
 * the name's length (and at least 2 edits). */
const char *ct_key_suggest(const char *path, char *buf, size_t len)
{
	size_t np = strlen(path);
	size_t limit = np / 3 > 2 ? np / 3 : 2;
	size_t best = limit + 1;

	if (len == 0)
		return buf;
	buf[0] = '\0';
	for (size_t i = 0; i < ct_n_keys; i++)
		suggest_from(path, ct_keys[i].path, &best, buf, len);
	for (size_t i = 0; i < ct_n_maps; i++)
		suggest_from(path, ct_maps[i].path, &best, buf, len);
	if (buf[0])
		return buf;
	/* a key written outside its group ("p0" for "classes.p0"): the one
	 * key whose last name is the path's last name */
	const char *last = strrchr(path, '.'), *only = NULL;
	last = last ? last + 1 : path;
	for (size_t i = 0; i < ct_n_keys; i++) {
		const char *k = strrchr(ct_keys[i].path, '.');
		if (!k || strcmp(k + 1, last) != 0 ||
		    strcmp(ct_keys[i].path, path) == 0)
			continue;
		if (only)
			return buf; /* more than one: no guess */
		only = ct_keys[i].path;
	}
	if (only)
		snprintf(buf, len, "%s", only);
	return buf;
}

const char *ct_map_reserved_near(const struct ct_map *m, const char *name)
{
	size_t nm = strlen(m->path), nn = strlen(name);

	if (nn >= SUGGEST_MAX)
		return NULL;
	for (size_t i = 0; i < ct_n_keys; i++) {
		const char *leaf = ct_keys[i].path + nm + 1;
		size_t nl;

		if (!has_prefix_group(ct_keys[i].path, m->path) ||
		    strchr(leaf, '.') || (nl = strlen(leaf)) >= SUGGEST_MAX)
			continue;
		if (edit_distance(name, nn, leaf, nl) <= 2 &&
		    strcmp(name, leaf) != 0)
			return ct_keys[i].path;
	}
	return NULL;
}

/* Finite, above min (strictly with CT_KEY_GT_MIN), below max (strictly
 * with CT_KEY_LT_MAX). */
bool ct_key_range_ok(double min, double max, unsigned flags, double v)
{
	if (!isfinite(v))
		return false;
	if ((flags & CT_KEY_GT_MIN) ? !(v > min) : !(v >= min))
		return false;
	if ((flags & CT_KEY_LT_MAX) ? !(v < max) : !(v <= max))
		return false;
	return true;
}

/* Names only the finite ends; "must be finite" when there are none. */
const char *ct_key_range_str(double min, double max, unsigned flags,
			     char *buf, size_t len)
{
	bool lo = isfinite(min), hi = isfinite(max);

	if (lo && hi)
		snprintf(buf, len, "must be %s %.15g and %s %.15g",
			 (flags & CT_KEY_GT_MIN) ? ">" : ">=", min,
			 (flags & CT_KEY_LT_MAX) ? "<" : "<=", max);
	else if (lo)
		snprintf(buf, len, "must be %s %.15g and finite",
			 (flags & CT_KEY_GT_MIN) ? ">" : ">=", min);
	else if (hi)
		snprintf(buf, len, "must be %s %.15g and finite",
			 (flags & CT_KEY_LT_MAX) ? "<" : "<=", max);
	else
		snprintf(buf, len, "must be finite");
	return buf;
}

/* Reads the field through the key's offset. */
double ct_key_get(const struct ct_key *k, const struct ct_settings *s)
{
	const char *p = (const char *)s + k->offset;

	switch (k->type) {
	case CT_KEY_DOUBLE:
		return *(const double *)(const void *)p;
	case CT_KEY_INT:
		return *(const int *)(const void *)p;
	case CT_KEY_LONG:
		return (double)*(const long *)(const void *)p;
	case CT_KEY_SIZE:
		return (double)*(const size_t *)(const void *)p;
	case CT_KEY_BOOL:
		return *(const bool *)(const void *)p ? 1.0 : 0.0;
	case CT_KEY_TOKENS:
		break;
	}
	return NAN;
}

/* Writes the field through the key's offset; the caller checked range. */
void ct_key_put_number(const struct ct_key *k, struct ct_settings *s,
		       double d, long long i)
{
	char *p = (char *)s + k->offset;

	switch (k->type) {
	case CT_KEY_DOUBLE:
		*(double *)(void *)p = d;
		break;
	case CT_KEY_INT:
		*(int *)(void *)p = (int)i;
		break;
	case CT_KEY_LONG:
		*(long *)(void *)p = (long)i;
		break;
	case CT_KEY_SIZE:
		*(size_t *)(void *)p = (size_t)i;
		break;
	case CT_KEY_BOOL:
	case CT_KEY_TOKENS:
		break;
	}
}

/* Writes a bool field. */
void ct_key_put_bool(const struct ct_key *k, struct ct_settings *s, bool b)
{
	if (k->type == CT_KEY_BOOL)
		*(bool *)(void *)((char *)s + k->offset) = b;
}

/* The token array of a CT_KEY_TOKENS key, and its count in *count. */
char (*ct_key_tokens(const struct ct_key *k, struct ct_settings *s,
		     size_t **count))[CT_NAME_LEN]
{
	*count = (size_t *)(void *)((char *)s + k->count_offset);
	return (char (*)[CT_NAME_LEN])(void *)((char *)s + k->offset);
}
