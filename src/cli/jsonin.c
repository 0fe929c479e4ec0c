/* jsonin.c: one JSON line into a flat document (yajl callbacks), typed
 * reads of its fields, and the output helpers. */
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_parse.h>

#include "crawltop/reasons.h"
#include "crawltop/status.h"
#include "crawltop/timestamp.h"
#include "jsonin.h"

enum jin_type {
	JIN_NULL,
	JIN_BOOL,
	JIN_INTEGER, /* written without '.', 'e' or 'E' */
	JIN_REAL,
	JIN_STRING,
	JIN_OBJECT,
	JIN_ARRAY,
};

/* One object member. Offsets are into the document's arena. */
struct jin_entry {
	uint32_t key, klen; /* the key, NUL-terminated */
	uint32_t str, slen; /* JIN_STRING: the value, NUL-terminated */
	int32_t parent;     /* entry of the object holding it; -1: top */
	uint8_t type;       /* enum jin_type */
	bool b;             /* JIN_BOOL */
	long long i;        /* JIN_INTEGER */
	double num;         /* JIN_INTEGER and JIN_REAL */
};

/* A hash slot: live when its stamp is the document's. */
struct jin_slot {
	uint32_t stamp;
	int32_t idx;
};

struct jin_doc {
	struct jin_entry *e;
	uint32_t n, cap;
	char *arena;
	size_t used, acap;
	/* (parent, key) -> entry, power of 2 slots, kept only once a line
	 * has more than SMALL_DOC entries (below that a scan is cheaper) */
	bool hashed;
	struct jin_slot *slots;
	uint32_t nslots, stamp;
};

#define SMALL_DOC 16

struct jin_parser {
	yajl_handle h;   /* NULL after an error: a new one for the next line */
	struct jin_doc doc;
	int depth;       /* 0: outside the top value, 1: in the top object,
			    2: in an object member of it */
	int32_t parent;  /* depth 2: the entry of that member */
	uint32_t skip;   /* > 0: inside an unrecorded array or object */
	bool seen;       /* the line's top-level value has started */
	bool top_array;
	char msg[JIN_ERR]; /* why a callback stopped the parse */
};

#define MAX_OFFSET ((size_t)UINT32_MAX - 1)

/* Stop the parse with "malformed JSON: ..." (or another message when fmt
 * starts with '!'); returns 0, the yajl "cancel" value. */
static int fail(struct jin_parser *p, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;
static int fail(struct jin_parser *p, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (fmt[0] == '!') {
		vsnprintf(p->msg, sizeof p->msg, fmt + 1, ap);
	} else {
		int n = snprintf(p->msg, sizeof p->msg, "malformed JSON: ");
		vsnprintf(p->msg + n, sizeof p->msg - (size_t)n, fmt, ap);
	}
	va_end(ap);
	return 0;
}

/* Length (1..4) of the well-formed UTF-8 sequence at s (n > 0 bytes
 * available; s[0] >= 0x80), or 0: no overlong forms, surrogates or code
 * points above U+10FFFF. */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
	unsigned c = s[0];
	size_t len;
	unsigned lo = 0x80, hi = 0xbf; /* range of the second byte */
	if (c >= 0xc2 && c <= 0xdf)
		len = 2;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4;
	else
		return 0;
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return len;
}

/* 0 when s[0..n) is well-formed UTF-8 without NUL; else 1 for a NUL, 2
 * for bad UTF-8. ASCII goes eight bytes at a time. */
static int text_check(const unsigned char *s, size_t n)
{
	size_t i = 0;
	while (i < n) {
		if (n - i >= 8) {
			uint64_t w;
			memcpy(&w, s + i, 8);
			const uint64_t lo = 0x0101010101010101u, hi = 0x8080808080808080u;
			if (((w | ((w - lo) & ~w)) & hi) == 0) {
				i += 8;
				continue;
			}
		}
		unsigned c = s[i];
		if (c == 0)
			return 1;
		if (c < 0x80) {
			i++;
			continue;
		}
		size_t k = utf8_seq(s + i, n - i);
		if (!k)
			return 2;
		i += k;
	}
	return 0;
}

