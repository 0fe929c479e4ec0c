/* cmd_simulate.c: `crawltop simulate --graph FILE --job NAME ...`: crawl
 * a site graph through the task store as real workers would (sim.h,
 * simwork.c). This file reads the options and the graph, creates the job
 * when it does not exist, enqueues '/' and the sitemap, runs the workers,
 * shows progress (a bar on a terminal, plain lines otherwise) and turns
 * SIGINT/SIGTERM/SIGHUP into a stop in which the workers release their
 * tasks.
 * Exit 0 when the crawl ran out of work (or reached --max-pages), 1 on an
 * error, 2 on a usage error, 128 + the signal when interrupted (130 for
 * SIGINT, 143 for SIGTERM, 129 for SIGHUP). */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "dbcmd.h"
#include "pathbatch.h"
#include "sim.h"
#include "simgraph.h"
#include "urlpath.h"

#define MAX_WORKERS 64

/* The command line. */
struct sim_opts {
	const char *dsn, *graph, *sitemap, *job, *domain, *mode, *priority;
	const char *order_out;
	long workers, latency_ms, host_delay_ms, max_pages, stall_after;
	double fail_rate;
	uint64_t seed;
	int quiet, reconnect;
};

static volatile sig_atomic_t got_signal;

/* SIGINT, SIGTERM, SIGHUP (its terminal closed): note it; the main loop
 * stops the workers, which give their tasks back. */
static void on_signal(int sig)
{
	got_signal = sig;
}

