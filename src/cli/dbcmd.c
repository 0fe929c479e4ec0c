/* dbcmd.c: the helpers of the store commands (dbcmd.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "crawltop/number.h"
#include "dbcmd.h"
#include "settings_json.h"
#include "settings_store.h"

static const char *const modes[] = {"fifo", "hierarchy", "frontier",
				    "discovery", "freshness", "importance"};

const char *db_default_dsn(void)
{
	const char *d = getenv("CRAWLTOP_DSN");
	return d && *d ? d : NULL;
}

int db_open(const char *cmd, const char *dsn, struct ct_store **s)
{
	struct ct_error err;
	char app[64];
	snprintf(app, sizeof app, "crawltop %s", cmd);
	if (ct_store_open_as(dsn, app, s, &err) != CT_OK) {
		cli_error(cmd, "%s", err.msg);
		return -1;
	}
	return 0;
}

int db_job(const char *cmd, struct ct_store *s, const char *spec,
	   struct ct_job_info *info)
{
	struct ct_error err;
	int64_t id;
	if (ct_store_job_find(s, spec, &id, &err) != CT_OK ||
	    ct_store_job_get(s, id, info, &err) != CT_OK) {
		cli_error(cmd, "%s", err.msg);
		return -1;
	}
	return 0;
}

int db_settings(const char *cmd, struct ct_store *s, struct ct_settings *out,
		int *version, char *env, size_t env_len)
{
	struct ct_settings_row row;
	struct ct_error err;
	int rc = 0;
	if (env && env_len)
		env[0] = '\0';
	if (ct_store_settings_get(s, 0, &row, &err) != CT_OK) {
		cli_error(cmd, "%s", err.msg); /* "settings: ..." */
		rc = -1;
	} else if ((env ? ct_settings_from_json_env(row.value, row.version,
						    out, env, env_len, &err)
			: ct_settings_from_json(row.value, row.version, out,
						&err)) != CT_OK) {
		cli_error(cmd, "settings: the stored version %d%s does not read: "
			  "%s", row.version, env ? " with the environment's "
			  "overrides" : "", err.msg);
		rc = -2;
	} else if (version) {
		*version = row.version;
	}
	ct_settings_row_free(&row);
	return rc;
}

int db_parse_priority(const char *cmd, const char *text, int *out)
{
	char *end;
	errno = 0;
	long v = strtol(text, &end, 10);
	if (!ct_number_text(text, false) || end == text || *end || errno) {
		cli_error(cmd, "priority '%s' is not a whole number: a job "
			  "priority is 1..10 (1 is the most urgent)", text);
		return -1;
	}
	if (v < 1 || v > 10) {
		cli_error(cmd, "priority %ld is outside 1..10 (1 is the most "
			  "urgent, 5 the default; 0 and 11 are refused, "
			  "never clamped)", v);
		return -1;
	}
	*out = (int)v;
	return 0;
}

int db_parse_mode(const char *cmd, const char *text)
{
	for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++)
		if (strcmp(text, modes[i]) == 0)
			return 0;
	cli_error(cmd, "mode '%s' is unknown: use fifo, hierarchy, frontier, "
		  "discovery, freshness or importance", text);
	return -1;
}

int db_parse_long(const char *cmd, const char *opt, const char *text,
		  long min, long max, long *out)
{
	char *end;
	errno = 0;
	long v = strtol(text, &end, 10);
	if (!ct_number_text(text, false) || end == text || *end || errno ||
	    v < min || v > max) {
		cli_error(cmd, "%s %s: must be a whole number in %ld..%ld", opt,
			  text, min, max);
		return -1;
	}
	*out = v;
	return 0;
}

int db_parse_double(const char *cmd, const char *opt, const char *text,
		    double min, double max, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(text, &end);
	if (!ct_number_text(text, true) || end == text || *end || errno ||
	    !isfinite(v) || v < min || v > max) {
		cli_error(cmd, "%s %s: must be a number in %g..%g", opt, text,
			  min, max);
		return -1;
	}
	*out = v;
	return 0;
}
