/* test_migrate.c: `crawltop migrate` semantics (store.h, migrate.c).
 *
 * Numbered files applied in order, each in one transaction, recorded in
 * crawltop.schema_version; a second run is a no-op; a newer database, a gap
 * in the numbering or a non-UTF8 database is refused and left unchanged; a
 * failing migration is rolled back; concurrent migrators apply each file
 * once. */
#include <dirent.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "pgtest.h"

/* Highest migration number in the source tree's data/sql. */
static int known_version(void)
{
	struct ct_store *s = pgt_fresh("ct_known", 0);
	struct ct_migrate_result r;
	struct ct_error err = {{0}};
	assert_int_equal(ct_store_migrate(s, NULL, &r, &err), CT_OK);
	ct_store_close(s);
	return r.known;
}

static void migrate_twice_is_noop(void **state)
{
	struct ct_store *s = pgt_fresh("ct_twice", 0);
	struct ct_migrate_result r;
	struct ct_error err = {{0}};
	int v = -1;

	assert_int_equal(ct_store_schema_version(s, &v, &err), CT_OK);
	assert_int_equal(v, 0);
	assert_int_equal(ct_store_migrate(s, NULL, &r, &err), CT_OK);
	assert_int_equal(r.from_version, 0);
	assert_true(r.known >= 1);
	assert_int_equal(r.applied, r.known);
	assert_int_equal(r.to_version, r.known);
	long long rows = pgt_int(s, "SELECT count(*) FROM crawltop.schema_version");
	assert_int_equal(rows, r.known);

	int known = r.known;
	assert_int_equal(ct_store_migrate(s, NULL, &r, &err), CT_OK);
	assert_int_equal(r.from_version, known);
	assert_int_equal(r.applied, 0);
	assert_int_equal(r.to_version, known);
	assert_int_equal(pgt_int(s, "SELECT count(*) FROM crawltop.schema_version"),
			 rows);
	assert_int_equal(ct_store_schema_version(s, &v, &err), CT_OK);
	assert_int_equal(v, known);

	/* The tables the seeds name exist in schema crawltop. */
	static const char *const tables[] = {"domains", "pages", "jobs", "tasks",
					     "settings", "audit_log"};
	for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++) {
		const char *p[] = {tables[i]};
		char *t = pgt_text(s, "SELECT to_regclass('crawltop.' || $1) "
				   "IS NOT NULL", 1, p);
		if (strcmp(t, "t") != 0)
			fail_msg("table crawltop.%s is missing", tables[i]);
		free(t);
	}
	ct_store_close(s);
}

static void newer_database_refused(void **state)
{
	int known = known_version();
	struct ct_store *s = pgt_fresh("ct_newer", 1);
	struct ct_migrate_result r;
	struct ct_error err = {{0}};
	char sql[200];
	snprintf(sql, sizeof sql, "INSERT INTO crawltop.schema_version "
		 "(version, name) VALUES (%d, 'from_the_future.sql')", known + 1);
	pgt_exec(s, sql);

	assert_int_equal(ct_store_migrate(s, NULL, &r, &err), CT_EINVAL);
	char want[64];
	snprintf(want, sizeof want, "at version %d, newer", known + 1);
	if (!strstr(err.msg, want))
		fail_msg("unclear refusal: %s", err.msg);
	assert_int_equal(r.from_version, known + 1);
	assert_int_equal(r.applied, 0);
	assert_int_equal(pgt_int(s, "SELECT max(version) FROM crawltop.schema_version"),
			 known + 1);
	ct_store_close(s);
}

/* Write a file into dir. */
static void put(const char *dir, const char *name, const char *text)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* Remove dir and the files in it. */
static void rm_sql_dir(const char *dir)
{
	DIR *d = opendir(dir);
	assert_non_null(d);
	struct dirent *e;
	char path[512];
	while ((e = readdir(d)))
		if (e->d_name[0] != '.') {
			snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
			unlink(path);
		}
	closedir(d);
	assert_int_equal(rmdir(dir), 0);
}

