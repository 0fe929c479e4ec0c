/* number.c: the syntax of a typed number (number.h). */
#include <string.h>

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
