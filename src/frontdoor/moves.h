/*
 * moves — what a person does to a request by hand: park it (needs-info) or
 * end it (close). The same rules hold whichever front end asks.
 *
 * A close needs a reason: a request that went away without a recorded reason
 * is indistinguishable from one that was dropped. The reason becomes the
 * note. A needs-info replaces the note with what is missing, or removes it
 * (a stale explanation attached to a new state reads as an explanation of
 * that state). Each move is one store_update: re-read under the lock, asked
 * of the state table through state_move, written.
 *
 * Errors: ERR_REASON_REQUIRED (exit 2) when a close has no reason or a blank
 * one; the refusals of state_move (ERR_INVALID_TRANSITION, ERR_UNKNOWN_STATE);
 * ERR_NOT_FOUND; I/O. Nothing is written on any of them.
 *
 * Ownership: arguments are borrowed; the result holds copies.
 */
#ifndef MECHA_FRONTDOOR_MOVES_H
#define MECHA_FRONTDOOR_MOVES_H

struct err;
struct store;

struct moves_result {
	long long seq;
	char from[64]; /* the state it was in (as on disk, clipped) */
	const char *to; /* a static state name */
};

/* Ends request seq with reason as its note. */
int moves_close(struct store *s, long long seq, const char *reason, struct moves_result *out,
		struct err *e);
/* Parks request seq; note (NULL: none) replaces the old note. */
int moves_needs_info(struct store *s, long long seq, const char *note, struct moves_result *out,
		     struct err *e);

#endif
