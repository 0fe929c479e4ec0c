/* cmd_stats.c: `crawltop stats`: job and task totals by status, or, with
 * --ranking, seed 003's ranking statistics of the latest ranking run (or
 * the run of --date) and the live ranking counters of the pending tasks;
 * as text in the seed's layout, or one JSON object with --json. Reads
 * only (a crawltop_viewer may run it). Exit 0, 1 when the database
 * refused or holds no such run, 2 on a bad option. */
#include <ctype.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "crawltop/settings.h"
#include "dbcmd.h"
#include "jsonin.h"
#include "rank_ops.h"
#include "rankfmt.h"
#include "stats.h"

struct stats_args {
	const char *dsn, *job, *date, *config;
	bool ranking, json;
	struct ct_settings set; /* from --config or the lookup order */
};

static const char *const live_keys[5] = {"P0", "P1", "P2", "P3", "unranked"};

/* Write g's buffer to stdout with a newline and free g. */
static void json_flush(yajl_gen g)
{
	const unsigned char *buf;
	size_t len;
	yajl_gen_get_buf(g, &buf, &len);
	fwrite(buf, 1, len, stdout);
	fputc('\n', stdout);
	yajl_gen_free(g);
}

/* The task counts of a job by shown status, in column order: running =
 * leased to a worker, retrying = waiting for a retry backoff. */
#define N_STATUS 6
static const char *const status_names[N_STATUS] = {
	"pending", "running", "retrying", "completed", "failed", "skipped"};

/* Job and task totals by status: one line per job and a total line (text)
 * or {"jobs": [...], "totals": {...}} (JSON). */
static int totals(struct ct_store *s, const struct stats_args *a, int64_t job)
{
	struct ct_job_stats_list l;
	struct ct_error err;
	if (ct_store_stats_jobs(s, &l, &err) != CT_OK) {
		cli_error("stats", "%s", err.msg);
		return DB_EXIT_FAIL;
	}
	/* seed 003: "stats shows ranking metrics when available": the latest
	 * ranking run's class counts, below the totals */
	struct ct_run_manifest m;
	ct_status mst = ct_store_run_manifest(s, job, NULL, &m, &err);
	if (mst != CT_OK && mst != CT_ENOENT) {
		ct_job_stats_list_free(&l);
		cli_error("stats", "%s", err.msg);
		return DB_EXIT_FAIL;
	}
	int64_t t[N_STATUS] = {0};
	long pages = 0, njobs = 0;
	yajl_gen g = a->json ? jout_alloc() : NULL;
	if (g) {
		yajl_gen_map_open(g);
		jout_string(g, "jobs");
		yajl_gen_array_open(g);
	} else {
		printf("%6s  %-20s %-10s %-9s %9s %9s %9s %9s %9s %9s %9s\n",
		       "ID", "JOB", "MODE", "STATUS", "PAGES", "PENDING",
		       "RUNNING", "RETRYING", "COMPLETED", "FAILED", "SKIPPED");
	}
	for (size_t i = 0; i < l.n; i++) {
		const struct ct_job_stats *j = &l.jobs[i];
		if (job && j->job_id != job)
			continue;
		int64_t v[N_STATUS] = {j->pending, j->running, j->retrying,
				       j->completed, j->failed, j->skipped};
		for (int k = 0; k < N_STATUS; k++)
			t[k] += v[k];
		pages += j->total_pages;
		njobs++;
		if (g) {
			yajl_gen_map_open(g);
			jout_string(g, "id");
			jout_number(g, (double)j->job_id);
			jout_string(g, "name");
			jout_string(g, j->name);
			jout_string(g, "mode");
			jout_string(g, j->mode);
			jout_string(g, "status");
			jout_string(g, j->status);
			jout_string(g, "pages");
			jout_number(g, (double)j->total_pages);
			for (int k = 0; k < N_STATUS; k++) {
				jout_string(g, status_names[k]);
				jout_number(g, (double)v[k]);
			}
			yajl_gen_map_close(g);
		} else {
			struct cli_shown_set sh = {0};
			printf("%6" PRId64 "  %-20s %-10s %-9s %9ld %9" PRId64
			       " %9" PRId64 " %9" PRId64 " %9" PRId64 " %9" PRId64
			       " %9" PRId64 "\n", j->job_id, cli_show(&sh, j->name),
			       cli_show(&sh, j->mode), cli_show(&sh, j->status),
			       j->total_pages, v[0], v[1], v[2], v[3], v[4], v[5]);
			cli_show_free(&sh);
		}
	}
	ct_job_stats_list_free(&l);
	if (g) {
		yajl_gen_array_close(g);
		jout_string(g, "totals");
		yajl_gen_map_open(g);
		jout_string(g, "jobs");
		jout_number(g, (double)njobs);
		jout_string(g, "pages");
		jout_number(g, (double)pages);
		for (int k = 0; k < N_STATUS; k++) {
			jout_string(g, status_names[k]);
			jout_number(g, (double)t[k]);
		}
		yajl_gen_map_close(g);
		if (mst == CT_OK) {
			jout_string(g, "ranking");
			yajl_gen_map_open(g);
			jout_string(g, "run");
			jout_number(g, (double)m.id);
			jout_string(g, "run_at");
			jout_string(g, m.run_at);
			jout_string(g, "job");
			if (m.job_id)
				jout_string(g, m.job_name);
			else
				yajl_gen_null(g);
			for (int k = 0; k < 4; k++) {
				char key[8];
				snprintf(key, sizeof key, "P%d", k);
				jout_string(g, key);
				jout_number(g, (double)m.count[k]);
			}
			jout_string(g, "unranked");
			jout_number(g, (double)m.unranked);
			jout_string(g, "average_score");
			jout_number(g, m.avg_score);
			yajl_gen_map_close(g);
		}
		yajl_gen_map_close(g);
		json_flush(g);
	} else {
		printf("%6s  %-20s %-10s %-9s %9ld %9" PRId64 " %9" PRId64
		       " %9" PRId64 " %9" PRId64 " %9" PRId64 " %9" PRId64 "\n",
		       "", "total", "", "", pages, t[0], t[1], t[2], t[3], t[4],
		       t[5]);
		struct cli_shown_set sh = {0};
		if (mst == CT_OK)
			printf("\nRanking: run %" PRId64 " at %s, of %s%s: P0 %lld, "
			       "P1 %lld, P2 %lld, P3 %lld, unranked %lld, average "
			       "score %.1f (crawltop stats --ranking: the whole "
			       "report)\n", m.id, cli_show(&sh, m.run_at),
			       m.job_id ? "job " : "every discovery job",
			       cli_show(&sh, m.job_id ? m.job_name : ""),
			       m.count[0], m.count[1], m.count[2], m.count[3],
			       m.unranked, m.avg_score);
		cli_show_free(&sh);
	}
	return DB_EXIT_OK;
}

