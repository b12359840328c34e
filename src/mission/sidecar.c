/*
 * sidecar — the index file: a 256-byte header, then the letter table, then
 * the mission table, all open-addressed with linear probing and kept at most
 * half full (a table that would pass half grows to twice its size, so growth
 * costs O(1) per post over time). Native byte order: the file never leaves
 * the machine that wrote it, and a foreign one fails the header check.
 *
 * The tables live in one of two places with the same probing code: in memory
 * while the index is rebuilt or grown (then written whole), and in the file
 * for a post, which reads and writes single slots. Mapping the file instead
 * made a post pay page faults and unmapping in proportion to the file's size.
 */
#include "mission/sidecar.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/fs.h"
#include "base/hash.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SC_MAGIC "MECHIDX1"
#define SC_VERSION 2u /* 2: a letter slot holds its line's offset (1 held its seq) */
#define SC_HEADER 256
#define SC_MIN_CAP 1024u
#define SC_TAIL 256 /* bytes of the box's end whose hash the header keeps */
/* Appended bytes an open reads to catch up; past this, one rebuild in memory is faster. */
#define SC_CATCH_UP ((uint64_t)1 << 20)

struct sc_header {
	char magic[8];
	uint32_t version, valid;
	uint64_t id_cap, id_count, m_cap, m_count;
	uint64_t skipped, letters;
	uint64_t box_dev, box_ino, box_size;
	int64_t ctime_sec, ctime_nsec;
	char tail[HASH_SHA256_HEX_LEN + 1];
	char boot[48];
};

/* One readable line: (id, mission, where it starts). An all-zero id marks a free slot. */
struct sc_id {
	char id[MAILBOX_ID_LEN];
	uint32_t is_mission;
	uint64_t offset; /* of the first line with this id (a line twice: the first) */
	uint64_t mkey;   /* the first 8 bytes of the mission's key */
};

/* One mission, keyed by the first 16 bytes of SHA-256(mission_id). */
struct sc_mission {
	uint8_t key[16];
	uint64_t count, head_seq, head_off;
	char head_id[MAILBOX_ID_LEN];
	uint8_t used, irregular, phase, pad;
	uint64_t reserved;
};

_Static_assert(sizeof(struct sc_header) <= SC_HEADER, "header fits its block");
_Static_assert(sizeof(struct sc_id) == 32, "letter slots are 32 bytes");
_Static_assert(sizeof(struct sc_mission) == 64, "mission slots are 64 bytes");

/* The slot a probe ended on, and what it held. */
struct id_memo {
	int ok;
	char id[MAILBOX_ID_LEN];
	uint64_t i;
	struct sc_id s;
};

struct m_memo {
	int ok;
	uint8_t key[16];
	uint64_t j;
	struct sc_mission s;
};

/*
 * The three parts, in a malloc'd block (fd < 0) or in the index file (fd >= 0;
 * h then points at the sidecar's copy of the header). In the file, the first
 * I/O error is kept in `failed` and reads after it see free slots, and each
 * table remembers its last probe until it is next written, so the commit of a
 * post does not read again the slots its checks have just read.
 */
struct tables {
	struct sc_header *h;
	struct sc_id *ids;
	struct sc_mission *ms;
	int fd;
	int failed;
	struct id_memo id_memo;
	struct m_memo m_memo;
};

struct sidecar {
	char *path;
	struct sc_header h;
	struct tables t; /* in the file, or in mem for a reader's index built in memory */
	void *mem;
	int reader; /* opened by sidecar_open_read: answers questions, writes nothing */
};

static size_t file_size(uint64_t id_cap, uint64_t m_cap)
{
	return SC_HEADER + id_cap * sizeof(struct sc_id) + m_cap * sizeof(struct sc_mission);
}

static void view(void *base, struct tables *t)
{
	t->h = base;
	t->ids = (struct sc_id *)((char *)base + SC_HEADER);
	t->ms = (struct sc_mission *)(t->ids + t->h->id_cap);
	t->fd = -1;
	t->failed = 0;
	t->id_memo.ok = 0;
	t->m_memo.ok = 0;
}

