/* score_hierarchy.c: `crawltop score hierarchy` (seed 000). */
#include <math.h>
#include <stdio.h>

#include "crawltop/hierarchy.h"
#include "score.h"

/* {path, sourceType, sourceScore, sourcePath, current}
 * -> {path, score, reasons}. */
int score_hierarchy(const struct score_ctx *ctx, const struct jin_doc *in,
		    yajl_gen out, double *rank_key, char err[JIN_ERR])
{
	static const char *const fields[] = {"path", "sourceType", "sourceScore",
		"sourcePath", "current", NULL};
	struct ct_hierarchy_input hi = {.source = CT_SRC_OTHER,
					.source_score = NAN, .current = 0.0};
	const char *type = NULL;
	bool p;
	if (jin_only(in, NULL, fields, err) ||
	    jin_string(in, "path", &hi.path, &p, err) ||
	    jin_string(in, "sourceType", &type, &p, err) ||
	    jin_number(in, "sourceScore", &hi.source_score, &p, err) ||
	    jin_string(in, "sourcePath", &hi.source_path, &p, err) ||
	    jin_number(in, "current", &hi.current, &p, err))
		return -1;
	if (!hi.path) {
		snprintf(err, JIN_ERR, "field 'path' is required");
		return -1;
	}
	if (type && !ct_source_type_parse(type, &hi.source)) {
		snprintf(err, JIN_ERR, "field 'sourceType': unknown type '%.64s' "
			 "(sitemap, link, manual, other)", type);
		return -1;
	}
	struct ct_hierarchy_result r;
	struct ct_error e;
	if (ct_hierarchy_score(&ctx->settings.hierarchy, &hi, &r, &e) != CT_OK) {
		snprintf(err, JIN_ERR, "%s", e.msg);
		return -1;
	}
	yajl_gen_map_open(out);
	jout_string(out, "path");
	jout_string(out, hi.path);
	jout_string(out, "score");
	jout_number(out, r.score);
	jout_string(out, "reasons");
	jout_reasons(out, &r.reasons);
	yajl_gen_map_close(out);
	*rank_key = r.score;
	return 0;
}
