/* job_change.c: the `crawltop job` subcommands that change a job:
 * set-priority, pause, resume, cancel, boost and sitemap-priorities. Each is one store call,
 * hence one transaction with its audit_log row; values are checked here
 * before anything is sent, and the server checks them again. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "crawltop/settings.h"
#include "dbcmd.h"
#include "job.h"
#include "urlpath.h"

/* Open the store and read job spec; -1 (printed) on failure. */
static int open_job(const struct job_args *a, struct ct_store **s,
		    struct ct_job_info *j)
{
	if (db_open("job", a->dsn, s) != 0)
		return -1;
	if (db_job("job", *s, a->pos[0], j) != 0) {
		ct_store_close(*s);
		return -1;
	}
	return 0;
}

/* Print "job NAME (ID): " to begin a report, the name escaped (another
 * client may have written it; cli_shown). */
static void job_prefix(const struct ct_job_info *j)
{
	char *name = cli_shown(j->name);
	printf("job %s (%" PRId64 "): ", name ? name : "(out of memory)", j->id);
	free(name);
}

/* Print the store's refusal and close; returns DB_EXIT_FAIL. */
static int refused(struct ct_store *s, const struct ct_error *err)
{
	cli_error("job", "%s", err->msg);
	ct_store_close(s);
	return DB_EXIT_FAIL;
}

/* One change of job j; arg is the subcommand's own. */
typedef ct_status (*job_call)(struct ct_store *s, const struct ct_job_info *j,
			      const void *arg, long *rows,
			      struct ct_error *err);

/* Open the store, read job a->pos[0] into *j, make the change and close:
 * 0 with *rows, or DB_EXIT_FAIL (printed). */
static int with_job(const struct job_args *a, job_call call, const void *arg,
		    struct ct_job_info *j, long *rows)
{
	struct ct_store *s;
	struct ct_error err;
	if (open_job(a, &s, j) != 0)
		return DB_EXIT_FAIL;
	if (call(s, j, arg, rows, &err) != CT_OK)
		return refused(s, &err);
	ct_store_close(s);
	return 0;
}

static ct_status call_priority(struct ct_store *s, const struct ct_job_info *j,
			       const void *arg, long *rows,
			       struct ct_error *err)
{
	return ct_store_job_set_priority(s, j->id, *(const int *)arg, rows, err);
}

/* `job set-priority JOB P`: P is checked (1..10) before connecting. */
int job_set_priority(const struct job_args *a)
{
	int prio;
	if (db_parse_priority("job", a->pos[1], &prio) != 0)
		return DB_EXIT_USAGE;
	struct ct_job_info j;
	long rows;
	if (with_job(a, call_priority, &prio, &j, &rows) != 0)
		return DB_EXIT_FAIL;
	job_prefix(&j);
	if (rows == 0 && j.priority == prio) {
		printf("priority %d already; nothing changed\n", prio);
		return DB_EXIT_OK;
	}
	printf("priority %d -> %d; %ld pending task%s follow%s\n", j.priority,
	       prio, rows, rows == 1 ? "" : "s", rows == 1 ? "s" : "");
	return DB_EXIT_OK;
}

/* `job set-mode JOB MODE`: one transaction for the mode, then the job's
 * unfinished tasks are rescored in batches with the engine and the
 * settings in force in the store (its current crawltop.settings version),
 * as the console's set-mode does (store.h: ct_store_job_set_mode). */
