/*
 * store — names first, then one record at a time.
 */
#include "requests/store.h"
#include "requests/grammar.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/verdict.h"
#include "base/fs.h"
#include "base/jsonio.h"
#include "base/lock.h"
#include "base/text.h"
#include "config/home.h"
#include "types/typecache.h"

#include <ctype.h>
#include <pthread.h>
#include <stdatomic.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int store_open(struct store *s, const char *dir, enum store_mode mode, struct err *e)
{
	int was = -1;

	s->dir = xstrdup(dir);
	s->dirfd = -1;
	s->warn = stderr;
	s->told_strays = 0;
	s->swept = 0;
	s->on_read = NULL;
	s->on_read_ctx = NULL;
	if (mode == STORE_CREATE && fs_private_dir_tighten(dir, &was, e) != 0)
		goto fail;
	fs_tell_tightened(s->warn, dir, was);
	s->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (s->dirfd < 0 && !(mode == STORE_READ && errno == ENOENT)) {
		err_errno(e, "opening the request store %s", dir);
		goto fail;
	}
	return 0;
fail:
	free(s->dir);
	s->dir = NULL;
	return -1;
}

int store_open_default(struct store *s, enum store_mode mode, struct err *e)
{
	char *dir = home_default(HOME_REQUESTS, e);
	int rc;

	if (!dir)
		return -1;
	rc = store_open(s, dir, mode, e);
	free(dir);
	return rc;
}

void store_close(struct store *s)
{
	if (s->dirfd >= 0)
		close(s->dirfd);
	s->dirfd = -1;
	free(s->dir);
	s->dir = NULL;
}

/* A record file's name: digits (an optional '-' first), '-', a type_id, ".json". */
static int name_seq(const char *name, long long *seq)
{
	const char *p = name, *dash, *dot;
	char *end;
	size_t n = strlen(name);

	if (n < 8 || strcmp(name + n - 5, ".json") != 0)
		return -1;
	if (*p == '-')
		p++;
	if (!isdigit((unsigned char)*p))
		return -1;
	errno = 0;
	*seq = strtoll(name, &end, 10);
	dash = end;
	if (errno || *dash != '-')
		return -1;
	dot = name + n - 5;
	if (dot - dash - 1 < 1 || dot - dash - 1 > RECORD_TYPE_ID_MAX)
		return -1;
	for (p = dash + 1; p < dot; p++)
		if (!isalnum((unsigned char)*p) && *p != '_' && *p != '-')
			return -1;
	return 0;
}

struct entry {
	long long seq;
	char *name;
};

static int by_seq(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return strcmp(x->name, y->name);
}

static void warn_unreadable(struct store *s, const char *name, const struct err *why)
{
	size_t n = strlen(name);
	const char *msg = why->msg;

	if (!s->warn)
		return;
	/* A parse error already names the file: say it once. */
	if (strncmp(msg, name, n) == 0 && strncmp(msg + n, ": ", 2) == 0)
		msg += n + 2;
	fputs("mecha: skipping unreadable request ", s->warn);
	text_print(s->warn, name, 0);
	fputs(": ", s->warn);
	text_print(s->warn, msg, 0);
	fputc('\n', s->warn);
}

/* The type ids present in the store: types/typecache.h (a hint, never the truth). */

/* The fast path of store_find: 1 found, 0 not found this way. */
static int find_by_types(struct store *s, long long seq, char name[RECORD_FILE_NAME_MAX])
{
	char *types, *line, *save = NULL;
	size_t len;
	struct stat st;
	int found = 0;

	if (typecache_read(s->dirfd, &types, &len) != 0)
		return 0;
	for (line = strtok_r(types, "\n", &save); line && !found; line = strtok_r(NULL, "\n", &save)) {
		if (!typecache_id_ok(line))
			continue;
		record_file_name(seq, line, name);
		found = fstatat(s->dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode);
	}
	free(types);
	return found;
}

/*
 * Names that are not records: a record saved as req1.json would otherwise be
 * ignored without a word. The store's own names are not strays: dot-files
 * (.lock, .types, the temp file of an atomic replace), the attachments the
 * drain stored, and the booking sweep's ledger.
 */
