/* config_text.c: the checks libconfig 1.5 does not make, done on the text
 * of a configuration file.
 *
 * One small lexer knows just enough of the libconfig grammar: comments
 * (#, //, slash-star), strings with backslash escapes, names (which may
 * hold digits, '-', '_' and '*'), floats (a '.' or an exponent), integers
 * (decimal, 0x hexadecimal, an optional L or LL suffix) and @include at
 * the start of a line. A walker on top of it follows groups, lists and
 * arrays, so every token knows the dotted key it belongs to. On it:
 *   - before libconfig parses: no file may be writable by anyone but its
 *     owner, the running user or root; every @include must name a
 *     readable regular file (libconfig 1.5 opens a directory and then exits the process
 *     from its flex scanner), no file may start with a byte-order mark,
 *     and the text is bounded (settings, @include lines, line and string
 *     lengths) so that libconfig's quadratic parts stay small: reading a
 *     configuration takes time linear in its size;
 *   - after: integer literals libconfig would wrap or clamp, and float
 *     literals a double cannot hold (1e-400 reads as 0), are refused;
 *   - on libconfig's "duplicate setting name": which key it was. */
#include <ctype.h>
#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <crawltop/number.h>

#include "config.h"
#include "config_private.h"

#define MAX_FILE_BYTES (16u << 20)
#define MAX_DEPTH 32          /* group nesting the walker names */
#define MAX_INCLUDE_DEPTH 10  /* libconfig 1.5's own limit */
/* The most settings and array or list elements one read takes, the
 * @include files' included; libconfig checks each new setting's name
 * against every earlier member of its group, so its time grows with the
 * square of a group's size: past this bound a file is refused before
 * libconfig reads it. No valid file comes near it: every key of the table
 * and its group, each map full and both token lists full. */
#define MAX_VALUES 1024
/* The most @include lines one read follows, each time its file is
 * included: a file that includes another twice, which includes a third
 * twice, ..., would have libconfig read 2^10 files. */
#define MAX_INCLUDES 32
/* The longest line, and the longest string, one file may hold: libconfig's
 * scanner reads a token longer than its buffer again from its start each
 * time it refills the buffer, so its time grows with the square of the
 * token (a 4 MB string or comment line takes seconds). A full token list
 * on one line is under 2.5 KB. */
#define MAX_LINE 8192

_Static_assert(MAX_VALUES >= 2 * CT_CONFIG_MAX_KEYS +
		       3 * (CT_FRONTIER_MAX_NAMES + 1) +
		       2 * CT_FRONTIER_MAX_TOKENS,
	       "MAX_VALUES must pass every valid file");

/* Reads the whole file into *out, a NUL-terminated buffer the caller
 * frees; *n receives its length (it may hold NUL bytes). */
static ct_status slurp(const char *file, char **out, size_t *n,
		       struct ct_error *err)
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
	if (n)
		*n = len;
	return CT_OK;
fail:
	free(buf);
	fclose(f);
	return st;
}

const char *ct_config_open_problem(const char *path, ct_status *st)
{
	struct stat sb;
	FILE *f;

	if (stat(path, &sb) != 0) {
		*st = errno == ENOENT ? CT_ENOENT : CT_EIO;
		return strerror(errno);
	}
	*st = CT_EIO;
	if (S_ISDIR(sb.st_mode))
		return "is a directory";
	/* a file is read more than once (its @include lines, libconfig,
	 * its integer literals): a pipe would give its text only once, and
	 * the rest would read nothing and check nothing */
	if (S_ISFIFO(sb.st_mode) || S_ISSOCK(sb.st_mode)) {
		*st = CT_EINVAL;
		return "is a pipe or a socket, which can be read only once: "
		       "write the configuration to a file";
	}
	f = fopen(path, "r");
	if (!f)
		return strerror(errno);
	fclose(f);
	*st = CT_OK;
	return NULL;
}

