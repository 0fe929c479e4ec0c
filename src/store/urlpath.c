/* urlpath.c: URL -> page path for one job's site (urlpath.h). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "crawltop/text.h"
#include "urlpath.h"

int urlpath_utf8_ok(const char *s, size_t len, size_t *bad)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;
	while (i < len) {
		unsigned c = p[i], cp, min;
		size_t n;
		if (c < 0x80) {
			i++;
			continue;
		} else if ((c & 0xE0) == 0xC0) {
			n = 1, cp = c & 0x1F, min = 0x80;
		} else if ((c & 0xF0) == 0xE0) {
			n = 2, cp = c & 0x0F, min = 0x800;
		} else if ((c & 0xF8) == 0xF0) {
			n = 3, cp = c & 0x07, min = 0x10000;
		} else {
			goto bad;
		}
		for (size_t k = 1; k <= n; k++) {
			if (i + k >= len || (p[i + k] & 0xC0) != 0x80)
				goto bad;
			cp = cp << 6 | (p[i + k] & 0x3F);
		}
		if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
			goto bad;
		i += n + 1;
	}
	return 1;
bad:
	if (bad)
		*bad = i;
	return 0;
}

/* The code point of the well-formed UTF-8 character at s (n bytes). */
static unsigned long decode(const unsigned char *s, size_t n)
{
	unsigned long cp = n == 1 ? s[0] : s[0] & (0x3F >> (n - 1));
	for (size_t k = 1; k < n; k++)
		cp = cp << 6 | (s[k] & 0x3F);
	return cp;
}

/* Bytes of the UTF-8 sequence whose lead byte is c. */
static size_t seq_len(unsigned char c)
{
	return c < 0xC0 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
}

/* Is the code point c one of urlpath_space_or_control's (urlpath.h)? */
static int space_or_control(unsigned long c)
{
	return c <= 0x20 || (c >= 0x7f && c <= 0xa0) || c == 0x1680 ||
	       (c >= 0x2000 && c <= 0x200a) || c == 0x2028 || c == 0x2029 ||
	       c == 0x202f || c == 0x205f || c == 0x3000;
}

size_t urlpath_space_or_control(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;
	while (i < len) {
		/* well-formed (checked first): decode it; a cut-off last
		 * sequence is no space or control */
		size_t n = seq_len(p[i]);
		if (i + n <= len && space_or_control(decode(p + i, n)))
			return i;
		i += n;
	}
	return len;
}

/* Does the path part of p (len bytes, up to the first '?') hold a '.' or
 * '..' segment (a '/' then '.' or '..', then '/', '?' or the end)? The
 * second regex of path_ok. */
static int has_dot_segment(const char *p, size_t len)
{
	const char *q = memchr(p, '?', len);
	size_t end = q ? (size_t)(q - p) : len;
	for (size_t i = 0; i < end; i++) {
		if (p[i] != '/')
			continue;
		size_t e = i + 1;
		while (e < end && p[e] != '/')
			e++;
		size_t n = e - i - 1;
		if ((n == 1 && p[i + 1] == '.') ||
		    (n == 2 && p[i + 1] == '.' && p[i + 2] == '.'))
			return 1;
	}
	return 0;
}

int urlpath_check(const char *p, size_t len, size_t max, char *why,
		  size_t whylen)
{
	size_t at;
	if (len == 0 || p[0] != '/') {
		snprintf(why, whylen, "a path starts with '/'");
		return -1;
	}
	if (len > max) {
		snprintf(why, whylen, "the path is %zu bytes, longer than the "
			 "store's limit of %zu bytes", len, max);
		return -1;
	}
	if (!urlpath_utf8_ok(p, len, &at)) {
		snprintf(why, whylen, "a path is UTF-8 text (the store keeps no "
			 "other): byte %zu is not", at + 1);
		return -1;
	}
	if ((at = urlpath_space_or_control(p, len)) < len) {
		snprintf(why, whylen, "a path holds no white space or control "
			 "character: byte %zu is one", at + 1);
		return -1;
	}
	for (at = 0; at < len; at++)
		if (urlpath_hidden_at(p, at, len, 1)) {
			snprintf(why, whylen, "a path holds no invisible character "
				 "(a zero-width space, a bidi control; escape it "
				 "as %%XX): byte %zu is one", at + 1);
			return -1;
		}
	const char *hash = memchr(p, '#', len);
	if (hash) {
		snprintf(why, whylen, "a path holds no '#' (byte %zu)",
			 (size_t)(hash - p) + 1);
		return -1;
	}
	if (has_dot_segment(p, len)) {
		snprintf(why, whylen, "a path has no '.' or '..' segment before "
			 "its query (\"/a/../b\" is \"/b\": write the page's own "
			 "path)");
		return -1;
	}
	return 0;
}

