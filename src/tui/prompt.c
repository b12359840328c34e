/*
 * prompt — asking the person: a line of text (a reason, a note, a search),
 * one key (y or n), or a whole page to read before a key (the confirmation
 * that shows a draft whole, the help).
 *
 * Esc always cancels and nothing is done; a resize redraws and goes on
 * asking. The question is drawn in the message rows, so a long one wraps
 * rather than running off the edge, and what the person types is drawn
 * through text_safe like everything else.
 */
#define NCURSES_WIDECHAR 1
#include "tui/app.h"

#include "base/text.h"

#include <curses.h>
#include <stdlib.h>
#include <string.h>

#define KEY_ESC 0x1b

/* The screen as it is, with the question where the message goes. */
static void draw_question(struct app *a, const char *question)
{
	struct lines saved = a->message;

	a->message = (struct lines)LINES_INIT;
	lines_add(&a->message, LINES_NOTICE, "", question, strlen(question), 0);
	screen_draw(a);
	lines_free(&a->message);
	a->message = saved;
}

/* The typed text on the bottom row, its end in view; the cursor after it. */
static void draw_typed(const struct buf *typed)
{
	struct buf safe = BUF_INIT;
	size_t off = 0;
	int room = COLS - 3;

	text_safe(&safe, buf_str(typed), typed->len, 0);
	while (room > 0 && lines_width(safe.data + off, safe.len - off) > room) {
		unsigned cp;
		size_t n = text_utf8_decode(safe.data + off, safe.len - off, &cp);
		off += n ? n : 1;
	}
	move(LINES - 1, 0);
	clrtoeol();
	attron(A_BOLD);
	addnstr("> ", COLS);
	attroff(A_BOLD);
	if (room > 0)
		lines_put(buf_str(&safe) + off, safe.len - off, room);
	buf_free(&safe);
}

static void drop_last_char(struct buf *b)
{
	while (b->len > 0 && ((unsigned char)b->data[b->len - 1] & 0xC0) == 0x80)
		b->len--;
	if (b->len > 0)
		b->len--;
	if (b->data)
		b->data[b->len] = '\0';
}

/* One key of a line being typed: 1 when it is finished, 0 to go on; *cancel on Esc. */
static int line_key(struct buf *typed, int rc, wint_t ch, int *cancel)
{
	char utf8[4];

	if (rc == KEY_CODE_YES) {
		if (ch == KEY_BACKSPACE)
			drop_last_char(typed);
		return ch == KEY_ENTER;
	}
	if (ch == KEY_ESC)
		return *cancel = 1;
	if (ch == '\n' || ch == '\r')
		return 1;
	if (ch == 127 || ch == 8)
		drop_last_char(typed);
	else if (ch == 21) /* Ctrl-U */
		buf_reset(typed);
	else if (ch >= 32 && ch <= 0x10FFFF)
		buf_add(typed, utf8, text_utf8_encode((unsigned)ch, utf8));
	return 0;
}

int prompt_line(struct app *a, const char *question, const char *initial, char **out)
{
	struct buf typed = BUF_INIT;
	int cancel = 0, done = 0;

	buf_adds(&typed, initial ? initial : "");
	curs_set(1);
	for (int rc = OK; !done && !app_stop;) {
		wint_t ch;
		if (rc != ERR) { /* a key or a resize: draw again */
			draw_question(a, question);
			draw_typed(&typed);
			refresh();
		}
		rc = get_wch(&ch);
		if (rc != ERR)
			done = line_key(&typed, rc, ch, &cancel);
	}
	curs_set(0);
	if (cancel || app_stop) {
		buf_free(&typed);
		return 0;
	}
	*out = buf_steal(&typed);
	if (!*out)
		*out = xstrdup("");
	return 1;
}

int prompt_key(struct app *a, const char *question, const char *keys)
{
	for (int rc = OK; !app_stop;) {
		wint_t ch;
		if (rc != ERR) {
			draw_question(a, question);
			move(LINES - 1, 0);
			clrtoeol();
			attron(A_DIM);
			addnstr("Esc cancels", COLS);
			attroff(A_DIM);
			refresh();
		}
		rc = get_wch(&ch);
		if (rc == OK && ch == KEY_ESC)
			return PROMPT_CANCEL;
		if (rc == OK && ch > 0 && ch < 128 && strchr(keys, (int)ch))
			return (int)ch;
	}
	return PROMPT_CANCEL;
}