/* Whether gid is owner's private group: the owner's primary group, named
 * as the owner, with no other member (the Debian and Ubuntu convention,
 * under which files are made group-writable by umask 002); then its
 * members are the owner alone. */
static bool private_group(uid_t owner, gid_t gid)
{
	const struct passwd *pw = getpwuid(owner);
	const struct group *gr;
	char name[256];

	if (!pw || pw->pw_gid != gid ||
	    snprintf(name, sizeof(name), "%s", pw->pw_name) >= (int)sizeof(name))
		return false;
	gr = getgrgid(gid);
	if (!gr || strcmp(gr->gr_name, name) != 0)
		return false;
	for (char *const *m = gr->gr_mem; *m; m++)
		if (strcmp(*m, name) != 0)
			return false;
	return true;
}

/* A configuration decides what crawltop does, so, as ssh's StrictModes
 * does for its files, one that someone else could change is refused, not
 * read with a warning: it must belong to the running user or root, and be
 * writable by no one else (group-writable only for the owner's private
 * group). A symbolic link is judged by the file it names. */
static ct_status check_trusted(const char *file, struct ct_error *err)
{
	struct stat sb;
	unsigned mode;

	if (stat(file, &sb) != 0)
		return ct_error_set(err, errno == ENOENT ? CT_ENOENT : CT_EIO,
				    "%s: %s", file, strerror(errno));
	mode = (unsigned)sb.st_mode & 07777;
	if (sb.st_uid != 0 && sb.st_uid != geteuid())
		return ct_error_set(err, CT_EINVAL,
				    "%s is owned by uid %u, neither you (uid %u) nor root: refusing it, as its owner could change what crawltop does; use a copy of your own",
				    file, (unsigned)sb.st_uid, (unsigned)geteuid());
	if (mode & S_IWOTH)
		return ct_error_set(err, CT_EINVAL,
				    "%s is writable by others (mode %04o): refusing it, as anyone could change what crawltop does; chmod go-w %s",
				    file, mode, file);
	if ((mode & S_IWGRP) && !private_group(sb.st_uid, sb.st_gid))
		return ct_error_set(err, CT_EINVAL,
				    "%s is writable by its group (gid %u, mode %04o): refusing it, as the group's members could change what crawltop does; chmod g-w %s",
				    file, (unsigned)sb.st_gid, mode, file);
	return CT_OK;
}

/* ---- the lexer ------------------------------------------------------ */

typedef enum tok_kind {
	TK_END,
	TK_NAME,
	TK_INT,      /* [-+]digits or 0xhex, with its L/LL suffix */
	TK_FLOAT,
	TK_STRING,   /* s..e: the text between the quotes, escapes raw */
	TK_INCLUDE,  /* s..e: the file name between the quotes, escapes raw */
	TK_PUNCT,    /* one character */
} tok_kind;

struct tok {
	tok_kind kind;
	const char *s, *e;
	unsigned line;
};

struct lexer {
	const char *p;
	unsigned line;
	bool bol;    /* only blanks since the start of the line */
};

static bool is_name_start(int c)
{
	return isalpha(c) || c == '*';
}

static bool is_name_char(int c)
{
	return isalnum(c) || c == '-' || c == '_' || c == '*';
}

/* Skips a quoted text from the opening quote; s..e its inside. */
static void lex_quoted(struct lexer *lx, struct tok *t)
{
	const char *p = lx->p + 1;

	t->s = p;
	while (*p && *p != '"') {
		if (*p == '\\' && p[1])
			p++;
		lx->line += *p++ == '\n';
	}
	t->e = p;
	lx->p = *p ? p + 1 : p;
}

/* A number from its first character (a digit or a sign). */
static void lex_number(struct lexer *lx, struct tok *t)
{
	const char *p = lx->p;

	t->s = p;
	t->kind = TK_INT;
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
			t->kind = TK_FLOAT;
			p++;
			while (isdigit((unsigned char)*p) || *p == '.' ||
			       *p == 'e' || *p == 'E' || *p == '-' ||
			       *p == '+')
				p++;
		}
	}
	if (t->kind == TK_INT && *p == 'L')
		p += p[1] == 'L' ? 2 : 1;
	t->e = lx->p = p;
}

