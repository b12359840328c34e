/*
 * rfc3339 — UTC timestamps as text ("2026-08-06T02:03:12Z").
 *
 * Ownership: callers provide the output storage (RFC3339_LEN bytes).
 */
#ifndef MECHA_BASE_RFC3339_H
#define MECHA_BASE_RFC3339_H

#include <time.h>

#define RFC3339_LEN 32

void rfc3339_format(time_t t, char out[RFC3339_LEN]);
void rfc3339_now(char out[RFC3339_LEN]);
/*
 * Parses "YYYY-MM-DDTHH:MM:SS[.frac](Z|±HH:MM)" (a space or lowercase t/z are
 * accepted too) into seconds since the epoch. Returns 0, or -1 when s is not
 * such a timestamp.
 */
int rfc3339_parse(const char *s, time_t *out);

/*
 * The proleptic Gregorian calendar by arithmetic (Howard Hinnant's
 * days_from_civil and its inverse), exact for every date and taking no lock
 * (glibc's timegm/gmtime_r take the time-zone lock, even for UTC). The one
 * home of the rule: the box's pages and the calendar's wall clock use it too.
 * Days count from 1970-01-01 (day 0); m is 1-12, d 1-31.
 */
long long rfc3339_days_from_civil(long long y, int m, int d);
void rfc3339_civil_from_days(long long days, long long *y, int *m, int *d);
/* a / b rounded towards minus infinity (b != 0): the day of a second before 1970. */
long long rfc3339_floor_div(long long a, long long b);

#endif
