/* settings_json.h: struct ct_settings <-> the JSON document that
 * crawltop.settings.value holds (data/sql/0001_schema.sql, 0011).
 *
 * The document has the layout of the configuration file: one nested
 * object per dotted key of the config key table (src/config/config_keys.h),
 * so "frontier.weights.base" is {"frontier": {"weights": {"base": 1}}},
 * the open maps are objects ({"frontier": {"types": {"article": 0}}}) and
 * the token lists arrays of strings. One key differs: the store has named
 * tier.default_priority "default_priority" at the top level since 0001
 * (crawltop job create reads it there); both spellings are read, the
 * store's is written.
 *
 * Reading overlays the document on the built-in defaults, as a
 * configuration file does: a key the document does not name keeps its
 * default, the open maps merge entry by entry, a token list replaces the
 * whole list. Top-level members that hold no key of the table ("store")
 * belong to other readers and are skipped. Inside the settings' own groups
 * an unknown key, a wrong type or a value outside its range is an error
 * that names the key, the value and the rule, in the config layer's words.
 *
 * Nothing here talks to the database: the JSON text comes and goes as a
 * string. */
#ifndef CRAWLTOP_SETTINGS_JSON_H
#define CRAWLTOP_SETTINGS_JSON_H

#include "config.h"
#include "crawltop/settings.h"
#include "crawltop/status.h"

/* The name values from the store carry in messages and sources:
 * "crawltop.settings:7" is version 7 (the version stands where a file's
 * line would); version 0 is a document not written yet, "crawltop.settings
 * (the new version)". */
#define CT_SETTINGS_SOURCE "crawltop.settings"

/* Overlay the document json (a JSON object) of settings version `version`
 * on c (which the caller has set up, e.g. with ct_config_init): every
 * value it names is stored with source CT_SETTINGS_SOURCE:version, which
 * is added to c->files when missing. Single-key rules only; run
 * ct_config_validate() for the rules between keys. On error c is partly
 * overlaid. */
ct_status ct_settings_json_read(const char *json, int version,
				struct ct_config *c, struct ct_error *err);

/* Defaults, the document, then ct_config_validate(): the settings in
 * force at that version. *out is written only on success. */
ct_status ct_settings_from_json(const char *json, int version,
				struct ct_settings *out, struct ct_error *err);

/* The same for a new version being checked before it is written: json is
 * version base_version with the keys (dotted config or store spellings)
 * set anew, whose values are named as coming from label ("the command
 * line"), the others from crawltop.settings:base_version; a value that
 * does not read is named as from "crawltop.settings (the new version)". */
ct_status ct_settings_from_json_draft(const char *json, int base_version,
				      const char *const *keys, size_t n_keys,
				      const char *label, struct ct_settings *out,
				      struct ct_error *err);

/* The same with seed 003's environment overrides (RANK_WEIGHTS_*,
 * MIN_PUBLISH_SCORE, ...; ct_config_apply_env) between the document and
 * the checks, as a ranking run reads them. env (env_len bytes, may be 0)
 * receives the variables that overrode a value, "NAME=value NAME=value",
 * or "" when none did; it is cut short when it does not fit. */
ct_status ct_settings_from_json_env(const char *json, int version,
				    struct ct_settings *out, char *env,
				    size_t env_len, struct ct_error *err);

/* The document for s: every key of the table and every map entry, numbers
 * in their shortest form that reads back to the same double. Top-level
 * members of base (a JSON object, or NULL) that are not settings keys
 * ("store") are kept, in base's order, after them. Returns a new
 * NUL-terminated string the caller frees, or NULL with err (base is not a
 * JSON object, out of memory). */
char *ct_settings_to_json(const struct ct_settings *s, const char *base,
			  struct ct_error *err);

#endif
