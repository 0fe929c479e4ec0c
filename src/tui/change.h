/* change.h: an audit_log row's before and after, shown as one change.
 *
 * The log keeps two JSON objects, {"priority": 5} and {"priority": 7}; the
 * console shows "priority 5 -> 7". Curses-free (the unit tests use it). */
#ifndef CT_TUI_CHANGE_H
#define CT_TUI_CHANGE_H

#include <stddef.h>

/* Write the change from before to after (JSON objects as text; "" or
 * NULL for none) into buf of len bytes, always NUL-terminated: one item
 * per key, in after's order and then before's other keys, "version" last,
 * separated by ", ":
 *   "key b<arrow>a"   the value changed
 *   "key v"           only after has it, or both have the same value
 *   "key b<arrow>-"   only before has it
 * Strings are shown without quotes, other values as compact JSON. When
 * either side is not a JSON object, both are shown as they are:
 * "before<arrow>after". Returns buf. */
char *chg_format(char *buf, size_t len, const char *before,
		 const char *after, const char *arrow);

#endif
