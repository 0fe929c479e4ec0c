/* urlpath.h: turning a URL of a job's site into the page path the store
 * keeps (`crawltop enqueue`, `crawltop simulate`, `explain`, the prefixes
 * and patterns of boosts in the CLI and the console), and the C side of
 * the store's path rule (path_ok). No I/O, no allocation. */
#ifndef CRAWLTOP_URLPATH_H
#define CRAWLTOP_URLPATH_H

#include <stddef.h>

/* The store's limit on a path or URL in bytes: crawltop.max_url_bytes()
 * (data/sql/0001_schema.sql), for the checks made before connecting. */
#define URLPATH_MAX_BYTES 2048

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
 * control characters (urlpath_space_or_control), bytes that are not
 * UTF-8, and text or path longer than max bytes; the path made passes
 * urlpath_check. On a refusal why (whylen bytes) says what is wrong,
 * naming the foreign host for URLPATH_FOREIGN. */
enum urlpath_result urlpath_of(const char *text, size_t len, const char *domain,
			       int allow_path, size_t max, char *path,
			       size_t cap, char *why, size_t whylen);

/* A boost's path prefix or pattern (text, NUL-terminated; a pattern's
 * '*' stays) spelt as urlpath_of spells paths, so that it finds the paths
 * enqueue made: escapes normalised ("/caf%C3%A9" is "/café", "%1b" is
 * "%1B", "%7E" is "~"), invisible characters escaped ("%E2%80%8B"). Into
 * out (cap bytes: the store's limit, crawltop.max_url_bytes(), plus one).
 * 0, or -1 with why when text is not UTF-8, a '%' starts no %XX escape or
 * the result is longer than cap - 1 bytes. The
 * store checks the rest (a leading '/', no white space, ...). */
int urlpath_match(const char *text, char *out, size_t cap, char *why,
		  size_t whylen);

/* Why the len bytes at p are not a page path the store keeps, or 0 when
 * they are: the C side of SQL crawltop.path_ok() (data/sql/0001_schema.sql),
 * the one check `crawltop enqueue` and `crawltop simulate` make before
 * anything is written. A path starts with '/', is UTF-8, is at most max
 * bytes (crawltop.max_url_bytes()), holds no '#', no white space or
 * control character (urlpath_space_or_control) and no invisible one
 * (urlpath_hidden_at), and has no '.' or '..'
 * segment before its query. On a refusal (-1) why (whylen bytes) says
 * what is wrong, with the byte for a bad character. */
int urlpath_check(const char *p, size_t len, size_t max, char *why,
		  size_t whylen);

/* The byte offset of the first character of the UTF-8 text s (len bytes)
 * that path_ok's [[:space:][:cntrl:]] can match, or len when none: the
 * controls U+0000..U+001F and U+007F..U+009F (PostgreSQL's [:cntrl:] in
 * every locale) and Unicode white space (U+0020, U+00A0, U+1680,
 * U+2000..U+200A, U+2028, U+2029, U+202F, U+205F, U+3000: the union of
 * [:space:] under the C, glibc UTF-8 and ICU locales a database may have;
 * U+0009..U+000D and U+0085 are controls already). */
size_t urlpath_space_or_control(const char *s, size_t len);

/* 1 when the len bytes at s are well-formed UTF-8 (no overlongs, no
 * surrogates, nothing above U+10FFFF), else 0 with *bad at the first byte
 * of the first bad sequence. */
int urlpath_utf8_ok(const char *s, size_t len, size_t *bad);

/* The length in bytes (1 or 2) of the control character at s[i] (of len
 * bytes), or 0 when there is none: U+0000..U+001F, U+007F, and, in UTF-8
 * text (utf8 1), the C1 controls U+0080..U+009F (0xC2 0x80..0x9F). */
size_t urlpath_control_at(const char *s, size_t i, size_t len, int utf8);

/* The same, and in UTF-8 text also the length (2 to 4) of an invisible
 * character at s[i] (ct_char_invisible: a zero-width space, a bidi
 * override, ...): what a terminal must not be given as it is. */
size_t urlpath_hidden_at(const char *s, size_t i, size_t len, int utf8);

/* Bytes urlpath_shown writes at most, terminator included. */
#define URLPATH_SHOWN 256

/* text (len bytes) made safe to print in a message: at most max bytes of
 * it, control and invisible characters (urlpath_hidden_at; C1 and
 * invisible ones as their UTF-8 bytes; newlines too unless keep_newlines) and (when the text is not UTF-8) bytes above 0x7f
 * as \xNN, "..." when cut or when out (cap bytes) is full. A terminal
 * then shows the text and obeys none of it. */
void urlpath_escape(const char *text, size_t len, size_t max,
		    int keep_newlines, char *out, size_t cap);
/* urlpath_escape of at most 60 bytes, newlines escaped. */
void urlpath_shown(const char *text, size_t len, char out[URLPATH_SHOWN]);

#endif
