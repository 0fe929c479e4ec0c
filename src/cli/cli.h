/* cli.h: the command table and the helpers that subcommands share. */
#ifndef CRAWLTOP_CLI_H
#define CRAWLTOP_CLI_H

#include <stdint.h>
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
/* Text from the database (a note, a role name, a job's name, a worker's
 * error) to print: control and invisible characters, newlines included,
 * and bytes that are not UTF-8 escaped as \xNN, so that what another
 * client wrote cannot drive the terminal nor forge a line. A new string
 * (free it); NULL when out of memory. NULL s reads as "". Every text a
 * command prints for a person from the database goes through it (JSON
 * output is escaped by its encoder instead). */
char *cli_shown(const char *s);

/* cli_shown for the arguments of one printf: each cli_show returns the
 * escaped text, kept in set until cli_show_free ("(out of memory)" when
 * memory runs out). A set starts as {0}. */
struct cli_shown_set {
	char **s;
	size_t n, cap;
};
const char *cli_show(struct cli_shown_set *set, const char *s);
void cli_show_free(struct cli_shown_set *set);

/* The wall clock in epoch milliseconds (freshness's default `now`). */
int64_t cli_now_ms(void);

/* 0 when s (an argument of cmd: `what`) is UTF-8 text without control
 * characters; else -1 with the reason printed, the text escaped, and
 * hint (what it should be). Checked before anything is sent: the server
 * would answer a byte that is not UTF-8 with its own encoding error. */
int cli_text_ok(const char *cmd, const char *what, const char *s,
		const char *hint);

/* Option parsing for one command: getopt_long over argv (from argv[1]),
 * refusing what getopt_long would take silently. Initialise with
 * CLI_GETOPT and call until it returns -1. It returns the option's value;
 * or '?' after printing why it stopped: an unknown option or one without
 * its value (named as typed, also inside a cluster such as -xyz), or an
 * option given twice (the second would silently win). The caller then
 * exits with status 2. -h and --help where an option may stand (not as
 * another option's value: `--note -h` is a note) print the command's help
 * and exit 0 (cli_help). */
struct option;
struct cli_getopt {
	const char *cmd;
	const char *shortopts;
	const struct option *longopts;
	int started;
	unsigned char seen[512];
};
#define CLI_GETOPT(cmd, shortopts, longopts) \
	{(cmd), (shortopts), (longopts), 0, {0}}
int cli_getopt(struct cli_getopt *g, int argc, char **argv);
/* Mark option c as given (for options a command reads past getopt); -1
 * with the error printed when it was given before. */
int cli_getopt_once(struct cli_getopt *g, int c);
/* Print the usage and help of one command to f. */
void cli_usage(FILE *f, const struct cli_cmd *c);
/* Whether arg is -h or --help. */
int cli_is_help(const char *arg);
/* Print command cmd's usage and help to stdout and exit 0. */
_Noreturn void cli_help(const char *cmd);
/* Load the settings as the config layer finds them (--config FILE or the
 * lookup order); prints the error and returns -1 on failure. */
int cli_load_settings(const char *cmd, const char *config_path,
		      struct ct_settings *s);

#endif
