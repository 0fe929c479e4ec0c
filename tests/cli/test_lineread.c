/* test_lineread.c: the bounded line reader of the commands (lineread.h)
 * on its own: lines, the last line without a newline, a line over the
 * limit skipped to its newline however long it is, the limit itself, NUL
 * bytes, a read error, a failed allocation (malloc and realloc are
 * wrapped: the link gives -Wl,--wrap=malloc,--wrap=realloc, so the
 * reader's calls come here and can be made to fail; the compiler turns a
 * realloc of NULL into a malloc), and a pipe that has sent one line and
 * waits. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <cmocka.h>

#include "lineread.h"

void *__real_malloc(size_t n);
void *__real_realloc(void *p, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_realloc(void *p, size_t n);

/* The number of allocations to let through before one fails (-1: never). */
static int fail_after = -1;

/* Whether the next allocation fails (fail_after counted down). */
static int allocation_fails(void)
{
	if (fail_after == 0)
		return 1;
	if (fail_after > 0)
		fail_after--;
	return 0;
}

/* malloc as the reader sees it. */
void *__wrap_malloc(size_t n)
{
	return allocation_fails() ? NULL : __real_malloc(n);
}

/* realloc as the reader sees it. */
void *__wrap_realloc(void *p, size_t n)
{
	return allocation_fails() ? NULL : __real_realloc(p, n);
}

/* A descriptor reading len bytes of text (a temporary file). */
static int input(const char *text, size_t len)
{
	FILE *f = tmpfile();
	assert_non_null(f);
	int fd = dup(fileno(f));
	fclose(f);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	return fd;
}

/* n bytes of c followed by the NUL-terminated tail, in a new buffer. */
static char *repeat(char c, size_t n, const char *tail, size_t *len)
{
	size_t t = strlen(tail);
	char *s = malloc(n + t + 1);
	assert_non_null(s);
	memset(s, c, n);
	memcpy(s + n, tail, t + 1);
	*len = n + t;
	return s;
}

/* The next call returns a line equal to want, as line number no. */
static void expect_line(struct lineread *r, const char *want, long no)
{
	char *line;
	size_t len;
	assert_int_equal(lineread_next(r, &line, &len), LINEREAD_LINE);
	assert_int_equal(len, strlen(want));
	assert_string_equal(line, want);
	assert_int_equal(r->line, no);
}

/* The next call returns status st (with r->line then no). */
static void expect_status(struct lineread *r, enum lineread_status st,
			  long no)
{
	char *line;
	size_t len;
	assert_int_equal(lineread_next(r, &line, &len), st);
	assert_int_equal(r->line, no);
}

/* Lines with and without a last newline, an empty line, a CR kept. */
static void test_lines(void **state)
{
	(void)state;
	static const char text[] = "a\nbb\n\nccc\r\nlast";
	int fd = input(text, sizeof text - 1);
	struct lineread r;
	lineread_init(&r, fd, 16);
	expect_line(&r, "a", 1);
	expect_line(&r, "bb", 2);
	expect_line(&r, "", 3);
	expect_line(&r, "ccc\r", 4);
	expect_line(&r, "last", 5);
	expect_status(&r, LINEREAD_EOF, 5);
	expect_status(&r, LINEREAD_EOF, 5);
	lineread_free(&r);
	close(fd);
}

/* The limit: a line of max bytes is read, one byte more is not, and the
 * line after it is read as the next line. */
static void test_limit(void **state)
{
	(void)state;
	static const char text[] = "abcd\nabcde\nxy\nabcdefgh";
	int fd = input(text, sizeof text - 1);
	struct lineread r;
	char why[100];
	lineread_init(&r, fd, 4);
	expect_line(&r, "abcd", 1);
	expect_status(&r, LINEREAD_LONG, 2);
	assert_string_equal(lineread_what(&r, LINEREAD_LONG, why, sizeof why),
			    "line longer than 4 bytes");
	expect_line(&r, "xy", 3);
	expect_status(&r, LINEREAD_LONG, 4); /* the last, without a newline */
	expect_status(&r, LINEREAD_EOF, 4);
	lineread_free(&r);
	close(fd);
}

/* A line far longer than the buffer is skipped a buffer at a time (memory
 * does not grow with it); lines of max bytes past the first buffer size
 * are read whole. */
