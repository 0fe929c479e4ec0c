/* tier.h: job priority 1..10 (seed 001). 1 is most urgent, 5 the default.
 * 0 and 11 are errors, never clamped. */
#ifndef CRAWLTOP_TIER_H
#define CRAWLTOP_TIER_H

#include <stdbool.h>

#include "export.h"
#include "status.h"

CT_BEGIN_DECLS

#define CT_PRIORITY_MIN 1
#define CT_PRIORITY_MAX 10
#define CT_PRIORITY_DEFAULT 5

CT_API bool ct_priority_valid(long p);
/* Parse a decimal priority; a clear error for "0", "11", "x", "5.5". */
CT_API ct_status ct_priority_parse(const char *s, int *out, struct ct_error *err);
/* Seed 001's guideline for a priority ("User-initiated urgent crawls"). */
CT_API const char *ct_priority_label(int p);

CT_END_DECLS

#endif
