/*
 * wallclock — local times in a named zone. The offset at an instant comes
 * from libical (the instant converted to the zone's fields, read back as if
 * UTC); everything else is arithmetic on days, which needs no zone.
 */
#include "calendar/wallclock.h"

#include "base/dl.h"
#include "base/err.h"
#include "base/rfc3339.h"
#include "calendar/zone.h"

#include <libical/ical.h>

#define DAY 86400L

static icaltimezone *ical(const struct wallclock *z)
{
	return (icaltimezone *)(void *)z;
}

const struct wallclock *wallclock_zone(const char *name, struct err *e)
{
	icaltimezone *z;

	if (dl_require(DL_ICAL, e) != 0)
		return NULL;
	z = name && *name ? zone_for_tzid(NULL, name) : NULL;
	if (!z) {
		err_set(e, ERR_CONFIG, "`%s` is not a time zone mecha knows (an IANA name such as "
			"Europe/Berlin)", name ? name : "");
		return NULL;
	}
	return (const struct wallclock *)(void *)z;
}

/* The calendar's arithmetic is base's (rfc3339.h), in this module's types. */
long wallclock_days(int year, int month, int day)
{
	return (long)rfc3339_days_from_civil(year, month, day);
}

void wallclock_date(long days, int *year, int *month, int *day)
{
	long long y;

	rfc3339_civil_from_days(days, &y, month, day);
	*year = (int)y;
}

int wallclock_weekday(long days)
{
	/* 1970-01-01 was a Thursday (3 when Monday is 0). */
	return (int)(((days % 7) + 7 + 3) % 7);
}

/* The local fields at t, read back as if they were UTC: t + the offset in force. */
static long local_seconds(const struct wallclock *z, time_t t)
{
	struct icaltimetype w = icaltime_from_timet_with_zone(t, 0, ical(z));

	return wallclock_days(w.year, w.month, w.day) * DAY + w.hour * 3600L + w.minute * 60L +
	       w.second;
}

void wallclock_local(const struct wallclock *z, time_t t, struct wallclock_time *out)
{
	long s = local_seconds(z, t), days = s >= 0 ? s / DAY : (s - DAY + 1) / DAY;

	wallclock_date(days, &out->year, &out->month, &out->day);
	out->minute = (int)((s - days * DAY) / 60);
	out->second = (int)((s - days * DAY) % 60);
	out->weekday = wallclock_weekday(days);
	out->offset = s - (long)t;
}

/*
 * The offsets a day either side of the time are the candidates (no zone
 * changes its offset twice within two days). A candidate is a reading when
 * the zone's offset at it gives back the wall-clock time: two readings are
 * the repeated hour (take the first); none is the gap (read with the offset
 * before it).
 */
time_t wallclock_instant(const struct wallclock *z, int year, int month, int day, int minute)
{
	long local = wallclock_days(year, month, day) * DAY + minute * 60L;
	long before = local_seconds(z, local - DAY) - (local - DAY);
	long after = local_seconds(z, local + DAY) - (local + DAY);
	time_t a = local - before, b = local - after;
	int a_ok = local_seconds(z, a) == local, b_ok = local_seconds(z, b) == local;

	if (a_ok && b_ok)
		return a < b ? a : b;
	if (b_ok)
		return b;
	return a; /* a reading, or the gap: the offset before it */
}
