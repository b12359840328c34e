/*
 * dl — the heavy libraries, loaded on first use.
 *
 * libcurl pulls in some thirty libraries of its own (GnuTLS, Kerberos, LDAP,
 * SSH, IDN, nghttp2 …) and libical pulls in ICU and libstdc++: mapping and
 * relocating them costs several times what a verb that reads one file does.
 * So the binary is linked without them, and a verb that never calls a model,
 * sends mail or reads the calendar never asks the loader for them. The rule
 * this module keeps: a library in DL_LIBRARIES is opened by its versioned
 * soname (RTLD_NOW | RTLD_LOCAL), once per process (pthread_once), and when
 * it cannot be, the verb fails with an error that names the Debian package
 * to install — never a crash, never a half-done change.
 *
 * Each library has a shim (dl_curl.c, dl_ical.c, dl_mhd.c, dl_sqlite.c, dl_argon2.c, dl_pq.c,
 * dl_crypto.c) that defines every function
 * of it the program calls, with the header's own signature (the compiler
 * checks the two agree), forwarding to the pointer dlsym found. A new call
 * site needs one row in that shim's list; scripts/dlsyms.sh (make dlsyms,
 * run before the link and by make check) names any function that lacks one.
 * Adding a library: a row in DL_LIBRARIES, a shim, and its pkg-config name in
 * the Makefile's DL_PKGS.
 *
 * Calling sequence: the library function that starts network or calendar
 * work calls dl_require first and returns its error:
 *
 *	if (dl_require(DL_CURL, e) != 0)
 *		return -1;               (code missing_library, nothing done yet)
 *
 * A shim's wrapper loads the library itself when nobody has; when that fails
 * it aborts with the same message and the word "bug": a path that forgot
 * dl_require.
 *
 * Test hook: MECHA_DL_MISSING=curl,ical,microhttpd,sqlite,argon2,pq,crypto (the names in DL_LIBRARIES) makes
 * those libraries fail to load as if their package were not installed (the
 * soname asked for is changed to one that does not exist).
 *
 * Ownership: nothing here allocates for the caller; a loaded library stays
 * loaded until the process exits.
 */
#ifndef MECHA_BASE_DL_H
#define MECHA_BASE_DL_H

struct err;

/* X(ID, "name", "soname", "Debian package", "what needs it", the shim's resolve function) */
#define DL_LIBRARIES(X)                                                                  \
	X(CURL, "curl", "libcurl.so.4", "libcurl4", "calling a model, sending mail by SMTP, speaking to the box", \
	  dl_curl_resolve)                                                                 \
	X(ICAL, "ical", "libical.so.3", "libical3", "reading and writing the calendar",      \
	  dl_ical_resolve)                                                                 \
	X(MHD, "microhttpd", "libmicrohttpd.so.12", "libmicrohttpd12", "serving the box over HTTP", \
	  dl_mhd_resolve)                                                                  \
	X(SQLITE, "sqlite", "libsqlite3.so.0", "libsqlite3-0", "the box's SQLite ledger",   \
	  dl_sqlite_resolve)                                                               \
	X(ARGON2, "argon2", "libargon2.so.1", "libargon2-1", "the box's API keys (Argon2id)", \
	  dl_argon2_resolve)                                                               \
	X(PQ, "pq", "libpq.so.5", "libpq5", "the box's PostgreSQL ledger", dl_pq_resolve) \
	X(CRYPTO, "crypto", "libcrypto.so.3", "libssl3", "SHA-256 digests (ids, hashes, keys)", \
	  dl_crypto_resolve)

enum dl_library {
#define DL_ENUM_(id, name, soname, package, why, resolve) DL_##id,
	DL_LIBRARIES(DL_ENUM_)
#undef DL_ENUM_
	DL_COUNT
};

/*
 * Loads lib (the first call; later calls return the first outcome). 0 when
 * it is usable; -1 with code missing_library and a message naming the soname,
 * the loader's reason and the Debian package.
 */
int dl_require(enum dl_library lib, struct err *e);

/*
 * For the shims' wrappers: dl_require, or a message on stderr and abort()
 * (a path that called into lib without dl_require, on a machine without it).
 */
void dl_need(enum dl_library lib);

/*
 * For the shims, from the resolve function dl_require calls once: stores the
 * address of name in the library just opened (handle) into *slot (a function
 * pointer). -1 with e filled when the library lacks it (older than the one
 * mecha was built against).
 */
int dl_symbol(enum dl_library lib, void *handle, const char *name, void *slot, struct err *e);

/* Each shim's resolve function: fills its pointers from handle (and starts the
 * library where it needs it, e.g. curl_global_init); 0, or -1 with e. */
#define DL_RESOLVE_(id, name, soname, package, why, resolve) \
	int resolve(void *handle, struct err *e);
DL_LIBRARIES(DL_RESOLVE_)
#undef DL_RESOLVE_

#endif
