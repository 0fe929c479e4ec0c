/* test_importance.c: the importance mode in the store (0033): a task's
 * score grows with every link found to it, as the engine scores it
 * (include/crawltop/importance.h), values worked out by hand.
 *
 * A crawl of a small site: '/' comes in alone (one unit of cash, score
 * 100 as a seed); its four links each get one link in and a quarter of
 * its cash; a link from /a to /b (pending) raises /b in place and the next
 * claim takes it; a link to a task that is running or finished is counted
 * but changes no score; an operator's boost stays on top of a raise; a
 * rescore in the mode gives every task the score enqueue gave (the SQL
 * and the engine agree to the double); scores a crawler passes are not
 * used; a job switched to importance counts links from then on; a seed
 * method scores 100; deleting a job takes its link rows. */
#include <inttypes.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "crawltop/importance.h"
#include "crawltop/settings.h"
#include "pgtest.h"

static int fresh(void **state)
{
	*state = pgt_fresh("ct_importance", 1);
	return 0;
}

/* The engine's score for inlinks, cash and discovered. */
static double engine(double inlinks, double cash, double discovered)
{
	struct ct_importance_input in = {inlinks, cash, discovered, false};
	struct ct_importance_result r;
	struct ct_error err = {{0}};
	if (ct_importance_score(&in, &r, &err) != CT_OK)
		fail_msg("ct_importance_score: %s", err.msg);
	return r.score;
}

/* The score of the task of job on path. */
static double score_of(struct ct_store *s, int64_t job, const char *path)
{
	char sql[512];
	snprintf(sql, sizeof sql, "SELECT t.score FROM crawltop.tasks t JOIN "
		 "crawltop.pages p ON p.id = t.page_id WHERE t.job_id = %" PRId64
		 " AND p.path = '%s'", job, path);
	return pgt_double(s, sql);
}

static int64_t page_of(struct ct_store *s, int64_t job, const char *path)
{
	char sql[512];
	snprintf(sql, sizeof sql, "SELECT p.id FROM crawltop.pages p JOIN "
		 "crawltop.jobs j ON j.domain_id = p.domain_id WHERE j.id = %"
		 PRId64 " AND p.path = '%s'", job, path);
	return pgt_int(s, sql);
}

/* "inlinks cash" of the task of job on path ("" for no row). */
static char *links_of(struct ct_store *s, int64_t job, const char *path)
{
	char sql[512];
	snprintf(sql, sizeof sql, "SELECT l.inlinks || ' ' || l.cash FROM "
		 "crawltop.task_links l JOIN crawltop.tasks t ON t.id = "
		 "l.task_id JOIN crawltop.pages p ON p.id = t.page_id WHERE "
		 "t.job_id = %" PRId64 " AND p.path = '%s'", job, path);
	return pgt_text(s, sql, 0, NULL);
}

#define ASSERT_SCORE(s, job, path, want) do { \
	double got_ = score_of(s, job, path), want_ = (want); \
	if (fabs(got_ - want_) > 1e-12) \
		fail_msg("%s: score %.17g, expected %.17g", path, got_, want_); \
} while (0)

#define ASSERT_LINKS(s, job, path, want) do { \
	char *got_ = links_of(s, job, path); \
	if (strcmp(got_, want) != 0) \
		fail_msg("%s: links '%s', expected '%s'", path, got_, want); \
	free(got_); \
} while (0)

/* Claim one task of job for w; returns its path's task id. */
static int64_t claim_one(struct ct_store *s, int64_t job, const char *want)
{
	struct ct_claim c = pgt_claim(s, "w", job, 1, 60);
	assert_int_equal(c.n, 1);
	if (strcmp(c.tasks[0].path, want) != 0)
		fail_msg("claimed %s, expected %s", c.tasks[0].path, want);
	int64_t id = c.tasks[0].id;
	ct_claim_free(&c);
	return id;
}

static void complete(struct ct_store *s, int64_t id)
{
	size_t done = 0;
	struct ct_error err = {{0}};
	if (ct_store_complete(s, "w", &id, 1, &done, &err) != CT_OK)
		fail_msg("complete: %s", err.msg);
	assert_int_equal(done, 1);
}

