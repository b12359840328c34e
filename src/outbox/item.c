/*
 * item — reading, checking and editing one draft without losing a byte of
 * what the Rust tool (or a newer version of either) put in it.
 */
#include "outbox/item.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/hash.h"
#include "base/jsonio.h"
#include "base/rfc3339.h"
#include "base/text.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const body_keys[] = { "body_markdown", "body_text", "body", "text" };

static const char *const optional_strings[] = { "summary",     "session_id", "workspace",
						"resolved_at", "reason",     "error",
						"sending_since", "kind" };

static const char *const required_strings[] = { "id", "status", "tool", "created_at" };

/* A string, or NULL for null or absent; -1 for any other type. */
static int opt_str(const json_t *doc, const char *key, const char **out)
{
	json_t *v = json_object_get(doc, key);

	*out = NULL;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_string(v))
		return -1;
	*out = json_string_value(v);
	return 0;
}

static int bind_taint(struct outbox_item *it, struct err *e)
{
	json_t *t = json_object_get(it->doc, "taint");
	json_t *p, *u;

	it->taint_private = it->taint_untrusted = 0;
	if (!t || json_is_null(t))
		return 0;
	if (!json_is_object(t))
		return err_set(e, ERR_UNREADABLE, "taint is not an object");
	p = json_object_get(t, "private");
	u = json_object_get(t, "untrusted");
	if ((p && !json_is_boolean(p)) || (u && !json_is_boolean(u)))
		return err_set(e, ERR_UNREADABLE, "taint.private and taint.untrusted must be booleans");
	it->taint_private = json_is_true(p); /* false when absent: NULL is not true */
	it->taint_untrusted = json_is_true(u);
	return 0;
}

/* Refreshes every view from doc, checking types on the way. */
static int bind(struct outbox_item *it, struct err *e)
{
	const char *s;

	if (!json_is_object(it->doc))
		return err_set(e, ERR_UNREADABLE, "not a JSON object");
	for (size_t i = 0; i < sizeof required_strings / sizeof required_strings[0]; i++)
		if (!json_is_string(json_object_get(it->doc, required_strings[i])))
			return err_set(e, ERR_UNREADABLE, "%s is missing or not a string",
					required_strings[i]);
	for (size_t i = 0; i < sizeof optional_strings / sizeof optional_strings[0]; i++)
		if (opt_str(it->doc, optional_strings[i], &s) != 0)
			return err_set(e, ERR_UNREADABLE, "%s is not a string", optional_strings[i]);
	it->args = json_object_get(it->doc, "args");
	if (!it->args)
		return err_set(e, ERR_UNREADABLE, "args is missing");
	it->args_before = json_object_get(it->doc, "args_before");
	if (!it->args_before)
		it->args_before = it->args;
	it->id = jsonio_str(it->doc, "id");
	/* The id becomes a file name and a Message-ID: it must be safe as both. */
	if (!outbox_item_id_ok(it->id) || strlen(it->id) != json_string_length(json_object_get(
							     it->doc, "id")))
		return err_set(e, ERR_UNREADABLE, "id is not a valid outbox id");
	it->status = jsonio_str(it->doc, "status");
	it->tool = jsonio_str(it->doc, "tool");
	it->created_at = jsonio_str(it->doc, "created_at");
	opt_str(it->doc, "kind", &it->kind);
	if (!it->kind)
		it->kind = OUTBOX_KIND_MESSAGE;
	opt_str(it->doc, "summary", &it->summary);
	if (!it->summary)
		it->summary = "";
	opt_str(it->doc, "session_id", &it->session_id);
	opt_str(it->doc, "workspace", &it->workspace);
	opt_str(it->doc, "resolved_at", &it->resolved_at);
	opt_str(it->doc, "reason", &it->reason);
	opt_str(it->doc, "error", &it->error);
	opt_str(it->doc, "sending_since", &it->sending_since);
	return bind_taint(it, e);
}

int outbox_item_adopt(struct outbox_item *it, json_t *doc, struct err *e)
{
	memset(it, 0, sizeof *it);
	it->doc = doc;
	if (bind(it, e) != 0) {
		outbox_item_free(it);
		return -1;
	}
	return 0;
}

int outbox_item_parse(struct outbox_item *it, const char *data, size_t len, const char *what,
		      struct err *e)
{
	json_t *doc = jsonio_parse(data, len, what, e);

	memset(it, 0, sizeof *it);
	if (!doc) {
		e->code = ERR_UNREADABLE;
		return -1;
	}
	return outbox_item_adopt(it, doc, e);
}

void outbox_item_free(struct outbox_item *it)
{
	json_decref(it->doc);
	memset(it, 0, sizeof *it);
}

/* Views are refreshed after a change the setters made themselves, so it cannot fail. */
static void rebind(struct outbox_item *it)
{
	struct err e;

	if (bind(it, &e) != 0)
		abort(); /* a setter broke the invariant it exists to keep */
}

void outbox_item_set(struct outbox_item *it, const char *key, const char *value)
{
	json_object_set_new(it->doc, key, value ? json_string(value) : json_null());
	rebind(it);
}

void outbox_item_unset(struct outbox_item *it, const char *key)
{
	json_object_del(it->doc, key);
	rebind(it);
}

