/*
 * store — the directory of request records (HOME_M/requests).
 *
 * One record per file, named from its seq and type_id. Listing walks the
 * directory once, orders the names by seq, and parses one record at a time;
 * a file that does not parse is skipped with one warning and never touched.
 * Finding one record reads names only, never the other records: a few stats
 * through the type cache, else the name index (one pass over the names,
 * searched by seq while the directory is unchanged).
 *
 * Every change is a read-modify-write under flock on `<dir>/.lock`: the record
 * is re-read after the lock is taken, the caller's function checks the state
 * it expects and changes it, and the file is replaced atomically. The outbox
 * ids on disk are never lost by a rewrite. The first time an open store takes
 * its lock it removes the temp files a killed writer left (base/fs.h,
 * fs_temps_sweep): one readdir per open, not per write.
 *
 * Ownership: struct store owns its path and directory descriptor
 * (store_close). Records handed to callbacks are owned by the store and
 * freed after the callback returns; records returned through out-params
 * belong to the caller (record_free).
 */
#ifndef MECHA_REQUESTS_STORE_H
#define MECHA_REQUESTS_STORE_H

#include "requests/record.h"

#include <stdio.h>

struct err;
struct store_index;

struct store {
	char *dir;
	int dirfd; /* -1 when the directory does not exist (a read-only open) */
	FILE *warn; /* where "skipping unreadable request" goes; stderr by default */
	int told_strays; /* a listing told about names that are not records (once per open) */
	int swept; /* a writer's leftover temp files were swept (once per open, under the lock) */
	/*
	 * A walk's progress, for a meter (NULL: none, the default): called with
	 * the files read so far and the files the walk will read, from one thread
	 * at a time, and at least at the last one.
	 */
	void (*on_read)(size_t done, size_t total, void *ctx);
	void *on_read_ctx;
	/*
	 * The walk in progress (store_each and its kin), set before its first
	 * record: how many names it lists, and the widest seq (as %lld prints it)
	 * and type_id among them — what a listing's columns need before its
	 * first row, since rows are printed as they are read.
	 */
	struct {
		size_t n;
		int seq_width, type_width;
	} walk;
	struct store_index *index; /* seq → name, built at a lookup's first miss (store_find) */
};

enum store_mode {
	STORE_READ,   /* a missing directory is an empty store; nothing is created */
	STORE_CREATE, /* the directory is created 0700, or tightened to 0700 (said on warn) */
};

/*
 * A read (STORE_READ, and every function here that does not take the lock)
 * creates and changes nothing: no directory, no lock file, no cache. The
 * type cache (.types) is written only by store_update and store_put, under
 * the lock they already hold, and a read works without it. The one exception
 * is store_each_digest, whose caller asks for its kept file (a listing's
 * .listed): a derived file, replaced whole, that no rule reads.
 */
int store_open(struct store *s, const char *dir, enum store_mode mode, struct err *e);
/* HOME_M/requests. */
int store_open_default(struct store *s, enum store_mode mode, struct err *e);
void store_close(struct store *s);

/*
 * Names in the directory that are neither records nor the store's own files
 * (dot-files such as .lock, .types and a replace's temp file; attachments/;
 * bookings.jsonl) are ignored, and the first listing of an open store says so
 * on warn, once: how many, the first few names, and where the naming rule is
 * written (docs/protocol/files.md). Saying so writes nothing.
 *
 * Calls fn for every readable record, in seq order, one at a time. fn returns
 * VERDICT_NEXT, VERDICT_STOP (base/verdict.h) or -1 to fail (its err is
 * passed back).
 */
int store_each(struct store *s, int (*fn)(struct record *r, void *ctx, struct err *e), void *ctx,
	       struct err *e);

/*
 * store_each, but a file whose raw bytes do not contain needle is skipped
 * without being parsed (a fast pre-filter: "\"awaiting_me\"" finds the records
 * reconcile may move). Unreadable files that contain it still warn.
 */
int store_each_mentioning(struct store *s, const char *needle,
			  int (*fn)(struct record *r, void *ctx, struct err *e), void *ctx,
			  struct err *e);

/*
 * store_each_mentioning over up to `threads` threads (at most
 * STORE_MAX_THREADS), in no particular order: fn is called from several
 * threads at once and must be safe for that. The first failure stops the pass.
 */
#define STORE_MAX_THREADS 8
int store_each_parallel(struct store *s, const char *needle, unsigned threads,
			int (*fn)(struct record *r, void *ctx, struct err *e), void *ctx,
			struct err *e);

