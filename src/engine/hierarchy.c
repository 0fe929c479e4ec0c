/* hierarchy.c: seed 000's hierarchy score with SPEC.md's decisions. */
#include <math.h>
#include <string.h>

#include "crawltop/number.h"
#include "crawltop/hierarchy.h"
#include "guard.h"

static const char *const source_names[CT_SRC_COUNT] = {
	[CT_SRC_SITEMAP] = "sitemap",
	[CT_SRC_LINK] = "link",
	[CT_SRC_MANUAL] = "manual",
	[CT_SRC_OTHER] = "other",
};

const char *ct_source_type_name(ct_source_type t)
{
	return (unsigned)t < CT_SRC_COUNT ? source_names[t] : "?";
}

bool ct_source_type_parse(const char *s, ct_source_type *out)
{
	for (int i = 0; s && i < CT_SRC_COUNT; i++)
		if (strcmp(s, source_names[i]) == 0) {
			*out = (ct_source_type)i;
			return true;
		}
	return false;
}

static bool unit(double v)
{
	return isfinite(v) && v >= 0.0 && v <= 1.0;
}

/* 0 < floor <= sitemap <= root <= 1 and 0 < decay < 1. */
ct_status ct_hierarchy_params_check(const struct ct_hierarchy_params *p,
				    struct ct_error *err)
{
	static const char *const name[] = {"root", "sitemap", "decay", "floor"};
	const double v[] = {p->root, p->sitemap, p->decay, p->floor};
	for (int i = 0; i < 4; i++)
		if (!unit(v[i]) || v[i] == 0.0)
			return ct_error_set(err, CT_ERANGE,
				"hierarchy.%s = %s: must be a number in (0, 1]",
				name[i], CT_NUM(v[i]));
	if (p->decay >= 1.0)
		return ct_error_set(err, CT_ERANGE,
			"hierarchy.decay = %s: must be below 1 (a link scores less "
			"than its source)", CT_NUM(p->decay));
	if (!(p->floor <= p->sitemap && p->sitemap <= p->root))
		return ct_error_set(err, CT_EINVAL,
			"hierarchy floor %s, sitemap %s, root %s: must satisfy "
			"floor <= sitemap <= root", CT_NUM(p->floor),
			CT_NUM(p->sitemap), CT_NUM(p->root));
	return CT_OK;
}

/* The new score from the rules, then max with the current one. */
ct_status ct_hierarchy_score(const struct ct_hierarchy_params *p,
			     const struct ct_hierarchy_input *in,
			     struct ct_hierarchy_result *out,
			     struct ct_error *err)
{
	if (!in->path || in->path[0] != '/')
		return ct_error_set(err, CT_EINVAL, "path '%.64s': a page path "
				    "starts with '/'", in->path ? in->path : "");
	if (!unit(in->current))
		return ct_error_set(err, CT_ERANGE,
			"current = %s: must be a number in 0..1",
			CT_NUM(in->current));
	if (!isnan(in->source_score) && !unit(in->source_score))
		return ct_error_set(err, CT_ERANGE,
			"sourceScore = %s: must be a number in 0..1",
			CT_NUM(in->source_score));
	if ((unsigned)in->source >= CT_SRC_COUNT)
		return ct_error_set(err, CT_EINVAL, "unknown source type %d",
				    (int)in->source);

	double s;
	out->reasons.n = 0;
	if (strcmp(in->path, "/") == 0) {
		s = p->root;
		ct_reasons_add(&out->reasons, CT_R_HIER_ROOT, s, 0, NULL);
	} else if (in->source == CT_SRC_SITEMAP) {
		s = p->sitemap;
		ct_reasons_add(&out->reasons, CT_R_HIER_SITEMAP, s, 0, NULL);
	} else if (in->source == CT_SRC_LINK && !isnan(in->source_score)) {
		s = p->decay * in->source_score;
		ct_reasons_add(&out->reasons, CT_R_HIER_LINK, p->decay,
			       in->source_score, in->source_path);
		if (s < p->floor) {
			s = p->floor;
			ct_reasons_add(&out->reasons, CT_R_HIER_LINK_FLOOR, s, 0, NULL);
		}
	} else if (in->source == CT_SRC_LINK) {
		s = p->floor;
		ct_reasons_add(&out->reasons, CT_R_HIER_UNKNOWN_SRC, s, 0, NULL);
	} else {
		s = p->floor;
		ct_reasons_add(&out->reasons, CT_R_HIER_OTHER, s, 0,
			       source_names[in->source]);
	}
	if (in->current > s) {
		s = in->current;
		ct_reasons_add(&out->reasons, CT_R_HIER_KEPT, s, 0, NULL);
	}
	out->score = s;
	return ct_result_guard(s, 0.0, 1.0, "hierarchy score",
			       "ct_hierarchy_params_check", err);
}
