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

#endif
