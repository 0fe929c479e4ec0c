/* cmd_job.c: `crawltop job SUBCOMMAND`: list, show and create jobs, and
 * (job_change.c) change their priority, state and scores. One table below
 * names every subcommand, its arguments and the options it takes; the
 * dispatcher checks the command line against it before anything runs.
 * Exit 0 on success, 1 when the database refused (nothing changed), 2 on
 * a usage error or a bad value (caught before connecting). */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "dbcmd.h"
#include "job.h"

static int job_list(const struct job_args *a);
static int job_show(const struct job_args *a);
static int job_create(const struct job_args *a);

/* One subcommand: its positional arguments (exactly nargs) and the
 * options it accepts beyond -d. */
static const struct job_sub {
	const char *name;
	int nargs;
	const char *args;
	unsigned opts;
	int (*run)(const struct job_args *a);
} subs[] = {
	{"list", 0, "", 0, job_list},
	{"show", 1, "JOB", 0, job_show},
	{"create", 1, "NAME", JOB_OPT_DOMAIN | JOB_OPT_PRIORITY | JOB_OPT_MODE,
	 job_create},
	{"set-priority", 2, "JOB PRIORITY", 0, job_set_priority},
	{"set-mode", 2, "JOB MODE", JOB_OPT_CONNECTIONS, job_set_mode},
	{"pause", 1, "JOB", 0, job_pause},
	{"resume", 1, "JOB", 0, job_resume},
	{"cancel", 1, "JOB", JOB_OPT_YES, job_cancel},
	{"boost", 1, "JOB", JOB_OPT_PREFIX | JOB_OPT_PATTERN | JOB_OPT_BY |
	 JOB_OPT_DEMOTE | JOB_OPT_DRY_RUN, job_boost},
	{"sitemap-priorities", 1, "JOB", 0, job_sitemap_priorities},
};
#define N_SUBS (sizeof subs / sizeof subs[0])

/* The long names of the options, in enum job_opt bit order. */
static const char *const opt_names[] = {"--domain", "--priority", "--mode",
					"--yes", "--prefix", "--by",
					"--demote", "--pattern", "--dry-run",
					"--connections"};

/* `job list`: one line per job with its task counts. */
static int job_list(const struct job_args *a)
{
	struct ct_store *s;
	if (db_open("job", a->dsn, &s) != 0)
		return DB_EXIT_FAIL;
	struct ct_job_info_list l;
	struct ct_error err;
	ct_status st = ct_store_job_list(s, &l, &err);
	ct_store_close(s);
	if (st != CT_OK) {
		cli_error("job", "%s", err.msg);
		return DB_EXIT_FAIL;
	}
	/* names and domains as shown (escaped), the columns as wide as them */
	struct cli_shown_set sh = {0};
	const char **name = malloc((l.n ? l.n : 1) * 2 * sizeof *name);
	if (!name) {
		ct_job_info_list_free(&l);
		cli_error("job", "out of memory");
		return DB_EXIT_FAIL;
	}
	const char **domain = name + l.n;
	int wn = 4, wd = 6;
	for (size_t i = 0; i < l.n; i++) {
		name[i] = cli_show(&sh, l.jobs[i].name);
		domain[i] = cli_show(&sh, l.jobs[i].domain);
		int n = (int)strlen(name[i]), d = (int)strlen(domain[i]);
		wn = n > wn ? n : wn;
		wd = d > wd ? d : wd;
	}
	printf("%6s  %-*s  %-*s  %-10s %4s  %-9s %9s %9s %9s %9s %9s %9s\n",
	       "ID", wn, "NAME", wd, "DOMAIN", "MODE", "PRIO", "STATUS", "PAGES",
	       "PENDING", "RUNNING", "RETRYING", "COMPLETED", "FAILED");
	for (size_t i = 0; i < l.n; i++) {
		const struct ct_job_info *j = &l.jobs[i];
		printf("%6" PRId64 "  %-*s  %-*s  %-10s %4d  %-9s %9ld %9" PRId64
		       " %9" PRId64 " %9" PRId64 " %9" PRId64 " %9" PRId64 "\n",
		       j->id, wn, name[i], wd, domain[i], cli_show(&sh, j->mode),
		       j->priority, cli_show(&sh, j->status), j->total_pages,
		       j->pending, j->running, j->retrying, j->completed,
		       j->failed);
	}
	free(name);
	cli_show_free(&sh);
	ct_job_info_list_free(&l);
	return DB_EXIT_OK;
}

