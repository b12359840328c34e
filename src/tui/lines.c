/*
 * lines — safe text in, rows of terminal columns out. See lines.h.
 *
 * Widths come from wcwidth in the person's locale. In a locale that is not
 * UTF-8 every character beyond ASCII is drawn as '?', one column: a wrong
 * glyph is better than a misaligned screen or a byte the terminal misreads.
 */
#define NCURSES_WIDECHAR 1
#include "tui/lines.h"

#include "base/text.h"

#include <curses.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

void lines_free(struct lines *l)
{
	buf_free(&l->text);
	free(l->v);
	l->v = NULL;
	l->n = l->cap = 0;
}

void lines_reset(struct lines *l)
{
	buf_reset(&l->text);
	l->n = 0;
}

static void push(struct lines *l, enum lines_style st, const char *gutter, size_t off,
		 size_t len)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 32;
		l->v = xrealloc(l->v, l->cap * sizeof *l->v);
	}
	l->v[l->n++] = (struct lines_line){ st, gutter ? gutter : "", 0, off, len };
}

void lines_add(struct lines *l, enum lines_style st, const char *gutter, const char *s,
	       size_t len, unsigned flags)
{
	struct buf safe = BUF_INIT;
	const char *p, *end;

	text_safe(&safe, s ? s : "", s ? len : 0, flags);
	if ((flags & TEXT_KEEP_NEWLINES) && safe.len > 0 && safe.data[safe.len - 1] == '\n')
		safe.data[--safe.len] = '\0';
	p = buf_str(&safe);
	do {
		size_t start = l->text.len;
		end = strchr(p, '\n');
		if (!end)
			end = p + strlen(p);
		for (const char *q = p; q < end; q++) /* a tab would move the cursor past our count */
			if (*q == '\t')
				buf_adds(&l->text, "    ");
			else
				buf_addc(&l->text, *q);
		push(l, st, gutter, start, l->text.len - start);
		p = end + 1;
	} while (*end);
	buf_free(&safe);
}

void lines_addf(struct lines *l, enum lines_style st, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		abort();
	va_end(ap);
	lines_add(l, st, "", s, strlen(s), 0);
	free(s);
}

void lines_field(struct lines *l, enum lines_style st, const char *label, const char *value)
{
	if (!value)
		return;
	lines_addf(l, st, "  %-14s %s", label, value);
	lines_hang(l, 17);
}

void lines_hang(struct lines *l, int cols)
{
	if (l->n)
		l->v[l->n - 1].hang = cols;
}

void lines_blank(struct lines *l)
{
	lines_add(l, LINES_NORMAL, "", "", 0, 0);
}

/* ---- measuring ---------------------------------------------------------------------- */

/* The character at s (safe text: valid UTF-8), its byte length and its columns. */
static size_t glyph(const char *s, size_t len, wchar_t *wc, int *cols)
{
	unsigned cp;
	size_t n = text_utf8_decode(s, len, &cp);

	if (n == 0 || (cp >= 0x80 && MB_CUR_MAX == 1)) {
		*wc = L'?';
		*cols = 1;
		return n ? n : 1;
	}
	*wc = (wchar_t)cp;
	*cols = wcwidth(*wc);
	if (*cols < 0) { /* a character this locale cannot print */
		*wc = L'?';
		*cols = 1;
	}
	return n;
}

int lines_width(const char *s, size_t len)
{
	int total = 0, cols;
	wchar_t wc;

	for (size_t i = 0; i < len; i += glyph(s + i, len - i, &wc, &cols), total += cols)
		;
	return total;
}

/* Bytes of the longest prefix of s[0..len) that fits in cols columns. */
static size_t lines_fit(const char *s, size_t len, int cols)
{
	size_t i = 0;
	int used = 0, w;
	wchar_t wc;

	while (i < len) {
		size_t n = glyph(s + i, len - i, &wc, &w);
		if (used + w > cols)
			break;
		used += w;
		i += n;
	}
	return i;
}

/* ---- wrapping ----------------------------------------------------------------------- */

static void add_row(struct lines_wrap *w, size_t line, size_t off, size_t len, int hang)
{
	if (w->n == w->cap) {
		w->cap = w->cap ? w->cap * 2 : 64;
		w->rows = xrealloc(w->rows, w->cap * sizeof *w->rows);
	}
	w->rows[w->n++] = (struct lines_row){ line, off, len, hang };
}

/* The bytes of the next row of s[0..len): up to cols columns, ending at a space when one is near. */
static size_t next_row(const char *s, size_t len, int cols)
{
	size_t fit = lines_fit(s, len, cols);

	if (fit == 0)
		return len ? 1 : 0; /* a character wider than the row: it goes alone */
	if (fit == len)
		return fit;
	for (size_t k = fit; k > fit / 2; k--)
		if (s[k] == ' ')
			return k + 1; /* the space ends this row rather than starting the next */
	return fit;
}

void lines_wrap(const struct lines *l, int width, struct lines_wrap *w)
{
	w->n = 0;
	for (size_t i = 0; i < l->n; i++) {
		const struct lines_line *ln = &l->v[i];
		const char *s = buf_str(&l->text) + ln->off;
		int cols = width - lines_width(ln->gutter, strlen(ln->gutter));
		size_t done = 0;

		do {
			/* A hang that would leave less than half the row is not worth it. */
			int hang = done && ln->hang < cols / 2 ? ln->hang : 0;
			size_t n = next_row(s + done, ln->len - done, cols - hang > 1 ? cols - hang : 1);
			add_row(w, i, ln->off + done, n, hang);
			done += n;
		} while (done < ln->len);
	}
}

void lines_wrap_free(struct lines_wrap *w)
{
	free(w->rows);
	w->rows = NULL;
	w->n = w->cap = 0;
}

/* ---- drawing ------------------------------------------------------------------------ */

int lines_put(const char *s, size_t len, int cols)
{
	wchar_t out[256];
	size_t i = 0, k = 0;
	int used = 0, w;

	while (i < len && used < cols) {
		wchar_t wc;
		size_t n = glyph(s + i, len - i, &wc, &w);
		if (used + w > cols)
			break;
		if (w == 0 && used == 0) { /* nothing to combine with */
			i += n;
			continue;
		}
		out[k++] = wc;
		used += w;
		i += n;
		if (k == sizeof out / sizeof out[0]) {
			addnwstr(out, (int)k);
			k = 0;
		}
	}
	if (k)
		addnwstr(out, (int)k);
	return used;
}

int lines_put_raw(const char *s, size_t len, int cols)
{
	struct buf safe = BUF_INIT;
	int used;

	text_safe(&safe, s ? s : "", s ? len : 0, 0);
	used = lines_put(buf_str(&safe), safe.len, cols);
	buf_free(&safe);
	return used;
}
