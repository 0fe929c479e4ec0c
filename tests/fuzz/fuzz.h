/* fuzz.h: what every libFuzzer target of tests/fuzz shares: the entry
 * points libFuzzer calls, and a private scratch directory for the
 * targets whose parser reads files (config, sitemap, sitegraph).
 *
 * A target's input may hold several files: fz_split cuts it at each
 * FZ_SEP line ("\n%%%%\n"), so that a configuration can @include a file
 * of its own and a sitemap index can name a child sitemap. */
#ifndef CT_FUZZ_H
#define CT_FUZZ_H

#include <stddef.h>
#include <stdint.h>

/* libFuzzer's entry points (declared for -Werror=missing-prototypes). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#define FZ_SEP "\n%%%%\n"
#define FZ_MAX_PARTS 4

/* One piece of the input: borrowed from the input buffer. */
struct fz_part {
	const uint8_t *data;
	size_t size;
};

/* Cut data at FZ_SEP into at most max parts (the last takes the rest);
 * returns how many (at least 1). */
size_t fz_split(const uint8_t *data, size_t size, struct fz_part *parts,
		size_t max);

/* The process's scratch directory, made on first use under $TMPDIR (or
 * /tmp) with mode 0700 and removed at exit with the files in it. Static;
 * aborts when it cannot be made. */
const char *fz_dir(void);

/* Write size bytes to fz_dir()/name (mode 0600, replaced whole); the
 * path goes to path (len bytes). Aborts on a write error: a fuzz run
 * that cannot write its input tests nothing. */
void fz_write(const char *name, const void *data, size_t size, char *path,
	      size_t len);

/* Remove fz_dir()/name if it is there. */
void fz_remove(const char *name);

/* A copy of size bytes with a NUL after them, in a block of exactly
 * size + 1 bytes (a read past the NUL is a sanitizer report). The
 * caller frees it. Aborts when out of memory. */
char *fz_strndup(const uint8_t *data, size_t size);

/* Abort with a message when cond is false: a broken promise of the code
 * under test is a crash, which libFuzzer saves as such. */
#define FZ_CHECK(cond, ...) \
	((cond) ? (void)0 : fz_fail(__FILE__, __LINE__, #cond, __VA_ARGS__))
void fz_fail(const char *file, int line, const char *cond, const char *fmt,
	     ...)
#if defined(__GNUC__)
	__attribute__((noreturn, format(printf, 4, 5)))
#endif
	;

#endif
