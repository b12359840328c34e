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

/* nhex random lowercase hex digits into out (nhex + 1 bytes). */
int hash_random_hex(char *out, size_t nhex, struct err *e);

#endif