/* The next token; comments and blanks skipped, lines counted. */
static void lex_next(struct lexer *lx, struct tok *t)
{
	for (;;) {
		const char *p = lx->p;

		t->line = lx->line;
		if (*p == '\0') {
			t->kind = TK_END;
			t->s = t->e = p;
			return;
		}
		if (*p == '\n') {
			lx->line++;
			lx->p++;
			lx->bol = true;
		} else if (*p == ' ' || *p == '\t' || *p == '\r' ||
			   *p == '\f' || *p == '\v') {
			lx->p++;
		} else if (*p == '#' || (p[0] == '/' && p[1] == '/')) {
			while (*lx->p && *lx->p != '\n')
				lx->p++;
		} else if (p[0] == '/' && p[1] == '*') {
			p += 2;
			while (*p && !(p[0] == '*' && p[1] == '/'))
				lx->line += *p++ == '\n';
			lx->p = *p ? p + 2 : p;
			lx->bol = false;
		} else {
			break;
		}
	}
	const char *p = lx->p;
	bool bol = lx->bol;

	lx->bol = false;
	if (bol && strncmp(p, "@include", 8) == 0 &&
	    (p[8] == ' ' || p[8] == '\t')) {
		p += 8;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '"') {
			lx->p = p;
			t->kind = TK_INCLUDE;
			lex_quoted(lx, t);
			return;
		}
	}
	if (*p == '"') {
		t->kind = TK_STRING;
		lex_quoted(lx, t);
	} else if (is_name_start((unsigned char)*p)) {
		t->kind = TK_NAME;
		t->s = p;
		while (is_name_char((unsigned char)*p))
			p++;
		t->e = lx->p = p;
	} else if (isdigit((unsigned char)*p) || *p == '.' ||
		   ((*p == '-' || *p == '+') &&
		    (isdigit((unsigned char)p[1]) || p[1] == '.'))) {
		/* libconfig's floats may start with the point (".5", and
		 * ".", "-." or ".e5", which it reads as 0) */
		lex_number(lx, t);
	} else {
		t->kind = TK_PUNCT;
		t->s = p;
		t->e = lx->p = p + 1;
	}
}

/* ---- the walker: which key a token belongs to ------------------------ */

struct walker {
	struct lexer lx;
	struct tok t;          /* the current token */
	tok_kind prev;         /* the kind of the token before */
	const char *prev_s, *prev_e;
	struct {
		const char *s, *e;  /* the name, or NULL inside a list */
		unsigned index;     /* then its place in the list */
		unsigned elems;     /* commas seen inside it */
		char open;          /* '{', '(' or '[' */
	} stack[MAX_DEPTH];
	unsigned depth;        /* may pass MAX_DEPTH: deeper levels unnamed */
	const char *name_s, *name_e; /* the setting being assigned, or NULL */
	bool assigned;         /* t is the '=' or ':' after its name */
	bool element;          /* t starts an element of an array or list */
};

static void walk_init(struct walker *w, const char *text)
{
	memset(w, 0, sizeof(*w));
	w->lx = (struct lexer){ text, 1, true };
	w->prev = TK_END;
}

