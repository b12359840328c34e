/*
 * toml — one pass over the bytes, straight into the tree.
 *
 * The rules that make TOML more than key = value live in how tables come to
 * be, so every table remembers it (flags below): a [header] defines a table
 * once; a header's parents are implicit until a header of their own defines
 * them; dotted keys define tables that no header may define again; an inline
 * table is sealed whole; only an array made by [[…]] can be appended to by
 * [[…]]. Each refusal stops the parse at once with the line it is on.
 *
 * Bounds, so no input can exhaust the stack: values nest at most
 * TOML_MAX_DEPTH deep and a key has at most TOML_MAX_PARTS parts.
 */
#include "base/toml.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/text.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOML_MAX_DEPTH 64
#define TOML_MAX_PARTS 64
#define TOML_INDEX_FROM 16 /* a table this big gets a hash index */

enum {
	F_IMPLICIT = 1u << 0, /* a parent a header named; a later header may define it */
	F_HEADER = 1u << 1,   /* defined by [header] (or an element of [[…]]) */
	F_DOTTED = 1u << 2,   /* defined by dotted keys */
	F_SEALED = 1u << 3,   /* an inline table, or inside one: nothing may be added */
	F_AOT = 1u << 4,      /* an array made by [[…]] */
};

struct key {
	char *part[TOML_MAX_PARTS];
	size_t len[TOML_MAX_PARTS];
	size_t n;
	int line;
};

struct parser {
	const char *p, *end;
	const char *file;
	int line;
	int depth;
	struct err *e;
	struct toml_value *root, *cur;
};

static int fail(struct parser *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(struct parser *ps, const char *fmt, ...)
{
	char msg[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return err_set(ps->e, ERR_PARSE, "%s:%d: %s", ps->file, ps->line, msg);
}

/* ---- the tree ---------------------------------------------------------------- */

static struct toml_value *value_new(enum toml_type type, int line)
{
	struct toml_value *v = xcalloc(1, sizeof *v);

	v->type = type;
	v->line = line;
	return v;
}

void toml_free(struct toml_value *v)
{
	if (!v)
		return;
	if (v->type == TOML_STRING) {
		free(v->u.str.ptr);
	} else if (v->type == TOML_ARRAY) {
		for (size_t i = 0; i < v->u.array.n; i++)
			toml_free(v->u.array.items[i]);
		free(v->u.array.items);
	} else if (v->type == TOML_TABLE) {
		for (size_t i = 0; i < v->u.table.n; i++) {
			free(v->u.table.items[i].key);
			toml_free(v->u.table.items[i].value);
		}
		free(v->u.table.items);
		free(v->u.table.index);
	}
	free(v);
}

static size_t key_hash(const char *k, size_t len)
{
	size_t h = 1469598103934665603u;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)k[i]) * 1099511628211u;
	return h;
}

/* Index slots hold entry number + 1; 0 is empty. */
static void index_put(struct toml_value *t, size_t entry)
{
	const struct toml_entry *en = &t->u.table.items[entry];
	size_t mask = t->u.table.index_cap - 1, i = key_hash(en->key, en->keylen) & mask;

	while (t->u.table.index[i])
		i = (i + 1) & mask;
	t->u.table.index[i] = entry + 1;
}

static void index_rebuild(struct toml_value *t)
{
	free(t->u.table.index);
	t->u.table.index_cap = 64;
	while (t->u.table.index_cap < t->u.table.n * 2)
		t->u.table.index_cap *= 2;
	t->u.table.index = xcalloc(t->u.table.index_cap, sizeof *t->u.table.index);
	for (size_t i = 0; i < t->u.table.n; i++)
		index_put(t, i);
}

static struct toml_value *table_find(const struct toml_value *t, const char *k, size_t len)
{
	const struct toml_entry *items = t->u.table.items;

	if (t->u.table.index) {
		size_t mask = t->u.table.index_cap - 1, i = key_hash(k, len) & mask;
		for (; t->u.table.index[i]; i = (i + 1) & mask) {
			const struct toml_entry *en = &items[t->u.table.index[i] - 1];
			if (en->keylen == len && memcmp(en->key, k, len) == 0)
				return en->value;
		}
		return NULL;
	}
	for (size_t i = 0; i < t->u.table.n; i++)
		if (items[i].keylen == len && memcmp(items[i].key, k, len) == 0)
			return items[i].value;
	return NULL;
}

/* Adds k = v to t (k must be absent); t takes v. */
static void table_add(struct toml_value *t, const char *k, size_t len, struct toml_value *v)
{
	struct toml_entry *en;

	if (t->u.table.n == t->u.table.cap) {
		t->u.table.cap = t->u.table.cap ? t->u.table.cap * 2 : 8;
		t->u.table.items = xrealloc(t->u.table.items, t->u.table.cap * sizeof *en);
	}
	en = &t->u.table.items[t->u.table.n++];
	en->key = xmalloc(len + 1);
	memcpy(en->key, k, len);
	en->key[len] = '\0';
	en->keylen = len;
	en->value = v;
	if (t->u.table.n >= TOML_INDEX_FROM &&
	    (!t->u.table.index || t->u.table.n * 2 > t->u.table.index_cap))
		index_rebuild(t);
	else if (t->u.table.index)
		index_put(t, t->u.table.n - 1);
}

