/* bench_frontier.c: the in-memory frontier queue (ct_fq) under three
 * workloads, for ./dev bench frontier (bench_frontier.sh runs it beside
 * frontier_baseline.mjs, a JavaScript binary heap and Set doing the same):
 *
 *   push-pop  N items of random priority pushed, then all popped;
 *   mixed     Q items queued, then M operations, each a push or a pop
 *             with even odds;
 *   enqueue   U URLs of about 60 bytes, a fifth of them duplicates of an
 *             earlier one (as written: other host case, a #fragment, a
 *             default port), through every check (URL, size, depth,
 *             duplicate, scoring), then the bytes the queue holds a queued
 *             item beyond its URL.
 *
 *   bench_frontier N M Q U
 *
 * Prints one line a workload: "NAME OPS ms" and "bytes-per-item B (URL
 * L)". The URLs, the random priorities and the mixed workload's coin
 * flips are made before the clock starts (frontier_baseline.mjs draws the
 * same numbers the same way), so neither side times its random number
 * generator. FQ_SPLIT set in the environment also prints push-pop's push
 * phase to stderr ("push ms"). */
#include <inttypes.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "crawltop/frontier_queue.h"

static uint64_t rng = 88172645463325252ull;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static struct ct_fq *queue(void)
{
	struct ct_frontier_params p;
	ct_frontier_params_default(&p);
	p.max_queue = 100000000;
	struct ct_fq *q = NULL;
	struct ct_error err;
	if (ct_fq_create(&p, NULL, NULL, &q, &err) != CT_OK) {
		fprintf(stderr, "bench_frontier: %s\n", err.msg);
		exit(1);
	}
	return q;
}

/* The i-th URL: about 60 bytes, 1,000 hosts. */
static char *url_of(size_t i)
{
	char b[128];
	snprintf(b, sizeof b, "https://h%03zu.example.org/section/%07zu/page.html",
		 i % 1000, i);
	return strdup(b);
}

static void push(struct ct_fq *q, const char *url, double bias, int64_t t)
{
	struct ct_frontier_input in = CT_FRONTIER_INPUT_INIT;
	in.url = url;
	in.type = "article";
	in.bias = bias;
	struct ct_fq_enqueue_result r;
	if (ct_fq_enqueue(q, &in, t, &r, NULL) != CT_OK || !r.enqueued) {
		fprintf(stderr, "bench_frontier: %s refused\n", url);
		exit(1);
	}
}

static int pop(struct ct_fq *q)
{
	struct ct_fq_pull_result r;
	if (ct_fq_pull(q, 0, &r) != CT_OK) {
		fprintf(stderr, "bench_frontier: a pull failed\n");
		exit(1);
	}
	if (!r.has_item)
		return 0;
	ct_fq_item_release(&r.item);
	return 1;
}

static double rand_bias(void)
{
	return (double)(next_rand() % 2000001) - 1000000.0;
}

