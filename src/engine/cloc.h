/* cloc.h: numbers in the "C" locale, whatever the embedding program's.
 *
 * printf's %g and strtod follow LC_NUMERIC: after setlocale(LC_ALL, "")
 * in a comma-decimal locale, strtod("0.35") stops at the '.' and gives 0,
 * and %g writes "0,35". The engine's numbers are text in one syntax
 * (number.h), so each function that reads or writes one switches its
 * thread to the C locale for the call (uselocale: per thread, nothing
 * global) and back. glibc's C locale object is static: no allocation. */
#ifndef CT_ENGINE_CLOC_H
#define CT_ENGINE_CLOC_H

#include <locale.h>

/* Switch this thread to the C locale; returns what to give back to
 * cloc_leave ((locale_t)0 if the switch failed: numbers then follow the
 * caller's locale, as before). */
static inline locale_t cloc_enter(void)
{
	locale_t c = newlocale(LC_ALL_MASK, "C", (locale_t)0);
	if (!c)
		return (locale_t)0;
	locale_t old = uselocale(c);
	if (!old)
		freelocale(c);
	return old;
}

static inline void cloc_leave(locale_t old)
{
	if (old)
		freelocale(uselocale(old));
}

#endif
