/*
 * suggest — "did you mean …": the nearest of a list of known words to one
 * that is not among them, by edit distance (Levenshtein, with a swap of two
 * neighbours counted as one edit), for a misspelt verb, option or key.
 *
 * A word is suggested only when it is near enough to be a slip rather than
 * another word: at most 1 edit for words of up to 4 letters, 2 up to 8, and
 * 3 beyond; of equally near words the first in the list is taken.
 *
 * Ownership: the returned pointer is one of the caller's words (or NULL).
 */
#ifndef MECHA_BASE_SUGGEST_H
#define MECHA_BASE_SUGGEST_H

#include <stddef.h>

/* The nearest of words[0..n) to word by the rule above, or NULL. */
const char *suggest_nearest(const char *word, const char *const *words, size_t n);

/*
 * The same over an array of structures: words are the const char * found at
 * offset off in each of the n elements of size bytes from base (a verb
 * table's names); elements whose word is NULL are skipped.
 */
const char *suggest_nearest_in(const char *word, const void *base, size_t n, size_t size,
			       size_t off);

#endif
