/*
 * sweep — confirmed bookings become calendar events whose invitations go
 * out, and cancellations withdraw them, with no model anywhere in the loop
 * (docs/bookings.md).
 *
 * A booking is a valid record whose values hold `_booking_id`, `_slot_start`
 * and `_slot_end` (and, from the box, `_duration_minutes` and `_manage_url`)
 * and no `_cancelled: true`. The sweep first checks that the record's type
 * is a booking type home has and that its slot is one home offered
 * (sweep_offer.h; anything else is left for a person, not_a_booking_type or
 * not_offered), then asks the calendar about the slot again, widened by the
 * type's buffer; a busy slot is a CONFLICT, left for a person with nothing
 * booked.
 * A free one gets its event (summary "<the type's title> (booked by
 * <address>)", attendee = reply_to, organizer = [mail] from, the manage link
 * in its description), its invitation (an iTIP
 * METHOD:REQUEST part beside a text/plain one that carries the link, mailed
 * through the outbox's mail route) and the record moves to `booked` with the
 * event's UID as its note. The mails tell the time in the zone the booking
 * page showed it in: the type's [availability] timezone (else [calendar]
 * timezone, else UTC), decided with the event and kept in the ledger. A cancellation ({_booking_id, _cancelled: true,
 * _slot_start, _slot_end}) closes the booking's record, removes the event,
 * mails METHOD:CANCEL when an invitation went out, and closes itself, each
 * record with the reason "cancelled by the requester" — in that order, so a
 * record that says booked always has its event, however a sweep dies (the
 * cancellation stays open until the end, and the rerun finishes it).
 * Cancellations run before bookings, so a booking and its cancellation in one
 * sweep book nothing.
 *
 * Exactly once, across reruns and kills, by the ledger (sweep_ledger.h):
 *   - event: intent (slot, UID, attendee, summary, zone) → write → done. The UID is derived
 *     from the booking id and a write replaces an event with the same UID, so
 *     a rerun that finds an intent without done writes it again and there is
 *     still one event. Once the intent is there the slot is not asked about
 *     again (the calendar would answer with our own event).
 *   - invitation: intent → send → done (or failed — the server refused it —
 *     so the next sweep sends it). An intent found without either means a
 *     sweep died while sending: the message may have arrived, so it is NOT
 *     sent again (at most once: a send that may have arrived is never repeated); the ledger says
 *     "unconfirmed" and the sweep's line says to check. So does a send the
 *     server took without confirming (delivery_unconfirmed). A duplicate
 *     would at least be recognisable: the Message-ID is derived from the
 *     booking id.
 *   - record: moved to booked (or closed) through state_move under the store
 *     lock; the record is the truth about that step.
 *
 * A rescheduling ({_booking_id, _rescheduled_from, _slot_start, _slot_end,
 * _duration_minutes, _manage_url}: the box's record of a booking moved on
 * its manage page) is settled with the bookings: the booking it moves must
 * be one this ledger booked, of the same type, neither cancelled nor moved
 * (else LEFT, unknown_booking), the new slot one home offered (as a
 * booking's) and free but for the booking's own event (else CONFLICT). Then
 * the event keeps its UID, attendee and summary (from the ledger, never the
 * box), gains SEQUENCE + 1 and the new time (event step), the attendee gets
 * an iTIP REQUEST saying the old and the new time (invite step), the old
 * booking's record is closed "rescheduled by the requester" (its "moved"
 * step), and the rescheduling's record moves to booked: a MOVED line. The
 * new booking id owns the event from then on: its reminders, its
 * cancellation (a CANCEL with its SEQUENCE), its next move. A cancellation
 * of the old id is LEFT.
 *
 * Then reminders (remind.h): each booked booking that no cancellation names
 * gets the tier of its type's [policy] reminders that is due, once; the
 * report says REMINDED (or, in a dry run, that it is due).
 *
 * Test hook (compiled only into test builds, base/killpoint.h): when the environment
 * variable MECHA_TEST_KILL_AT names one of these points, the sweep sends
 * itself SIGKILL there, so a test can kill it at each side effect:
 *     event             the event's intent is recorded, the event not written
 *     event-written     the event is written, not yet recorded as done
 *     invite            before the invitation's intent is recorded
 *     invite-sent       the invitation went out, not yet recorded as done
 *     booked            before the record moves to booked
 *     remove            a cancellation: its booking's records are closed,
 *                       the event is not yet removed
 *     removed           the event is removed, not yet recorded
 *     cancel-mail       before the CANCEL's intent is recorded
 *     cancel-mail-sent  the CANCEL went out, not yet recorded
 *     closed            before the cancellation itself is closed
 *     move-old          a rescheduling: the event moved and its REQUEST sent,
 *                       the old booking's record not yet closed
 *     moved             the old booking's record closed, not yet recorded
 *     remind            before a reminder's intent is recorded (remind.h)
 *     remind-sent       the reminder went out, not yet recorded as done
 *
 * Ownership: the report's strings are borrowed for the length of the
 * callback; the record passed to sweep_claims is borrowed.
 */