static void links_raise_tasks(void **state)
{
	struct ct_store *s = *state;
	int64_t j = pgt_job(s, "imp", "imp.example", 5, "importance");
	const char *home[] = {"/"};
	pgt_enqueue_from(s, j, home, 1, NULL, CT_SRC_MANUAL, 0);
	ASSERT_SCORE(s, j, "/", 100);
	ASSERT_LINKS(s, j, "/", "0 1");
	int64_t t_home = claim_one(s, j, "/");

	/* '/' gives four links: each one link in and a quarter of its cash,
	 * with 5 pages discovered: 1 + 0.25 x 5 = 2.25 */
	const char *l1[] = {"/a", "/b", "/c", "/d"};
	pgt_enqueue_from(s, j, l1, 4, NULL, CT_SRC_LINK, page_of(s, j, "/"));
	complete(s, t_home);
	for (int i = 0; i < 4; i++) {
		ASSERT_SCORE(s, j, l1[i], engine(1, 0.25, 5));
		ASSERT_LINKS(s, j, l1[i], "1 0.25");
	}
	ASSERT_SCORE(s, j, "/a", 100 * 2.25 / 12.25);

	/* /a comes first of the ties; an operator boosts /c by 5 */
	int64_t t_a = claim_one(s, j, "/a");
	pgt_exec(s, "SELECT crawltop.adjust_task(t.id, 5) FROM crawltop.tasks t "
		 "JOIN crawltop.pages p ON p.id = t.page_id WHERE p.path = '/c' "
		 "AND t.job_id = (SELECT id FROM crawltop.jobs WHERE name = 'imp')");
	ASSERT_SCORE(s, j, "/c", engine(1, 0.25, 5) + 5);

	/* /a links to /b and /c, pending, to '/', finished, and to a new
	 * page /e: /a's cash 0.25 in four shares of 0.0625, 6 pages
	 * discovered */
	const char *l2[] = {"/b", "/c", "/", "/e"};
	pgt_enqueue_from(s, j, l2, 4, NULL, CT_SRC_LINK, page_of(s, j, "/a"));
	double raised = engine(2, 0.3125, 6);
	ASSERT_SCORE(s, j, "/b", raised);
	ASSERT_LINKS(s, j, "/b", "2 0.3125");
	ASSERT_SCORE(s, j, "/c", raised + 5);    /* the boost stays */
	ASSERT_SCORE(s, j, "/e", engine(1, 0.0625, 6));
	ASSERT_SCORE(s, j, "/", 100);            /* finished: no score moves */
	ASSERT_LINKS(s, j, "/", "1 1.0625");     /* but the link counts */
	ASSERT_SCORE(s, j, "/a", engine(1, 0.25, 5)); /* running: kept */
	/* a link to the running /a is counted too; a second call from /a
	 * passes on only the cash that came since its first: none */
	const char *self[] = {"/a"};
	pgt_enqueue_from(s, j, self, 1, NULL, CT_SRC_LINK, page_of(s, j, "/a"));
	ASSERT_LINKS(s, j, "/a", "2 0.25");
	ASSERT_SCORE(s, j, "/a", engine(1, 0.25, 5));
	complete(s, t_a);

	/* the claims follow the raised scores, through the queue's index:
	 * /c (boosted), /b, then /d, then /e */
	complete(s, claim_one(s, j, "/c"));
	complete(s, claim_one(s, j, "/b"));
	complete(s, claim_one(s, j, "/d"));
	complete(s, claim_one(s, j, "/e"));
}

/* A rescore in importance mode scores every unfinished task from its
 * links and cash with the job's discovered pages of now, as the SQL
 * function does (to the double), and keeps the operator's adjustment; a
 * second rescore changes nothing. */
