/* lineread.c: the bounded line reader (lineread.h). Input is read with
 * read(2) into one buffer that grows, doubling, only while a line needs
 * it and never past max + 2 bytes (the line, one byte to see that it is
 * longer, the NUL); lines are found with memchr. read(2) returns what the
 * input has, so a line that has arrived is returned without waiting for
 * the buffer to fill. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lineread.h"

/* The buffer's first size: most input arrives in one read of it. */
#define FIRST_CAP 65536

void lineread_init(struct lineread *r, int fd, size_t max)
{
	*r = (struct lineread){.fd = fd, .max = max};
}

/* A bigger buffer for a line that has not ended yet (at most max + 2
 * bytes); -1 when out of memory, the old buffer kept. */
static int grow(struct lineread *r)
{
	size_t cap = r->cap ? r->cap * 2 : FIRST_CAP;
	if (r->cap && cap > r->max + 2)
		cap = r->max + 2;
	char *b = realloc(r->buf, cap);
	if (!b)
		return -1;
	r->buf = b;
	r->cap = cap;
	return 0;
}

/* Append what one read(2) gives (a byte is left for the NUL); r->eof at
 * the end of the input; -1 with r->err on a read error. */
static int fill(struct lineread *r)
{
	for (;;) {
		ssize_t got = read(r->fd, r->buf + r->end, r->cap - 1 - r->end);
		if (got > 0) {
			r->end += (size_t)got;
			return 0;
		}
		if (got == 0) {
			r->eof = 1;
			return 0;
		}
		if (errno != EINTR) {
			r->err = errno;
			return -1;
		}
	}
}

/* The line in the buffer has passed max bytes without a newline: drop it
 * and what follows up to its newline, a buffer at a time, so that memory
 * stays bounded and the next call reads the next line. */
static enum lineread_status skip(struct lineread *r)
{
	r->scanned = 0;
	for (;;) {
		r->start = r->end = 0;
		if (fill(r) != 0)
			return LINEREAD_ERROR; /* at line r->line + 1: this one */
		if (r->eof)
			break;
		char *nl = memchr(r->buf, '\n', r->end);
		if (nl) {
			r->start = (size_t)(nl - r->buf) + 1;
			break;
		}
	}
	r->line++;
	return LINEREAD_LONG;
}

enum lineread_status lineread_next(struct lineread *r, char **line,
				   size_t *len)
{
	for (;;) {
		if (!r->buf && grow(r) != 0)
			return LINEREAD_NOMEM;
		char *s = r->buf + r->start;
		size_t have = r->end - r->start;
		char *nl = have > r->scanned ?
			memchr(s + r->scanned, '\n', have - r->scanned) : NULL;
		if (nl || (r->eof && have)) {
			size_t n = nl ? (size_t)(nl - s) : have;
			r->line++;
			r->start += nl ? n + 1 : n;
			r->scanned = 0;
			if (n > r->max)
				return LINEREAD_LONG;
			s[n] = '\0'; /* the newline, or the byte kept free */
			*line = s;
			*len = n;
			return LINEREAD_LINE;
		}
		if (r->eof)
			return LINEREAD_EOF;
		r->scanned = have;
		if (have > r->max)
			return skip(r);
		if (r->start) {
			memmove(r->buf, s, have);
			r->start = 0;
			r->end = have;
		}
		if (r->end + 1 >= r->cap && grow(r) != 0)
			return LINEREAD_NOMEM;
		if (fill(r) != 0)
			return LINEREAD_ERROR;
	}
}

const char *lineread_what(const struct lineread *r, enum lineread_status st,
			  char *out, size_t n)
{
	switch (st) {
	case LINEREAD_LONG:
		snprintf(out, n, "line longer than %zu bytes", r->max);
		break;
	case LINEREAD_NOMEM:
		snprintf(out, n, "out of memory");
		break;
	case LINEREAD_ERROR:
		snprintf(out, n, "read error: %s", strerror(r->err));
		break;
	case LINEREAD_EOF:
		snprintf(out, n, "end of input");
		break;
	case LINEREAD_LINE:
		snprintf(out, n, "a line");
		break;
	}
	return out;
}

void lineread_free(struct lineread *r)
{
	free(r->buf);
	r->buf = NULL;
	r->cap = r->start = r->end = 0;
}
