/* number.h: how a number is written wherever a person types one: command
 * options, environment variables, the console's editors and prompts, job
 * priorities. Plain decimal only: an optional '-', digits, and for a real
 * an optional fraction and exponent ("-2", "0.35", ".5", "1e-3"). Leading
 * or trailing blanks, '+', hexadecimal ("0x50"), "inf" and "nan" are not
 * numbers here, although strtol and strtod take them.
 *
 * The decimal mark is always '.', whatever the program's locale: reading
 * and writing numbers here, in reasons (reasons.h) and in error messages
 * (status.h), the engine switches the calling thread to the C locale for
 * the call (uselocale) and back, so an embedder's setlocale(LC_ALL, "") in
 * a comma locale changes nothing. */
#ifndef CRAWLTOP_NUMBER_H
#define CRAWLTOP_NUMBER_H

#include <stdbool.h>

#include "export.h"
#include "status.h"

CT_BEGIN_DECLS

/* Whether s is written as a plain decimal whole number (frac false) or
 * real (frac true). Checks the text only, not the range. */
CT_API bool ct_number_text(const char *s, bool frac);

/* Reads s, which must pass ct_number_text(s, frac), into *out (strtod's
 * value). CT_EINVAL when the text is not such a number; CT_ERANGE when a
 * double cannot hold it: it overflows (*out is +-inf), or it is not 0 but
 * reads as 0 or a subnormal ("1e-400"). *out is written either way except
 * for CT_EINVAL. */
CT_API ct_status ct_number_read(const char *s, bool frac, double *out);

/* How a number is written back in a message: printf "%.Ng" with the
 * fewest significant digits N (1..17) that strtod reads as exactly v, so
 * that a value just outside a range never looks like one inside it
 * (1.0000001 is "1.0000001", not %g's "1"); a whole number below 1e17 is
 * written in full ("100", not "1e+02"). "nan", "inf" and "-inf" for the
 * rest.
 * Writes into buf, which holds CT_NUMBER_BUF bytes, and returns buf. */
#define CT_NUMBER_BUF 32
CT_API const char *ct_number_format(double v, char buf[CT_NUMBER_BUF]);
/* The same in a buffer that lives to the end of the enclosing block, for
 * one argument of a message: ct_error_set(err, st, "x = %s", CT_NUM(x)).
 * C only: C++ has no compound literals (give ct_number_format a buffer). */
#ifndef __cplusplus
#define CT_NUM(v) ct_number_format((v), (char[CT_NUMBER_BUF]){0})
#endif

CT_END_DECLS

#endif