/* The port a URL of this scheme has when it names none. */
static long default_port(int https)
{
	return https ? 443 : 80;
}

/* Parse "host[:port]" (n bytes) into its host span and port (-1: none);
 * -1 when the port is not 1..65535 in digits. */
static int split_authority(const char *a, size_t n, size_t *hostlen, long *port)
{
	const char *colon = NULL;
	if (n && a[0] == '[') { /* IPv6 literal: the port follows ']' */
		const char *close = memchr(a, ']', n);
		if (!close)
			return -1;
		if ((size_t)(close - a) + 1 < n)
			colon = close + 1;
		if (colon && *colon != ':')
			return -1;
	} else {
		for (size_t i = n; i > 0; i--)
			if (a[i - 1] == ':') {
				colon = a + i - 1;
				break;
			}
	}
	*port = -1;
	*hostlen = colon ? (size_t)(colon - a) : n;
	if (!colon)
		return 0;
	size_t digits = n - *hostlen - 1;
	if (digits == 0 || digits > 5)
		return -1;
	long v = 0;
	for (size_t i = 0; i < digits; i++) {
		if (!isdigit((unsigned char)colon[1 + i]))
			return -1;
		v = v * 10 + (colon[1 + i] - '0');
	}
	if (v < 1 || v > 65535)
		return -1;
	*port = v;
	return 0;
}

/* RFC 3986's remove_dot_segments on the path part of path (up to '?'),
 * which starts with '/': "/a/./b/../c" is "/a/c", and ".." never climbs
 * above '/', so that one page has one path. In place: the result is
 * never longer than the text. */
static void remove_dots(char *path)
{
	const char *q = strchr(path, '?');
	size_t end = q ? (size_t)(q - path) : strlen(path), r = 0, w = 0;
	int dir = 0; /* the last segment was . or ..: the path names a dir */
	while (r < end) { /* path[r] is the '/' before a segment */
		size_t s = r + 1, e = s;
		while (e < end && path[e] != '/')
			e++;
		size_t n = e - s;
		if (n == 1 && path[s] == '.') {
			dir = 1;
		} else if (n == 2 && path[s] == '.' && path[s + 1] == '.') {
			while (w > 0 && path[--w] != '/')
				;
			dir = 1;
		} else {
			memmove(path + w + 1, path + s, n);
			path[w] = '/';
			w += n + 1;
			dir = 0;
		}
		r = e;
	}
	if (dir || w == 0)
		path[w++] = '/';
	memmove(path + w, path + end, strlen(path + end) + 1);
}

/* "%XX" for byte c at path + w (no terminator: the text after it is not
 * read yet); returns w past it. */
