/*
 * lines — text on its way to the screen: made safe on the way in, measured
 * in terminal columns, wrapped to a width and drawn.
 *
 * The rule: a line holds only what text_safe returned. lines_add and
 * lines_addf take raw text (a stranger's prose, an agent's draft, a label of
 * our own alike) and store its safe rendering, so nothing drawn from a
 * struct lines can move the cursor, change a colour or reorder a line. The
 * drawing half measures with wcwidth, so a wide character takes two columns
 * and a combining one none, and a row never runs past its width.
 *
 * Ownership: struct lines owns its text and line table (lines_free); a
 * gutter is a static string of the caller's, drawn dim before every row of
 * its line. struct lines_wrap owns its row table (lines_wrap_free).
 */
#ifndef MECHA_TUI_LINES_H
#define MECHA_TUI_LINES_H

#include "base/buf.h"

#include <stddef.h>

/* What a line means; screen.c turns it into attributes (and colour when allowed). */
enum lines_style {
	LINES_NORMAL,
	LINES_HEADING, /* a section title */
	LINES_DIM,     /* an aside */
	LINES_WARN,    /* INVALID, taint, an error, a refusal: red */
	LINES_NOTICE,  /* waiting on the person: yellow */
	LINES_FLAG,    /* "reads like instructions": magenta */
	LINES_DEL,     /* a diff line as drafted */
	LINES_ADD,     /* a diff line as it will be sent */
	LINES_GOOD,    /* done: sent, saved */
};

struct lines_line {
	enum lines_style style;
	const char *gutter; /* static; "" for none */
	int hang;           /* columns of space before each row after the first */
	size_t off, len;    /* the safe text, in text */
};

struct lines {
	struct buf text;
	struct lines_line *v;
	size_t n, cap;
};

#define LINES_INIT { BUF_INIT, NULL, 0, 0 }

void lines_free(struct lines *l);
void lines_reset(struct lines *l);

/*
 * Adds s[0..len) made safe. With TEXT_KEEP_NEWLINES it becomes one line per
 * '\n' (tabs become spaces; a final '\n' opens no empty line, as in a diff);
 * without, one line with every control visible.
 */
void lines_add(struct lines *l, enum lines_style st, const char *gutter, const char *s,
	       size_t len, unsigned flags);
/* A formatted line, made safe as lines_add does (arguments may be untrusted). */
void lines_addf(struct lines *l, enum lines_style st, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/*
 * "  label          value": a label of ours and a value made safe (NULL:
 * nothing added); a value that wraps goes on under itself, not under the label.
 */
void lines_field(struct lines *l, enum lines_style st, const char *label, const char *value);
/* Rows after the first of the last line added start this many columns in. */
void lines_hang(struct lines *l, int cols);
void lines_blank(struct lines *l);

/* One screen row of a wrapped line. */
struct lines_row {
	size_t line;     /* index into l->v */
	size_t off, len; /* the part of the line's text on this row */
	int hang;        /* columns of space before it (0 on a line's first row) */
};

struct lines_wrap {
	struct lines_row *rows;
	size_t n, cap;
};

/* Breaks every line into rows of at most width columns (gutter included), at spaces when it can. */
void lines_wrap(const struct lines *l, int width, struct lines_wrap *w);
void lines_wrap_free(struct lines_wrap *w);

/* ---- measuring and drawing safe text --------------------------------------------- */

/* Terminal columns of safe text s[0..len). */
int lines_width(const char *s, size_t len);
/*
 * Draws safe text at the cursor, at most cols columns, with the current
 * attributes; returns the columns used.
 */
int lines_put(const char *s, size_t len, int cols);
/* Makes raw text safe (one line, controls visible) and draws it as lines_put does. */
int lines_put_raw(const char *s, size_t len, int cols);

#endif
