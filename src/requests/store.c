/*
 * store — names first, then one record at a time.
 */
#include "requests/store.h"

#include "requests/digest.h"
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
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void index_drop(struct store *s);
static int lock_store(struct store *s, struct err *e);

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
	s->index = NULL;
	memset(&s->walk, 0, sizeof s->walk);
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
	index_drop(s);
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

/*
 * The names of a listing, kept small: a store of a hundred thousand records
 * lists a hundred thousand names, and a walk holds them all while it reads one
 * record at a time. A name the rule makes from its seq and type_id
 * (record_file_name) is kept as its seq and the index of its type in a table
 * of the few types the store holds; only a name the rule would not make
 * (0012-meeting.json: it is listed, to be reported unreadable) is kept whole.
 *
 * An entry is one 64-bit word, eight bytes a record: the seq, offset by
 * SEQ_BIAS, in the high 40 bits and the name in the low 24 (NAME_ODD and an
 * index into names.odd, or an index into names.types). Sorting the words as
 * numbers sorts by seq. A seq beyond +-2^39 is kept as an odd name whole, its
 * word holding the nearest bound, so the order stays right and the exact seq
 * is read back from the name. The words are sorted in place (heapsort): no
 * copy of the listing is made to sort it.
 */
#define NAME_BITS 24
#define NAME_MASK ((1u << NAME_BITS) - 1)
#define NAME_ODD (1u << (NAME_BITS - 1)) /* the rest indexes names.odd, not names.types */
#define NAME_MAX_INDEX (NAME_ODD - 1)
#define SEQ_BIAS (1LL << 39)

struct names {
	uint64_t *v;
	size_t n, cap;
	char **types, **odd;
	size_t ntypes, nodd;
	unsigned last; /* the type the previous name had: names come in runs */
	int full;      /* more types or odd names than an entry can index */
};

static uint64_t entry_make(long long seq, unsigned name)
{
	long long k = seq < -SEQ_BIAS ? -SEQ_BIAS : seq >= SEQ_BIAS ? SEQ_BIAS - 1 : seq;

	return ((uint64_t)(k + SEQ_BIAS) << NAME_BITS) | name;
}

static unsigned entry_name_bits(uint64_t x)
{
	return (unsigned)(x & NAME_MASK);
}

static int seq_fits(long long seq)
{
	return seq >= -SEQ_BIAS && seq < SEQ_BIAS;
}

static unsigned names_type(struct names *w, const char *type)
{
	if (w->last < w->ntypes && strcmp(w->types[w->last], type) == 0)
		return w->last;
	for (size_t i = 0; i < w->ntypes; i++)
		if (strcmp(w->types[i], type) == 0)
			return w->last = (unsigned)i;
	w->types = xrealloc(w->types, (w->ntypes + 1) * sizeof *w->types);
	w->types[w->ntypes] = xstrdup(type);
	return w->last = (unsigned)w->ntypes++;
}

/* name has passed name_seq with seq. */
static void names_add(struct names *w, long long seq, const char *name)
{
	char type[RECORD_TYPE_ID_MAX + 1], canon[RECORD_FILE_NAME_MAX];
	const char *p = name + (name[0] == '-');
	size_t len;

	p += strspn(p, "0123456789") + 1; /* past the dash */
	len = strlen(p) - 5;              /* without ".json" */
	memcpy(type, p, len);
	type[len] = '\0';
	record_file_name(seq, type, canon);
	if (w->ntypes > NAME_MAX_INDEX || w->nodd > NAME_MAX_INDEX) {
		w->full = 1;
		return;
	}
	if (w->n == w->cap) {
		w->cap = w->cap ? w->cap * 2 : 256;
		w->v = xrealloc(w->v, w->cap * sizeof *w->v);
	}
	if (seq_fits(seq) && strcmp(canon, name) == 0) {
		w->v[w->n++] = entry_make(seq, names_type(w, type) & NAME_MAX_INDEX);
		return;
	}
	w->odd = xrealloc(w->odd, (w->nodd + 1) * sizeof *w->odd);
	w->odd[w->nodd] = xstrdup(name);
	w->v[w->n++] = entry_make(seq, NAME_ODD | (unsigned)w->nodd++);
}

/* An entry's seq; an odd name's is read back from the name (it may not fit the word). */
static long long entry_seq(const struct names *w, uint64_t x)
{
	long long seq;

	if ((entry_name_bits(x) & NAME_ODD) &&
	    name_seq(w->odd[entry_name_bits(x) & ~NAME_ODD], &seq) == 0)
		return seq;
	return (long long)(x >> NAME_BITS) - SEQ_BIAS;
}

