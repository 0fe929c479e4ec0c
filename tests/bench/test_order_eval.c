/* test_order_eval.c: PageRank, the baseline policies and the score of a
 * crawl order (order_eval.h) on graphs small enough to work out by
 * hand. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "order_eval.h"

/* A graph from an edge list of pairs, sources in order. */
struct tg {
	size_t first[16];
	uint32_t link[32];
	struct oe_graph g;
};

static void make(struct tg *t, size_t n, const int (*e)[2], size_t ne)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		t->first[i] = k;
		for (size_t j = 0; j < ne; j++)
			if ((size_t)e[j][0] == i)
				t->link[k++] = (uint32_t)e[j][1];
	}
	t->first[n] = k;
	t->g = (struct oe_graph){n, t->first, t->link};
}

static void pagerank_by_hand(void **state)
{
	(void)state;
	struct tg t;
	double pr[4];
	/* a star: the centre links to two pages that link back;
	 * a = 0.15/3 + 0.85 (2b), b = 0.15/3 + 0.85 a/2, a + 2b = 1 */
	static const int star[][2] = {{0, 1}, {0, 2}, {1, 0}, {2, 0}};
	make(&t, 3, star, 4);
	assert_true(oe_pagerank(&t.g, 0.85, 1e-14, 1000, pr) > 1);
	assert_true(fabs(pr[0] - 0.9 / 1.85) < 1e-9);
	assert_true(fabs(pr[1] - pr[2]) < 1e-12);
	assert_true(fabs(pr[0] + pr[1] + pr[2] - 1) < 1e-12);
	/* a dangling page spreads its rank over every page:
	 * a = 0.075 + 0.425 b, a + b = 1 */
	static const int dangling[][2] = {{0, 1}};
	make(&t, 2, dangling, 1);
	assert_true(oe_pagerank(&t.g, 0.85, 1e-14, 1000, pr) > 1);
	assert_true(fabs(pr[0] - 0.5 / 1.425) < 1e-9);
	assert_true(fabs(pr[1] - (1 - 0.5 / 1.425)) < 1e-9);
}

/* / links to 1, 2, 3; 1 to 4, 6, 7; 2 to 4; 3 to 5. */
static const int site[][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 4}, {1, 6},
			      {1, 7}, {2, 4}, {3, 5}};

static void policies_by_hand(void **state)
{
	(void)state;
	struct tg t;
	make(&t, 8, site, 8);
	double pr[8];
	long order[8];
	long home = 0;
	assert_true(oe_pagerank(&t.g, 0.85, 1e-14, 1000, pr) > 0);
	/* breadth first: the order of discovery */
	static const long fifo[] = {0, 1, 2, 3, 4, 6, 7, 5};
	assert_int_equal(oe_crawl(&t.g, OE_FIFO, &home, 1, pr, order), 8);
	assert_memory_equal(order, fifo, sizeof fifo);
	/* backlinks: 4 has two once 1 and 2 are fetched; ties by discovery */
	static const long back[] = {0, 1, 2, 4, 3, 6, 7, 5};
	assert_int_equal(oe_crawl(&t.g, OE_BACKLINK, &home, 1, pr, order), 8);
	assert_memory_equal(order, back, sizeof back);
	/* OPIC: 1's cash is split three ways, 3's goes whole to 5, so 5
	 * (1/3) comes before 6 and 7 (1/9 each) */
	static const long opic[] = {0, 1, 2, 4, 3, 5, 6, 7};
	assert_int_equal(oe_crawl(&t.g, OE_OPIC, &home, 1, pr, order), 8);
	assert_memory_equal(order, opic, sizeof opic);
	/* the oracle: every pick is the frontier's highest PageRank */
	assert_int_equal(oe_crawl(&t.g, OE_ORACLE, &home, 1, pr, order), 8);
	char done[8] = {0}, found[8] = {1};
	for (int k = 0; k < 8; k++) {
		for (int j = 0; j < 8; j++)
			if (found[j] && !done[j])
				assert_true(pr[j] <= pr[order[k]]);
		done[order[k]] = 1;
		for (size_t l = t.first[order[k]]; l < t.first[order[k] + 1]; l++)
			found[t.link[l]] = 1;
	}
	/* backlinks + cash x pages discovered: after /, 1 2 3 tie (one link,
	 * cash 1/3; 1 first); after 1, 2 and 3 (1 + 1/3 x 7) beat 4 6 7
	 * (1 + 1/9 x 7); after 2, 4 has 2 links and 4/9: 2 + 4/9 x 7 beats 3;
	 * then 3, whose whole cash makes 5 (1 + 1/3 x 8) beat 6 and 7 */
	static const long mixed[] = {0, 1, 2, 4, 3, 5, 6, 7};
	assert_int_equal(oe_crawl(&t.g, OE_MIXED, &home, 1, pr, order), 8);
	assert_memory_equal(order, mixed, sizeof mixed);
	/* a page a fetched page links to passes the share on: / links 1 and
	 * 2 (cash 1/2 each); 1 links back to / and to 3 and 4, so 2 gets
	 * 1/2 / 3 / 2 more (7/12) and leads 3 and 4 (1 + 1/6 x 5); 2's
	 * link 5 then gets all of 7/12: 1 + 7/12 x 6 beats 1 + 1/6 x 6 */
	static const int loop[][2] = {{0, 1}, {0, 2}, {1, 0}, {1, 3}, {1, 4},
				      {2, 5}};
	struct tg lg;
	make(&lg, 6, loop, 6);
	static const long mixed_back[] = {0, 1, 2, 5, 3, 4};
	assert_int_equal(oe_crawl(&lg.g, OE_MIXED, &home, 1, pr, order), 6);
	assert_memory_equal(order, mixed_back, sizeof mixed_back);
	/* a page no seed reaches is never fetched; seeds given twice count
	 * once */
	long seeds[] = {3, 3};
	assert_int_equal(oe_crawl(&t.g, OE_FIFO, seeds, 2, pr, order), 2);
	assert_int_equal(order[0], 3);
	assert_int_equal(order[1], 5);
}