/* `job show JOB`: every field of one job, one per line. */
static int job_show(const struct job_args *a)
{
	struct ct_store *s;
	struct ct_job_info j;
	if (db_open("job", a->dsn, &s) != 0)
		return DB_EXIT_FAIL;
	int rc = db_job("job", s, a->pos[0], &j);
	ct_store_close(s);
	if (rc != 0)
		return DB_EXIT_FAIL;
	struct cli_shown_set sh = {0}; /* the fields as another client wrote them */
	printf("id           %" PRId64 "\n"
	       "name         %s\n"
	       "domain       %s\n"
	       "mode         %s\n"
	       "priority     %d\n"
	       "status       %s\n"
	       "max retries  %d\n"
	       "total pages  %ld\n"
	       "pending      %" PRId64 "\n"
	       "running      %" PRId64 "\n"
	       "retrying     %" PRId64 "\n"
	       "completed    %" PRId64 "\n"
	       "failed       %" PRId64 "\n"
	       "skipped      %" PRId64 "\n"
	       "created      %s\n"
	       "updated      %s\n",
	       j.id, cli_show(&sh, j.name), cli_show(&sh, j.domain),
	       cli_show(&sh, j.mode), j.priority, cli_show(&sh, j.status),
	       j.max_retries, j.total_pages, j.pending, j.running, j.retrying,
	       j.completed, j.failed, j.skipped, cli_show(&sh, j.created),
	       cli_show(&sh, j.updated));
	/* a change whose rescore was stopped or failed (0027) */
	if (j.rescore_reason[0] && j.pending + j.running + j.retrying > 0)
		printf("rescore      needed: tasks not all rescored for %s "
		       "(since %s; crawltop job set-mode %s %s)\n",
		       cli_show(&sh, j.rescore_reason), j.rescore_needed,
		       cli_show(&sh, j.name), cli_show(&sh, j.mode));
	cli_show_free(&sh);
	return DB_EXIT_OK;
}

/* `job create NAME --domain D [--priority P] [--mode M]`. */
static int job_create(const struct job_args *a)
{
	int prio = 0;
	const char *mode = a->mode ? a->mode : CT_MODE_DEFAULT;
	if (!a->domain) {
		cli_error("job", "create needs --domain HOST (the site the job "
			  "crawls)");
		return DB_EXIT_USAGE;
	}
	if ((a->priority && db_parse_priority("job", a->priority, &prio) != 0) ||
	    db_parse_mode("job", mode) != 0)
		return DB_EXIT_USAGE;

	struct ct_store *s;
	struct ct_error err;
	int64_t id;
	if (db_open("job", a->dsn, &s) != 0)
		return DB_EXIT_FAIL;
	ct_status st = CT_OK;
	if (!a->priority)
		st = ct_store_default_priority(s, &prio, &err);
	if (st == CT_OK)
		st = ct_store_job_create(s, a->pos[0], a->domain, prio, mode,
					 &id, &err);
	struct ct_job_info j;
	if (st == CT_OK) /* as stored: the domain lower-cased */
		st = ct_store_job_get(s, id, &j, &err);
	ct_store_close(s);
	if (st != CT_OK) {
		cli_error("job", "%s", err.msg);
		return DB_EXIT_FAIL;
	}
	struct cli_shown_set sh = {0};
	printf("created job %s (id %" PRId64 ") over %s, priority %d, mode %s\n",
	       cli_show(&sh, j.name), j.id, cli_show(&sh, j.domain), j.priority,
	       cli_show(&sh, j.mode));
	cli_show_free(&sh);
	return DB_EXIT_OK;
}

