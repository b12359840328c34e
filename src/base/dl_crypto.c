/*
 * dl_crypto — libcrypto, loaded on first use: OpenSSL's SHA-256 block
 * function (base/hash.c) and the box's constant-time compare, forwarded to
 * libcrypto.so.3 (see base/dl.h). Mapping libcrypto was most of what
 * `mecha --version` cost beyond /bin/true; a verb that hashes nothing no
 * longer pays it.
 */
#define OPENSSL_API_COMPAT 10101 /* SHA256_Init & co., as base/hash.c explains */
#define DL_SHIM_LIB DL_CRYPTO

#include "base/dl_shim.h"
#include "base/err.h"

#include <openssl/crypto.h>
#include <openssl/sha.h>

#define CRYPTO_FUNCTIONS(R, V)                                                          \
	R(int, SHA256_Init, (SHA256_CTX * c), (c))                                      \
	R(int, SHA256_Update, (SHA256_CTX * c, const void *data, size_t len), (c, data, len)) \
	R(int, SHA256_Final, (unsigned char *md, SHA256_CTX *c), (md, c))               \
	R(int, CRYPTO_memcmp, (const void *a, const void *b, size_t len), (a, b, len))

static struct {
	CRYPTO_FUNCTIONS(DL_SHIM_PTR_R, DL_SHIM_PTR_V)
} fn;

CRYPTO_FUNCTIONS(DL_SHIM_DEF_R, DL_SHIM_DEF_V)

int dl_crypto_resolve(void *handle, struct err *e)
{
	CRYPTO_FUNCTIONS(DL_SHIM_SET_R, DL_SHIM_SET_V)
	return 0;
}
