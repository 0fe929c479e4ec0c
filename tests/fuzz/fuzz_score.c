/* fuzz_score.c: `crawltop score MODEL` on JSON Lines: each line through
 * the reused parser (src/cli/jsonin.c) and one model's reader and scorer
 * (src/cli/score_*.c), as cmd_score.c's loop drives them, with the
 * built-in settings. The first input byte picks the model (freshness,
 * frontier, discovery, discovery --backoff, hierarchy); the rest is the
 * input, cut at newlines into lines.
 *
 * Checked: every output line, a score or an error, is one JSON object
 * that the same parser reads back (valid UTF-8, no duplicate key), and a
 * "score" in it is a number in 0..100. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_gen.h>

#include "crawltop/settings.h"
#include "fuzz.h"
#include "jsonin.h"
#include "score.h"

static const struct {
	score_fn *fn;
	bool backoff;
} models[] = {
	{score_freshness, false},
	{score_frontier, false},
	{score_discovery, false},
	{score_discovery, true},
	{score_hierarchy, false},
};
#define N_MODELS (sizeof models / sizeof models[0])

static struct score_ctx ctx;
static struct jin_parser *parser, *reader;
static yajl_gen gen;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	ct_settings_default(&ctx.settings);
	ctx.now_ms = 1718438400000; /* 2024-06-15T08:00:00Z, README's --now */
	parser = jin_parser_new();
	reader = jin_parser_new();
	gen = jout_alloc();
	if (!parser || !reader || !gen)
		abort();
	return 0;
}

/* cmd_score.c's error_line: {"line":N,"error":msg}. */
static void error_line(yajl_gen g, long line, char *msg)
{
	yajl_gen_map_open(g);
	jout_string(g, "line");
	jout_number(g, (double)line);
	jout_string(g, "error");
	jout_message(g, msg);
	yajl_gen_map_close(g);
}

/* The output line [buf, buf + len) (newline included) reads back. */
static void check_output(const unsigned char *buf, size_t len)
{
	char err[JIN_ERR];
	FZ_CHECK(len > 0 && buf[len - 1] == '\n', "output without a newline");
	char *line = fz_strndup(buf, len - 1);
	FZ_CHECK(strchr(line, '\n') == NULL, "two output lines: %s", line);
	const struct jin_doc *d = jin_parse(reader, line, len - 1, err);
	FZ_CHECK(d != NULL, "output does not read back (%s): %s", err, line);
	double score;
	bool present;
	if (jin_number(d, "score", &score, &present, err) == 0 && present)
		FZ_CHECK(isfinite(score) && score >= 0 && score <= 100,
			 "score %g: %s", score, line);
	free(line);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	unsigned pick = data[0] % N_MODELS;
	ctx.backoff = models[pick].backoff;
	data++, size--;
	long line_no = 0;
	while (size > 0) {
		const uint8_t *nl = memchr(data, '\n', size);
		size_t len = nl ? (size_t)(nl - data) : size;
		/* as the line reader gives it: NUL-terminated, CRs dropped
		 * by cmd_score.c */
		char *line = fz_strndup(data, len);
		while (len > 0 && line[len - 1] == '\r')
			line[--len] = '\0';
		line_no++;
		char err[JIN_ERR];
		err[0] = '\0';
		const unsigned char *buf;
		size_t before, after;
		yajl_gen_get_buf(gen, &buf, &before);
		const struct jin_doc *doc = jin_parse(parser, line, len, err);
		double key = 0;
		bool ok = doc && models[pick].fn(&ctx, doc, gen, &key, err) == 0;
		if (!ok) {
			FZ_CHECK(err[0] != '\0', "line %ld refused without a "
				 "message", line_no);
			error_line(gen, line_no, err);
		}
		yajl_gen_reset(gen, "\n");
		yajl_gen_get_buf(gen, &buf, &after);
		check_output(buf + before, after - before);
		yajl_gen_clear(gen);
		free(line);
		if (!nl)
			break;
		size -= (size_t)(nl - data) + 1;
		data = nl + 1;
	}
	return 0;
}