static void gap_and_duplicate_refused(void **state)
{
	char dir[] = "/tmp/ct-sql.XXXXXX";
	assert_non_null(mkdtemp(dir));
	struct ct_store *s = pgt_fresh("ct_gap", 0);
	struct ct_migrate_result r;
	struct ct_error err = {{0}};

	put(dir, "0001_a.sql", "CREATE TABLE crawltop.a (x int);");
	put(dir, "0003_c.sql", "CREATE TABLE crawltop.c (x int);");
	put(dir, "README", "not a migration");
	assert_int_equal(ct_store_migrate(s, dir, &r, &err), CT_EINVAL);
	if (!strstr(err.msg, "0002 is missing"))
		fail_msg("unclear gap message: %s", err.msg);
	int v = -1;
	assert_int_equal(ct_store_schema_version(s, &v, &err), CT_OK);
	assert_int_equal(v, 0);

	put(dir, "0002_b.sql", "CREATE TABLE crawltop.b (x int);");
	put(dir, "0002_bb.sql", "CREATE TABLE crawltop.bb (x int);");
	assert_int_equal(ct_store_migrate(s, dir, &r, &err), CT_EINVAL);
	if (!strstr(err.msg, "same number"))
		fail_msg("unclear duplicate message: %s", err.msg);

	char path[512];
	snprintf(path, sizeof path, "%s/0002_bb.sql", dir);
	unlink(path);
	assert_int_equal(ct_store_migrate(s, dir, &r, &err), CT_OK);
	assert_int_equal(r.applied, 3);
	assert_int_equal(r.to_version, 3);

	rm_sql_dir(dir);
	ct_store_close(s);
}

static void failing_migration_rolled_back(void **state)
{
	char dir[] = "/tmp/ct-sql.XXXXXX";
	assert_non_null(mkdtemp(dir));
	struct ct_store *s = pgt_fresh("ct_fail", 0);
	struct ct_migrate_result r;
	struct ct_error err = {{0}};

	put(dir, "0001_ok.sql", "CREATE TABLE crawltop.ok (x int);");
	put(dir, "0002_broken.sql", "CREATE TABLE crawltop.half (x int);\n"
				    "CREATE TABLE crawltop.oops (x nosuchtype);");
	assert_int_equal(ct_store_migrate(s, dir, &r, &err), CT_EIO);
	if (!strstr(err.msg, "0002_broken.sql") || !strstr(err.msg, "nosuchtype") ||
	    !strstr(err.msg, "SQLSTATE 42704"))
		fail_msg("failure does not name the file, error and SQLSTATE: %s",
			 err.msg);
	assert_string_equal(ct_store_sqlstate(s), "42704");
	assert_int_equal(r.applied, 1);
	int v = -1;
	assert_int_equal(ct_store_schema_version(s, &v, &err), CT_OK);
	assert_int_equal(v, 1);
	assert_int_equal(pgt_int(s, "SELECT (to_regclass('crawltop.ok') IS NOT "
				 "NULL)::int + (to_regclass('crawltop.half') IS "
				 "NOT NULL)::int * 10"), 1);

	rm_sql_dir(dir);
	ct_store_close(s);
}

/* A migration edited or renamed after a database applied it is refused
 * before anything else is applied, naming the file and the date it was
 * applied; the database keeps its rows. The original file is accepted
 * again; a row recorded before checksums were (NULL) is refused. */
