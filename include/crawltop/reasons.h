/* reasons.h: why a score is what it is.
 *
 * Every model returns, beside its value, the list of reasons that produced
 * it. Scoring must stay cheap (tens of millions of scores per second), so a
 * reason is recorded as a code with up to two numbers and one borrowed
 * string; ct_reason_format() turns it into text only when someone asks. */
#ifndef CRAWLTOP_REASONS_H
#define CRAWLTOP_REASONS_H

#include <stddef.h>

#include "export.h"

CT_BEGIN_DECLS

typedef enum ct_reason_code {
	/* seed 004, freshness: the strings are the seed's, exactly */
	CT_R_FRESH_RECENT,      /* "Recently visited (<1h)" */
	CT_R_FRESH_TODAY,       /* "Visited today" */
	CT_R_FRESH_STALE,       /* "Not visited in 7+ days" */
	CT_R_FRESH_NEVER,       /* "Never visited" */
	CT_R_FRESH_CHANGED,     /* "Changed in last 24h" */
	CT_R_FRESH_TOPIC,       /* "High topic relevance" */
	CT_R_FRESH_HUB,         /* "Is a hub page" */
	CT_R_FRESH_DEEP,        /* "Deep URL" */
	/* seed 000, hierarchy */
	CT_R_HIER_ROOT,         /* "Homepage" (a = score) */
	CT_R_HIER_SITEMAP,      /* "Sitemap page" (a = score) */
	CT_R_HIER_LINK,         /* "Linked from S (a x b)" (a = decay, b =
				   source score); s NULL: "source page" */
	CT_R_HIER_LINK_FLOOR,   /* "Raised to floor a" */
	CT_R_HIER_UNKNOWN_SRC,  /* "Source page unknown: floor a" */
	CT_R_HIER_OTHER,        /* "Source S: floor a" */
	CT_R_HIER_KEPT,         /* "Kept higher current score a" */
	/* seed 002, frontier */
	CT_R_FR_BASE,           /* "Type S weight a + depth/bias b" */
	CT_R_FR_BASE_WEIGHT,    /* "Base weight xa" */
	CT_R_FR_DISCOVERY,      /* "Discovery bonus: S -a" */
	CT_R_FR_GAP,            /* "Gap prediction -a" */
	CT_R_FR_CLUSTER,        /* "Cluster boost -a (b occurrences)" */
	CT_R_FR_REUSE,          /* "Knowledge reuse -a" */
	CT_R_FR_COST_FAST,      /* "Fast action (a ms) -b%" (b = factor x 100) */
	CT_R_FR_COST_SLOW,      /* "Slow action (a ms) +b%" (b = factor x 100) */
	CT_R_FR_TOTAL,          /* "Total prioritisation: S +a" */
	/* seed 003, discovery */
	CT_R_DISC_SUBSCORE,     /* "S a x b" (sub-score name, value, weight) */
	CT_R_DISC_CLASS,        /* "S" (class action) */
	/* tier */
	CT_R_TIER,              /* "Job priority a of b" */
	/* frontier, after the tier: values above stay as they were */
	CT_R_FR_SEED,           /* "Seed page: before every other page"
				   (frontier and importance) */
	/* importance (importance.h) */
	CT_R_IMP_LINKS,         /* "Linked from a fetched pages" */
	CT_R_IMP_CASH,          /* "Cash a x b pages discovered" */
	CT_R_COUNT
} ct_reason_code;

struct ct_reason {
	ct_reason_code code;
	double a, b;
	const char *s; /* borrowed: valid as long as the scored input or params */
};

#define CT_REASONS_MAX 12
struct ct_reasons {
	int n;
	struct ct_reason r[CT_REASONS_MAX];
};

/* Write the text of one reason into buf (snprintf semantics: returns the
 * length the full text needs, never writes more than n bytes). */
CT_API int ct_reason_format(const struct ct_reason *r, char *buf, size_t n);

/* Append a reason; silently keeps the first CT_REASONS_MAX (no model emits
 * more than 10). */
static inline void ct_reasons_add(struct ct_reasons *rs, ct_reason_code c,
				  double a, double b, const char *s)
{
	if (rs->n < CT_REASONS_MAX) {
		struct ct_reason *r = &rs->r[rs->n++];
		r->code = c;
		r->a = a;
		r->b = b;
		r->s = s;
	}
}

CT_END_DECLS

#endif
