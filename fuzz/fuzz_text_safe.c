/*
 * fuzz_text_safe — text_safe is the one door through which a stranger's, a
 * model's or an agent's bytes reach a terminal (base/text.h). Whatever the
 * bytes, in both modes:
 *
 *   - no raw control byte ever comes out: nothing below 0x20 but the newline
 *     and tab a prose block keeps, no DEL, no C1 control (CSI among them), no
 *     bidirectional override, no byte that is not UTF-8 — checked code point by
 *     code point with our own decoder, not with text.c's helpers;
 *   - text that needs nothing made visible comes out unchanged, and what
 *     comes out needs nothing more (rendering it again changes nothing);
 *   - the UTF-8 measures agree with a decoder of our own (utf8_ref.h):
 *     text_utf8_count counts what a walk counts, text_utf8_valid says what it
 *     says, text_utf8_clip keeps the longest prefix within its limit that
 *     ends on a boundary.
 */
#include "utf8_ref.h"

#include "base/buf.h"
#include "base/text.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int shown_raw_is_dangerous(unsigned cp, int keep)
{
	if (cp == '\n' || cp == '\t')
		return !keep;
	return cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f) ||
	       (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069) || cp == 0x200e ||
	       cp == 0x200f || cp == 0x061c || cp == 0xfeff;
}

/* 1 when s[0..len) may reach a terminal as it is. */
static int clean(const char *s, size_t len, int keep)
{
	const unsigned char *u = (const unsigned char *)s;
	unsigned cp;

	for (size_t i = 0; i < len;) {
		size_t n = utf8_ref_decode(u + i, len - i, &cp);
		if (n == 0 || shown_raw_is_dangerous(cp, keep))
			return 0;
		i += n;
	}
	return 1;
}

static void render(const char *s, size_t len, unsigned flags)
{
	struct buf out = BUF_INIT, twice = BUF_INIT;
	int keep = (flags & TEXT_KEEP_NEWLINES) != 0;
	const char *o;

	text_safe(&out, s, len, flags);
	o = buf_str(&out);
	if (!clean(o, out.len, keep))
		__builtin_trap(); /* a raw control byte came out */
	if (clean(s, len, keep) && (out.len != len || memcmp(o, s, len) != 0))
		__builtin_trap(); /* nothing to make visible: the text as it was */
	if (!keep && text_has_control(s, len) == clean(s, len, 0))
		__builtin_trap(); /* the helper the brief's checks use agrees */
	text_safe(&twice, o, out.len, flags);
	if (twice.len != out.len || memcmp(buf_str(&twice), o, out.len) != 0)
		__builtin_trap(); /* safe output is left alone */
	buf_free(&out);
	buf_free(&twice);
}

/* Count, validity and the clip, from a walk with a plain decoder written here. */
static void measures(const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t count = 0, i = 0, max = len / 2, within = 0;
	int valid = 1;
	unsigned cp;

	while (i < len) {
		size_t n = utf8_ref_decode(u + i, len - i, &cp);
		valid &= n != 0;
		i += n ? n : 1; /* an invalid byte counts as one */
		count++;
		if (i <= max)
			within = i; /* the longest prefix within max that ends on a boundary */
	}
	if (text_utf8_count(s, len) != count || text_utf8_valid(s, len) != valid ||
	    text_utf8_clip(s, len, max) != within)
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;

	render(s, size, 0);
	render(s, size, TEXT_KEEP_NEWLINES);
	measures(s, size);
	return 0;
}
