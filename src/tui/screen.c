/*
 * screen — where things go and how they look: a status line with counts,
 * the list, a divider naming what the detail pane shows, the pane, the
 * message (the outcome of the last action, as many rows as it needs) and a
 * key legend.
 *
 * Every size works: below 80×24 the list and the pane shrink and the legend
 * keeps the keys that fit, and a terminal too small for a list says so
 * rather than drawing past its edges. Colour is used only when the terminal
 * has it and text_color_ok's rule allows it (NO_COLOR); without it, bold and
 * reverse video carry the same meaning.
 */
#define NCURSES_WIDECHAR 1
#include "tui/app.h"

#include "base/jsonio.h"
#include "base/text.h"
#include "requests/state.h"

#include <curses.h>
#include <stdio.h>
#include <string.h>

#define MIN_ROWS 6
#define MIN_COLS 16

enum { PAIR_YELLOW = 1, PAIR_RED, PAIR_MAGENTA, PAIR_GREEN };

void screen_init_colors(struct app *a)
{
	a->color = a->color && has_colors();
	if (!a->color)
		return;
	start_color();
	use_default_colors();
	init_pair(PAIR_YELLOW, COLOR_YELLOW, -1);
	init_pair(PAIR_RED, COLOR_RED, -1);
	init_pair(PAIR_MAGENTA, COLOR_MAGENTA, -1);
	init_pair(PAIR_GREEN, COLOR_GREEN, -1);
}

/* The attributes of a style, colour only when a->color. */
static int screen_attr(const struct app *a, enum lines_style st)
{
	int c = a->color;

	switch (st) {
	case LINES_HEADING: return A_BOLD;
	case LINES_DIM: return A_DIM;
	case LINES_WARN: return A_BOLD | (c ? COLOR_PAIR(PAIR_RED) : 0);
	case LINES_NOTICE: return c ? COLOR_PAIR(PAIR_YELLOW) : A_NORMAL;
	case LINES_FLAG: return c ? COLOR_PAIR(PAIR_MAGENTA) : A_BOLD;
	case LINES_DEL: return c ? COLOR_PAIR(PAIR_RED) : A_NORMAL;
	case LINES_ADD: return c ? COLOR_PAIR(PAIR_GREEN) : A_NORMAL;
	case LINES_GOOD: return c ? COLOR_PAIR(PAIR_GREEN) : A_NORMAL;
	case LINES_NORMAL: break;
	}
	return A_NORMAL;
}

/* ---- cells ------------------------------------------------------------------------------ */

/* Raw text made safe, clipped or padded to exactly width columns, in attr. */
static int cell(const char *s, int width, int attr)
{
	int used;

	if (width <= 0)
		return 0;
	attron(attr);
	used = lines_put_raw(s, s ? strlen(s) : 0, width);
	for (; used < width; used++)
		addch(' ');
	attroff(attr);
	return width;
}

/* Raw text made safe after the cursor, as much as fits before the right edge. */
static void tail(const char *s, int attr)
{
	int y, x;

	getyx(stdscr, y, x);
	(void)y;
	if (x >= COLS)
		return;
	attron(attr);
	lines_put_raw(s, s ? strlen(s) : 0, COLS - x);
	attroff(attr);
}

/* ---- the status line ---------------------------------------------------------------------- */

static void status_line(const struct app *a)
{
	char line[512];
	size_t n = 0, per[16] = { 0 }, invalid = 0;

	_Static_assert(sizeof per / sizeof per[0] >= 9, "a count for every row of the state table");
	for (size_t i = 0; i < a->nrecords; i++) {
		const struct state_row *row = state_row(record_state(&a->records[i]));
		if (!row || !lists_waiting(&a->records[i]))
			continue;
		if (row->flags & STATE_COUNTED)
			per[row - state_table]++;
		else
			invalid += (row->flags & STATE_INVALID_WAITS) != 0;
	}
	n += (size_t)snprintf(line, sizeof line, " mecha review | %zu waiting on you, %zu draft%s pending |",
			      a->counts[0], a->counts[1], a->counts[1] == 1 ? "" : "s");
	for (size_t k = 0; k < state_nrows && n < sizeof line; k++)
		if (per[k])
			n += (size_t)snprintf(line + n, sizeof line - n, " %s %zu",
					      state_table[k].name, per[k]);
	if (invalid && n < sizeof line)
		snprintf(line + n, sizeof line - n, " invalid %zu", invalid);
	move(0, 0);
	attron(A_REVERSE);
	cell(line, COLS, A_REVERSE);
	attroff(A_REVERSE);
}

