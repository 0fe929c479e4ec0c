/* importance.c: the importance mode's score (include/crawltop/importance.h). */
#include <math.h>

#include "crawltop/importance.h"
#include "crawltop/scale.h"

static bool amount(double v)
{
	return isfinite(v) && v >= 0.0;
}

ct_status ct_importance_score(const struct ct_importance_input *in,
			      struct ct_importance_result *out,
			      struct ct_error *err)
{
	static const char *const name[] = {"inlinks", "cash", "discovered"};
	const double v[] = {in->inlinks, in->cash, in->discovered};
	for (int i = 0; i < 3; i++)
		if (!amount(v[i]))
			return ct_error_set(err, CT_ERANGE, "importance %s = %g: "
					    "it must be a finite number >= 0",
					    name[i], v[i]);
	out->reasons.n = 0;
	if (in->seed) {
		out->value = INFINITY;
		out->score = CT_SCORE_MAX;
		ct_reasons_add(&out->reasons, CT_R_FR_SEED, 0, 0, NULL);
		return CT_OK;
	}
	double cash = in->cash * in->discovered;
	out->value = in->inlinks + cash;
	/* a value past any crawl's (cash x discovered overflowing) is the
	 * top of the scale, not NaN */
	out->score = CT_SCORE_MAX * out->value / (out->value + CT_IMPORTANCE_HALF);
	if (!isfinite(out->score))
		out->score = CT_SCORE_MAX;
	ct_reasons_add(&out->reasons, CT_R_IMP_LINKS, in->inlinks, 0, NULL);
	ct_reasons_add(&out->reasons, CT_R_IMP_CASH, in->cash, in->discovered,
		       NULL);
	return CT_OK;
}

double ct_importance_share(double cash, size_t links)
{
	return links ? cash / (double)links : 0.0;
}
