/* migrate.c: apply data/sql/NNNN_name.sql in order, once each.
 *
 * The migrator owns two objects no migration creates: the schema
 * `crawltop` and the table crawltop.schema_version (one row per applied
 * migration, with the md5 of the file's text). Every step holds one
 * transaction-scoped advisory lock, so two `crawltop migrate` runs at once
 * apply each file exactly once. A file that differs from the one a
 * database recorded (edited, renamed or replaced after it was applied) is
 * refused before anything is applied: the schema would not be what the
 * later migrations and this binary expect. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store_int.h"

#ifndef CT_SQL_DIR_INSTALLED
#define CT_SQL_DIR_INSTALLED "/usr/local/share/crawltop/sql"
#endif

/* Key of the advisory lock that serialises migrators ("crawltop" in hex,
 * shortened). */
#define MIGRATE_LOCK "SELECT pg_advisory_xact_lock(6373616277)"

#define MAX_MIGRATIONS 9999

/* Every migrating transaction resolves names in pg_catalog only (and the
 * session's own temporary objects last): a function or operator that
 * another role planted in a schema on the caller's search_path (public,
 * writable for everyone in databases made before PostgreSQL 15) must not
 * run with the migrating role's rights in place of the built-in it
 * shadows. The migrations name their own objects crawltop.x. */
#define MIGRATE_BEGIN "BEGIN; SET LOCAL search_path = pg_catalog, pg_temp"

static const char bootstrap_sql[] =
	"CREATE SCHEMA IF NOT EXISTS crawltop;"
	"CREATE TABLE IF NOT EXISTS crawltop.schema_version ("
	" version integer PRIMARY KEY CHECK (version > 0),"
	" name text NOT NULL,"
	" applied_at timestamptz NOT NULL DEFAULT now(),"
	" applied_by text NOT NULL DEFAULT current_user,"
	" checksum text);"
	/* databases migrated before checksums were recorded: NULL = unknown */
	"ALTER TABLE crawltop.schema_version"
	" ADD COLUMN IF NOT EXISTS checksum text";

/* What the bootstrap will make: 2 the schema and the version table, 1
 * the table only, 0 nothing. */
static const char made_sql[] =
	"SELECT CASE WHEN to_regnamespace('crawltop') IS NULL THEN 2"
	" WHEN to_regclass('crawltop.schema_version') IS NULL THEN 1"
	" ELSE 0 END";

/* The owner of an existing schema crawltop when it is neither the
 * migrating role nor a superuser: a schema someone else made, whose
 * objects the migrations would take over (no row: nothing to fear). */
static const char owner_sql[] =
	"SELECT r.rolname FROM pg_catalog.pg_namespace n"
	" JOIN pg_catalog.pg_roles r ON r.oid = n.nspowner"
	" WHERE n.nspname = 'crawltop' AND r.rolname <> current_user"
	" AND NOT r.rolsuper"
	/* 0023's owner, of which the migrating role is a member */
	" AND NOT (r.rolname = 'crawltop_owner' AND NOT r.rolcanlogin"
	"  AND pg_catalog.pg_has_role(current_user, n.nspowner, 'MEMBER'))";

static const char version_sql[] =
	"SELECT coalesce(max(version), 0) FROM crawltop.schema_version";

