/* text.h: the console's text helpers: numbers, durations, bars,
 * sparklines, and fitting UTF-8 strings into a number of columns.
 *
 * No curses here: the batch printer and the unit tests use these too. All
 * functions write into a caller's buffer and always NUL-terminate it. */
#ifndef CT_TUI_TEXT_H
#define CT_TUI_TEXT_H

#include <stddef.h>

/* The glyphs of one character set: UTF-8 block elements, or ASCII. */
struct tx_glyphs {
	int utf8;
	const char *blocks[9]; /* horizontal bar eighths, 0 (space) .. 8 (full) */
	const char *spark[8];  /* sparkline levels, lowest first */
	const char *shade[5];  /* heatmap shading, empty .. densest */
	const char *hline;     /* one column of a horizontal rule */
	const char *ellipsis;  /* one column: text was cut */
	const char *up, *down; /* sort direction marks, one column each */
	const char *sel;       /* selected-row mark, one column */
	const char *dot;       /* a separator, one column */
	const char *arrow;     /* "becomes", one column */
};

/* The user's locale for characters (UTF-8 or not, wide characters), the
 * C locale for numbers: the console reads numbers from the database and
 * from the operator, and writes them to it and to JSON, in one syntax
 * ("0.35", never "0,35"). The console and the batch printer call it first. */
void tx_locale(void);

/* Whether the locale's characters are UTF-8 (after tx_locale). */
int tx_utf8_locale(void);

/* Copy src (NULL = "") into dst of len bytes, cut at a character
 * boundary when it does not fit; always NUL-terminated. Returns dst. */
char *tx_copy(char *dst, size_t len, const char *src);

/* The UTF-8 or ASCII set. Static. */
const struct tx_glyphs *tx_glyphs_get(int utf8);

/* "1234", "12.3k", "1.23M": at most 6 columns. */
char *tx_count(char *buf, size_t len, long long n);
/* Per-second rates: "0", "0.42", "12.3", "1.2k". */
char *tx_rate(char *buf, size_t len, double r);
/* A duration: "45s", "3m12s", "2h05m", "3d04h"; "-" when negative, not
 * finite or beyond 99 days. */
char *tx_dur(char *buf, size_t len, double seconds);

/* A horizontal bar of width columns filled to frac (0..1, clamped for
 * drawing only), in eighths with UTF-8, with '#' and '.' in ASCII (or
 * spaces when pad is 0). */
char *tx_bar(char *buf, size_t len, double frac, int width, int pad,
	     const struct tx_glyphs *g);
/* A sparkline of n values scaled to max (0: the largest value). */
char *tx_spark(char *buf, size_t len, const double *v, int n, double max,
	       const struct tx_glyphs *g);

/* Copy src into buf so that it takes at most cols terminal columns:
 * control characters become '?', and with utf8 0 (ASCII terminal) every
 * non-ASCII character does too; invalid UTF-8 bytes always do. When src is
 * longer, its end is replaced by the ellipsis. *used (may be NULL)
 * receives the columns taken. */
char *tx_fit(char *buf, size_t len, const char *src, int cols, int utf8,
	     int *used);
/* tx_fit that keeps the end of src instead: when src is longer, its
 * start is replaced by the ellipsis (a question's "[y/N]" stays). */
char *tx_fit_tail(char *buf, size_t len, const char *src, int cols,
		  int utf8, int *used);
/* Columns src takes on screen, with the same rules as tx_fit. */
int tx_width(const char *src, int utf8);
/* The bytes of src's longest start of whole characters that takes at most
 * cols columns, with the same rules as tx_fit. */
size_t tx_prefix(const char *src, int cols, int utf8);
/* Which of n segments of a line (their widths in w, in the order they
 * are drawn) fit in avail columns: those of the lowest prio (ties: the
 * later one) are dropped whole until the rest fit, never cut. keep[i] is
 * 1 or 0; returns the columns the kept ones take. */
int tx_keep(const int *w, const int *prio, int n, int avail, int *keep);
/* tx_fit, then pad with spaces to exactly cols columns (left-aligned; or
 * right-aligned when right is 1). */
char *tx_pad(char *buf, size_t len, const char *src, int cols, int utf8,
	     int right);

#endif
