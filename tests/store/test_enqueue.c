/* test_enqueue.c: jobs and enqueue (crawltop.create_job, crawltop.enqueue).
 *
 * Dedup per job, seed 000's hierarchy rules with SPEC.md's decisions (chain
 * 1, 0.8, 0.64, ... down to the 0.1 floor; scores only increase; source
 * page found by id), per-mode task scores, total_pages, and bad input
 * refused with a clear error and nothing changed. */
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

#include "pgtest.h"

static int setup(void **state)
{
	*state = pgt_fresh("ct_enqueue", 1);
	return 0;
}

static int teardown(void **state)
{
	ct_store_close(*state);
	return 0;
}

static int64_t page(struct ct_store *s, int64_t job, const char *path)
{
	int64_t id;
	struct ct_error err = {{0}};
	if (ct_store_page_id(s, job, path, &id, &err) != CT_OK)
		fail_msg("%s", err.msg);
	return id;
}

/* priority_score of a page / score and class of its task in job. */
static double page_score(struct ct_store *s, int64_t page_id)
{
	char id[24], *t;
	snprintf(id, sizeof id, "%lld", (long long)page_id);
	const char *p[] = {id};
	t = pgt_text(s, "SELECT priority_score FROM crawltop.pages WHERE id = $1",
		     1, p);
	double v = strtod(t, NULL);
	free(t);
	return v;
}

static double task_score(struct ct_store *s, int64_t job, int64_t page_id,
			 int *cls)
{
	char j[24], id[24], *t;
	snprintf(j, sizeof j, "%lld", (long long)job);
	snprintf(id, sizeof id, "%lld", (long long)page_id);
	const char *p[] = {j, id};
	t = pgt_text(s, "SELECT score || ' ' || class FROM crawltop.tasks "
		     "WHERE job_id = $1 AND page_id = $2", 2, p);
	double v = NAN;
	if (sscanf(t, "%lf %d", &v, cls) != 2)
		fail_msg("no task for page %lld in job %lld", (long long)page_id,
			 (long long)job);
	free(t);
	return v;
}

static void dedup_per_job(void **state)
{
	struct ct_store *s = *state;
	int64_t a = pgt_job(s, "dedup-a", "dedup.example", 5, "hierarchy");
	int64_t b = pgt_job(s, "dedup-b", "dedup.example", 5, "fifo");
	const char *p1[] = {"/a", "/b", "/a"};
	const char *p2[] = {"/a", "/c"};
	struct ct_enqueue_result r = pgt_enqueue(s, a, p1, 3, NULL);
	assert_int_equal(r.inserted, 2);
	r = pgt_enqueue(s, a, p2, 2, NULL);
	assert_int_equal(r.inserted, 1);
	assert_int_equal(r.raised, 0);
	/* Another job of the same domain shares the pages, not the tasks. */
	r = pgt_enqueue(s, b, p2, 2, NULL);
	assert_int_equal(r.inserted, 2);
	assert_int_equal(pgt_int(s, "SELECT count(*) FROM crawltop.tasks t JOIN "
		"crawltop.jobs j ON j.id = t.job_id WHERE j.name = 'dedup-a'"), 3);
	assert_int_equal(pgt_int(s, "SELECT total_pages FROM crawltop.jobs "
				 "WHERE name = 'dedup-a'"), 3);
	assert_int_equal(pgt_int(s, "SELECT total_pages FROM crawltop.jobs "
				 "WHERE name = 'dedup-b'"), 2);
	assert_int_equal(pgt_int(s, "SELECT count(*) FROM crawltop.pages p JOIN "
		"crawltop.domains d ON d.id = p.domain_id "
		"WHERE d.name = 'dedup.example'"), 3);
	/* An empty batch is fine and does nothing. */
	r = pgt_enqueue_from(s, a, NULL, 0, NULL, CT_SRC_LINK, 0);
	assert_int_equal(r.inserted, 0);
}

/* Without a page id, a link's source page is found from its source URL
 * (seed 000's trigger found it so), by the URL's path on the job's domain. */
static void source_page_found_by_url(void **state)
{
	struct ct_store *s = *state;
	int64_t job = pgt_job(s, "byurl", "byurl.example", 5, "hierarchy");
	const char *seed[] = {"/", "/docs/?v=2"};
	pgt_enqueue_from(s, job, seed, 1, NULL, CT_SRC_MANUAL, 0);
	pgt_enqueue_from(s, job, seed + 1, 1, NULL, CT_SRC_SITEMAP, 0);
	static const struct {
		const char *path, *url;
		double want;
		const char *source; /* the page found, or NULL */
	} cases[] = {
		{"/a", "https://byurl.example/", 0.8, "/"},
		{"/b", "https://ByUrl.Example:443/#top", 0.8, "/"},
		{"/c", "https://byurl.example/docs/?v=2#x", 0.4, "/docs/?v=2"},
		{"/d", "http://byurl.example:80", 0.8, "/"},
		/* another host, another port, an unknown page: the floor */
		{"/e", "https://other.example/", 0.1, NULL},
		{"/f", "https://byurl.example:8443/", 0.1, NULL},
		{"/g", "https://byurl.example/nowhere", 0.1, NULL},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct ct_enqueue_batch b = CT_ENQUEUE_BATCH_INIT;
		const char *p[] = {cases[i].path};
		b.job_id = job;
		b.paths = p;
		b.n = 1;
		b.source = CT_SRC_LINK;
		b.source_url = cases[i].url;
		pgt_enqueue_batch(s, &b);
		int64_t id = page(s, job, cases[i].path);
		if (fabs(page_score(s, id) - cases[i].want) > 1e-12)
			fail_msg("%s from %s: page score %.17g, want %g",
				 cases[i].path, cases[i].url, page_score(s, id),
				 cases[i].want);
		char q[256];
		snprintf(q, sizeof q, "SELECT coalesce((SELECT p.path FROM "
			 "crawltop.tasks t JOIN crawltop.pages p ON p.id = "
			 "t.source_page_id WHERE t.page_id = %lld), '-')",
			 (long long)id);
		char *src = pgt_text(s, q, 0, NULL);
		assert_string_equal(src, cases[i].source ? cases[i].source : "-");
		free(src);
	}
	/* a domain written with the default port is the same host */
	int64_t pj = pgt_job(s, "byport", "byport.example:443", 5, "hierarchy");
	const char *root[] = {"/"};
	pgt_enqueue_from(s, pj, root, 1, NULL, CT_SRC_MANUAL, 0);
	static const char *const port_urls[] = {"https://byport.example/",
		"https://byport.example:443/"};
	for (int i = 0; i < 2; i++) {
		struct ct_enqueue_batch pb = CT_ENQUEUE_BATCH_INIT;
		const char *pp[] = {i ? "/p1" : "/p0"};
		pb.job_id = pj;
		pb.paths = pp;
		pb.n = 1;
		pb.source = CT_SRC_LINK;
		pb.source_url = port_urls[i];
		pgt_enqueue_batch(s, &pb);
		if (fabs(page_score(s, page(s, pj, pp[0])) - 0.8) > 1e-12)
			fail_msg("%s from %s on byport.example:443: %.17g, want 0.8",
				 pp[0], port_urls[i], page_score(s, page(s, pj, pp[0])));
	}
	/* a page id given wins over the URL */
	struct ct_enqueue_batch b = CT_ENQUEUE_BATCH_INIT;
	const char *p[] = {"/h"};
	b.job_id = job;
	b.paths = p;
	b.n = 1;
	b.source = CT_SRC_LINK;
	b.source_page_id = page(s, job, "/docs/?v=2");
	b.source_url = "https://byurl.example/";
	pgt_enqueue_batch(s, &b);
	assert_true(fabs(page_score(s, page(s, job, "/h")) - 0.4) < 1e-12);
}