/* Check a key or string value from yajl; 0 (and a message) when bad. */
static int check_text(struct jin_parser *p, const unsigned char *s, size_t n,
		      const char *what)
{
	switch (text_check(s, n)) {
	case 0: return 1;
	case 1: return fail(p, "\\u0000 is not allowed in %s", what);
	default: return fail(p, "invalid UTF-8 or Unicode escape in %s", what);
	}
}

/* Copy n bytes and a NUL into the arena; its offset, or -1 (message set). */
static int64_t arena_put(struct jin_parser *p, const void *s, size_t n)
{
	struct jin_doc *d = &p->doc;
	if (n > MAX_OFFSET - d->used) {
		fail(p, "!line too long");
		return -1;
	}
	if (d->used + n + 1 > d->acap) {
		size_t cap = d->acap ? d->acap : 4096;
		while (cap < d->used + n + 1)
			cap *= 2;
		char *a = realloc(d->arena, cap);
		if (!a) {
			fail(p, "!out of memory");
			return -1;
		}
		d->arena = a;
		d->acap = cap;
	}
	int64_t off = (int64_t)d->used;
	memcpy(d->arena + d->used, s, n);
	d->arena[d->used + n] = '\0';
	d->used += n + 1;
	return off;
}

/* FNV-1a of the key, seeded with the entry of the object holding it. */
static uint32_t key_hash(int32_t parent, const char *k, size_t n)
{
	uint32_t h = 2166136261u ^ (uint32_t)(parent + 1);
	h *= 16777619u;
	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)k[i];
		h *= 16777619u;
	}
	return h;
}

/* The entry for key k (n bytes) in the object `parent`, or -1. */
static int32_t lookup(const struct jin_doc *d, int32_t parent, const char *k,
		      size_t n)
{
	if (!d->hashed) {
		for (uint32_t i = 0; i < d->n; i++) {
			const struct jin_entry *e = &d->e[i];
			if (e->klen == n && e->parent == parent &&
			    memcmp(d->arena + e->key, k, n) == 0)
				return (int32_t)i;
		}
		return -1;
	}
	uint32_t mask = d->nslots - 1;
	for (uint32_t i = key_hash(parent, k, n) & mask;; i = (i + 1) & mask) {
		const struct jin_slot *s = &d->slots[i];
		if (s->stamp != d->stamp)
			return -1;
		const struct jin_entry *e = &d->e[s->idx];
		if (e->parent == parent && e->klen == n &&
		    memcmp(d->arena + e->key, k, n) == 0)
			return s->idx;
	}
}

/* Put entry idx into its hash slot (the table has room). */
static void slot_put(struct jin_doc *d, int32_t idx)
{
	const struct jin_entry *e = &d->e[idx];
	uint32_t mask = d->nslots - 1;
	uint32_t i = key_hash(e->parent, d->arena + e->key, e->klen) & mask;
	while (d->slots[i].stamp == d->stamp)
		i = (i + 1) & mask;
	d->slots[i] = (struct jin_slot){d->stamp, idx};
}

/* "out of memory" as the parse's message; returns -1. */
static int oom(struct jin_parser *p)
{
	fail(p, "!out of memory");
	return -1;
}

/* Room for one more entry, in the array and, past SMALL_DOC entries, in
 * the hash table (kept at most half full); -1 (message set) when out of
 * memory. */
