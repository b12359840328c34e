/*
 * urlform — form and query bytes, decoded byte by byte.
 */
#include "box/urlform.h"

#include "base/buf.h"
#include "base/text.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* s[0..n) decoded into b; -1 on a malformed escape, a NUL or invalid UTF-8. */
static int decode_part(const char *s, size_t n, struct buf *b, const char **why)
{
	buf_reset(b);
	for (size_t i = 0; i < n; i++) {
		int hi, lo;
		if (s[i] == '+') {
			buf_addc(b, ' ');
		} else if (s[i] != '%') {
			buf_addc(b, s[i]);
		} else if (i + 2 < n && (hi = text_hex_digit((unsigned char)s[i + 1])) >= 0 &&
			   (lo = text_hex_digit((unsigned char)s[i + 2])) >= 0) {
			buf_addc(b, (char)(hi * 16 + lo));
			i += 2;
		} else {
			*why = "a % is not followed by two hex digits";
			return -1;
		}
	}
	if (memchr(buf_str(b), '\0', b->len)) {
		*why = "a value holds a NUL byte";
		return -1;
	}
	if (!text_utf8_valid(buf_str(b), b->len)) {
		*why = "a value is not UTF-8 once decoded";
		return -1;
	}
	return 0;
}

/* Adds value under key, turning a repeated key into an array of its values. */
static void add(json_t *form, const char *key, json_t *value)
{
	json_t *old = json_object_get(form, key);

	if (!old) {
		json_object_set_new(form, key, value);
	} else if (json_is_array(old)) {
		json_array_append_new(old, value);
	} else {
		json_t *a = json_array();
		json_array_append(a, old);
		json_array_append_new(a, value);
		json_object_set_new(form, key, a);
	}
}

const char urlform_too_many[] = "there are more answers than any form takes";

size_t urlform_count(const char *s, size_t len)
{
	size_t n = 0;

	for (size_t i = 0; i < len; i++)
		if (s[i] != '&' && (i == 0 || s[i - 1] == '&'))
			n++;
	return n;
}

json_t *urlform_decode(const char *s, size_t len, const char **why)
{
	return urlform_decode_at_most(s, len, URLFORM_KEYS_MAX, why);
}

json_t *urlform_decode_at_most(const char *s, size_t len, size_t max, const char **why)
{
	json_t *form = json_object();
	struct buf k = BUF_INIT, v = BUF_INIT;
	size_t at = 0;

	if (urlform_count(s, len) > max) {
		*why = urlform_too_many;
		json_decref(form);
		return NULL;
	}
	while (at < len) {
		const char *pair = s + at, *amp = memchr(pair, '&', len - at), *eq;
		size_t n = amp ? (size_t)(amp - pair) : len - at;
		at += n + 1;
		eq = memchr(pair, '=', n);
		if (decode_part(pair, eq ? (size_t)(eq - pair) : n, &k, why) != 0 ||
		    decode_part(eq ? eq + 1 : pair + n, eq ? n - (size_t)(eq + 1 - pair) : 0, &v,
				why) != 0) {
			json_decref(form);
			form = NULL;
			break;
		}
		if (k.len > 0)
			add(form, buf_str(&k), json_stringn(buf_str(&v), v.len));
	}
	buf_free(&k);
	buf_free(&v);
	return form;
}

int urlform_int(const json_t *form, const char *key, long long min, long long max,
		long long dflt, long long *out)
{
	const json_t *v = json_object_get(form, key);
	const char *s;
	char *end;
	long long n;

	*out = dflt;
	if (!v)
		return 0;
	if (!json_is_string(v))
		return -1;
	s = json_string_value(v);
	if (!*s || (*s != '-' && (*s < '0' || *s > '9')))
		return -1;
	errno = 0;
	n = strtoll(s, &end, 10);
	if (errno || *end || n < min || n > max)
		return -1;
	*out = n;
	return 0;
}