static void rescore_agrees(void **state)
{
	struct ct_store *s = *state;
	int64_t j = pgt_job(s, "imp2", "imp2.example", 5, "importance");
	const char *home[] = {"/"};
	pgt_enqueue_from(s, j, home, 1, NULL, CT_SRC_SITEMAP, 0);
	const char *l1[] = {"/a", "/b", "/c"};
	pgt_enqueue_from(s, j, l1, 3, NULL, CT_SRC_LINK, page_of(s, j, "/"));
	const char *l2[] = {"/b", "/x", "/y", "/z", "/w", "/v", "/u"};
	pgt_enqueue_from(s, j, l2, 7, NULL, CT_SRC_LINK, page_of(s, j, "/a"));
	const char *l3[] = {"/x", "/b"};
	pgt_enqueue_from(s, j, l3, 2, NULL, CT_SRC_LINK, page_of(s, j, "/y"));
	pgt_exec(s, "SELECT crawltop.adjust_task(t.id, -3) FROM crawltop.tasks t "
		 "JOIN crawltop.pages p ON p.id = t.page_id WHERE p.path = '/x' "
		 "AND t.job_id = (SELECT id FROM crawltop.jobs WHERE name = 'imp2')");
	/* /x: two links in, 1/7 of /a's 1/3 and half of /y's 1/21, with
	 * the 10 pages discovered when the second came */
	double cash = 1.0 / 3 / 7 + 1.0 / 3 / 7 / 2;
	ASSERT_SCORE(s, j, "/x", engine(2, cash, 10) - 3);
	/* /c was last raised with 4 pages discovered */
	ASSERT_SCORE(s, j, "/c", engine(1, 1.0 / 3, 4));
	struct ct_settings set;
	ct_settings_default(&set);
	struct ct_rescore_opts o = {.settings = &set, .batch = 3};
	struct ct_rescore_result r;
	struct ct_error err = {{0}};
	if (ct_store_job_rescore(s, j, &o, &r, &err) != CT_OK)
		fail_msg("rescore: %s", err.msg);
	assert_int_equal(r.done, 10);
	assert_int_equal(r.batches, 4);
	ASSERT_SCORE(s, j, "/c", engine(1, 1.0 / 3, 10));
	ASSERT_SCORE(s, j, "/x", engine(2, cash, 10) - 3);
	ASSERT_SCORE(s, j, "/", 100);
	/* every task as the SQL scores it, exactly */
	const char *pj[] = {"imp2"};
	char *bad = pgt_text(s, "SELECT string_agg(t.id::text, ',') FROM "
		"crawltop.tasks t JOIN crawltop.jobs j ON j.id = t.job_id "
		"CROSS JOIN LATERAL crawltop.importance_inputs(j.id, ARRAY[t.id]) i "
		"WHERE j.name = $1 AND t.score IS DISTINCT FROM least(100, "
		"greatest(0, crawltop.importance_score(i.inlinks, i.cash, "
		"i.discovered, i.seed) + t.adjustment))", 1, pj);
	assert_string_equal(bad, "");
	free(bad);
	assert_true(r.changed > 0);
	if (ct_store_job_rescore(s, j, &o, &r, &err) != CT_OK)
		fail_msg("rescore: %s", err.msg);
	assert_int_equal(r.changed, 0);
}

/* A job switched to importance from fifo scores its tasks 0 (no link
 * was counted before) and counts from then on; scores a crawler gives
 * are not used; the seed method and '/' score 100; deleting the job
 * takes its link rows. */
static void switch_seed_and_delete(void **state)
{
	struct ct_store *s = *state;
	int64_t j = pgt_job(s, "imp3", "imp3.example", 5, "fifo");
	const char *l1[] = {"/p", "/q"};
	pgt_enqueue_from(s, j, l1, 2, NULL, CT_SRC_SITEMAP, 0);
	struct ct_settings set;
	ct_settings_default(&set);
	struct ct_rescore_opts o = {.settings = &set};
	struct ct_error err = {{0}};
	if (ct_store_job_set_mode(s, j, "importance", &o, NULL, &err) != CT_OK)
		fail_msg("set-mode: %s", err.msg);
	ASSERT_SCORE(s, j, "/p", 0);
	assert_int_equal(pgt_int(s, "SELECT count(*) FROM crawltop.task_links"
		" l JOIN crawltop.tasks t ON t.id = l.task_id JOIN "
		"crawltop.jobs j ON j.id = t.job_id WHERE j.name = 'imp3'"), 0);
	/* a link from an unknown page to /q, with a score of 99 given: one
	 * link in, the mean share of the 2 pages discovered as cash */
	const double given[] = {99};
	const char *l2[] = {"/q"};
	pgt_enqueue_from(s, j, l2, 1, given, CT_SRC_LINK, 0);
	ASSERT_SCORE(s, j, "/q", engine(1, 0.5, 2));
	ASSERT_LINKS(s, j, "/q", "1 0.5");
	/* a page found by the method seed, and '/', come first */
	pgt_exec(s, "SELECT crawltop.enqueue(id, '{/start,/}', 'manual', NULL, "
		 "NULL, NULL, 'seed') FROM crawltop.jobs WHERE name = 'imp3'");
	ASSERT_SCORE(s, j, "/start", 100);
	ASSERT_SCORE(s, j, "/", 100);
	/* a call without a source page gives each path the mean share of
	 * the 4 pages discovered after it */
	ASSERT_LINKS(s, j, "/start", "0 0.25");
	/* the URL of a known source page finds it as its id does */
	pgt_exec(s, "SELECT crawltop.enqueue(id, '{/p}', 'link', NULL, NULL, "
		 "NULL, NULL, 'https://imp3.example/start') FROM crawltop.jobs "
		 "WHERE name = 'imp3'");
	ASSERT_LINKS(s, j, "/p", "1 0.25");
	/* bad input is refused by enqueue's checks, nothing written */
	long long rows = pgt_int(s, "SELECT count(*) FROM crawltop.task_links");
	pgt_exec(s, "DO $$ BEGIN PERFORM crawltop.enqueue((SELECT id "
		"FROM crawltop.jobs WHERE name = 'imp3'), '{/ok,no-slash}', "
		"'link', NULL, NULL, NULL, NULL, 'https://imp3.example/start'); "
		"RAISE EXCEPTION 'enqueue took a path without a slash'; "
		"EXCEPTION WHEN invalid_parameter_value THEN NULL; END $$");
	assert_int_equal(pgt_int(s, "SELECT count(*) FROM crawltop.task_links"),
			 rows);
	pgt_exec(s, "DELETE FROM crawltop.jobs WHERE name = 'imp3'");
	assert_int_equal(pgt_int(s, "SELECT count(*) FROM crawltop.task_links "
		"l WHERE NOT EXISTS (SELECT 1 FROM crawltop.tasks t WHERE "
		"t.id = l.task_id)"), 0);
	assert_true(rows > 0);
}

