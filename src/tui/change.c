/* change.c: an audit_log row's before and after as one change (change.h). */
#include <stdio.h>
#include <string.h>

#include <yajl/yajl_tree.h>

#include "change.h"

/* Appends n bytes of s at *at in buf (len bytes); stops at its end. */
static void add(char *buf, size_t len, size_t *at, const char *s, size_t n)
{
	if (*at + 1 >= len)
		return;
	if (n > len - 1 - *at)
		n = len - 1 - *at;
	memcpy(buf + *at, s, n);
	*at += n;
	buf[*at] = '\0';
}

static void adds(char *buf, size_t len, size_t *at, const char *s)
{
	add(buf, len, at, s, strlen(s));
}

/* A JSON string with its quotes and escapes, for nested values. */
static void add_quoted(char *buf, size_t len, size_t *at, const char *s)
{
	adds(buf, len, at, "\"");
	for (const char *p = s; *p; p++) {
		char e[8];
		if (*p == '"' || *p == '\\')
			snprintf(e, sizeof e, "\\%c", *p);
		else if ((unsigned char)*p < 0x20)
			snprintf(e, sizeof e, "\\u%04x", (unsigned char)*p);
		else
			snprintf(e, sizeof e, "%c", *p);
		adds(buf, len, at, e);
	}
	adds(buf, len, at, "\"");
}

/* Value v: a top-level string bare, anything else as compact JSON. */
static void add_value(char *buf, size_t len, size_t *at, yajl_val v, int top)
{
	if (YAJL_IS_STRING(v)) {
		if (top)
			adds(buf, len, at, YAJL_GET_STRING(v));
		else
			add_quoted(buf, len, at, YAJL_GET_STRING(v));
	} else if (YAJL_IS_NUMBER(v)) {
		adds(buf, len, at, YAJL_GET_NUMBER(v));
	} else if (YAJL_IS_TRUE(v)) {
		adds(buf, len, at, "true");
	} else if (YAJL_IS_FALSE(v)) {
		adds(buf, len, at, "false");
	} else if (YAJL_IS_OBJECT(v)) {
		adds(buf, len, at, "{");
		for (size_t i = 0; i < v->u.object.len; i++) {
			if (i)
				adds(buf, len, at, ",");
			add_quoted(buf, len, at, v->u.object.keys[i]);
			adds(buf, len, at, ":");
			add_value(buf, len, at, v->u.object.values[i], 0);
		}
		adds(buf, len, at, "}");
	} else if (YAJL_IS_ARRAY(v)) {
		adds(buf, len, at, "[");
		for (size_t i = 0; i < v->u.array.len; i++) {
			if (i)
				adds(buf, len, at, ",");
			add_value(buf, len, at, v->u.array.values[i], 0);
		}
		adds(buf, len, at, "]");
	} else {
		adds(buf, len, at, "null");
	}
}

/* Is a equal to b, as JSON values (numbers by their text)? */
static int same(yajl_val a, yajl_val b)
{
	char x[512] = "", y[512] = "";
	size_t i = 0, j = 0;
	add_value(x, sizeof x, &i, a, 0);
	add_value(y, sizeof y, &j, b, 0);
	return i < sizeof x - 1 && strcmp(x, y) == 0;
}

/* The value of key k in object o, or NULL. */
static yajl_val member(yajl_val o, const char *k)
{
	if (!o)
		return NULL;
	for (size_t i = 0; i < o->u.object.len; i++)
		if (strcmp(o->u.object.keys[i], k) == 0)
			return o->u.object.values[i];
	return NULL;
}

/* A side as an object: "" or NULL is an empty one (NULL returned, *ok
 * 1); text that is not a JSON object sets *ok to 0. */
static yajl_val parse(const char *s, int *ok)
{
	if (!s || !s[0])
		return NULL;
	yajl_val v = yajl_tree_parse(s, NULL, 0);
	if (!YAJL_IS_OBJECT(v)) {
		yajl_tree_free(v);
		*ok = 0;
		return NULL;
	}
	return v;
}

/* One key's item; before and after values b, a (either may be NULL). */
static void add_item(char *buf, size_t len, size_t *at, const char *k,
		     yajl_val b, yajl_val a, const char *arrow)
{
	if (*at)
		adds(buf, len, at, ", ");
	adds(buf, len, at, k);
	adds(buf, len, at, " ");
	if (b && (!a || !same(b, a))) {
		add_value(buf, len, at, b, 1);
		adds(buf, len, at, arrow);
	}
	if (a)
		add_value(buf, len, at, a, 1);
	else
		adds(buf, len, at, "-");
}

char *chg_format(char *buf, size_t len, const char *before,
		 const char *after, const char *arrow)
{
	size_t at = 0;
	int ok = 1;
	if (!len)
		return buf;
	buf[0] = '\0';
	yajl_val b = parse(before, &ok), a = parse(after, &ok);
	if (!ok) {
		adds(buf, len, &at, before && before[0] ? before : "-");
		adds(buf, len, &at, arrow);
		adds(buf, len, &at, after && after[0] ? after : "-");
	} else {
		/* after's keys, then before's others; "version" in the
		 * second pass's end */
		for (int pass = 0; pass < 3; pass++) {
			yajl_val o = pass == 1 ? b : a;
			if (!o)
				continue;
			for (size_t i = 0; i < o->u.object.len; i++) {
				const char *k = o->u.object.keys[i];
				int version = strcmp(k, "version") == 0;
				if (version != (pass == 2) ||
				    (pass == 1 && member(a, k)))
					continue;
				add_item(buf, len, &at, k, member(b, k),
					 member(a, k), arrow);
			}
			if (pass == 2 && !member(a, "version") &&
			    member(b, "version"))
				add_item(buf, len, &at, "version",
					 member(b, "version"), NULL, arrow);
		}
		if (!at)
			adds(buf, len, &at, "-");
	}
	yajl_tree_free(b);
	yajl_tree_free(a);
	return buf;
}
