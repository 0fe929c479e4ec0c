/* test_alloc_fail.c: every allocation of the engine's frontier queue and
 * of the configuration loader fails in turn (SQLite's approach): the run
 * with allocation k failing must end with a clean result (CT_ENOMEM and a
 * message, or the same result as without the failure where the code could
 * do without the memory), a queue or settings that still pass their
 * checks, and no block left allocated.
 *
 * malloc, calloc, realloc, strdup and free are wrapped (the link gives
 * -Wl,--wrap=...; the engine and the loader are linked in statically), so
 * the calls of crawltop's own code come here: the k-th allocation of a
 * scenario fails once, the later ones succeed, and the blocks are counted
 * while a scenario runs. libconfig 1.5's own allocations are not reached
 * (a shared library, and it does not check them: doc/RELIABILITY.md). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "config.h"
#include "crawltop/frontier_queue.h"
#include "crawltop/settings.h"

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
char *__real_strdup(const char *s);
void __real_free(void *p);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t n);
char *__wrap_strdup(const char *s);
void __wrap_free(void *p);

static int counting;      /* a scenario runs */
static long calls;        /* allocations asked for in this scenario */
static long fail_at = -1; /* the call that fails (0-based; -1: none) */
static int failed;        /* whether it came */
static long live;         /* blocks allocated and not freed */

/* Whether this allocation fails. */
static int fails(void)
{
	if (!counting)
		return 0;
	if (calls++ == fail_at) {
		failed = 1;
		return 1;
	}
	return 0;
}

static void *counted(void *p)
{
	if (p && counting)
		live++;
	return p;
}

void *__wrap_malloc(size_t n)
{
	return fails() ? NULL : counted(__real_malloc(n));
}

void *__wrap_calloc(size_t n, size_t size)
{
	return fails() ? NULL : counted(__real_calloc(n, size));
}

void *__wrap_realloc(void *p, size_t n)
{
	if (fails())
		return NULL;
	void *q = __real_realloc(p, n);
	return p ? q : counted(q);
}

char *__wrap_strdup(const char *s)
{
	return fails() ? NULL : counted(__real_strdup(s));
}

void __wrap_free(void *p)
{
	if (p && counting)
		live--;
	__real_free(p);
}

static void start(long k)
{
	calls = 0;
	fail_at = k;
	failed = 0;
	live = 0;
	counting = 1;
}

static void stop(void)
{
	counting = 0;
}

/* After a test: a check that failed inside a scenario left the wrappers
 * counting (and maybe failing) for what runs next. */
static int stopped(void **state)
{
	(void)state;
	stop();
	return 0;
}

/* After the run with allocation k of total failing: 0 when no allocation
 * failed (k is past the last: every one has been tried), else 1, with no
 * block left allocated. */
static int injected(long k, long total)
{
	if (!failed)
		return 0;
	if (live != 0)
		fail_msg("allocation %ld of %ld failing: %ld blocks left", k,
			 total, live);
	return 1;
}

/* Runs scenario(ctx, k): once with no allocation failing (k = -1), then
 * with each of its allocations failing in turn (k = 0, 1, ...) until a
 * run reaches none, each run checking itself. Returns the number of
 * allocations of the first run; every one of them was failed once. */
static long each_failing(void (*scenario)(void *ctx, long k), void *ctx)
{
	start(-1);
	scenario(ctx, -1);
	stop();
	long total = calls, runs = 0;
	assert_int_equal(live, 0);
	for (long k = 0;; k++) {
		start(k);
		scenario(ctx, k);
		stop();
		if (!injected(k, total))
			break;
		runs++;
	}
	assert_int_equal(runs, total);
	return total;
}

/* ---- the frontier queue ---------------------------------------------- */

#define N_URLS 48

struct queue_run {
	ct_status create;
	size_t accepted, refused_nomem, heatmaps, pulled, pull_nomem, size_at_end;
};

/* One pull; a pull refused for memory (the item's block) hands nothing
 * out and loses nothing: the next pull takes the item. */
