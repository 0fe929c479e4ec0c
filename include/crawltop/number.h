/* number.h: how a number is written wherever a person types one: command
 * options, environment variables, the console's editors and prompts, job
 * priorities. Plain decimal only: an optional '-', digits, and for a real
 * an optional fraction and exponent ("-2", "0.35", ".5", "1e-3"). Leading
 * or trailing blanks, '+', hexadecimal ("0x50"), "inf" and "nan" are not
 * numbers here, although strtol and strtod take them. */
#ifndef CRAWLTOP_NUMBER_H
#define CRAWLTOP_NUMBER_H

#include <stdbool.h>

#include "export.h"

/* Whether s is written as a plain decimal whole number (frac false) or
 * real (frac true). Checks the text only, not the range. */
CT_API bool ct_number_text(const char *s, bool frac);

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
 * one argument of a message: ct_error_set(err, st, "x = %s", CT_NUM(x)). */
#define CT_NUM(v) ct_number_format((v), (char[CT_NUMBER_BUF]){0})

#endif
