/*
 * digest — the kept file of digests: its strict reader and its whole-file writer.
 */
#include "requests/digest.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/fs.h"
#include "base/killpoint.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAGIC "mecha-dg"
#define ORDER 0x01020304u
#define HEAD_LEN 16
#define ENTRY_LEN 72

/* ---- reading ------------------------------------------------------------------- */

/* Nothing more is taken; the descriptor stays for the writer's copy until close. */
static void reader_end(struct digest_reader *r)
{
	r->f = NULL;
	r->have = 0;
}

void digest_reader_open(struct digest_reader *r, int dirfd, const char *cache, uint32_t format)
{
	unsigned char head[HEAD_LEN];
	uint32_t order, fmt;
	int fd;

	memset(r, 0, sizeof *r);
	r->fd = -1;
	if (dirfd < 0)
		return;
	fd = openat(dirfd, cache, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return;
	r->file = fdopen(fd, "rb");
	if (!r->file) {
		close(fd);
		return;
	}
	r->f = r->file;
	r->fd = fd;
	if (fread(head, 1, sizeof head, r->f) != sizeof head || memcmp(head, MAGIC, 8) != 0) {
		reader_end(r);
		return;
	}
	memcpy(&order, head + 8, 4);
	memcpy(&fmt, head + 12, 4);
	if (order != ORDER || fmt != format) {
		reader_end(r);
		return;
	}
	r->pos = r->reused = HEAD_LEN;
	r->data = xmalloc(DIGEST_MAX);
}

static unsigned get16(const unsigned char *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return v;
}

static long long get64(const unsigned char *p)
{
	int64_t v;

	memcpy(&v, p, 8);
	return (long long)v;
}

/* Reads the next entry into r->cur: 1, or 0 at the end or at anything not as written. */
static int reader_step(struct digest_reader *r)
{
	unsigned char h[ENTRY_LEN];
	struct digest_entry *c = &r->cur;
	uint32_t zero;
	size_t nlen, dlen;

	r->have = 0;
	if (!r->f)
		return 0;
	if (fread(h, 1, sizeof h, r->f) != sizeof h)
		goto end;
	nlen = get16(h);
	dlen = get16(h + 2);
	memcpy(&zero, h + 4, 4);
	if (zero != 0 || nlen == 0 || nlen >= RECORD_FILE_NAME_MAX)
		goto end;
	c->seq = get64(h + 8);
	c->id.dev = (unsigned long long)get64(h + 16);
	c->id.ino = (unsigned long long)get64(h + 24);
	c->id.size = (unsigned long long)get64(h + 32);
	c->id.mtime_s = get64(h + 40);
	c->id.mtime_ns = get64(h + 48);
	c->id.ctime_s = get64(h + 56);
	c->id.ctime_ns = get64(h + 64);
	if (fread(c->name, 1, nlen, r->f) != nlen || memchr(c->name, '\0', nlen))
		goto end;
	c->name[nlen] = '\0';
	if (dlen && fread(r->data, 1, dlen, r->f) != dlen)
		goto end;
	c->data = r->data;
	c->len = dlen;
	r->have = 1;
	r->pos += (long long)(ENTRY_LEN + nlen + dlen);
	return 1;
end:
	reader_end(r);
	return 0;
}

/* The walk's order: seq, then the name's bytes (store.c lists names so). */
static int walk_cmp(long long sa, const char *na, long long sb, const char *nb)
{
	if (sa != sb)
		return sa < sb ? -1 : 1;
	return strcmp(na, nb);
}

const struct digest_entry *digest_reader_find(struct digest_reader *r, long long seq,
					      const char *name, int *passed)
{
	for (;;) {
		int c;
		if (!r->have && !reader_step(r))
			return NULL;
		c = walk_cmp(r->cur.seq, r->cur.name, seq, name);
		if (c > 0)
			return NULL; /* kept for a later file: this one is new */
		r->have = 0;
		if (c == 0)
			return &r->cur;
		*passed = 1; /* a record gone since */
	}
}

void digest_reader_reused(struct digest_reader *r)
{
	r->reused = r->pos;
}

int digest_reader_left(struct digest_reader *r)
{
	return r->have || reader_step(r);
}

void digest_reader_close(struct digest_reader *r)
{
	reader_end(r);
	if (r->file)
		fclose(r->file); /* NOLINT(cert-err33-c): a stream we only read */
	r->file = NULL;
	r->fd = -1;
	free(r->data);
	r->data = NULL;
}

/* ---- writing ------------------------------------------------------------------- */

static void writer_drop(struct digest_writer *w)
{
	if (w->f) {
		fclose(w->f); /* NOLINT(cert-err33-c): dropped, and unlinked next */
		unlink(w->tmp);
	}
	w->f = NULL;
}

/* The confirmed part of the kept file, copied as it is: 0, or -1. */
static int copy_reused(FILE *to, const struct digest_reader *from)
{
	char chunk[65536];
	long long at = 0;

	while (at < from->reused) {
		size_t want = (size_t)(from->reused - at) < sizeof chunk ? (size_t)(from->reused - at)
									 : sizeof chunk;
		ssize_t n = pread(from->fd, chunk, want, (off_t)at);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 || fwrite(chunk, 1, (size_t)n, to) != (size_t)n)
			return -1;
		at += n;
	}
	return 0;
}

