/* test_reprio.c: reprioritisation (0004_reprioritise.sql; set_job_state
 * in 0005_claims_and_modes.sql): set priority, pause, resume, cancel,
 * boost and demote by path prefix; each change is one transaction with one
 * audit_log row, and bad input changes nothing. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pgtest.h"

static int fresh(void **state)
{
	*state = pgt_fresh("ct_reprio", 1);
	return 0;
}

/* Claim one task from all jobs (or job) and return "domain path", or ""
 * when nothing is pending; the task is completed. */
static char *next(struct ct_store *s, int64_t job)
{
	static char buf[256];
	struct ct_claim c;
	struct ct_error err = {{0}};
	if (ct_store_claim(s, "w", job, 1, 0, &c, &err) != CT_OK)
		fail_msg("%s", err.msg);
	buf[0] = '\0';
	if (c.n) {
		snprintf(buf, sizeof buf, "%s%s", c.tasks[0].domain, c.tasks[0].path);
		size_t done;
		if (ct_store_complete(s, "w", &c.tasks[0].id, 1, &done, &err) != CT_OK)
			fail_msg("%s", err.msg);
	}
	ct_claim_free(&c);
	return buf;
}

/* Every task's row version (xmin), in id order: unchanged when nothing
 * rewrote a task. Caller frees. */
static char *row_versions(struct ct_store *s)
{
	return pgt_text(s, "SELECT string_agg(xmin::text, ',' ORDER BY id) "
			"FROM crawltop.tasks", 0, NULL);
}

static void set_priority_reorders(void **state)
{
	struct ct_store *s = *state;
	struct ct_error err = {{0}};
	int64_t a = pgt_job(s, "a", "a.example", 5, "fifo");
	int64_t b = pgt_job(s, "b", "b.example", 6, "fifo");
	const char *pa[] = {"/1", "/2"}, *pb[] = {"/1", "/2"};
	pgt_enqueue(s, a, pa, 2, NULL);
	pgt_enqueue(s, b, pb, 2, NULL);
	assert_string_equal(next(s, 0), "a.example/1");
	long rows = -1;
	assert_int_equal(ct_store_job_set_priority(s, b, 1, &rows, &err), CT_OK);
	assert_int_equal(rows, 2);
	assert_string_equal(next(s, 0), "b.example/1");
	assert_string_equal(next(s, 0), "b.example/2");
	assert_string_equal(next(s, 0), "a.example/2");
	assert_int_equal(pgt_int(s, "SELECT count(*) FROM crawltop.audit_log WHERE "
		"action = 'job.priority' AND before->>'priority' = '6' AND "
		"after->>'priority' = '1' AND rows_affected = 2 AND "
		"db_role = current_user AND application_name = 'crawltop'"), 1);

	/* the priority it has already: nothing written, no audit row (it
	 * rewrote every pending task and logged before = after) */
	long audit = pgt_int(s, "SELECT count(*) FROM crawltop.audit_log");
	char *xmins = row_versions(s);
	rows = -1;
	assert_int_equal(ct_store_job_set_priority(s, b, 1, &rows, &err), CT_OK);
	assert_int_equal(rows, 0);
	char *after = row_versions(s);
	assert_string_equal(after, xmins);
	free(after);
	free(xmins);
	assert_int_equal(pgt_int(s, "SELECT count(*) FROM crawltop.audit_log"), audit);
	/* ... but an unknown job is still one */
	assert_int_equal(ct_store_job_set_priority(s, 4242, 1, &rows, &err),
			 CT_ENOENT);

	/* 0 and 11 refused, nothing changed */
	for (int p = 0; p <= 11; p += 11) {
		assert_int_equal(ct_store_job_set_priority(s, a, p, &rows, &err),
				 CT_ERANGE);
		if (!strstr(err.msg, "set job priority: priority") ||
		    !strstr(err.msg, "is outside 1..10"))
			fail_msg("unclear: %s", err.msg);
	}
	assert_int_equal(ct_store_job_set_priority(s, 4242, 3, &rows, &err),
			 CT_ENOENT);
	assert_int_equal(pgt_int(s, "SELECT priority FROM crawltop.jobs WHERE name = 'a'"), 5);
	assert_int_equal(pgt_int(s, "SELECT count(*) FROM crawltop.audit_log"), audit);
}

