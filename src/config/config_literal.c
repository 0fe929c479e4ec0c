/* config_literal.c: the guard against libconfig 1.5's silent integer wrap.
 *
 * The scanner knows just enough of the libconfig grammar to find integer
 * literals: comments (#, //, slash-star), strings with backslash escapes,
 * names (which may hold digits and '-'), floats (a '.' or an exponent) and
 * integers with an optional L or LL suffix. It runs only on files libconfig
 * has already parsed, so it need not diagnose syntax. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_private.h"

#define MAX_FILE_BYTES (16u << 20)

/* Reads the whole file into *out, a NUL-terminated buffer the caller
 * frees. */
static ct_status slurp(const char *file, char **out, struct ct_error *err)
{
	FILE *f = fopen(file, "r");
	char *buf = NULL;
	size_t len = 0, cap = 0;
	ct_status st;

	*out = NULL;
	if (!f)
		return ct_error_set(err, CT_EIO, "%s: cannot read: %s", file,
				    strerror(errno));
	for (;;) {
		if (cap - len < 4096) {
			char *nb;

			if (cap >= MAX_FILE_BYTES) {
				st = ct_error_set(err, CT_EIO,
						  "%s: larger than %u bytes",
						  file, MAX_FILE_BYTES);
				goto fail;
			}
			cap = cap ? cap * 2 : 8192;
			nb = realloc(buf, cap + 1);
			if (!nb) {
				st = ct_error_set(err, CT_ENOMEM,
						  "%s: out of memory", file);
				goto fail;
			}
			buf = nb;
		}
		size_t got = fread(buf + len, 1, cap - len, f);

		len += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		st = ct_error_set(err, CT_EIO, "%s: read error", file);
		goto fail;
	}
	fclose(f);
	buf[len] = '\0';
	*out = buf;
	return CT_OK;
fail:
	free(buf);
	fclose(f);
	return st;
}

static bool is_name_start(int c)
{
	return isalpha(c) || c == '*';
}

static bool is_name_char(int c)
{
	return isalnum(c) || c == '-' || c == '_' || c == '*';
}

/* Checks one integer literal [s, e) (sign included). Returns true when it
 * fits in an int the way libconfig 1.5 reads it. */
static bool int_literal_fits(const char *s, const char *e)
{
	char tmp[64];
	size_t n = (size_t)(e - s);
	bool neg = false;
	const char *p = tmp;

	if (n >= sizeof(tmp))
		return false;
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	if (*p == '-' || *p == '+') {
		neg = *p == '-';
		p++;
	}
	errno = 0;
	unsigned long long v = strtoull(p, NULL, 0);

	if (errno == ERANGE)
		return false;
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		return !neg && v <= (unsigned long long)INT_MAX;
	return neg ? v <= (unsigned long long)INT_MAX + 1
		   : v <= (unsigned long long)INT_MAX;
}

/* Walks the text once, counting lines; stops at the first bad literal. */
ct_status ct_config_scan_int_literals(const char *file, struct ct_error *err)
{
	char *text;
	const char *p;
	unsigned line = 1;
	ct_status st = slurp(file, &text, err);

	if (st != CT_OK)
		return st;
	p = text;
	while (*p) {
		if (*p == '\n') {
			line++;
			p++;
		} else if (*p == '#' || (p[0] == '/' && p[1] == '/')) {
			while (*p && *p != '\n')
				p++;
		} else if (p[0] == '/' && p[1] == '*') {
			p += 2;
			while (*p && !(p[0] == '*' && p[1] == '/'))
				line += *p++ == '\n';
			if (*p)
				p += 2;
		} else if (*p == '"') {
			p++;
			while (*p && *p != '"') {
				if (*p == '\\' && p[1])
					p++;
				line += *p++ == '\n';
			}
			if (*p)
				p++;
		} else if (is_name_start((unsigned char)*p)) {
			while (is_name_char((unsigned char)*p))
				p++;
		} else if (isdigit((unsigned char)*p) ||
			   ((*p == '-' || *p == '+') &&
			    isdigit((unsigned char)p[1]))) {
			const char *s = p;
			bool is_float = false;

			if (*p == '-' || *p == '+')
				p++;
			if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
				p += 2;
				while (isxdigit((unsigned char)*p))
					p++;
			} else {
				while (isdigit((unsigned char)*p))
					p++;
				if (*p == '.' || *p == 'e' || *p == 'E') {
					is_float = true;
					p++;
					while (isdigit((unsigned char)*p) ||
					       *p == '.' || *p == 'e' ||
					       *p == 'E' || *p == '-' ||
					       *p == '+')
						p++;
				}
			}
			if (is_float)
				continue;
			if (*p == 'L') {
				p += p[1] == 'L' ? 2 : 1;
				continue;
			}
			if (!int_literal_fits(s, p)) {
				st = ct_error_set(err, CT_ERANGE,
					"%s:%u: integer %.*s does not fit in 32 bits (libconfig would wrap it): write it with an L suffix (%.*sL) or as a float",
					file, line, (int)(p - s), s,
					(int)(p - s), s);
				break;
			}
		} else {
			p++;
		}
	}
	free(text);
	return st;
}
