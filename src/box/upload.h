/*
 * upload — a verified request's files (docs/protocol/box-pages.md §2, the upload POST):
 *
 *   GET  /f/{h}/{t}/u/{token}   the upload page (a pure read: it reloads)
 *   POST /f/{h}/{t}/u/{token}   multipart/form-data: the files, and the row queued
 *
 * A POST is checked in the reference's order: free disk under [limits]
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
 * Ownership: as api_handle's; upload_due and upload_has_files borrow.
 */
#ifndef MECHA_BOX_UPLOAD_H
#define MECHA_BOX_UPLOAD_H

#include <jansson.h>

struct api_call;
struct api_ctx;
struct api_reply;
struct manifest;

#define UPLOAD_EXPIRES_HOURS 48 /* a verified stranger's time to attach their files */

void upload_handle(struct api_ctx *ctx, const struct api_call *call, struct api_reply *out);

/* 1 when m has a file field at all (a verified row then waits for its files). */
int upload_has_files(const struct manifest *m);
/*
 * 1 when a file field of m (a const struct manifest *, as arg) is visible
 * under payload, stored values as JSON text: the upload page has something
 * to ask. The shape of ledger_verify's files_due.
 */
int upload_due(const char *payload, void *m);

#endif
