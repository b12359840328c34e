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

/* Checks a handle: 1-32 of [a-z0-9-], not starting or ending with '-'. */
int admin_handle_ok(const char *handle, struct err *e);

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
