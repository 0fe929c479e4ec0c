/* cmd_score.c: `crawltop score MODEL`: JSON Lines in, one JSON line out per
 * input line, in input order (or best first with --rank). A bad line gives
 * {"line":N,"error":"..."} and the rest are still scored (a line longer
 * than LINEREAD_MAX bytes is a bad line); the exit status is 1 if any line
 * failed. A read error or a failed allocation stops the command (2): the
 * input is not known to have ended. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "crawltop/freshness.h"
#include "crawltop/timestamp.h"
#include "lineread.h"
#include "score.h"

static const struct {
	const char *name;
	score_fn *fn;
} models[] = {
	{"freshness", score_freshness},
	{"frontier", score_frontier},
	{"discovery", score_discovery},
	{"hierarchy", score_hierarchy},
};

/* Pending output is written out once it reaches this size. */
#define FLUSH_AT (1 << 16)

/* One scored line kept for --rank: its text (with the newline) in the
 * kept-text buffer. */
struct ranked {
	double key;
	size_t idx; /* input position: ties keep input order */
	size_t off, len;
};

/* The lines kept for --rank. */
struct keep {
	struct ranked *r;
	size_t n, cap;
	char *text;
	size_t used, tcap;
};

/* Write {"line":N,"error":msg} to g (msg is cleaned of cut UTF-8). */
static void error_line(yajl_gen g, long line, char *msg)
{
	yajl_gen_map_open(g);
	jout_string(g, "line");
	jout_number(g, (double)line);
	jout_string(g, "error");
	jout_message(g, msg);
	yajl_gen_map_close(g);
}

/* Keep one ranked line (n bytes of text); -1 when out of memory. */
static int keep_line(struct keep *k, double key, const unsigned char *text,
		     size_t n)
{
	if (k->n == k->cap) {
		size_t cap = k->cap ? k->cap * 2 : 1024;
		struct ranked *r = realloc(k->r, cap * sizeof *r);
		if (!r)
			return -1;
		k->r = r;
		k->cap = cap;
	}
	if (k->used + n > k->tcap) {
		size_t cap = k->tcap ? k->tcap : 1 << 16;
		while (cap < k->used + n)
			cap *= 2;
		char *t = realloc(k->text, cap);
		if (!t)
			return -1;
		k->text = t;
		k->tcap = cap;
	}
	memcpy(k->text + k->used, text, n);
	k->r[k->n] = (struct ranked){key, k->n, k->used, n};
	k->n++;
	k->used += n;
	return 0;
}

/* Write g's buffer to stdout and empty it. */
static void flush_gen(yajl_gen g)
{
	const unsigned char *buf;
	size_t len;
	yajl_gen_get_buf(g, &buf, &len);
	if (len) {
		fwrite(buf, 1, len, stdout);
		yajl_gen_clear(g);
	}
}

