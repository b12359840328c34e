/*
 * toml_decode — the decoder toml-test drives: reads a TOML file (argv[1], or
 * stdin) with base/toml and prints it as toml-test's typed JSON ({"type":
 * "integer", "value": "1"} for every scalar, arrays as JSON arrays, tables as
 * objects). A refusal prints the error on stderr and exits 1.
 */
#include "base/buf.h"
#include "base/err.h"
#include "base/fs.h"
#include "base/toml.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static json_t *typed(const char *type, const char *value)
{
	return json_pack("{s:s,s:s}", "type", type, "value", value);
}

static json_t *scalar(const struct toml_value *v)
{
	static const char *const dt_types[] = { [TOML_DATETIME] = "datetime",
						[TOML_DATETIME_LOCAL] = "datetime-local",
						[TOML_DATE_LOCAL] = "date-local",
						[TOML_TIME_LOCAL] = "time-local" };
	char s[64];

	switch (v->type) {
	case TOML_STRING:
		return json_pack("{s:s,s:s%}", "type", "string", "value", v->u.str.ptr, v->u.str.len);
	case TOML_INTEGER:
		snprintf(s, sizeof s, "%lld", v->u.integer);
		return typed("integer", s);
	case TOML_FLOAT:
		if (isnan(v->u.real))
			snprintf(s, sizeof s, "nan");
		else if (isinf(v->u.real))
			snprintf(s, sizeof s, "%sinf", v->u.real < 0 ? "-" : "");
		else
			snprintf(s, sizeof s, "%.17g", v->u.real);
		return typed("float", s);
	case TOML_BOOL:
		return typed("bool", v->u.boolean ? "true" : "false");
	default:
		toml_datetime_format(v, s);
		return typed(dt_types[v->type], s);
	}
}

static json_t *tagged(const struct toml_value *v)
{
	json_t *o;

	if (v->type == TOML_ARRAY) {
		o = json_array();
		for (size_t i = 0; i < v->u.array.n; i++)
			json_array_append_new(o, tagged(v->u.array.items[i]));
		return o;
	}
	if (v->type != TOML_TABLE)
		return scalar(v);
	o = json_object();
	for (size_t i = 0; i < v->u.table.n; i++)
		json_object_setn_new(o, v->u.table.items[i].key, v->u.table.items[i].keylen,
				     tagged(v->u.table.items[i].value));
	return o;
}

static char *read_all(FILE *f, size_t *len)
{
	struct buf b = BUF_INIT;
	char chunk[4096];
	size_t n;

	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		buf_add(&b, chunk, n);
	*len = b.len;
	return b.data ? buf_steal(&b) : xstrdup("");
}

int main(int argc, char **argv)
{
	FILE *f = argc > 1 ? fopen(argv[1], "rb") : stdin;
	struct toml_value *doc;
	struct err e;
	json_t *out;
	size_t len;
	char *text;

	if (!f) {
		perror(argv[1]);
		return 2;
	}
	text = read_all(f, &len);
	doc = toml_parse(text, len, argc > 1 ? argv[1] : "stdin", &e);
	free(text);
	if (!doc) {
		fprintf(stderr, "%s\n", e.msg);
		return 1;
	}
	out = tagged(doc);
	toml_free(doc);
	json_dumpf(out, stdout, JSON_INDENT(1) | JSON_SORT_KEYS);
	putchar('\n');
	json_decref(out);
	return 0;
}
