/* bench_engine.c: in-process throughput of each scoring model.
 *
 * For each model: score a fixed, varied array of inputs many times, five
 * runs, print the median rate in scores per second (one thread, so one
 * core). A checksum of the results is printed so the work cannot be
 * optimised away. Usage: bench_engine [iterations-per-run] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "crawltop/crawltop.h"

#define N_INPUTS 4096
#define RUNS 5

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	return v[n / 2];
}

/* xorshift: deterministic inputs */
static unsigned long long rng = 88172645463325252ULL;
static unsigned long long next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}
static double unit(void)
{
	return (double)(next() >> 11) / 9007199254740992.0;
}

static struct ct_settings S;
static struct ct_freshness_input fin[N_INPUTS];
static struct ct_frontier_input frin[N_INPUTS];
static double dsub[N_INPUTS][CT_SUB_COUNT];
static struct ct_hierarchy_input hin[N_INPUTS];
static const int64_t NOW = INT64_C(1718438400000);

static void make_inputs(void)
{
	static const char *types[] = {"article", "hub-seed", "history", "nav",
				      "refresh", "unknown"};
	static const char *methods[] = {"sitemap", "link-discovery", "hub-seed",
					NULL, "validated-hub"};
	static char urls[N_INPUTS][64];
	for (int i = 0; i < N_INPUTS; i++) {
		struct ct_freshness_input *f = &fin[i];
		*f = CT_FRESHNESS_INPUT_INIT;
		f->has_last_visited = next() % 8 != 0;
		f->last_visited_ms = NOW - (int64_t)(unit() * 20 * 86400000.0);
		f->has_last_changed = next() % 2;
		f->last_changed_ms = NOW - (int64_t)(unit() * 4 * 86400000.0);
		f->topic_relevance = unit();
		f->hub_depth = (int)(next() % 7);
		f->is_hub = next() % 3 == 0;

		snprintf(urls[i], sizeof urls[i], "https://example.org/p/%d", i);
		struct ct_frontier_input *r = &frin[i];
		*r = CT_FRONTIER_INPUT_INIT;
		r->url = urls[i];
		r->type = types[next() % 6];
		r->depth = (int)(next() % 6);
		r->discovery_method = methods[next() % 5];
		r->has_gap = next() % 4 == 0;
		r->gap_confidence = unit();
		r->gap_lift = unit();
		r->cluster_occurrences = (long)(next() % 12);
		r->knowledge_reuse = next() % 2 ? unit() : 0;

		for (int k = 0; k < CT_SUB_COUNT; k++)
			dsub[i][k] = unit();

		hin[i] = (struct ct_hierarchy_input){
			.path = i % 50 ? urls[i] + 19 : "/",
			.source = (ct_source_type)(next() % CT_SRC_COUNT),
			.source_score = next() % 5 ? unit() : NAN,
			.current = next() % 3 ? 0.0 : unit(),
		};
	}
}

typedef double bench_fn(long iters);

static double b_freshness(long iters)
{
	struct ct_freshness_result r;
	double sum = 0;
	for (long it = 0; it < iters; it++)
		for (int i = 0; i < N_INPUTS; i++) {
			ct_freshness_score(&S.freshness, &S.classes, &fin[i], NOW,
					   &r, NULL);
			sum += r.score;
		}
	return sum;
}

static double b_frontier(long iters)
{
	struct ct_frontier_result r;
	double sum = 0;
	for (long it = 0; it < iters; it++)
		for (int i = 0; i < N_INPUTS; i++) {
			ct_frontier_score(&S.frontier, &S.classes, &frin[i], &r, NULL);
			sum += r.priority;
		}
	return sum;
}

static double b_discovery(long iters)
{
	struct ct_discovery_result r;
	double sum = 0;
	for (long it = 0; it < iters; it++)
		for (int i = 0; i < N_INPUTS; i++) {
			ct_discovery_score(&S.discovery, &S.classes, dsub[i], &r, NULL);
			sum += r.score;
		}
	return sum;
}

static double b_hierarchy(long iters)
{
	struct ct_hierarchy_result r;
	double sum = 0;
	for (long it = 0; it < iters; it++)
		for (int i = 0; i < N_INPUTS; i++) {
			ct_hierarchy_score(&S.hierarchy, &hin[i], &r, NULL);
			sum += r.score;
		}
	return sum;
}

static void bench(const char *name, bench_fn *fn, long iters)
{
	double rates[RUNS], check = 0;
	for (int k = 0; k < RUNS; k++) {
		double t0 = now_s();
		check += fn(iters);
		double dt = now_s() - t0;
		rates[k] = (double)iters * N_INPUTS / dt;
	}
	double lo = rates[0], hi = rates[0];
	for (int k = 1; k < RUNS; k++) {
		lo = rates[k] < lo ? rates[k] : lo;
		hi = rates[k] > hi ? rates[k] : hi;
	}
	printf("%-10s median %8.2f M scores/s  (min %.2f, max %.2f; %d runs of %ld; checksum %.6g)\n",
	       name, median(rates, RUNS) / 1e6, lo / 1e6, hi / 1e6, RUNS,
	       iters * N_INPUTS, check);
}

int main(int argc, char **argv)
{
	long iters = argc > 1 ? atol(argv[1]) : 2000;
	ct_settings_default(&S);
	make_inputs();
	bench("freshness", b_freshness, iters);
	bench("frontier", b_frontier, iters);
	bench("discovery", b_discovery, iters);
	bench("hierarchy", b_hierarchy, iters);
	return 0;
}
