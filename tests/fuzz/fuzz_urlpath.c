/* fuzz_urlpath.c: URL and path normalisation (src/store/urlpath.c), as
 * `crawltop enqueue`, `simulate`, `explain` and the console's boost
 * prompt use it, with the promises of urlpath.h checked:
 *   - a path urlpath_of makes passes urlpath_check and fits max;
 *   - it is a fixed point: read again as a path (allow_path), it gives
 *     itself, and as a boost prefix (urlpath_match) too, so that one page
 *     has one path and a prefix finds the paths enqueue made;
 *   - urlpath_escape writes no control byte (newlines only when kept)
 *     and stays inside its buffer, NUL-terminated.
 * The first input byte picks the job's domain, allow_path and the limit;
 * the rest is the text (not NUL-terminated, as a line of a file is). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "urlpath.h"

static const char *const domains[] = {
	"example.com", "example.com:8080", "[::1]:8443", "xn--caf-dma.example",
};

/* The path urlpath_of made from text, read again: the same path, as a
 * path (except one starting with "//", which urlpath_of refuses as a
 * path: it reads like a URL without its scheme), as a URL of the domain,
 * and as a boost prefix. */
static void check_fixed_point(const char *path, const char *domain,
			      size_t max)
{
	size_t n = strlen(path);
	char *again = malloc(max + 1), why[256], norm[URLPATH_MAX_BYTES + 1];
	char url[URLPATH_MAX_BYTES + 64];
	if (!again)
		abort();
	enum urlpath_result r;
	if (strncmp(path, "//", 2) != 0) {
		r = urlpath_of(path, n, domain, 1, max, again, max + 1, why,
			       sizeof why);
		FZ_CHECK(r == URLPATH_OK, "path '%s' refused when read again: "
			 "%s", path, why);
		FZ_CHECK(strcmp(again, path) == 0, "path '%s' read again is "
			 "'%s'", path, again);
	}
	int un = snprintf(url, sizeof url, "http://%s%s", domain, path);
	if (un > 0 && (size_t)un <= max) {
		r = urlpath_of(url, (size_t)un, domain, 0, max, again, max + 1,
			       why, sizeof why);
		FZ_CHECK(r == URLPATH_OK, "URL '%s' refused: %s", url, why);
		FZ_CHECK(strcmp(again, path) == 0, "URL '%s' is path '%s', "
			 "not '%s'", url, again, path);
	}
	free(again);
	if (n <= URLPATH_MAX_BYTES) {
		int m = urlpath_match(path, norm, sizeof norm, why, sizeof why);
		FZ_CHECK(m == 0, "path '%s' refused as a prefix: %s", path, why);
		FZ_CHECK(strcmp(norm, path) == 0,
			 "path '%s' as a prefix is '%s'", path, norm);
	}
}

/* out (cap bytes) as urlpath_escape promises it. */
static void check_escaped(const char *out, size_t cap, int keep_newlines)
{
	size_t n = strnlen(out, cap);
	FZ_CHECK(n < cap, "escape output not terminated in %zu bytes", cap);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)out[i];
		FZ_CHECK((c >= 0x20 && c != 0x7f) || (c == '\n' && keep_newlines),
			 "escape output holds byte 0x%02x at %zu", c, i);
	}
	if (urlpath_utf8_ok(out, n, NULL))
		for (size_t i = 0; i < n; i++)
			FZ_CHECK(!urlpath_hidden_at(out, i, n, 1) ||
				 (out[i] == '\n' && keep_newlines),
				 "escape output holds a hidden character at %zu",
				 i);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	unsigned flags = data[0];
	const char *domain = domains[flags & 3];
	int allow_path = (flags >> 2) & 1;
	size_t max = (flags & 0x18) == 0x18 ? 24 : URLPATH_MAX_BYTES;
	data++, size--;

	/* exactly the bytes of the text: a read past them is a report */
	char *text = malloc(size ? size : 1);
	if (!text)
		abort();
	if (size)
		memcpy(text, data, size);
	char *path = malloc(max + 1), why[256];
	if (!path)
		abort();
	enum urlpath_result r = urlpath_of(text, size, domain, allow_path, max,
					   path, max + 1, why, sizeof why);
	FZ_CHECK(r <= URLPATH_TOO_LONG, "result %d", (int)r);
	if (r == URLPATH_OK) {
		size_t n = strlen(path);
		FZ_CHECK(n <= max, "path of %zu bytes, max %zu", n, max);
		FZ_CHECK(urlpath_check(path, n, max, why, sizeof why) == 0,
			 "urlpath_of made '%s', which urlpath_check refuses: %s",
			 path, why);
		check_fixed_point(path, domain, max);
	} else {
		FZ_CHECK(strnlen(why, sizeof why) < sizeof why && why[0],
			 "refusal %d without a reason", (int)r);
	}
	free(path);

	/* the text as a path read from a file, and its pieces */
	size_t bad = 0;
	int ok = urlpath_utf8_ok(text, size, &bad);
	FZ_CHECK(ok || bad < size, "bad byte %zu of %zu", bad, size);
	size_t sp = urlpath_space_or_control(text, size);
	FZ_CHECK(sp <= size, "space at %zu of %zu", sp, size);
	for (size_t i = 0; i < size; i++) {
		size_t h = urlpath_hidden_at(text, i, size, ok);
		FZ_CHECK(h <= size - i, "hidden char of %zu bytes at %zu of %zu",
			 h, i, size);
	}
	if (urlpath_check(text, size, max, why, sizeof why) == 0)
		FZ_CHECK(ok && sp == size && size <= max && text[0] == '/',
			 "urlpath_check took what its pieces refuse");

	/* the prefix of a boost (a C string: up to the first NUL) */
	char *cstr = fz_strndup(data, size);
	char norm[URLPATH_MAX_BYTES + 1];
	size_t cap = (flags & 0x20) ? sizeof norm : 8;
	if (urlpath_match(cstr, norm, cap, why, sizeof why) == 0) {
		FZ_CHECK(strnlen(norm, cap) < cap, "match output not terminated");
		char again[URLPATH_MAX_BYTES + 1];
		FZ_CHECK(urlpath_match(norm, again, sizeof again, why,
				       sizeof why) == 0,
			 "prefix '%s' refused when read again: %s", norm, why);
		FZ_CHECK(strcmp(again, norm) == 0,
			 "prefix '%s' read again is '%s'", norm, again);
	}
	free(cstr);

	/* messages: escaped text in buffers of several sizes */
	static const size_t caps[] = {0, 1, 7, 8, 21, 64, URLPATH_SHOWN};
	int keep = (flags >> 6) & 1;
	size_t lim = (flags & 0x80) ? 60 : size;
	for (size_t k = 0; k < sizeof caps / sizeof caps[0]; k++) {
		char *out = malloc(caps[k] ? caps[k] : 1);
		if (!out)
			abort();
		urlpath_escape(text, size, lim, keep, out, caps[k]);
		if (caps[k] >= 8)
			check_escaped(out, caps[k], keep);
		free(out);
	}
	char shown[URLPATH_SHOWN];
	urlpath_shown(text, size, shown);
	check_escaped(shown, sizeof shown, 0);
	free(text);
	return 0;
}
