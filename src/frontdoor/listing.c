/*
 * listing — a row's fields, their digest, and the walk that keeps them.
 *
 * The digest (format LISTING_DIGEST_FORMAT), native byte order, every length
 * bounded by what is left:
 *   u8 flags (valid, flagged, has_slot, has topic, has note);
 *   i64 slot start, slot end, since;
 *   u8 type_id length, u32 state, topic and note lengths, then their bytes;
 *   u16 drafts, each: u8 id length, the id, i64 × 7 the identity of its file
 *   (base/fs.h) when it was read (all 0: there was none).
 * Drafts are kept only for a request that waits on them (awaiting_me with
 * outbox ids): reconcile's verdict on it stands while no draft file changes.
 * Every string must be UTF-8 without NUL, the type_id at most
 * RECORD_TYPE_ID_MAX bytes; a digest that is not exactly this is not used,
 * and the record's file is read instead.
 */
#include "frontdoor/listing.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/fs.h"
#include "base/jsonio.h"
#include "base/text.h"
#include "base/verdict.h"
#include "frontdoor/reconcile.h"
#include "frontdoor/stale.h"
#include "frontdoor/sweep.h"
#include "requests/record.h"
#include "requests/state.h"
#include "requests/store.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>


enum { F_VALID = 1, F_FLAGGED = 2, F_SLOT = 4, F_TOPIC = 8, F_NOTE = 16 };

/* The drafts a record waits on, as kept: ids and identities. */
#define DRAFTS_MAX 256
#define DRAFT_ID_MAX 255

struct walk {
	struct reconcile_walk rw;
	struct timespec began;
	int (*fn)(const struct listing *l, void *ctx, struct err *e);
	void *ctx;
	char *strings; /* a decoded digest's strings, each NUL-terminated */
	size_t cap;
};

/* ---- the digest ---------------------------------------------------------------- */

static void put8(struct buf *b, unsigned v)
{
	unsigned char c = (unsigned char)v;

	buf_add(b, &c, 1);
}

static void put16(struct buf *b, size_t v)
{
	uint16_t x = (uint16_t)v;

	buf_add(b, &x, 2);
}

static void put32(struct buf *b, size_t v)
{
	uint32_t x = (uint32_t)v;

	buf_add(b, &x, 4);
}

static void put64(struct buf *b, long long v)
{
	int64_t x = (int64_t)v;

	buf_add(b, &x, 8);
}

static void put_identity(struct buf *b, const struct fs_identity *id)
{
	put64(b, (long long)id->dev);
	put64(b, (long long)id->ino);
	put64(b, (long long)id->size);
	put64(b, id->mtime_s);
	put64(b, id->mtime_ns);
	put64(b, id->ctime_s);
	put64(b, id->ctime_ns);
}

static void put_fields(struct buf *b, const struct record *r)
{
	json_t *x = record_extraction(r);
	const char *topic = x ? jsonio_str(x, "topic") : NULL;
	const char *note = record_note(r), *state = record_state(r);
	time_t start = 0, end = 0;
	int slot = sweep_slot(r, &start, &end);
	unsigned flags = (record_valid(r) ? F_VALID : 0) | (slot ? F_SLOT : 0) |
			 (topic ? F_TOPIC : 0) | (note ? F_NOTE : 0) |
			 (x && json_is_true(json_object_get(x, "reads_like_instructions")) ? F_FLAGGED
											    : 0);

	put8(b, flags);
	put64(b, (long long)start);
	put64(b, (long long)end);
	put64(b, (long long)stale_since(r));
	put8(b, strlen(r->type_id));
	put32(b, strlen(state));
	put32(b, topic ? strlen(topic) : 0);
	put32(b, note ? strlen(note) : 0);
	buf_adds(b, r->type_id);
	buf_adds(b, state);
	if (topic)
		buf_adds(b, topic);
	if (note)
		buf_adds(b, note);
}

/* Reads a digest strictly; what it fills points into w->strings (or into d). */
struct reader {
	const unsigned char *p;
	size_t left;
};

static int take(struct reader *rd, void *out, size_t n)
{
	if (rd->left < n)
		return -1;
	memcpy(out, rd->p, n);
	rd->p += n;
	rd->left -= n;
	return 0;
}

