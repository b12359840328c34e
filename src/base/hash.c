/*
 * hash — digests and random ids. OpenSSL does the hashing; the kernel does the
 * randomness.
 */
#include "base/hash.h"

#include "base/err.h"

#include <errno.h>
#include <openssl/evp.h>
#include <stdlib.h>
#include <sys/random.h>

static const char hexdigits[] = "0123456789abcdef";

void hash_sha256_hex(const void *data, size_t len, char out[HASH_SHA256_HEX_LEN + 1])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;

	/* EVP_Digest only fails on allocation failure inside OpenSSL. */
	if (EVP_Digest(data, len, md, &mdlen, EVP_sha256(), NULL) != 1 || mdlen != 32)
		abort();
	for (unsigned int i = 0; i < mdlen; i++) {
		out[2 * i] = hexdigits[md[i] >> 4];
		out[2 * i + 1] = hexdigits[md[i] & 15];
	}
	out[HASH_SHA256_HEX_LEN] = '\0';
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
		out[i] = hexdigits[(raw[i / 2] >> ((i & 1) ? 0 : 4)) & 15];
	out[nhex] = '\0';
	return 0;
}
