/*
 * blobs — uploaded files a box of ledger schema 3 or older kept on disk, at
 * <data>/attachments/<user_id>/<id>, and their move into the ledger. A box
 * of schema 4 stores an upload's bytes in the ledger itself (ledger.h,
 * attachment parts) and writes nothing a stranger sent to its disk; what an
 * older box left there is moved in by blobs_import (run by `serve` before it
 * listens, and by `sweep`), and what no row names is removed by
 * blobs_sweep_orphans.
 *
 * The rule of the move: a file is removed only once the transaction that
 * stored its bytes has committed, so a crash leaves the file (moved again,
 * whole, next time) or the bytes, never neither.
 *
 * Ownership: returned paths are malloc'd; arguments are borrowed.
 */
#ifndef MECHA_BOX_BLOBS_H
#define MECHA_BOX_BLOBS_H

#include <jansson.h>
#include <stddef.h>

struct err;
struct ledger;

/* Moves the file of every attachment row whose bytes the ledger lacks into the ledger,
 * then removes it; *moved counts them. A missing or unreadable file is left (its row's
 * download answers 500 "unavailable", as before); -1 only when the ledger fails. */
int blobs_import(struct ledger *l, const char *data, long long *moved, struct err *e);
/* Removes blob files older than min_age seconds that known ({"<user>/<id>": true})
 * does not name, and staging files as old; returns how many. */
long long blobs_sweep_orphans(const char *data, const json_t *known, long min_age);

#endif
