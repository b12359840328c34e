/*
 * utf8_ref — a UTF-8 decoder of the fuzz targets' own, written from RFC 3629
 * and not from base/text.c, so that what they check text.c and html.c
 * against is not text.c itself.
 */
#ifndef MECHA_FUZZ_UTF8_REF_H
#define MECHA_FUZZ_UTF8_REF_H

#include <stddef.h>

/* The length a lead byte announces; 0 for a byte that cannot lead. */
static size_t utf8_ref_length(unsigned char c)
{
	if (c < 0x80)
		return 1;
	if ((c >> 5) == 6)
		return 2;
	if ((c >> 4) == 14)
		return 3;
	return (c >> 3) == 30 ? 4 : 0;
}

/*
 * Decodes one sequence at s (len bytes available, len > 0) into *cp: its
 * length, or 0 for bytes that are not UTF-8 (overlongs, surrogates and values
 * past U+10FFFF included).
 */
static size_t utf8_ref_decode(const unsigned char *s, size_t len, unsigned *cp)
{
	static const unsigned min[] = { 0, 0, 0x80, 0x800, 0x10000 };
	size_t n = utf8_ref_length(s[0]);
	unsigned c;

	if (n == 0 || n > len)
		return 0;
	c = n == 1 ? s[0] : s[0] & (0xffu >> (n + 1));
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if (c < min[n] || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return n;
}

#endif
