/*
 * grammar — the closed grammar of every record value that can reach a brief
 * (frontdoor/brief.h), applied when a record is created (store_create, from a
 * box row or anything else) and again when one is read for a brief, so a
 * record written by hand or by an older drain meets the same rule.
 *
 * The rule (issue 21; docs/security.md lists the channels it leaves):
 *   - created_at and drained_at are RFC 3339 timestamps of at most
 *     GRAMMAR_TIME_MAX bytes; seq is a positive integer (its match with the
 *     file name is the store's, store.h);
 *   - type_id names a manifest the home has;
 *   - each attachment's `field` is one of that manifest's file fields, its
 *     size an integer, its sha256 "sha256:" and 64 hex digits, its
 *     content_type one of the four the drain records;
 *   - reply_to, when present, is an address: one '@', a local part of at most
 *     GRAMMAR_LOCAL_MAX bytes, at most GRAMMAR_ADDRESS_MAX bytes of printable
 *     ASCII without spaces, quotes or brackets;
 *   - a payload of `_` keys alone is a well-formed cancellation
 *     ({_booking_id, _cancelled: true, _slot_start, _slot_end}) or
 *     rescheduling ({_booking_id, _rescheduled_from, _slot_start, _slot_end,
 *     _duration_minutes (1–1440), _manage_url (an http(s) link)});
 *   - a key the manifest does not declare is prose (added to the record's
 *     manifest_prose), never a typed field;
 *   - a typed field crosses only with a value of its manifest kind: a select
 *     option, options of a multi_select, an integer, a boolean, a
 *     YYYY-MM-DD date. Text, long_text, email and url are prose.
 * A record that breaks a rule is refused: grammar_refused() says why, and no
 * brief is built of it. On create, store_create writes the refusal as
 * valid: false with the reason; on read it is kept in memory only, so the
 * file is never rewritten by a reading.
 *
 * Ownership: the record is updated in place; struct record owns the verdict
 * (record_free drops it). The manifest is borrowed.
 */
#ifndef MECHA_REQUESTS_GRAMMAR_H
#define MECHA_REQUESTS_GRAMMAR_H

#include <jansson.h>

struct manifest;
struct record;

#define GRAMMAR_TIME_MAX 35    /* "2026-08-06T02:03:12.123456789+01:00" */
#define GRAMMAR_LOCAL_MAX 64   /* RFC 5321's local part */
#define GRAMMAR_ADDRESS_MAX 254
#define GRAMMAR_BOOKING_ID_MAX 128
#define GRAMMAR_LINK_MAX 2048 /* a rescheduling's _manage_url */

/* 1 when s is an RFC 3339 timestamp of at most GRAMMAR_TIME_MAX bytes. */
int grammar_time_ok(const char *s);
/* 1 when s is an address as above. */
int grammar_address_ok(const char *s);

/*
 * Applies the rule against m, the home's manifest of r's type (NULL: the home
 * has none, no_manifest saying why). Sets r's verdict: refused or not, and
 * the typed fields that passed.
 */
void grammar_apply(struct record *r, const struct manifest *m, const char *no_manifest);
/*
 * grammar_follow, and a refusal written into r's document: valid false, the
 * reason in invalid_reason (a record already invalid keeps its reason). For a
 * record about to be created.
 */
void grammar_seal(struct record *r);
/*
 * grammar_seal against m, the home's manifest of r's type that the caller has
 * already loaded (borrowed; not NULL): the drain loads a type's once a batch,
 * not once a record.
 */
void grammar_seal_by(struct record *r, const struct manifest *m);

/* 1 once grammar_apply has run on r. */
int grammar_checked(const struct record *r);
/* Why r was refused (static or owned by r), or NULL when it passed or was not checked. */
const char *grammar_refused(const struct record *r);
/* The typed fields that passed (borrowed object; NULL when not checked or refused). */
json_t *grammar_typed(const struct record *r);
/* The received time of r in the canonical form (UTC, "Z"), into out; "" when not a time. */
void grammar_received(const struct record *r, char out[32]);

#endif