int job_set_mode(const struct job_args *a)
{
	struct ct_settings set;
	int version;
	const char *mode = a->pos[1];
	long nconn = 2;
	if (db_parse_mode("job", mode) != 0 ||
	    (a->connections && db_parse_long("job", "--connections",
					     a->connections, 1,
					     CT_RESCORE_MAX_CONNS, &nconn) != 0))
		return DB_EXIT_USAGE;
	struct ct_store *s;
	struct ct_job_info j;
	struct ct_error err;
	struct ct_rescore_opts o = {.settings = &set};
	struct ct_rescore_result r;
	memset(&r, 0, sizeof r);
	if (open_job(a, &s, &j) != 0)
		return DB_EXIT_FAIL;
	if (db_settings("job", s, &set, &version, NULL, 0) != 0) {
		ct_store_close(s);
		return DB_EXIT_FAIL;
	}
	o.settings_version = version;
	/* only the connections the job's stripes will use */
	int64_t unfinished = j.pending + j.running + j.retrying;
	nconn = (long)ct_rescore_conns(unfinished > 0 ? (size_t)unfinished : 0,
				       (size_t)nconn, 0);
	struct ct_store *extra[CT_RESCORE_MAX_CONNS];
	size_t n_extra = 0;
	for (; n_extra + 1 < (size_t)nconn; n_extra++)
		if (db_open("job", a->dsn, &extra[n_extra]) != 0) {
			while (n_extra > 0)
				ct_store_close(extra[--n_extra]);
			ct_store_close(s);
			return DB_EXIT_FAIL;
		}
	o.extra = extra;
	o.n_extra = n_extra;
	ct_status st = ct_store_job_set_mode(s, j.id, mode, &o, &r, &err);
	while (n_extra > 0)
		ct_store_close(extra[--n_extra]);
	ct_store_close(s);
	if (st != CT_OK) {
		if (strcmp(r.mode, mode) == 0)
			cli_error("job", "job %s (%" PRId64 "): the mode is now %s, "
				  "but the rescore stopped after %zu of %zu "
				  "tasks: %s (run set-mode again to finish)",
				  j.name, j.id, mode, r.done, r.total, err.msg);
		else
			cli_error("job", "%s", err.msg);
		return DB_EXIT_FAIL;
	}
	char *was = cli_shown(j.mode);
	job_prefix(&j);
	printf("mode %s -> %s; %zu unfinished task%s rescored with settings "
	       "v%d, %zu changed\n", was ? was : "?", mode, r.done,
	       r.done == 1 ? "" : "s", version, r.changed);
	job_prefix(&j);
	printf("%s\n", ct_store_mode_effect(mode));
	free(was);
	if (r.settings_version != version)
		cli_error("job", "note: the settings changed to v%d meanwhile; "
			  "the tasks are scored with v%d (run set-mode again "
			  "to rescore them with v%d)", r.settings_version,
			  version, r.settings_version);
	return DB_EXIT_OK;
}

struct act_arg {
	ct_job_action action;
	int yes;
};

static ct_status call_act(struct ct_store *s, const struct ct_job_info *j,
			  const void *arg, long *rows, struct ct_error *err)
{
	const struct act_arg *x = arg;
	if (x->action == CT_JOB_CANCEL && !x->yes)
		return ct_error_set(err, CT_EINVAL, "cancelling job %s (%" PRId64
				    ") would skip its %" PRId64 " pending "
				    "task%s for good: add --yes to cancel it "
				    "(nothing was changed)", j->name, j->id,
				    j->pending, j->pending == 1 ? "" : "s");
	return ct_store_job_act(s, j->id, x->action, rows, err);
}

/* Pause, resume or cancel job a->pos[0]; what_done names the outcome. */
static int act(const struct job_args *a, ct_job_action action,
	       const char *what_done, const char *tasks_done)
{
	struct act_arg x = {action, a->yes};
	struct ct_job_info j;
	long rows;
	if (with_job(a, call_act, &x, &j, &rows) != 0)
		return DB_EXIT_FAIL;
	char *was = cli_shown(j.status);
	job_prefix(&j);
	printf("%s (was %s); %ld pending task%s %s\n", what_done,
	       was ? was : "?", rows, rows == 1 ? "" : "s", tasks_done);
	free(was);
	return DB_EXIT_OK;
}

/* `job pause JOB`, `job resume JOB`, `job cancel JOB --yes`. */
int job_pause(const struct job_args *a)
{
	return act(a, CT_JOB_PAUSE, "paused", "held back");
}

int job_resume(const struct job_args *a)
{
	return act(a, CT_JOB_RESUME, "resumed", "claimable again");
}

int job_cancel(const struct job_args *a)
{
	return act(a, CT_JOB_CANCEL, "cancelled", "skipped");
}

struct boost_arg {
	const char *match;
	bool pattern, dry_run;
	double delta;
};

