/*
 * upload — a verified request's files (docs/protocol/box-pages.md §2, the upload POST):
 *
 *   GET  /f/{h}/{t}/u/{token}   the upload page (a pure read: it reloads)
 *   POST /f/{h}/{t}/u/{token}   multipart/form-data: the files, and the row queued
 *
 * A POST is checked in docs/protocol/box-pages.md §2's order: free disk under [limits]
 * min_free_bytes (1 GiB) → 503; a part that is not a file field of the type
 * → 400; more bytes than the type's file fields may hold together → 413;
 * more than [limits] upload_bytes_per_ip_day (64 MiB) from one client
 * address today → 429 (counted whether or not the files pass, the bandwidth
 * was spent either way); then each file's type is sniffed from its first
 * bytes only — `%PDF-`, the PNG signature, `FF D8 FF` — so a name or a
 * declared Content-Type decides nothing and a ZIP called cv.pdf is no PDF;
 * then the stored values and the files are validated together (Complete).
 * Refused files bring the page back with the errors and the token still
 * live. Accepted ones are stored in the ledger (their bytes in parts, with
 * their attachment rows) by the one transaction that queues the row; if that
 * finds the token spent (another box took these files first), nothing is
 * stored. Nothing a stranger sent touches the box's disk.
 *
 * The POST's body is read as it arrives (boxd hands it over piece by piece):
 * multipart.c's reader takes it, each file's bytes go to the ledger's spool
 * a LEDGER_PART at a time (ledger.h, spool_put) with its digest and first
 * bytes kept, and the checks above are made, in that order, once the body
 * is in — so an upload holds one part's buffer, never its files. What is
 * refused already (a part not a field, more than the budget) stops being
 * spooled at once; the refusals that need no body (the page gone, the disk
 * full) are found before it and answered when it is over. A spool no
 * transaction took is dropped (refused, broken off) or swept (its box died).
 *
 *   u = upload_begin(ctx, call);         (call: route, method, content_type, ip)
 *   upload_feed(u, piece, n); …          (the body, in order)
 *   upload_end(u, &reply);               (the answer; frees u)
 *   or upload_abandon(u);                (the connection went: frees u)
 *
 * Ownership: as api_handle's; call must outlive u. upload_due and
 * upload_has_files borrow.
 */
#ifndef MECHA_BOX_UPLOAD_H
#define MECHA_BOX_UPLOAD_H

#include <jansson.h>
#include <stddef.h>

struct api_call;
struct api_ctx;
struct api_reply;
struct manifest;

#define UPLOAD_EXPIRES_HOURS 48 /* a verified stranger's time to attach their files */

/* GET: the page; POST with the whole body in call (upload_begin … upload_end over it). */
void upload_handle(struct api_ctx *ctx, const struct api_call *call, struct api_reply *out);

struct upload_in;
struct upload_in *upload_begin(struct api_ctx *ctx, const struct api_call *call);
void upload_feed(struct upload_in *u, const char *p, size_t n);
void upload_end(struct upload_in *u, struct api_reply *out);
void upload_abandon(struct upload_in *u);

/* 1 when m has a file field at all (a verified row then waits for its files). */
int upload_has_files(const struct manifest *m);
/*
 * 1 when a file field of m (a const struct manifest *, as arg) is visible
 * under payload, stored values as JSON text: the upload page has something
 * to ask. The shape of ledger_verify's files_due.
 */
int upload_due(const char *payload, void *m);

#endif
