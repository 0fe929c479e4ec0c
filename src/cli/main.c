/* main.c: the crawltop entry point and subcommand dispatcher.
 *
 * Every command is a row of `commands`; --help output is generated from
 * the same rows. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "config.h"
#include "urlpath.h"

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

/* s with what a terminal would obey escaped (urlpath_escape: control and
 * invisible characters, and bytes that are not UTF-8, as \xNN; newlines
 * too unless keep_newlines), in a new string; NULL when out of memory.
 * Every text the commands print from the database or the server goes
 * through here. Room for the longest escape of each byte (4 times) and
 * what urlpath_escape keeps free before it writes one (20 bytes). */
static char *escaped(const char *s, int keep_newlines)
{
	size_t len = strlen(s), cap = len * 4 + 24;
	char *out = malloc(cap);
	if (out)
		urlpath_escape(s, len, len, keep_newlines, out, cap);
	return out;
}

void cli_error(const char *cmd, const char *fmt, ...)
{
	/* The store's messages name their operation ("rank: job x ..."),
	 * for callers of the library; after "crawltop rank: " that name is
	 * said once, not twice. */
	char small[8192], *msg = small;
	va_list ap, again;
	va_start(ap, fmt);
	va_copy(again, ap);
	int len = vsnprintf(small, sizeof small, fmt, ap);
	va_end(ap);
	if (len < 0)
		len = snprintf(small, sizeof small, "%s", fmt);
	if ((size_t)len >= sizeof small && (msg = malloc((size_t)len + 1)))
		vsnprintf(msg, (size_t)len + 1, fmt, again);
	va_end(again);
	if (!msg) /* out of memory: the message cut */
		msg = small;
	/* libpq indents a message's second line with a tab ("\n\tIs the
	 * server running ..."): a space, not "\x09" */
	for (char *c = msg; *c; c++)
		if (c[0] == '\n' && c[1] == '\t')
			c[1] = ' ';
	size_t n = strlen(cmd);
	const char *m = msg;
	if (strncmp(m, cmd, n) == 0 && m[n] == ':' && m[n + 1] == ' ')
		m += n + 2;
	/* the message may quote the server, which quotes the input: escape
	 * what a terminal would obey (an ESC sequence in a job's name) */
	char *shown = escaped(m, 1);
	fprintf(stderr, "crawltop %s: %s\n", cmd, shown ? shown : "(out of memory)");
	free(shown);
	if (msg != small)
		free(msg);
}

int64_t cli_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

char *cli_shown(const char *s)
{
	return escaped(s ? s : "", 0);
}

const char *cli_show(struct cli_shown_set *set, const char *s)
{
	if (set->n == set->cap) {
		size_t cap = set->cap ? set->cap * 2 : 16;
		char **t = realloc(set->s, cap * sizeof *t);
		if (!t)
			return "(out of memory)";
		set->s = t;
		set->cap = cap;
	}
	char *e = cli_shown(s);
	if (!e)
		return "(out of memory)";
	set->s[set->n++] = e;
	return e;
}

void cli_show_free(struct cli_shown_set *set)
{
	for (size_t i = 0; i < set->n; i++)
		free(set->s[i]);
	free(set->s);
	*set = (struct cli_shown_set){0};
}

int cli_text_ok(const char *cmd, const char *what, const char *s,
		const char *hint)
{
	size_t bad, len = strlen(s);
	char shown[URLPATH_SHOWN];
	if (!urlpath_utf8_ok(s, len, &bad)) {
		urlpath_shown(s, len, shown);
		cli_error(cmd, "%s '%s' is not UTF-8 text (byte %zu): %s", what,
			  shown, bad + 1, hint);
		return -1;
	}
	for (size_t i = 0; i < len; i++)
		if (urlpath_hidden_at(s, i, len, 1)) {
			urlpath_shown(s, len, shown);
			cli_error(cmd, "%s '%s' holds control or invisible "
				  "characters: refused", what, shown);
			return -1;
		}
	return 0;
}

