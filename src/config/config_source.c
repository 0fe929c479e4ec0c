/* config_source.c: a struct ct_config starts as the defaults, and every
 * value keeps a record of where it came from. */
#include <stdio.h>
#include <string.h>

#include "config.h"

/* Engine defaults; every source CT_FROM_DEFAULT (the zero record). */
void ct_config_init(struct ct_config *c)
{
	memset(c, 0, sizeof(*c));
	ct_settings_default(&c->settings);
}

/* "file:line", "environment NAME" or "default". */
const char *ct_config_source_str(const struct ct_config *c,
				 const struct ct_config_source *src,
				 char *buf, size_t len)
{
	switch (src->origin) {
	case CT_FROM_FILE: /* line 0: a source without lines */
		snprintf(buf, len, src->line ? "%s:%u" : "%s",
			 src->file < c->n_files ? c->files[src->file] : "?",
			 src->line);
		break;
	case CT_FROM_ENV:
		snprintf(buf, len, "environment %s", src->env);
		break;
	case CT_FROM_DEFAULT:
	default:
		snprintf(buf, len, "default");
		break;
	}
	return buf;
}