static int reserve_entry(struct jin_parser *p)
{
	struct jin_doc *d = &p->doc;
	if (d->n == d->cap) {
		if (d->cap >= INT32_MAX / 2) {
			fail(p, "!line too long");
			return -1;
		}
		uint32_t cap = d->cap ? d->cap * 2 : 32;
		struct jin_entry *e = realloc(d->e, cap * sizeof *e);
		if (!e)
			return oom(p);
		d->e = e;
		d->cap = cap;
	}
	if (d->n + 1 <= SMALL_DOC)
		return 0;
	if (2 * (d->n + 1) > d->nslots) {
		uint32_t ns = d->nslots ? d->nslots * 2 : 64;
		while (2 * (d->n + 1) > ns)
			ns *= 2;
		struct jin_slot *s = calloc(ns, sizeof *s);
		if (!s)
			return oom(p);
		free(d->slots);
		d->slots = s;
		d->nslots = ns;
		d->stamp = 0;
		d->hashed = false;
	}
	if (!d->hashed) { /* a fresh stamp empties the table */
		if (++d->stamp == 0) {
			memset(d->slots, 0, d->nslots * sizeof *d->slots);
			d->stamp = 1;
		}
		d->hashed = true;
		for (uint32_t i = 0; i < d->n; i++)
			slot_put(d, (int32_t)i);
	}
	return 0;
}

/* The entry a value belongs to: the last one, whose key came just before.
 * Returns 1 to record the value there, 0 to check it only (inside an
 * unrecorded container), -1 (message set) for a value outside the top
 * object. */
static int value_target(struct jin_parser *p)
{
	if (p->skip)
		return 0;
	if (p->depth == 0) {
		if (p->seen)
			fail(p, "trailing garbage");
		else
			fail(p, "'[' or '{' expected");
		return -1;
	}
	return 1;
}

/* The newest entry (there is one: a value follows its key). */
static struct jin_entry *last(struct jin_parser *p)
{
	return &p->doc.e[p->doc.n - 1];
}

/* yajl: null; 0 stops the parse (message set). */
static int cb_null(void *ctx)
{
	struct jin_parser *p = ctx;
	int t = value_target(p);
	if (t > 0)
		last(p)->type = JIN_NULL;
	return t >= 0;
}

/* yajl: true or false; 0 stops the parse (message set). */
static int cb_boolean(void *ctx, int v)
{
	struct jin_parser *p = ctx;
	int t = value_target(p);
	if (t > 0) {
		last(p)->type = JIN_BOOL;
		last(p)->b = v != 0;
	}
	return t >= 0;
}

/* A JSON number (the lexer checked its syntax) as jansson read it: an
 * integer unless it has a fraction or an exponent; integers must fit a
 * long long, reals must not overflow. */
static int cb_number(void *ctx, const char *s, size_t n)
{
	struct jin_parser *p = ctx;
	int t = value_target(p);
	if (t < 0)
		return 0;
	bool is_int = true;
	for (size_t i = 0; i < n; i++)
		if (s[i] == '.' || s[i] == 'e' || s[i] == 'E') {
			is_int = false;
			break;
		}
	long long iv = 0;
	double dv;
	if (is_int) {
		bool neg = s[0] == '-';
		unsigned long long u = 0;
		unsigned long long max = neg ? (unsigned long long)LLONG_MAX + 1
					     : (unsigned long long)LLONG_MAX;
		bool may_overflow = n - neg > 18; /* 18 digits always fit */
		for (size_t i = neg; i < n; i++) {
			unsigned dig = (unsigned)(s[i] - '0');
			if (may_overflow && u > (max - dig) / 10) /* as jansson */
				return neg ? fail(p, "too big negative integer")
					   : fail(p, "too big integer near '%.*s'",
						  n > 100 ? 100 : (int)n, s);
			u = u * 10 + dig;
		}
		if (neg)
			iv = u == (unsigned long long)LLONG_MAX + 1 ? LLONG_MIN
				: -(long long)u;
		else
			iv = (long long)u;
		dv = (double)iv;
	} else {
		char small[64];
		char *buf = small;
		if (n >= sizeof small) {
			buf = malloc(n + 1);
			if (!buf)
				return fail(p, "!out of memory");
		}
		memcpy(buf, s, n);
		buf[n] = '\0';
		dv = strtod(buf, NULL);
		if (buf != small)
			free(buf);
		if (isinf(dv))
			return fail(p, "real number overflow near '%.*s'",
				    n > 100 ? 100 : (int)n, s);
	}
	if (t > 0) {
		struct jin_entry *e = last(p);
		e->type = is_int ? JIN_INTEGER : JIN_REAL;
		e->i = iv;
		e->num = dv;
	}
	return 1;
}

