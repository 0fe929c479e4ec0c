/* urlpath.h: turning a URL of a job's site into the page path the store
 * keeps (`crawltop enqueue`, `crawltop simulate`). No I/O, no allocation. */
#ifndef CRAWLTOP_URLPATH_H
#define CRAWLTOP_URLPATH_H

#include <stddef.h>

/* Outcomes of urlpath_of. */
enum urlpath_result {
	URLPATH_OK = 0,
	URLPATH_INVALID,  /* not an http(s) URL (or a path, when allowed) */
	URLPATH_FOREIGN,  /* a URL of another host than the job's domain */
	URLPATH_TOO_LONG, /* longer than max bytes */
};

/* Turn text (len bytes, no NUL needed) into a page path in path (cap
 * bytes). text is an absolute http or https URL whose host (and port) is
 * domain (a lower-case host, optionally :port; the scheme's default port
 * matches a domain without one; the host compares case-insensitively), or
 * with allow_path a path starting with '/'. The fragment is dropped, the
 * query kept; an empty path is '/'; dot segments are resolved (RFC 3986:
 * "/a/./b/../c" is "/a/c", ".." stops at '/'). Refused: user info, white space or
 * control characters, bytes that are not UTF-8, and text or path longer
 * than max bytes. On a refusal why (whylen bytes) says what is wrong,
 * naming the foreign host for URLPATH_FOREIGN. */
enum urlpath_result urlpath_of(const char *text, size_t len, const char *domain,
			       int allow_path, size_t max, char *path,
			       size_t cap, char *why, size_t whylen);

/* 1 when the len bytes at s are well-formed UTF-8 (no overlongs, no
 * surrogates, nothing above U+10FFFF), else 0 with *bad at the first byte
 * of the first bad sequence. */
int urlpath_utf8_ok(const char *s, size_t len, size_t *bad);

/* Bytes urlpath_shown writes at most, terminator included. */
#define URLPATH_SHOWN 256

/* text (len bytes) made safe to print in a message: at most 60 bytes of
 * it, control characters and (when the text is not UTF-8) bytes above
 * 0x7f as \xNN, "..." when cut. */
void urlpath_shown(const char *text, size_t len, char out[URLPATH_SHOWN]);

#endif
