/*
 * tui — the review screen's start, loop and keys. See tui.h.
 *
 * The loop draws, then waits a second for a key. A key is handled; a second
 * without one is a chance to look at the stores' directories, and a change
 * made by anyone else (a sweep, an agent staging a draft, another terminal)
 * is read in, reconciled and drawn. After every action the stores are read
 * again too, through the reconciling pass, so a released draft answers its
 * request on screen the moment it is sent.
 */
#define NCURSES_WIDECHAR 1
#include "tui/tui.h"
#include "tui/app.h"

#include "base/err.h"
#include "base/text.h"
#include "config/home.h"
#include "requests/state.h"

#include <curses.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TICK_MS 1000
#define ESC_DELAY_MS 50

volatile sig_atomic_t app_stop;

/* ---- the message ------------------------------------------------------------------------ */

static void say(struct app *a, enum lines_style st, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

static void say(struct app *a, enum lines_style st, const char *fmt, va_list ap)
{
	char *s;

	if (vasprintf(&s, fmt, ap) < 0)
		abort();
	lines_add(&a->message, st, "", s, strlen(s), 0);
	free(s);
}

void app_say(struct app *a, int bad, const char *fmt, ...)
{
	va_list ap;

	lines_reset(&a->message);
	va_start(ap, fmt);
	say(a, bad ? LINES_WARN : LINES_GOOD, fmt, ap);
	va_end(ap);
}

void app_say_more(struct app *a, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(a, LINES_NORMAL, fmt, ap);
	va_end(ap);
}

void app_busy(struct app *a, const char *fmt, ...)
{
	va_list ap;

	lines_reset(&a->message);
	va_start(ap, fmt);
	say(a, LINES_NOTICE, fmt, ap);
	va_end(ap);
	screen_draw(a);
	refresh();
}

/* What the library wrote on stderr since the last look, as part of the message. */
static void take_stderr(struct app *a)
{
	char *s = capture_take(&a->cap);
	size_t n = s ? strlen(s) : 0;

	while (n > 0 && s[n - 1] == '\n')
		n--;
	if (n)
		lines_add(&a->message, LINES_WARN, "", s, n, TEXT_KEEP_NEWLINES);
	free(s);
}

void app_after(struct app *a)
{
	struct err e;

	if (lists_reload(a, &e) != 0)
		lines_add(&a->message, LINES_WARN, "", e.msg, strlen(e.msg), 0);
	take_stderr(a);
}

/* A reload nobody asked for: what it has to say replaces the message; silence keeps it. */
static void reload_quietly(struct app *a)
{
	struct lines before = a->message;

	a->message = (struct lines)LINES_INIT;
	app_after(a);
	if (a->message.n == 0) {
		lines_free(&a->message);
		a->message = before;
	} else {
		lines_free(&before);
	}
}

/* ---- keys -------------------------------------------------------------------------------- */

static void help(struct app *a)
{
	struct lines l = LINES_INIT;

	detail_help(&l);
	prompt_page(a, " mecha review: keys", &l, "q or Esc goes back", "q?", 0);
	lines_free(&l);
}

static void search(struct app *a)
{
	char *s;

	if (!prompt_line(a, "Search requests and drafts for (Enter alone shows everything; Esc "
			    "keeps the search as it was):", a->search, &s))
		return;
	free(a->search);
	a->search = *s ? s : NULL;
	if (!a->search)
		free(s);
	lists_build(a);
}

/* Keys that move; 1 when ch was one of them. */
static int move_key(struct app *a, int rc, wint_t ch)
{
	int fn = rc == KEY_CODE_YES;
	size_t page = a->detail_h > 1 ? (size_t)a->detail_h - 1 : 1;

	if ((fn && ch == KEY_UP) || (!fn && ch == 'k')) {
		if (a->zoom)
			a->detail_top -= a->detail_top > 0;
		else
			lists_move(a, -1);
	} else if ((fn && ch == KEY_DOWN) || (!fn && ch == 'j')) {
		if (a->zoom)
			a->detail_top++;
		else
			lists_move(a, 1);
	} else if ((fn && ch == KEY_NPAGE) || (!fn && ch == ' ')) {
		a->detail_top += page;
	} else if ((fn && ch == KEY_PPAGE) || (!fn && ch == 'b')) {
		a->detail_top = a->detail_top > page ? a->detail_top - page : 0;
	} else if ((fn && ch == KEY_HOME) || (!fn && ch == 'g')) {
		a->detail_top = 0;
	} else if ((fn && ch == KEY_END) || (!fn && ch == 'G')) {
		a->detail_top = a->detail_rows; /* the draw stops it at the last page */
	} else if ((fn && ch == KEY_ENTER) || (!fn && (ch == '\n' || ch == '\r' || ch == 'z'))) {
		a->zoom = !a->zoom;
	} else {
		return fn && ch == KEY_RESIZE; /* the next draw fits the new size */
	}
	return 1;
}

static void key(struct app *a, int rc, wint_t ch)
{
	if (move_key(a, rc, ch) || rc == KEY_CODE_YES)
		return;
	switch (ch) {
	case 'q': case 3: a->quit = 1; break; /* 3: Ctrl-C, which raw mode delivers as a key */
	case 0x1b: a->zoom = 0; lines_reset(&a->message); break;
	case 12: clearok(curscr, TRUE); break; /* Ctrl-L */
	case '?': help(a); break;
	case '/': search(a); break;
	case 'f': lists_next_filter(a); break;
	case 'h': a->show_resolved = !a->show_resolved; lists_build(a); break;
	case 'a': actions_approve(a); break;
	case 'r': actions_reject(a); break;
	case 'e': actions_edit(a); break;
	case 'c': actions_close(a); break;
	case 'n': actions_needs_info(a); break;
	case 'x': actions_extract(a); break;
	case 't': actions_triage(a); break;
	case 'R': actions_reply(a); break;
	case 'N': actions_ask_back(a); break;
	case 'D': actions_decline(a); break;
	default: break;
	}
}

/* Draws only after something happened: drawing reads the selected request's drafts. */
static void loop(struct app *a)
{
	int dirty = 1;

	while (!a->quit && !app_stop) {
		wint_t ch;
		int rc;
		if (dirty) {
			screen_draw(a);
			refresh();
		}
		rc = get_wch(&ch);
		dirty = rc != ERR;
		if (dirty)
			key(a, rc, ch);
		if (lists_changed(a)) {
			reload_quietly(a);
			dirty = 1;
		}
	}
}

/* ---- start and end ------------------------------------------------------------------------- */

static void on_signal(int sig)
{
	(void)sig;
	app_stop = 1;
}

/* SIGTERM and SIGHUP end the loop (no SA_RESTART: the wait for a key returns). */
static void catch_signals(struct sigaction old[3])
{
	static const int sigs[3] = { SIGTERM, SIGHUP, SIGINT };
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (int i = 0; i < 3; i++)
		sigaction(sigs[i], &sa, &old[i]);
}

static void restore_signals(const struct sigaction old[3])
{
	static const int sigs[3] = { SIGTERM, SIGHUP, SIGINT };

	for (int i = 0; i < 3; i++)
		sigaction(sigs[i], &old[i], NULL);
}

static int app_init(struct app *a, const struct tui_opts *o, struct err *e)
{
	memset(a, 0, sizeof *a);
	if (o->state && !state_known(o->state) && strcmp(o->state, APP_FILTER_WAITING) != 0 &&
	    strcmp(o->state, APP_FILTER_ALL) != 0)
		return err_set(e, ERR_USAGE, "'%s' is not a state, 'waiting' or 'all'", o->state);
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
		return err_set(e, ERR_USAGE, "mecha review needs a terminal; `mecha outbox review` "
			       "reads its answers from standard input");
	snprintf(a->filter, sizeof a->filter, "%s", o->state ? o->state : APP_FILTER_WAITING);
	if (config_load(&a->cfg, e) != 0)
		return -1;
	a->requests_dir = home_default(HOME_REQUESTS, e);
	if (!a->requests_dir) {
		config_free(&a->cfg);
		return -1;
	}
	a->color = text_color_ok(stdout);
	a->teller = o->teller;
	return 0;
}

static void app_free(struct app *a)
{
	lists_free(a);
	lines_free(&a->message);
	free(a->search);
	free(a->requests_dir);
	config_free(&a->cfg);
}

static void curses_setup(struct app *a)
{
	raw();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	curs_set(0);
	set_escdelay(ESC_DELAY_MS);
	timeout(TICK_MS);
	screen_init_colors(a);
}

/*
 * The screen on the person's terminal, or -1 with e: a terminal type terminfo
 * does not know, or one that cannot move its cursor (TERM=dumb), which would
 * get a screen of garbage.
 */
static SCREEN *screen_open(struct err *e)
{
	const char *term = getenv("TERM") ? getenv("TERM") : "";
	SCREEN *sp = newterm(NULL, stdout, stdin);
	char *cup;

	if (!sp) {
		err_set(e, ERR_CONFIG, "the terminal type '%s' is not known here (TERM)", term);
		return NULL;
	}
	set_term(sp);
	cup = tigetstr("cup");
	/* NOLINTNEXTLINE(performance-no-int-to-ptr): (char *)-1 is how tigetstr says absent */
	if (cup && cup != (char *)-1)
		return sp;
	endwin();
	delscreen(sp);
	err_set(e, ERR_CONFIG, "the terminal '%s' cannot place the cursor, which a screen "
		"needs; `mecha outbox review` works on any terminal", term);
	return NULL;
}

int tui_run(const struct tui_opts *o, struct err *e)
{
	struct sigaction old[3];
	struct app a;
	SCREEN *sp;
	int rc = -1;

	if (app_init(&a, o, e) != 0)
		return -1;
	if (capture_start(&a.cap) != 0) {
		app_free(&a);
		return err_errno(e, "cannot set stderr aside for the screen");
	}
	catch_signals(old);
	sp = screen_open(e);
	if (sp) {
		curses_setup(&a);
		app_after(&a); /* the first look, reconciling as it reads */
		lists_select_oldest_stale(&a); /* what has waited too long comes first */
		loop(&a);
		endwin();
		delscreen(sp);
		rc = 0;
	}
	restore_signals(old);
	capture_stop(&a.cap);
	app_free(&a);
	return rc;
}
