/*
 * reconcile — advancing requests whose drafts a person has since released or
 * rejected.
 *
 * The outbox is the truth about a draft and the request store is the truth
 * about a request; neither writes into the other. This module reads the
 * first (through a lookup the caller provides, so it never learns the
 * outbox's file format) and updates the second. Only `awaiting_me` records
 * are ever touched, and the drafts that still exist decide:
 *   none exists     → left for a person (swept, or a moved store);
 *   any pending     → left (a person is mid-review);
 *   any sent        → answered (note removed);
 *   all rejected    → extracted, with the first rejection reason as the note.
 * Each draft is looked up by its id, so the cost is the records plus their
 * own drafts — never records × items.
 *
 * Ownership: lookups return malloc'd reasons the module frees; records are
 * borrowed.
 */
#ifndef MECHA_FRONTDOOR_RECONCILE_H
#define MECHA_FRONTDOOR_RECONCILE_H

#include <stddef.h>

struct err;
struct record;
struct store;

/*
 * How reconcile asks about one draft: returns 1 and fills status (and *reason,
 * malloc'd or NULL) when the draft exists, 0 when it does not, -1 on failure.
 */
struct reconcile_lookup {
	int (*draft)(const char *id, char status[16], char **reason, void *ctx, struct err *e);
	void *ctx;
};

struct reconcile_move {
	long long seq;
	const char *from; /* static state names */
	const char *to;
};

/*
 * What r's drafts say. Returns 1 when r should move (sets *to and *note, a
 * malloc'd string or NULL meaning "remove the note"), 0 when it stays, -1 on
 * a lookup failure.
 */
int reconcile_decide(const struct record *r, const struct reconcile_lookup *l, const char **to,
		     char **note, struct err *e);

/*
 * Re-reads seq under the store lock and applies reconcile_decide. Returns 1
 * when it moved (m filled), 0 when it did not, -1 on failure.
 */
int reconcile_record(struct store *s, long long seq, const struct reconcile_lookup *l,
		     struct reconcile_move *m, struct err *e);

/*
 * One pass over the store, on every core. on_move is called for every request
 * that moved, in seq order, after the pass. Records that do not mention
 * awaiting_me are not even parsed. The lookup is called from several threads
 * at once and must be safe for that.
 */
int reconcile_all(struct store *s, const struct reconcile_lookup *l,
		  void (*on_move)(const struct reconcile_move *m, void *ctx), void *ctx,
		  struct err *e);

#endif