/*
 * A walk that keeps, in <dir>/<cache> (requests/digest.h), what the caller
 * derives from each record — its digest — with the identity of the file it
 * came from (base/fs.h): a file whose identity is unchanged since is not read
 * again, its kept digest is used. What a listing shows is the same either way;
 * only the reading is saved. A read-only store is walked without keeping.
 *
 * make: from a record read now, its digest into out. Returns STORE_DIGEST_KEEP
 * to keep it, STORE_DIGEST_ONCE to use it this time only (the record moved
 * while make looked, or what the digest rests on cannot be told apart later),
 * STORE_DIGEST_SKIP when there is nothing to use (the record went away), or
 * -1 to fail (its err passed back).
 * holds: whether a kept digest still holds beyond its file's identity (what
 * else it rests on); NULL: always. Called with the walk's own ctx.
 * use: every record's digest, in seq order, one at a time; returns
 * VERDICT_NEXT, VERDICT_STOP or -1.
 *
 * Only a version made FS_SETTLED_MS before the walk began is kept, so a change
 * in the same clock tick as the version seen is never missed. The kept file is
 * rewritten (whole, atomically) only when it would differ, and only by a walk
 * that ran to the end.
 */
enum { STORE_DIGEST_ONCE = 0, STORE_DIGEST_KEEP = 1, STORE_DIGEST_SKIP = 2 };
struct buf;
struct store_digest {
	const char *cache;  /* its file's name in the store directory: a dot-name */
	unsigned format;    /* the caller's format: a kept file of another is not read */
	int (*make)(struct record *r, struct buf *out, void *ctx, struct err *e);
	int (*holds)(const char *digest, size_t len, void *ctx);
	int (*use)(long long seq, const char *digest, size_t len, void *ctx, struct err *e);
	void *ctx;
};
int store_each_digest(struct store *s, const struct store_digest *d, struct err *e);

/*
 * Finds and reads the record with this seq. Fails with code "not_found" when
 * there is none, "unreadable" (the file name in the message) when its file
 * does not parse.
 */
int store_get(struct store *s, long long seq, struct record *out, struct err *e);
/* The file name of seq's record, without reading it (code "not_found" when none). */
int store_find(struct store *s, long long seq, char name[RECORD_FILE_NAME_MAX], struct err *e);
/*
 * Every seq the store holds, ascending and each once, from the file names
 * alone (no record is read, so an unreadable one is listed too): for the
 * shell's completion. *seqs is malloc'd (NULL when *n is 0).
 */
int store_seqs(struct store *s, long long **seqs, size_t *n, struct err *e);

/*
 * The requests drafts answer, in one pass however many drafts: for each
 * ids[i], seqs[i] is the seq of the first record whose `outbox` list holds
 * it, or -1 when no record lists it (a draft staged by hand or by another
 * tool). 0, or -1 on failure. Files that do not mention what the ids begin
 * with are not parsed.
 */
int store_owners_of_drafts(struct store *s, char *const *ids, size_t n, long long *seqs,
			   struct err *e);

/*
 * Read-modify-write of one record under the store lock. fn receives the record
 * as it is on disk now and returns VERDICT_WRITE, VERDICT_LEAVE
 * (base/verdict.h) or -1 to refuse (filling err; nothing is written).
 */
int store_update(struct store *s, long long seq,
		 int (*fn)(struct record *r, void *ctx, struct err *e), void *ctx, struct err *e);

/*
 * Writes a whole record (creating or replacing its file) under the lock. Outbox
 * ids already on disk are kept, ahead of the record's own.
 */
int store_put(struct store *s, struct record *r, struct err *e);

/*
 * Whether the store holds this request already, without the lock (a hint the
 * drain takes before it fetches a row's files; store_create asks again under
 * the lock): 1 when seq's record is the same request (same type, same
 * created_at), 0 when no record has seq, -1 with ERR_SEQ_TAKEN when another
 * request holds seq, ERR_UNREADABLE when its file does not read (then it is
 * neither rewritten nor taken as this one).
 */
int store_holds(struct store *s, long long seq, const char *type_id, const char *created_at,
		struct err *e);

/*
 * Creates r's file under the lock, never over anything: the one way a record
 * comes into the store (the drain's). r must pass record_check; the grammar
 * (grammar.h, grammar_seal) is applied when the caller has not, so a record
 * that breaks it is written valid: false with the reason; it is written in the
 * canonical order (record_serialize). 1 created, 0 held (store_holds
 * said 1), -1 with e (store_holds' refusals, or I/O).
 */
int store_create(struct store *s, struct record *r, struct err *e);

/*
 * For `mecha doctor`: the type ids of record files that <dir>/.types (the
 * hint a lookup by seq tries first) does not list, each once; *has_cache
 * says whether there is a .types at all. Reads names only and writes nothing.
 * *missing is a new array of new strings (store_types_free).
 */
int store_types_missing(struct store *s, int *has_cache, char ***missing, size_t *n,
			struct err *e);
void store_types_free(char **types, size_t n);

#endif
