/* prefs.c: the console's own settings (interval, sort, theme, panel) in
 * console.conf next to the configuration file (app.h, tui_prefs_*).
 *
 * The format is "key = value" lines; '#' starts a comment. Saving follows
 * htop's rule: write a temporary file in the same directory, check every
 * write, fsync, rename over the old file, fsync the directory. A reader
 * never sees half a file. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app.h"

#define PREFS_NAME "console.conf"

static const char *const theme_names[TUI_THEME_N] = {"color", "mono"};

void tui_prefs_default(struct tui_prefs *p)
{
	p->interval = 2.0;
	p->sort_col = TM_COL_PRI;
	p->sort_desc = 0;
	p->theme = TUI_THEME_COLOR;
	p->show_audit = 0;
	p->health.stall_s = 60;
	p->health.retrying_max = 20;
	p->health.failed_per_min = 10;
}

void tui_prefs_path(const char *config_path, char *buf, size_t len)
{
	buf[0] = '\0';
	if (config_path && *config_path) {
		char tmp[1024];
		snprintf(tmp, sizeof tmp, "%s", config_path);
		snprintf(buf, len, "%s/" PREFS_NAME, dirname(tmp));
		return;
	}
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	if (xdg && xdg[0] == '/')
		snprintf(buf, len, "%s/crawltop/" PREFS_NAME, xdg);
	else if (home && *home)
		snprintf(buf, len, "%s/.config/crawltop/" PREFS_NAME, home);
}

/* Trim white space at both ends, in place. */
static char *trim(char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	size_t l = strlen(s);
	while (l && (s[l - 1] == ' ' || s[l - 1] == '\t' || s[l - 1] == '\n' ||
		     s[l - 1] == '\r'))
		s[--l] = '\0';
	return s;
}

/* The keys of console.conf: what apply() reads and prefs_text() writes. */
enum pref_key { PK_INTERVAL, PK_SORT, PK_SORT_ORDER, PK_THEME, PK_PANEL,
		PK_STALL, PK_RETRYING, PK_FAILED, PK_N };
static const char *const pref_keys[PK_N] = {"interval", "sort", "sort_order",
					    "theme", "panel", "stall_after",
					    "retrying_max", "failed_per_min"};

/* A whole number in lo..hi from val; -1 when it is not one. */
static long long whole(const char *val, long long lo, long long hi)
{
	char *end;
	errno = 0;
	long long v = strtoll(val, &end, 10);
	if (!*val || *end || errno || v < lo || v > hi)
		return -1;
	return v;
}

static int pref_key(const char *key)
{
	for (int i = 0; i < PK_N; i++)
		if (strcmp(key, pref_keys[i]) == 0)
			return i;
	return -1;
}

/* Apply one key; returns NULL, or the rule the value broke. */
static const char *apply(struct tui_prefs *p, const char *key, const char *val)
{
	char *end;
	switch (pref_key(key)) {
	case PK_INTERVAL: {
		double d = strtod(val, &end);
		if (*end || !isfinite(d) || d < TUI_INTERVAL_FLOOR ||
		    d > TUI_INTERVAL_MAX)
			return "a number of seconds in 0.5..3600";
		p->interval = d;
		break;
	}
	case PK_SORT: {
		int c = tm_col_by_name(val);
		if (c < 0)
			return "a column: ID NAME DOMAIN MODE PRI STATUS "
			       "PROGRESS PEND RUN FAIL RATE ETA";
		p->sort_col = c;
		break;
	}
	case PK_SORT_ORDER:
		if (strcmp(val, "asc") == 0)
			p->sort_desc = 0;
		else if (strcmp(val, "desc") == 0)
			p->sort_desc = 1;
		else
			return "asc or desc";
		break;
	case PK_THEME: {
		int i;
		for (i = 0; i < TUI_THEME_N; i++)
			if (strcmp(val, theme_names[i]) == 0)
				break;
		if (i == TUI_THEME_N)
			return "color or mono";
		p->theme = i;
		break;
	}
	case PK_PANEL:
		if (strcmp(val, "queue") == 0)
			p->show_audit = 0;
		else if (strcmp(val, "audit") == 0)
			p->show_audit = 1;
		else
			return "queue or audit";
		break;
	case PK_STALL: {
		/* the store keeps claims per second for 600 s
		 * (crawltop.rate_retention_seconds): a longer quiet cannot
		 * be told */
		long long v = whole(val, 5, 600);
		if (v < 0)
			return "a whole number of seconds in 5..600";
		p->health.stall_s = (double)v;
		break;
	}
	case PK_RETRYING:
	case PK_FAILED: {
		long long v = whole(val, 0, 1000000000);
		if (v < 0)
			return "a whole number of tasks in 0..1000000000";
		if (pref_key(key) == PK_RETRYING)
			p->health.retrying_max = v;
		else
			p->health.failed_per_min = v;
		break;
	}
	default:
		return "not a key (interval, sort, sort_order, theme, panel, "
		       "stall_after, retrying_max, failed_per_min)";
	}
	return NULL;
}

