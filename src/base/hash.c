/*
 * hash — digests and random ids. OpenSSL does the hashing; the kernel does the
 * randomness.
 *
 * The digest is OpenSSL's SHA-256 block function itself (SHA256_Init/Update/
 * Final), not EVP. Through EVP, OpenSSL 3's first digest in a process reads
 * openssl.cnf, activates the default provider and registers every algorithm,
 * and tears it all down again at exit: about a millisecond here, paid by every
 * `mission post` with the box lock held — several times the cost of the post's
 * own fdatasync. Skipping the config instead (OPENSSL_INIT_NO_LOAD_CONFIG)
 * would be cheaper than EVP but not free, and it is process-wide: libcurl's
 * TLS, loaded later in the same process, would silently lose the system's
 * openssl.cnf. The block function touches no global state at all. OpenSSL 3
 * marks it deprecated (kept for compatibility through 3.x), hence the
 * OPENSSL_API_COMPAT below; were a build of OpenSSL to drop it, this file
 * fails to compile rather than silently changing an id.
 */
#define OPENSSL_API_COMPAT 10101

#include "base/hash.h"

#include "base/buf.h"
#include "base/err.h"

#include <errno.h>
#include <openssl/sha.h>
#include <stdlib.h>
#include <sys/random.h>

static const char hexdigits[] = "0123456789abcdef";

static void hex_of(const unsigned char md[SHA256_DIGEST_LENGTH], char out[HASH_SHA256_HEX_LEN + 1])
{
	for (unsigned int i = 0; i < SHA256_DIGEST_LENGTH; i++) {
		out[2 * i] = hexdigits[md[i] >> 4];
		out[2 * i + 1] = hexdigits[md[i] & 15];
	}
	out[HASH_SHA256_HEX_LEN] = '\0';
}

void hash_sha256_hex(const void *data, size_t len, char out[HASH_SHA256_HEX_LEN + 1])
{
	unsigned char md[SHA256_DIGEST_LENGTH];
	SHA256_CTX ctx;

	/* The block function has no failure but a NULL argument. */
	if (SHA256_Init(&ctx) != 1 || SHA256_Update(&ctx, data, len) != 1 ||
	    SHA256_Final(md, &ctx) != 1)
		abort();
	hex_of(md, out);
}

struct hash_sha256 {
	SHA256_CTX ctx;
};

struct hash_sha256 *hash_sha256_new(void)
{
	struct hash_sha256 *h = xmalloc(sizeof *h);

	if (SHA256_Init(&h->ctx) != 1)
		abort();
	return h;
}

void hash_sha256_add(struct hash_sha256 *h, const void *data, size_t len)
{
	if (len && SHA256_Update(&h->ctx, data, len) != 1)
		abort();
}

void hash_sha256_end(struct hash_sha256 *h, char out[HASH_SHA256_HEX_LEN + 1])
{
	unsigned char md[SHA256_DIGEST_LENGTH];

	if (SHA256_Final(md, &h->ctx) != 1)
		abort();
	hex_of(md, out);
	free(h);
}

void hash_sha256_free(struct hash_sha256 *h)
{
	free(h);
}

int hash_random_hex(char *out, size_t nhex, struct err *e)
{
	unsigned char raw[64];
	size_t need = (nhex + 1) / 2, got = 0;

	if (need > sizeof raw)
		return err_set(e, ERR_INTERNAL, "random id too long");
	while (got < need) {
		ssize_t n = getrandom(raw + got, need - got, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return err_errno(e, "getrandom");
		got += (size_t)n;
	}
	for (size_t i = 0; i < nhex; i++)
		/* NOLINTNEXTLINE(clang-analyzer-core.UndefinedBinaryOperatorResult): getrandom filled raw up to need */
		out[i] = hexdigits[(raw[i / 2] >> ((i & 1) ? 0 : 4)) & 15];
	out[nhex] = '\0';
	return 0;
}
