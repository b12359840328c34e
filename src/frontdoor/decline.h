/*
 * decline — a person settles a booking the sweep did not: turns down one it
 * left (a conflict, or one it would not book), or cancels one it booked. The
 * requester hears of either; a booking never just goes quiet.
 *
 * decline_home stages a mail_send draft to the request's reply_to saying the
 * time could not be kept, with the booking page's address to pick another
 * (the box's manage link with its token cut off), and closes the request with
 * the reason, in one write (draft.h's draft_farewell). decline_cancel_home
 * does the same for a booked request with a calendar_cancel draft: released,
 * it takes the event (the UID the sweep recorded as the note) out of the
 * calendar and mails its iTIP CANCEL. Either draft is released like any
 * other, and is the one draft of its closed request that answer.h sends
 * without --force.
 *
 * Errors: those of draft_farewell (invalid_request, invalid_transition,
 * no_reply_to, reason_required), config and I/O; nothing is staged or
 * changed on any of them.
 *
 * Ownership: arguments are borrowed; the id is written into caller storage.
 */
#ifndef MECHA_FRONTDOOR_DECLINE_H
#define MECHA_FRONTDOOR_DECLINE_H

#include "outbox/item.h"

struct err;

#define DECLINE_REASON "declined: the time could not be kept"

#define DECLINE_BOOKING_ID_MAX 64

/*
 * Stages the decline of booking request seq and closes it (reason NULL:
 * DECLINE_REASON). booking_out (may be NULL) gets the box's booking id, for
 * telling the box (drain/tell.h); "" when the record's is not a box id.
 */
int decline_home(long long seq, const char *reason, char id_out[OUTBOX_ID_MAX + 1],
		 char booking_out[DECLINE_BOOKING_ID_MAX + 1], struct err *e);
/* Stages the iTIP CANCEL of booked request seq and closes it with reason. */
int decline_cancel_home(long long seq, const char *reason, char id_out[OUTBOX_ID_MAX + 1],
			struct err *e);

#endif