int digest_writer_open(struct digest_writer *w, const char *dir, const char *cache,
		       uint32_t format, const struct digest_reader *from)
{
	unsigned char head[HEAD_LEN];
	uint32_t order = ORDER;
	char *tmpname = xasprintf("%s.XXXXXX", cache);
	int fd;

	w->f = NULL;
	w->path = fs_join(dir, cache);
	w->tmp = fs_join(dir, tmpname);
	free(tmpname);
	fd = mkstemp(w->tmp); /* 0600, O_EXCL; its name is one fs_temps_sweep knows */
	if (fd >= 0 && !(w->f = fdopen(fd, "wb"))) {
		close(fd);
		unlink(w->tmp);
	}
	if (w->f) {
		memcpy(head, MAGIC, 8); /* NOLINT(bugprone-not-null-terminated-result): 8 bytes, no NUL */
		memcpy(head + 8, &order, 4);
		memcpy(head + 12, &format, 4);
		if (from && from->fd >= 0 && from->reused >= HEAD_LEN ? copy_reused(w->f, from) != 0
		    : fwrite(head, 1, sizeof head, w->f) != sizeof head)
			writer_drop(w);
	}
	if (w->f)
		return 0;
	digest_writer_end(w);
	return -1;
}

static void put64(unsigned char *p, long long v)
{
	int64_t x = (int64_t)v;

	memcpy(p, &x, 8);
}

void digest_writer_add(struct digest_writer *w, long long seq, const char *name,
		       const struct fs_identity *id, const void *data, size_t len)
{
	unsigned char h[ENTRY_LEN] = { 0 };
	size_t nlen = strlen(name);
	uint16_t n16 = (uint16_t)nlen, d16 = (uint16_t)len;

	if (!w->f || nlen == 0 || nlen >= RECORD_FILE_NAME_MAX || len > DIGEST_MAX)
		return;
	memcpy(h, &n16, 2);
	memcpy(h + 2, &d16, 2);
	put64(h + 8, seq);
	put64(h + 16, (long long)id->dev);
	put64(h + 24, (long long)id->ino);
	put64(h + 32, (long long)id->size);
	put64(h + 40, id->mtime_s);
	put64(h + 48, id->mtime_ns);
	put64(h + 56, id->ctime_s);
	put64(h + 64, id->ctime_ns);
	if (fwrite(h, 1, sizeof h, w->f) != sizeof h || fwrite(name, 1, nlen, w->f) != nlen ||
	    (len && fwrite(data, 1, len, w->f) != len))
		writer_drop(w);
}

void digest_writer_commit(struct digest_writer *w)
{
	FILE *f = w->f;
	int ok;

	if (!f)
		return;
	w->f = NULL;
	/*
	 * No fsync: after a crash the file may be the old one, the new one, or cut
	 * short, and each entry it still holds is true of the identity it names
	 * (a torn end is where reading stops). A cache is not worth a disk flush
	 * on every list.
	 */
	ok = fflush(f) == 0;
	killpoint("digest-before-rename");
	if (fclose(f) != 0 || !ok || rename(w->tmp, w->path) != 0)
		unlink(w->tmp);
}

void digest_writer_end(struct digest_writer *w)
{
	writer_drop(w);
	free(w->tmp);
	free(w->path);
	w->tmp = w->path = NULL;
}