/* An entry's file name: in buf, or the odd name kept whole. */
static const char *entry_name(const struct names *w, uint64_t x, char buf[RECORD_FILE_NAME_MAX])
{
	unsigned name = entry_name_bits(x);

	if ((name & NAME_ODD) && (name & ~NAME_ODD) < w->nodd)
		return w->odd[name & ~NAME_ODD];
	/* Every word names one or the other; an empty name would only fail to open. */
	if (!(name & NAME_ODD) && name < w->ntypes)
		record_file_name(entry_seq(w, x), w->types[name], buf);
	else
		buf[0] = '\0';
	return buf;
}

static const char *names_at(const struct names *w, size_t i, char buf[RECORD_FILE_NAME_MAX])
{
	return entry_name(w, w->v[i], buf);
}

static int by_seq(const struct names *w, uint64_t x, uint64_t y)
{
	char bx[RECORD_FILE_NAME_MAX], by[RECORD_FILE_NAME_MAX];
	long long sx, sy;

	if (x >> NAME_BITS != y >> NAME_BITS)
		return x < y ? -1 : 1;
	if (x == y)
		return 0;
	sx = entry_seq(w, x);
	sy = entry_seq(w, y);
	if (sx != sy)
		return sx < sy ? -1 : 1;
	/* One seq, two files: byte order of the names, as a listing shows them. */
	return strcmp(entry_name(w, x, bx), entry_name(w, y, by));
}

static void sift_down(struct names *w, size_t root, size_t n)
{
	uint64_t *v = w->v;

	for (size_t child; (child = 2 * root + 1) < n; root = child) {
		uint64_t t;
		if (child + 1 < n && by_seq(w, v[child], v[child + 1]) < 0)
			child++;
		if (by_seq(w, v[root], v[child]) >= 0)
			return;
		t = v[root];
		v[root] = v[child];
		v[child] = t;
	}
}

/* Heapsort in place: the listing may be large and is never copied to be sorted. */
static void names_sort(struct names *w)
{
	for (size_t i = w->n / 2; i > 0; i--)
		sift_down(w, i - 1, w->n);
	for (size_t end = w->n; end > 1; end--) {
		uint64_t t = w->v[0];
		w->v[0] = w->v[end - 1];
		w->v[end - 1] = t;
		sift_down(w, 0, end - 1);
	}
}

/* What store.h's walk says of a listing. */
static void names_shape(struct store *s, const struct names *w)
{
	s->walk.n = w->n;
	s->walk.seq_width = 0;
	s->walk.type_width = 0;
	for (size_t i = 0; i < w->n; i++) {
		char seq[24];
		int n;
		if (entry_name_bits(w->v[i]) & NAME_ODD)
			continue; /* never handed on: its content cannot agree with its name */
		n = snprintf(seq, sizeof seq, "%lld", entry_seq(w, w->v[i]));
		if (n > s->walk.seq_width)
			s->walk.seq_width = n;
	}
	for (size_t i = 0; i < w->ntypes; i++)
		if ((int)strlen(w->types[i]) > s->walk.type_width)
			s->walk.type_width = (int)strlen(w->types[i]);
}

static void names_free(struct names *w)
{
	for (size_t i = 0; i < w->ntypes; i++)
		free(w->types[i]);
	for (size_t i = 0; i < w->nodd; i++)
		free(w->odd[i]);
	free(w->types);
	free(w->odd);
	free(w->v);
	memset(w, 0, sizeof *w);
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
static int list_names(struct store *s, struct names *out, struct strays *strays, struct err *e)
{
	struct dirent *d;
	DIR *dir;
	int fd;

	memset(out, 0, sizeof *out);
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
		names_add(out, seq, d->d_name);
	}
	closedir(dir);
	if (out->full) {
		names_free(out);
		return err_set(e, ERR_IO, "%s holds more than %u record types or misnamed record files; "
			       "it cannot be listed", s->dir, NAME_MAX_INDEX);
	}
	names_sort(out);
	return 0;
}

