/*
 * invite — the calendar_invite sink, and the one way an invitation is
 * written: an event in the person's calendar and its iTIP message to the one
 * address it is for.
 *
 * A released invite draft (propose_meeting stages them) writes its event and
 * mails a METHOD:REQUEST invitation, exactly once, like a mail: release.c
 * claims the item (sending_since) before this sink delivers. The event's UID
 * is the item id, and a delivery starts by taking out an event of that UID (a
 * retry, or --force after an interrupted send, replaces rather than adds),
 * then asks the calendar about the slot again (time has passed since the
 * draft was staged): a busy slot is refused (slot_busy) and nothing is
 * written or sent. The invitation carries Message-ID <ID@mecha>. When the
 * mail is refused, the event is taken out again, so the draft stays pending
 * with nothing half done; when the server took it without confirming
 * (delivery_unconfirmed), the event stays, since the invitation may have
 * arrived.
 *
 * invite_message builds the message for the booking sweep too, so an
 * invitation reads the same whoever sends it. Its text tells the time in a
 * zone the sender names (the sweep: the booking type's; this sink: [calendar]
 * timezone, else UTC), since a stranger who picked "2:00 pm" on a booking page
 * must find 14:00 in the mail; the iCalendar part carries UTC, which every
 * client places.
 *
 * Ownership: invite_message fills a struct mail_message the caller frees
 * (mail_message_free); every pointer passed in is borrowed.
 */
#ifndef MECHA_OUTBOX_INVITE_H
#define MECHA_OUTBOX_INVITE_H

#include "calendar/calendar.h"

struct config;
struct err;
struct mail_message;
struct sink;

/* The calendar_invite row of the sink table (sink.h). */
extern const struct sink invite_sink;
/* The calendar_cancel row: the event of args.uid taken out, and its iTIP CANCEL mailed. */
extern const struct sink cancel_sink;

struct invite_letter {
	const struct calendar_event *ev;  /* uid, organizer, attendee and summary required */
	enum calendar_itip_method method; /* REQUEST: the invitation; CANCEL: its withdrawal */
	const char *message_id;           /* the Message-ID's local part ([A-Za-z0-9_.-]) */
	const char *link;                 /* NULL, or where the attendee changes or cancels it */
	const char *zone;                 /* the IANA zone the text tells the time in; NULL: UTC */
};

/*
 * The message from [mail] from to ev->attendee: a short text/plain part (the
 * summary, the time as a clock in l->zone shows it, with the zone's name —
 * "Saturday 24 October 2026, 14:00–14:45 Europe/Berlin" — and the link) and
 * the iTIP text/calendar part, whose times stay UTC. Codes "bad_arguments"
 * (an event calendar_itip refuses), "config" (a zone mecha does not know),
 * "bad_args" / "no_route" (a message mail.h cannot build).
 */
int invite_message(const struct config *cfg, const struct invite_letter *l,
		   struct mail_message *out, struct err *e);

/*
 * invite_message for an event that moved (a reschedule): l->ev carries the
 * same UID, the next SEQUENCE and the new time, so the attendee's calendar
 * updates it in place; the text says "Moved", the time it was (from_start,
 * from_end) and the new one. l->method must be REQUEST.
 */
int invite_move_message(const struct config *cfg, const struct invite_letter *l,
			time_t from_start, time_t from_end, struct mail_message *out, struct err *e);

/*
 * The booking sweep's reminder of l->ev: a plain text message (no iTIP part:
 * the event is already in the attendee's calendar) from [mail] from to
 * ev->attendee, subject "Reminder: <summary> — <when>", its text the time in
 * l->zone as the invitation told it, `place` (where, or the link to join;
 * NULL: no line) and the manage link. l->method is not read. Codes as
 * invite_message.
 */
int invite_reminder_message(const struct config *cfg, const struct invite_letter *l,
			    const char *place, struct mail_message *out, struct err *e);

#endif
