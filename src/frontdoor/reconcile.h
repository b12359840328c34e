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

#include "outbox/store.h"

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

struct reconcile_report;

/* ---- reconcile against the configured outbox ------------------------------- */

/*
 * The outbox, opened for reading the statuses of drafts. Reconcile is best
 * effort by design: no outbox is a perfectly ordinary machine, and a list
 * that refused to print because a cross-check store is absent would be worse
 * than one printing slightly stale states. So opening never fails: `open` says
 * whether it worked and `why` what went wrong.
 */
struct reconcile_outbox {
	struct outbox_store ob;
	int open;
	char why[256];           /* why the outbox could not be opened ("" when open) */
};
void reconcile_outbox_open(struct reconcile_outbox *o);
void reconcile_outbox_close(struct reconcile_outbox *o);
/* "pending", "sent", "rejected" …, "gone from the outbox" or "(outbox unknown)". */
const char *reconcile_draft_status(struct reconcile_outbox *o, const char *id, char buf[16]);

/*
 * store_each, with every awaiting_me record reconciled first, under the lock
 * and re-read, before fn sees it: the one pass list, next and triage read the
 * store with. on_move (may be NULL) hears of each move as it happens; a record
 * reconcile could not settle is reported through on_skip (may be NULL) and
 * handed to fn as it is.
 */
struct reconcile_report {
	void (*on_move)(const struct reconcile_move *m, void *ctx);
	void (*on_skip)(long long seq, const struct err *why, void *ctx);
	void *ctx;
	/* reconcile_home only: files read of the store's files (store.h's on_read); may be NULL */
	void (*on_read)(size_t done, size_t total, void *ctx);
};
int reconcile_each(struct store *s, int (*fn)(struct record *r, void *ctx, struct err *e),
		   void *ctx, const struct reconcile_report *report, struct err *e);

/*
 * What reconcile_each does to each record, for a walk of one's own (the
 * listing's, frontdoor/listing.h): the outbox is opened at the first record
 * that needs it; when it cannot be, nothing is settled and the walk goes on.
 * Ownership: the walk borrows s and report; reconcile_walk_end closes the
 * outbox it opened.
 */
struct reconcile_walk {
	struct store *s;
	const struct reconcile_report *report;
	struct reconcile_outbox o;
	int tried;
};
#define RECONCILE_WALK_INIT(store, rep) { (store), (rep), { .open = 0 }, 0 }
/* The walk's outbox, opened on the first call; NULL when it cannot be. */
struct outbox_store *reconcile_walk_outbox(struct reconcile_walk *w);
/*
 * Settles r when it is awaiting_me and its drafts say so, under the lock, and
 * re-reads it: 1 when it moved (r is the record as it is now; r->doc is NULL
 * when it went away), 0 when it stays, -1 when it should have moved and did
 * not (a draft could not be asked about, or the move could not be written:
 * that goes to report->on_skip); r is then left as it was.
 */
int reconcile_settle(struct reconcile_walk *w, struct record *r);
void reconcile_walk_end(struct reconcile_walk *w);

/*
 * The reconcile verb: every awaiting_me request against the configured
 * outbox, on every core (reconcile_all, reported through report).
 */
int reconcile_home(const struct reconcile_report *report, struct err *e);

#endif
