/*
 * typecache — a type's manifest parsed once per stored text, and its fresh
 * form rendered once per manifest version and page address.
 *
 * Every stranger's page used to parse the type's TOML again, and every form
 * GET to render the same HTML again. Here the ledger's row is still read on
 * every visit (so a `types push`, from any box process on the database,
 * shows at once), but its text is compared byte for byte with the one parsed
 * for that owner and type, and only a changed text is parsed again. At most
 * TYPECACHE_ENTRIES types are kept; the least recently used goes first.
 *
 * A parsed manifest is shared, read-only, by every visit holding a ref: no
 * page, validation or handler writes to a struct manifest (types/manifest.h
 * takes it const everywhere but manifest_free).
 *
 * The owner and the type row a page names are read once per ledger stamp
 * (ledger.h) too: typecache_remember keeps, on a ref, the handle it was found
 * by and the owner's row with the stamp they were read at, and
 * typecache_known gives that back to a visit made while the ledger's stamp
 * is still the same — no change committed since, through this box or any
 * other process on the ledger (a `types push` through another box, an owner
 * suspended by the CLI) — so that a form GET reads one statement instead of
 * two rows. A backend that cannot stamp (PostgreSQL) reads the rows every
 * time, as before.
 *
 * Threads: one mutex around the entries and their counts.
 *
 * Ownership: typecache_get and typecache_known return a ref the caller gives
 * back with typecache_put (it keeps the manifest alive; NULL when the text
 * does not parse, or nothing was remembered); typecache_form returns a ref on the shared document (api_doc_put
 * gives it back). Arguments borrowed.
 */
#ifndef MECHA_BOX_TYPECACHE_H
#define MECHA_BOX_TYPECACHE_H

#include "box/ledger.h"
#include "box/page.h"

#include <stddef.h>

#define TYPECACHE_ENTRIES 64

struct api_doc;
struct manifest;
struct typecache_ref;

/* The manifest of text for (user, type), and *m pointing into the ref; NULL: no manifest. */
struct typecache_ref *typecache_get(const char *user, const char *type, const char *text,
				    const struct manifest **m);
void typecache_put(struct typecache_ref *ref);

/* The ref remembered for (handle, type) at stamp, *user and *m filled; NULL when none
 * was (or only at another stamp). */
struct typecache_ref *typecache_known(const char *handle, const char *type,
				      const struct ledger_stamp *stamp, struct ledger_user *user,
				      const struct manifest **m);
/* Remembers ref as what (handle, ref's type) resolved to, the owner user, at stamp. */
void typecache_remember(struct typecache_ref *ref, const char *handle,
			const struct ledger_stamp *stamp, const struct ledger_user *user);

/* The number of ref's parse: two refs share one only when they share the manifest, and a
 * number is never given twice in a process (what a cache of pages keys on: weekcache.h). */
unsigned long long typecache_id(const struct typecache_ref *ref);

/* page_form(ctx, m, NULL, NULL) of ref's manifest, rendered once per ctx->base and ->assets. */
struct api_doc *typecache_form(struct typecache_ref *ref, const struct page_ctx *ctx);

#endif
