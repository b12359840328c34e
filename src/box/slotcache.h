/*
 * slotcache — the slots home pushed for an instrument, parsed once per push.
 *
 * The ledger's slot cache row holds the push as JSON text; parsing ~1,000
 * slots into jansson objects on every week page was most of its cost. Here
 * the row is still read on every call (so a new push, from any box process on
 * the database, shows at once), but its text is compared byte for byte with
 * the one parsed last time for that owner and instrument, and only a changed
 * text is parsed again (box/slotrule.h's slotrule_parse). At most
 * SLOTCACHE_ENTRIES pushes are kept; the least recently used goes first.
 *
 * Threads: one mutex around the entries; any number of callers at once.
 *
 * Ownership: slotcache_get fills *out with its own copies (the slots, the
 * stamp); slotcache_view_free releases them. user and instrument are borrowed.
 */
#ifndef MECHA_BOX_SLOTCACHE_H
#define MECHA_BOX_SLOTCACHE_H

#include "box/ledger.h"
#include "box/slotrule.h"

#define SLOTCACHE_ENTRIES 32

struct slotcache_view {
	struct slotrule_slot *slots; /* slotrule_parse's order; never NULL after a get */
	size_t n;
	char *generated_at; /* the push's stamp; NULL before the first push */
};

/* 0 with *out filled (no slots before the first push), or -1 when the ledger fails. */
int slotcache_get(struct ledger *l, const char *user, const char *instrument,
		  struct slotcache_view *out, struct err *e);
void slotcache_view_free(struct slotcache_view *v);

#endif
