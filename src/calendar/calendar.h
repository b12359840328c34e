/*
 * calendar — the person's calendar: when they are busy, and the events mecha
 * writes into it.
 *
 * The calendar ([calendar] path) is an iCalendar file, a vdir (a directory of
 * .ics files, as vdirsyncer and khal keep them) or a vdirsyncer root whose
 * subdirectories are collections ([calendar] collections may name some).
 * What a privileged run may learn from it is when the person is busy: the
 * opaque, non-cancelled events' intervals inside a window, recurrences
 * expanded (RRULE, RDATE, EXDATE, RECURRENCE-ID overrides), all-day events and
 * DTEND/DURATION as RFC 5545 says, floating times and dates in [calendar]
 * timezone (default: the system's), overlapping or touching intervals merged.
 * Titles, attendees and locations never leave this module.
 *
 * The rule: never "free" when unsure. Anything the reader cannot read — a file
 * that does not parse, a DTSTART it cannot read, a TZID it cannot place, a
 * line libical flagged inside an event — makes the whole answer an error that
 * names the file and the line (or the event's UID), never an empty list.
 *
 * Calling sequence (callers holding a loaded config use the _conf functions;
 * the path-only ones load config.toml for the zone and the collections):
 *     struct calendar_interval *v; size_t n;
 *     if (calendar_busy_conf(&cfg, from, to, &v, &n, &e) != 0) return -1;
 *     json_t *j = calendar_intervals_json(v, n);   ... free(v);
 *
 * Ownership: calendar_busy* return a malloc'd array (free it); the JSON helper
 * returns a NEW reference; calendar_itip and calendar_busy_text return a new
 * string (free it). Events passed in are borrowed.
 */
#ifndef MECHA_CALENDAR_CALENDAR_H
#define MECHA_CALENDAR_CALENDAR_H

#include <jansson.h>
#include <stddef.h>
#include <time.h>

struct config;
struct err;

struct calendar_interval {
	time_t start;
	time_t end;
};

/* The longest window a caller may ask about (a free/busy question, not a dump). */
#define CALENDAR_MAX_WINDOW_DAYS 366

/*
 * Busy intervals overlapping [from, to), clipped to it, sorted and merged,
 * from the calendar cfg names. Failures: no [calendar] path → not_found; a
 * bad window → bad_window; a bad [calendar] timezone or collection → config;
 * anything unreadable in the calendar → parse (or io), naming file and line.
 */
int calendar_busy_conf(const struct config *cfg, time_t from, time_t to,
		       struct calendar_interval **out, size_t *n, struct err *e);

/*
 * How much of the calendar cfg names there is, for `mecha doctor`: its .ics
 * files and the VEVENT components in them (a recurrence is one, an override
 * of one instance another), each file read and checked as the busy reader
 * reads and checks it (a large one a batch at a time, the zones met once),
 * without expanding recurrences; a blank file counts as none. Failures as
 * calendar_busy_conf.
 */
int calendar_count_conf(const struct config *cfg, size_t *files, size_t *events, struct err *e);

/* 1 when [start, end) overlaps none of the busy intervals, 0 when it does, -1 on failure. */
int calendar_is_free_conf(const struct config *cfg, time_t start, time_t end, struct err *e);

/*
 * The same for an explicit path, with the zone (and, when path is the
 * configured one, the collections) from config.toml, which they load.
 */
int calendar_busy(const char *path, time_t from, time_t to, struct calendar_interval **out,
		  size_t *n, struct err *e);
int calendar_is_free(const char *path, time_t start, time_t end, struct err *e);

/*
 * The same for one iCalendar text already in memory (text[len] must be NUL;
 * name names it in errors), floating times and dates in zone (an IANA name;
 * NULL: the system's): the check every file of a calendar gets, without a
 * file (the fuzz target feeds it every input).
 */
int calendar_busy_ics(const char *name, const char *text, size_t len, const char *zone,
		      time_t from, time_t to, struct calendar_interval **out, size_t *n,
		      struct err *e);

/* [{"start": RFC 3339, "end": RFC 3339}, …] */
json_t *calendar_intervals_json(const struct calendar_interval *v, size_t n);

/*
 * For a person: one line per interval, in the calendar's zone and in UTC
 * ("2026-10-24 09:00 → 2026-10-24 10:30 Europe/Berlin  (…Z → …Z)"). NULL on
 * failure (a bad zone).
 */
char *calendar_busy_text(const struct config *cfg, const struct calendar_interval *v, size_t n,
			 struct err *e);

/* ---- writing ---------------------------------------------------------------- */

#define CALENDAR_UID_MAX 256 /* with the NUL */

/* An event mecha writes: one attendee, times in UTC. All strings borrowed. */
struct calendar_event {
	const char *uid;         /* NULL or "": calendar_event_write makes one */
	const char *summary;     /* NULL: none */
	const char *description; /* NULL: none (e.g. a manage link) */
	const char *organizer;   /* mail address; NULL: [mail] from (write only) */
	const char *attendee;    /* mail address, invited with RSVP=TRUE */
	time_t start, end;
	int sequence;
};

/*
 * Writes ev into the calendar: into a vdir as a new file named from the UID
 * (atomic replace, 0600), or into a single .ics file as a VEVENT appended
 * under <file>.lock (re-read, rewritten atomically; an event with the same
 * UID is replaced). A vdirsyncer root writes into the first of [calendar]
 * collections (or its only collection). uid_out receives the UID.
 */
int calendar_event_write(const struct config *cfg, const struct calendar_event *ev,
			 char uid_out[CALENDAR_UID_MAX], struct err *e);

/* Removes every VEVENT with uid (deleting a vdir file it empties); not_found when none. */
int calendar_event_remove(const struct config *cfg, const char *uid, struct err *e);

enum calendar_itip_method { CALENDAR_ITIP_REQUEST, CALENDAR_ITIP_CANCEL };

/*
 * The iTIP text (RFC 5546) of ev for a text/calendar part: METHOD:REQUEST, or
 * METHOD:CANCEL with SEQUENCE one higher and STATUS:CANCELLED. ev->uid and
 * ev->organizer are required here.
 */
int calendar_itip(const struct calendar_event *ev, enum calendar_itip_method method, char **text,
		  struct err *e);

#endif