/* "sim.<graph file name without its extension>", made a host name. */
static void default_domain(const char *graph, char *out, size_t n)
{
	const char *base = strrchr(graph, '/');
	base = base ? base + 1 : graph;
	const char *dot = strrchr(base, '.');
	size_t bl = dot && dot != base ? (size_t)(dot - base) : strlen(base);
	char name[200];
	size_t k = 0;
	for (size_t i = 0; i < bl && k + 1 < sizeof name; i++) {
		char c = base[i];
		c = (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.'))
			c = '-';
		/* no '-' or '.' at a label's edge, no empty label */
		if ((c == '-' || c == '.') &&
		    (k == 0 || name[k - 1] == '.' || name[k - 1] == '-'))
			continue;
		name[k++] = c;
	}
	while (k && (name[k - 1] == '-' || name[k - 1] == '.'))
		k--;
	name[k] = '\0';
	snprintf(out, n, "sim.%s", k ? name : "graph");
}

/* Find job o->job or create it over the domain; *j receives it. */
static int setup_job(struct ct_store *s, const struct sim_opts *o,
		     const char *domain, struct ct_job_info *j)
{
	struct ct_error err;
	int64_t id;
	ct_status st = ct_store_job_find(s, o->job, &id, &err);
	if (st == CT_ENOENT) {
		int prio;
		if (o->priority)
			prio = atoi(o->priority); /* checked by the caller */
		else if (ct_store_default_priority(s, &prio, &err) != CT_OK)
			goto refused;
		st = ct_store_job_create(s, o->job, domain, prio,
					 o->mode ? o->mode : CT_MODE_DEFAULT, &id,
					 &err);
		if (st == CT_OK)
			fprintf(stderr, "simulate: created job %s (id %" PRId64
				") over %s\n", o->job, id, domain);
	}
	if (st != CT_OK || ct_store_job_get(s, id, j, &err) != CT_OK)
		goto refused;
	if (o->mode && strcmp(o->mode, j->mode) != 0) {
		cli_error("simulate", "job %s exists in mode %s, not %s: change "
			  "it first or pick another job name", j->name, j->mode,
			  o->mode);
		return -1;
	}
	if (o->domain && strcasecmp(o->domain, j->domain) != 0) {
		cli_error("simulate", "job %s crawls %s, not %s", j->name,
			  j->domain, o->domain);
		return -1;
	}
	/* the stored state, as enqueue checks it: a job shown completed (its
	 * tasks all done) still takes new tasks */
	if (strcmp(j->stored_status, "cancelled") == 0 ||
	    strcmp(j->stored_status, "completed") == 0) {
		cli_error("simulate", "job %s is %s: it takes no new tasks",
			  j->name, j->stored_status);
		return -1;
	}
	if (strcmp(j->stored_status, "paused") == 0) {
		char *name = cli_shown(j->name);
		fprintf(stderr, "simulate: job %s is paused: the workers wait "
			"until it is resumed (crawltop job resume %s; Ctrl-C "
			"stops them)\n", name ? name : "?", name ? name : "?");
		free(name);
	}
	return 0;
refused:
	cli_error("simulate", "%s", err.msg);
	return -1;
}

/* Enqueue '/' (manual, depth 0) and the sitemap's pages (source sitemap)
 * in one transaction. A sitemap page gets its link depth from '/' in the
 * graph, or 1 when no link reaches it (the sitemap is one step from the
 * site), so that the pages under it have depths too (frontier mode scores
 * by depth): one batch per depth (and run of one page type),
 * shallowest first, each in the sitemap's order. Page types and discovery methods come from the
 * graph (simgraph_type: hubs, articles, pages; '/' found by "seed"). */
static int seed_job(struct ct_store *s, const struct sim *sim,
		    const long *smap, size_t nsmap)
{
	struct ct_error err;
	struct pathbatch b;
	size_t n = sim->g->n ? sim->g->n : 1;
	int *depth = malloc(n * sizeof *depth);
	/* the sitemap's entries by depth, each depth in the sitemap's order
	 * (a counting sort: at[d] is where depth d starts in order) */
	size_t *order = malloc((nsmap ? nsmap : 1) * sizeof *order);
	size_t *at = calloc(n + 2, sizeof *at);
	if (!depth || !order || !at) {
		free(depth);
		free(order);
		free(at);
		cli_error("simulate", "out of memory");
		return -1;
	}
	long root = simgraph_find(sim->g, "/");
	int max = -1;
	simgraph_reachable(sim->g, &root, root >= 0, depth);
	for (size_t i = 0; i < nsmap; i++) {
		int d = depth[smap[i]] < 0 ? 1 : depth[smap[i]];
		depth[smap[i]] = d; /* a depth is below n */
		at[d + 1]++;
		max = d > max ? d : max;
	}
	for (int d = 0; d <= max; d++)
		at[d + 1] += at[d];
	for (size_t i = 0; i < nsmap; i++)
		order[at[depth[smap[i]]]++] = i;
	/* at[d] is now where depth d ends, and where d + 1 starts */
	int rc = -1;
	if (ct_store_begin(s, &err) != CT_OK) {
		cli_error("simulate", "%s", err.msg);
		goto out;
	}
	pathbatch_init(&b, s, sim->us, sim->job_id, CT_SRC_MANUAL);
	b.depth = 0;
	b.type = simgraph_type(sim->g, root, sim->median_links);
	b.method = "seed";
	rc = root >= 0 ? sim_add(sim, &b, root) : pathbatch_add(&b, "/");
	if (rc == 0)
		rc = pathbatch_flush(&b);
	b.source = CT_SRC_SITEMAP;
	b.method = NULL; /* "sitemap" */
	/* one batch per depth, in the sitemap's order, split where the page
	 * type changes (pathbatch_type) */
	for (size_t k = 0; rc == 0 && k < nsmap; k++) {
		long pg = smap[order[k]];
		int d = depth[pg];
		if (d != b.depth) {
			rc = pathbatch_flush(&b);
			b.depth = d;
		}
		if (rc == 0)
			rc = pathbatch_type(&b, simgraph_type(sim->g, pg,
							     sim->median_links));
		if (rc == 0)
			rc = sim_add(sim, &b, pg);
	}
	if (rc == 0)
		rc = pathbatch_flush(&b);
	if (rc != 0) {
		cli_error("simulate", "enqueue the start pages: %s", b.err);
		ct_store_rollback(s, NULL);
	} else if (ct_store_commit(s, &err) != CT_OK) {
		cli_error("simulate", "%s", err.msg);
		rc = -1;
	}
	pathbatch_free(&b);
out:
	free(depth);
	free(order);
	free(at);
	return rc;
}

/* One progress report: a bar on a terminal, cut to its width, else a
 * plain line. */
static void progress(struct sim *sim, struct ct_store *s, int tty,
		     double elapsed)
{
	struct ct_job_info j;
	struct ct_error err;
	if (ct_store_job_get(s, sim->job_id, &j, &err) != CT_OK)
		return;
	pthread_mutex_lock(&sim->mu);
	long fetched = sim->fetched, fails = sim->attempts_failed;
	pthread_mutex_unlock(&sim->mu);
	int64_t done = j.completed + j.failed + j.skipped;
	double rate = elapsed > 0 ? fetched / elapsed : 0;
	const char *paused = strcmp(j.stored_status, "paused") == 0
				     ? ", job paused: waiting for resume" : "";
	if (!tty) {
		fprintf(stderr, "simulate: %" PRId64 "/%ld done, %" PRId64
			" pending, %" PRId64 " running, %" PRId64 " retrying, "
			"%ld fetched, %ld failed attempts, %.1f pages/s%s\n",
			done, j.total_pages, j.pending, j.running, j.retrying,
			fetched, fails, rate, paused);
		return;
	}
	char bar[31], line[400];
	int fill = j.total_pages ? (int)(30 * done / j.total_pages) : 0;
	for (int i = 0; i < 30; i++)
		bar[i] = i < fill ? '#' : '-';
	bar[30] = '\0';
	snprintf(line, sizeof line, "[%s] %3d%% %" PRId64 "/%ld  pending %"
		 PRId64 "  running %" PRId64 "  retrying %" PRId64 "  failed "
		 "attempts %ld  %.1f pages/s%s", bar, j.total_pages ?
		 (int)(100 * done / j.total_pages) : 0, done, j.total_pages,
		 j.pending, j.running, j.retrying, fails, rate,
		 *paused ? "  PAUSED" : "");
	/* a line longer than the terminal wraps, and \r then scrolls a new
	 * line for every report */
	struct winsize ws;
	size_t cols = ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1
			      ? ws.ws_col - 1 : 79;
	if (strlen(line) > cols)
		line[cols] = '\0';
	fprintf(stderr, "\r\033[K%s", line);
}

/* Start the workers with SIGINT, SIGTERM and SIGHUP blocked (the main thread
 * takes them), wait for them while reporting progress, join them. */
static void run_workers(struct sim *sim, struct sim_worker *w,
			struct ct_store **sp, int quiet)
{
	struct ct_store *s = *sp;
	sigset_t block, old;
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	int started = 0;
	for (int i = 0; i < sim->workers; i++) {
		w[i] = (struct sim_worker){.sim = sim, .index = i};
		pthread_mutex_lock(&sim->mu);
		sim->running++;
		pthread_mutex_unlock(&sim->mu);
		if (pthread_create(&w[i].thread, NULL, sim_worker_main, &w[i]) != 0) {
			pthread_mutex_lock(&sim->mu);
			sim->running--;
			sim->error = 1;
			snprintf(sim->err, sizeof sim->err, "cannot start worker %d", i);
			pthread_mutex_unlock(&sim->mu);
			sim_stop(sim);
			break;
		}
		started++;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);

	int tty = isatty(STDERR_FILENO);
	int64_t t0 = sim_now_ns(), interval = tty ? 250000000 : 2000000000;
	int64_t next = t0 + interval;
	int stopping = 0;
	for (;;) {
		struct timespec nap = {0, 50000000};
		nanosleep(&nap, NULL);
		if (got_signal && !stopping) {
			stopping = 1;
			sim_stop(sim);
		}
		pthread_mutex_lock(&sim->mu);
		int running = sim->running;
		pthread_mutex_unlock(&sim->mu);
		if (running == 0)
			break;
		int64_t now = sim_now_ns();
		if (!quiet && now >= next) {
			/* --reconnect: the progress's own session too, one
			 * try a display */
			struct ct_error err;
			if (sim->reconnect && ct_store_lost(s)) {
				ct_store_close(s);
				if (ct_store_open_as(sim->dsn, "crawltop simulate",
						     &s, &err) != CT_OK)
					s = NULL;
				*sp = s;
			}
			if (s)
				progress(sim, s, tty, (double)(now - t0) / 1e9);
			next = now + interval;
		}
	}
	for (int i = 0; i < started; i++)
		pthread_join(w[i].thread, NULL);
	if (!quiet && s) {
		progress(sim, s, tty, (double)(sim_now_ns() - t0) / 1e9);
		if (tty)
			fputc('\n', stderr);
	}
}

/* Everything after the options were checked. */
static int simulate(const struct sim_opts *o)
{
	struct simgraph g = {0};
	struct urlscore us;
	struct ct_store *s = NULL;
	struct ct_job_info j;
	struct sim sim = {0};
	struct sim_worker w[MAX_WORKERS];
	struct cli_shown_set sh = {0}; /* the job's fields, to print */
	long *smap = NULL;
	size_t nsmap = 0;
	unsigned *backlinks = NULL; /* discovery: each page's in-degree */
	char err[700], domain[260];
	int rc = DB_EXIT_FAIL;
	/* the store's limit, checked again by the store */
	if (simgraph_load(&g, o->graph, URLPATH_MAX_BYTES, err, sizeof err) != 0) {
		cli_error("simulate", "%s", err);
		goto out;
	}
	size_t in_graph = g.n; /* the sitemap's own paths come after */
	if (o->sitemap && simgraph_load_list(&g, o->sitemap, URLPATH_MAX_BYTES, &smap,
					     &nsmap, err, sizeof err) != 0) {
		cli_error("simulate", "%s", err);
		goto out;
	}
	/* sitemap paths the graph does not have: pages without links */
	size_t strays = 0, first_stray = 0;
	for (size_t i = 0; i < nsmap; i++)
		if ((size_t)smap[i] >= in_graph && !strays++)
			first_stray = (size_t)smap[i];
	if (strays)
		fprintf(stderr, "simulate: warning: %zu of the sitemap's paths "
			"are not in %s (the first: %s): they are fetched as "
			"pages without links\n", strays, o->graph,
			g.path[first_stray]);
	long root = simgraph_intern(&g, "/");
	if (root < 0) {
		cli_error("simulate", "out of memory");
		goto out;
	}
	if (g.first[root] == g.first[root + 1])
		fprintf(stderr, "simulate: warning: %s has no links from '/' "
			"(the homepage): only '/'%s will be fetched\n", o->graph,
			nsmap ? " and the sitemap's pages" : "");
	long *seeds = malloc((nsmap + 1) * sizeof *seeds);
	size_t reach = 0;
	if (seeds) {
		seeds[0] = root;
		if (nsmap)
			memcpy(seeds + 1, smap, nsmap * sizeof *seeds);
		reach = simgraph_reachable(&g, seeds, nsmap + 1, NULL);
		free(seeds);
	}
	if (o->domain)
		snprintf(domain, sizeof domain, "%s", o->domain);
	else
		default_domain(o->graph, domain, sizeof domain);
	/* the order file before the database: a path that cannot be
	 * written must not leave a job created behind */
	FILE *order = NULL;
	if (o->order_out && !(order = fopen(o->order_out, "w"))) {
		cli_error("simulate", "%s: cannot create: %s", o->order_out,
			  strerror(errno));
		goto out;
	}
	sim.order = order;
	if (db_open("simulate", o->dsn, &s) != 0 ||
	    setup_job(s, o, domain, &j) != 0 ||
	    urlscore_init(&us, "simulate", s, j.mode, j.domain) != 0)
		goto out;
	sim = (struct sim){
		.dsn = o->dsn, .job_id = j.id, .g = &g,
		.median_links = simgraph_median_links(&g), .us = &us,
		.workers = (int)o->workers, .latency_ms = o->latency_ms,
		.host_delay_ms = o->host_delay_ms, .fail_rate = o->fail_rate,
		.seed = o->seed, .max_pages = o->max_pages,
		.stall_after = o->stall_after, .order = order,
		.reconnect = o->reconnect,
		.one_call = strcmp(j.mode, "importance") == 0,
		.lease_s = 30 + 4.0 * (double)(o->latency_ms +
			   o->workers * o->host_delay_ms) / 1000,
	};
	if (sim.lease_s > 86400)
		sim.lease_s = 86400;
	/* a discovery job's tasks carry a raw signal, the links the graph
	 * has to each page (its backlinks), for `crawltop rank` to rank */
	if (strcmp(j.mode, "discovery") == 0) {
		if (!(backlinks = calloc(g.n ? g.n : 1, sizeof *backlinks))) {
			cli_error("simulate", "out of memory");
			goto out;
		}
		for (size_t k = 0; k < g.nlinks; k++)
			backlinks[g.link[k]]++;
		sim.backlinks = backlinks;
	}
	if (sim_init(&sim) != 0) {
		cli_error("simulate", "cannot create the workers' lock");
		goto out;
	}
	if (seed_job(s, &sim, smap, nsmap) != 0)
		goto out_sim;
	const char *name = cli_show(&sh, j.name);
	fprintf(stderr, "simulate: job %s (id %" PRId64 ", %s, priority %d) "
		"over %s: %zu pages, %zu links, %zu reachable from / and the "
		"sitemap; %ld worker%s\n", name, j.id, cli_show(&sh, j.mode),
		j.priority, cli_show(&sh, j.domain), g.n, g.nlinks, reach,
		o->workers, o->workers == 1 ? "" : "s");

	int64_t t0 = sim_now_ns();
	run_workers(&sim, w, &s, o->quiet);
	double secs = (double)(sim_now_ns() - t0) / 1e9;
	printf("simulate: job %s (%" PRId64 "): fetched %ld page%s in %.2f s "
	       "(%.1f pages/s) with %ld worker%s; %ld failed attempt%s, %ld "
	       "page%s failed for good%s\n", name, j.id, sim.fetched,
	       sim.fetched == 1 ? "" : "s", secs,
	       secs > 0 ? sim.fetched / secs : 0.0, o->workers,
	       o->workers == 1 ? "" : "s", sim.attempts_failed,
	       sim.attempts_failed == 1 ? "" : "s", sim.pages_failed,
	       sim.pages_failed == 1 ? "" : "s",
	       sim.max_pages && sim.fetched >= sim.max_pages
		       ? " (--max-pages reached)" : "");
	if (sim.reconnects)
		printf("simulate: %ld connection%s made again after the server "
		       "went away\n", sim.reconnects,
		       sim.reconnects == 1 ? "" : "s");
	if (sim.conflicts)
		printf("simulate: %ld transaction%s rolled back by the server "
		       "(deadlock or serialization failure) and tried again\n",
		       sim.conflicts, sim.conflicts == 1 ? "" : "s");
	if (sim.error) { /* first: a cancellation seen after it hides nothing */
		cli_error("simulate", "%s", sim.err);
	} else if (sim.cancelled) {
		printf("simulate: job %s was cancelled during the run: its "
		       "pending tasks were skipped\n", name);
		rc = DB_EXIT_OK;
	} else if (got_signal) {
		cli_error("simulate", "interrupted: stopped, %ld claimed task%s "
			  "released", sim.released, sim.released == 1 ? "" : "s");
		rc = 128 + got_signal;
	} else {
		rc = DB_EXIT_OK;
	}
out_sim:
	sim_destroy(&sim);
out:
	if (sim.order) {
		if (fclose(sim.order) != 0 && rc == DB_EXIT_OK) {
			cli_error("simulate", "%s: write error: %s",
				  o->order_out, strerror(errno));
			rc = DB_EXIT_FAIL;
		}
	}
	ct_store_close(s);
	free(smap);
	free(backlinks);
	simgraph_free(&g);
	cli_show_free(&sh);
	return rc;
}

/* `crawltop simulate`: every option checked before the graph is read. */
static int run(int argc, char **argv)
{
	static const struct option opts[] = {
		{"dsn", required_argument, NULL, 'd'},
		{"graph", required_argument, NULL, 'g'},
		{"sitemap", required_argument, NULL, 's'},
		{"job", required_argument, NULL, 'j'},
		{"domain", required_argument, NULL, 'D'},
		{"mode", required_argument, NULL, 'm'},
		{"priority", required_argument, NULL, 'p'},
		{"workers", required_argument, NULL, 'w'},
		{"latency-ms", required_argument, NULL, 'l'},
		{"fail-rate", required_argument, NULL, 'f'},
		{"host-delay-ms", required_argument, NULL, 'h'},
		{"order-out", required_argument, NULL, 'o'},
		{"seed", required_argument, NULL, 'S'},
		{"max-pages", required_argument, NULL, 'M'},
		{"stall-after", required_argument, NULL, 'T'},
		{"quiet", no_argument, NULL, 'q'},
		{"reconnect", no_argument, NULL, 'R'},
		{NULL, 0, NULL, 0},
	};
	struct sim_opts o = {.dsn = db_default_dsn(), .workers = 4,
			     .latency_ms = 20, .seed = 1};
	long v;
	int c, prio;
	struct cli_getopt go = CLI_GETOPT("simulate", "d:j:q", opts);
	while ((c = cli_getopt(&go, argc, argv)) != -1) {
		int bad = 0;
		switch (c) {
		case 'd': o.dsn = optarg; break;
		case 'g': o.graph = optarg; break;
		case 's': o.sitemap = optarg; break;
		case 'j': o.job = optarg; break;
		case 'D': o.domain = optarg; break;
		case 'm': o.mode = optarg; bad = db_parse_mode("simulate", optarg); break;
		case 'p':
			o.priority = optarg;
			bad = db_parse_priority("simulate", optarg, &prio);
			break;
		case 'w':
			bad = db_parse_long("simulate", "--workers", optarg, 1,
					    MAX_WORKERS, &o.workers);
			break;
		case 'l':
			bad = db_parse_long("simulate", "--latency-ms", optarg, 0,
					    60000, &o.latency_ms);
			break;
		case 'f':
			bad = db_parse_double("simulate", "--fail-rate", optarg,
					      0, 1, &o.fail_rate);
			break;
		case 'h':
			bad = db_parse_long("simulate", "--host-delay-ms", optarg,
					    0, 60000, &o.host_delay_ms);
			break;
		case 'o': o.order_out = optarg; break;
		case 'S':
			bad = db_parse_long("simulate", "--seed", optarg, 0,
					    2147483647L, &v);
			o.seed = (uint64_t)v;
			break;
		case 'M':
			bad = db_parse_long("simulate", "--max-pages", optarg, 1,
					    1000000000L, &o.max_pages);
			break;
		case 'T':
			bad = db_parse_long("simulate", "--stall-after", optarg,
					    1, 1000000000L, &o.stall_after);
			break;
		case 'q': o.quiet = 1; break;
		case 'R': o.reconnect = 1; break;
		default:
			return DB_EXIT_USAGE;
		}
		if (bad)
			return DB_EXIT_USAGE;
	}
	if (optind != argc) {
		cli_error("simulate", "unexpected argument '%s'", argv[optind]);
		return DB_EXIT_USAGE;
	}
	if (!o.graph || !o.job) {
		cli_error("simulate", "--graph FILE and --job NAME are required");
		return DB_EXIT_USAGE;
	}
	struct sigaction sa = {.sa_handler = on_signal};
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* SIGHUP (the terminal closed) too, unless it is ignored, as under
	 * nohup: then the run goes on */
	struct sigaction hup;
	if (sigaction(SIGHUP, NULL, &hup) == 0 && hup.sa_handler != SIG_IGN)
		sigaction(SIGHUP, &sa, NULL);
	return simulate(&o);
}

const struct cli_cmd cli_cmd_simulate = {
	.name = "simulate",
	.usage = "--graph FILE --job NAME [--sitemap FILE] [--domain HOST] "
		 "[--mode MODE] [--priority P] [--workers N] [--latency-ms D] "
		 "[--fail-rate F] [--host-delay-ms D] [--order-out FILE] [--reconnect] "
		 "[--seed S] [--max-pages N] [--stall-after N] [-q] [-d DSN]",
	.summary = "Crawl a site graph through the task store with simulated "
		   "workers",
	.help = "  --graph FILE        TSV edge list: source-path<TAB>target-path,\n"
		"                      each page's links in page order, homepage /\n"
		"                      (data/sites/*.tsv)\n"
		"  --sitemap FILE      one path a line, enqueued as source sitemap\n"
		"  -j, --job NAME      the job; created when it does not exist\n"
		"  --domain HOST       its domain when created (default:\n"
		"                      sim.<graph file name>)\n"
		"  --mode MODE         its mode when created (default importance);\n"
		"                      an existing job must be in this mode\n"
		"  --priority P        its priority when created (1..10)\n"
		"  --workers N         worker threads, one connection each\n"
		"                      (1..64, default 4)\n"
		"  --latency-ms D      time one fetch takes (default 20)\n"
		"  --fail-rate F       probability 0..1 that a fetch fails; a\n"
		"                      failure is retried after the store's\n"
		"                      backoff (store.retry_base_seconds)\n"
		"  --host-delay-ms D   politeness: at least D ms between the\n"
		"                      starts of two fetches from the host\n"
		"  --order-out FILE    the fetched paths in fetch order, one a line\n"
		"  --seed S            seed of the failure draws (default 1)\n"
		"  --max-pages N       stop after N pages\n"
		"  --stall-after N     after N pages the workers hang: they\n"
		"                      claim nothing more and hold no lease,\n"
		"                      until stopped (a stalled crawler, for\n"
		"                      the console's health)\n"
		"  -q, --quiet         no progress display\n"
		"  --reconnect         a worker whose server goes away (a\n"
		"                      restart) connects again, every 0.25 s\n"
		"                      to 5 s for up to 5 minutes, instead of\n"
		"                      ending the run, and gives back the task\n"
		"                      it held\n"
		DB_HELP_DSN
		"\nEach task carries a page type and a discovery method from the\n"
		"graph, relative to its median page's number of links: a page\n"
		"with twice as many is a hub, one with at most three quarters\n"
		"as many (a leaf always) an article, else a page; '/' is found\n"
		"by seed, the sitemap's pages by sitemap, the others by\n"
		"hub-link, link or article-link after the page that linked them.\n"
		"A discovery job's tasks carry raw signals from the graph for\n"
		"crawltop rank to rank: backlinks (the page's in-degree),\n"
		"document_path (an article or a page), vendor_fingerprint (a\n"
		"hub), age_hours (24 a level of depth), topic_match (log2(1 +\n"
		"backlinks) / 8, at most 1), source cc.\n"
		"\nThe crawl ends when the job has no pending or running task.\n"
		"Ctrl-C stops it: the workers release the tasks they hold.\n"
		SCORED_WITH_STORED_SETTINGS
		"Exit status: 0 done, 1 error, 2 bad usage, 128 + the signal "
		"when\ninterrupted (130 Ctrl-C, 143 SIGTERM, 129 SIGHUP).\n",
	.run = run,
};
