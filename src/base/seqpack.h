/*
 * seqpack — a list of seqs kept in about a byte each: what a pass over a
 * large store remembers of every record it takes (extract's picks, its
 * summary), so that its memory stays near that of one record.
 *
 * Each seq is stored as its difference from the one before it, zigzag-coded
 * and written seven bits a byte, with a two-bit tag of the caller's in the
 * first byte; a run of consecutive seqs costs one byte each, and any order
 * and any values are kept exactly (ten bytes at worst). The list is read back
 * in the order it was written, through a cursor.
 *
 * Ownership: a struct seqpack owns its bytes (seqpack_free); a cursor borrows
 * the list it reads, which must not be added to while it is read.
 */
#ifndef MECHA_BASE_SEQPACK_H
#define MECHA_BASE_SEQPACK_H

#include <stddef.h>
#include <stdint.h>

#define SEQPACK_TAG_MAX 3u

struct seqpack {
	unsigned char *bytes;
	size_t len, cap; /* bytes used, allocated */
	size_t n;        /* seqs added */
	uint64_t last;   /* the last seq added (as unsigned): the next is stored against it */
};

#define SEQPACK_INIT { NULL, 0, 0, 0, 0 }

struct seqpack_cursor {
	size_t at;     /* the next byte to decode */
	uint64_t last; /* the seq decoded last (as unsigned) */
};

#define SEQPACK_CURSOR_INIT { 0, 0 }

/* Appends seq with tag (at most SEQPACK_TAG_MAX). */
void seqpack_add(struct seqpack *p, long long seq, unsigned tag);
/* The next seq (and its tag, when tag is not NULL): 1, or 0 when none is left. */
int seqpack_next(const struct seqpack *p, struct seqpack_cursor *c, long long *seq,
		 unsigned *tag);
void seqpack_free(struct seqpack *p);

#endif
