/*
 * check — the rules of a manifest whose shapes are sound (docs/types.md):
 * ids, duplicates, caps, options, date bounds, file limits, conditions,
 * steps, acknowledgments, [verification], [confirmation] and `kind`. Each
 * broken rule is one issue with its fixed text and the line it is
 * about.
 *
 * Internal to src/types.
 */
#ifndef MECHA_TYPES_CHECK_H
#define MECHA_TYPES_CHECK_H

#include <stddef.h>

struct decode;
struct manifest;

void check_manifest(struct decode *d, struct manifest *m);

/* YYYY-MM-DD with month 1-12 and day 1-31 (shape only: no calendar check). */
int check_iso_date(const char *s, size_t len);

#endif
