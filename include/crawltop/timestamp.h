/* timestamp.h: parse the times that inputs carry, with no clock and no
 * time-zone database. Epoch milliseconds or ISO-8601; an ISO time without a
 * zone is UTC; a date alone is midnight UTC. */
#ifndef CRAWLTOP_TIMESTAMP_H
#define CRAWLTOP_TIMESTAMP_H

#include <stdint.h>

#include "export.h"
#include "status.h"

CT_BEGIN_DECLS

/* "2024-06-10T08:00:00Z", "2024-06-10 08:00:00.5+02:00", "2024-06-10",
 * "1718006400000". CT_EINVAL with a message naming the text otherwise.
 * Exactly 8 digits ("20240229") are refused as ambiguous: a basic date,
 * or epoch milliseconds in 1970 ("010000000" is the latter). Second 60
 * is taken only at 23:59 UTC (a leap second, counted as the next
 * day's 00:00:00). */
CT_API ct_status ct_time_parse(const char *s, int64_t *ms, struct ct_error *err);
/* Days from 1970-01-01 of a proleptic Gregorian date: m 1..12, d 1..31,
 * |y| at most 10^15 (beyond, the arithmetic overflows). */
CT_API int64_t ct_days_from_civil(int64_t y, unsigned m, unsigned d);
/* Format as "YYYY-MM-DDTHH:MM:SS.mmmZ" (24 characters for years 0..9999;
 * more, with a sign, beyond) into buf of CT_TIME_BUF bytes: at most 31
 * characters and the NUL. */
#define CT_TIME_BUF 32
CT_API void ct_time_format(int64_t ms, char buf[CT_TIME_BUF]);

CT_END_DECLS

#endif
