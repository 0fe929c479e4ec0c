/* job.h: the subcommands of `crawltop job`, shared by cmd_job.c (the
 * table, the parsing, list, show and create) and job_change.c (priority,
 * state and score changes). */
#ifndef CRAWLTOP_JOB_H
#define CRAWLTOP_JOB_H

/* Options of `crawltop job`; each subcommand accepts a subset. */
enum job_opt {
	JOB_OPT_DOMAIN = 1u << 0,
	JOB_OPT_PRIORITY = 1u << 1,
	JOB_OPT_MODE = 1u << 2,
	JOB_OPT_YES = 1u << 3,
	JOB_OPT_PREFIX = 1u << 4,
	JOB_OPT_BY = 1u << 5,
	JOB_OPT_DEMOTE = 1u << 6,
	JOB_OPT_PATTERN = 1u << 7,
	JOB_OPT_DRY_RUN = 1u << 8,
	JOB_OPT_CONNECTIONS = 1u << 9,
};

/* The parsed command line: option values (NULL when absent) and the
 * positional arguments after the subcommand. Borrowed from argv. */
struct job_args {
	const char *dsn;
	const char *domain, *priority, *mode, *prefix, *by, *pattern;
	const char *connections;
	int yes, demote, dry_run;
	unsigned given;       /* enum job_opt bits seen */
	char **pos;
	int npos;
};

/* Each returns the exit status (dbcmd.h). Values are checked before the
 * database is contacted. */
int job_set_priority(const struct job_args *a);
int job_set_mode(const struct job_args *a);
int job_pause(const struct job_args *a);
int job_resume(const struct job_args *a);
int job_cancel(const struct job_args *a);
int job_boost(const struct job_args *a);
int job_sitemap_priorities(const struct job_args *a);

#endif
