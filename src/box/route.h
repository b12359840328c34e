/*
 * route — a request's raw URI (path and query, as the client sent it) into
 * the one route it names, parsed strictly in one place.
 *
 * The routes are docs/protocol/box-pages.md §1's. A path segment is taken only when every
 * byte is one of [A-Za-z0-9._-] (ids, handles, tokens and asset names are all
 * of these), so nothing percent-encoded, no "..", no empty segment and no
 * trailing slash reaches a handler: anything else is ROUTE_NONE, which every
 * caller answers with the same 404 "not found" — except under /v1, where
 * (api set) every answer is JSON, an unknown path {"error":"no such endpoint"}.
 *
 * route also writes the path the access log may keep: a token segment
 * (c/, u/, m/ links; and any long hex run on a path that matched nothing)
 * becomes ":token", so a log never holds a working link.
 *
 * Ownership: struct route is plain storage; query points into the uri given.
 */
#ifndef MECHA_BOX_ROUTE_H
#define MECHA_BOX_ROUTE_H

#include <stddef.h>

enum route_kind {
	ROUTE_NONE,
	ROUTE_HEALTH,       /* GET /v1/health */
	ROUTE_TYPES,        /* GET /v1/types */
	ROUTE_TYPE,         /* GET, PUT /v1/types/{id} */
	ROUTE_SLOTS,        /* PUT /v1/instruments/{id}/slots */
	ROUTE_QUEUE,        /* GET /v1/queue */
	ROUTE_ACK,          /* POST /v1/queue/ack */
	ROUTE_ATTACHMENT,   /* GET /v1/queue/attachments/{id} */
	ROUTE_PAIR,         /* POST /v1/pair */
	ROUTE_DISCONNECT,   /* POST /v1/disconnect */
	ROUTE_FORM,         /* GET, POST /f/{handle}/{type} */
	ROUTE_FORM_ASSET,   /* GET /f/{handle}/{type}/{asset} */
	ROUTE_FORM_CONFIRM, /* GET, POST /f/{handle}/{type}/c/{token} */
	ROUTE_FORM_UPLOAD,  /* GET, POST /f/{handle}/{type}/u/{token} */
	ROUTE_BOOK,         /* GET, POST /s/{handle}/{type} */
	ROUTE_BOOK_SLOTS,   /* GET /s/{handle}/{type}/slots.json */
	ROUTE_BOOK_CONFIRM, /* GET, POST /s/{handle}/{type}/c/{token} */
	ROUTE_BOOK_MANAGE,  /* GET, POST /s/{handle}/{type}/m/{token} */
	ROUTE_DECLINE,      /* POST /v1/bookings/decline */
	ROUTE_KIND_COUNT
};

#define ROUTE_SEGMENT_MAX 64
#define ROUTE_LOG_MAX 256

struct route {
	enum route_kind kind;
	int api;                            /* the path is /v1 or under it: every answer is JSON */
	char handle[ROUTE_SEGMENT_MAX + 1]; /* /f/ and /s/ routes */
	char type[ROUTE_SEGMENT_MAX + 1];   /* /f/, /s/; the id of /v1/types/{id}, instruments */
	char arg[ROUTE_SEGMENT_MAX + 1];    /* a token, an asset, an attachment id */
	const char *query;                  /* after '?', or NULL */
	size_t query_len;
	char log[ROUTE_LOG_MAX];            /* the path with tokens replaced, for the access log */
};

/* Parses uri[0..len); always fills r (ROUTE_NONE for anything it does not name). */
void route_parse(const char *uri, size_t len, struct route *r);

/* The methods the route answers ("GET", "GET, PUT" …), for 405's Allow header. */
const char *route_methods(enum route_kind kind);

#endif
