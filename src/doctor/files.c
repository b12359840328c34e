/*
 * files — the home on disk: there, private, with its stores, and the request
 * store's type cache. Everything is read with lstat and never followed: a
 * link inside a home is reported by what it is, not by what it points at.
 */
#include "doctor/check.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/fs.h"
#include "base/text.h"
#include "config/home.h"
#include "requests/store.h"
#include "mission/board.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void doctor_home(struct doctor *d)
{
	struct stat st;

	if (!d->home) {
		doctor_say(d, "home", DOCTOR_FAIL, "set MECHA_HOME (or HOME)",
			   "neither MECHA_HOME nor HOME is set, so mecha has no home");
	} else if (stat(d->home, &st) != 0) {
		doctor_say(d, "home", DOCTOR_FAIL, "mecha init makes one", "%s: %s", d->home,
			   errno == ENOENT ? "there is no home here" : strerror(errno));
	} else if (!S_ISDIR(st.st_mode)) {
		doctor_say(d, "home", DOCTOR_FAIL, "move it away, then mecha init",
			   "%s is not a directory", d->home);
	} else if (st.st_uid != geteuid()) {
		doctor_say(d, "home", DOCTOR_FAIL, "use a home of your own (MECHA_HOME)",
			   "%s belongs to uid %u, not to you", d->home, (unsigned)st.st_uid);
	} else {
		d->home_ok = 1;
		doctor_say(d, "home", DOCTOR_OK, NULL, "%s", d->home);
	}
}

/* ---- permissions ------------------------------------------------------------------ */

#define NAMED 3    /* offenders named in a line; the rest are counted */
#define DEPTH 16   /* deeper than any store mecha makes */

struct perms {
	const char *root;
	size_t dirs, files;
	size_t nloose, ntight, nforeign;
	struct buf loose, tight, foreign; /* the first NAMED of each, "path (0755)" */
};

static void note(struct buf *b, size_t *count, const char *root, const char *path, mode_t mode)
{
	const char *rel = strncmp(path, root, strlen(root)) == 0 && path[strlen(root)] == '/'
				  ? path + strlen(root) + 1 : path;

	if ((*count)++ < NAMED)
		buf_printf(b, "%s%s (%04o)", b->len ? ", " : "", rel, (unsigned)(mode & 07777));
}

static void judge(struct perms *p, const char *path, const struct stat *st)
{
	int dir = S_ISDIR(st->st_mode);
	mode_t own = dir ? S_IRWXU : (S_IRUSR | S_IWUSR);

	if (!dir && !S_ISREG(st->st_mode))
		return;
	dir ? p->dirs++ : p->files++;
	if (st->st_mode & (S_IRWXG | S_IRWXO))
		note(&p->loose, &p->nloose, p->root, path, st->st_mode);
	else if ((st->st_mode & own) != own)
		note(&p->tight, &p->ntight, p->root, path, st->st_mode);
	if (st->st_uid != geteuid())
		note(&p->foreign, &p->nforeign, p->root, path, st->st_mode);
}

