/*
 * decode — serde's reading of a TOML tree, in C, collecting instead of
 * stopping at the first problem.
 */
#include "types/decode.h"

#include "base/buf.h"
#include "base/text.h"
#include "base/toml.h"
#include "types/manifest.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void decode_issue(struct decode *d, int line, const char *fmt, ...)
{
	struct manifest_issues *is = d->issues;
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		abort();
	va_end(ap);
	is->v = xrealloc(is->v, (is->n + 1) * sizeof *is->v);
	is->v[is->n].line = line;
	is->v[is->n].message = msg;
	is->n++;
}

int decode_clean(const struct decode *d)
{
	return d->issues->n == d->before;
}

/* "`a`", "`a` or `b`", "one of `a`, `b`, `c`" (serde's list), malloc'd. */
static char *decode_expected(const char *const *names)
{
	struct buf b = BUF_INIT;
	size_t n = 0;

	while (names[n])
		n++;
	if (n == 0)
		return xstrdup("there are no fields");
	if (n > 2)
		buf_adds(&b, "one of ");
	for (size_t i = 0; i < n; i++)
		buf_printf(&b, "%s`%s`", i == 0 ? "" : n == 2 ? " or " : ", ", names[i]);
	return buf_steal(&b);
}

/* A name from the file, safe to quote in a message. */
static char *safe(const char *s, size_t len)
{
	struct buf b = BUF_INIT;

	text_safe(&b, s, len, 0);
	return buf_steal(&b);
}

/* What serde calls a value it did not expect: "string \"x\"", "integer `5`", "map" … */
static char *decode_unexpected(const struct toml_value *v)
{
	char when[48], *s, *out;

	switch (v->type) {
	case TOML_STRING:
		s = safe(v->u.str.ptr, v->u.str.len);
		out = xasprintf("string \"%s\"", s);
		free(s);
		return out;
	case TOML_INTEGER:
		return xasprintf("integer `%lld`", v->u.integer);
	case TOML_FLOAT:
		return xasprintf("floating point `%g`", v->u.real);
	case TOML_BOOL:
		return xasprintf("boolean `%s`", v->u.boolean ? "true" : "false");
	case TOML_ARRAY:
		return xstrdup("sequence");
	case TOML_TABLE:
		return xstrdup("map");
	default:
		toml_datetime_format(v, when);
		return xasprintf("datetime `%s`", when);
	}
}

void decode_wrong_type(struct decode *d, const struct toml_value *v, const char *expected)
{
	char *u = decode_unexpected(v);

	decode_issue(d, v->line, "invalid type: %s, expected %s", u, expected);
	free(u);
}

void decode_deny_unknown(struct decode *d, const struct toml_value *t, const char *const *allowed)
{
	for (size_t i = 0; i < t->u.table.n; i++) {
		const struct toml_entry *en = &t->u.table.items[i];
		size_t k = 0;
		char *name, *exp;
		while (allowed[k] && !(strlen(allowed[k]) == en->keylen &&
				       memcmp(allowed[k], en->key, en->keylen) == 0))
			k++;
		if (allowed[k])
			continue;
		name = safe(en->key, en->keylen);
		exp = decode_expected(allowed);
		decode_issue(d, en->value->line, "unknown field `%s`, expected %s", name, exp);
		free(exp);
		free(name);
	}
}

const struct toml_value *decode_get(struct decode *d, const struct toml_value *t, const char *key,
				    int required)
{
	const struct toml_value *v = toml_get(t, key);

	if (!v && required)
		decode_issue(d, t->line, "missing field `%s`", key);
	return v;
}

char *decode_string(struct decode *d, const struct toml_value *t, const char *key, int required)
{
	const struct toml_value *v = decode_get(d, t, key, required);

	if (!v)
		return NULL;
	if (v->type != TOML_STRING) {
		decode_wrong_type(d, v, "a string");
		return NULL;
	}
	if (memchr(v->u.str.ptr, '\0', v->u.str.len)) {
		decode_issue(d, v->line, "`%s` holds a NUL character", key);
		return NULL;
	}
	return xstrdup(v->u.str.ptr);
}

int decode_uint(struct decode *d, const struct toml_value *t, const char *key, int required,
		const char *type, long long max, long long *out)
{
	const struct toml_value *v = decode_get(d, t, key, required);

	if (!v)
		return required ? -1 : 0;
	if (v->type != TOML_INTEGER) {
		decode_wrong_type(d, v, type);
		return -1;
	}
	if (v->u.integer < 0 || v->u.integer > max) {
		decode_issue(d, v->line, "invalid value: integer `%lld`, expected %s", v->u.integer,
			     type);
		return -1;
	}
	*out = v->u.integer;
	return 0;
}

int decode_int(struct decode *d, const struct toml_value *t, const char *key, long long *out)
{
	const struct toml_value *v = toml_get(t, key);

	if (!v)
		return 0;
	if (v->type != TOML_INTEGER) {
		decode_wrong_type(d, v, "i64");
		return -1;
	}
	*out = v->u.integer;
	return 1;
}

int decode_bool(struct decode *d, const struct toml_value *t, const char *key, int *out)
{
	const struct toml_value *v = toml_get(t, key);

	if (!v)
		return 0;
	if (v->type != TOML_BOOL) {
		decode_wrong_type(d, v, "a boolean");
		return -1;
	}
	*out = v->u.boolean;
	return 0;
}

const struct toml_value *decode_table(struct decode *d, const struct toml_value *t,
				      const char *key, int required, const char *what)
{
	const struct toml_value *v = decode_get(d, t, key, required);
	char *exp;

	if (!v || v->type == TOML_TABLE)
		return v;
	exp = xasprintf("struct %s", what);
	decode_wrong_type(d, v, exp);
	free(exp);
	return NULL;
}

const struct toml_value *decode_array(struct decode *d, const struct toml_value *t,
				      const char *key, int required)
{
	const struct toml_value *v = decode_get(d, t, key, required);

	if (!v || v->type == TOML_ARRAY)
		return v;
	decode_wrong_type(d, v, "a sequence");
	return NULL;
}

char **decode_strings(struct decode *d, const struct toml_value *a, size_t *n)
{
	char **out = xcalloc(a->u.array.n + 1, sizeof *out);

	*n = 0;
	for (size_t i = 0; i < a->u.array.n; i++) {
		const struct toml_value *v = a->u.array.items[i];
		if (v->type != TOML_STRING)
			decode_wrong_type(d, v, "a string");
		else if (memchr(v->u.str.ptr, '\0', v->u.str.len))
			decode_issue(d, v->line, "a string holds a NUL character");
		else
			out[(*n)++] = xstrdup(v->u.str.ptr);
	}
	return out;
}

int decode_variant(struct decode *d, int line, const char *s, const char *const *variants)
{
	char *name, *exp;

	for (int i = 0; variants[i]; i++)
		if (strcmp(s, variants[i]) == 0)
			return i;
	name = safe(s, strlen(s));
	exp = decode_expected(variants);
	decode_issue(d, line, "unknown variant `%s`, expected %s", name, exp);
	free(exp);
	free(name);
	return -1;
}
