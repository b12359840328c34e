/*
 * chat — the helpers both wire formats lean on, so that a malformed model
 * answer is handled the same way whichever vendor sent it.
 */
#include "provider/chat.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/jsonio.h"
#include "base/text.h"

#include <stdlib.h>
#include <string.h>

#define QUOTE_BYTES 200

json_t *chat_string(const char *s, size_t len)
{
	struct buf clean = BUF_INIT;
	json_t *v;
	size_t i = 0;

	if (text_utf8_valid(s, len)) {
		v = json_stringn(s, len);
		if (!v)
			abort();
		return v;
	}
	/* jansson only holds UTF-8; a stray byte must not lose the whole text. */
	while (i < len) {
		unsigned cp;
		size_t n = text_utf8_decode(s + i, len - i, &cp);

		if (n == 0) {
			buf_adds(&clean, "\xef\xbf\xbd");
			i++;
			continue;
		}
		buf_add(&clean, s + i, n);
		i += n;
	}
	v = json_stringn(buf_str(&clean), clean.len);
	buf_free(&clean);
	if (!v)
		abort();
	return v;
}

int chat_bad_body(struct err *e, const char *why, const char *body, size_t len)
{
	struct buf q = BUF_INIT;
	size_t n = text_utf8_clip(body, len, QUOTE_BYTES);

	if (len == 0)
		buf_adds(&q, "(empty)");
	text_safe(&q, body, n, 0);
	if (n < len)
		buf_adds(&q, "…");
	err_set(e, ERR_PROVIDER_REPLY, "%s; the body begins: %s", why, buf_str(&q));
	buf_free(&q);
	return -1;
}

json_t *chat_parse_object(const char *body, size_t len, const char *what, struct err *e)
{
	json_error_t je;
	json_t *v = json_loadb(body, len, JSON_ALLOW_NUL, &je);
	char *why;

	if (json_is_object(v)) /* NULL when it did not parse */
		return v;
	json_decref(v);
	why = v ? xasprintf("the body is not %s (not a JSON object)", what)
		: xasprintf("the body is not %s (not JSON: %s at line %d, column %d)", what, je.text,
			    je.line, je.column);
	chat_bad_body(e, why, body, len);
	free(why);
	return NULL;
}

void chat_text_add(struct provider_response *r, const char *s, size_t len)
{
	char *t = xmalloc(r->text_len + len + 1);

	if (r->text_len)
		memcpy(t, r->text, r->text_len);
	if (len)
		memcpy(t + r->text_len, s, len);
	t[r->text_len + len] = '\0';
	free(r->text);
	r->text = t;
	r->text_len += len;
}

struct provider_tool_call *chat_call_add(struct provider_response *r)
{
	struct provider_tool_call *c;

	r->calls = xrealloc(r->calls, (r->ncalls + 1) * sizeof *r->calls);
	c = &r->calls[r->ncalls++];
	memset(c, 0, sizeof *c);
	return c;
}

void chat_call_id(struct provider_tool_call *c, const char *id, size_t index)
{
	free(c->id);
	c->id = id && *id ? xstrdup(id) : xasprintf("call_%zu", index);
}

void chat_call_arguments_value(struct provider_tool_call *c, json_t *v)
{
	json_decref(c->arguments);
	c->arguments = NULL;
	free(c->arguments_error);
	c->arguments_error = NULL;
	if (json_is_object(v))
		c->arguments = json_incref(v);
	else
		c->arguments_error = xstrdup("the arguments are not a JSON object");
}

void chat_call_arguments_text(struct provider_tool_call *c, const char *s, size_t len)
{
	json_error_t je;
	json_t *v;
	size_t i = 0;

	free(c->arguments_raw);
	c->arguments_raw = xmalloc(len + 1);
	memcpy(c->arguments_raw, s, len);
	c->arguments_raw[len] = '\0';
	while (i < len && strchr(" \t\r\n", s[i]))
		i++;
	if (i == len) {
		/* Some servers send "" for a call without parameters. */
		v = json_object();
		chat_call_arguments_value(c, v);
		json_decref(v);
		return;
	}
	v = json_loadb(s, len, JSON_ALLOW_NUL, &je);
	if (!v) {
		json_decref(c->arguments);
		c->arguments = NULL;
		free(c->arguments_error);
		c->arguments_error = xasprintf("the arguments are not valid JSON: %s at column %d",
					       je.text, je.column);
		return;
	}
	chat_call_arguments_value(c, v);
	json_decref(v);
}

void chat_call_clear(struct provider_tool_call *c)
{
	free(c->id);
	free(c->name);
	json_decref(c->arguments);
	free(c->arguments_raw);
	free(c->arguments_error);
	memset(c, 0, sizeof *c);
}

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

void chat_call_copy(struct provider_tool_call *dst, const struct provider_tool_call *src)
{
	dst->id = dup_or_null(src->id);
	dst->name = dup_or_null(src->name);
	dst->arguments = src->arguments ? json_deep_copy(src->arguments) : NULL;
	dst->arguments_raw = dup_or_null(src->arguments_raw);
	dst->arguments_error = dup_or_null(src->arguments_error);
}

char *chat_call_arguments_out(const struct provider_tool_call *c)
{
	if (c->arguments_raw)
		return xstrdup(c->arguments_raw);
	if (c->arguments)
		return jsonio_compact(c->arguments);
	return xstrdup("{}");
}