static void test_long_lines(void **state)
{
	(void)state;
	size_t len;
	char *text = repeat('x', 3000000, "\nok\n", &len);
	int fd = input(text, len);
	struct lineread r;
	lineread_init(&r, fd, 100);
	expect_status(&r, LINEREAD_LONG, 1);
	expect_line(&r, "ok", 2);
	expect_status(&r, LINEREAD_EOF, 2);
	assert_true(r.cap <= 65536);
	lineread_free(&r);
	close(fd);
	free(text);

	text = repeat('y', 200000, "\n", &len);
	char *two = malloc(2 * len + 2);
	assert_non_null(two);
	memcpy(two, text, len);
	memcpy(two + len, "z", 1);
	memcpy(two + len + 1, text, len); /* 200001 bytes of line 2 */
	fd = input(two, 2 * len + 1);
	lineread_init(&r, fd, 200000);
	char *line;
	size_t n;
	assert_int_equal(lineread_next(&r, &line, &n), LINEREAD_LINE);
	assert_int_equal(n, 200000);
	assert_int_equal(line[199999], 'y');
	expect_status(&r, LINEREAD_LONG, 2);
	expect_status(&r, LINEREAD_EOF, 2);
	assert_true(r.cap <= 200002);
	lineread_free(&r);
	close(fd);
	free(two);
	free(text);
}

/* NUL bytes are part of the line: its length says where it ends. */
static void test_nul(void **state)
{
	(void)state;
	int fd = input("a\0b\n", 4);
	struct lineread r;
	char *line;
	size_t n;
	lineread_init(&r, fd, 16);
	assert_int_equal(lineread_next(&r, &line, &n), LINEREAD_LINE);
	assert_int_equal(n, 3);
	assert_memory_equal(line, "a\0b", 4);
	lineread_free(&r);
	close(fd);
}

/* A read error is one, with its errno, never the end of the input. */
static void test_read_error(void **state)
{
	(void)state;
	int fd = open("/", O_RDONLY | O_DIRECTORY);
	assert_true(fd >= 0);
	struct lineread r;
	char why[100];
	lineread_init(&r, fd, 16);
	expect_status(&r, LINEREAD_ERROR, 0);
	assert_int_equal(r.err, EISDIR);
	assert_string_equal(lineread_what(&r, LINEREAD_ERROR, why, sizeof why),
			    "read error: Is a directory");
	lineread_free(&r);
	close(fd);
}

/* A failed allocation is one, never the end of the input: the first
 * buffer, and the growth a long line needs. */
static void test_no_memory(void **state)
{
	(void)state;
	int fd = input("a\n", 2);
	struct lineread r;
	lineread_init(&r, fd, 16);
	fail_after = 0;
	expect_status(&r, LINEREAD_NOMEM, 0);
	fail_after = -1;
	lineread_free(&r);
	close(fd);

	size_t len;
	char *text = repeat('x', 100000, "\n", &len);
	char *two = malloc(len + 3);
	assert_non_null(two);
	memcpy(two, "a\n", 2);
	memcpy(two + 2, text, len + 1);
	fd = input(two, len + 2);
	lineread_init(&r, fd, 200000);
	fail_after = 1; /* the first buffer, not its growth */
	expect_line(&r, "a", 1);
	expect_status(&r, LINEREAD_NOMEM, 1);
	fail_after = -1;
	lineread_free(&r);
	close(fd);
	free(two);
	free(text);
}

/* A line that has arrived is returned while the writer has not closed
 * the pipe (read(2) semantics: no wait for a full buffer). */
static void test_pipe(void **state)
{
	(void)state;
	int p[2];
	assert_int_equal(pipe(p), 0);
	assert_int_equal(write(p[1], "one\ntw", 6), 6);
	alarm(10); /* a reader that waits for more is killed, failing */
	struct lineread r;
	lineread_init(&r, p[0], 16);
	expect_line(&r, "one", 1);
	assert_int_equal(write(p[1], "o\n", 2), 2);
	expect_line(&r, "two", 2);
	close(p[1]);
	expect_status(&r, LINEREAD_EOF, 2);
	alarm(0);
	lineread_free(&r);
	close(p[0]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lines),
		cmocka_unit_test(test_limit),
		cmocka_unit_test(test_long_lines),
		cmocka_unit_test(test_nul),
		cmocka_unit_test(test_read_error),
		cmocka_unit_test(test_no_memory),
		cmocka_unit_test(test_pipe),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
