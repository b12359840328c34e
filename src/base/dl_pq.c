/*
 * dl_pq — libpq, loaded on first use: every PQ* function the box's
 * PostgreSQL ledger calls, forwarded to libpq.so.5 (see base/dl.h). A box on
 * SQLite never maps it.
 */
#define DL_SHIM_LIB DL_PQ

#include "base/dl_shim.h"
#include "base/err.h"

#include <libpq-fe.h>

#define PQ_FUNCTIONS(R, V)                                                                     \
	R(PGconn *, PQconnectdbParams,                                                         \
	  (const char *const *keywords, const char *const *values, int expand_dbname),         \
	  (keywords, values, expand_dbname))                                                   \
	R(ConnStatusType, PQstatus, (const PGconn *c), (c))                                    \
	R(char *, PQerrorMessage, (const PGconn *c), (c))                                      \
	R(PQnoticeProcessor, PQsetNoticeProcessor,                                             \
	  (PGconn * c, PQnoticeProcessor proc, void *arg), (c, proc, arg))                     \
	R(PGresult *, PQexec, (PGconn * c, const char *query), (c, query))                     \
	R(PGresult *, PQexecParams,                                                            \
	  (PGconn * c, const char *command, int n, const Oid *types, const char *const *values, \
	   const int *lengths, const int *formats, int result_format),                         \
	  (c, command, n, types, values, lengths, formats, result_format))                     \
	R(ExecStatusType, PQresultStatus, (const PGresult *r), (r))                            \
	R(char *, PQresultErrorMessage, (const PGresult *r), (r))                              \
	R(char *, PQresultErrorField, (const PGresult *r, int field), (r, field))              \
	R(int, PQntuples, (const PGresult *r), (r))                                            \
	R(int, PQnfields, (const PGresult *r), (r))                                            \
	R(char *, PQgetvalue, (const PGresult *r, int row, int col), (r, row, col))            \
	R(int, PQgetlength, (const PGresult *r, int row, int col), (r, row, col))              \
	R(int, PQgetisnull, (const PGresult *r, int row, int col), (r, row, col))              \
	R(Oid, PQftype, (const PGresult *r, int col), (r, col))                                \
	R(char *, PQcmdTuples, (PGresult * r), (r))                                            \
	V(PQclear, (PGresult * r), (r))                                                        \
	V(PQreset, (PGconn * c), (c))                                                          \
	V(PQfinish, (PGconn * c), (c))

static struct {
	PQ_FUNCTIONS(DL_SHIM_PTR_R, DL_SHIM_PTR_V)
} fn;

PQ_FUNCTIONS(DL_SHIM_DEF_R, DL_SHIM_DEF_V)

int dl_pq_resolve(void *handle, struct err *e)
{
	PQ_FUNCTIONS(DL_SHIM_SET_R, DL_SHIM_SET_V)
	return 0;
}
