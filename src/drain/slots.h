/*
 * slots — the times a booking type offers: its manifest's [availability]
 * minus the person's calendar, computed at home (the box never sees the
 * calendar; it is handed this list, docs/protocol/box-api.md §5).
 *
 * The rule: a slot is offered only over a calendar mecha has read. No
 * [calendar] path, a path that is not there, a file that does not parse —
 * each is an error, never "no busy times": a stranger could book an hour
 * the person already gave away.
 *
 * What a slot is (the compatible tools' computation is not public — "home computes
 * slots" — so this is our decision, written down):
 *
 *   - Days. Each local date in the type's `timezone` has windows: the weekly
 *     windows of its weekday, or, when `overrides` names the date, the
 *     override's windows instead (an override without windows closes the day;
 *     several overrides of one date add their windows together).
 *   - Windows are wall-clock times (calendar/wallclock.h): 09:00–17:00 stays
 *     09:00–17:00 local across a daylight-saving change, and a window's
 *     edges mean instants by RFC 5545's reading of a local time (a repeated
 *     time is its first occurrence, a skipped one is read with the offset
 *     before the gap).
 *   - The grid. Starts are the window's start, then every
 *     `increment_minutes` of elapsed time after it. For each start and each
 *     of `durations`, the slot is [start, start + duration), offered when it
 *     lies wholly inside that one window (two windows that touch are not
 *     joined), so a window that spans the hour the clocks repeat offers that
 *     hour twice, and one that spans the hour they skip offers it not at all.
 *   - Bounds. start >= now + min_notice_hours; end <= now + horizon_days ×
 *     24 h (the whole slot inside the horizon; a slot ending exactly on the
 *     edge is offered).
 *   - Busy. A slot is not offered when it overlaps a busy interval widened by
 *     buffer_minutes on both sides: [busy.start - buffer, busy.end + buffer).
 *     Touching is not overlapping: with no buffer, a slot may end when a
 *     meeting begins.
 *   - The cap. per_day_cap counts distinct start times, per local date of
 *     the window: the day's earliest `per_day_cap` free start times are
 *     offered, each with every duration that fits there. It caps what one
 *     computation offers; it cannot count bookings already made (the
 *     calendar's busy times do not say which were bookings), so a day whose
 *     offered times were booked offers its next free ones on the next push.
 *   - Order. Sorted by start, then duration; a slot two overlapping windows
 *     both produce is offered once.
 *   - The box takes at most SLOTS_MAX slots (PUT /v1/instruments/{id}/slots):
 *     the earliest SLOTS_MAX are kept and `dropped` counts the rest, which
 *     the next push offers as they come nearer.
 *   - horizon_days above 366 (what that PUT takes) is refused, not clamped.
 *   - The fingerprint (slots_of_type): a SHA-256 over the manifest file's
 *     bytes and the busy intervals the computation read, an interval cut by
 *     the window's edge written as the edge, not the instant. Two
 *     computations that read the same manifest and the same busy time have
 *     the same one however far apart, so comparing it with the last push's
 *     (offered.h) tells whether the calendar or the type changed since:
 *     the drain service pushes again only then (push.h, push_slots_due).
 *
 * Calling sequence:
 *     struct slots s;
 *     if (slots_of_type("book", NULL, &s, &e) != 0) return -1;   (or slots_compute)
 *     json_t *body = slots_json(&s);      the PUT body, as is
 *     slots_free(&s);
 *
 * Ownership: struct slots owns its array and strings (slots_free; safe on a
 * zeroed struct). slots_json returns a NEW reference; slots_text a malloc'd
 * string. Availability and busy intervals passed in are borrowed.
 */
#ifndef MECHA_DRAIN_SLOTS_H
#define MECHA_DRAIN_SLOTS_H

#include <jansson.h>
#include <stddef.h>
#include <time.h>

struct calendar_interval;
struct err;
struct manifest_availability;

#define SLOTS_MAX 5000             /* slots the box takes in one PUT */
#define SLOTS_MAX_HORIZON_DAYS 366 /* horizon_days the box takes */

struct slot {
	time_t start, end;
	int duration; /* minutes */
};

struct slots {
	char *type;           /* the type's id; NULL from slots_compute */
	char *zone;           /* [availability] timezone */
	time_t generated_at;  /* the "now" the slots were computed for */
	long long horizon_days;
	struct slot *v;
	size_t n;
	size_t dropped;       /* slots beyond SLOTS_MAX, not in v */
	/* slots_of_type: what the computation read, as SHA-256 hex (below); "" from slots_compute */
	char fingerprint[65];
};

/*
 * The pure computation: the slots of a at instant now, given the busy
 * intervals (in any order; they may overlap). Fails only on a zone mecha
 * does not know or a horizon the box does not take (invalid_manifest), or
 * without libical (missing_library).
 */
int slots_compute(const struct manifest_availability *a, const struct calendar_interval *busy,
		  size_t nbusy, time_t now, struct slots *out, struct err *e);

/*
 * 1 when [start, end) is a slot a offers at instant now with nothing busy:
 * one of its durations, on the grid of one of that day's windows (weekly or
 * override), inside notice and horizon — the computation above, asked about
 * one slot. 0 when it is not; -1 as slots_compute fails. Neither the busy
 * time (with its buffers) nor per_day_cap is asked here: they depend on the
 * calendar as it was, and what home pushed (offered.h) carries both.
 */
int slots_fit(const struct manifest_availability *a, time_t now, time_t start, time_t end,
	      struct err *e);

/*
 * The slots of the installed booking type id ($MECHA_HOME/factory/types/
 * <id>.toml) over [calendar] path. from: NULL for now, else the instant to
 * compute as of — an RFC 3339 time, or YYYY-MM-DD for midnight that day in
 * the type's zone (usage when it is neither). Failures: the type's (not_found
 * also when it is not a booking, invalid_manifest), the config's, the
 * calendar's (not_found without a [calendar] path; io, parse …).
 */
int slots_of_type(const char *id, const char *from, struct slots *out, struct err *e);

/* {"generated_at", "horizon_days", "slots": [{"start", "end", "duration_minutes"}]}, UTC. */
json_t *slots_json(const struct slots *s);

/* One slot a line in the type's zone: "Tue 2026-10-27 13:00–13:30 -04:00  30 min\n". */
char *slots_text(const struct slots *s, struct err *e);

void slots_free(struct slots *s);

#endif
