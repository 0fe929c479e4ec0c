/* importance.h: the importance mode's score (issue 23), 0..100, higher
 * first (SPEC.md's one scale).
 *
 * A page gains importance with every link found to it:
 *
 *     value = inlinks + cash x discovered
 *     score = 100 x value / (value + CT_IMPORTANCE_HALF)
 *
 * inlinks counts the links to the page from pages fetched so far (Cho,
 * Garcia-Molina, Page 1998, "backlink count"); cash is OPIC's (Abiteboul,
 * Preda, Cobena 2003): a fetched page passes the cash it holds on to the
 * links it gives, in equal shares (ct_importance_share), and a page that
 * comes in without a source page (the homepage, a sitemap, a URL list) gets
 * one page's mean share, 1 / the pages discovered (the first page of a
 * crawl one unit); discovered is the number of pages the job had
 * discovered when the
 * value was computed, which counts cash in units of a page's mean share
 * (the cash of n pages sums to about one unit, so cash x n is about 1 for a
 * page of average standing). A seed page (the homepage "/", or a page found
 * by the discovery method "seed") scores 100: it comes before every other
 * page, as in every mode.
 *
 * The score only rises as links come in (inlinks, cash and discovered only
 * grow), so a store can keep it in an index and raise it in place.
 * CT_IMPORTANCE_HALF places the value on the 0..100 scale (a value of 10
 * scores 50); the order of two pages does not depend on it. */
#ifndef CRAWLTOP_IMPORTANCE_H
#define CRAWLTOP_IMPORTANCE_H

#include <stdbool.h>
#include <stddef.h>

#include "export.h"
#include "reasons.h"
#include "status.h"

CT_BEGIN_DECLS

#define CT_IMPORTANCE_HALF 10.0

struct ct_importance_input {
	double inlinks;    /* links in from fetched pages, >= 0 */
	double cash;       /* OPIC cash received, >= 0 */
	double discovered; /* pages the job had discovered, >= 0 */
	bool seed;         /* "/" or discovery method "seed": scores 100 */
};

struct ct_importance_result {
	double score; /* 0..100 */
	double value; /* inlinks + cash x discovered (infinite for a seed) */
	struct ct_reasons reasons;
};

/* CT_ERANGE for a negative, infinite or NaN input. */
CT_API ct_status ct_importance_score(const struct ct_importance_input *in,
				     struct ct_importance_result *out,
				     struct ct_error *err);

/* The cash one of `links` links of a page holding `cash` passes on:
 * cash / links (0 for no links). */
CT_API double ct_importance_share(double cash, size_t links);

CT_END_DECLS

#endif
