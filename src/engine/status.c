/* status.c: status names and error filling. */
#include <stdarg.h>
#include <stdio.h>

#include "cloc.h"
#include "utf8.h"
#include "crawltop/status.h"

const char *ct_status_str(ct_status st)
{
	switch (st) {
	case CT_OK: return "ok";
	case CT_EINVAL: return "invalid input";
	case CT_ERANGE: return "value out of range";
	case CT_ENOMEM: return "out of memory";
	case CT_EFULL: return "full";
	case CT_ENOENT: return "not found";
	case CT_EIO: return "input/output error";
	}
	return "unknown status";
}

/* A message quotes its input cut to a width ("%.64s") and may itself be
 * cut at the buffer's end: either can split a UTF-8 character. Every byte
 * that is not part of a well-formed character becomes '?', so the message
 * is UTF-8 whatever the input was. */
static void utf8_repair(char *s)
{
	unsigned char *p = (unsigned char *)s;
	while (*p) {
		size_t n = ct_utf8_seq(p);
		if (n == 0)
			*p++ = '?';
		else
			p += n;
	}
}

ct_status ct_error_set(struct ct_error *err, ct_status st, const char *fmt, ...)
{
	if (err) {
		va_list ap;
		va_start(ap, fmt);
		locale_t loc = cloc_enter();
		vsnprintf(err->msg, sizeof err->msg, fmt, ap);
		cloc_leave(loc);
		va_end(ap);
		utf8_repair(err->msg);
	}
	return st;
}