/* Advances to the next token and keeps the key path; false at the end. */
static bool walk_next(struct walker *w)
{
	w->prev = w->t.kind;
	w->prev_s = w->t.s;
	w->prev_e = w->t.e;
	w->assigned = false;
	lex_next(&w->lx, &w->t);
	if (w->t.kind == TK_END)
		return false;
	/* past MAX_DEPTH the kind of level is unknown: taken for a list */
	w->element = w->depth > 0 &&
		     (w->depth > MAX_DEPTH ||
		      w->stack[w->depth - 1].open != '{') &&
		     (w->t.kind != TK_PUNCT || strchr("{([", *w->t.s));
	if (w->t.kind != TK_PUNCT)
		return true;
	switch (*w->t.s) {
	case '=':
	case ':':
		if (w->prev == TK_NAME) {
			w->name_s = w->prev_s;
			w->name_e = w->prev_e;
			w->assigned = true;
		}
		break;
	case '{':
	case '(':
	case '[':
		if (w->depth < MAX_DEPTH) {
			w->stack[w->depth].s = w->name_s;
			w->stack[w->depth].e = w->name_e;
			w->stack[w->depth].index =
				w->depth ? w->stack[w->depth - 1].elems : 0;
			w->stack[w->depth].elems = 0;
			w->stack[w->depth].open = *w->t.s;
		}
		w->depth++;
		w->name_s = w->name_e = NULL;
		break;
	case '}':
	case ')':
	case ']':
		if (w->depth > 0)
			w->depth--;
		w->name_s = w->name_e = NULL;
		break;
	case ',':
		if (w->depth > 0 && w->depth <= MAX_DEPTH)
			w->stack[w->depth - 1].elems++;
		w->name_s = w->name_e = NULL;
		break;
	case ';':
		w->name_s = w->name_e = NULL;
		break;
	}
	return true;
}

/* The dotted key of the current token into buf: the enclosing groups and
 * the setting being assigned; an unnamed group or list as [N]. */
static const char *walk_path(const struct walker *w, char *buf, size_t len)
{
	size_t used = 0;
	unsigned n = w->depth < MAX_DEPTH ? w->depth : MAX_DEPTH;

	buf[0] = '\0';
	for (unsigned i = 0; i <= n && used < len; i++) {
		const char *s = i < n ? w->stack[i].s : w->name_s;
		const char *e = i < n ? w->stack[i].e : w->name_e;
		int k;

		if (i == n && !s)
			break;
		if (s)
			k = snprintf(buf + used, len - used, "%s%.*s",
				     used ? "." : "", (int)(e - s), s);
		else
			k = snprintf(buf + used, len - used, "[%u]",
				     w->stack[i].index);
		used += k > 0 ? (size_t)k : 0;
	}
	return buf;
}

/* ---- integer literals ------------------------------------------------ */

/* The magnitude of the digits [p, e) in base; false past 2^64 - 1. */
static bool magnitude(const char *p, const char *e, int base,
		      unsigned long long *out)
{
	unsigned long long v = 0;

	for (; p < e; p++) {
		unsigned d = isdigit((unsigned char)*p)
			? (unsigned)(*p - '0')
			: (unsigned)(tolower((unsigned char)*p) - 'a' + 10);

		if (v > (ULLONG_MAX - d) / (unsigned)base)
			return false;
		v = v * (unsigned)base + d;
	}
	*out = v;
	return true;
}

/* Checks one integer literal [s, e) the way libconfig 1.5's scanner reads
 * it: decimal (leading zeros included) with atoi() or, with L, atoll();
 * 0x with strtoul() or, with L, strtoull(); the result stored in an int or
 * a long long. Returns NULL when the value survives, else the rule it
 * breaks, with what libconfig would make of it in *got and the remedy in
 * *fix. */