/* Stable: equal keys keep input order (index breaks ties). */
static int ranked_cmp(const void *pa, const void *pb)
{
	const struct ranked *a = pa, *b = pb;
	if (a->key != b->key)
		return a->key > b->key ? -1 : 1;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

/* `crawltop score`: options, settings, then line after line from stdin;
 * returns the exit status (0, 1 some line failed, 2 usage/config/IO). */
static int run(int argc, char **argv)
{
	static const struct option opts[] = {
		{"config", required_argument, NULL, 'c'},
		{"now", required_argument, NULL, 'n'},
		{"rank", no_argument, NULL, 'r'},
		{"backoff", no_argument, NULL, 'b'},
		{NULL, 0, NULL, 0},
	};
	const char *config = NULL, *now = NULL;
	bool rank = false;
	struct score_ctx ctx = {.backoff = false};
	int c;
	struct cli_getopt go = CLI_GETOPT("score", "", opts);
	while ((c = cli_getopt(&go, argc, argv)) != -1) {
		switch (c) {
		case 'c': config = optarg; break;
		case 'n': now = optarg; break;
		case 'r': rank = true; break;
		case 'b': ctx.backoff = true; break;
		default:
			return 2;
		}
	}
	if (optind != argc - 1) {
		cli_error("score", "expected one MODEL (freshness, frontier, "
			  "discovery, hierarchy)");
		return 2;
	}
	const char *model = argv[optind];
	score_fn *fn = NULL;
	for (size_t i = 0; i < sizeof models / sizeof models[0]; i++)
		if (strcmp(model, models[i].name) == 0)
			fn = models[i].fn;
	if (!fn) {
		cli_error("score", "unknown model '%s' (freshness, frontier, "
			  "discovery, hierarchy)", model);
		return 2;
	}
	if (ctx.backoff && fn != score_discovery) {
		cli_error("score", "--backoff applies to the discovery model only");
		return 2;
	}
	if (now && fn != score_freshness) {
		cli_error("score", "--now applies to the freshness model only");
		return 2;
	}
	if (cli_load_settings("score", config, &ctx.settings) != 0)
		return 2;
	ctx.now_ms = cli_now_ms();
	if (now) {
		struct ct_error e;
		if (ct_time_parse(now, &ctx.now_ms, &e) != CT_OK) {
			cli_error("score", "--now: %s", e.msg);
			return 2;
		}
	}

	static char outbuf[1 << 16];
	setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);
	struct jin_parser *parser = jin_parser_new();
	yajl_gen g = jout_alloc();
	struct keep kept = {NULL, 0, 0, NULL, 0, 0};
	struct lineread in;
	enum lineread_status st;
	char *line;
	size_t len;
	int status = 0;
	lineread_init(&in, STDIN_FILENO, LINEREAD_MAX);
	if (!parser || !g) {
		cli_error("score", "out of memory");
		status = 2;
		goto out;
	}
	while ((st = lineread_next(&in, &line, &len)) != LINEREAD_EOF) {
		long line_no = in.line;
		char err[JIN_ERR];
		err[0] = '\0';
		if (st == LINEREAD_NOMEM || st == LINEREAD_ERROR) {
			/* the lines before it are written; a ranking of
			 * part of the input is not */
			flush_gen(g);
			fflush(stdout);
			cli_error("score", "line %ld: %s", line_no + 1,
				  lineread_what(&in, st, err, sizeof err));
			status = 2;
			goto out;
		}
		const unsigned char *buf;
		size_t before, after;
		yajl_gen_get_buf(g, &buf, &before);
		const struct jin_doc *doc = NULL;
		if (st == LINEREAD_LONG) {
			lineread_what(&in, st, err, sizeof err);
		} else {
			while (len > 0 && line[len - 1] == '\r')
				line[--len] = '\0';
			doc = jin_parse(parser, line, len, err);
		}
		double key = 0;
		bool ok = doc && fn(&ctx, doc, g, &key, err) == 0;
		if (!ok) {
			status = 1;
			error_line(g, line_no, err);
		}
		yajl_gen_reset(g, "\n");
		yajl_gen_get_buf(g, &buf, &after);
		if (rank && ok) {
			/* errors come out in input order, also with --rank */
			if (keep_line(&kept, key, buf + before, after - before)) {
				cli_error("score", "out of memory at line %ld", line_no);
				status = 2;
				goto out;
			}
			if (before)
				fwrite(buf, 1, before, stdout);
			yajl_gen_clear(g);
		} else if (after >= FLUSH_AT) {
			flush_gen(g);
		}
	}
	flush_gen(g);
	if (rank) {
		if (kept.n)
			qsort(kept.r, kept.n, sizeof *kept.r, ranked_cmp);
		for (size_t i = 0; i < kept.n; i++)
			fwrite(kept.text + kept.r[i].off, 1, kept.r[i].len, stdout);
	}
	if (fflush(stdout) != 0) {
		cli_error("score", "output error");
		status = 2;
	}
out:
	lineread_free(&in);
	free(kept.r);
	free(kept.text);
	if (g)
		yajl_gen_free(g);
	jin_parser_free(parser);
	return status;
}

const struct cli_cmd cli_cmd_score = {
	.name = "score",
	.usage = "MODEL [--config FILE] [--now TIME] [--rank] [--backoff] < in.jsonl",
	.summary = "Score JSON Lines on stdin with one model (freshness, frontier, "
		   "discovery, hierarchy)",
	.help = "  --config FILE  settings file (default: $CRAWLTOP_CONFIG, "
		"$XDG_CONFIG_HOME/crawltop/crawltop.conf, " CT_CONFIG_SYSTEM_PATH ")\n"
		"  --now TIME     freshness: the clock (epoch ms or ISO-8601; default now)\n"
		"  --rank         print the lines best first (stable)\n"
		"  --backoff      discovery: read {class,step,nsAsnChanged}, print {hours}\n"
		"A line is at most " LINEREAD_MAX_TEXT " bytes (1 MiB, newline excluded); a\n"
		"longer one is a bad line: {\"line\":N,\"error\":\"line longer than "
		LINEREAD_MAX_TEXT " bytes\"}.\n"
		"exit status: 0 all lines scored, 1 some line failed, 2 usage or config\n"
		"error, a read error or out of memory (the lines before it are written)\n",
	.run = run,
};