static void hierarchy_chain(void **state)
{
	struct ct_store *s = *state;
	int64_t job = pgt_job(s, "chain", "chain.example", 5, "hierarchy");
	const char *root[] = {"/"};
	pgt_enqueue_from(s, job, root, 1, NULL, CT_SRC_MANUAL, 0);
	int64_t prev = page(s, job, "/");
	int cls;
	assert_true(page_score(s, prev) == 1.0);
	assert_true(task_score(s, job, prev, &cls) == 100.0);
	assert_int_equal(cls, 0);

	/* /l1 linked from /, /l2 from /l1, ...: 0.8^k until the 0.1 floor. */
	double want = 1.0;
	static const int want_class[] = {0, 1, 2, 2, 3, 3};
	for (int k = 1; k <= 14; k++) {
		char path[32];
		snprintf(path, sizeof path, "/l%d", k);
		const char *p[] = {path};
		struct ct_enqueue_result r =
			pgt_enqueue_from(s, job, p, 1, NULL, CT_SRC_LINK, prev);
		assert_int_equal(r.inserted, 1);
		int64_t id = page(s, job, path);
		want = fmax(0.8 * want, 0.1);
		double got = page_score(s, id);
		if (fabs(got - want) > 1e-12)
			fail_msg("%s: page score %.17g, want %.17g", path, got, want);
		double ts = task_score(s, job, id, &cls);
		if (fabs(ts - 100 * want) > 1e-9)
			fail_msg("%s: task score %.17g, want %.17g", path, ts,
				 100 * want);
		if (k <= 6)
			assert_int_equal(cls, want_class[k - 1]);
		prev = id;
	}
	assert_true(want == 0.1);
	assert_int_equal(pgt_int(s, "SELECT total_pages FROM crawltop.jobs "
				 "WHERE name = 'chain'"), 15);
}

static void scores_only_increase(void **state)
{
	struct ct_store *s = *state;
	int64_t job = pgt_job(s, "up", "up.example", 5, "hierarchy");
	const char *root[] = {"/"}, *x[] = {"/x"}, *y[] = {"/y"}, *low[] = {"/low"};
	pgt_enqueue(s, job, root, 1, NULL);
	int64_t home = page(s, job, "/");
	/* "/" is the root whatever the source. */
	assert_true(page_score(s, home) == 1.0);

	pgt_enqueue(s, job, x, 1, NULL);
	int64_t px = page(s, job, "/x");
	assert_true(page_score(s, px) == 0.5);
	/* A link from an unknown page: the floor, and /x keeps 0.5. */
	struct ct_enqueue_result r =
		pgt_enqueue_from(s, job, x, 1, NULL, CT_SRC_LINK, 0);
	assert_int_equal(r.inserted, 0);
	assert_int_equal(r.raised, 0);
	assert_true(page_score(s, px) == 0.5);
	pgt_enqueue_from(s, job, low, 1, NULL, CT_SRC_LINK, 0);
	assert_true(page_score(s, page(s, job, "/low")) == 0.1);
	/* A link from /low (0.1 -> 0.08 -> floor) does not lower /x. */
	pgt_enqueue_from(s, job, x, 1, NULL, CT_SRC_LINK, page(s, job, "/low"));
	assert_true(page_score(s, px) == 0.5);
	/* A link from / raises /x to 0.8 and its pending task to 80. */
	r = pgt_enqueue_from(s, job, x, 1, NULL, CT_SRC_LINK, home);
	assert_int_equal(r.inserted, 0);
	assert_int_equal(r.raised, 1);
	assert_true(page_score(s, px) == 0.8);
	int cls;
	assert_true(task_score(s, job, px, &cls) == 80.0);
	assert_int_equal(cls, 0);
	/* Manual and other sources give the floor. */
	pgt_enqueue_from(s, job, y, 1, NULL, CT_SRC_MANUAL, 0);
	assert_true(page_score(s, page(s, job, "/y")) == 0.1);
	assert_true(task_score(s, job, page(s, job, "/y"), &cls) == 10.0);
	assert_int_equal(cls, 3);
}

/* Enqueue /y into job from source page src (NULL: none) with its
 * discovery (source type, depth, type, method) and score; returns how many
 * pending tasks it raised. */
static long long enqueue_y(struct ct_store *s, int64_t job, const char *kind,
			   const char *src, int depth, const char *type,
			   const char *method, double score)
{
	char sql[512], from[96] = "NULL";
	if (src)
		snprintf(from, sizeof from, "crawltop.page_id(%lld, '%s')",
			 (long long)job, src);
	snprintf(sql, sizeof sql, "SELECT raised FROM crawltop.enqueue(%lld, "
		 "ARRAY['/y'], '%s', %s, %d, '%s', '%s', NULL, ARRAY[%g]::float8[])",
		 (long long)job, kind, from, depth, type, method, score);
	return pgt_int(s, sql);
}

/* /y's task in job: "depth type method source_type source_page score". */
static void want_y(struct ct_store *s, int64_t job, const char *want)
{
	char sql[400];
	snprintf(sql, sizeof sql, "SELECT t.depth || ' ' || t.type || ' ' || "
		 "t.discovery_method || ' ' || t.source_type || ' ' || "
		 "coalesce(t.source_page_id::text, '-') || ' ' || t.score FROM "
		 "crawltop.tasks t JOIN crawltop.pages p ON p.id = t.page_id "
		 "WHERE p.path = '/y' AND t.job_id = %lld", (long long)job);
	char *t = pgt_text(s, sql, 0, NULL);
	assert_string_equal(t, want);
	free(t);
}

/* A hierarchy task that comes back to pending (release, lease expiry)
 * takes its page's score when the page rose while the task ran: only
 * pending tasks rise on a duplicate, so the task kept its old score while
 * it ran. Other modes keep theirs. */
