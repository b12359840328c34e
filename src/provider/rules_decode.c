/*
 * rules_decode — six readings of a text, each a plain loop over its bytes.
 *
 * A decoded run counts only when it is text (valid UTF-8, no control
 * characters but line breaks and tabs, a few letters): a long word or a
 * digest that happens to be valid base64 decodes to noise and is dropped,
 * so ordinary prose yields no reading at all.
 */
#include "provider/rules_decode.h"

#include "base/buf.h"
#include "base/text.h"

#include <string.h>

#define RUN_MIN 16 /* shorter runs hide too little to matter, and occur in prose */

static int is_alpha(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static int is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

/* Decoded bytes that read as text: UTF-8, no controls but \t \n \r, four letters at least. */
static int is_text(const char *s, size_t n)
{
	size_t letters = 0;

	if (!text_utf8_valid(s, n))
		return 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f)
			return 0;
		letters += is_alpha(c) || c >= 0x80;
	}
	return letters >= 4;
}

/* ---- base64 and hex runs ------------------------------------------------------ */

static int b64_value(unsigned char c)
{
	if (is_alpha(c))
		return c >= 'a' ? c - 'a' + 26 : c - 'A';
	if (is_digit(c))
		return c - '0' + 52;
	return c == '+' || c == '-' ? 62 : c == '/' || c == '_' ? 63 : -1;
}

/* Decodes s[0..n) (base64 characters only; a last partial group is dropped). */
static void b64_run(const char *s, size_t n, struct buf *out)
{
	unsigned acc = 0;
	int bits = 0;

	for (size_t i = 0; i < n; i++) {
		acc = (acc << 6) | (unsigned)b64_value((unsigned char)s[i]);
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			buf_addc(out, (char)((acc >> bits) & 0xff));
		}
	}
}

static void hex_run(const char *s, size_t n, struct buf *out)
{
	for (size_t i = 0; i + 1 < n; i += 2)
		buf_addc(out, (char)((unsigned)text_hex_digit((unsigned char)s[i]) << 4 |
				     (unsigned)text_hex_digit((unsigned char)s[i + 1])));
}

/* Every maximal run of characters `in` accepts, at least RUN_MIN long, decoded by `dec`. */
static int runs(const char *s, size_t len, int (*in)(unsigned char),
		void (*dec)(const char *, size_t, struct buf *), struct buf *out)
{
	int found = 0;

	for (size_t i = 0; i < len;) {
		size_t j = i;
		struct buf one = BUF_INIT;

		while (j < len && in((unsigned char)s[j]))
			j++;
		if (j - i >= RUN_MIN) {
			dec(s + i, j - i, &one);
			if (is_text(one.data ? one.data : "", one.len)) {
				buf_add(out, one.data, one.len);
				buf_addc(out, '\n');
				found = 1;
			}
		}
		buf_free(&one);
		i = j > i ? j : i + 1;
	}
	return found;
}

static int in_b64(unsigned char c)
{
	return b64_value(c) >= 0;
}

static int in_hex(unsigned char c)
{
	return text_hex_digit(c) >= 0;
}

/* ---- whole-text readings ------------------------------------------------------- */

static int percent(const char *s, size_t len, struct buf *out)
{
	size_t n = 0;

	for (size_t i = 0; i + 2 < len; i++)
		n += s[i] == '%' && text_hex_digit((unsigned char)s[i + 1]) >= 0 &&
		     text_hex_digit((unsigned char)s[i + 2]) >= 0;
	if (n < 3)
		return 0;
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '%' && i + 2 < len && text_hex_digit((unsigned char)s[i + 1]) >= 0 &&
		    text_hex_digit((unsigned char)s[i + 2]) >= 0) {
			hex_run(s + i + 1, 2, out);
			i += 2;
		} else {
			buf_addc(out, s[i]);
		}
	}
	return 1;
}

static int rot13(const char *s, size_t len, struct buf *out)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		unsigned char base = c >= 'a' ? 'a' : 'A';

		buf_addc(out, is_alpha(c) ? (char)(base + (c - base + 13) % 26) : (char)c);
	}
	return len > 0;
}

static char leet_letter(unsigned char c)
{
	static const char from[] = "013457@$8", to[] = "oieastasb";
	const char *p = c ? strchr(from, c) : NULL;

	return p ? to[p - from] : (char)c;
}

static int leet_char(unsigned char c)
{
	return is_alpha(c) || is_digit(c) || c == '@' || c == '$';
}