/* The ranking statistics: the run's block in the seed's layout, then the
 * run's unranked count and the live counters of the pending tasks. */
static int ranking(struct ct_store *s, const struct stats_args *a,
		   int64_t job)
{
	struct ct_run_manifest m;
	struct ct_stat_cells cells;
	struct ct_error err;
	if (ct_store_run_manifest(s, job, a->date, &m, &err) != CT_OK ||
	    ct_store_stats_cells(s, job, &cells, &err) != CT_OK) {
		cli_error("stats", "%s", err.msg);
		return DB_EXIT_FAIL;
	}
	struct ct_class_bounds b;
	if (!rankfmt_note_bounds(m.note, &b))
		b = a->set.classes;
	int64_t live[5];
	for (int k = 0; k < 5; k++)
		live[k] = ct_stat_cells_get(&cells, "rank", live_keys[k]);
	ct_stat_cells_free(&cells);
	if (a->json) {
		yajl_gen g = jout_alloc();
		yajl_gen_map_open(g);
		rankfmt_json(g, &m, &b);
		jout_string(g, "live_pending");
		yajl_gen_map_open(g);
		for (int k = 0; k < 5; k++) {
			jout_string(g, live_keys[k]);
			jout_number(g, (double)live[k]);
		}
		yajl_gen_map_close(g);
		yajl_gen_map_close(g);
		json_flush(g);
		return DB_EXIT_OK;
	}
	/* which tasks the run and the live counts cover: a run of one job
	 * (the latest run may be one, without --job), or of them all */
	char run_of[300] = "every discovery job", live_of[300];
	char *name = cli_shown(m.job_name);
	if (m.job_id)
		snprintf(run_of, sizeof run_of, "job %s",
			 name ? name : "(out of memory)");
	free(name);
	if (job)
		snprintf(live_of, sizeof live_of, "%s", run_of);
	else
		snprintf(live_of, sizeof live_of, "every discovery job");
	rankfmt_text(stdout, &m, &b, true);
	char *at = cli_shown(m.run_at);
	printf("  Unranked: %lld\n\nRun: %" PRId64 " at %s, of %s\n", m.unranked,
	       m.id, at ? at : "?", run_of);
	free(at);
	printf("\nLive Queue (pending tasks of %s):\n", live_of);
	for (int k = 0; k < 4; k++)
		printf("  P%d: %" PRId64 "\n", k, live[k]);
	printf("  Unranked: %" PRId64 "\n", live[4]);
	return DB_EXIT_OK;
}