static ct_status pull_checked(struct ct_fq *q, struct ct_fq_pull_result *pr)
{
	size_t before = ct_fq_size(q);
	ct_status st = ct_fq_pull(q, 0, pr);
	if (st == CT_ENOMEM) {
		assert_false(pr->has_item);
		assert_int_equal(ct_fq_size(q), before);
	}
	return st;
}

/* Create a queue, enqueue N_URLS URLs (some duplicates, types, methods
 * and depths), read its heatmap twice, pull everything, destroy it. */
static struct queue_run queue_scenario(void)
{
	struct queue_run r = {0};
	struct ct_frontier_params p;
	struct ct_fq *q = NULL;
	struct ct_error err = {{0}};
	ct_frontier_params_default(&p);
	r.create = ct_fq_create(&p, NULL, NULL, &q, &err);
	if (r.create != CT_OK) {
		assert_int_equal(r.create, CT_ENOMEM);
		assert_null(q);
		assert_true(err.msg[0] != '\0');
		return r;
	}
	static const char *types[] = {"article", "nav", "refresh", NULL};
	static const char *methods[] = {"sitemap", "link", NULL};
	for (int i = 0; i < N_URLS; i++) {
		char url[96];
		/* every sixth URL repeats an earlier one */
		snprintf(url, sizeof url, "https://Host%d.example/a/%d?x=%d",
			 i % 5, i % 6 == 5 ? i - 3 : i, i);
		struct ct_frontier_input in = CT_FRONTIER_INPUT_INIT;
		in.url = url;
		in.type = types[i % 4];
		in.discovery_method = methods[i % 3];
		in.depth = i % 4;
		struct ct_fq_enqueue_result res;
		size_t before = ct_fq_size(q);
		bool had = ct_fq_contains(q, url);
		memset(&err, 0, sizeof err);
		ct_status st = ct_fq_enqueue(q, &in, 1000 + i, &res, &err);
		if (st == CT_ENOMEM) {
			/* unchanged, and said why */
			assert_int_equal(ct_fq_size(q), before);
			assert_int_equal(ct_fq_contains(q, url), had);
			assert_true(err.msg[0] != '\0');
			r.refused_nomem++;
			continue;
		}
		assert_int_equal(st, CT_OK);
		if (res.enqueued) {
			assert_int_equal(ct_fq_size(q), before + 1);
			r.accepted++;
		}
	}
	for (int i = 0; i < 2; i++) {
		struct ct_fq_heatmap h;
		ct_status st = ct_fq_heatmap(q, &h);
		if (st == CT_ENOMEM) {
			assert_null(h.cells);
			continue;
		}
		assert_int_equal(st, CT_OK);
		size_t sum = 0;
		for (size_t c = 0; c < h.n_cells; c++)
			sum += h.cells[c].count;
		assert_int_equal(sum, ct_fq_size(q));
		assert_int_equal(h.queued, ct_fq_size(q));
		ct_fq_heatmap_free(&h);
		r.heatmaps++;
	}
	r.size_at_end = ct_fq_size(q);
	for (;;) {
		struct ct_fq_pull_result pr;
		ct_status st = pull_checked(q, &pr);
		if (st == CT_ENOMEM) {
			r.pull_nomem++;
			continue;
		}
		assert_int_equal(st, CT_OK);
		if (!pr.has_item)
			break;
		ct_fq_item_release(&pr.item);
		r.pulled++;
	}
	assert_int_equal(ct_fq_size(q), 0);
	ct_fq_destroy(q);
	return r;
}