static void returning_task_takes_its_page_score(void **state)
{
	struct ct_store *s = *state;
	int64_t job = pgt_job(s, "ret", "ret.example", 5, "hierarchy");
	int64_t fj = pgt_job(s, "retf", "retf.example", 5, "frontier");
	const char *re[] = {"/r", "/e"}, *fp[] = {"/f"};
	const double low[] = {30}, high[] = {90};
	/* /r (released) and /e (its lease expires): a manual enqueue
	 * without a source scores them at the floor, 10 */
	pgt_enqueue_from(s, job, re, 2, NULL, CT_SRC_MANUAL, 0);
	pgt_enqueue_from(s, fj, fp, 1, low, CT_SRC_MANUAL, 0);
	struct ct_claim cr = pgt_claim(s, "wr", job, 1, 300),
			ce = pgt_claim(s, "we", job, 1, 0.05),
			cf = pgt_claim(s, "wf", fj, 1, 300);
	assert_int_equal(cr.n + ce.n + cf.n, 3);
	long long r = cr.tasks[0].id, e = ce.tasks[0].id, f = cf.tasks[0].id;
	ct_claim_free(&cr);
	ct_claim_free(&ce);
	ct_claim_free(&cf);
	/* the pages come again from the sitemap (0.5): the running tasks
	 * are not raised */
	assert_int_equal(pgt_enqueue(s, job, re, 2, NULL).raised, 0);
	assert_int_equal(pgt_enqueue(s, fj, fp, 1, high).raised, 0);
	char sql[400];
	snprintf(sql, sizeof sql, "SELECT count(*) FROM crawltop.release('wr', "
		 "ARRAY[%lld])", r);
	assert_int_equal(pgt_int(s, sql), 1);
	snprintf(sql, sizeof sql, "SELECT count(*) FROM crawltop.release('wf', "
		 "ARRAY[%lld])", f);
	assert_int_equal(pgt_int(s, sql), 1);
	pgt_exec(s, "SELECT pg_sleep(0.1)");
	assert_int_equal(pgt_int(s, "SELECT crawltop.reap_expired(100)"), 1);
	snprintf(sql, sizeof sql, "SELECT string_agg(t.status || ' ' || "
		 "t.base_score || ' ' || t.score || ' ' || t.class || ' ' || "
		 "t.expiries, ', ' ORDER BY t.id) FROM crawltop.tasks t "
		 "WHERE t.id IN (%lld, %lld, %lld)", r, e, f);
	char *got = pgt_text(s, sql, 0, NULL);
	/* /r and /e at the sitemap's 50 (class P2: 40 <= 50 < 60), /e with
	 * its lease expiry counted; the frontier task at its own 30 (P3) */
	assert_string_equal(got, "pending 50 50 2 0, pending 50 50 2 1, "
			    "pending 30 30 3 0");
	free(got);
	/* the counters follow (the class and score cells moved) */
	snprintf(sql, sizeof sql, "SELECT count(*) FROM (SELECT * FROM "
		 "crawltop.dashboard_cells(%lld) EXCEPT SELECT * FROM "
		 "crawltop.dashboard_cells_exact(%lld)) d", (long long)job,
		 (long long)job);
	assert_int_equal(pgt_int(s, sql), 0);
}

/* A duplicate that raises a task gives it its depth, type and method
 * (the source stays the first); one that does not raise it changes
 * nothing. */
static void raise_takes_the_discovery(void **state)
{
	struct ct_store *s = *state;
	int64_t job = pgt_job(s, "redisc", "redisc.example", 5, "frontier");
	char sql[256], want[128];
	snprintf(sql, sizeof sql, "SELECT count(*) FROM crawltop.enqueue(%lld, "
		 "ARRAY['/s', '/m'], 'manual', NULL, 1, 'article', 'seed', NULL, "
		 "ARRAY[40, 40]::float8[])", (long long)job);
	pgt_exec(s, sql);
	long long from_s = page(s, job, "/s");
	/* found deep first ... */
	assert_int_equal(enqueue_y(s, job, "link", "/s", 4, "article", "link", 30), 0);
	snprintf(want, sizeof want, "4 article link link %lld 30", from_s);
	want_y(s, job, want);
	/* ... then through a shorter path, for a higher score (the source
	 * stays the first: how the page came in) */
	assert_int_equal(enqueue_y(s, job, "link", "/m", 2, "hub",
				   "gap-prediction", 32), 1);
	snprintf(want, sizeof want, "2 hub gap-prediction link %lld 32", from_s);
	want_y(s, job, want);
	/* a lower score found shallower changes nothing */
	assert_int_equal(enqueue_y(s, job, "sitemap", NULL, 1, "nav", "sitemap",
				   31), 0);
	want_y(s, job, want);
}

static void mode_scores(void **state)
{
	struct ct_store *s = *state;
	struct ct_error err = {{0}};
	int64_t fifo = pgt_job(s, "fifo", "modes.example", 5, "fifo");
	int64_t fr = pgt_job(s, "frontier", "modes.example", 5, "frontier");
	const char *p[] = {"/", "/a"};
	pgt_enqueue(s, fifo, p, 2, NULL);
	int cls;
	/* FIFO: score 0, class P3, even for the homepage. */
	assert_true(task_score(s, fifo, page(s, fifo, "/"), &cls) == 0.0);
	assert_int_equal(cls, 3);
	/* but the page keeps its hierarchy score for other modes */
	assert_true(page_score(s, page(s, fifo, "/")) == 1.0);

	struct ct_enqueue_batch b = CT_ENQUEUE_BATCH_INIT;
	struct ct_enqueue_result r;
	double sc[] = {75.0, 60.0};
	b.job_id = fifo;
	b.paths = p;
	b.n = 2;
	b.scores = sc;
	/* a crawler that still scores as for another mode is not refused
	 * (0017): the store's rule scores a fifo job's tasks */
	assert_int_equal(ct_store_enqueue(s, &b, &r, &err), CT_OK);
	assert_true(task_score(s, fifo, page(s, fifo, "/"), &cls) == 0.0);

	/* one that gives no scores to a frontier job: the engine's score
	 * for what the store knows (type default 12, depth 0, no method:
	 * priority 12, 50 x 25 / 37) */
	b.job_id = fr;
	b.scores = NULL;
	assert_int_equal(ct_store_enqueue(s, &b, &r, &err), CT_OK);
	assert_int_equal(r.inserted, 2);
	assert_true(task_score(s, fr, page(s, fr, "/"), &cls) == 50.0 * 25 / 37);
	assert_int_equal(cls, 3);
	b.scores = sc;
	assert_int_equal(ct_store_enqueue(s, &b, &r, &err), CT_OK);
	assert_true(task_score(s, fr, page(s, fr, "/"), &cls) == 75.0);
	assert_int_equal(cls, 1);
	assert_true(task_score(s, fr, page(s, fr, "/a"), &cls) == 60.0);
	assert_int_equal(cls, 1);

	/* a score array that does not start at 1 (SQL callers can make one)
	 * still pairs each path with its score, by position */
	char sql[200];
	snprintf(sql, sizeof sql, "SELECT inserted FROM crawltop.enqueue(%" PRId64
		 ", ARRAY['/lb1', '/lb2'], p_scores => '[5:6]={77,88}')", fr);
	assert_int_equal(pgt_int(s, sql), 2);
	assert_true(task_score(s, fr, page(s, fr, "/lb1"), &cls) == 77.0);
	assert_true(task_score(s, fr, page(s, fr, "/lb2"), &cls) == 88.0);
}

/* Paths with their scores (/p1 = 1 ... /pN = N, /p7 twice, the second
 * time 99): a batch of new pages (whose ids and scores come from the page
 * insert) and a batch of new and known pages (looked up one by one) give
 * every path its own score, and the hierarchy score of its page. */
