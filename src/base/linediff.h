/*
 * linediff — the line diff between two texts, as data: the lines kept,
 * removed and added, in reading order, so any front end can draw it.
 *
 * A longest-common-subsequence alignment over whole lines. It costs time and
 * memory in the product of the two line counts, which is nothing for what a
 * person reads (a draft's body); beyond LINEDIFF_MAX_CELLS the texts are not
 * aligned and the diff is every old line removed, then every new line added —
 * still true, only less helpful.
 *
 * Lines: a text is split at '\n'. A final '\n' does not open an empty last
 * line, but an empty text is one empty line (so "" against "x" shows both).
 *
 * Ownership: struct linediff owns its array (linediff_free); each line's
 * text is BORROWED from the two texts given, which must outlive it.
 */
#ifndef MECHA_BASE_LINEDIFF_H
#define MECHA_BASE_LINEDIFF_H

#include <stddef.h>

#define LINEDIFF_MAX_CELLS 4000000

enum {
	LINEDIFF_SAME = ' ',
	LINEDIFF_DEL = '-', /* only in the old text */
	LINEDIFF_ADD = '+', /* only in the new text */
};

struct linediff_line {
	char sign;        /* LINEDIFF_SAME, _DEL or _ADD */
	const char *text; /* not NUL-terminated at len; no '\n' */
	size_t len;
};

struct linediff {
	struct linediff_line *lines;
	size_t n;
};

/* The diff from old (a) to new (b); never fails (allocation failure aborts). */
void linediff_compute(const char *a, size_t alen, const char *b, size_t blen,
		      struct linediff *out);
void linediff_free(struct linediff *d);

#endif
