/* simgraph.c: the simulated site (simgraph.h). Paths live in an open
 * addressing hash table (FNV-1a, linear probing, at most half full); the
 * links are a compressed sparse row array built with one stable counting
 * sort of the edges by source page. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "lineread.h"
#include "simgraph.h"
#include "urlpath.h"

/* FNV-1a, 64 bits. */
static uint64_t hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

long simgraph_find(const struct simgraph *g, const char *path)
{
	if (!g->nslots)
		return -1;
	for (size_t i = hash(path) & (g->nslots - 1);; i = (i + 1) & (g->nslots - 1)) {
		size_t v = g->slot[i];
		if (v == 0)
			return -1;
		if (strcmp(g->path[v - 1], path) == 0)
			return (long)(v - 1);
	}
}

/* Double the table (or create it); -1 when out of memory. */
static int rehash(struct simgraph *g)
{
	size_t ns = g->nslots ? g->nslots * 2 : 1024;
	size_t *slot = calloc(ns, sizeof *slot);
	if (!slot)
		return -1;
	for (size_t k = 0; k < g->n; k++) {
		size_t i = hash(g->path[k]) & (ns - 1);
		while (slot[i])
			i = (i + 1) & (ns - 1);
		slot[i] = k + 1;
	}
	free(g->slot);
	g->slot = slot;
	g->nslots = ns;
	return 0;
}

/* Capacity of g->path (and, after a load, of g->first minus one). */
static size_t path_cap(size_t n)
{
	size_t c = 1024;
	while (c < n)
		c *= 2;
	return c;
}

long simgraph_intern(struct simgraph *g, const char *path)
{
	long found = simgraph_find(g, path);
	if (found >= 0)
		return found;
	if ((g->n + 1) * 2 > g->nslots && rehash(g) != 0)
		return -1;
	if (g->n == 0 || path_cap(g->n) == g->n) {
		size_t cap = path_cap(g->n + 1);
		char **p = realloc(g->path, cap * sizeof *p);
		if (!p)
			return -1;
		g->path = p;
		if (g->first) {
			size_t *f = realloc(g->first, (cap + 1) * sizeof *f);
			if (!f)
				return -1;
			g->first = f;
		}
	}
	char *copy = strdup(path);
	if (!copy)
		return -1;
	g->path[g->n] = copy;
	if (g->first)
		g->first[g->n + 1] = g->first[g->n]; /* no links */
	size_t i = hash(path) & (g->nslots - 1);
	while (g->slot[i])
		i = (i + 1) & (g->nslots - 1);
	g->slot[i] = g->n + 1;
	return (long)g->n++;
}

/* "FILE:LINE: what" into err; returns -1. */
static int fail(char *err, size_t len, const char *file, long line,
		const char *fmt, ...)
{
	char what[300];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	if (line)
		snprintf(err, len, "%s:%ld: %s", file, line, what);
	else
		snprintf(err, len, "%s: %s", file, what);
	return -1;
}

/* The next line of a list file (what: the format, for the message about
 * a NUL byte) that is neither blank nor a # comment, without its CR, at
 * *s; 1 there, 0 at the end of the file, -1 with err ("FILE:LINE: what")
 * when a line is longer than the limit, holds a NUL byte or cannot be
 * read: the file is refused, never taken as ending early. */
static int next_line(struct lineread *in, const char *file, const char *what,
		     char **s, char *err, size_t errlen)
{
	for (;;) {
		size_t n;
		char why[300];
		enum lineread_status st = lineread_next(in, s, &n);
		if (st == LINEREAD_EOF)
			return 0;
		if (st == LINEREAD_LONG)
			return fail(err, errlen, file, in->line, "%s",
				    lineread_what(in, st, why, sizeof why));
		if (st != LINEREAD_LINE)
			return fail(err, errlen, file, in->line + 1, "%s",
				    lineread_what(in, st, why, sizeof why));
		if (memchr(*s, '\0', n))
			return fail(err, errlen, file, in->line, "the line holds "
				    "a NUL byte: not %s (binary data?)", what);
		while (n && (*s)[n - 1] == '\r')
			(*s)[--n] = '\0';
		if (n && (*s)[0] != '#')
			return 1;
	}
}

