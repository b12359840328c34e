/*
 * dl_mhd — libmicrohttpd, loaded on first use: every MHD_* function the box
 * calls, forwarded to libmicrohttpd.so.12 (see base/dl.h). Only the box
 * serves HTTP, and it loads the library (and the GnuTLS it pulls in) when
 * `serve` starts, so its other verbs stay light.
 *
 * The variadic two are forwarded by hand: MHD_start_daemon through
 * MHD_start_daemon_va, and MHD_get_connection_info for the kinds that take
 * no further argument (all the box asks for).
 */
#define DL_SHIM_LIB DL_MHD

#include "base/dl_shim.h"
#include "base/err.h"

#include <stdarg.h>
#include <stdint.h>
#include <sys/socket.h>
#include <microhttpd.h>

#define MHD_FUNCTIONS(R, V)                                                                    \
	R(struct MHD_Daemon *, MHD_start_daemon_va,                                            \
	  (unsigned int flags, uint16_t port, MHD_AcceptPolicyCallback apc, void *apc_cls,     \
	   MHD_AccessHandlerCallback dh, void *dh_cls, va_list ap),                            \
	  (flags, port, apc, apc_cls, dh, dh_cls, ap))                                         \
	V(MHD_stop_daemon, (struct MHD_Daemon *d), (d))                                        \
	R(const char *, MHD_lookup_connection_value,                                           \
	  (struct MHD_Connection *c, enum MHD_ValueKind kind, const char *key), (c, kind, key)) \
	R(enum MHD_Result, MHD_queue_response,                                                 \
	  (struct MHD_Connection *c, unsigned int status, struct MHD_Response *r),             \
	  (c, status, r))                                                                      \
	V(MHD_suspend_connection, (struct MHD_Connection *c), (c))                             \
	V(MHD_resume_connection, (struct MHD_Connection *c), (c))                              \
	R(struct MHD_Response *, MHD_create_response_from_buffer,                              \
	  (size_t size, void *buffer, enum MHD_ResponseMemoryMode mode), (size, buffer, mode)) \
	R(struct MHD_Response *, MHD_create_response_from_fd, (size_t size, int fd),           \
	  (size, fd))                                                                          \
	R(struct MHD_Response *, MHD_create_response_from_callback,                            \
	  (uint64_t size, size_t block, MHD_ContentReaderCallback read, void *cls,            \
	   MHD_ContentReaderFreeCallback done),                                                \
	  (size, block, read, cls, done))                                                      \
	V(MHD_destroy_response, (struct MHD_Response *r), (r))                                 \
	R(enum MHD_Result, MHD_add_response_header,                                            \
	  (struct MHD_Response *r, const char *header, const char *content),                   \
	  (r, header, content))

static struct {
	MHD_FUNCTIONS(DL_SHIM_PTR_R, DL_SHIM_PTR_V)
	const union MHD_ConnectionInfo *(*MHD_get_connection_info)(struct MHD_Connection *,
								   enum MHD_ConnectionInfoType,
								   ...);
} fn;

MHD_FUNCTIONS(DL_SHIM_DEF_R, DL_SHIM_DEF_V)

int dl_mhd_resolve(void *handle, struct err *e)
{
	MHD_FUNCTIONS(DL_SHIM_SET_R, DL_SHIM_SET_V)
	DL_SHIM_SET(MHD_get_connection_info)
	return 0;
}

struct MHD_Daemon *MHD_start_daemon(unsigned int flags, uint16_t port,
				    MHD_AcceptPolicyCallback apc, void *apc_cls,
				    MHD_AccessHandlerCallback dh, void *dh_cls, ...)
{
	struct MHD_Daemon *d;
	va_list ap;

	dl_need(DL_MHD);
	va_start(ap, dh_cls);
	d = fn.MHD_start_daemon_va(flags, port, apc, apc_cls, dh, dh_cls, ap);
	va_end(ap);
	return d;
}

/* The kinds the box asks for (the client's address, the daemon) take nothing more. */
const union MHD_ConnectionInfo *MHD_get_connection_info(struct MHD_Connection *c,
							 enum MHD_ConnectionInfoType type, ...)
{
	dl_need(DL_MHD);
	return fn.MHD_get_connection_info(c, type);
}