#define STRAYS_NAMED 3

static const char *const store_own_names[] = { "attachments", "bookings.jsonl" };

struct strays {
	size_t n;
	char *first[STRAYS_NAMED]; /* the first names in byte order */
};

static void strays_add(struct strays *st, const char *name)
{
	size_t k = st->n < STRAYS_NAMED ? st->n : STRAYS_NAMED;

	st->n++;
	if (k == STRAYS_NAMED && strcmp(name, st->first[k - 1]) >= 0)
		return;
	if (k == STRAYS_NAMED)
		free(st->first[--k]);
	while (k > 0 && strcmp(name, st->first[k - 1]) < 0) {
		st->first[k] = st->first[k - 1];
		k--;
	}
	st->first[k] = xstrdup(name);
}

static void strays_note(struct strays *st, const char *name)
{
	if (!st || name[0] == '.')
		return;
	for (size_t i = 0; i < sizeof store_own_names / sizeof store_own_names[0]; i++)
		if (strcmp(name, store_own_names[i]) == 0)
			return;
	strays_add(st, name);
}

/* One line on warn, once per open store; names are bytes from a directory, shown safely. */
static void strays_tell(struct store *s, struct strays *st)
{
	size_t shown = st->n < STRAYS_NAMED ? st->n : STRAYS_NAMED;

	if (st->n && s->warn && !s->told_strays) {
		s->told_strays = 1;
		fprintf(s->warn, "mecha: ignoring %zu %s in ", st->n, st->n == 1 ? "file" : "files");
		text_print(s->warn, s->dir, 0);
		fputs(st->n == 1 ? " that is not a request record: " : " that are not request records: ",
		      s->warn);
		for (size_t i = 0; i < shown; i++) {
			fputs(i ? ", " : "", s->warn);
			text_print(s->warn, st->first[i], 0);
		}
		if (st->n > shown)
			fprintf(s->warn, " and %zu more", st->n - shown);
		fputs(" (a record is named like 0000000012-meeting.json: see docs/protocol/files.md)\n",
		      s->warn);
	}
	for (size_t i = 0; i < shown; i++)
		free(st->first[i]);
	st->n = 0;
}

/* Reads the names of the record files, sorted by seq; the others go to strays (if given). */
static int list_names(struct store *s, struct entry **out, size_t *count, struct strays *strays,
		      struct err *e)
{
	struct entry *v = NULL;
	size_t n = 0, cap = 0;
	struct dirent *d;
	DIR *dir;
	int fd;

	*out = NULL;
	*count = 0;
	if (s->dirfd < 0)
		return 0;
	fd = openat(s->dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || !(dir = fdopendir(fd))) {
		if (fd >= 0)
			close(fd);
		return err_errno(e, "reading %s", s->dir);
	}
	rewinddir(dir);
	while ((d = readdir(dir))) {
		long long seq;
		if (d->d_name[0] == '.' || name_seq(d->d_name, &seq) != 0) {
			strays_note(strays, d->d_name);
			continue;
		}
		if (n == cap) {
			cap = cap ? cap * 2 : 256;
			v = xrealloc(v, cap * sizeof *v);
		}
		v[n].seq = seq;
		v[n].name = xstrdup(d->d_name);
		n++;
	}
	closedir(dir);
	if (n > 1)
		qsort(v, n, sizeof *v, by_seq);
	*out = v;
	*count = n;
	return 0;
}

static void free_names(struct entry *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].name);
	free(v);
}

int store_seqs(struct store *s, long long **seqs, size_t *n, struct err *e)
{
	struct entry *v;
	size_t count;

	*seqs = NULL;
	*n = 0;
	if (list_names(s, &v, &count, NULL, e) != 0)
		return -1;
	if (count)
		*seqs = xmalloc(count * sizeof **seqs);
	for (size_t i = 0; i < count; i++) /* sorted: a seq named twice is next to itself */
		if (*n == 0 || (*seqs)[*n - 1] != v[i].seq)
			(*seqs)[(*n)++] = v[i].seq;
	free_names(v, count);
	return 0;
}

