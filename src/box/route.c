/*
 * route — the URI a client sent, matched against the box's routes.
 */
#include "box/route.h"

#include <stdio.h>
#include <string.h>

#define MAX_SEGMENTS 8

struct segs {
	const char *p[MAX_SEGMENTS];
	size_t n[MAX_SEGMENTS];
	int count;
};

static int seg_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '.' || c == '-' || c == '_';
}

/* "/a/b/c" into its segments; -1 for anything the routes cannot be. */
static int split(const char *path, size_t len, struct segs *s)
{
	size_t i = 1;

	s->count = 0;
	if (len < 2 || path[0] != '/')
		return -1;
	while (i <= len) {
		size_t start = i;
		while (i < len && path[i] != '/') {
			if (!seg_char(path[i]))
				return -1;
			i++;
		}
		if (i == start || i - start > ROUTE_SEGMENT_MAX || s->count == MAX_SEGMENTS)
			return -1;
		if ((i - start == 1 && path[start] == '.') ||
		    (i - start == 2 && path[start] == '.' && path[start + 1] == '.'))
			return -1;
		s->p[s->count] = path + start;
		s->n[s->count++] = i - start;
		i++;
	}
	return 0;
}

static int is(const struct segs *s, int i, const char *word)
{
	return i < s->count && s->n[i] == strlen(word) && memcmp(s->p[i], word, s->n[i]) == 0;
}

static void copy(char *dst, const struct segs *s, int i)
{
	memcpy(dst, s->p[i], s->n[i]);
	dst[s->n[i]] = '\0';
}

static enum route_kind v1(const struct segs *s, struct route *r)
{
	if (s->count == 2 && is(s, 1, "health"))
		return ROUTE_HEALTH;
	if (s->count == 2 && is(s, 1, "types"))
		return ROUTE_TYPES;
	if (s->count == 3 && is(s, 1, "types"))
		return copy(r->type, s, 2), ROUTE_TYPE;
	if (s->count == 4 && is(s, 1, "instruments") && is(s, 3, "slots"))
		return copy(r->type, s, 2), ROUTE_SLOTS;
	if (s->count == 2 && is(s, 1, "queue"))
		return ROUTE_QUEUE;
	if (s->count == 3 && is(s, 1, "queue") && is(s, 2, "ack"))
		return ROUTE_ACK;
	if (s->count == 4 && is(s, 1, "queue") && is(s, 2, "attachments"))
		return copy(r->arg, s, 3), ROUTE_ATTACHMENT;
	if (s->count == 2 && is(s, 1, "pair"))
		return ROUTE_PAIR;
	if (s->count == 2 && is(s, 1, "disconnect"))
		return ROUTE_DISCONNECT;
	if (s->count == 3 && is(s, 1, "bookings") && is(s, 2, "decline"))
		return ROUTE_DECLINE;
	return ROUTE_NONE;
}

/* /f/{h}/{t}… and /s/{h}/{t}…: the same shapes, a form's or a booking's. */
static enum route_kind page(const struct segs *s, struct route *r, int book)
{
	if (s->count < 3)
		return ROUTE_NONE;
	copy(r->handle, s, 1);
	copy(r->type, s, 2);
	if (s->count == 3)
		return book ? ROUTE_BOOK : ROUTE_FORM;
	if (s->count == 4 && book && is(s, 3, "slots.json"))
		return ROUTE_BOOK_SLOTS;
	if (s->count == 4 && !book)
		return copy(r->arg, s, 3), ROUTE_FORM_ASSET;
	if (s->count != 5)
		return ROUTE_NONE;
	copy(r->arg, s, 4);
	if (is(s, 3, "c"))
		return book ? ROUTE_BOOK_CONFIRM : ROUTE_FORM_CONFIRM;
	if (is(s, 3, "u") && !book)
		return ROUTE_FORM_UPLOAD;
	if (is(s, 3, "m") && book)
		return ROUTE_BOOK_MANAGE;
	return ROUTE_NONE;
}

static int hexish(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* The path for the log: printable ASCII only, and any run of 16+ hex digits a token. */
static void redact(const char *path, size_t len, char *out, size_t size)
{
	size_t o = 0;

	for (size_t i = 0; i < len && o + 8 < size;) {
		size_t run = 0;
		while (i + run < len && hexish(path[i + run]))
			run++;
		if (run >= 16) {
			memcpy(out + o, ":token", 6);
			o += 6;
			i += run;
		} else if (run > 0) {
			for (size_t k = 0; k < run && o + 8 < size; k++)
				out[o++] = path[i + k];
			i += run;
		} else {
			unsigned char c = (unsigned char)path[i++];
			out[o++] = c > 0x20 && c < 0x7f ? (char)c : '?';
		}
	}
	out[o] = '\0';
}

static int token_route(enum route_kind k)
{
	return k == ROUTE_FORM_CONFIRM || k == ROUTE_FORM_UPLOAD || k == ROUTE_BOOK_CONFIRM ||
	       k == ROUTE_BOOK_MANAGE;
}

void route_parse(const char *uri, size_t len, struct route *r)
{
	const char *q = memchr(uri, '?', len);
	size_t plen = q ? (size_t)(q - uri) : len;
	struct segs s;

	memset(r, 0, sizeof *r);
	r->query = q ? q + 1 : NULL;
	r->query_len = q ? len - plen - 1 : 0;
	redact(uri, plen, r->log, sizeof r->log);
	/* /v1 and anything under it, well formed or not, is the API's to answer */
	r->api = (plen == 3 || (plen > 3 && uri[3] == '/')) && memcmp(uri, "/v1", 3) == 0;
	if (split(uri, plen, &s) != 0)
		return;
	if (is(&s, 0, "v1"))
		r->kind = v1(&s, r);
	else if (is(&s, 0, "f") || is(&s, 0, "s"))
		r->kind = page(&s, r, is(&s, 0, "s"));
	if (token_route(r->kind)) {
		/* The token always goes, whatever it looks like; the rest as any path. */
		char path[ROUTE_LOG_MAX];
		size_t at;
		int n = snprintf(path, sizeof path, "/%c/%s/%s/%c/", *s.p[0], r->handle, r->type,
				 /* NOLINTNEXTLINE(clang-analyzer-core.NullDereference): token_route() is true only after split() filled s.p[0..3] */
				 *s.p[3]);

		redact(path, n > 0 && (size_t)n < sizeof path ? (size_t)n : 0, r->log,
		       sizeof r->log - 7);
		at = strlen(r->log);
		memcpy(r->log + at, ":token", 7);
	}
	if (r->kind == ROUTE_NONE) {
		r->handle[0] = r->type[0] = r->arg[0] = '\0';
	}
}

const char *route_methods(enum route_kind kind)
{
	switch (kind) {
	case ROUTE_TYPE:
		return "GET, PUT";
	case ROUTE_SLOTS:
		return "PUT";
	case ROUTE_ACK:
	case ROUTE_PAIR:
	case ROUTE_DISCONNECT:
	case ROUTE_DECLINE:
		return "POST";
	case ROUTE_FORM:
	case ROUTE_FORM_CONFIRM:
	case ROUTE_FORM_UPLOAD:
	case ROUTE_BOOK:
	case ROUTE_BOOK_CONFIRM:
	case ROUTE_BOOK_MANAGE:
		return "GET, POST";
	default:
		return "GET";
	}
}
