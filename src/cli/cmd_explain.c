/* cmd_explain.c: `crawltop explain URL [--job J]`: one task's score,
 * class and reasons, recomputed with the engine from what the store keeps
 * (discovery: its sub-scores or raw signals under the store's current
 * settings; hierarchy: its page score and source), its ranking record and
 * the class bounds it was classed with when they are not the store's (a
 * ranking run's own), its operator adjustment, if any, and its position
 * in the claim order.
 * Reads only. Exit 0, 1 when the URL,
 * the job or the task is unknown or the database refused, 2 on a usage
 * error. */
#include <ctype.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "crawltop/discovery.h"
#include "crawltop/freshness.h"
#include "crawltop/frontier.h"
#include "crawltop/importance.h"
#include "crawltop/reasons.h"
#include "crawltop/number.h"
#include "dbcmd.h"
#include "rank_ops.h"
#include "rankfmt.h"
#include "score.h"
#include "settings_json.h"
#include "settings_store.h"
#include "urlpath.h"

#define POSITION_LIMIT 1000000LL

/* n with thousands separators ("1,000,000"). */
static const char *grouped(long long n, char *buf, size_t len)
{
	char raw[32];
	int k = snprintf(raw, sizeof raw, "%lld", n), o = 0;
	for (int i = 0; i < k && (size_t)o + 2 < len; i++) {
		if (i && raw[i - 1] != '-' && (k - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = raw[i];
	}
	buf[o] = '\0';
	return buf;
}

/* The host of an absolute http(s) URL, lower-cased, with its port unless
 * that is the scheme's default (urlpath_of takes "host:443" and "host" as
 * one host), in host; the default port (":80" or ":443") in port. -1 when
 * text is no such URL. */
static int url_host(const char *text, char *host, size_t len,
		    const char **port)
{
	/* the scheme in any case, as urlpath_of takes it */
	const char *p;
	if (strncasecmp(text, "http://", 7) == 0) {
		p = text + 7;
		*port = ":80";
	} else if (strncasecmp(text, "https://", 8) == 0) {
		p = text + 8;
		*port = ":443";
	} else {
		return -1;
	}
	size_t n = strcspn(p, "/?#");
	if (n == 0 || n >= len)
		return -1;
	for (size_t i = 0; i < n; i++)
		host[i] = (char)tolower((unsigned char)p[i]);
	host[n] = '\0';
	size_t pl = strlen(*port);
	if (n > pl && strcmp(host + n - pl, *port) == 0)
		host[n - pl] = '\0';
	return 0;
}

/* Print one reason line (escaped: it may name a stored source path). */
static void reason(const struct ct_reason *r)
{
	char buf[256];
	ct_reason_format(r, buf, sizeof buf);
	char *shown = cli_shown(buf);
	printf("  - %s\n", shown ? shown : "(out of memory)");
	free(shown);
}

/* "P0 80, P1 60, P2 40": class bounds, each the shortest text that reads
 * back as it. */
static const char *bounds_text(const struct ct_class_bounds *b, char *buf,
			       size_t len)
{
	snprintf(buf, len, "P0 %s, P1 %s, P2 %s", CT_NUM(b->p0), CT_NUM(b->p1),
		 CT_NUM(b->p2));
	return buf;
}

static bool same_bounds(const struct ct_class_bounds *a,
			const struct ct_class_bounds *b)
{
	return a->p0 == b->p0 && a->p1 == b->p1 && a->p2 == b->p2;
}

/* Where the task's class came from when the store's current class bounds
 * (store), which the recomputation below uses, do not say it alone: a
 * ranking run with bounds of its own (--profile-score, a file, the
 * environment: its manifest's note records them) ranked it, or its class
 * does not follow from its score under the store's bounds. Prints one
 * "Bounds:" line then, and returns true (the recomputation is then
 * labelled as the store's); false, printing nothing, otherwise. */
static bool class_bounds(const struct ct_task_view *t,
			 const struct ct_class_bounds *store)
{
	struct ct_class_bounds run;
	bool has_run = t->ranked && t->rank_run > 0 &&
		       rankfmt_note_bounds(t->rank_note, &run) &&
		       !same_bounds(&run, store);
	ct_class by_store = ct_class_of(t->score, store);
	const char *cls = ct_class_name((ct_class)t->cls);
	char sb[128], rb[128];
	bounds_text(store, sb, sizeof sb);
	if (!has_run) {
		if ((int)by_store == t->cls)
			return false;
		printf("Bounds:      %s is not the class of %s under the store's "
		       "class bounds (%s), which make it %s: it was classed "
		       "under other bounds (a ranking run's own, or settings "
		       "changed since)\n", cls, CT_NUM(t->score), sb,
		       ct_class_name(by_store));
		return true;
	}
	bounds_text(&run, rb, sizeof rb);
	ct_class by_run = ct_class_of(t->score, &run);
	if ((int)by_run == t->cls)
		printf("Bounds:      %s under the class bounds of ranking run %"
		       PRId64 " (%s), which ranked it; the store's (%s), which "
		       "the recomputation below uses, make %s %s%s\n", cls,
		       t->rank_run, rb, sb, CT_NUM(t->score),
		       ct_class_name(by_store), by_store == by_run ? " too" : "");
	else if ((int)by_store == t->cls)
		printf("Bounds:      %s under the store's class bounds (%s), "
		       "written since ranking run %" PRId64 " ranked it with "
		       "%s (its ranking's class is by those)\n", cls, sb,
		       t->rank_run, rb);
	else
		printf("Bounds:      %s is the class of %s neither under the "
		       "store's class bounds (%s) nor under those of ranking "
		       "run %" PRId64 " (%s): it was classed under other "
		       "bounds\n", cls, CT_NUM(t->score), sb, t->rank_run, rb);
	return true;
}

/* The reasons of a discovery task: its sub-scores under the store's
 * settings, as the engine weighs them (own_bounds: class_bounds said the
 * store's class bounds are not the ones the task was classed with, so
 * the recomputed class is labelled as the store's). */
static int discovery_reasons(struct ct_store *s, const struct ct_task_view *t,
			     const struct ct_settings *set, bool own_bounds)
{
	double sub[CT_SUB_COUNT];
	const char *from;
	struct ct_error err;
	if (ct_store_task_subscores(s, t->task_id, sub, &from, &err) != CT_OK) {
		cli_error("explain", "%s", err.msg);
		return -1;
	}
	if (!from) {
		printf("Reasons:\n  - No sub-scores or signals stored: unranked "
		       "(kept at the P2 bound)\n");
		return 0;
	}
	struct ct_discovery_result dr;
	if (ct_discovery_score(&set->discovery, &set->classes, sub, &dr,
			       &err) != CT_OK) {
		cli_error("explain", "task %" PRId64 ": %s", t->task_id, err.msg);
		return -1;
	}
	printf("Recomputed:  %s (%s%s) from the stored %s%s\n", CT_NUM(dr.score),
	       ct_class_name(dr.cls), own_bounds ? " under the store's class "
	       "bounds" : "", from, t->ranked ? "" : ": what a ranking run "
	       "would give it; until one ranks it, it is claimed at the P2 "
	       "bound");
	printf("Sub-scores:\n");
	for (int k = 0; k < CT_SUB_COUNT; k++)
		printf("  %-20s %.4f x %.2f\n", ct_subscore_name((ct_subscore)k),
		       sub[k], set->discovery.weights[k]);
	printf("Reasons%s:\n", own_bounds ? " (recomputed, under the store's "
	       "class bounds)" : "");
	for (int i = 0; i < dr.reasons.n; i++)
		reason(&dr.reasons.r[i]);
	return 0;
}

/* The line `crawltop score MODEL` would read for task id: its URL and the
 * model's own keys of its stored score inputs (the inputs may hold other
 * models' keys too: a job that changed mode keeps them), with (frontier)
 * its type, depth (0 when unknown) and discovery method, the columns a
 * rescore scores it with. */
static const char model_line_sql[] =
	"SELECT jsonb_strip_nulls(jsonb_build_object('url', $2::text) || "
	"CASE WHEN $3 = 'frontier' THEN jsonb_build_object("
	"'bias', i->'bias', 'clusterOccurrences', i->'clusterOccurrences', "
	"'classification', i->'classification', 'gap', i->'gap', "
	"'type', t.type, 'depth', coalesce(t.depth, 0), 'meta', "
	"jsonb_build_object('knowledgeReuse', i->'meta'->'knowledgeReuse', "
	"'estimatedCostMs', i->'meta'->'estimatedCostMs', "
	"'discoveryMethod', t.discovery_method)) "
	"ELSE jsonb_build_object('visits', i->'visits', 'lastVisited', "
	"i->'lastVisited', 'lastChanged', i->'lastChanged', 'topicRelevance', "
	"i->'topicRelevance', 'hubDepth', i->'hubDepth', 'isHub', i->'isHub') "
	"END)::text FROM crawltop.tasks t CROSS JOIN LATERAL "
	"coalesce(t.score_inputs::jsonb, '{}') AS i WHERE t.id = $1::bigint";

/* The reasons of a frontier or freshness task: its stored inputs scored
 * by the engine now, as `crawltop score MODEL` scores them (freshness: at
 * the wall clock, so the age may have moved since the stored score). */
static int model_reasons(struct ct_store *s, const struct ct_task_view *t,
			 const char *url, const struct ct_settings *set)
{
	char id[24], line[16384], jerr[JIN_ERR];
	struct ct_error err;
	snprintf(id, sizeof id, "%" PRId64, t->task_id);
	const char *p[] = {id, url, t->mode};
	if (ct_store_query(s, "explain", model_line_sql, 3, p, line, sizeof line,
			   NULL, &err) != CT_OK) {
		cli_error("explain", "%s", err.msg);
		return -1;
	}
	struct jin_parser *jp = jin_parser_new();
	const struct jin_doc *d = jp ? jin_parse(jp, line, strlen(line), jerr)
				     : NULL;
	struct ct_reasons reasons = {0};
	double score = 0;
	ct_class cls = CT_P3;
	char how[160] = ""; /* what the Recomputed line adds */
	ct_status st = CT_OK;
	int ok = d != NULL;
	if (ok && strcmp(t->mode, "frontier") == 0) {
		struct ct_frontier_input fi;
		struct ct_frontier_result r;
		ok = frontier_input_read(d, &fi, jerr) == 0;
		if (ok && (st = ct_frontier_score(&set->frontier, &set->classes,
						  &fi, &r, &err)) == CT_OK) {
			score = r.score;
			cls = r.cls;
			reasons = r.reasons;
			snprintf(how, sizeof how, ": priority %s (%s, %s queue)",
				 CT_NUM(r.priority), r.priority_source,
				 ct_queue_type_name(r.queue));
		}
	} else if (ok) {
		struct ct_freshness_input fi;
		struct ct_freshness_result r;
		const char *u;
		int64_t now = cli_now_ms();
		ok = freshness_input_read(d, &fi, &u, jerr) == 0;
		if (ok && (st = ct_freshness_score(&set->freshness, &set->classes,
						   &fi, now, &r, &err)) == CT_OK) {
			score = r.score;
			cls = r.cls;
			reasons = r.reasons;
			snprintf(how, sizeof how, " now (the visit ages are "
				 "counted to this moment)");
		}
	}
	if (ok && st != CT_OK) {
		snprintf(jerr, sizeof jerr, "%s", err.msg);
		ok = 0;
	}
	if (ok)
		printf("Recomputed:  %s (%s) from the stored inputs%s\n",
		       CT_NUM(score), ct_class_name(cls), how);
	jin_parser_free(jp);
	if (!ok) {
		/* the message may quote the stored inputs */
		char *shown = cli_shown(jerr);
		printf("Reasons:\n  - the stored inputs do not score: %s\n",
		       shown ? shown : "(out of memory)");
		free(shown);
		return 0;
	}
	printf("Reasons:\n");
	for (int i = 0; i < reasons.n; i++)
		reason(&reasons.r[i]);
	if (reasons.n == 0)
		printf("  - No stage applied beyond the base\n");
	return 0;
}

/* The reasons of an importance task: its links in and cash (0033) scored
 * by the engine with the job's pages discovered now (a rescore's score;
 * enqueue scored it with the count of its moment). */
static int importance_reasons(struct ct_store *s, const struct ct_task_view *t)
{
	static const char sql[] =
		"SELECT i.inlinks || ' ' || i.cash || ' ' || i.discovered || ' ' "
		"|| i.seed FROM crawltop.importance_inputs($1::bigint, "
		"ARRAY[$2::bigint]) i";
	char job[24], id[24], line[256], seed[8] = "";
	struct ct_error err;
	snprintf(job, sizeof job, "%" PRId64, t->job_id);
	snprintf(id, sizeof id, "%" PRId64, t->task_id);
	const char *p[] = {job, id};
	if (ct_store_query(s, "explain", sql, 2, p, line, sizeof line, NULL,
			   &err) != CT_OK) {
		cli_error("explain", "%s", err.msg);
		return -1;
	}
	struct ct_importance_input in = {0};
	struct ct_importance_result r;
	if (sscanf(line, "%lf %lf %lf %7s", &in.inlinks, &in.cash,
		   &in.discovered, seed) != 4 ||
	    (in.seed = seed[0] == 't',
	     ct_importance_score(&in, &r, &err)) != CT_OK) {
		printf("Reasons:\n  - the stored links do not score: %s\n",
		       line[0] ? line : "none stored");
		return 0;
	}
	printf("Recomputed:  %s from %s links in and cash %s with %s pages "
	       "discovered\n", CT_NUM(r.score), CT_NUM(in.inlinks),
	       CT_NUM(in.cash), CT_NUM(in.discovered));
	printf("Reasons:\n");
	for (int i = 0; i < r.reasons.n; i++)
		reason(&r.reasons.r[i]);
	return 0;
}

/* The reasons of a hierarchy task: where its page score came from. */
static void hierarchy_reasons(const struct ct_task_view *t, const char *path,
			      const struct ct_settings *set)
{
	const struct ct_hierarchy_params *h = &set->hierarchy;
	struct ct_reason r = {0};
	if (strcmp(path, "/") == 0) {
		r = (struct ct_reason){CT_R_HIER_ROOT, h->root, 0, NULL};
	} else if (strcmp(t->source_type, "sitemap") == 0) {
		r = (struct ct_reason){CT_R_HIER_SITEMAP, h->sitemap, 0, NULL};
	} else if (strcmp(t->source_type, "link") == 0 && t->source_score >= 0) {
		r = (struct ct_reason){CT_R_HIER_LINK, h->decay, t->source_score,
				       t->source_path};
	} else if (strcmp(t->source_type, "link") == 0) {
		r = (struct ct_reason){CT_R_HIER_UNKNOWN_SRC, h->floor, 0, NULL};
	} else {
		r = (struct ct_reason){CT_R_HIER_OTHER, h->floor, 0, t->source_type};
	}
	printf("Page score:  %.3f (x 100 = %s)\n", t->page_score,
	       CT_NUM(t->page_score * 100));
	printf("Reasons:\n");
	reason(&r);
	if (r.code == CT_R_HIER_LINK && h->decay * t->source_score < h->floor)
		reason(&(struct ct_reason){CT_R_HIER_LINK_FLOOR, h->floor, 0, NULL});
	double derived = r.code == CT_R_HIER_LINK ? h->decay * t->source_score
						   : r.a;
	if (t->page_score > derived + 1e-9)
		reason(&(struct ct_reason){CT_R_HIER_KEPT, t->page_score, 0, NULL});
}

/* Print where a task that is not pending stands: leased to a worker,
 * waiting for its retry backoff (lease owned by nobody), or finished.
 * The worker's name and error are what a worker wrote: escaped. */
static void not_queued(const struct ct_task_view *t)
{
	const struct ct_task_lease *l = &t->lease;
	struct cli_shown_set sh = {0};
	if (strcmp(t->status, "retrying") == 0) {
		/* fail (0003): the attempt failed with retries left; the
		 * claims' reaper makes it pending once the backoff is over */
		printf("Queue:       not queued: retrying after a failure (retry "
		       "%d of %d), claimable again ", l->retry_count,
		       l->max_retries);
		if (l->expires_in > 0)
			printf("at %s (in %llds)\n", cli_show(&sh, l->expires_at),
			       l->expires_in);
		else
			printf("now (since %s; the next claim makes it "
			       "pending)\n", cli_show(&sh, l->expires_at));
		if (l->last_error[0])
			printf("Last error:  %s\n", cli_show(&sh, l->last_error));
	} else if (strcmp(t->status, "running") == 0) {
		printf("Queue:       not queued: running, leased to %s until %s"
		       "%s\n", cli_show(&sh, l->owner),
		       cli_show(&sh, l->expires_at), l->expires_in > 0 ? "" :
		       " (expired: the next claim takes it back)");
	} else {
		printf("Queue:       not queued (%s)\n", cli_show(&sh, t->status));
	}
	cli_show_free(&sh);
}

/* Print the task's place in the claim order. */
static int position(struct ct_store *s, const struct ct_task_view *t)
{
	if (strcmp(t->status, "pending") != 0) {
		not_queued(t);
		return 0;
	}
	if (t->job_priority > 10) {
		printf("Queue:       held back (its job is paused)\n");
		return 0;
	}
	long long all, mine;
	bool all_b, mine_b;
	struct ct_error err;
	ct_status st = ct_store_queue_position(s, t->task_id, true,
					       POSITION_LIMIT, &all, &all_b,
					       &err);
	if (st == CT_OK)
		st = ct_store_queue_position(s, t->task_id, false,
					     POSITION_LIMIT, &mine, &mine_b,
					     &err);
	if (st == CT_ENOENT) { /* claimed (or finished) since it was read */
		printf("Queue:       not queued any more (claimed meanwhile)\n");
		return 0;
	}
	if (st != CT_OK) {
		cli_error("explain", "%s", err.msg);
		return -1;
	}
	char a[32], m[32], *name = cli_shown(t->job_name);
	printf("Queue:       %s%s pending tasks ahead of it (all jobs), %s%s "
	       "in job %s\n", grouped(all, a, sizeof a), all_b ? "+" : "",
	       grouped(mine, m, sizeof m), mine_b ? "+" : "",
	       name ? name : "(out of memory)");
	free(name);
	return 0;
}

/* `crawltop explain URL [--job J] [-d DSN]`. */
static int run(int argc, char **argv)
{
	static const struct option opts[] = {
		{"dsn", required_argument, NULL, 'd'},
		{"job", required_argument, NULL, 'j'},
		{NULL, 0, NULL, 0},
	};
	const char *dsn = db_default_dsn(), *job = NULL;
	int c;
	struct cli_getopt go = CLI_GETOPT("explain", "d:", opts);
	while ((c = cli_getopt(&go, argc, argv)) != -1) {
		switch (c) {
		case 'd': dsn = optarg; break;
		case 'j': job = optarg; break;
		default:
			return DB_EXIT_USAGE;
		}
	}
	if (argc - optind != 1) {
		cli_error("explain", "give one URL (crawltop explain --help)");
		return DB_EXIT_USAGE;
	}
	const char *url = argv[optind];
	char shown[URLPATH_SHOWN], host[300], path[8192], why[300];
	urlpath_shown(url, strlen(url), shown);
	const char *port = "";
	if (!job && url_host(url, host, sizeof host, &port) != 0) {
		cli_error("explain", "'%s' is not an http(s) URL (a path needs "
			  "--job)", shown);
		return DB_EXIT_USAGE;
	}
	struct ct_store *s;
	if (db_open("explain", dsn, &s) != 0)
		return DB_EXIT_FAIL;
	int rc = DB_EXIT_FAIL;
	struct ct_error err;
	struct ct_job_info ji;
	struct ct_task_view t = {0};
	struct ct_settings_row row = {0};
	struct ct_settings set;
	struct cli_shown_set sh = {0}; /* the store's texts, to print */
	if (job) {
		if (db_job("explain", s, job, &ji) != 0)
			goto out;
		snprintf(host, sizeof host, "%s", ji.domain);
	}
	int max = 0;
	if (ct_store_max_url_bytes(s, &max, &err) != CT_OK) {
		cli_error("explain", "%s", err.msg);
		goto out;
	}
	if (max <= 0 || (size_t)max >= sizeof path)
		max = (int)sizeof path - 1;
	if (urlpath_of(url, strlen(url), host, job != NULL, (size_t)max,
		       path, sizeof path, why, sizeof why) != URLPATH_OK) {
		cli_error("explain", "'%s': %s", shown, why);
		goto out;
	}
	if (!job) {
		int64_t ids[8];
		size_t n;
		if (ct_store_task_jobs(s, host, path, ids, 8, &n, &err) != CT_OK) {
			cli_error("explain", "%s", err.msg);
			goto out;
		}
		/* a job may name its domain with the scheme's default port */
		char alt[sizeof host + 8];
		snprintf(alt, sizeof alt, "%s%s", host, port);
		if (n == 0 && ct_store_task_jobs(s, alt, path, ids, 8, &n,
						 &err) != CT_OK) {
			cli_error("explain", "%s", err.msg);
			goto out;
		}
		if (n == 0) {
			cli_error("explain", "no job has a task for %s", shown);
			goto out;
		}
		if (n > 1) {
			cli_error("explain", "%zu jobs have a task for %s: name "
				  "one with --job (job ids %" PRId64 ", %" PRId64
				  "%s)", n, shown, ids[0], ids[1],
				  n > 2 ? ", ..." : "");
			goto out;
		}
		if (ct_store_job_get(s, ids[0], &ji, &err) != CT_OK) {
			cli_error("explain", "%s", err.msg);
			goto out;
		}
	}
	if (ct_store_task_view(s, ji.id, path, &t, &err) != CT_OK) {
		cli_error("explain", "%s", err.msg);
		goto out;
	}
	if (ct_store_settings_get(s, 0, &row, &err) != CT_OK ||
	    ct_settings_from_json(row.value, row.version, &set, &err) != CT_OK) {
		cli_error("explain", "settings: %s", err.msg);
		goto out;
	}
	printf("URL:         https://%s%s\n", cli_show(&sh, ji.domain),
	       cli_show(&sh, path));
	printf("Job:         %s (id %" PRId64 ", %s mode, priority %d)\n",
	       cli_show(&sh, t.job_name), t.job_id, cli_show(&sh, t.mode),
	       ji.priority);
	printf("Task:        %" PRId64 ", %s, discovered %s, depth %s\n",
	       t.task_id, cli_show(&sh, t.status), cli_show(&sh, t.created_at),
	       t.depth < 0 ? "unknown" : (snprintf(why, sizeof why, "%d",
						   t.depth), why));
	/* in full (the fewest digits that read back as the very score): with
	 * %.6g, 79.9999999968 showed as 80 beside its class P1 */
	printf("Score:       %s\n", CT_NUM(t.score));
	/* seed 003's actions are a discovery job's; for the other modes the
	 * class is the score's band only */
	if (strcmp(t.mode, "discovery") == 0)
		printf("Class:       %s (%s)\n", ct_class_name((ct_class)t.cls),
		       ct_class_action((ct_class)t.cls));
	else
		printf("Class:       %s (score band)\n",
		       ct_class_name((ct_class)t.cls));
	if (t.ranked)
		printf("Ranking:     %s, %s, next check %s (backoff step %d)\n",
		       CT_NUM(t.discovery_score), ct_class_name((ct_class)t.priority_class),
		       *t.next_check_at ? cli_show(&sh, t.next_check_at) : "none",
		       t.backoff_step);
	else if (strcmp(t.mode, "discovery") == 0)
		printf("Ranking:     unranked (crawltop rank)\n");
	bool own_bounds = class_bounds(&t, &set.classes);
	if (strcmp(t.mode, "discovery") == 0) {
		if (discovery_reasons(s, &t, &set, own_bounds) != 0)
			goto out;
	} else if (strcmp(t.mode, "hierarchy") == 0) {
		hierarchy_reasons(&t, path, &set);
	} else if (strcmp(t.mode, "importance") == 0) {
		if (importance_reasons(s, &t) != 0)
			goto out;
	} else if (strcmp(t.mode, "fifo") == 0) {
		printf("Reasons:\n  - FIFO job: score 0 unless an operator "
		       "boosted it\n");
	} else if (strcmp(t.mode, "frontier") == 0 ||
		   strcmp(t.mode, "freshness") == 0) {
		char *full = malloc(strlen(ji.domain) + strlen(path) + 16);
		if (full)
			sprintf(full, "https://%s%s", ji.domain, path);
		if (t.inputs)
			printf("Inputs:      %s\n", cli_show(&sh, t.inputs));
		int mr = full ? model_reasons(s, &t, full, &set) : -1;
		free(full);
		if (mr != 0)
			goto out;
	} else {
		printf("Reasons:\n  - %s job: the score its worker gave\n",
		       cli_show(&sh, t.mode));
		if (t.inputs)
			printf("Inputs:      %s\n", cli_show(&sh, t.inputs));
	}
	if (t.adjustment != 0) {
		/* the reasons above explain the mode's score; operators' boosts
		 * and demotions are added to it, and kept by rescores */
		double sum = t.base_score + t.adjustment;
		printf("  - Operator adjustment: %s%s (%s), kept across "
		       "rescores: mode score %s %c %s = %s%s\n",
		       t.adjustment > 0 ? "+" : "", CT_NUM(t.adjustment),
		       t.adjustment > 0 ? "boost" : "demotion",
		       CT_NUM(t.base_score), t.adjustment > 0 ? '+' : '-',
		       CT_NUM(t.adjustment > 0 ? t.adjustment : -t.adjustment),
		       CT_NUM(t.score), sum < 0 || sum > 100 ?
		       " (clamped to 0..100)" : "");
	}
	if (position(s, &t) != 0)
		goto out;
	if (t.lease.expiries > 0)
		/* counted apart from failed attempts (0016): a worker that
		 * vanished is no fault of the task's */
		printf("Expiries:    %d lease%s ran out with the worker gone "
		       "(no retry used; store.max_expiries limits them)\n",
		       t.lease.expiries, t.lease.expiries == 1 ? "" : "s");
	rc = DB_EXIT_OK;
out:
	cli_show_free(&sh);
	ct_task_view_free(&t);
	ct_settings_row_free(&row);
	ct_store_close(s);
	return rc;
}

const struct cli_cmd cli_cmd_explain = {
	.name = "explain",
	.usage = "URL [-d DSN] [--job JOB]",
	.summary = "One task's score, class, reasons and place in the queue",
	.help = DB_HELP_DSN
		"  URL                 the page's URL (or, with --job, its "
		"path)\n"
		"  --job JOB           the job whose task to explain (needed "
		"when several\n"
		"                      jobs have the URL)\n",
	.run = run,
};
