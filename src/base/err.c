/*
 * err — filling a struct err, and the table every code is looked up in.
 * Messages are truncated, never overflowed.
 */
#include "base/err.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

struct err_row {
	const char *name;
	int exit;
	const char *meaning;
};

static const struct err_row rows[ERR_CODE_COUNT] = {
#define ERR_ROW_(id, name, status, meaning) [ERR_##id] = { name, status, meaning },
	ERR_CODES(ERR_ROW_)
#undef ERR_ROW_
};

static const struct err_row *row(enum err_code code)
{
	return (unsigned)code < ERR_CODE_COUNT ? &rows[code] : &rows[ERR_INTERNAL];
}

void err_clear(struct err *e)
{
	if (!e)
		return;
	e->code = ERR_NONE;
	e->msg[0] = '\0';
}

__attribute__((format(printf, 3, 0))) static int vset(struct err *e, enum err_code code,
							const char *fmt, va_list ap)
{
	if (!e)
		return -1;
	e->code = code;
	vsnprintf(e->msg, sizeof e->msg, fmt, ap);
	return -1;
}

int (err_set)(struct err *e, enum err_code code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vset(e, code, fmt, ap);
	va_end(ap);
	return -1;
}

int (err_errno)(struct err *e, const char *fmt, ...)
{
	int saved = errno;
	va_list ap;
	size_t n;

	if (!e)
		return -1;
	va_start(ap, fmt);
	vset(e, ERR_IO, fmt, ap);
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
	if (!e || e->code == ERR_NONE)
		return EXIT_FAIL;
	return row(e->code)->exit;
}

int err_is_refusal(const struct err *e)
{
	return e && e->code != ERR_NONE && row(e->code)->exit == EXIT_REFUSED;
}

const char *err_code_name(enum err_code code)
{
	return code == ERR_NONE ? "error" : row(code)->name;
}

int err_code_exit(enum err_code code)
{
	return row(code)->exit;
}

const char *err_code_meaning(enum err_code code)
{
	return row(code)->meaning;
}

int err_code_lookup(const char *name)
{
	for (int i = 1; i < ERR_CODE_COUNT; i++)
		if (name && strcmp(rows[i].name, name) == 0)
			return i;
	return -1;
}
