/* status.h: the status codes every libcrawltop function returns.
 *
 * The library never prints and never exits: a function returns a ct_status
 * and, where it takes one, fills a struct ct_error with a sentence that
 * names the offending value and the rule it broke. */
#ifndef CRAWLTOP_STATUS_H
#define CRAWLTOP_STATUS_H

#include <stddef.h>

#include "export.h"

CT_BEGIN_DECLS

typedef enum ct_status {
	CT_OK = 0,
	CT_EINVAL,   /* an input value breaks a documented rule */
	CT_ERANGE,   /* a numeric input is outside its range or not finite */
	CT_ENOMEM,   /* allocation failed; nothing was changed */
	CT_EFULL,    /* a bounded container is full */
	CT_ENOENT,   /* a named thing does not exist */
	CT_EIO,      /* reading or writing a file failed (config layer only) */
} ct_status;

/* A human-readable error: filled by functions that can fail on input. */
#define CT_ERROR_LEN 512
struct ct_error {
	char msg[CT_ERROR_LEN];
};

/* Static string naming the status ("ok", "invalid input", ...). */
CT_API const char *ct_status_str(ct_status st);

/* printf-style fill of err (which may be NULL); returns st unchanged so a
 * caller can write `return ct_error_set(err, CT_EINVAL, "...", ...)`.
 * The message is always UTF-8: a byte of a character cut by a precision
 * ("%.64s") or by the buffer's end, or of input that is not UTF-8, is
 * written '?'. */
CT_API ct_status ct_error_set(struct ct_error *err, ct_status st,
			      const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4)))
#endif
	;

CT_END_DECLS

#endif
