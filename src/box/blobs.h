/*
 * blobs — the bytes of uploaded files, one file per attachment at
 * <data>/attachments/<user_id>/<id>, named by an id the box minted (a
 * stranger's file name never touches the file system).
 *
 * The rule: a blob appears whole or not at all — it is written under
 * ".staging-<id>" in the same directory, fsynced, then renamed — and it is
 * removed only after the ledger row that names it is gone (ack, sweep), so a
 * crash leaves at worst an orphan, which the sweep removes after an hour.
 *
 * Ownership: returned paths are malloc'd.
 */
#ifndef MECHA_BOX_BLOBS_H
#define MECHA_BOX_BLOBS_H

#include <jansson.h>
#include <stddef.h>

struct err;

/* <data>/attachments/<user>/<id>; NULL when user or id could not be a file name. */
char *blobs_path(const char *data, const char *user, const char *id);
/* Writes bytes as the blob user/id (staging + rename). */
int blobs_write(const char *data, const char *user, const char *id, const void *bytes,
		size_t len, struct err *e);
/* Removes the blobs of user named in ids (a JSON array of strings); missing ones are fine. */
void blobs_remove(const char *data, const char *user, const json_t *ids);
/* Removes blob files older than min_age seconds that known ({"<user>/<id>": true})
 * does not name, and staging files as old; returns how many. */
long long blobs_sweep_orphans(const char *data, const json_t *known, long min_age);

#endif