static void new_and_known_pages_scored_alike(void **state)
{
	struct ct_store *s = *state;
	enum { N = 60 };
	char buf[N + 1][16];
	const char *p[N + 1];
	double sc[N + 1];
	for (int i = 0; i < N; i++) {
		snprintf(buf[i], sizeof buf[i], "/p%d", i + 1);
		p[i] = buf[i];
		sc[i] = i + 1;
	}
	p[N] = "/p7";
	sc[N] = 99;
	/* known pages: the first half, through a fifo job of the domain */
	int64_t fifo = pgt_job(s, "alike-f", "known.example", 5, "fifo");
	pgt_enqueue(s, fifo, p, N / 2, NULL);
	const char *dom[] = {"fresh.example", "known.example"};
	for (int d = 0; d < 2; d++) {
		char name[32], sql[512];
		snprintf(name, sizeof name, "alike-%d", d);
		int64_t job = pgt_job(s, name, dom[d], 5, "frontier");
		struct ct_enqueue_result r = pgt_enqueue(s, job, p, N + 1, sc);
		assert_int_equal(r.inserted, N);
		snprintf(sql, sizeof sql, "SELECT count(*) FROM crawltop.tasks t "
			 "JOIN crawltop.pages g ON g.id = t.page_id WHERE t.job_id = %"
			 PRId64 " AND t.score = CASE g.path WHEN '/p7' THEN 99 ELSE "
			 "substr(g.path, 3)::int END AND g.priority_score = 0.5",
			 job);
		assert_int_equal(pgt_int(s, sql), N);
	}
	/* hierarchy mode takes the page's score: '/' the root, the rest the
	 * sitemap score, new or known alike */
	int64_t h = pgt_job(s, "alike-h", "known.example", 5, "hierarchy");
	p[N] = "/";
	pgt_enqueue(s, h, p, N + 1, NULL);
	char sql[300];
	snprintf(sql, sizeof sql, "SELECT count(*) FROM crawltop.tasks t JOIN "
		 "crawltop.pages g ON g.id = t.page_id WHERE t.job_id = %" PRId64
		 " AND t.score = CASE g.path WHEN '/' THEN 100 ELSE 50 END", h);
	assert_int_equal(pgt_int(s, sql), N + 1);
}

/* Everything a refused call could have touched, as one string. */
static char *fingerprint(struct ct_store *s)
{
	return pgt_text(s, "SELECT concat_ws('/', "
		"(SELECT count(*) FROM crawltop.jobs), "
		"(SELECT count(*) FROM crawltop.domains), "
		"(SELECT count(*) FROM crawltop.pages), "
		"(SELECT count(*) FROM crawltop.tasks), "
		"(SELECT count(*) FROM crawltop.audit_log), "
		"(SELECT sum(total_pages) FROM crawltop.jobs), "
		"(SELECT sum(score) FROM crawltop.tasks), "
		"(SELECT sum(priority_score) FROM crawltop.pages))", 0, NULL);
}

/* A refused enqueue: status, SQLSTATE and a message fragment. */
static void refused(struct ct_store *s, const struct ct_enqueue_batch *b,
		    ct_status want, const char *state, const char *frag)
{
	struct ct_enqueue_result r;
	struct ct_error err = {{0}};
	char *before = fingerprint(s);
	ct_status st = ct_store_enqueue(s, b, &r, &err);
	if (st != want || strcmp(ct_store_sqlstate(s), state) != 0 ||
	    !strstr(err.msg, frag))
		fail_msg("want %s/%s/'%s', got %s/%s: %s", ct_status_str(want),
			 state, frag, ct_status_str(st), ct_store_sqlstate(s),
			 err.msg);
	if (!strstr(err.msg, "enqueue: "))
		fail_msg("message does not name the statement: %s", err.msg);
	char *after = fingerprint(s);
	assert_string_equal(before, after);
	free(before);
	free(after);
}

static void bad_enqueue_refused(void **state)
{
	struct ct_store *s = *state;
	int64_t job = pgt_job(s, "bad", "bad.example", 5, "hierarchy");
	int64_t fr = pgt_job(s, "bad-frontier", "bad.example", 5, "frontier");
	const char *ok[] = {"/fine"};
	pgt_enqueue(s, job, ok, 1, NULL);

	struct ct_enqueue_batch b = CT_ENQUEUE_BATCH_INIT;
	b.job_id = 999999;
	b.paths = ok;
	b.n = 1;
	refused(s, &b, CT_ENOENT, "P0002", "job 999999 does not exist");

	static char big[10 * 1024 + 2];
	big[0] = '/';
	memset(big + 1, 'a', sizeof big - 2);
	static const struct {
		const char *path, *frag;
	} bad_paths[] = {
		{"no-slash", "paths[2] = 'no-slash' is not a page path"},
		{"/with space", "is not a page path"},
		{"/tab\there", "is not a page path"},
		{"/frag#ment", "is not a page path"},
		{"", "paths[2] = '' is not a page path"},
		{"/'; DROP TABLE crawltop.tasks; --", "is not a page path"},
		/* dot segments: one page, one path (RFC 3986) */
		{"/a/../b", "'.' and '..' segments"},
		{"/a/./b", "is not a page path"},
		{"/a/..", "is not a page path"},
		{"/.", "is not a page path"},
		{"/a/..?q=1", "is not a page path"},
		{big, "(10241 bytes)"},
	};
	for (size_t i = 0; i < sizeof bad_paths / sizeof bad_paths[0]; i++) {
		const char *p[] = {"/good", bad_paths[i].path};
		b.job_id = job;
		b.paths = p;
		b.n = 2;
		refused(s, &b, CT_EINVAL, "22023", bad_paths[i].frag);
	}
	/* At most 100,000 paths in one call (it holds the job's row). */
	static const char *many[100001];
	for (size_t i = 0; i < sizeof many / sizeof many[0]; i++)
		many[i] = "/same";
	b.paths = many;
	b.n = 100001;
	refused(s, &b, CT_EINVAL, "22023", "100001 paths in one call: at most 100000");
	b.n = 2;
	/* Quotes are fine inside a path that is otherwise valid, and reach the
	 * database as data. */
	const char *quoted[] = {"/it's;\"quoted\"\\"};
	pgt_enqueue_from(s, job, quoted, 1, NULL, CT_SRC_LINK, 0);
	assert_true(page(s, job, quoted[0]) > 0);
	/* dots that are not segments, and a query, are fine */
	const char *dotty[] = {"/a/..b", "/.hidden", "/x?q=/../y", "/v1.2/"};
	pgt_enqueue_from(s, job, dotty, 4, NULL, CT_SRC_LINK, 0);
	for (int i = 0; i < 4; i++)
		assert_true(page(s, job, dotty[i]) > 0);

	/* Invalid UTF-8: refused by the server, reported with its SQLSTATE. */
	const char *utf[] = {"/ok", "/caf\xc3\x28"};
	b.paths = utf;
	refused(s, &b, CT_EINVAL, "22021", "invalid byte sequence for encoding \"UTF8\"");

	b.paths = ok;
	b.n = 1;
	b.source_page_id = 424242;
	refused(s, &b, CT_ENOENT, "P0002", "source page 424242 does not exist");
	b.source_page_id = 0;
	b.depth = -2;
	refused(s, &b, CT_EINVAL, "22023", "depth -2 is negative");
	b.depth = -1;
	b.type = "art'icle";
	refused(s, &b, CT_EINVAL, "22023", "type 'art''icle' is not allowed");
	b.type = NULL;
	b.source_url = "javascript:alert(1)";
	refused(s, &b, CT_EINVAL, "22023", "is not an http(s) URL");
	b.source_url = NULL;

	/* Scores: NaN, infinity, out of range, wrong count. */
	b.job_id = fr;
	double nan_s[] = {NAN}, inf_s[] = {INFINITY}, neg[] = {-0.5},
	       over[] = {100.5};
	b.scores = nan_s;
	refused(s, &b, CT_ERANGE, "22003", "scores[1] = NaN: a score must be a finite number in 0..100");
	b.scores = inf_s;
	refused(s, &b, CT_ERANGE, "22003", "scores[1] = Infinity");
	b.scores = neg;
	refused(s, &b, CT_ERANGE, "22003", "scores[1] = -0.5");
	b.scores = over;
	refused(s, &b, CT_ERANGE, "22003", "scores[1] = 100.5");

	/* A cancelled job takes no new tasks. */
	pgt_exec(s, "UPDATE crawltop.jobs SET status = 'cancelled' WHERE name = 'bad'");
	b.job_id = job;
	b.paths = ok;
	b.n = 1;
	b.scores = NULL;
	refused(s, &b, CT_EINVAL, "55000", "is cancelled: it takes no new tasks");
}

