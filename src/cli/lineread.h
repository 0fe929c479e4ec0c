/* lineread.h: the line reader of every command that reads text a line at
 * a time (score's JSON Lines, simulate's graph and sitemap lists,
 * enqueue's --urls). Memory stays bounded by the longest line a caller
 * accepts, and each way a read can end is told apart: a line, the end of
 * the input, a line over the limit (skipped to its newline, so that the
 * next line is read as the next line), a failed allocation and a read
 * error. None of them reads as the end of the input. */
#ifndef CRAWLTOP_LINEREAD_H
#define CRAWLTOP_LINEREAD_H

#include <stddef.h>

/* The longest line, newline excluded, that score and simulate accept
 * (1 MiB; documented in crawltop(1)), as a number and as text for --help. */
#define LINEREAD_MAX 1048576
#define LINEREAD_STR_(x) #x
#define LINEREAD_STR(x) LINEREAD_STR_(x)
#define LINEREAD_MAX_TEXT LINEREAD_STR(LINEREAD_MAX)

enum lineread_status {
	LINEREAD_LINE,  /* a line: *line, *len */
	LINEREAD_EOF,   /* the end of the input */
	LINEREAD_LONG,  /* line r->line was longer than max: skipped */
	LINEREAD_NOMEM, /* no memory for line r->line + 1 */
	LINEREAD_ERROR, /* read error (r->err: errno) at line r->line + 1 */
};

struct lineread {
	int fd;
	size_t max;         /* longest line accepted, newline excluded */
	char *buf;          /* unread input at [start, end) */
	size_t cap, start, end;
	size_t scanned;     /* bytes after start known to hold no newline */
	int eof;
	int err;            /* errno of LINEREAD_ERROR */
	long line;          /* lines returned or skipped so far */
};

/* Read lines of at most max bytes from fd (not closed by the reader). */
void lineread_init(struct lineread *r, int fd, size_t max);

/* The next line: LINEREAD_LINE with *line (NUL-terminated, without its
 * newline; a carriage return is kept) and *len (it may hold NUL bytes:
 * compare with strlen), valid until the next call. A last line without a
 * newline is a line. After LINEREAD_NOMEM or LINEREAD_ERROR the reader's
 * state is undefined: stop. */
enum lineread_status lineread_next(struct lineread *r, char **line,
				   size_t *len);

/* What status st (not LINEREAD_LINE) means, in words, into out: "line
 * longer than N bytes", "out of memory", "read error: ...", "end of
 * input". Returns out. */
const char *lineread_what(const struct lineread *r, enum lineread_status st,
			  char *out, size_t n);

/* Frees the buffer (not the descriptor). */
void lineread_free(struct lineread *r);

#endif
