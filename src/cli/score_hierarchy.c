/* score_hierarchy.c: `crawltop score hierarchy` (seed 000). */
#include <math.h>
#include <stdio.h>

#include "crawltop/hierarchy.h"
#include "score.h"

json_t *score_hierarchy(const struct score_ctx *ctx, json_t *in,
			double *rank_key, char err[JIN_ERR])
{
	static const char *const fields[] = {"path", "sourceType", "sourceScore",
		"sourcePath", "current", NULL};
	struct ct_hierarchy_input hi = {.source = CT_SRC_OTHER,
					.source_score = NAN, .current = 0.0};
	const char *type = NULL;
	bool p;
	if (jin_only(in, fields, NULL, err) ||
	    jin_string(in, "path", &hi.path, &p, err) ||
	    jin_string(in, "sourceType", &type, &p, err) ||
	    jin_number(in, "sourceScore", &hi.source_score, &p, err) ||
	    jin_string(in, "sourcePath", &hi.source_path, &p, err) ||
	    jin_number(in, "current", &hi.current, &p, err))
		return NULL;
	if (!hi.path) {
		snprintf(err, JIN_ERR, "field 'path' is required");
		return NULL;
	}
	if (type && !ct_source_type_parse(type, &hi.source)) {
		snprintf(err, JIN_ERR, "field 'sourceType': unknown type '%.64s' "
			 "(sitemap, link, manual, other)", type);
		return NULL;
	}
	struct ct_hierarchy_result r;
	struct ct_error e;
	if (ct_hierarchy_score(&ctx->settings.hierarchy, &hi, &r, &e) != CT_OK) {
		snprintf(err, JIN_ERR, "%s", e.msg);
		return NULL;
	}
	json_t *out = json_object();
	json_object_set_new(out, "path", json_string(hi.path));
	json_object_set_new(out, "score", json_real(r.score));
	json_object_set_new(out, "reasons", jout_reasons(&r.reasons));
	*rank_key = r.score;
	return out;
}
