/*
 * clock — what time it is, asked in one place.
 *
 * The sweep's reminders and the doctor's "waiting too long" are decided by
 * the clock, so their edges can only be tested with a clock a test sets.
 * clock_now is time(2), except in a test build (compiled with
 * -DMECHA_TEST_BUILD), where the environment variable MECHA_NOW, an RFC 3339
 * time ("2026-10-23T08:00:00Z"), replaces it. A release build never reads
 * the variable. A MECHA_NOW that does not read is said once on stderr and
 * the real time is used.
 *
 * Ownership: nothing is allocated.
 */
#ifndef MECHA_BASE_CLOCK_H
#define MECHA_BASE_CLOCK_H

#include <time.h>

#define CLOCK_NOW_ENV "MECHA_NOW"

/* Now, in seconds since the epoch. */
time_t clock_now(void);

#endif
