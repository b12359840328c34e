/*
 * fuzz_box_multipart — the box's multipart/form-data reader (src/box/multipart.c)
 * on any bytes: the input's first line is the Content-Type header, the rest
 * the body. It parses or refuses with a reason; a part's bytes lie inside
 * the body, in order and without overlap; names and filenames are bounded
 * UTF-8 without control characters; it never reads past the body.
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
	} else {
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