/* yajl: a string value, checked, then copied to the arena if recorded;
 * 0 stops the parse (message set). */
static int cb_string(void *ctx, const unsigned char *s, size_t n)
{
	struct jin_parser *p = ctx;
	int t = value_target(p);
	if (t < 0 || !check_text(p, s, n, "a string"))
		return 0;
	if (t > 0) {
		int64_t off = arena_put(p, s, n);
		if (off < 0)
			return 0;
		struct jin_entry *e = last(p);
		e->type = JIN_STRING;
		e->str = (uint32_t)off;
		e->slen = (uint32_t)n;
	}
	return 1;
}

/* yajl: "{". The top object, an object member (recorded, and its
 * members too), or deeper (recorded, members not); a second top-level
 * value stops the parse. */
static int cb_start_map(void *ctx)
{
	struct jin_parser *p = ctx;
	if (p->skip) {
		p->skip++;
		return 1;
	}
	if (p->depth == 0) {
		if (p->seen)
			return fail(p, "trailing garbage");
		p->seen = true;
		p->depth = 1;
		return 1;
	}
	last(p)->type = JIN_OBJECT;
	if (p->depth == 1) {
		p->parent = (int32_t)(p->doc.n - 1);
		p->depth = 2;
	} else {
		p->skip = 1; /* too deep: recorded, contents not */
	}
	return 1;
}

/* A key: refused if it repeats one of the same object (jansson's
 * JSON_REJECT_DUPLICATES, checked before the value like jansson), else a
 * new entry waiting for its value. */
static int cb_map_key(void *ctx, const unsigned char *k, size_t n)
{
	struct jin_parser *p = ctx;
	if (!check_text(p, k, n, "an object key"))
		return 0;
	if (p->skip)
		return 1;
	struct jin_doc *d = &p->doc;
	int32_t parent = p->depth == 1 ? -1 : p->parent;
	if (lookup(d, parent, (const char *)k, n) >= 0)
		return fail(p, "duplicate object key near '\"%.*s\"'",
			    n > 100 ? 100 : (int)n, (const char *)k);
	if (reserve_entry(p) < 0)
		return 0;
	int64_t off = arena_put(p, k, n);
	if (off < 0)
		return 0;
	d->e[d->n] = (struct jin_entry){.key = (uint32_t)off,
		.klen = (uint32_t)n, .parent = parent, .type = JIN_NULL};
	if (d->hashed)
		slot_put(d, (int32_t)d->n);
	d->n++;
	return 1;
}

/* yajl: "}": back out of one object level. */
static int cb_end_map(void *ctx)
{
	struct jin_parser *p = ctx;
	if (p->skip)
		p->skip--;
	else
		p->depth--;
	return 1;
}

/* yajl: "[": recorded as one array entry (or the top value: "expected
 * a JSON object"), its contents skipped; a second top-level value stops
 * the parse. */
static int cb_start_array(void *ctx)
{
	struct jin_parser *p = ctx;
	if (p->skip) {
		p->skip++;
		return 1;
	}
	if (p->depth == 0) {
		if (p->seen)
			return fail(p, "trailing garbage");
		p->seen = true;
		p->top_array = true;
	} else {
		last(p)->type = JIN_ARRAY;
	}
	p->skip = 1; /* recorded, contents not */
	return 1;
}

/* yajl: "]": back out of one skipped level. */
static int cb_end_array(void *ctx)
{
	struct jin_parser *p = ctx;
	p->skip--;
	return 1;
}

static const yajl_callbacks callbacks = {
	.yajl_null = cb_null,
	.yajl_boolean = cb_boolean,
	.yajl_number = cb_number, /* raw text: yajl_integer/double unused */
	.yajl_string = cb_string,
	.yajl_start_map = cb_start_map,
	.yajl_map_key = cb_map_key,
	.yajl_end_map = cb_end_map,
	.yajl_start_array = cb_start_array,
	.yajl_end_array = cb_end_array,
};

