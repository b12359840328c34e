/*
 * invite — the calendar_invite sink: an event for a free slot and the
 * invitation mailed to the one address it is for.
 *
 * The kind is known, so such a draft can be staged and reviewed, but its
 * delivery arrives with calendar support: until then a release says so and
 * the draft stays pending with that error.
 *
 * Ownership: nothing here allocates.
 */
#ifndef MECHA_OUTBOX_INVITE_H
#define MECHA_OUTBOX_INVITE_H

struct sink;

/* The calendar_invite row of the sink table (sink.h). */
extern const struct sink invite_sink;

#endif