/* ---- the list -------------------------------------------------------------------------------- */

static void header_row(const struct app *a, size_t which)
{
	char line[256];
	size_t shown = 0;

	for (size_t i = 0; i < a->nentries; i++)
		shown += a->entries[i].kind == (which == 0 ? ENTRY_REQUEST : ENTRY_DRAFT);
	if (which == 0)
		snprintf(line, sizeof line, "requests: %s, %zu of %zu", a->filter, shown,
			 a->counts[2]);
	else
		snprintf(line, sizeof line, "drafts: %s, %zu of %zu",
			 a->show_resolved ? "all" : "pending", shown, a->counts[3]);
	cell(line, (int)strlen(line), A_BOLD | A_UNDERLINE);
	if (a->search && *a->search) {
		tail("  search: ", A_BOLD);
		tail(a->search, A_BOLD);
	}
}

/* What the row says after the state: the slot of a booking, else the topic, else why it failed. */
static const char *request_gist(const struct record *r)
{
	json_t *x = record_extraction(r);
	const char *slot = jsonio_str(record_values(r), "_slot_start");

	if (state_has(record_state(r), STATE_SHOWS_SLOT) && slot)
		return slot;
	if (x && jsonio_str(x, "topic") && *jsonio_str(x, "topic"))
		return jsonio_str(x, "topic");
	if (jsonio_str(r->doc, "extraction_error"))
		return jsonio_str(r->doc, "extraction_error");
	return record_note(r) ? record_note(r) : "";
}

static int state_attr(const struct app *a, const char *state)
{
	/* The state table's attributes (requests/state.h), as `frontdoor list` reads them. */
	if (state_has(state, STATE_FAILED))
		return screen_attr(a, LINES_WARN);
	if (state_has(state, STATE_NOTICE))
		return screen_attr(a, LINES_NOTICE);
	if (state_has(state, STATE_DIMMED))
		return A_DIM;
	return A_NORMAL;
}

static void request_row(const struct app *a, const struct record *r, int sel)
{
	json_t *x = record_extraction(r);
	const char *end = jsonio_str(record_values(r), "_slot_end");
	const char *pending[8];
	size_t np = lists_pending_of(a, r, pending, 8);
	char seq[24];

	snprintf(seq, sizeof seq, "%6lld ", r->seq);
	cell(seq, 7, sel);
	if (COLS >= 60) /* narrower, the type gives its room to the state and the gist */
		cell(r->type_id, 11, sel);
	cell(record_state(r), COLS >= 60 ? 18 : 12, sel | state_attr(a, record_state(r)));
	if (!record_valid(r))
		tail("INVALID ", sel | screen_attr(a, LINES_WARN));
	if (x && json_is_true(json_object_get(x, "reads_like_instructions")))
		tail("instructions? ", sel | screen_attr(a, LINES_FLAG));
	if (np)
		tail(np == 1 ? "1 draft " : "drafts ", sel | screen_attr(a, LINES_NOTICE));
	tail(request_gist(r), sel);
	if (state_has(record_state(r), STATE_SHOWS_SLOT) && end) {
		tail(" → ", sel);
		tail(end, sel);
	}
}

