/*
 * board — posting under the lock, and reading heads and chains back. The only
 * slow path is a hand-damaged chain, whose head (and log) is walked from the
 * box; every chain this board wrote itself is answered by the sidecar index.
 */
#include "mission/board.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/fs.h"
#include "base/hash.h"
#include "base/lock.h"
#include "base/rfc3339.h"
#include "base/text.h"
#include "config/config.h"
#include "config/home.h"
#include "mission/blocks.h"
#include "mission/sidecar.h"
#include "mission/wire.h"

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

void board_init(struct board *b, const char *box, const char *brain)
{
	memset(b, 0, sizeof *b);
	b->box = xstrdup(box);
	b->brain = brain ? xstrdup(brain) : NULL;
}

int board_open_default(struct board *b, const char *box, const char *brain, unsigned flags,
		       struct err *e)
{
	/* One process, one thread posting: what BOARD_KEEP lends every board it opens. */
	static struct board_keep *kept;
	struct config c;
	char *path = box ? xstrdup(box) : home_default(HOME_MISSION_BOX, e);

	if (!path)
		return -1;
	memset(&c, 0, sizeof c);
	if ((flags & BOARD_BIND) && !brain && config_load(&c, e) != 0) {
		free(path);
		return -1;
	}
	board_init(b, path, brain ? brain : c.missions_brain);
	config_free(&c);
	free(path);
	if ((flags & BOARD_KEEP) && !kept)
		kept = board_keep_new();
	if (flags & BOARD_KEEP)
		b->keep = kept;
	return 0;
}

void board_free(struct board *b)
{
	free(b->box);
	free(b->brain);
	memset(b, 0, sizeof *b);
}

/* ---- the pure rules ---------------------------------------------------------- */

static int stale(struct err *e, const char *expected, const struct letter *l, const char *detail)
{
	const char *got = l->prev_letter_id.s ? l->prev_letter_id.s : "<none>";

	return err_set(e, ERR_STALE_HEAD, "stale_head: %s (expected_head=%s, got prev_letter_id=%s)",
			  detail, expected ? expected : "<none>", got);
}

int board_check_head(const struct letter *l, const struct board_head_ref *head, struct err *e)
{
	char detail[512];

	if (!head) {
		if (l->mission_seq != 1) {
			snprintf(detail, sizeof detail,
				 "no chain exists yet for this mission — the first letter must be "
				 "seq 1, got seq %" PRIu64,
				 l->mission_seq);
			return stale(e, NULL, l, detail);
		}
		if (l->prev_letter_id.s)
			return stale(e, NULL, l, "seq 1 must carry a null prev_letter_id");
		assert(l->mission_seq == 1 && !l->prev_letter_id.s); /* a chain starts at seq 1 */
		return 0;
	}
	if (l->mission_seq != head->mission_seq + 1 || head->mission_seq == UINT64_MAX ||
	    !letter_str_eq(&l->prev_letter_id, head->letter_id, strlen(head->letter_id))) {
		snprintf(detail, sizeof detail,
			 "the head is seq %" PRIu64 " (%s); the next letter must be seq %" PRIu64
			 " with prev_letter_id=%s",
			 head->mission_seq, head->letter_id, head->mission_seq + 1, head->letter_id);
		return stale(e, head->letter_id, l, detail);
	}
	/* Accepted: the letter is the head's one successor, naming it. */
	assert(l->mission_seq == head->mission_seq + 1 && l->prev_letter_id.s);
	return 0;
}

int board_check_transition(const struct letter *l, const struct board_head_ref *head,
			   struct err *e)
{
	if (l->phase != LETTER_ARCHIVED || (head && head->phase == LETTER_MERGE_WAIT))
		return 0;
	return err_set(e, ERR_INVALID_TRANSITION,
			  "invalid_transition: cannot post `archived` onto head `%s` — archived "
			  "supersedes a merge_wait receipt only — the board's one transition rule "
			  "(a fresh, landed, failed, or in-progress head cannot be archived)",
			  head ? letter_phase_name(head->phase) : "<none>");
}

static int guards(const struct board *b, const struct letter *l, const struct blocks *store,
		  struct err *e)
{
	if (b->brain && !letter_str_eq(&l->brain_ref, b->brain, strlen(b->brain)))
		return err_set(e, ERR_BRAIN_MISMATCH,
				  "brain_mismatch: the letter names brain_ref '%s' but this board is "
				  "bound to '%s' — nothing was appended",
				  l->brain_ref.s, b->brain);
	if (!store->exists)
		return 0;
	if (!l->synthetic && !blocks_find(store, l->block_id.s, l->block_id.len))
		return err_set(e, ERR_UNKNOWN_BLOCK,
				  "unknown_block: the letter names block_id '%s' which no block in "
				  "this board's store holds — name a real block, or set "
				  "synthetic:true for a smoke probe; nothing was appended",
				  l->block_id.s);
	if (l->phase == LETTER_LANDED &&
	    !blocks_has_receipt_at(store, l->block_id.s, l->block_id.len, l->receipt.store_version))
		return err_set(e, ERR_LANDED_LAW,
				  "landed_law: `landed` requires receipt.imported==true with a real "
				  "store_version — no receipt for block '%s' was imported at "
				  "store_version %" PRIu64 " (a zero-exit gate without an imported "
				  "receipt is merge_wait, never landed)",
				  l->block_id.s, l->receipt.store_version);
	return 0;
}

