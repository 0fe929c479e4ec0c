/* config_private.h: functions shared between the files of src/config/ and
 * used nowhere else. */
#ifndef CRAWLTOP_CONFIG_PRIVATE_H
#define CRAWLTOP_CONFIG_PRIVATE_H

#include <crawltop/status.h>

/* libconfig 1.5 silently wraps a decimal or hex integer literal that does
 * not fit in an int (2147483648 reads as -2147483648). This scans the text
 * of `file` (comments and strings skipped) and refuses such a literal
 * unless it carries the L suffix: CT_ERANGE naming file, line and literal.
 * CT_EIO when the file cannot be read. */
ct_status ct_config_scan_int_literals(const char *file, struct ct_error *err);

#endif