/* create_job refusals: status, SQLSTATE, fragment, nothing changed. */
static void job_refused(struct ct_store *s, const char *name, const char *domain,
			int prio, const char *mode, ct_status want,
			const char *state, const char *frag)
{
	struct ct_error err = {{0}};
	int64_t id = -7;
	char *before = fingerprint(s);
	ct_status st = ct_store_job_create(s, name, domain, prio, mode, &id, &err);
	if (st != want || strcmp(ct_store_sqlstate(s), state) != 0 ||
	    !strstr(err.msg, frag))
		fail_msg("want %s/%s/'%s', got %s/%s: %s", ct_status_str(want),
			 state, frag, ct_status_str(st), ct_store_sqlstate(s),
			 err.msg);
	assert_int_equal(id, -7);
	char *after = fingerprint(s);
	assert_string_equal(before, after);
	free(before);
	free(after);
}

static void bad_job_refused(void **state)
{
	struct ct_store *s = *state;
	pgt_job(s, "taken", "jobs.example", 5, "fifo");
	job_refused(s, "p0", "jobs.example", 0, "fifo", CT_ERANGE, "22003",
		    "priority 0 is outside 1..10");
	job_refused(s, "p11", "jobs.example", 11, "fifo", CT_ERANGE, "22003",
		    "priority 11 is outside 1..10");
	job_refused(s, "m", "jobs.example", 5, "lifo", CT_EINVAL, "22023",
		    "mode 'lifo' is unknown");
	job_refused(s, "x'; DROP TABLE crawltop.jobs; --", "jobs.example", 5,
		    "fifo", CT_EINVAL, "22023",
		    "job name 'x''; DROP TABLE crawltop.jobs; --' is not allowed");
	job_refused(s, "semi;colon", "jobs.example", 5, "fifo", CT_EINVAL,
		    "22023", "is not allowed");
	job_refused(s, "ok", "jobs.example'; --", 5, "fifo", CT_EINVAL, "22023",
		    "is not a host name");
	job_refused(s, "ok", "", 5, "fifo", CT_EINVAL, "22023",
		    "is not a host name");
	/* ports outside 1..65535, or written with a leading zero */
	job_refused(s, "ok", "a.example:99999", 5, "fifo", CT_EINVAL, "22023",
		    "a port 1..65535");
	job_refused(s, "ok", "a.example:0", 5, "fifo", CT_EINVAL, "22023",
		    "a port 1..65535");
	job_refused(s, "ok", "a.example:065535", 5, "fifo", CT_EINVAL, "22023",
		    "a port 1..65535");
	assert_true(pgt_job(s, "porty", "a.example:65535", 5, "fifo") > 0);
	job_refused(s, "taken", "jobs.example", 5, "fifo", CT_EINVAL, "23505",
		    "job name 'taken' is taken");
	job_refused(s, "caf\xc3\x28", "jobs.example", 5, "fifo", CT_EINVAL,
		    "22021", "invalid byte sequence");
	/* and a good one is audited */
	int64_t id = pgt_job(s, "Good.Name_1-x", "Jobs.Example", 1, "hierarchy");
	assert_true(id > 0);
	assert_int_equal(pgt_int(s, "SELECT count(*) FROM crawltop.audit_log "
		"WHERE action = 'job.create' AND after->>'name' = 'Good.Name_1-x' "
		"AND after->>'domain' = 'jobs.example'"), 1);
}

/* A direct statement (not through the functions) that breaks a rule:
 * refused with SQLSTATE `code` and a message fragment, nothing changed. */
static void direct_refused(struct ct_store *s, const char *sql,
			   const char *code, const char *frag)
{
	struct ct_error err = {{0}};
	char *before = fingerprint(s);
	ct_status st = ct_store_exec(s, "direct", sql, &err);
	if (st == CT_OK || strcmp(ct_store_sqlstate(s), code) != 0 ||
	    !strstr(err.msg, frag))
		fail_msg("%s: want %s and '%s', got %s/%s: %s", sql, code, frag,
			 ct_status_str(st), ct_store_sqlstate(s), err.msg);
	char *after = fingerprint(s);
	assert_string_equal(before, after);
	free(before);
	free(after);
}

/* A direct statement that breaks a reference: 23503. */
static void ref_refused(struct ct_store *s, const char *sql, const char *frag)
{
	direct_refused(s, sql, "23503", frag);
}

/* References to jobs, pages and domains, checked per statement (0001): a
 * task or page naming a missing row is refused, pages and domains are
 * never deleted, truncated or renumbered, so what a statement found
 * stays, and a job keeps its id; deleting a job deletes its tasks (in
 * READ COMMITTED), and so does truncating jobs. */