/*
 * Reads one record file and checks that its content agrees with its name.
 * With a needle, a file whose bytes do not contain it is not parsed (returns 1).
 */
static int read_named_if(struct store *s, const char *name, const char *needle,
			 struct record *out, struct err *e)
{
	char expect[RECORD_FILE_NAME_MAX];
	char *data;
	size_t len;
	int rc;

	if (fs_read_at(s->dirfd, name, &data, &len, e) != 0)
		return -1;
	if (needle && !memmem(data, len, needle, strlen(needle))) {
		free(data);
		return 1;
	}
	rc = record_parse(data, len, name, out, e);
	free(data);
	if (rc != 0)
		return -1;
	record_file_name(out->seq, out->type_id, expect);
	if (strcmp(expect, name) != 0) {
		record_free(out);
		return err_set(e, ERR_UNREADABLE, "%s holds seq %lld of type '%s', which belongs in %s",
				name, out->seq, out->type_id, expect);
	}
	return 0;
}

static int read_named(struct store *s, const char *name, struct record *out, struct err *e)
{
	return read_named_if(s, name, NULL, out, e);
}

static int each(struct store *s, const char *needle,
		int (*fn)(struct record *r, void *ctx, struct err *e), void *ctx, struct err *e)
{
	struct strays strays = { 0 };
	struct entry *names;
	size_t n;
	int rc = 0;

	if (list_names(s, &names, &n, s->told_strays ? NULL : &strays, e) != 0)
		return -1;
	strays_tell(s, &strays);
	for (size_t i = 0; i < n && rc == VERDICT_NEXT; i++) {
		struct record r;
		struct err why;
		int got = read_named_if(s, names[i].name, needle, &r, &why);
		if (s->on_read)
			s->on_read(i + 1, n, s->on_read_ctx);
		if (got > 0)
			continue;
		if (got < 0) {
			if (why.code != ERR_NOT_FOUND) /* gone since the listing */
				warn_unreadable(s, names[i].name, &why);
			continue;
		}
		rc = fn(&r, ctx, e);
		record_free(&r);
	}
	free_names(names, n);
	return rc < 0 ? -1 : 0;
}

int store_each(struct store *s, int (*fn)(struct record *r, void *ctx, struct err *e), void *ctx,
	       struct err *e)
{
	return each(s, NULL, fn, ctx, e);
}

int store_each_mentioning(struct store *s, const char *needle,
			  int (*fn)(struct record *r, void *ctx, struct err *e), void *ctx,
			  struct err *e)
{
	return each(s, needle, fn, ctx, e);
}

/*
 * The parallel pass: workers take names off a shared counter, read and
 * pre-filter them, and call fn on the matches. Reading a hundred thousand
 * small files is system-call bound, so the cores share it.
 */
struct parallel {
	struct store *s;
	struct entry *names;
	size_t n;
	atomic_size_t next;
	atomic_size_t done;     /* files read, for on_read */
	size_t reported;        /* the most on_read was told (under mu) */
	atomic_int stop;
	const char *needle;
	int (*fn)(struct record *r, void *ctx, struct err *e);
	void *ctx;
	pthread_mutex_t mu; /* guards err and the warning stream */
	struct err err;
};

/* Every 64 files, and the last: a meter needs no more, and the mutex is shared. */
static void parallel_tick(struct parallel *p)
{
	size_t done = atomic_fetch_add(&p->done, 1) + 1;

	if (!p->s->on_read || (done % 64 != 0 && done != p->n))
		return;
	pthread_mutex_lock(&p->mu);
	if (done > p->reported) { /* threads finish out of order: never count backwards */
		p->reported = done;
		p->s->on_read(done, p->n, p->s->on_read_ctx);
	}
	pthread_mutex_unlock(&p->mu);
}