static void draft_row(const struct app *a, const struct outbox_item *it, int sel)
{
	int pending = outbox_item_pending(it);

	cell(" ", 1, sel);
	cell(it->id, 25, sel);
	cell(it->status, 9, sel | (pending ? screen_attr(a, LINES_NOTICE) : (int)A_DIM));
	if (outbox_item_tainted(it))
		tail("TAINTED ", sel | screen_attr(a, LINES_WARN));
	if (it->sending_since || (pending && it->error))
		tail(it->sending_since ? "IN FLIGHT " : "ERROR ", sel | screen_attr(a, LINES_WARN));
	tail(it->summary[0] ? it->summary : it->tool, sel);
}

/* Scrolls the list so the cursor shows, with its section's title when there is room. */
static void follow_cursor(struct app *a, int h)
{
	size_t top = a->list_top;

	if (top + (size_t)h > a->nentries) /* room to spare (a bigger terminal, a shorter list) */
		top = a->nentries > (size_t)h ? a->nentries - (size_t)h : 0;

	if (a->cursor < top)
		top = a->cursor > 0 && a->entries[a->cursor - 1].kind == ENTRY_HEADER ? a->cursor - 1
											 : a->cursor;
	if (a->cursor >= top + (size_t)h)
		top = a->cursor - (size_t)h + 1;
	a->list_top = top;
}

static void draw_list(struct app *a, int y, int h)
{
	follow_cursor(a, h);
	for (int k = 0; k < h; k++) {
		size_t i = a->list_top + (size_t)k;
		int sel = i == a->cursor ? A_REVERSE : 0;
		move(y + k, 0);
		clrtoeol();
		if (i >= a->nentries)
			continue;
		if (a->entries[i].kind == ENTRY_HEADER)
			header_row(a, a->entries[i].index);
		else if (a->entries[i].kind == ENTRY_REQUEST)
			request_row(a, &a->records[a->entries[i].index], sel);
		else
			draft_row(a, &a->drafts.items[a->entries[i].index], sel);
		if (sel) { /* the whole row, so the selection reads across */
			int cy, cx;
			getyx(stdscr, cy, cx);
			(void)cy;
			if (cx < COLS)
				mvchgat(y + k, cx, -1, A_REVERSE, 0, NULL);
		}
	}
}

/* ---- the divider and the pane ------------------------------------------------------------------ */

static void divider(const struct app *a, int y, size_t top, size_t rows, int h)
{
	char title[96], where[64];
	const struct record *r = lists_request(a);
	const struct outbox_item *it = lists_draft(a);

	if (r)
		snprintf(title, sizeof title, " request %lld ", r->seq);
	else
		snprintf(title, sizeof title, " %s ", it ? "draft" : "help");
	snprintf(where, sizeof where, " %zu-%zu of %zu ", rows ? top + 1 : 0,
		 top + (size_t)h < rows ? top + (size_t)h : rows, rows);
	mvhline(y, 0, ACS_HLINE, COLS);
	move(y, 2 < COLS ? 2 : 0);
	tail(title, A_BOLD);
	if (it) {
		tail(it->id, A_BOLD);
		tail(" ", A_BOLD);
	}
	if ((int)strlen(where) + 2 < COLS - getcurx(stdscr))
		mvaddstr(y, COLS - (int)strlen(where) - 2, where);
}

size_t screen_rows(const struct app *a, const struct lines *l, const struct lines_wrap *w,
		   size_t top, int y, int h)
{
	for (int k = 0; k < h; k++) {
		size_t i = top + (size_t)k;
		move(y + k, 0);
		clrtoeol();
		if (i >= w->n)
			continue;
		const struct lines_row *row = &w->rows[i];
		const struct lines_line *ln = &l->v[row->line];
		int used = 0;
		attron(A_DIM);
		used = lines_put(ln->gutter, strlen(ln->gutter), COLS);
		attroff(A_DIM);
		for (int s = 0; s < row->hang && used < COLS; s++, used++)
			addch(' ');
		attron(screen_attr(a, ln->style));
		lines_put(buf_str(&l->text) + row->off, row->len, COLS - used);
		attroff(screen_attr(a, ln->style));
	}
	return w->n;
}