/* The value of key k that apply() reads back as p's. */
static void pref_value(const struct tui_prefs *p, int k, char *buf, size_t n)
{
	switch (k) {
	case PK_INTERVAL: snprintf(buf, n, "%g", p->interval); break;
	case PK_SORT: snprintf(buf, n, "%s", tm_col_name(p->sort_col)); break;
	case PK_SORT_ORDER: snprintf(buf, n, "%s", p->sort_desc ? "desc" : "asc"); break;
	case PK_THEME:
		snprintf(buf, n, "%s", theme_names[p->theme >= 0 &&
			 p->theme < TUI_THEME_N ? p->theme : 0]);
		break;
	case PK_STALL: snprintf(buf, n, "%.0f", p->health.stall_s); break;
	case PK_RETRYING: snprintf(buf, n, "%lld", p->health.retrying_max); break;
	case PK_FAILED: snprintf(buf, n, "%lld", p->health.failed_per_min); break;
	default: snprintf(buf, n, "%s", p->show_audit ? "audit" : "queue"); break;
	}
}

int tui_prefs_load(const char *path, struct tui_prefs *p, struct ct_error *err)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		if (errno == ENOENT)
			return 0;
		ct_error_set(err, CT_EIO, "%s: %s", path, strerror(errno));
		return -1;
	}
	char *line = NULL;
	size_t cap = 0;
	int lineno = 0, rc = 0;
	while (getline(&line, &cap, f) >= 0) {
		lineno++;
		char *s = trim(line);
		if (!*s || *s == '#')
			continue;
		char *eq = strchr(s, '=');
		if (!eq) {
			if (rc == 0)
				ct_error_set(err, CT_EINVAL, "%s:%d: '%.60s' is "
					     "not 'key = value'", path, lineno, s);
			rc = -1;
			continue;
		}
		*eq = '\0';
		char *key = trim(s), *val = trim(eq + 1);
		const char *rule = apply(p, key, val);
		if (rule) {
			if (rc == 0)
				ct_error_set(err, CT_EINVAL, "%s:%d: %.40s = "
					     "%.60s: must be %s", path, lineno,
					     key, val, rule);
			rc = -1;
		}
	}
	if (ferror(f) && rc == 0) {
		ct_error_set(err, CT_EIO, "%s: read error: %s", path,
			     strerror(errno));
		rc = -1;
	}
	free(line);
	fclose(f);
	return rc;
}

/* The file's text with p's values: every line of the old file (at path)
 * as it was, comments, unknown keys and lines in error included, except
 * that the first line of each key the console keeps gets p's value (later
 * ones of the same key are dropped: they would override it); keys the file
 * lacks are added at its end. A new file (none at path) gets a heading.
 * NULL, with errno, when the old file cannot be read whole (it is not
 * replaced then: its lines would be lost) or memory runs out; the caller
 * frees the text. */