static void array_add(struct toml_value *a, struct toml_value *v)
{
	if (a->u.array.n == a->u.array.cap) {
		a->u.array.cap = a->u.array.cap ? a->u.array.cap * 2 : 4;
		/* NOLINTNEXTLINE(bugprone-sizeof-expression): an array of pointers */
		a->u.array.items = xrealloc(a->u.array.items, a->u.array.cap * sizeof *a->u.array.items);
	}
	a->u.array.items[a->u.array.n++] = v;
}

/* An inline table and everything in it can never be added to. */
static void seal(struct toml_value *v)
{
	v->flags |= F_SEALED;
	if (v->type == TOML_TABLE)
		for (size_t i = 0; i < v->u.table.n; i++)
			seal(v->u.table.items[i].value);
	else if (v->type == TOML_ARRAY)
		for (size_t i = 0; i < v->u.array.n; i++)
			seal(v->u.array.items[i]);
}

/* ---- characters -------------------------------------------------------------- */

static int at_end(const struct parser *ps)
{
	return ps->p >= ps->end;
}

static int peek(const struct parser *ps, size_t ahead)
{
	return ps->p + ahead < ps->end ? (unsigned char)ps->p[ahead] : -1;
}

static int is_bare(int c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '-';
}

static int is_digit(int c)
{
	return c >= '0' && c <= '9';
}

/* A control character TOML forbids outside a string's escapes (tab is allowed). */
static int is_control(int c)
{
	return (c >= 0 && c < 0x20 && c != '\t') || c == 0x7f;
}

static void skip_ws(struct parser *ps)
{
	while (!at_end(ps) && (*ps->p == ' ' || *ps->p == '\t'))
		ps->p++;
}

static int at_newline(const struct parser *ps)
{
	return peek(ps, 0) == '\n' || (peek(ps, 0) == '\r' && peek(ps, 1) == '\n');
}

static void take_newline(struct parser *ps)
{
	ps->p += *ps->p == '\r' ? 2 : 1;
	ps->line++;
}

static int comment(struct parser *ps)
{
	if (peek(ps, 0) != '#')
		return 0;
	for (ps->p++; !at_end(ps) && !at_newline(ps); ps->p++)
		if (is_control((unsigned char)*ps->p))
			return fail(ps, "a control character in a comment");
	return 0;
}

/* Blanks, an optional comment, then a newline or the end of the text. */
static int expect_eol(struct parser *ps)
{
	skip_ws(ps);
	if (comment(ps) != 0)
		return -1;
	if (at_end(ps))
		return 0;
	if (!at_newline(ps))
		return fail(ps, *ps->p == '\r' ? "a carriage return without a newline"
						: "unexpected text after the value");
	take_newline(ps);
	return 0;
}

/* Blanks, comments and newlines, as arrays allow between their values. */
static int skip_space(struct parser *ps)
{
	for (;;) {
		skip_ws(ps);
		if (comment(ps) != 0)
			return -1;
		if (!at_newline(ps))
			return 0;
		take_newline(ps);
	}
}

/* ---- strings ------------------------------------------------------------------- */

static int unicode_escape(struct parser *ps, int digits, struct buf *b)
{
	unsigned cp = 0;
	char s[4];

	for (int i = 0; i < digits; i++) {
		int h = text_hex_digit(peek(ps, (size_t)i));
		if (h < 0)
			return fail(ps, "a \\%c escape needs %d hex digits", digits == 4 ? 'u' : 'U',
				    digits);
		cp = cp * 16 + (unsigned)h;
	}
	if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return fail(ps, "\\%c escape U+%X is not a Unicode scalar value",
			    digits == 4 ? 'u' : 'U', cp);
	ps->p += digits;
	buf_add(b, s, text_utf8_encode(cp, s));
	return 0;
}

static int escape(struct parser *ps, struct buf *b)
{
	static const char from[] = "btnfre\"\\";
	static const char to[] = "\b\t\n\f\r\x1b\"\\";
	const char *hit;
	int c = peek(ps, 0);

	if (c < 0)
		return fail(ps, "unterminated string");
	ps->p++;
	if (c == 'u' || c == 'U')
		return unicode_escape(ps, c == 'u' ? 4 : 8, b);
	hit = c > 0 ? strchr(from, c) : NULL;
	if (!hit)
		return fail(ps, "unknown escape \\%c in a string", c > 0x20 && c < 0x7f ? c : '?');
	buf_addc(b, to[hit - from]);
	return 0;
}

/* In a multi-line basic string: a backslash that ends a line eats the blanks after it. */
static int line_ending_backslash(struct parser *ps)
{
	skip_ws(ps);
	if (!at_newline(ps))
		return fail(ps, "a backslash followed by a blank must end the line");
	while (!at_end(ps) && (at_newline(ps) || *ps->p == ' ' || *ps->p == '\t')) {
		if (at_newline(ps))
			take_newline(ps);
		else
			ps->p++;
	}
	return 0;
}

/*
 * At a run of closing quotes in a multi-line string: up to two quotes before
 * the closing three belong to the content. Returns 1 when the string ended.
 */
static int ml_close(struct parser *ps, char q, struct buf *b, int *ended)
{
	size_t run = 0;

	while (peek(ps, run) == (unsigned char)q)
		run++;
	*ended = run >= 3;
	if (!*ended) {
		for (size_t i = 0; i < run; i++)
			buf_addc(b, q);
		ps->p += run;
		return 0;
	}
	if (run > 5)
		return fail(ps, "too many quotes at the end of a multi-line string");
	for (size_t i = 3; i < run; i++)
		buf_addc(b, q);
	ps->p += run;
	return 0;
}

