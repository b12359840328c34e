/*
 * bearer — minting and checking the box's API keys (Argon2id).
 */
#include "box/bearer.h"

#include "base/buf.h"
#include "base/dl.h"
#include "base/err.h"
#include "base/hash.h"
#include "base/rfc3339.h"

#include <argon2.h>
#include <openssl/crypto.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

/* The reference's argon2 crate defaults (argon2 0.5: Argon2id v19, m=19456, t=2, p=1). */
#define T_COST 2
#define M_COST 19456
#define PARALLEL 1
#define SALT_LEN 16
#define HASH_LEN 32

static const char *const names[BEARER_SCOPE_COUNT] = { "publish", "release", "drain", "slots" };
static const char *const prefixes[] = { "mk_pub_", "mk_rel_", "mk_drn_", "mk_slt_", "mk_opr_",
					NULL };

int bearer_scope_parse(const char *name)
{
	for (int i = 0; i < BEARER_SCOPE_COUNT; i++)
		if (strcmp(name, names[i]) == 0)
			return i;
	return -1;
}

const char *bearer_scope_name(enum bearer_scope s)
{
	return names[s];
}

static int hex_run(const char *s, size_t n)
{
	if (n == 0)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!strchr("0123456789abcdefABCDEF", s[i]) || !s[i])
			return 0;
	return 1;
}

/* Splits "mk_xxx_<hex>.<hex>" into its id and secret (pointers into token); -1 otherwise. */
static int bearer_split(const char *token, const char **id, size_t *idlen, const char **secret)
{
	for (int i = 0; prefixes[i]; i++) {
		size_t p = strlen(prefixes[i]);
		const char *dot;
		if (strncmp(token, prefixes[i], p) != 0)
			continue;
		dot = strchr(token + p, '.');
		if (!dot || !hex_run(token + p, (size_t)(dot - token - p)) ||
		    !hex_run(dot + 1, strlen(dot + 1)) || (size_t)(dot - token - p) > 16)
			return -1;
		*id = token + p;
		*idlen = (size_t)(dot - token - p);
		*secret = dot + 1;
		return 0;
	}
	return -1;
}

static int hash_secret(const char *secret, char *out, size_t outlen, struct err *e)
{
	unsigned char salt[SALT_LEN];

	if (getrandom(salt, sizeof salt, 0) != (ssize_t)sizeof salt)
		return err_errno(e, "reading random bytes");
	if (argon2id_hash_encoded(T_COST, M_COST, PARALLEL, secret, strlen(secret), salt,
				  sizeof salt, HASH_LEN, out, outlen) != ARGON2_OK)
		return err_set(e, ERR_INTERNAL, "hashing a key with Argon2id failed");
	return 0;
}

int bearer_prepare(const char *user_id, enum bearer_scope scope, const char *label,
		   struct ledger_key *k, char **token, struct err *e)
{
	char secret[65], phc[256];

	memset(k, 0, sizeof *k);
	*token = NULL;
	if (dl_require(DL_ARGON2, e) != 0 || hash_random_hex(k->id, 16, e) != 0 ||
	    hash_random_hex(secret, 64, e) != 0 || hash_secret(secret, phc, sizeof phc, e) != 0) {
		explicit_bzero(secret, sizeof secret);
		return -1;
	}
	snprintf(k->user_id, sizeof k->user_id, "%s", user_id ? user_id : "");
	snprintf(k->scope, sizeof k->scope, "%s", names[scope]);
	k->hash = xstrdup(phc);
	k->label = xstrdup(label ? label : "");
	*token = xasprintf("%s%s.%s", prefixes[scope], k->id, secret);
	explicit_bzero(secret, sizeof secret);
	return 0;
}

int bearer_mint(struct ledger *l, const char *user_id, enum bearer_scope scope,
		const char *label, char **token, struct err *e)
{
	struct ledger_key k;
	char now[RFC3339_LEN];

	if (bearer_prepare(user_id, scope, label, &k, token, e) != 0)
		return -1;
	rfc3339_now(now);
	if (l->ops->key_add(l, &k, now, e) != 0) {
		explicit_bzero(*token, strlen(*token));
		free(*token);
		*token = NULL;
		ledger_key_free(&k);
		return -1;
	}
	ledger_key_free(&k);
	return 0;
}

