/*
 * dl_shim — the building blocks of a shim (dl_curl.c, dl_ical.c): from one
 * list of a library's functions, the table of pointers, the definitions that
 * forward to them, and the resolve step that fills the table.
 *
 * A list is an X-macro taking two macros:
 *	R(return type, name, (parameters), (arguments))   a function returning a value
 *	V(name, (parameters), (arguments))                a function returning void
 * e.g. R(CURL *, curl_easy_init, (void), ()) and V(curl_free, (void *p), (p)).
 * The shim includes the library's header, so the compiler checks every
 * definition against the library's own declaration. Variadic functions are
 * not in a list: the shim forwards them by hand.
 *
 * In the shim, before using these: #define DL_SHIM_LIB to its enum dl_library
 * value, and name its pointer table `fn`:
 *	static struct { LIST(DL_SHIM_PTR_R, DL_SHIM_PTR_V) } fn;
 *	LIST(DL_SHIM_DEF_R, DL_SHIM_DEF_V)
 *	int dl_x_resolve(void *handle, struct err *e)
 *	{ LIST(DL_SHIM_SET_R, DL_SHIM_SET_V) return 0; }
 *
 * Only the shims include this header.
 */
#ifndef MECHA_BASE_DL_SHIM_H
#define MECHA_BASE_DL_SHIM_H

#include "base/dl.h"

#define DL_SHIM_PTR_R(ret, name, params, args) ret(*name) params;
#define DL_SHIM_PTR_V(name, params, args) void(*name) params;

#define DL_SHIM_DEF_R(ret, name, params, args) \
	ret name params                          \
	{                                        \
		dl_need(DL_SHIM_LIB);            \
		return fn.name args;             \
	}
#define DL_SHIM_DEF_V(name, params, args) \
	void name params                    \
	{                                   \
		dl_need(DL_SHIM_LIB);       \
		fn.name args;               \
	}

#define DL_SHIM_SET(name)                                                  \
	if (dl_symbol(DL_SHIM_LIB, handle, #name, &fn.name, e) != 0) \
		return -1;
#define DL_SHIM_SET_R(ret, name, params, args) DL_SHIM_SET(name)
#define DL_SHIM_SET_V(name, params, args) DL_SHIM_SET(name)

#endif