static void edited_migration_refused(void **state)
{
	char dir[] = "/tmp/ct-sql.XXXXXX";
	assert_non_null(mkdtemp(dir));
	struct ct_store *s = pgt_fresh("ct_edited", 0);
	struct ct_migrate_result r;
	struct ct_error err = {{0}};

	put(dir, "0001_a.sql", "CREATE TABLE crawltop.a (x int);");
	put(dir, "0002_b.sql", "CREATE TABLE crawltop.b (x int);");
	assert_int_equal(ct_store_migrate(s, dir, &r, &err), CT_OK);
	assert_int_equal(r.applied, 2);
	const char *sums = "SELECT string_agg(version || name || checksum, ',' "
		"ORDER BY version) FROM crawltop.schema_version";
	char *before = pgt_text(s, sums, 0, NULL);
	assert_int_equal(pgt_int(s, "SELECT count(*) FROM crawltop.schema_version "
				 "WHERE checksum = md5('CREATE TABLE crawltop.a "
				 "(x int);')"), 1);

	/* edited, with a new migration waiting: neither is applied */
	put(dir, "0001_a.sql", "CREATE TABLE crawltop.a (x int, y int);");
	put(dir, "0003_c.sql", "CREATE TABLE crawltop.c (x int);");
	assert_int_equal(ct_store_migrate(s, dir, &r, &err), CT_EINVAL);
	if (!strstr(err.msg, "0001_a.sql") || !strstr(err.msg, "differs from") ||
	    !strstr(err.msg, "applied on 20"))
		fail_msg("unclear refusal of an edited migration: %s", err.msg);
	assert_int_equal(r.applied, 0);
	assert_int_equal(pgt_int(s, "SELECT (to_regclass('crawltop.c') IS NULL "
				 "AND NOT EXISTS (SELECT 1 FROM pg_attribute WHERE "
				 "attrelid = 'crawltop.a'::regclass AND attname = "
				 "'y'))::int"), 1);
	char *after = pgt_text(s, sums, 0, NULL);
	assert_string_equal(after, before);
	free(after);

	/* renamed */
	char path[512];
	snprintf(path, sizeof path, "%s/0001_a.sql", dir);
	unlink(path);
	put(dir, "0001_aa.sql", "CREATE TABLE crawltop.a (x int);");
	assert_int_equal(ct_store_migrate(s, dir, &r, &err), CT_EINVAL);
	if (!strstr(err.msg, "0001_aa.sql") || !strstr(err.msg, "is not") ||
	    !strstr(err.msg, "as 0001_a.sql"))
		fail_msg("unclear refusal of a renamed migration: %s", err.msg);

	/* the original text and name again: 0003 is applied */
	snprintf(path, sizeof path, "%s/0001_aa.sql", dir);
	unlink(path);
	put(dir, "0001_a.sql", "CREATE TABLE crawltop.a (x int);");
	assert_int_equal(ct_store_migrate(s, dir, &r, &err), CT_OK);
	assert_int_equal(r.applied, 1);
	assert_int_equal(r.to_version, 3);

	/* recorded without a checksum (a crawltop from before checksums):
	 * it cannot be told to match, so it is refused too */
	pgt_exec(s, "UPDATE crawltop.schema_version SET checksum = NULL "
		 "WHERE version = 2");
	put(dir, "0004_d.sql", "CREATE TABLE crawltop.d (x int);");
	assert_int_equal(ct_store_migrate(s, dir, &r, &err), CT_EINVAL);
	if (!strstr(err.msg, "migration 0002 this database applied on 20") ||
	    !strstr(err.msg, "has no checksum") || !strstr(err.msg, "0002_b.sql"))
		fail_msg("unclear refusal of a migration without checksum: %s",
			 err.msg);
	assert_int_equal(r.applied, 0);
	assert_int_equal(pgt_int(s, "SELECT (to_regclass('crawltop.d') IS NULL)::int"),
			 1);

	rm_sql_dir(dir);
	free(before);
	ct_store_close(s);
}

static void *migrate_thread(void *arg)
{
	struct ct_store *s;
	struct ct_error err = {{0}};
	struct ct_migrate_result *r = arg;
	if (ct_store_open(pgt_dsn("ct_race"), &s, &err) != CT_OK ||
	    ct_store_migrate(s, NULL, r, &err) != CT_OK) {
		fprintf(stderr, "# migrate thread: %s\n", err.msg);
		r->applied = -1000;
	}
	ct_store_close(s);
	return NULL;
}

static void concurrent_migrators_apply_once(void **state)
{
	struct ct_store *s = pgt_fresh("ct_race", 0);
	enum { N = 4 };
	pthread_t th[N];
	struct ct_migrate_result r[N];
	for (int i = 0; i < N; i++)
		assert_int_equal(pthread_create(&th[i], NULL, migrate_thread, &r[i]), 0);
	int total = 0;
	for (int i = 0; i < N; i++) {
		pthread_join(th[i], NULL);
		total += r[i].applied;
	}
	assert_int_equal(total, r[0].known);
	assert_int_equal(pgt_int(s, "SELECT count(*) FROM crawltop.schema_version"),
			 r[0].known);
	ct_store_close(s);
}

