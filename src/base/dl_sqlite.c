/*
 * dl_sqlite — libsqlite3, loaded on first use: every sqlite3_* function the
 * box's ledger calls, forwarded to libsqlite3.so.0 (see base/dl.h).
 */
#define DL_SHIM_LIB DL_SQLITE

#include "base/dl_shim.h"
#include "base/err.h"

#include <sqlite3.h>

#define SQLITE_FUNCTIONS(R, V)                                                                 \
	R(int, sqlite3_open_v2, (const char *f, sqlite3 **db, int flags, const char *vfs),     \
	  (f, db, flags, vfs))                                                                 \
	R(int, sqlite3_close_v2, (sqlite3 * db), (db))                                         \
	R(int, sqlite3_exec,                                                                   \
	  (sqlite3 * db, const char *sql, int (*cb)(void *, int, char **, char **), void *a,   \
	   char **errmsg),                                                                     \
	  (db, sql, cb, a, errmsg))                                                            \
	R(int, sqlite3_prepare_v2,                                                             \
	  (sqlite3 * db, const char *sql, int n, sqlite3_stmt **st, const char **tail),        \
	  (db, sql, n, st, tail))                                                              \
	R(int, sqlite3_step, (sqlite3_stmt * st), (st))                                        \
	R(int, sqlite3_reset, (sqlite3_stmt * st), (st))                                       \
	R(int, sqlite3_finalize, (sqlite3_stmt * st), (st))                                    \
	R(int, sqlite3_bind_text,                                                              \
	  (sqlite3_stmt * st, int i, const char *s, int n, void (*d)(void *)), (st, i, s, n, d)) \
	R(int, sqlite3_bind_int64, (sqlite3_stmt * st, int i, sqlite3_int64 v), (st, i, v))    \
	R(int, sqlite3_bind_null, (sqlite3_stmt * st, int i), (st, i))                         \
	R(const unsigned char *, sqlite3_column_text, (sqlite3_stmt * st, int i), (st, i))     \
	R(int, sqlite3_column_bytes, (sqlite3_stmt * st, int i), (st, i))                      \
	R(const void *, sqlite3_column_blob, (sqlite3_stmt * st, int i), (st, i))             \
	R(int, sqlite3_bind_blob64,                                                            \
	  (sqlite3_stmt * st, int i, const void *p, sqlite3_uint64 n, void (*d)(void *)),      \
	  (st, i, p, n, d))                                                                    \
	R(sqlite3_int64, sqlite3_column_int64, (sqlite3_stmt * st, int i), (st, i))            \
	R(int, sqlite3_column_type, (sqlite3_stmt * st, int i), (st, i))                       \
	R(const char *, sqlite3_errmsg, (sqlite3 * db), (db))                                  \
	R(int, sqlite3_changes, (sqlite3 * db), (db))                                          \
	R(sqlite3_int64, sqlite3_total_changes64, (sqlite3 * db), (db))                        \
	R(sqlite3_int64, sqlite3_last_insert_rowid, (sqlite3 * db), (db))                      \
	R(int, sqlite3_busy_timeout, (sqlite3 * db, int ms), (db, ms))                         \
	V(sqlite3_free, (void *p), (p))

static struct {
	SQLITE_FUNCTIONS(DL_SHIM_PTR_R, DL_SHIM_PTR_V)
} fn;

SQLITE_FUNCTIONS(DL_SHIM_DEF_R, DL_SHIM_DEF_V)

int dl_sqlite_resolve(void *handle, struct err *e)
{
	SQLITE_FUNCTIONS(DL_SHIM_SET_R, DL_SHIM_SET_V)
	return 0;
}