static void io(struct tables *t, int out, void *p, size_t n, uint64_t off)
{
	ssize_t r;

	if (!t->failed) {
		do
			r = out ? pwrite(t->fd, p, n, (off_t)off) : pread(t->fd, p, n, (off_t)off);
		while (r < 0 && errno == EINTR);
		if (r == (ssize_t)n)
			return;
		t->failed = r < 0 ? errno : EIO;
	}
	if (!out)
		memset(p, 0, n);
}

static uint64_t id_at(const struct tables *t, uint64_t i)
{
	return SC_HEADER + i * sizeof(struct sc_id);
}

static uint64_t m_at(const struct tables *t, uint64_t j)
{
	return SC_HEADER + t->h->id_cap * sizeof(struct sc_id) + j * sizeof(struct sc_mission);
}

static void id_get(struct tables *t, uint64_t i, struct sc_id *s)
{
	if (t->fd < 0)
		*s = t->ids[i];
	else
		io(t, 0, s, sizeof *s, id_at(t, i));
}

static void id_put(struct tables *t, uint64_t i, struct sc_id *s)
{
	t->id_memo.ok = 0;
	if (t->fd < 0)
		t->ids[i] = *s;
	else
		io(t, 1, s, sizeof *s, id_at(t, i));
}

static void m_get(struct tables *t, uint64_t j, struct sc_mission *s)
{
	if (t->fd < 0)
		*s = t->ms[j];
	else
		io(t, 0, s, sizeof *s, m_at(t, j));
}

static void m_put(struct tables *t, uint64_t j, struct sc_mission *s)
{
	t->m_memo.ok = 0;
	if (t->fd < 0)
		t->ms[j] = *s;
	else
		io(t, 1, s, sizeof *s, m_at(t, j));
}

static void header_put(struct tables *t)
{
	if (t->fd >= 0)
		io(t, 1, t->h, sizeof *t->h, 0);
}

/* ---- keys and probing ------------------------------------------------------ */

static uint64_t hex_value(const char *s, size_t n)
{
	uint64_t v = 0;

	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		v = (v << 4) | (uint64_t)(c <= '9' ? c - '0' : c - 'a' + 10);
	}
	return v;
}

static void mission_key(const char *mid, size_t len, uint8_t key[16])
{
	char hex[HASH_SHA256_HEX_LEN + 1];

	hash_sha256_hex(mid, len, hex);
	for (int i = 0; i < 16; i++)
		key[i] = (uint8_t)hex_value(hex + 2 * i, 2);
}

static uint64_t key_prefix(const uint8_t key[16])
{
	uint64_t v;

	memcpy(&v, key, sizeof v);
	return v;
}

static int id_free(const struct sc_id *s)
{
	return s->id[0] == '\0';
}

/*
 * The slot holding id, or the free slot where it would go, with its contents
 * in *s. Tables are at most half full, so a probe ends long before it wraps;
 * the bound only keeps a damaged file from spinning forever.
 */
static uint64_t id_find(struct tables *t, const char *id, struct sc_id *s)
{
	uint64_t mask = t->h->id_cap - 1, i = hex_value(id, MAILBOX_ID_LEN) & mask;
	struct id_memo *m = &t->id_memo;

	if (m->ok && memcmp(m->id, id, MAILBOX_ID_LEN) == 0) {
		*s = m->s;
		return m->i;
	}
	for (uint64_t n = 0; n <= mask; n++) {
		id_get(t, i, s);
		if (id_free(s) || memcmp(s->id, id, MAILBOX_ID_LEN) == 0)
			break;
		i = (i + 1) & mask;
	}
	if (t->fd >= 0 && !t->failed) {
		memcpy(m->id, id, MAILBOX_ID_LEN);
		m->i = i;
		m->s = *s;
		m->ok = 1;
	}
	return i;
}

static uint64_t m_find(struct tables *t, const uint8_t key[16], struct sc_mission *s)
{
	uint64_t mask = t->h->m_cap - 1, j = key_prefix(key) & mask;
	struct m_memo *m = &t->m_memo;

	if (m->ok && memcmp(m->key, key, 16) == 0) {
		*s = m->s;
		return m->j;
	}
	for (uint64_t n = 0; n <= mask; n++) {
		m_get(t, j, s);
		if (!s->used || memcmp(s->key, key, 16) == 0)
			break;
		j = (j + 1) & mask;
	}
	if (t->fd >= 0 && !t->failed) {
		memcpy(m->key, key, 16);
		m->j = j;
		m->s = *s;
		m->ok = 1;
	}
	return j;
}

