/* status.c: status names and error filling. */
#include <stdarg.h>
#include <stdio.h>

#include "cloc.h"
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

ct_status ct_error_set(struct ct_error *err, ct_status st, const char *fmt, ...)
{
	if (err) {
		va_list ap;
		va_start(ap, fmt);
		locale_t loc = cloc_enter();
		vsnprintf(err->msg, sizeof err->msg, fmt, ap);
		cloc_leave(loc);
		va_end(ap);
	}
	return st;
}