/* A yajl handle that takes one value after another, so that it can be
 * reused line after line (yajl 2 has no reset); strings are checked as
 * UTF-8 by yajl, then strictly by check_text. */
static yajl_handle new_handle(struct jin_parser *p)
{
	yajl_handle h = yajl_alloc(&callbacks, NULL, p);
	if (h)
		yajl_config(h, yajl_allow_multiple_values, 1);
	return h;
}

/* See jsonin.h. */
struct jin_parser *jin_parser_new(void)
{
	struct jin_parser *p = calloc(1, sizeof *p);
	if (!p)
		return NULL;
	p->h = new_handle(p);
	if (!p->h) {
		free(p);
		return NULL;
	}
	return p;
}

/* See jsonin.h. */
void jin_parser_free(struct jin_parser *p)
{
	if (!p)
		return;
	if (p->h)
		yajl_free(p->h);
	free(p->doc.e);
	free(p->doc.arena);
	free(p->doc.slots);
	free(p);
}

/* Only JSON whitespace (yajl also skips \v and \f; see jin_parse). */
static bool blank(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\n' && s[i] != '\r')
			return false;
	return true;
}

/* The 4 hex digits at s (before end) as *cp; false if not 4 hex digits. */
static bool hex4(const char *s, const char *end, unsigned *cp)
{
	if (end - s < 4)
		return false;
	*cp = 0;
	for (int i = 0; i < 4; i++) {
		unsigned c = (unsigned char)s[i], v;
		if (c >= '0' && c <= '9')
			v = c - '0';
		else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
			v = (c | 0x20) - 'a' + 10;
		else
			return false;
		*cp = *cp << 4 | v;
	}
	return true;
}

/* False when a \u escape of a UTF-16 surrogate is not one half of a high
 * then low pair, which jansson refused and yajl turns into '?' or into
 * bytes that are not UTF-8. Escapes that are not even well-formed are left
 * to yajl's lexer. Lines without a backslash cost one memchr. */
static bool surrogates_paired(const char *s, size_t n)
{
	const char *end = s + n, *q = s;
	while ((q = memchr(q, '\\', (size_t)(end - q))) != NULL) {
		unsigned cp, lo;
		if (end - q < 2)
			return true;
		if (q[1] != 'u' || !hex4(q + 2, end, &cp)) {
			q += 2;
			continue;
		}
		q += 6;
		if (cp >= 0xdc00 && cp <= 0xdfff)
			return false;
		if (cp >= 0xd800 && cp <= 0xdbff) {
			if (end - q < 6 || q[0] != '\\' || q[1] != 'u' ||
			    !hex4(q + 2, end, &lo) || lo < 0xdc00 || lo > 0xdfff)
				return false;
			q += 6;
		}
	}
	return true;
}

/* See jsonin.h. Blank lines, \v, \f and unpaired surrogate escapes are
 * caught before yajl; yajl errors come back as "malformed JSON: " and
 * yajl's text, callback refusals with their own message. */
