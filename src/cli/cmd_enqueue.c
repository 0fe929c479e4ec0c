/* cmd_enqueue.c: `crawltop enqueue --job JOB (--sitemap FILE | --urls
 * FILE)`: put the pages a sitemap or a list names into a job's queue.
 *
 * A file is enqueued whole or not at all: everything runs in one
 * transaction, sent in batches of PATHBATCH_SIZE, committed only after the
 * last line was read and accepted. A URL of another host, a malformed
 * line or XML, a <loc> over the store's limit, too many URLs, an
 * unreadable file: the transaction is rolled back and the message names
 * the file and line. FILE "-" is standard input.
 * Exit 0 enqueued, 1 refused (nothing changed), 2 usage error. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "dbcmd.h"
#include "lineread.h"
#include "pathbatch.h"
#include "sitemap.h"
#include "urlpath.h"
#include "urlscore.h"

#define MAX_URLS_DEFAULT 5000000L
#define MAX_URLS_LIMIT 50000000L
/* White space a --urls line may carry around a URL at the limit. */
#define LINE_SLACK 4096

/* What one enqueue works with. */
struct enq {
	const char *file;        /* as named on the command line */
	struct ct_job_info job;
	size_t max_bytes;        /* the store's limit on a URL or path */
	long max_urls;
	long urls;               /* accepted so far */
	struct pathbatch b;
	char *path;              /* max_bytes + 1 */
	char msg[CT_ERROR_LEN + 256];
};

/* One URL (or, from --urls, a path) at file:line into the batch; -1 with
 * e->msg naming file, line and what is wrong. */
static int take(struct enq *e, const char *text, size_t len, int allow_path,
		const char *file, long line)
{
	char why[256], shown[URLPATH_SHOWN];
	enum urlpath_result r = urlpath_of(text, len, e->job.domain, allow_path,
					   e->max_bytes, e->path,
					   e->max_bytes + 1, why, sizeof why);
	if (r != URLPATH_OK) {
		urlpath_shown(text, len, shown);
		snprintf(e->msg, sizeof e->msg, "%s:%ld: '%s' is refused: %s",
			 file, line, shown, why);
		return -1;
	}
	if (++e->urls > e->max_urls) {
		snprintf(e->msg, sizeof e->msg, "%s:%ld: more than %ld URLs "
			 "(--max-urls): split the file", file, line, e->max_urls);
		return -1;
	}
	if (pathbatch_add(&e->b, e->path) != 0) {
		snprintf(e->msg, sizeof e->msg, "%s:%ld: %s", file, line,
			 e->b.err);
		return -1;
	}
	return 0;
}

/* sitemap_loc_fn: every <loc> goes through take(); 2 (the message is in
 * e->msg) stops the reading. */
static int on_loc(void *ctx, const char *loc, size_t len, const char *file,
		  long line)
{
	return take(ctx, loc, len, 0, file, line) ? 2 : 0;
}

/* --sitemap: stream the XML (and an index's children) into the batch. */
static int read_sitemap(struct enq *e)
{
	struct sitemap_opts o = {.max_loc = e->max_bytes,
				 .max_urls = e->max_urls,
				 .domain = e->job.domain};
	char err[CT_ERROR_LEN];
	int rc = sitemap_read(e->file, &o, on_loc, e, err, sizeof err);
	if (rc != 2)
		snprintf(e->msg, sizeof e->msg, "%s", err);
	return rc ? -1 : 0;
}

/* ASCII white space other than newline. */
static int blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

/* Trim ASCII white space around [*s, *s + *n). */
static void trim(const char **s, size_t *n)
{
	while (*n && blank((*s)[*n - 1]))
		(*n)--;
	while (*n && blank(**s))
		(*s)++, (*n)--;
}

/* --urls: one URL or path a line; blank lines and # comments skipped.
 * Lines are read through the bounded reader: a line longer than the limit
 * (binary data without newlines, say) is refused, not buffered whole. */