/* One character of a string's body that is not a quote or a backslash. */
static int string_char(struct parser *ps, int multi, struct buf *b)
{
	int c = (unsigned char)*ps->p;

	if (multi && at_newline(ps)) {
		take_newline(ps);
		buf_addc(b, '\n');
		return 0;
	}
	if (c == '\n' || c == '\r')
		return fail(ps, c == '\n' ? "unterminated string" : "a carriage return in a string");
	if (is_control(c))
		return fail(ps, "a control character inside a string");
	buf_addc(b, (char)c);
	ps->p++;
	return 0;
}

/* A string of any of the four kinds; ps->p is on its first quote. */
static int string(struct parser *ps, int allow_multi, char **out, size_t *len)
{
	char q = *ps->p;
	int multi = peek(ps, 1) == (unsigned char)q && peek(ps, 2) == (unsigned char)q;
	struct buf b = BUF_INIT;
	int ended = 0;

	if (multi && !allow_multi)
		return fail(ps, "a multi-line string cannot be a key");
	ps->p += multi ? 3 : 1;
	if (multi && at_newline(ps))
		take_newline(ps); /* a newline right after the opening quotes is not content */
	while (!ended) {
		int rc;
		if (at_end(ps)) {
			rc = fail(ps, "unterminated string");
		} else if (*ps->p == q && multi) {
			rc = ml_close(ps, q, &b, &ended);
		} else if (*ps->p == q) {
			ps->p++;
			rc = 0;
			ended = 1;
		} else if (*ps->p == '\\' && q == '"') {
			ps->p++;
			rc = multi && (peek(ps, 0) == ' ' || peek(ps, 0) == '\t' || at_newline(ps))
				     ? line_ending_backslash(ps)
				     : escape(ps, &b);
		} else {
			rc = string_char(ps, multi, &b);
		}
		if (rc != 0) {
			buf_free(&b);
			return -1;
		}
	}
	*len = b.len;
	*out = b.data ? buf_steal(&b) : xstrdup("");
	return 0;
}

/* ---- keys -------------------------------------------------------------------- */

static void key_free(struct key *k)
{
	for (size_t i = 0; i < k->n; i++)
		free(k->part[i]);
	k->n = 0;
}

/* A key as a person would write it, safe to show: a.b."c d". */
static char *key_text(const struct key *k, size_t upto)
{
	struct buf b = BUF_INIT;

	for (size_t i = 0; i < upto; i++) {
		int bare = k->len[i] > 0;
		for (size_t j = 0; j < k->len[i]; j++)
			bare &= is_bare((unsigned char)k->part[i][j]);
		if (i)
			buf_addc(&b, '.');
		if (!bare)
			buf_addc(&b, '"');
		text_safe(&b, k->part[i], k->len[i], 0);
		if (!bare)
			buf_addc(&b, '"');
	}
	return buf_steal(&b);
}

/* "what" followed by the character at ps->p, shown safely (it may be anything). */
static int fail_at_char(struct parser *ps, const char *what)
{
	struct buf b = BUF_INIT;
	unsigned cp;
	size_t n;
	int rc;

	if (at_end(ps) || at_newline(ps))
		return fail(ps, "%s", what);
	n = text_utf8_decode(ps->p, (size_t)(ps->end - ps->p), &cp);
	text_safe(&b, ps->p, n ? n : 1, 0);
	rc = fail(ps, "%s, not '%s'", what, buf_str(&b));
	buf_free(&b);
	return rc;
}

static int key_part(struct parser *ps, struct key *k)
{
	const char *start = ps->p;

	if (k->n == TOML_MAX_PARTS)
		return fail(ps, "a key with more than %d parts", TOML_MAX_PARTS);
	if (peek(ps, 0) == '"' || peek(ps, 0) == '\'') {
		if (string(ps, 0, &k->part[k->n], &k->len[k->n]) != 0)
			return -1;
		k->n++;
		return 0;
	}
	while (!at_end(ps) && is_bare((unsigned char)*ps->p))
		ps->p++;
	if (ps->p == start)
		return fail_at_char(ps, "expected a key");
	k->part[k->n] = xstrndup(start, (size_t)(ps->p - start));
	k->len[k->n++] = (size_t)(ps->p - start);
	return 0;
}

/* A dotted key: parts separated by '.', blanks allowed around the dots. */
static int key(struct parser *ps, struct key *k)
{
	k->n = 0;
	k->line = ps->line;
	for (;;) {
		if (key_part(ps, k) != 0)
			return -1;
		skip_ws(ps);
		if (peek(ps, 0) != '.')
			return 0;
		ps->p++;
		skip_ws(ps);
	}
}

/* ---- numbers and dates ----------------------------------------------------------- */

/* Digits of base with single underscores between them; copies the digits to out. */
static int digits(const char *s, size_t n, int base, char *out)
{
	size_t o = 0;

	if (n == 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		int d = text_hex_digit((unsigned char)s[i]);
		if (s[i] == '_') {
			if (i == 0 || i + 1 == n || s[i - 1] == '_')
				return -1;
			continue;
		}
		if (d < 0 || d >= base)
			return -1;
		out[o++] = s[i];
	}
	out[o] = '\0';
	return 0;
}

