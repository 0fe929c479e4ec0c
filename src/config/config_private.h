/* config_private.h: functions shared between the files of src/config/ and
 * used nowhere else. The text checks live in config_text.c. */
#ifndef CRAWLTOP_CONFIG_PRIVATE_H
#define CRAWLTOP_CONFIG_PRIVATE_H

#include <stddef.h>

#include <crawltop/status.h>

/* libconfig 1.5 silently wraps or clamps an integer literal that does not
 * fit its type: 2147483648 and 04294967297 (decimal, leading zeros and
 * all) are read into an int, 0xffffffff becomes -1, and with the L suffix
 * 99999999999999999999L is clamped to 2^63 - 1 and 0x1ffffffffffffffffL
 * becomes -1. This scans the text of `file` (comments and strings skipped)
 * and refuses such a literal: CT_ERANGE "file:line: key = literal: rule
 * (libconfig would read it as N)". CT_EIO when the file cannot be read. */
ct_status ct_config_scan_int_literals(const char *file, struct ct_error *err);

#endif
