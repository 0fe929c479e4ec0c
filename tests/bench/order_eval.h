/* order_eval.h: how well a crawl order collects a site's importance
 * (issue 23). A site is a directed graph of n pages, page i linking to
 * link[first[i] .. first[i + 1]) in page order (simgraph.h's arrays).
 *
 * Importance is the graph's PageRank (damping 0.85, a dangling page's
 * rank spread over every page, the whole graph). An order is a list of
 * distinct pages in fetch order; it is scored by the share of the total
 * PageRank collected as it goes. The baseline policies crawl as a real
 * crawler must: a page's links become known only once it is fetched,
 * the crawl starts from the seeds (the homepage, plus a sitemap's pages
 * where the policy is given one) and runs until the frontier is empty. */
#ifndef CRAWLTOP_ORDER_EVAL_H
#define CRAWLTOP_ORDER_EVAL_H

#include <stddef.h>
#include <stdint.h>

struct oe_graph {
	size_t n;
	const size_t *first;   /* n + 1 offsets */
	const uint32_t *link;  /* the targets */
};

/* PageRank of every page into pr[0..n): damping d, iterated until the
 * L1 change is under tol or after max_iter rounds; sums to 1. Returns the
 * rounds run, or -1 when out of memory. */
int oe_pagerank(const struct oe_graph *g, double d, double tol, int max_iter,
		double *pr);

enum oe_policy {
	OE_FIFO,      /* breadth first: the order pages were discovered */
	OE_BACKLINK,  /* most links from the pages fetched so far (Cho,
		       * Garcia-Molina, Page 1998) */
	OE_OPIC,      /* most cash: each fetched page passes its cash on to
		       * its links in equal shares (Abiteboul, Preda, Cobena
		       * 2003) */
	OE_ORACLE,    /* the highest true PageRank in the frontier */
	OE_PAGERANK,  /* the highest PageRank of the graph known so far
		       * (the pages discovered, the links of the pages
		       * fetched), computed again after every fetch (Cho,
		       * Garcia-Molina, Page 1998, "PageRank" ordering) */
	OE_MIXED,     /* crawltop's candidate for its importance mode (not
		       * published): the most links from the pages fetched
		       * so far plus cash x pages discovered, the cash
		       * OPIC's but that a link to a page already fetched
		       * passes its share on to that page's links one hop */
	OE_POLICY_N
};

/* The policy's name ("fifo", "backlink", "opic", "oracle", "pagerank",
 * "backlink+cash"). */
const char *oe_policy_name(enum oe_policy p);

/* Crawl g with policy p from seeds[0..nseeds) (discovered in that order;
 * a page given twice counts once), pr the PageRank (for the oracle).
 * Ties go to the page discovered first. The fetch order goes to
 * order[0..n); returns its length, or -1 when out of memory. */
long oe_crawl(const struct oe_graph *g, enum oe_policy p, const long *seeds,
	      size_t nseeds, const double *pr, long *order);

#define OE_SHARES 5 /* after 1, 5, 10, 20 and 50 % of the pages */
#define OE_TOP 10

struct oe_score {
	size_t fetched;            /* pages in the order */
	double share[OE_SHARES];   /* PageRank collected after each point */
	double auc;                /* mean share collected over n fetches:
				    * 0..1, 1 only if every page came first */
	long top_in;               /* fetches until all OE_TOP highest pages
				    * are in; -1: some never are */
};

/* The percentages of OE_SHARES: {1, 5, 10, 20, 50}. */
extern const int oe_share_points[OE_SHARES];

/* Score order[0..len) of pages of a graph of n pages with PageRank pr.
 * After k fetches the share is the PageRank of the first min(k, len)
 * pages; the point p % is k = ceil(p * n / 100). Returns -1 when a page
 * is out of range or given twice, or when out of memory. */
int oe_score(size_t n, const double *pr, const long *order, size_t len,
	     struct oe_score *out);

#endif