static int integer(struct parser *ps, const char *s, size_t n, long long *out)
{
	char *dig = xmalloc(n + 2), *end;
	int base = 10, neg = 0, rc = -1;
	unsigned long long v;

	if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'o' || s[1] == 'b')) {
		base = s[1] == 'x' ? 16 : s[1] == 'o' ? 8 : 2;
		s += 2, n -= 2;
	} else if (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-';
		s++, n--;
	}
	if (digits(s, n, base, dig) != 0) {
		free(dig);
		return 1; /* not an integer: the caller tries a float */
	}
	if (base == 10 && dig[0] == '0' && dig[1]) {
		free(dig);
		return fail(ps, "an integer with a leading zero");
	}
	errno = 0;
	v = strtoull(dig, &end, base);
	if (errno == 0 && v <= (unsigned long long)LLONG_MAX + (unsigned)neg) {
		*out = neg ? (long long)(0 - v) : (long long)v;
		rc = 0;
	} else {
		rc = fail(ps, "an integer too large for 64 bits");
	}
	free(dig);
	return rc;
}

/* The end of a run of digits and underscores from i. */
static size_t digit_run(const char *s, size_t i, size_t n)
{
	while (i < n && (is_digit((unsigned char)s[i]) || s[i] == '_'))
		i++;
	return i;
}

/*
 * [+-]? int ( .frac | e[+-]?exp | .frac e[+-]?exp ): each part digits with
 * underscores only between them, the integer part without a leading zero.
 * The digits (and '.', 'e', signs) are copied to out for strtod.
 */
static int float_shape(const char *s, size_t n, char *out)
{
	size_t i = (s[0] == '+' || s[0] == '-'), j, o;
	int more = 0;

	out[0] = s[0] == '-' ? '-' : '\0';
	o = out[0] ? 1 : 0;
	j = digit_run(s, i, n);
	if (digits(s + i, j - i, 10, out + o) != 0 || (out[o] == '0' && out[o + 1]))
		return -1;
	o += strlen(out + o);
	if (j < n && s[j] == '.') {
		i = j + 1;
		j = digit_run(s, i, n);
		out[o++] = '.';
		if (digits(s + i, j - i, 10, out + o) != 0)
			return -1;
		o += strlen(out + o);
		more = 1;
	}
	if (j < n && (s[j] == 'e' || s[j] == 'E')) {
		out[o++] = 'e';
		i = j + 1;
		if (i < n && (s[i] == '+' || s[i] == '-'))
			out[o++] = s[i++];
		j = digit_run(s, i, n);
		if (digits(s + i, j - i, 10, out + o) != 0)
			return -1;
		more = 1;
	}
	return j == n && more ? 0 : -1;
}

static int real(struct parser *ps, const char *s, size_t n, double *out)
{
	char *buf = xmalloc(n + 2), *end;
	int ok = float_shape(s, n, buf) == 0;

	if (ok) {
		errno = 0;
		*out = strtod(buf, &end);
		ok = !(errno == ERANGE && isinf(*out)) ? 1 : -1;
	}
	free(buf);
	if (ok < 0)
		return fail(ps, "a float too large for 64 bits");
	return ok ? 0 : fail(ps, "not a value TOML understands");
}

/* The token a number runs to: digits, letters, '_', '.', '+', '-'. */
static size_t number_token(const struct parser *ps)
{
	size_t n = 0;

	while (ps->p + n < ps->end) {
		int c = (unsigned char)ps->p[n];
		if (!is_bare(c) && c != '.' && c != '+')
			break;
		n++;
	}
	return n;
}

static int special_float(struct parser *ps, size_t n, struct toml_value *v)
{
	const char *s = ps->p;
	int sign = (s[0] == '+' || s[0] == '-');

	if (n - (size_t)sign != 3)
		return 1;
	if (memcmp(s + sign, "inf", 3) == 0)
		v->u.real = s[0] == '-' ? -INFINITY : INFINITY;
	else if (memcmp(s + sign, "nan", 3) == 0)
		v->u.real = s[0] == '-' ? -NAN : NAN;
	else
		return 1;
	v->type = TOML_FLOAT;
	ps->p += n;
	return 0;
}

static int number(struct parser *ps, struct toml_value *v)
{
	size_t n = number_token(ps);
	int rc;

	if (n == 0)
		return fail(ps, "expected a value");
	if (special_float(ps, n, v) == 0)
		return 0;
	rc = integer(ps, ps->p, n, &v->u.integer);
	if (rc <= 0) {
		v->type = TOML_INTEGER;
		ps->p += rc == 0 ? n : 0;
		return rc;
	}
	v->type = TOML_FLOAT;
	if (real(ps, ps->p, n, &v->u.real) != 0)
		return -1;
	ps->p += n;
	return 0;
}

/* n digits at ps->p into *out; -1 when they are not all there. */
static int fixed(struct parser *ps, size_t at, int n, int *out)
{
	*out = 0;
	for (int i = 0; i < n; i++) {
		int c = peek(ps, at + (size_t)i);
		if (!is_digit(c))
			return -1;
		*out = *out * 10 + (c - '0');
	}
	return 0;
}

static int days_in_month(int y, int m)
{
	static const int days[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };

	if (m == 2 && y % 4 == 0 && (y % 100 != 0 || y % 400 == 0))
		return 29;
	return days[m - 1];
}