static void pause_resume_cancel(void **state)
{
	struct ct_store *s = *state;
	struct ct_error err = {{0}};
	int64_t a = pgt_job(s, "pa", "pa.example", 1, "fifo");
	int64_t b = pgt_job(s, "pb", "pb.example", 9, "fifo");
	const char *p[] = {"/1", "/2", "/3"};
	pgt_enqueue(s, a, p, 3, NULL);
	pgt_enqueue(s, b, p, 1, NULL);
	long rows;
	assert_int_equal(ct_store_job_act(s, a, CT_JOB_PAUSE, &rows, &err), CT_OK);
	assert_int_equal(rows, 3);
	/* paused: neither the all-jobs claim nor the job's own hand it out */
	assert_string_equal(next(s, a), "");
	assert_string_equal(next(s, 0), "pb.example/1");
	assert_string_equal(next(s, 0), "");
	/* a paused job still takes new tasks, held back too */
	const char *q[] = {"/4"};
	pgt_enqueue(s, a, q, 1, NULL);
	assert_string_equal(next(s, 0), "");
	assert_int_equal(ct_store_job_act(s, a, CT_JOB_PAUSE, &rows, &err), CT_EINVAL);
	if (!strstr(err.msg, "is paused: cannot pause") ||
	    strcmp(ct_store_sqlstate(s), "55000"))
		fail_msg("unclear: %s", err.msg);
	assert_int_equal(ct_store_job_act(s, a, CT_JOB_RESUME, &rows, &err), CT_OK);
	assert_int_equal(rows, 4);
	assert_string_equal(next(s, 0), "pa.example/1");

	/* cancel: pending tasks skipped, no new tasks, nothing handed out */
	assert_int_equal(ct_store_job_act(s, a, CT_JOB_CANCEL, &rows, &err), CT_OK);
	assert_int_equal(rows, 3);
	assert_string_equal(next(s, 0), "");
	assert_int_equal(pgt_int(s, "SELECT count(*) FROM crawltop.tasks t JOIN "
		"crawltop.jobs j ON j.id = t.job_id WHERE j.name = 'pa' AND "
		"t.status = 'skipped'"), 3);
	assert_int_equal(ct_store_job_act(s, a, CT_JOB_RESUME, &rows, &err), CT_EINVAL);
	assert_int_equal(ct_store_job_act(s, a, CT_JOB_CANCEL, &rows, &err), CT_EINVAL);
	char *audit = pgt_text(s, "SELECT string_agg(action || ':' || "
		"rows_affected, ',' ORDER BY id) FROM crawltop.audit_log "
		"WHERE action LIKE 'job.%' AND action <> 'job.create'", 0, NULL);
	assert_string_equal(audit, "job.pause:3,job.resume:4,job.cancel:3");
	free(audit);

	/* A running task of a paused job returns to pending behind the range. */
	int64_t c = pgt_job(s, "pc", "pc.example", 2, "fifo");
	const char *r[] = {"/r"};
	pgt_enqueue(s, c, r, 1, NULL);
	struct ct_claim k;
	assert_int_equal(ct_store_claim(s, "w", c, 1, 0, &k, &err), CT_OK);
	assert_int_equal(ct_store_job_act(s, c, CT_JOB_PAUSE, &rows, &err), CT_OK);
	size_t done;
	assert_int_equal(ct_store_release(s, "w", &k.tasks[0].id, 1, &done, &err), CT_OK);
	assert_string_equal(next(s, 0), "");
	assert_int_equal(pgt_int(s, "SELECT job_priority FROM crawltop.tasks t JOIN "
		"crawltop.jobs j ON j.id = t.job_id WHERE j.name = 'pc'"), 102);
	ct_claim_free(&k);
}