static int take64(struct reader *rd, long long *v)
{
	int64_t x;

	if (take(rd, &x, 8) != 0)
		return -1;
	*v = (long long)x;
	return 0;
}

static int take16(struct reader *rd, size_t *v)
{
	uint16_t x;

	if (take(rd, &x, 2) != 0)
		return -1;
	*v = x;
	return 0;
}

static int take32(struct reader *rd, size_t *v)
{
	uint32_t x;

	if (take(rd, &x, 4) != 0)
		return -1;
	*v = x;
	return 0;
}

/* A string of n bytes, UTF-8 without NUL, copied NUL-terminated to *at. */
static int take_string(struct reader *rd, size_t n, char **at, const char **out)
{
	if (rd->left < n || memchr(rd->p, '\0', n) || !text_utf8_valid((const char *)rd->p, n))
		return -1;
	memcpy(*at, rd->p, n);
	(*at)[n] = '\0';
	*out = *at;
	*at += n + 1;
	rd->p += n;
	rd->left -= n;
	return 0;
}

static int take_identity(struct reader *rd, struct fs_identity *id)
{
	long long v[7];

	for (int i = 0; i < 7; i++)
		if (take64(rd, &v[i]) != 0)
			return -1;
	id->dev = (unsigned long long)v[0];
	id->ino = (unsigned long long)v[1];
	id->size = (unsigned long long)v[2];
	id->mtime_s = v[3];
	id->mtime_ns = v[4];
	id->ctime_s = v[5];
	id->ctime_ns = v[6];
	return 0;
}

/*
 * The fields of digest d into l (its strings in w->strings); rd is left at the
 * drafts. 0, or -1 when d is not a digest as written above.
 */
static int read_fields(struct walk *w, struct reader *rd, struct listing *l)
{
	unsigned char flags, tlen;
	long long start, end, since;
	size_t slen, plen, nlen;
	char *at;
	const char *topic = NULL, *note = NULL;

	/* The strings and their NULs fit in what is left of the digest and four bytes more. */
	if (w->cap < rd->left + 4) {
		free(w->strings);
		w->cap = rd->left + 4;
		w->strings = xmalloc(w->cap);
	}
	at = w->strings;
	if (take(rd, &flags, 1) != 0 || flags > 31 || take64(rd, &start) != 0 ||
	    take64(rd, &end) != 0 || take64(rd, &since) != 0 || take(rd, &tlen, 1) != 0 ||
	    take32(rd, &slen) != 0 || take32(rd, &plen) != 0 || take32(rd, &nlen) != 0)
		return -1;
	if (tlen == 0 || tlen > RECORD_TYPE_ID_MAX ||
	    (!(flags & F_TOPIC) && plen) || (!(flags & F_NOTE) && nlen) ||
	    take_string(rd, tlen, &at, &l->type_id) != 0 ||
	    take_string(rd, slen, &at, &l->state) != 0 ||
	    ((flags & F_TOPIC) && take_string(rd, plen, &at, &topic) != 0) ||
	    ((flags & F_NOTE) && take_string(rd, nlen, &at, &note) != 0))
		return -1;
	l->topic = topic;
	l->note = note;
	l->valid = !!(flags & F_VALID);
	l->flagged = !!(flags & F_FLAGGED);
	l->has_slot = !!(flags & F_SLOT);
	l->slot_start = l->has_slot ? (time_t)start : 0;
	l->slot_end = l->has_slot ? (time_t)end : 0;
	l->since = (time_t)since;
	return 0;
}

/* ---- the walk's callbacks ---------------------------------------------------------- */

/* The identities of r's drafts' files now, into ids[]; 0, or -1 when one cannot be looked at. */
static int draft_identities(struct outbox_store *ob, json_t *outbox, struct fs_identity *ids)
{
	size_t i;
	json_t *v;

	json_array_foreach(outbox, i, v) {
		const char *id = json_string_value(v);
		if (!id || strlen(id) > DRAFT_ID_MAX || outbox_store_identity(ob, id, &ids[i]) < 0)
			return -1;
	}
	return 0;
}