static size_t put_escape(char *path, size_t w, unsigned char c)
{
	static const char hex[] = "0123456789ABCDEF";
	path[w] = '%';
	path[w + 1] = hex[c >> 4];
	path[w + 2] = hex[c & 15];
	return w + 3;
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
	       : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* RFC 3986 6.2.2 and RFC 3987's IRI form, in place (never longer): an
 * escape of an unreserved character is that character ("%7E" is "~", "%2e"
 * is "."), escapes that spell a UTF-8 character are that character
 * ("caf%C3%A9" is "café", as the raw text is) unless it is invisible
 * (ct_char_invisible: "%E2%80%AE" stays, as RFC 3987 keeps bidi controls
 * out of IRIs), other escapes stay, in upper case ("%2f" is "%2F"). So the spellings of one page give one
 * path. A '%' without two hex digits after it is refused (-1, why). */
static int unescape(char *path, char *why, size_t whylen)
{
	size_t r = 0, w = 0, n = strlen(path);
	while (r < n) {
		if (path[r] != '%') {
			path[w++] = path[r++];
			continue;
		}
		int hi = r + 2 < n ? hexval(path[r + 1]) : -1;
		int lo = hi >= 0 ? hexval(path[r + 2]) : -1;
		if (hi < 0 || lo < 0) {
			snprintf(why, whylen, "the '%%' at byte %zu of its path "
				 "does not start a %%XX escape (write %%25 for a "
				 "'%%')", r + 1);
			return -1;
		}
		unsigned char c = (unsigned char)(hi << 4 | lo);
		if (c < 0x80) {
			if (isalnum(c) || (c && strchr("-._~", c)))
				path[w++] = (char)c;
			else
				w = put_escape(path, w, c);
			r += 3;
			continue;
		}
		/* a UTF-8 character spelt in escapes: its bytes, when they are
		 * all there and it is no space or control character */
		char ch[4];
		size_t k = 0, q = r;
		while (k < 4 && q + 2 < n && path[q] == '%' &&
		       hexval(path[q + 1]) >= 0 && hexval(path[q + 2]) >= 0) {
			ch[k++] = (char)(hexval(path[q + 1]) << 4 | hexval(path[q + 2]));
			q += 3;
		}
		size_t len = (unsigned char)ch[0] >= 0xF0 ? 4
			     : (unsigned char)ch[0] >= 0xE0 ? 3 : 2;
		if (k >= len && urlpath_utf8_ok(ch, len, NULL) &&
		    urlpath_space_or_control(ch, len) == len &&
		    !ct_char_invisible(decode((const unsigned char *)ch, len))) {
			memcpy(path + w, ch, len);
			w += len;
			r += 3 * len;
		} else {
			w = put_escape(path, w, c);
			r += 3;
		}
	}
	path[w] = '\0';
	return 0;
}

/* Bytes the n bytes of s take with their invisible characters as escapes
 * (put_escaped). */
static size_t escaped_len(const char *s, size_t n)
{
	size_t out = 0;
	for (size_t i = 0; i < n; i++) {
		size_t h = urlpath_hidden_at(s, i, n, 1);
		out += h ? 3 * h : 1;
		i += h ? h - 1 : 0;
	}
	return out;
}

/* The n bytes of s into out (escaped_len + 1 bytes), an invisible
 * character written as it is turned into its escapes, as unescape keeps
 * them: one path for both spellings. */
static void put_escaped(char *out, const char *s, size_t n)
{
	size_t w = 0;
	for (size_t i = 0; i < n; i++) {
		size_t h = urlpath_hidden_at(s, i, n, 1);
		if (!h) {
			out[w++] = s[i];
			continue;
		}
		for (size_t b = 0; b < h; b++)
			w = put_escape(out, w, (unsigned char)s[i + b]);
		i += h - 1;
	}
	out[w] = '\0';
}

int urlpath_match(const char *text, char *out, size_t cap, char *why,
		  size_t whylen)
{
	size_t n = strlen(text), bad, need;
	if (!urlpath_utf8_ok(text, n, &bad)) {
		snprintf(why, whylen, "byte %zu is not valid UTF-8", bad + 1);
		return -1;
	}
	if ((need = escaped_len(text, n)) + 1 > cap) {
		snprintf(why, whylen, "it is %zu bytes (with its escapes), more "
			 "than the %zu a path can have", need, cap - 1);
		return -1;
	}
	put_escaped(out, text, n);
	return unescape(out, why, whylen);
}

/* Copy prefix (may be "") and then n bytes of s into path as the result,
 * escapes normalised (unescape), without dot segments; URLPATH_TOO_LONG
 * past max or cap. */
static enum urlpath_result put_path(const char *prefix, const char *s, size_t n,
				    size_t max, char *path, size_t cap,
				    char *why, size_t whylen)
{
	size_t pl = strlen(prefix), out = pl + escaped_len(s, n);
	if (out > max || out + 1 > cap) {
		snprintf(why, whylen, "its path is %zu bytes, longer than the "
			 "store's limit of %zu bytes", out, max);
		return URLPATH_TOO_LONG;
	}
	memcpy(path, prefix, pl);
	put_escaped(path + pl, s, n);
	if (unescape(path, why, whylen) != 0)
		return URLPATH_INVALID;
	remove_dots(path);
	/* what the store keeps: the same check as a path read from a file */
	if (urlpath_check(path, strlen(path), max, why, whylen) != 0)
		return URLPATH_INVALID;
	return URLPATH_OK;
}

enum urlpath_result urlpath_of(const char *text, size_t len, const char *domain,
			       int allow_path, size_t max, char *path,
			       size_t cap, char *why, size_t whylen)
{
	size_t bad;
	if (len > max) {
		snprintf(why, whylen, "it is %zu bytes, longer than the store's "
			 "limit of %zu bytes", len, max);
		return URLPATH_TOO_LONG;
	}
	if (!urlpath_utf8_ok(text, len, &bad)) {
		snprintf(why, whylen, "byte %zu is not valid UTF-8", bad + 1);
		return URLPATH_INVALID;
	}
	if ((bad = urlpath_space_or_control(text, len)) < len) {
		snprintf(why, whylen, "it holds white space or a control "
			 "character (byte %zu)", bad + 1);
		return URLPATH_INVALID;
	}
	const char *hash = memchr(text, '#', len);
	size_t keep = hash ? (size_t)(hash - text) : len;

	if (allow_path && len && text[0] == '/') {
		if (len > 1 && text[1] == '/') {
			snprintf(why, whylen, "it starts with '//': give a full "
				 "URL or a path");
			return URLPATH_INVALID;
		}
		return put_path("", text, keep, max, path, cap, why, whylen);
	}
	int https;
	size_t skip;
	if (len >= 7 && strncasecmp(text, "http://", 7) == 0) {
		https = 0, skip = 7;
	} else if (len >= 8 && strncasecmp(text, "https://", 8) == 0) {
		https = 1, skip = 8;
	} else {
		snprintf(why, whylen, "it is not an http:// or https:// URL%s",
			 allow_path ? " nor a path starting with '/'" : "");
		return URLPATH_INVALID;
	}
	const char *a = text + skip;
	size_t an = 0;
	while (an < keep - skip && a[an] != '/' && a[an] != '?')
		an++;
	if (an == 0) {
		snprintf(why, whylen, "it has no host");
		return URLPATH_INVALID;
	}
	if (memchr(a, '@', an)) {
		snprintf(why, whylen, "user info (user@host) is not allowed");
		return URLPATH_INVALID;
	}
	size_t hl, dhl;
	long port, dport;
	if (split_authority(a, an, &hl, &port) != 0 || hl == 0) {
		snprintf(why, whylen, "'%.*s' is not a host[:port]", (int)an, a);
		return URLPATH_INVALID;
	}
	if (split_authority(domain, strlen(domain), &dhl, &dport) != 0)
		dhl = strlen(domain), dport = -1;
	if (port == default_port(https) && dport == -1)
		port = -1;
	if (dport == default_port(https) && port == -1)
		dport = -1;
	if (hl != dhl || strncasecmp(a, domain, hl) != 0 || port != dport) {
		snprintf(why, whylen, "its host '%.*s' is not the job's domain "
			 "'%s'", (int)an, a, domain);
		return URLPATH_FOREIGN;
	}
	const char *rest = a + an;
	size_t rn = keep - skip - an;
	return put_path(rn && rest[0] == '/' ? "" : "/", rest, rn, max, path,
			cap, why, whylen);
}

size_t urlpath_control_at(const char *s, size_t i, size_t len, int utf8)
{
	unsigned char c = (unsigned char)s[i];
	if (c < 0x20 || c == 0x7f)
		return 1;
	if (utf8 && c == 0xC2 && i + 1 < len && (unsigned char)s[i + 1] >= 0x80 &&
	    (unsigned char)s[i + 1] <= 0x9F)
		return 2;
	return 0;
}

size_t urlpath_hidden_at(const char *s, size_t i, size_t len, int utf8)
{
	size_t n = urlpath_control_at(s, i, len, utf8);
	if (n || !utf8)
		return n;
	n = seq_len((unsigned char)s[i]);
	if (n > 1 && i + n <= len &&
	    ct_char_invisible(decode((const unsigned char *)s + i, n)))
		return n;
	return 0;
}

void urlpath_escape(const char *text, size_t len, size_t max,
		    int keep_newlines, char *out, size_t cap)
{
	int utf8 = urlpath_utf8_ok(text, len, NULL);
	size_t lim = len > max ? max : len, k = 0;
	if (cap < 8) {
		if (cap)
			out[0] = '\0';
		return;
	}
	/* cut UTF-8 text at a character boundary */
	while (utf8 && lim < len && lim && ((unsigned char)text[lim] & 0xC0) == 0x80)
		lim--;
	size_t i = 0;
	for (; i < lim; i++) {
		unsigned char c = (unsigned char)text[i];
		size_t ctl = urlpath_hidden_at(text, i, lim, utf8);
		if (c == '\n' && keep_newlines)
			ctl = 0;
		if (!ctl && c >= 0x80 && !utf8)
			ctl = 1;
		/* room for this (16 bytes at most), "..." and the NUL */
		if (k + 16 + 4 > cap)
			break;
		if (ctl) {
			for (size_t b = 0; b < ctl; b++)
				k += (size_t)snprintf(out + k, cap - k, "\\x%02x",
						      (unsigned char)text[i + b]);
			i += ctl - 1;
		} else {
			out[k++] = (char)c;
		}
	}
	if (i < len) {
		/* do not leave half a UTF-8 character before the "..." */
		while (utf8 && k > 0 && i > 0 &&
		       ((unsigned char)text[i] & 0xC0) == 0x80) {
			k--;
			i--;
		}
		memcpy(out + k, "...", 3);
		k += 3;
	}
	out[k] = '\0';
}

void urlpath_shown(const char *text, size_t len, char out[URLPATH_SHOWN])
{
	urlpath_escape(text, len, 60, 0, out, URLPATH_SHOWN);
}