/* ---- recording one line ---------------------------------------------------- */

static void record_mission(struct tables *t, const struct letter *m, const uint8_t key[16],
			   const char *id, uint64_t offset, int duplicate)
{
	struct sc_mission s;
	uint64_t j = m_find(t, key, &s);

	if (!s.used) {
		memcpy(s.key, key, 16);
		s.used = 1;
		s.irregular = m->prev_letter_id.s != NULL;
		t->h->m_count++;
	} else if (!letter_str_eq(&m->prev_letter_id, s.head_id, MAILBOX_ID_LEN)) {
		s.irregular = 1; /* a second root, a fork or a gap: the walk decides */
	}
	if (duplicate)
		s.irregular = 1;
	s.count++;
	s.head_seq = m->mission_seq;
	s.head_off = offset;
	s.phase = (uint8_t)m->phase;
	memcpy(s.head_id, id, MAILBOX_ID_LEN);
	m_put(t, j, &s);
}

/* Capacity must already allow one more line and one more mission. */
static void record(struct tables *t, const char *id, const struct letter *m, uint64_t offset)
{
	struct sc_id s;
	uint64_t i = id_find(t, id, &s);
	int duplicate = !id_free(&s);
	uint8_t key[16];

	if (m)
		mission_key(m->mission_id.s, m->mission_id.len, key);
	if (!duplicate) {
		memset(&s, 0, sizeof s);
		memcpy(s.id, id, MAILBOX_ID_LEN);
		s.is_mission = m != NULL;
		s.offset = offset;
		s.mkey = m ? key_prefix(key) : 0;
		id_put(t, i, &s);
		t->h->id_count++;
	}
	t->h->letters++;
	if (m)
		record_mission(t, m, key, id, offset, duplicate);
}

/* ---- building and growing a table block ---------------------------------- */

static void *block_new(uint64_t id_cap, uint64_t m_cap, const struct sc_header *from,
		       struct tables *t)
{
	void *b = xcalloc(1, file_size(id_cap, m_cap));
	struct sc_header *h = b;

	if (from)
		*h = *from;
	memcpy(h->magic, SC_MAGIC, 8);
	h->version = SC_VERSION;
	h->id_cap = id_cap;
	h->m_cap = m_cap;
	h->id_count = 0;
	h->m_count = 0;
	view(b, t);
	return b;
}

static int needs_room(const struct tables *t)
{
	return (t->h->id_count + 1) * 2 > t->h->id_cap || (t->h->m_count + 1) * 2 > t->h->m_cap;
}

/* A new block with room for one more of each, the slots of `old` (in memory) re-placed in it. */
static void *block_grow(const struct tables *old, struct tables *t)
{
	uint64_t id_cap = old->h->id_cap, m_cap = old->h->m_cap;
	struct sc_id is;
	struct sc_mission ms;
	void *b;

	while ((old->h->id_count + 1) * 2 > id_cap)
		id_cap *= 2;
	while ((old->h->m_count + 1) * 2 > m_cap)
		m_cap *= 2;
	b = block_new(id_cap, m_cap, old->h, t);
	for (uint64_t i = 0; i < old->h->id_cap; i++)
		if (!id_free(&old->ids[i])) {
			t->ids[id_find(t, old->ids[i].id, &is)] = old->ids[i];
			t->h->id_count++;
		}
	for (uint64_t j = 0; j < old->h->m_cap; j++)
		if (old->ms[j].used) {
			t->ms[m_find(t, old->ms[j].key, &ms)] = old->ms[j];
			t->h->m_count++;
		}
	return b;
}

/* ---- what the header must match -------------------------------------------- */

/* This boot's id, read once per process (it cannot change under a running one). */
static void boot_id(char out[48])
{
	static char id[48];
	static int known;

	if (!known) {
		int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
		ssize_t n = fd < 0 ? -1 : read(fd, id, sizeof id - 1);
		if (fd >= 0)
			close(fd);
		/* Without /proc there is no reboot to detect; "" then always matches. */
		id[n > 0 ? n : 0] = '\0';
		known = 1;
	}
	memcpy(out, id, sizeof id);
}

