/*
 * api — the box's /v1 API, as docs/protocol/box-api.md says and the compatible box answer
 * it: bearer keys with scopes, JSON in and out, the exact error bodies. Its
 * entry point, api_handle, is also where the strangers' pages are handed
 * over: /f/ to intake.c and upload.c, /s/ to book.c, with the same call and
 * reply.
 *
 *   GET  /v1/health                   public; with any live key: queued, key, handle, status
 *   GET  /v1/types, /v1/types/{id}    publish
 *   PUT  /v1/types/{id}               release: a TOML manifest, checked by src/types
 *   PUT  /v1/instruments/{id}/slots   slots
 *   GET  /v1/queue?since&wait         drain: a pure read, long-polled up to 25 s
 *   POST /v1/queue/ack                drain: rows and attachment rows in one transaction
 *   GET  /v1/queue/attachments/{id}   drain
 *   POST /v1/pair                     none: a one-time code (mecha box pair) for the owner's keys
 *   POST /v1/disconnect               any key: the presented key revokes itself
 *
 * 401 {"error":"a valid bearer token is required"}, 403 {"error":"this key
 * does not cover this endpoint"} / {"error":"this account is suspended"},
 * 500 {"error":"unavailable"} when the ledger fails.
 *
 * The HTTP plumbing (headers, limits, logging) is boxd's; a handler sees a
 * parsed route, the method, the Authorization header and the whole body,
 * and fills a reply. A drain that should wait is answered with park = 1:
 * boxd suspends it and calls again when woken (resumed = 1), with the user,
 * since and deadline the first call recorded.
 *
 * Ownership: reply.body and reply.location are malloc'd (boxd frees them); reply.fd is an open
 * file boxd hands to the response (or -1); reply.stream_arg is the stream's, handed to the
 * response too, which calls stream_free(stream_arg) once it is done with it.
 */
#ifndef MECHA_BOX_API_H
#define MECHA_BOX_API_H

#include "box/ledger.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <time.h>

struct boxconf;
struct mailer;
struct route;
struct waiters;

struct api_ctx {
	const struct boxconf *conf;
	struct ledger *ledger;
	time_t started;
	struct mailer *mailer; /* verification mail, for the form flow's handlers */
	struct waiters *waiters; /* told when a page queues a row (NULL: the tick finds it) */
};

struct api_call {
	const struct route *route;
	const char *method;
	const char *auth; /* the Authorization header, or NULL */
	const char *content_type; /* the Content-Type header, or NULL */
	const char *ip;   /* the client's address, numeric */
	const char *body;
	size_t len;
	/* the long poll's state, kept by the caller between calls */
	int resumed;
	char user[LEDGER_ID_LEN + 1];
	long long since;
	time_t deadline;
};

/*
 * A document many answers send as it is (a type's fresh form, box/typecache.h):
 * its bytes never change, and it lives while a ref is held (api_doc_put gives one
 * back). The transport may keep in `sent` what it makes of it to send it again
 * (boxd: one response with its headers, queued on every connection that asks),
 * set once under `lock` with sent_free, which api_doc_put calls with the doc.
 */
struct api_doc {
	atomic_ulong refs;
	size_t len;
	_Atomic(void *) sent;
	void (*sent_free)(void *sent);
	pthread_mutex_t lock;
	char text[];
};

/* A doc of text (copied), one ref held. */
struct api_doc *api_doc_new(const char *text);
struct api_doc *api_doc_ref(struct api_doc *doc);
void api_doc_put(struct api_doc *doc);

struct api_reply {
	unsigned status;
	const char *type; /* Content-Type */
	char *body;
	size_t len;
	int fd;           /* a file to send instead of body (attachments), or -1 */
	long long fdlen;
	int park;         /* 1: suspend until new rows or call->deadline */
	/* A body of fdlen bytes read part by part as it is sent (an attachment from the
	 * ledger), when stream is set: up to max bytes from pos into buf, their count,
	 * or -1 (the connection is then cut: the client sees a short body). */
	long long (*stream)(void *arg, unsigned long long pos, char *buf, size_t max);
	void (*stream_free)(void *arg);
	void *stream_arg;
	char *location;   /* a 303's Location (malloc'd, boxd frees it), or NULL */
	struct api_doc *doc; /* instead of body: a shared document, a ref boxd gives back */
};

void api_handle(struct api_ctx *ctx, struct api_call *call, struct api_reply *out);

/* A JSON body {"error": msg} with status; the shape of every refusal. */
void api_error(struct api_reply *out, unsigned status, const char *msg);
/* A plain-text body (404 "not found", 429 "too many requests"). */
void api_text(struct api_reply *out, unsigned status, const char *text);

#endif
