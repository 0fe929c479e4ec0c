/* cli.h: the command table and the helpers that subcommands share. */
#ifndef CRAWLTOP_CLI_H
#define CRAWLTOP_CLI_H

#include <stdio.h>

struct ct_settings;

/* One subcommand. usage and help are printed by `crawltop CMD --help` and
 * listed by `crawltop --help`, from this same table. */
struct cli_cmd {
	const char *name;
	const char *usage;   /* options after the command name */
	const char *summary; /* one line */
	const char *help;    /* the options, one per line, or NULL */
	int (*run)(int argc, char **argv);
};

extern const struct cli_cmd cli_cmd_score;
extern const struct cli_cmd cli_cmd_migrate;
extern const struct cli_cmd cli_cmd_top;
extern const struct cli_cmd cli_cmd_job;
extern const struct cli_cmd cli_cmd_enqueue;
extern const struct cli_cmd cli_cmd_simulate;
extern const struct cli_cmd cli_cmd_rank;
extern const struct cli_cmd cli_cmd_stats;
extern const struct cli_cmd cli_cmd_settings;
extern const struct cli_cmd cli_cmd_explain;

/* Print "crawltop CMD: " and the message to stderr. */
void cli_error(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;
/* Print the usage and help of one command to f. */
void cli_usage(FILE *f, const struct cli_cmd *c);
/* Load the settings as the config layer finds them (--config FILE or the
 * lookup order); prints the error and returns -1 on failure. */
int cli_load_settings(const char *cmd, const char *config_path,
		      struct ct_settings *s);

#endif
