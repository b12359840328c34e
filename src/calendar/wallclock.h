/*
 * wallclock — what a wall-clock time in a named zone means, and back: the
 * two questions a weekly schedule ("Tuesdays 09:00–17:00 in Europe/Berlin")
 * asks of a zone, answered with the zone data the calendar reads events with
 * (libical's builtin zones, from the system's zoneinfo), so a slot and an
 * event never disagree about an hour.
 *
 * The rule: a wall-clock time always means exactly one instant, as RFC 5545
 * (§3.3.5, DATE-TIME) reads a local time. A time the clocks pass twice (the
 * hour repeated when they go back) means its first occurrence; a time they
 * skip (the hour lost when they go forward) is read with the offset in force
 * before the gap, so 02:30 on the morning Berlin goes forward is 03:30 CEST.
 *
 * Calling sequence:
 *     const struct wallclock *z = wallclock_zone("Europe/Berlin", &e);
 *     if (!z) return -1;
 *     time_t t; wallclock_instant(z, 2026, 10, 25, 9 * 60, &t);
 *     struct wallclock_time w; wallclock_local(z, t, &w);
 *
 * Ownership: a zone belongs to libical's cache for the life of the process;
 * never free it.
 */
#ifndef MECHA_CALENDAR_WALLCLOCK_H
#define MECHA_CALENDAR_WALLCLOCK_H

#include <time.h>

struct err;
struct wallclock; /* opaque: a zone of libical's */

/* A local time: the date, the minute of the day, and the offset east of UTC in force. */
struct wallclock_time {
	int year, month, day; /* month 1-12 */
	int minute;           /* 0 … 1439 */
	int second;
	int weekday;          /* 0 = Monday … 6 = Sunday */
	long offset;          /* seconds east of UTC */
};

/*
 * The zone called name (an IANA name such as "America/New_York", or "UTC").
 * NULL with code config when no zone has that name, missing_library when
 * libical is not installed.
 */
const struct wallclock *wallclock_zone(const char *name, struct err *e);

/* The wall-clock time in z at the instant t. */
void wallclock_local(const struct wallclock *z, time_t t, struct wallclock_time *out);

/* The instant that the wall-clock time (date, minute of the day) means in z (the rule above). */
time_t wallclock_instant(const struct wallclock *z, int year, int month, int day, int minute);

/* Days since 1970-01-01 of a (proleptic Gregorian) date, and back; the weekday (0 = Monday). */
long wallclock_days(int year, int month, int day);
void wallclock_date(long days, int *year, int *month, int *day);
int wallclock_weekday(long days);

#endif
