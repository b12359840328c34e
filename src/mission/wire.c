/*
 * wire — a strict pull reader and the serde_json compact writer for letters.
 * Every acceptance rule here is a compatibility rule: a line another writer
 * would refuse must be refused, or two boards would disagree on a chain.
 */
#include "mission/wire.h"

#include "base/buf.h"
#include "base/text.h"

#include <assert.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void wire_init(struct wire *w, const char *data, size_t len)
{
	memset(w, 0, sizeof *w);
	w->start = data;
	w->p = data;
	w->end = data + len;
}

int wire_fail(struct wire *w, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (w->failed)
		return -1;
	w->failed = 1;
	va_start(ap, fmt);
	n = vsnprintf(w->why, sizeof w->why, fmt, ap);
	va_end(ap);
	if (n >= 0 && (size_t)n < sizeof w->why)
		snprintf(w->why + n, sizeof w->why - (size_t)n, " at byte %zu",
			 (size_t)(w->p - w->start));
	return -1;
}

static void skip_ws(struct wire *w)
{
	while (w->p < w->end &&
	       (*w->p == ' ' || *w->p == '\t' || *w->p == '\n' || *w->p == '\r'))
		w->p++;
}

/* Skips JSON whitespace; returns the next byte, or 0 at the end. */
static int wire_peek(struct wire *w)
{
	skip_ws(w);
	return w->p < w->end ? (unsigned char)*w->p : 0;
}

int wire_at_end(struct wire *w)
{
	skip_ws(w);
	return w->p == w->end;
}

static int literal(struct wire *w, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(w->end - w->p) < n || memcmp(w->p, word, n) != 0)
		return 0;
	w->p += n;
	return 1;
}

int wire_null(struct wire *w)
{
	skip_ws(w);
	return literal(w, "null");
}

static int enter(struct wire *w, char open, const char *what)
{
	skip_ws(w);
	if (w->p >= w->end || *w->p != open)
		return wire_fail(w, "expected %s", what);
	if (w->depth >= WIRE_MAX_DEPTH)
		return wire_fail(w, "nested deeper than %d levels", WIRE_MAX_DEPTH);
	w->p++;
	w->depth++;
	return 0;
}

int wire_object(struct wire *w)
{
	return enter(w, '{', "an object");
}

int wire_array(struct wire *w)
{
	return enter(w, '[', "an array");
}

/*
 * After "{" or "[" the next token may be the close or a member; after a member
 * it must be "," or the close. Which case we are in shows in the last
 * significant byte behind the cursor (no value ends in "{" or "["), so no
 * per-level state is needed. A trailing comma fails in the caller, which then
 * finds a close where a key or a value must be.
 */
static int next_member(struct wire *w, char close)
{
	const char *q = w->p;
	int fresh;

	while (q > w->start && (q[-1] == ' ' || q[-1] == '\t' || q[-1] == '\n' || q[-1] == '\r'))
		q--;
	fresh = q > w->start && (q[-1] == '{' || q[-1] == '[');
	skip_ws(w);
	if (w->p < w->end && *w->p == close) {
		w->p++;
		w->depth--;
		return 0;
	}
	if (!fresh) {
		if (w->p >= w->end || *w->p != ',')
			return wire_fail(w, "expected ',' or '%c'", close);
		w->p++;
	}
	return 1;
}

int wire_key(struct wire *w, struct buf *key)
{
	int r = next_member(w, '}');

	if (r <= 0)
		return r;
	skip_ws(w);
	if (w->p >= w->end || *w->p != '"')
		return wire_fail(w, "expected a key");
	if (wire_string(w, key) != 0)
		return -1;
	skip_ws(w);
	if (w->p >= w->end || *w->p != ':')
		return wire_fail(w, "expected ':'");
	w->p++;
	return 1;
}

int wire_item(struct wire *w)
{
	return next_member(w, ']');
}

static int hex4(struct wire *w, unsigned *out)
{
	unsigned v = 0;

	if (w->end - w->p < 4)
		return wire_fail(w, "a short \\u escape");
	for (int i = 0; i < 4; i++) {
		char c = w->p[i];
		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (unsigned)(c - 'A' + 10);
		else
			return wire_fail(w, "a bad \\u escape");
	}
	w->p += 4;
	*out = v;
	return 0;
}

static void put_utf8(struct buf *out, unsigned cp)
{
	char s[4];

	buf_add(out, s, text_utf8_encode(cp, s));
}

/* \uXXXX, with a surrogate pair joined; a lone surrogate is not text. */
static int unicode_escape(struct wire *w, struct buf *out)
{
	unsigned hi, lo;

	if (hex4(w, &hi) != 0)
		return -1;
	if (hi >= 0xdc00 && hi <= 0xdfff)
		return wire_fail(w, "a lone trailing surrogate");
	if (hi >= 0xd800 && hi <= 0xdbff) {
		if (w->end - w->p < 2 || w->p[0] != '\\' || w->p[1] != 'u')
			return wire_fail(w, "a lone leading surrogate");
		w->p += 2;
		if (hex4(w, &lo) != 0)
			return -1;
		if (lo < 0xdc00 || lo > 0xdfff)
			return wire_fail(w, "a lone leading surrogate");
		hi = 0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00);
	}
	put_utf8(out, hi);
	return 0;
}

