/* config_env.c: seed 003's environment overrides.
 *
 * The variable names live in the key table (the env column), so a new
 * override is one more table row. Values are parsed strictly: the whole
 * string must be one finite decimal number. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "config_keys.h"
#include "config_private.h"
#include "crawltop/number.h"

/* Parses the whole of v as a finite number; *why names the flaw. */
static bool parse_strict(const char *v, double *out, const char **why)
{
	char *end;

	if (v[0] == '\0') {
		*why = "not a number (empty)";
		return false;
	}
	if (v[0] == ' ' || v[0] == '\t') {
		*why = "not a number (leading space)";
		return false;
	}
	errno = 0;
	*out = strtod(v, &end);
	if (end != v && end[strspn(end, " \t\r\n")] == '\0' && *end) {
		*why = "not a number (trailing space)";
		return false;
	}
	if (*end != '\0') {
		*why = "not a number";
		return false;
	}
	if (!isfinite(*out)) {
		*why = "not a finite number";
		return false;
	}
	if (errno == ERANGE) {
		*why = "out of the range of a double";
		return false;
	}
	if (!ct_number_text(v, true)) {
		*why = "not a plain decimal number (no '+' or hexadecimal)";
		return false;
	}
	return true;
}

/* The value as a message shows it: as it is when plain, else quoted with
 * spaces kept and anything unprintable escaped. */
static const char *shown(const char *v, char *buf, size_t len)
{
	char esc[200];
	bool plain = v[0] != '\0';

	for (const char *p = v; *p && plain; p++)
		plain = *p > ' ' && *p < 0x7f && *p != '"' && *p != '\\';
	if (plain)
		snprintf(buf, len, "%.64s", v);
	else
		snprintf(buf, len, "\"%s\"", ct_config_escape(v, 64, esc,
							 sizeof(esc)));
	return buf;
}

/* For each key with an env name, in table order: parse, range-check,
 * store, record the variable as the source. Stops at the first error,
 * which names the variable, its value, the key and the rule. */
ct_status ct_config_apply_env(struct ct_config *c, struct ct_error *err)
{
	for (size_t i = 0; i < ct_n_keys; i++) {
		const struct ct_key *k = &ct_keys[i];
		const char *v, *why;
		double d;
		char rule[96], val[256];

		if (!k->env || !(v = getenv(k->env)))
			continue;
		if (!parse_strict(v, &d, &why))
			return ct_error_set(err, CT_EINVAL,
					    "environment %s=%s: %s: %s", k->env,
					    shown(v, val, sizeof(val)), k->path,
					    why);
		if (k->type != CT_KEY_DOUBLE && d != floor(d))
			return ct_error_set(err, CT_EINVAL,
					    "environment %s=%s: %s must be a whole number",
					    k->env, shown(v, val, sizeof(val)),
					    k->path);
		if (!ct_key_range_ok(k->min, k->max, k->flags, d))
			return ct_error_set(err, CT_ERANGE,
					    "environment %s=%s: %s %s",
					    k->env, shown(v, val, sizeof(val)),
					    k->path,
					    ct_key_range_str(k->min, k->max,
							     k->flags, rule,
							     sizeof(rule)));
		ct_key_put_number(k, &c->settings, d, (long long)d);
		c->key_src[i] = (struct ct_config_source){
			.origin = CT_FROM_ENV,
			.env = k->env,
		};
	}
	return CT_OK;
}
