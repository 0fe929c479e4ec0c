/* cmd_score.c: `crawltop score MODEL`: JSON Lines in, one JSON line out per
 * input line, in input order (or best first with --rank). A bad line gives
 * {"line":N,"error":"..."} and the rest are still scored; the exit status
 * is 1 if any line failed. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "crawltop/freshness.h"
#include "crawltop/timestamp.h"
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

#define DUMP_FLAGS (JSON_COMPACT | JSON_REAL_PRECISION(12))

/* One scored line kept for --rank. */
struct ranked {
	double key;
	size_t idx; /* input position: ties keep input order */
	char *text;
};

static char *error_line(long line, const char *msg)
{
	json_t *o = json_object();
	json_object_set_new(o, "line", json_integer(line));
	json_object_set_new(o, "error", json_string(msg));
	char *s = json_dumps(o, DUMP_FLAGS);
	json_decref(o);
	return s;
}

/* Stable: equal keys keep input order (index breaks ties). */
static int ranked_cmp(const void *pa, const void *pb)
{
	const struct ranked *a = pa, *b = pb;
	if (a->key != b->key)
		return a->key > b->key ? -1 : 1;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

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
	optind = 1;
	while ((c = getopt_long(argc, argv, "c:", opts, NULL)) != -1) {
		switch (c) {
		case 'c': config = optarg; break;
		case 'n': now = optarg; break;
		case 'r': rank = true; break;
		case 'b': ctx.backoff = true; break;
		default:
			cli_usage(stderr, &cli_cmd_score);
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
	ctx.now_ms = now_ms();
	if (now) {
		struct ct_error e;
		if (ct_time_parse(now, &ctx.now_ms, &e) != CT_OK) {
			cli_error("score", "--now: %s", e.msg);
			return 2;
		}
	}

	static char outbuf[1 << 16];
	setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);
	struct ranked *kept = NULL;
	size_t n_kept = 0, cap = 0;
	char *line = NULL;
	size_t line_cap = 0;
	ssize_t len;
	long line_no = 0;
	int failed = 0;
	while ((len = getline(&line, &line_cap, stdin)) != -1) {
		line_no++;
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		char err[JIN_ERR] = "";
		json_error_t jerr;
		json_t *in = json_loadb(line, (size_t)len, JSON_REJECT_DUPLICATES, &jerr);
		json_t *out = NULL;
		double key = 0;
		if (!in)
			snprintf(err, sizeof err, "malformed JSON: %s", jerr.text);
		else if (!json_is_object(in))
			snprintf(err, sizeof err, "expected a JSON object");
		else
			out = fn(&ctx, in, &key, err);
		json_decref(in);
		char *text = out ? json_dumps(out, DUMP_FLAGS) : error_line(line_no, err);
		json_decref(out);
		if (!out)
			failed = 1;
		if (!text) {
			cli_error("score", "out of memory at line %ld", line_no);
			free(line);
			return 2;
		}
		if (!rank || !out) {
			/* errors come out in input order, also with --rank */
			fputs(text, stdout);
			fputc('\n', stdout);
			free(text);
			continue;
		}
		if (n_kept == cap) {
			size_t ncap = cap ? cap * 2 : 1024;
			struct ranked *nk = realloc(kept, ncap * sizeof *nk);
			if (!nk) {
				cli_error("score", "out of memory at line %ld", line_no);
				free(text);
				free(line);
				return 2;
			}
			kept = nk;
			cap = ncap;
		}
		kept[n_kept] = (struct ranked){key, n_kept, text};
		n_kept++;
	}
	free(line);
	if (rank) {
		qsort(kept, n_kept, sizeof *kept, ranked_cmp);
		for (size_t i = 0; i < n_kept; i++) {
			fputs(kept[i].text, stdout);
			fputc('\n', stdout);
			free(kept[i].text);
		}
		free(kept);
	}
	if (fflush(stdout) != 0 || ferror(stdin)) {
		cli_error("score", "input/output error");
		return 2;
	}
	return failed;
}

const struct cli_cmd cli_cmd_score = {
	.name = "score",
	.usage = "MODEL [--config FILE] [--now TIME] [--rank] [--backoff] < in.jsonl",
	.summary = "Score JSON Lines on stdin with one model (freshness, frontier, "
		   "discovery, hierarchy)",
	.help = "  --config FILE  settings file (default: $CRAWLTOP_CONFIG, "
		"$XDG_CONFIG_HOME/crawltop/crawltop.conf, /etc/crawltop/crawltop.conf)\n"
		"  --now TIME     freshness: the clock (epoch ms or ISO-8601; default now)\n"
		"  --rank         print the lines best first (stable)\n"
		"  --backoff      discovery: read {class,step,nsAsnChanged}, print {hours}\n"
		"exit status: 0 all lines scored, 1 some line failed, 2 usage or config error\n",
	.run = run,
};
