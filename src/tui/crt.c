/* crt.c: the terminal under curses (crt.h). */
#ifndef _XOPEN_SOURCE_EXTENDED
#define _XOPEN_SOURCE_EXTENDED 1
#endif
#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include <ncursesw/curses.h>

#include "app.h"
#include "crt.h"
#include "text.h"

static int active;               /* curses is running */
static SCREEN *screen;           /* from newterm, freed by crt_done */
static int sig_pipe[2] = {-1, -1};
/* One flag per signal, so that none is lost to another arriving before
 * the loop takes them: SIGINT apart (a prompt takes it as Ctrl-C). */
static volatile sig_atomic_t got_int, got_term, got_hup, got_quitsig,
	got_winch, got_tstp;
static attr_t role_attr[R_ROLE_N];
static int mono_forced;

/* Signal handlers only set a flag and wake the loop. */
static void on_signal(int sig)
{
	int saved = errno;
	switch (sig) {
	case SIGWINCH: got_winch = 1; break;
	case SIGINT: got_int = 1; break;
	case SIGTERM: got_term = 1; break;
	case SIGHUP: got_hup = 1; break;
	case SIGTSTP: got_tstp = 1; break;
	default: got_quitsig = 1; break; /* SIGQUIT */
	}
	if (sig_pipe[1] >= 0) {
		char c = 0;
		ssize_t w = write(sig_pipe[1], &c, 1);
		(void)w; /* a full pipe already wakes the loop */
	}
	errno = saved;
}

#if defined(__SANITIZE_ADDRESS__)
#define CRT_CRASH_HANDLERS 0 /* ASan reports crashes itself */
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CRT_CRASH_HANDLERS 0
#endif
#endif
#ifndef CRT_CRASH_HANDLERS
#define CRT_CRASH_HANDLERS 1
#endif

/* The key codes of a bracketed paste's marks (define_key binds them to
 * ESC [ 200 ~ and ESC [ 201 ~): beyond every code curses has. */
#define KEY_PASTE_BEGIN (KEY_MAX + 1)
#define KEY_PASTE_END (KEY_MAX + 2)
/* How long (ms) curses waits for the rest of an escape sequence: short
 * for the Esc key, longer inside a paste, where a slow link may split
 * the end mark and no Esc key is waited for. */
#define ESCDELAY_KEYS 25
#define ESCDELAY_PASTE 1000

/* Ask the terminal to mark pastes (on 1) or to stop (on 0). Pasted text
 * then comes between ESC [ 200 ~ and ESC [ 201 ~, so that keys.c takes
 * it as text, never as keys. write() itself: this runs in the crash
 * handler too, and after endwin() has flushed curses' output. A
 * terminal without the mode ignores the sequence. */
static void paste_mode(int on)
{
	static const char on_seq[] = "\033[?2004h", off_seq[] = "\033[?2004l";
	ssize_t w = write(STDOUT_FILENO, on ? on_seq : off_seq,
			  sizeof on_seq - 1);
	(void)w; /* nothing better to do on a terminal that is gone */
}

/* A crash: give the terminal back, then die of the same signal. Not
 * async-signal-safe (endwin), as in htop: the process is lost anyway and a
 * usable shell matters more. */