static int make(struct record *r, struct buf *out, void *ctx, struct err *e)
{
	struct walk *w = ctx;
	json_t *outbox = strcmp(record_state(r), STATE_AWAITING_ME) == 0 ? record_outbox(r) : NULL;
	size_t n = json_array_size(outbox);
	struct fs_identity before[DRAFTS_MAX], after[DRAFTS_MAX];
	struct outbox_store *ob = n ? reconcile_walk_outbox(&w->rw) : NULL;
	int keep = n <= DRAFTS_MAX && (n == 0 || (ob && draft_identities(ob, outbox, before) == 0));
	int settled = reconcile_settle(&w->rw, r);
	size_t i;

	(void)e;
	if (!r->doc)
		return STORE_DIGEST_SKIP; /* gone between the move and the re-read */
	put_fields(out, r);
	/*
	 * A move made a new file (and freed the old record's outbox list): its
	 * digest is made from that file at the next walk. A move that could not be
	 * written is tried again by the next walk.
	 */
	keep = keep && settled == 0;
	if (settled != 0) {
		outbox = NULL;
		n = 0;
	}
	if (keep && n && draft_identities(ob, outbox, after) != 0)
		keep = 0;
	for (i = 0; keep && i < n; i++)
		keep = fs_identity_same(&before[i], &after[i]) &&
		       fs_identity_settled(&after[i], &w->began);
	put16(out, keep ? n : 0);
	for (i = 0; keep && i < n; i++) {
		const char *id = json_string_value(json_array_get(outbox, i));
		put8(out, strlen(id));
		buf_adds(out, id);
		put_identity(out, &after[i]);
	}
	return keep ? STORE_DIGEST_KEEP : STORE_DIGEST_ONCE;
}

/* Whether the drafts the kept digest names are as they were: reconcile's verdict stands. */
static int holds(const char *digest, size_t len, void *ctx)
{
	struct walk *w = ctx;
	struct reader rd = { (const unsigned char *)digest, len };
	struct listing l;
	struct outbox_store *ob;
	size_t n;

	if (read_fields(w, &rd, &l) != 0 || take16(&rd, &n) != 0 || n > DRAFTS_MAX)
		return 0;
	if (n && (strcmp(l.state, STATE_AWAITING_ME) != 0 || !(ob = reconcile_walk_outbox(&w->rw))))
		return 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char idlen;
		char id[DRAFT_ID_MAX + 1];
		struct fs_identity kept, now;
		if (take(&rd, &idlen, 1) != 0 || idlen == 0 || take(&rd, id, idlen) != 0 ||
		    take_identity(&rd, &kept) != 0)
			return 0;
		id[idlen] = '\0';
		if (strlen(id) != idlen || outbox_store_identity(ob, id, &now) < 0 ||
		    !fs_identity_same(&kept, &now))
			return 0;
	}
	return rd.left == 0;
}

static int use(long long seq, const char *digest, size_t len, void *ctx, struct err *e)
{
	struct walk *w = ctx;
	struct reader rd = { (const unsigned char *)digest, len };
	struct listing l = { 0 };

	l.seq = seq;
	if (read_fields(w, &rd, &l) != 0)
		return err_set(e, ERR_INTERNAL, "request %lld: its listing does not read back", seq);
	return w->fn(&l, w->ctx, e);
}

int listing_each(struct store *s, int (*fn)(const struct listing *l, void *ctx, struct err *e),
		 void *ctx, const struct reconcile_report *report, struct err *e)
{
	struct walk w = { RECONCILE_WALK_INIT(s, report), { 0, 0 }, fn, ctx, NULL, 0 };
	struct store_digest d = { LISTING_DIGEST_FILE, LISTING_DIGEST_FORMAT, make, holds, use, &w };
	int rc;

	clock_gettime(CLOCK_REALTIME, &w.began);
	rc = store_each_digest(s, &d, e);
	reconcile_walk_end(&w.rw);
	free(w.strings);
	return rc;
}

long long listing_stale_hours(const struct listing *l, long hours, time_t now)
{
	return stale_waiting(l->state, l->since, hours, now) ? (long long)(now - l->since) / 3600
							      : -1;
}