static void walk(struct perms *p, int dirfd, const char *path, int depth)
{
	DIR *dir = fdopendir(dirfd);
	struct dirent *de;

	if (!dir) {
		close(dirfd);
		return;
	}
	while ((de = readdir(dir))) {
		struct stat st;
		char *child;
		int fd;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0 ||
		    fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
			continue;
		child = fs_join(path, de->d_name);
		judge(p, child, &st);
		if (S_ISDIR(st.st_mode) && depth < DEPTH &&
		    (fd = openat(dirfd, de->d_name,
				 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) >= 0)
			walk(p, fd, child, depth + 1);
		free(child);
	}
	closedir(dir);
}

static void walk_root(struct perms *p, const char *root)
{
	struct stat st;
	int fd;

	if (lstat(root, &st) != 0)
		return;
	judge(p, root, &st);
	if (S_ISDIR(st.st_mode) &&
	    (fd = open(root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) >= 0)
		walk(p, fd, root, 1);
}

static void perms_free(struct perms *p)
{
	buf_free(&p->loose);
	buf_free(&p->tight);
	buf_free(&p->foreign);
}

static const char *more(size_t n, char *buf, size_t size)
{
	if (n <= NAMED)
		return "";
	snprintf(buf, size, " and %zu more", n - NAMED);
	return buf;
}

/* The outbox when it lives outside the home (config.toml's [outbox] dir). */
static const char *outside_outbox(const struct doctor *d)
{
	const char *o = d->cfg_ok ? d->cfg.outbox_dir : NULL;
	size_t n = strlen(d->home);

	if (!o || (strncmp(o, d->home, n) == 0 && (o[n] == '/' || o[n] == '\0')))
		return NULL;
	return o;
}

void doctor_permissions(struct doctor *d)
{
	struct perms p = { d->home, 0, 0, 0, 0, 0, BUF_INIT, BUF_INIT, BUF_INIT };
	const char *outbox = outside_outbox(d);
	char m[32], *fix;

	walk_root(&p, d->home);
	if (outbox)
		walk_root(&p, outbox);
	fix = xasprintf("chmod -R go-rwx %s%s%s", d->home, outbox ? " " : "", outbox ? outbox : "");
	if (p.nloose)
		doctor_say(d, "permissions", DOCTOR_FAIL, fix, "open to others: %s%s (directories "
			   "must be 0700, files 0600)", buf_str(&p.loose), more(p.nloose, m, sizeof m));
	else if (p.nforeign)
		doctor_say(d, "permissions", DOCTOR_WARN, "chown them to yourself",
			   "not yours: %s%s", buf_str(&p.foreign), more(p.nforeign, m, sizeof m));
	else if (p.ntight)
		doctor_say(d, "permissions", DOCTOR_WARN, "chmod u+rwX on them",
			   "mecha cannot write to %s%s", buf_str(&p.tight), more(p.ntight, m, sizeof m));
	else
		doctor_say(d, "permissions", DOCTOR_OK, NULL, "%zu %s (0700) and %zu %s (0600), none "
			   "open to others", p.dirs, p.dirs == 1 ? "directory" : "directories", p.files,
			   p.files == 1 ? "file" : "files");
	free(fix);
	perms_free(&p);
}

/* ---- the stores ------------------------------------------------------------------- */

void doctor_stores(struct doctor *d)
{
	struct buf missing = BUF_INIT, paths = BUF_INIT, there = BUF_INIT;
	struct err e;

	for (size_t i = 1; i < home_nstores; i++) { /* [0] is the home itself */
		char *path = home_stores[i] == HOME_OUTBOX && d->cfg_ok
				     ? xstrdup(d->cfg.outbox_dir) : home_path(home_stores[i], &e);
		const char *name;
		int isdir;
		struct buf *into;

		if (!path)
			continue;
		name = path + (strncmp(path, d->home, strlen(d->home)) == 0 ? strlen(d->home) + 1 : 0);
		isdir = fs_is_dir(path, &e);
		into = isdir == 1 ? &there : &missing;

		buf_printf(into, "%s%s", into->len ? ", " : "", isdir == 1 ? name : path);
		if (isdir != 1)
			buf_printf(&paths, " %s", path);
		free(path);
	}
	if (missing.len) {
		char *fix = xasprintf("(umask 077; mkdir -p%s) — or let the first verb that writes "
				      "there make it", buf_str(&paths));
		doctor_say(d, "stores", DOCTOR_WARN, fix, "not made yet: %s", buf_str(&missing));
		free(fix);
	} else {
		doctor_say(d, "stores", DOCTOR_OK, NULL, "%s", buf_str(&there));
	}
	buf_free(&missing);
	buf_free(&paths);
	buf_free(&there);
}

/* ---- what a killed writer left ------------------------------------------------------ */

struct temps {
	const char *home;
	size_t n;
	struct buf named, rm; /* the first NAMED: as paths, and as rm's quoted arguments */
};

/* path from the home when it is inside it. */
static const char *from_home(const char *home, const char *path)
{
	size_t n = strlen(home);

	return strncmp(path, home, n) == 0 && path[n] == '/' ? path + n + 1 : path;
}

/* ' … ' around s, each ' in it as '\'': a name the shell takes as it is. */
static void shell_word(struct buf *b, const char *s)
{
	buf_adds(b, " '");
	for (; *s; s++) {
		if (*s == '\'')
			buf_adds(b, "'\\''");
		else
			buf_addc(b, *s);
	}
	buf_addc(b, '\'');
}

static void temps_in(struct temps *t, const char *dir, char **names, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char *path = fs_join(dir, names[i]);
		if (t->n++ < NAMED) {
			buf_printf(&t->named, "%s%s", t->named.len ? ", " : "",
				   from_home(t->home, path));
			shell_word(&t->rm, path);
		}
		free(path);
	}
	fs_names_free(names, n);
}

/* A store's directory: names as fs_temps_sweep would remove them. */
static void temps_dir(struct temps *t, const char *dir)
{
	char **names;
	size_t n;
	struct err e;

	if (fs_temps_left(dir, NULL, &names, &n, &e) == 0)
		temps_in(t, dir, names, n);
}

/* requests/attachments/<seq>/, each written by the drain (never through a link). */
static void temps_attachments(struct temps *t, const char *requests)
{
	char *top = fs_join(requests, "attachments");
	int fd = open(top, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;

	if (fd >= 0 && !dir)
		close(fd);
	while (dir && (de = readdir(dir))) {
		char *sub;
		if (de->d_name[0] == '.')
			continue;
		sub = fs_join(top, de->d_name);
		temps_dir(t, sub);
		free(sub);
	}
	if (dir)
		closedir(dir);
	free(top);
}

static void temps_box(struct temps *t)
{
	struct err e;
	char *box = home_path(HOME_MISSION_BOX, &e), *dir, **names;
	size_t n;

	if (box && board_temps_left(box, &names, &n, &e) == 0) {
		dir = fs_dirname(box);
		temps_in(t, dir, names, n);
		free(dir);
	}
	free(box);
}

static void say_temps(struct doctor *d, struct temps *t)
{
	long age = fs_temp_age();
	char m[32], *fix;

	if (t->n == 0) {
		doctor_say(d, "temps", DOCTOR_OK, NULL, "no temporary file left by a killed write");
		return;
	}
	fix = xasprintf("removed by the next write there, or delete them: rm --%s%s",
			buf_str(&t->rm), more(t->n, m, sizeof m));
	doctor_say(d, "temps", DOCTOR_WARN, fix, "%zu temporary %s left by a killed write "
		   "(older than %ld %s): %s%s", t->n, t->n == 1 ? "file" : "files",
		   age % 60 ? age : age / 60, age % 60 ? "seconds" : "minutes",
		   buf_str(&t->named), more(t->n, m, sizeof m));
	free(fix);
}

/*
 * The stores fs_replace and fs_create write into, read as their writers'
 * sweeps would see them, removing nothing.
 */
void doctor_temps(struct doctor *d)
{
	struct temps t = { d->home, 0, BUF_INIT, BUF_INIT };
	struct err e;
	char *requests = home_path(HOME_REQUESTS, &e);
	char *outbox = d->cfg_ok ? xstrdup(d->cfg.outbox_dir) : home_path(HOME_OUTBOX, &e);

	if (requests) {
		temps_dir(&t, requests);
		temps_attachments(&t, requests);
	}
	if (outbox)
		temps_dir(&t, outbox);
	temps_box(&t);
	say_temps(d, &t);
	free(requests);
	free(outbox);
	buf_free(&t.named);
	buf_free(&t.rm);
}

/* ---- the request store's type cache ------------------------------------------------- */

static void say_types(struct doctor *d, const char *dir, int has, char **missing, size_t n)
{
	struct buf names = BUF_INIT, lines = BUF_INIT;
	char *fix;

	for (size_t i = 0; i < n; i++) {
		buf_printf(&names, "%s%s", i ? ", " : "", missing[i]);
		buf_printf(&lines, "%s\\n", missing[i]);
	}
	if (n && has) {
		fix = xasprintf("printf '%s' >> %s/.types", buf_str(&lines), dir);
		doctor_say(d, "caches", DOCTOR_WARN, fix, "%s/.types does not list %s: finding "
			   "those requests by seq scans the whole store", dir, buf_str(&names));
		free(fix);
	} else if (n) {
		doctor_say(d, "caches", DOCTOR_OK, NULL, "%s has no .types yet (a lookup scans the "
			   "store; the next write starts it)", dir);
	} else if (has) {
		doctor_say(d, "caches", DOCTOR_OK, NULL, "%s/.types lists every type in the store",
			   dir);
	} else {
		doctor_say(d, "caches", DOCTOR_OK, NULL, "%s holds no requests yet", dir);
	}
	buf_free(&names);
	buf_free(&lines);
}

void doctor_types_cache(struct doctor *d)
{
	struct err e;
	char *dir = home_path(HOME_REQUESTS, &e), **missing = NULL;
	struct store s;
	size_t n = 0;
	int has = 0;

	err_clear(&e);
	if (!dir || store_open(&s, dir, STORE_READ, &e) != 0) {
		doctor_say(d, "caches", DOCTOR_FAIL, "see the permissions line", "%s", e.msg);
	} else if (s.dirfd < 0) {
		doctor_say(d, "caches", DOCTOR_OK, NULL, "no request store yet, so no .types");
		store_close(&s);
	} else {
		s.warn = NULL;
		if (store_types_missing(&s, &has, &missing, &n, &e) != 0)
			doctor_say(d, "caches", DOCTOR_FAIL, "see the permissions line", "%s", e.msg);
		else
			say_types(d, dir, has, missing, n);
		store_types_free(missing, n);
		store_close(&s);
	}
	free(dir);
}
