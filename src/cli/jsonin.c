/* jsonin.c: typed reads of JSON fields and the output helpers. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "crawltop/reasons.h"
#include "crawltop/status.h"
#include "crawltop/timestamp.h"
#include "jsonin.h"

static const char *type_name(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT: return "an object";
	case JSON_ARRAY: return "an array";
	case JSON_STRING: return "a string";
	case JSON_INTEGER: return "an integer";
	case JSON_REAL: return "a number";
	case JSON_TRUE:
	case JSON_FALSE: return "a boolean";
	case JSON_NULL: return "null";
	}
	return "?";
}

static int wrong(const char *key, const char *want, const json_t *v,
		 char err[JIN_ERR])
{
	snprintf(err, JIN_ERR, "field '%s': expected %s, got %s", key, want,
		 type_name(v));
	return -1;
}

int jin_only(json_t *obj, const char *const *allowed, const char *where,
	     char err[JIN_ERR])
{
	const char *key;
	json_t *v;
	json_object_foreach(obj, key, v) {
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

int jin_number(json_t *obj, const char *key, double *out, bool *present,
	       char err[JIN_ERR])
{
	json_t *v = json_object_get(obj, key);
	*present = v != NULL;
	if (!v)
		return 0;
	if (!json_is_number(v))
		return wrong(key, "a number", v, err);
	*out = json_number_value(v);
	return 0;
}

int jin_integer(json_t *obj, const char *key, long *out, bool *present,
		char err[JIN_ERR])
{
	json_t *v = json_object_get(obj, key);
	*present = v != NULL;
	if (!v)
		return 0;
	if (json_is_real(v)) {
		double d = json_real_value(v);
		if (d != floor(d) || fabs(d) > 1e15)
			return wrong(key, "an integer", v, err);
		*out = (long)d;
		return 0;
	}
	if (!json_is_integer(v))
		return wrong(key, "an integer", v, err);
	*out = (long)json_integer_value(v);
	return 0;
}

int jin_string(json_t *obj, const char *key, const char **out, bool *present,
	       char err[JIN_ERR])
{
	json_t *v = json_object_get(obj, key);
	*present = v != NULL && !json_is_null(v);
	if (!*present)
		return 0;
	if (!json_is_string(v))
		return wrong(key, "a string", v, err);
	*out = json_string_value(v);
	return 0;
}

int jin_bool(json_t *obj, const char *key, bool *out, bool *present,
	     char err[JIN_ERR])
{
	json_t *v = json_object_get(obj, key);
	*present = v != NULL && !json_is_null(v);
	if (!*present)
		return 0;
	if (!json_is_boolean(v))
		return wrong(key, "a boolean", v, err);
	*out = json_is_true(v);
	return 0;
}

int jin_object(json_t *obj, const char *key, json_t **out, bool *present,
	       char err[JIN_ERR])
{
	json_t *v = json_object_get(obj, key);
	*present = v != NULL && !json_is_null(v);
	if (!*present)
		return 0;
	if (!json_is_object(v))
		return wrong(key, "an object", v, err);
	*out = v;
	return 0;
}

int jin_time(json_t *obj, const char *key, int64_t *out, bool *present,
	     char err[JIN_ERR])
{
	json_t *v = json_object_get(obj, key);
	*present = v != NULL && !json_is_null(v);
	if (!*present)
		return 0;
	if (json_is_integer(v)) {
		*out = (int64_t)json_integer_value(v);
		return 0;
	}
	if (!json_is_string(v))
		return wrong(key, "epoch milliseconds or an ISO-8601 string", v, err);
	struct ct_error e;
	if (ct_time_parse(json_string_value(v), out, &e) != CT_OK) {
		snprintf(err, JIN_ERR, "field '%s': %s", key, e.msg);
		return -1;
	}
	return 0;
}

void jout_number(json_t *obj, const char *key, double v)
{
	if (v == floor(v) && fabs(v) < 1e15)
		json_object_set_new(obj, key, json_integer((json_int_t)v));
	else
		json_object_set_new(obj, key, json_real(v));
}

json_t *jout_reasons(const struct ct_reasons *rs)
{
	json_t *a = json_array();
	char buf[256];
	for (int i = 0; i < rs->n; i++) {
		ct_reason_format(&rs->r[i], buf, sizeof buf);
		json_array_append_new(a, json_string(buf));
	}
	return a;
}