const struct jin_doc *jin_parse(struct jin_parser *p, const char *line,
				size_t len, char err[JIN_ERR])
{
	struct jin_doc *d = &p->doc;
	d->n = 0;
	d->used = 0;
	d->hashed = false;
	p->depth = 0;
	p->skip = 0;
	p->seen = false;
	p->top_array = false;
	p->msg[0] = '\0';
	if (blank(line, len)) {
		snprintf(err, JIN_ERR, "malformed JSON: empty line");
		return NULL;
	}
	/* \v and \f: whitespace to yajl, errors to JSON (and inside a
	 * string yajl refuses them anyway) */
	if (memchr(line, '\v', len) || memchr(line, '\f', len)) {
		snprintf(err, JIN_ERR, "malformed JSON: invalid character "
			 "(\\v or \\f) in json text");
		return NULL;
	}
	if (!surrogates_paired(line, len)) {
		snprintf(err, JIN_ERR, "malformed JSON: invalid Unicode escape "
			 "(unpaired UTF-16 surrogate)");
		return NULL;
	}
	if (!p->h && !(p->h = new_handle(p))) {
		snprintf(err, JIN_ERR, "out of memory");
		return NULL;
	}
	yajl_status st = yajl_parse(p->h, (const unsigned char *)line, len);
	if (st == yajl_status_ok)
		st = yajl_complete_parse(p->h);
	if (st != yajl_status_ok) {
		if (st == yajl_status_client_canceled) {
			snprintf(err, JIN_ERR, "%s", p->msg);
		} else {
			unsigned char *m = yajl_get_error(p->h, 0, NULL, 0);
			int n = snprintf(err, JIN_ERR, "malformed JSON: %s",
					 m ? (const char *)m : "?");
			while (n > 0 && n < JIN_ERR && err[n - 1] == '\n')
				err[--n] = '\0';
			if (m)
				yajl_free_error(p->h, m);
		}
		/* a handle that failed stays failed */
		yajl_free(p->h);
		p->h = NULL;
		return NULL;
	}
	if (!p->seen) {
		snprintf(err, JIN_ERR, "malformed JSON: empty line");
		return NULL;
	}
	if (p->top_array) {
		snprintf(err, JIN_ERR, "expected a JSON object");
		return NULL;
	}
	return d;
}

/* "an integer", "an array", ...: the jansson readers' words. */
static const char *type_name(const struct jin_entry *e)
{
	switch ((enum jin_type)e->type) {
	case JIN_OBJECT: return "an object";
	case JIN_ARRAY: return "an array";
	case JIN_STRING: return "a string";
	case JIN_INTEGER: return "an integer";
	case JIN_REAL: return "a number";
	case JIN_BOOL: return "a boolean";
	case JIN_NULL: return "null";
	}
	return "?";
}

/* The entry at path ("key" or "obj.key") and, in *name, the key part
 * (for messages); NULL when absent. */
static const struct jin_entry *find(const struct jin_doc *d, const char *path,
				    const char **name)
{
	int32_t parent = -1;
	const char *dot = strchr(path, '.');
	if (dot) {
		parent = lookup(d, -1, path, (size_t)(dot - path));
		if (parent < 0 || d->e[parent].type != JIN_OBJECT)
			return NULL;
		path = dot + 1;
	}
	*name = path;
	int32_t i = lookup(d, parent, path, strlen(path));
	return i < 0 ? NULL : &d->e[i];
}

/* "field 'key': expected want, got type" in err; returns -1. */
static int wrong(const char *key, const char *want, const struct jin_entry *e,
		 char err[JIN_ERR])
{
	snprintf(err, JIN_ERR, "field '%s': expected %s, got %s", key, want,
		 type_name(e));
	return -1;
}

/* See jsonin.h (keys in input order, as jansson iterated them). */
int jin_only(const struct jin_doc *d, const char *where,
	     const char *const *allowed, char err[JIN_ERR])
{
	int32_t parent = -1;
	if (where) {
		parent = lookup(d, -1, where, strlen(where));
		if (parent < 0)
			return 0;
	}
	for (uint32_t i = 0; i < d->n; i++) {
		const struct jin_entry *e = &d->e[i];
		if (e->parent != parent)
			continue;
		const char *key = d->arena + e->key;
		const char *const *a = allowed;
		while (*a && strcmp(*a, key) != 0)
			a++;
		if (!*a) {
			snprintf(err, JIN_ERR, "unknown field '%s%s%.100s'",
				 where ? where : "", where ? "." : "", key);
			return -1;
		}
	}
	return 0;
}

/* The entry at path when it is there and not null (*present says which),
 * else NULL: for every field, null means absent. */
static const struct jin_entry *given(const struct jin_doc *d, const char *path,
				     const char **key, bool *present)
{
	const struct jin_entry *e = find(d, path, key);
	*present = e != NULL && e->type != JIN_NULL;
	return *present ? e : NULL;
}

