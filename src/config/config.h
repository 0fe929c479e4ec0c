/* config.h: the configuration layer (internal to the programs, not installed).
 *
 * Fills a struct ct_settings from, in this order: the built-in defaults
 * (ct_settings_default()), one libconfig file, and seed 003's environment
 * variables; then checks the whole result. Nothing is ever clamped: a value
 * that breaks a rule is an error whose message names where the value came
 * from (file and line, environment variable, or default), the key, the
 * value and the rule, for example
 *
 *   crawltop.conf:12: frontier.weights.base = -1: must be >= 0
 *   environment RANK_WEIGHTS_UNSEEN=abc: not a number
 *
 * Lookup order of ct_config_load(): the explicit path (--config FILE),
 * $CRAWLTOP_CONFIG, $XDG_CONFIG_HOME/crawltop/crawltop.conf (or
 * $HOME/.config/crawltop/crawltop.conf), the system file
 * (CT_CONFIG_SYSTEM_PATH, below), then the built-in defaults. A file named
 * explicitly (flag or CRAWLTOP_CONFIG) must exist; the implicit ones are
 * skipped when absent (but a file that exists and cannot be read is an
 * error).
 *
 * A file overlays the defaults: a key it does not name keeps its default.
 * The open maps frontier.types, frontier.bonuses and frontier.aliases merge
 * the same way, entry by entry; a token list (an array) replaces the whole
 * list.
 *
 * Only config_file.c includes the libconfig header; this one does not. Nothing
 * here allocates memory that outlives a call; every struct is plain data
 * that the caller owns. */
#ifndef CRAWLTOP_CONFIG_H
#define CRAWLTOP_CONFIG_H

#include <stddef.h>

#include <crawltop/settings.h>
#include <crawltop/status.h>

/* The system file: src/config/meson.build defines it as
 * prefix/sysconfdir/crawltop/crawltop.conf, where install_data() puts
 * data/crawltop.conf (/usr/local/etc/... by default, /etc/... with
 * --prefix=/usr). The fallback serves builds without meson. */
#ifndef CT_CONFIG_SYSTEM_PATH
#define CT_CONFIG_SYSTEM_PATH "/etc/crawltop/crawltop.conf"
#endif
#define CT_CONFIG_DEFAULTS_NAME "(built-in defaults)"
#define CT_CONFIG_PATH_LEN 1024   /* longest file name kept, NUL included */
#define CT_CONFIG_MAX_FILES 4     /* a file and the files it @includes */
#define CT_CONFIG_MAX_KEYS 96     /* scalar keys of the key table */
#define CT_CONFIG_MAX_WATCHERS 8

/* Where one value came from. */
typedef enum ct_config_origin {
	CT_FROM_DEFAULT,
	CT_FROM_FILE,
	CT_FROM_ENV,
} ct_config_origin;

struct ct_config_source {
	ct_config_origin origin;
	unsigned file;   /* CT_FROM_FILE: index into ct_config.files */
	unsigned line;   /* CT_FROM_FILE: 1-based line */
	const char *env; /* CT_FROM_ENV: static variable name */
};

/* Settings being assembled, with the source of every scalar value (indexed
 * like the key table of config_keys.h) and of every alias. */
struct ct_config {
	struct ct_settings settings;
	size_t n_files;
	char files[CT_CONFIG_MAX_FILES][CT_CONFIG_PATH_LEN];
	struct ct_config_source key_src[CT_CONFIG_MAX_KEYS];
	struct ct_config_source alias_src[CT_FRONTIER_MAX_NAMES];
};

/* Built-in defaults, every source CT_FROM_DEFAULT, no file. */
void ct_config_init(struct ct_config *c);

/* Overlays the libconfig file `path` on c. Errors: CT_ENOENT (missing),
 * CT_EIO (unreadable, a directory), CT_EINVAL (syntax, unknown key, wrong
 * type), CT_ERANGE (value outside its range or not finite), CT_EFULL (an
 * open map or token list past its capacity). On error c is left partly
 * overlaid: callers assemble into a scratch struct ct_config. */
