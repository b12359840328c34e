/*
 * listing — what `frontdoor list` shows of each request, and the walk that
 * gives it in seq order with every request reconciled first (as
 * reconcile_each does).
 *
 * A row's fields are derived from a record once and kept in the store's
 * digest file (.listed, requests/store.h's store_each_digest) with the
 * identity of the record's file, and of its drafts' files when it waits on
 * them: a record that has not changed, whose drafts have not changed, is
 * shown from what was kept and its file is not read. Either way the row is
 * the same, and every rule it shows (the state, the slot, how long it has
 * waited) is the one the record's own getters apply.
 *
 * Ownership: the listing handed to fn is borrowed for the call.
 */
#ifndef MECHA_FRONTDOOR_LISTING_H
#define MECHA_FRONTDOOR_LISTING_H

#include <time.h>

struct err;
struct record;
struct reconcile_report;
struct store;

/* The kept file in the store's directory, and the digests' format (listing.c's layout). */
#define LISTING_DIGEST_FILE ".listed"
#define LISTING_DIGEST_FORMAT 1u

struct listing {
	long long seq;
	const char *type_id, *state;
	const char *topic; /* the extraction's topic; NULL when none */
	const char *note;  /* NULL when none */
	int valid;
	int flagged;       /* the extractor's "reads like instructions" */
	int has_slot;      /* a booking's or a cancellation's slot (sweep_slot) */
	time_t slot_start, slot_end;
	time_t since;      /* since when it has waited (stale_since); 0 unknown */
};

/*
 * Every request of s, reconciled, as listings in seq order: fn returns
 * VERDICT_NEXT, VERDICT_STOP or -1 (its err passed back). report as for
 * reconcile_each. Unreadable files are skipped with store.h's warning.
 */
int listing_each(struct store *s, int (*fn)(const struct listing *l, void *ctx, struct err *e),
		 void *ctx, const struct reconcile_report *report, struct err *e);

/* The hours l has waited on you when past hours (stale.h's rule), else -1. */
long long listing_stale_hours(const struct listing *l, long hours, time_t now);

#endif
