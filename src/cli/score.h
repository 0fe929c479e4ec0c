/* score.h: the models behind `crawltop score MODEL`. Each turns one parsed
 * JSON input object into one output object. */
#ifndef CRAWLTOP_SCORE_H
#define CRAWLTOP_SCORE_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "crawltop/settings.h"
#include "jsonin.h"

struct score_ctx {
	struct ct_settings settings;
	int64_t now_ms;  /* freshness: --now or the clock */
	bool backoff;    /* discovery: --backoff */
};

/* Returns a new output object (caller owns it) and its rank key (higher
 * is better), or NULL with a message in err. */
typedef json_t *score_fn(const struct score_ctx *ctx, json_t *in,
			 double *rank_key, char err[JIN_ERR]);

score_fn score_freshness;
score_fn score_frontier;
score_fn score_discovery;
score_fn score_hierarchy;

#endif
