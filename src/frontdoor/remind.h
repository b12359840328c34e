/*
 * remind — the booking sweep's reminders: each tier of a booking type's
 * [policy] reminders ("24h", "90m", "2d"; ["24h", "1h"] when the key or the
 * type is absent) mailed to the booker once, before the meeting.
 *
 * The rule (remind_tier_due, pure): a tier of m minutes is due at `now` when
 * the start is at most m minutes ahead and still ahead
 * (start - m·60 <= now < start), unless the booking was already that close
 * when it was made (start - made <= m·60): a booking made three hours ahead
 * gets the 1-hour reminder only, and a past one gets none. When more than one
 * tier is due at once (no sweep ran in between: the machine was off), only the
 * nearest is mailed and the others are recorded as skipped — two reminders in
 * one minute say nothing the nearest does not.
 *
 * Exactly once, by the sweep's ledger (sweep_ledger.h): each tier is its own
 * step, "remind_<minutes>m", with the invitation's rules: intent → send →
 * done (or failed, and the next sweep while the tier is still due sends it);
 * an intent found alone, or a send the server never confirmed, is
 * unconfirmed and never sent again. The Message-ID is
 * <booking-<id>-remind-<minutes>m@mecha>. What the mail says comes from the
 * event's entry in the ledger (the time in the zone the invitation used, the
 * manage link) and the type's [policy] location; a booking the ledger has no
 * event for gets no reminder.
 *
 * Which bookings: the caller's (sweep.c) — booked, and not cancelled.
 *
 * Test hook: MECHA_TEST_KILL_AT (base/killpoint.h) at
 *     remind       before a reminder's intent is recorded
 *     remind-sent  the reminder went out, not yet recorded as done
 *
 * Ownership: struct remind_result's pointers borrow from the ledger and live
 * until its next change; everything passed in is borrowed.
 */
#ifndef MECHA_FRONTDOOR_REMIND_H
#define MECHA_FRONTDOOR_REMIND_H

#include <stddef.h>
#include <time.h>

struct config;
struct err;
struct sweep_ledger;

#define REMIND_TIER_MAX 16 /* "4294967295m" and its NUL */

/* 1 when a tier of `minutes` is due at now for a booking starting at start, made at made. */
int remind_tier_due(long long minutes, time_t start, time_t made, time_t now);

/* What one sweep asks of remind_booking. */
struct remind_run {
	const struct config *cfg;
	struct sweep_ledger *ledger;
	int dry_run; /* decide and report; send and record nothing */
	time_t now;
};

/* A booked booking, as the sweep found it. */
struct remind_target {
	long long seq;
	const char *booking_id;
	const char *type_id;
	time_t made; /* when it was made: its record's created_at */
};

struct remind_result {
	long long minutes;          /* the tier mailed (or due, in a dry run) */
	char tier[REMIND_TIER_MAX]; /* as the type spells it: "24h" */
	time_t start, end;
	const char *attendee;
	const char *warning; /* an unconfirmed send: check that it arrived; NULL */
	size_t skipped;      /* farther tiers due at the same time, passed over */
};

/*
 * The reminder of t due now, if any: mailed through the outbox's mail route
 * (in a dry run only decided). Returns 1 with *res filled when one was sent
 * (or is due), 0 when none is due, -1 with e when it could not go (the next
 * sweep tries again while the tier is due; *res says which).
 */
int remind_booking(const struct remind_run *run, const struct remind_target *t,
		   struct remind_result *res, struct err *e);

#endif
