/* cmd_rank.c: `crawltop rank`: seed 003's ranking run. Scores and classes
 * the unfinished tasks of the discovery jobs (or of --job) with the engine
 * under the configuration's weights and class bounds, stores their
 * ranking record, records a run manifest and prints the seed's run
 * statistics. Exit 0 on success, 1 when the database refused, 2 on a bad
 * option or configuration (caught before connecting). */
#include <getopt.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "config.h"
#include "crawltop/settings.h"
#include "dbcmd.h"
#include "rank_ops.h"
#include "rankfmt.h"

/* `crawltop rank [-d DSN] [--job J] [--min-publish-score S]
 * [--profile-score S] [--config FILE] [--batch N] [--connections N]`: on
 * success the run's statistics on stdout and exit 0; any failure one line on stderr and a
 * non-zero exit, with nothing written when it is caught before the first
 * batch (options, configuration, job, permissions). */
static int run(int argc, char **argv)
{
	static const struct option opts[] = {
		{"dsn", required_argument, NULL, 'd'},
		{"job", required_argument, NULL, 'j'},
		{"min-publish-score", required_argument, NULL, 'm'},
		{"profile-score", required_argument, NULL, 'p'},
		{"config", required_argument, NULL, 'c'},
		{"batch", required_argument, NULL, 'b'},
		{"connections", required_argument, NULL, 'n'},
		{NULL, 0, NULL, 0},
	};
	const char *dsn = db_default_dsn(), *job = NULL, *config = NULL;
	const char *minpub = NULL, *profile = NULL, *batch = NULL;
	const char *conns = NULL;
	int c;
	struct cli_getopt go = CLI_GETOPT("rank", "d:", opts);
	while ((c = cli_getopt(&go, argc, argv)) != -1) {
		switch (c) {
		case 'd': dsn = optarg; break;
		case 'j': job = optarg; break;
		case 'm': minpub = optarg; break;
		case 'p': profile = optarg; break;
		case 'c': config = optarg; break;
		case 'b': batch = optarg; break;
		case 'n': conns = optarg; break;
		default:
			return DB_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		cli_error("rank", "unexpected argument '%s' (crawltop rank "
			  "--help)", argv[optind]);
		return DB_EXIT_USAGE;
	}
	/* a file when one is named (--config, $CRAWLTOP_CONFIG), read now;
	 * otherwise the store's current settings, read once connected */
	bool from_file = config || getenv("CRAWLTOP_CONFIG");
	struct ct_settings set;
	char from[768] = "";
	struct ct_error err;
	if (from_file && ct_config_load(config, &set, from, sizeof from,
					&err) != CT_OK) {
		cli_error("rank", "%s", err.msg);
		return DB_EXIT_USAGE;
	}
	long nbatch = 0, nconn = 2;
	double p0 = 0, p1 = 0;
	if ((profile && db_parse_double("rank", "--profile-score", profile, 0,
					100, &p0) != 0) ||
	    (minpub && db_parse_double("rank", "--min-publish-score", minpub,
				       0, 100, &p1) != 0) ||
	    (batch && db_parse_long("rank", "--batch", batch, 1, 100000,
				    &nbatch) != 0) ||
	    (conns && db_parse_long("rank", "--connections", conns, 1,
				    CT_RANK_MAX_CONNS, &nconn) != 0))
		return DB_EXIT_USAGE;

	struct ct_store *s;
	if (db_open("rank", dsn, &s) != 0)
		return DB_EXIT_FAIL;
	struct ct_job_info ji;
	if (job && db_job("rank", s, job, &ji) != 0) {
		ct_store_close(s);
		return DB_EXIT_FAIL;
	}
	int version = 0;
	if (from_file && !from[0]) {
		snprintf(from, sizeof from, "the built-in defaults");
	} else if (!from_file) {
		/* the store's current version, the environment on top: the
		 * version only when no variable overrode a value of it */
		char env[512];
		int rc = db_settings("rank", s, &set, &version, env, sizeof env);
		if (rc != 0) {
			ct_store_close(s);
			return rc == -1 ? DB_EXIT_FAIL : DB_EXIT_USAGE;
		}
		snprintf(from, sizeof from, "crawltop.settings v%d%s%s", version,
			 env[0] ? " with " : "", env);
		if (env[0])
			version = 0;
	}
	/* where the bounds come from, each on its own, for a refusal */
	char base[sizeof from];
	snprintf(base, sizeof base, "%s", from);
	if (profile || minpub) {
		set.classes.p0 = profile ? p0 : set.classes.p0;
		set.classes.p1 = minpub ? p1 : set.classes.p1;
		version = 0; /* not the stored version as it stands */
		size_t n = strlen(from);
		snprintf(from + n, sizeof from - n, "%s%s%s",
			 profile ? " --profile-score " : "",
			 profile ? profile : "", minpub ? " --min-publish-"
			 "score " : "");
		n = strlen(from);
		snprintf(from + n, sizeof from - n, "%s", minpub ? minpub : "");
	}
	if (ct_class_bounds_check(&set.classes, &err) != CT_OK) {
		cli_error("rank", "class bounds P0 %g (%s), P1 %g (%s), P2 %g "
			  "(%s): %s", set.classes.p0, profile ?
			  "--profile-score" : base, set.classes.p1, minpub ?
			  "--min-publish-score" : base, set.classes.p2, base,
			  err.msg);
		ct_store_close(s);
		return DB_EXIT_USAGE;
	}
	struct ct_store *extra[CT_RANK_MAX_CONNS];
	size_t n_extra = 0;
	for (; n_extra + 1 < (size_t)nconn; n_extra++) {
		if (db_open("rank", dsn, &extra[n_extra]) != 0) {
			while (n_extra > 0)
				ct_store_close(extra[--n_extra]);
			ct_store_close(s);
			return DB_EXIT_FAIL;
		}
	}
	char note[1024];
	rankfmt_note(note, sizeof note, &set, from);
	struct ct_rank_opts o = {.settings = &set, .job_id = job ? ji.id : 0,
				 .batch = (size_t)nbatch, .note = note,
				 .settings_version = version,
				 .extra = extra, .n_extra = n_extra};
	struct ct_rank_result res;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ct_status st = ct_store_rank(s, &o, &res, &err);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	while (n_extra > 0)
		ct_store_close(extra[--n_extra]);
	ct_store_close(s);
	if (st != CT_OK) {
		cli_error("rank", "%s", err.msg);
		if (res.ranked > 0)
			fprintf(stderr, "crawltop rank: %ld batches (%lld tasks) "
				"were ranked and committed before the failure; "
				"no run manifest was recorded\n", res.batches,
				res.ranked);
		return DB_EXIT_FAIL;
	}
	double secs = (double)(t1.tv_sec - t0.tv_sec) +
		      (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	char *name = cli_shown(job ? ji.name : "");
	printf("Ranked %lld URLs%s%s in %.2f s (%lld without inputs left "
	       "unranked); run manifest %" PRId64 "\n", res.ranked,
	       job ? " of job " : " of every discovery job",
	       name ? name : "(out of memory)", secs, res.unranked,
	       res.manifest.id);
	free(name);
	if (res.retried)
		printf("(%ld batch%s rolled back by the server to break a "
		       "deadlock with other transactions, and ranked again)\n",
		       res.retried, res.retried == 1 ? "" : "es");
	rankfmt_text(stdout, &res.manifest, &set.classes, false);
	return DB_EXIT_OK;
}

const struct cli_cmd cli_cmd_rank = {
	.name = "rank",
	.usage = "[-d DSN] [--job JOB] [--min-publish-score S] "
		 "[--profile-score S] [--config FILE] [--batch N] "
		 "[--connections N]",
	.summary = "Score and class the discovered URLs (seed 003), record "
		   "the run",
	.help = DB_HELP_DSN
		"  --job JOB           rank this discovery job only (a name or "
		"an id);\n"
		"                      default: every job in discovery mode\n"
		"  --min-publish-score S\n"
		"                      the P1 lower bound, 0..100 (overrides "
		"MIN_PUBLISH_SCORE\n"
		"                      and classes.p1)\n"
		"  --profile-score S   the P0 lower bound, 0..100 (overrides "
		"PROFILE_SCORE\n"
		"                      and classes.p0)\n"
		"  --config FILE       rank with this configuration file "
		"(weights, bounds,\n"
		"                      backoff); default: $CRAWLTOP_CONFIG if "
		"set, else the\n"
		"                      store's current settings (settings get); "
		"either way\n"
		"                      RANK_WEIGHTS_*, BACKOFF_* ... override "
		"them\n"
		"  --batch N           tasks per transaction, 1..100000 (default "
		"10000)\n"
		"  --connections N     rank with N connections in parallel, each "
		"a stripe of\n"
		"                      the task ids, 1..16 (default 2)\n",
	.run = run,
};
