/* score.h: the models behind `crawltop score MODEL`. Each turns one parsed
 * JSON input line into one output object. */
#ifndef CRAWLTOP_SCORE_H
#define CRAWLTOP_SCORE_H

#include <stdbool.h>
#include <stdint.h>
#include <yajl/yajl_gen.h>

#include "crawltop/freshness.h"
#include "crawltop/frontier.h"
#include "crawltop/settings.h"
#include "jsonin.h"

struct score_ctx {
	struct ct_settings settings;
	int64_t now_ms;  /* freshness: --now or the clock */
	bool backoff;    /* discovery: --backoff */
};

/* Reads the document in; on success writes one complete output object to
 * out, sets its rank key (higher is better) and returns 0; on failure
 * writes nothing to out and returns -1 with a message in err. */
typedef int score_fn(const struct score_ctx *ctx, const struct jin_doc *in,
		     yajl_gen out, double *rank_key, char err[JIN_ERR]);

/* The engine input of one frontier or freshness line (the fields
 * `crawltop score MODEL` reads; url required), -1 with err when a field is
 * wrong. Strings point into the document. */
int frontier_input_read(const struct jin_doc *in,
			struct ct_frontier_input *out, char err[JIN_ERR]);
int freshness_input_read(const struct jin_doc *in,
			 struct ct_freshness_input *out, const char **url,
			 char err[JIN_ERR]);

score_fn score_freshness;
score_fn score_frontier;
score_fn score_discovery;
score_fn score_hierarchy;

#endif
