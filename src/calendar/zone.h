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

#endif