static void *parallel_worker(void *arg)
{
	struct parallel *p = arg;
	size_t i;

	while (!atomic_load(&p->stop) && (i = atomic_fetch_add(&p->next, 1)) < p->n) {
		struct record r;
		struct err why;
		int got = read_named_if(p->s, p->names[i].name, p->needle, &r, &why);
		parallel_tick(p);
		if (got > 0)
			continue;
		if (got < 0) {
			if (why.code != ERR_NOT_FOUND) {
				pthread_mutex_lock(&p->mu);
				warn_unreadable(p->s, p->names[i].name, &why);
				pthread_mutex_unlock(&p->mu);
			}
			continue;
		}
		got = p->fn(&r, p->ctx, &why);
		record_free(&r);
		if (got < 0) {
			pthread_mutex_lock(&p->mu);
			if (!atomic_load(&p->stop))
				p->err = why;
			atomic_store(&p->stop, 1);
			pthread_mutex_unlock(&p->mu);
		}
	}
	return NULL;
}

int store_each_parallel(struct store *s, const char *needle, unsigned threads,
			int (*fn)(struct record *r, void *ctx, struct err *e), void *ctx,
			struct err *e)
{
	struct parallel p = { .s = s, .needle = needle, .fn = fn, .ctx = ctx };
	struct strays strays = { 0 };
	pthread_t tid[STORE_MAX_THREADS];
	unsigned started = 0;

	if (threads > STORE_MAX_THREADS)
		threads = STORE_MAX_THREADS;
	if (list_names(s, &p.names, &p.n, s->told_strays ? NULL : &strays, e) != 0)
		return -1;
	strays_tell(s, &strays);
	atomic_init(&p.next, 0);
	atomic_init(&p.done, 0);
	atomic_init(&p.stop, 0);
	pthread_mutex_init(&p.mu, NULL);
	for (unsigned t = 1; t < threads; t++)
		if (pthread_create(&tid[started], NULL, parallel_worker, &p) == 0)
			started++;
	parallel_worker(&p); /* this thread works too */
	for (unsigned t = 0; t < started; t++)
		pthread_join(tid[t], NULL);
	pthread_mutex_destroy(&p.mu);
	free_names(p.names, p.n);
	if (atomic_load(&p.stop)) {
		*e = p.err;
		return -1;
	}
	return 0;
}

/*
 * The cache missed: one pass over the names, looking for seq's prefix. Of two
 * files with the same seq the first name in byte order wins, as in a listing.
 */
static int find_by_scan(struct store *s, long long seq, char name[RECORD_FILE_NAME_MAX],
			struct err *e)
{
	char prefix[32];
	size_t plen = (size_t)snprintf(prefix, sizeof prefix, "%010lld-", seq);
	struct dirent *d;
	long long got;
	int fd, found = 0;
	DIR *dir;

	fd = openat(s->dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || !(dir = fdopendir(fd))) {
		if (fd >= 0)
			close(fd);
		return err_errno(e, "reading %s", s->dir);
	}
	while ((d = readdir(dir)))
		if (strncmp(d->d_name, prefix, plen) == 0 && name_seq(d->d_name, &got) == 0 &&
		    got == seq && (!found || strcmp(d->d_name, name) < 0)) {
			snprintf(name, RECORD_FILE_NAME_MAX, "%s", d->d_name);
			found = 1;
		}
	closedir(dir);
	return found;
}

int store_find(struct store *s, long long seq, char name[RECORD_FILE_NAME_MAX], struct err *e)
{
	int found;

	if (s->dirfd >= 0 && find_by_types(s, seq, name))
		return 0;
	found = s->dirfd >= 0 ? find_by_scan(s, seq, name, e) : 0;
	if (found < 0)
		return -1;
	if (!found)
		return err_set(e, ERR_NOT_FOUND, "no request with seq %lld", seq);
	return 0;
}

struct owners {
	char *const *ids;
	long long *seqs;
	size_t n, left;
};

static int owners_one(struct record *r, void *arg, struct err *e)
{
	struct owners *o = arg;

	(void)e;
	for (size_t i = 0; i < o->n; i++)
		if (o->seqs[i] < 0 && record_has_draft(r, o->ids[i])) {
			o->seqs[i] = r->seq; /* the first record in seq order that lists it */
			o->left--;
		}
	return o->left ? VERDICT_NEXT : VERDICT_STOP;
}

