/* guard.h (engine-internal): the last check of a scorer whose parameters
 * are a precondition (checked once by the caller, not on the hot path).
 * Parameters that break their rules can put a result off its scale (a NaN
 * weight gives a NaN score, a decay of 2 a hierarchy score of 1.8); this
 * refuses such a result instead of returning it with CT_OK. */
#ifndef CRAWLTOP_ENGINE_GUARD_H
#define CRAWLTOP_ENGINE_GUARD_H

#include <stdbool.h>

#include "crawltop/status.h"

/* CT_OK when lo <= v <= hi (so not NaN); else CT_EINVAL with "<what> = v
 * is outside lo..hi: the parameters were not checked (<check>)". */
ct_status ct_result_guard(double v, double lo, double hi, const char *what,
			  const char *check, struct ct_error *err);

#endif
