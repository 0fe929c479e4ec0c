/* cmd_top.c: `crawltop [top] [-d DSN] [-r] [-i SECONDS] [-j JOB]
 * [--config FILE] [-b [-n N] [--json]]`: the live console (src/tui), or
 * with -b its batch output. `crawltop` with no command, or with options
 * only, runs this command.
 * Exit 0 on q (or after -n snapshots), 1 when the console or the batch
 * could not run (no terminal, database unreachable in batch mode), 2 on a
 * usage error, 128+N after signal N. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "config.h"
#include "crawltop/number.h"
#include "tui.h"

/* A number of seconds for -i: finite, at least the refresh floor. */
static int parse_interval(const char *s, double *out)
{
	double d;
	/* plain decimal, as every command reads a number (number.h): strtod
	 * also took " 2", "0x10" and "+2" */
	if (ct_number_read(s, true, &d) != CT_OK || !isfinite(d)) {
		cli_error("top", "-i %s: not a number of seconds", s);
		return -1;
	}
	if (d < 0.5 || d > 3600) {
		cli_error("top", "-i %s: the interval must be 0.5..3600 seconds "
			  "(0.5 is the refresh floor)", s);
		return -1;
	}
	*out = d;
	return 0;
}

/* A positive integer for -n and --timeout. */
static int parse_count(const char *opt, const char *s, int min, int max,
		       int *out)
{
	char *end;
	long v = strtol(s, &end, 10);
	if (!ct_number_text(s, false) || end == s || *end || v < min ||
	    v > max) {
		cli_error("top", "%s %s: must be a whole number in %d..%d", opt,
			  s, min, max);
		return -1;
	}
	*out = (int)v;
	return 0;
}

static int run(int argc, char **argv)
{
	static const struct option opts[] = {
		{"dsn", required_argument, NULL, 'd'},
		{"read-only", no_argument, NULL, 'r'},
		{"interval", required_argument, NULL, 'i'},
		{"job", required_argument, NULL, 'j'},
		{"config", required_argument, NULL, 'c'},
		{"batch", no_argument, NULL, 'b'},
		{"iterations", required_argument, NULL, 'n'},
		{"json", no_argument, NULL, 'J'},
		{"timeout", required_argument, NULL, 'T'},
		{NULL, 0, NULL, 0},
	};
	struct tui_opts o = {
		.dsn = getenv("CRAWLTOP_DSN"),
		.config_path = getenv("CRAWLTOP_CONFIG"),
		.statement_timeout_ms = 5000,
	};
	int c;
	struct cli_getopt go = CLI_GETOPT("top", "d:ri:j:bn:", opts);
	while ((c = cli_getopt(&go, argc, argv)) != -1) {
		switch (c) {
		case 'd': o.dsn = optarg; break;
		case 'r': o.readonly = 1; break;
		case 'i':
			if (parse_interval(optarg, &o.interval) != 0)
				return 2;
			break;
		case 'j': o.job = optarg; break;
		case 'c': o.config_path = optarg; break;
		case 'b': o.batch = 1; break;
		case 'n':
			if (parse_count("-n", optarg, 1, 1000000, &o.iterations) != 0)
				return 2;
			break;
		case 'J': o.json = o.batch = 1; break;
		case 'T':
			if (parse_count("--timeout", optarg, 100, 3600000,
					&o.statement_timeout_ms) != 0)
				return 2;
			break;
		default: return 2;
		}
	}
	if (optind != argc) {
		cli_error("top", "unexpected argument '%s'", argv[optind]);
		return 2;
	}
	if (o.iterations && !o.batch) {
		cli_error("top", "-n counts batch snapshots: use it with -b");
		return 2;
	}
	if (o.config_path && *o.config_path) {
		/* a named configuration must load: its rules hold here too */
		struct ct_settings s;
		if (cli_load_settings("top", o.config_path, &s) != 0)
			return 2;
	}
	if (o.batch && o.interval == 0)
		o.interval = 2;
	return o.batch ? tui_batch(&o) : tui_run(&o);
}

const struct cli_cmd cli_cmd_top = {
	.name = "top",
	.usage = "[-d DSN] [-r] [-i SECONDS] [-j JOB] [--config FILE] "
		 "[--timeout MS] [-b [-n N] [--json]]",
	.summary = "The live console: watch and reprioritise the crawl "
		   "(also `crawltop` alone)",
	.help = "  -d, --dsn DSN       libpq connection string or URI (default:\n"
		"                      $CRAWLTOP_DSN, else PGHOST, PGDATABASE,\n"
		"                      PGSERVICE, ~/.pgpass, ...)\n"
		"  -r, --read-only     show everything, change nothing\n"
		"  -i, --interval S    refresh every S seconds (0.5..3600;\n"
		"                      default: the saved setting, else 2)\n"
		"  -j, --job JOB       focus on one job (name or id)\n"
		"  --config FILE       configuration file; the console keeps its\n"
		"                      own settings in console.conf beside it\n"
		"                      (default: $XDG_CONFIG_HOME/crawltop)\n"
		"  -b, --batch         print the dashboard as plain text, no\n"
		"                      terminal needed\n"
		"  -n, --iterations N  with -b: stop after N snapshots\n"
		"  --json              with -b: one JSON object per snapshot\n"
		"  --timeout MS        statement timeout of every query (5000)\n"
		"\nIn the console, ? lists every key.\n",
	.run = run,
};