void outbox_item_set_args(struct outbox_item *it, const json_t *args)
{
	char *summary = outbox_item_summary(it->tool, args);

	json_object_set_new(it->doc, "args", json_deep_copy(args));
	json_object_set_new(it->doc, "summary", json_string(summary));
	free(summary);
	rebind(it);
}

void outbox_item_resolve(struct outbox_item *it, const char *status, const char *reason)
{
	char now[RFC3339_LEN];

	rfc3339_now(now);
	json_object_set_new(it->doc, "status", json_string(status));
	json_object_set_new(it->doc, "resolved_at", json_string(now));
	json_object_set_new(it->doc, "reason", reason ? json_string(reason) : json_null());
	if (strcmp(status, OUTBOX_SENT) == 0)
		json_object_set_new(it->doc, "error", json_null());
	json_object_del(it->doc, "sending_since");
	rebind(it);
}

int outbox_item_pending(const struct outbox_item *it)
{
	return strcmp(it->status, OUTBOX_PENDING) == 0;
}

int outbox_item_tainted(const struct outbox_item *it)
{
	return it->taint_private || it->taint_untrusted;
}

int outbox_item_id_ok(const char *id)
{
	size_t n = strlen(id);

	if (n == 0 || n > OUTBOX_ID_MAX || id[0] == '.')
		return 0;
	for (size_t i = 0; i < n; i++) {
		char c = id[i];
		if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '-' || c == '.'))
			return 0;
	}
	return 1;
}

static int new_id(char out[OUTBOX_ID_LEN + 1], struct err *e)
{
	char hex[9];
	time_t now = time(NULL);
	struct tm tm;

	if (hash_random_hex(hex, 8, e) != 0)
		return -1;
	gmtime_r(&now, &tm);
	snprintf(out, OUTBOX_ID_LEN + 1, "%04d%02d%02dT%02d%02d%02d-%s", tm.tm_year + 1900,
		 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, hex);
	return 0;
}

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

int outbox_item_new(struct outbox_item *it, const struct outbox_draft *d, struct err *e)
{
	char id[OUTBOX_ID_LEN + 1], now[RFC3339_LEN];
	char *summary;
	json_t *doc;

	memset(it, 0, sizeof *it);
	if (new_id(id, e) != 0)
		return -1;
	rfc3339_now(now);
	summary = outbox_item_summary(d->tool, d->args);
	/* The order of §8.1, which is the order the Rust tool writes. */
	doc = json_object();
	json_object_set_new(doc, "id", json_string(id));
	json_object_set_new(doc, "status", json_string(OUTBOX_PENDING));
	json_object_set_new(doc, "tool", json_string(d->tool));
	json_object_set_new(doc, "kind", json_string(d->kind ? d->kind : OUTBOX_KIND_MESSAGE));
	json_object_set_new(doc, "args_before", json_deep_copy(d->args));
	json_object_set_new(doc, "args", json_deep_copy(d->args));
	json_object_set_new(doc, "summary", json_string(summary));
	json_object_set_new(doc, "session_id", str_or_null(d->session_id));
	json_object_set_new(doc, "workspace", str_or_null(d->workspace));
	json_object_set_new(doc, "taint", json_pack("{s:b,s:b}", "private", d->taint_private,
						     "untrusted", d->taint_untrusted));
	json_object_set_new(doc, "created_at", json_string(now));
	json_object_set_new(doc, "resolved_at", json_null());
	json_object_set_new(doc, "reason", json_null());
	json_object_set_new(doc, "error", json_null());
	free(summary);
	return outbox_item_adopt(it, doc, e);
}

/* "a, b" from a string or an array of strings; NULL when there is none. */
static char *recipients(const json_t *to)
{
	struct buf b = BUF_INIT;
	size_t i;
	json_t *v;

	if (json_is_string(to))
		return xstrdup(json_string_value(to));
	if (!json_is_array(to))
		return NULL;
	json_array_foreach(to, i, v) {
		if (!json_is_string(v))
			continue;
		if (b.len)
			buf_adds(&b, ", ");
		buf_adds(&b, json_string_value(v));
	}
	if (!b.len) {
		buf_free(&b);
		return NULL;
	}
	return buf_steal(&b);
}

char *outbox_item_summary(const char *tool, const json_t *args)
{
	struct buf b = BUF_INIT;
	char *to = recipients(json_object_get(args, "to"));
	const char *subject = jsonio_str(args, "subject");
	size_t keep;

	buf_adds(&b, tool);
	if (to)
		buf_printf(&b, " to %s", to);
	if (subject)
		buf_printf(&b, " \xe2\x80\x94 \"%s\"", subject);
	free(to);
	if (b.len <= OUTBOX_SUMMARY_MAX)
		return buf_steal(&b);
	keep = text_utf8_clip(b.data, b.len, OUTBOX_SUMMARY_MAX);
	b.len = keep;
	b.data[keep] = '\0';
	buf_adds(&b, "\xe2\x80\xa6");
	return buf_steal(&b);
}

const char *outbox_item_body_key(const json_t *args)
{
	for (size_t i = 0; i < sizeof body_keys / sizeof body_keys[0]; i++)
		if (json_is_string(json_object_get(args, body_keys[i])))
			return body_keys[i];
	return NULL;
}
