/*
 * clock — time(2), or in a test build the time MECHA_NOW fixes.
 */
#include "base/clock.h"

#ifdef MECHA_TEST_BUILD
#include "base/rfc3339.h"

#include <stdio.h>
#include <stdlib.h>
#endif

time_t clock_now(void)
{
#ifdef MECHA_TEST_BUILD
	static int warned;
	const char *fixed = getenv(CLOCK_NOW_ENV);
	time_t t;

	if (fixed && *fixed) {
		if (rfc3339_parse(fixed, &t) == 0)
			return t;
		if (!warned++)
			fputs("mecha: MECHA_NOW is not an RFC 3339 time; using the real time\n", stderr);
	}
#endif
	return time(NULL);
}
