/*
 * store — the outbox directory, its lock, and the one directory pass every
 * listing (and reconcile) is built on.
 */
#include "outbox/store.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/verdict.h"
#include "base/fs.h"
#include "base/jsonio.h"
#include "base/lock.h"
#include "base/text.h"
#include "outbox/sink.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int outbox_store_open(struct outbox_store *s, const char *dir, enum outbox_mode mode,
		      struct err *e)
{
	memset(s, 0, sizeof *s);
	s->lock_fd = -1;
	s->mode = mode;
	if (mode == OUTBOX_WRITE) {
		int was;
		if (fs_private_dir_tighten(dir, &was, e) != 0)
			return -1;
		fs_tell_tightened(stderr, dir, was);
		s->exists = 1;
	} else {
		int d = fs_is_dir(dir, e);
		if (d < 0)
			return -1;
		s->exists = d;
	}
	s->dir = xstrdup(dir);
	s->lock_path = fs_join(dir, ".lock");
	return 0;
}

void outbox_store_close(struct outbox_store *s)
{
	outbox_store_unlock(s);
	free(s->dir);
	free(s->lock_path);
	s->dir = s->lock_path = NULL;
}

int outbox_store_lock(struct outbox_store *s, struct err *e)
{
	if (s->mode != OUTBOX_WRITE)
		return err_set(e, ERR_INTERNAL, "the outbox was opened read-only");
	if (s->lock_fd >= 0)
		return err_set(e, ERR_INTERNAL, "the outbox lock is already held");
	s->lock_fd = lock_acquire(s->lock_path, LOCK_EXCLUSIVE, e);
	if (s->lock_fd < 0)
		return -1;
	if (!s->swept) {
		struct err ignored;

		/* Housekeeping: a sweep that cannot read the directory fails no write. */
		fs_temps_sweep(s->dir, NULL, &ignored);
		s->swept = 1;
	}
	return 0;
}

void outbox_store_unlock(struct outbox_store *s)
{
	lock_release(s->lock_fd);
	s->lock_fd = -1;
}

/* "<id>.json" when name is an item file's name, with the id copied out. */
static int item_file(const char *name, char id[OUTBOX_ID_MAX + 1])
{
	size_t n = strlen(name);

	if (n <= 5 || n - 5 > OUTBOX_ID_MAX || strcmp(name + n - 5, ".json") != 0)
		return 0;
	memcpy(id, name, n - 5);
	id[n - 5] = '\0';
	return outbox_item_id_ok(id);
}

/* Reads one file relative to dirfd; every message starts with the file name. */
static int load(int dirfd, const char *name, const char *id, struct outbox_item *out,
		struct err *e)
{
	char *data;
	size_t len;

	memset(out, 0, sizeof *out);
	if (fs_read_at(dirfd, name, &data, &len, e) != 0) {
		if (e->code != ERR_NOT_FOUND)
			e->code = ERR_UNREADABLE;
		return -1;
	}
	if (outbox_item_parse(out, data, len, name, e) != 0) {
		if (strncmp(e->msg, name, strlen(name)) != 0)
			err_prefix(e, "%s", name);
		free(data);
		return -1;
	}
	free(data);
	if (strcmp(out->id, id) != 0) {
		outbox_item_free(out);
		return err_set(e, ERR_UNREADABLE, "%s: its id does not match the file name", name);
	}
	return 0;
}

int outbox_store_read(struct outbox_store *s, const char *id, struct outbox_item *out,
		      struct err *e)
{
	char *name, *path;
	int rc;

	memset(out, 0, sizeof *out);
	if (!outbox_item_id_ok(id) || strlen(id) > OUTBOX_ID_MAX)
		return err_set(e, ERR_NOT_FOUND, "no outbox item %s", id);
	if (!s->exists)
		return err_set(e, ERR_NOT_FOUND, "no outbox item %s", id);
	/* By path, not through a directory descriptor: reconcile reads thousands of these. */
	name = xasprintf("%s.json", id);
	path = fs_join(s->dir, name);
	rc = load(AT_FDCWD, path, id, out, e);
	if (rc != 0 && e->code == ERR_NOT_FOUND)
		err_set(e, ERR_NOT_FOUND, "no outbox item %s", id);
	free(path);
	free(name);
	return rc;
}

int outbox_store_identity(struct outbox_store *s, const char *id, struct fs_identity *out)
{
	char *name, *path;
	int rc;

	memset(out, 0, sizeof *out);
	if (!outbox_item_id_ok(id) || strlen(id) > OUTBOX_ID_MAX || !s->exists)
		return 1; /* as outbox_store_read: no item by that name */
	name = xasprintf("%s.json", id);
	path = fs_join(s->dir, name);
	rc = fs_identity_at(AT_FDCWD, path, out);
	free(path);
	free(name);
	return rc;
}

