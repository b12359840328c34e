/*
 * decode — reading a TOML tree into typed values the way the reference's
 * serde derive does, with serde's words: "missing field `title`", "unknown
 * field `colour`, expected one of `id`, `title`", "invalid type: string
 * \"x\", expected u32". Every problem becomes an issue with the line of the
 * value (or of the table, for a field that is missing); reading goes on, so
 * one pass reports every mistake.
 *
 * Internal to src/types.
 *
 * Ownership: strings returned are malloc'd (the caller frees them); tables
 * and arrays returned are BORROWED from the tree.
 */
#ifndef MECHA_TYPES_DECODE_H
#define MECHA_TYPES_DECODE_H

#include <stddef.h>

struct manifest_issues;
struct toml_value;

struct decode {
	struct manifest_issues *issues;
	size_t before; /* issues when a section began: decode_clean asks whether it added any */
};

void decode_issue(struct decode *d, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* 1 when no issue was added since d->before was set. */
int decode_clean(const struct decode *d);

/* An issue for every key of table t not in allowed (a NULL-terminated list). */
void decode_deny_unknown(struct decode *d, const struct toml_value *t, const char *const *allowed);

/* "invalid type: <what v is>, expected <expected>" at v's line. */
void decode_wrong_type(struct decode *d, const struct toml_value *v, const char *expected);

/*
 * t[key] when it is there and of the right type; NULL otherwise, with an
 * issue when it is missing but required ("missing field") or of the wrong type.
 */
const struct toml_value *decode_get(struct decode *d, const struct toml_value *t, const char *key,
				    int required);
char *decode_string(struct decode *d, const struct toml_value *t, const char *key, int required);
/* An unsigned integer up to max (serde's `u32`, `u64`, `usize`); *out keeps dflt when absent. */
int decode_uint(struct decode *d, const struct toml_value *t, const char *key, int required,
		const char *type, long long max, long long *out);
/* An i64: 1 when set, 0 when absent, -1 on a wrong type. */
int decode_int(struct decode *d, const struct toml_value *t, const char *key, long long *out);
int decode_bool(struct decode *d, const struct toml_value *t, const char *key, int *out);
/* A table (for the struct called what); NULL when absent or not a table (an issue). */
const struct toml_value *decode_table(struct decode *d, const struct toml_value *t,
				      const char *key, int required, const char *what);
/* An array; NULL when absent or not an array (an issue). */
const struct toml_value *decode_array(struct decode *d, const struct toml_value *t,
				      const char *key, int required);
/* Every element of array a as a string (an issue for each that is not); *n of them. */
char **decode_strings(struct decode *d, const struct toml_value *a, size_t *n);
/* The index of s in a NULL-terminated list of variants, or -1 with serde's "unknown variant". */
int decode_variant(struct decode *d, int line, const char *s, const char *const *variants);

#endif
