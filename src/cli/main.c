/* main.c: the crawltop entry point and subcommand dispatcher.
 *
 * Every command is a row of `commands`; --help output is generated from
 * the same rows. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "config.h"

static const struct cli_cmd *const commands[] = {
	&cli_cmd_score,
	&cli_cmd_migrate,
	&cli_cmd_top,
	&cli_cmd_job,
	&cli_cmd_enqueue,
	&cli_cmd_simulate,
	&cli_cmd_rank,
	&cli_cmd_stats,
	&cli_cmd_settings,
	&cli_cmd_explain,
};
#define N_COMMANDS (sizeof commands / sizeof commands[0])

void cli_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "crawltop %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void cli_usage(FILE *f, const struct cli_cmd *c)
{
	fprintf(f, "usage: crawltop %s %s\n%s\n", c->name, c->usage, c->summary);
	if (c->help)
		fprintf(f, "\n%s", c->help);
}

int cli_load_settings(const char *cmd, const char *config_path,
		      struct ct_settings *s)
{
	struct ct_error err;
	char used[4096];
	if (ct_config_load(config_path, s, used, sizeof used, &err) != CT_OK) {
		cli_error(cmd, "%s", err.msg);
		return -1;
	}
	return 0;
}

static void usage_all(FILE *f)
{
	fprintf(f, "usage: crawltop [--help] [--version] COMMAND [ARGS]\n\n"
		   "commands:\n");
	for (size_t i = 0; i < N_COMMANDS; i++)
		fprintf(f, "  %-10s %s\n", commands[i]->name, commands[i]->summary);
	fprintf(f, "\n'crawltop COMMAND --help' describes one command.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return cli_cmd_top.run(argc, argv); /* `crawltop`: the console */
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		usage_all(stdout);
		return 0;
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("crawltop %s\n", CRAWLTOP_VERSION);
		return 0;
	}
	if (argv[1][0] == '-') /* `crawltop -d DSN ...`: the console */
		return cli_cmd_top.run(argc, argv);
	for (size_t i = 0; i < N_COMMANDS; i++) {
		const struct cli_cmd *c = commands[i];
		if (strcmp(argv[1], c->name) != 0)
			continue;
		for (int a = 2; a < argc; a++)
			if (strcmp(argv[a], "--help") == 0 || strcmp(argv[a], "-h") == 0) {
				cli_usage(stdout, c);
				return 0;
			}
		return c->run(argc - 1, argv + 1);
	}
	fprintf(stderr, "crawltop: unknown command '%s'\n", argv[1]);
	usage_all(stderr);
	return 2;
}