/* Words that mix letters and digits ("pr3v10u5") get letters for their digits. */
static int leet(const char *s, size_t len, struct buf *out)
{
	int changed = 0;

	for (size_t i = 0; i < len;) {
		size_t j = i, alpha = 0, other = 0;

		while (j < len && leet_char((unsigned char)s[j])) {
			alpha += is_alpha((unsigned char)s[j]);
			other += !is_alpha((unsigned char)s[j]);
			j++;
		}
		if (j == i) {
			buf_addc(out, s[i++]);
			continue;
		}
		for (size_t k = i; k < j; k++)
			buf_addc(out, alpha && other ? leet_letter((unsigned char)s[k]) : s[k]);
		changed |= alpha && other;
		i = j;
	}
	return changed;
}

/* A letter standing alone: no letter on either side. */
static int lone(const char *s, size_t len, size_t j)
{
	return is_alpha((unsigned char)s[j]) && (j == 0 || !is_alpha((unsigned char)s[j - 1])) &&
	       (j + 1 == len || !is_alpha((unsigned char)s[j + 1]));
}

/* The bytes of a run of at least min lone letters one space apart at s[i] ("x y z"), else 0. */
static size_t spaced_run(const char *s, size_t len, size_t i, size_t min)
{
	size_t last = i, n = 0;

	if (!lone(s, len, i))
		return 0;
	for (size_t j = i; lone(s, len, j); j += 2) {
		last = j;
		n++;
		if (j + 2 >= len || s[j + 1] != ' ')
			break;
	}
	return n >= min ? last + 1 - i : 0;
}

/* Once the text spells one word out ("i g n o r e"), every spaced run is joined. */
static int spaced(const char *s, size_t len, struct buf *out)
{
	int found = 0;

	for (size_t i = 0; i < len && !found; i++)
		found = spaced_run(s, len, i, 4) > 0;
	for (size_t i = 0; found && i < len;) {
		size_t n = spaced_run(s, len, i, 2);

		if (!n) {
			buf_addc(out, s[i++]);
			continue;
		}
		for (size_t k = i; k < i + n; k++)
			if (s[k] != ' ')
				buf_addc(out, s[k]);
		i += n;
	}
	return found;
}

int rules_decode(enum rules_reading how, const char *s, size_t len, struct buf *out)
{
	struct buf r = BUF_INIT;
	int found = 0;

	switch (how) {
	case RULES_BASE64: found = runs(s, len, in_b64, b64_run, &r); break;
	case RULES_HEX: found = runs(s, len, in_hex, hex_run, &r); break;
	case RULES_PERCENT: found = percent(s, len, &r); break;
	case RULES_ROT13: found = rot13(s, len, &r); break;
	case RULES_LEET: found = leet(s, len, &r); break;
	case RULES_SPACED: found = spaced(s, len, &r); break;
	default: break;
	}
	if (found)
		buf_add(out, r.data, r.len);
	buf_free(&r);
	return found;
}

/* ---- folding ----------------------------------------------------------------------- */

static unsigned fold_cp(unsigned cp)
{
	if (cp >= 'A' && cp <= 'Z')
		return cp + 32;
	if (cp >= 0xc0 && cp <= 0xde && cp != 0xd7) /* Latin-1: À … Þ */
		return cp + 32;
	if (cp >= 0x100 && cp <= 0x17f && cp % 2 == 0 && cp != 0x130) /* Latin Extended-A pairs */
		return cp + 1;
	if (cp >= 0x410 && cp <= 0x42f) /* Cyrillic А … Я */
		return cp + 32;
	if (cp >= 0x400 && cp <= 0x40f) /* Ѐ … Џ */
		return cp + 80;
	return cp;
}

static void put_utf8(struct buf *out, unsigned cp)
{
	if (cp < 0x80) {
		buf_addc(out, (char)cp);
	} else if (cp < 0x800) {
		buf_addc(out, (char)(0xc0 | cp >> 6));
		buf_addc(out, (char)(0x80 | (cp & 0x3f)));
	} else if (cp < 0x10000) {
		buf_addc(out, (char)(0xe0 | cp >> 12));
		buf_addc(out, (char)(0x80 | ((cp >> 6) & 0x3f)));
		buf_addc(out, (char)(0x80 | (cp & 0x3f)));
	} else {
		buf_addc(out, (char)(0xf0 | cp >> 18));
		buf_addc(out, (char)(0x80 | ((cp >> 12) & 0x3f)));
		buf_addc(out, (char)(0x80 | ((cp >> 6) & 0x3f)));
		buf_addc(out, (char)(0x80 | (cp & 0x3f)));
	}
}

void rules_fold(const char *s, size_t len, struct buf *out)
{
	for (size_t i = 0; i < len;) {
		unsigned cp;
		size_t n = text_utf8_decode(s + i, len - i, &cp);

		if (n == 0) {
			buf_addc(out, s[i++]); /* not UTF-8: as it is */
			continue;
		}
		put_utf8(out, fold_cp(cp));
		i += n;
	}
}
