/* fuzz_util.c: the helpers of fuzz.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <dirent.h>

#include "fuzz.h"

static char scratch[512];

size_t fz_split(const uint8_t *data, size_t size, struct fz_part *parts,
		size_t max)
{
	size_t n = 0, sl = strlen(FZ_SEP), start = 0;
	for (size_t i = 0; n + 1 < max && i + sl <= size; i++)
		if (memcmp(data + i, FZ_SEP, sl) == 0) {
			parts[n++] = (struct fz_part){data + start, i - start};
			start = i + sl;
			i = start - 1;
		}
	parts[n++] = (struct fz_part){data + start, size - start};
	return n;
}

/* Remove the scratch directory and what is in it (no subdirectories:
 * the targets write plain files only). */
static void cleanup(void)
{
	DIR *d = opendir(scratch);
	struct dirent *e;
	char p[1024];
	if (!d)
		return;
	while ((e = readdir(d)) != NULL) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(p, sizeof p, "%s/%s", scratch, e->d_name);
		unlink(p);
	}
	closedir(d);
	rmdir(scratch);
}

const char *fz_dir(void)
{
	if (scratch[0])
		return scratch;
	const char *tmp = getenv("TMPDIR");
	snprintf(scratch, sizeof scratch, "%s/crawltop-fuzz.XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(scratch)) {
		fprintf(stderr, "fuzz: cannot make %s: %s\n", scratch,
			strerror(errno));
		abort();
	}
	atexit(cleanup);
	return scratch;
}

void fz_write(const char *name, const void *data, size_t size, char *path,
	      size_t len)
{
	snprintf(path, len, "%s/%s", fz_dir(), name);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		fprintf(stderr, "fuzz: cannot write %s: %s\n", path,
			strerror(errno));
		abort();
	}
	const char *p = data;
	while (size > 0) {
		ssize_t w = write(fd, p, size);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			fprintf(stderr, "fuzz: cannot write %s: %s\n", path,
				strerror(errno));
			abort();
		}
		p += w;
		size -= (size_t)w;
	}
	close(fd);
}

void fz_remove(const char *name)
{
	char p[1024];
	snprintf(p, sizeof p, "%s/%s", fz_dir(), name);
	unlink(p);
}

char *fz_strndup(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	if (!s)
		abort();
	if (size)
		memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

void fz_fail(const char *file, int line, const char *cond, const char *fmt,
	     ...)
{
	va_list ap;
	fprintf(stderr, "%s:%d: check failed: %s: ", file, line, cond);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}
