/*
 * http — JSON POSTs over libcurl, one at a time or many in flight (and the
 * one GET a reachability check makes).
 *
 * It owns the transport and nothing above it: timeouts (connect and total),
 * the captured reply, and turning a failed transfer into an error that names
 * who was called, where, and what came back. It never follows redirects,
 * speaks only http and https, caps a reply's size, and never prints a header:
 * the headers may carry a key, and every header string is wiped before it is
 * freed.
 *
 * Calling sequence:
 *
 *	x = http_post_new(url, body, len, connect_s, total_s);
 *	http_header(x, "Content-Type: application/json");
 *	m = http_multi_new();
 *	http_multi_add(m, x, &err);         (the multi owns x while it is in flight)
 *	while ((x = http_multi_wait(m, &err)) != NULL) {
 *		if (http_outcome(x, "provider 'local' (openai)", &err) == 0)
 *			... x->reply holds the 2xx body ...
 *		http_exchange_free(x);
 *	}
 *	http_multi_free(m);
 *
 * Ownership: an exchange owns its URL, body, headers and reply; the caller
 * frees it once http_multi_wait has handed it back. http_multi_free frees any
 * exchange still in flight.
 */
#ifndef MECHA_PROVIDER_HTTP_H
#define MECHA_PROVIDER_HTTP_H

#include "base/buf.h"

#include <stddef.h>

struct err;
struct http_exchange;
struct http_multi;

/* The most reply bytes kept; a longer reply is a transport error. */
#define HTTP_REPLY_MAX (32u << 20)

/* A POST of body (taken: freed with the exchange) to url. Aborts on allocation failure. */
struct http_exchange *http_post_new(const char *url, char *body, size_t len, long connect_timeout_s,
				    long timeout_s);
/* A GET of url (no body), otherwise as http_post_new. */
struct http_exchange *http_get_new(const char *url, long connect_timeout_s, long timeout_s);
/* Adds one "Name: value" header line (copied, wiped on free). */
void http_header(struct http_exchange *x, const char *line);
/* The caller's tag, carried through the multi. */
void http_set_tag(struct http_exchange *x, void *tag);
void *http_tag(const struct http_exchange *x);
/* The reply body so far (after completion: all of it). Borrowed. */
const struct buf *http_reply(const struct http_exchange *x);
/* The HTTP status, 0 when none was received. */
long http_status(const struct http_exchange *x);
/* Appends "<who>: POST <url>" (or GET; a password in the URL replaced) for a message. */
void http_where(const struct http_exchange *x, const char *who, struct buf *out);
/*
 * 0 when the transfer completed with a 2xx status. Otherwise -1 and e says
 * "<who>: POST <url>: <what went wrong>", with code provider_timeout,
 * provider_transport or provider_http (the start of the body, rendered safely).
 */
int http_outcome(const struct http_exchange *x, const char *who, struct err *e);
void http_exchange_free(struct http_exchange *x);

struct http_multi *http_multi_new(void);
/* Starts x. Returns -1 (x still the caller's) when libcurl refuses it. */
int http_multi_add(struct http_multi *m, struct http_exchange *x, struct err *e);
/*
 * Drives the transfers until one finishes and hands it back (the caller owns
 * it again). NULL with e cleared when nothing is in flight; NULL with e
 * filled when libcurl's multi interface itself failed.
 */
struct http_exchange *http_multi_wait(struct http_multi *m, struct err *e);
/* Detaches one unfinished exchange (the caller owns it again); NULL when none. */
struct http_exchange *http_multi_drop(struct http_multi *m);
size_t http_multi_in_flight(const struct http_multi *m);
void http_multi_free(struct http_multi *m);

#endif
