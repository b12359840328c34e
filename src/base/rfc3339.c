/*
 * rfc3339 — formatting and strict parsing of UTC timestamps.
 */
#include "base/rfc3339.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/*
 * The calendar by arithmetic, not timegm/gmtime_r: glibc takes its time-zone
 * lock in both, even for UTC, and the box parses thousands of times a page on
 * many threads.
 */
long long rfc3339_days_from_civil(long long y, int m, int d)
{
	long long era, yoe, doy;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	return era * 146097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719468;
}

void rfc3339_civil_from_days(long long z, long long *y, int *m, int *d)
{
	long long era, doe, yoe, doy, mp;

	z += 719468;
	era = (z >= 0 ? z : z - 146096) / 146097;
	doe = z - era * 146097;
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	*d = (int)(doy - (153 * mp + 2) / 5 + 1);
	*m = (int)(mp < 10 ? mp + 3 : mp - 9);
	*y = yoe + era * 400 + (*m <= 2);
}

long long rfc3339_floor_div(long long a, long long b)
{
	return a / b - (a % b != 0 && (a < 0) != (b < 0));
}

/* n (0..99) as two digits at p. */
static void two(char *p, long long n)
{
	p[0] = (char)('0' + n / 10);
	p[1] = (char)('0' + n % 10);
}

void rfc3339_format(time_t t, char out[RFC3339_LEN])
{
	long long day = rfc3339_floor_div((long long)t, 86400), sec = (long long)t - day * 86400, y;
	int m, d;

	rfc3339_civil_from_days(day, &y, &m, &d);
	if (y < 0 || y > 9999) { /* far off: printf spells the sign and the wider year */
		snprintf(out, RFC3339_LEN, "%04lld-%02d-%02dT%02lld:%02lld:%02lldZ", y, m, d,
			 sec / 3600, sec / 60 % 60, sec % 60);
		return;
	}
	/* by hand, every box request formats its time (the access log, the visit) */
	memcpy(out, "0000-00-00T00:00:00Z", 21);
	two(out, y / 100);
	two(out + 2, y % 100);
	two(out + 5, m);
	two(out + 8, d);
	two(out + 11, sec / 3600);
	two(out + 14, sec / 60 % 60);
	two(out + 17, sec % 60);
}

void rfc3339_now(char out[RFC3339_LEN])
{
	rfc3339_format(time(NULL), out);
}

static int digits(const char *s, int n, int *out)
{
	int v = 0;

	for (int i = 0; i < n; i++) {
		if (!isdigit((unsigned char)s[i]))
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	*out = v;
	return 0;
}

int rfc3339_parse(const char *s, time_t *out)
{
	static const int mdays[] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	int y, mo, d, h, mi, sec, oh = 0, om = 0, sign = 0;
	const char *p;

	if (strlen(s) < 20)
		return -1;
	if (digits(s, 4, &y) || s[4] != '-' || digits(s + 5, 2, &mo) || s[7] != '-' ||
	    digits(s + 8, 2, &d) || !strchr("Tt ", s[10]) || digits(s + 11, 2, &h) ||
	    s[13] != ':' || digits(s + 14, 2, &mi) || s[16] != ':' || digits(s + 17, 2, &sec))
		return -1;
	if (mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] || h > 23 || mi > 59 || sec > 60)
		return -1;
	p = s + 19;
	if (*p == '.') {
		p++;
		if (!isdigit((unsigned char)*p))
			return -1;
		while (isdigit((unsigned char)*p))
			p++;
	}
	if (*p == 'Z' || *p == 'z') {
		p++;
	} else if (*p == '+' || *p == '-') {
		sign = *p == '-' ? -1 : 1;
		if (digits(p + 1, 2, &oh) || p[3] != ':' || digits(p + 4, 2, &om) || oh > 23 ||
		    om > 59)
			return -1;
		p += 6;
	} else {
		return -1;
	}
	if (*p != '\0')
		return -1;
	if (mo == 2 && d == 29 && !((y % 4 == 0 && y % 100 != 0) || y % 400 == 0))
		return -1; /* 29 February of a year that has none */
	*out = (time_t)(rfc3339_days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 +
			(sec == 60 ? 59 : sec)) -
	       sign * (oh * 3600 + om * 60);
	return 0;
}