/* "\"" and what every id begins with: each owner's file holds it, so others go unparsed. */
static char *owners_needle(char *const *ids, size_t n)
{
	size_t common = strlen(ids[0]);

	for (size_t i = 1; i < n; i++)
		for (size_t k = 0; k < common; k++)
			if (ids[i][k] != ids[0][k]) {
				common = k;
				break;
			}
	return xasprintf("\"%.*s", (int)common, ids[0]);
}

int store_owners_of_drafts(struct store *s, char *const *ids, size_t n, long long *seqs,
			   struct err *e)
{
	struct owners o = { ids, seqs, n, n };
	char *needle;
	int rc;

	for (size_t i = 0; i < n; i++)
		seqs[i] = -1;
	if (n == 0)
		return 0;
	needle = owners_needle(ids, n);
	rc = store_each_mentioning(s, needle, owners_one, &o, e);
	free(needle);
	return rc;
}

int store_get(struct store *s, long long seq, struct record *out, struct err *e)
{
	char name[RECORD_FILE_NAME_MAX];

	if (store_find(s, seq, name, e) != 0)
		return -1;
	if (read_named(s, name, out, e) != 0) {
		if (e->code == ERR_UNREADABLE)
			err_prefix(e, "request %lld is unreadable", seq);
		return -1;
	}
	return 0;
}

static int write_record(struct store *s, const struct record *r, struct err *e)
{
	char name[RECORD_FILE_NAME_MAX];
	char *path, *text;
	int rc;

	record_file_name(r->seq, r->type_id, name);
	path = fs_join(s->dir, name);
	text = record_serialize(r);
	rc = fs_replace(path, text, strlen(text), e);
	free(text);
	free(path);
	if (rc == 0)
		typecache_note(s->dir, r->type_id);
	return rc;
}

static int lock_store(struct store *s, struct err *e)
{
	char *path;
	int fd;

	if (s->dirfd < 0)
		return err_set(e, ERR_NOT_FOUND, "the request store %s does not exist", s->dir);
	path = fs_join(s->dir, ".lock");
	fd = lock_acquire(path, LOCK_EXCLUSIVE, e);
	free(path);
	if (fd >= 0 && !s->swept) {
		struct err ignored;

		/* Housekeeping: a sweep that cannot read the directory fails no write. */
		fs_temps_sweep(s->dir, NULL, &ignored);
		s->swept = 1;
	}
	return fd;
}

int store_update(struct store *s, long long seq,
		 int (*fn)(struct record *r, void *ctx, struct err *e), void *ctx, struct err *e)
{
	struct record r;
	int lock, rc;

	lock = lock_store(s, e);
	if (lock < 0)
		return -1;
	rc = store_get(s, seq, &r, e);
	if (rc == 0) {
		rc = fn(&r, ctx, e);
		if (rc == VERDICT_WRITE)
			rc = write_record(s, &r, e);
		record_free(&r);
	}
	lock_release(lock);
	return rc < 0 ? -1 : 0;
}

int store_put(struct store *s, struct record *r, struct err *e)
{
	struct record old;
	struct err ignored;
	json_t *mine, *ids, *v;
	size_t i;
	int lock, rc;

	lock = lock_store(s, e);
	if (lock < 0)
		return -1;
	if (store_get(s, r->seq, &old, &ignored) == 0) {
		if (strcmp(old.type_id, r->type_id) != 0) {
			record_free(&old);
			lock_release(lock);
			return err_set(e, ERR_SEQ_TAKEN, "seq %lld is already a '%s' request", r->seq,
					  old.type_id);
		}
		/* Ids on disk first, then the record's own: the list only ever grows. */
		mine = json_incref(record_outbox(r));
		ids = json_array();
		json_array_extend(ids, record_outbox(&old));
		json_object_set_new(r->doc, "outbox", ids);
		json_array_foreach(mine, i, v)
			record_add_outbox(r, json_string_value(v));
		json_decref(mine);
		record_free(&old);
	}
	rc = write_record(s, r, e);
	lock_release(lock);
	return rc;
}

/* The named record is this request (same created_at): 1, else -1 with why. */
static int same_request(struct store *s, long long seq, const char *name, const char *created_at,
			struct err *e)
{
	struct record r;
	struct err why;
	const char *was;
	int rc = 1;

