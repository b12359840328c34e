/*
 * zone — which instant a calendar's wall-clock time means.
 *
 * A time with a TZID is placed by the VTIMEZONE its calendar carries, else by
 * libical's builtin zones (an IANA name, also behind a "/vendor/…/" prefix),
 * else by the Windows zone name Outlook writes ("W. Europe Standard Time").
 * A TZID none of these place is the caller's error to report: guessing UTC
 * would move a busy hour. Floating times and dates mean the person's zone,
 * [calendar] timezone or the system's.
 *
 * Ownership: zones belong to libical (the file's component tree or its builtin
 * cache); never free them.
 */
#ifndef MECHA_CALENDAR_ZONE_H
#define MECHA_CALENDAR_ZONE_H

#include <libical/ical.h>
#include <stddef.h>

struct err;

#define ZONE_NAME_MAX 128

/*
 * The person's zone: configured (an IANA name) when set, else TZ, else the
 * /etc/localtime link, else /etc/timezone, else UTC when there is no
 * /etc/localtime. NULL with code "config" when the name is no zone libical
 * knows. name receives the zone's name.
 */
icaltimezone *zone_local(const char *configured, char name[ZONE_NAME_MAX], struct err *e);

/* The zone tzid names for a time inside component c; NULL when nothing places it. */
icaltimezone *zone_for_tzid(icalcomponent *c, const char *tzid);

/*
 * zone_cache — the VTIMEZONEs of one reading of a calendar, each made a
 * libical zone once. libical works out a zone's changes from its first
 * observance (1970, as most writers put it) the first time a time is placed
 * in it, and a zone belongs to its file: without the cache a vdir of 5,000
 * files, each carrying the same VTIMEZONE, pays that 5,000 times. Two
 * VTIMEZONEs are the same zone when their whole text is the same (TZID and
 * every observance), so a file that redefines a name keeps its own rules.
 *
 * Calling sequence: zone_cache_new; per file, zone_cache_next_file before its
 * first time; zone_for_tzid_cached for each TZID; zone_cache_free at the end.
 * Ownership: the cache owns its zones (valid until zone_cache_free); the file
 * zones it is handed stay the file's.
 */
struct zone_cache;

struct zone_cache *zone_cache_new(void);
void zone_cache_free(struct zone_cache *cache);
void zone_cache_next_file(struct zone_cache *cache);
/*
 * As zone_for_tzid; a VTIMEZONE of the file comes back as the cache's zone of
 * the same text, and one taken out of a calendar's text (zone_cache_place) is
 * found where it stood.
 */
icaltimezone *zone_for_tzid_cached(icalcomponent *c, const char *tzid, struct zone_cache *cache);

/*
 * The bytes of a VTIMEZONE (its BEGIN line through its END line), so that a
 * reader may leave a VTIMEZONE it has met out of what libical parses: parsing
 * it is about half of what a small file costs. zone_cache_text: the zone those
 * bytes made in this reading; *known is 0 when they were never handed in, and
 * the zone NULL when they make none. zone_cache_put_text: what they make —
 * vtimezone is those bytes parsed alone and checked by the caller (the cache
 * takes it; NULL: they are no zone); the zone, NULL when it has no observance
 * or no TZID. zone_cache_place: in the current file, calendar cal held zone
 * (taken out of its text), so a TZID inside cal finds it there.
 */
icaltimezone *zone_cache_text(struct zone_cache *cache, const char *text, size_t len, int *known);
icaltimezone *zone_cache_put_text(struct zone_cache *cache, const char *text, size_t len,
				  icalcomponent *vtimezone);
void zone_cache_place(struct zone_cache *cache, icalcomponent *cal, icaltimezone *zone);

#endif