int outbox_store_write(struct outbox_store *s, const struct outbox_item *it, struct err *e)
{
	char *name, *path;
	int rc;

	if (!outbox_item_id_ok(it->id))
		return err_set(e, ERR_INTERNAL, "refusing to write an item with the id '%s'", it->id);
	name = xasprintf("%s.json", it->id);
	path = fs_join(s->dir, name);
	rc = jsonio_save(path, it->doc, e);
	free(path);
	free(name);
	return rc;
}

static void warn_unreadable(FILE *warn, const struct err *e)
{
	if (!warn)
		return;
	fputs("mecha: skipping unreadable outbox item ", warn);
	text_print(warn, e->msg, 0);
	fputc('\n', warn);
}

/*
 * One pass over the directory in no particular order: fn is called for each
 * readable item (VERDICT_NEXT to go on, VERDICT_STOP to stop early, -1 to
 * fail with e filled). Each unreadable
 * one is reported on warn (when not NULL) as
 * "mecha: skipping unreadable outbox item <file>: <why>".
 */
static int outbox_store_each(struct outbox_store *s,
			     int (*fn)(const struct outbox_item *it, void *ctx, struct err *e),
			     void *ctx, FILE *warn, struct err *e)
{
	DIR *d;
	struct dirent *de;
	int rc = 0;

	if (!s->exists)
		return 0;
	d = opendir(s->dir);
	if (!d)
		return err_errno(e, "opening %s", s->dir);
	while (rc == VERDICT_NEXT && (errno = 0, de = readdir(d)) != NULL) {
		char id[OUTBOX_ID_MAX + 1];
		struct outbox_item it;
		struct err why;

		if (!item_file(de->d_name, id))
			continue;
		if (load(dirfd(d), de->d_name, id, &it, &why) != 0) {
			/* Vanished between readdir and open: it was resolved and swept, not broken. */
			if (why.code != ERR_NOT_FOUND)
				warn_unreadable(warn, &why);
			continue;
		}
		rc = fn(&it, ctx, e);
		outbox_item_free(&it);
	}
	if (rc == VERDICT_NEXT && errno != 0)
		rc = err_errno(e, "reading %s", s->dir);
	closedir(d);
	return rc < 0 ? -1 : 0;
}

/* ---- streaming: names sorted, one document at a time ------------------------------------ */

/* The item ids of the directory, NUL-separated in one buffer, and (once read) each one. */
struct names {
	struct buf text;
	size_t *at, n, cap;
	const char **id; /* into text, sorted */
};

static int by_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int names_read(DIR *d, struct names *nm, struct err *e)
{
	struct dirent *de;
	char id[OUTBOX_ID_MAX + 1];

	while ((errno = 0, de = readdir(d)) != NULL) {
		if (!item_file(de->d_name, id))
			continue;
		if (nm->n == nm->cap) {
			nm->cap = nm->cap ? nm->cap * 2 : 256;
			nm->at = xrealloc(nm->at, nm->cap * sizeof *nm->at);
		}
		nm->at[nm->n++] = nm->text.len;
		buf_add(&nm->text, id, strlen(id) + 1);
	}
	if (errno != 0)
		return err_errno(e, "reading the outbox");
	nm->id = xcalloc(nm->n + 1, sizeof *nm->id);
	for (size_t i = 0; i < nm->n; i++) /* the buffer has stopped moving */
		nm->id[i] = nm->text.data + nm->at[i];
	if (nm->n > 1)
		qsort(nm->id, nm->n, sizeof *nm->id, by_name);
	return 0;
}

/* One item by id into *it: 0, or 1 when it cannot be read (warned about when warn_it). */
static int stream_one(int dirfd, const char *id, int warn_it, struct outbox_item *it, FILE *warn)
{
	char name[OUTBOX_ID_MAX + 6];
	struct err why;

	snprintf(name, sizeof name, "%s.json", id);
	if (load(dirfd, name, id, it, &why) == 0)
		return 0;
	if (warn_it && why.code != ERR_NOT_FOUND) /* vanished: resolved and swept, not broken */
		warn_unreadable(warn, &why);
	return 1;
}