	if (read_named(s, name, &r, &why) != 0)
		return err_set(e, ERR_UNREADABLE, "seq %lld: %s is at home and does not read, so it "
			       "is neither rewritten nor taken as this request; left at the box", seq,
			       name);
	was = record_created_at(&r);
	if (strcmp(was, created_at) != 0)
		rc = err_set(e, ERR_SEQ_TAKEN, "seq %lld: %s at home is another request (created %s; "
			     "the box's was created %s): neither is overwritten; left at the box", seq,
			     name, was, created_at);
	record_free(&r);
	return rc;
}

int store_holds(struct store *s, long long seq, const char *type_id, const char *created_at,
		struct err *e)
{
	char name[RECORD_FILE_NAME_MAX], want[RECORD_FILE_NAME_MAX];
	struct err none;

	if (s->dirfd < 0)
		return 0; /* no store yet: nothing is held */
	if (store_find(s, seq, name, &none) != 0)
		return none.code == ERR_NOT_FOUND ? 0 : (*e = none, -1);
	record_file_name(seq, type_id, want);
	if (strcmp(name, want) != 0)
		return err_set(e, ERR_SEQ_TAKEN, "seq %lld is %s at home, another request type than "
			       "the box's `%s`: not overwritten; left at the box", seq, name, type_id);
	return same_request(s, seq, name, created_at, e);
}

int store_create(struct store *s, struct record *r, struct err *e)
{
	char name[RECORD_FILE_NAME_MAX];
	char *path, *text;
	int lock, rc;

	if (record_check(r->doc, e) != 0)
		return -1;
	if (!grammar_checked(r))
		grammar_seal(r); /* the rule every record meets when it is made */
	lock = lock_store(s, e);
	if (lock < 0)
		return -1;
	record_file_name(r->seq, r->type_id, name);
	path = fs_join(s->dir, name);
	text = record_serialize(r);
	rc = store_holds(s, r->seq, r->type_id, record_created_at(r), e);
	if (rc != 0) {
		rc = rc == 1 ? 0 : -1;
	} else if ((rc = fs_create(path, text, strlen(text), e)) == 1) {
		typecache_note(s->dir, r->type_id); /* the store's hint, as every writer keeps it */
	} else if (rc == 0) {
		/* Written meanwhile by someone who takes no lock: is it this request? */
		int home = store_holds(s, r->seq, r->type_id, record_created_at(r), e);
		rc = home == 1 ? 0 : -1;
		if (home == 0)
			err_set(e, ERR_IO, "%s appeared and vanished while it was written", path);
	}
	free(text);
	free(path);
	lock_release(lock);
	return rc;
}

/* ---- the type cache, checked (mecha doctor) ------------------------------------ */

/* The type_id of a record file's name (name_seq has accepted it); new. */
static char *name_type(const char *name)
{
	const char *p = name + (name[0] == '-');
	size_t n = strlen(name);

	p += strspn(p, "0123456789");
	return xstrndup(p + 1, (size_t)(name + n - 5 - (p + 1)));
}

static int listed(char **v, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i], s) == 0)
			return 1;
	return 0;
}

int store_types_missing(struct store *s, int *has_cache, char ***missing, size_t *n,
			struct err *e)
{
	char *types = NULL;
	size_t len = 0, count;
	struct entry *v;

	*missing = NULL;
	*n = 0;
	*has_cache = typecache_read(s->dirfd, &types, &len) == 0;
	if (list_names(s, &v, &count, NULL, e) != 0) {
		free(types);
		return -1;
	}
	for (size_t i = 0; i < count; i++) {
		char *t = name_type(v[i].name);
		if ((types && typecache_has(types, len, t)) || listed(*missing, *n, t)) {
			free(t);
			continue;
		}
		*missing = xrealloc(*missing, (*n + 1) * sizeof **missing);
		(*missing)[(*n)++] = t;
	}
	free_names(v, count);
	free(types);
	return 0;
}

void store_types_free(char **types, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(types[i]);
	free(types);
}