static void references_hold(void **state)
{
	struct ct_store *s = *state;
	int64_t job = pgt_job(s, "refs", "refs.example", 5, "hierarchy");
	const char *ok[] = {"/", "/a", "/b"};
	pgt_enqueue(s, job, ok, 3, NULL);
	char sql[512];
	long long page = pgt_int(s, "SELECT max(id) FROM crawltop.pages");
	snprintf(sql, sizeof sql, "INSERT INTO crawltop.tasks (job_id, page_id, "
		 "job_priority) VALUES (%" PRId64 ", %lld, 5)", job, page + 1000);
	ref_refused(s, sql, "page 1");
	/* a page of the domain that no task names yet */
	pgt_exec(s, "INSERT INTO crawltop.pages (domain_id, path) SELECT id, '/c' "
		 "FROM crawltop.domains WHERE name = 'refs.example'");
	const char *page_c = "(SELECT p.id FROM crawltop.pages p JOIN "
		"crawltop.domains d ON d.id = p.domain_id WHERE d.name = "
		"'refs.example' AND p.path = '/c')";
	/* one good row and one bad: the statement is refused as a whole */
	snprintf(sql, sizeof sql, "INSERT INTO crawltop.tasks (job_id, page_id, "
		 "job_priority) SELECT %" PRId64 ", %s, 5 UNION ALL SELECT %"
		 PRId64 ", %lld, 5", job, page_c, job, page + 7);
	ref_refused(s, sql, "does not exist");
	snprintf(sql, sizeof sql, "INSERT INTO crawltop.tasks (job_id, page_id, "
		 "source_page_id, job_priority) SELECT %" PRId64 ", %s, %lld, 5",
		 job, page_c, page + 9);
	ref_refused(s, sql, "does not exist");
	ref_refused(s, "INSERT INTO crawltop.pages (domain_id, path) VALUES "
		    "(987654, '/x')", "domain 987654 does not exist");
	snprintf(sql, sizeof sql, "UPDATE crawltop.tasks SET page_id = %lld "
		 "WHERE id = (SELECT min(id) FROM crawltop.tasks WHERE job_id = %"
		 PRId64 ")", page + 1000, job);
	ref_refused(s, sql, "page 1");
	ref_refused(s, "DELETE FROM crawltop.pages WHERE path = '/a'",
		    "never deleted");
	ref_refused(s, "TRUNCATE crawltop.pages CASCADE", "never deleted");
	ref_refused(s, "DELETE FROM crawltop.domains WHERE name = 'refs.example'",
		    "never deleted");
	ref_refused(s, "UPDATE crawltop.pages SET domain_id = domain_id + 1 "
		    "WHERE path = '/a'", "keep their ids");
	ref_refused(s, "UPDATE crawltop.domains SET id = DEFAULT WHERE name = "
		    "'refs.example'", "keep their ids");
	/* jobs: a task of a job that does not exist, a task moved to one, a
	 * job that would take a new id */
	snprintf(sql, sizeof sql, "INSERT INTO crawltop.tasks (job_id, page_id, "
		 "job_priority) SELECT %" PRId64 ", %s, 5 UNION ALL SELECT "
		 "987654, %s, 5", job, page_c, page_c);
	ref_refused(s, sql, "INSERT on crawltop.tasks refused: job 987654 does "
		    "not exist");
	snprintf(sql, sizeof sql, "UPDATE crawltop.tasks SET job_id = 987654 "
		 "WHERE job_id = %" PRId64, job);
	ref_refused(s, sql, "UPDATE on crawltop.tasks refused: job 987654 does "
		    "not exist");
	snprintf(sql, sizeof sql, "UPDATE crawltop.jobs SET id = DEFAULT WHERE "
		 "id = %" PRId64, job);
	ref_refused(s, sql, "a job keeps its id");
	/* a job deleted in REPEATABLE READ would miss tasks added meanwhile */
	pgt_exec(s, "SET default_transaction_isolation = 'repeatable read'");
	snprintf(sql, sizeof sql, "DELETE FROM crawltop.jobs WHERE id = %" PRId64,
		 job);
	direct_refused(s, sql, "0A000", "delete jobs in READ COMMITTED");
	/* a DELETE that deletes no job is no such risk */
	pgt_exec(s, "DELETE FROM crawltop.jobs WHERE id = -1");
	pgt_exec(s, "RESET default_transaction_isolation");
	/* changing other columns is fine, and so is a page that exists */
	pgt_exec(s, "UPDATE crawltop.pages SET priority_score = 1 WHERE path = '/a'");
	snprintf(sql, sizeof sql, "UPDATE crawltop.tasks SET source_page_id = "
		 "page_id WHERE job_id = %" PRId64, job);
	pgt_exec(s, sql);
	/* so is moving a task to a job that exists */
	int64_t other = pgt_job(s, "refs-2", "refs.example", 5, "fifo");
	snprintf(sql, sizeof sql, "UPDATE crawltop.tasks SET job_id = %" PRId64
		 " WHERE page_id = (SELECT min(page_id) FROM crawltop.tasks "
		 "WHERE job_id = %" PRId64 ")", other, job);
	pgt_exec(s, sql);
	snprintf(sql, sizeof sql, "SELECT count(*) FROM crawltop.tasks WHERE "
		 "job_id = %" PRId64, other);
	assert_int_equal(pgt_int(s, sql), 1);
	/* deleting a job deletes its tasks, and only its own */
	long long all = pgt_int(s, "SELECT count(*) FROM crawltop.tasks");
	snprintf(sql, sizeof sql, "DELETE FROM crawltop.jobs WHERE id = %" PRId64,
		 job);
	pgt_exec(s, sql);
	snprintf(sql, sizeof sql, "SELECT count(*) FROM crawltop.tasks WHERE "
		 "job_id = %" PRId64, job);
	assert_int_equal(pgt_int(s, sql), 0);
	assert_int_equal(pgt_int(s, "SELECT count(*) FROM crawltop.tasks"),
			 all - 2);
	/* TRUNCATE of jobs (with run_manifest: CASCADE) empties tasks too,
	 * for a role that may truncate tasks (as CASCADE asked for): one that
	 * may truncate only jobs and run_manifest is refused */
	pgt_exec(s, "CREATE ROLE ct_trunc");
	pgt_exec(s, "GRANT crawltop_viewer TO ct_trunc");
	pgt_exec(s, "GRANT TRUNCATE ON crawltop.jobs, crawltop.run_manifest TO "
		 "ct_trunc");
	pgt_exec(s, "SET ROLE ct_trunc");
	direct_refused(s, "TRUNCATE crawltop.jobs CASCADE", "42501",
		       "permission denied for table tasks");
	pgt_exec(s, "RESET ROLE");
	pgt_exec(s, "TRUNCATE crawltop.jobs CASCADE");
	assert_int_equal(pgt_int(s, "SELECT count(*) FROM crawltop.tasks"), 0);
}

/* Deleting a job deletes its tasks through the (job_id, page_id) index,
 * planned for that job: a small job beside a big one reads no other
 * task (one plan for every deleted job followed the average job's size
 * and scanned the whole table). */
static void deleting_a_small_job_reads_only_its_tasks(void **state)
{
	struct ct_store *s = *state;
	int64_t big = pgt_job(s, "del-big", "big.example", 5, "fifo");
	int64_t small = pgt_job(s, "del-small", "small.example", 5, "fifo");
	char sql[300];
	snprintf(sql, sizeof sql, "SELECT inserted FROM crawltop.enqueue(%" PRId64
		 ", ARRAY(SELECT '/b' || g FROM generate_series(1, 30000) g))", big);
	assert_int_equal(pgt_int(s, sql), 30000);
	const char *p[] = {"/s1", "/s2"};
	pgt_enqueue(s, small, p, 2, NULL);
	pgt_exec(s, "ANALYZE crawltop.tasks");
	pgt_exec(s, "BEGIN");
	snprintf(sql, sizeof sql, "DELETE FROM crawltop.jobs WHERE id = %" PRId64,
		 small);
	pgt_exec(s, sql);
	assert_int_equal(pgt_int(s, "SELECT seq_scan FROM "
				 "pg_stat_xact_user_tables WHERE relid = "
				 "'crawltop.tasks'::regclass"), 0);
	pgt_exec(s, "COMMIT");
	snprintf(sql, sizeof sql, "SELECT count(*) FROM crawltop.tasks WHERE "
		 "job_id IN (%" PRId64 ", %" PRId64 ")", big, small);
	assert_int_equal(pgt_int(s, sql), 30000);
}

/* Paths, URLs and score inputs written directly, not through the
 * functions (which check them first, above): the column types (domains
 * crawltop.page_path and crawltop.url, 0001; crawltop.score_inputs, 0005)
 * refuse what path_ok, url_ok and the 4 KB object rule refuse, on INSERT
 * and on UPDATE, with 23514 and the domain's constraint name; NULL stays
 * valid where the column allows it. */