/* How the user typed the option getopt_long refused: the current long
 * option ("--name", also when it lacks its value), else "-c" (a short
 * option: glibc leaves optind on a cluster such as -xyz until its last
 * letter, so argv[optind - 1] may be an earlier argument). */
static void typed_option(const struct cli_getopt *g, int argc, char **argv,
			 char *out, size_t n)
{
	const char *a = optind > 1 && optind - 1 < argc ? argv[optind - 1] : "";
	size_t len = strcspn(a, "=");
	int is_long = 0;
	if (strncmp(a, "--", 2) == 0) {
		if (optopt == 0)
			is_long = 1; /* an unknown long option */
		for (const struct option *o = g->longopts; o && o->name; o++)
			if (o->val == optopt && strlen(o->name) == len - 2 &&
			    strncmp(o->name, a + 2, len - 2) == 0)
				is_long = 1; /* a long option without its value */
	}
	if (is_long)
		snprintf(out, n, "%.*s", (int)len, a);
	else
		snprintf(out, n, "-%c", optopt > 32 && optopt < 127 ? optopt : '?');
}

/* The option whose value is c, as "--name" (and "-c" when it has one). */
static void option_name(const struct cli_getopt *g, int c, char *out, size_t n)
{
	for (const struct option *o = g->longopts; o && o->name; o++)
		if (o->val == c) {
			if (c > 0 && c < 128 && strchr(g->shortopts, c))
				snprintf(out, n, "-%c/--%s", c, o->name);
			else
				snprintf(out, n, "--%s", o->name);
			return;
		}
	snprintf(out, n, "-%c", c > 0 && c < 128 ? c : '?');
}

int cli_getopt(struct cli_getopt *g, int argc, char **argv)
{
	if (!g->started) {
		g->started = 1;
		optind = 1;
		opterr = 0;
	}
	int c = getopt_long(argc, argv, g->shortopts, g->longopts, NULL);
	char name[160];
	if (c == -1)
		return -1;
	if (c == '?' || c == ':') {
		typed_option(g, argc, argv, name, sizeof name);
		if (cli_is_help(name))
			cli_help(g->cmd);
		cli_error(g->cmd, "unknown option, or an option without its "
			  "value: '%s' (crawltop %s --help)", name, g->cmd);
		return '?';
	}
	return cli_getopt_once(g, c) != 0 ? '?' : c;
}

int cli_getopt_once(struct cli_getopt *g, int c)
{
	char name[160];
	if (c < 0 || (size_t)c >= sizeof g->seen)
		return 0;
	if (g->seen[c]) {
		option_name(g, c, name, sizeof name);
		cli_error(g->cmd, "%s given twice: give each option once "
			  "(crawltop %s --help)", name, g->cmd);
		return -1;
	}
	g->seen[c] = 1;
	return 0;
}

void cli_usage(FILE *f, const struct cli_cmd *c)
{
	fprintf(f, "usage: crawltop %s %s\n%s\n", c->name, c->usage, c->summary);
	if (c->help)
		fprintf(f, "\n%s", c->help);
}

int cli_is_help(const char *arg)
{
	return strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0;
}

void cli_help(const char *cmd)
{
	for (size_t i = 0; i < N_COMMANDS; i++)
		if (strcmp(commands[i]->name, cmd) == 0)
			cli_usage(stdout, commands[i]);
	exit(fflush(stdout) == 0 ? 0 : 1);
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
	/* A closed stdin, stdout or stderr would be taken by the next file
	 * opened: `enqueue --urls - <&-` read its database socket as stdin.
	 * Give each /dev/null instead (open takes the lowest free number). */
	for (int fd = 0; fd <= 2; fd++)
		if (fcntl(fd, F_GETFD) == -1 && errno == EBADF &&
		    open("/dev/null", fd ? O_WRONLY : O_RDONLY) < 0)
			return 1;
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
		/* -h and --help: the commands' option parsing (cli_getopt) */
		return c->run(argc - 1, argv + 1);
	}
	fprintf(stderr, "crawltop: unknown command '%s'\n", argv[1]);
	usage_all(stderr);
	return 2;
}
