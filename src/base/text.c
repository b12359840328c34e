/*
 * text — safe rendering of untrusted text. One place decides what a terminal
 * may receive, so every verb that shows a stranger's words calls here.
 */
#include "base/text.h"

#include "base/buf.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

size_t text_utf8_decode(const char *str, size_t len, unsigned *cp)
{
	const unsigned char *s = (const unsigned char *)str;
	unsigned c, min;
	size_t n;

	if (len == 0)
		return 0;
	c = s[0];
	if (c < 0x80) {
		*cp = c;
		return 1;
	} else if (c >= 0xc2 && c <= 0xdf) {
		n = 2, c &= 0x1f, min = 0x80;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3, c &= 0x0f, min = 0x800;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4, c &= 0x07, min = 0x10000;
	} else {
		return 0;
	}
	if (len < n)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return n;
}

int text_utf8_valid(const char *s, size_t len)
{
	unsigned cp;

	for (size_t i = 0; i < len;) {
		size_t n = text_utf8_decode(s + i, len - i, &cp);
		if (n == 0)
			return 0;
		i += n;
	}
	return 1;
}

size_t text_utf8_count(const char *s, size_t len)
{
	size_t count = 0;
	unsigned cp;

	for (size_t i = 0; i < len; count++) {
		size_t n = text_utf8_decode(s + i, len - i, &cp);
		i += n ? n : 1;
	}
	return count;
}

size_t text_utf8_clip(const char *s, size_t len, size_t max)
{
	size_t end = 0;
	unsigned cp;

	while (end < len) {
		size_t n = text_utf8_decode(s + end, len - end, &cp);
		if (n == 0)
			n = 1;
		if (end + n > max)
			break;
		end += n;
	}
	return end;
}

/* Characters a terminal interprets or that reorder what a reader sees. */
static int is_invisible_control(unsigned cp)
{
	return (cp >= 0x80 && cp <= 0x9f) ||      /* C1, including CSI (0x9b) */
	       (cp >= 0x202a && cp <= 0x202e) || /* bidi embeddings and overrides */
	       (cp >= 0x2066 && cp <= 0x2069) || /* bidi isolates */
	       cp == 0x200e || cp == 0x200f || cp == 0x061c || cp == 0xfeff;
}

int text_has_control(const char *s, size_t len)
{
	unsigned cp;

	for (size_t i = 0; i < len;) {
		size_t n = text_utf8_decode(s + i, len - i, &cp);
		if (n == 0 || cp < 0x20 || cp == 0x7f || is_invisible_control(cp))
			return 1;
		i += n;
	}
	return 0;
}

void text_safe(struct buf *out, const char *s, size_t len, unsigned flags)
{
	unsigned cp;

	for (size_t i = 0; i < len;) {
		unsigned char c = (unsigned char)s[i];
		size_t n = text_utf8_decode(s + i, len - i, &cp);

		if (n == 0) {
			buf_printf(out, "\\x%02x", c);
			i++;
			continue;
		}
		if (cp == 0x1b) {
			buf_adds(out, "\\e");
		} else if ((cp == '\n' || cp == '\t') && (flags & TEXT_KEEP_NEWLINES)) {
			buf_addc(out, (char)cp);
		} else if (cp < 0x20 || cp == 0x7f) {
			buf_printf(out, "\\x%02x", cp);
		} else if (is_invisible_control(cp)) {
			buf_printf(out, "\\u%04x", cp);
		} else {
			buf_add(out, s + i, n);
		}
		i += n;
	}
}

void text_printn(FILE *f, const char *s, size_t len, unsigned flags)
{
	struct buf b = BUF_INIT;

	text_safe(&b, s, len, flags);
	fwrite(buf_str(&b), 1, b.len, f);
	buf_free(&b);
}

void text_print(FILE *f, const char *s, unsigned flags)
{
	text_printn(f, s, strlen(s), flags);
}

size_t text_utf8_encode(unsigned cp, char out[4])
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xc0 | (cp >> 6));
		out[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xe0 | (cp >> 12));
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		out[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | (cp >> 18));
	out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	out[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* Unicode White_Space, the set docs/protocol/files.md §6 trims. */
static int is_space(unsigned cp)
{
	return (cp >= 0x09 && cp <= 0x0d) || cp == 0x20 || cp == 0x85 || cp == 0xa0 ||
	       cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200a) || cp == 0x2028 ||
	       cp == 0x2029 || cp == 0x202f || cp == 0x205f || cp == 0x3000;
}

/* Length of the whitespace character that ends s[0..len), or 0. */
static size_t space_before(const char *s, size_t len)
{
	for (size_t k = 1; k <= 4 && k <= len; k++) {
		unsigned cp;
		size_t n = text_utf8_decode(s + len - k, k, &cp);
		if (n == k)
			return is_space(cp) ? k : 0;
	}
	return 0;
}

void text_trim(const char *s, size_t len, size_t *off, size_t *n)
{
	size_t a = 0, b = len;
	unsigned cp;

	while (a < b) {
		size_t k = text_utf8_decode(s + a, b - a, &cp);
		if (k == 0 || !is_space(cp))
			break;
		a += k;
	}
	while (b > a) {
		size_t k = space_before(s + a, b - a);
		if (k == 0)
			break;
		b -= k;
	}
	*off = a;
	*n = b - a;
}

int text_blank(const char *s)
{
	return text_blank_n(s, s ? strlen(s) : 0);
}

int text_blank_n(const char *s, size_t len)
{
	size_t off, n;

	if (!s)
		return 1;
	text_trim(s, len, &off, &n);
	return n == 0;
}

int text_hex_digit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int text_color_ok(FILE *f)
{
	const char *nc = getenv("NO_COLOR");

	if (nc && *nc)
		return 0;
	return isatty(fileno(f));
}