static void draw_detail(struct app *a, int y, int h)
{
	struct lines l = LINES_INIT;
	struct lines_wrap w = { NULL, 0, 0 };

	detail_selected(a, &l);
	lines_wrap(&l, COLS, &w);
	if (a->detail_top + (size_t)h > w.n)
		a->detail_top = w.n > (size_t)h ? w.n - (size_t)h : 0;
	divider(a, y - 1, a->detail_top, w.n, h);
	screen_rows(a, &l, &w, a->detail_top, y, h);
	a->detail_h = h;
	a->detail_rows = w.n;
	lines_wrap_free(&w);
	lines_free(&l);
}

/* ---- the bottom: message and legend ------------------------------------------------------------- */

static const char *const legend[][2] = {
	/* The answering keys first: on 80 columns they are all shown (? lists every key). */
	{ "?", "help" },  { "q", "quit" },  { "a", "approve" },   { "r", "reject" },
	{ "e", "edit" },  { "R", "reply" }, { "N", "ask" },       { "D", "decline" },
	{ "c", "close" }, { "n", "park" },  { "x", "extract" },   { "t", "triage" },
	{ "/", "search" }, { "f", "filter" }, { "h", "resolved" },
};

static void draw_legend(int y)
{
	move(y, 0);
	clrtoeol();
	for (size_t i = 0; i < sizeof legend / sizeof legend[0]; i++) {
		int need = (int)(strlen(legend[i][0]) + strlen(legend[i][1]) + 2);
		if (getcurx(stdscr) + need > COLS)
			break;
		attron(A_REVERSE);
		addstr(legend[i][0]);
		attroff(A_REVERSE);
		addch(' ');
		addstr(legend[i][1]);
		if (getcurx(stdscr) < COLS)
			addch(' ');
	}
}

static void draw_message(const struct app *a, const struct lines_wrap *w, int y, int h)
{
	if (a->message.n == 0) {
		move(y, 0);
		clrtoeol();
		attron(A_DIM);
		lines_put("Up/Down select, Enter zooms, PgUp/PgDn scroll",
			  strlen("Up/Down select, Enter zooms, PgUp/PgDn scroll"), COLS);
		attroff(A_DIM);
		return;
	}
	/* The end of a long message matters most (the refusal after what was tried). */
	screen_rows(a, &a->message, w, w->n > (size_t)h ? w->n - (size_t)h : 0, y, h);
}

/* ---- the whole screen ------------------------------------------------------------------------------ */

static void too_small(const struct app *a)
{
	struct lines l = LINES_INIT;
	struct lines_wrap w = { NULL, 0, 0 };

	erase();
	lines_addf(&l, LINES_NORMAL, "mecha review: the terminal is too small (q quits)");
	lines_wrap(&l, COLS, &w);
	screen_rows(a, &l, &w, 0, 0, LINES);
	lines_wrap_free(&w);
	lines_free(&l);
}

void screen_draw(struct app *a)
{
	struct lines_wrap mw = { NULL, 0, 0 };
	int msg_h, avail, list_h;

	if (LINES < MIN_ROWS || COLS < MIN_COLS) {
		too_small(a);
		return;
	}
	lines_wrap(&a->message, COLS, &mw);
	msg_h = mw.n ? (int)mw.n : 1;
	if (msg_h > LINES / 3)
		msg_h = LINES / 3 > 0 ? LINES / 3 : 1;
	avail = LINES - 2 - msg_h; /* between the status line and the message */
	list_h = a->zoom ? 0 : (avail - 1) * 2 / 5;
	if (!a->zoom && list_h < 2)
		list_h = avail - 2 >= 2 ? 2 : 1;
	status_line(a);
	if (list_h > 0)
		draw_list(a, 1, list_h);
	draw_detail(a, 2 + list_h, avail - 1 - list_h);
	draw_message(a, &mw, LINES - 1 - msg_h, msg_h);
	draw_legend(LINES - 1);
	lines_wrap_free(&mw);
}
