/*
 * view — the parts of a draft, sorted into what a person reads first.
 */
#include "outbox/view.h"

#include "base/buf.h"
#include "base/jsonio.h"
#include "base/linediff.h"

#include <stdlib.h>
#include <string.h>

static int in_headers(const char *key, const char *body_key)
{
	return strcmp(key, "to") == 0 || strcmp(key, "cc") == 0 || strcmp(key, "subject") == 0 ||
	       (body_key && strcmp(key, body_key) == 0);
}

void outbox_view_make(const struct outbox_item *it, struct outbox_view *v)
{
	const json_t *args = it->args;
	const char *key;
	json_t *x;

	memset(v, 0, sizeof *v);
	v->object = json_is_object(args);
	if (!v->object)
		return;
	v->to = json_object_get(args, "to");
	v->cc = json_object_get(args, "cc");
	v->subject = json_object_get(args, "subject");
	v->body_key = outbox_item_body_key(args);
	v->body = v->body_key ? json_object_get(args, v->body_key) : NULL;
	v->others = xcalloc(json_object_size(args) + 1, sizeof *v->others);
	json_object_foreach((json_t *)args, key, x)
		if (!in_headers(key, v->body_key))
			v->others[v->nothers++] = key;
}

void outbox_view_free(struct outbox_view *v)
{
	free(v->others);
	memset(v, 0, sizeof *v);
}

/* A text made for the diff (the diff owns it). */
static const char *made_text(struct outbox_diff *d, const json_t *v, size_t *len)
{
	char *s = v ? jsonio_pretty(v) : xstrdup("(absent)");

	d->made = xrealloc(d->made, (d->nmade + 1) * sizeof *d->made);
	d->made[d->nmade++] = s;
	*len = strlen(s);
	return s;
}

static void diff_value(struct outbox_diff *d, const char *key, const json_t *before,
		       const json_t *after)
{
	size_t alen, blen;
	const char *a, *b;
	struct linediff ld;

	/* Two strings are diffed as the text they hold; anything else as JSON, both sides alike. */
	if (json_is_string(before) && json_is_string(after)) {
		a = json_string_value(before), alen = json_string_length(before);
		b = json_string_value(after), blen = json_string_length(after);
	} else {
		a = made_text(d, before, &alen);
		b = made_text(d, after, &blen);
	}

	linediff_compute(a, alen, b, blen, &ld);
	d->lines = xrealloc(d->lines, (d->n + ld.n) * sizeof *d->lines);
	for (size_t i = 0; i < ld.n; i++) {
		struct outbox_diff_line *l = &d->lines[d->n++];
		l->key = key;
		l->sign = ld.lines[i].sign;
		l->text = ld.lines[i].text;
		l->len = ld.lines[i].len;
	}
	linediff_free(&ld);
}

void outbox_diff_make(const struct outbox_item *it, struct outbox_diff *d)
{
	const char *key;
	json_t *v;

	memset(d, 0, sizeof *d);
	if (json_equal(it->args, it->args_before))
		return;
	if (!json_is_object(it->args) || !json_is_object(it->args_before)) {
		diff_value(d, "args", it->args_before, it->args);
		return;
	}
	json_object_foreach(it->args_before, key, v) {
		json_t *now = json_object_get(it->args, key);
		if (!now || !json_equal(v, now))
			diff_value(d, key, v, now);
	}
	json_object_foreach(it->args, key, v)
		if (!json_object_get(it->args_before, key))
			diff_value(d, key, NULL, v);
}

void outbox_diff_free(struct outbox_diff *d)
{
	for (size_t i = 0; i < d->nmade; i++)
		free(d->made[i]);
	free(d->made);
	free(d->lines);
	memset(d, 0, sizeof *d);
}