/* The hash of the SC_TAIL bytes before `size`, and the last of them ("\n" for none). */
static int tail_hash(int box_fd, uint64_t size, char out[HASH_SHA256_HEX_LEN + 1], char *last,
		     struct err *e)
{
	char tail[SC_TAIL];
	size_t want = size < SC_TAIL ? (size_t)size : SC_TAIL;
	ssize_t n;

	do
		n = pread(box_fd, tail, want, (off_t)(size - want));
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)want)
		return err_errno(e, "reading the end of the box");
	hash_sha256_hex(tail, want, out);
	*last = want ? tail[want - 1] : '\n';
	return 0;
}

/* Fills the header's picture of the box as it is now, and marks it valid. */
static int stamp(struct sc_header *h, int box_fd, struct err *e)
{
	struct stat st;
	char last;

	if (fstat(box_fd, &st) != 0)
		return err_errno(e, "reading the box");
	h->box_dev = (uint64_t)st.st_dev;
	h->box_ino = (uint64_t)st.st_ino;
	h->box_size = (uint64_t)st.st_size;
	h->ctime_sec = st.st_ctim.tv_sec;
	h->ctime_nsec = st.st_ctim.tv_nsec;
	if (tail_hash(box_fd, h->box_size, h->tail, &last, e) != 0)
		return -1;
	boot_id(h->boot);
	h->valid = 1;
	return 0;
}

/* 1 when the header describes exactly this box in this boot. */
static int describes(const struct sc_header *h, int box_fd)
{
	struct sc_header now;
	struct err ignored;

	memset(&now, 0, sizeof now);
	if (!h->valid || stamp(&now, box_fd, &ignored) != 0)
		return 0;
	return h->box_dev == now.box_dev && h->box_ino == now.box_ino &&
	       h->box_size == now.box_size && h->ctime_sec == now.ctime_sec &&
	       h->ctime_nsec == now.ctime_nsec && strcmp(h->tail, now.tail) == 0 &&
	       strncmp(h->boot, now.boot, sizeof now.boot) == 0;
}

/*
 * 1 when the header describes a beginning of this box: the same file in the
 * same boot, grown by at most SC_CATCH_UP bytes since, with the same last bytes
 * where the index stops and a whole line ending there. The box is append-only,
 * so what follows is exactly what was appended behind the index's back — by a
 * writer that does not keep it (another tool), or by one of ours that died
 * between its append and its index update.
 */
static int describes_prefix(const struct sc_header *h, int box_fd)
{
	struct stat st;
	char tail[HASH_SHA256_HEX_LEN + 1], boot[48], last;
	struct err ignored;

	if (!h->valid || fstat(box_fd, &st) != 0 || h->box_dev != (uint64_t)st.st_dev ||
	    h->box_ino != (uint64_t)st.st_ino || (uint64_t)st.st_size <= h->box_size ||
	    (uint64_t)st.st_size - h->box_size > SC_CATCH_UP)
		return 0;
	boot_id(boot);
	if (strncmp(h->boot, boot, sizeof boot) != 0 ||
	    tail_hash(box_fd, h->box_size, tail, &last, &ignored) != 0)
		return 0;
	return last == '\n' && strcmp(h->tail, tail) == 0;
}

static int pow2(uint64_t v)
{
	return v >= SC_MIN_CAP && (v & (v - 1)) == 0 && v <= ((uint64_t)1 << 40);
}

/* 1 when a mapped file of len bytes is an index of ours at all. */
static int well_formed(const struct sc_header *h, size_t len)
{
	return len >= SC_HEADER && memcmp(h->magic, SC_MAGIC, 8) == 0 &&
	       h->version == SC_VERSION && pow2(h->id_cap) && pow2(h->m_cap) &&
	       len == file_size(h->id_cap, h->m_cap) && h->id_count * 2 <= h->id_cap &&
	       h->m_count * 2 <= h->m_cap;
}

/* ---- the file -------------------------------------------------------------- */

static void file_close(struct sidecar *sc)
{
	if (sc->t.fd >= 0)
		close(sc->t.fd);
	sc->t.fd = -1;
}

/*
 * Opens the index file (flags: O_RDWR, or O_RDONLY for a reader) and reads its
 * header; 1 when it is an index of ours, 0 when not.
 */