static int read_urls(struct enq *e)
{
	int is_stdin = strcmp(e->file, "-") == 0;
	const char *shown = is_stdin ? "stdin" : e->file;
	int fd = is_stdin ? STDIN_FILENO : open(e->file, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(e->msg, sizeof e->msg, "%s: cannot open: %s", e->file,
			 strerror(errno));
		return -1;
	}
	struct lineread in;
	enum lineread_status st;
	char *s, what[300];
	size_t n;
	int rc = 0;
	lineread_init(&in, fd, e->max_bytes + LINE_SLACK);
	while (rc == 0 && (st = lineread_next(&in, &s, &n)) != LINEREAD_EOF) {
		if (st == LINEREAD_LONG) {
			snprintf(e->msg, sizeof e->msg, "%s:%ld: the line is "
				 "longer than the store's limit of %zu bytes",
				 shown, in.line, e->max_bytes);
			rc = -1;
			break;
		}
		if (st != LINEREAD_LINE) {
			snprintf(e->msg, sizeof e->msg, "%s:%ld: %s", shown,
				 in.line + 1, lineread_what(&in, st, what,
							    sizeof what));
			rc = -1;
			break;
		}
		const char *t = s;
		/* a UTF-8 byte order mark (editors write one) is no URL */
		if (in.line == 1 && n >= 3 && memcmp(t, "\xef\xbb\xbf", 3) == 0) {
			t += 3;
			n -= 3;
		}
		trim(&t, &n);
		if (n == 0 || t[0] == '#')
			continue;
		if (memchr(t, '\0', n)) {
			snprintf(e->msg, sizeof e->msg, "%s:%ld: the line holds a "
				 "NUL byte: not a list of URLs (binary data?)",
				 shown, in.line);
			rc = -1;
			break;
		}
		rc = take(e, t, n, 1, shown, in.line);
	}
	lineread_free(&in);
	if (!is_stdin)
		close(fd);
	return rc;
}

/* Check before connecting that file can be opened ("-" always can). */
static int readable(const char *file)
{
	struct stat st;
	if (strcmp(file, "-") == 0)
		return 0;
	if (stat(file, &st) != 0) {
		cli_error("enqueue", "%s: cannot open: %s", file, strerror(errno));
		return -1;
	}
	if (S_ISDIR(st.st_mode)) {
		cli_error("enqueue", "%s: cannot read: it is a directory", file);
		return -1;
	}
	return 0;
}

/* Connect, read the job, then read the file into one transaction. */
static int enqueue(const char *dsn, const char *job, const char *file,
		   int sitemap, long max_urls)
{
	struct ct_store *s;
	struct ct_error err;
	struct enq e = {.file = file, .max_urls = max_urls};
	struct urlscore us;
	int max;
	if (db_open("enqueue", dsn, &s) != 0)
		return DB_EXIT_FAIL;
	if (db_job("enqueue", s, job, &e.job) != 0)
		goto fail_closed;
	if (ct_store_max_url_bytes(s, &max, &err) != CT_OK) {
		cli_error("enqueue", "%s", err.msg);
		goto fail_closed;
	}
	if (urlscore_init(&us, "enqueue", s, e.job.mode, e.job.domain) != 0)
		goto fail_closed;
	e.max_bytes = (size_t)max;
	e.path = malloc(e.max_bytes + 1);
	if (!e.path) {
		cli_error("enqueue", "out of memory");
		goto fail_closed;
	}
	pathbatch_init(&e.b, s, &us, e.job.id,
		       sitemap ? CT_SRC_SITEMAP : CT_SRC_MANUAL);
	if (ct_store_begin(s, &err) != CT_OK) {
		snprintf(e.msg, sizeof e.msg, "%s", err.msg);
		goto fail;
	}
	if ((sitemap ? read_sitemap(&e) : read_urls(&e)) != 0)
		goto fail;
	if (pathbatch_flush(&e.b) != 0) {
		snprintf(e.msg, sizeof e.msg, "%s", e.b.err);
		goto fail;
	}
	if (ct_store_commit(s, &err) != CT_OK) {
		snprintf(e.msg, sizeof e.msg, "%s", err.msg);
		goto fail;
	}
	struct cli_shown_set sh = {0}; /* the file's name too: any bytes */
	printf("enqueued %ld URL%s from %s into job %s (%" PRId64 "): %ld new "
	       "task%s, %ld already queued (%ld raised)\n", e.urls,
	       e.urls == 1 ? "" : "s",
	       strcmp(file, "-") ? cli_show(&sh, file) : "stdin",
	       cli_show(&sh, e.job.name), e.job.id, e.b.inserted,
	       e.b.inserted == 1 ? "" : "s", e.b.sent - e.b.inserted,
	       e.b.raised);
	cli_show_free(&sh);
	pathbatch_free(&e.b);
	free(e.path);
	ct_store_close(s);
	return DB_EXIT_OK;
fail:
	ct_store_rollback(s, NULL);
	cli_error("enqueue", "%s; nothing was enqueued (a file is enqueued "
		  "whole or not at all)", e.msg);
	pathbatch_free(&e.b);
	free(e.path);
fail_closed:
	ct_store_close(s);
	return DB_EXIT_FAIL;
}