/* ---- the walk ------------------------------------------------------------------ */

static uint64_t fnv(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ULL;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
	return h;
}

/* For each prev_letter_id, the first entry (in file order) that names it. */
struct successors {
	size_t *slot; /* entry index + 1; 0 = free */
	size_t mask;
};

static void successors_build(struct successors *m, const struct board_entry *en, size_t n)
{
	size_t cap = 16;

	while (cap < 2 * n)
		cap *= 2;
	m->slot = xcalloc(cap, sizeof *m->slot);
	m->mask = cap - 1;
	for (size_t i = 0; i < n; i++) {
		const struct letter_str *p = &en[i].letter.prev_letter_id;
		size_t k;
		if (!p->s)
			continue;
		for (k = fnv(p->s, p->len) & m->mask; m->slot[k]; k = (k + 1) & m->mask)
			if (letter_str_eq(&en[m->slot[k] - 1].letter.prev_letter_id, p->s, p->len))
				break;
		if (!m->slot[k])
			m->slot[k] = i + 1;
	}
}

/* The entry whose prev_letter_id is id, or SIZE_MAX. */
static size_t successor_of(const struct successors *m, const struct board_entry *en, const char *id)
{
	size_t n = strlen(id);

	for (size_t k = fnv(id, n) & m->mask; m->slot[k]; k = (k + 1) & m->mask)
		if (letter_str_eq(&en[m->slot[k] - 1].letter.prev_letter_id, id, n))
			return m->slot[k] - 1;
	return SIZE_MAX;
}

static size_t root_of(const struct board_entry *en, size_t n)
{
	size_t root = 0;

	for (size_t i = 0; i < n; i++)
		if (!en[i].letter.prev_letter_id.s)
			return i;
	/* No clean root (never made by the CAS): the greatest seq, the last such. */
	for (size_t i = 1; i < n; i++)
		if (en[i].letter.mission_seq >= en[root].letter.mission_seq)
			root = i;
	return root;
}

/* The walk of a mission's entries (file order): path gets n + 1 indices at most. */
static size_t walk(const struct board_entry *en, size_t n, size_t *path)
{
	struct successors m;
	size_t len = 0, cur;

	if (n == 0)
		return 0;
	successors_build(&m, en, n);
	cur = root_of(en, n);
	path[len++] = cur;
	for (size_t hop = 0; hop < n; hop++) {
		size_t next = successor_of(&m, en, en[cur].letter_id);
		if (next == SIZE_MAX)
			break;
		cur = next;
		path[len++] = cur;
	}
	free(m.slot);
	return len;
}

/* ---- a session: the lock, the box, the index ----------------------------------- */

struct session {
	struct board *b;
	int lock, fd;
	struct sidecar *sc;
	struct board_keep *kept; /* the descriptors are the keep's: closing only unlocks */
};

static void session_close(struct session *s)
{
	if (s->kept)
		flock(s->lock, LOCK_UN);
	else {
		sidecar_close(s->sc);
		if (s->fd >= 0)
			close(s->fd);
		lock_release(s->lock);
	}
	s->sc = NULL;
	s->fd = s->lock = -1;
	s->kept = NULL;
}

/*
 * The temp files a killed rewrite of the index (<box>.idx) or of blocks.json
 * leaves beside the box are named from those two only: the box may live in a
 * directory the user shares with other files, which a sweep must not touch.
 */
static void box_stems(const char *box, const char *stems[3])
{
	stems[0] = strrchr(box, '/') ? strrchr(box, '/') + 1 : box;
	stems[1] = "blocks.json";
	stems[2] = NULL;
}

/* Old ones removed (base/fs.h): one readdir per writer's session; a failure fails no post. */
static void sweep_temps(const char *box)
{
	const char *stems[3];
	char *dir = fs_dirname(box);
	struct err ignored;

	box_stems(box, stems);
	fs_temps_sweep(dir, stems, &ignored);
	free(dir);
}

int board_temps_left(const char *box, char ***names, size_t *n, struct err *e)
{
	const char *stems[3];
	char *dir = fs_dirname(box);
	int rc;

	box_stems(box, stems);
	rc = fs_temps_left(dir, stems, names, n, e);
	free(dir);
	return rc;
}

/*
 * A writer's session: <box>.lock exclusively (created), the box read-write,
 * the index file kept current. 0 when open; 1 when the box does not exist and
 * create is not set; -1 on failure.
 */