static const char *literal_problem(const char *s, const char *e,
				   long long *got, const char **fix)
{
	char tmp[96];
	const char *p = s, *end = e;
	bool neg = false, wide = false, hex;
	unsigned long long mag;
	bool ok;

	if (end > p && end[-1] == 'L') {
		wide = true;
		end -= end - 1 > p && end[-2] == 'L' ? 2 : 1;
	}
	if (*p == '-' || *p == '+')
		neg = *p++ == '-';
	hex = p[0] == '0' && (p[1] == 'x' || p[1] == 'X');
	ok = magnitude(hex ? p + 2 : p, end, hex ? 16 : 10, &mag);
	if (ok && !hex && !wide)
		ok = neg ? mag <= (unsigned long long)INT_MAX + 1
			 : mag <= (unsigned long long)INT_MAX;
	else if (ok && !hex && wide)
		ok = neg ? mag <= (unsigned long long)LLONG_MAX + 1
			 : mag <= (unsigned long long)LLONG_MAX;
	else if (ok && hex)
		ok = !neg && mag <= (wide ? (unsigned long long)LLONG_MAX
					  : (unsigned long long)INT_MAX);
	if (ok)
		return NULL;
	/* what libconfig reads, by the calls it makes */
	snprintf(tmp, sizeof(tmp), "%.*s", (int)(end - s), s);
	errno = 0;
	if (hex && wide)
		*got = (long long)strtoull(tmp, NULL, 16);
	else if (hex)
		*got = (int)strtoul(tmp, NULL, 16);
	else if (wide)
		*got = strtoll(tmp, NULL, 10);
	else
		*got = (int)strtol(tmp, NULL, 10);
	if (!wide)
		*fix = hex ? "write it with an L suffix"
			   : "write it with an L suffix or as a float";
	else
		*fix = hex ? "write it in decimal as a float"
			   : "write it as a float";
	return hex ? (wide ? "above 0x7fffffffffffffff, does not fit in a signed 64-bit integer"
			   : "above 0x7fffffff, does not fit in a signed 32-bit integer")
		   : (wide ? "does not fit in 64 bits" : "does not fit in 32 bits");
}

/* Checks one float literal [s, e): NULL unless it underflows, else why,
 * with what libconfig reads into *got. strtod (which libconfig calls)
 * gives 0 or a subnormal for a non-zero literal below DBL_MIN in
 * magnitude, which the settings rules refuse (the JSON reader and the
 * store's setting_number_fault alike); past DBL_MAX it gives +-inf, which
 * the range of every key refuses with its own words. */
static const char *float_problem(const char *s, const char *e, double *got)
{
	char small[96], *tmp = small;
	const char *p = *s == '+' ? s + 1 : s;
	size_t n = (size_t)(e - p);

	/* a literal of any length: 0.000...1 written out rounds to 0 as
	 * 1e-331 does */
	if (n >= sizeof(small) && !(tmp = malloc(n + 1)))
		return NULL;  /* libconfig reads it; the key's rule checks it */
	memcpy(tmp, p, n);
	tmp[n] = '\0';
	ct_status st = ct_number_read(tmp, true, got);
	if (tmp != small)
		free(tmp);
	if (st != CT_ERANGE || isinf(*got))
		return NULL;
	return "too small for a double";
}

/* Whether the float literal [s, e) has a digit before its exponent:
 * libconfig reads ".", "-." and ".e5" as 0. */
static bool has_digit(const char *s, const char *e)
{
	for (; s < e && *s != 'e' && *s != 'E'; s++)
		if (isdigit((unsigned char)*s))
			return true;
	return false;
}

/* The key a literal belongs to, or "a value" for one alone (a file
 * @included in the middle of a setting). */
static const char *literal_key(const struct walker *w, char *buf, size_t len)
{
	walk_path(w, buf, len);
	if (!buf[0])
		snprintf(buf, len, "a value");
	return buf;
}

