/*
 * moves — what a person does to a request by hand: park it (needs-info) or
 * end it (close). The same rules hold whichever front end asks.
 *
 * A close needs a reason: a request that went away without a recorded reason
 * is indistinguishable from one that was dropped. The reason becomes the
 * note, and it stays: a closed request is not closed again (the state table
 * refuses closed → closed, ERR_INVALID_TRANSITION, and the message quotes the
 * first reason). A needs-info replaces the note with what is missing, or
 * removes it (a stale explanation attached to a new state reads as an
 * explanation of that state). Each move is one store_update: re-read under
 * the lock, asked of the state table through state_move, written.
 *
 * A close also settles the request's drafts, since a draft still pending
 * after its request was declined is a reply nobody wants sent: the person
 * says what becomes of them. Without a word a pending draft refuses the close
 * (ERR_DRAFTS_PENDING); MOVES_DRAFTS_REJECT rejects every pending one with the
 * close's reason (all or none, under the outbox lock, before the request is
 * written); MOVES_DRAFTS_KEEP leaves them pending (approving one then needs
 * the person to insist: answer.h). The drafts are read under the store lock,
 * so one staged meanwhile is seen (lock order: store, then outbox, as
 * draft.h says).
 *
 * Errors: ERR_REASON_REQUIRED (exit 2) when a close has no reason or a blank
 * one; the refusals of state_move (ERR_INVALID_TRANSITION, ERR_UNKNOWN_STATE);
 * ERR_DRAFTS_PENDING; the refusals of release_reject (ERR_IN_FLIGHT: a draft
 * is being sent); ERR_NOT_FOUND; I/O. Nothing is written on any of them,
 * with one exception the message states: drafts rejected, then the request's
 * own write failed.
 *
 * Ownership: arguments are borrowed; the result holds copies (its drafts
 * malloc'd: moves_result_free), but for its note, which is the caller's
 * reason or note.
 */
#ifndef MECHA_FRONTDOOR_MOVES_H
#define MECHA_FRONTDOOR_MOVES_H

#include <stddef.h>

struct err;
struct store;
struct outbox_store;

struct moves_result {
	long long seq;
	char from[64]; /* the state it was in (as on disk, clipped) */
	const char *to; /* a static state name */
	const char *note; /* the request's note now: the reason or note passed in (borrowed), or NULL */
	size_t drafts_rejected; /* a close: pending drafts rejected with its reason */
	size_t drafts_kept;     /* a close: pending drafts left pending (--keep-drafts) */
	char **drafts; /* a close: the ids of those (one of the two is 0), NULL-terminated, or NULL */
};

/* Lets go of r->drafts (after a call that returned 0; a failed one leaves nothing to free). */
void moves_result_free(struct moves_result *r);

/* What a close does with the request's pending drafts. */
enum moves_drafts {
	MOVES_DRAFTS_REFUSE, /* a pending draft refuses the close (ERR_DRAFTS_PENDING) */
	MOVES_DRAFTS_REJECT, /* reject each with the close's reason */
	MOVES_DRAFTS_KEEP,   /* leave them pending */
};

/*
 * Ends request seq with reason as its note. ob is the outbox its drafts are
 * in (opened for writing when drafts is MOVES_DRAFTS_REJECT); NULL when there
 * is none to read, in which case a request that lists drafts is closed only
 * with MOVES_DRAFTS_KEEP (ob_why, may be NULL, says why there is none).
 */
int moves_close(struct store *s, struct outbox_store *ob, const char *ob_why, long long seq,
		const char *reason, enum moves_drafts drafts, struct moves_result *out,
		struct err *e);

/*
 * `mecha frontdoor close`: moves_close over HOME_M/requests and the
 * configured outbox (config.toml is read; a broken one fails the close).
 */
int moves_close_home(long long seq, const char *reason, enum moves_drafts drafts,
		     struct moves_result *out, struct err *e);

/*
 * moves_close_home for a booked request whose requester is told nothing
 * (`close --no-notify`). moves_close and moves_close_home refuse a booked
 * request (ERR_BOOKING, naming --notify and --no-notify): its requester has
 * the time in their calendar (decline.h's decline_cancel_home tells them).
 */
int moves_close_home_quietly(long long seq, const char *reason, enum moves_drafts drafts,
			     struct moves_result *out, struct err *e);

/* Parks request seq; note (NULL: none) replaces the old note. */
int moves_needs_info(struct store *s, long long seq, const char *note, struct moves_result *out,
		     struct err *e);

#endif
