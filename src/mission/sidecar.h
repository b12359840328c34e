/*
 * sidecar — <box>.idx, the index that makes a post cost the same at the
 * millionth letter as at the first. It keeps, for every readable line of the
 * box, its content id, whether it is a mission letter, its mission (as a hash
 * of the mission id) and where the line starts; and for every mission, its
 * head (id, seq, phase, where its line starts) and how many letters it has.
 * Two open-addressed hash tables in one file: a post reads and writes a few
 * slots of it, and a plain chain can be read back from its head through the
 * offsets alone (board.c, log).
 *
 * The rule: the index is a cache and the box is the truth. The header records
 * what the index describes — the box's device, inode, size and ctime, a hash
 * of its last bytes, and the boot it was written in — and an index that does
 * not match the box exactly (deleted, damaged, the box rewritten behind it, a
 * reboot since: unsynced pages may be lost) is rebuilt from the box by one
 * pass. One mismatch is cheaper to mend: a box that only grew — the same
 * file, the same bytes where the index stops, a whole line ending there — is
 * caught up by reading just what was appended (another tool's letters, or
 * the line of a writer of ours that died before its index update). A post
 * writes its slots after its append and the header last, so the header never
 * claims a line the box lacks; and a catch-up that meets a line already
 * recorded (a writer died between its slots and its header, or the box holds
 * a line twice) rebuilds instead. The index is never fsync'ed: the boot check
 * covers power loss. Only callers holding <box>.lock exclusively may open it
 * to write, and only a writer writes it: a reader (sidecar_open_read, under
 * the lock shared) uses the file when it is current and otherwise builds the
 * index in memory, so a read never creates, rebuilds or changes a file. A post
 * reads and writes only the slots it needs (pread/pwrite), never the whole
 * file, so its cost does not grow with the file either.
 *
 * A mission whose chain is not the plain case — letters in file order, each
 * naming the one before, the first naming none, no line twice — is flagged
 * irregular (a box edited by hand, or forked by a writer without a lock): its
 * head is then not the last letter, and the caller must walk the chain itself
 * (board.c does, from the box).
 *
 * Ownership: sidecar_open returns a handle the caller closes with
 * sidecar_close. Everything passed in is borrowed.
 */
#ifndef MECHA_MISSION_SIDECAR_H
#define MECHA_MISSION_SIDECAR_H

#include <stddef.h>
#include <stdint.h>

#include "mission/letter.h"
#include "mission/mailbox.h"

struct err;
struct sidecar;

struct sidecar_mission {
	char head_id[MAILBOX_ID_LEN + 1];
	uint64_t head_seq;
	enum letter_phase head_phase;
	uint64_t head_offset; /* where the head's line starts in the box */
	uint64_t count;       /* mission letters, the head included */
	int irregular;        /* the head fields above are not to be trusted */
};

/* What an open had to do to make the index describe the box (for the tests). */
enum { SIDECAR_CURRENT = 0, SIDECAR_REBUILT = 1, SIDECAR_CAUGHT_UP = 2 };

/*
 * Opens (catching up or rebuilding) the index at idx_path for the box open on
 * box_fd; *rebuilt says which (SIDECAR_*). NULL on failure.
 */
struct sidecar *sidecar_open(const char *idx_path, int box_fd, int *rebuilt, struct err *e);
/*
 * For a handle kept open between posts (the caller took the lock again): the
 * index as this handle last left it when the box is still exactly as it was
 * then — no writer came in between, since every writer moves the box on — and
 * otherwise the file opened afresh and made current as sidecar_open does
 * (another writer may have grown it into a new file). 0, or -1 with e filled.
 */
int sidecar_refresh(struct sidecar *sc, int box_fd, int *rebuilt, struct err *e);
/*
 * For a reader: uses the index at idx_path only when it exists and describes
 * the box exactly, else builds it in memory from the box (*rebuilt = 1) and
 * forgets it at close. idx_path NULL: always in memory (a caller without the
 * lock cannot trust the file, which a writer may be changing). Nothing is ever
 * written; sidecar_begin and sidecar_commit refuse the handle.
 */
struct sidecar *sidecar_open_read(const char *idx_path, int box_fd, int *rebuilt, struct err *e);
void sidecar_close(struct sidecar *sc);

/* 1 when a readable line with this content id is in the box, 0 when not, -1 on an I/O error. */
int sidecar_has(struct sidecar *sc, const char *id, struct err *e);
/*
 * 1 and *offset set to where the line with this content id starts (the first
 * such line), 0 when no readable line has it, -1 on an I/O error. The index
 * only says where to look: a caller reads the line and checks its id.
 */
int sidecar_line(struct sidecar *sc, const char *id, uint64_t *offset, struct err *e);
/* 1 and *out filled when the mission has letters; 0 when it has none; -1 on an I/O error. */
int sidecar_mission(struct sidecar *sc, const char *mission_id, size_t len,
		    struct sidecar_mission *out, struct err *e);
/* Lines the last rebuild could not read, and readable lines in all. */
uint64_t sidecar_skipped(const struct sidecar *sc);
uint64_t sidecar_letters(const struct sidecar *sc);

/*
 * Calls fn for every mission (in table order); a nonzero return stops and is
 * returned. -1 with e filled on an I/O error.
 */
int sidecar_each(struct sidecar *sc, int (*fn)(const struct sidecar_mission *, void *),
		 void *ctx, struct err *e);

/*
 * A post's two halves. sidecar_begin makes room for one more line (before the
 * append, so a full disk fails the post, not its index); after the line is in
 * the box, sidecar_commit records it (mission NULL for a line that is not a
 * mission letter) and then stamps the header with the box as it now is.
 */
int sidecar_begin(struct sidecar *sc, struct err *e);
int sidecar_commit(struct sidecar *sc, int box_fd, const char *id, const struct letter *mission,
		   uint64_t offset, struct err *e);

#endif
