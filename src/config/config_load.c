/* config_load.c: which file to read, and the one sequence that turns it
 * into checked settings: defaults, file, environment, validation. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "config.h"
#include "config_private.h"

/* Copies p into path; CT_ERANGE when it does not fit. */
static ct_status copy_path(const char *p, char *path, size_t len,
			   struct ct_error *err)
{
	size_t n = strlen(p);

	if (n >= len || n >= CT_CONFIG_PATH_LEN)
		return ct_error_set(err, CT_ERANGE,
				    "%.64s...: file name longer than %zu bytes",
				    p, (len < CT_CONFIG_PATH_LEN ? len
							       : CT_CONFIG_PATH_LEN) - 1);
	memcpy(path, p, n + 1);
	return CT_OK;
}

/* A file the user named: it must exist and be readable, once and again
 * (ct_config_open_problem). */
static ct_status pick_named(const char *p, const char *who, char *path,
			    size_t len, struct ct_error *err)
{
	ct_status st;
	const char *why;

	if (!p[0])
		return ct_error_set(err, CT_EINVAL,
				    "%s: empty configuration file name", who);
	why = ct_config_open_problem(p, &st);
	if (why)
		return ct_error_set(err, st, "%s (named by %s): %s", p, who,
				    why);
	return copy_path(p, path, len, err);
}

/* An implicit file: absent is fine (*found = false); present but
 * unreadable is an error, never skipped silently. */
static ct_status probe(const char *p, bool *found, char *path, size_t len,
		       struct ct_error *err)
{
	struct stat sb;
	ct_status st;
	const char *why;

	*found = false;
	if (stat(p, &sb) != 0 && (errno == ENOENT || errno == ENOTDIR))
		return CT_OK;
	why = ct_config_open_problem(p, &st);
	if (why)
		return ct_error_set(err, st, "%s: cannot be read as a "
				    "configuration file: %s", p, why);
	*found = true;
	return copy_path(p, path, len, err);
}

/* The user's file: $XDG_CONFIG_HOME (absolute, as the XDG spec demands)
 * or $HOME/.config; "" when neither variable helps. */
static void user_file(char *buf, size_t len)
{
	const char *xdg = getenv("XDG_CONFIG_HOME");
	const char *home = getenv("HOME");
	int n = -1;

	if (xdg && xdg[0] == '/')
		n = snprintf(buf, len, "%s/crawltop/crawltop.conf", xdg);
	else if (home && home[0])
		n = snprintf(buf, len, "%s/.config/crawltop/crawltop.conf",
			     home);
	if (n < 0 || (size_t)n >= len)
		buf[0] = '\0';
}

/* flag > CRAWLTOP_CONFIG > user file > system file > defaults. */
ct_status ct_config_find(const char *explicit_path, const char *system_path,
			 char *path, size_t len, struct ct_error *err)
{
	const char *env = getenv("CRAWLTOP_CONFIG");
	char user[CT_CONFIG_PATH_LEN];
	bool found = false;
	ct_status st;

	if (len == 0)
		return ct_error_set(err, CT_ERANGE, "no room for a file name");
	if (explicit_path)
		return pick_named(explicit_path, "--config", path, len, err);
	if (env)
		return pick_named(env, "environment CRAWLTOP_CONFIG", path,
				  len, err);
	user_file(user, sizeof(user));
	if (user[0]) {
		st = probe(user, &found, path, len, err);
		if (st != CT_OK || found)
			return st;
	}
	st = probe(system_path ? system_path : CT_CONFIG_SYSTEM_PATH, &found,
		   path, len, err);
	if (st != CT_OK || found)
		return st;
	path[0] = '\0';
	return CT_OK;
}

/* Assembles into a scratch struct ct_config so *out is untouched on error. */
ct_status ct_config_load_file(const char *path, struct ct_settings *out,
			      struct ct_error *err)
{
	struct ct_config c;
	ct_status st = CT_OK;

	ct_config_init(&c);
	if (path && path[0])
		st = ct_config_read_file(&c, path, err);
	if (st == CT_OK)
		st = ct_config_apply_env(&c, err);
	if (st == CT_OK)
		st = ct_config_validate(&c, err);
	if (st == CT_OK)
		*out = c.settings;
	return st;
}

/* Find, then load; used_path is written only on success. */
ct_status ct_config_load(const char *explicit_path, struct ct_settings *out,
			 char *used_path, size_t used_len,
			 struct ct_error *err)
{
	char path[CT_CONFIG_PATH_LEN];
	ct_status st = ct_config_find(explicit_path, NULL, path, sizeof(path),
				      err);

	if (st != CT_OK)
		return st;
	if (used_path && strlen(path) >= used_len)
		return ct_error_set(err, CT_ERANGE,
				    "%.64s: file name longer than %zu bytes",
				    path, used_len ? used_len - 1 : 0);
	st = ct_config_load_file(path, out, err);
	if (st == CT_OK && used_path)
		memcpy(used_path, path, strlen(path) + 1);
	return st;
}
