/* work.c: the console's worker thread (work.h). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "store.h"
#include "text.h"
#include "work.h"

/* Tasks per rescore transaction: smaller than the store's default, for a
 * progress bar that moves and short row locks against the crawlers. */
#define TW_RESCORE_BATCH 5000

struct tw {
	char *dsn;
	int timeout_ms;
	int pipe[2];
	atomic_int cancel;
	pthread_t thread;
	int started;              /* a thread exists (until reaped) */
	pthread_mutex_t lock;     /* guards what follows */
	struct tw_req req;        /* the job; req.json points at json */
	char *json;
	struct tw_progress prog;
	struct tw_result res;
	int finished;             /* res is complete */
	/* stop the thread's statements (its connection's, and the second
	 * connection's of a rescore); tw_cancel takes them (once) */
	struct ct_store_canceller *canceller, *canceller2;
	/* the thread's second connection for rescores (ct_rescore_opts.extra:
	 * a rescore in two stripes), NULL when it could not be opened; the
	 * thread's own */
	struct ct_store *x;
};

static double mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Wake the loop; a full pipe already wakes it. */
static void wake(struct tw *w)
{
	char c = 0;
	ssize_t n = write(w->pipe[1], &c, 1);
	(void)n;
}

struct tw *tw_new(const char *dsn, int timeout_ms)
{
	struct tw *w = calloc(1, sizeof *w);
	if (!w)
		return NULL;
	w->dsn = dsn ? strdup(dsn) : NULL;
	w->timeout_ms = timeout_ms;
	if ((dsn && !w->dsn) || pipe(w->pipe) != 0) {
		free(w->dsn);
		free(w);
		return NULL;
	}
	for (int i = 0; i < 2; i++) {
		fcntl(w->pipe[i], F_SETFL, fcntl(w->pipe[i], F_GETFL) | O_NONBLOCK);
		fcntl(w->pipe[i], F_SETFD, FD_CLOEXEC);
	}
	pthread_mutex_init(&w->lock, NULL);
	return w;
}

int tw_fd(const struct tw *w)
{
	return w ? w->pipe[0] : -1;
}

enum tw_kind tw_running(const struct tw *w)
{
	return w && w->started ? w->req.kind : TW_NONE;
}

/* Sends a cancel request and frees it: connecting to the server may
 * wait (a stopped server), so not on the loop. */
static void *send_cancel(void *arg)
{
	ct_store_canceller_send(arg);
	ct_store_canceller_free(arg);
	return NULL;
}

void tw_cancel(struct tw *w)
{
	if (!w || !w->started)
		return;
	atomic_store(&w->cancel, 1);
	pthread_mutex_lock(&w->lock);
	w->prog.cancelling = true;
	struct ct_store_canceller *cs[2] = {w->canceller, w->canceller2};
	w->canceller = w->canceller2 = NULL;
	pthread_mutex_unlock(&w->lock);
	/* the flag stops the work between statements; the request stops the
	 * statement running now (a lock wait, a batch): it is rolled back */
	for (int i = 0; i < 2; i++) {
		pthread_t th;
		pthread_attr_t a;
		if (cs[i] && pthread_attr_init(&a) == 0) {
			pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
			if (pthread_create(&th, &a, send_cancel, cs[i]) == 0)
				cs[i] = NULL;
			pthread_attr_destroy(&a);
		}
		ct_store_canceller_free(cs[i]);
	}
}

/* Whether the thread's last call failed because x stopped it (on its
 * connection, or a rescore's second). */
static bool stopped_by_x(struct tw *w, struct ct_store *s)
{
	return atomic_load(&w->cancel) &&
	       (ct_store_cancelled(s) || (w->x && ct_store_cancelled(w->x)));
}

/* ---- the thread ------------------------------------------------------- */

/* ct_rescore_progress_fn: after each committed batch. */
static void on_progress(void *ctx, size_t done, size_t total)
{
	struct tw *w = ctx;
	pthread_mutex_lock(&w->lock);
	w->prog.done = done;
	w->prog.total = total;
	pthread_mutex_unlock(&w->lock);
	wake(w);
}

static void set_what(struct tw *w, int job_i, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4)))
#endif
	;

/* A new step: what it is, its job number, progress from zero. */
static void set_what(struct tw *w, int job_i, const char *fmt, ...)
{
	va_list ap;
	pthread_mutex_lock(&w->lock);
	va_start(ap, fmt);
	vsnprintf(w->prog.what, sizeof w->prog.what, fmt, ap);
	va_end(ap);
	w->prog.job_i = job_i;
	w->prog.done = w->prog.total = 0;
	pthread_mutex_unlock(&w->lock);
	wake(w);
}

