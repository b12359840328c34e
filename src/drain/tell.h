/*
 * tell — home tells the box of a decision it made about a booking: a decline
 * (`mecha frontdoor decline`) or the owner's cancel of a booked one (`close
 * --notify`), so the box's manage page says so and its slot blocks nothing
 * there any more (the next `slots push` offers it again if the calendar is
 * free). POST /v1/bookings/decline with the drain key (gate.h), box-api.md
 * §7a.
 *
 * Ownership: the id is borrowed.
 */
#ifndef MECHA_DRAIN_TELL_H
#define MECHA_DRAIN_TELL_H

struct err;

/*
 * 0 with *declined (1, or 0 when the box had it as no longer confirmed); -1
 * with e (gate.h's codes). cancelled: the owner cancelled a booked booking
 * (the box says "cancelled by the owner") rather than declined it. ctx is
 * unused: this is the decline_teller (frontdoor/decline.h) every front end
 * hands down.
 */
int tell_box(void *ctx, const char *booking_id, int cancelled, long long *declined,
	     struct err *e);

#endif
