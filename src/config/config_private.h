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
 * (libconfig would read it as N)". So is a non-zero float literal that
 * strtod reads as 0 or a subnormal: "file:line: key = 1e-400: too small
 * for a double: it would read as 0 (...)". CT_EIO when the file cannot be
 * read. */
ct_status ct_config_scan_literals(const char *file, struct ct_error *err);

/* Run before libconfig reads `file`: every @include line of it (and of the
 * files it includes, as deep as libconfig goes) must name a readable
 * regular file, resolved against dir as libconfig does; else "file:line:
 * cannot open include file "name" (path): reason" (CT_ENOENT when missing,
 * CT_EIO otherwise). libconfig 1.5 would say no more than "cannot open
 * include file", and for a directory exits the process. A file that starts
 * with a UTF-8 byte-order mark is CT_EINVAL, said so, as is a file owned
 * by another user than the running one or root, or writable by others or
 * by a group other than its owner's private one. A configuration whose
 * size would make libconfig's time grow with its square is refused unread:
 * more than 1024 settings and array elements, or 32 @include lines followed
 * (CT_EFULL), a line or a string over 8192 bytes (CT_ERANGE). */
ct_status ct_config_scan_includes(const char *file, const char *dir,
				  struct ct_error *err);

/* After libconfig's "duplicate setting name" at `line` of `file`: the
 * dotted key (within that file) set on that line that an earlier line set
 * too, into key, and that earlier line into *first; without an earlier
 * one, the first key set on the line and *first = 0; "" when the file
 * cannot be read. */
void ct_config_find_duplicate(const char *file, unsigned line, char *key,
			      size_t len, unsigned *first);

/* The first line of file that sets the dotted key path (within that
 * file), or 0 when none does or the file cannot be read. */
unsigned ct_config_key_line(const char *file, const char *key);

/* Line `line` (from 1) of file, made fit for a message (ct_config_escape,
 * at most 80 characters, leading blanks dropped), into buf; "" when the
 * file cannot be read or is shorter. */
void ct_config_line_text(const char *file, unsigned line, char *buf,
			 size_t len);

/* NULL when path is a readable regular file; else the reason ("is a
 * directory", strerror) and *st CT_ENOENT (missing) or CT_EIO. */
const char *ct_config_open_problem(const char *path, ct_status *st);

/* Text from a file or the environment made fit for a message: valid UTF-8
 * is kept, '"' and '\' are escaped, control characters and bytes that are
 * not UTF-8 are written \n, \t, \r or \xNN; at most max characters, then
 * "...". Returns buf, always NUL-terminated. */
const char *ct_config_escape(const char *s, size_t max, char *buf, size_t len);

#endif
