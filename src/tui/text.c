/* text.c: numbers, durations, bars, sparklines and column-exact UTF-8
 * fitting for the console and the batch printer (text.h). */
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700
#endif
#include <langinfo.h>
#include <locale.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "crawltop/text.h"
#include "text.h"

void tx_locale(void)
{
	setlocale(LC_ALL, "");
	setlocale(LC_NUMERIC, "C");
}

static const struct tx_glyphs utf8_glyphs = {
	.utf8 = 1,
	.blocks = {" ", "\u258f", "\u258e", "\u258d", "\u258c", "\u258b",
		   "\u258a", "\u2589", "\u2588"},
	.spark = {"\u2581", "\u2582", "\u2583", "\u2584", "\u2585", "\u2586",
		  "\u2587", "\u2588"},
	.shade = {" ", "\u2591", "\u2592", "\u2593", "\u2588"},
	.hline = "\u2500",
	.ellipsis = "\u2026",
	.up = "\u25b2",
	.down = "\u25bc",
	.sel = "\u25b6",
	.dot = "\u00b7",
	.arrow = "\u2192",
};

static const struct tx_glyphs ascii_glyphs = {
	.utf8 = 0,
	.blocks = {" ", " ", " ", " ", "#", "#", "#", "#", "#"},
	.spark = {"_", "_", ".", "-", "-", "=", "^", "#"},
	.shade = {" ", ".", ":", "+", "#"},
	.hline = "-",
	.ellipsis = "~",
	.up = "^",
	.down = "v",
	.sel = ">",
	.dot = "|",
	.arrow = ">",
};

int tx_utf8_locale(void)
{
	const char *cs = nl_langinfo(CODESET);
	return cs && (strcmp(cs, "UTF-8") == 0 || strcmp(cs, "utf8") == 0);
}

char *tx_copy(char *dst, size_t len, const char *src)
{
	if (!len)
		return dst;
	size_t l = src ? strlen(src) : 0;
	if (l >= len) {
		l = len - 1;
		/* do not split a UTF-8 sequence */
		while (l > 0 && ((unsigned char)src[l] & 0xc0) == 0x80)
			l--;
	}
	if (l)
		memcpy(dst, src, l);
	dst[l] = '\0';
	return dst;
}

const struct tx_glyphs *tx_glyphs_get(int utf8)
{
	return utf8 ? &utf8_glyphs : &ascii_glyphs;
}

char *tx_count(char *buf, size_t len, long long n)
{
	double a = fabs((double)n);
	const char *sign = n < 0 ? "-" : "";
	if (a < 100000) {
		snprintf(buf, len, "%lld", n);
		return buf;
	}
	/* 100.0k..999.9k, 1.00M..99.99M, 100M..999M, then G, T, P, E
	 * alike; a value that rounds up to the next unit takes it (999,960
	 * is 1.00M, never "1000.0k") */
	static const char unit[] = "kMGTPE";
	double v = a / 1e3;
	for (int u = 0;; u++, v /= 1e3) {
		int dec = u == 0 ? 1 : v < 100 ? 2 : 0;
		char num[32];
		snprintf(num, sizeof num, "%.*f", dec, v);
		double r = strtod(num, NULL);
		if (dec == 2 && r >= 100) {
			dec = 0;
			snprintf(num, sizeof num, "%.0f", v);
			r = strtod(num, NULL);
		}
		if (r < 1000 || unit[u + 1] == '\0') {
			snprintf(buf, len, "%s%s%c", sign, num, unit[u]);
			return buf;
		}
	}
}

char *tx_rate(char *buf, size_t len, double r)
{
	if (!isfinite(r) || r <= 0)
		snprintf(buf, len, "0");
	else if (r < 10)
		snprintf(buf, len, "%.2f", r);
	else if (r < 1000)
		snprintf(buf, len, "%.1f", r);
	else if (r < 1e6)
		snprintf(buf, len, "%.1fk", r / 1e3);
	else
		snprintf(buf, len, "%.1fM", r / 1e6);
	return buf;
}

