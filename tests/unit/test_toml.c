/*
 * base/toml: what the conformance suite (tests/cli/test_toml_suite.py) does
 * not pin — the lines every value and table remembers, the wording and line
 * of a refusal, the bounds no input can get past, and the plain-JSON view.
 */
#include <criterion/criterion.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/toml.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct toml_value *parse(const char *text)
{
	struct err e;
	struct toml_value *doc = toml_parse(text, strlen(text), "t.toml", &e);

	cr_assert_not_null(doc, "refused: %s\n%s", e.msg, text);
	return doc;
}

static void refused(const char *text, const char *want)
{
	struct err e;
	struct toml_value *doc;

	err_clear(&e);
	doc = toml_parse(text, strlen(text), "t.toml", &e);
	cr_assert_null(doc, "accepted: %s", text);
	cr_assert_eq(e.code, ERR_PARSE);
	cr_assert(strstr(e.msg, want), "for %s\nwanted '%s' in '%s'", text, want, e.msg);
}

Test(toml, every_value_and_table_remembers_the_line_it_was_written_on)
{
	struct toml_value *doc = parse("a = 1\n\n[t]\nb = [\n 1,\n 2,\n]\nc = { d = 4 }\n"
				       "\n[[list]]\nx = 1\n[[list]]\nx = 2\n[p.q.r]\n");
	const struct toml_value *t = toml_get(doc, "t"), *list = toml_get(doc, "list");

	cr_assert_eq(toml_get(doc, "a")->line, 1);
	cr_assert_eq(t->line, 3);
	cr_assert_eq(toml_get(t, "b")->line, 4, "an array is where its key is");
	cr_assert_eq(toml_get(t, "b")->u.array.items[1]->line, 6);
	cr_assert_eq(toml_get(toml_get(t, "c"), "d")->line, 8);
	cr_assert_eq(list->u.array.items[0]->line, 10);
	cr_assert_eq(toml_get(list->u.array.items[1], "x")->line, 13);
	cr_assert_eq(toml_get(doc, "p")->line, 14, "an implicit table is where a header named it");
	cr_assert(toml_is_array_of_tables(list));
	cr_assert(toml_is_inline(toml_get(t, "c")));
	cr_assert_not(toml_is_inline(t));
	toml_free(doc);
}

Test(toml, a_refusal_names_the_file_and_the_line_where_the_problem_is)
{
	refused("[mail]\nfrom = \"a\"\nfrom = \"b\"\n", "t.toml:3: from is set twice");
	refused("[mail]\n[outbox]\n[mail]\n", "t.toml:3: table [mail] is defined twice");
	refused("a.b = 1\n[a.b]\n", "t.toml:2: a.b is already a value");
	refused("x = 1\n\"\\u001b[2J\" = 1\n\"\\u001b[2J\" = 2\n", "t.toml:3: \"\\e[2J\" is set twice");
	refused("s = \"\"\"\none\ntwo\n", "t.toml:4: unterminated string");
	refused("x = [\n1,\n2\n3]\n", "t.toml:4: expected ',' or ']' in an array");
	refused("x = 1\ny = 2 # fine\nz = 3 junk\n", "t.toml:3: unexpected text after the value");
	refused("x = 0300\n", "leading zero");
	refused("x = 1__0\n", "not a value");
	refused("x = 9223372036854775808\n", "too large for 64 bits");
	refused("x = 1e999\n", "too large for 64 bits");
	refused("d = 2023-02-29\n", "2023-02-29 is not a day of the calendar");
	refused("t = { a = 1,\n b = 2 }\n", "t.toml:1: an inline table must close on the line");
	refused("x = \"\\q\"\n", "unknown escape \\q");
}

Test(toml, a_nul_byte_or_bytes_that_are_not_utf8_are_refused_where_they_are)
{
	struct err e;
	const char nul[] = "a = 1\n\nb = \"x\0y\"\n";

	cr_assert_null(toml_parse(nul, sizeof nul - 1, "t.toml", &e));
	cr_assert_str_eq(e.msg, "t.toml:3: a NUL byte");
	refused("a = 1\n# caf\xe9\n", "t.toml:2: bytes that are not valid UTF-8");
}

Test(toml, integers_span_64_bits_in_four_bases)
{
	struct toml_value *doc = parse("min = -9223372036854775808\nmax = 9_223_372_036_854_775_807\n"
				       "h = 0xDEAD_beef\no = 0o755\nb = 0b1010\n");

	cr_assert_eq(toml_get(doc, "min")->u.integer, INT64_MIN);
	cr_assert_eq(toml_get(doc, "max")->u.integer, INT64_MAX);
	cr_assert_eq(toml_get(doc, "h")->u.integer, 0xdeadbeef);
	cr_assert_eq(toml_get(doc, "o")->u.integer, 0755);
	cr_assert_eq(toml_get(doc, "b")->u.integer, 10);
	toml_free(doc);
	refused("x = -0x1\n", "not a value");
	refused("x = 0X1\n", "not a value");
}

