/*
 * typecache — the request store's hint of the types it holds:
 * HOME_M/requests/.types, one type id a line, at most TYPECACHE_MAX lines.
 *
 * A record's file is named <seq>-<type_id>.json, so with the types listed a
 * lookup by seq is a few stats instead of a scan of every name (the front
 * door's store reads it). Every writer of a record — the store, and the
 * drain, which may not include the front door — adds the type it wrote,
 * through typecache_note, under the store lock it already holds; a read
 * never writes it.
 *
 * The rule: it is a hint, never the truth. A miss falls back to the scan;
 * failing to keep it costs a scan, never a record, so typecache_note ignores
 * its failures; and a line is believed (and carried on by a rewrite) only
 * when it is a type id as a file name may carry it (typecache_id_ok), so a
 * hostile cache never becomes part of a path.
 *
 * Ownership: typecache_read's *text is new (free it); arguments are borrowed.
 */
#ifndef MECHA_TYPES_TYPECACHE_H
#define MECHA_TYPES_TYPECACHE_H

#include <stddef.h>

#define TYPECACHE_FILE ".types"
#define TYPECACHE_MAX 64    /* lines kept; a rewrite drops the oldest beyond it */
#define TYPECACHE_ID_MAX 64 /* the longest type id a record's file name carries */

/* 1 when s is 1-TYPECACHE_ID_MAX of [A-Za-z0-9_-] (a record's type_id). */
int typecache_id_ok(const char *s);

/* The cache of the store open at dirfd: 0 with *text (NUL-terminated), -1 when there is none. */
int typecache_read(int dirfd, char **text, size_t *len);

/* 1 when the cache text lists type_id on a line of its own. */
int typecache_has(const char *text, size_t len, const char *type_id);

/* Adds type_id to <dir>/.types unless it is there. Hold the store lock. Never fails (a hint). */
void typecache_note(const char *dir, const char *type_id);

#endif
