/*
 * admin — the box's local verbs, run on the box's machine against its
 * ledger: a new owner and their first keys, one more key, the sweep.
 *
 * A key is printed once and exists nowhere else afterwards: the ledger holds
 * only its Argon2id hash, so a lost key is replaced, never recovered.
 *
 * Ownership: *keys (admin_owner_add) and *token (admin_key_new) are NEW
 * jansson references / malloc'd strings the caller prints and frees.
 */
#ifndef MECHA_BOX_ADMIN_H
#define MECHA_BOX_ADMIN_H

#include <jansson.h>

struct boxconf;
struct err;
struct ledger;
struct ledger_sweep;

/*
 * Creates the owner handle and mints one key of each scope. *keys is
 * {"handle","drain","publish","release","slots"} (the tokens).
 * ERR_HANDLE_TAKEN when the handle exists.
 */
int admin_owner_add(struct ledger *l, const char *handle, json_t **keys, struct err *e);

/* One more key of scope ("drain" …) for handle; ERR_NOT_FOUND for an unknown owner. */
int admin_key_new(struct ledger *l, const char *handle, const char *scope, const char *label,
		  char **token, struct err *e);

/*
 * Pairing (as the reference pairs; docs/protocol/box-api.md §9): a one-time code for
 * handle, good for ADMIN_PAIR_MINUTES, that `mecha pair` at home exchanges
 * for the owner's keys through POST /v1/pair. The code is 12 letters and
 * digits of Crockford's base32 (60 random bits) written in three groups,
 * "K7QM-3XPA-9D2F"; the box keeps only its SHA-256. An owner makes at most
 * ADMIN_PAIR_PER_HOUR codes an hour (ERR_TOO_MANY past that), and
 * ADMIN_PAIR_FAILURES wrong tries naming them kill their live codes.
 * label (may be NULL) becomes the label of the keys the code mints.
 * *code is malloc'd; *expires is the RFC 3339 time the code dies.
 */
#define ADMIN_PAIR_MINUTES 15
#define ADMIN_PAIR_PER_HOUR 10
#define ADMIN_PAIR_FAILURES 5
int admin_pair_new(struct ledger *l, const char *handle, const char *label, char **code,
		   char expires[32], struct err *e);

/*
 * The hash a presented code is looked up by: SHA-256 hex of the code with
 * blanks and '-' dropped, letters upper-cased and the letters people misread
 * for digits (O, I, L) read as them — so "k7qm 3xpa 9d2f" is the same code.
 */
void admin_pair_hash(const char *code, size_t len, char out[65]);

/*
 * The sweep: submissions whose link expired, uploads never made, their
 * attachment rows and bytes, budget and counter rows older than two days; the
 * files an older box kept in data moved into the ledger (blobs_import), and
 * those no row names removed after an hour. Never a queued row that was not
 * drained: those past retain_until are counted in overdue_queued (and
 * reported by /v1/health). *report: {"expired_submissions","expired_uploads",
 * "attachments","orphan_blobs","budget_rows","overdue_queued","moved_files"}.
 */
int admin_sweep(struct ledger *l, const char *data, json_t **report, struct err *e);

#endif