static int session_open(struct board *b, struct session *s, int create, struct err *e)
{
	char *path;
	struct err missing;

	memset(s, 0, sizeof *s);
	s->b = b;
	s->lock = s->fd = -1;
	if (!create && access(b->box, F_OK) != 0 && errno == ENOENT)
		return 1;
	if (create && fs_parent_dir(b->box, e) != 0)
		return -1;
	path = xasprintf("%s.lock", b->box);
	s->lock = lock_acquire(path, LOCK_EXCLUSIVE, e);
	free(path);
	if (s->lock < 0)
		return -1;
	sweep_temps(b->box);
	s->fd = mailbox_open(b->box, create, &missing);
	if (s->fd < 0) {
		session_close(s);
		if (!create && missing.code == ERR_NOT_FOUND)
			return 1;
		*e = missing;
		return -1;
	}
	path = xasprintf("%s.idx", b->box);
	s->sc = sidecar_open(path, s->fd, &b->rebuilt, e);
	free(path);
	if (!s->sc) {
		session_close(s);
		return -1;
	}
	b->skipped = sidecar_skipped(s->sc);
	return 0;
}

/*
 * A reader's session, which creates and writes nothing: the lock is taken
 * shared only when its file exists — then no post is between its append and
 * its index update, and a current index file can be believed; without it the
 * index is built in memory (want_index), since a writer may be changing the
 * file. 0 when open; 1 when there is no box; -1 on failure.
 */
static int session_read(struct board *b, struct session *s, int want_index, struct err *e)
{
	struct err ignored;
	char *path = xasprintf("%s.lock", b->box);
	int missing;

	memset(s, 0, sizeof *s);
	s->b = b;
	s->lock = lock_acquire_existing(path, LOCK_SHARED, &ignored);
	free(path);
	s->fd = mailbox_open_read(b->box, e);
	if (s->fd < 0) {
		missing = e->code == ERR_NOT_FOUND;
		session_close(s);
		return missing ? 1 : -1;
	}
	if (!want_index)
		return 0;
	path = s->lock >= 0 ? xasprintf("%s.idx", b->box) : NULL;
	s->sc = sidecar_open_read(path, s->fd, &b->rebuilt, e);
	free(path);
	if (!s->sc) {
		session_close(s);
		return -1;
	}
	b->skipped = sidecar_skipped(s->sc);
	return 0;
}

/* ---- a session kept open between posts ------------------------------------------- */

struct board_keep {
	char *box; /* the box the descriptors are of; NULL when none are open */
	int lock, fd;
	dev_t dev; /* the box's identity, to notice a box replaced at its path */
	ino_t ino;
	struct sidecar *sc;
};

struct board_keep *board_keep_new(void)
{
	struct board_keep *k = xcalloc(1, sizeof *k);

	k->lock = k->fd = -1;
	return k;
}

/* Closes what k holds (the lock, if held, goes with its descriptor). */
static void keep_drop(struct board_keep *k)
{
	sidecar_close(k->sc);
	if (k->fd >= 0)
		close(k->fd);
	if (k->lock >= 0)
		close(k->lock);
	free(k->box);
	k->box = NULL;
	k->sc = NULL;
	k->fd = k->lock = -1;
}

void board_keep_free(struct board_keep *k)
{
	if (!k)
		return;
	keep_drop(k);
	free(k);
}

/*
 * Takes up what k holds for b's box: the lock taken again, then — the lock
 * file and the box still the ones at their paths — the index made current.
 * 0 with s open; 1 when k cannot serve (k emptied, nothing held); -1 on failure.
 */
static int keep_reuse(struct board *b, struct session *s, struct board_keep *k, struct err *e)
{
	struct stat lock, box;
	int r;

	while ((r = flock(k->lock, LOCK_EX)) != 0 && errno == EINTR)
		;
	/* A lock file removed since locks no one out; a box replaced is another box. */
	if (r != 0 || fstat(k->lock, &lock) != 0 || lock.st_nlink == 0 ||
	    stat(b->box, &box) != 0 || box.st_dev != k->dev || box.st_ino != k->ino) {
		keep_drop(k);
		return 1;
	}
	if (sidecar_refresh(k->sc, k->fd, &b->rebuilt, e) != 0) {
		keep_drop(k);
		return -1;
	}
	s->b = b;
	s->lock = k->lock;
	s->fd = k->fd;
	s->sc = k->sc;
	s->kept = k;
	b->skipped = sidecar_skipped(k->sc);
	return 0;
}

/* A freshly opened session becomes k's. */
static void keep_adopt(struct board_keep *k, struct session *s)
{
	struct stat st;

	if (fstat(s->fd, &st) != 0)
		return; /* not kept: closed at the end of the post as usual */
	k->box = xstrdup(s->b->box);
	k->lock = s->lock;
	k->fd = s->fd;
	k->sc = s->sc;
	k->dev = st.st_dev;
	k->ino = st.st_ino;
	s->kept = k;
}

/* session_open(b, s, 0, e) through b->keep: the same answers, the descriptors kept. */
static int keep_open(struct board *b, struct session *s, struct err *e)
{
	struct board_keep *k = b->keep;
	int r;

	memset(s, 0, sizeof *s);
	s->lock = s->fd = -1;
	if (k->box && strcmp(k->box, b->box) == 0) {
		r = keep_reuse(b, s, k, e);
		if (r != 1)
			return r;
	}
	keep_drop(k);
	r = session_open(b, s, 0, e);
	if (r == 0)
		keep_adopt(k, s);
	return r;
}

