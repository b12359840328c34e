/*
 * bearer — the box's API keys: `mk_<scope>_<id>.<secret>`, minted here,
 * printed once, stored only as the Argon2id hash of the secret (PHC string,
 * m=19456 KiB, t=2, p=1: the reference's argon2 defaults, so either box
 * verifies the other's hashes).
 *
 * The rules (as the reference keeps them): the id selects one row and the
 * secret is verified against that row's hash, once; the `mk_drn_` prefix is
 * a label for people and never the authorisation — the scope comes from the
 * row; a revoked key is told apart only after its secret verified, so a
 * revoked id cannot be probed. The row is read on every call; a secret that
 * verified against that very hash before skips the Argon2id work (a drain's
 * many calls pay it once), a wrong one always pays it.
 *
 * Ownership: *token is malloc'd (the caller prints it once and frees it).
 */
#ifndef MECHA_BOX_BEARER_H
#define MECHA_BOX_BEARER_H

#include "box/ledger.h"

struct err;

enum bearer_scope {
	BEARER_PUBLISH,
	BEARER_RELEASE,
	BEARER_DRAIN,
	BEARER_SLOTS,
	BEARER_SCOPE_COUNT
};

/* "drain" → BEARER_DRAIN; -1 for any other word. */
int bearer_scope_parse(const char *name);
const char *bearer_scope_name(enum bearer_scope s);

/*
 * A key of scope for user_id (may be "") made but not stored: *k (its hash and
 * label malloc'd: ledger_key_free) is the row that would make *token live, so a
 * caller can hash first and insert inside its own transaction (pairing).
 */
int bearer_prepare(const char *user_id, enum bearer_scope scope, const char *label,
		   struct ledger_key *k, char **token, struct err *e);

/* Mints a key of scope for user (a new row in l); *token is the only copy of the secret. */
int bearer_mint(struct ledger *l, const char *user_id, enum bearer_scope scope,
		const char *label, char **token, struct err *e);

enum bearer_outcome {
	BEARER_OK,
	BEARER_MISSING,     /* 401: no usable Authorization header */
	BEARER_UNKNOWN,     /* 401: malformed, no such key, wrong secret, revoked */
	BEARER_WRONG_SCOPE, /* 403 */
	BEARER_SUSPENDED,   /* 403: the key's user is suspended */
	BEARER_FAILED,      /* 500: the ledger failed */
};

/*
 * Authenticates an Authorization header value for an endpoint needing scope
 * (or any scope when scope is -1). On BEARER_OK, *key and *user are filled
 * (ledger_key_free(key) after).
 */
enum bearer_outcome bearer_check(struct ledger *l, const char *header, int scope,
				 struct ledger_key *key, struct ledger_user *user);

#endif