int outbox_store_stream(struct outbox_store *s, int pending_first,
			int (*fn)(const struct outbox_item *it, void *ctx, struct err *e),
			void *ctx, FILE *warn, struct err *e)
{
	struct names nm = { BUF_INIT, NULL, 0, 0, NULL };
	unsigned char *later = NULL; /* pending_first: the resolved ones, for the second pass */
	struct outbox_item it;
	int rc = VERDICT_NEXT;
	DIR *d;

	if (!s->exists)
		return 0;
	if (!(d = opendir(s->dir)))
		return err_errno(e, "opening %s", s->dir);
	if (names_read(d, &nm, e) != 0)
		rc = -1;
	later = xcalloc(nm.n + 1, 1);
	for (size_t i = 0; rc == VERDICT_NEXT && i < nm.n; i++) {
		if (stream_one(dirfd(d), nm.id[i], 1, &it, warn) != 0)
			continue;
		if (pending_first && !outbox_item_pending(&it))
			later[i] = 1;
		else
			rc = fn(&it, ctx, e);
		outbox_item_free(&it);
	}
	for (size_t i = 0; rc == VERDICT_NEXT && i < nm.n; i++) {
		if (!later[i] || stream_one(dirfd(d), nm.id[i], 0, &it, warn) != 0)
			continue;
		rc = fn(&it, ctx, e);
		outbox_item_free(&it);
	}
	closedir(d);
	free(later);
	free(nm.at);
	free(nm.id);
	buf_free(&nm.text);
	return rc < 0 ? -1 : 0;
}

struct collect {
	struct outbox_list *l;
	size_t cap;
};

static int collect(const struct outbox_item *it, void *ctx, struct err *e)
{
	struct collect *c = ctx;
	struct outbox_item *copy;

	(void)e;
	if (c->l->n == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 64;
		c->l->items = xrealloc(c->l->items, c->cap * sizeof *c->l->items);
	}
	/* The callback's item is borrowed: take our own reference to its document. */
	copy = &c->l->items[c->l->n];
	if (outbox_item_adopt(copy, json_incref(it->doc), e) != 0)
		return -1;
	c->l->n++;
	return VERDICT_NEXT;
}

static int by_id(const void *a, const void *b)
{
	return strcmp(((const struct outbox_item *)a)->id, ((const struct outbox_item *)b)->id);
}

int outbox_store_list(struct outbox_store *s, struct outbox_list *out, FILE *warn,
		      struct err *e)
{
	struct collect c = { out, 0 };

	out->items = NULL;
	out->n = 0;
	if (outbox_store_each(s, collect, &c, warn, e) != 0) {
		outbox_list_free(out);
		return -1;
	}
	if (out->n > 1)
		qsort(out->items, out->n, sizeof *out->items, by_id);
	return 0;
}

void outbox_list_free(struct outbox_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		outbox_item_free(&l->items[i]);
	free(l->items);
	l->items = NULL;
	l->n = 0;
}