static int escape(struct wire *w, struct buf *out)
{
	char c;

	if (w->p >= w->end)
		return wire_fail(w, "an unterminated string");
	c = *w->p++;
	switch (c) {
	case '"': buf_addc(out, '"'); return 0;
	case '\\': buf_addc(out, '\\'); return 0;
	case '/': buf_addc(out, '/'); return 0;
	case 'b': buf_addc(out, '\b'); return 0;
	case 'f': buf_addc(out, '\f'); return 0;
	case 'n': buf_addc(out, '\n'); return 0;
	case 'r': buf_addc(out, '\r'); return 0;
	case 't': buf_addc(out, '\t'); return 0;
	case 'u': return unicode_escape(w, out);
	default: w->p--; return wire_fail(w, "an invalid escape");
	}
}

int wire_string(struct wire *w, struct buf *out)
{
	skip_ws(w);
	buf_reset(out);
	buf_adds(out, ""); /* an empty string still has storage */
	if (w->p >= w->end || *w->p != '"')
		return wire_fail(w, "expected a string");
	w->p++;
	while (w->p < w->end) {
		unsigned char c = (unsigned char)*w->p;
		unsigned cp;
		size_t n;

		if (c == '"') {
			w->p++;
			return 0;
		}
		if (c >= 0x20 && c < 0x80 && c != '\\') {
			/* A run of plain ASCII goes in at once: most of a letter is that. */
			const char *q = w->p;
			while (q < w->end && (unsigned char)*q >= 0x20 && (unsigned char)*q < 0x80 &&
			       *q != '"' && *q != '\\')
				q++;
			buf_add(out, w->p, (size_t)(q - w->p));
			w->p = q;
			continue;
		}
		if (c < 0x20)
			return wire_fail(w, "a control character inside a string");
		if (c == '\\') {
			w->p++;
			if (escape(w, out) != 0)
				return -1;
			continue;
		}
		n = text_utf8_decode(w->p, (size_t)(w->end - w->p), &cp);
		if (n == 0)
			return wire_fail(w, "bytes that are not UTF-8");
		buf_add(out, w->p, n);
		w->p += n;
	}
	return wire_fail(w, "an unterminated string");
}

static int digit(const struct wire *w, const char *q)
{
	return q < w->end && *q >= '0' && *q <= '9';
}

/* After the digits of an integer: a fraction or an exponent makes it a float. */
static int integer_ends(struct wire *w)
{
	if (w->p < w->end && (*w->p == '.' || *w->p == 'e' || *w->p == 'E'))
		return wire_fail(w, "a fraction where a whole number is expected");
	return 0;
}

static int magnitude(struct wire *w, uint64_t *out)
{
	uint64_t v = 0;
	int big = 0;

	if (!digit(w, w->p))
		return wire_fail(w, "expected a whole number");
	if (*w->p == '0' && digit(w, w->p + 1))
		return wire_fail(w, "a number with a leading zero");
	while (digit(w, w->p)) {
		unsigned d = (unsigned)(*w->p++ - '0');
		if (v > (UINT64_MAX - d) / 10)
			big = 1;
		else
			v = v * 10 + d;
	}
	if (integer_ends(w) != 0)
		return -1;
	if (big)
		return wire_fail(w, "a number out of range");
	*out = v;
	return 0;
}

int wire_u64(struct wire *w, uint64_t max, uint64_t *out)
{
	uint64_t v;

	skip_ws(w);
	if (w->p < w->end && *w->p == '-')
		return wire_fail(w, "a negative number where an unsigned one is expected");
	if (magnitude(w, &v) != 0)
		return -1;
	if (v > max)
		return wire_fail(w, "a number out of range (at most %" PRIu64 ")", max);
	*out = v;
	return 0;
}

int wire_i32(struct wire *w, int32_t *out)
{
	int neg = 0;
	uint64_t v;

	skip_ws(w);
	if (w->p < w->end && *w->p == '-') {
		neg = 1;
		w->p++;
	}
	if (magnitude(w, &v) != 0)
		return -1;
	/* serde_json reads "-0" as a float, which an integer field refuses. */
	/* NOLINTNEXTLINE(clang-analyzer-core.UndefinedBinaryOperatorResult): magnitude() set v or failed */
	if (neg && v == 0)
		return wire_fail(w, "-0 where a whole number is expected");
	/* NOLINTNEXTLINE(clang-analyzer-core.UndefinedBinaryOperatorResult): magnitude() set v or failed */
	if ((!neg && v > INT32_MAX) || (neg && v > (uint64_t)INT32_MAX + 1))
		return wire_fail(w, "a number out of the 32-bit range");
	*out = neg ? (int32_t)(-(int64_t)v) : (int32_t)v;
	return 0;
}

int wire_bool(struct wire *w, int *out)
{
	skip_ws(w);
	if (literal(w, "true"))
		*out = 1;
	else if (literal(w, "false"))
		*out = 0;
	else
		return wire_fail(w, "expected true or false");
	return 0;
}