/* True when d is a calendar date written YYYY-MM-DD, year 1..9999, with
 * a day that exists in its month. */
static bool date_ok(const char *d)
{
	if (strlen(d) != 10 || d[4] != '-' || d[7] != '-')
		return false;
	for (int i = 0; i < 10; i++)
		if (i != 4 && i != 7 && !isdigit((unsigned char)d[i]))
			return false;
	int y = atoi(d), mo = atoi(d + 5), day = atoi(d + 8);
	static const int days[12] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31,
				     30, 31};
	bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
	return y >= 1 && mo >= 1 && mo <= 12 && day >= 1 &&
	       day <= days[mo - 1] - (mo == 2 && !leap);
}

/* `crawltop stats [-d DSN] [--ranking] [--date D] [--job J] [--json]
 * [--config FILE]`: prints the statistics; exit as the file comment. */
static int run(int argc, char **argv)
{
	static const struct option opts[] = {
		{"dsn", required_argument, NULL, 'd'},
		{"job", required_argument, NULL, 'j'},
		{"date", required_argument, NULL, 't'},
		{"ranking", no_argument, NULL, 'r'},
		{"json", no_argument, NULL, 'J'},
		{"config", required_argument, NULL, 'c'},
		{NULL, 0, NULL, 0},
	};
	struct stats_args a = {.dsn = db_default_dsn()};
	int c;
	struct cli_getopt go = CLI_GETOPT("stats", "d:", opts);
	while ((c = cli_getopt(&go, argc, argv)) != -1) {
		switch (c) {
		case 'd': a.dsn = optarg; break;
		case 'j': a.job = optarg; break;
		case 't': a.date = optarg; break;
		case 'r': a.ranking = true; break;
		case 'J': a.json = true; break;
		case 'c': a.config = optarg; break;
		default:
			return DB_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		cli_error("stats", "unexpected argument '%s' (crawltop stats "
			  "--help)", argv[optind]);
		return DB_EXIT_USAGE;
	}
	if (a.date && !date_ok(a.date)) {
		cli_error("stats", "--date %.40s: must be a date YYYY-MM-DD that exists",
			  a.date);
		return DB_EXIT_USAGE;
	}
	if (a.date && !a.ranking) {
		cli_error("stats", "--date selects a ranking run: use it with "
			  "--ranking");
		return DB_EXIT_USAGE;
	}
	if (a.config && !a.ranking) {
		cli_error("stats", "--config gives the class bounds of "
			  "--ranking: use it with --ranking");
		return DB_EXIT_USAGE;
	}
	/* before the database: a configuration that cannot be read is a
	 * usage error whether or not the run recorded its bounds */
	if (a.ranking && cli_load_settings("stats", a.config, &a.set) != 0)
		return DB_EXIT_USAGE;
	struct ct_store *s;
	if (db_open("stats", a.dsn, &s) != 0)
		return DB_EXIT_FAIL;
	struct ct_job_info ji = {0};
	int rc;
	if (a.job && db_job("stats", s, a.job, &ji) != 0)
		rc = DB_EXIT_FAIL;
	else if (a.ranking)
		rc = ranking(s, &a, ji.id);
	else
		rc = totals(s, &a, ji.id);
	ct_store_close(s);
	return rc;
}

const struct cli_cmd cli_cmd_stats = {
	.name = "stats",
	.usage = "[-d DSN] [--ranking] [--date YYYY-MM-DD] [--job JOB] "
		 "[--json] [--config FILE]",
	.summary = "Job and task totals (with the latest ranking run's class "
		   "counts, when there is one), or seed 003's ranking statistics",
	.help = DB_HELP_DSN
		"  --ranking           the latest ranking run's statistics "
		"(class counts,\n"
		"                      average score, priority and score "
		"distributions)\n"
		"                      and the live ranking counters of the "
		"pending tasks\n"
		"  --date YYYY-MM-DD   the latest ranking run of that day "
		"(with --ranking)\n"
		"  --job JOB           one job only (a name or an id)\n"
		"  --json              one JSON object instead of text\n"
		"  --config FILE       where the class bounds come from when the "
		"run did not\n"
		"                      record them\n",
	.run = run,
};
