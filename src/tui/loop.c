/* loop.c: the console's one event loop (tui.h: tui_run).
 *
 * poll() waits on four things at once: the keyboard, the signal
 * self-pipe (quit, resize), the database socket and the worker thread's
 * pipe (work.h: rescores and previews report there), with a timeout that
 * is the next timer (refresh, reconnect, the header's clock). Nothing else
 * blocks: keys are read and answered as soon as they arrive, whatever the
 * database or the worker is doing.
 *
 * CRAWLTOP_KEYLOG=FILE (for the benchmark, tests/bench/bench_console.sh)
 * appends one line per key: the key code, when it was read and when the
 * frame that answers it was flushed to the terminal, in monotonic and in
 * wall-clock seconds ("KEY RECV FLUSH RECV_REAL FLUSH_REAL"). */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "app.h"
#include "crt.h"
#include "text.h"
#include "view.h"

struct tui *tui_new(const struct tui_opts *o, int use_prefs)
{
	struct tui *t = calloc(1, sizeof *t);
	if (!t)
		return NULL;
	t->opts = *o;
	if (t->opts.statement_timeout_ms <= 0)
		t->opts.statement_timeout_ms = 5000;
	tm_init(&t->model);
	tui_prefs_default(&t->prefs);
	tui_prefs_path(o->config_path, t->prefs_path, sizeof t->prefs_path);
	struct ct_error err;
	if (use_prefs && t->prefs_path[0] &&
	    tui_prefs_load(t->prefs_path, &t->prefs, &err) != 0)
		tui_msg(t, 1, "%s (line ignored)", err.msg);
	if (o->interval > 0)
		t->prefs.interval = o->interval;
	t->resolve_job = o->job && *o->job;
	t->next_limit = 6;
	return t;
}

/* Keys read and not yet answered on the screen (CRAWLTOP_KEYLOG). */
#define KEYLOG_MAX 64
struct keylog {
	int n;
	int key[KEYLOG_MAX];
	double mono[KEYLOG_MAX], real[KEYLOG_MAX];
};

static double real_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void keylog_key(struct tui *t, struct keylog *kl, int key, double now)
{
	if (!t->keylog || kl->n == KEYLOG_MAX)
		return;
	kl->key[kl->n] = key;
	kl->mono[kl->n] = now;
	kl->real[kl->n++] = real_now();
}

/* A frame was flushed: it answers every key logged before it. */
static void keylog_flush(struct tui *t, struct keylog *kl)
{
	if (!t->keylog || !kl->n)
		return;
	double m = tui_now(), r = real_now();
	for (int i = 0; i < kl->n; i++)
		fprintf(t->keylog, "%d %.6f %.6f %.6f %.6f\n", kl->key[i],
			kl->mono[i], m, kl->real[i], r);
	fflush(t->keylog);
	kl->n = 0;
}

/* Save the console's settings; a failure is shown, never fatal. */
static void save_prefs(struct tui *t)
{
	struct ct_error err;
	if (t->prefs_path[0] && tui_prefs_save(t->prefs_path, &t->prefs, &err) != 0)
		tui_msg(t, 1, "settings not saved: %s", err.msg);
}

