/*
 * wire — the JSON a mission letter travels in, read strictly and written
 * byte for byte the way the reference (serde_json's compact form) writes it.
 *
 * jansson cannot serve here: its integers stop at 2^63-1 while a letter's
 * counters span the whole unsigned 64-bit range, it forgives duplicated keys,
 * and its writer escapes differently. So the letter has a reader and a writer
 * of its own. The reader is a cursor over one buffer: the caller asks for the
 * value it expects next (an object, a string, an unsigned integer …) and the
 * reader refuses anything else with the position of the offending byte. It
 * follows serde_json where the two could differ: no leading zeros, "-0" and
 * any fraction or exponent are not integers, raw control characters and lone
 * surrogates are not strings, whitespace is only space, tab, CR and LF, and
 * nesting stops at 128 levels.
 *
 * The writer's rule (the content id depends on it): no whitespace; `"` and
 * `\` escaped; U+0008, U+0009, U+000A, U+000C, U+000D as \b \t \n \f \r; every
 * other C0 control as \u00xx in lowercase hex; everything else — `/`, DEL,
 * U+2028, any non-ASCII — as raw UTF-8.
 *
 * Ownership: a struct wire borrows its buffer, which must outlive it. Decoded
 * strings go into a caller's struct buf.
 */
#ifndef MECHA_MISSION_WIRE_H
#define MECHA_MISSION_WIRE_H

#include <stddef.h>
#include <stdint.h>

struct buf;

#define WIRE_MAX_DEPTH 128

struct wire {
	const char *start, *p, *end;
	int depth;
	int failed;
	char why[200]; /* the first error, with its byte offset */
};

void wire_init(struct wire *w, const char *data, size_t len);

/* Records the first error (later ones are ignored); always returns -1. */
int wire_fail(struct wire *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* 1 when only whitespace remains. */
int wire_at_end(struct wire *w);
/* Consumes `null` when it comes next: 1 when it did, 0 when another value comes. */
int wire_null(struct wire *w);

/*
 * Objects: wire_object(w) consumes "{"; then wire_key(w, &key) returns 1 with
 * the next key decoded into key (and its ":" consumed), 0 at the closing "}",
 * -1 on a syntax error. The caller reads each value before asking for the next
 * key. Arrays work the same way with wire_array and wire_item (1 = a value
 * follows, 0 = "]").
 */
int wire_object(struct wire *w);
int wire_key(struct wire *w, struct buf *key);
int wire_array(struct wire *w);
int wire_item(struct wire *w);

/* A string, decoded (it may contain NUL bytes; key->len says how long). */
int wire_string(struct wire *w, struct buf *out);
/* An integer literal in [0, max]. */
int wire_u64(struct wire *w, uint64_t max, uint64_t *out);
/* An integer literal in the signed 32-bit range. */
int wire_i32(struct wire *w, int32_t *out);
/* true or false. */
int wire_bool(struct wire *w, int *out);
/* Any value, checked for syntax and thrown away. */
int wire_skip(struct wire *w);

/*
 * The writer. wire_put_string escapes s[0..len), which should be UTF-8; a byte
 * that is not (only our own diagnostics can carry one) becomes U+FFFD so the
 * output stays JSON.
 */
void wire_put_string(struct buf *out, const char *s, size_t len);
void wire_put_cstr(struct buf *out, const char *s);
void wire_put_u64(struct buf *out, uint64_t v);
void wire_put_i64(struct buf *out, int64_t v);
/* `"key":` — keys are ours, plain ASCII. */
void wire_put_key(struct buf *out, const char *key);

/*
 * JSON text json[0..len) (as the writer made it) with DEL and every non-ASCII
 * character escaped as \uXXXX (a surrogate pair above U+FFFF), appended to out:
 * the same document, safe for a terminal, where a bidirectional override or a
 * C1 control inside a string must not reach the screen raw.
 */
void wire_ascii(struct buf *out, const char *json, size_t len);

#endif