/* Enqueue paths[0..n) into job j from page src through the library,
 * saying the page has `links` links in all (ct_enqueue_batch.page_links). */
static void from_page(struct ct_store *s, int64_t j, const char *const *paths,
		      size_t n, int64_t src, long links)
{
	struct ct_enqueue_batch b = pgt_batch_from(j, paths, n, NULL, CT_SRC_LINK,
						   src);
	b.page_links = links;
	pgt_enqueue_batch(s, &b);
}

/* A page's links sent in several calls (one per page type, say) with
 * the page's links in all share its cash as one call would; the page
 * never passes on more than it received. */
static void page_links_share(void **state)
{
	struct ct_store *s = *state;
	int64_t j = pgt_job(s, "imp4", "imp4.example", 5, "importance");
	pgt_exec(s, "SELECT crawltop.enqueue(id, '{/}', 'manual') FROM "
		 "crawltop.jobs WHERE name = 'imp4'");
	ASSERT_LINKS(s, j, "/", "0 1");
	int64_t home = page_of(s, j, "/");
	const char *ab[] = {"/a", "/b"}, *c[] = {"/c"}, *d[] = {"/d"},
		*e[] = {"/e"};
	from_page(s, j, ab, 2, home, 4);
	from_page(s, j, c, 1, home, 4);
	ASSERT_LINKS(s, j, "/a", "1 0.25");
	ASSERT_LINKS(s, j, "/c", "1 0.25");
	/* the fourth link gets the last quarter; a fifth, nothing left */
	from_page(s, j, d, 1, home, 4);
	from_page(s, j, e, 1, home, 4);
	ASSERT_LINKS(s, j, "/d", "1 0.25");
	ASSERT_LINKS(s, j, "/e", "1 0");
	/* 0 links is refused, nothing written */
	char sql[512];
	snprintf(sql, sizeof sql, "DO $$ BEGIN PERFORM crawltop.enqueue(%" PRId64
		 ", '{/f}', 'link', %" PRId64 ", p_page_links => 0); RAISE "
		 "EXCEPTION 'page links 0 taken'; EXCEPTION WHEN "
		 "invalid_parameter_value THEN NULL; END $$", j, home);
	pgt_exec(s, sql);
	assert_int_equal(pgt_int(s, "SELECT count(*) FROM crawltop.pages "
				 "WHERE path = '/f'"), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(links_raise_tasks, fresh, pgt_close),
		cmocka_unit_test_setup_teardown(rescore_agrees, fresh, pgt_close),
		cmocka_unit_test_setup_teardown(switch_seed_and_delete, fresh,
						pgt_close),
		cmocka_unit_test_setup_teardown(page_links_share, fresh, pgt_close),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