/* The known graph's PageRank: every pick is the frontier page with the
 * highest PageRank of the graph known at that point (the pages
 * discovered, in discovery order; the links of the pages fetched), as
 * oe_pagerank computes it for that graph; a tie to the first discovered. */
static void pagerank_of_the_known_graph(void **state)
{
	(void)state;
	struct tg t;
	make(&t, 8, site, 8);
	double pr[8];
	long order[8], home = 0;
	assert_true(oe_pagerank(&t.g, 0.85, 1e-14, 1000, pr) > 0);
	assert_int_equal(oe_crawl(&t.g, OE_PAGERANK, &home, 1, pr, order), 8);
	long known[8] = {0}, at[8];
	size_t nk = 1;
	char done[8] = {0};
	for (int i = 0; i < 8; i++)
		at[i] = -1;
	at[0] = 0;
	for (int k = 0; k < 8; k++) {
		/* the known graph, its pages numbered in discovery order */
		size_t first[9];
		uint32_t link[32];
		size_t nl = 0;
		for (size_t i = 0; i < nk; i++) {
			first[i] = nl;
			long pg = known[i];
			if (done[pg])
				for (size_t l = t.first[pg]; l < t.first[pg + 1]; l++)
					link[nl++] = (uint32_t)at[t.link[l]];
		}
		first[nk] = nl;
		struct oe_graph kg = {nk, first, link};
		double est[8];
		assert_true(oe_pagerank(&kg, 0.85, 1e-12, 1000, est) > 0);
		size_t best = SIZE_MAX;
		for (size_t i = 0; i < nk; i++)
			if (!done[known[i]] && (best == SIZE_MAX || est[i] > est[best]))
				best = i;
		assert_int_equal(order[k], known[best]);
		done[order[k]] = 1;
		for (size_t l = t.first[order[k]]; l < t.first[order[k] + 1]; l++)
			if (at[t.link[l]] < 0) {
				at[t.link[l]] = (long)nk;
				known[nk++] = t.link[l];
			}
	}
}

static void score_by_hand(void **state)
{
	(void)state;
	const double pr[] = {0.4, 0.3, 0.2, 0.1};
	struct oe_score s;
	const long best[] = {0, 1, 2, 3}, worst[] = {3, 2, 1, 0};
	assert_int_equal(oe_score(4, pr, best, 4, &s), 0);
	assert_true(fabs(s.auc - 0.75) < 1e-12); /* (.4 + .7 + .9 + 1) / 4 */
	assert_true(fabs(s.share[0] - 0.4) < 1e-12); /* 1 % of 4: 1 page */
	assert_true(fabs(s.share[4] - 0.7) < 1e-12); /* 50 %: 2 pages */
	assert_int_equal(s.top_in, 4); /* fewer than ten pages: all four */
	assert_int_equal(s.fetched, 4);
	assert_int_equal(oe_score(4, pr, worst, 4, &s), 0);
	assert_true(fabs(s.auc - 0.5) < 1e-12);
	/* a crawl that stops keeps what it collected */
	assert_int_equal(oe_score(4, pr, best, 1, &s), 0);
	assert_true(fabs(s.auc - 0.4) < 1e-12);
	assert_int_equal(s.top_in, -1);
	/* a page twice, or not of the graph: refused */
	const long twice[] = {0, 0}, out[] = {4};
	assert_int_equal(oe_score(4, pr, twice, 2, &s), -1);
	assert_int_equal(oe_score(4, pr, out, 1, &s), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(pagerank_by_hand),
		cmocka_unit_test(policies_by_hand),
		cmocka_unit_test(pagerank_of_the_known_graph),
		cmocka_unit_test(score_by_hand),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