/* The clean run's figures, and each failing run checked against them. */
static void queue_check(void *ctx, long k)
{
	struct queue_run *clean = ctx, r = queue_scenario();
	if (k < 0) {
		*clean = r;
		assert_int_equal(r.create, CT_OK);
		assert_int_equal(r.refused_nomem, 0);
		assert_int_equal(r.pull_nomem, 0);
		assert_int_equal(r.heatmaps, 2);
		assert_int_equal(r.pulled, r.accepted);
		assert_true(r.accepted >= N_URLS - N_URLS / 6);
		return;
	}
	/* each failure costs at most what it touched: one URL, one heatmap
	 * or one pull (retried), or the queue itself (a run that reached
	 * no allocation is the clean one) */
	if (r.create == CT_OK && failed) {
		assert_int_equal(r.refused_nomem + (2 - r.heatmaps) +
				 r.pull_nomem, 1);
		assert_int_equal(r.accepted + r.refused_nomem, clean->accepted);
		assert_int_equal(r.pulled, r.accepted);
	}
}

static void queue_survives_each_allocation_failing(void **state)
{
	(void)state;
	struct queue_run clean;
	long total = each_failing(queue_check, &clean);
	assert_true(total >= (long)clean.accepted);
	print_message("# queue: %ld allocations, each failed in turn\n", total);
}

/* A frontier queue without a host callback sorts a large heap into a run
 * at a pull (frontier_queue.c): a merge of a later heap into the run
 * refused its arrays is left for later and the pull goes on; a pull from
 * the run or the heap whose item block is refused hands nothing out and
 * moves nothing; every item comes out once, in score order. */
#define RUN_ITEMS 6000
#define RUN_MORE 5000

/* Enqueues items from..to of run_pull_refused_for_memory. */
static void run_items(struct ct_fq *q, int from, int to)
{
	for (int i = from; i < to; i++) {
		char url[64];
		struct ct_frontier_input in = CT_FRONTIER_INPUT_INIT;
		snprintf(url, sizeof url, "https://r%d.example/%d", i % 13, i);
		in.url = url;
		in.type = "article";
		in.bias = (double)((i * 7919) % 101);
		assert_int_equal(ct_fq_enqueue(q, &in, i, NULL, NULL), CT_OK);
	}
}

static void run_pull_refused_for_memory(void **state)
{
	(void)state;
	struct ct_frontier_params p;
	struct ct_fq *q = NULL;
	struct ct_error err = {{0}};
	ct_frontier_params_default(&p);
	p.max_queue = RUN_ITEMS + RUN_MORE;
	assert_int_equal(ct_fq_create(&p, NULL, NULL, &q, &err), CT_OK);
	run_items(q, 0, RUN_ITEMS);
	double last;
	size_t pulled = 0;
	/* a first pull makes the run, its radix sort's scratch refused: the
	 * quicksort sorts it instead (the pulls' order is checked below);
	 * RUN_MORE more items then wait in the heap (4,096 and more, a
	 * quarter of the run and more: the next pull merges them) */
	struct ct_fq_pull_result pr;
	start(0); /* the radix sort's first scratch array */
	assert_int_equal(pull_checked(q, &pr), CT_OK);
	stop();
	assert_true(failed);
	assert_true(pr.has_item);
	ct_fq_item_release(&pr.item);
	pulled++;
	run_items(q, RUN_ITEMS, RUN_ITEMS + RUN_MORE);
	start(3); /* the merge's first array, after the sort's three */
	assert_int_equal(pull_checked(q, &pr), CT_OK);
	stop();
	assert_true(failed);
	assert_true(pr.has_item);
	ct_fq_item_release(&pr.item);
	pulled++;
	last = 101; /* the new items may pop before the first's */
	while (ct_fq_size(q) > 0) {
		if (pulled == 2 || pulled == RUN_ITEMS / 2) {
			start(0); /* this pull's first allocation fails */
			ct_status st = pull_checked(q, &pr);
			stop();
			assert_int_equal(st, CT_ENOMEM);
			assert_true(failed);
		}
		assert_int_equal(ct_fq_pull(q, 0, &pr), CT_OK);
		assert_true(pr.has_item);
		assert_true(pr.item.score <= last);
		last = pr.item.score;
		ct_fq_item_release(&pr.item);
		pulled++;
	}
	assert_int_equal(pulled, RUN_ITEMS + RUN_MORE);
	ct_fq_destroy(q);
}

