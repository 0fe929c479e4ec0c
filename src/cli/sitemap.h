/* sitemap.h: a streaming reader of sitemaps.org XML sitemaps (libxml2's
 * xmlReader: no DOM, memory does not grow with the file).
 *
 * A <urlset> delivers the <loc> of every <url>, in file order, to a
 * callback. A <sitemapindex> names child sitemaps by <sitemap><loc>; each
 * is a local file found beside the index (no network): a relative file
 * name is taken relative to the index's directory, an http(s) URL by its
 * last path segment. A child may not be an index itself. Elements of the
 * sitemaps.org namespace (or of none) are read; elements of other
 * namespaces (image:, news:, ...) are skipped. */
#ifndef CRAWLTOP_SITEMAP_H
#define CRAWLTOP_SITEMAP_H

#include <stddef.h>

#define SITEMAP_NS "http://www.sitemaps.org/schemas/sitemap/0.9"

struct sitemap_opts {
	size_t max_loc; /* longest <loc> accepted, in bytes, after trimming */
	long max_urls;  /* most <url> entries, over an index and its children */
	/* the job's domain (host[:port]): an index's http(s) <loc> must name
	 * it (sitemaps.org: an index lists the sitemaps of its own host);
	 * NULL: not checked */
	const char *domain;
};

/* One <loc> of a <urlset>: len bytes at loc (NUL-terminated, white space
 * around it trimmed), found in file at line. Borrowed for the call.
 * Return 0 to go on; anything else stops the reading, and sitemap_read
 * returns that value (the callback keeps its own message). */
typedef int sitemap_loc_fn(void *ctx, const char *loc, size_t len,
			   const char *file, long line);

/* Read the sitemap at path ("-": standard input) and its children, giving
 * every <loc> to fn. Returns 0 when every one was delivered; -1 with err
 * (errlen bytes) saying "FILE:LINE: what" when a file cannot be read, is
 * not well-formed XML (libxml2's message and line), is not a sitemap, or
 * breaks a limit of o (a <loc> too long, too many URLs); or fn's non-zero
 * value. Locs delivered before a failure are not taken back: the caller
 * commits only after a 0. */
int sitemap_read(const char *path, const struct sitemap_opts *o,
		 sitemap_loc_fn *fn, void *ctx, char *err, size_t errlen);

/* Release libxml2's global state (once, when the program is done). */
void sitemap_done(void);

#endif