ct_status ct_config_scan_literals(const char *file, struct ct_error *err)
{
	struct walker w;
	char *text;
	ct_status st = slurp(file, &text, NULL, err);

	if (st != CT_OK)
		return st;
	walk_init(&w, text);
	while (walk_next(&w)) {
		char key[CT_CONFIG_PATH_LEN], num[CT_NUMBER_BUF];
		const char *why, *fix;
		long long got;
		double d;

		if (w.t.kind == TK_FLOAT && !has_digit(w.t.s, w.t.e)) {
			st = ct_error_set(err, CT_EINVAL,
					  "%s:%u: %s = %.*s: not a number: it has no digit (libconfig would read it as 0)",
					  file, w.t.line,
					  literal_key(&w, key, sizeof(key)),
					  (int)(w.t.e - w.t.s), w.t.s);
			break;
		}
		if (w.t.kind == TK_FLOAT &&
		    (why = float_problem(w.t.s, w.t.e, &d)) != NULL) {
			st = ct_error_set(err, CT_ERANGE,
					  "%s:%u: %s = %.*s: %s: it would read as %s (a number other than 0 must be at least 2.2250738585072014e-308 in magnitude: write 0 or a larger number)",
					  file, w.t.line,
					  literal_key(&w, key, sizeof(key)),
					  (int)(w.t.e - w.t.s), w.t.s, why,
					  ct_number_format(d, num));
			break;
		}
		if (w.t.kind != TK_INT ||
		    !(why = literal_problem(w.t.s, w.t.e, &got, &fix)))
			continue;
		st = ct_error_set(err, CT_ERANGE,
				  "%s:%u: %s = %.*s: %s (libconfig would read it as %lld): %s",
				  file, w.t.line,
				  literal_key(&w, key, sizeof(key)),
				  (int)(w.t.e - w.t.s), w.t.s, why, got, fix);
		break;
	}
	free(text);
	return st;
}

/* ---- before libconfig: @include and the byte-order mark ---------------- */

/* The include name [s, e) unescaped as libconfig does (\\ and \"). */
static void include_name(const char *s, const char *e, char *buf, size_t len)
{
	size_t n = 0;

	for (; s < e && n + 1 < len; s++) {
		if (*s == '\\' && s + 1 < e && (s[1] == '\\' || s[1] == '"'))
			s++;
		buf[n++] = *s;
	}
	buf[n] = '\0';
}

/* What one read has taken so far, across the file and its @includes. */
struct budget {
	size_t values;      /* settings and array or list elements */
	unsigned includes;  /* @include lines followed */
};

static ct_status scan_includes(const char *file, const char *dir, int depth,
			       struct budget *b, struct ct_error *err);

/* The first line of text[0, n) longer than MAX_LINE bytes, or 0. */
static unsigned long_line(const char *text, size_t n)
{
	const char *p = text, *end = text + n;
	unsigned line = 1;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = (size_t)((nl ? nl : end) - p);

		if (len > MAX_LINE)
			return line;
		if (!nl)
			break;
		p = nl + 1;
		line++;
	}
	return 0;
}

/* A string (or @include name) longer than MAX_LINE bytes, which may span
 * lines, is refused as a long line is. */
static ct_status check_string(const char *file, const struct walker *w,
			      struct ct_error *err)
{
	char key[CT_CONFIG_PATH_LEN];

	if ((w->t.kind != TK_STRING && w->t.kind != TK_INCLUDE) ||
	    (size_t)(w->t.e - w->t.s) <= MAX_LINE)
		return CT_OK;
	return ct_error_set(err, CT_ERANGE,
			    "%s:%u: %s: a string longer than %d bytes: libconfig's time grows with the square of its length, so it is refused unread",
			    file, w->t.line, walk_path(w, key, sizeof(key)),
			    MAX_LINE);
}

/* Counts the setting or element at the walker's token against b; the
 * refusal names the key it reached. */
static ct_status spend_value(const char *file, const struct walker *w,
			     struct budget *b, struct ct_error *err)
{
	char key[CT_CONFIG_PATH_LEN];

	if (!(w->assigned || w->element) || ++b->values <= MAX_VALUES)
		return CT_OK;
	return ct_error_set(err, CT_EFULL,
			    "%s:%u: %s: more than %d settings and array elements in this configuration (its @include files counted): no valid one holds that many, refused unread",
			    file, w->t.line, walk_path(w, key, sizeof(key)),
			    MAX_VALUES);
}

/* One @include line: its file must be a readable regular file, then is
 * scanned as deep as libconfig would go. */
static ct_status follow_include(const char *file, const char *dir, int depth,
				const struct tok *t, struct budget *b,
				struct ct_error *err)
{
	char name[CT_CONFIG_PATH_LEN], full[CT_CONFIG_PATH_LEN + 8];
	char shown[2 * CT_CONFIG_PATH_LEN];
	const char *why, *esc;
	ct_status st;
	int n;

