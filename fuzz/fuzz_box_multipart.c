/*
 * fuzz_box_multipart — the box's multipart/form-data reader (src/box/multipart.c)
 * on any bytes: the input's first line is the Content-Type header, the rest
 * the body. It parses or refuses with a reason; a part's bytes lie inside
 * the body, in order and without overlap; names and filenames are bounded
 * UTF-8 without control characters; it never reads past the body. And the
 * incremental reader (multipart_in), fed the same body in pieces whose sizes
 * the body's own bytes choose, agrees with the whole: the same verdict, the
 * same reason, the same parts with the same bytes, each piece a copy of
 * exactly its bytes (ASan sees a read past one).
 */
#include "base/text.h"
#include "box/multipart.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_name(const char *s)
{
	size_t n = strlen(s);

	if (n > MULTIPART_NAME_MAX || !text_utf8_valid(s, n))
		abort();
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			abort();
}

/* What the pieces said, part after part, to compare with the whole parse. */
struct heard {
	const struct multipart *mp;
	size_t part, at; /* the part being heard, and how many of its bytes so far */
	int open, wrong;
};

static void heard_part(void *arg, const char *name, const char *filename)
{
	struct heard *h = arg;
	const struct multipart_part *p = h->part < h->mp->n ? &h->mp->v[h->part] : NULL;

	if (h->open || (p && (strcmp(p->name, name) != 0 || !p->filename != !filename ||
			      (filename && strcmp(p->filename, filename) != 0))))
		h->wrong = 1;
	h->open = 1;
	h->at = 0;
}

static void heard_data(void *arg, const char *d, size_t n)
{
	struct heard *h = arg;
	const struct multipart_part *p = h->part < h->mp->n ? &h->mp->v[h->part] : NULL;

	if (!h->open || n == 0 || (p && (h->at + n > p->len || memcmp(p->data + h->at, d, n) != 0)))
		h->wrong = 1;
	h->at += n;
}

static void heard_end(void *arg)
{
	struct heard *h = arg;
	const struct multipart_part *p = h->part < h->mp->n ? &h->mp->v[h->part] : NULL;

	if (!h->open || (p && h->at != p->len))
		h->wrong = 1;
	h->open = 0;
	h->part++;
}

/* The body in pieces: each one 1 + (a byte of the body) % 97 long. */
static void in_pieces(const char *ct, const char *body, size_t blen, int whole_rc,
		      const char *whole_why, const struct multipart *mp)
{
	struct heard h = { mp, 0, 0, 0, 0 };
	struct multipart_sink sink = { heard_part, heard_data, heard_end, &h };
	const char *why = NULL;
	struct multipart_in *in = multipart_in_new(ct, &sink, &why);
	int rc = 0;

	if (!in) {
		if (whole_rc == 0 || !why || strcmp(why, whole_why) != 0)
			abort();
		return;
	}
	for (size_t at = 0; at < blen && rc == 0;) {
		size_t n = 1 + (unsigned char)body[at] % 97;
		char *piece;
		if (n > blen - at)
			n = blen - at;
		piece = malloc(n);
		memcpy(piece, body + at, n);
		rc = multipart_in_feed(in, piece, n, &why);
		free(piece);
		at += n;
	}
	if (rc == 0)
		rc = multipart_in_finish(in, &why);
	multipart_in_free(in);
	if (rc != whole_rc || (rc != 0 && (!why || strcmp(why, whole_why) != 0)))
		abort();
	if (rc == 0 && (h.wrong || h.open || h.part != mp->n))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nl = memchr(data, '\n', size);
	size_t hlen = nl ? (size_t)(nl - data) : size;
	char *ct = malloc(hlen + 1);
	const char *body = nl ? (const char *)nl + 1 : (const char *)data + size, *why = NULL;
	size_t blen = nl ? size - hlen - 1 : 0;
	/* A copy of exactly blen bytes: ASan sees any read past the body. */
	char *copy = malloc(blen ? blen : 1);
	const char *last = copy;
	struct multipart mp;

	memcpy(ct, data, hlen);
	ct[hlen] = '\0';
	memcpy(copy, body, blen);
	if (multipart_parse(ct, copy, blen, &mp, &why) != 0) {
		if (!why || mp.n != 0)
			abort();
		in_pieces(ct, copy, blen, -1, why, &mp);
	} else {
		in_pieces(ct, copy, blen, 0, NULL, &mp);
		if (mp.n > MULTIPART_PARTS_MAX)
			abort();
		for (size_t i = 0; i < mp.n; i++) {
			const struct multipart_part *p = &mp.v[i];
			if (p->data < last || p->data + p->len > copy + blen || !p->name[0])
				abort();
			last = p->data + p->len;
			check_name(p->name);
			if (p->filename)
				check_name(p->filename);
		}
		multipart_free(&mp);
	}
	free(copy);
	free(ct);
	return 0;
}
