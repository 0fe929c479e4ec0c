/* cmd_migrate.c: `crawltop migrate [-d DSN] [--sql-dir DIR]`: bring the
 * database schema to the version this binary knows (src/store/migrate.c).
 * Exit 0 when the schema is current (also when nothing had to be done),
 * 1 when the database refused or a migration failed, 2 on a usage error. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "store.h"

static int run(int argc, char **argv)
{
	static const struct option opts[] = {
		{"dsn", required_argument, NULL, 'd'},
		{"sql-dir", required_argument, NULL, 's'},
		{NULL, 0, NULL, 0},
	};
	const char *dsn = getenv("CRAWLTOP_DSN"), *dir = NULL;
	int c;
	struct cli_getopt go = CLI_GETOPT("migrate", "d:", opts);
	while ((c = cli_getopt(&go, argc, argv)) != -1) {
		switch (c) {
		case 'd': dsn = optarg; break;
		case 's': dir = optarg; break;
		default: return 2;
		}
	}
	if (optind != argc) {
		cli_error("migrate", "unexpected argument '%s'", argv[optind]);
		return 2;
	}

	struct ct_store *s;
	struct ct_error err;
	if (ct_store_open_as(dsn, "crawltop migrate", &s, &err) != CT_OK) {
		cli_error("migrate", "%s", err.msg);
		return 1;
	}
	struct ct_migrate_result r;
	ct_status st = ct_store_migrate(s, dir, &r, &err);
	ct_store_close(s);
	if (st != CT_OK) {
		cli_error("migrate", "%s", err.msg);
		return 1;
	}
	if (r.applied == 0)
		printf("schema crawltop is up to date at version %d\n",
		       r.to_version);
	else
		printf("schema crawltop migrated from version %d to %d "
		       "(%d migration%s applied)\n", r.from_version,
		       r.to_version, r.applied, r.applied == 1 ? "" : "s");
	return 0;
}

const struct cli_cmd cli_cmd_migrate = {
	.name = "migrate",
	.usage = "[-d DSN] [--sql-dir DIR]",
	.summary = "Create or upgrade the task store schema in PostgreSQL",
	.help = "  -d, --dsn DSN     libpq connection string or URI (default:\n"
		"                    $CRAWLTOP_DSN, else PGHOST, PGDATABASE, ...)\n"
		"  --sql-dir DIR     migrations directory (default: "
		"$CRAWLTOP_SQL_DIR,\n"
		"                    else, run from its build tree, the source\n"
		"                    tree's data/sql, else the installed\n"
		"                    share/crawltop/sql)\n",
	.run = run,
};
