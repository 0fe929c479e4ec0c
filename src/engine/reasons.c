/* reasons.c: reason codes to text.
 *
 * One table row per code: the argument pattern and the format. The seed
 * 004 strings are exact; the others follow SPEC.md's examples
 * ("Sitemap page", "Linked from / (0.8 x 1.000)", "Discovery bonus:
 * sitemap -10"). */
#include <stdio.h>
#include <string.h>

#include "cloc.h"
#include "crawltop/reasons.h"

enum args { A_NONE, A_A, A_S, A_SA, A_AB, A_SAB, A_ABS };

static const struct {
	enum args args;
	const char *fmt;
} reason_table[CT_R_COUNT] = {
	[CT_R_FRESH_RECENT] = {A_NONE, "Recently visited (<1h)"},
	[CT_R_FRESH_TODAY] = {A_NONE, "Visited today"},
	[CT_R_FRESH_STALE] = {A_NONE, "Not visited in 7+ days"},
	[CT_R_FRESH_NEVER] = {A_NONE, "Never visited"},
	[CT_R_FRESH_CHANGED] = {A_NONE, "Changed in last 24h"},
	[CT_R_FRESH_TOPIC] = {A_NONE, "High topic relevance"},
	[CT_R_FRESH_HUB] = {A_NONE, "Is a hub page"},
	[CT_R_FRESH_DEEP] = {A_NONE, "Deep URL"},
	[CT_R_HIER_ROOT] = {A_A, "Homepage (%.3f)"},
	[CT_R_HIER_SITEMAP] = {A_A, "Sitemap page (%.3f)"},
	[CT_R_HIER_LINK] = {A_SAB, "Linked from %s (%g x %.3f)"},
	[CT_R_HIER_LINK_FLOOR] = {A_A, "Raised to floor %.3f"},
	[CT_R_HIER_UNKNOWN_SRC] = {A_A, "Source page unknown: floor %.3f"},
	[CT_R_HIER_OTHER] = {A_SA, "Source %s: floor %.3f"},
	[CT_R_HIER_KEPT] = {A_A, "Kept higher current score %.3f"},
	[CT_R_FR_BASE] = {A_SAB, "Type %s weight %g + depth/bias %g"},
	[CT_R_FR_BASE_WEIGHT] = {A_A, "Base weight x%g"},
	[CT_R_FR_DISCOVERY] = {A_SA, "Discovery bonus: %s -%g"},
	[CT_R_FR_GAP] = {A_A, "Gap prediction -%g"},
	[CT_R_FR_CLUSTER] = {A_AB, "Cluster boost -%g (%g occurrences)"},
	[CT_R_FR_REUSE] = {A_A, "Knowledge reuse -%g"},
	[CT_R_FR_COST_FAST] = {A_AB, "Fast action (%g ms) -%g%%"},
	[CT_R_FR_COST_SLOW] = {A_AB, "Slow action (%g ms) +%g%%"},
	[CT_R_FR_TOTAL] = {A_SA, "Total prioritisation: %s %+.15g"},
	[CT_R_DISC_SUBSCORE] = {A_SAB, "%s %.2f x %.2f"},
	[CT_R_DISC_CLASS] = {A_S, "%s"},
	[CT_R_TIER] = {A_AB, "Job priority %g of %g"},
	[CT_R_FR_SEED] = {A_NONE, "Seed page: before every other page"},
	[CT_R_IMP_LINKS] = {A_A, "Linked from %g fetched pages"},
	[CT_R_IMP_CASH] = {A_AB, "Cash %.4g x %g pages discovered"},
};

static int format(const struct ct_reason *r, char *buf, size_t n);

int ct_reason_format(const struct ct_reason *r, char *buf, size_t n)
{
	locale_t loc = cloc_enter();
	int len = format(r, buf, n);
	cloc_leave(loc);
	return len;
}

/* ct_reason_format in the C locale. */
static int format(const struct ct_reason *r, char *buf, size_t n)
{
	if (!r || (unsigned)r->code >= CT_R_COUNT)
		return snprintf(buf, n, "?");
	const char *fmt = reason_table[r->code].fmt;
	/* a link's source path is optional (its score is known); no other
	 * reason is made without its string */
	const char *s = r->s ? r->s : r->code == CT_R_HIER_LINK ? "source page"
								 : "(none)";
	switch (reason_table[r->code].args) {
	case A_NONE: { /* constant text: no printf machinery */
		size_t len = strlen(fmt);
		if (n > 0) {
			size_t c = len < n - 1 ? len : n - 1;
			memcpy(buf, fmt, c);
			buf[c] = '\0';
		}
		return (int)len;
	}
	case A_A: return snprintf(buf, n, fmt, r->a);
	case A_S: return snprintf(buf, n, fmt, s);
	case A_SA: return snprintf(buf, n, fmt, s, r->a);
	case A_AB: return snprintf(buf, n, fmt, r->a, r->b);
	case A_SAB: return snprintf(buf, n, fmt, s, r->a, r->b);
	case A_ABS: return snprintf(buf, n, fmt, r->a, r->b, s);
	}
	return snprintf(buf, n, "?");
}
