/*
 * toml_decode — the decoder toml-test drives: reads a TOML file (argv[1], or
 * stdin) with base/toml and prints it as toml-test's typed JSON ({"type":
 * "integer", "value": "1"} for every scalar, arrays as JSON arrays, tables as
 * objects; base/toml's toml_to_tagged_json). A refusal prints the error on
 * stderr and exits 1.
 */
#include "base/buf.h"
#include "base/err.h"
#include "base/fs.h"
#include "base/toml.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

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
	out = toml_to_tagged_json(doc);
	toml_free(doc);
	json_dumpf(out, stdout, JSON_INDENT(1) | JSON_SORT_KEYS);
	putchar('\n');
	json_decref(out);
	return 0;
}
