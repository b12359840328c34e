/*
 * digest — the file in which a store keeps, beside its records, what a caller
 * derived from each one (a digest: bytes of the caller's own format), with
 * the identity (base/fs.h) of the file it was derived from. A walk that finds
 * a file's identity unchanged takes the kept digest and never reads the file.
 *
 * The file is derived, never a source: it is read strictly, and anything it
 * does not say exactly as written here — a missing file, another magic,
 * byte order or caller format, a length beyond its bound, a name with a NUL,
 * a short read — ends what is taken from it, and the walk reads those
 * records' files instead. It is replaced whole
 * (a temporary file renamed over it), never edited, so two walks
 * that write it at once leave one of their files, each true of the identities
 * it names. It is not fsync'd: after a crash it may be the old file, the new
 * one or a cut-short one, and every entry it still holds is true of the
 * identity it names.
 *
 * Layout, in the byte order of the machine that wrote it:
 *   "mecha-dg" (8 bytes), u32 0x01020304, u32 the caller's format;
 *   then per record, in the walk's order (seq, then the name's bytes):
 *   u16 name length, u16 digest length, u32 0, i64 seq, u64 dev, ino,
 *   size, i64 mtime s, ns, ctime s, ns; the name; the digest.
 * A kept name is only ever compared with the names the walk lists, never
 * opened, so an entry that lies about its place costs a read, nothing more.
 *
 * Kill point (base/killpoint.h): digest-before-rename, the new file written,
 * not yet in place (a leftover temporary file for
 * fs_temps_sweep; the kept file is the old one).
 *
 * Ownership: a reader owns its FILE and its buffer (digest_reader_close); the
 * entry it hands out is borrowed until the next call. A writer owns its
 * temporary file and both paths until digest_writer_end; it borrows nothing.
 */
#ifndef MECHA_REQUESTS_DIGEST_H
#define MECHA_REQUESTS_DIGEST_H

#include "base/fs.h"
#include "requests/record.h"

#include <stdint.h>
#include <stdio.h>

/* A digest's largest size: a larger one is used once and not kept. */
#define DIGEST_MAX 65535u

struct digest_entry {
	char name[RECORD_FILE_NAME_MAX];
	long long seq; /* the name's */
	struct fs_identity id;
	const char *data; /* len bytes, borrowed from the reader */
	size_t len;
};

struct digest_reader {
	FILE *file;   /* the kept file, open until digest_reader_close */
	FILE *f;      /* file while there is more to take; NULL: nothing (more) */
	int fd;       /* f's descriptor, kept open for digest_writer_open's copy; -1 none */
	char *data;   /* the current entry's digest, DIGEST_MAX bytes */
	struct digest_entry cur;
	int have;     /* cur holds an entry not yet passed */
	long long pos;     /* bytes taken so far */
	long long reused;  /* where the last entry digest_reader_reused confirmed ends */
};

/*
 * Opens dir's kept file `cache` for the caller's format. Never fails: a file
 * that is missing or not this format reads as empty.
 */
void digest_reader_open(struct digest_reader *r, int dirfd, const char *cache, uint32_t format);
/*
 * The kept entry for (seq, name), the walk's next file: entries before it (of
 * records gone since) are passed over. Returns the entry, or NULL when none is
 * kept for it. *passed is set when an entry was passed over or the file ended
 * in a way it should not (the kept file no longer matches the store).
 */
const struct digest_entry *digest_reader_find(struct digest_reader *r, long long seq,
					      const char *name, int *passed);
/* The entry digest_reader_find returned last is used as kept, unchanged. */
void digest_reader_reused(struct digest_reader *r);
/* 1 when entries remain that no walk asked for (records gone since). */
int digest_reader_left(struct digest_reader *r);
void digest_reader_close(struct digest_reader *r);

struct digest_writer {
	FILE *f;       /* NULL: nothing is being written (it could not be, or was ended) */
	char *tmp;     /* the temporary file's path */
	char *path;    /* the kept file's path */
};

/*
 * Starts a new kept file `cache` in dir (its path, for the temporary file
 * beside it), at the walk's first change: it begins with what `from` has
 * confirmed so far (the entries digest_reader_reused passed on, copied as they
 * are), so a walk that changes nothing writes nothing. Returns 0, or -1 when
 * none can be written: the walk goes on without, and nothing is said.
 */
int digest_writer_open(struct digest_writer *w, const char *dir, const char *cache,
		       uint32_t format, const struct digest_reader *from);
/* Adds one entry (the walk's order). A failed write ends the file quietly. */
void digest_writer_add(struct digest_writer *w, long long seq, const char *name,
		       const struct fs_identity *id, const void *data, size_t len);
/* Makes the new file the kept one (rename); on any failure it is dropped. */
void digest_writer_commit(struct digest_writer *w);
/*
 * Drops the new file unless it was committed, and frees the writer's paths:
 * after every digest_writer_open that returned 0 (one that failed freed them).
 */
void digest_writer_end(struct digest_writer *w);

#endif