/* See jsonin.h. */
int jin_number(const struct jin_doc *d, const char *path, double *out,
	       bool *present, char err[JIN_ERR])
{
	const char *key;
	const struct jin_entry *e = given(d, path, &key, present);
	if (!e)
		return 0;
	if (e->type != JIN_INTEGER && e->type != JIN_REAL)
		return wrong(key, "a number", e, err);
	*out = e->num;
	return 0;
}

/* See jsonin.h. */
int jin_integer(const struct jin_doc *d, const char *path, long *out,
		bool *present, char err[JIN_ERR])
{
	const char *key;
	const struct jin_entry *e = given(d, path, &key, present);
	if (!e)
		return 0;
	if (e->type == JIN_REAL) {
		if (e->num != floor(e->num) || fabs(e->num) > 1e15)
			return wrong(key, "an integer", e, err);
		*out = (long)e->num;
		return 0;
	}
	if (e->type != JIN_INTEGER)
		return wrong(key, "an integer", e, err);
	*out = (long)e->i;
	return 0;
}

/* See jsonin.h. */
int jin_string(const struct jin_doc *d, const char *path, const char **out,
	       bool *present, char err[JIN_ERR])
{
	const char *key;
	const struct jin_entry *e = given(d, path, &key, present);
	if (!e)
		return 0;
	if (e->type != JIN_STRING)
		return wrong(key, "a string", e, err);
	*out = d->arena + e->str;
	return 0;
}

/* See jsonin.h. */
int jin_bool(const struct jin_doc *d, const char *path, bool *out,
	     bool *present, char err[JIN_ERR])
{
	const char *key;
	const struct jin_entry *e = given(d, path, &key, present);
	if (!e)
		return 0;
	if (e->type != JIN_BOOL)
		return wrong(key, "a boolean", e, err);
	*out = e->b;
	return 0;
}

/* See jsonin.h. */
int jin_object(const struct jin_doc *d, const char *path, bool *present,
	       char err[JIN_ERR])
{
	const char *key;
	const struct jin_entry *e = given(d, path, &key, present);
	if (!e)
		return 0;
	if (e->type != JIN_OBJECT)
		return wrong(key, "an object", e, err);
	return 0;
}

/* See jsonin.h; a real (1.7e12) is not epoch ms, as with jansson. */
int jin_time(const struct jin_doc *d, const char *path, int64_t *out,
	     bool *present, char err[JIN_ERR])
{
	const char *key;
	const struct jin_entry *e = given(d, path, &key, present);
	if (!e)
		return 0;
	if (e->type == JIN_INTEGER) {
		*out = (int64_t)e->i;
		return 0;
	}
	if (e->type != JIN_STRING)
		return wrong(key, "epoch milliseconds or an ISO-8601 string", e, err);
	struct ct_error ce;
	if (ct_time_parse(d->arena + e->str, out, &ce) != CT_OK) {
		snprintf(err, JIN_ERR, "field '%s': %s", key, ce.msg);
		return -1;
	}
	return 0;
}

/* See jsonin.h. */
yajl_gen jout_alloc(void)
{
	yajl_gen g = yajl_gen_alloc(NULL);
	if (!g)
		return NULL;
	yajl_gen_config(g, yajl_gen_beautify, 0);
	yajl_gen_config(g, yajl_gen_validate_utf8, 0);
	yajl_gen_config(g, yajl_gen_escape_solidus, 0);
	return g;
}

/* See jsonin.h. */
void jout_string(yajl_gen g, const char *s)
{
	yajl_gen_string(g, (const unsigned char *)s, strlen(s));
}

