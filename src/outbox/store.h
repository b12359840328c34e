/*
 * store — the outbox directory: one `<id>.json` per draft, 0600, in a 0700
 * directory, and `.lock`, the flock every change is made under.
 *
 * The rule: a change to an item is lock, re-read, check, write, unlock —
 * never a write of something read before the lock was taken, because the
 * person at another terminal (or a second `approve`) may have resolved it in
 * between. outbox_store_update does exactly that around a callback;
 * outbox_store_lock/read/write are there for a batch that must check every
 * item before changing any (reject). The lock is never held across a
 * delivery or an editor: release.c takes it twice, once on each side. The
 * first lock of an open also removes the temp files a killed writer left
 * (base/fs.h, fs_temps_sweep): one readdir per open, not per write.
 *
 * An unreadable item (not JSON, a wrong type, a symlink) never breaks a
 * listing: it is skipped with one warning line and left as it is.
 *
 * The outbox has never heard of a request: nothing here includes the front
 * door, which reads this store (reconcile) through outbox_store_each.
 *
 * Calling sequence:
 *     struct outbox_store s;
 *     outbox_store_open(&s, cfg.outbox_dir, OUTBOX_WRITE, &e);
 *     outbox_store_lookup(&s, "20260806T02", &id, &e);   -- a unique start or tail
 *     outbox_store_update(&s, id, fn, ctx, &e);
 *     outbox_store_close(&s);
 *
 * Ownership: the store owns its paths. Items filled by read/list/stage are
 * the caller's (outbox_item_free / outbox_list_free). An item handed to an
 * outbox_store_each or update callback is BORROWED for the call only.
 */
#ifndef MECHA_OUTBOX_STORE_H
#define MECHA_OUTBOX_STORE_H

#include "outbox/item.h"

#include <stddef.h>
#include <stdio.h>

struct err;

enum outbox_mode {
	OUTBOX_READ,  /* a missing directory is an empty outbox; nothing is created */
	OUTBOX_WRITE, /* the directory is created 0700, or tightened to 0700 */
};

struct outbox_store {
	char *dir;
	char *lock_path;
	int lock_fd; /* -1 when not held */
	int exists;  /* the directory was there (or was created) when opened */
	enum outbox_mode mode;
	int swept;   /* a killed writer's temp files were swept (the first lock of an open) */
};

struct outbox_list {
	struct outbox_item *items; /* sorted by id, which is staging order */
	size_t n;
};

int outbox_store_open(struct outbox_store *s, const char *dir, enum outbox_mode mode,
		      struct err *e);
/* Releases the lock if held. */
void outbox_store_close(struct outbox_store *s);

/* The exclusive lock on <dir>/.lock (OUTBOX_WRITE only). Not reentrant. */
int outbox_store_lock(struct outbox_store *s, struct err *e);
void outbox_store_unlock(struct outbox_store *s);

/*
 * Reads the item called id. Codes: "not_found" (no such file), "unreadable"
 * (there, but not an item; the message says why).
 */
int outbox_store_read(struct outbox_store *s, const char *id, struct outbox_item *out,
		      struct err *e);
/*
 * The identity (base/fs.h) of the item called id, without reading it: 0 with
 * *id filled, 1 when there is no such item (*id zeroed), -1 when it cannot be
 * looked at (then nothing may be concluded from it).
 */
struct fs_identity;
int outbox_store_identity(struct outbox_store *s, const char *id, struct fs_identity *out);
/* Atomically replaces <id>.json with it->doc. Hold the lock. */
int outbox_store_write(struct outbox_store *s, const struct outbox_item *it, struct err *e);

/*
 * outbox_store_list's order without its memory: the ids are read from the
 * file names and sorted (staging order), then each item is read, handed to fn
 * (borrowed, VERDICT_* as above) and freed, so memory does not grow with the
 * outbox. With pending_first, the pending items come first and the others
 * after (those are read twice: once to learn they can wait). An unreadable
 * item is warned about once, as outbox_store_each does.
 */
int outbox_store_stream(struct outbox_store *s, int pending_first,
			int (*fn)(const struct outbox_item *it, void *ctx, struct err *e),
			void *ctx, FILE *warn, struct err *e);
/* Every readable item, sorted by id. */
int outbox_store_list(struct outbox_store *s, struct outbox_list *out, FILE *warn,
		      struct err *e);
void outbox_list_free(struct outbox_list *l);
/* The item with exactly this id in a list, or NULL (binary search). */
const struct outbox_item *outbox_list_find(const struct outbox_list *l, const char *id);

/*
 * The id of the one item whose id is, starts with or ends with prefix (an
 * exact match wins; a unique start or a unique tail abbreviates an id, as
 * git's short ids do, and the random tail is the part that tells two drafts of
 * one second apart). *id is malloc'd. Codes: "not_found"; "ambiguous" (a usage
 * error naming a few candidates); "usage" for an empty prefix, which would
 * name every item.
 */
int outbox_store_lookup(struct outbox_store *s, const char *prefix, char **id, struct err *e);
/*
 * Every id that part abbreviates by the rule above (starts or ends with it;
 * every id for an empty part), sorted: the candidates a lookup chooses from,
 * which the shell's completion offers. *ids and each entry are malloc'd
 * (outbox_ids_free); a missing directory is no ids.
 */
int outbox_store_matching(struct outbox_store *s, const char *part, char ***ids, size_t *n,
			  struct err *e);
void outbox_ids_free(char **ids, size_t n);

/*
 * Stages a new pending item; *out (when not NULL) receives it. The one door
 * for every stager: the kind must be message or publish and the sink table
 * must know the tool and accept its arguments (codes "bad_arguments",
 * "unknown_tool": exit 2, nothing staged).
 */
int outbox_store_stage(struct outbox_store *s, const struct outbox_draft *d,
		       struct outbox_item *out, struct err *e);

/*
 * Under the lock: re-reads id, calls fn (which checks what it expects and
 * changes the item through the item.h setters; returns VERDICT_WRITE or
 * VERDICT_LEAVE from base/verdict.h, or -1 to refuse with e filled), writes
 * when asked. Returns fn's verdict or -1.
 */
int outbox_store_update(struct outbox_store *s, const char *id,
			int (*fn)(struct outbox_item *it, void *ctx, struct err *e), void *ctx,
			struct err *e);

/*
 * Resolves a pending item as sent or rejected (the Rust tool's `resolve`).
 * Refuses with "not_pending" (exit 3) when it is no longer pending.
 */
int outbox_store_resolve(struct outbox_store *s, const char *id, const char *status,
			 const char *reason, struct err *e);

#endif
