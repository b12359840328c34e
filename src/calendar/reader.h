/*
 * reader — one iCalendar file into the busy intervals of a window.
 *
 * Every VCALENDAR of the file is read (an icalstream holds one or more; libical
 * hands several back under an XROOT). An event is busy unless it is
 * TRANSPARENT or CANCELLED; its occurrences are DTSTART, the RRULEs and RDATEs,
 * less the EXDATEs and the instances a RECURRENCE-ID component overrides
 * (which then count at their own time, and only if they are busy themselves).
 *
 * The rule: whatever the reader cannot read — a file libical cannot parse, a
 * line libical flagged inside an event or a VTIMEZONE, a VEVENT nested where
 * none belongs (inside an event, a to-do, an X- component), a DTSTART missing
 * or unreadable, a TZID nothing places, a recurrence it cannot expand — fails
 * the whole file with code "parse" naming the file, the line and the UID.
 * Nothing unreadable is ever taken as free time.
 *
 * With a zone cache, a file is parsed without the VTIMEZONEs the reading has
 * met and without the lines nothing here reads (reader.c says which and when);
 * what it places, or the error it names, is what the file as written gives.
 *
 * Ownership: struct reader owns v (the caller frees it once done); the zone is
 * libical's; zones is the caller's (zone_cache_new/zone_cache_free around the reading).
 */
#ifndef MECHA_CALENDAR_READER_H
#define MECHA_CALENDAR_READER_H

#include "calendar/calendar.h"

#include <libical/ical.h>
#include <stddef.h>
#include <time.h>

struct err;

struct reader {
	time_t from, to;      /* the window */
	icaltimezone *local;  /* for floating times and dates; NULL: unknown, … */
	const char *local_why; /* … for this reason, an error when one is met */
	struct calendar_interval *v; /* busy intervals so far, clipped to the window, unmerged */
	size_t n, cap;
	struct zone_cache *zones; /* the VTIMEZONEs met so far (zone.h); NULL: none kept */
	size_t batch; /* a larger file is parsed this many bytes of events at a time; 0: the default */
	size_t batches; /* counted: the batches placed (a file read whole adds none) */
	size_t lean; /* counted: the files (and batches) placed without their known VTIMEZONEs
			and inert lines (reader.c says which), parsed as written otherwise */
	int count;     /* only read and check the events (as reader_parse), placing nothing … */
	size_t events; /* … and count them here */
};

/* The default batch: libical's tree of 256 KiB of events is a few MiB. */
#define READER_BATCH_BYTES (256u * 1024u)

/* Adds what the file at path makes busy; -1 (nothing of it added) when any of it is unreadable. */
int reader_file(const char *path, void *reader, struct err *e);
/* The same for text[0..len) read already (text[len] must be NUL), named path in errors. */
int reader_text(const char *path, const char *text, size_t len, struct reader *r, struct err *e);

/*
 * Parses text (named path in errors) and checks it as reader_file would check
 * it, without expanding anything. *root is new (icalcomponent_free), NULL for
 * an empty text.
 */
int reader_parse(const char *path, const char *text, icalcomponent **root, struct err *e);

#endif