static int file_open(struct sidecar *sc, int flags, struct err *e)
{
	struct stat st;
	int fd = open(sc->path, flags | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK);

	/* Absent, or a link planted in its place: either way a rebuild replaces it. */
	if (fd < 0)
		return errno == ENOENT || errno == ELOOP ? 0
							 : err_errno(e, "opening the index %s", sc->path);
	memset(&sc->t, 0, sizeof sc->t);
	sc->t.fd = fd;
	sc->t.h = &sc->h;
	/* Slot by slot, never in sequence: no readahead (see page_in). */
	(void)posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < SC_HEADER) {
		file_close(sc);
		return 0;
	}
	io(&sc->t, 0, &sc->h, sizeof sc->h, 0);
	if (sc->t.failed || !well_formed(&sc->h, (size_t)st.st_size)) {
		file_close(sc);
		return 0;
	}
	return 1;
}

/*
 * A file written whole, as fs_replace writes it, sits in the page cache in
 * large folios, and a buffered write walks every block of the folio it lands
 * in: a 32-byte slot written into a 2 MiB folio cost ten times one written
 * into a page (measured on ext4: ~10 µs against ~0.8), three times a post.
 * So the new file's pages, clean once fs_replace has synced them, are dropped
 * and read back with readahead off (file_open), which brings them in a page
 * at a time. Only a rebuild or a growth pays this, once.
 */
static void page_in(int fd, size_t len)
{
	char chunk[1 << 16];

	(void)posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	for (size_t off = 0; off < len; off += sizeof chunk)
		if (pread(fd, chunk, sizeof chunk, (off_t)off) <= 0)
			break;
}

/* Writes a block as the new index file and opens it. */
static int install(struct sidecar *sc, void *block, struct err *e)
{
	const struct sc_header *h = block;
	size_t len = file_size(h->id_cap, h->m_cap);
	int rc;

	file_close(sc);
	if (fs_replace(sc->path, block, len, e) != 0)
		return -1;
	rc = file_open(sc, O_RDWR, e);
	if (rc == 0)
		rc = err_set(e, ERR_IO, "the index %s changed while it was written", sc->path);
	if (rc > 0)
		page_in(sc->t.fd, len);
	return rc < 0 ? -1 : 0;
}

/* The whole file in memory, to grow it. */
static void *file_load(struct sidecar *sc, struct tables *t, struct err *e)
{
	size_t len = file_size(sc->h.id_cap, sc->h.m_cap);
	void *b = xmalloc(len);

	io(&sc->t, 0, b, len, 0);
	if (sc->t.failed) {
		errno = sc->t.failed;
		free(b);
		err_errno(e, "reading the index %s", sc->path);
		return NULL;
	}
	view(b, t);
	return b;
}

struct rebuild_ctx {
	void *block;
	struct tables t;
};

static int rebuild_line(const struct mailbox_line *line, struct letter_envelope *env, void *p)
{
	struct rebuild_ctx *rc = p;

	if (needs_room(&rc->t)) {
		struct tables grown;
		void *b = block_grow(&rc->t, &grown);
		free(rc->block);
		rc->block = b;
		rc->t = grown;
	}
	record(&rc->t, line->id, letter_is_mission(env) ? &env->mission : NULL, line->offset);
	return 0;
}

/* One pass over the box: the whole index again, from the truth, in memory. */
static void *build(int box_fd, struct tables *t, struct err *e)
{
	struct rebuild_ctx rc;
	size_t skipped = 0;
	int r;

	rc.block = block_new(SC_MIN_CAP, SC_MIN_CAP, NULL, &rc.t);
	r = mailbox_read(box_fd, rebuild_line, &rc, &skipped, e);
	if (r == 0) {
		rc.t.h->skipped = skipped;
		r = stamp(rc.t.h, box_fd, e);
	}
	if (r != 0) {
		free(rc.block);
		return NULL;
	}
	*t = rc.t;
	return rc.block;
}

static int rebuild(struct sidecar *sc, int box_fd, struct err *e)
{
	struct tables t;
	void *block = build(box_fd, &t, e);
	int r;

	if (!block)
		return -1;
	r = install(sc, block, e);
	free(block);
	return r;
}

