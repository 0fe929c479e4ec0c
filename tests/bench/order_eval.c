/* order_eval.c: PageRank, the baseline crawl policies and the score of a
 * crawl order (order_eval.h). Sites are small (thousands of pages): a
 * pick scans the frontier, which keeps each policy's rule plain to read. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "order_eval.h"

const int oe_share_points[OE_SHARES] = {1, 5, 10, 20, 50};

/* PageRank over the pages nodes[0..nn) of g (their ranks in pr[], by
 * page): the links of a page with linked[page] set (NULL: every page)
 * count, the other pages are dangling, a dangling page's rank spread over
 * the nn pages; every link must lead to one of them. Iterated until the
 * L1 change is under tol or after max_iter rounds; next[] is scratch (by
 * page). Returns the rounds run. */
static int pagerank_over(const struct oe_graph *g, const long *nodes,
			 size_t nn, const char *linked, double d, double tol,
			 int max_iter, double *pr, double *next)
{
	if (nn == 0)
		return 0;
	for (size_t k = 0; k < nn; k++)
		pr[nodes[k]] = 1.0 / (double)nn;
	int it = 0;
	while (it < max_iter) {
		it++;
		/* a dangling page's rank goes to every page alike */
		double dangling = 0;
		for (size_t k = 0; k < nn; k++) {
			long i = nodes[k];
			if ((linked && !linked[i]) || g->first[i + 1] == g->first[i])
				dangling += pr[i];
		}
		double base = (1 - d) / (double)nn + d * dangling / (double)nn;
		for (size_t k = 0; k < nn; k++)
			next[nodes[k]] = base;
		for (size_t k = 0; k < nn; k++) {
			long i = nodes[k];
			size_t out = g->first[i + 1] - g->first[i];
			if ((linked && !linked[i]) || out == 0)
				continue;
			double share = d * pr[i] / (double)out;
			for (size_t l = g->first[i]; l < g->first[i + 1]; l++)
				next[g->link[l]] += share;
		}
		double delta = 0;
		for (size_t k = 0; k < nn; k++) {
			long i = nodes[k];
			delta += fabs(next[i] - pr[i]);
			pr[i] = next[i];
		}
		if (delta < tol)
			break;
	}
	return it;
}

int oe_pagerank(const struct oe_graph *g, double d, double tol, int max_iter,
		double *pr)
{
	size_t n = g->n;
	if (n == 0)
		return 0;
	double *next = malloc(n * sizeof *next);
	long *all = malloc(n * sizeof *all);
	int it = -1;
	if (next && all) {
		for (size_t i = 0; i < n; i++)
			all[i] = (long)i;
		it = pagerank_over(g, all, n, NULL, d, tol, max_iter, pr, next);
	}
	free(next);
	free(all);
	return it;
}

const char *oe_policy_name(enum oe_policy p)
{
	static const char *const names[OE_POLICY_N] = {"fifo", "backlink",
		"opic", "oracle", "pagerank", "backlink+cash"};
	return p < OE_POLICY_N ? names[p] : "?";
}