/* ---- reading a mission's letters from the box ----------------------------------- */

struct collect {
	const char *mid;
	size_t len;
	struct board_entry *en;
	size_t n, cap;
};

static char *steal(struct letter_str *s)
{
	char *p = s->s;

	s->s = NULL;
	s->len = 0;
	return p;
}

static int collect_line(const struct mailbox_line *line, struct letter_envelope *env, void *p)
{
	struct collect *c = p;
	struct board_entry *en;

	if (!letter_is_mission(env) || !letter_str_eq(&env->mission.mission_id, c->mid, c->len))
		return 0;
	if (c->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 16;
		c->en = xrealloc(c->en, c->cap * sizeof *c->en);
	}
	en = &c->en[c->n++];
	memcpy(en->letter_id, line->id, sizeof en->letter_id);
	en->agent = steal(&env->agent);
	en->letter = env->mission;
	memset(&env->mission, 0, sizeof env->mission);
	return 0;
}

static void entries_free(struct board_entry *en, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(en[i].agent);
		letter_free(&en[i].letter);
	}
	free(en);
}

/*
 * The chain of mission mid[0..len) by one pass over the box. With the
 * session's index open, the pass parses only the lines that can name the
 * mission (mailbox_read_naming) and the unreadable lines are the index's count.
 */
static int chain_read(struct session *s, const char *mid, size_t len, struct board_chain *out,
		      struct err *e)
{
	struct collect c = { mid, len, NULL, 0, 0 };
	size_t skipped = 0, *path, n;
	int r = s->sc ? mailbox_read_naming(s->fd, mid, len, collect_line, &c, e)
		      : mailbox_read(s->fd, collect_line, &c, &skipped, e);

	memset(out, 0, sizeof *out);
	if (r != 0) {
		entries_free(c.en, c.n);
		return -1;
	}
	if (!s->sc)
		s->b->skipped = skipped;
	path = xmalloc((c.n + 1) * sizeof *path);
	n = walk(c.en, c.n, path);
	out->entries = n ? xcalloc(n, sizeof *out->entries) : NULL;
	for (size_t i = 0; i < n; i++) {
		const struct board_entry *src = &c.en[path[i]];
		struct board_entry *dst = &out->entries[i];
		memcpy(dst->letter_id, src->letter_id, sizeof dst->letter_id);
		dst->agent = src->agent ? xstrdup(src->agent) : NULL;
		letter_copy(&dst->letter, &src->letter);
	}
	out->n = n;
	out->total = c.n;
	free(path);
	entries_free(c.en, c.n);
	return 0;
}

/*
 * The mission letter on the line at offset, when that line's content id is
 * id: 0 with *env filled (the caller frees it); 1 when the line is another, or
 * not a mission letter, or offset is past any file (the index is out of step
 * with the box: the offset is the index's, read from disk); -1 on a read error.
 */
static int line_letter(int fd, uint64_t offset, const char *id, struct letter_envelope *env,
		       struct err *e)
{
	struct buf line = BUF_INIT;
	char got[MAILBOX_ID_LEN + 1];
	struct err ignored;
	size_t off, n;
	int rc;

	if (offset > (uint64_t)INT64_MAX) /* no off_t reaches it: pread would refuse it */
		return 1;
	rc = mailbox_line_at(fd, offset, &line, e);

	if (rc == 0) {
		mailbox_id(buf_str(&line), line.len, got);
		text_trim(buf_str(&line), line.len, &off, &n);
		rc = strcmp(got, id) != 0 ||
		     letter_parse_line(buf_str(&line) + off, n, env, &ignored) != 0;
		if (rc == 0 && !letter_is_mission(env)) {
			letter_envelope_free(env);
			rc = 1;
		}
	}
	buf_free(&line);
	return rc;
}

/* 1 when p can be a content id: 12 lowercase hex digits (what the index keys). */
static int is_letter_id(const struct letter_str *p)
{
	if (!p->s || p->len != MAILBOX_ID_LEN)
		return 0;
	for (size_t i = 0; i < p->len; i++)
		if (!((p->s[i] >= '0' && p->s[i] <= '9') || (p->s[i] >= 'a' && p->s[i] <= 'f')))
			return 0;
	return 1;
}

/*
 * Takes the letter in *env (its line's id is id) as the next entry of c, if it
 * is mission c->mid's: 0 taken, 1 not (env is freed either way).
 */
static int take_entry(struct collect *c, const char *id, struct letter_envelope *env)
{
	struct mailbox_line line;
	size_t before = c->n;

	memset(&line, 0, sizeof line);
	memcpy(line.id, id, sizeof line.id);
	collect_line(&line, env, c);
	letter_envelope_free(env);
	return c->n == before;
}

/*
 * The chain of a plain mission (sidecar.h) without reading the box: from the
 * head's line back along prev_letter_id to the root, each line found through
 * the index and read only if its bytes hash to the id that named it, is a
 * letter of this mission, and the walk meets as many letters as the index
 * counts, the last without a prev. In a plain mission every letter names the
 * one before it in file order, so this is the walk chain_read would make, all
 * of the mission's letters on it. 0 with out filled; 1 when the index cannot
 * answer (an irregular mission, or a line that is not what the index says:
 * the caller reads the box instead); -1 on a read error.
 */
