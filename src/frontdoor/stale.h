/*
 * stale — what has waited on the owner too long: the one rule `mecha doctor`
 * (its queue section and the digest), `frontdoor list` (its stale mark) and
 * the review screen (which opens on the oldest) share, so they cannot
 * disagree about which request is forgotten.
 *
 * A request waits on its owner in extracted (triage, or a person, is next),
 * triaged (nothing was drafted: a person decides) and awaiting_me (drafts wait
 * for review). It has waited since it arrived home (its drained_at; its
 * created_at when that does not read). It is stale when it has waited longer
 * than [frontdoor] stale_hours (72 by default); a pending draft is stale when
 * it was staged longer ago than [outbox] stale_hours (48).
 *
 * Ownership: the record and the config are borrowed; nothing is allocated.
 */
#ifndef MECHA_FRONTDOOR_STALE_H
#define MECHA_FRONTDOOR_STALE_H

#include <time.h>

struct config;
struct record;

/* 1 when a request in this state waits on its owner (extracted, triaged, awaiting_me). */
int stale_waits_on_owner(const char *state);

/* When r began waiting: its drained_at, else its created_at; 0 when neither reads. */
time_t stale_since(const struct record *r);

/* [frontdoor] stale_hours, or its default; cfg may be NULL (the default). */
long stale_request_hours(const struct config *cfg);
/* [outbox] stale_hours, or its default; cfg may be NULL. */
long stale_draft_hours(const struct config *cfg);

/* 1 when r waits on its owner and has for more than `hours` at now. */
int stale_request(const struct record *r, long hours, time_t now);
/* stale_request from what it reads: the record's state and stale_since. */
int stale_waiting(const char *state, time_t since, long hours, time_t now);

/* 1 when a draft staged at created_at (RFC 3339) is older than `hours` at now. */
int stale_draft(const char *created_at, long hours, time_t now);

#endif