static void column_types_hold(void **state)
{
	struct ct_store *s = *state;
	int64_t job = pgt_job(s, "urls", "urls.example", 5, "hierarchy");
	const char *ok[] = {"/", "/a"};
	pgt_enqueue(s, job, ok, 2, NULL);
	const char *mine = "domain_id = (SELECT id FROM crawltop.domains "
			   "WHERE name = 'urls.example')";
	char sql[3200], big[2100];
	memset(big, 'x', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	big[0] = '/';
	const char *bad_paths[] = {"a", "/a b", "/a#frag", "/a\n", big};
	for (size_t i = 0; i < sizeof bad_paths / sizeof *bad_paths; i++) {
		snprintf(sql, sizeof sql, "INSERT INTO crawltop.pages (domain_id, "
			 "path) SELECT id, $$%s$$ FROM crawltop.domains WHERE "
			 "name = 'urls.example'", bad_paths[i]);
		direct_refused(s, sql, "23514", "page_path_valid");
		snprintf(sql, sizeof sql, "UPDATE crawltop.pages SET path = $$%s$$ "
			 "WHERE path = '/a' AND %s", bad_paths[i], mine);
		direct_refused(s, sql, "23514", "page_path_valid");
	}
	const char *bad_urls[] = {"ftp://urls.example/", "urls.example/a",
				  "http://urls.example/a b", "javascript:alert(1)"};
	for (size_t i = 0; i < sizeof bad_urls / sizeof *bad_urls; i++) {
		snprintf(sql, sizeof sql, "UPDATE crawltop.tasks SET source_url = "
			 "$$%s$$ WHERE job_id = %" PRId64, bad_urls[i], job);
		direct_refused(s, sql, "23514", "url_valid");
	}
	snprintf(sql, sizeof sql, "UPDATE crawltop.tasks SET source_url = "
		 "'http://urls.example%s' WHERE job_id = %" PRId64, big, job);
	direct_refused(s, sql, "23514", "url_valid");
	/* good values and NULL pass */
	snprintf(sql, sizeof sql, "UPDATE crawltop.tasks SET source_url = "
		 "'https://urls.example/a?b=1' WHERE job_id = %" PRId64, job);
	pgt_exec(s, sql);
	snprintf(sql, sizeof sql, "SELECT count(*) FROM crawltop.tasks WHERE "
		 "job_id = %" PRId64 " AND source_url = 'https://urls.example/a?b=1'",
		 job);
	assert_int_equal(pgt_int(s, sql), 2);
	snprintf(sql, sizeof sql, "UPDATE crawltop.tasks SET source_url = NULL "
		 "WHERE job_id = %" PRId64, job);
	pgt_exec(s, sql);
	snprintf(sql, sizeof sql, "UPDATE crawltop.pages SET path = '/a2' "
		 "WHERE path = '/a' AND %s", mine);
	pgt_exec(s, sql);
	assert_int_equal(pgt_int(s, "SELECT count(*) FROM crawltop.pages "
				 "WHERE path = '/a2'"), 1);
	/* score inputs (domain crawltop.score_inputs, 0005): an object of at
	 * most 4096 bytes as text, or NULL */
	const char *bad_inputs[] = {"'[]'", "'1'",
		"jsonb_build_object('bias', repeat('x', 4100))"};
	for (size_t i = 0; i < sizeof bad_inputs / sizeof *bad_inputs; i++) {
		snprintf(sql, sizeof sql, "UPDATE crawltop.tasks SET score_inputs "
			 "= %s WHERE job_id = %" PRId64, bad_inputs[i], job);
		direct_refused(s, sql, "23514", "score_inputs_object");
	}
	snprintf(sql, sizeof sql, "UPDATE crawltop.tasks SET score_inputs = "
		 "'{\"bias\": 1}' WHERE job_id = %" PRId64, job);
	pgt_exec(s, sql);
	snprintf(sql, sizeof sql, "SELECT count(*) FROM crawltop.tasks WHERE "
		 "job_id = %" PRId64 " AND score_inputs = '{\"bias\": 1}'", job);
	assert_int_equal(pgt_int(s, sql), 2);
}

/* The rules a task row keeps across its columns (checked once a
 * statement since 0043, by task_row_ok, which names the rule that broke):
 * each broken by a direct UPDATE is refused with 23514 and the rule's
 * name, nothing changed; writes that keep them pass. */
static void task_rules_hold(void **state)
{
	struct ct_store *s = *state;
	int64_t job = pgt_job(s, "rules", "rules.example", 5, "hierarchy");
	const char *paths[] = {"/", "/a"};
	pgt_enqueue(s, job, paths, 2, NULL);
	static const struct { const char *set, *rule; } bad[] = {
		{"status = 'paused'", "tasks_status_check"},
		{"status = NULL", "status"},
		{"score = score + 1", "tasks_score_derived"},
		{"score = 'NaN'", "tasks_score_derived"},
		{"lease_owner = 'w1'", "tasks_lease_only_running"},
		{"lease_expires_at = now()", "tasks_lease_only_running"},
		{"status = 'completed', lease_owner = 'w1'", "tasks_lease_only_running"},
		{"status = 'running'", "tasks_running_has_lease"},
		{"status = 'running', lease_owner = 'w1'", "tasks_running_has_lease"},
		{"ranked_at = now()", "tasks_ranked_has_score"},
		{"discovery_score = 50", "tasks_ranked_has_score"},
	};
	char sql[300];
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		snprintf(sql, sizeof sql, "UPDATE crawltop.tasks SET %s WHERE "
			 "job_id = %" PRId64, bad[i].set, job);
		direct_refused(s, sql, i == 1 ? "23502" : "23514", bad[i].rule);
	}
	/* a new task of a page the job has not (another job's, same site)
	 * whose score is not its base's */
	int64_t other = pgt_job(s, "rules-other", "rules.example", 5, "hierarchy");
	const char *other_paths[] = {"/b"};
	pgt_enqueue(s, other, other_paths, 1, NULL);
	snprintf(sql, sizeof sql, "INSERT INTO crawltop.tasks (job_id, page_id, "
		 "job_priority, score, base_score) SELECT %" PRId64 ", page_id, 5, "
		 "10, 20 FROM crawltop.tasks WHERE job_id = %" PRId64, job, other);
	direct_refused(s, sql, "23514", "tasks_score_derived");
	/* the rules are checked once the statement's rows are written (0043):
	 * a row that breaks one and the job's unique page is refused for the
	 * page */
	snprintf(sql, sizeof sql, "INSERT INTO crawltop.tasks (job_id, page_id, "
		 "job_priority, score, base_score) SELECT job_id, page_id, 5, 10, 20 "
		 "FROM crawltop.tasks WHERE job_id = %" PRId64 " LIMIT 1", job);
	direct_refused(s, sql, "23505", "tasks_job_id_page_id_key");
	/* the error's fields name the rule, the schema and the table */
	char diag[900];
	snprintf(diag, sizeof diag, "DO $$ DECLARE c text; t text; n text; BEGIN "
		 "UPDATE crawltop.tasks SET lease_owner = 'w1' WHERE job_id = %"
		 PRId64 "; EXCEPTION WHEN check_violation THEN GET STACKED "
		 "DIAGNOSTICS c = CONSTRAINT_NAME, t = TABLE_NAME, n = SCHEMA_NAME; "
		 "RAISE EXCEPTION 'fields: %% %% %%', c, n, t USING ERRCODE = "
		 "'P0001'; END $$", job);
	direct_refused(s, diag, "P0001",
		       "fields: tasks_lease_only_running crawltop tasks");
	/* a search path that shadows pg_catalog's operators changes nothing:
	 * the check runs under its own pinned path, and task_row_ok names
	 * every operator and type with its schema */
	pgt_exec(s, "CREATE SCHEMA shadow");
	pgt_exec(s, "CREATE FUNCTION shadow.yes(text, text) RETURNS boolean "
		 "LANGUAGE sql IMMUTABLE AS 'SELECT true'");
	pgt_exec(s, "CREATE FUNCTION shadow.no(text, text) RETURNS boolean "
		 "LANGUAGE sql IMMUTABLE AS 'SELECT false'");
	pgt_exec(s, "CREATE OPERATOR shadow.= (LEFTARG = text, RIGHTARG = text, "
		 "FUNCTION = shadow.yes)");
	pgt_exec(s, "CREATE OPERATOR shadow.<> (LEFTARG = text, RIGHTARG = text, "
		 "FUNCTION = shadow.no)");
	pgt_exec(s, "SET search_path = shadow, pg_catalog");
	snprintf(sql, sizeof sql, "UPDATE crawltop.tasks SET status = 'paused' "
		 "WHERE job_id = %" PRId64, job);
	direct_refused(s, sql, "23514", "tasks_status_check");
	snprintf(sql, sizeof sql, "UPDATE crawltop.tasks SET status = 'running' "
		 "WHERE job_id = %" PRId64, job);
	direct_refused(s, sql, "23514", "tasks_running_has_lease");
	pgt_exec(s, "RESET search_path");
	pgt_exec(s, "DROP SCHEMA shadow CASCADE");
	const char *good[] = {
		"status = 'running', lease_owner = 'w1', lease_expires_at = now() + interval '1 hour'",
		"status = 'completed', lease_owner = NULL, lease_expires_at = NULL",
		"ranked_at = now(), discovery_score = 50",
		"adjustment = 30, score = least(100, base_score + 30)",
	};
	for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
		snprintf(sql, sizeof sql, "UPDATE crawltop.tasks SET %s WHERE "
			 "job_id = %" PRId64, good[i], job);
		pgt_exec(s, sql);
	}
	snprintf(sql, sizeof sql, "SELECT count(*) FROM crawltop.tasks WHERE "
		 "job_id = %" PRId64 " AND status = 'completed' AND discovery_score "
		 "= 50 AND adjustment = 30", job);
	assert_int_equal(pgt_int(s, sql), 2);
}

