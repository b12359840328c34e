/*
 * fuzz_linediff — the edit diff a person reads before a draft goes out
 * (`mecha outbox show`, the review screen) is computed over a model's and a
 * person's texts. The input is split in two (its first byte says where) and
 * diffed both ways. Whatever the bytes:
 *
 *   - the kept and removed lines are the old text's lines, in order, and the
 *     kept and added lines the new text's (none holding a newline), split as
 *     linediff.h says, each pointing into the text it came from;
 *   - when the texts are small enough to align, the kept lines are as many as
 *     the longest common subsequence has (computed here independently): the
 *     diff is never longer than it needs to be.
 */
#include "base/buf.h"
#include "base/linediff.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct split {
	const char **at;
	size_t *len, n;
};

/* linediff.h's lines: split at '\n', no empty line after a final one, "" is one line. */
static void split(const char *s, size_t len, struct split *l)
{
	size_t start = 0;

	l->at = xcalloc(len + 1, sizeof *l->at);
	l->len = xcalloc(len + 1, sizeof *l->len);
	l->n = 0;
	for (size_t i = 0; i <= len; i++) {
		if (i < len && s[i] != '\n')
			continue;
		if (i == len && start == len && len > 0)
			break;
		l->at[l->n] = s + start;
		l->len[l->n++] = i - start;
		start = i + 1;
	}
}

static int same(const struct split *a, size_t i, const struct split *b, size_t j)
{
	return a->len[i] == b->len[j] && memcmp(a->at[i], b->at[j], a->len[i]) == 0;
}

/* The LCS length over lines, one row at a time. */
static size_t lcs(const struct split *a, const struct split *b)
{
	size_t *prev = xcalloc(b->n + 1, sizeof *prev), *row = xcalloc(b->n + 1, sizeof *row);
	size_t best;

	for (size_t i = 1; i <= a->n; i++) {
		for (size_t j = 1; j <= b->n; j++)
			row[j] = same(a, i - 1, b, j - 1) ? prev[j - 1] + 1
				 : prev[j] > row[j - 1] ? prev[j]
							: row[j - 1];
		memcpy(prev, row, (b->n + 1) * sizeof *row);
	}
	best = prev[b->n];
	free(prev);
	free(row);
	return best;
}

/*
 * The lines of one side (every sign but skip) are exactly want's, in order;
 * those that came from this side (own, and kept lines, which come from the
 * old text) point at them.
 */
static void check_side(const struct linediff *d, char skip, char own, const struct split *want)
{
	size_t k = 0;

	for (size_t i = 0; i < d->n; i++) {
		const struct linediff_line *l = &d->lines[i];
		if (l->sign == skip)
			continue;
		if (k == want->n || l->len != want->len[k] || memcmp(l->text, want->at[k], l->len) != 0)
			__builtin_trap();
		if ((l->sign == own || (own == LINEDIFF_DEL && l->sign == LINEDIFF_SAME)) &&
		    l->text != want->at[k])
			__builtin_trap();
		k++;
	}
	if (k != want->n)
		__builtin_trap();
}

static void check(const char *a, size_t alen, const char *b, size_t blen)
{
	struct split la, lb;
	struct linediff d;
	size_t kept = 0;

	split(a, alen, &la);
	split(b, blen, &lb);
	linediff_compute(a, alen, b, blen, &d);
	for (size_t i = 0; i < d.n; i++) {
		const struct linediff_line *l = &d.lines[i];
		if (l->sign != LINEDIFF_SAME && l->sign != LINEDIFF_DEL && l->sign != LINEDIFF_ADD)
			__builtin_trap();
		if (memchr(l->text, '\n', l->len))
			__builtin_trap();
		kept += l->sign == LINEDIFF_SAME;
	}
	check_side(&d, LINEDIFF_ADD, LINEDIFF_DEL, &la);
	check_side(&d, LINEDIFF_DEL, LINEDIFF_ADD, &lb);
	if (la.n * lb.n <= LINEDIFF_MAX_CELLS && kept != lcs(&la, &lb))
		__builtin_trap();
	linediff_free(&d);
	free(la.at), free(la.len), free(lb.at), free(lb.len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data + 1;
	size_t cut;

	if (size == 0)
		return 0;
	size--;
	cut = (size_t)data[0] * size / 255;
	check(s, cut, s + cut, size - cut);
	check(s + cut, size - cut, s, cut);
	return 0;
}
