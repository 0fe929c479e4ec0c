/* jsonin.h: typed, checked reads of JSON object fields (jansson).
 *
 * Each reader returns 0 when the field is absent (*present = false, *out
 * untouched), 0 with *present = true when it holds the right type, and -1
 * with a message in err naming the field and what was wrong. */
#ifndef CRAWLTOP_JSONIN_H
#define CRAWLTOP_JSONIN_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#define JIN_ERR 768

/* -1 if obj has a key not in the NULL-terminated list `allowed`. */
int jin_only(json_t *obj, const char *const *allowed, const char *where,
	     char err[JIN_ERR]);
int jin_number(json_t *obj, const char *key, double *out, bool *present,
	       char err[JIN_ERR]);
int jin_integer(json_t *obj, const char *key, long *out, bool *present,
		char err[JIN_ERR]);
int jin_string(json_t *obj, const char *key, const char **out, bool *present,
	       char err[JIN_ERR]);
int jin_bool(json_t *obj, const char *key, bool *out, bool *present,
	     char err[JIN_ERR]);
/* An object field; null counts as absent. */
int jin_object(json_t *obj, const char *key, json_t **out, bool *present,
	       char err[JIN_ERR]);
/* Epoch ms (integer) or ISO-8601 string; null counts as absent. */
int jin_time(json_t *obj, const char *key, int64_t *out, bool *present,
	     char err[JIN_ERR]);

/* Add a number: an integer when integral and small, else a real. */
void jout_number(json_t *obj, const char *key, double v);
/* A JSON array of the formatted reasons. */
struct ct_reasons;
json_t *jout_reasons(const struct ct_reasons *rs);

#endif