/* Parse argv into *a; returns 0, or prints the usage error and returns -1. */
static int parse(int argc, char **argv, struct job_args *a)
{
	static const struct option opts[] = {
		{"dsn", required_argument, NULL, 'd'},
		{"domain", required_argument, NULL, 'D'},
		{"priority", required_argument, NULL, 'p'},
		{"mode", required_argument, NULL, 'm'},
		{"yes", no_argument, NULL, 'y'},
		{"prefix", required_argument, NULL, 'P'},
		{"by", required_argument, NULL, 'b'},
		{"demote", no_argument, NULL, 'x'},
		{"pattern", required_argument, NULL, 'G'},
		{"dry-run", no_argument, NULL, 'n'},
		{"connections", required_argument, NULL, 'c'},
		{NULL, 0, NULL, 0},
	};
	int c;
	*a = (struct job_args){.dsn = db_default_dsn()};
	struct cli_getopt go = CLI_GETOPT("job", "d:", opts);
	while ((c = cli_getopt(&go, argc, argv)) != -1) {
		switch (c) {
		case 'd': a->dsn = optarg; break;
		case 'D': a->domain = optarg; a->given |= JOB_OPT_DOMAIN; break;
		case 'p': a->priority = optarg; a->given |= JOB_OPT_PRIORITY; break;
		case 'm': a->mode = optarg; a->given |= JOB_OPT_MODE; break;
		case 'y': a->yes = 1; a->given |= JOB_OPT_YES; break;
		case 'P': a->prefix = optarg; a->given |= JOB_OPT_PREFIX; break;
		case 'b': a->by = optarg; a->given |= JOB_OPT_BY; break;
		case 'x': a->demote = 1; a->given |= JOB_OPT_DEMOTE; break;
		case 'G': a->pattern = optarg; a->given |= JOB_OPT_PATTERN; break;
		case 'n': a->dry_run = 1; a->given |= JOB_OPT_DRY_RUN; break;
		case 'c': a->connections = optarg; a->given |= JOB_OPT_CONNECTIONS; break;
		default:
			return -1;
		}
	}
	a->pos = argv + optind;
	a->npos = argc - optind;
	/* a new job's name, hosts and prefixes are text: a byte that is not
	 * UTF-8 is refused here, naming it, not by the server's encoding
	 * check (a job named to act on is looked up by ct_store_job_find,
	 * which says the same of a name no job can have) */
	if (a->npos >= 2 && strcmp(a->pos[0], "create") == 0 &&
	    cli_text_ok("job", "name", a->pos[1], "a job is named by 1 to 64 "
			"of A-Z a-z 0-9 . _ -") != 0)
		return -2;
	if ((a->domain && cli_text_ok("job", "--domain", a->domain,
				      "a host name") != 0) ||
	    (a->prefix && cli_text_ok("job", "--prefix", a->prefix,
				      "a path starting with '/'") != 0) ||
	    (a->pattern && cli_text_ok("job", "--pattern", a->pattern,
				       "a path pattern starting with '/' or '*'") != 0))
		return -2;
	return 0;
}

/* The subcommands' names, "list, show, ...", from the table: the
 * messages that list them cannot leave one out. */
static const char *sub_names(char *out, size_t n)
{
	size_t len = 0;
	out[0] = '\0';
	for (size_t i = 0; i < N_SUBS && len < n; i++)
		len += (size_t)snprintf(out + len, n - len, "%s%s",
					i ? ", " : "", subs[i].name);
	return out;
}

