/*
 * seqpack — deltas, not values: the seqs a pass takes are mostly consecutive,
 * so their differences fit in a byte where the seqs themselves take eight.
 * The arithmetic is unsigned throughout, so any difference wraps and unwraps
 * exactly.
 */
#include "base/seqpack.h"

#include "base/buf.h"

#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define TAG_BITS 2
#define FIRST_BITS (7 - TAG_BITS) /* of the difference, in the first byte */
#define MORE 0x80u

static void put(struct seqpack *p, unsigned char byte)
{
	if (p->len == p->cap) {
		p->cap = p->cap ? p->cap * 2 : 64;
		p->bytes = xrealloc(p->bytes, p->cap);
	}
	p->bytes[p->len++] = byte;
}

void seqpack_add(struct seqpack *p, long long seq, unsigned tag)
{
	uint64_t d = (uint64_t)seq - p->last;
	uint64_t z = (d << 1) ^ (0 - (d >> 63)); /* zigzag: a small step back stays small */

	assert(tag <= SEQPACK_TAG_MAX);
	put(p, (unsigned char)(tag | (unsigned)(z & ((1u << FIRST_BITS) - 1)) << TAG_BITS |
			       (z >> FIRST_BITS ? MORE : 0)));
	for (z >>= FIRST_BITS; z; z >>= 7)
		put(p, (unsigned char)((z & 0x7f) | (z >> 7 ? MORE : 0)));
	p->last = (uint64_t)seq;
	p->n++;
}

int seqpack_next(const struct seqpack *p, struct seqpack_cursor *c, long long *seq,
		 unsigned *tag)
{
	unsigned char b;
	uint64_t z, d;
	unsigned shift = FIRST_BITS;

	if (c->at >= p->len)
		return 0;
	b = p->bytes[c->at++];
	if (tag)
		*tag = b & SEQPACK_TAG_MAX;
	z = (b >> TAG_BITS) & ((1u << FIRST_BITS) - 1);
	while ((b & MORE) && c->at < p->len && shift < 64) {
		b = p->bytes[c->at++];
		z |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	}
	d = (z >> 1) ^ (0 - (z & 1));
	c->last += d;
	*seq = (long long)c->last;
	return 1;
}

void seqpack_free(struct seqpack *p)
{
	free(p->bytes);
	memset(p, 0, sizeof *p);
}
