/* fuzz_sitegraph.c: the site graph `crawltop simulate` crawls
 * (src/cli/simgraph.c): a TSV edge list and a sitemap list of the input's
 * making, loaded and then used as cmd_simulate.c uses them (the sitemap's
 * new pages and '/' interned after the load, pages reachable from them).
 *
 * The input holds two files cut at an FZ_SEP line: graph.tsv, then
 * (optional) sitemap.txt.
 *
 * Checked: a refusal says "FILE:LINE: what" or "FILE: what"; a graph
 * that loads is consistent: every page found under its own path, links
 * that name pages, offsets that rise to nlinks, each page's links within
 * them; the depths of the pages reached agree with the count. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "simgraph.h"
#include "urlpath.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fz_dir();
	return 0;
}

/* g as simgraph.h describes it. */
static void check_graph(const struct simgraph *g)
{
	char why[256];
	FZ_CHECK(g->first[0] == 0, "first[0] = %zu", g->first[0]);
	for (size_t i = 0; i < g->n; i++) {
		FZ_CHECK(simgraph_find(g, g->path[i]) == (long)i,
			 "page %zu '%s' found as %ld", i, g->path[i],
			 simgraph_find(g, g->path[i]));
		FZ_CHECK(urlpath_check(g->path[i], strlen(g->path[i]),
				       URLPATH_MAX_BYTES, why, sizeof why) == 0,
			 "page '%s' kept: %s", g->path[i], why);
		FZ_CHECK(g->first[i] <= g->first[i + 1] &&
			 g->first[i + 1] <= g->nlinks,
			 "page %zu links [%zu, %zu) of %zu", i, g->first[i],
			 g->first[i + 1], g->nlinks);
		for (size_t k = g->first[i]; k < g->first[i + 1]; k++)
			FZ_CHECK(g->link[k] < g->n, "link %zu to page %u of %zu",
				 k, g->link[k], g->n);
	}
	FZ_CHECK(g->first[g->n] == g->nlinks, "first[n] = %zu, %zu links",
		 g->first[g->n], g->nlinks);
}

/* err names file first. */
static void check_refusal(const char *err, const char *file)
{
	FZ_CHECK(strncmp(err, file, strlen(file)) == 0 &&
		 err[strlen(file)] == ':', "message without its file: %s", err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_part parts[2];
	size_t nparts = fz_split(data, size, parts, 2);
	char graph[1024], list[1024], err[700];
	fz_write("graph.tsv", parts[0].data, parts[0].size, graph, sizeof graph);
	if (nparts > 1)
		fz_write("sitemap.txt", parts[1].data, parts[1].size, list,
			 sizeof list);

	struct simgraph g = {0};
	err[0] = '\0';
	if (simgraph_load(&g, graph, URLPATH_MAX_BYTES, err, sizeof err) != 0) {
		check_refusal(err, graph);
		FZ_CHECK(g.n == 0 && g.path == NULL, "refused graph kept pages");
		return 0;
	}
	check_graph(&g);
	size_t in_graph = g.n;
	long *smap = NULL;
	size_t nsmap = 0;
	if (nparts > 1 && simgraph_load_list(&g, list, URLPATH_MAX_BYTES, &smap,
					     &nsmap, err, sizeof err) != 0) {
		check_refusal(err, list);
		FZ_CHECK(smap == NULL && nsmap == 0, "refused list kept");
	}
	for (size_t i = 0; i < nsmap; i++)
		FZ_CHECK(smap[i] >= 0 && (size_t)smap[i] < g.n,
			 "sitemap page %ld of %zu", smap[i], g.n);
	long root = simgraph_intern(&g, "/");
	FZ_CHECK(root >= 0, "'/' not interned");
	FZ_CHECK(g.n >= in_graph, "pages lost");
	check_graph(&g);

	long *seeds = malloc((nsmap + 1) * sizeof *seeds);
	int *depth = malloc((g.n ? g.n : 1) * sizeof *depth);
	if (!seeds || !depth)
		abort();
	seeds[0] = root;
	if (nsmap)
		memcpy(seeds + 1, smap, nsmap * sizeof *seeds);
	size_t reach = simgraph_reachable(&g, seeds, nsmap + 1, depth);
	size_t with_depth = 0;
	for (size_t i = 0; i < g.n; i++)
		if (depth[i] >= 0)
			with_depth++;
	FZ_CHECK(reach == with_depth && reach >= 1 && reach <= g.n,
		 "%zu reached, %zu with a depth, %zu pages", reach, with_depth,
		 g.n);
	FZ_CHECK(depth[root] == 0, "'/' at depth %d", depth[root]);
	free(depth);
	free(seeds);
	free(smap);
	simgraph_free(&g);
	return 0;
}