static int chain_indexed(struct session *s, const char *mid, size_t len,
			 const struct sidecar_mission *m, struct board_chain *out, struct err *e)
{
	struct collect c = { mid, len, NULL, 0, 0 };
	struct letter_envelope env;
	char id[MAILBOX_ID_LEN + 1];
	uint64_t off = m->head_offset;
	const struct letter_str *prev;
	int r;

	memset(out, 0, sizeof *out);
	if (m->irregular || m->count == 0)
		return 1;
	memcpy(id, m->head_id, sizeof id);
	for (;;) {
		r = line_letter(s->fd, off, id, &env, e);
		if (r == 0)
			r = take_entry(&c, id, &env);
		if (r != 0)
			break;
		prev = &c.en[c.n - 1].letter.prev_letter_id;
		if (!prev->s) {
			r = c.n == m->count ? 0 : 1;
			break;
		}
		if (c.n == m->count || !is_letter_id(prev)) {
			r = 1;
			break;
		}
		memcpy(id, prev->s, MAILBOX_ID_LEN);
		r = sidecar_line(s->sc, id, &off, e);
		if (r <= 0) {
			r = r < 0 ? -1 : 1;
			break;
		}
	}
	if (r != 0) {
		entries_free(c.en, c.n);
		return r;
	}
	for (size_t i = 0; i < c.n / 2; i++) { /* head first → root first */
		struct board_entry t = c.en[i];
		c.en[i] = c.en[c.n - 1 - i];
		c.en[c.n - 1 - i] = t;
	}
	out->entries = c.en;
	out->n = out->total = c.n;
	return 0;
}

void board_chain_free(struct board_chain *c)
{
	entries_free(c->entries, c->n);
	memset(c, 0, sizeof *c);
}

/* ---- a mission's head --------------------------------------------------------------- */

struct head_info {
	struct board_head_ref ref;
	struct letter letter; /* filled only when asked for */
	char *agent;
	uint64_t count;
};

static void head_info_free(struct head_info *h)
{
	letter_free(&h->letter);
	free(h->agent);
	h->agent = NULL;
}

static void head_from_chain(struct board_chain *c, struct head_info *h, int want_letter)
{
	struct board_entry *last = &c->entries[c->n - 1];

	memcpy(h->ref.letter_id, last->letter_id, sizeof h->ref.letter_id);
	h->ref.mission_seq = last->letter.mission_seq;
	h->ref.phase = last->letter.phase;
	h->count = c->total;
	if (want_letter) {
		h->letter = last->letter;
		memset(&last->letter, 0, sizeof last->letter);
		h->agent = last->agent;
		last->agent = NULL;
	}
}

/* The letter on the line at offset, which must have content id `id`. */
static int letter_at(struct session *s, uint64_t offset, const char *id,
		     struct letter_envelope *env, struct err *e)
{
	int rc = line_letter(s->fd, offset, id, env, e);

	if (rc == 1)
		rc = err_set(e, ERR_INDEX, "the index of %s is out of step with the box; "
			      "delete %s.idx and try again", s->b->box, s->b->box);
	return rc;
}

/*
 * The head of a mission: 1 found, 0 no letters, -1 failure. A plain chain is
 * answered by the index; a damaged one is walked from the box.
 */
static int find_head(struct session *s, const char *mid, size_t len, struct head_info *h,
		     int want_letter, struct err *e)
{
	struct sidecar_mission m;
	struct letter_envelope env;
	struct board_chain c;
	int found;

	memset(h, 0, sizeof *h);
	found = sidecar_mission(s->sc, mid, len, &m, e);
	if (found <= 0)
		return found;
	if (m.irregular) {
		if (chain_read(s, mid, len, &c, e) != 0)
			return -1;
		if (c.n > 0)
			head_from_chain(&c, h, want_letter);
		board_chain_free(&c);
		return h->count > 0;
	}
	memcpy(h->ref.letter_id, m.head_id, sizeof h->ref.letter_id);
	h->ref.mission_seq = m.head_seq;
	h->ref.phase = m.head_phase;
	h->count = m.count;
	if (!want_letter)
		return 1;
	if (letter_at(s, m.head_offset, m.head_id, &env, e) != 0)
		return -1;
	h->letter = env.mission;
	memset(&env.mission, 0, sizeof env.mission);
	h->agent = steal(&env.agent);
	letter_envelope_free(&env);
	return 1;
}

/* ---- posting ------------------------------------------------------------------------ */

struct prepared {
	struct buf line;
	char id[MAILBOX_ID_LEN + 1];
};

static void result_fill(struct board_result *out, const struct letter *l, const char *id)
{
	memset(out, 0, sizeof *out);
	memcpy(out->letter_id, id, sizeof out->letter_id);
	snprintf(out->mission_id, sizeof out->mission_id, "%s", l->mission_id.s);
	out->mission_seq = l->mission_seq;
	out->phase = l->phase;
}

