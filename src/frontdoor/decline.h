/*
 * decline — a person settles a booking the sweep did not: turns down one it
 * left (a conflict, or one it would not book), or cancels one it booked. The
 * requester hears of either; a booking never just goes quiet.
 *
 * decline_home stages a mail_send draft to the request's reply_to saying the
 * time could not be kept, with the booking page's address to pick another
 * (the box's manage link with its token cut off), and closes the request with
 * the reason, in one write (draft.h's draft_farewell). A rescheduling the
 * sweep left is mailed instead to the attendee home's booking ledger
 * (sweep_ledger.h) has for the booking it moves, saying that booking stands at
 * its old time (no_reply_to when the ledger does not know it); the box, told,
 * gives that booking back. decline_cancel_home
 * does the same for a booked request with a calendar_cancel draft: released,
 * it takes the event (the UID the sweep recorded as the note) out of the
 * calendar and mails its iTIP CANCEL. Either draft is released like any
 * other, and is the one draft of its closed request that answer.h sends
 * without --force.
 *
 * Then either tells the box through the teller the front end hands down (the
 * front door cannot reach the box itself: drain/tell.h's tell_box is the one
 * every front end passes), so the booking's manage page says it was declined
 * or cancelled by the owner and its slot is free there. The rule "decline =
 * close + stage the mail + tell the box" is written here once; the CLI verbs
 * and the review screen call it. What home decided stands whether or not the
 * box is reached: the outcome says which (decline_told_text words it).
 *
 * Errors: those of draft_farewell (invalid_request, invalid_transition,
 * no_reply_to, reason_required), config and I/O; nothing is staged or
 * changed on any of them. A box that cannot be told is no error.
 *
 * Ownership: arguments are borrowed; the outcome is caller storage.
 */
#ifndef MECHA_FRONTDOOR_DECLINE_H
#define MECHA_FRONTDOOR_DECLINE_H

#include "base/err.h"
#include "frontdoor/draft.h"
#include "outbox/item.h"


#define DECLINE_REASON "declined: the time could not be kept"

#define DECLINE_BOOKING_ID_MAX 64

/*
 * How a decision reaches the box: tell(ctx, booking id, cancelled, &changed,
 * e) returns 0 with changed 1 (the box changed the booking) or 0 (it had it
 * as no longer confirmed), or -1 with e. cancelled: 0 a decline, 1 the
 * owner's cancel of a booked one.
 */
struct decline_teller {
	int (*tell)(void *ctx, const char *booking_id, int cancelled, long long *changed,
		    struct err *e);
	void *ctx;
};

enum decline_told {
	DECLINE_TOLD,         /* the box changed the booking */
	DECLINE_TOLD_ALREADY, /* the box had it as no longer confirmed */
	DECLINE_NOT_TOLD,     /* the box could not be reached or refused: why says so */
	DECLINE_NO_BOX_ID,    /* the record's booking id is not one the box made */
	DECLINE_NO_TELLER,    /* no teller was handed down */
};

struct decline_outcome {
	long long seq;
	char from[DRAFT_FROM_MAX];  /* the state the request was closed from */
	const char *note;           /* its note now: the reason, or DECLINE_REASON (borrowed) */
	char id[OUTBOX_ID_MAX + 1]; /* the staged draft */
	enum decline_told told;
	struct err why; /* DECLINE_NOT_TOLD: what the call said */
};

/*
 * Stages the decline of booking request seq, closes it (reason NULL:
 * DECLINE_REASON), then tells the box (t may be NULL: nobody is told).
 */
int decline_home(long long seq, const char *reason, const struct decline_teller *t,
		 struct decline_outcome *out, struct err *e);
/* Stages the iTIP CANCEL of booked request seq, closes it with reason, tells the box. */
int decline_cancel_home(long long seq, const char *reason, const struct decline_teller *t,
			struct decline_outcome *out, struct err *e);
/* One line saying whether the box was told (static text; why's message is not in it). */
const char *decline_told_text(const struct decline_outcome *o, int cancelled);
/* The keyword of told, for a machine: told, already, failed, foreign_id, unasked (in order). */
const char *decline_told_name(enum decline_told told);

#endif
