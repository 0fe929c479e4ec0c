/* fuzz_sitemap.c: the sitemap reader (src/cli/sitemap.c, libxml2's
 * xmlTextReader) on files of the input's making, each <loc> then turned
 * into a page path as `crawltop enqueue --sitemap` does (urlpath_of for
 * the job's domain).
 *
 * The input holds up to four files cut at FZ_SEP lines: sitemap.xml (the
 * file named on the command line), then a.xml, b.xml and c.xml beside it,
 * which an index's <sitemap><loc>a.xml</loc> (or
 * https://example.com/b.xml) names.
 *
 * Checked: each <loc> is given as promised (NUL-terminated, len bytes,
 * trimmed, at most max_loc bytes, a line number), no more than max_urls
 * of them, and a failure says "FILE:LINE: what" or "FILE: what". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "sitemap.h"
#include "urlpath.h"

static const char *const names[FZ_MAX_PARTS] = {
	"sitemap.xml", "a.xml", "b.xml", "c.xml",
};

#define MAX_LOC 2048
#define MAX_URLS 200

struct seen {
	long urls;
	char path[MAX_LOC + 1];
};

/* sitemap_loc_fn: what enqueue's take() does with a <loc>, without the
 * batch. */
static int on_loc(void *ctx, const char *loc, size_t len, const char *file,
		  long line)
{
	struct seen *s = ctx;
	char why[256];
	FZ_CHECK(loc[len] == '\0' && strlen(loc) == len,
		 "<loc> of %zu bytes is %zu up to its NUL", len, strlen(loc));
	FZ_CHECK(len <= MAX_LOC, "<loc> of %zu bytes", len);
	FZ_CHECK(len > 0 && !strchr(" \t\r\n", loc[0]) &&
		 !strchr(" \t\r\n", loc[len - 1]),
		 "<loc> '%s' empty or not trimmed", loc);
	FZ_CHECK(file && file[0] && line > 0, "<loc> at '%s':%ld",
		 file ? file : "(null)", line);
	FZ_CHECK(++s->urls <= MAX_URLS, "%ld URLs, more than max_urls",
		 s->urls);
	urlpath_of(loc, len, "example.com", 0, MAX_LOC, s->path,
		   sizeof s->path, why, sizeof why);
	return 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fz_dir();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_part parts[FZ_MAX_PARTS];
	size_t n = fz_split(data, size, parts, FZ_MAX_PARTS);
	char path[1024], other[1024];
	for (size_t i = 0; i < FZ_MAX_PARTS; i++)
		if (i < n)
			fz_write(names[i], parts[i].data, parts[i].size,
				 i ? other : path, sizeof path);
		else
			fz_remove(names[i]);

	struct sitemap_opts o = {.max_loc = MAX_LOC, .max_urls = MAX_URLS,
				 .domain = "example.com"};
	static struct seen s;
	char err[512];
	err[0] = '\0';
	s.urls = 0;
	int rc = sitemap_read(path, &o, on_loc, &s, err, sizeof err);
	FZ_CHECK(rc == 0 || rc == -1, "sitemap_read returned %d", rc);
	if (rc != 0) {
		FZ_CHECK(strnlen(err, sizeof err) < sizeof err, "unterminated");
		FZ_CHECK(strncmp(err, fz_dir(), strlen(fz_dir())) == 0 &&
			 strstr(err, ": ") != NULL,
			 "message without its file: %s", err);
	}
	return 0;
}