char *tx_dur(char *buf, size_t len, double s)
{
	if (!isfinite(s) || s < 0 || s >= 99 * 86400.0) {
		snprintf(buf, len, "-");
		return buf;
	}
	long t = (long)(s + 0.5);
	if (t < 60)
		snprintf(buf, len, "%lds", t);
	else if (t < 3600)
		snprintf(buf, len, "%ldm%02lds", t / 60, t % 60);
	else if (t < 86400)
		snprintf(buf, len, "%ldh%02ldm", t / 3600, t % 3600 / 60);
	else
		snprintf(buf, len, "%ldd%02ldh", t / 86400, t % 86400 / 3600);
	return buf;
}

/* Append s to buf (capacity len) at *at, if it fits. */
static void put(char *buf, size_t len, size_t *at, const char *s)
{
	size_t l = strlen(s);
	if (*at + l + 1 > len)
		return;
	memcpy(buf + *at, s, l + 1);
	*at += l;
}

char *tx_bar(char *buf, size_t len, double frac, int width, int pad,
	     const struct tx_glyphs *g)
{
	size_t at = 0;
	if (len)
		buf[0] = '\0';
	if (!isfinite(frac) || frac < 0)
		frac = 0;
	if (frac > 1)
		frac = 1;
	int eighths = (int)lround(frac * width * 8);
	for (int i = 0; i < width; i++) {
		int e = eighths - i * 8;
		e = e < 0 ? 0 : e > 8 ? 8 : e;
		if (!g->utf8)
			put(buf, len, &at, e >= 4 ? "#" : pad ? "." : " ");
		else
			put(buf, len, &at, e == 0 && pad ? "\u00b7" : g->blocks[e]);
	}
	return buf;
}

char *tx_spark(char *buf, size_t len, const double *v, int n, double max,
	       const struct tx_glyphs *g)
{
	size_t at = 0;
	if (len)
		buf[0] = '\0';
	if (max <= 0)
		for (int i = 0; i < n; i++)
			if (v[i] > max)
				max = v[i];
	for (int i = 0; i < n; i++) {
		int lv = 0;
		if (max > 0 && v[i] > 0)
			lv = 1 + (int)(v[i] / max * 6.999);
		if (lv > 7)
			lv = 7;
		put(buf, len, &at, g->spark[lv]);
	}
	return buf;
}

/* Decode one UTF-8 character at s: its code point into *cp and its length
 * (1..4); a bad sequence gives length 1 and cp -1. */
static int utf8_decode(const unsigned char *s, long *cp)
{
	unsigned c = s[0];
	int n;
	long v;
	if (c < 0x80) {
		*cp = c;
		return 1;
	} else if ((c & 0xe0) == 0xc0) {
		n = 2;
		v = c & 0x1f;
	} else if ((c & 0xf0) == 0xe0) {
		n = 3;
		v = c & 0x0f;
	} else if ((c & 0xf8) == 0xf0) {
		n = 4;
		v = c & 0x07;
	} else {
		*cp = -1;
		return 1;
	}
	for (int i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80) {
			*cp = -1;
			return 1;
		}
		v = v << 6 | (s[i] & 0x3f);
	}
	static const long min[] = {0, 0, 0x80, 0x800, 0x10000};
	if (v < min[n] || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff)) {
		*cp = -1;
		return 1;
	}
	*cp = v;
	return n;
}

/* Columns one decoded character takes, and whether it is shown as is. */
static int char_cols(long cp, int utf8, int *as_is)
{
	*as_is = 0;
	if (cp < 0 || cp < 0x20 || cp == 0x7f)
		return 1;
	if (cp < 0x80) {
		*as_is = 1;
		return 1;
	}
	/* a character that draws nothing or turns the text around (a
	 * right-to-left override) is shown as '?', as a control is */
	if (!utf8 || (cp >= 0x80 && cp < 0xa0) || ct_char_invisible((unsigned long)cp))
		return 1;
	int w = wcwidth((wchar_t)cp);
	if (w < 0)
		return 1;
	*as_is = 1;
	return w;
}

