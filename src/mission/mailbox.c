/*
 * mailbox — lines in, lines out. The box is read in chunks, never whole, so a
 * reader's memory is one line at a time however long the box grows.
 */
#include "mission/mailbox.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/text.h"
#include "base/fs.h"
#include "base/hash.h"
#include "mission/letter.h"
#include "mission/wire.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void mailbox_id(const char *line, size_t len, char out[MAILBOX_ID_LEN + 1])
{
	char hex[HASH_SHA256_HEX_LEN + 1];

	while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
		len--;
	hash_sha256_hex(line, len, hex);
	memcpy(out, hex, MAILBOX_ID_LEN);
	out[MAILBOX_ID_LEN] = '\0';
}

static int open_box(const char *path, int flags, struct err *e)
{
	int fd = open(path, flags | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY, 0600);
	struct stat st;

	if (fd < 0) {
		if (errno == ENOENT)
			return err_set(e, ERR_NOT_FOUND, "%s: no such box", path);
		if (errno == ELOOP)
			return err_set(e, ERR_IO, "%s is a symbolic link; a box never is", path);
		return err_errno(e, "opening the box %s", path);
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return err_set(e, ERR_IO, "%s is not a regular file", path);
	}
	return fd;
}

int mailbox_open(const char *path, int create, struct err *e)
{
	return open_box(path, O_RDWR | O_APPEND | (create ? O_CREAT : 0), e);
}

int mailbox_open_read(const char *path, struct err *e)
{
	/* O_NONBLOCK: a FIFO in the box's place is refused, not waited on. */
	return open_box(path, O_RDONLY | O_NONBLOCK, e);
}

/* A line a filtered read passes on: one naming needle literally, or one with any escape. */
struct needle {
	const char *s;
	size_t len;
};

static int may_name(const char *data, size_t len, const struct needle *nd)
{
	/* Without a backslash every JSON string on the line is its own bytes, so a letter
	 * whose mission_id is the needle shows it literally; a line with one is parsed. */
	return !nd || memchr(data, '\\', len) || memmem(data, len, nd->s, nd->len);
}

/* Hands one raw line (its \n already cut) to fn unless it is blank (or filtered out). */
static int emit(const char *data, size_t len, uint64_t offset, const struct needle *nd,
		int (*fn)(const struct mailbox_line *, void *), void *ctx)
{
	struct mailbox_line line;
	size_t off, n;

	while (len > 0 && data[len - 1] == '\r')
		len--;
	text_trim(data, len, &off, &n);
	if (n == 0 || !may_name(data, len, nd))
		return 0;
	line.data = data;
	line.len = len;
	line.offset = offset;
	mailbox_id(data, len, line.id);
	return fn(&line, ctx);
}

static int scan(int fd, uint64_t from, const struct needle *nd,
		int (*fn)(const struct mailbox_line *, void *), void *ctx, struct err *e)
{
	struct buf pending = BUF_INIT; /* the part of a line read so far */
	char chunk[1 << 16];
	uint64_t pos = from, start = from;
	int rc = 0;

	for (;;) {
		ssize_t n = pread(fd, chunk, sizeof chunk, (off_t)pos);
		size_t i = 0;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = err_errno(e, "reading the box");
			goto out;
		}
		if (n == 0)
			break;
		while (i < (size_t)n) {
			char *nl = memchr(chunk + i, '\n', (size_t)n - i);
			size_t take = nl ? (size_t)(nl - (chunk + i)) : (size_t)n - i;
			buf_add(&pending, chunk + i, take);
			i += take;
			if (!nl)
				break;
			i++;
			rc = emit(buf_str(&pending), pending.len, start, nd, fn, ctx);
			start = pos + i;
			buf_reset(&pending);
			if (rc != 0)
				goto out;
		}
		pos += (uint64_t)n;
	}
	if (pending.len > 0)
		rc = emit(buf_str(&pending), pending.len, start, nd, fn, ctx);
out:
	buf_free(&pending);
	return rc;
}

int mailbox_scan(int fd, uint64_t from, int (*fn)(const struct mailbox_line *, void *),
		 void *ctx, struct err *e)
{
	return scan(fd, from, NULL, fn, ctx, e);
}

