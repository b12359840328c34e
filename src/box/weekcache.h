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
 * The counter is one query a visit; the ledger's own stamp (ledger.h, one
 * cheap statement on SQLite, read by every visit already) saves it: a page is
 * kept with the last stamp read before a counter that matched it, and while
 * the ledger's stamp is still that one nothing was committed since, so the
 * counter is unchanged and the page holds without asking.
 *
 * At most WEEKCACHE_ENTRIES documents; the least recently used goes first.
 *
 * Threads: one mutex around the entries; any number of callers at once.
 *
 * The page is kept as one shared document (box/api.h, struct api_doc), so
 * every visit sends the same bytes and the same response, as the form does.
 *
 * Ownership: weekcache_get returns a new ref (api_doc_put it) or NULL; every
 * argument is borrowed (weekcache_put copies the key and takes its own ref).
 */
#ifndef MECHA_BOX_WEEKCACHE_H
#define MECHA_BOX_WEEKCACHE_H

#include <time.h>

struct api_doc;
struct ledger_stamp;

#define WEEKCACHE_ENTRIES 64
#define WEEKCACHE_SECONDS 300

struct weekcache_key {
	const char *user, *instrument;
	unsigned long long manifest; /* box/typecache.h's typecache_id */
	long long stamp;             /* ledger.h's slots_stamp, read before the page's inputs */
	const char *base, *assets, *lang; /* struct page_ctx; NULL allowed */
	const char *week, *mins;          /* the query's words, as the page reads them; NULL allowed */
};

/*
 * The document kept for k (its stamp, the counter, not read) when now is
 * before its until and ledger (the ledger's stamp, read before anything else
 * of the visit; NULL when the backend cannot tell) is the one it was last
 * confirmed at; NULL otherwise: read the counter and ask weekcache_get.
 */
struct api_doc *weekcache_held(const struct weekcache_key *k, const struct ledger_stamp *ledger,
			       time_t now);
/* The document kept for k at k's counter when now is before its until, confirmed from
 * then on at ledger (may be NULL); NULL otherwise. */
struct api_doc *weekcache_get(const struct weekcache_key *k, const struct ledger_stamp *ledger,
			      time_t now);
/* Keeps doc for k until until (at most WEEKCACHE_SECONDS after now), confirmed at ledger
 * (may be NULL); nothing when until <= now. */
void weekcache_put(const struct weekcache_key *k, const struct ledger_stamp *ledger, time_t now,
		   time_t until, struct api_doc *doc);

#endif