/* The edges while loading: pairs of page indices in file order. */
struct edges {
	uint32_t *src, *dst;
	size_t n, cap;
};

/* Append the link s -> d; -1 when out of memory. */
static int edge_add(struct edges *e, uint32_t s, uint32_t d)
{
	if (e->n == e->cap) {
		size_t cap = e->cap ? e->cap * 2 : 4096;
		uint32_t *a = realloc(e->src, cap * sizeof *a);
		if (!a)
			return -1;
		e->src = a;
		uint32_t *b = realloc(e->dst, cap * sizeof *b);
		if (!b)
			return -1;
		e->dst = b;
		e->cap = cap;
	}
	e->src[e->n] = s;
	e->dst[e->n++] = d;
	return 0;
}

/* The CSR arrays from the edges: a stable counting sort by source. */
static int build(struct simgraph *g, const struct edges *e)
{
	size_t cap = path_cap(g->n);
	g->first = calloc(cap + 1, sizeof *g->first);
	g->link = malloc((e->n ? e->n : 1) * sizeof *g->link);
	if (!g->first || !g->link)
		return -1;
	for (size_t i = 0; i < e->n; i++)
		g->first[e->src[i] + 1]++;
	for (size_t i = 0; i < g->n; i++)
		g->first[i + 1] += g->first[i];
	size_t *at = malloc((g->n ? g->n : 1) * sizeof *at);
	if (!at)
		return -1;
	memcpy(at, g->first, g->n * sizeof *at);
	for (size_t i = 0; i < e->n; i++)
		g->link[at[e->src[i]]++] = e->dst[i];
	free(at);
	g->nlinks = e->n;
	return 0;
}

int simgraph_load(struct simgraph *g, const char *file, size_t max,
		  char *err, size_t errlen)
{
	simgraph_free(g);
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return fail(err, errlen, file, 0, "cannot open: %s",
			    strerror(errno));
	struct edges e = {0};
	struct lineread in;
	char *line;
	int rc;
	lineread_init(&in, fd, LINEREAD_MAX);
	while ((rc = next_line(&in, file, "a TSV edge list", &line, err,
			       errlen)) == 1) {
		long lineno = in.line;
		rc = 0;
		char *tab = strchr(line, '\t');
		if (!tab || strchr(tab + 1, '\t')) {
			rc = fail(err, errlen, file, lineno, "expected "
				  "'source-path<TAB>target-path'");
			break;
		}
		*tab = '\0';
		char why[200];
		if (urlpath_check(line, (size_t)(tab - line), max, why,
				  sizeof why) != 0 ||
		    urlpath_check(tab + 1, strlen(tab + 1), max, why,
				  sizeof why) != 0) {
			rc = fail(err, errlen, file, lineno, "%s", why);
			break;
		}
		long s = simgraph_intern(g, line), d = simgraph_intern(g, tab + 1);
		if (s < 0 || d < 0 || edge_add(&e, (uint32_t)s, (uint32_t)d) != 0) {
			rc = fail(err, errlen, file, lineno, "out of memory");
			break;
		}
	}
	if (rc == 0 && build(g, &e) != 0)
		rc = fail(err, errlen, file, 0, "out of memory");
	lineread_free(&in);
	free(e.src);
	free(e.dst);
	close(fd);
	if (rc != 0)
		simgraph_free(g);
	return rc;
}