struct read_ctx {
	int (*fn)(const struct mailbox_line *, struct letter_envelope *, void *);
	void *ctx;
	size_t skipped;
};

static int read_one(const struct mailbox_line *line, void *p)
{
	struct read_ctx *rc = p;
	struct letter_envelope env;
	struct err ignored;
	size_t off, n;
	int r;

	text_trim(line->data, line->len, &off, &n);
	if (letter_parse_line(line->data + off, n, &env, &ignored) != 0) {
		rc->skipped++;
		return 0;
	}
	r = rc->fn(line, &env, rc->ctx);
	letter_envelope_free(&env);
	return r;
}

int mailbox_read_from(int fd, uint64_t from,
		      int (*fn)(const struct mailbox_line *, struct letter_envelope *, void *),
		      void *ctx, size_t *skipped, struct err *e)
{
	struct read_ctx rc = { fn, ctx, 0 };
	int r = mailbox_scan(fd, from, read_one, &rc, e);

	if (skipped)
		*skipped = rc.skipped;
	return r;
}

int mailbox_read(int fd, int (*fn)(const struct mailbox_line *, struct letter_envelope *, void *),
		 void *ctx, size_t *skipped, struct err *e)
{
	return mailbox_read_from(fd, 0, fn, ctx, skipped, e);
}

int mailbox_read_naming(int fd, const char *needle, size_t len,
			int (*fn)(const struct mailbox_line *, struct letter_envelope *, void *),
			void *ctx, struct err *e)
{
	struct read_ctx rc = { fn, ctx, 0 };
	struct needle nd = { needle, len };

	return scan(fd, 0, &nd, read_one, &rc, e);
}

int mailbox_line_at(int fd, uint64_t offset, struct buf *out, struct err *e)
{
	char chunk[4096];
	uint64_t pos = offset;

	buf_reset(out);
	for (;;) {
		ssize_t n = pread(fd, chunk, sizeof chunk, (off_t)pos);
		char *nl;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return err_errno(e, "reading the box");
		if (n == 0)
			break;
		nl = memchr(chunk, '\n', (size_t)n);
		buf_add(out, chunk, nl ? (size_t)(nl - chunk) : (size_t)n);
		if (nl)
			break;
		pos += (uint64_t)n;
	}
	while (out->len > 0 && out->data[out->len - 1] == '\r')
		out->data[--out->len] = '\0';
	return 0;
}

/* 1 when the box is non-empty and its last byte is not "\n". */
static int torn_tail(int fd, off_t size, struct err *e)
{
	char last;
	ssize_t n;

	if (size == 0)
		return 0;
	do
		n = pread(fd, &last, 1, size - 1);
	while (n < 0 && errno == EINTR);
	if (n != 1)
		return err_errno(e, "reading the end of the box");
	return last != '\n';
}

/*
 * One write of the whole buffer. If it fails part way (a full disk), the bytes
 * that did land are cut off again: the box keeps only whole lines we meant.
 * Should the cut fail too, the next append's repair keeps the damage to one
 * unreadable line.
 */
static int write_or_cut(int fd, const struct buf *out, off_t old_size, struct err *e)
{
	int cut;

	if (fs_write_all(fd, out->data, out->len) == 0)
		return 0;
	err_errno(e, "appending to the box");
	cut = ftruncate(fd, old_size);
	(void)cut;
	return -1;
}

int mailbox_append(int fd, const char *line, size_t len, uint64_t *offset, struct err *e)
{
	struct buf out = BUF_INIT;
	struct stat st;
	int torn, rc = 0;

	if (fstat(fd, &st) != 0)
		return err_errno(e, "reading the box");
	torn = torn_tail(fd, st.st_size, e);
	if (torn < 0)
		return -1;
	if (torn)
		buf_addc(&out, '\n');
	buf_add(&out, line, len);
	buf_addc(&out, '\n');
	if (write_or_cut(fd, &out, st.st_size, e) != 0)
		rc = -1;
	else if (fdatasync(fd) != 0)
		rc = err_errno(e, "syncing the box");
	*offset = (uint64_t)st.st_size + (uint64_t)torn;
	buf_free(&out);
	return rc;
}