static int date_part(struct parser *ps, struct toml_datetime *dt)
{
	if (fixed(ps, 0, 4, &dt->year) || peek(ps, 4) != '-' || fixed(ps, 5, 2, &dt->month) ||
	    peek(ps, 7) != '-' || fixed(ps, 8, 2, &dt->day))
		return fail(ps, "a date must be written YYYY-MM-DD");
	if (dt->month < 1 || dt->month > 12 || dt->day < 1 ||
	    dt->day > days_in_month(dt->year, dt->month))
		return fail(ps, "%04d-%02d-%02d is not a day of the calendar", dt->year, dt->month,
			    dt->day);
	ps->p += 10;
	return 0;
}

static int time_part(struct parser *ps, struct toml_datetime *dt)
{
	size_t n = 0;

	if (fixed(ps, 0, 2, &dt->hour) || peek(ps, 2) != ':' || fixed(ps, 3, 2, &dt->minute) ||
	    peek(ps, 5) != ':' || fixed(ps, 6, 2, &dt->second))
		return fail(ps, "a time must be written HH:MM:SS");
	if (dt->hour > 23 || dt->minute > 59 || dt->second > 60)
		return fail(ps, "%02d:%02d:%02d is not a time of day", dt->hour, dt->minute,
			    dt->second);
	ps->p += 8;
	if (peek(ps, 0) != '.')
		return 0;
	while (is_digit(peek(ps, n + 1))) {
		if (n < sizeof dt->frac - 1)
			dt->frac[n] = ps->p[n + 1]; /* digits past nanoseconds are truncated */
		n++;
	}
	if (n == 0)
		return fail(ps, "a decimal point in a time needs digits after it");
	ps->p += n + 1;
	return 0;
}

static int offset_part(struct parser *ps, struct toml_datetime *dt)
{
	int c = peek(ps, 0), h, m;

	if (c == 'Z' || c == 'z') {
		dt->offset_z = 1;
		ps->p++;
		return 1;
	}
	if (c != '+' && c != '-')
		return 0;
	if (fixed(ps, 1, 2, &h) || peek(ps, 3) != ':' || fixed(ps, 4, 2, &m))
		return fail(ps, "a time offset must be written Z or ±HH:MM");
	if (h > 23 || m > 59)
		return fail(ps, "%c%02d:%02d is not a time offset", c, h, m);
	dt->offset_minutes = (c == '-' ? -1 : 1) * (h * 60 + m);
	ps->p += 6;
	return 1;
}

static int datetime(struct parser *ps, struct toml_value *v)
{
	struct toml_datetime *dt = &v->u.dt;
	int c, off;

	if (peek(ps, 2) == ':') {
		v->type = TOML_TIME_LOCAL;
		return time_part(ps, dt);
	}
	if (date_part(ps, dt) != 0)
		return -1;
	c = peek(ps, 0);
	v->type = TOML_DATE_LOCAL;
	if (!(c == 'T' || c == 't' || (c == ' ' && is_digit(peek(ps, 1)) && is_digit(peek(ps, 2)) &&
				       peek(ps, 3) == ':')))
		return 0;
	ps->p++;
	if (time_part(ps, dt) != 0 || (off = offset_part(ps, dt)) < 0)
		return -1;
	v->type = off ? TOML_DATETIME : TOML_DATETIME_LOCAL;
	return 0;
}

static int looks_like_datetime(const struct parser *ps)
{
	return is_digit(peek(ps, 0)) && is_digit(peek(ps, 1)) &&
	       (peek(ps, 2) == ':' ||
		(is_digit(peek(ps, 2)) && is_digit(peek(ps, 3)) && peek(ps, 4) == '-'));
}

/* ---- values ---------------------------------------------------------------------- */

static struct toml_value *value(struct parser *ps);
static int keyval(struct parser *ps, struct toml_value *into);

static int word(struct parser *ps, const char *w)
{
	size_t n = strlen(w);

	if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, w, n) != 0 || is_bare(peek(ps, n)))
		return 0;
	ps->p += n;
	return 1;
}

static int array_body(struct parser *ps, struct toml_value *a)
{
	ps->p++; /* '[' */
	for (;;) {
		struct toml_value *item;
		if (skip_space(ps) != 0)
			return -1;
		if (at_end(ps))
			return fail(ps, "unterminated array");
		if (peek(ps, 0) == ']')
			break;
		if (!(item = value(ps)))
			return -1;
		array_add(a, item);
		if (skip_space(ps) != 0)
			return -1;
		if (peek(ps, 0) == ',') {
			ps->p++;
			continue;
		}
		if (peek(ps, 0) != ']')
			return fail(ps, "expected ',' or ']' in an array");
		break;
	}
	ps->p++; /* ']' */
	return 0;
}

static int inline_body(struct parser *ps, struct toml_value *t)
{
	ps->p++; /* '{' */
	skip_ws(ps);
	if (peek(ps, 0) == '}') {
		ps->p++;
		return 0;
	}
	for (;;) {
		skip_ws(ps);
		if (at_newline(ps) || at_end(ps))
			return fail(ps, "an inline table must close on the line it opens");
		if (keyval(ps, t) != 0)
			return -1;
		skip_ws(ps);
		if (peek(ps, 0) == ',') {
			ps->p++;
			continue;
		}
		if (peek(ps, 0) != '}')
			return fail(ps, at_newline(ps) || at_end(ps)
						? "an inline table must close on the line it opens"
						: "expected ',' or '}' in an inline table");
		ps->p++;
		return 0;
	}
}

