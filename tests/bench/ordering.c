/* ordering.c: score crawl orders on a site graph (issue 23; ./dev bench
 * ordering drives it).
 *
 *   ordering GRAPH [--sitemap FILE] [--order NAME=FILE]...
 *            [--order-sitemap NAME=FILE]... [--markdown]
 *
 * GRAPH is a TSV edge list of data/sites/ (simgraph.h). The program
 * computes the graph's PageRank (damping 0.85), crawls it with the
 * baseline policies (order_eval.h: fifo, backlink, opic, pagerank of
 * the known graph, oracle) from
 * the homepage '/', and with --sitemap also from '/' plus the sitemap's
 * pages, and scores each crawl and each order file given (one path a
 * line, a page at most once, as `crawltop simulate --order-out` writes
 * it; --order-sitemap for an order that was given the sitemap): the
 * share of PageRank collected after 1, 5, 10, 20 and 50 % of the pages,
 * the AUC, the AUC as a share of the oracle's from the same seeds, and
 * the fetches until the ten highest pages are all in. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "order_eval.h"
#include "simgraph.h"

#define MAX_ORDERS 32
#define PATH_MAX_BYTES 2048

struct row {
	char name[64];
	const char *seeds; /* "/" or "/ + sitemap" */
	struct oe_score sc;
	double oracle_auc;
};

static void usage(void)
{
	fprintf(stderr, "usage: ordering GRAPH [--sitemap FILE] "
		"[--order NAME=FILE]... [--order-sitemap NAME=FILE]... "
		"[--markdown]\n");
	exit(2);
}

/* Read an order file into order[] (page indices of g); -1 with a message
 * on a path the graph does not have or a page given twice. */
static long read_order(const struct simgraph *g, const char *file,
		       long *order)
{
	FILE *f = fopen(file, "r");
	if (!f) {
		fprintf(stderr, "ordering: %s: %s\n", file, strerror(errno));
		return -1;
	}
	char *seen = calloc(g->n, 1);
	char line[PATH_MAX_BYTES + 2];
	long len = 0, lineno = 0;
	while (seen && fgets(line, sizeof line, f)) {
		lineno++;
		line[strcspn(line, "\r\n")] = '\0';
		if (!line[0])
			continue;
		long i = simgraph_find(g, line);
		if (i < 0 || seen[i]) {
			fprintf(stderr, "ordering: %s:%ld: %s %s\n", file, lineno,
				line, i < 0 ? "is not a page of the graph" :
				"comes twice");
			len = -1;
			break;
		}
		seen[i] = 1;
		order[len++] = i;
	}
	if (!seen)
		len = -1;
	free(seen);
	fclose(f);
	return len;
}