static char *prefs_text(const char *path, const struct tui_prefs *p,
			size_t *len)
{
	char vals[PK_N][64];
	for (int i = 0; i < PK_N; i++)
		pref_value(p, i, vals[i], sizeof vals[i]);
	int done[PK_N] = {0};
	char *out = NULL;
	size_t outlen = 0;
	FILE *mem = open_memstream(&out, &outlen);
	if (!mem)
		return NULL;
	FILE *f = fopen(path, "r");
	if (!f && errno != ENOENT) {
		int e = errno;
		fclose(mem);
		free(out);
		errno = e;
		return NULL;
	}
	if (!f)
		fputs("# crawltop console settings, written by the console\n", mem);
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	while (f && (n = getline(&line, &cap, f)) >= 0) {
		char *copy = strdup(line);
		char *s = copy ? trim(copy) : NULL, *eq = s ? strchr(s, '=') : NULL;
		int k = -1;
		if (eq && *s != '#') {
			*eq = '\0';
			k = pref_key(trim(s));
		}
		free(copy);
		if (k < 0) { /* as it was, with its end of line */
			fwrite(line, 1, (size_t)n, mem);
			if (n > 0 && line[n - 1] != '\n')
				fputc('\n', mem);
		} else if (!done[k]) {
			fprintf(mem, "%s = %s\n", pref_keys[k], vals[k]);
			done[k] = 1;
		}
	}
	free(line);
	int read_error = f && ferror(f);
	if (f)
		fclose(f);
	if (read_error) {
		fclose(mem);
		free(out);
		errno = EIO;
		return NULL;
	}
	for (int i = 0; i < PK_N; i++)
		if (!done[i])
			fprintf(mem, "%s = %s\n", pref_keys[i], vals[i]);
	if (fclose(mem) != 0) {
		free(out);
		return NULL;
	}
	*len = outlen;
	return out;
}

/* mkdir -p for the directory part of path (one or two levels suffice). */
static int make_dirs(const char *path)
{
	char tmp[1024];
	snprintf(tmp, sizeof tmp, "%s", path);
	for (char *p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(tmp, 0700) != 0 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	return 0;
}

int tui_prefs_save(const char *path, const struct tui_prefs *p,
		   struct ct_error *err)
{
	if (!path || !*path) {
		ct_error_set(err, CT_EINVAL, "no place to save the console "
			     "settings (set HOME or XDG_CONFIG_HOME)");
		return -1;
	}
	if (make_dirs(path) != 0) {
		ct_error_set(err, CT_EIO, "%s: cannot create its directory: %s",
			     path, strerror(errno));
		return -1;
	}
	char tmp[1100];
	snprintf(tmp, sizeof tmp, "%s.XXXXXX", path);
	int fd = mkstemp(tmp);
	if (fd < 0) {
		ct_error_set(err, CT_EIO, "%s: %s", tmp, strerror(errno));
		return -1;
	}
	size_t n = 0;
	char *body = prefs_text(path, p, &n);
	if (!body) {
		int e = errno;
		unlink(tmp);
		close(fd);
		ct_error_set(err, CT_EIO, "%s: not replaced: the file cannot be "
			     "read (%s), and its lines would be lost", path,
			     strerror(e));
		return -1;
	}
	const char *what = NULL;
	size_t off = 0;
	while (!what && off < n) {
		ssize_t w = write(fd, body + off, n - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			what = "write";
		else
			off += (size_t)w;
	}
	free(body);
	if (!what && fsync(fd) != 0)
		what = "fsync";
	int saved = errno;
	if (close(fd) != 0 && !what) {
		what = "close";
		saved = errno;
	}
	if (!what && rename(tmp, path) != 0) {
		what = "rename";
		saved = errno;
	}
	if (what) {
		unlink(tmp);
		ct_error_set(err, CT_EIO, "%s: %s failed: %s", path, what,
			     strerror(saved));
		return -1;
	}
	/* the rename itself must reach the disk */
	char dir[1024];
	snprintf(dir, sizeof dir, "%s", path);
	int dfd = open(dirname(dir), O_RDONLY | O_DIRECTORY);
	if (dfd >= 0) {
		if (fsync(dfd) != 0) {
			saved = errno;
			close(dfd);
			ct_error_set(err, CT_EIO, "%s: fsync of its directory "
				     "failed: %s", path, strerror(saved));
			return -1;
		}
		close(dfd);
	}
	return 0;
}
