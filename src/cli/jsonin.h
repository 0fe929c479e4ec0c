/* jsonin.h: JSON Lines input and output for `crawltop score` (yajl).
 *
 * A line is parsed by a reused yajl handle into a flat document: one entry
 * per object member, named by its key and the entry of the object holding
 * it. The top object's members and the members of objects inside it are
 * recorded; anything deeper, and every array, is recorded as one entry of
 * that type without its contents (no model reads it, so reading it is
 * always an error, "field 'x': expected ..., got an array"). Strings live
 * in the document's arena, NUL-terminated, until the next line is parsed.
 *
 * The readers take a path: "key" for a member of the top object,
 * "obj.key" for a member of the object at "obj". Each returns 0 when the
 * field is absent (*present = false, *out untouched), 0 with *present =
 * true when it holds the right type, and -1 with a message in err naming
 * the field and what was wrong. Their messages are those of the jansson
 * readers they replace. */
#ifndef CRAWLTOP_JSONIN_H
#define CRAWLTOP_JSONIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <yajl/yajl_gen.h>

#define JIN_ERR 768

/* One parsed line (opaque; defined in jsonin.c). */
struct jin_doc;
struct jin_parser;

/* A parser with no line in it yet, or NULL when out of memory. */
struct jin_parser *jin_parser_new(void);
/* Frees p and its document; p may be NULL. */
void jin_parser_free(struct jin_parser *p);
/* Parse one line (no newline) of len bytes. Returns the document, valid
 * until the next call, or NULL with the reason in err: "malformed JSON:
 * ..." (syntax, invalid UTF-8, NUL in a string, duplicate key, integer or
 * real out of range, not one value), "expected a JSON object", or "out of
 * memory". */
const struct jin_doc *jin_parse(struct jin_parser *p, const char *line,
				size_t len, char err[JIN_ERR]);

/* -1 if the object at `where` (NULL: the top object) has a key not in the
 * NULL-terminated list `allowed`. */
int jin_only(const struct jin_doc *d, const char *where,
	     const char *const *allowed, char err[JIN_ERR]);
/* Every reader below: a field that is missing or null is absent (*present
 * false, *out unchanged), so the default applies (SPEC.md, seed 004:
 * "Defaults when absent"). */
/* An integer or a real. */
int jin_number(const struct jin_doc *d, const char *path, double *out,
	       bool *present, char err[JIN_ERR]);
/* An integer, or a real with an integral value of at most 1e15. */
int jin_integer(const struct jin_doc *d, const char *path, long *out,
		bool *present, char err[JIN_ERR]);
/* A string (borrowed from d); null counts as absent. */
int jin_string(const struct jin_doc *d, const char *path, const char **out,
	       bool *present, char err[JIN_ERR]);
/* A boolean; null counts as absent. */
int jin_bool(const struct jin_doc *d, const char *path, bool *out,
	     bool *present, char err[JIN_ERR]);
/* An object field, read further through paths "path.key"; null counts as
 * absent. */
int jin_object(const struct jin_doc *d, const char *path, bool *present,
	       char err[JIN_ERR]);
/* Epoch ms (integer) or ISO-8601 string; null counts as absent. */
int jin_time(const struct jin_doc *d, const char *path, int64_t *out,
	     bool *present, char err[JIN_ERR]);

/* A yajl generator for our output: compact, '/' not escaped, no UTF-8
 * check (every string written was checked on input or is ours). NULL when
 * out of memory. */
yajl_gen jout_alloc(void);
/* Write a NUL-terminated string (a key or a value). */
void jout_string(yajl_gen g, const char *s);
/* Write a number: integral values with |v| < 1e15 as integers ("94",
 * "-8"), others as "%.12g" with jansson's exponent form ("1e-5"), and a
 * value that is not finite as null. */
void jout_number(yajl_gen g, double v);
/* Write the formatted reasons as an array of strings (a reason cut at 255
 * bytes is cut at a character boundary). */
struct ct_reasons;
void jout_reasons(yajl_gen g, const struct ct_reasons *rs);
/* Write a message that may quote input cut at a byte count ("%.64s"):
 * drops invalid or cut UTF-8 sequences from msg in place, then writes it. */
void jout_message(yajl_gen g, char *msg);

#endif
