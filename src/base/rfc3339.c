/*
 * rfc3339 — formatting and strict parsing of UTC timestamps.
 */
#include "base/rfc3339.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

void rfc3339_format(time_t t, char out[RFC3339_LEN])
{
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(out, RFC3339_LEN, "%Y-%m-%dT%H:%M:%SZ", &tm);
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
	struct tm tm;
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
	memset(&tm, 0, sizeof tm);
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = sec == 60 ? 59 : sec;
	time_t t = timegm(&tm);
	struct tm chk;
	gmtime_r(&t, &chk);
	if (chk.tm_mday != d) /* 29 February of a year that has none */
		return -1;
	*out = t - sign * (oh * 3600 + om * 60);
	return 0;
}