int simgraph_load_list(struct simgraph *g, const char *file, size_t max,
		       long **idx, size_t *count, char *err, size_t errlen)
{
	*idx = NULL;
	*count = 0;
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return fail(err, errlen, file, 0, "cannot open: %s",
			    strerror(errno));
	struct lineread in;
	char *line;
	size_t icap = 0;
	int rc;
	lineread_init(&in, fd, LINEREAD_MAX);
	while ((rc = next_line(&in, file, "a list of paths", &line, err,
			       errlen)) == 1) {
		long lineno = in.line;
		rc = 0;
		char why[200];
		if (urlpath_check(line, strlen(line), max, why, sizeof why) != 0) {
			rc = fail(err, errlen, file, lineno, "%s", why);
			break;
		}
		if (*count == icap) {
			icap = icap ? icap * 2 : 256;
			long *p = realloc(*idx, icap * sizeof *p);
			if (!p) {
				rc = fail(err, errlen, file, lineno, "out of memory");
				break;
			}
			*idx = p;
		}
		long i = simgraph_intern(g, line);
		if (i < 0) {
			rc = fail(err, errlen, file, lineno, "out of memory");
			break;
		}
		(*idx)[(*count)++] = i;
	}
	lineread_free(&in);
	close(fd);
	if (rc != 0) {
		free(*idx);
		*idx = NULL;
		*count = 0;
	}
	return rc;
}

size_t simgraph_reachable(const struct simgraph *g, const long *seeds,
			  size_t n, int *depth)
{
	if (depth)
		for (size_t i = 0; i < g->n; i++)
			depth[i] = -1;
	if (g->n == 0)
		return 0;
	unsigned char *seen = calloc(g->n, 1);
	uint32_t *queue = malloc(g->n * sizeof *queue);
	size_t head = 0, tail = 0;
	if (!seen || !queue) {
		free(seen);
		free(queue);
		return 0;
	}
	for (size_t i = 0; i < n; i++)
		if (seeds[i] >= 0 && !seen[seeds[i]]) {
			seen[seeds[i]] = 1;
			queue[tail++] = (uint32_t)seeds[i];
			if (depth)
				depth[seeds[i]] = 0;
		}
	while (head < tail) {
		uint32_t p = queue[head++];
		for (size_t k = g->first[p]; k < g->first[p + 1]; k++)
			if (!seen[g->link[k]]) {
				seen[g->link[k]] = 1;
				queue[tail++] = g->link[k];
				if (depth)
					depth[g->link[k]] = depth[p] + 1;
			}
	}
	free(seen);
	free(queue);
	return tail;
}

void simgraph_free(struct simgraph *g)
{
	for (size_t i = 0; i < g->n; i++)
		free(g->path[i]);
	free(g->path);
	free(g->first);
	free(g->link);
	free(g->slot);
	memset(g, 0, sizeof *g);
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	return (x > y) - (x < y);
}

size_t simgraph_median_links(const struct simgraph *g)
{
	if (g->n == 0)
		return 0;
	size_t *d = malloc(g->n * sizeof *d);
	if (!d)
		return 0;
	for (size_t i = 0; i < g->n; i++)
		d[i] = g->first[i + 1] - g->first[i];
	qsort(d, g->n, sizeof *d, cmp_size);
	size_t m = d[g->n / 2];
	free(d);
	return m;
}

/* 0 article, 1 page, 2 hub. */
static int simgraph_kind(const struct simgraph *g, long i, size_t median)
{
	size_t d = i >= 0 && (size_t)i < g->n ? g->first[i + 1] - g->first[i]
					      : 0;
	if (d == 0 || 4 * d <= 3 * median)
		return 0;
	return d >= 2 * median ? 2 : 1;
}

const char *simgraph_type(const struct simgraph *g, long i, size_t median)
{
	static const char *const t[] = {"article", "page", "hub"};
	return t[simgraph_kind(g, i, median)];
}

const char *simgraph_link_method(const struct simgraph *g, long i,
				 size_t median)
{
	static const char *const m[] = {"article-link", "link", "hub-link"};
	return m[simgraph_kind(g, i, median)];
}