static void on_crash(int sig)
{
	if (active) {
		endwin();
		paste_mode(0);
		active = 0;
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

int crt_signals_install(void)
{
	if (pipe(sig_pipe) != 0)
		return -1;
	for (int i = 0; i < 2; i++) {
		fcntl(sig_pipe[i], F_SETFL, fcntl(sig_pipe[i], F_GETFL) | O_NONBLOCK);
		fcntl(sig_pipe[i], F_SETFD, FD_CLOEXEC);
	}
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGWINCH};
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		if (sigaction(sigs[i], &sa, NULL) != 0)
			return -1;
	/* SIGTSTP (Ctrl-Z) too, then curses leaves it to us (crt_suspend);
	 * as curses does, not when it is ignored (no job control) */
	struct sigaction tstp;
	if (sigaction(SIGTSTP, NULL, &tstp) == 0 && tstp.sa_handler == SIG_DFL &&
	    sigaction(SIGTSTP, &sa, NULL) != 0)
		return -1;
	signal(SIGPIPE, SIG_IGN);
	if (CRT_CRASH_HANDLERS) {
		/* on a stack of its own, so that a stack overflow (SIGSEGV
		 * with no stack left) still gives the terminal back; the
		 * main thread's, where curses runs */
		static char alt[64 * 1024];
		stack_t ss = {.ss_sp = alt, .ss_size = sizeof alt};
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_crash;
		sigemptyset(&sa.sa_mask);
		sa.sa_flags = sigaltstack(&ss, NULL) == 0 ? SA_ONSTACK : 0;
		int crash[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
		for (size_t i = 0; i < sizeof crash / sizeof crash[0]; i++)
			sigaction(crash[i], &sa, NULL);
	}
	return 0;
}

int crt_signal_fd(void)
{
	return sig_pipe[0];
}

void crt_signals_take(int *quit, int *interrupt, int *resize,
		      int *suspend)
{
	char buf[64];
	while (read(sig_pipe[0], buf, sizeof buf) > 0)
		;
	/* each flag is read, then cleared: a second delivery of the same
	 * signal in between is the same request */
	*quit = 0;
	if (got_quitsig) {
		got_quitsig = 0;
		*quit = SIGQUIT;
	}
	if (got_hup) {
		got_hup = 0;
		*quit = SIGHUP;
	}
	if (got_term) {
		got_term = 0;
		*quit = SIGTERM;
	}
	*interrupt = got_int != 0;
	got_int = 0;
	*resize = got_winch != 0;
	got_winch = 0;
	*suspend = got_tstp != 0;
	got_tstp = 0;
}

/* Ctrl-Z: the terminal as the shell had it (without bracketed paste),
 * stop; on fg, the console's modes again. The shell may have changed
 * the paste mode meanwhile (readline turns it off before it runs fg).
 * Not in the signal handler: the loop calls this when it takes the
 * signal, and redraws the whole screen after it. */
void crt_suspend(void)
{
	if (!active)
		return;
	endwin();
	paste_mode(0);
	struct sigaction dfl, ours;
	memset(&dfl, 0, sizeof dfl);
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	sigaction(SIGTSTP, &dfl, &ours);
	sigset_t tstp, old;
	sigemptyset(&tstp);
	sigaddset(&tstp, SIGTSTP);
	pthread_sigmask(SIG_UNBLOCK, &tstp, &old);
	kill(getpid(), SIGTSTP); /* stops here until SIGCONT */
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	sigaction(SIGTSTP, &ours, NULL);
	paste_mode(1);
	clearok(curscr, TRUE);
	refresh(); /* the program's terminal modes, and the screen */
}

void crt_done(void)
{
	if (!active)
		return;
	active = 0;
	curs_set(1);
	endwin();
	paste_mode(0);
	if (screen) {
		delscreen(screen);
		screen = NULL;
	}
}

noreturn void crt_die(const char *fmt, ...)
{
	crt_done();
	va_list ap;
	fprintf(stderr, "crawltop: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

int crt_mono_forced(void)
{
	return mono_forced;
}

/* A colour pair's attribute; pairs are numbered by role. */
static attr_t pair(enum crt_role r, short fg, short bg, attr_t extra)
{
	init_pair((short)r, fg, bg);
	return COLOR_PAIR(r) | extra;
}

int crt_theme(int theme)
{
	if (mono_forced)
		theme = TUI_THEME_MONO;
	for (int i = 0; i < R_ROLE_N; i++)
		role_attr[i] = A_NORMAL;
	if (theme == TUI_THEME_MONO) {
		role_attr[R_HEADER] = A_REVERSE;
		role_attr[R_TITLE] = A_BOLD;
		role_attr[R_COLHDR] = A_UNDERLINE;
		role_attr[R_SORTCOL] = A_UNDERLINE | A_BOLD;
		role_attr[R_SEL] = A_REVERSE;
		role_attr[R_LIVE] = A_BOLD;
		role_attr[R_PAUSED] = A_BOLD | A_REVERSE;
		role_attr[R_STALE] = A_BOLD | A_REVERSE;
		role_attr[R_DOWN] = A_BOLD | A_REVERSE;
		role_attr[R_DIM] = A_DIM;
		role_attr[R_ERR] = A_BOLD;
		role_attr[R_P0] = A_BOLD;
		role_attr[R_HEAT1] = A_DIM;
		role_attr[R_HEAT3] = A_BOLD;
		role_attr[R_HEAT4] = A_REVERSE;
		role_attr[R_KEY] = A_REVERSE;
		return TUI_THEME_MONO;
	}
	short bg = -1;
	role_attr[R_HEADER] = pair(R_HEADER, COLOR_WHITE, COLOR_BLUE, A_BOLD);
	role_attr[R_TITLE] = pair(R_TITLE, COLOR_CYAN, bg, A_BOLD);
	role_attr[R_COLHDR] = pair(R_COLHDR, COLOR_BLACK, COLOR_GREEN, 0);
	role_attr[R_SORTCOL] = pair(R_SORTCOL, COLOR_BLACK, COLOR_CYAN, A_BOLD);
	role_attr[R_SEL] = pair(R_SEL, COLOR_BLACK, COLOR_CYAN, 0);
	role_attr[R_LIVE] = pair(R_LIVE, COLOR_GREEN, bg, A_BOLD);
	role_attr[R_PAUSED] = pair(R_PAUSED, COLOR_BLACK, COLOR_YELLOW, A_BOLD);
	role_attr[R_STALE] = pair(R_STALE, COLOR_BLACK, COLOR_YELLOW, A_BOLD);
	role_attr[R_DOWN] = pair(R_DOWN, COLOR_WHITE, COLOR_RED, A_BOLD);
	role_attr[R_DIM] = A_DIM;
	role_attr[R_ERR] = pair(R_ERR, COLOR_RED, bg, A_BOLD);
	role_attr[R_GOOD] = pair(R_GOOD, COLOR_GREEN, bg, 0);
	role_attr[R_P0] = pair(R_P0, COLOR_RED, bg, A_BOLD);
	role_attr[R_P1] = pair(R_P1, COLOR_YELLOW, bg, 0);
	role_attr[R_P2] = pair(R_P2, COLOR_GREEN, bg, 0);
	role_attr[R_P3] = pair(R_P3, COLOR_CYAN, bg, 0);
	role_attr[R_BAR] = pair(R_BAR, COLOR_CYAN, bg, 0);
	role_attr[R_HEAT1] = pair(R_HEAT1, COLOR_WHITE, COLOR_BLUE, 0);
	role_attr[R_HEAT2] = pair(R_HEAT2, COLOR_BLACK, COLOR_CYAN, 0);
	role_attr[R_HEAT3] = pair(R_HEAT3, COLOR_BLACK, COLOR_YELLOW, 0);
	role_attr[R_HEAT4] = pair(R_HEAT4, COLOR_WHITE, COLOR_RED, A_BOLD);
	role_attr[R_KEY] = pair(R_KEY, COLOR_BLACK, COLOR_CYAN, 0);
	role_attr[R_SPARK] = pair(R_SPARK, COLOR_GREEN, bg, 0);
	return TUI_THEME_COLOR;
}

unsigned long crt_attr(enum crt_role r)
{
	return (unsigned)r < R_ROLE_N ? role_attr[r] : A_NORMAL;
}

/* Ctrl-S and Ctrl-Q reach the console as keys instead of stopping and
 * starting the terminal's output (IXON): a stray Ctrl-S froze the screen
 * until Ctrl-Q, and the console looked hung. cbreak() keeps IXON; raw()
 * would also take Ctrl-C and Ctrl-Z from the terminal. def_prog_mode()
 * makes curses keep the change (after a resume, say); endwin() gives the
 * shell's modes back, IXON included.
 * NOFLSH: the keys typed just before a Ctrl-C stay in the input for the
 * console to read before it handles the SIGINT (loop.c); without it the
 * terminal throws them away ("C" then Ctrl-C would quit instead of
 * opening the question and abandoning it). */
static void no_flow_control(void)
{
	struct termios tio;
	if (tcgetattr(STDIN_FILENO, &tio) != 0)
		return;
	tio.c_iflag &= ~(tcflag_t)(IXON | IXOFF);
	tio.c_lflag |= NOFLSH;
	if (tcsetattr(STDIN_FILENO, TCSANOW, &tio) == 0)
		def_prog_mode();
}

int crt_init(struct tui *t, char *buf, size_t len)
{
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		snprintf(buf, len, "the console needs a terminal (use "
			 "'crawltop top -b' for text output)");
		return -1;
	}
	t->utf8 = tx_utf8_locale();
	const char *nc = getenv("NO_COLOR");
	if (!(screen = newterm(NULL, stdout, stdin))) {
		snprintf(buf, len, "cannot use terminal type '%s'",
			 getenv("TERM") ? getenv("TERM") : "(unset)");
		return -1;
	}
	/* a terminal that cannot move the cursor (TERM=dumb) would show the
	 * last line only, and leave it where the shell then writes */
	const char *cup = tigetstr("cup");
	if (!cup || cup == (const char *)-1) {
		endwin();
		delscreen(screen);
		screen = NULL;
		snprintf(buf, len, "terminal type '%s' cannot move the cursor: "
			 "the console needs one that can (use 'crawltop top -b' "
			 "for text output)", getenv("TERM") ? getenv("TERM") : "(unset)");
		return -1;
	}
	active = 1;
	cbreak();
	noecho();
	nonl();
	no_flow_control();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	set_escdelay(ESCDELAY_KEYS);
	define_key("\033[200~", KEY_PASTE_BEGIN);
	define_key("\033[201~", KEY_PASTE_END);
	paste_mode(1);
	curs_set(0);
	mono_forced = (nc && *nc) || !has_colors();
	t->mono_forced = mono_forced ? (nc && *nc ? 1 : 2) : 0;
	if (!mono_forced) {
		start_color();
		use_default_colors();
	}
	crt_theme(t->prefs.theme);
	t->cols = COLS;
	t->lines = LINES;
	return 0;
}

void crt_resize(struct tui *t)
{
	struct winsize ws;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 &&
	    ws.ws_col > 0)
		resizeterm(ws.ws_row, ws.ws_col);
	t->cols = COLS;
	t->lines = LINES;
	clearok(curscr, TRUE);
}

int crt_getkey(void)
{
	wint_t ch;
	int r = wget_wch(stdscr, &ch);
	if (r == ERR)
		return -1;
	if (r == KEY_CODE_YES) {
		switch (ch) {
		case KEY_UP: return TK_UP;
		case KEY_DOWN: return TK_DOWN;
		case KEY_LEFT: return TK_LEFT;
		case KEY_RIGHT: return TK_RIGHT;
		case KEY_PPAGE: return TK_PGUP;
		case KEY_NPAGE: return TK_PGDN;
		case KEY_HOME: return TK_HOME;
		case KEY_END: return TK_END;
		case KEY_ENTER: return TK_ENTER;
		case KEY_BACKSPACE: return TK_BACKSPACE;
		case KEY_DC: return TK_DEL;
		case KEY_F(1): return TK_F1;
		case KEY_F(7): return TK_F7;
		case KEY_F(8): return TK_F8;
		case KEY_RESIZE: return TK_RESIZE;
		case KEY_BTAB: return TK_BTAB;
		case KEY_PASTE_BEGIN:
			set_escdelay(ESCDELAY_PASTE);
			return TK_PASTE_BEGIN;
		case KEY_PASTE_END:
			set_escdelay(ESCDELAY_KEYS);
			return TK_PASTE_END;
		default: return 0; /* a key we do not bind */
		}
	}
	switch (ch) {
	case '\r': case '\n': return TK_ENTER;
	case 27: return TK_ESC;
	case 127: case 8: return TK_BACKSPACE;
	case '\t': return TK_TAB;
	default: return (int)ch;
	}
}