static int scalar(struct parser *ps, struct toml_value *v)
{
	int c = peek(ps, 0);

	if (c == '"' || c == '\'') {
		char *str;
		size_t len;
		if (string(ps, 1, &str, &len) != 0)
			return -1;
		v->type = TOML_STRING;
		v->u.str.ptr = str;
		v->u.str.len = len;
		return 0;
	}
	if (word(ps, "true") || word(ps, "false")) {
		v->type = TOML_BOOL;
		v->u.boolean = c == 't';
		return 0;
	}
	if (looks_like_datetime(ps))
		return datetime(ps, v);
	if (c == '+' || c == '-' || is_digit(c) || c == 'i' || c == 'n')
		return number(ps, v);
	return fail(ps, at_end(ps) || at_newline(ps) || c == '#' ? "expected a value after '='"
								  : "not a value TOML understands");
}

static struct toml_value *value(struct parser *ps)
{
	/* Not a string until one is read: a failed scalar must be safe to free. */
	struct toml_value *v = value_new(TOML_BOOL, ps->line);
	int rc;

	if (peek(ps, 0) == '[' || peek(ps, 0) == '{') {
		if (++ps->depth > TOML_MAX_DEPTH) {
			fail(ps, "values nested more than %d deep", TOML_MAX_DEPTH);
			toml_free(v);
			return NULL;
		}
		v->type = peek(ps, 0) == '[' ? TOML_ARRAY : TOML_TABLE;
		rc = v->type == TOML_ARRAY ? array_body(ps, v) : inline_body(ps, v);
		ps->depth--;
		if (v->type == TOML_TABLE)
			seal(v);
	} else {
		rc = scalar(ps, v);
	}
	if (rc != 0) {
		toml_free(v);
		return NULL;
	}
	return v;
}

/* ---- tables ------------------------------------------------------------------------ */

/* Fails with a message around the key (its first upto parts): "<pre>KEY<post>". */
static int refuse_key(struct parser *ps, const struct key *k, size_t upto, const char *pre,
		      const char *post)
{
	char *t = key_text(k, upto);
	int rc = fail(ps, "%s%s%s", pre, t, post);

	free(t);
	return rc;
}

/* Walks a dotted key's parents from t, making them as dotted tables. */
static struct toml_value *dotted_parents(struct parser *ps, struct toml_value *t,
					 const struct key *k)
{
	for (size_t i = 0; i + 1 < k->n; i++) {
		struct toml_value *next = table_find(t, k->part[i], k->len[i]);
		if (!next) {
			next = value_new(TOML_TABLE, k->line);
			next->flags = F_DOTTED | (t->flags & F_SEALED);
			table_add(t, k->part[i], k->len[i], next);
		} else if (next->type != TOML_TABLE) {
			refuse_key(ps, k, i + 1, "", " is already a value, not a table");
			return NULL;
		} else if (next->flags & (F_HEADER | F_SEALED) ||
			   (!(next->flags & (F_DOTTED | F_IMPLICIT)))) {
			if (next->flags & F_SEALED)
				refuse_key(ps, k, i + 1, "", " is an inline table; nothing can be added to it");
			else
				refuse_key(ps, k, i + 1, "table [",
					   "] is already defined; dotted keys cannot add to it");
			return NULL;
		}
		next->flags |= F_DOTTED;
		t = next;
	}
	return t;
}

/* key = value, into the current table or an inline table being read. */
static int keyval(struct parser *ps, struct toml_value *into)
{
	struct key k;
	struct toml_value *t, *v;
	int rc = -1;

	if (key(ps, &k) != 0)
		goto out;
	if (peek(ps, 0) != '=') {
		fail_at_char(ps, "expected '=' after the key");
		goto out;
	}
	ps->p++;
	skip_ws(ps);
	if (!(t = dotted_parents(ps, into, &k)))
		goto out;
	/* NOLINTNEXTLINE(clang-analyzer-core.CallAndMessage): a key has at least one part */
	if (table_find(t, k.part[k.n - 1], k.len[k.n - 1])) {
		refuse_key(ps, &k, k.n, "", " is set twice");
		goto out;
	}
	if (!(v = value(ps)))
		goto out;
	v->line = k.line;
	table_add(t, k.part[k.n - 1], k.len[k.n - 1], v);
	rc = 0;
out:
	key_free(&k);
	return rc;
}

/* Walks a header's parents from the root, making the missing ones implicit. */
static struct toml_value *header_parents(struct parser *ps, const struct key *k)
{
	struct toml_value *t = ps->root;

	for (size_t i = 0; i + 1 < k->n; i++) {
		struct toml_value *next = table_find(t, k->part[i], k->len[i]);
		if (!next) {
			next = value_new(TOML_TABLE, k->line);
			next->flags = F_IMPLICIT;
			table_add(t, k->part[i], k->len[i], next);
		} else if (next->type == TOML_ARRAY && (next->flags & F_AOT)) {
			next = next->u.array.items[next->u.array.n - 1];
		} else if (next->type != TOML_TABLE || (next->flags & F_SEALED)) {
			refuse_key(ps, k, i + 1, "",
				   next->type == TOML_TABLE
					   ? " is an inline table; nothing can be added to it"
					   : " is already a value, not a table");
			return NULL;
		}
		t = next;
	}
	return t;
}

