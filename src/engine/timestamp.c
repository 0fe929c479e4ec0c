/* timestamp.c: ISO-8601 and epoch-millisecond parsing without a clock or a
 * time-zone database. Civil-date arithmetic after H. Hinnant's
 * days_from_civil (public domain algorithm). */
#include <ctype.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "crawltop/timestamp.h"

int64_t ct_days_from_civil(int64_t y, unsigned m, unsigned d)
{
	y -= m <= 2;
	const int64_t era = (y >= 0 ? y : y - 399) / 400;
	const unsigned yoe = (unsigned)(y - era * 400);
	const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}

static void civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d)
{
	z += 719468;
	const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
	const unsigned doe = (unsigned)(z - era * 146097);
	const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	const unsigned mp = (5 * doy + 2) / 153;
	*d = doy - (153 * mp + 2) / 5 + 1;
	*m = mp < 10 ? mp + 3 : mp - 9;
	*y = (int64_t)yoe + era * 400 + (*m <= 2);
}

/* Read exactly n digits at *p into *v. */
static bool digits(const char **p, int n, unsigned *v)
{
	*v = 0;
	for (int i = 0; i < n; i++) {
		if (!isdigit((unsigned char)(*p)[i]))
			return false;
		*v = *v * 10 + (unsigned)((*p)[i] - '0');
	}
	*p += n;
	return true;
}

static bool leap(int64_t y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static ct_status bad(struct ct_error *err, const char *s, const char *why)
{
	return ct_error_set(err, CT_EINVAL,
		"time '%.64s': %s (epoch milliseconds or ISO-8601, e.g. "
		"2024-06-10T08:00:00Z)", s, why);
}

ct_status ct_time_parse(const char *s, int64_t *ms, struct ct_error *err)
{
	if (!s || !*s)
		return bad(err, s ? s : "", "empty");
	const char *p = s;
	/* epoch milliseconds: an optional '-' and digits only */
	size_t n = strspn(p + (*p == '-'), "0123456789");
	if (n > 0 && p[(*p == '-') + n] == '\0') {
		/* "20240229" is an ISO-8601 basic date to a person and 27 hours
		 * after the epoch to this rule: refused rather than guessed */
		if (n == 8 && *p != '-')
			return bad(err, s, "8 digits are ambiguous (a basic date "
				   "such as 20240229, or epoch milliseconds in 1970): "
				   "use 2024-02-29, or epoch milliseconds as a JSON "
				   "number or with a leading 0");
		if (n > 15)
			return bad(err, s, "epoch milliseconds out of range");
		int64_t v = 0;
		for (size_t i = (*p == '-'); p[i]; i++)
			v = v * 10 + (p[i] - '0');
		*ms = *p == '-' ? -v : v;
		return CT_OK;
	}
	unsigned y, mo, d, h = 0, mi = 0, se = 0, frac = 0;
	if (!digits(&p, 4, &y) || *p++ != '-' || !digits(&p, 2, &mo) ||
	    *p++ != '-' || !digits(&p, 2, &d))
		return bad(err, s, "not a date");
	static const unsigned mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	if (mo < 1 || mo > 12 || d < 1 ||
	    d > mdays[mo - 1] + (mo == 2 && leap(y)))
		return bad(err, s, "no such date");
	int64_t off_min = 0;
	if (*p == 'T' || *p == 't' || *p == ' ') {
		p++;
		if (!digits(&p, 2, &h) || *p++ != ':' || !digits(&p, 2, &mi))
			return bad(err, s, "bad time of day");
		if (*p == ':') {
			p++;
			if (!digits(&p, 2, &se))
				return bad(err, s, "bad seconds");
			if (*p == '.' || *p == ',') {
				p++;
				unsigned scale = 100, nd = 0;
				while (isdigit((unsigned char)*p)) {
					frac += (unsigned)(*p - '0') * scale;
					scale /= 10;
					p++;
					nd++;
				}
				if (nd == 0)
					return bad(err, s, "bad fraction");
			}
		}
		if (h > 23 || mi > 59 || se > 60)
			return bad(err, s, "no such time of day");
		if (*p == 'Z' || *p == 'z') {
			p++;
		} else if (*p == '+' || *p == '-') {
			int sign = *p++ == '-' ? -1 : 1;
			unsigned oh, om = 0;
			if (!digits(&p, 2, &oh))
				return bad(err, s, "bad zone offset");
			if (*p == ':') {
				p++;
				if (!digits(&p, 2, &om)) /* "+02:" needs minutes */
					return bad(err, s, "bad zone offset");
			} else if (*p && !digits(&p, 2, &om)) {
				return bad(err, s, "bad zone offset");
			}
			if (oh > 23 || om > 59)
				return bad(err, s, "bad zone offset");
			off_min = sign * (int64_t)(oh * 60 + om);
		}
	}
	if (*p != '\0')
		return bad(err, s, "trailing characters");
	/* :60 is a leap second, which comes only after 23:59:59 UTC */
	if (se == 60 && ((int64_t)(h * 60 + mi) - off_min + 1440) % 1440 != 1439)
		return bad(err, s, "second 60 (a leap second) only at 23:59 UTC");
	int64_t days = ct_days_from_civil(y, mo, d);
	int64_t sec = days * 86400 + h * 3600 + mi * 60 + se - off_min * 60;
	*ms = sec * 1000 + frac;
	return CT_OK;
}

void ct_time_format(int64_t ms, char buf[CT_TIME_BUF])
{
	/* floor division without negating ms (INT64_MIN has no negation) */
	int64_t sec = ms / 1000 - (ms % 1000 < 0);
	int64_t rem = ms % 1000 + (ms % 1000 < 0 ? 1000 : 0);
	int64_t days = sec / 86400 - (sec % 86400 < 0);
	int64_t sod = sec % 86400 + (sec % 86400 < 0 ? 86400 : 0);
	int64_t y;
	unsigned m, d;
	civil_from_days(days, &y, &m, &d);
	char tmp[96];
	int n = snprintf(tmp, sizeof tmp, "%04" PRId64 "-%02u-%02uT%02d:%02d:%02d.%03dZ",
			 y, m, d, (int)(sod / 3600), (int)(sod / 60 % 60),
			 (int)(sod % 60), (int)rem);
	size_t len = n < 0 ? 0 : (size_t)n < 31 ? (size_t)n : 31;
	memcpy(buf, tmp, len);
	buf[len] = '\0';
}