int tx_width(const char *src, int utf8)
{
	int cols = 0, as_is;
	const unsigned char *s = (const unsigned char *)(src ? src : "");
	while (*s) {
		long cp;
		s += utf8_decode(s, &cp);
		cols += char_cols(cp, utf8, &as_is);
	}
	return cols;
}

size_t tx_prefix(const char *src, int cols, int utf8)
{
	const unsigned char *s = (const unsigned char *)(src ? src : "");
	size_t at = 0;
	int w = 0, as_is;
	while (s[at]) {
		long cp;
		int n = utf8_decode(s + at, &cp);
		int cw = char_cols(cp, utf8, &as_is);
		if (w + cw > cols)
			break;
		w += cw;
		at += (size_t)n;
	}
	return at;
}

char *tx_fit(char *buf, size_t len, const char *src, int cols, int utf8,
	     int *used)
{
	const unsigned char *s = (const unsigned char *)(src ? src : "");
	size_t at = 0;
	int w = 0;
	if (len)
		buf[0] = '\0';
	if (cols < 0)
		cols = 0;
	int total = tx_width(src, utf8);
	int limit = total > cols ? cols - 1 : cols; /* room for the ellipsis */
	while (*s) {
		long cp;
		int as_is, n = utf8_decode(s, &cp);
		int cw = char_cols(cp, utf8, &as_is);
		if (w + cw > limit)
			break;
		if (as_is && at + n + 1 < len) {
			memcpy(buf + at, s, n);
			at += n;
		} else if (at + 2 < len) {
			buf[at++] = '?';
			cw = 1;
		} else {
			break;
		}
		buf[at] = '\0';
		w += cw;
		s += n;
	}
	if (total > cols && cols > 0) {
		put(buf, len, &at, tx_glyphs_get(utf8)->ellipsis);
		w++;
	}
	if (used)
		*used = w;
	return buf;
}

char *tx_fit_tail(char *buf, size_t len, const char *src, int cols,
		  int utf8, int *used)
{
	const unsigned char *s = (const unsigned char *)(src ? src : "");
	int total = tx_width(src, utf8);
	if (cols <= 1 || total <= cols)
		return tx_fit(buf, len, src, cols, utf8, used);
	/* drop characters from the start until the rest and the ellipsis
	 * fit */
	while (*s && total > cols - 1) {
		long cp;
		int as_is, n = utf8_decode(s, &cp);
		total -= char_cols(cp, utf8, &as_is);
		s += n;
	}
	size_t at = 0;
	if (len)
		buf[0] = '\0';
	put(buf, len, &at, tx_glyphs_get(utf8)->ellipsis);
	int w;
	tx_fit(buf + at, len - at, (const char *)s, cols - 1, utf8, &w);
	if (used)
		*used = w + 1;
	return buf;
}

char *tx_pad(char *buf, size_t len, const char *src, int cols, int utf8,
	     int right)
{
	char tmp[1024];
	int w;
	tx_fit(tmp, sizeof tmp, src, cols, utf8, &w);
	size_t at = 0;
	if (len)
		buf[0] = '\0';
	if (right)
		for (; w < cols; w++)
			put(buf, len, &at, " ");
	put(buf, len, &at, tmp);
	if (!right)
		for (; w < cols; w++)
			put(buf, len, &at, " ");
	return buf;
}

int tx_keep(const int *w, const int *prio, int n, int avail, int *keep)
{
	int used = 0;
	for (int i = 0; i < n; i++) {
		keep[i] = 1;
		used += w[i];
	}
	while (used > avail) {
		int drop = -1;
		for (int i = 0; i < n; i++)
			if (keep[i] && (drop < 0 || prio[i] <= prio[drop]))
				drop = i;
		if (drop < 0)
			break;
		keep[drop] = 0;
		used -= w[drop];
	}
	return used;
}