/* Decimal digits of v into buf (>= 21 bytes); returns the length. */
static size_t format_int(long long v, char *buf)
{
	char tmp[24];
	size_t n = 0, len = 0;
	unsigned long long u = v < 0 ? 0ull - (unsigned long long)v
				     : (unsigned long long)v;
	do {
		tmp[n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		buf[len++] = '-';
	while (n)
		buf[len++] = tmp[--n];
	return len;
}

/* "%.12g", with the exponent as jansson wrote it: no '+', no leading
 * zeros ("1e-05" -> "1e-5"). Returns the length. */
static size_t format_real(double v, char *buf, size_t size)
{
	int n = snprintf(buf, size, "%.12g", v);
	if (n < 0 || (size_t)n >= size)
		return 0;
	char *e = strchr(buf, 'e');
	if (e) {
		char *start = e + 1, *end = e + 2;
		if (*start == '-')
			start++;
		while (*end == '0')
			end++;
		if (end != start) {
			memmove(start, end, (size_t)(buf + n - end) + 1);
			n -= (int)(end - start);
		}
	}
	return (size_t)n;
}

/* "%.12g" of v without printf when that is exact: v is the double
 * nearest to m / 10^k with m < 10^12 (so that decimal has at most 12
 * significant digits, and v lies far closer to it than to any other
 * 12-digit decimal) and 1e-3 <= |v| < 1e12 (fixed notation). Returns the
 * length, or 0 to fall back to printf. */
static size_t format_real_fast(double v, char *buf)
{
	static const double p10[13] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6,
		1e7, 1e8, 1e9, 1e10, 1e11, 1e12};
	double a = fabs(v);
	if (!(a >= 1e-3 && a < 1e12))
		return 0;
	for (int k = 1; k <= 12; k++) {
		double scaled = a * p10[k];
		if (scaled >= 1e12)
			return 0;
		long long m = llround(scaled);
		if ((double)m / p10[k] != a)
			continue;
		/* digits of m with the point k places from the right */
		char digits[24];
		size_t nd = format_int(m, digits), len = 0;
		if (v < 0)
			buf[len++] = '-';
		if (nd <= (size_t)k) {
			buf[len++] = '0';
			buf[len++] = '.';
			for (size_t z = nd; z < (size_t)k; z++)
				buf[len++] = '0';
			memcpy(buf + len, digits, nd);
			len += nd;
		} else {
			memcpy(buf + len, digits, nd - (size_t)k);
			len += nd - (size_t)k;
			buf[len++] = '.';
			memcpy(buf + len, digits + nd - (size_t)k, (size_t)k);
			len += (size_t)k;
		}
		return len;
	}
	return 0;
}

/* See jsonin.h. */
void jout_number(yajl_gen g, double v)
{
	char buf[40];
	size_t n;
	if (!isfinite(v)) {
		yajl_gen_null(g);
		return;
	}
	if (fabs(v) < 1e15 && (double)(long long)v == v)
		n = format_int((long long)v, buf);
	else if (!(n = format_real_fast(v, buf)))
		n = format_real(v, buf, sizeof buf);
	yajl_gen_number(g, buf, n);
}

/* Length of the longest well-formed UTF-8 prefix of s[0..n). */
static size_t utf8_prefix(const unsigned char *s, size_t n)
{
	size_t i = 0;
	while (i < n) {
		if (s[i] < 0x80) {
			i++;
			continue;
		}
		size_t k = utf8_seq(s + i, n - i);
		if (!k)
			break;
		i += k;
	}
	return i;
}

/* See jsonin.h. */
void jout_reasons(yajl_gen g, const struct ct_reasons *rs)
{
	char buf[256];
	yajl_gen_array_open(g);
	for (int i = 0; i < rs->n; i++) {
		int n = ct_reason_format(&rs->r[i], buf, sizeof buf);
		size_t len = n < 0 ? 0 : (size_t)n;
		if (len >= sizeof buf) /* cut: maybe inside a character */
			len = utf8_prefix((const unsigned char *)buf, sizeof buf - 1);
		yajl_gen_string(g, (const unsigned char *)buf, len);
	}
	yajl_gen_array_close(g);
}

/* See jsonin.h. */
void jout_message(yajl_gen g, char *msg)
{
	unsigned char *s = (unsigned char *)msg;
	size_t n = strlen(msg), out = 0;
	for (size_t i = 0; i < n;) {
		size_t k = s[i] < 0x80 ? 1 : utf8_seq(s + i, n - i);
		if (!k) { /* drop the bad byte */
			i++;
			continue;
		}
		memmove(s + out, s + i, k);
		out += k;
		i += k;
	}
	yajl_gen_string(g, s, out);
}
