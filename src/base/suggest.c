/*
 * suggest — the nearest known word to a mistyped one.
 */
#include "base/suggest.h"

#include <string.h>

#define WORD_MAX 64 /* longer words are never a slip worth suggesting for */

/* The edit distance of a and b (bytes), capped at 255. */
static unsigned suggest_distance(const char *a, const char *b)
{
	size_t n = strlen(a), m = strlen(b);
	unsigned d[WORD_MAX + 1][WORD_MAX + 1];

	if (n > WORD_MAX || m > WORD_MAX)
		return 255;
	for (size_t i = 0; i <= n; i++)
		d[i][0] = (unsigned)i;
	for (size_t j = 0; j <= m; j++)
		d[0][j] = (unsigned)j;
	for (size_t i = 1; i <= n; i++)
		for (size_t j = 1; j <= m; j++) {
			unsigned cost = a[i - 1] != b[j - 1];
			unsigned best = d[i - 1][j - 1] + cost;
			if (d[i - 1][j] + 1 < best)
				best = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < best)
				best = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1; /* two neighbours swapped */
			d[i][j] = best;
		}
	return d[n][m] > 255 ? 255 : d[n][m];
}

static unsigned allowed(const char *word)
{
	size_t n = strlen(word);

	return n <= 4 ? 1 : n <= 8 ? 2 : 3;
}

const char *suggest_nearest_in(const char *word, const void *base, size_t n, size_t size,
			       size_t off)
{
	const char *best = NULL;
	unsigned best_d = allowed(word) + 1;

	for (size_t i = 0; i < n; i++) {
		const char *w;
		unsigned d;
		memcpy(&w, (const char *)base + i * size + off, sizeof w);
		if (!w || strcmp(w, word) == 0)
			continue;
		d = suggest_distance(word, w);
		if (d < best_d) {
			best_d = d;
			best = w;
		}
	}
	return best;
}

const char *suggest_nearest(const char *word, const char *const *words, size_t n)
{
	return suggest_nearest_in(word, words, n, sizeof *words, 0);
}
