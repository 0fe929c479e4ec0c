/* utf8.h: well-formed UTF-8, for the engine's checks and messages. */
#ifndef CT_ENGINE_UTF8_H
#define CT_ENGINE_UTF8_H

#include <stddef.h>

/* Length of the well-formed UTF-8 sequence at p (1..4: no overlong
 * form, no surrogate, nothing above U+10FFFF), or 0. p is NUL-terminated
 * (a NUL ends a sequence as any other non-continuation byte does). */
static inline size_t ct_utf8_seq(const unsigned char *p)
{
	unsigned c = p[0], cp, min;
	size_t n;
	if (c < 0x80)
		return 1;
	if ((c & 0xE0) == 0xC0)
		n = 2, cp = c & 0x1F, min = 0x80;
	else if ((c & 0xF0) == 0xE0)
		n = 3, cp = c & 0x0F, min = 0x800;
	else if ((c & 0xF8) == 0xF0)
		n = 4, cp = c & 0x07, min = 0x10000;
	else
		return 0;
	for (size_t k = 1; k < n; k++) {
		if ((p[k] & 0xC0) != 0x80)
			return 0;
		cp = cp << 6 | (p[k] & 0x3F);
	}
	if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
		return 0;
	return n;
}

#endif
