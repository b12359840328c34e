/*
 * fuzz_mailbox — a mission box is a JSONL file any agent appends to, and a
 * writer killed mid-write leaves a torn last line. The input is a box (a
 * first byte that is 1 modulo 4 puts a 64 KiB line before it, so lines
 * straddle the reader's chunks), read from a memory file by the box's reader.
 * Whatever the bytes:
 *
 *   - the lines handed out are exactly the file's non-blank lines (split at
 *     "\n", trailing "\r" dropped, kept otherwise as they are), each at its
 *     offset, with the content id of its bytes, and mailbox_line_at reads the
 *     same line back from that offset; a scan from a line's offset starts at
 *     that line;
 *   - the tolerant reader sees every one of them, as a letter or as skipped;
 *   - an append after it, torn tail or not, adds exactly one line at the
 *     offset it reports and leaves every earlier line, and its id, as it was.
 */
#include "base/buf.h"
#include "base/err.h"
#include "base/text.h"
#include "mission/letter.h"
#include "mission/mailbox.h"

#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FILLER 65530
#define NEW_LINE "{\"kind\":\"note\",\"agent\":\"fuzz\",\"text\":\"appended\"}"

struct lines {
	uint64_t *offset;
	size_t *len, n;
	const char *box; /* the expected lines' bytes */
};

/* The non-blank lines of box[0..len) as mailbox.h defines them. */
static void expect(const char *box, size_t len, struct lines *l)
{
	size_t start = 0;

	l->box = box;
	l->offset = xcalloc(len + 2, sizeof *l->offset);
	l->len = xcalloc(len + 2, sizeof *l->len);
	l->n = 0;
	while (start <= len) {
		const char *nl = memchr(box + start, '\n', len - start);
		size_t end = nl ? (size_t)(nl - box) : len, n = end - start, off, trimmed;
		while (n > 0 && box[start + n - 1] == '\r')
			n--;
		text_trim(box + start, n, &off, &trimmed);
		if (trimmed > 0) {
			l->offset[l->n] = start;
			l->len[l->n++] = n;
		}
		start = end + 1;
	}
}

struct scan {
	const struct lines *want;
	size_t k;
	int fd;
};

static int one(const struct mailbox_line *line, void *p)
{
	struct scan *s = p;
	const struct lines *w = s->want;
	char id[MAILBOX_ID_LEN + 1];
	struct buf again = BUF_INIT;
	struct err e;

	if (s->k >= w->n || line->offset != w->offset[s->k] || line->len != w->len[s->k] ||
	    memcmp(line->data, w->box + line->offset, line->len) != 0)
		__builtin_trap();
	mailbox_id(w->box + line->offset, line->len, id);
	if (strcmp(id, line->id) != 0)
		__builtin_trap();
	if (mailbox_line_at(s->fd, line->offset, &again, &e) != 0 || again.len != line->len ||
	    memcmp(buf_str(&again), line->data, line->len) != 0)
		__builtin_trap();
	buf_free(&again);
	s->k++;
	return 0;
}

/* A scan from the first-th line's offset (0 when none) hands out that line and the rest. */
static void scan_from(int fd, const struct lines *want, size_t first)
{
	size_t start = first < want->n ? first : 0;
	struct scan s = { want, start, fd };
	struct err e;

	if (mailbox_scan(fd, start < want->n ? want->offset[start] : 0, one, &s, &e) != 0 ||
	    s.k != want->n)
		__builtin_trap();
}

static int count_letter(const struct mailbox_line *line, struct letter_envelope *env, void *p)
{
	(void)line;
	(void)env;
	++*(size_t *)p;
	return 0;
}

static void read_all(int fd, const struct lines *want)
{
	size_t letters = 0, skipped = 0;
	struct err e;

	if (mailbox_read(fd, count_letter, &letters, &skipped, &e) != 0 ||
	    letters + skipped != want->n)
		__builtin_trap();
}

static void lines_free(struct lines *l)
{
	free(l->offset);
	free(l->len);
}

/* Appends NEW_LINE; the box read again is the old lines plus that one. */
static void append(int fd, const struct buf *box)
{
	int torn = box->len > 0 && box->data[box->len - 1] != '\n';
	struct buf after = BUF_INIT;
	struct lines want;
	uint64_t off;
	struct err e;

	if (mailbox_append(fd, NEW_LINE, strlen(NEW_LINE), &off, &e) != 0)
		__builtin_trap();
	if (off != box->len + (size_t)torn)
		__builtin_trap();
	buf_add(&after, buf_str(box), box->len);
	if (torn)
		buf_addc(&after, '\n');
	buf_adds(&after, NEW_LINE "\n");
	if (lseek(fd, 0, SEEK_END) != (off_t)after.len)
		__builtin_trap();
	expect(buf_str(&after), after.len, &want);
	if (want.n == 0 || want.offset[want.n - 1] != off)
		__builtin_trap();
	scan_from(fd, &want, 0);
	lines_free(&want);
	buf_free(&after);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	struct buf box = BUF_INIT;
	struct lines want;

	if (size == 0)
		return 0;
	if (fd < 0 && (fd = memfd_create("fuzz-box", MFD_CLOEXEC)) < 0)
		__builtin_trap();
	if ((data[0] & 3) == 1) {
		static char filler[FILLER + 1];
		if (!filler[0]) {
			memset(filler, 'x', FILLER);
			filler[FILLER] = '\n';
		}
		buf_add(&box, filler, sizeof filler);
	}
	buf_add(&box, data + 1, size - 1);
	if (ftruncate(fd, 0) != 0 || fcntl(fd, F_SETFL, O_APPEND) != 0 ||
	    write(fd, buf_str(&box), box.len) != (ssize_t)box.len)
		__builtin_trap();
	expect(buf_str(&box), box.len, &want);
	scan_from(fd, &want, 0);
	scan_from(fd, &want, want.n / 2);
	read_all(fd, &want);
	lines_free(&want);
	append(fd, &box);
	buf_free(&box);
	return 0;
}
