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
 * tied to its request by the request's `outbox` list (store_owners_of_drafts);
 * a draft no request lists (staged by hand, by another tool) is released as
 * it is. One draft of a closed request goes without insisting: the one the
 * close itself staged to tell the requester (a decline, a cancellation:
 * draft.h's DRAFT_CLOSE_NOTICE).
 *
 * The check is made at claim time, under the request store's lock: the
 * request is re-read under it and must not be closed, and the draft is
 * claimed (outbox/release.h's release_claim, which takes the outbox lock
 * inside: the store's lock, then the outbox's, as a close takes them) before
 * it is let go; the delivery runs with no lock held (release_deliver). So a
 * close cannot slip between the check and the claim, and a close after the
 * claim that would reject its drafts is refused while this one is in flight.
 *
 * A batch (an approve of several drafts, a review session) finds the
 * requests its drafts answer in one walk of the store, on the first release
 * that needs it (store_owners_of_drafts), not one walk a draft.
 *
 * Calling sequence:
 *     struct answer_batch b;
 *     answer_begin(&b, &list);                  // the drafts about to be released
 *     for each id: answer_release(&b, ob, cfg, id, flags, &e) …
 *     answer_end(&b);
 *
 * Errors: ERR_REQUEST_CLOSED (exit 3; nothing sent, the draft stays pending),
 * a failure reading the request store (exit 1; nothing sent), and whatever
 * release_send says.
 *
 * Ownership: every argument is borrowed; struct answer_batch owns its copies
 * and its open store (answer_end).
 */
#ifndef MECHA_FRONTDOOR_ANSWER_H
#define MECHA_FRONTDOOR_ANSWER_H

#include <stddef.h>

#include "base/err.h"
#include "requests/store.h"

struct config;
struct outbox_list;
struct outbox_store;

enum {
	ANSWER_TO_CLOSED = 1, /* send even though the draft's request was closed */
	ANSWER_RESEND = 2,    /* send even though an earlier send was interrupted (RELEASE_FORCE) */
	ANSWER_SEEN_PENDING = 4, /* the person chose it while pending (RELEASE_SEEN_PENDING) */
};

/* One batch's drafts and the requests they answer; private but for its size. */
struct answer_batch {
	char **ids;
	long long *seqs; /* the request each of ids answers; -1 none */
	size_t n;
	int looked; /* 0 not yet, 1 found (store is open), -1 failed (why) */
	struct store store;
	struct err why;
};

/* Starts a batch of the drafts listed in l (NULL: none); reads nothing yet. */
void answer_begin(struct answer_batch *b, const struct outbox_list *l);

/*
 * Releases draft id (one of the batch's, or any other, looked up alone) as
 * release_send does, unless — and this is checked under the request store's
 * lock at claim time — the request that lists it was closed: then -1 with
 * ERR_REQUEST_CLOSED naming the request and the reason it was closed for,
 * nothing sent and the draft still pending. ANSWER_TO_CLOSED skips the check.
 * A failure to read HOME_M/requests sends nothing (exit 1).
 */
int answer_release(struct answer_batch *b, struct outbox_store *ob, const struct config *cfg,
		   const char *id, unsigned flags, struct err *e);

void answer_end(struct answer_batch *b);

#endif