long oe_crawl(const struct oe_graph *g, enum oe_policy p, const long *seeds,
	      size_t nseeds, const double *pr, long *order)
{
	size_t n = g->n;
	long *seq = malloc(n * sizeof *seq);     /* discovery order, -1 */
	double *key = calloc(n, sizeof *key);    /* the policy's priority */
	long *front = malloc(n * sizeof *front); /* discovered, not fetched */
	char *done = calloc(n, 1);               /* fetched */
	long *known = malloc(n * sizeof *known); /* discovered, in order */
	double *next = malloc(n * sizeof *next);
	size_t nk = 0;
	long len = -1;
	if (!seq || !key || !front || !done || !known || !next)
		goto out;
	for (size_t i = 0; i < n; i++)
		seq[i] = -1;
	long nseq = 0;
	size_t nfront = 0;
	for (size_t s = 0; s < nseeds; s++) {
		long i = seeds[s];
		if (i < 0 || (size_t)i >= n || seq[i] >= 0)
			continue;
		seq[i] = nseq++;
		front[nfront++] = i;
		known[nk++] = i;
	}
	/* OPIC: the seeds share one unit of cash (the mixed policy keeps its
	 * cash in next[], its backlinks in key[]) */
	double *cash = p == OE_MIXED ? next : key;
	if (p == OE_MIXED)
		memset(next, 0, n * sizeof *next);
	if (p == OE_OPIC || p == OE_MIXED)
		for (size_t f = 0; f < nfront; f++)
			cash[front[f]] = 1.0 / (double)nfront;
	if (p == OE_ORACLE)
		for (size_t i = 0; i < n; i++)
			key[i] = pr[i];
	len = 0;
	while (nfront > 0) {
		/* the known graph: the pages discovered, the links of the
		 * pages fetched (they lead to pages discovered) */
		if (p == OE_PAGERANK)
			pagerank_over(g, known, nk, done, 0.85, 1e-12, 1000, key,
				      next);
		/* the best of the frontier; a tie to the first discovered */
		size_t best = 0;
		double kb = 0;
		for (size_t f = 0; f < nfront; f++) {
			long a = front[f];
			double ka = p == OE_MIXED ?
				    key[a] + cash[a] * (double)nseq : key[a];
			if (f == 0 || ka > kb ||
			    (ka == kb && seq[a] < seq[front[best]])) {
				best = f;
				kb = ka;
			}
		}
		long page = front[best];
		front[best] = front[--nfront];
		order[len++] = page;
		done[page] = 1;
		size_t out = g->first[page + 1] - g->first[page];
		double given = cash[page];
		for (size_t k = g->first[page]; k < g->first[page + 1]; k++) {
			long q = g->link[k];
			size_t qout = g->first[q + 1] - g->first[q];
			if (done[q] && p == OE_MIXED && qout > 0)
				/* fetched: its share goes on to its links */
				for (size_t l = g->first[q]; l < g->first[q + 1]; l++)
					if (!done[g->link[l]])
						cash[g->link[l]] += given /
							(double)out / (double)qout;
			if (done[q])
				continue; /* fetched: nothing more to give it */
			if (seq[q] < 0) {
				seq[q] = nseq++;
				front[nfront++] = q;
				known[nk++] = q;
			}
			if (p == OE_BACKLINK || p == OE_MIXED)
				key[q] += 1;
			if (p == OE_OPIC || p == OE_MIXED)
				cash[q] += given / (double)out;
		}
	}
out:
	free(seq);
	free(key);
	free(front);
	free(done);
	free(known);
	free(next);
	return len;
}

int oe_score(size_t n, const double *pr, const long *order, size_t len,
	     struct oe_score *out)
{
	memset(out, 0, sizeof *out);
	out->top_in = -1;
	if (len > n)
		return -1;
	char *seen = calloc(n ? n : 1, 1);
	double *cum = malloc((len + 1) * sizeof *cum); /* after k fetches */
	if (!seen || !cum) {
		free(seen);
		free(cum);
		return -1;
	}
	cum[0] = 0;
	for (size_t k = 0; k < len; k++) {
		long i = order[k];
		if (i < 0 || (size_t)i >= n || seen[i]) {
			free(seen);
			free(cum);
			return -1;
		}
		seen[i] = 1;
		cum[k + 1] = cum[k] + pr[i];
	}
	out->fetched = len;
	for (int s = 0; s < OE_SHARES; s++) {
		size_t k = ((size_t)oe_share_points[s] * n + 99) / 100;
		out->share[s] = cum[k < len ? k : len];
	}
	double sum = 0;
	for (size_t k = 1; k <= n; k++)
		sum += cum[k < len ? k : len];
	out->auc = n ? sum / (double)n : 0;
	/* the OE_TOP highest pages: each one's place in the order */
	long top[OE_TOP];
	int ntop = 0;
	for (size_t i = 0; i < n; i++) {
		/* insert i among the best so far (a tie to the lower index) */
		int at = ntop;
		while (at > 0 && pr[top[at - 1]] < pr[i])
			at--;
		if (at >= OE_TOP)
			continue;
		if (ntop < OE_TOP)
			ntop++;
		memmove(top + at + 1, top + at,
			(size_t)(ntop - 1 - at) * sizeof *top);
		top[at] = (long)i;
	}
	long last = 0;
	for (int t = 0; t < ntop && last >= 0; t++) {
		long place = -1;
		for (size_t k = 0; k < len && place < 0; k++)
			if (order[k] == top[t])
				place = (long)k + 1;
		last = place < 0 ? -1 : place > last ? place : last;
	}
	out->top_in = last;
	free(seen);
	free(cum);
	return 0;
}