/* ---- a page ------------------------------------------------------------------------------- */

struct page {
	const char *title, *question, *hint;
	size_t top, rows;
	int h;
	int seen_end;
};

static void page_draw(struct app *a, const struct lines *l, struct page *p)
{
	struct lines_wrap w = { NULL, 0, 0 };
	char where[64];

	erase();
	lines_wrap(l, COLS, &w);
	p->h = LINES - 3 > 0 ? LINES - 3 : 0;
	p->rows = w.n;
	if (p->top + (size_t)p->h > w.n)
		p->top = w.n > (size_t)p->h ? w.n - (size_t)p->h : 0;
	if (p->top + (size_t)p->h >= w.n && (p->h > 0 || w.n == 0))
		p->seen_end = 1;
	attron(A_REVERSE);
	mvhline(0, 0, ' ', COLS);
	move(0, 0);
	lines_put_raw(p->title, strlen(p->title), COLS);
	attroff(A_REVERSE);
	screen_rows(a, l, &w, p->top, 1, p->h);
	snprintf(where, sizeof where, " %zu-%zu of %zu ", w.n ? p->top + 1 : 0,
		 p->top + (size_t)p->h < w.n ? p->top + (size_t)p->h : w.n, w.n);
	if (LINES >= 3) {
		mvhline(LINES - 2, 0, ACS_HLINE, COLS);
		if ((int)strlen(where) < COLS)
			mvaddstr(LINES - 2, COLS - (int)strlen(where), where);
	}
	move(LINES - 1, 0);
	clrtoeol();
	attron(A_BOLD);
	lines_put_raw(p->hint ? p->hint : p->question, strlen(p->hint ? p->hint : p->question), COLS);
	attroff(A_BOLD);
	lines_wrap_free(&w);
}

/* Scrolling keys; 1 when ch was one. */
static int page_scroll(struct page *p, int rc, wint_t ch)
{
	size_t step = p->h > 1 ? (size_t)p->h - 1 : 1;

	if (rc == KEY_CODE_YES && ch == KEY_RESIZE)
		return 1;
	if ((rc == KEY_CODE_YES && ch == KEY_DOWN) || (rc == OK && ch == 'j'))
		p->top++;
	else if ((rc == KEY_CODE_YES && ch == KEY_UP) || (rc == OK && ch == 'k'))
		p->top -= p->top > 0;
	else if ((rc == KEY_CODE_YES && ch == KEY_NPAGE) || (rc == OK && ch == ' '))
		p->top += step;
	else if ((rc == KEY_CODE_YES && ch == KEY_PPAGE) || (rc == OK && ch == 'b'))
		p->top = p->top > step ? p->top - step : 0;
	else if ((rc == KEY_CODE_YES && ch == KEY_HOME) || (rc == OK && ch == 'g'))
		p->top = 0;
	else if ((rc == KEY_CODE_YES && ch == KEY_END) || (rc == OK && ch == 'G'))
		p->top = p->rows;
	else
		return 0;
	return 1;
}

int prompt_page(struct app *a, const char *title, const struct lines *l, const char *question,
		const char *keys, int must_read)
{
	struct page p = { title, question, NULL, 0, 0, 0, 0 };

	for (int rc = OK; !app_stop;) {
		wint_t ch;
		if (rc != ERR) {
			page_draw(a, l, &p);
			refresh();
		}
		rc = get_wch(&ch);
		if (rc == ERR || page_scroll(&p, rc, ch))
			continue;
		p.hint = NULL;
		if (rc == OK && ch == KEY_ESC)
			return PROMPT_CANCEL;
		if (rc != OK || ch <= 0 || ch >= 128 || !strchr(keys, (int)ch))
			continue;
		if (must_read && (int)ch == keys[0] && !p.seen_end) {
			p.hint = "Read it to the end first (Space or PgDn): what you approve is what goes.";
			continue;
		}
		return (int)ch;
	}
	return PROMPT_CANCEL;
}