/* ---- the frontier queue's string arena ------------------------------- */

#define BIG_URL 20000  /* bytes: 52 items fill a 1 MiB block */
#define CHURN_ITEMS 104 /* two blocks */
#define CHURN_ROUNDS 2
#define CHURN_EACH 40
#define CHURN_LAST 20

/* The URL of churn item k: its number, then letters to BIG_URL bytes. */
static void big_url(int k, char *buf)
{
	int w = snprintf(buf, BIG_URL + 1, "https://big.example/%d/", k);
	for (; w < BIG_URL; w++)
		buf[w] = (char)('a' + (k + w) % 26);
	buf[BIG_URL] = '\0';
}

struct churn_run {
	ct_status create;
	size_t visible;   /* refused enqueues and pulls retried */
	size_t pulled;
};

/* Enqueues item k; false when that was refused for memory (the queue
 * unchanged). */
static bool churn_enqueue(struct ct_fq *q, int k, char *url, size_t *visible)
{
	struct ct_frontier_input in = CT_FRONTIER_INPUT_INIT;
	struct ct_fq_enqueue_result res;
	struct ct_error err = {{0}};
	big_url(k, url);
	in.url = url;
	in.type = "article";
	size_t before = ct_fq_size(q);
	ct_status st = ct_fq_enqueue(q, &in, k, &res, &err);
	if (st == CT_ENOMEM) {
		assert_int_equal(ct_fq_size(q), before);
		assert_false(ct_fq_contains(q, url));
		(*visible)++;
		return false;
	}
	assert_int_equal(st, CT_OK);
	assert_true(res.enqueued);
	return true;
}

/* Pulls n items, each checked whole against its URL; a pull refused for
 * memory is retried. */
static void churn_pull(struct ct_fq *q, size_t n, char *url,
		       struct churn_run *r)
{
	for (size_t got = 0; got < n;) {
		struct ct_fq_pull_result pr;
		ct_status st = pull_checked(q, &pr);
		if (st == CT_ENOMEM) {
			r->visible++;
			continue;
		}
		assert_int_equal(st, CT_OK);
		assert_true(pr.has_item);
		big_url(atoi(pr.item.url + strlen("https://big.example/")), url);
		assert_string_equal(pr.item.url, url);
		ct_fq_item_release(&pr.item);
		r->pulled++;
		got++;
	}
}

/* Fill a queue with two blocks of URLs, pull and enqueue 40 twice (the
 * places of pulled items are taken again, the arena is compacted before
 * it grows), then pull the 20 oldest: every item comes out whole, and
 * every one left is found by its URL. */
static struct churn_run churn_scenario(void)
{
	struct churn_run r = {0};
	struct ct_frontier_params p;
	struct ct_fq *q = NULL;
	struct ct_error err = {{0}};
	static char url[BIG_URL + 1];
	ct_frontier_params_default(&p);
	r.create = ct_fq_create(&p, NULL, NULL, &q, &err);
	if (r.create != CT_OK) {
		assert_int_equal(r.create, CT_ENOMEM);
		return r;
	}
	int k = 0;
	for (; k < CHURN_ITEMS; k++)
		churn_enqueue(q, k, url, &r.visible);
	for (int round = 0; round < CHURN_ROUNDS; round++) {
		churn_pull(q, CHURN_EACH, url, &r);
		for (int i = 0; i < CHURN_EACH; i++, k++)
			churn_enqueue(q, k, url, &r.visible);
	}
	churn_pull(q, CHURN_LAST, url, &r);
	/* every item still queued is found by its URL (its bytes, wherever
	 * the compactions moved them, are its own) */
	size_t found = 0;
	int was = counting; /* a lookup that cannot allocate finds nothing */
	counting = 0;
	/* the pulls took the oldest (one more when an enqueue was refused) */
	for (int j = CHURN_ROUNDS * CHURN_EACH + CHURN_LAST - 1; j < k; j++) {
		big_url(j, url);
		found += ct_fq_contains(q, url);
	}
	counting = was;
	assert_int_equal(found, ct_fq_size(q));
	ct_fq_destroy(q);
	return r;
}

