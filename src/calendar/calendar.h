/*
 * calendar — free/busy from the person's calendar, and nothing else of it.
 *
 * The calendar is an iCalendar file or a vdir (a directory of .ics files, as
 * vdirsyncer and khal keep them). What a privileged run may learn from it is
 * when the person is busy: the opaque, non-cancelled events' intervals inside
 * a window, recurrences expanded, overlapping or touching intervals merged.
 * Titles, attendees and locations never leave this module.
 *
 * Ownership: calendar_busy returns a malloc'd array (free it); the JSON
 * helper returns a NEW reference.
 */
#ifndef MECHA_CALENDAR_CALENDAR_H
#define MECHA_CALENDAR_CALENDAR_H

#include <jansson.h>
#include <stddef.h>
#include <time.h>

struct err;

struct calendar_interval {
	time_t start;
	time_t end;
};

/* The longest window a caller may ask about (a free/busy question, not a dump). */
#define CALENDAR_MAX_WINDOW_DAYS 366

/*
 * Busy intervals overlapping [from, to), clipped to it, sorted and merged.
 * A missing calendar path fails with code "not_found"; an unparsable file
 * fails naming it.
 */
int calendar_busy(const char *path, time_t from, time_t to, struct calendar_interval **out,
		  size_t *n, struct err *e);

/* 1 when [start, end) overlaps none of the busy intervals, 0 when it does, -1 on failure. */
int calendar_is_free(const char *path, time_t start, time_t end, struct err *e);

/* [{"start": RFC 3339, "end": RFC 3339}, …] */
json_t *calendar_intervals_json(const struct calendar_interval *v, size_t n);

#endif
