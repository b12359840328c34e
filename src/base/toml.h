/*
 * toml — a TOML 1.0 reader: text in, a tree of typed values out, or one
 * error naming the file and the line.
 *
 * Every TOML file mecha reads (config.toml, request-type manifests) goes
 * through here, so there is one grammar and one set of messages. The reader
 * is the whole of TOML 1.0 — four kinds of string, integers in four bases,
 * floats, booleans, the four date-time kinds, arrays, inline tables, tables,
 * arrays of tables, dotted keys — plus the `\e` escape of TOML 1.1, and it
 * refuses everything TOML refuses (a key set twice, a table defined twice, a
 * dotted key reaching into an inline table …). What a document *means* is
 * the caller's business: config.c and types/ walk the tree, and each value
 * carries the line it was written on so their errors can point at it too.
 * Measured against the toml-test suite (tests/cli/test_toml_suite.py).
 *
 * Calling sequence:
 *     struct err e;
 *     struct toml_value *doc = toml_parse(text, len, "cfg.toml", &e);
 *     if (!doc) return -1;                      // e: "cfg.toml:3: …" (ERR_PARSE)
 *     const struct toml_value *v = toml_get(doc, "title");
 *     if (v && v->type == TOML_STRING) … v->u.str.ptr …
 *     toml_free(doc);
 *
 * Ownership: toml_parse returns a tree the caller frees with toml_free (the
 * root and everything under it). Every pointer the accessors return is
 * BORROWED from that tree. toml_to_json and toml_to_tagged_json return a NEW
 * jansson reference.
 */
#ifndef MECHA_BASE_TOML_H
#define MECHA_BASE_TOML_H

#include <jansson.h>
#include <stddef.h>

struct err;

enum toml_type {
	TOML_STRING,
	TOML_INTEGER,
	TOML_FLOAT,
	TOML_BOOL,
	TOML_DATETIME,       /* offset date-time: 1979-05-27T07:32:00Z */
	TOML_DATETIME_LOCAL, /* 1979-05-27T07:32:00 */
	TOML_DATE_LOCAL,     /* 1979-05-27 */
	TOML_TIME_LOCAL,     /* 07:32:00 */
	TOML_ARRAY,
	TOML_TABLE,
};

struct toml_datetime {
	int year, month, day;     /* TOML_DATETIME, _LOCAL, DATE_LOCAL */
	int hour, minute, second; /* TOML_DATETIME, _LOCAL, TIME_LOCAL */
	char frac[10];            /* fractional-second digits as written ("" when none; at most 9) */
	int offset_minutes;       /* TOML_DATETIME: east of UTC */
	int offset_z;             /* TOML_DATETIME: written as Z rather than ±hh:mm */
};

struct toml_entry {
	char *key; /* may hold NUL bytes ("\u0000" in a quoted key); key[keylen] is NUL */
	size_t keylen;
	struct toml_value *value;
};

struct toml_value {
	enum toml_type type;
	int line;       /* where the value (or the table's header) was written */
	unsigned flags; /* the reader's bookkeeping: how a table or array came to be */
	union {
		struct {
			char *ptr; /* UTF-8; may hold NUL bytes; ptr[len] is NUL */
			size_t len;
		} str;
		long long integer;
		double real;
		int boolean;
		struct toml_datetime dt;
		struct {
			struct toml_value **items;
			size_t n, cap;
		} array;
		struct {
			struct toml_entry *items; /* in the order the document wrote them */
			size_t n, cap;
			size_t *index; /* a hash index once the table grows; private */
			size_t index_cap;
		} table;
	} u;
};

/*
 * Parses text[0..len) (not necessarily NUL-terminated). Returns the root
 * table, or NULL with e set to ERR_PARSE and "FILE:LINE: what is wrong".
 */
struct toml_value *toml_parse(const char *text, size_t len, const char *file, struct err *e);
void toml_free(struct toml_value *v);

/* The entry of table t called key (NUL-terminated), or NULL (also when t is not a table). */
const struct toml_value *toml_get(const struct toml_value *t, const char *key);
/* "a string", "an integer", "a float", "a boolean", "an offset date-time", …, "a table". */
const char *toml_type_name(enum toml_type type);
/* 1 when a table was written inline ({ … }) or an array of tables as [[…]]. */
int toml_is_inline(const struct toml_value *v);
int toml_is_array_of_tables(const struct toml_value *v);

/* A date-time, date or time in its TOML/RFC 3339 spelling (T separator, Z upper case). */
void toml_datetime_format(const struct toml_value *v, char out[48]);

/*
 * The value as plain JSON: strings, integers, floats (inf and nan become
 * null, which JSON lacks), booleans, arrays, objects; date-times as their
 * TOML spelling. A key holding a NUL byte is cut at it. NEW reference.
 */
json_t *toml_to_json(const struct toml_value *v);

/*
 * The value as toml-test's typed JSON, which keeps what plain JSON loses:
 * every scalar becomes {"type": "integer", "value": "1"} (its type and exact
 * spelling: "nan", "-inf", a date-time as TOML spells it), arrays stay
 * arrays, tables become objects whose keys keep every byte, NUL included
 * (jansson's setn/getn). For the decoder toml-test drives
 * (tests/support/toml_decode.c) and fuzz_toml's round trip. NEW reference.
 */
json_t *toml_to_tagged_json(const struct toml_value *v);

#endif