/* Each allocation failing in turn, the arena's among them (a compaction
 * that cannot get its blocks leaves the arena as it was: nothing seen
 * outside), costs at most one refused enqueue or one retried pull, and
 * every item pulled is whole. */
static void churn_check(void *ctx, long k)
{
	long *unseen = ctx;
	struct churn_run r = churn_scenario();
	if (k < 0) {
		assert_int_equal(r.visible, 0);
		assert_int_equal(r.pulled, CHURN_ROUNDS * CHURN_EACH + CHURN_LAST);
	} else if (r.create == CT_OK && failed) {
		assert_true(r.visible <= 1);
		*unseen += r.visible == 0;
	}
}

static void arena_survives_each_allocation_failing(void **state)
{
	(void)state;
	long unseen = 0, total = each_failing(churn_check, &unseen);
	/* the compactions' allocations fail unseen */
	assert_true(unseen > 0);
	print_message("# arena: %ld allocations, each failed in turn, %ld "
		      "unseen (compaction)\n", total, unseen);
}

/* ---- the configuration loader ---------------------------------------- */

static char dir[64];
static char main_file[96];

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

static int make_files(void **state)
{
	(void)state;
	snprintf(dir, sizeof dir, "/tmp/ct-allocfail.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	char inc[96];
	snprintf(inc, sizeof inc, "%s/more.conf", dir);
	snprintf(main_file, sizeof main_file, "%s/crawltop.conf", dir);
	write_file(inc, "hierarchy = { decay = 0.75; };\n");
	write_file(main_file,
		"classes = { p0 = 85.0; p1 = 60.0; p2 = 35.0; };\n"
		"tier = { default_priority = 4; };\n"
		"frontier = {\n"
		"  types = { article = 1.0; nav = 9.0; hub = 3.5; };\n"
		"};\n"
		"@include \"more.conf\"\n");
	return 0;
}

static int remove_files(void **state)
{
	stopped(state);
	char path[128];
	snprintf(path, sizeof path, "%s/more.conf", dir);
	unlink(path);
	unlink(main_file);
	rmdir(dir);
	return 0;
}

struct config_runs {
	struct ct_settings want;
	long refused;
};

static void config_check(void *ctx, long k)
{
	struct config_runs *c = ctx;
	struct ct_settings got;
	struct ct_error err = {{0}};
	memset(&got, 0, sizeof got);
	ct_status st = ct_config_load_file(main_file, &got, &err);
	if (k < 0) {
		if (st != CT_OK)
			fail_msg("%s", err.msg);
		c->want = got;
		assert_true(got.classes.p0 == 85.0 && got.hierarchy.decay == 0.75);
	} else if (st == CT_OK) {
		/* the memory was optional: the same settings */
		assert_true(memcmp(&got, &c->want, sizeof got) == 0);
	} else {
		assert_int_equal(st, CT_ENOMEM);
		assert_non_null(strstr(err.msg, "out of memory"));
		c->refused++;
	}
}

static void config_survives_each_allocation_failing(void **state)
{
	(void)state;
	struct config_runs c;
	memset(&c, 0, sizeof c);
	long total = each_failing(config_check, &c);
	assert_true(total >= 1);
	assert_true(c.refused >= 1);
	print_message("# config: %ld allocations, each failed in turn, "
		      "%ld refused\n", total, c.refused);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(queue_survives_each_allocation_failing,
					  stopped),
		cmocka_unit_test_teardown(run_pull_refused_for_memory, stopped),
		cmocka_unit_test_teardown(arena_survives_each_allocation_failing,
					  stopped),
		cmocka_unit_test_setup_teardown(config_survives_each_allocation_failing,
						make_files, remove_files),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
