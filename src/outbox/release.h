/*
 * release — what a person's decision does to a draft: deliver it for real,
 * exactly once, or reject it with a reason.
 *
 * Exactly once, in three steps, because a delivery cannot happen under the
 * lock (an SMTP server may take a minute) and must not happen twice:
 *   1. under the lock: re-read; the item must be pending and not already in
 *      flight; its sink must exist and accept the draft; record sending_since.
 *   2. without the lock: deliver.
 *   3. under the lock: re-read; `sent`, or `error` and still pending.
 * Two racing approves both pass the pending check only one at a time: the
 * second finds sending_since and stops. A crash between 1 and 3 leaves
 * sending_since behind, and that item is never sent again without
 * RELEASE_FORCE: only a person can know whether the first attempt went out.
 *
 * How a tool delivers is its row in the sink table (sink.h); a tool no row
 * names is "not available in this configuration" (an item the Rust tool
 * staged may name one). A sink's failure is recorded on the item as `error`,
 * which stays pending.
 *
 * Ownership: nothing returned is allocated but a struct release_claim's id,
 * which release_deliver frees; ids and reasons are borrowed.
 */
#ifndef MECHA_OUTBOX_RELEASE_H
#define MECHA_OUTBOX_RELEASE_H

#include <stddef.h>

struct config;
struct err;
struct outbox_list;
struct outbox_store;
struct sink;

enum {
	RELEASE_FORCE = 1, /* send even though sending_since says a send was in flight */
	/*
	 * The person chose this draft while it was pending (a prompt was shown):
	 * one found resolved is "resolved while you were deciding". Without it a
	 * resolved draft says when it was resolved ("already sent at T; not sent
	 * again").
	 */
	RELEASE_SEEN_PENDING = 2,
};

/*
 * Delivers the item `id`. 0 when it was sent. Otherwise -1 and e: a refusal
 * (codes "not_pending", "in_flight"; nothing changed, exit 3) or a failure
 * (codes "unavailable", "no_route", "bad_args", "delivery", "io": recorded on
 * the item as error unless the store itself failed; exit 1).
 */
int release_send(struct outbox_store *s, const struct config *cfg, const char *id,
		 unsigned flags, struct err *e);

/*
 * release_send in its two halves, for a caller with a rule of its own to
 * check under a lock it holds around the claim (frontdoor/answer.c holds the
 * request store's): release_claim is step 1 (under the outbox lock, taken and
 * released inside; the same refusals and failures as release_send), and
 * release_deliver steps 2 and 3 — call it with no lock held, exactly once
 * for every claim that returned 0. Lock order: a caller's lock, then the
 * outbox's, never the reverse.
 */
struct release_claim {
	const struct sink *sink;
	void *job;
	char *id; /* owned; release_deliver frees it */
};

int release_claim(struct outbox_store *s, const struct config *cfg, const char *id,
		  unsigned flags, struct release_claim *c, struct err *e);
int release_deliver(struct outbox_store *s, const struct config *cfg, struct release_claim *c,
		    struct err *e);

/*
 * Records a pending item as sent without delivering it: for an item left in
 * flight by a crash when the person knows the first attempt arrived.
 */
int release_mark_sent(struct outbox_store *s, const char *id, struct err *e);

/*
 * Rejects every item in ids with reason (required, not blank), all or none:
 * under one hold of the lock each is re-read and must be pending (and, without
 * RELEASE_FORCE, not in flight) before any is changed. Codes "reason_required"
 * (exit 2), "not_pending" and "in_flight" (exit 3).
 */
int release_reject(struct outbox_store *s, char *const *ids, size_t n, const char *reason,
		   unsigned flags, struct err *e);

/*
 * 1 when a person must confirm before the drafts in l are released: more
 * than one at once (a slip of --all), or any tainted one (its author read
 * untrusted or private data), unless they said yes beforehand (-y).
 */
int release_needs_confirmation(const struct outbox_list *l, int yes);

/* 0 when reason says something; else -1 with "reason_required" (exit 2). */
int release_check_reason(const char *reason, struct err *e);

#endif
