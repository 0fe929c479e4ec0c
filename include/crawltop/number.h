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

#endif
