/*
 * blocks — the block store beside a box (<box dir>/blocks.json): the blocks a
 * board's missions may name, each with its boundary and contract versions and
 * the receipts a person imported onto it, under one store_version counter.
 *
 *   {"schema":"mecha-block-store-v0","store_version":N,
 *    "blocks":[{"block_id","title","boundary_version","contract_version",
 *               "receipts":[{"store_version","type","scope","evidence",
 *                            "mission_id","letter_id","imported_at"}]}]}
 *
 * The rule: the store changes only through a person's gesture (`blocks add`,
 * `mission land`) — never because a letter said so — and every change bumps
 * store_version by one and replaces the file atomically (fs.h). A receipt
 * records the store_version its import produced, which is what a `landed`
 * letter must name. Callers hold <box dir>/blocks.lock around load-change-save
 * (blocks_lock_path).
 *
 * Ownership: struct blocks owns its path and document (blocks_free). json_t *
 * returned by blocks_find are BORROWED from the document. Returned char * are
 * malloc'd.
 */
#ifndef MECHA_MISSION_BLOCKS_H
#define MECHA_MISSION_BLOCKS_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

struct err;
struct letter;

#define BLOCKS_SCHEMA "mecha-block-store-v0"

struct blocks {
	char *path;
	int exists;  /* 0: no store file (then no block guard applies) */
	json_t *doc; /* an empty store at version 0 when !exists */
};

/* <dir of box>/blocks.json and <dir of box>/blocks.lock. */
char *blocks_path_for_box(const char *box);
char *blocks_lock_path(const char *box);

/* Loads the store at path; a missing file is an empty store (exists = 0). */
int blocks_load(struct blocks *b, const char *path, struct err *e);
void blocks_free(struct blocks *b);

uint64_t blocks_version(const struct blocks *b);
/* The block called id[0..len), or NULL. Borrowed. */
json_t *blocks_find(const struct blocks *b, const char *id, size_t len);
/* 1 when a receipt for the block was imported at exactly `version`. */
int blocks_has_receipt_at(const struct blocks *b, const char *id, size_t len, uint64_t version);
/*
 * The store_version of the receipt imported from the candidate in letter
 * `letter_id` of `mission_id`, or 0 when there is none (a `land` that crashed
 * between its two writes is finished from here).
 */
uint64_t blocks_imported_from(const struct blocks *b, const char *mission_id,
			      const char *letter_id);

/* Adds a block (refused with "block_exists" when the id is taken); bumps the version. */
int blocks_add(struct blocks *b, const char *id, const char *title, uint32_t boundary,
	       uint32_t contract, struct err *e);

/*
 * Imports the receipt candidate of `head` (letter `head_id`) as a receipt on
 * its block: refused ("unknown_block") when the store lacks the block and
 * ("scope_mismatch") when the candidate's versions are not the block's
 * current ones. Bumps store_version; *version gets the new value. In memory
 * only: blocks_save writes it.
 */
int blocks_import(struct blocks *b, const struct letter *head, const char *head_id,
		  uint64_t *version, struct err *e);

/* Replaces the store file atomically (creating its directory if needed). */
int blocks_save(struct blocks *b, struct err *e);

/*
 * The store beside a box, for a front end: box NULL means the default box
 * (home.h). blocks_load_box reads and never writes. blocks_add_to_box is the
 * whole of `blocks add`: the box's directory created private when missing,
 * blocks.lock held around load-add-save; *version gets the store's version
 * (the new one on success).
 */
int blocks_load_box(struct blocks *b, const char *box, struct err *e);
int blocks_add_to_box(const char *box, const char *id, const char *title, uint32_t boundary,
		      uint32_t contract, uint64_t *version, struct err *e);

#endif
