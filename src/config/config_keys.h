/* config_keys.h: the declarative table of configuration keys.
 *
 * One row per scalar tunable of struct ct_settings: its dotted path in the
 * file, its type, where it lives in the struct, its range, its environment
 * override and a one-line help text (unit, range, direction). The open maps
 * (type weights, bonuses, aliases) have a table of their own. The file
 * reader, the settings document reader, the environment reader and the
 * checks all work from these two tables; nothing else lists keys. */
#ifndef CRAWLTOP_CONFIG_KEYS_H
#define CRAWLTOP_CONFIG_KEYS_H

#include <stdbool.h>
#include <stddef.h>

#include <crawltop/settings.h>

typedef enum ct_key_type {
	CT_KEY_DOUBLE,  /* double; integers are accepted */
	CT_KEY_INT,     /* int, whole numbers only */
	CT_KEY_LONG,    /* long, whole numbers only */
	CT_KEY_SIZE,    /* size_t, whole numbers only */
	CT_KEY_BOOL,    /* bool, true or false */
	CT_KEY_TOKENS,  /* char[CT_FRONTIER_MAX_TOKENS][CT_NAME_LEN] + count */
} ct_key_type;

#define CT_KEY_PATH_LEN 128 /* longest dotted path, NUL included */

#define CT_KEY_GT_MIN 1u /* value must be > min (else >= min) */
#define CT_KEY_LT_MAX 2u /* value must be < max (else <= max) */

struct ct_key {
	const char *path;     /* "frontier.weights.base" */
	ct_key_type type;
	size_t offset;        /* of the value in struct ct_settings */
	size_t count_offset;  /* CT_KEY_TOKENS: of the size_t count */
	double min, max;      /* numbers: the range; +-HUGE_VAL for none */
	unsigned flags;       /* CT_KEY_GT_MIN, CT_KEY_LT_MAX */
	const char *env;      /* environment override, or NULL */
	const char *help;     /* unit, range, direction */
};

typedef enum ct_map_kind {
	CT_MAP_TYPES,   /* name = number, ct_frontier_set_type() */
	CT_MAP_BONUSES, /* name = number, ct_frontier_set_bonus() */
	CT_MAP_ALIASES, /* name = "canonical", ct_frontier_set_alias() */
} ct_map_kind;

struct ct_map {
	const char *path;     /* "frontier.types" */
	ct_map_kind kind;
	double min, max;      /* numeric maps: the range of every entry */
	unsigned flags;
	const char *help;
};

extern const struct ct_key ct_keys[];
extern const size_t ct_n_keys;
extern const struct ct_map ct_maps[];
extern const size_t ct_n_maps;

/* The row for an exact dotted path, or NULL; *idx (may be NULL) receives
 * its index in ct_keys. */
const struct ct_key *ct_key_find(const char *path, size_t *idx);
/* The open map at an exact dotted path, or NULL. */
const struct ct_map *ct_map_find(const char *path);
/* True when path names a group holding keys or maps ("frontier",
 * "frontier.weights"), false for keys and unknown names. */
bool ct_key_is_group(const char *path);
/* Writes into buf the known key or group closest to an unknown path at the
 * same depth (a likely typo), or "" when none is close. Returns buf. */
const char *ct_key_suggest(const char *path, char *buf, size_t len);

/* The fixed key of map m (frontier.types.default) whose last name is
 * within 2 edits of a new entry's name, a likely typo, or NULL. */
const char *ct_map_reserved_near(const struct ct_map *m, const char *name);

/* Numbers: finite and inside [min, max] with the open ends of flags. */
bool ct_key_range_ok(double min, double max, unsigned flags, double v);
/* "must be >= 0 and <= 1", "must be finite" when unbounded; returns buf. */
const char *ct_key_range_str(double min, double max, unsigned flags,
			     char *buf, size_t len);

/* The numeric value of a scalar key (bools as 0/1; not for tokens). */
double ct_key_get(const struct ct_key *k, const struct ct_settings *s);
/* Stores a number already checked against the key's range (whole for
 * the integer types). */
void ct_key_put_number(const struct ct_key *k, struct ct_settings *s,
		       double d, long long i);
void ct_key_put_bool(const struct ct_key *k, struct ct_settings *s, bool b);
/* The token array and count of a CT_KEY_TOKENS key. */
char (*ct_key_tokens(const struct ct_key *k, struct ct_settings *s,
		     size_t **count))[CT_NAME_LEN];

/* ---- reading a value against its row (config_value.c) ----------------
 * config_file.c walks a libconfig tree and settings_json.c (src/store) a
 * JSON one; each hands every value to the readers below, which check its
 * type and range, store it and record its source, so a rule and its words
 * exist once. A value is the walker's node, opaque here: the walker's
 * struct ct_value_ops says what it holds and where it stands. */

struct ct_config;
struct ct_config_source;

typedef enum ct_value_kind {
	CT_VALUE_OTHER,  /* group, object, list, null */
	CT_VALUE_BOOL,
	CT_VALUE_NUMBER,
	CT_VALUE_STRING,
	CT_VALUE_ARRAY,  /* where token lists live */
} ct_value_kind;

/* What a node holds. */
struct ct_value {
	ct_value_kind kind;
	const char *words;  /* "a number", for "must be X, not Y" */
	bool b;             /* BOOL */
	double d;           /* NUMBER */
	bool unheld;        /* NUMBER that a double cannot hold: it reads
			     * as d (+-inf, or 0 for a non-zero one) */
	bool whole;         /* NUMBER written as a whole number, */
	long long i;        /*   which is this */
	const char *s;      /* STRING */
	size_t n;           /* ARRAY: its length */
};

struct ct_value_reader;

struct ct_value_ops {
	void (*view)(const void *node, struct ct_value *v);
	/* Element j of an ARRAY. */
	const void *(*elem)(const void *node, size_t j);
	/* The value as its text spells it, shortened, for messages. */
	const char *(*spell)(const void *node, char *buf, size_t len);
	/* Where it stands, for messages: "file:line". */
	const char *(*where)(const struct ct_value_reader *r, const void *node,
			     char *buf, size_t len);
	/* Where it came from, for key_src and alias_src. */
	ct_status (*source)(const struct ct_value_reader *r, const void *node,
			    struct ct_config_source *src);
};

/* One walk: the walker's ops and what it fills. A walker puts it first in
 * its own reader, which the ops may cast it back to. */
struct ct_value_reader {
	const struct ct_value_ops *ops;
	struct ct_config *c;
	struct ct_error *err;
};

/* Checks node against row k (ct_keys[idx]) and stores it. */
ct_status ct_value_read_key(const struct ct_value_reader *r, const void *node,
			    const char *path, const struct ct_key *k,
			    size_t idx);
/* Checks node as the entry `name` of open map m and stores it. */
ct_status ct_value_read_entry(const struct ct_value_reader *r,
			      const void *node, const char *name,
			      const char *path, const struct ct_map *m);
/* "where: path = value: rule". Returns st. */
ct_status ct_value_fail(const struct ct_value_reader *r, const void *node,
			const char *path, ct_status st, const char *rule);
/* "where: unknown key path", with the nearest known name. CT_EINVAL. */
ct_status ct_value_unknown(const struct ct_value_reader *r, const void *node,
			   const char *path);

#endif