/* The whole index in memory, grown to twice its size, written back as the new file. */
static int grow(struct sidecar *sc, struct err *e)
{
	struct tables mem, grown;
	void *old = file_load(sc, &mem, e), *b;
	int r;

	if (!old)
		return -1;
	*mem.h = sc->h; /* the counts as recorded so far (a catch-up writes its header last) */
	b = block_grow(&mem, &grown);
	r = install(sc, b, e);
	free(b);
	free(old);
	return r;
}

static int catch_line(const struct mailbox_line *line, struct letter_envelope *env, void *p)
{
	struct sidecar *sc = p;
	struct sc_id s;
	struct err ignored;

	/* Already there: the line is in the box twice, or a writer died updating the index. */
	id_find(&sc->t, line->id, &s);
	if (!id_free(&s))
		return 1;
	if (needs_room(&sc->t) && grow(sc, &ignored) != 0)
		return 1;
	record(&sc->t, line->id, letter_is_mission(env) ? &env->mission : NULL, line->offset);
	return sc->t.failed ? 1 : 0;
}

/*
 * Records the lines after the header's box_size, then the header: 1 when the
 * index is current, 0 when only a rebuild will do. Slots are written before
 * the header moves on, so a catch-up (or a post) that dies half-way leaves
 * lines the next one finds already recorded, and that one rebuilds.
 */
static int catch_up(struct sidecar *sc, int box_fd)
{
	size_t skipped = 0;
	struct err ignored;

	if (mailbox_read_from(box_fd, sc->h.box_size, catch_line, sc, &skipped, &ignored) != 0)
		return 0;
	sc->h.skipped += skipped;
	if (stamp(&sc->h, box_fd, &ignored) != 0)
		return 0;
	header_put(&sc->t);
	return !sc->t.failed;
}

/* Opens the index file and makes it describe the box: as it is, caught up, or rebuilt. */
static int settle(struct sidecar *sc, int box_fd, int *rebuilt, struct err *e)
{
	int r = file_open(sc, O_RDWR, e);

	if (r < 0)
		return -1;
	if (r == 1 && describes(&sc->h, box_fd))
		return 0;
	if (r == 1 && describes_prefix(&sc->h, box_fd) && catch_up(sc, box_fd) == 1) {
		if (rebuilt)
			*rebuilt = SIDECAR_CAUGHT_UP;
		return 0;
	}
	if (rebuilt)
		*rebuilt = SIDECAR_REBUILT;
	return rebuild(sc, box_fd, e);
}

static struct sidecar *sidecar_new(const char *idx_path, int *rebuilt)
{
	struct sidecar *sc = xcalloc(1, sizeof *sc);

	sc->path = xstrdup(idx_path ? idx_path : "");
	sc->t.fd = -1;
	if (rebuilt)
		*rebuilt = SIDECAR_CURRENT;
	return sc;
}

struct sidecar *sidecar_open(const char *idx_path, int box_fd, int *rebuilt, struct err *e)
{
	struct sidecar *sc = sidecar_new(idx_path, rebuilt);

	if (settle(sc, box_fd, rebuilt, e) == 0)
		return sc;
	sidecar_close(sc);
	return NULL;
}

int sidecar_refresh(struct sidecar *sc, int box_fd, int *rebuilt, struct err *e)
{
	if (rebuilt)
		*rebuilt = SIDECAR_CURRENT;
	if (sc->reader)
		return err_set(e, ERR_INTERNAL, "the index %s was opened to read", sc->path);
	sc->t.id_memo.ok = 0;
	sc->t.m_memo.ok = 0;
	/* Every writer moves the box on, so a box as this handle last saw it means no one wrote. */
	if (sc->t.fd >= 0 && !sc->t.failed && describes(&sc->h, box_fd))
		return 0;
	file_close(sc);
	return settle(sc, box_fd, rebuilt, e);
}

struct sidecar *sidecar_open_read(const char *idx_path, int box_fd, int *rebuilt, struct err *e)
{
	struct sidecar *sc = sidecar_new(idx_path, rebuilt);
	struct err ignored;

	sc->reader = 1;
	/* An index that cannot be opened or read is only a slower answer. */
	if (idx_path && file_open(sc, O_RDONLY, &ignored) == 1 && describes(&sc->h, box_fd))
		return sc;
	file_close(sc);
	if (rebuilt)
		*rebuilt = 1;
	sc->mem = build(box_fd, &sc->t, e);
	if (!sc->mem) {
		sidecar_close(sc);
		return NULL;
	}
	sc->h = *sc->t.h;
	return sc;
}