static void print_rows(const struct row *r, int n, int markdown)
{
	if (markdown)
		printf("| order | seeds | pages | @1%% | @5%% | @10%% | @20%% | "
		       "@50%% | AUC | of oracle | top 10 in |\n"
		       "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
	else
		printf("%-22s %-12s %6s %6s %6s %6s %6s %6s %6s %7s %6s\n",
		       "order", "seeds", "pages", "@1%", "@5%", "@10%", "@20%",
		       "@50%", "AUC", "oracle%", "top10");
	for (int i = 0; i < n; i++) {
		char top[24];
		if (r[i].sc.top_in < 0)
			snprintf(top, sizeof top, "never");
		else
			snprintf(top, sizeof top, "%ld", r[i].sc.top_in);
		double pct = r[i].oracle_auc > 0 ?
			     100 * r[i].sc.auc / r[i].oracle_auc : 0;
		const char *fmt = markdown ?
			"| %s | %s | %zu | %.3f | %.3f | %.3f | %.3f | %.3f | "
			"%.4f | %.1f %% | %s |\n" :
			"%-22s %-12s %6zu %6.3f %6.3f %6.3f %6.3f %6.3f %6.4f "
			"%6.1f%% %6s\n";
		printf(fmt, r[i].name, r[i].seeds, r[i].sc.fetched,
		       r[i].sc.share[0], r[i].sc.share[1], r[i].sc.share[2],
		       r[i].sc.share[3], r[i].sc.share[4], r[i].sc.auc, pct,
		       top);
	}
}

int main(int argc, char **argv)
{
	const char *graph = NULL, *sitemap = NULL;
	const char *orders[MAX_ORDERS];
	int order_map[MAX_ORDERS], norders = 0, markdown = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--sitemap") && i + 1 < argc)
			sitemap = argv[++i];
		else if ((!strcmp(argv[i], "--order") ||
			  !strcmp(argv[i], "--order-sitemap")) && i + 1 < argc &&
			 norders < MAX_ORDERS) {
			order_map[norders] = argv[i][7] == '-';
			orders[norders++] = argv[++i];
			if (!strchr(orders[norders - 1], '='))
				usage();
		} else if (!strcmp(argv[i], "--markdown"))
			markdown = 1;
		else if (argv[i][0] == '-' || graph)
			usage();
		else
			graph = argv[i];
	}
	if (!graph)
		usage();
	struct simgraph g;
	memset(&g, 0, sizeof g);
	char err[512];
	if (simgraph_load(&g, graph, PATH_MAX_BYTES, err, sizeof err) != 0) {
		fprintf(stderr, "ordering: %s\n", err);
		return 1;
	}
	long *smap = NULL;
	size_t nsmap = 0;
	if (sitemap && simgraph_load_list(&g, sitemap, PATH_MAX_BYTES, &smap,
					  &nsmap, err, sizeof err) != 0) {
		fprintf(stderr, "ordering: %s\n", err);
		return 1;
	}
	long home = simgraph_find(&g, "/");
	if (home < 0) {
		fprintf(stderr, "ordering: %s has no page /\n", graph);
		return 1;
	}
	/* seeds: '/' alone, then '/' and the sitemap */
	long *seeds = malloc((nsmap + 1) * sizeof *seeds);
	double *pr = malloc(g.n * sizeof *pr);
	long *order = malloc(g.n * sizeof *order);
	struct row rows[2 * OE_POLICY_N + MAX_ORDERS];
	if (!seeds || !pr || !order) {
		fprintf(stderr, "ordering: out of memory\n");
		return 1;
	}
	seeds[0] = home;
	if (nsmap)
		memcpy(seeds + 1, smap, nsmap * sizeof *smap);
	struct oe_graph og = {g.n, g.first, g.link};
	int rounds = oe_pagerank(&og, 0.85, 1e-12, 1000, pr);
	if (rounds < 0) {
		fprintf(stderr, "ordering: out of memory\n");
		return 1;
	}
	int nrows = 0;
	double oracle[2] = {0, 0};
	/* the oracle first: the others' rows say how close they come */
	static const enum oe_policy shown[OE_POLICY_N] = {OE_ORACLE,
		OE_PAGERANK, OE_OPIC, OE_BACKLINK, OE_FIFO, OE_MIXED};
	for (int with = 0; with <= (sitemap ? 1 : 0); with++)
		for (int k = 0; k < OE_POLICY_N; k++) {
			enum oe_policy p = shown[k];
			long len = oe_crawl(&og, p, seeds,
					    with ? nsmap + 1 : 1, pr, order);
			struct row *r = &rows[nrows++];
			snprintf(r->name, sizeof r->name, "%s",
				 oe_policy_name(p));
			r->seeds = with ? "/ + sitemap" : "/";
			if (len < 0 || oe_score(g.n, pr, order, (size_t)len,
						&r->sc) != 0) {
				fprintf(stderr, "ordering: out of memory\n");
				return 1;
			}
			if (p == OE_ORACLE)
				oracle[with] = r->sc.auc;
			r->oracle_auc = oracle[with];
		}
	for (int i = 0; i < norders; i++) {
		const char *eq = strchr(orders[i], '=');
		struct row *r = &rows[nrows];
		snprintf(r->name, sizeof r->name, "%.*s",
			 (int)(eq - orders[i]), orders[i]);
		long len = read_order(&g, eq + 1, order);
		if (len < 0)
			return 1;
		if (oe_score(g.n, pr, order, (size_t)len, &r->sc) != 0) {
			fprintf(stderr, "ordering: out of memory\n");
			return 1;
		}
		r->seeds = order_map[i] ? "/ + sitemap" : "/";
		r->oracle_auc = oracle[order_map[i] && sitemap ? 1 : 0];
		nrows++;
	}
	if (!markdown)
		printf("%s: %zu pages, %zu links, PageRank in %d rounds\n", graph,
		       g.n, g.nlinks, rounds);
	print_rows(rows, nrows, markdown);
	free(seeds);
	free(pr);
	free(order);
	free(smap);
	simgraph_free(&g);
	return 0;
}
