/*
 * err — filling a struct err. Messages are truncated, never overflowed.
 */
#include "base/err.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void err_clear(struct err *e)
{
	if (!e)
		return;
	e->kind = ERR_NONE;
	e->code[0] = '\0';
	e->msg[0] = '\0';
}

static void set_code(struct err *e, enum err_kind kind, const char *code)
{
	e->kind = kind;
	snprintf(e->code, sizeof e->code, "%s", code ? code : "");
}

__attribute__((format(printf, 4, 0))) static int vset(struct err *e, enum err_kind kind, const char *code, const char *fmt,
		va_list ap)
{
	if (!e)
		return -1;
	set_code(e, kind, code);
	vsnprintf(e->msg, sizeof e->msg, fmt, ap);
	return -1;
}

int err_set(struct err *e, enum err_kind kind, const char *code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vset(e, kind, code, fmt, ap);
	va_end(ap);
	return -1;
}

int err_fail(struct err *e, const char *code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vset(e, ERR_FAIL, code, fmt, ap);
	va_end(ap);
	return -1;
}

int err_refuse(struct err *e, const char *code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vset(e, ERR_REFUSED, code, fmt, ap);
	va_end(ap);
	return -1;
}

int err_usage(struct err *e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vset(e, ERR_USAGE, "usage", fmt, ap);
	va_end(ap);
	return -1;
}

int err_errno(struct err *e, const char *fmt, ...)
{
	int saved = errno;
	va_list ap;
	size_t n;

	if (!e)
		return -1;
	va_start(ap, fmt);
	vset(e, ERR_FAIL, "io", fmt, ap);
	va_end(ap);
	n = strlen(e->msg);
	snprintf(e->msg + n, sizeof e->msg - n, ": %s", strerror(saved));
	errno = saved;
	return -1;
}

void err_prefix(struct err *e, const char *fmt, ...)
{
	char head[512], old[sizeof e->msg];
	va_list ap;

	if (!e)
		return;
	va_start(ap, fmt);
	vsnprintf(head, sizeof head, fmt, ap);
	va_end(ap);
	memcpy(old, e->msg, sizeof old);
	snprintf(e->msg, sizeof e->msg, "%s: %s", head, old);
}

int err_exit_code(const struct err *e)
{
	switch (e ? e->kind : ERR_FAIL) {
	case ERR_USAGE:
		return EXIT_USAGE;
	case ERR_REFUSED:
		return EXIT_REFUSED;
	default:
		return EXIT_FAIL;
	}
}
