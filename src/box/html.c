/*
 * html — escaping, and the format that escapes every value it is given.
 */
#include "box/html.h"

#include "base/buf.h"
#include "base/text.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REPLACEMENT "\xef\xbf\xbd" /* U+FFFD */

/* Code points HTML's parser reports as errors: controls and noncharacters. */
static int unwelcome(unsigned cp)
{
	if (cp < 0x20)
		return cp != '\t' && cp != '\n' && cp != '\f' && cp != '\r';
	if (cp >= 0x7f && cp <= 0x9f)
		return 1;
	return (cp >= 0xfdd0 && cp <= 0xfdef) || (cp & 0xfffe) == 0xfffe;
}

static const char *entity(char c)
{
	switch (c) {
	case '&':
		return "&amp;";
	case '<':
		return "&lt;";
	case '>':
		return "&gt;";
	case '"':
		return "&quot;";
	case '\'':
		return "&#39;";
	default:
		return NULL;
	}
}

void html_escape(struct buf *b, const char *s, size_t len)
{
	size_t i = 0, run = 0; /* s[run..i) is clean and not yet appended */

	while (i < len) {
		unsigned cp;
		size_t n = text_utf8_decode(s + i, len - i, &cp);
		const char *swap = n == 1 ? entity(s[i]) : NULL;

		if (n != 0 && !swap && !unwelcome(cp)) {
			i += n;
			continue;
		}
		buf_add(b, s + run, i - run);
		buf_adds(b, swap ? swap : REPLACEMENT);
		i += n ? n : 1;
		run = i;
	}
	buf_add(b, s + run, i - run);
}

void html_text(struct buf *b, const char *s)
{
	if (s)
		html_escape(b, s, strlen(s));
}

/* One conversion at fmt (just past the '%'); returns how many format bytes it used. */
static size_t convert(struct buf *b, const char *fmt, va_list *ap)
{
	if (fmt[0] == 's') {
		html_text(b, va_arg(*ap, const char *));
		return 1;
	}
	if (fmt[0] == 'd') {
		buf_printf(b, "%d", va_arg(*ap, int));
		return 1;
	}
	if (fmt[0] == 'u') {
		buf_printf(b, "%u", va_arg(*ap, unsigned));
		return 1;
	}
	if (fmt[0] == 'l' && fmt[1] == 'l' && fmt[2] == 'd') {
		buf_printf(b, "%lld", va_arg(*ap, long long));
		return 3;
	}
	if (fmt[0] == 'z' && fmt[1] == 'u') {
		buf_printf(b, "%zu", va_arg(*ap, size_t));
		return 2;
	}
	if (fmt[0] == '%') {
		buf_addc(b, '%');
		return 1;
	}
	fprintf(stderr, "html_put: unsupported conversion %%%c\n", fmt[0]);
	abort();
}

void html_if(struct buf *b, int on, const char *markup)
{
	if (on)
		buf_adds(b, markup);
}

void html_put(struct buf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	while (*fmt) {
		const char *pct = strchr(fmt, '%');
		if (!pct) {
			buf_adds(b, fmt);
			break;
		}
		buf_add(b, fmt, (size_t)(pct - fmt));
		fmt = pct + 1 + convert(b, pct + 1, &ap);
	}
	va_end(ap);
}