Test(toml, strings_of_all_four_kinds_decode_as_toml_says)
{
	struct toml_value *doc = parse("a = \"tab\\there \\e\"\nb = 'C:\\no\\escape'\n"
				       "c = \"\"\"\r\nline one\r\nline two \\\r\n    joined\"\"\"\n"
				       "d = '''\n''two'' quotes'''''\n"
				       "\"\\u0000k\" = \"\\u0000\"\n");
	const struct toml_value *e = doc->u.table.items[4].value;

	cr_assert_str_eq(toml_get(doc, "a")->u.str.ptr, "tab\there \x1b");
	cr_assert_str_eq(toml_get(doc, "b")->u.str.ptr, "C:\\no\\escape");
	cr_assert_str_eq(toml_get(doc, "c")->u.str.ptr, "line one\nline two joined",
			 "CRLF becomes LF, and a line-ending backslash joins");
	cr_assert_str_eq(toml_get(doc, "d")->u.str.ptr, "''two'' quotes''");
	cr_assert_eq(doc->u.table.items[4].keylen, 2, "a key may hold a NUL");
	cr_assert_eq(e->u.str.len, 1);
	toml_free(doc);
}

Test(toml, nesting_and_long_keys_are_bounded_not_a_crash)
{
	struct buf b = BUF_INIT;
	struct toml_value *doc;
	struct err e;

	buf_adds(&b, "x = ");
	for (int i = 0; i < 100000; i++)
		buf_addc(&b, '[');
	doc = toml_parse(b.data, b.len, "t.toml", &e);
	cr_assert_null(doc);
	cr_assert(strstr(e.msg, "nested more than"), "%s", e.msg);
	buf_reset(&b);
	buf_addc(&b, '[');
	for (int i = 0; i < 1000; i++)
		buf_adds(&b, i ? ".a" : "a");
	buf_adds(&b, "]\n");
	cr_assert_null(toml_parse(b.data, b.len, "t.toml", &e));
	cr_assert(strstr(e.msg, "more than 64 parts"), "%s", e.msg);
	buf_free(&b);
}

Test(toml, a_big_table_finds_every_key_and_every_duplicate)
{
	struct buf b = BUF_INIT;
	struct toml_value *doc;
	struct err e;

	for (int i = 0; i < 5000; i++)
		buf_printf(&b, "k%d = %d\n", i, i);
	doc = toml_parse(b.data, b.len, "t.toml", &e);
	cr_assert_not_null(doc, "%s", e.msg);
	cr_assert_eq(doc->u.table.n, 5000);
	cr_assert_eq(toml_get(doc, "k4321")->u.integer, 4321);
	cr_assert_null(toml_get(doc, "k5000"));
	toml_free(doc);
	buf_adds(&b, "k2500 = 0\n");
	cr_assert_null(toml_parse(b.data, b.len, "t.toml", &e));
	cr_assert(strstr(e.msg, "t.toml:5001: k2500 is set twice"), "%s", e.msg);
	buf_free(&b);
}

Test(toml, the_plain_json_view_keeps_order_types_and_spells_dates)
{
	struct toml_value *doc = parse("z = 1\na = [1.5, true, 'x']\nw = 1979-05-27T07:32:00.5-07:00\n"
				       "f = nan\n[t]\nq = 00:32:00\n");
	json_t *j = toml_to_json(doc);
	char *s = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);

	cr_assert_str_eq(s, "{\"z\":1,\"a\":[1.5,true,\"x\"],\"w\":\"1979-05-27T07:32:00.5-07:00\","
			    "\"f\":null,\"t\":{\"q\":\"00:32:00\"}}");
	free(s);
	json_decref(j);
	toml_free(doc);
}

Test(toml, the_typed_json_view_keeps_each_type_its_spelling_and_a_key_with_a_nul)
{
	struct toml_value *doc = parse("\"a\\u0000b\" = -inf\nn = nan\ni = 0x10\nd = 1979-05-27\n"
				       "t = 07:32:00.25\nl = 1979-05-27T07:32:00\n"
				       "o = 1979-05-27T07:32:00Z\ns = [true, 'x']\n");
	json_t *j = toml_to_tagged_json(doc);
	char *s = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);

	cr_assert_str_eq(s, "{\"a\\u0000b\":{\"type\":\"float\",\"value\":\"-inf\"},"
			    "\"n\":{\"type\":\"float\",\"value\":\"nan\"},"
			    "\"i\":{\"type\":\"integer\",\"value\":\"16\"},"
			    "\"d\":{\"type\":\"date-local\",\"value\":\"1979-05-27\"},"
			    "\"t\":{\"type\":\"time-local\",\"value\":\"07:32:00.25\"},"
			    "\"l\":{\"type\":\"datetime-local\",\"value\":\"1979-05-27T07:32:00\"},"
			    "\"o\":{\"type\":\"datetime\",\"value\":\"1979-05-27T07:32:00Z\"},"
			    "\"s\":[{\"type\":\"bool\",\"value\":\"true\"},"
			    "{\"type\":\"string\",\"value\":\"x\"}]}");
	cr_assert_not_null(json_object_getn(j, "a\0b", 3), "the key keeps its NUL and what follows");
	free(s);
	json_decref(j);
	toml_free(doc);
}