/*
 * Every check of a post, in the order of the contract, writing nothing.
 * Returns 0 with out->deduped set when the line is already in the box.
 */
static int prepare(struct session *s, const char *agent, const struct letter *l,
		   const struct blocks *store, struct prepared *p, struct board_result *out,
		   struct err *e)
{
	struct head_info h;
	int found;

	if (letter_validate(l, e) != 0)
		return -1;
	letter_write_line(&p->line, agent, l);
	mailbox_id(buf_str(&p->line), p->line.len, p->id);
	result_fill(out, l, p->id);
	found = sidecar_has(s->sc, p->id, e);
	if (found != 0) {
		out->deduped = found > 0;
		return found > 0 ? 0 : -1;
	}
	found = find_head(s, l->mission_id.s, l->mission_id.len, &h, 0, e);
	if (found < 0)
		return -1;
	if (board_check_head(l, found ? &h.ref : NULL, e) != 0 ||
	    board_check_transition(l, found ? &h.ref : NULL, e) != 0)
		return -1;
	/* The compare-and-swap held: the letter extends the head found under the lock. */
	assert(found ? l->mission_seq == h.ref.mission_seq + 1 : l->mission_seq == 1);
	assert(l->phase != LETTER_ARCHIVED || (found && h.ref.phase == LETTER_MERGE_WAIT));
	return guards(s->b, l, store, e);
}

static int commit(struct session *s, const struct prepared *p, const struct letter *l,
		  struct err *e)
{
	struct err late;
	uint64_t offset;

	if (sidecar_begin(s->sc, e) != 0 ||
	    mailbox_append(s->fd, p->line.data, p->line.len, &offset, e) != 0)
		return -1;
	/* The letter is in the box: an index that fails to follow is rebuilt next time. */
	sidecar_commit(s->sc, s->fd, p->id, l, offset, &late);
	return 0;
}

static int load_store(const struct board *b, struct blocks *store, struct err *e)
{
	char *path = blocks_path_for_box(b->box);
	int rc = blocks_load(store, path, e);

	free(path);
	return rc;
}

/*
 * The first post to a box that does not exist yet is checked against an empty
 * board before anything is created, so a refusal leaves no file behind.
 */
static int precheck_empty(struct board *b, const struct letter *l, struct err *e)
{
	struct blocks store;
	int rc;

	if (load_store(b, &store, e) != 0)
		return -1;
	if (board_check_head(l, NULL, e) != 0 || board_check_transition(l, NULL, e) != 0)
		rc = -1;
	else
		rc = guards(b, l, &store, e);
	blocks_free(&store);
	return rc;
}

int board_post_agent(struct board *b, const char *agent, const struct letter *l,
		     struct board_result *out, struct err *e)
{
	if (agent && strcmp(agent, BOARD_HUMAN) == 0)
		return err_set(e, ERR_HUMAN_GESTURE,
			       "the agent id '%s' is reserved for a person's gestures: nothing "
			       "was appended",
			       BOARD_HUMAN);
	if (l->phase == LETTER_ARCHIVED)
		return err_set(e, ERR_HUMAN_GESTURE,
			       "human_gesture: `archived` is a person's gesture (mecha mission "
			       "archive), never an agent's — nothing was appended");
	return board_post(b, agent, l, out, e);
}

int board_post(struct board *b, const char *agent, const struct letter *l,
	       struct board_result *out, struct err *e)
{
	struct prepared p = { BUF_INIT, "" };
	struct session s;
	struct blocks store;
	int r;

	if (!agent || !*agent || !text_utf8_valid(agent, strlen(agent)))
		return err_set(e, ERR_INVALID_AGENT, "the agent id must be non-empty UTF-8 text");
	if (letter_validate(l, e) != 0)
		return -1;
	r = b->keep ? keep_open(b, &s, e) : session_open(b, &s, 0, e);
	if (r == 1 && precheck_empty(b, l, e) != 0)
		return -1;
	if (r == 1)
		r = session_open(b, &s, 1, e);
	if (r != 0)
		return -1;
	r = load_store(b, &store, e);
	if (r == 0) {
		r = prepare(&s, agent, l, &store, &p, out, e);
		if (r == 0 && !out->deduped)
			r = commit(&s, &p, l, e);
		blocks_free(&store);
	}
	buf_free(&p.line);
	session_close(&s);
	if (r != 0 && b->keep)
		keep_drop(b->keep); /* whatever went wrong, the next post starts afresh */
	return r;
}

/* ---- new ------------------------------------------------------------------------------ */

static const char *stamp_now(const char *now, char buf[RFC3339_LEN])
{
	if (now)
		return now;
	rfc3339_now(buf);
	return buf;
}

int board_new(struct board *b, const char *agent, const char *block_id, const char *brain_ref,
	      enum letter_seat seat, enum letter_capability capability, const char *now,
	      struct board_result *out, struct err *e)
{
	char hex[13], mid[17], buf[RFC3339_LEN];
	struct letter l;
	int rc;