static int is_dir(const char *p)
{
	struct stat st;
	return p && stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* True when the running program lies inside the build tree it was built
 * in: an installed copy must not read the checkout's migrations, which
 * may be newer than the ones it was installed with. */
static int in_build_tree(void)
{
#ifdef CT_BUILD_ROOT
	char exe[4096], root[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n <= 0 || !realpath(CT_BUILD_ROOT, root))
		return 0;
	exe[n] = '\0';
	size_t l = strlen(root);
	return strncmp(exe, root, l) == 0 && exe[l] == '/';
#else
	return 0;
#endif
}

const char *ct_store_sql_dir(void)
{
	const char *env = getenv("CRAWLTOP_SQL_DIR");
	if (env && env[0])
		return env;
#ifdef CT_SQL_DIR_DEV
	if (in_build_tree() && is_dir(CT_SQL_DIR_DEV))
		return CT_SQL_DIR_DEV;
#endif
	return CT_SQL_DIR_INSTALLED;
}

struct migration {
	int version;
	char name[256];
};

static int migration_cmp(const void *pa, const void *pb)
{
	const struct migration *a = pa, *b = pb;
	return (a->version > b->version) - (a->version < b->version);
}

/* "NNNN_name.sql" with name of [a-z0-9_]: sets *version, returns 1. Other
 * names return 0 (README files and editor backups are ignored). */
static int parse_name(const char *f, int *version)
{
	size_t l = strlen(f);
	if (l < 10 || l >= sizeof ((struct migration *)0)->name ||
	    strcmp(f + l - 4, ".sql") != 0 || f[4] != '_')
		return 0;
	for (int i = 0; i < 4; i++)
		if (!isdigit((unsigned char)f[i]))
			return 0;
	for (size_t i = 5; i < l - 4; i++)
		if (!(islower((unsigned char)f[i]) ||
		      isdigit((unsigned char)f[i]) || f[i] == '_'))
			return 0;
	*version = (f[0] - '0') * 1000 + (f[1] - '0') * 100 +
		   (f[2] - '0') * 10 + (f[3] - '0');
	return 1;
}

/* List dir's migrations sorted by version into *out (caller frees);
 * refuses a gap, a duplicate, version 0 or an empty directory. */
static ct_status list_migrations(const char *dir, struct migration **out,
				 int *count, struct ct_error *err)
{
	*out = NULL;
	*count = 0;
	DIR *d = opendir(dir);
	if (!d)
		return ct_error_set(err, CT_EIO, "migrate: cannot open SQL "
				    "directory %s: %s (set CRAWLTOP_SQL_DIR)",
				    dir, strerror(errno));
	struct migration *m = NULL;
	int n = 0, cap = 0;
	ct_status st = CT_OK;
	struct dirent *e;
	while ((e = readdir(d))) {
		int v;
		if (!parse_name(e->d_name, &v))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			struct migration *p = realloc(m, cap * sizeof *m);
			if (!p) {
				st = ct_error_set(err, CT_ENOMEM,
						  "migrate: out of memory");
				goto out;
			}
			m = p;
		}
		m[n].version = v;
		snprintf(m[n].name, sizeof m[n].name, "%s", e->d_name);
		n++;
	}
	if (n == 0) {
		st = ct_error_set(err, CT_ENOENT, "migrate: no migrations "
				  "(NNNN_name.sql) in %s", dir);
		goto out;
	}
	qsort(m, n, sizeof *m, migration_cmp);
	for (int i = 0; i < n; i++) {
		if (m[i].version == i + 1)
			continue;
		if (i > 0 && m[i].version == m[i - 1].version)
			st = ct_error_set(err, CT_EINVAL, "migrate: %s and %s "
					  "in %s have the same number", m[i - 1].name,
					  m[i].name, dir);
		else
			st = ct_error_set(err, CT_EINVAL, "migrate: migration "
					  "%04d is missing in %s (found %s): "
					  "numbers must run 0001, 0002, ... "
					  "without gaps", i + 1, dir, m[i].name);
		goto out;
	}
out:
	closedir(d);
	if (st != CT_OK) {
		free(m);
		return st;
	}
	*out = m;
	*count = n;
	return CT_OK;
}

/* Read a whole file into a new NUL-terminated string (caller frees). */
static ct_status read_file(const char *path, char **out, struct ct_error *err)
{
	*out = NULL;
	FILE *f = fopen(path, "rb");
	if (!f)
		return ct_error_set(err, CT_EIO, "migrate: cannot open %s: %s",
				    path, strerror(errno));
	struct st_buf b = {0};
	char chunk[8192];
	size_t k;
	while ((k = fread(chunk, 1, sizeof chunk, f)) > 0) {
		for (size_t i = 0; i < k; i++) {
			if (chunk[i] == '\0') {
				fclose(f);
				st_buf_free(&b);
				return ct_error_set(err, CT_EINVAL, "migrate: %s "
						    "contains a NUL byte", path);
			}
		}
		st_buf_putn(&b, chunk, k);
	}
	int bad = ferror(f);
	fclose(f);
	if (bad || b.oom || !b.p) {
		st_buf_free(&b);
		return ct_error_set(err, bad ? CT_EIO : CT_ENOMEM,
				    "migrate: cannot read %s", path);
	}
	*out = b.p;
	return CT_OK;
}

/* Read the one integer of a one-row result. */
static ct_status query_int(struct ct_store *s, const char *what,
			   const char *sql, int *out, struct ct_error *err)
{
	PGresult *r;
	ct_status st = st_exec(s, what, sql, ST_SCRIPT, NULL, &r, err);
	if (st != CT_OK)
		return st;
	*out = PQntuples(r) == 1 ? atoi(PQgetvalue(r, 0, 0)) : 0;
	PQclear(r);
	return CT_OK;
}

/* Run constant SQL (one or more statements), discarding the result. */
static ct_status script(struct ct_store *s, const char *what, const char *sql,
			struct ct_error *err)
{
	return st_exec(s, what, sql, ST_SCRIPT, NULL, NULL, err);
}

