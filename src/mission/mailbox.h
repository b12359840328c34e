/*
 * mailbox — the box: a JSONL file of letters, one per line, append-only.
 *
 * It owns three things: how a line is named (its content id: the first 12 hex
 * digits of the SHA-256 of the line's bytes without its trailing \r and \n —
 * never stored, always recomputed), how a box is read (split on \n, a \r
 * before it dropped, surrounding whitespace trimmed for parsing only, blank
 * lines skipped, a line that does not read as a letter skipped and counted),
 * and how a line is added (line + "\n" in ONE write on an O_APPEND descriptor,
 * then fdatasync; when the box's last byte is not "\n" — an earlier write was
 * torn — a "\n" goes first in that same write, so the new line is never glued
 * to the damaged one). A line, once written, is never rewritten.
 *
 * The box knows nothing of chains or heads (board.h) and takes no lock: the
 * caller holds <box>.lock around a read-then-append.
 *
 * Ownership: lines handed to a callback are borrowed for the duration of the
 * call. Descriptors returned belong to the caller (close them).
 */
#ifndef MECHA_MISSION_MAILBOX_H
#define MECHA_MISSION_MAILBOX_H

#include <stddef.h>
#include <stdint.h>

struct buf;
struct err;
struct letter_envelope;

#define MAILBOX_ID_LEN 12

/* One non-blank line as a reader sees it. */
struct mailbox_line {
	const char *data;   /* without the "\n" and trailing "\r" */
	size_t len;
	uint64_t offset;    /* where the line starts in the box */
	char id[MAILBOX_ID_LEN + 1];
};

/* The content id of a line; trailing \r and \n in line[0..len) are not hashed. */
void mailbox_id(const char *line, size_t len, char out[MAILBOX_ID_LEN + 1]);

/*
 * Opens a box for reading and appending (O_APPEND, never through a symlink),
 * creating it 0600 when create is set. A missing box without create fails with
 * code "not_found".
 */
int mailbox_open(const char *path, int create, struct err *e);
/* Opens a box for reading only (a reader's descriptor; the same refusals). */
int mailbox_open_read(const char *path, struct err *e);

/*
 * Calls fn for each non-blank line from byte `from` on, in file order (the
 * last line counts even without its "\n"). fn returns 0 to go on; anything
 * else stops the scan and is returned. -1 with e filled on a read error.
 */
int mailbox_scan(int fd, uint64_t from, int (*fn)(const struct mailbox_line *, void *),
		 void *ctx, struct err *e);

/*
 * The tolerant reader: each line that reads as a letter (letter.h) goes to fn
 * with its envelope (borrowed; fn may steal the mission by copying it); each
 * one that does not is counted in *skipped and otherwise invisible.
 */
int mailbox_read(int fd, int (*fn)(const struct mailbox_line *, struct letter_envelope *, void *),
		 void *ctx, size_t *skipped, struct err *e);
/* The same from byte `from` on (which must be where a line starts). */
int mailbox_read_from(int fd, uint64_t from,
		      int (*fn)(const struct mailbox_line *, struct letter_envelope *, void *),
		      void *ctx, size_t *skipped, struct err *e);

/*
 * mailbox_read for the letters of one mission: a line is parsed only when it
 * holds needle (the mission id) literally or holds any backslash (an escape
 * could spell the id), so a box of other missions' letters costs a memmem a
 * line, not a parse and a hash. Every letter naming needle still reaches fn;
 * lines that do not read as letters are not counted (the index counts them).
 */
int mailbox_read_naming(int fd, const char *needle, size_t len,
			int (*fn)(const struct mailbox_line *, struct letter_envelope *, void *),
			void *ctx, struct err *e);

/* The line that starts at offset (without "\n" and trailing "\r") into out. */
int mailbox_line_at(int fd, uint64_t offset, struct buf *out, struct err *e);

/*
 * Appends line[0..len) (no newline inside) and its "\n", repairing a missing
 * final newline first, in one write, then fdatasync. *offset is set to where
 * the line starts. On a failed write the box is cut back to its old length.
 */
int mailbox_append(int fd, const char *line, size_t len, uint64_t *offset, struct err *e);

#endif