/* Rescore one job; adds to res. */
static ct_status rescore_one(struct tw *w, struct ct_store *s, int64_t job,
			     const char *mode, const struct ct_settings *set,
			     int version, struct tw_result *res,
			     struct ct_rescore_result *rr, struct ct_error *err)
{
	if (w->x && ct_store_lost(w->x)) { /* one connection from here on */
		ct_store_close(w->x);
		w->x = NULL;
	}
	struct ct_rescore_opts o = {
		.settings = set, .settings_version = version,
		.batch = TW_RESCORE_BATCH,
		.progress = on_progress, .progress_ctx = w, .cancel = &w->cancel,
		.extra = &w->x, .n_extra = w->x ? 1 : 0,
	};
	memset(rr, 0, sizeof *rr);
	ct_status st = mode ? ct_store_job_set_mode(s, job, mode, &o, rr, err)
			    : ct_store_job_rescore(s, job, &o, rr, err);
	res->done += rr->done;
	res->changed += rr->changed;
	res->cancelled |= rr->cancelled;
	return st;
}

/* A second connection for a rescore's second stripe, with the worker's
 * statement timeout and a canceller x also uses; none (one stripe) when
 * it cannot be opened: the rescore then runs on one connection. */
static void open_second(struct tw *w)
{
	struct ct_error err;
	char sql[64];
	snprintf(sql, sizeof sql, "SET statement_timeout = %d", w->timeout_ms);
	if (ct_store_open_as(w->dsn, TUI_APP_NAME, &w->x, &err) != CT_OK ||
	    ct_store_exec(w->x, "worker session", sql, &err) != CT_OK) {
		ct_store_close(w->x);
		w->x = NULL;
		return;
	}
	struct ct_store_canceller *c = ct_store_canceller_new(w->x);
	pthread_mutex_lock(&w->lock);
	w->canceller2 = c;
	pthread_mutex_unlock(&w->lock);
}

static void run_preview(struct tw *w, struct ct_store *s, struct tw_result *res)
{
	const struct tw_req *r = &w->req;
	struct ct_preview_opts o = {.settings = &r->settings,
		.sample = r->sample, .cancel = &w->cancel};
	struct ct_error err;
	set_what(w, 0, "preview on job %s", r->job_name);
	res->st = ct_store_preview(s, r->job, &o, &res->preview, &err);
	res->cancelled = res->preview.cancelled;
	if (res->st != CT_OK && stopped_by_x(w, s)) {
		res->st = CT_OK;
		res->cancelled = true;
		snprintf(res->msg, sizeof res->msg, "preview stopped");
	} else if (res->st != CT_OK)
		snprintf(res->msg, sizeof res->msg, "%s", err.msg);
	else
		snprintf(res->msg, sizeof res->msg, "preview of job %s: %zu of "
			 "%zu pending tasks scored", r->job_name,
			 res->preview.sampled, res->preview.pending);
}

/* How to finish a stopped rescore: setting the mode again rescores every
 * unfinished task of the job (ct_store_job_set_mode), the rest too. */
static const char *rest_hint(const char *mode, char *buf, size_t len)
{
	snprintf(buf, len, " (m, %s again: the rest)", mode);
	return buf;
}

static void run_mode(struct tw *w, struct ct_store *s, struct tw_result *res)
{
	const struct tw_req *r = &w->req;
	char rest[64];
	struct ct_rescore_result rr;
	struct ct_error err;
	set_what(w, 1, "set mode %s, rescore job %s", r->mode, r->job_name);
	res->st = rescore_one(w, s, r->job, r->mode, &r->settings,
			      r->base_version, res, &rr, &err);
	if (res->st != CT_OK && stopped_by_x(w, s)) {
		res->st = CT_OK;
		res->cancelled = true;
		if (strcmp(rr.mode, r->mode) == 0)
			snprintf(res->msg, sizeof res->msg, "job %s: mode %s; "
				 "rescored %zu of %zu tasks, stopped%s",
				 r->job_name, r->mode, rr.done, rr.total,
				 rest_hint(r->mode, rest, sizeof rest));
		else
			snprintf(res->msg, sizeof res->msg, "job %s: mode change "
				 "to %s stopped; nothing changed", r->job_name,
				 r->mode);
	} else if (res->st != CT_OK && strcmp(rr.mode, r->mode) == 0)
		snprintf(res->msg, sizeof res->msg, "job %s: the mode is now "
			 "%s, but the rescore failed after %zu tasks: %.400s",
			 r->job_name, r->mode, rr.done, err.msg);
	else if (res->st != CT_OK)
		snprintf(res->msg, sizeof res->msg, "job %s: mode %s refused: %.400s",
			 r->job_name, r->mode, err.msg);
	else
		snprintf(res->msg, sizeof res->msg, "job %s: mode %s; %s %zu of "
			 "%zu tasks, %zu changed%s", r->job_name, r->mode,
			 rr.cancelled ? "rescore stopped after" : "rescored",
			 rr.done, rr.total, rr.changed, rr.cancelled ?
			 rest_hint(r->mode, rest, sizeof rest) : "");
}

