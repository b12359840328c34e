/*
 * limit — requests per client address in a fixed 60-second window (the
 * reference's limiter: 120 a minute; 429 "too many requests" past it).
 *
 * Windows are aligned to the minute, so the whole table is forgotten when
 * the minute turns: memory is bounded by the addresses seen in one minute,
 * and there is nothing to expire one by one.
 *
 * Ownership: limit_new returns a table the caller frees with limit_free.
 * Safe to call from several threads.
 */
#ifndef MECHA_BOX_LIMIT_H
#define MECHA_BOX_LIMIT_H

#include <time.h>

struct limit;

struct limit *limit_new(long long per_minute);
/* 1 when the address may make one more request now (and counts it), 0 when not. */
int limit_take(struct limit *l, const char *addr, time_t now);
void limit_free(struct limit *l);

#endif
