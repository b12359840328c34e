/*
 * fuzz_box_html — every byte a box page did not spell itself (a stranger's
 * value, a manifest's label, an error message) reaches the page through
 * html_escape (src/box/html.h). Whatever the bytes:
 *
 *   - the output is exactly what the header promises, computed here
 *     independently: & < > " ' as their entities, NUL, controls other than
 *     tab, newline, form feed and carriage return, noncharacters and bytes
 *     that are not UTF-8 each as U+FFFD, everything else as it was;
 *   - so nothing in it can open a tag, close an attribute or start an entity
 *     of its own: no < > " ', and every & begins one of the five entities;
 *   - html_put splices escaped values only where its literal format says,
 *     into element text and a double-quoted attribute alike.
 */
#include "utf8_ref.h"

#include "base/buf.h"
#include "box/html.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replaced(unsigned cp)
{
	if (cp < 0x20)
		return cp != '\t' && cp != '\n' && cp != '\f' && cp != '\r';
	return (cp >= 0x7f && cp <= 0x9f) || (cp >= 0xfdd0 && cp <= 0xfdef) ||
	       (cp & 0xffff) == 0xfffe || (cp & 0xffff) == 0xffff;
}

/* The escape as html.h describes it. */
static void expected(struct buf *b, const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	unsigned cp;

	for (size_t i = 0; i < len;) {
		size_t n = utf8_ref_decode(u + i, len - i, &cp);
		if (n == 0 || replaced(cp))
			buf_adds(b, "\xef\xbf\xbd");
		else if (cp == '&')
			buf_adds(b, "&amp;");
		else if (cp == '<')
			buf_adds(b, "&lt;");
		else if (cp == '>')
			buf_adds(b, "&gt;");
		else if (cp == '"')
			buf_adds(b, "&quot;");
		else if (cp == '\'')
			buf_adds(b, "&#39;");
		else
			buf_add(b, s + i, n);
		i += n ? n : 1;
	}
}

static int starts(const char *p, const char *end, const char *word)
{
	size_t n = strlen(word);

	return (size_t)(end - p) >= n && memcmp(p, word, n) == 0;
}

/* Nothing that markup would read as its own. */
static void check_inert(const char *s, size_t len)
{
	static const char *const entities[] = { "&amp;", "&lt;", "&gt;", "&quot;", "&#39;" };

	for (const char *p = s, *end = s + len; p < end; p++) {
		int ok = 0;
		if (*p == '<' || *p == '>' || *p == '"' || *p == '\'' || *p == '\0')
			__builtin_trap();
		if (*p != '&')
			continue;
		for (size_t i = 0; i < sizeof entities / sizeof entities[0]; i++)
			ok |= starts(p, end, entities[i]);
		if (!ok)
			__builtin_trap();
	}
}

static void same(const struct buf *a, const struct buf *b)
{
	if (a->len != b->len || memcmp(buf_str(a), buf_str(b), a->len) != 0)
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	struct buf got = BUF_INIT, want = BUF_INIT;
	char *value;

	html_escape(&got, s, size);
	expected(&want, s, size);
	same(&got, &want);
	check_inert(buf_str(&got), got.len);
	/* html_put: the value as a NUL-terminated string, up to its first NUL */
	value = xstrndup(s, size);
	buf_reset(&got);
	buf_reset(&want);
	html_put(&got, "<p title=\"%s\">%s</p>%d%%", value, value, 7);
	buf_adds(&want, "<p title=\"");
	expected(&want, value, strlen(value));
	buf_adds(&want, "\">");
	expected(&want, value, strlen(value));
	buf_adds(&want, "</p>7%");
	same(&got, &want);
	buf_reset(&got);
	html_text(&got, NULL);
	if (got.len != 0)
		__builtin_trap();
	free(value);
	buf_free(&got);
	buf_free(&want);
	return 0;
}
