/* score_frontier.c: `crawltop score frontier` (seed 002). */
#include <stdio.h>

#include "crawltop/frontier.h"
#include "crawltop/number.h"
#include "score.h"

/* The input ranges, the store's too (crawltop.score_input_spec): a bias
 * that dwarfs the type weights (0..25) and depths would decide the order
 * alone, and far out it swamps every other term in a double (-1e308 gave
 * score 100); a count or a cost above 1e12 is no measurement. */
#define BIAS_MAX 1e6
#define COUNT_MAX 1e12

/* "name = value: must be lo..hi" into err unless lo <= v <= hi; -1 then. */
static int in_range(const char *name, double v, double lo, double hi,
		    char err[JIN_ERR])
{
	char a[CT_NUMBER_BUF], b[CT_NUMBER_BUF], c[CT_NUMBER_BUF];

	if (v >= lo && v <= hi)
		return 0;
	snprintf(err, JIN_ERR, "%s = %s: must be %s..%s", name,
		 ct_number_format(v, a), ct_number_format(lo, b),
		 ct_number_format(hi, c));
	return -1;
}

/* The "meta" object's fields into fi; -1 with a message in err. */
static int read_meta(const struct jin_doc *in, struct ct_frontier_input *fi,
		     char err[JIN_ERR])
{
	static const char *const fields[] = {"discoveryMethod", "knowledgeReuse",
		"estimatedCostMs", NULL};
	bool p;
	return jin_only(in, "meta", fields, err) ||
	       jin_string(in, "meta.discoveryMethod", &fi->discovery_method, &p, err) ||
	       jin_number(in, "meta.knowledgeReuse", &fi->knowledge_reuse, &p, err) ||
	       jin_number(in, "meta.estimatedCostMs", &fi->estimated_cost_ms, &p, err) ||
	       (p && in_range("meta.estimatedCostMs", fi->estimated_cost_ms, 0,
			      COUNT_MAX, err))
		? -1 : 0;
}

/* The "gap" object's fields into fi; -1 with a message in err. */
static int read_gap(const struct jin_doc *in, struct ct_frontier_input *fi,
		    char err[JIN_ERR])
{
	static const char *const fields[] = {"confidence", "lift", NULL};
	bool pc = false, pl = false;
	if (jin_only(in, "gap", fields, err) ||
	    jin_number(in, "gap.confidence", &fi->gap_confidence, &pc, err) ||
	    jin_number(in, "gap.lift", &fi->gap_lift, &pl, err))
		return -1;
	fi->has_gap = pc || pl;
	return 0;
}

/* {url, type, depth, bias, meta{}, gap{}, clusterOccurrences,
 * classification} -> {url, priority, prioritySource, bonusApplied,
 * basePriority, queue, score, class, [dropped, dropReason,] reasons}. */
int frontier_input_read(const struct jin_doc *in,
			struct ct_frontier_input *out, char err[JIN_ERR])
{
	static const char *const fields[] = {"url", "type", "depth", "bias",
		"meta", "gap", "clusterOccurrences", "classification", NULL};
	struct ct_frontier_input fi = CT_FRONTIER_INPUT_INIT;
	const char *cls = NULL;
	long depth = 0;
	bool p, has_meta, has_gap;
	if (jin_only(in, NULL, fields, err) ||
	    jin_string(in, "url", &fi.url, &p, err) ||
	    jin_string(in, "type", &fi.type, &p, err) ||
	    jin_integer(in, "depth", &depth, &p, err) ||
	    jin_number(in, "bias", &fi.bias, &p, err) ||
	    jin_object(in, "meta", &has_meta, err) ||
	    jin_object(in, "gap", &has_gap, err) ||
	    jin_integer(in, "clusterOccurrences", &fi.cluster_occurrences, &p, err) ||
	    jin_string(in, "classification", &cls, &p, err))
		return -1;
	if (!fi.url) {
		snprintf(err, JIN_ERR, "field 'url' is required");
		return -1;
	}
	if (depth < 0 || depth > 1000000) {
		snprintf(err, JIN_ERR, "depth = %ld: must be 0..1000000", depth);
		return -1;
	}
	fi.depth = (int)depth;
	if (in_range("bias", fi.bias, -BIAS_MAX, BIAS_MAX, err) ||
	    in_range("clusterOccurrences", (double)fi.cluster_occurrences, 0,
		     COUNT_MAX, err))
		return -1;
	if ((has_meta && read_meta(in, &fi, err)) ||
	    (has_gap && read_gap(in, &fi, err)))
		return -1;
	if (cls && !ct_tp_class_parse(cls, &fi.classification)) {
		snprintf(err, JIN_ERR, "field 'classification': unknown class "
			 "'%.64s' (country, country-related, other)", cls);
		return -1;
	}
	*out = fi;
	return 0;
}

int score_frontier(const struct score_ctx *ctx, const struct jin_doc *in,
		   yajl_gen out, double *rank_key, char err[JIN_ERR])
{
	struct ct_frontier_input fi;
	if (frontier_input_read(in, &fi, err) != 0)
		return -1;
	struct ct_frontier_result r;
	struct ct_error e;
	if (ct_frontier_score(&ctx->settings.frontier, &ctx->settings.classes,
			      &fi, &r, &e) != CT_OK) {
		snprintf(err, JIN_ERR, "%s", e.msg);
		return -1;
	}
	yajl_gen_map_open(out);
	jout_string(out, "url");
	jout_string(out, fi.url);
	jout_string(out, "priority");
	jout_number(out, r.priority);
	jout_string(out, "prioritySource");
	jout_string(out, r.priority_source);
	jout_string(out, "bonusApplied");
	jout_number(out, r.bonus_applied);
	jout_string(out, "basePriority");
	jout_number(out, r.base_priority);
	jout_string(out, "queue");
	jout_string(out, ct_queue_type_name(r.queue));
	jout_string(out, "score");
	jout_number(out, r.score);
	jout_string(out, "class");
	jout_string(out, ct_class_name(r.cls));
	if (r.dropped) {
		jout_string(out, "dropped");
		yajl_gen_bool(out, 1);
		jout_string(out, "dropReason");
		jout_string(out, "deprioritised");
	}
	jout_string(out, "reasons");
	jout_reasons(out, &r.reasons);
	yajl_gen_map_close(out);
	*rank_key = r.score;
	return 0;
}