const struct outbox_item *outbox_list_find(const struct outbox_list *l, const char *id)
{
	size_t lo = 0, hi = l->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(l->items[mid].id, id);
		if (c == 0)
			return &l->items[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static int exists_at(const char *dir, const char *id)
{
	char *name = xasprintf("%s/%s.json", dir, id);
	struct stat st;
	int rc = lstat(name, &st) == 0;

	free(name);
	return rc;
}

static int ambiguous(const char *prefix, char **hits, size_t n, struct err *e)
{
	struct buf b = BUF_INIT;

	for (size_t i = 0; i < n && i < 3; i++)
		buf_printf(&b, "%s%s", i ? ", " : "", hits[i]);
	if (n > 3)
		buf_printf(&b, " and %zu more", n - 3);
	err_set(e, ERR_USAGE, "%s matches more than one outbox item (%s); give more of the id "
		"(its start or its end)", prefix, buf_str(&b));
	e->code = ERR_AMBIGUOUS;
	buf_free(&b);
	return -1;
}

/* 1 when id starts or ends with part (an abbreviation either way, as git's short ids). */
static int id_abbreviates(const char *id, const char *part, size_t plen)
{
	size_t n = strlen(id);

	return strncmp(id, part, plen) == 0 || (n >= plen && strcmp(id + n - plen, part) == 0);
}

int outbox_store_matching(struct outbox_store *s, const char *part, char ***ids, size_t *n,
			  struct err *e)
{
	size_t plen = strlen(part), cap = 0;
	struct dirent *de;
	DIR *d;

	*ids = NULL;
	*n = 0;
	if (!s->exists)
		return 0;
	if (!(d = opendir(s->dir)))
		return err_errno(e, "opening %s", s->dir);
	while ((de = readdir(d)) != NULL) {
		char id[OUTBOX_ID_MAX + 1];
		if (!item_file(de->d_name, id) || !id_abbreviates(id, part, plen))
			continue;
		if (*n == cap) {
			cap = cap ? cap * 2 : 8;
			*ids = xrealloc(*ids, cap * sizeof **ids);
		}
		(*ids)[(*n)++] = xstrdup(id);
	}
	closedir(d);
	if (*n > 1)
		qsort(*ids, *n, sizeof **ids, by_name);
	return 0;
}

void outbox_ids_free(char **ids, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(ids[i]);
	free(ids);
}

int outbox_store_lookup(struct outbox_store *s, const char *prefix, char **id, struct err *e)
{
	char **hits;
	size_t n;
	int rc = 0;

	*id = NULL;
	if (!*prefix)
		return err_set(e, ERR_USAGE, "an empty id names no outbox item");
	if (!outbox_item_id_ok(prefix) || !s->exists)
		return err_set(e, ERR_NOT_FOUND, "no outbox item %s", prefix);
	if (exists_at(s->dir, prefix)) {
		*id = xstrdup(prefix);
		return 0;
	}
	if (outbox_store_matching(s, prefix, &hits, &n, e) != 0)
		return -1;
	if (n == 0)
		rc = err_set(e, ERR_NOT_FOUND, "no outbox item %s", prefix);
	else if (n > 1)
		rc = ambiguous(prefix, hits, n, e);
	else
		*id = xstrdup(hits[0]);
	outbox_ids_free(hits, n);
	return rc;
}

/* What the draft says it is must be something a release can act on. */
static int stage_check(const struct outbox_draft *d, struct err *e)
{
	if (d->kind && strcmp(d->kind, OUTBOX_KIND_MESSAGE) != 0 &&
	    strcmp(d->kind, OUTBOX_KIND_PUBLISH) != 0) {
		struct buf b = BUF_INIT;

		text_safe(&b, d->kind, strlen(d->kind), 0);
		err_set(e, ERR_BAD_ARGUMENTS, "the kind is message or publish, not '%s'; nothing "
			"was staged", buf_str(&b));
		buf_free(&b);
		return -1;
	}
	return sink_check(d->tool, d->args, e);
}

int outbox_store_stage(struct outbox_store *s, const struct outbox_draft *d,
		       struct outbox_item *out, struct err *e)
{
	struct outbox_item it;
	int rc;

	if (stage_check(d, e) != 0 || outbox_item_new(&it, d, e) != 0)
		return -1;
	if (outbox_store_lock(s, e) != 0) {
		outbox_item_free(&it);
		return -1;
	}
	/* 32 random bits in the same second: a clash is not expected, but never overwrite. */
	if (exists_at(s->dir, it.id))
		rc = err_set(e, ERR_IO, "an outbox item %s already exists", it.id);
	else
		rc = outbox_store_write(s, &it, e);
	outbox_store_unlock(s);
	if (rc == 0 && out)
		*out = it;
	else
		outbox_item_free(&it);
	return rc;
}

int outbox_store_update(struct outbox_store *s, const char *id,
			int (*fn)(struct outbox_item *it, void *ctx, struct err *e), void *ctx,
			struct err *e)
{
	struct outbox_item it;
	int rc;

	if (outbox_store_lock(s, e) != 0)
		return -1;
	rc = outbox_store_read(s, id, &it, e);
	if (rc == 0) {
		rc = fn(&it, ctx, e);
		if (rc == VERDICT_WRITE && outbox_store_write(s, &it, e) != 0)
			rc = -1;
		outbox_item_free(&it);
	}
	outbox_store_unlock(s);
	return rc;
}

struct resolution {
	const char *status, *reason;
};

static int resolve_one(struct outbox_item *it, void *ctx, struct err *e)
{
	const struct resolution *r = ctx;

	if (!outbox_item_pending(it))
		return err_set(e, ERR_NOT_PENDING, "outbox item %s is already %s", it->id,
				  it->status);
	outbox_item_resolve(it, r->status, r->reason);
	return VERDICT_WRITE;
}

int outbox_store_resolve(struct outbox_store *s, const char *id, const char *status,
			 const char *reason, struct err *e)
{
	struct resolution r = { status, reason };

	if (strcmp(status, OUTBOX_SENT) != 0 && strcmp(status, OUTBOX_REJECTED) != 0)
		return err_set(e, ERR_INTERNAL, "an item resolves as sent or rejected, not %s", status);
	return outbox_store_update(s, id, resolve_one, &r, e) < 0 ? -1 : 0;
}
