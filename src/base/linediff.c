/*
 * linediff — an LCS table over lines, walked from the top so the diff reads
 * in order. Where an added and a removed line could come in either order
 * without shortening the common run, the removed line comes first (what goes,
 * then what replaces it): that is what `mecha outbox show` has always
 * printed, its readers know it, and tests/unit/test_outbox_view.c pins it.
 */
#include "base/linediff.h"

#include "base/buf.h"

#include <stdlib.h>
#include <string.h>

struct lines {
	const char **at;
	size_t *len;
	size_t n;
};

static void split_lines(const char *s, size_t len, struct lines *l)
{
	size_t start = 0;

	memset(l, 0, sizeof *l);
	for (size_t i = 0; i <= len; i++) {
		if (i < len && s[i] != '\n')
			continue;
		if (i == len && start == len && l->n > 0)
			break; /* a final newline ends the last line; it opens none */
		l->at = xrealloc(l->at, (l->n + 1) * sizeof *l->at);
		l->len = xrealloc(l->len, (l->n + 1) * sizeof *l->len);
		l->at[l->n] = s + start;
		l->len[l->n++] = i - start;
		start = i + 1;
	}
}

static int same_line(const struct lines *a, size_t i, const struct lines *b, size_t j)
{
	return a->len[i] == b->len[j] && memcmp(a->at[i], b->at[j], a->len[i]) == 0;
}

static void emit(struct linediff *d, char sign, const struct lines *l, size_t i)
{
	d->lines[d->n].sign = sign;
	d->lines[d->n].text = l->at[i];
	d->lines[d->n++].len = l->len[i];
}

/* t[x][y]: the longest common run of a's lines from x and b's from y. */
static unsigned *lcs_table(const struct lines *a, const struct lines *b)
{
	size_t w = b->n + 1;
	unsigned *t = xcalloc((a->n + 1) * w, sizeof *t);

	for (size_t x = a->n; x-- > 0;)
		for (size_t y = b->n; y-- > 0;) {
			unsigned down = t[(x + 1) * w + y], right = t[x * w + y + 1];
			t[x * w + y] = same_line(a, x, b, y) ? t[(x + 1) * w + y + 1] + 1
				       : down > right       ? down
							    : right;
		}
	return t;
}

static void walk(struct linediff *d, const struct lines *a, const struct lines *b)
{
	size_t w = b->n + 1, i = 0, j = 0;
	unsigned *t = lcs_table(a, b);

	while (i < a->n || j < b->n) {
		if (i < a->n && j < b->n && same_line(a, i, b, j)) {
			emit(d, LINEDIFF_SAME, a, i++);
			j++;
		} else if (i < a->n && (j == b->n || t[(i + 1) * w + j] >= t[i * w + j + 1])) {
			emit(d, LINEDIFF_DEL, a, i++); /* what goes, before what replaces it */
		} else {
			emit(d, LINEDIFF_ADD, b, j++);
		}
	}
	free(t);
}

void linediff_compute(const char *a, size_t alen, const char *b, size_t blen,
		      struct linediff *out)
{
	struct lines la, lb;

	split_lines(a, alen, &la);
	split_lines(b, blen, &lb);
	out->n = 0;
	out->lines = xcalloc(la.n + lb.n, sizeof *out->lines);
	if (la.n * lb.n > LINEDIFF_MAX_CELLS) { /* too long to align: show both */
		for (size_t i = 0; i < la.n; i++)
			emit(out, LINEDIFF_DEL, &la, i);
		for (size_t j = 0; j < lb.n; j++)
			emit(out, LINEDIFF_ADD, &lb, j);
	} else {
		walk(out, &la, &lb);
	}
	free(la.at), free(la.len), free(lb.at), free(lb.len);
}

void linediff_free(struct linediff *d)
{
	free(d->lines);
	d->lines = NULL;
	d->n = 0;
}