static ct_status call_boost(struct ct_store *s, const struct ct_job_info *j,
			    const void *arg, long *rows, struct ct_error *err)
{
	const struct boost_arg *x = arg;
	if (x->dry_run)
		return ct_store_adjustable_count(s, j->id, x->match, x->pattern,
						 x->delta, rows, err);
	return x->pattern
		? ct_store_adjust_matching(s, j->id, x->match, x->delta, rows, err)
		: ct_store_adjust_scores(s, j->id, x->match, x->delta, rows, err);
}

/* `job boost JOB (--prefix /PATH | --pattern GLOB) --by N [--demote]`: N
 * in 0..100 points, subtracted with --demote; the store keeps every score
 * within 0..100. */
int job_boost(const struct job_args *a)
{
	double by;
	const char *match = a->prefix ? a->prefix : a->pattern;
	if (!match || (a->prefix && a->pattern) || !a->by) {
		cli_error("job", "boost needs --by N and one of --prefix /PATH "
			  "and --pattern GLOB");
		return DB_EXIT_USAGE;
	}
	if (a->prefix && a->prefix[0] != '/') {
		cli_error("job", "--prefix '%s' is not a path prefix: it starts "
			  "with '/'", a->prefix);
		return DB_EXIT_USAGE;
	}
	if (a->pattern && a->pattern[0] != '/' && a->pattern[0] != '*') {
		cli_error("job", "--pattern '%s' is not a path pattern: it starts "
			  "with '/' or '*'", a->pattern);
		return DB_EXIT_USAGE;
	}
	if (db_parse_double("job", "--by", a->by, 0, 100, &by) != 0)
		return DB_EXIT_USAGE;
	/* spelt as enqueue spells paths: "/caf%C3%A9" finds "/café" */
	char norm[URLPATH_MAX_BYTES + 1], why[200];
	if (urlpath_match(match, norm, sizeof norm, why, sizeof why) != 0) {
		char shown[URLPATH_SHOWN];
		urlpath_shown(match, strlen(match), shown);
		cli_error("job", "%s '%s' is refused: %s", a->prefix ? "--prefix"
			  : "--pattern", shown, why);
		return DB_EXIT_USAGE;
	}
	match = norm;
	struct boost_arg x = {match, a->pattern != NULL, a->dry_run != 0,
			      a->demote ? -by : by};
	struct ct_job_info j;
	long rows;
	if (with_job(a, call_boost, &x, &j, &rows) != 0)
		return DB_EXIT_FAIL;
	job_prefix(&j);
	if (rows == 0) {
		/* the store changes and audits nothing then */
		printf("0 pending tasks %s %s: nothing %s\n",
		       a->prefix ? "under" : "match", match,
		       a->dry_run ? "would change" : "changed");
		return DB_EXIT_OK;
	}
	printf("%ld pending task%s %s %s %s%s by %g point%s%s\n", rows,
	       rows == 1 ? "" : "s",
	       a->prefix ? "under" : "matching", match,
	       a->dry_run ? "would be " : "",
	       a->demote ? "demoted" : "boosted", by, by == 1 ? "" : "s",
	       a->dry_run ? " (--dry-run: nothing changed)" : "");
	return DB_EXIT_OK;
}

/* `job sitemap-priorities JOB`: seed 000's batch update after a sitemap,
 * with the store's current hierarchy.root and hierarchy.sitemap. */
static ct_status call_sitemap(struct ct_store *s, const struct ct_job_info *j,
			      const void *arg, long *rows,
			      struct ct_error *err)
{
	(void)arg;
	return ct_store_apply_sitemap(s, j->id, rows, err);
}

int job_sitemap_priorities(const struct job_args *a)
{
	struct ct_job_info j;
	long rows;
	if (with_job(a, call_sitemap, NULL, &j, &rows) != 0)
		return DB_EXIT_FAIL;
	job_prefix(&j);
	printf("'/' and the sitemap's pages raised to the root and sitemap "
	       "scores where they were lower; %ld pending task%s raised\n",
	       rows, rows == 1 ? "" : "s");
	return DB_EXIT_OK;
}