	if (hash_random_hex(hex, 12, e) != 0)
		return -1;
	snprintf(mid, sizeof mid, "msn_%s", hex);
	letter_first(&l, mid, block_id, brain_ref, seat, capability, stamp_now(now, buf));
	rc = board_post(b, agent ? agent : BOARD_HUMAN, &l, out, e);
	letter_free(&l);
	return rc;
}

/* ---- heads ------------------------------------------------------------------------------ */

struct heads_ctx {
	struct session *s;
	struct board_head *h;
	size_t n;
	struct err *e;
};

static int head_one(const struct sidecar_mission *m, void *p)
{
	struct heads_ctx *c = p;
	struct letter_envelope env;
	struct head_info h;
	struct board_head *out;
	int r;

	/* The mission's last letter names the mission (the index keeps only a hash). */
	if (letter_at(c->s, m->head_offset, m->head_id, &env, c->e) != 0)
		return -1;
	r = find_head(c->s, env.mission.mission_id.s, env.mission.mission_id.len, &h, 1, c->e);
	letter_envelope_free(&env);
	if (r <= 0)
		return r < 0 ? -1 : 0;
	c->h = xrealloc(c->h, (c->n + 1) * sizeof *c->h);
	out = &c->h[c->n++];
	memcpy(out->head_letter_id, h.ref.letter_id, sizeof out->head_letter_id);
	out->mission_id = xstrdup(h.letter.mission_id.s);
	out->agent = h.agent;
	out->head = h.letter;
	out->superseded_count = h.count - 1;
	return 0;
}

static int by_mission_id(const void *a, const void *b)
{
	const struct letter_str *x = &((const struct board_head *)a)->head.mission_id;
	const struct letter_str *y = &((const struct board_head *)b)->head.mission_id;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->s, y->s, n);

	return c ? c : (x->len > y->len) - (x->len < y->len);
}

int board_heads(struct board *b, struct board_head **out, size_t *n, struct err *e)
{
	struct session s;
	struct heads_ctx c;
	int r;

	*out = NULL;
	*n = 0;
	r = session_read(b, &s, 1, e);
	if (r != 0)
		return r == 1 ? 0 : -1;
	c.s = &s;
	c.h = NULL;
	c.n = 0;
	c.e = e;
	r = sidecar_each(s.sc, head_one, &c, e);
	session_close(&s);
	if (r != 0) {
		board_heads_free(c.h, c.n);
		return -1;
	}
	if (c.n > 1)
		qsort(c.h, c.n, sizeof *c.h, by_mission_id);
	*out = c.h;
	*n = c.n;
	return 0;
}

void board_heads_free(struct board_head *h, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(h[i].mission_id);
		free(h[i].agent);
		letter_free(&h[i].head);
	}
	free(h);
}

/* ---- log ------------------------------------------------------------------------------- */

static int unknown_mission(struct err *e, const char *mission_id)
{
	return err_set(e, ERR_UNKNOWN_MISSION, "unknown_mission: no letter in this box belongs to "
			  "mission '%s'", mission_id);
}

/* 1 when <box>.lock exists: some writer of ours has kept an index beside the box. */
static int lock_beside(const struct board *b)
{
	char *path = xasprintf("%s.lock", b->box);
	int there = access(path, F_OK) == 0;

	free(path);
	return there;
}

int board_log(struct board *b, const char *mission_id, struct board_chain *out, struct err *e)
{
	struct sidecar_mission m;
	struct session s;
	/* With a writer's lock beside the box there is an index to ask (whether the mission
	 * exists, where its lines are, what is unreadable); without one, building an index
	 * would cost more than the one plain pass. */
	int r = session_read(b, &s, lock_beside(b), e);

	memset(out, 0, sizeof *out);
	b->scanned = 0;
	if (r != 0)
		return r == 1 ? unknown_mission(e, mission_id) : -1;
	r = s.sc ? sidecar_mission(s.sc, mission_id, strlen(mission_id), &m, e) : 1;
	if (r == 0) {
		session_close(&s);
		return unknown_mission(e, mission_id);
	}
	/* A plain chain is read from the lines the index points at; anything else, or an
	 * index those lines contradict, from the box. */
	if (r > 0 && s.sc)
		r = chain_indexed(&s, mission_id, strlen(mission_id), &m, out, e);
	b->scanned = r > 0;
	if (r > 0)
		r = chain_read(&s, mission_id, strlen(mission_id), out, e);
	session_close(&s);
	if (r == 0 && out->n == 0)
		return unknown_mission(e, mission_id);
	return r;
}

/* ---- the gestures ------------------------------------------------------------------ */

/* Opens the session and reads the head (with its letter) of a mission that must exist. */
static int gesture_head(struct board *b, struct session *s, const char *mission_id,
			struct head_info *h, struct err *e)
{
	int r = session_open(b, s, 0, e);

	if (r != 0)
		return r == 1 ? unknown_mission(e, mission_id) : -1;
	r = find_head(s, mission_id, strlen(mission_id), h, 1, e);
	if (r <= 0) {
		session_close(s);
		return r == 0 ? unknown_mission(e, mission_id) : -1;
	}
	return 0;
}

