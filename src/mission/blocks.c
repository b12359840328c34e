/*
 * blocks — the block store, held as a jansson document between load and save
 * so that keys this version does not know survive a rewrite.
 */
#include "mission/blocks.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/fs.h"
#include "base/jsonio.h"
#include "base/lock.h"
#include "base/rfc3339.h"
#include "config/home.h"
#include "mission/letter.h"

#include <stdlib.h>
#include <string.h>

static char *beside_box(const char *box, const char *name)
{
	char *dir = fs_dirname(box);
	char *p = fs_join(dir, name);

	free(dir);
	return p;
}

char *blocks_path_for_box(const char *box)
{
	return beside_box(box, "blocks.json");
}

char *blocks_lock_path(const char *box)
{
	return beside_box(box, "blocks.lock");
}

static int is_version(const json_t *v, json_int_t max)
{
	return json_is_integer(v) && json_integer_value(v) >= 0 && json_integer_value(v) <= max;
}

static int check_block(const json_t *blk)
{
	const json_t *r = json_object_get(blk, "receipts");

	return json_is_object(blk) && json_is_string(json_object_get(blk, "block_id")) &&
	       is_version(json_object_get(blk, "boundary_version"), UINT32_MAX) &&
	       is_version(json_object_get(blk, "contract_version"), UINT32_MAX) &&
	       (!r || json_is_array(r));
}

/* The shape every reader below relies on, checked once at load. */
static int check_store(const json_t *doc, const char *path, struct err *e)
{
	const json_t *blocks = json_object_get(doc, "blocks");
	size_t i;
	json_t *blk;

	if (!json_is_object(doc) || !json_is_string(json_object_get(doc, "schema")) ||
	    strcmp(json_string_value(json_object_get(doc, "schema")), BLOCKS_SCHEMA) != 0)
		return err_set(e, ERR_CORRUPT_STORE, "%s is not a %s block store", path, BLOCKS_SCHEMA);
	if (!is_version(json_object_get(doc, "store_version"), INT64_MAX) || !json_is_array(blocks))
		return err_set(e, ERR_CORRUPT_STORE,
				"%s: store_version and blocks are missing or malformed", path);
	json_array_foreach(blocks, i, blk)
		if (!check_block(blk))
			return err_set(e, ERR_CORRUPT_STORE, "%s: block %zu is malformed", path, i);
	return 0;
}

int blocks_load(struct blocks *b, const char *path, struct err *e)
{
	struct err missing;

	memset(b, 0, sizeof *b);
	b->path = xstrdup(path);
	b->doc = jsonio_load(path, &missing);
	if (!b->doc && missing.code == ERR_NOT_FOUND) {
		b->doc = json_pack("{s:s,s:i,s:[]}", "schema", BLOCKS_SCHEMA, "store_version", 0,
				   "blocks");
		return 0;
	}
	if (!b->doc) {
		*e = missing;
		blocks_free(b);
		return -1;
	}
	if (check_store(b->doc, path, e) != 0) {
		blocks_free(b);
		return -1;
	}
	b->exists = 1;
	return 0;
}

void blocks_free(struct blocks *b)
{
	free(b->path);
	json_decref(b->doc);
	memset(b, 0, sizeof *b);
}

uint64_t blocks_version(const struct blocks *b)
{
	return (uint64_t)json_integer_value(json_object_get(b->doc, "store_version"));
}

static void bump(struct blocks *b)
{
	json_object_set_new(b->doc, "store_version", json_integer((json_int_t)blocks_version(b) + 1));
}

json_t *blocks_find(const struct blocks *b, const char *id, size_t len)
{
	size_t i;
	json_t *blk;

	json_array_foreach(json_object_get(b->doc, "blocks"), i, blk) {
		const json_t *v = json_object_get(blk, "block_id");
		if (json_string_length(v) == len && memcmp(json_string_value(v), id, len) == 0)
			return blk;
	}
	return NULL;
}

int blocks_has_receipt_at(const struct blocks *b, const char *id, size_t len, uint64_t version)
{
	const json_t *blk = blocks_find(b, id, len);
	size_t i;
	json_t *r;

	if (!blk)
		return 0;
	json_array_foreach(json_object_get(blk, "receipts"), i, r) {
		const json_t *v = json_object_get(r, "store_version");
		if (json_is_integer(v) && (uint64_t)json_integer_value(v) == version)
			return 1;
	}
	return 0;
}

uint64_t blocks_imported_from(const struct blocks *b, const char *mission_id,
			      const char *letter_id)
{
	size_t i, j;
	json_t *blk, *r;

	json_array_foreach(json_object_get(b->doc, "blocks"), i, blk)
		json_array_foreach(json_object_get(blk, "receipts"), j, r) {
			const char *m = jsonio_str(r, "mission_id"), *l = jsonio_str(r, "letter_id");
			const json_t *v = json_object_get(r, "store_version");
			if (m && l && strcmp(m, mission_id) == 0 && strcmp(l, letter_id) == 0 &&
			    json_is_integer(v))
				return (uint64_t)json_integer_value(v);
		}
	return 0;
}

int blocks_add(struct blocks *b, const char *id, const char *title, uint32_t boundary,
	       uint32_t contract, struct err *e)
{
	json_t *blk;

	if (blocks_find(b, id, strlen(id)))
		return err_set(e, ERR_BLOCK_EXISTS,
				  "block_exists: the store already holds a block '%s' — nothing changed", id);
	blk = json_pack("{s:s,s:s,s:I,s:I,s:[]}", "block_id", id, "title", title,
			"boundary_version", (json_int_t)boundary, "contract_version",
			(json_int_t)contract, "receipts");
	if (!blk)
		return err_set(e, ERR_BAD_ARGUMENTS, "the block id and title must be UTF-8 text");
	json_array_append_new(json_object_get(b->doc, "blocks"), blk);
	bump(b);
	return 0;
}

