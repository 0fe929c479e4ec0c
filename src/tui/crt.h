/* crt.h: the terminal (crt.c): curses set-up and teardown, themes, keys,
 * signals. With view.c the only code that includes curses; this header
 * does not, so loop.c stays free of it.
 *
 * The console asks the terminal for bracketed paste (pasted text comes
 * marked, and reaches keys.c as TK_PASTE_BEGIN ... TK_PASTE_END); every
 * way out turns it off again, a suspend (Ctrl-Z) included.
 *
 * Every way out restores the terminal: crt_done() is idempotent and is
 * registered with atexit; signals (SIGINT, SIGTERM, SIGHUP) only set a
 * flag and wake the loop through a self-pipe; crt_die() restores first
 * and then prints. */
#ifndef CT_TUI_CRT_H
#define CT_TUI_CRT_H

#include <stdnoreturn.h>

struct tui;

/* Theme roles: what view.c asks crt_attr for. */
enum crt_role {
	R_NORMAL, R_HEADER, R_TITLE, R_COLHDR, R_SORTCOL, R_SEL, R_LIVE,
	R_PAUSED, R_STALE, R_DOWN, R_DIM, R_ERR, R_GOOD, R_P0, R_P1, R_P2, R_P3,
	R_BAR, R_HEAT1, R_HEAT2, R_HEAT3, R_HEAT4, R_KEY, R_SPARK, R_ROLE_N
};

/* Install the signal handlers and the self-pipe; before crt_init (so that
 * curses leaves SIGWINCH to us). 0, or -1 with errno. */
int crt_signals_install(void);
/* The read end of the self-pipe, for poll(). */
int crt_signal_fd(void);
/* Drain the self-pipe: *quit receives the number of a SIGTERM, SIGHUP or
 * SIGQUIT that came (0: none), *interrupt is 1 after a SIGINT (Ctrl-C),
 * *resize is 1 after a SIGWINCH, *suspend 1 after a SIGTSTP (Ctrl-Z). No
 * signal is lost to another. */
void crt_signals_take(int *quit, int *interrupt, int *resize,
		      int *suspend);
/* Give the terminal back, stop the process (job control), and take the
 * terminal again when it continues; the caller redraws. */
void crt_suspend(void);

/* Start curses on the terminal; t->utf8, t->cols, t->lines are filled.
 * 0, or -1 when there is no usable terminal (message in buf). */
int crt_init(struct tui *t, char *buf, size_t len);
/* End curses (idempotent, safe when never started). */
void crt_done(void);
/* Restore the terminal, print "crawltop: message" and exit(1). */
noreturn void crt_die(const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 1, 2)))
#endif
	;

/* Set up the colours or attributes of a theme (enum tui_theme). Returns
 * the theme in force: monochrome when NO_COLOR is set or the terminal has
 * no colours. */
int crt_theme(int theme);
/* 1 when colour is impossible or forbidden (NO_COLOR, no colours). */
int crt_mono_forced(void);
/* The attribute of a role, as curses' attr_t (view.c casts it). */
unsigned long crt_attr(enum crt_role r);

/* The terminal changed size: ask the kernel, tell curses, update t. */
void crt_resize(struct tui *t);
/* The next key (a character or TK_*), or -1 when none is waiting. */
int crt_getkey(void);

#endif