/* Why a [header] cannot define the table v already is. */
static int redefined(struct parser *ps, const struct key *k, const struct toml_value *v)
{
	if (v->type == TOML_ARRAY && (v->flags & F_AOT))
		return refuse_key(ps, k, k->n, "[", "] is already an array of tables");
	if (v->type != TOML_TABLE)
		return refuse_key(ps, k, k->n, "", " is already a value, not a table");
	if (v->flags & F_SEALED)
		return refuse_key(ps, k, k->n, "", " is an inline table; nothing can be added to it");
	if (v->flags & F_DOTTED)
		return refuse_key(ps, k, k->n, "table [", "] was defined by dotted keys");
	return refuse_key(ps, k, k->n, "table [", "] is defined twice");
}

static int table_header(struct parser *ps, const struct key *k)
{
	struct toml_value *t = header_parents(ps, k), *v;

	if (!t)
		return -1;
	/* NOLINTNEXTLINE(clang-analyzer-core.CallAndMessage): a key has at least one part */
	v = table_find(t, k->part[k->n - 1], k->len[k->n - 1]);
	if (!v) {
		v = value_new(TOML_TABLE, k->line);
		table_add(t, k->part[k->n - 1], k->len[k->n - 1], v);
	} else if (v->type != TOML_TABLE || v->flags != F_IMPLICIT) {
		return redefined(ps, k, v);
	}
	v->flags = F_HEADER;
	v->line = k->line;
	ps->cur = v;
	return 0;
}

static int array_header(struct parser *ps, const struct key *k)
{
	struct toml_value *t = header_parents(ps, k), *a, *v;

	if (!t)
		return -1;
	a = table_find(t, k->part[k->n - 1], k->len[k->n - 1]);
	if (!a) {
		a = value_new(TOML_ARRAY, k->line);
		a->flags = F_AOT;
		table_add(t, k->part[k->n - 1], k->len[k->n - 1], a);
	} else if (a->type != TOML_ARRAY || !(a->flags & F_AOT)) {
		return refuse_key(ps, k, k->n, a->type == TOML_TABLE ? "[" : "",
				  a->type == TOML_TABLE ? "] is a table, not an array of tables"
							: " is already a value, not an array of tables");
	}
	v = value_new(TOML_TABLE, k->line);
	v->flags = F_HEADER;
	array_add(a, v);
	ps->cur = v;
	return 0;
}

/* [a.b] or [[a.b]]; ps->p is on the first '['. */
static int header(struct parser *ps)
{
	int aot = peek(ps, 1) == '[';
	struct key k;
	int rc = -1;

	ps->p += aot ? 2 : 1;
	skip_ws(ps);
	if (key(ps, &k) != 0)
		goto out;
	if (peek(ps, 0) != ']' || (aot && peek(ps, 1) != ']')) {
		fail(ps, aot ? "expected ']]' to close the header" : "expected ']' to close the table header");
		goto out;
	}
	ps->p += aot ? 2 : 1;
	rc = aot ? array_header(ps, &k) : table_header(ps, &k);
out:
	key_free(&k);
	return rc;
}

/* ---- the document ------------------------------------------------------------------ */

static int line_of(const char *text, const char *at)
{
	int line = 1;

	for (const char *q = text; q < at; q++)
		line += *q == '\n';
	return line;
}

/* NUL bytes and bytes that are not UTF-8 are refused before anything is read. */
static int check_bytes(struct parser *ps, const char *text, size_t len)
{
	const char *nul = memchr(text, '\0', len);
	size_t i = 0;

	if (nul) {
		ps->line = line_of(text, nul);
		return fail(ps, "a NUL byte");
	}
	while (i < len) {
		unsigned cp;
		size_t n = (unsigned char)text[i] < 0x80 ? 1 : text_utf8_decode(text + i, len - i, &cp);
		if (n == 0) {
			ps->line = line_of(text, text + i);
			return fail(ps, "bytes that are not valid UTF-8");
		}
		i += n;
	}
	return 0;
}

static int document(struct parser *ps)
{
	while (!at_end(ps)) {
		skip_ws(ps);
		if (at_end(ps))
			break;
		if (*ps->p == '[') {
			if (header(ps) != 0)
				return -1;
		} else if (*ps->p != '#' && !at_newline(ps)) {
			if (keyval(ps, ps->cur) != 0)
				return -1;
		}
		if (expect_eol(ps) != 0)
			return -1;
	}
	return 0;
}

struct toml_value *toml_parse(const char *text, size_t len, const char *file, struct err *e)
{
	struct parser ps;

	memset(&ps, 0, sizeof ps);
	ps.p = text;
	ps.end = text + len;
	ps.file = file;
	ps.line = 1;
	ps.e = e;
	if (check_bytes(&ps, text, len) != 0)
		return NULL;
	if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
		ps.p += 3; /* a byte-order mark, only at the very start */
	ps.root = ps.cur = value_new(TOML_TABLE, 1);
	ps.root->flags = F_HEADER;
	if (document(&ps) != 0) {
		toml_free(ps.root);
		return NULL;
	}
	return ps.root;
}

/* ---- reading the tree -------------------------------------------------------------- */