static json_t *text(const struct letter_str *s)
{
	return json_stringn(s->s, s->len);
}

static void set_opt(json_t *o, const char *key, const struct letter_str *s)
{
	if (s->s)
		json_object_set_new(o, key, text(s));
}

static json_t *evidence_json(const struct letter_evidence *ev)
{
	json_t *o = json_object(), *refs = json_array();

	set_opt(o, "command", &ev->command);
	set_opt(o, "cwd", &ev->cwd);
	if (ev->has_exit_status)
		json_object_set_new(o, "exit_status", json_integer(ev->exit_status));
	set_opt(o, "started_at", &ev->started_at);
	set_opt(o, "ended_at", &ev->ended_at);
	json_object_set_new(o, "artifact_hash", text(&ev->artifact_hash));
	set_opt(o, "stdout_excerpt", &ev->stdout_excerpt);
	for (size_t i = 0; i < ev->nrefs; i++)
		json_array_append_new(refs, text(&ev->refs[i]));
	json_object_set_new(o, "evidence_refs", refs);
	return o;
}

static json_t *receipt_json(const struct letter *head, const char *head_id, uint64_t version)
{
	const struct letter_candidate *c = &head->candidate;
	char now[RFC3339_LEN];

	rfc3339_now(now);
	return json_pack("{s:I,s:s,s:{s:o,s:I,s:I},s:o,s:o,s:s,s:s}", "store_version",
			 (json_int_t)version, "type", letter_receipt_type_name(c->type), "scope",
			 "block_id", text(&c->block_id), "boundary_version",
			 (json_int_t)c->boundary_version, "contract_version",
			 (json_int_t)c->contract_version, "evidence", evidence_json(&c->evidence),
			 "mission_id", text(&head->mission_id), "letter_id", head_id,
			 "imported_at", now);
}

static int scope_matches(const json_t *blk, const struct letter_candidate *c)
{
	return (uint64_t)json_integer_value(json_object_get(blk, "boundary_version")) ==
		       c->boundary_version &&
	       (uint64_t)json_integer_value(json_object_get(blk, "contract_version")) ==
		       c->contract_version;
}

int blocks_import(struct blocks *b, const struct letter *head, const char *head_id,
		  uint64_t *version, struct err *e)
{
	const struct letter_candidate *c = &head->candidate;
	json_t *blk = blocks_find(b, c->block_id.s, c->block_id.len), *receipts, *r;

	if (!blk)
		return err_set(e, ERR_UNKNOWN_BLOCK,
				  "unknown_block: the receipt candidate names block_id '%s' which no "
				  "block in this board's store holds — nothing was imported",
				  c->block_id.s);
	if (!scope_matches(blk, c))
		return err_set(
			e, ERR_SCOPE_MISMATCH,
			"scope_mismatch: the candidate's scope is boundary_version %u, "
			"contract_version %u but block '%s' is at %lld, %lld — nothing was imported",
			(unsigned)c->boundary_version, (unsigned)c->contract_version, c->block_id.s,
			(long long)json_integer_value(json_object_get(blk, "boundary_version")),
			(long long)json_integer_value(json_object_get(blk, "contract_version")));
	*version = blocks_version(b) + 1;
	r = receipt_json(head, head_id, *version);
	if (!r)
		return err_set(e, ERR_INTERNAL, "could not record the receipt");
	receipts = json_object_get(blk, "receipts");
	if (!receipts) {
		receipts = json_array();
		json_object_set_new(blk, "receipts", receipts);
	}
	json_array_append_new(receipts, r);
	bump(b);
	return 0;
}

int blocks_save(struct blocks *b, struct err *e)
{
	if (fs_parent_dir(b->path, e) != 0 || jsonio_save(b->path, b->doc, e) != 0)
		return -1;
	b->exists = 1;
	return 0;
}

/* ---- the store beside a box ---------------------------------------------------- */

static char *box_or_default(const char *box, struct err *e)
{
	return box ? xstrdup(box) : home_default(HOME_MISSION_BOX, e);
}

int blocks_load_box(struct blocks *b, const char *box, struct err *e)
{
	char *path, *box_path = box_or_default(box, e);
	int rc;

	memset(b, 0, sizeof *b);
	if (!box_path)
		return -1;
	path = blocks_path_for_box(box_path);
	rc = blocks_load(b, path, e);
	free(path);
	free(box_path);
	return rc;
}

static int add_locked(const char *box, const char *id, const char *title, uint32_t boundary,
		      uint32_t contract, uint64_t *version, struct err *e)
{
	char *path = blocks_path_for_box(box);
	struct blocks bs;
	int rc = blocks_load(&bs, path, e);

	free(path);
	if (rc != 0)
		return -1;
	rc = blocks_add(&bs, id, title, boundary, contract, e);
	if (rc == 0)
		rc = blocks_save(&bs, e);
	*version = blocks_version(&bs);
	blocks_free(&bs);
	return rc;
}

int blocks_add_to_box(const char *box, const char *id, const char *title, uint32_t boundary,
		      uint32_t contract, uint64_t *version, struct err *e)
{
	char *path = box_or_default(box, e), *lock_path;
	int lock, rc;

	*version = 0;
	if (!path)
		return -1;
	lock_path = blocks_lock_path(path);
	lock = fs_parent_dir(path, e) == 0 ? lock_acquire(lock_path, LOCK_EXCLUSIVE, e) : -1;
	rc = lock < 0 ? -1 : add_locked(path, id, title, boundary, contract, version, e);
	lock_release(lock);
	free(lock_path);
	free(path);
	return rc;
}
