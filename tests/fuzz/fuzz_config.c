/* fuzz_config.c: the configuration loader (src/config) on a file of the
 * input's making: the text checks made before libconfig, libconfig's
 * parser, the key table's reader, the environment step (no variable set)
 * and the rules between keys, as ct_config_load_file runs them for
 * `--config FILE`.
 *
 * The input holds up to four files cut at FZ_SEP lines: main.conf, then
 * inc1.conf, inc2.conf and inc3.conf, all in the target's own scratch
 * directory, which is where main.conf's @include "inc1.conf" looks.
 *
 * Checked: a refusal says why; settings that load pass
 * ct_settings_check, every value's source names a file of the read, and
 * the settings survive the store's JSON document (settings_json.h) and
 * back unchanged: a configuration that loads is one the console and
 * `crawltop settings set` can store. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "config_keys.h"
#include "fuzz.h"
#include "settings_json.h"

static const char *const names[FZ_MAX_PARTS] = {
	"main.conf", "inc1.conf", "inc2.conf", "inc3.conf",
};

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	/* the environment overrides of seed 003: none, every run alike */
	const struct ct_key *k;
	for (size_t i = 0; i < ct_n_keys; i++)
		if ((k = &ct_keys[i])->env)
			unsetenv(k->env);
	fz_dir();
	return 0;
}

/* The settings -> JSON -> settings -> JSON round trip gives the same
 * document. */
static void check_round_trip(const struct ct_settings *s)
{
	struct ct_error err;
	struct ct_settings back;
	char *a = ct_settings_to_json(s, NULL, &err);
	FZ_CHECK(a != NULL, "settings to JSON: %s", err.msg);
	ct_status st = ct_settings_from_json(a, 1, &back, &err);
	FZ_CHECK(st == CT_OK, "loaded settings refused as JSON: %s\n%s",
		 err.msg, a);
	char *b = ct_settings_to_json(&back, NULL, &err);
	FZ_CHECK(b != NULL, "settings to JSON again: %s", err.msg);
	FZ_CHECK(strcmp(a, b) == 0, "round trip changed the settings:\n%s\n%s",
		 a, b);
	free(a);
	free(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_part parts[FZ_MAX_PARTS];
	size_t n = fz_split(data, size, parts, FZ_MAX_PARTS);
	char path[1024], other[1024];
	for (size_t i = 0; i < FZ_MAX_PARTS; i++)
		if (i < n)
			fz_write(names[i], parts[i].data, parts[i].size,
				 i ? other : path, sizeof path);
		else
			fz_remove(names[i]);

	struct ct_settings s;
	struct ct_error err;
	err.msg[0] = '\0';
	ct_status st = ct_config_load_file(path, &s, &err);
	if (st != CT_OK) {
		FZ_CHECK(err.msg[0] != '\0', "status %d without a message",
			 (int)st);
		FZ_CHECK(strnlen(err.msg, sizeof err.msg) < sizeof err.msg,
			 "message not terminated");
		return 0;
	}
	FZ_CHECK(ct_settings_check(&s, &err) == CT_OK,
		 "loaded settings fail ct_settings_check: %s", err.msg);
	check_round_trip(&s);

	/* the same read step by step: every source names a file read */
	static struct ct_config c;
	ct_config_init(&c);
	st = ct_config_read_file(&c, path, &err);
	FZ_CHECK(st == CT_OK, "second read refused: %s", err.msg);
	FZ_CHECK(c.n_files >= 1 && c.n_files <= CT_CONFIG_MAX_FILES,
		 "%zu files", c.n_files);
	char where[CT_CONFIG_PATH_LEN + 64];
	for (size_t i = 0; i < ct_n_keys && i < CT_CONFIG_MAX_KEYS; i++) {
		const struct ct_config_source *src = &c.key_src[i];
		if (src->origin == CT_FROM_FILE)
			FZ_CHECK(src->file < c.n_files && src->line > 0,
				 "key %zu from file %u line %u of %zu", i,
				 src->file, src->line, c.n_files);
		ct_config_source_str(&c, src, where, sizeof where);
	}
	return 0;
}