void sidecar_close(struct sidecar *sc)
{
	if (!sc)
		return;
	file_close(sc);
	free(sc->mem);
	free(sc->path);
	free(sc);
}

static int io_failed(struct sidecar *sc, struct err *e)
{
	if (!sc->t.failed)
		return 0;
	errno = sc->t.failed;
	return err_errno(e, "the index %s", sc->path);
}

/* ---- questions ------------------------------------------------------------- */

int sidecar_has(struct sidecar *sc, const char *id, struct err *e)
{
	struct sc_id s;

	id_find(&sc->t, id, &s);
	return io_failed(sc, e) ? -1 : !id_free(&s);
}

int sidecar_line(struct sidecar *sc, const char *id, uint64_t *offset, struct err *e)
{
	struct sc_id s;

	id_find(&sc->t, id, &s);
	if (io_failed(sc, e))
		return -1;
	if (id_free(&s))
		return 0;
	*offset = s.offset;
	return 1;
}

static void fill(const struct sc_mission *s, struct sidecar_mission *out)
{
	memcpy(out->head_id, s->head_id, MAILBOX_ID_LEN);
	out->head_id[MAILBOX_ID_LEN] = '\0';
	out->head_seq = s->head_seq;
	out->head_phase = s->phase <= LETTER_ARCHIVED ? (enum letter_phase)s->phase : LETTER_FAILED;
	out->head_offset = s->head_off;
	out->count = s->count;
	out->irregular = s->irregular || s->phase > LETTER_ARCHIVED;
}

int sidecar_mission(struct sidecar *sc, const char *mission_id, size_t len,
		    struct sidecar_mission *out, struct err *e)
{
	uint8_t key[16];
	struct sc_mission s;

	mission_key(mission_id, len, key);
	m_find(&sc->t, key, &s);
	if (io_failed(sc, e))
		return -1;
	if (!s.used)
		return 0;
	fill(&s, out);
	return 1;
}

uint64_t sidecar_skipped(const struct sidecar *sc)
{
	return sc->h.skipped;
}

uint64_t sidecar_letters(const struct sidecar *sc)
{
	return sc->h.letters;
}

int sidecar_each(struct sidecar *sc, int (*fn)(const struct sidecar_mission *, void *),
		 void *ctx, struct err *e)
{
	struct sc_mission chunk[256];
	struct sidecar_mission m;
	int r;

	for (uint64_t j = 0; j < sc->h.m_cap; j += 256) {
		uint64_t n = sc->h.m_cap - j < 256 ? sc->h.m_cap - j : 256;
		if (sc->t.fd < 0)
			memcpy(chunk, sc->t.ms + j, n * sizeof chunk[0]);
		else
			io(&sc->t, 0, chunk, n * sizeof chunk[0], m_at(&sc->t, j));
		if (io_failed(sc, e))
			return -1;
		for (uint64_t k = 0; k < n; k++) {
			if (!chunk[k].used)
				continue;
			fill(&chunk[k], &m);
			r = fn(&m, ctx);
			if (r != 0)
				return r;
		}
	}
	return 0;
}

/* ---- a post ---------------------------------------------------------------- */

static int reader_only(struct sidecar *sc, struct err *e)
{
	return sc->reader ? err_set(e, ERR_INTERNAL, "the index %s was opened to read", sc->path)
			  : 0;
}

int sidecar_begin(struct sidecar *sc, struct err *e)
{
	if (reader_only(sc, e) != 0)
		return -1;
	return needs_room(&sc->t) ? grow(sc, e) : 0;
}

int sidecar_commit(struct sidecar *sc, int box_fd, const char *id, const struct letter *mission,
		   uint64_t offset, struct err *e)
{
	if (reader_only(sc, e) != 0)
		return -1;
	record(&sc->t, id, mission, offset);
	if (io_failed(sc, e) != 0 || stamp(&sc->h, box_fd, e) != 0)
		return -1; /* the header on disk still stops before the line: the next open mends it */
	header_put(&sc->t);
	return io_failed(sc, e);
}