static void run_apply(struct tw *w, struct ct_store *s, struct tw_result *res)
{
	const struct tw_req *r = &w->req;
	struct ct_error err;
	long keys = 0;
	set_what(w, 0, "write settings (after v%d)", r->base_version);
	/* the version and the marks of every job to rescore in one
	 * transaction: the jobs a stop or a failure leaves unreached stay
	 * marked (0030) */
	res->st = ct_store_settings_put_marked(s, r->json, r->base_version,
					       r->action, r->note, r->jobs,
					       (size_t)r->n_jobs,
					       &res->new_version, &keys, &err);
	if (res->st != CT_OK && stopped_by_x(w, s)) {
		res->st = CT_OK;
		res->cancelled = true;
		snprintf(res->msg, sizeof res->msg, "%s stopped; nothing written",
			 strcmp(r->action, "settings.undo") == 0 ? "undo" :
			 "apply");
		return;
	}
	if (res->st != CT_OK) {
		snprintf(res->msg, sizeof res->msg, "%s refused: %s",
			 strcmp(r->action, "settings.undo") == 0 ? "undo" :
			 "apply", err.msg);
		return;
	}
	int failed = 0, stopped = 0;
	char first[300] = "";
	for (int i = 0; i < r->n_jobs && !atomic_load(&w->cancel); i++) {
		struct ct_rescore_result rr;
		set_what(w, i + 1, "settings v%d: rescore job %s",
			 res->new_version, r->job_names[i]);
		if (rescore_one(w, s, r->jobs[i], NULL, &r->settings,
				res->new_version, res, &rr, &err) != CT_OK &&
		    !stopped_by_x(w, s)) {
			if (!failed++)
				tx_copy(first, sizeof first, err.msg);
			res->st = CT_EIO;
		}
		stopped += rr.cancelled;
	}
	if (atomic_load(&w->cancel))
		res->cancelled = true;
	int n = snprintf(res->msg, sizeof res->msg, "settings v%d written "
			 "(%ld key%s changed); %zu tasks of %d job%s rescored, "
			 "%zu changed", res->new_version, keys, keys == 1 ? "" : "s",
			 res->done, r->n_jobs, r->n_jobs == 1 ? "" : "s",
			 res->changed);
	if (res->cancelled && n > 0 && (size_t)n < sizeof res->msg)
		n += snprintf(res->msg + n, sizeof res->msg - n, "; stopped: "
			      "the rest keep their scores until a rescore");
	if (failed && n > 0 && (size_t)n < sizeof res->msg)
		snprintf(res->msg + n, sizeof res->msg - n, "; %d job%s failed: "
			 "%s", failed, failed == 1 ? "" : "s", first);
	(void)stopped;
}

