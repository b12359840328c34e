/*
 * buf — growable strings and the allocation wrappers everything else uses.
 */
#include "base/buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void die_oom(void)
{
	fputs("mecha: out of memory\n", stderr);
	abort();
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		die_oom();
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		die_oom();
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (!q)
		die_oom();
	return q;
}

char *xstrdup(const char *s)
{
	char *p = strdup(s ? s : "");

	if (!p)
		die_oom();
	return p;
}

char *xstrndup(const char *s, size_t n)
{
	char *p = strndup(s ? s : "", n);

	if (!p)
		die_oom();
	return p;
}

static void grow(struct buf *b, size_t extra)
{
	size_t need = b->len + extra + 1;

	if (need < b->len)
		die_oom();
	if (need <= b->cap)
		return;
	size_t cap = b->cap ? b->cap : 64;
	while (cap < need)
		cap *= 2;
	b->data = xrealloc(b->data, cap);
	b->cap = cap;
}

void buf_add(struct buf *b, const void *data, size_t len)
{
	grow(b, len);
	if (len)
		memcpy(b->data + b->len, data, len);
	b->len += len;
	b->data[b->len] = '\0';
}

void buf_adds(struct buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

void buf_addc(struct buf *b, char c)
{
	buf_add(b, &c, 1);
}

__attribute__((format(printf, 2, 0))) static void buf_vprintf(struct buf *b, const char *fmt,
								   va_list ap)
{
	va_list cp;
	int n;

	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0)
		return;
	grow(b, (size_t)n);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
}

void buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	buf_vprintf(b, fmt, ap);
	va_end(ap);
}

char *xasprintf(const char *fmt, ...)
{
	struct buf b = BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	buf_vprintf(&b, fmt, ap);
	va_end(ap);
	return buf_steal(&b);
}

const char *buf_str(const struct buf *b)
{
	return b->data ? b->data : "";
}

char *buf_steal(struct buf *b)
{
	char *p = b->data ? b->data : xstrdup("");

	b->data = NULL;
	b->len = b->cap = 0;
	return p;
}

void buf_reset(struct buf *b)
{
	b->len = 0;
	if (b->data)
		b->data[0] = '\0';
}

void buf_free(struct buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}
