/* score_freshness.c: `crawltop score freshness` (seed 004). */
#include <stdio.h>

#include "crawltop/freshness.h"
#include "score.h"

/* {url, visits, lastVisited, lastChanged, topicRelevance, hubDepth, isHub}
 * -> {url, score, level, reasons}. */
int freshness_input_read(const struct jin_doc *in,
			 struct ct_freshness_input *out, const char **url_out,
			 char err[JIN_ERR])
{
	static const char *const fields[] = {"url", "visits", "lastVisited",
		"lastChanged", "topicRelevance", "hubDepth", "isHub", NULL};
	struct ct_freshness_input fi = CT_FRESHNESS_INPUT_INIT;
	const char *url = NULL;
	long depth = 0;
	bool p;
	if (jin_only(in, NULL, fields, err) ||
	    jin_string(in, "url", &url, &p, err) ||
	    jin_integer(in, "visits", &fi.visits, &p, err) ||
	    jin_time(in, "lastVisited", &fi.last_visited_ms, &fi.has_last_visited, err) ||
	    jin_time(in, "lastChanged", &fi.last_changed_ms, &fi.has_last_changed, err) ||
	    jin_number(in, "topicRelevance", &fi.topic_relevance, &p, err) ||
	    jin_integer(in, "hubDepth", &depth, &p, err) ||
	    jin_bool(in, "isHub", &fi.is_hub, &p, err))
		return -1;
	if (!url) {
		snprintf(err, JIN_ERR, "field 'url' is required");
		return -1;
	}
	if (depth < 0 || depth > 1000000) {
		snprintf(err, JIN_ERR, "hubDepth = %ld: must be 0..1000000", depth);
		return -1;
	}
	fi.hub_depth = (int)depth;
	*out = fi;
	*url_out = url;
	return 0;
}

int score_freshness(const struct score_ctx *ctx, const struct jin_doc *in,
		    yajl_gen out, double *rank_key, char err[JIN_ERR])
{
	struct ct_freshness_input fi;
	const char *url;
	if (freshness_input_read(in, &fi, &url, err) != 0)
		return -1;
	struct ct_freshness_result r;
	struct ct_error e;
	if (ct_freshness_score(&ctx->settings.freshness, &ctx->settings.classes,
			       &fi, ctx->now_ms, &r, &e) != CT_OK) {
		snprintf(err, JIN_ERR, "%s", e.msg);
		return -1;
	}
	yajl_gen_map_open(out);
	jout_string(out, "url");
	jout_string(out, url);
	jout_string(out, "score");
	jout_number(out, r.score);
	jout_string(out, "level");
	jout_string(out, ct_freshness_level_name(r.level));
	jout_string(out, "reasons");
	jout_reasons(out, &r.reasons);
	yajl_gen_map_close(out);
	*rank_key = r.score;
	return 0;
}
