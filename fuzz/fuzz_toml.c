/*
 * fuzz_toml — base/toml reads config.toml and every request-type manifest,
 * and a manifest arrives over the network (PUT /v1/types). Whatever the bytes
 * (libFuzzer hands exactly `size`, no NUL), the reader returns a tree or an
 * error naming the file and a line: never a crash, a leak, a read past the
 * buffer or a stack exhausted by nesting.
 *
 * And decoding is stable: a tree it accepts, written back out as TOML by the
 * small encoder below (every key quoted, every string a basic string with
 * escapes, tables as headers, arrays of tables as [[headers]], the rest
 * inline), decodes again to the same typed values — toml-test's typed JSON,
 * where every scalar carries its type and its exact spelling (base/toml's
 * toml_to_tagged_json, as toml-test's decoder prints it). The one
 * difference allowed: the text written may exceed a limit of the reader (the
 * parts of a key, the depth of nesting) that the original did not.
 */
#include "base/buf.h"
#include "base/err.h"
#include "base/toml.h"

#include <jansson.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* ---- comparing two decodings ------------------------------------------------ */

/* json_equal, also for keys that hold a NUL byte (jansson's looks keys up only to it). */
static int same(const json_t *a, const json_t *b)
{
	const char *k;
	size_t klen, i;
	json_t *v;

	if (json_typeof(a) != json_typeof(b))
		return 0;
	if (json_is_object(a)) {
		if (json_object_size(a) != json_object_size(b))
			return 0;
		json_object_keylen_foreach((json_t *)a, k, klen, v)
			if (!json_object_getn(b, k, klen) || !same(v, json_object_getn(b, k, klen)))
				return 0;
		return 1;
	}
	if (json_is_array(a)) {
		if (json_array_size(a) != json_array_size(b))
			return 0;
		json_array_foreach(a, i, v)
			if (!same(v, json_array_get(b, i)))
				return 0;
		return 1;
	}
	return json_equal(a, b);
}

/* ---- the encoder -------------------------------------------------------------- */

static void quoted(struct buf *b, const char *s, size_t len)
{
	buf_addc(b, '"');
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '"' || c == '\\')
			buf_printf(b, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			buf_printf(b, "\\u%04x", c);
		else
			buf_addc(b, (char)c);
	}
	buf_addc(b, '"');
}

static void key_path(struct buf *b, const struct buf *path, const struct toml_entry *k)
{
	buf_add(b, path->data ? path->data : "", path->len);
	if (path->len)
		buf_addc(b, '.');
	quoted(b, k->key, k->keylen);
}

static int table_array(const struct toml_value *v)
{
	if (v->type != TOML_ARRAY || v->u.array.n == 0)
		return 0;
	for (size_t i = 0; i < v->u.array.n; i++)
		if (v->u.array.items[i]->type != TOML_TABLE)
			return 0;
	return 1;
}

static void inline_value(struct buf *b, const struct toml_value *v);

static void inline_table(struct buf *b, const struct toml_value *v)
{
	buf_addc(b, '{');
	for (size_t i = 0; i < v->u.table.n; i++) {
		buf_adds(b, i ? ", " : " ");
		quoted(b, v->u.table.items[i].key, v->u.table.items[i].keylen);
		buf_adds(b, " = ");
		inline_value(b, v->u.table.items[i].value);
	}
	buf_adds(b, " }");
}

static void inline_value(struct buf *b, const struct toml_value *v)
{
	char s[64];

	switch (v->type) {
	case TOML_STRING:
		quoted(b, v->u.str.ptr, v->u.str.len);
		return;
	case TOML_INTEGER:
		buf_printf(b, "%lld", v->u.integer);
		return;
	case TOML_FLOAT:
		if (isnan(v->u.real) || isinf(v->u.real)) {
			buf_adds(b, isnan(v->u.real) ? "nan" : v->u.real < 0 ? "-inf" : "inf");
			return;
		}
		snprintf(s, sizeof s, "%.17g", v->u.real);
		buf_printf(b, "%s%s", s, strpbrk(s, ".en") ? "" : ".0"); /* 5 would read as an integer */
		return;
	case TOML_BOOL:
		buf_adds(b, v->u.boolean ? "true" : "false");
		return;
	case TOML_ARRAY:
		buf_addc(b, '[');
		for (size_t i = 0; i < v->u.array.n; i++) {
			buf_adds(b, i ? ", " : "");
			inline_value(b, v->u.array.items[i]);
		}
		buf_addc(b, ']');
		return;
	case TOML_TABLE:
		inline_table(b, v);
		return;
	default:
		toml_datetime_format(v, s);
		buf_adds(b, s);
	}
}

static void table_body(struct buf *b, const struct toml_value *t, const struct buf *path);

/* A table's subtables and arrays of tables, each under its header. */
static void headers(struct buf *b, const struct toml_value *t, const struct buf *path)
{
	for (size_t i = 0; i < t->u.table.n; i++) {
		const struct toml_entry *k = &t->u.table.items[i];
		struct buf sub = BUF_INIT;
		key_path(&sub, path, k);
		if (k->value->type == TOML_TABLE) {
			buf_printf(b, "[%s]\n", buf_str(&sub));
			table_body(b, k->value, &sub);
		} else if (table_array(k->value)) {
			for (size_t j = 0; j < k->value->u.array.n; j++) {
				buf_printf(b, "[[%s]]\n", buf_str(&sub));
				table_body(b, k->value->u.array.items[j], &sub);
			}
		}
		buf_free(&sub);
	}
}

/* Plain keys first (they belong to the header above them), then the headers. */
static void table_body(struct buf *b, const struct toml_value *t, const struct buf *path)
{
	for (size_t i = 0; i < t->u.table.n; i++) {
		const struct toml_entry *k = &t->u.table.items[i];
		if (k->value->type == TOML_TABLE || table_array(k->value))
			continue;
		quoted(b, k->key, k->keylen);
		buf_adds(b, " = ");
		inline_value(b, k->value);
		buf_addc(b, '\n');
	}
	headers(b, t, path);
}

/* ---- the target --------------------------------------------------------------- */

static void round_trip(const struct toml_value *doc)
{
	struct buf text = BUF_INIT, root = BUF_INIT;
	struct toml_value *again;
	json_t *one, *two;
	struct err e;

	table_body(&text, doc, &root);
	err_clear(&e);
	again = toml_parse(buf_str(&text), text.len, "again.toml", &e);
	if (!again) {
		if (!strstr(e.msg, "more than"))
			__builtin_trap(); /* what it read, written out plainly, it cannot read */
		buf_free(&text);
		return;
	}
	one = toml_to_tagged_json(doc);
	two = toml_to_tagged_json(again);
	if (!same(one, two))
		__builtin_trap(); /* the same document decoded to other values */
	json_decref(one);
	json_decref(two);
	toml_free(again);
	buf_free(&text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct toml_value *doc;
	struct err e;

	err_clear(&e);
	doc = toml_parse((const char *)data, size, "fuzz.toml", &e);
	if (doc) {
		json_t *j = toml_to_json(doc); /* walks every value the reader built */
		if (doc->type != TOML_TABLE || !j)
			__builtin_trap();
		json_decref(j);
		round_trip(doc);
		toml_free(doc);
	} else if (e.code != ERR_PARSE || strncmp(e.msg, "fuzz.toml:", 10) != 0) {
		__builtin_trap(); /* every refusal names the file and a line */
	}
	return 0;
}
