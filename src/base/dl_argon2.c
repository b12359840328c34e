/*
 * dl_argon2 — libargon2, loaded on first use: the Argon2id hashing the box's
 * API keys are stored with, forwarded to libargon2.so.1 (see base/dl.h).
 */
#define DL_SHIM_LIB DL_ARGON2

#include "base/dl_shim.h"
#include "base/err.h"

#include <argon2.h>

#define ARGON2_FUNCTIONS(R, V)                                                                 \
	R(int, argon2id_hash_encoded,                                                          \
	  (const uint32_t t_cost, const uint32_t m_cost, const uint32_t parallelism,           \
	   const void *pwd, const size_t pwdlen, const void *salt, const size_t saltlen,       \
	   const size_t hashlen, char *encoded, const size_t encodedlen),                      \
	  (t_cost, m_cost, parallelism, pwd, pwdlen, salt, saltlen, hashlen, encoded,          \
	   encodedlen))                                                                        \
	R(int, argon2id_verify, (const char *encoded, const void *pwd, const size_t pwdlen),   \
	  (encoded, pwd, pwdlen))                                                              \
	R(size_t, argon2_encodedlen,                                                           \
	  (uint32_t t_cost, uint32_t m_cost, uint32_t parallelism, uint32_t saltlen,           \
	   uint32_t hashlen, argon2_type type),                                                \
	  (t_cost, m_cost, parallelism, saltlen, hashlen, type))

static struct {
	ARGON2_FUNCTIONS(DL_SHIM_PTR_R, DL_SHIM_PTR_V)
} fn;

ARGON2_FUNCTIONS(DL_SHIM_DEF_R, DL_SHIM_DEF_V)

int dl_argon2_resolve(void *handle, struct err *e)
{
	ARGON2_FUNCTIONS(DL_SHIM_SET_R, DL_SHIM_SET_V)
	return 0;
}
