/*
 * intake — one row of the box's queue made into a request record, exactly as
 * docs/protocol/box-api.md §6.1 fixes it, with no I/O: the drain
 * (drain.h) fetches, writes and acknowledges around it.
 *
 * The box is not trusted. Its row is read strictly (a row that does not read
 * is left at the box, never guessed at); its payload is validated again
 * against the owner's own manifest, never the box's copy:
 *   - a payload that is not a JSON object: values {}, valid false;
 *   - keys starting with `_` are machinery (a booking's slot, a cancellation)
 *     and are set aside; a payload of machinery alone is valid as it is;
 *   - otherwise the rest is validated in the Complete phase. Valid: the
 *     coerced values with the machinery put back, free_text the names of the
 *     prose fields present, reply_to the verification field's value, and
 *     each file value without the stranger's filename (it stays only in the
 *     record's attachments list, for a person). Not valid: the payload as it
 *     came, valid false and invalid_reason saying why. A manifest missing at
 *     home, or broken, is such a reason too (docs/protocol/box-api.md §6.1: the
 *     record comes home, a person sees it).
 * Where this goes further (docs/protocol/box-api.md §11): a file value whose
 * measurements (size, digest) no attachment of the row carries makes the
 * record invalid — a box cannot swap the bytes under a validated value.
 *
 * The record (made by requests/record.h, named and created by
 * requests/store.h: the drain spells neither a file name nor a state) is
 * written in the order of docs/protocol/box-api.md §6.1 and docs/protocol/files.md §2
 * — seq, type_id, state, created_at, drained_at, valid, invalid_reason?,
 * values, free_text, reply_to?, attachments (when there are any) — and
 * every object inside `values` with its keys sorted, as a sorted JSON map
 * writes them, so a record mecha's frontdoor rewrites keeps
 * its bytes.
 *
 * Ownership: an intake_row borrows every string from the row it was read
 * from (keep the row alive); intake_row_free frees its array. A verdict owns
 * its values (intake_verdict_free). intake_record returns a NEW reference and
 * steals `attachments`.
 */
#ifndef MECHA_DRAIN_INTAKE_H
#define MECHA_DRAIN_INTAKE_H

#include <jansson.h>
#include <stddef.h>

struct err;
struct manifest;
struct record;

#define INTAKE_TYPE_MAX 64
/* The most bytes one attachment may declare: the most a file field takes. */
#define INTAKE_FILE_MAX (16LL * 1024 * 1024)
/* The most a record's attachments may declare together: the most a type takes. */
#define INTAKE_FILES_MAX (32LL * 1024 * 1024)
/* The most attachments one row may have. */
#define INTAKE_FILES_COUNT_MAX 256

struct intake_file {
	const char *id;           /* the box's attachment id: [A-Za-z0-9_-], for its URL */
	const char *field;
	const char *filename;     /* the stranger's */
	long long size;
	const char *sha256;       /* "sha256:" + 64 hex, as the box wrote it */
	const char *content_type; /* as the box declared it */
};

struct intake_row {
	long long seq;
	const char *type;
	const char *created_at;
	const char *payload;
	struct intake_file *files;
	size_t nfiles;
};

/*
 * Reads a row of GET /v1/queue: {seq >= 1, type [A-Za-z0-9_-]{1,64},
 * created_at, payload (JSON text), attachments: [{id, field, filename, size,
 * sha256, content_type}]}. -1 with ERR_GATE saying what is wrong (and
 * out->seq set when the seq itself read, else -1).
 */
int intake_parse(const json_t *row, struct intake_row *out, struct err *e);
void intake_row_free(struct intake_row *r);

/* 1 when the payload is a JSON object of `_` keys only (no manifest is needed). */
int intake_machinery_only(const struct intake_row *r);

struct intake_verdict {
	int valid;
	char *invalid_reason; /* NULL when valid */
	json_t *values;       /* NEW */
	json_t *free_text;    /* NEW array */
	char *reply_to;       /* NULL when none */
	/* The version of its type it was submitted under: the box's `_type_version` stamp
	 * (taken out of the values), else the home manifest's it was judged by; 0 unknown. */
	long long type_version;
	long long box_version; /* the box's stamp alone; 0 when it sent none (a reference box) */
};

/*
 * Judges a row as above. m is the owner's manifest of the row's type; NULL
 * when it could not be loaded, with no_manifest the reason (or when the
 * payload is machinery only, where it is not needed).
 */
void intake_judge(const struct intake_row *r, const struct manifest *m, const char *no_manifest,
		  struct intake_verdict *v);
void intake_verdict_free(struct intake_verdict *v);

/* One entry of the record's attachments, in the spec's key order. NEW. */
json_t *intake_attachment(const struct intake_file *f, const char *digest_hex,
			  const char *content_type, const char *path);

/*
 * The record, drained now (drained_at: RFC 3339), made by the request store's
 * one constructor (requests/record.h record_new: state drained, the spec's
 * key order). attachments is stolen (NULL: none); out is the caller's
 * (record_free). intake_record is the same as its JSON object (NEW).
 */
void intake_record_new(const struct intake_row *r, const struct intake_verdict *v,
		       const char *drained_at, json_t *attachments, struct record *out);
json_t *intake_record(const struct intake_row *r, const struct intake_verdict *v,
		      const char *drained_at, json_t *attachments);

/*
 * What a file is by its first bytes, as the box sniffs an upload: "pdf"
 * (%PDF-), "png" (its signature), "jpg" (FF D8 FF), else "bin"; and the
 * content type mecha records for it.
 */
const char *intake_sniff(const void *bytes, size_t len, const char **content_type);

/*
 * The names attachments are stored under, without their extension, one per
 * file of the row: the field when it is a field name ([a-z0-9_-]{1,64}),
 * else the file's index; a name an earlier file took gets "<i>-<k>" instead,
 * so no two files of a row share a name. A malloc'd array of malloc'd strings.
 */
char **intake_file_stems(const struct intake_row *r);
void intake_file_stems_free(char **stems, size_t n);

#endif
