/* replay.c: a target of tests/fuzz without libFuzzer. Each argument is a
 * file, or a directory whose files are read in name order; each file is
 * one input to LLVMFuzzerTestOneInput, as libFuzzer would give it. The
 * default test suite replays every seed corpus this way, in the plain and
 * the sanitizer builds, so that a target's own checks (which abort) and
 * the sanitizers run on the seeds at every test run; ./dev fuzz explores
 * from them. Prints "N inputs" and exits 0 when no input aborted. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

#pragma weak LLVMFuzzerInitialize

static long run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		perror(path);
		exit(2);
	}
	size_t cap = 1 << 16, len = 0;
	unsigned char *buf = malloc(cap);
	for (;;) {
		if (!buf) {
			fprintf(stderr, "%s: out of memory\n", path);
			exit(2);
		}
		len += fread(buf + len, 1, cap - len, f);
		if (len < cap)
			break;
		cap *= 2;
		buf = realloc(buf, cap);
	}
	fclose(f);
	LLVMFuzzerTestOneInput(buf, len);
	free(buf);
	return 1;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

int main(int argc, char **argv)
{
	long n = 0;
	if (LLVMFuzzerInitialize)
		LLVMFuzzerInitialize(&argc, &argv);
	for (int i = 1; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st) != 0) {
			perror(argv[i]);
			return 2;
		}
		if (!S_ISDIR(st.st_mode)) {
			n += run_file(argv[i]);
			continue;
		}
		struct dirent **names;
		int k = scandir(argv[i], &names, NULL, by_name);
		if (k < 0) {
			perror(argv[i]);
			return 2;
		}
		for (int j = 0; j < k; j++) {
			char path[4096];
			snprintf(path, sizeof path, "%s/%s", argv[i], names[j]->d_name);
			if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
				n += run_file(path);
			free(names[j]);
		}
		free(names);
	}
	printf("%ld inputs\n", n);
	return n > 0 ? 0 : 1;
}