/* Refuse a schema crawltop that another ordinary role owns (owner_sql);
 * crawltop_owner (0023) is the store's own, for its members. */
static ct_status foreign_schema(struct ct_store *s, struct ct_error *err)
{
	PGresult *r;
	ct_status st = st_exec(s, "migrate", owner_sql, ST_SCRIPT, NULL, &r, err);
	if (st != CT_OK || PQntuples(r) == 0) {
		if (st == CT_OK)
			PQclear(r);
		return st;
	}
	st = ct_error_set(err, CT_EINVAL, "migrate: schema crawltop already "
			  "exists and belongs to role \"%.64s\", neither the "
			  "role migrating nor a superuser; refusing to take "
			  "over its objects: migrate as that role, or drop "
			  "the schema", PQgetvalue(r, 0, 0));
	PQclear(r);
	return st;
}

static void rollback(struct ct_store *s)
{
	PQclear(PQexec(s->conn, "ROLLBACK"));
}

ct_status ct_store_schema_version(struct ct_store *s, int *out,
				  struct ct_error *err)
{
	int exists;
	*out = 0;
	ct_status st = query_int(s, "schema version",
		"SELECT (to_regclass('crawltop.schema_version') IS NOT NULL)::int",
		&exists, err);
	if (st != CT_OK || !exists)
		return st;
	return query_int(s, "schema version", version_sql, out, err);
}

/* After each migration, what it made goes to crawltop_owner (0023):
 * the owner-rights functions never run as the role that migrated. */
#define GIVE_TO_OWNER                                                     \
	"DO $$ BEGIN IF to_regprocedure('crawltop.give_to_owner()') IS NOT " \
	"NULL THEN PERFORM crawltop.give_to_owner(); END IF; END $$"

/* Apply one migration if the database does not have it yet. */
static ct_status apply_one(struct ct_store *s, const char *dir,
			   const struct migration *m, int *applied,
			   struct ct_error *err)
{
	char path[4096], what[300];
	snprintf(path, sizeof path, "%s/%s", dir, m->name);
	snprintf(what, sizeof what, "migration %s", m->name);
	char *sql;
	ct_status st = read_file(path, &sql, err);
	if (st != CT_OK)
		return st;
	int have = 0;
	if ((st = script(s, what, MIGRATE_BEGIN, err)) != CT_OK)
		goto out;
	if ((st = script(s, what, MIGRATE_LOCK, err)) != CT_OK ||
	    (st = query_int(s, what, version_sql, &have, err)) != CT_OK)
		goto fail;
	if (have < m->version) {
		char ver[16];
		snprintf(ver, sizeof ver, "%d", m->version);
		const char *params[] = {ver, m->name, sql};
		if ((st = script(s, what, sql, err)) != CT_OK ||
		    (st = script(s, what, GIVE_TO_OWNER, err)) != CT_OK ||
		    (st = st_exec(s, what, "INSERT INTO crawltop.schema_version "
				  "(version, name, checksum) VALUES ($1, $2, "
				  "md5($3))", 3, params, NULL, err)) != CT_OK)
			goto fail;
		++*applied;
	}
	st = script(s, what, "COMMIT", err);
	goto out;
fail:
	rollback(s);
out:
	free(sql);
	return st;
}

/* Refuse when one of the n migrations the database has applied differs
 * from its file in dir: another name, or another text (md5), or no
 * recorded text at all (NULL: applied by a crawltop from before
 * checksums, whose migrations were since corrected in place, so the
 * schema cannot be told to be this one). Runs in the caller's
 * transaction. */