/* "Bearer <token>" (either case of the scheme, as the reference); the token trimmed. */
static const char *token_of(const char *header, char *buf, size_t size)
{
	size_t n;

	if (!header || (strncmp(header, "Bearer ", 7) != 0 && strncmp(header, "bearer ", 7) != 0))
		return NULL;
	header += 7;
	while (*header == ' ')
		header++;
	n = strlen(header);
	while (n && (header[n - 1] == ' ' || header[n - 1] == '\t'))
		n--;
	if (n == 0 || n >= size)
		return NULL;
	memcpy(buf, header, n);
	buf[n] = '\0';
	return buf;
}

/*
 * Secrets already verified, so that a drain fetching fifty attachments pays
 * Argon2id once rather than fifty times. An entry is the SHA-256 of the stored
 * PHC string and the secret together: it matches only that secret against
 * that very row's hash, and the row is still read on every call, so a revoked
 * key or a replaced hash decides at once, and a wrong secret always pays the
 * full cost. A SHA-256 of 32 random bytes gives a reader of this memory
 * nothing to guess the secret from.
 */
#define VERIFIED_SLOTS 64
static char verified[VERIFIED_SLOTS][HASH_SHA256_HEX_LEN + 1];
static unsigned verified_next;
static pthread_mutex_t verified_lock = PTHREAD_MUTEX_INITIALIZER;

static void verified_digest(const char *phc, const char *secret, char out[HASH_SHA256_HEX_LEN + 1])
{
	struct buf b = BUF_INIT;

	buf_add(&b, phc, strlen(phc) + 1); /* the NUL keeps the two apart */
	buf_add(&b, secret, strlen(secret));
	hash_sha256_hex(b.data, b.len, out);
	explicit_bzero(b.data, b.len);
	buf_free(&b);
}

/* 1 when this secret was verified against this hash before. */
static int verified_seen(const char *d)
{
	int seen = 0;

	pthread_mutex_lock(&verified_lock);
	for (unsigned i = 0; i < VERIFIED_SLOTS && !seen; i++)
		seen = CRYPTO_memcmp(verified[i], d, HASH_SHA256_HEX_LEN) == 0;
	pthread_mutex_unlock(&verified_lock);
	return seen;
}

static void verified_add(const char *d)
{
	pthread_mutex_lock(&verified_lock);
	memcpy(verified[verified_next++ % VERIFIED_SLOTS], d, HASH_SHA256_HEX_LEN + 1);
	pthread_mutex_unlock(&verified_lock);
}

/* Argon2id, unless this very secret already verified against this very hash. */
static int secret_ok(const char *phc, const char *secret)
{
	char d[HASH_SHA256_HEX_LEN + 1];

	verified_digest(phc, secret, d);
	if (verified_seen(d))
		return 1;
	if (argon2id_verify(phc, secret, strlen(secret)) != ARGON2_OK)
		return 0;
	verified_add(d);
	return 1;
}

static enum bearer_outcome verify(struct ledger *l, const char *token, struct ledger_key *key)
{
	const char *id, *secret;
	char idz[17];
	size_t idlen;
	struct err e;
	int found;

	if (bearer_split(token, &id, &idlen, &secret) != 0)
		return BEARER_UNKNOWN;
	memcpy(idz, id, idlen);
	idz[idlen] = '\0';
	found = l->ops->key_get(l, idz, key, &e);
	if (found < 0)
		return BEARER_FAILED;
	if (found == 0)
		return BEARER_UNKNOWN;
	if (dl_require(DL_ARGON2, &e) != 0 || !secret_ok(key->hash, secret) || key->revoked) {
		ledger_key_free(key);
		return BEARER_UNKNOWN;
	}
	return BEARER_OK;
}

enum bearer_outcome bearer_check(struct ledger *l, const char *header, int scope,
				 struct ledger_key *key, struct ledger_user *user)
{
	char buf[512], now[RFC3339_LEN];
	const char *token = token_of(header, buf, sizeof buf);
	enum bearer_outcome o;
	struct err e;
	int found;

	if (!token)
		return header ? BEARER_UNKNOWN : BEARER_MISSING;
	o = verify(l, token, key);
	explicit_bzero(buf, sizeof buf);
	if (o != BEARER_OK)
		return o;
	if (scope >= 0 && strcmp(key->scope, names[scope]) != 0)
		o = BEARER_WRONG_SCOPE;
	else if ((found = l->ops->user_get(l, NULL, key->user_id, user, &e)) <= 0)
		o = found < 0 ? BEARER_FAILED : BEARER_UNKNOWN;
	else if (strcmp(user->status, "active") != 0)
		o = BEARER_SUSPENDED;
	if (o != BEARER_OK) {
		ledger_key_free(key);
		return o;
	}
	rfc3339_now(now);
	l->ops->key_touch(l, key->id, now);
	return BEARER_OK;
}