	include_name(t->s, t->e, name, sizeof(name));
	esc = ct_config_escape(name, 200, shown, sizeof(shown));
	/* an absolute name is refused: libconfig 1.5 opens it under the
	 * include directory ("/a.conf" as dir//a.conf), 1.7 as it is; the
	 * rest of this reader would take it as it is */
	if (name[0] == '/')
		return ct_error_set(err, CT_EINVAL,
				    "%s:%u: @include \"%s\": an absolute name is not supported (libconfig reads it under %s in one version and as it is in another): write it relative to %s",
				    file, t->line, esc, dir, dir);
	if (++b->includes > MAX_INCLUDES)
		return ct_error_set(err, CT_EFULL,
				    "%s:%u: @include \"%s\": more than %d @include lines followed in one configuration (a file included twice counts twice, with its own @include lines)",
				    file, t->line, esc, MAX_INCLUDES);
	n = snprintf(full, sizeof(full), "%s/%s", dir, name);
	if (n < 0 || (size_t)n >= sizeof(full))
		return ct_error_set(err, CT_ERANGE,
				    "%s:%u: @include \"%.64s...\": file name too long",
				    file, t->line, name);
	if ((why = ct_config_open_problem(full, &st)) != NULL)
		return ct_error_set(err, st,
				    "%s:%u: cannot open include file \"%s\" (%s): %s",
				    file, t->line, esc, full, why);
	/* libconfig opens MAX_INCLUDE_DEPTH levels of @include below the
	 * main file (depth 0), and refuses the next */
	if (depth + 1 <= MAX_INCLUDE_DEPTH)
		return scan_includes(full, dir, depth + 1, b, err);
	return CT_OK;
}

/* The byte-order mark, the @include lines and the budget of one file. */
static ct_status scan_includes(const char *file, const char *dir, int depth,
			       struct budget *b, struct ct_error *err)
{
	struct walker w;
	char *text;
	size_t n;
	unsigned line;
	ct_status st = check_trusted(file, err);

	if (st == CT_OK)
		st = slurp(file, &text, &n, err);

	if (st != CT_OK)
		return st;
	if (strncmp(text, "\xEF\xBB\xBF", 3) == 0) {
		free(text);
		return ct_error_set(err, CT_EINVAL,
				    "%s:1: the file starts with a UTF-8 byte-order mark (bytes EF BB BF), which libconfig cannot read: save it without one",
				    file);
	}
	if ((line = long_line(text, n)) != 0) {
		free(text);
		return ct_error_set(err, CT_ERANGE,
				    "%s:%u: a line longer than %d bytes: libconfig's time grows with the square of a long token, so it is refused unread",
				    file, line, MAX_LINE);
	}
	walk_init(&w, text);
	while (st == CT_OK && walk_next(&w)) {
		st = check_string(file, &w, err);
		if (st == CT_OK)
			st = w.t.kind == TK_INCLUDE
				? follow_include(file, dir, depth, &w.t, b,
						 err)
				: spend_value(file, &w, b, err);
	}
	free(text);
	/* an included file's numbers are checked here, whether or not a
	 * setting's name is in it: an @include in the middle of a setting
	 * ("p2 =" / @include / ";") brings a value alone, which the check
	 * of the files that hold a setting (after libconfig) never saw */
	if (st == CT_OK && depth > 0)
		st = ct_config_scan_literals(file, err);
	return st;
}

ct_status ct_config_scan_includes(const char *file, const char *dir,
				  struct ct_error *err)
{
	struct budget b = { 0, 0 };

	return scan_includes(file, dir, 0, &b, err);
}

/* ---- after libconfig's "duplicate setting name" ---------------------- */