int store_seqs(struct store *s, long long **seqs, size_t *n, struct err *e)
{
	struct names w;

	*seqs = NULL;
	*n = 0;
	if (list_names(s, &w, NULL, e) != 0)
		return -1;
	if (w.n)
		*seqs = xmalloc(w.n * sizeof **seqs);
	for (size_t i = 0; i < w.n; i++) /* sorted: a seq named twice is next to itself */
		if (*n == 0 || (*seqs)[*n - 1] != entry_seq(&w, w.v[i]))
			(*seqs)[(*n)++] = entry_seq(&w, w.v[i]);
	names_free(&w);
	return 0;
}

/*
 * Reads one record file and checks that its content agrees with its name.
 * With a needle, a file whose bytes do not contain it is not parsed (returns 1).
 */
static int read_named_id(struct store *s, const char *name, const char *needle,
			 struct record *out, struct fs_identity *id, struct err *e)
{
	char expect[RECORD_FILE_NAME_MAX];
	char *data;
	size_t len;
	int rc;

	if ((id ? fs_read_at_identity(s->dirfd, name, &data, &len, id, e)
		: fs_read_at(s->dirfd, name, &data, &len, e)) != 0)
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

static int read_named_if(struct store *s, const char *name, const char *needle,
			 struct record *out, struct err *e)
{
	return read_named_id(s, name, needle, out, NULL, e);
}

static int read_named(struct store *s, const char *name, struct record *out, struct err *e)
{
	return read_named_if(s, name, NULL, out, e);
}

static int each(struct store *s, const char *needle,
		int (*fn)(struct record *r, void *ctx, struct err *e), void *ctx, struct err *e)
{
	struct strays strays = { 0 };
	struct names names;
	int rc = 0;

	if (list_names(s, &names, s->told_strays ? NULL : &strays, e) != 0)
		return -1;
	strays_tell(s, &strays);
	names_shape(s, &names);
	for (size_t i = 0; i < names.n && rc == VERDICT_NEXT; i++) {
		char buf[RECORD_FILE_NAME_MAX];
		const char *name = names_at(&names, i, buf);
		struct record r;
		struct err why;
		int got = read_named_if(s, name, needle, &r, &why);
		if (s->on_read)
			s->on_read(i + 1, names.n, s->on_read_ctx);
		if (got > 0)
			continue;
		if (got < 0) {
			if (why.code != ERR_NOT_FOUND) /* gone since the listing */
				warn_unreadable(s, name, &why);
			continue;
		}
		rc = fn(&r, ctx, e);
		record_free(&r);
	}
	names_free(&names);
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
 * The digest walk. A file whose identity is the kept one (and whose digest the
 * caller says still holds) is not read; every other is read, its digest made,
 * and kept when its version is settled (base/fs.h) — a version made in the
 * walk's own moment could be followed by a change its identity cannot tell.
 * The kept file is begun anew only at the walk's first difference from it
 * (digest_writer_open copies what came before), and put in place under the
 * store's lock by a walk that ran to the end: a walk that finds nothing
 * changed writes nothing.
 */
struct digest_walk {
	struct store *s;
	const struct store_digest *d;
	struct digest_reader in;
	struct digest_writer out;
	int may_write; /* the store's directory is there and its owner may write it */
	int writing;
	struct timespec began;
	struct buf made;
};

/* The walk differs from the kept file from here on: the new one is begun (once). */
static void digest_changed(struct digest_walk *w)
{
	if (w->writing || !w->may_write)
		return;
	w->writing = digest_writer_open(&w->out, w->s->dir, w->d->cache, w->d->format, &w->in) == 0;
	w->may_write = w->writing;
}

/* The file's digest, kept or made now, into w->made; 1 to use it, 0 to pass the file over. */
static int digest_one(struct digest_walk *w, long long seq, const char *name, int *keep,
		      struct fs_identity *id, struct err *e)
{
	int passed = 0;
	const struct digest_entry *kept = digest_reader_find(&w->in, seq, name, &passed);
	struct record r;
	struct err why;
	int rc;

	if (passed)
		digest_changed(w); /* records gone since */
	*keep = 0;
	buf_reset(&w->made);
	if (kept && fs_identity_at(w->s->dirfd, name, id) == 0 && fs_identity_same(id, &kept->id) &&
	    (!w->d->holds || w->d->holds(kept->data, kept->len, w->d->ctx))) {
		buf_add(&w->made, kept->data, kept->len);
		digest_reader_reused(&w->in);
		*keep = 1;
		return 1;
	}
	if (kept)
		digest_changed(w); /* the kept entry no longer holds */
	rc = read_named_id(w->s, name, NULL, &r, id, &why);
	if (rc != 0) {
		if (why.code != ERR_NOT_FOUND) /* gone since the listing */
			warn_unreadable(w->s, name, &why);
		return 0;
	}
	rc = w->d->make(&r, &w->made, w->d->ctx, e);
	record_free(&r);
	if (rc < 0)
		return -1;
	*keep = rc == STORE_DIGEST_KEEP && w->made.len <= DIGEST_MAX &&
		fs_identity_settled(id, &w->began);
	if (*keep)
		digest_changed(w); /* one more kept */
	return rc != STORE_DIGEST_SKIP;
}

/* The new kept file into place, under the lock writers take. */
static void digest_commit(struct digest_walk *w)
{
	struct err ignored;
	int fd = lock_store(w->s, &ignored);

	if (fd < 0)
		return; /* the file is dropped: the next walk reads what changed again */
	digest_writer_commit(&w->out);
	lock_release(fd);
}

int store_each_digest(struct store *s, const struct store_digest *d, struct err *e)
{
	struct digest_walk w = { s, d, { 0 }, { 0 }, 0, 0, { 0, 0 }, BUF_INIT };
	struct strays strays = { 0 };
	struct names names;
	struct stat st;
	int rc = VERDICT_NEXT;

	if (list_names(s, &names, s->told_strays ? NULL : &strays, e) != 0)
		return -1;
	strays_tell(s, &strays);
	names_shape(s, &names);
	clock_gettime(CLOCK_REALTIME, &w.began);
	digest_reader_open(&w.in, s->dirfd, d->cache, d->format);
	/* A store its owner made read-only is left so, even by root. */
	w.may_write = s->dirfd >= 0 && fstat(s->dirfd, &st) == 0 && (st.st_mode & S_IWUSR);
	for (size_t i = 0; i < names.n && rc == VERDICT_NEXT; i++) {
		char buf[RECORD_FILE_NAME_MAX];
		const char *name = names_at(&names, i, buf);
		long long seq = entry_seq(&names, names.v[i]);
		struct fs_identity id;
		int keep, got = digest_one(&w, seq, name, &keep, &id, e);
		if (s->on_read)
			s->on_read(i + 1, names.n, s->on_read_ctx);
		if (got < 0) {
			rc = -1;
			break;
		}
		if (got == 0)
			continue;
		if (keep && w.writing)
			digest_writer_add(&w.out, seq, name, &id, w.made.data, w.made.len);
		rc = d->use(seq, w.made.data ? w.made.data : "", w.made.len, d->ctx, e);
	}
	if (rc == VERDICT_NEXT && digest_reader_left(&w.in))
		digest_changed(&w); /* records gone since, after the last one listed */
	/* A walk stopped early keeps nothing it did not see: the file is left as it was. */
	if (w.writing && rc == VERDICT_NEXT)
		digest_commit(&w);
	if (w.writing)
		digest_writer_end(&w.out);
	digest_reader_close(&w.in);
	buf_free(&w.made);
	names_free(&names);
	return rc < 0 ? -1 : 0;
}

/*
 * The parallel pass: workers take names off a shared counter, read and
 * pre-filter them, and call fn on the matches. Reading a hundred thousand
 * small files is system-call bound, so the cores share it.
 */
struct parallel {
	struct store *s;
	struct names names;
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
		char buf[RECORD_FILE_NAME_MAX];
		const char *name = names_at(&p->names, i, buf);
		struct record r;
		struct err why;
		int got = read_named_if(p->s, name, p->needle, &r, &why);
		parallel_tick(p);
		if (got > 0)
			continue;
		if (got < 0) {
			if (why.code != ERR_NOT_FOUND) {
				pthread_mutex_lock(&p->mu);
				warn_unreadable(p->s, name, &why);
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
	if (list_names(s, &p.names, s->told_strays ? NULL : &strays, e) != 0)
		return -1;
	p.n = p.names.n;
	names_shape(s, &p.names);
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
	names_free(&p.names);
	if (atomic_load(&p.stop)) {
		*e = p.err;
		return -1;
	}
	return 0;
}

/*
 * The cache missed: the store's name index, seq → file name, built by one
 * pass over the names and searched by seq from then on, so a drain of ten
 * thousand new seqs lists the directory once, not once a seq. The index holds
 * while the directory's mtime is the one it was built at (every create,
 * rename or removal of a name changes it); this store's own creates, made
 * under the lock, are added to it and move that mtime on. Of two files with
 * the same seq the first name in byte order wins, as in a listing.
 */
struct store_index {
	struct names names;
	struct timespec mtime; /* the directory's, when the index last agreed with it */
	int fresh;             /* agreed with it at the last lookup */
};

static int dir_mtime(struct store *s, struct timespec *t, struct err *e)
{
	struct stat st;

	if (fstat(s->dirfd, &st) != 0)
		return err_errno(e, "reading %s", s->dir);
	*t = st.st_mtim;
	return 0;
}

static int same_time(struct timespec a, struct timespec b)
{
	return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec;
}

static void index_drop(struct store *s)
{
	if (!s->index)
		return;
	names_free(&s->index->names);
	free(s->index);
	s->index = NULL;
}

/* A current index on s->index (built anew when the directory changed), or -1. */
static int index_current(struct store *s, struct err *e)
{
	struct timespec before, after = { 0, 0 };
	struct store_index *x;

	if (dir_mtime(s, &before, e) != 0)
		return -1;
	if (s->index && same_time(s->index->mtime, before))
		return s->index->fresh = 1, 0;
	index_drop(s);
	x = xcalloc(1, sizeof *x);
	if (list_names(s, &x->names, NULL, e) != 0 || dir_mtime(s, &after, e) != 0) {
		names_free(&x->names);
		free(x);
		return -1;
	}
	x->mtime = before;
	x->fresh = same_time(before, after); /* changed while it was read: good for this lookup only */
	s->index = x;
	return 0;
}

/* The first entry with seq, or the one after where it would be. */
static size_t index_lower(const struct names *w, long long seq)
{
	size_t lo = 0, hi = w->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (entry_seq(w, w->v[mid]) < seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int find_by_index(struct store *s, long long seq, char name[RECORD_FILE_NAME_MAX],
			 struct err *e)
{
	const struct names *w;
	size_t i;

	if (index_current(s, e) != 0)
		return -1;
	w = &s->index->names;
	i = index_lower(w, seq);
	if (i == w->n || entry_seq(w, w->v[i]) != seq)
		return 0;
	if (entry_name_bits(w->v[i]) & NAME_ODD)
		snprintf(name, RECORD_FILE_NAME_MAX, "%s", w->odd[entry_name_bits(w->v[i]) & ~NAME_ODD]);
	else
		names_at(w, i, name);
	return 1;
}

/*
 * This store created seq's record under the lock, just after a lookup found
 * the index current: the index takes the new name and the directory's new
 * mtime. Otherwise the next lookup rebuilds it.
 */
static void index_created(struct store *s, long long seq, const char *name)
{
	struct store_index *x = s->index;
	struct err ignored;
	size_t i;

	if (!x || !x->fresh || dir_mtime(s, &x->mtime, &ignored) != 0) {
		index_drop(s);
		return;
	}
	i = index_lower(&x->names, seq); /* no name has seq: the lookup said so */
	names_add(&x->names, seq, name); /* at the end */
	if (x->names.full) {
		index_drop(s);
		return;
	}
	if (i < x->names.n - 1) {        /* a seq below the last: into its place */
		uint64_t e = x->names.v[x->names.n - 1];
		memmove(&x->names.v[i + 1], &x->names.v[i], (x->names.n - 1 - i) * sizeof e);
		x->names.v[i] = e;
	}
	x->fresh = 0; /* until the next lookup checks the mtime again */
}

int store_find(struct store *s, long long seq, char name[RECORD_FILE_NAME_MAX], struct err *e)
{
	int found;

	if (s->dirfd >= 0 && find_by_types(s, seq, name))
		return 0;
	found = s->dirfd >= 0 ? find_by_index(s, seq, name, e) : 0;
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
		index_created(s, r->seq, name);
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
	size_t len = 0;
	struct names v;

	*missing = NULL;
	*n = 0;
	*has_cache = typecache_read(s->dirfd, &types, &len) == 0;
	if (list_names(s, &v, NULL, e) != 0) {
		free(types);
		return -1;
	}
	for (size_t i = 0; i < v.n; i++) {
		char buf[RECORD_FILE_NAME_MAX];
		char *t = name_type(names_at(&v, i, buf));
		if ((types && typecache_has(types, len, t)) || listed(*missing, *n, t)) {
			free(t);
			continue;
		}
		*missing = xrealloc(*missing, (*n + 1) * sizeof **missing);
		(*missing)[(*n)++] = t;
	}
	names_free(&v);
	free(types);
	return 0;
}

void store_types_free(char **types, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(types[i]);
	free(types);
}