int main(int argc, char **argv)
{
	if (argc != 5) {
		fprintf(stderr, "usage: bench_frontier N M Q U\n");
		return 2;
	}
	size_t n = strtoull(argv[1], NULL, 10), m = strtoull(argv[2], NULL, 10),
	       qn = strtoull(argv[3], NULL, 10), un = strtoull(argv[4], NULL, 10);
	size_t most = n > qn + m ? n : qn + m;
	char **urls = malloc(most * sizeof *urls);
	for (size_t i = 0; i < most; i++)
		urls[i] = url_of(i);

	/* the random draws, in the order the workloads use them: push-pop's
	 * n priorities, the mixed workload's qn, then a coin a step and a
	 * priority a push */
	double *bias = malloc((n + qn + m) * sizeof *bias);
	unsigned char *coin = malloc(m ? m : 1);
	if (!bias || !coin) {
		fprintf(stderr, "bench_frontier: out of memory\n");
		return 1;
	}
	for (size_t i = 0; i < n + qn; i++)
		bias[i] = rand_bias();
	for (size_t k = 0, b = n + qn; k < m; k++) {
		coin[k] = next_rand() & 1;
		if (!coin[k])
			bias[b++] = rand_bias();
	}

	/* push-pop */
	struct ct_fq *q = queue();
	double t0 = now_ms();
	for (size_t i = 0; i < n; i++)
		push(q, urls[i], bias[i], (int64_t)i);
	size_t popped = 0;
	if (getenv("FQ_SPLIT"))
		fprintf(stderr, "push %.1f\n", now_ms() - t0);
	while (pop(q))
		popped++;
	printf("push-pop %zu %.1f\n", n, now_ms() - t0);
	if (popped != n)
		return 1;
	ct_fq_destroy(q);

	/* mixed, around qn queued */
	q = queue();
	size_t next = 0;
	for (; next < qn; next++)
		push(q, urls[next], bias[n + next], (int64_t)next);
	double *draw = bias + n + qn;
	t0 = now_ms();
	for (size_t k = 0; k < m; k++) {
		if (coin[k])
			pop(q);
		else {
			push(q, urls[next], *draw++, (int64_t)next);
			next++;
		}
	}
	printf("mixed %zu %.1f\n", m, now_ms() - t0);
	ct_fq_destroy(q);
	for (size_t i = 0; i < most; i++)
		free(urls[i]);
	free(urls);
	free(bias);
	free(coin);

	/* enqueue through every check: 4 in 5 new, 1 in 5 an earlier one
	 * written otherwise */
	static const char *const types[] = {"article", "nav", "hub-seed", "page"};
	static const char *const methods[] = {"link", "sitemap", "link-discovery"};
	char **in = malloc(un * sizeof *in);
	size_t fresh = 0, url_bytes = 0;
	for (size_t i = 0; i < un; i++) {
		if (i % 5 == 4 && fresh > 0) {
			size_t j = next_rand() % fresh;
			char b[160];
			switch (next_rand() % 3) {
			case 0:
				snprintf(b, sizeof b, "https://H%03zu.Example.org/section/%07zu/page.html",
					 j % 1000, j);
				break;
			case 1:
				snprintf(b, sizeof b, "https://h%03zu.example.org/section/%07zu/page.html#top",
					 j % 1000, j);
				break;
			default:
				snprintf(b, sizeof b, "https://h%03zu.example.org:443/section/%07zu/page.html",
					 j % 1000, j);
			}
			in[i] = strdup(b);
		} else {
			in[i] = url_of(fresh++);
			url_bytes += strlen(in[i]) + 1;
		}
	}
	struct mallinfo2 m0 = mallinfo2();
	q = queue();
	size_t took = 0;
	t0 = now_ms();
	for (size_t i = 0; i < un; i++) {
		struct ct_frontier_input fi = CT_FRONTIER_INPUT_INIT;
		fi.url = in[i];
		fi.type = types[i % 4];
		fi.depth = (int)(i % 6);
		fi.discovery_method = methods[i % 3];
		struct ct_fq_enqueue_result r;
		ct_fq_enqueue(q, &fi, (int64_t)i, &r, NULL);
		took += r.enqueued;
	}
	double ms = now_ms() - t0;
	struct mallinfo2 m1 = mallinfo2();
	printf("enqueue %zu %.1f\n", un, ms);
	double url = fresh ? (double)url_bytes / (double)fresh : 0;
	/* glibc's count of bytes in use; a sanitizer's allocator keeps its
	 * own and glibc's stays put: "-" */
	/* in use: the heap's blocks and the blocks malloc maps on their
	 * own (large arrays) */
	size_t used0 = m0.uordblks + m0.hblkhd, used1 = m1.uordblks + m1.hblkhd;
	if (took > 0 && used1 > used0)
		printf("bytes-per-item %.1f %.1f %zu\n",
		       (double)(used1 - used0) / (double)took - url,
		       url, took);
	else
		printf("bytes-per-item - %.1f %zu\n", url, took);
	ct_fq_destroy(q);
	for (size_t i = 0; i < un; i++)
		free(in[i]);
	free(in);
	return took == fresh ? 0 : 1;
}
