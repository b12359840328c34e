/*
 * buf — a growable byte string, always NUL-terminated.
 *
 * Ownership: a struct buf owns `data`; buf_free releases it, buf_steal hands it
 * to the caller (who frees it with free()). Allocation failure aborts: a
 * half-built message is worse than a clean stop, and every caller would
 * otherwise need the same check.
 */
#ifndef MECHA_BASE_BUF_H
#define MECHA_BASE_BUF_H

#include <stddef.h>

struct buf {
	char *data;
	size_t len;
	size_t cap;
};

#define BUF_INIT { NULL, 0, 0 }

void buf_add(struct buf *b, const void *data, size_t len);
void buf_adds(struct buf *b, const char *s);
void buf_addc(struct buf *b, char c);
void buf_printf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* data as a string; "" when nothing was added (never NULL). Borrowed. */
const char *buf_str(const struct buf *b);
char *buf_steal(struct buf *b);
void buf_reset(struct buf *b);
void buf_free(struct buf *b);

/* strdup that aborts on allocation failure. */
char *xstrdup(const char *s);
/* The first n bytes of s (fewer at a NUL), as a new string. */
char *xstrndup(const char *s, size_t n);
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
/* malloc'd printf. */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