#ifndef MECHA_FRONTDOOR_SWEEP_H
#define MECHA_FRONTDOOR_SWEEP_H

#include <stddef.h>
#include <time.h>

struct config;
struct err;
struct record;
struct store;
struct sweep_offers;

#define SWEEP_CANCEL_REASON "cancelled by the requester"
#define SWEEP_MOVE_REASON "rescheduled by the requester"
/* A LEFT rescheduling's reason: the booking it moves is not one home booked (or any more). */
#define SWEEP_UNKNOWN_BOOKING "unknown_booking"
#define SWEEP_KILL_ENV "MECHA_TEST_KILL_AT"

enum sweep_outcome {
	SWEEP_BOOKED,    /* event written, invitation sent, record booked */
	SWEEP_CONFLICT,  /* the slot is busy: the record is left for a person */
	SWEEP_CANCELLED, /* a cancellation settled: its booking withdrawn, both closed */
	SWEEP_CLOSED,    /* a booking whose cancellation came first: closed, nothing booked */
	SWEEP_LEFT,      /* a record the sweep cannot settle (message says why); a person looks */
	SWEEP_FAILED,    /* a step failed (message says why); the next sweep carries on */
	SWEEP_REMINDED,  /* a booked booking's reminder went out (remind.h); `tier` says which */
	SWEEP_MOVED,     /* a rescheduling settled: the event moved, its REQUEST sent, the old
			  * booking's record closed (booking_seq), the new one booked */
};

struct sweep_line {
	enum sweep_outcome outcome;
	int dry_run;            /* what would happen: nothing was written or sent */
	long long seq;          /* the record */
	const char *booking_id; /* NULL when the record has none that reads */
	long long booking_seq;  /* a cancellation: its booking's record; -1 when none */
	time_t start, end;      /* the slot; 0 when unknown */
	const char *uid;        /* the event, when there is one */
	const char *attendee;
	const char *message;    /* why (LEFT, FAILED), or a warning; NULL */
	const char *reason;     /* LEFT by the offer check: its reason's name (sweep_offer.h); NULL */
	const char *tier;       /* REMINDED, or a reminder that FAILED: "24h"; else NULL */
};

/*
 * How a sweep tells its front end: start with how many records it will
 * settle (cancellations and bookings; a record already settled is not
 * counted), then one line per record as it is settled. Either may be NULL.
 */
struct sweep_report {
	void (*line)(const struct sweep_line *l, void *ctx);
	void *ctx;
	void (*start)(size_t total, void *ctx);
	/* What tells an offered slot (sweep_offer.h); NULL: none is, every booking is left. */
	const struct sweep_offers *offers;
};

struct sweep_counts {
	size_t booked, conflicts, cancelled, closed, left, failed, reminded, moved;
};

enum {
	SWEEP_DRY_RUN = 1, /* decide and report; write, send and lock nothing */
};

/*
 * One sweep over the request store s (its directory holds the ledger), with
 * cfg's calendar and mail route. Each booking, cancellation or conflict is
 * reported as a line and counted. Returns 0 when the sweep ran (a booking
 * that failed is a FAILED line and a count, not a failure of the sweep); -1
 * when it could not (the store or the ledger), having done nothing further.
 */
int sweep_run(struct store *s, const struct config *cfg, unsigned flags,
	      const struct sweep_report *rep, struct sweep_counts *counts, struct err *e);

/*
 * sweep_run over HOME_M's request store with config.toml's calendar and mail
 * route: what `mecha frontdoor sweep` and the timer run. A dry run opens the
 * store read-only and creates nothing.
 */
int sweep_home(unsigned flags, const struct sweep_report *rep, struct sweep_counts *counts,
	       struct err *e);

/*
 * 1 when the record belongs to the sweep, not to extraction, triage or a
 * run: its values hold `_booking_id` or `_cancelled` (a booking or a
 * cancellation, even one the sweep cannot read).
 */
int sweep_claims(const struct record *r);

/*
 * The slot of a booking or a cancellation (its `_slot_start` and `_slot_end`,
 * read as the sweep reads them): 1 with *start and *end set, 0 when r has none
 * that reads.
 */
int sweep_slot(const struct record *r, time_t *start, time_t *end);

#endif
