/*
 * dl_curl — libcurl, loaded on first use: every curl_* function mecha calls,
 * forwarded to libcurl.so.4 (see base/dl.h). A new call site needs its row in
 * CURL_FUNCTIONS, with the parameters as curl/curl.h declares them.
 *
 * The rule it keeps beyond forwarding: curl_global_init runs once, as part of
 * the load, before any handle can exist (libcurl requires it before any other
 * call, and from one thread).
 */
#define CURL_DISABLE_TYPECHECK /* the typecheck macros would rename setopt/getinfo */
#define DL_SHIM_LIB DL_CURL

#include "base/dl_shim.h"
#include "base/err.h"

#include <curl/curl.h>
#include <stdarg.h>

#define CURL_FUNCTIONS(R, V)                                                                      \
	R(CURLcode, curl_global_init, (long flags), (flags))                                      \
	R(CURL *, curl_easy_init, (void), ())                                                     \
	R(CURLcode, curl_easy_perform, (CURL *h), (h))                                            \
	V(curl_easy_cleanup, (CURL *h), (h))                                                      \
	V(curl_easy_reset, (CURL *h), (h))                                                        \
	R(const char *, curl_easy_strerror, (CURLcode c), (c))                                    \
	R(struct curl_slist *, curl_slist_append, (struct curl_slist *l, const char *s), (l, s)) \
	V(curl_slist_free_all, (struct curl_slist *l), (l))                                       \
	R(CURLM *, curl_multi_init, (void), ())                                                   \
	R(CURLMcode, curl_multi_add_handle, (CURLM *m, CURL *h), (m, h))                         \
	R(CURLMcode, curl_multi_remove_handle, (CURLM *m, CURL *h), (m, h))                      \
	R(CURLMcode, curl_multi_perform, (CURLM *m, int *running), (m, running))                 \
	R(CURLMcode, curl_multi_poll,                                                             \
	  (CURLM *m, struct curl_waitfd extra[], unsigned int n, int timeout_ms, int *ret),       \
	  (m, extra, n, timeout_ms, ret))                                                         \
	R(CURLMsg *, curl_multi_info_read, (CURLM *m, int *left), (m, left))                     \
	R(CURLMcode, curl_multi_cleanup, (CURLM *m), (m))                                         \
	R(const char *, curl_multi_strerror, (CURLMcode c), (c))                                  \
	R(CURLU *, curl_url, (void), ())                                                          \
	V(curl_url_cleanup, (CURLU *u), (u))                                                      \
	R(CURLUcode, curl_url_set, (CURLU *u, CURLUPart what, const char *part, unsigned int f),  \
	  (u, what, part, f))                                                                     \
	R(CURLUcode, curl_url_get, (CURLU *u, CURLUPart what, char **part, unsigned int f),       \
	  (u, what, part, f))                                                                     \
	V(curl_free, (void *p), (p))

static struct {
	CURL_FUNCTIONS(DL_SHIM_PTR_R, DL_SHIM_PTR_V)
	CURLcode (*curl_easy_setopt)(CURL *, CURLoption, ...);
	CURLcode (*curl_easy_getinfo)(CURL *, CURLINFO, ...);
	CURLMcode (*curl_multi_setopt)(CURLM *, CURLMoption, ...);
} fn;

CURL_FUNCTIONS(DL_SHIM_DEF_R, DL_SHIM_DEF_V)

int dl_curl_resolve(void *handle, struct err *e)
{
	CURL_FUNCTIONS(DL_SHIM_SET_R, DL_SHIM_SET_V)
	DL_SHIM_SET(curl_easy_setopt)
	DL_SHIM_SET(curl_easy_getinfo)
	DL_SHIM_SET(curl_multi_setopt)
	if (fn.curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
		return err_set(e, ERR_MISSING_LIBRARY, "libcurl.so.4 could not start "
			       "(curl_global_init failed)");
	return 0;
}

/*
 * The variadic three take exactly one more argument, whose type the option's
 * number says: its range (CURLOPTTYPE_*, shared by the multi options) for
 * setopt; for getinfo always a pointer (to a string, long, double, list,
 * socket or curl_off_t, by CURLINFO_TYPEMASK), so it is passed on as one.
 */
enum arg_type { ARG_LONG, ARG_POINTER, ARG_FUNCTION, ARG_OFF_T };

static enum arg_type option_arg(int option)
{
	if (option < CURLOPTTYPE_OBJECTPOINT)
		return ARG_LONG;
	if (option < CURLOPTTYPE_FUNCTIONPOINT)
		return ARG_POINTER;
	if (option < CURLOPTTYPE_OFF_T)
		return ARG_FUNCTION;
	if (option < CURLOPTTYPE_BLOB)
		return ARG_OFF_T;
	return ARG_POINTER; /* struct curl_blob * */
}

/* rc = call(handle, option, the one argument read from ap as option_arg says). */
#define FORWARD_ONE(rc, call, handle, option, ap)                                   \
	switch (option_arg((int)(option))) {                                         \
	case ARG_LONG:                                                               \
		(rc) = (call)(handle, option, va_arg(ap, long));                     \
		break;                                                               \
	case ARG_FUNCTION: /* every function pointer has one representation here */ \
		(rc) = (call)(handle, option, va_arg(ap, void (*)(void)));           \
		break;                                                               \
	case ARG_OFF_T:                                                              \
		(rc) = (call)(handle, option, va_arg(ap, curl_off_t));               \
		break;                                                               \
	default:                                                                     \
		(rc) = (call)(handle, option, va_arg(ap, void *));                   \
	}

CURLcode curl_easy_setopt(CURL *h, CURLoption option, ...)
{
	va_list ap;
	CURLcode rc;

	dl_need(DL_CURL);
	va_start(ap, option);
	FORWARD_ONE(rc, fn.curl_easy_setopt, h, option, ap)
	va_end(ap);
	return rc;
}

CURLMcode curl_multi_setopt(CURLM *m, CURLMoption option, ...)
{
	va_list ap;
	CURLMcode rc;

	dl_need(DL_CURL);
	va_start(ap, option);
	FORWARD_ONE(rc, fn.curl_multi_setopt, m, option, ap)
	va_end(ap);
	return rc;
}

CURLcode curl_easy_getinfo(CURL *h, CURLINFO info, ...)
{
	va_list ap;
	CURLcode rc;

	dl_need(DL_CURL);
	va_start(ap, info);
	rc = fn.curl_easy_getinfo(h, info, va_arg(ap, void *));
	va_end(ap);
	return rc;
}
