/*
 * hash — SHA-256 digests (OpenSSL EVP) and random identifiers (getrandom).
 *
 * Ownership: callers provide the output storage.
 */
#ifndef MECHA_BASE_HASH_H
#define MECHA_BASE_HASH_H

#include <stddef.h>

struct err;

#define HASH_SHA256_HEX_LEN 64

/* Lowercase hex SHA-256 of data into out (65 bytes with the NUL). */
void hash_sha256_hex(const void *data, size_t len, char out[HASH_SHA256_HEX_LEN + 1]);

/* The same digest of bytes that arrive in pieces: hash_sha256_new, hash_sha256_add for
 * each piece in order, then hash_sha256_end (the hex into out; it frees h). A digest
 * left unfinished is freed by hash_sha256_free (NULL is fine). */
struct hash_sha256;
struct hash_sha256 *hash_sha256_new(void);
void hash_sha256_add(struct hash_sha256 *h, const void *data, size_t len);
void hash_sha256_end(struct hash_sha256 *h, char out[HASH_SHA256_HEX_LEN + 1]);
void hash_sha256_free(struct hash_sha256 *h);

/* nhex random lowercase hex digits into out (nhex + 1 bytes). */
int hash_random_hex(char *out, size_t nhex, struct err *e);

#endif
