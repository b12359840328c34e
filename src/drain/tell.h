/*
 * tell — home tells the box of a decision it made about a booking: a decline
 * (`mecha frontdoor decline`), so the box's manage page says the booking was
 * declined and its slot blocks nothing there any more (the next `slots push`
 * offers it again if the calendar is free). POST /v1/bookings/decline with
 * the drain key (gate.h).
 *
 * Ownership: the id is borrowed.
 */
#ifndef MECHA_DRAIN_TELL_H
#define MECHA_DRAIN_TELL_H

struct err;

/* 0 with *declined (1, or 0 when the box had it as no longer confirmed); -1 with e (gate.h's codes). */
int tell_declined(const char *booking_id, long long *declined, struct err *e);

#endif
