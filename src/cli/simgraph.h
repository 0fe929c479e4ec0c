/* simgraph.h: the site graph `crawltop simulate` crawls: pages and their
 * links, read from a TSV edge list (data/sites/README.md: one link a
 * line, "source-path<TAB>target-path", each page's links in page order),
 * plus the sitemap format (one path a line). Pages are numbered in order
 * of first appearance; a page's links keep the file's order. */
#ifndef CRAWLTOP_SIMGRAPH_H
#define CRAWLTOP_SIMGRAPH_H

#include <stddef.h>
#include <stdint.h>

struct simgraph {
	size_t n;          /* pages */
	char **path;       /* n paths, owned */
	size_t *first;     /* n + 1 offsets: page i links to   */
	uint32_t *link;    /* link[first[i] .. first[i + 1]) */
	size_t nlinks;
	size_t *slot;      /* hash of paths: page index + 1, 0 = empty */
	size_t nslots;     /* a power of two */
};

/* Read the edge list in file into *g (emptied first). Paths must be
 * paths the store keeps, max bytes at most (urlpath_check: '/' first, no
 * white space, control character or '#', no '.' or '..' segment); blank
 * lines and # comments are skipped. -1 with err ("FILE:LINE:
 * what") on a refusal, or when the file cannot be read. */
int simgraph_load(struct simgraph *g, const char *file, size_t max,
		  char *err, size_t errlen);

/* Add a page (if new) without links, e.g. a sitemap path the edge list
 * does not name; its index, or -1 when out of memory. Only before or
 * after simgraph_load, never during. */
long simgraph_intern(struct simgraph *g, const char *path);

/* The index of the page at path, or -1. */
long simgraph_find(const struct simgraph *g, const char *path);

/* Read a sitemap list (one path a line, same rules) into a new array of
 * page indices of g (pages are added when new); *idx is the caller's to
 * free. -1 with err on a refusal. */
int simgraph_load_list(struct simgraph *g, const char *file, size_t max,
		       long **idx, size_t *n, char *err, size_t errlen);

/* How many pages are reachable by links from the n pages of seeds; when
 * depth is not NULL (g->n ints), each page's link depth from the nearest
 * seed goes there (a seed 0, -1 when unreachable). */
size_t simgraph_reachable(const struct simgraph *g, const long *seeds,
			  size_t n, int *depth);

/* The median number of links a page has (0 for an empty graph). */
size_t simgraph_median_links(const struct simgraph *g);

/* The page type simulate gives page i from its links, relative to the
 * graph's median (median): "hub" with at least twice as many, "article"
 * with at most three quarters as many (a leaf always), else "page". The
 * discovery method of a link found on page i: "hub-link", "article-link"
 * or "link" by the same rule. Static strings. */
const char *simgraph_type(const struct simgraph *g, long i, size_t median);

const char *simgraph_link_method(const struct simgraph *g, long i,
				 size_t median);

void simgraph_free(struct simgraph *g);

#endif
