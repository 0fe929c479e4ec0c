/* score_frontier.c: `crawltop score frontier` (seed 002). */
#include <stdio.h>

#include "crawltop/frontier.h"
#include "score.h"

static int read_meta(json_t *m, struct ct_frontier_input *fi, char err[JIN_ERR])
{
	static const char *const fields[] = {"discoveryMethod", "knowledgeReuse",
		"estimatedCostMs", NULL};
	bool p;
	return jin_only(m, fields, "meta", err) ||
	       jin_string(m, "discoveryMethod", &fi->discovery_method, &p, err) ||
	       jin_number(m, "knowledgeReuse", &fi->knowledge_reuse, &p, err) ||
	       jin_number(m, "estimatedCostMs", &fi->estimated_cost_ms, &p, err)
		? -1 : 0;
}

static int read_gap(json_t *g, struct ct_frontier_input *fi, char err[JIN_ERR])
{
	static const char *const fields[] = {"confidence", "lift", NULL};
	bool pc = false, pl = false;
	if (jin_only(g, fields, "gap", err) ||
	    jin_number(g, "confidence", &fi->gap_confidence, &pc, err) ||
	    jin_number(g, "lift", &fi->gap_lift, &pl, err))
		return -1;
	fi->has_gap = pc || pl;
	return 0;
}

json_t *score_frontier(const struct score_ctx *ctx, json_t *in,
		       double *rank_key, char err[JIN_ERR])
{
	static const char *const fields[] = {"url", "type", "depth", "bias",
		"meta", "gap", "clusterOccurrences", "classification", NULL};
	struct ct_frontier_input fi = CT_FRONTIER_INPUT_INIT;
	json_t *meta = NULL, *gap = NULL;
	const char *cls = NULL;
	long depth = 0;
	bool p, has_meta, has_gap;
	if (jin_only(in, fields, NULL, err) ||
	    jin_string(in, "url", &fi.url, &p, err) ||
	    jin_string(in, "type", &fi.type, &p, err) ||
	    jin_integer(in, "depth", &depth, &p, err) ||
	    jin_number(in, "bias", &fi.bias, &p, err) ||
	    jin_object(in, "meta", &meta, &has_meta, err) ||
	    jin_object(in, "gap", &gap, &has_gap, err) ||
	    jin_integer(in, "clusterOccurrences", &fi.cluster_occurrences, &p, err) ||
	    jin_string(in, "classification", &cls, &p, err))
		return NULL;
	if (!fi.url) {
		snprintf(err, JIN_ERR, "field 'url' is required");
		return NULL;
	}
	if (depth < 0 || depth > 1000000) {
		snprintf(err, JIN_ERR, "depth = %ld: must be 0..1000000", depth);
		return NULL;
	}
	fi.depth = (int)depth;
	if ((has_meta && read_meta(meta, &fi, err)) ||
	    (has_gap && read_gap(gap, &fi, err)))
		return NULL;
	if (cls && !ct_tp_class_parse(cls, &fi.classification)) {
		snprintf(err, JIN_ERR, "field 'classification': unknown class "
			 "'%.64s' (country, country-related, other)", cls);
		return NULL;
	}

	struct ct_frontier_result r;
	struct ct_error e;
	if (ct_frontier_score(&ctx->settings.frontier, &ctx->settings.classes,
			      &fi, &r, &e) != CT_OK) {
		snprintf(err, JIN_ERR, "%s", e.msg);
		return NULL;
	}
	json_t *out = json_object();
	json_object_set_new(out, "url", json_string(fi.url));
	jout_number(out, "priority", r.priority);
	json_object_set_new(out, "prioritySource", json_string(r.priority_source));
	jout_number(out, "bonusApplied", r.bonus_applied);
	jout_number(out, "basePriority", r.base_priority);
	json_object_set_new(out, "queue", json_string(ct_queue_type_name(r.queue)));
	json_object_set_new(out, "score", json_real(r.score));
	json_object_set_new(out, "class", json_string(ct_class_name(r.cls)));
	if (r.dropped) {
		json_object_set_new(out, "dropped", json_true());
		json_object_set_new(out, "dropReason", json_string("deprioritised"));
	}
	json_object_set_new(out, "reasons", jout_reasons(&r.reasons));
	*rank_key = r.score;
	return out;
}
