/*
 * answer — releasing a draft that answers a request: the outbox's
 * exactly-once release (outbox/release.h) with the front door's one rule in
 * front of it. A draft whose request was closed is not sent unless the
 * person insists: the close was the person's answer, and a "Yes, 14
 * September works" mailed after it contradicts them.
 *
 * The outbox has never heard of a request, so the rule is here, and every
 * front end that releases a draft (the approve verb, `outbox review`, the
 * review screen) calls answer_release rather than release_send. A draft is
 * tied to its request by the request's `outbox` list (store_owner_of_draft);
 * a draft no request lists (staged by hand, by another tool) is released as
 * it is.
 *
 * The check reads the request without the store lock, then the release
 * claims the draft under the outbox lock. A close in between is harmless
 * unless it kept the draft pending on purpose (moves.h: --keep-drafts); a
 * close that rejects its drafts takes the outbox lock, so the claim then
 * finds the draft rejected.
 *
 * Errors: ERR_REQUEST_CLOSED (exit 3; nothing sent, the draft stays pending),
 * a failure reading the request store (exit 1; nothing sent), and whatever
 * release_send says.
 *
 * Ownership: every argument is borrowed.
 */
#ifndef MECHA_FRONTDOOR_ANSWER_H
#define MECHA_FRONTDOOR_ANSWER_H

struct config;
struct err;
struct outbox_store;

enum {
	ANSWER_TO_CLOSED = 1, /* send even though the draft's request was closed */
	ANSWER_RESEND = 2,    /* send even though an earlier send was interrupted (RELEASE_FORCE) */
};

/*
 * 0 when draft id may go out as far as its request is concerned: no request
 * lists it, or its request is not closed. Otherwise -1: ERR_REQUEST_CLOSED
 * naming the request and the reason it was closed for, or a failure reading
 * HOME_M/requests.
 */
int answer_check(const char *id, struct err *e);

/* answer_check (unless ANSWER_TO_CLOSED), then release_send. */
int answer_release(struct outbox_store *ob, const struct config *cfg, const char *id,
		   unsigned flags, struct err *e);

#endif