const struct toml_value *toml_get(const struct toml_value *t, const char *key)
{
	if (!t || t->type != TOML_TABLE || !key)
		return NULL;
	return table_find(t, key, strlen(key));
}

const char *toml_type_name(enum toml_type type)
{
	static const char *const names[] = {
		[TOML_STRING] = "a string",
		[TOML_INTEGER] = "an integer",
		[TOML_FLOAT] = "a float",
		[TOML_BOOL] = "a boolean",
		[TOML_DATETIME] = "an offset date-time",
		[TOML_DATETIME_LOCAL] = "a local date-time",
		[TOML_DATE_LOCAL] = "a local date",
		[TOML_TIME_LOCAL] = "a local time",
		[TOML_ARRAY] = "an array",
		[TOML_TABLE] = "a table",
	};

	return (unsigned)type <= TOML_TABLE ? names[type] : "a value";
}

int toml_is_inline(const struct toml_value *v)
{
	return v && v->type == TOML_TABLE && (v->flags & F_SEALED) && !(v->flags & F_HEADER);
}

int toml_is_array_of_tables(const struct toml_value *v)
{
	return v && v->type == TOML_ARRAY && (v->flags & F_AOT);
}

void toml_datetime_format(const struct toml_value *v, char out[48])
{
	const struct toml_datetime *d = &v->u.dt;
	size_t n = 0;

	out[0] = '\0';
	if (v->type != TOML_TIME_LOCAL)
		n += (size_t)snprintf(out, 48, "%04d-%02d-%02d", d->year, d->month, d->day);
	if (v->type == TOML_DATE_LOCAL)
		return;
	n += (size_t)snprintf(out + n, 48 - n, "%s%02d:%02d:%02d%s%s", n ? "T" : "", d->hour,
			      d->minute, d->second, d->frac[0] ? "." : "", d->frac);
	if (v->type != TOML_DATETIME)
		return;
	if (d->offset_z)
		snprintf(out + n, 48 - n, "Z");
	else
		snprintf(out + n, 48 - n, "%c%02d:%02d", d->offset_minutes < 0 ? '-' : '+',
			 abs(d->offset_minutes) / 60, abs(d->offset_minutes) % 60);
}

json_t *toml_to_json(const struct toml_value *v)
{
	char when[48];
	json_t *o;

	switch (v->type) {
	case TOML_STRING:
		return json_stringn(v->u.str.ptr, v->u.str.len);
	case TOML_INTEGER:
		return json_integer(v->u.integer);
	case TOML_FLOAT:
		return isfinite(v->u.real) ? json_real(v->u.real) : json_null();
	case TOML_BOOL:
		return json_boolean(v->u.boolean);
	case TOML_ARRAY:
		o = json_array();
		for (size_t i = 0; i < v->u.array.n; i++)
			json_array_append_new(o, toml_to_json(v->u.array.items[i]));
		return o;
	case TOML_TABLE:
		o = json_object();
		for (size_t i = 0; i < v->u.table.n; i++)
			json_object_set_new(o, v->u.table.items[i].key,
					    toml_to_json(v->u.table.items[i].value));
		return o;
	default:
		toml_datetime_format(v, when);
		return json_string(when);
	}
}

/* ---- toml-test's typed JSON ------------------------------------------------------ */

static json_t *tagged_scalar(const char *type, const char *value)
{
	return json_pack("{s:s,s:s}", "type", type, "value", value);
}

/* A scalar as {"type": …, "value": its exact spelling}; nan has no sign, as in TOML. */
static json_t *tagged_leaf(const struct toml_value *v)
{
	static const char *const when[] = { [TOML_DATETIME] = "datetime",
					     [TOML_DATETIME_LOCAL] = "datetime-local",
					     [TOML_DATE_LOCAL] = "date-local",
					     [TOML_TIME_LOCAL] = "time-local" };
	char s[64];

	switch (v->type) {
	case TOML_STRING:
		return json_pack("{s:s,s:s%}", "type", "string", "value", v->u.str.ptr, v->u.str.len);
	case TOML_INTEGER:
		snprintf(s, sizeof s, "%lld", v->u.integer);
		return tagged_scalar("integer", s);
	case TOML_FLOAT:
		if (isnan(v->u.real))
			snprintf(s, sizeof s, "nan");
		else if (isinf(v->u.real))
			snprintf(s, sizeof s, "%sinf", v->u.real < 0 ? "-" : "");
		else
			snprintf(s, sizeof s, "%.17g", v->u.real);
		return tagged_scalar("float", s);
	case TOML_BOOL:
		return tagged_scalar("bool", v->u.boolean ? "true" : "false");
	default:
		toml_datetime_format(v, s);
		return tagged_scalar(when[v->type], s);
	}
}

json_t *toml_to_tagged_json(const struct toml_value *v)
{
	json_t *o;

	if (v->type == TOML_ARRAY) {
		o = json_array();
		for (size_t i = 0; i < v->u.array.n; i++)
			json_array_append_new(o, toml_to_tagged_json(v->u.array.items[i]));
		return o;
	}
	if (v->type != TOML_TABLE)
		return tagged_leaf(v);
	o = json_object();
	for (size_t i = 0; i < v->u.table.n; i++)
		json_object_setn_new(o, v->u.table.items[i].key, v->u.table.items[i].keylen,
				     toml_to_tagged_json(v->u.table.items[i].value));
	return o;
}