int board_archive(struct board *b, const char *mission_id, const char *now,
		  struct board_result *out, struct err *e)
{
	struct prepared p = { BUF_INIT, "" };
	struct session s;
	struct head_info h;
	struct blocks store;
	struct letter next;
	char buf[RFC3339_LEN];
	int r;

	if (gesture_head(b, &s, mission_id, &h, e) != 0)
		return -1;
	letter_next(&next, &h.letter, h.ref.letter_id, LETTER_ARCHIVED, stamp_now(now, buf));
	r = load_store(b, &store, e);
	if (r == 0) {
		r = prepare(&s, BOARD_HUMAN, &next, &store, &p, out, e);
		if (r == 0 && !out->deduped)
			r = commit(&s, &p, &next, e);
		blocks_free(&store);
	}
	buf_free(&p.line);
	letter_free(&next);
	head_info_free(&h);
	session_close(&s);
	return r;
}

static int not_landable(struct err *e, const char *mission_id, const struct head_info *h)
{
	return err_set(e, ERR_NOT_LANDABLE,
			  "not_landable: the head of mission '%s' is `%s`%s — only a merge_wait "
			  "head with a receipt_candidate lands; nothing was imported",
			  mission_id, letter_phase_name(h->ref.phase),
			  h->ref.phase == LETTER_MERGE_WAIT ? " without a receipt_candidate" : "");
}

/* The store as it was, so a failed append can put it back. */
struct snapshot {
	int existed;
	char *data;
	size_t len;
};

static int snapshot_take(const struct blocks *store, struct snapshot *snap, struct err *e)
{
	memset(snap, 0, sizeof *snap);
	snap->existed = store->exists;
	return store->exists ? fs_read(store->path, &snap->data, &snap->len, e) : 0;
}

static void snapshot_restore(const struct blocks *store, const struct snapshot *snap)
{
	struct err ignored;

	if (snap->existed)
		fs_replace(store->path, snap->data, snap->len, &ignored);
	else
		unlink(store->path);
}

/* Imports (unless a crashed land already did) and builds the landed letter; writes nothing. */
static int land_prepare(const char *mission_id, const uint64_t *expect,
			const char *now, struct head_info *h, struct blocks *store,
			struct letter *next, int *recovering, struct err *e)
{
	uint64_t v = blocks_imported_from(store, mission_id, h->ref.letter_id);

	if (h->ref.phase != LETTER_MERGE_WAIT || !h->letter.candidate.present)
		return not_landable(e, mission_id, h);
	*recovering = v != 0;
	if (!*recovering) {
		if (expect && blocks_version(store) != *expect)
			return err_set(e, ERR_STALE_VERSION,
					  "stale_version: the block store is at store_version %" PRIu64
					  ", not %" PRIu64 " — nothing was imported",
					  blocks_version(store), *expect);
		if (blocks_import(store, &h->letter, h->ref.letter_id, &v, e) != 0)
			return -1;
	}
	letter_next(next, &h->letter, h->ref.letter_id, LETTER_LANDED, now);
	next->receipt.present = 1;
	next->receipt.imported = 1;
	next->receipt.store_version = v;
	return 0;
}

static int land_locked(struct board *b, struct session *s, const char *mission_id,
		       const uint64_t *expect, const char *now, struct head_info *h,
		       struct board_result *out, uint64_t *version, struct err *e)
{
	struct prepared p = { BUF_INIT, "" };
	struct blocks store;
	struct snapshot snap = { 0, NULL, 0 };
	struct letter next;
	int recovering = 0, r;

	memset(&next, 0, sizeof next);
	if (load_store(b, &store, e) != 0)
		return -1;
	r = snapshot_take(&store, &snap, e);
	if (r == 0)
		r = land_prepare(mission_id, expect, now, h, &store, &next, &recovering, e);
	/* Every check of the landed letter runs against the store as it will be. */
	if (r == 0)
		r = prepare(s, BOARD_HUMAN, &next, &store, &p, out, e);
	if (r == 0 && !recovering)
		r = blocks_save(&store, e);
	if (r == 0 && !out->deduped && commit(s, &p, &next, e) != 0) {
		if (!recovering)
			snapshot_restore(&store, &snap);
		r = -1;
	}
	if (r == 0)
		*version = next.receipt.store_version;
	free(snap.data);
	buf_free(&p.line);
	letter_free(&next);
	blocks_free(&store);
	return r;
}

int board_land(struct board *b, const char *mission_id, const uint64_t *expect_version,
	       const char *now, struct board_result *out, uint64_t *store_version,
	       struct err *e)
{
	struct session s;
	struct head_info h;
	char buf[RFC3339_LEN], *lock_path;
	int blocks_lock, r;

	if (gesture_head(b, &s, mission_id, &h, e) != 0)
		return -1;
	lock_path = blocks_lock_path(b->box);
	blocks_lock = lock_acquire(lock_path, LOCK_EXCLUSIVE, e);
	free(lock_path);
	r = blocks_lock < 0 ? -1
			    : land_locked(b, &s, mission_id, expect_version, stamp_now(now, buf),
					  &h, out, store_version, e);
	lock_release(blocks_lock);
	head_info_free(&h);
	session_close(&s);
	return r;
}