ct_status ct_config_read_file(struct ct_config *c, const char *path,
			      struct ct_error *err);

/* Overlays the environment overrides of seed 003 (RANK_WEIGHTS_*,
 * MIN_PUBLISH_SCORE, PROFILE_SCORE, BACKOFF_*). A variable that is set must
 * hold a whole finite decimal number in its key's range; unset variables
 * change nothing. */
ct_status ct_config_apply_env(struct ct_config *c, struct ct_error *err);

/* Rules between keys (strictly decreasing class bounds, floor <= sitemap
 * <= root, fast <= slow, start <= max hours, alias targets that name a
 * bonus), the discovery weight sum (within CT_WEIGHT_SUM_TOLERANCE of 1),
 * then ct_settings_check(). The message names every value involved and
 * its source. */
ct_status ct_config_validate(const struct ct_config *c, struct ct_error *err);

/* Writes "file:line", "environment NAME" or "default" into buf (always
 * NUL-terminated); returns buf. */
const char *ct_config_source_str(const struct ct_config *c,
				 const struct ct_config_source *src,
				 char *buf, size_t len);

/* Chooses the file by the lookup order above; system_path NULL means
 * CT_CONFIG_SYSTEM_PATH (tests pass their own). path receives the file, or
 * "" for the built-in defaults. CT_ENOENT when an explicitly named file is
 * missing, CT_EIO when a file exists but cannot be read, CT_EINVAL for an
 * empty name, CT_ERANGE when the name does not fit in len. */
ct_status ct_config_find(const char *explicit_path, const char *system_path,
			 char *path, size_t len, struct ct_error *err);

/* Defaults, then the file `path` (NULL or "" for none), then the
 * environment, then ct_config_validate(). *out is written only on success. */
ct_status ct_config_load_file(const char *path, struct ct_settings *out,
			      struct ct_error *err);

/* ct_config_find() then ct_config_load_file(). used_path (may be NULL)
 * receives the file used, "" for the built-in defaults. *out and used_path
 * are written only on success. */
ct_status ct_config_load(const char *explicit_path, struct ct_settings *out,
			 char *used_path, size_t used_len,
			 struct ct_error *err);

/* Reloadable settings with watchers (seed 002's addWatcher). */
typedef void (*ct_config_watcher_fn)(const struct ct_settings *new_settings,
				     void *ud);

struct ct_config_holder {
	char path[CT_CONFIG_PATH_LEN];  /* file reloaded; "" = defaults */
	struct ct_settings settings;    /* the settings in force */
	size_t n_watchers;
	struct {
		ct_config_watcher_fn fn;
		void *ud;               /* borrowed, passed back to fn */
	} watchers[CT_CONFIG_MAX_WATCHERS];
};

/* Loads the settings with ct_config_load(explicit_path, ...) and remembers
 * the file used, so that reloads read the same file. No watchers. On error
 * *h holds the built-in defaults and no path. */
ct_status ct_config_holder_init(struct ct_config_holder *h,
				const char *explicit_path,
				struct ct_error *err);

/* Adds a watcher, called after every successful reload in registration
 * order. CT_EINVAL for a NULL fn, CT_EFULL past CT_CONFIG_MAX_WATCHERS. */
ct_status ct_config_add_watcher(struct ct_config_holder *h,
				ct_config_watcher_fn fn, void *ud,
				struct ct_error *err);

/* Loads and validates the whole configuration again (file, then
 * environment). On any error h->settings stay as they were, no watcher is
 * called, and the error is returned. On success h->settings are replaced
 * and every watcher is called, in registration order, with them. */
ct_status ct_config_reload(struct ct_config_holder *h, struct ct_error *err);

#endif