/* A new database NAME created WITH options, not migrated; connected. */
static struct ct_store *new_database(const char *name, const char *options)
{
	struct ct_store *admin, *s;
	struct ct_error err = {{0}};
	char sql[300];
	assert_int_equal(ct_store_open(pgt_dsn("postgres"), &admin, &err), CT_OK);
	snprintf(sql, sizeof sql, "DROP DATABASE IF EXISTS %s", name);
	pgt_exec(admin, sql);
	snprintf(sql, sizeof sql, "CREATE DATABASE %s %s", name, options);
	pgt_exec(admin, sql);
	ct_store_close(admin);
	assert_int_equal(ct_store_open(pgt_dsn(name), &s, &err), CT_OK);
	return s;
}

static void non_utf8_database_refused(void **state)
{
	struct ct_error err = {{0}};
	struct ct_migrate_result r;
	struct ct_store *s = new_database("ct_ascii", "ENCODING 'SQL_ASCII' "
					  "TEMPLATE template0");
	assert_int_equal(ct_store_migrate(s, NULL, &r, &err), CT_EINVAL);
	if (!strstr(err.msg, "SQL_ASCII") || !strstr(err.msg, "UTF8"))
		fail_msg("unclear encoding refusal: %s", err.msg);
	assert_int_equal(pgt_int(s, "SELECT count(*) FROM pg_namespace "
				 "WHERE nspname = 'crawltop'"), 0);
	ct_store_close(s);
}

/* Paths compare bytes (COLLATE "C") whatever the database's collation:
 * in a C.UTF-8 database the unique index of pages compares paths with
 * memcmp (under en_US.UTF-8's strcoll a 50,000-URL sitemap took 1.36
 * times as long, doc/PERFORMANCE.md), and a path prefix is a range of
 * that index (under a locale's collation LIKE cannot use it). */
static void paths_compare_bytes_in_any_collation(void **state)
{
	(void)state;
	struct ct_error err = {{0}};
	struct ct_migrate_result r;
	struct ct_store *s = new_database("ct_cutf8", "TEMPLATE template0 "
					  "LC_COLLATE 'C.utf8' LC_CTYPE 'C.utf8'");
	assert_int_equal(ct_store_migrate(s, NULL, &r, &err), CT_OK);
	char *coll = pgt_text(s, "SELECT datcollate FROM pg_database WHERE "
			      "datname = current_database()", 0, NULL);
	assert_string_equal(coll, "C.utf8");
	free(coll);
	coll = pgt_text(s, "SELECT c.collname FROM pg_index i JOIN pg_collation "
			"c ON c.oid = i.indcollation[1] WHERE i.indexrelid = "
			"'crawltop.pages_domain_id_path_key'::regclass", 0, NULL);
	assert_string_equal(coll, "C");
	free(coll);
	pgt_exec(s, "SET enable_seqscan = off");
	/* the whole plan, one line after another */
	pgt_exec(s, "CREATE FUNCTION pg_temp.plan(q text) RETURNS text "
		 "LANGUAGE plpgsql AS $$ DECLARE l text; o text := ''; BEGIN "
		 "FOR l IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP "
		 "o := o || l || E'\\n'; END LOOP; RETURN o; END $$");
	char *plan = pgt_text(s, "SELECT pg_temp.plan('SELECT id FROM "
			      "crawltop.pages WHERE domain_id = 1 AND path "
			      "LIKE ''/docs/%''')", 0, NULL);
	if (!strstr(plan, "Index Cond") || !strstr(plan, ">= '/docs/'"))
		fail_msg("no index range for a path prefix:\n%s", plan);
	free(plan);
	ct_store_close(s);
}

static void bad_connection_reported(void **state)
{
	struct ct_store *s = (struct ct_store *)1;
	struct ct_error err = {{0}};
	assert_int_equal(ct_store_open(pgt_dsn("no_such_database"), &s, &err),
			 CT_EIO);
	assert_null(s);
	if (!strstr(err.msg, "connect:") || !strstr(err.msg, "no_such_database"))
		fail_msg("unclear connection error: %s", err.msg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(migrate_twice_is_noop),
		cmocka_unit_test(newer_database_refused),
		cmocka_unit_test(gap_and_duplicate_refused),
		cmocka_unit_test(failing_migration_rolled_back),
		cmocka_unit_test(edited_migration_refused),
		cmocka_unit_test(concurrent_migrators_apply_once),
		cmocka_unit_test(non_utf8_database_refused),
		cmocka_unit_test(paths_compare_bytes_in_any_collation),
		cmocka_unit_test(bad_connection_reported),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