int tui_run(const struct tui_opts *o)
{
	tx_locale();
	struct tui *t = tui_new(o, 1);
	if (!t) {
		fprintf(stderr, "crawltop: out of memory\n");
		return 1;
	}
	struct ct_error err;
	char why[256];
	if (crt_signals_install() != 0) {
		fprintf(stderr, "crawltop: signals: %s\n", strerror(errno));
		tui_free(t);
		return 1;
	}
	if (tf_start(t, &err) != 0) {
		fprintf(stderr, "crawltop: %s\n", err.msg);
		tui_free(t);
		return 1;
	}
	/* rescores and previews run there; queries bounded, but longer */
	t->work = tw_new(o->dsn, t->opts.statement_timeout_ms > 60000 ?
			 t->opts.statement_timeout_ms : 60000);
	const char *klp = getenv("CRAWLTOP_KEYLOG");
	if (klp && *klp && !(t->keylog = fopen(klp, "a")))
		tui_msg(t, 1, "CRAWLTOP_KEYLOG %s: %s", klp, strerror(errno));
	if (crt_init(t, why, sizeof why) != 0) {
		fprintf(stderr, "crawltop: %s\n", why);
		tf_stop(t);
		tui_free(t);
		return 1;
	}
	atexit(crt_done);

	int status = 0, flags = TUI_REDRAW;
	double last_draw = 0;
	struct keylog kl = {0};
	for (;;) {
		double now = tui_now();
		if (flags & TUI_REFRESH)
			tf_refresh_now(t, now);
		if (flags & TUI_SAVE) {
			save_prefs(t);
			crt_theme(t->prefs.theme);
		}
		/* redraw on demand, and each second for the clock and ages */
		if ((flags & TUI_REDRAW) || now - last_draw >= 1.0) {
			view_draw(t, now);
			keylog_flush(t, &kl);
			last_draw = now;
		}
		flags = 0;

		struct pollfd pfd[4] = {
			{.fd = STDIN_FILENO, .events = POLLIN},
			{.fd = crt_signal_fd(), .events = POLLIN},
			{.fd = tw_fd(t->work), .events = POLLIN},
			{.fd = -1},
		};
		pfd[3].fd = tf_pollfd(t, &pfd[3].events);
		double until = tf_deadline(t, now);
		if (until > last_draw + 1.0)
			until = last_draw + 1.0;
		int ms = (int)ceil((until - now) * 1e3);
		if (ms < 0)
			ms = 0;
		int n = poll(pfd, pfd[3].fd >= 0 ? 4 : 3, ms);
		if (n < 0 && errno != EINTR)
			crt_die("poll: %s", strerror(errno));
		now = tui_now();

		int quit = 0, interrupt = 0, resize = 0, suspend = 0;
		if (n > 0 && pfd[1].revents)
			crt_signals_take(&quit, &interrupt, &resize, &suspend);
		/* back from a suspend, the terminal may have another size */
		if (suspend) {
			crt_suspend();
			now = tui_now();
			resize = 1;
		}
		if (resize) {
			crt_resize(t);
			flags |= TUI_REDRAW;
		}
		if (quit) {
			status = 128 + quit;
			break;
		}
		/* the keys typed before a Ctrl-C come first: "C" then Ctrl-C
		 * opens the question and abandons it, as when they come
		 * apart (the signal can arrive in the same poll as they) */
		int hup = 0;
		if (interrupt ||
		    (n > 0 && (pfd[0].revents & (POLLIN | POLLHUP | POLLERR)))) {
			int k;
			while (!(flags & TUI_QUIT) && (k = crt_getkey()) != -1) {
				keylog_key(t, &kl, k, now);
				flags |= tui_key(t, k);
			}
			/* the terminal went away. A hung-up tty reports
			 * POLLHUP together with POLLIN (a read gives 0) on
			 * every poll: without a SIGHUP (setsid, a supervisor
			 * that blocks it) the loop would spin */
			hup = n > 0 && (pfd[0].revents & (POLLHUP | POLLERR));
		}
		/* Ctrl-C reaches us as SIGINT (the terminal keeps its signal
		 * keys, so that Ctrl-Z and Ctrl-\ work): keys.c says what it
		 * does in the mode the keys left (tui_interrupt) */
		if (interrupt && !(flags & TUI_QUIT))
			flags |= tui_interrupt(t);
		if (flags & TUI_QUIT) {
			status = t->quit_status;
			break;
		}
		if (hup) {
			/* as if hung up: 129, never a normal quit's 0 */
			status = 128 + SIGHUP;
			break;
		}
		if (n > 0 && pfd[2].fd >= 0 && (pfd[2].revents & POLLIN))
			flags |= tui_work_poll(t);
		flags |= tf_step(t, n > 0 && pfd[3].fd >= 0 ? pfd[3].revents : 0,
				 now);
	}
	crt_done();
	tf_stop(t);
	tui_free(t);
	return status;
}
