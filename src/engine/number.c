/* number.c: the syntax of a typed number, and how a number is written
 * back in a message (number.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cloc.h"
#include "crawltop/number.h"

static const char digits[] = "0123456789";

bool ct_number_text(const char *s, bool frac)
{
	if (!s)
		return false;
	if (*s == '-')
		s++;
	size_t whole = strspn(s, digits);
	s += whole;
	if (!frac)
		return whole > 0 && !*s;
	size_t part = 0;
	if (*s == '.') {
		part = strspn(++s, digits);
		s += part;
	}
	if (whole + part == 0)
		return false;
	if (*s == 'e' || *s == 'E') {
		s++;
		if (*s == '-' || *s == '+')
			s++;
		size_t ex = strspn(s, digits);
		if (ex == 0)
			return false;
		s += ex;
	}
	return !*s;
}

ct_status ct_number_read(const char *s, bool frac, double *out)
{
	if (!ct_number_text(s, frac))
		return CT_EINVAL;
	/* strtod sets ERANGE for an overflow and for an underflow to 0 or a
	 * subnormal; errno is the caller's, so it is kept as it was */
	int saved = errno;
	errno = 0;
	locale_t loc = cloc_enter();
	*out = strtod(s, NULL);
	int range = errno == ERANGE;
	cloc_leave(loc);
	errno = saved;
	return range ? CT_ERANGE : CT_OK;
}

static void format(double v, char buf[CT_NUMBER_BUF]);

const char *ct_number_format(double v, char buf[CT_NUMBER_BUF])
{
	locale_t loc = cloc_enter();
	format(v, buf);
	cloc_leave(loc);
	return buf;
}

/* ct_number_format in the C locale. */
static void format(double v, char buf[CT_NUMBER_BUF])
{
	if (!isfinite(v)) {
		snprintf(buf, CT_NUMBER_BUF, "%s",
			 isnan(v) ? "nan" : v > 0 ? "inf" : "-inf");
		return;
	}
	/* 17 significant digits always read back exactly (IEEE 754 binary64) */
	int prec = 1;
	for (; prec < 17; prec++) {
		snprintf(buf, CT_NUMBER_BUF, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	snprintf(buf, CT_NUMBER_BUF, "%.*g", prec, v);
	/* a whole number that %g wrote with an exponent ("1e+02"): in full
	 * below 1e17, as %.17g would ("100"); it is exact, so it reads back */
	const char *e = strchr(buf, 'e');
	if (e) {
		int x = atoi(e + 1);
		if (x >= prec && x < 17)
			snprintf(buf, CT_NUMBER_BUF, "%.*g", x + 1, v);
	}
}