/* `crawltop enqueue`: options checked before anything is opened. */
static int run(int argc, char **argv)
{
	static const struct option opts[] = {
		{"dsn", required_argument, NULL, 'd'},
		{"job", required_argument, NULL, 'j'},
		{"sitemap", required_argument, NULL, 's'},
		{"urls", required_argument, NULL, 'u'},
		{"max-urls", required_argument, NULL, 'm'},
		{NULL, 0, NULL, 0},
	};
	const char *dsn = db_default_dsn(), *job = NULL, *sitemap = NULL,
		   *urls = NULL;
	long max_urls = MAX_URLS_DEFAULT;
	int c;
	struct cli_getopt go = CLI_GETOPT("enqueue", "d:j:", opts);
	while ((c = cli_getopt(&go, argc, argv)) != -1) {
		switch (c) {
		case 'd': dsn = optarg; break;
		case 'j': job = optarg; break;
		case 's': sitemap = optarg; break;
		case 'u': urls = optarg; break;
		case 'm':
			if (db_parse_long("enqueue", "--max-urls", optarg, 1,
					  MAX_URLS_LIMIT, &max_urls) != 0)
				return DB_EXIT_USAGE;
			break;
		default:
			return DB_EXIT_USAGE;
		}
	}
	if (optind != argc) {
		cli_error("enqueue", "unexpected argument '%s'", argv[optind]);
		return DB_EXIT_USAGE;
	}
	if (!job) {
		cli_error("enqueue", "which job? --job NAME (or id)");
		return DB_EXIT_USAGE;
	}
	if (!sitemap == !urls) {
		cli_error("enqueue", "give exactly one of --sitemap FILE.xml "
			  "and --urls FILE");
		return DB_EXIT_USAGE;
	}
	const char *file = sitemap ? sitemap : urls;
	if (readable(file) != 0)
		return DB_EXIT_FAIL;
	int rc = enqueue(dsn, job, file, sitemap != NULL, max_urls);
	if (sitemap)
		sitemap_done();
	return rc;
}

const struct cli_cmd cli_cmd_enqueue = {
	.name = "enqueue",
	.usage = "--job JOB (--sitemap FILE.xml | --urls FILE) [--max-urls N] "
		 "[-d DSN]",
	.summary = "Queue the pages of a sitemap or a URL list for a job",
	.help = "  -j, --job JOB       the job (name or id); its domain is the\n"
		"                      only host its URLs may name\n"
		"  --sitemap FILE.xml  a sitemaps.org <urlset>, or a\n"
		"                      <sitemapindex> of local files beside it\n"
		"                      (regular files: no FIFO or device);\n"
		"                      source type sitemap\n"
		"  --urls FILE         one URL or /path a line; blank lines and\n"
		"                      # comments skipped; source type manual\n"
		"  --max-urls N        refuse a file with more than N URLs\n"
		"                      (default 5000000)\n"
		DB_HELP_DSN
		"\nFILE - reads standard input. The file is enqueued whole or\n"
		"not at all: one transaction, committed after the last URL. A\n"
		"URL of another host, malformed XML or a line over the store's\n"
		"limit (2048 bytes) refuses the whole file with its line number.\n"
		SCORED_WITH_STORED_SETTINGS
		"\nExit status: 0 enqueued, 1 refused (nothing changed), 2 bad\n"
		"usage.\n",
	.run = run,
};