static int skip_number(struct wire *w)
{
	if (w->p < w->end && *w->p == '-')
		w->p++;
	if (!digit(w, w->p))
		return wire_fail(w, "expected a value");
	if (*w->p == '0' && digit(w, w->p + 1))
		return wire_fail(w, "a number with a leading zero");
	while (digit(w, w->p))
		w->p++;
	if (w->p < w->end && *w->p == '.') {
		w->p++;
		if (!digit(w, w->p))
			return wire_fail(w, "a bad fraction");
		while (digit(w, w->p))
			w->p++;
	}
	if (w->p < w->end && (*w->p == 'e' || *w->p == 'E')) {
		w->p++;
		if (w->p < w->end && (*w->p == '+' || *w->p == '-'))
			w->p++;
		if (!digit(w, w->p))
			return wire_fail(w, "a bad exponent");
		while (digit(w, w->p))
			w->p++;
	}
	return 0;
}

static int skip_members(struct wire *w, int object)
{
	struct buf key = BUF_INIT;
	int r;

	while ((r = object ? wire_key(w, &key) : wire_item(w)) == 1)
		if (wire_skip(w) != 0) {
			r = -1;
			break;
		}
	buf_free(&key);
	return r < 0 ? -1 : 0;
}

int wire_skip(struct wire *w)
{
	struct buf s = BUF_INIT;
	int c = wire_peek(w), rc;

	switch (c) {
	case '{':
		return wire_object(w) != 0 ? -1 : skip_members(w, 1);
	case '[':
		return wire_array(w) != 0 ? -1 : skip_members(w, 0);
	case '"':
		rc = wire_string(w, &s);
		buf_free(&s);
		return rc;
	case 't':
	case 'f':
		return wire_bool(w, &rc);
	case 'n':
		return wire_null(w) ? 0 : wire_fail(w, "expected a value");
	default:
		return skip_number(w);
	}
}

/* ---- the writer ---------------------------------------------------------- */

/* 1 for a byte the compact form writes as itself, with no escape and no UTF-8 check. */
static int plain_byte(unsigned char c)
{
	return c >= 0x20 && c < 0x80 && c != '"' && c != '\\';
}

void wire_put_string(struct buf *out, const char *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	size_t i = 0;

	buf_addc(out, '"');
	while (i < len) {
		unsigned char c = (unsigned char)s[i];
		unsigned cp;
		size_t n;

		if (plain_byte(c)) { /* a run of them in one copy: most of any string */
			for (n = i + 1; n < len && plain_byte((unsigned char)s[n]); n++)
				;
			buf_add(out, s + i, n - i);
			i = n;
			continue;
		}
		if (c >= 0x80) {
			n = text_utf8_decode(s + i, len - i, &cp);
			if (n == 0) {
				buf_adds(out, "\xef\xbf\xbd");
				i++;
			} else {
				buf_add(out, s + i, n);
				i += n;
			}
			continue;
		}
		i++;
		switch (c) {
		case '"': buf_adds(out, "\\\""); break;
		case '\\': buf_adds(out, "\\\\"); break;
		case '\b': buf_adds(out, "\\b"); break;
		case '\t': buf_adds(out, "\\t"); break;
		case '\n': buf_adds(out, "\\n"); break;
		case '\f': buf_adds(out, "\\f"); break;
		case '\r': buf_adds(out, "\\r"); break;
		default: { /* any other control (the plain bytes went above) */
			char esc[6] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 15] };
			assert(c < 0x20);
			buf_add(out, esc, sizeof esc);
			break;
		}
		}
	}
	buf_addc(out, '"');
}

void wire_put_cstr(struct buf *out, const char *s)
{
	wire_put_string(out, s, strlen(s));
}

void wire_put_u64(struct buf *out, uint64_t v)
{
	buf_printf(out, "%" PRIu64, v);
}

void wire_put_i64(struct buf *out, int64_t v)
{
	buf_printf(out, "%" PRId64, v);
}

void wire_put_key(struct buf *out, const char *key)
{
	wire_put_cstr(out, key);
	buf_addc(out, ':');
}

/* ---- Unicode whitespace -------------------------------------------------- */


static void put_u16(struct buf *out, unsigned u)
{
	buf_printf(out, "\\u%04x", u);
}

void wire_ascii(struct buf *out, const char *json, size_t len)
{
	size_t i = 0, n;
	unsigned cp;

	while (i < len) {
		unsigned char c = (unsigned char)json[i];
		if (c < 0x7f) {
			buf_addc(out, (char)c);
			i++;
			continue;
		}
		n = c == 0x7f ? 0 : text_utf8_decode(json + i, len - i, &cp);
		if (n == 0) {
			cp = c == 0x7f ? 0x7f : 0xfffd; /* (the writer never leaves such a byte) */
			n = 1;
		}
		if (cp > 0xffff) {
			put_u16(out, 0xd800 + ((cp - 0x10000) >> 10));
			put_u16(out, 0xdc00 + ((cp - 0x10000) & 0x3ff));
		} else {
			put_u16(out, cp);
		}
		i += n;
	}
}