static void boost_and_demote_by_prefix(void **state)
{
	struct ct_store *s = *state;
	struct ct_error err = {{0}};
	int64_t j = pgt_job(s, "bd", "bd.example", 5, "frontier");
	const char *p[] = {"/news/1", "/news/2", "/blog/1", "/newsletter", "/x%y"};
	double sc[] = {10, 20, 50, 40, 30};
	pgt_enqueue(s, j, p, 5, sc);
	long rows;
	assert_int_equal(ct_store_adjust_scores(s, j, "/news/", 85, &rows, &err), CT_OK);
	assert_int_equal(rows, 2);
	/* /news/2 is at 100 (20 + 85): a boost still adds to the points it
	 * keeps (a later demotion starts from the sum, 0001) ... */
	assert_int_equal(ct_store_adjust_scores(s, j, "/news/2", 15, &rows, &err), CT_OK);
	assert_int_equal(rows, 1);
	/* ... until they are at 100: a boost of tasks whose adjustment is
	 * at 100 already, or by 0, changes nothing: no task rewritten, no
	 * audit row */
	long before = pgt_int(s, "SELECT count(*) FROM crawltop.audit_log");
	char *xmins = row_versions(s);
	assert_int_equal(ct_store_adjust_scores(s, j, "/news/2", 5, &rows, &err), CT_OK);
	assert_int_equal(rows, 0);
	assert_int_equal(ct_store_adjust_scores(s, j, "/", 0, &rows, &err), CT_OK);
	assert_int_equal(rows, 0);
	char *after = row_versions(s);
	assert_string_equal(after, xmins);
	free(after);
	free(xmins);
	assert_int_equal(pgt_int(s, "SELECT count(*) FROM crawltop.audit_log"), before);
	/* /news/2 at 100 with 100 points and /news/1 at 95: +3 changes one
	 * of them */
	assert_int_equal(ct_store_adjust_scores(s, j, "/news/", 3, &rows, &err), CT_OK);
	assert_int_equal(rows, 1);
	assert_string_equal(next(s, 0), "bd.example/news/2"); /* 100 (clamped) */
	assert_string_equal(next(s, 0), "bd.example/news/1"); /* 98 */
	assert_int_equal(ct_store_adjust_scores(s, j, "/blog", -45, &rows, &err), CT_OK);
	assert_int_equal(rows, 1);
	/* no wildcards: '%' is a plain character */
	assert_int_equal(ct_store_adjust_scores(s, j, "/x%", 1, &rows, &err), CT_OK);
	assert_int_equal(rows, 1);
	assert_int_equal(ct_store_adjust_scores(s, j, "/%", 1, &rows, &err), CT_OK);
	assert_int_equal(rows, 0);
	assert_string_equal(next(s, 0), "bd.example/newsletter"); /* 40 */
	assert_string_equal(next(s, 0), "bd.example/x%y");        /* 31 */
	assert_string_equal(next(s, 0), "bd.example/blog/1");     /* 5 */
	assert_int_equal(pgt_int(s, "SELECT count(*) FROM crawltop.audit_log WHERE "
		"action IN ('tasks.boost', 'tasks.demote')"), 5);
	assert_int_equal(pgt_int(s, "SELECT count(*) FROM crawltop.audit_log WHERE "
		"action = 'tasks.boost' AND rows_affected = 0"), 0);

	long audit = pgt_int(s, "SELECT count(*) FROM crawltop.audit_log");
	static const struct {
		const char *prefix;
		double delta;
		ct_status st;
		const char *frag;
	} bad[] = {
		{"news", 5, CT_EINVAL, "path prefix 'news' is not a page path prefix"},
		{"/a b", 5, CT_EINVAL, "'/a b' is not a page path prefix: like a "
		 "path, it must start with '/', have no spaces"},
		{"/news", NAN, CT_ERANGE, "score change NaN is outside -100..100"},
		{"/news", 101, CT_ERANGE, "score change 101 is outside"},
		{"/news", -INFINITY, CT_ERANGE, "score change -Infinity"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		ct_status st = ct_store_adjust_scores(s, j, bad[i].prefix,
						      bad[i].delta, &rows, &err);
		if (st != bad[i].st || !strstr(err.msg, bad[i].frag))
			fail_msg("case %zu: %s: %s", i, ct_status_str(st), err.msg);
	}
	assert_int_equal(pgt_int(s, "SELECT count(*) FROM crawltop.audit_log"), audit);
}

/* A pattern matches the whole path: '*' any run of characters ('/' too),
 * every other character itself ('%' and '_' included); no '*' is one path
 * exactly. The audit row names the pattern. */
static void boost_and_demote_by_pattern(void **state)
{
	struct ct_store *s = *state;
	struct ct_error err = {{0}};
	int64_t j = pgt_job(s, "pat", "pat.example", 5, "frontier");
	const char *p[] = {"/docs/a/print", "/docs/b/print", "/docs/b/view",
			   "/docs/b/view2", "/files/x.pdf", "/x_y.pdf",
			   "/xay.pdf"};
	double sc[] = {10, 10, 10, 10, 10, 10, 10};
	pgt_enqueue(s, j, p, 7, sc);
	static const struct {
		const char *pattern;
		double delta;
		long rows;
	} step[] = {
		{"/docs/*/print", 10, 2},
		{"*.pdf", 5, 3},
		{"/x_y.pdf", 1, 1},  /* '_' is itself: not /xay.pdf */
		{"/docs/b/view", 1, 1}, /* no '*': that path alone */
		{"/docs/*", -3, 4},
		{"/nothing*", 7, 0},
		{"*", 0, 0},
	};
	long rows, audit0 = pgt_int(s, "SELECT count(*) FROM crawltop.audit_log");
	for (size_t i = 0; i < sizeof step / sizeof step[0]; i++) {
		if (ct_store_adjust_matching(s, j, step[i].pattern, step[i].delta,
					     &rows, &err) != CT_OK)
			fail_msg("%s: %s", step[i].pattern, err.msg);
		if (rows != step[i].rows)
			fail_msg("%s: %ld rows, want %ld", step[i].pattern, rows,
				 step[i].rows);
	}
	const char *pj[] = {"pat"};
	char *t = pgt_text(s, "SELECT string_agg(p.path || ' ' || t.adjustment, "
		"',' ORDER BY p.path) FROM crawltop.tasks t JOIN crawltop.pages p "
		"ON p.id = t.page_id JOIN crawltop.jobs j ON j.id = t.job_id "
		"WHERE j.name = $1", 1, pj);
	assert_string_equal(t, "/docs/a/print 7,/docs/b/print 7,/docs/b/view -2,"
			    "/docs/b/view2 -3,/files/x.pdf 5,/x_y.pdf 6,/xay.pdf 5");
	free(t);
	t = pgt_text(s, "SELECT string_agg(action || ' ' || (before->>'pattern') "
		"|| ' ' || (after->>'delta') || ' ' || rows_affected, ',' ORDER BY "
		"id) FROM crawltop.audit_log WHERE action LIKE 'tasks.%'", 0, NULL);
	assert_string_equal(t, "tasks.boost /docs/*/print 10 2,tasks.boost *.pdf "
			    "5 3,tasks.boost /x_y.pdf 1 1,tasks.boost /docs/b/view 1 1,"
			    "tasks.demote /docs/* -3 4");
	free(t);
	assert_int_equal(pgt_int(s, "SELECT count(*) FROM crawltop.audit_log"),
			 audit0 + 5);
	static const struct {
		const char *pattern, *frag;
	} bad[] = {
		{"docs/*", "path pattern 'docs/*' is not a pattern of page paths: "
		 "it must start with '/' or '*'"},
		{"/a *", "path pattern '/a *' is not a pattern"},
		{"", "path pattern '' is not a pattern"},
		{"/\t*", "is not a pattern"},
		{"/a#*", "is not a pattern"},
		{"/a\u202e*", "is not a pattern"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		ct_status st = ct_store_adjust_matching(s, j, bad[i].pattern, 5,
							&rows, &err);
		if (st != CT_EINVAL || !strstr(err.msg, bad[i].frag))
			fail_msg("case %zu: %s: %s", i, ct_status_str(st), err.msg);
	}
	char sql[128];
	snprintf(sql, sizeof sql, "SELECT crawltop.adjust_scores(%lld, '/docs/', "
		 "5, NULL)", (long long)j);
	assert_int_not_equal(ct_store_exec(s, "test", sql, &err), CT_OK);
	if (!strstr(err.msg, "whether '/docs/' is a pattern is NULL"))
		fail_msg("%s", err.msg);
	assert_int_equal(pgt_int(s, "SELECT count(*) FROM crawltop.audit_log"),
			 audit0 + 5);

	/* '\', '%' and '_' are themselves in both (the LIKE escapes them);
	 * '*' is itself in a prefix */
	int64_t k = pgt_job(s, "lit", "lit.example", 5, "frontier");
	const char *q[] = {"/a\\b", "/a%25b", "/a_b", "/aXb", "/a*b", "/a%2Ab"};
	double qs[] = {10, 10, 10, 10, 10, 10};
	pgt_enqueue(s, k, q, 6, qs);
	static const struct {
		const char *match;
		int pattern;
		long rows;
	} lit[] = {
		{"/a\\", 0, 1}, {"/a%25", 0, 1}, {"/a_", 0, 1}, {"/a*", 0, 1},
		{"/a\\b", 1, 1}, {"/a_b", 1, 1}, {"*%25*", 1, 1}, {"/a%2A*", 1, 1},
		{"/a*b", 1, 6},
	};
	for (size_t i = 0; i < sizeof lit / sizeof *lit; i++) {
		ct_status st = lit[i].pattern
			? ct_store_adjust_matching(s, k, lit[i].match, 1, &rows, &err)
			: ct_store_adjust_scores(s, k, lit[i].match, 1, &rows, &err);
		if (st != CT_OK || rows != lit[i].rows)
			fail_msg("%s '%s': %s, %ld rows, want %ld", lit[i].pattern ?
				 "pattern" : "prefix", lit[i].match, err.msg, rows,
				 lit[i].rows);
	}
	const char *pk[] = {"lit"};
	t = pgt_text(s, "SELECT string_agg(p.path || ' ' || t.adjustment, "
		"',' ORDER BY p.path COLLATE \"C\") FROM crawltop.tasks t JOIN "
		"crawltop.pages p ON p.id = t.page_id JOIN crawltop.jobs j ON "
		"j.id = t.job_id WHERE j.name = $1", 1, pk);
	assert_string_equal(t, "/a%25b 3,/a%2Ab 2,/a*b 2,/aXb 1,/a\\b 3,/a_b 3");
	free(t);
}

/* Seed 000's update after a sitemap, after hierarchy.sitemap rose: the
 * sitemap pages and their pending tasks rise, adjustments kept, with one
 * audit row; again, nothing rises and no row is written. */
static void sitemap_priorities_after_a_settings_change(void **state)
{
	struct ct_store *s = *state;
	struct ct_error err = {{0}};
	int64_t j = pgt_job(s, "sm", "sm.example", 5, "hierarchy");
	const char *p[] = {"/s1", "/s2"};
	pgt_enqueue(s, j, p, 2, NULL);
	long rows;
	assert_int_equal(ct_store_adjust_scores(s, j, "/s1", 5, &rows, &err), CT_OK);
	pgt_exec(s, "INSERT INTO crawltop.settings (value, note) SELECT "
		 "jsonb_set(value, '{hierarchy,sitemap}', '0.7'), 'test' FROM "
		 "crawltop.settings ORDER BY version DESC LIMIT 1");
	const char *pj[] = {"sm"};
	static const char q[] = "SELECT string_agg(p.path || ' ' || round("
		"t.score::numeric, 3) || ' P' || t.class, ',' ORDER BY p.path) FROM "
		"crawltop.tasks t JOIN crawltop.pages p ON p.id = t.page_id JOIN "
		"crawltop.jobs j ON j.id = t.job_id WHERE j.name = $1";
	char *t = pgt_text(s, q, 1, pj);
	assert_string_equal(t, "/s1 55.000 P2,/s2 50.000 P2");
	free(t);
	long audit = pgt_int(s, "SELECT count(*) FROM crawltop.audit_log");
	if (ct_store_apply_sitemap(s, j, &rows, &err) != CT_OK)
		fail_msg("%s", err.msg);
	assert_int_equal(rows, 2);
	t = pgt_text(s, q, 1, pj);
	assert_string_equal(t, "/s1 75.000 P1,/s2 70.000 P1");
	free(t);
	t = pgt_text(s, "SELECT action || ' ' || (after->>'sitemap') || ' ' || "
		     "(after->>'pages_raised') || ' ' || rows_affected FROM "
		     "crawltop.audit_log ORDER BY id DESC LIMIT 1", 0, NULL);
	assert_string_equal(t, "tasks.sitemap 0.7 2 2");
	free(t);
	assert_int_equal(ct_store_apply_sitemap(s, j, &rows, &err), CT_OK);
	assert_int_equal(rows, 0);
	assert_int_equal(pgt_int(s, "SELECT count(*) FROM crawltop.audit_log"),
			 audit + 1);
	assert_int_equal(ct_store_apply_sitemap(s, 987654, &rows, &err), CT_ENOENT);
	if (!strstr(err.msg, "job 987654 does not exist"))
		fail_msg("%s", err.msg);

	/* a sitemap page raised by a link since stays a sitemap page */
	int64_t k = pgt_job(s, "sm2", "sm2.example", 5, "hierarchy");
	const char *root[] = {"/"}, *ab[] = {"/a", "/b"}, *a[] = {"/a"};
	pgt_enqueue_from(s, k, root, 1, NULL, CT_SRC_MANUAL, 0);
	pgt_enqueue(s, k, ab, 2, NULL);
	char kb[24];
	snprintf(kb, sizeof kb, "%lld", (long long)k);
	const char *pk[] = {kb};
	char *home = pgt_text(s, "SELECT crawltop.page_id($1::bigint, '/')", 1, pk);
	assert_int_equal(pgt_enqueue_from(s, k, a, 1, NULL, CT_SRC_LINK,
					  atoll(home)).raised, 1);
	free(home);
	pgt_exec(s, "INSERT INTO crawltop.settings (value, note) SELECT "
		 "jsonb_set(value, '{hierarchy,sitemap}', '0.9'), 'test' FROM "
		 "crawltop.settings ORDER BY version DESC LIMIT 1");
	assert_int_equal(ct_store_apply_sitemap(s, k, &rows, &err), CT_OK);
	assert_int_equal(rows, 2);
	const char *pj2[] = {"sm2"};
	t = pgt_text(s, q, 1, pj2);
	assert_string_equal(t, "/ 100.000 P0,/a 90.000 P0,/b 90.000 P0");
	free(t);
}

/* The points operators add are kept as a sum in -100..100 and the score
 * is derived from it, clamped to 0..100: the clamp loses nothing. +30 on
 * 90 gives 100, then -30 gives 90 again (not 70); a demotion below 0 and
 * the boost back the same. The class follows the score. */
static void adjustments_add_up_and_clamp(void **state)
{
	struct ct_store *s = *state;
	struct ct_error err = {{0}};
	int64_t j = pgt_job(s, "cl", "cl.example", 5, "frontier");
	const char *p[] = {"/hi", "/lo"};
	double sc[] = {90, 10};
	pgt_enqueue(s, j, p, 2, sc);
	long rows;
	static const struct {
		const char *prefix;
		double delta;
		long rows;
		const char *want; /* "/hi score class adjustment, /lo ..." */
	} step[] = {
		{"/hi", 30, 1, "/hi 100 0 30,/lo 10 3 0"},
		{"/hi", -30, 1, "/hi 90 0 0,/lo 10 3 0"},
		{"/hi", 30, 1, "/hi 100 0 30,/lo 10 3 0"},
		{"/hi", -60, 1, "/hi 60 1 -30,/lo 10 3 0"},
		{"/lo", -30, 1, "/hi 60 1 -30,/lo 0 3 -30"},
		{"/lo", 30, 1, "/hi 60 1 -30,/lo 10 3 0"},
		{"/", 100, 2, "/hi 100 0 70,/lo 100 0 100"},
		/* the sum stays within -100..100 */
		{"/", 100, 1, "/hi 100 0 100,/lo 100 0 100"},
		{"/", 50, 0, "/hi 100 0 100,/lo 100 0 100"},
		{"/", -100, 2, "/hi 90 0 0,/lo 10 3 0"},
		{"/", -100, 2, "/hi 0 3 -100,/lo 0 3 -100"},
		{"/", -100, 0, "/hi 0 3 -100,/lo 0 3 -100"},
		{"/", 100, 2, "/hi 90 0 0,/lo 10 3 0"},
	};
	const char *pj[] = {"cl"};
	for (size_t i = 0; i < sizeof step / sizeof step[0]; i++) {
		assert_int_equal(ct_store_adjust_scores(s, j, step[i].prefix,
			step[i].delta, &rows, &err), CT_OK);
		char *t = pgt_text(s, "SELECT string_agg(p.path || ' ' || t.score "
			"|| ' ' || t.class || ' ' || t.adjustment, ',' ORDER BY "
			"p.path) FROM crawltop.tasks t JOIN crawltop.pages p ON "
			"p.id = t.page_id JOIN crawltop.jobs j ON j.id = t.job_id "
			"WHERE j.name = $1", 1, pj);
		if (rows != step[i].rows || strcmp(t, step[i].want) != 0)
			fail_msg("step %zu (%s %+g): %ld rows, %s; want %ld rows, %s",
				 i, step[i].prefix, step[i].delta, rows, t,
				 step[i].rows, step[i].want);
		free(t);
	}
	assert_int_equal(pgt_int(s, "SELECT count(*) FROM crawltop.audit_log WHERE "
		"action IN ('tasks.boost', 'tasks.demote') AND rows_affected > 0"), 11);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(set_priority_reorders, fresh, pgt_close),
		cmocka_unit_test_setup_teardown(boost_and_demote_by_pattern, fresh, pgt_close),
		cmocka_unit_test_setup_teardown(sitemap_priorities_after_a_settings_change, fresh, pgt_close),
		cmocka_unit_test_setup_teardown(pause_resume_cancel, fresh, pgt_close),
		cmocka_unit_test_setup_teardown(boost_and_demote_by_prefix, fresh, pgt_close),
		cmocka_unit_test_setup_teardown(adjustments_add_up_and_clamp, fresh, pgt_close),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