static void *run(void *arg)
{
	struct tw *w = arg;
	struct tw_result *res = calloc(1, sizeof *res);
	struct ct_store *s = NULL;
	struct ct_error err;
	double t0 = mono();
	if (!res)
		goto out;
	res->kind = w->req.kind;
	res->tag = w->req.tag;
	res->job = w->req.job;
	res->st = ct_store_open_as(w->dsn, TUI_APP_NAME, &s, &err);
	if (res->st == CT_OK) {
		char sql[64];
		snprintf(sql, sizeof sql, "SET statement_timeout = %d",
			 w->timeout_ms);
		res->st = ct_store_exec(s, "worker session", sql, &err);
	}
	if (res->st == CT_OK) {
		struct ct_store_canceller *c = ct_store_canceller_new(s);
		pthread_mutex_lock(&w->lock);
		w->canceller = c;
		pthread_mutex_unlock(&w->lock);
	}
	/* a rescore's second connection (a failure to open it leaves one) */
	if (res->st == CT_OK && !atomic_load(&w->cancel) &&
	    (w->req.kind == TW_MODE || w->req.kind == TW_APPLY))
		open_second(w);
	if (res->st != CT_OK) {
		snprintf(res->msg, sizeof res->msg, "%s", err.msg);
	} else if (atomic_load(&w->cancel)) {
		/* x while connecting (a server that does not answer): checked
		 * after the cancellers are in place, so an x from now on
		 * cancels the statements and an earlier one is seen here */
		res->cancelled = true;
		snprintf(res->msg, sizeof res->msg, "stopped before it began; "
			 "nothing changed");
	} else {
		switch (w->req.kind) {
		case TW_PREVIEW: run_preview(w, s, res); break;
		case TW_MODE: run_mode(w, s, res); break;
		case TW_APPLY: run_apply(w, s, res); break;
		case TW_NONE: break;
		}
	}
	pthread_mutex_lock(&w->lock);
	struct ct_store_canceller *c = w->canceller, *c2 = w->canceller2;
	w->canceller = w->canceller2 = NULL;
	pthread_mutex_unlock(&w->lock);
	ct_store_canceller_free(c);
	ct_store_canceller_free(c2);
	ct_store_close(w->x);
	w->x = NULL;
	ct_store_close(s);
	res->secs = mono() - t0;
out:
	pthread_mutex_lock(&w->lock);
	if (res)
		w->res = *res;
	else {
		w->res.kind = w->req.kind;
		w->res.tag = w->req.tag;
		w->res.st = CT_ENOMEM;
		snprintf(w->res.msg, sizeof w->res.msg, "worker: out of memory");
	}
	w->finished = 1;
	pthread_mutex_unlock(&w->lock);
	free(res);
	wake(w);
	return NULL;
}

int tw_start(struct tw *w, const struct tw_req *r, struct ct_error *err)
{
	if (w->started) {
		ct_error_set(err, CT_EINVAL, "%s is running (x stops it)",
			     w->req.kind == TW_PREVIEW ? "a preview" :
			     "a rescore");
		return -1;
	}
	free(w->json);
	w->json = NULL;
	if (r->json && !(w->json = strdup(r->json))) {
		ct_error_set(err, CT_ENOMEM, "out of memory");
		return -1;
	}
	w->req = *r;
	w->req.json = w->json;
	memset(&w->prog, 0, sizeof w->prog);
	w->prog.kind = r->kind;
	w->prog.n_jobs = r->kind == TW_APPLY ? r->n_jobs : 1;
	w->prog.started = mono();
	memset(&w->res, 0, sizeof w->res);
	w->finished = 0;
	atomic_store(&w->cancel, 0);
	int e = pthread_create(&w->thread, NULL, run, w);
	if (e != 0) {
		ct_error_set(err, CT_EIO, "cannot start the worker thread: %s",
			     strerror(e));
		return -1;
	}
	w->started = 1;
	return 0;
}

int tw_poll(struct tw *w, struct tw_progress *p, struct tw_result *res)
{
	char buf[256];
	while (read(w->pipe[0], buf, sizeof buf) > 0)
		;
	if (!w->started) {
		memset(p, 0, sizeof *p);
		return 0;
	}
	pthread_mutex_lock(&w->lock);
	*p = w->prog;
	int done = w->finished;
	if (done && res)
		*res = w->res;
	pthread_mutex_unlock(&w->lock);
	if (!done)
		return 0;
	pthread_join(w->thread, NULL); /* it has only to return */
	w->started = 0;
	memset(p, 0, sizeof *p);
	return 1;
}

void tw_free(struct tw *w, double wait_s)
{
	if (!w)
		return;
	if (w->started) {
		tw_cancel(w);
		double until = mono() + wait_s;
		for (;;) {
			pthread_mutex_lock(&w->lock);
			int done = w->finished;
			pthread_mutex_unlock(&w->lock);
			if (done)
				break;
			if (mono() >= until)
				return; /* still running: keep w for it */
			struct timespec ts = {0, 10 * 1000 * 1000};
			nanosleep(&ts, NULL);
		}
		pthread_join(w->thread, NULL);
	}
	close(w->pipe[0]);
	close(w->pipe[1]);
	pthread_mutex_destroy(&w->lock);
	free(w->json);
	free(w->dsn);
	free(w);
}
