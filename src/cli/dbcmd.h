/* dbcmd.h: what the commands that talk to the task store share (`job`,
 * `enqueue`, `simulate`): the exit statuses, -d DSN, opening the store,
 * finding a job, and option values checked with the rule they break.
 *
 * Every helper that fails prints one line, "crawltop CMD: message", to
 * stderr and returns -1; the caller returns the exit status. */
#ifndef CRAWLTOP_DBCMD_H
#define CRAWLTOP_DBCMD_H

#include <stdint.h>

#include "cli_ops.h"
#include "crawltop/settings.h"
#include "store.h"

/* Exit statuses of the store commands. */
enum {
	DB_EXIT_OK = 0,
	DB_EXIT_FAIL = 1,  /* the database or the input refused; nothing changed */
	DB_EXIT_USAGE = 2, /* a bad option or value, caught before connecting */
};

/* The help lines every store command prints for -d. */
#define DB_HELP_DSN \
	"  -d, --dsn DSN       libpq connection string or URI (default:\n" \
	"                      $CRAWLTOP_DSN, else PGHOST, PGDATABASE, ...)\n"

/* The DSN to use when -d is not given: $CRAWLTOP_DSN or NULL (libpq's
 * PG* defaults). */
const char *db_default_dsn(void);

/* Connect; prints the error and returns -1 on failure. */
int db_open(const char *cmd, const char *dsn, struct ct_store **s);

/* Find job spec (a name, or an id) and read it into *info; prints
 * "crawltop CMD: job 'spec' does not exist ..." when there is none. */
int db_job(const char *cmd, struct ct_store *s, const char *spec,
	   struct ct_job_info *info);

/* The engine settings in force in the store: its current version of
 * crawltop.settings over the defaults (settings_json.h:
 * ct_settings_from_json), as the console scores with them. *version (may
 * be NULL) receives the version. With env (env_len bytes), seed 003's
 * environment overrides go on top, and env receives the variables that
 * overrode a value ("" when none; ct_settings_from_json_env). Prints
 * "crawltop CMD: settings: ..." on failure: -1 when the store did not
 * answer, -2 when its version (with the overrides) does not read. */
int db_settings(const char *cmd, struct ct_store *s, struct ct_settings *out,
		int *version, char *env, size_t env_len);

/* A job priority: an integer 1..10 (SPEC.md: 0 and 11 are errors, never
 * clamped). Checked here, before anything is sent. */
int db_parse_priority(const char *cmd, const char *text, int *out);

/* A prioritisation mode: fifo, hierarchy, frontier, discovery, freshness
 * or importance. */
int db_parse_mode(const char *cmd, const char *text);

/* A whole number in min..max, named opt in the message. */
int db_parse_long(const char *cmd, const char *opt, const char *text,
		  long min, long max, long *out);

/* A finite number in min..max, named opt in the message. */
int db_parse_double(const char *cmd, const char *opt, const char *text,
		    double min, double max, double *out);

#endif
