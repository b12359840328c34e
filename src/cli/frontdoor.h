/*
 * frontdoor (cli) — what the front door's verb files share: seq parsing,
 * transition lines, the reconcile that runs before list and next, and the
 * status of a draft for `show`.
 *
 * Ownership: returned strings are static; json_t out-params are NEW references.
 */
#ifndef MECHA_CLI_FRONTDOOR_H
#define MECHA_CLI_FRONTDOOR_H

#include <jansson.h>

#include "outbox/store.h"

struct err;
struct record;
struct store;

/* A SEQ argument: a whole number; prints a usage error and returns -1 otherwise. */
int frontdoor_parse_seq(const char *verb, const char *s, long long *seq);
/* "    12  extracted → closed" on stdout. */
int frontdoor_print_transition(long long seq, const char *from, const char *to);
/* Up to limit briefs of extracted requests, in seq order (reconciling as it reads, like next). */
int frontdoor_next_briefs(long long limit, json_t **out, struct err *e);

int frontdoor_reconcile_verb(int argc, char **argv);
extern const char frontdoor_reconcile_help[];

/*
 * store_each, with every awaiting_me record reconciled first (best effort:
 * moves are printed on stderr, and a missing or unreadable outbox only skips
 * reconcile). What list, next and triage read the store with: one pass.
 */
int frontdoor_each(struct store *s, int (*fn)(struct record *r, void *ctx, struct err *e),
		   void *ctx, struct err *e);

/* The outbox, opened once for reading the statuses of a request's drafts (show). */
struct frontdoor_drafts {
	struct outbox_store ob;
	int open;
};
int frontdoor_drafts_open(struct frontdoor_drafts *d);
void frontdoor_drafts_close(struct frontdoor_drafts *d);
/* "pending", "sent", "rejected" …, "gone from the outbox" or "(outbox unknown)". */
const char *frontdoor_draft_status(struct frontdoor_drafts *d, const char *id, char buf[16]);

/* mecha frontdoor extract (extract.c). */
int frontdoor_extract_verb(int argc, char **argv);
extern const char frontdoor_extract_help[];

/* mecha frontdoor triage (triage.c). */
int frontdoor_triage_verb(int argc, char **argv);
extern const char frontdoor_triage_help[];

#endif
