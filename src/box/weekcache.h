/*
 * weekcache — the plain week page (GET /s/{h}/{t}, no answers, no notice, not a
 * reschedule), rendered once per everything it depends on.
 *
 * The page is a pure function (box/page.h) of the manifest, the page's
 * address, ?week= and ?mins=, the pushed slots, what blocks them, and now. A
 * document is kept under a key naming all but the last three by value, and
 * the slots and what blocks them by the ledger's change counter of the
 * instrument (ledger.h, slots_stamp: moved in the transaction of every change
 * to its bookings or slots, by any box on the database or by hand). Time is
 * the document's `until`: the first second it could read otherwise (a slot
 * starting, a hold lapsing, a new day in the zone, the stale notice: the
 * caller works it out), and never more than WEEKCACHE_SECONDS after it was
 * kept. Nothing per request is in the page (page.h: no tokens, no nonces).
 *
 * So the caller reads the counter first, then (on a miss) the slots and
 * bookings: a change in between leaves a page newer than its counter, which
 * the next reading of the counter passes over.
 *
 * At most WEEKCACHE_ENTRIES documents; the least recently used goes first.
 *
 * Threads: one mutex around the entries; any number of callers at once.
 *
 * Ownership: weekcache_get returns a new malloc'd copy (or NULL); every
 * argument is borrowed (weekcache_put keeps its own copies).
 */
#ifndef MECHA_BOX_WEEKCACHE_H
#define MECHA_BOX_WEEKCACHE_H

#include <time.h>

#define WEEKCACHE_ENTRIES 64
#define WEEKCACHE_SECONDS 300

struct weekcache_key {
	const char *user, *instrument;
	unsigned long long manifest; /* box/typecache.h's typecache_id */
	long long stamp;             /* ledger.h's slots_stamp, read before the page's inputs */
	const char *base, *assets, *lang; /* struct page_ctx; NULL allowed */
	const char *week, *mins;          /* the query's words, as the page reads them; NULL allowed */
};

/* The document kept for k when now is before its until; NULL otherwise. */
char *weekcache_get(const struct weekcache_key *k, time_t now);
/* Keeps doc for k until until (at most WEEKCACHE_SECONDS after now); nothing when until <= now. */
void weekcache_put(const struct weekcache_key *k, time_t now, time_t until, const char *doc);

#endif