/* A crawler's session that begins on a small job and sees it grow keeps
 * its cached plans: set_score_inputs' statements must stay index probes
 * of tasks and pages however small the store was when they were planned
 * (0005: enable_seqscan off for that function). Eight calls on a job of a
 * few tasks make the plans generic; then 20,000 tasks arrive, without an
 * ANALYZE; auto_explain shows the plans of the next call. */
static void score_inputs_plans_stay_probes(void **state)
{
	struct ct_store *s = *state;
	int64_t job = pgt_job(s, "grow", "grow.example", 5, "hierarchy");
	char sql[1024];
	pgt_autovacuum(s, "tasks", false);
	pgt_autovacuum(s, "pages", false);
	for (int i = 0; i < 8; i++) {
		char path[32];
		snprintf(path, sizeof path, "/g/%d", i);
		const char *paths[] = {path};
		pgt_enqueue(s, job, paths, 1, NULL);
		snprintf(sql, sizeof sql, "SELECT crawltop.set_score_inputs(%"
			 PRId64 ", ARRAY['%s'], ARRAY['{\"bias\": %d}'::jsonb])",
			 job, path, i % 2);
		assert_int_equal(pgt_int(s, sql), 1);
	}
	pgt_grow_job(s, job, 20000);

	struct pgt_plans p;
	pgt_plans_start(s, &p);
	snprintf(sql, sizeof sql, "SELECT crawltop.set_score_inputs(%" PRId64
		 ", ARRAY['/h/7', '/g/3', '/h/19999'], ARRAY['{\"bias\": 0.25}', "
		 "'{\"bias\": 0.5}', NULL]::jsonb[])", job);
	assert_int_equal(pgt_int(s, sql), 2);
	pgt_plans_stop(s);
	pgt_autovacuum(s, "tasks", true);
	pgt_autovacuum(s, "pages", true);
	int lock = 0, update = 0, lookup = 0;
	for (int i = 0; i < p.n; i++) {
		const char *t = p.text[i];
		int is_lock = strstr(t, "FOR NO KEY UPDATE") != NULL &&
			      strstr(t, "t.id = ANY (v_ids)") != NULL;
		int is_update = strstr(t, "SET score_inputs = x.s") != NULL;
		int is_lookup = strstr(t, "LEFT JOIN LATERAL") != NULL;
		if (!is_lock && !is_update && !is_lookup)
			continue;
		if (strstr(t, "Seq Scan on tasks") || strstr(t, "Seq Scan on pages"))
			fail_msg("set_score_inputs reads a whole table:\n%s", t);
		lock += is_lock;
		update += is_update;
		lookup += is_lookup;
	}
	if (lock != 1 || update != 1 || lookup != 1)
		fail_msg("expected the lock, the update and the look-up once each, "
			 "saw %d, %d, %d (of %d plans)", lock, update, lookup, p.n);
	pgt_plans_free(&p);
	snprintf(sql, sizeof sql, "SELECT count(*) FROM crawltop.tasks t JOIN "
		 "crawltop.pages p ON p.id = t.page_id WHERE t.job_id = %" PRId64
		 " AND t.score_inputs IS NOT NULL AND p.path IN ('/h/7', '/g/3')",
		 job);
	assert_int_equal(pgt_int(s, sql), 2);
	/* a path without a task: the first in the caller's order is named
	 * (/nope comes twice; the second occurrence does not count), and
	 * nothing changes */
	snprintf(sql, sizeof sql, "SELECT crawltop.set_score_inputs(%" PRId64
		 ", ARRAY['/h/8', '/zz', '/nope', '/h/9', '/zz'], ARRAY['{}', '{}', "
		 "'{}', '{}', '{}']::jsonb[])", job);
	char want[80];
	snprintf(want, sizeof want, "paths[2] = '/zz' has no task in job %" PRId64,
		 job);
	direct_refused(s, sql, "P0002", want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(dedup_per_job),
		cmocka_unit_test(hierarchy_chain),
		cmocka_unit_test(source_page_found_by_url),
		cmocka_unit_test(scores_only_increase),
		cmocka_unit_test(raise_takes_the_discovery),
		cmocka_unit_test(returning_task_takes_its_page_score),
		cmocka_unit_test(mode_scores),
		cmocka_unit_test(new_and_known_pages_scored_alike),
		cmocka_unit_test(bad_enqueue_refused),
		cmocka_unit_test(bad_job_refused),
		cmocka_unit_test(references_hold),
		cmocka_unit_test(deleting_a_small_job_reads_only_its_tasks),
		cmocka_unit_test(column_types_hold),
		cmocka_unit_test(task_rules_hold),
		cmocka_unit_test(score_inputs_plans_stay_probes),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
