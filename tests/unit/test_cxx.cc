// test_cxx.cc: the public headers from C++, as an embedder includes them:
// they compile as C++11 with every warning an error, and the C names link
// (extern "C"). TAP output.
#include <cmath>
#include <cstdio>
#include <cstring>

#include "crawltop/crawltop.h"

static int n, failed;

static void ok(bool good, const char *what)
{
	std::printf("%sok %d - %s\n", good ? "" : "not ", ++n, what);
	failed += !good;
}

int main()
{
	ct_error err;
	int prio = 0;
	ok(ct_priority_parse("5", &prio, &err) == CT_OK && prio == 5,
	   "ct_priority_parse links and reads 5");
	ok(ct_priority_parse("11", &prio, &err) == CT_ERANGE ||
	   ct_priority_parse("11", &prio, &err) == CT_EINVAL,
	   "... and refuses 11");

	ct_frontier_input in;
	std::memset(&in, 0xff, sizeof in);
	ct_frontier_input_init(&in);
	ok(std::isnan(in.estimated_cost_ms) && in.url == nullptr,
	   "ct_frontier_input_init: cost unknown (NaN), the rest zero");
	ct_freshness_input fin;
	ct_freshness_input_init(&fin);
	ok(fin.topic_relevance == 0.5 && fin.hub_depth == 0,
	   "ct_freshness_input_init: relevance 0.5, depth 0");

	char buf[CT_NUMBER_BUF];
	ok(std::strcmp(ct_number_format(0.35, buf), "0.35") == 0,
	   "ct_number_format with a caller's buffer");

	ct_frontier_params p;
	ct_frontier_params_default(&p);
	ct_fq *q = nullptr;
	ok(ct_fq_create(&p, nullptr, nullptr, &q, &err) == CT_OK && q && ct_fq_size(q) == 0,
	   "ct_fq_create: an empty queue");
	ct_fq_destroy(q);

	std::printf("1..%d\n", n);
	return failed ? 1 : 0;
}