static ct_status verify_applied(struct ct_store *s, const char *dir,
				const struct migration *m, int n,
				struct ct_error *err)
{
	ct_status st = CT_OK;
	for (int i = 0; i < n && st == CT_OK; i++) {
		char path[4096], ver[16];
		snprintf(path, sizeof path, "%s/%s", dir, m[i].name);
		snprintf(ver, sizeof ver, "%d", m[i].version);
		char *sql;
		if ((st = read_file(path, &sql, err)) != CT_OK)
			break;
		const char *params[] = {ver, m[i].name, sql};
		PGresult *r;
		st = st_exec(s, "migrate", "SELECT name, to_char(applied_at AT "
			     "TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS\"Z\"'), "
			     "name <> $2, checksum IS NULL FROM "
			     "crawltop.schema_version WHERE version = "
			     "$1::integer AND (name <> $2 OR checksum IS NULL "
			     "OR checksum <> md5($3))", 3, params, &r, err);
		free(sql);
		if (st != CT_OK)
			break;
		if (PQntuples(r) == 1 && PQgetvalue(r, 0, 3)[0] == 't') {
			st = ct_error_set(err, CT_EINVAL, "migrate: the migration "
					  "%04d this database applied on %s as %s "
					  "has no checksum (a crawltop from before "
					  "checksums applied it), so it cannot be told "
					  "to match %s in %s; refusing to touch it "
					  "(recreate the database: ./dev demo --reset "
					  "for the demo's)", m[i].version,
					  PQgetvalue(r, 0, 1), PQgetvalue(r, 0, 0),
					  m[i].name, dir);
		} else if (PQntuples(r) == 1) {
			int renamed = PQgetvalue(r, 0, 2)[0] == 't';
			st = ct_error_set(err, CT_EINVAL, "migrate: %s in %s "
					  "%s the migration %04d this database "
					  "applied on %s as %s: its schema was "
					  "made by another crawltop; refusing to "
					  "touch it (use the crawltop that "
					  "migrated it, or recreate the "
					  "database)", m[i].name, dir,
					  renamed ? "is not" : "differs from",
					  m[i].version, PQgetvalue(r, 0, 1),
					  PQgetvalue(r, 0, 0));
		}
		PQclear(r);
	}
	return st;
}

ct_status ct_store_migrate(struct ct_store *s, const char *sql_dir,
			   struct ct_migrate_result *res, struct ct_error *err)
{
	*res = (struct ct_migrate_result){0};
	const char *dir = sql_dir ? sql_dir : ct_store_sql_dir();
	const char *enc = PQparameterStatus(s->conn, "server_encoding");
	if (!enc || strcmp(enc, "UTF8") != 0)
		return ct_error_set(err, CT_EINVAL, "migrate: the database "
				    "encoding is %s; crawltop needs UTF8 "
				    "(createdb -E UTF8 -T template0)",
				    enc ? enc : "unknown");
	struct migration *m;
	int n;
	ct_status st = list_migrations(dir, &m, &n, err);
	if (st != CT_OK)
		return st;
	res->known = m[n - 1].version;

	/* Bootstrap and version check in one transaction: a refusal leaves
	 * the database as it was. What the bootstrap creates is dropped
	 * again if the first migration fails (below). */
	int made = 0;
	if ((st = script(s, "migrate", MIGRATE_BEGIN, err)) != CT_OK)
		goto out;
	if ((st = script(s, "migrate", MIGRATE_LOCK, err)) ||
	    (st = query_int(s, "migrate", made_sql, &made, err)) ||
	    (st = foreign_schema(s, err)) ||
	    (st = script(s, "migrate", bootstrap_sql, err)) ||
	    (st = query_int(s, "migrate", version_sql, &res->from_version, err))) {
		rollback(s);
		goto out;
	}
	if (res->from_version > res->known) {
		rollback(s);
		st = ct_error_set(err, CT_EINVAL, "migrate: the database schema "
				  "is at version %d, newer than this crawltop "
				  "knows (%d, in %s); refusing to touch it: use "
				  "a newer crawltop", res->from_version,
				  res->known, dir);
		goto out;
	}
	if ((st = verify_applied(s, dir, m, res->from_version, err)) != CT_OK) {
		rollback(s);
		goto out;
	}
	if ((st = script(s, "migrate", "COMMIT", err)) != CT_OK)
		goto out;

	for (int i = res->from_version; i < n; i++)
		if ((st = apply_one(s, dir, &m[i], &res->applied, err)) != CT_OK)
			break;
	/* The first migration of a new database failed: drop the version
	 * table and the schema the bootstrap made (nothing else is in them:
	 * the migration rolled back), so that the database is as it was. */
	if (st != CT_OK && res->applied == 0 && res->from_version == 0 && made) {
		/* under the lock, and only while no migrator recorded one
		 * (a schema holding anything else is not dropped: RESTRICT
		 * fails, and the whole block with it) */
		char drop[400];
		snprintf(drop, sizeof drop, MIGRATE_BEGIN "; " MIGRATE_LOCK "; DO $$ BEGIN "
			 "IF NOT EXISTS (SELECT FROM crawltop.schema_version) "
			 "THEN DROP TABLE crawltop.schema_version;%s END IF; "
			 "END $$; COMMIT", made == 2 ?
			 " DROP SCHEMA crawltop RESTRICT;" : "");
		PQclear(PQexec(s->conn, drop));
		rollback(s); /* when the block failed */
	}
	if (st == CT_OK)
		st = query_int(s, "migrate", version_sql, &res->to_version, err);
out:
	free(m);
	return st;
}