/* `crawltop job SUB ...`: parse, check against the table, dispatch. */
static int run(int argc, char **argv)
{
	struct job_args a;
	char known[256];
	int prc = parse(argc, argv, &a);
	if (prc == -2)
		return DB_EXIT_FAIL;
	if (prc != 0)
		return DB_EXIT_USAGE;
	if (a.npos == 0) {
		cli_error("job", "which subcommand? (%s; crawltop job --help)",
			  sub_names(known, sizeof known));
		return DB_EXIT_USAGE;
	}
	const char *name = a.pos[0];
	for (size_t i = 0; i < N_SUBS; i++) {
		const struct job_sub *sub = &subs[i];
		if (strcmp(name, sub->name) != 0)
			continue;
		a.pos++;
		a.npos--;
		if (a.npos != sub->nargs) {
			cli_error("job", "usage: crawltop job %s %s%s(%d argument%s, "
				  "got %d)", sub->name, sub->args,
				  sub->args[0] ? " " : "", sub->nargs,
				  sub->nargs == 1 ? "" : "s", a.npos);
			return DB_EXIT_USAGE;
		}
		unsigned extra = a.given & ~sub->opts;
		for (size_t b = 0; extra; b++, extra >>= 1)
			if (extra & 1) {
				cli_error("job", "%s does not apply to job %s",
					  opt_names[b], sub->name);
				return DB_EXIT_USAGE;
			}
		return sub->run(&a);
	}
	cli_error("job", "unknown subcommand '%s' (%s)", name,
		  sub_names(known, sizeof known));
	return DB_EXIT_USAGE;
}

const struct cli_cmd cli_cmd_job = {
	.name = "job",
	.usage = "list|show|create|set-priority|set-mode|pause|resume|cancel|"
		 "boost|sitemap-priorities [ARGS] [-d DSN]",
	.summary = "List, create and steer crawl jobs in the task store",
	.help = "  job list                   one line per job: id, name, domain,\n"
		"                             mode, priority, status, pages and\n"
		"                             pending/running/retrying/completed/\n"
		"                             failed tasks\n"
		"  job show JOB               every field of one job (JOB: name or id)\n"
		"  job create NAME --domain HOST [--priority P] [--mode MODE]\n"
		"                             P: 1..10 (default: the store's\n"
		"                             default_priority, 5); MODE: fifo,\n"
		"                             hierarchy, frontier, discovery,\n"
		"                             freshness, importance (default)\n"
		"  job set-priority JOB P     1..10, 1 the most urgent; 0 and 11\n"
		"                             are refused, never clamped\n"
		"  job set-mode JOB MODE [--connections N]\n"
		"                             change how its tasks are scored and\n"
		"                             rescore the unfinished ones with the\n"
		"                             store's current engine settings\n"
		"                             (crawltop settings get), as the\n"
		"                             console does, on N connections in\n"
		"                             parallel (1..16, default 2), each a\n"
		"                             stripe of the job's pages; its\n"
		"                             running crawlers keep enqueueing and\n"
		"                             claiming (with or without scores),\n"
		"                             and it says what the new mode makes\n"
		"                             of them\n"
		"  job pause JOB              hold its pending tasks back\n"
		"  job resume JOB             hand them out again\n"
		"  job cancel JOB --yes       skip its pending tasks for good;\n"
		"                             without --yes, says how many and\n"
		"                             changes nothing\n"
		"  job boost JOB (--prefix /PATH | --pattern GLOB) --by N [--demote]\n"
		"            [--dry-run]      (--dry-run: how many it would change,\n"
		"                             changing nothing)\n"
		"                             add (or with --demote subtract) N\n"
		"                             points (0..100) to the score of the\n"
		"                             pending tasks under /PATH, or whose\n"
		"                             whole path matches GLOB: '*' any\n"
		"                             characters ('/' too), all else as\n"
		"                             is ('*.pdf', '/docs/*/print')\n"
		"  job sitemap-priorities JOB raise '/' to the root score and\n"
		"                             the job's sitemap pages to the\n"
		"                             sitemap score (seed 000's update\n"
		"                             after a sitemap; enqueue does it as\n"
		"                             it goes: for after a settings change)\n"
		DB_HELP_DSN
		"\nTasks: running ones are leased to a worker; retrying ones\n"
		"failed and wait for their retry backoff (nobody fetches them;\n"
		"they are pending again when it ends).\n"
		"\nStatus: paused and cancelled as stored; otherwise running while\n"
		"a worker holds one of its tasks, else pending while it has\n"
		"pending tasks, else retrying while tasks wait for a retry,\n"
		"else completed when it has tasks, else pending (a completed\n"
		"job still takes new tasks).\n"
		"\nExit status: 0 done, 1 refused by the database or not\n"
		"confirmed (cancel without --yes; nothing changed), 2 bad usage\n"
		"or value (nothing sent).\n",
	.run = run,
};
