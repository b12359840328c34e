/*
 * redact — paths out of a sentence, in one pass over it.
 */
#include "base/redact.h"

#include "base/buf.h"

#include <stdlib.h>
#include <string.h>

/* A path may begin after these (or at the start of the text). */
static int opens_path(const char *msg, size_t i)
{
	return i == 0 || strchr(" \t\n\"'`([<{=,", msg[i - 1]) != NULL;
}

static int ends_path(char c)
{
	return c == '\0' || strchr(" \t\r\n\"'`)]>},;:", c) != NULL;
}

/* The length of a home the path p[0..len) lies under (home itself included), else 0. */
static size_t under_home(const char *p, size_t len, const char *const *homes, size_t nhomes)
{
	for (size_t k = 0; k < nhomes; k++) {
		const char *h = homes[k];
		size_t n = h ? strlen(h) : 0;

		while (n > 1 && h[n - 1] == '/')
			n--; /* "/x/home/" spells the same home as "/x/home" */
		if (n > 1 && n <= len && memcmp(p, h, n) == 0 && (n == len || p[n] == '/'))
			return n;
	}
	return 0;
}

/* Appends the shown form of the path p[0..len). */
static void shown(struct buf *out, const char *p, size_t len, const char *const *homes,
		  size_t nhomes)
{
	size_t h = p[0] == '/' ? under_home(p, len, homes, nhomes) : 0;
	const char *slash;

	if (h) {
		buf_adds(out, "$MECHA_HOME");
		buf_add(out, p + h, len - h);
		return;
	}
	slash = memrchr(p, '/', len);
	if (slash && (size_t)(slash - p) + 1 < len)
		buf_add(out, slash + 1, len - (size_t)(slash - p) - 1);
	else
		buf_adds(out, "<path>");
}

/*
 * Where the path starting at msg[i] ends. It runs on across one space when
 * the next word holds a '/' too ("/home/ada/My Calendars/work.ics"), so a
 * directory with a space in its name does not leave its tail behind.
 */
static size_t path_end(const char *msg, size_t i)
{
	for (;;) {
		size_t next;

		while (!ends_path(msg[i]))
			i++;
		if (msg[i] != ' ')
			return i;
		for (next = i + 1; !ends_path(msg[next]) && msg[next] != '/'; next++)
			;
		if (msg[next] != '/' || next == i + 1)
			return i;
		i = next;
	}
}

void redact_paths(struct buf *out, const char *msg, const char *const *homes, size_t nhomes)
{
	size_t i = 0;

	while (msg[i]) {
		int starts = (msg[i] == '/' || (msg[i] == '~' && msg[i + 1] == '/')) &&
			     opens_path(msg, i);
		size_t end;

		if (!starts) {
			buf_addc(out, msg[i++]);
			continue;
		}
		end = path_end(msg, i);
		shown(out, msg + i, end - i, homes, nhomes);
		i = end;
	}
}

/* For a parameter s[0..n) spelt password=… or sslpassword=… (the client key's): the
 * length of its "…password=", else 0. */
static size_t password_param(const char *s, size_t n)
{
	const char *eq = memchr(s, '=', n);
	size_t k = eq ? (size_t)(eq - s) : 0;

	return k >= 8 && strncmp(eq - 8, "password", 8) == 0 ? k + 1 : 0;
}

/* Appends s[0..n) to out with the value of every password parameter replaced. */
static void hide_query_passwords(struct buf *out, const char *s, size_t n)
{
	size_t i = 0;

	while (i < n) {
		size_t start = i, key;
		while (i < n && s[i] != '&')
			i++;
		key = password_param(s + start, i - start);
		if (key) {
			buf_add(out, s + start, key);
			buf_adds(out, "***");
		} else {
			buf_add(out, s + start, i - start);
		}
		if (i < n)
			buf_addc(out, s[i++]);
	}
}

/* The parts of url a password hides in: *colon (NULL when the user part has no
 * password), *at the '@' ending it, and *query its '?' (NULL when none). */
static void url_parts(const char *url, const char **colon, const char **at, const char **query)
{
	const char *scheme = strstr(url, "://");
	const char *auth = scheme ? scheme + 3 : url;
	size_t authlen = strcspn(auth, "/"); /* as libpq reads it: a '?' may be in a password */

	/* The last '@' of the authority: a password with a raw '@' is hidden whole. */
	*at = NULL;
	for (size_t i = 0; i < authlen; i++)
		if (auth[i] == '@')
			*at = auth + i;
	*colon = *at ? memchr(auth, ':', (size_t)(*at - auth)) : NULL;
	*query = strchr(*at ? *at : auth, '?');
}

char *redact_url(const char *url)
{
	struct buf out = { 0 };
	const char *at, *colon, *rest, *query;

	url_parts(url, &colon, &at, &query);
	rest = colon ? at : url;
	if (colon) {
		buf_add(&out, url, (size_t)(colon + 1 - url));
		buf_adds(&out, "***");
	}
	buf_add(&out, rest, query ? (size_t)(query - rest) : strlen(rest));
	if (query) {
		size_t qlen = strcspn(query, "#");
		buf_addc(&out, '?');
		hide_query_passwords(&out, query + 1, qlen - 1);
		buf_adds(&out, query + qlen);
	}
	return buf_steal(&out);
}

/* text (which it frees) with every s[0..n) in it replaced by "***": a new string. */
static char *hide_span(char *text, const char *s, size_t n)
{
	struct buf out = { 0 };
	const char *p = text, *hit;

	if (n == 0)
		return text;
	while ((hit = memmem(p, strlen(p), s, n))) {
		buf_add(&out, p, (size_t)(hit - p));
		buf_adds(&out, "***");
		p = hit + n;
	}
	buf_adds(&out, p);
	free(text);
	return buf_steal(&out);
}

char *redact_url_in(const char *text, const char *url)
{
	char *out = xstrdup(text);
	const char *at, *colon, *query, *p;

	url_parts(url, &colon, &at, &query);
	if (colon)
		out = hide_span(out, colon + 1, (size_t)(at - colon - 1));
	for (p = query ? query + 1 : NULL; p && *p; p += *p == '&') {
		size_t len = strcspn(p, "&#"), key = password_param(p, len);

		if (key)
			out = hide_span(out, p + key, len - key);
		p += len;
		if (*p != '&')
			break;
	}
	return out;
}