unsigned ct_config_key_line(const char *file, const char *key)
{
	struct ct_error e;
	struct walker w;
	char *text;
	unsigned found = 0;

	if (slurp(file, &text, NULL, &e) != CT_OK)
		return 0;
	walk_init(&w, text);
	while (!found && walk_next(&w)) {
		char path[CT_CONFIG_PATH_LEN];

		if (!w.assigned)
			continue;
		walk_path(&w, path, sizeof(path));
		if (strcmp(path, key) == 0)
			found = w.t.line;
	}
	free(text);
	return found;
}

void ct_config_line_text(const char *file, unsigned line, char *buf,
			 size_t len)
{
	struct ct_error e;
	char *text;
	if (len == 0)
		return;
	buf[0] = '\0';
	if (line == 0 || slurp(file, &text, NULL, &e) != CT_OK)
		return;
	char *p = text;
	for (unsigned n = 1; p && n < line; n++) {
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	if (p) {
		char *end = strchr(p, '\n');
		if (end)
			*end = '\0';
		p += strspn(p, " \t");
		ct_config_escape(p, 80, buf, len);
	}
	free(text);
}

void ct_config_find_duplicate(const char *file, unsigned line, char *key,
			      size_t len, unsigned *first)
{
	struct ct_error e;
	struct walker w;
	char *text;
	struct { char *path; unsigned line; } *seen = NULL;
	size_t n_seen = 0, cap = 0;

	key[0] = '\0';
	*first = 0;
	if (len == 0 || slurp(file, &text, NULL, &e) != CT_OK)
		return;
	walk_init(&w, text);
	while (walk_next(&w) && w.t.line <= line) {
		char path[CT_CONFIG_PATH_LEN];

		if (!w.assigned)
			continue;
		walk_path(&w, path, sizeof(path));
		if (w.t.line == line) {
			if (!key[0])  /* at least the first name of the line */
				snprintf(key, len, "%s", path);
			for (size_t i = 0; i < n_seen; i++) {
				if (strcmp(seen[i].path, path) == 0) {
					snprintf(key, len, "%s", path);
					*first = seen[i].line;
					goto done;
				}
			}
		}
		if (n_seen == cap) {
			size_t nc = cap ? 2 * cap : 64;
			void *ns = realloc(seen, nc * sizeof(*seen));

			if (!ns)
				break;
			seen = ns;
			cap = nc;
		}
		if (!(seen[n_seen].path = strdup(path)))
			break;
		seen[n_seen++].line = w.t.line;
	}
done:
	for (size_t i = 0; i < n_seen; i++)
		free(seen[i].path);
	free(seen);
	free(text);
}

/* ---- text from a file, fit for a message ----------------------------- */

/* Length of the valid UTF-8 sequence at s (not a control character), or
 * 0. */
static size_t utf8_len(const unsigned char *s)
{
	size_t n;
	unsigned cp;

	if (s[0] < 0x80)
		return s[0] >= 0x20 && s[0] != 0x7f ? 1 : 0;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1fu;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0fu;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07u;
	else
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3fu);
	}
	if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return n;
}

const char *ct_config_escape(const char *s, size_t max, char *buf, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t used = 0, chars = 0;

	if (len == 0)
		return buf;
	buf[0] = '\0';
	while (*p && chars < max) {
		size_t n = utf8_len(p);
		char one[8];

		if (n == 1 && (*p == '"' || *p == '\\'))
			snprintf(one, sizeof(one), "\\%c", *p);
		else if (n > 0)
			snprintf(one, sizeof(one), "%.*s", (int)n, (const char *)p);
		else if (*p == '\n' || *p == '\t' || *p == '\r')
			snprintf(one, sizeof(one), "\\%c",
				 *p == '\n' ? 'n' : *p == '\t' ? 't' : 'r');
		else
			snprintf(one, sizeof(one), "\\x%02x", *p);
		if (used + strlen(one) + 4 > len)
			break;
		memcpy(buf + used, one, strlen(one) + 1);
		used += strlen(one);
		p += n ? n : 1;
		chars++;
	}
	if (*p && used + 4 <= len)
		memcpy(buf + used, "...", 4);
	return buf;
}
