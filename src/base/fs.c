/*
 * fs — private directories, no-follow reads, atomic replace, and the sweep of
 * the temporary files a killed replace left.
 */
#include "base/fs.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/text.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int fs_is_dir(const char *path, struct err *e)
{
	struct stat st;

	if (stat(path, &st) == 0)
		return S_ISDIR(st.st_mode) ? 1 : 0;
	if (errno == ENOENT)
		return 0;
	return err_errno(e, "%s", path);
}

static int mkdir_one(const char *path, struct err *e)
{
	struct stat st;

	if (mkdir(path, 0700) == 0)
		return 0;
	if (errno != EEXIST)
		return err_errno(e, "creating %s", path);
	if (stat(path, &st) != 0)
		return err_errno(e, "%s", path);
	if (!S_ISDIR(st.st_mode))
		return err_set(e, ERR_IO, "%s exists and is not a directory", path);
	return 0;
}

/* chmod 0700 unless it is already; *was gets the old bits when they changed. */
static int tighten(const char *path, int *was, struct err *e)
{
	struct stat st;

	if (stat(path, &st) != 0)
		return err_errno(e, "%s", path);
	if ((st.st_mode & 07777) == 0700)
		return 0;
	if (chmod(path, 0700) != 0)
		return err_errno(e, "making %s private", path);
	*was = (int)(st.st_mode & 07777);
	return 0;
}

int fs_private_dir(const char *path, struct err *e)
{
	int was;

	return fs_private_dir_tighten(path, &was, e);
}

void fs_tell_tightened(FILE *f, const char *path, int was)
{
	if (!f || was < 0)
		return;
	fputs("mecha: tightened ", f);
	text_print(f, path, 0);
	fprintf(f, " from %04o to 0700\n", (unsigned)was);
}

int fs_private_dir_tighten(const char *path, int *was, struct err *e)
{
	char *copy = xstrdup(path);
	size_t n = strlen(copy);
	int rc = 0;

	*was = -1;

	while (n > 1 && copy[n - 1] == '/')
		copy[--n] = '\0';
	/* Parents first, each created 0700 only if missing; existing ones are left alone. */
	for (char *p = copy + 1; *p && rc == 0; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		rc = mkdir_one(copy, e);
		*p = '/';
	}
	if (rc == 0)
		rc = mkdir_one(copy, e);
	if (rc == 0)
		rc = tighten(copy, was, e);
	free(copy);
	return rc;
}

/*
 * Reads straight into a buffer sized from fstat. A short read of a regular
 * file is its end, so a file that did not change is read in one call (the
 * stores are read a hundred thousand files at a time).
 */
static int read_fd(int fd, const char *name, char **out, size_t *len, struct err *e)
{
	struct stat st;
	size_t cap, got = 0;
	char *p;

	if (fstat(fd, &st) != 0)
		return err_errno(e, "%s", name);
	if (!S_ISREG(st.st_mode))
		return err_set(e, ERR_IO, "%s is not a regular file", name);
	if ((size_t)st.st_size > FS_READ_MAX)
		return err_set(e, ERR_IO, "%s is larger than %zu bytes", name, FS_READ_MAX);
	cap = (size_t)st.st_size + 1;
	p = xmalloc(cap + 1);
	for (;;) {
		ssize_t n = read(fd, p + got, cap - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			free(p);
			return err_errno(e, "reading %s", name);
		}
		got += (size_t)n;
		if (got < cap)
			break; /* short read: the end of the file */
		if (cap >= FS_READ_MAX) {
			free(p);
			return err_set(e, ERR_IO, "%s is larger than %zu bytes", name, FS_READ_MAX);
		}
		cap *= 2; /* it grew since fstat */
		p = xrealloc(p, cap + 1);
	}
	p[got] = '\0';
	*len = got;
	*out = p;
	return 0;
}

static int open_failed(const char *name, struct err *e)
{
	if (errno == ENOENT)
		return err_set(e, ERR_NOT_FOUND, "%s: no such file", name);
	if (errno == ELOOP)
		return err_set(e, ERR_IO, "%s is a symbolic link; store files never are", name);
	return err_errno(e, "opening %s", name);
}

/*
 * Most store files are small: one read into a stack buffer answers them with
 * three system calls (open, read, close). Only a file that fills the buffer
 * goes the long way, through fstat, which also refuses anything that is not a
 * regular file. O_NONBLOCK keeps a FIFO planted in a store from hanging us.
 */
static void identity_of(const struct stat *st, struct fs_identity *id)
{
	id->dev = (unsigned long long)st->st_dev;
	id->ino = (unsigned long long)st->st_ino;
	id->size = (unsigned long long)st->st_size;
	id->mtime_s = (long long)st->st_mtim.tv_sec;
	id->mtime_ns = (long long)st->st_mtim.tv_nsec;
	id->ctime_s = (long long)st->st_ctim.tv_sec;
	id->ctime_ns = (long long)st->st_ctim.tv_nsec;
}

static int read_at(int dirfd, const char *name, char **out, size_t *len, struct fs_identity *id,
		   struct err *e);

int fs_read_at(int dirfd, const char *name, char **out, size_t *len, struct err *e)
{
	return read_at(dirfd, name, out, len, NULL, e);
}

int fs_read_at_identity(int dirfd, const char *name, char **out, size_t *len,
			struct fs_identity *id, struct err *e)
{
	return read_at(dirfd, name, out, len, id, e);
}

/* The identity of what fd was read from, once it was read: it must be a regular file. */
static int read_identity(int fd, const char *name, struct fs_identity *id, struct err *e)
{
	struct stat st;

	if (fstat(fd, &st) != 0)
		return err_errno(e, "%s", name);
	if (!S_ISREG(st.st_mode))
		return err_set(e, ERR_IO, "%s is not a regular file", name);
	identity_of(&st, id);
	return 0;
}

static int read_at(int dirfd, const char *name, char **out, size_t *len, struct fs_identity *id,
		   struct err *e)
{
	int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK);
	char small[16384];
	ssize_t n;
	int rc;

	if (fd < 0)
		return open_failed(name, e);
	do
		n = read(fd, small, sizeof small);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		rc = errno == EISDIR ? err_set(e, ERR_IO, "%s is not a regular file", name)
				     : err_errno(e, "reading %s", name);
	} else if ((size_t)n < sizeof small) {
		*out = xmalloc((size_t)n + 1);
		memcpy(*out, small, (size_t)n);
		(*out)[n] = '\0';
		*len = (size_t)n;
		rc = 0;
	} else if (lseek(fd, 0, SEEK_SET) != 0) {
		rc = err_set(e, ERR_IO, "%s is not a regular file", name);
	} else {
		rc = read_fd(fd, name, out, len, e);
	}
	if (rc == 0 && id && read_identity(fd, name, id, e) != 0) {
		free(*out);
		*out = NULL;
		rc = -1;
	}
	close(fd);
	return rc;
}

int fs_identity_same(const struct fs_identity *a, const struct fs_identity *b)
{
	return a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
	       a->mtime_s == b->mtime_s && a->mtime_ns == b->mtime_ns && a->ctime_s == b->ctime_s &&
	       a->ctime_ns == b->ctime_ns;
}

/*
 * A threshold a test build may set through the environment variable env (a
 * whole number, else the default); a release build reads no variable.
 */
static long threshold(const char *env, long dflt)
{
#ifdef MECHA_TEST_BUILD
	const char *s = getenv(env);
	char *end;
	long v;

	if (!s || *s < '0' || *s > '9')
		return dflt;
	errno = 0;
	v = strtol(s, &end, 10);
	return errno || *end ? dflt : v;
#else
	(void)env;
	return dflt;
#endif
}

int fs_identity_settled(const struct fs_identity *id, const struct timespec *since)
{
	long long margin = threshold(FS_SETTLED_ENV, FS_SETTLED_MS);
	long long made, before;

	if (id->ino == 0)
		return 1;
	/* In milliseconds: a change time of the year 292 million would not fit, nor matter. */
	made = id->ctime_s * 1000 + id->ctime_ns / 1000000;
	before = (long long)since->tv_sec * 1000 + since->tv_nsec / 1000000;
	return made + margin < before;
}

int fs_identity_at(int dirfd, const char *name, struct fs_identity *id)
{
	struct stat st;

	memset(id, 0, sizeof *id);
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return errno == ENOENT ? 1 : -1;
	if (!S_ISREG(st.st_mode))
		return -1;
	identity_of(&st, id);
	return 0;
}

int fs_read(const char *path, char **out, size_t *len, struct err *e)
{
	return fs_read_at(AT_FDCWD, path, out, len, e);
}

int fs_write_all(int fd, const void *data, size_t len)
{
	const char *p = data;

	while (len > 0) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int fs_sync_dir(const char *dir, struct err *e)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int rc = 0;

	if (fd < 0)
		return err_errno(e, "opening %s", dir);
	if (fsync(fd) != 0 && errno != EINVAL)
		rc = err_errno(e, "syncing %s", dir);
	close(fd);
	return rc;
}

/*
 * The bytes written whole to a new temporary file beside path, named
 * DIR/.NAME.XXXXXX (the name fs_temp_name recognises), synced and closed.
 * On success *tmp is its new path (free it); on failure nothing is left.
 */
static int write_temp(const char *dir, const char *path, const void *data, size_t len,
		      char **tmp, struct err *e)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	char *t = xasprintf("%s/.%s.XXXXXX", dir, base);
	int fd = mkostemp(t, O_CLOEXEC);

	if (fd < 0) {
		err_errno(e, "creating a temporary file beside %s", path);
		free(t);
		return -1;
	}
	if (fchmod(fd, 0600) != 0 || fs_write_all(fd, data, len) != 0 || fsync(fd) != 0) {
		err_errno(e, "writing %s", t);
		close(fd);
		goto fail;
	}
	if (close(fd) != 0) {
		err_errno(e, "writing %s", t);
		goto fail;
	}
	*tmp = t;
	return 0;
fail:
	unlink(t);
	free(t);
	return -1;
}

int fs_replace(const char *path, const void *data, size_t len, struct err *e)
{
	char *dir = fs_dirname(path), *tmp;
	int rc = -1;

	if (write_temp(dir, path, data, len, &tmp, e) != 0)
		goto out;
	if (rename(tmp, path) != 0) {
		err_errno(e, "replacing %s", path);
		unlink(tmp);
	} else {
		rc = fs_sync_dir(dir, e);
	}
	free(tmp);
out:
	free(dir);
	return rc;
}

/* tmp moved to path unless path exists: 1 moved, 0 path was there, -1 with errno. */
static int move_new(const char *tmp, const char *path)
{
	if (renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_NOREPLACE) == 0)
		return 1;
	if (errno == EEXIST)
		return 0;
	if (errno != EINVAL && errno != ENOSYS)
		return -1;
	/* No RENAME_NOREPLACE here: link(2) refuses an existing name just as well. */
	if (link(tmp, path) != 0)
		return errno == EEXIST ? 0 : -1;
	unlink(tmp);
	return 1;
}

int fs_create(const char *path, const void *data, size_t len, struct err *e)
{
	char *dir = fs_dirname(path), *tmp;
	int rc = -1;

	if (write_temp(dir, path, data, len, &tmp, e) != 0)
		goto out;
	rc = move_new(tmp, path);
	if (rc < 0)
		err_errno(e, "creating %s", path);
	if (rc <= 0)
		unlink(tmp);
	if (rc == 1 && fs_sync_dir(dir, e) != 0)
		rc = -1;
	free(tmp);
out:
	free(dir);
	return rc;
}

/* ---- what a killed writer left ------------------------------------------------------ */

/* mkstemp's six characters: glibc draws them from letters and digits. */
static int temp_suffix(const char *s)
{
	for (int i = 0; i < 6; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9')))
			return 0;
	return s[6] == '\0';
}

int fs_temp_name(const char *name, const char *const *stems)
{
	size_t n = strlen(name);

	/* ".", a target of at least one byte, ".", six: nine bytes at least. */
	if (n < 9 || name[0] != '.' || name[n - 7] != '.' || !temp_suffix(name + n - 6))
		return 0;
	if (!stems)
		return 1;
	for (size_t i = 0; stems[i]; i++)
		if (strlen(stems[i]) <= n - 8 && strncmp(name + 1, stems[i], strlen(stems[i])) == 0)
			return 1;
	return 0;
}

long fs_temp_age(void)
{
	return threshold(FS_TEMP_AGE_ENV, FS_TEMP_AGE);
}

/* 1 when the entry is a regular file (never followed) at least age seconds old. */
static int temp_old(int dirfd, const char *name, time_t now, long age)
{
	struct stat st;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
		return 0;
	return st.st_mtime <= now && now - st.st_mtime >= age;
}

/* One old temp: removed (remove), or its name added to *names. */
static void temps_take(int dirfd, const char *name, int remove, char ***names, size_t *n)
{
	if (remove) {
		/* Flags 0: never a directory, and a name is removed, never what it points at. */
		if (unlinkat(dirfd, name, 0) == 0)
			(*n)++;
		return;
	}
	*names = xrealloc(*names, (*n + 1) * sizeof **names);
	(*names)[(*n)++] = xstrdup(name);
}

/* The walk both ends share, on a descriptor that is dir itself, never a link to one. */
static int temps_walk(const char *dir, const char *const *stems, int remove, char ***names,
		      size_t *n, struct err *e)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	time_t now = time(NULL);
	long age = fs_temp_age();
	struct dirent *de;
	DIR *d;

	if (fd < 0 && errno == ENOENT)
		return 0;
	if (fd < 0 || !(d = fdopendir(fd))) {
		err_errno(e, "opening %s", dir);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	while ((de = readdir(d)))
		if (fs_temp_name(de->d_name, stems) && temp_old(fd, de->d_name, now, age))
			temps_take(fd, de->d_name, remove, names, n);
	closedir(d);
	return 0;
}

int fs_temps_sweep(const char *dir, const char *const *stems, struct err *e)
{
	size_t n = 0;

	if (temps_walk(dir, stems, 1, NULL, &n, e) != 0)
		return -1;
	return (int)(n > INT_MAX ? INT_MAX : n);
}

int fs_temps_left(const char *dir, const char *const *stems, char ***names, size_t *n,
		  struct err *e)
{
	*names = NULL;
	*n = 0;
	if (temps_walk(dir, stems, 0, names, n, e) == 0)
		return 0;
	fs_names_free(*names, *n);
	*names = NULL;
	*n = 0;
	return -1;
}

void fs_names_free(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

char *fs_join(const char *dir, const char *name)
{
	size_t n = strlen(dir);

	if (n > 0 && dir[n - 1] == '/')
		return xasprintf("%s%s", dir, name);
	return xasprintf("%s/%s", dir, name);
}

char *fs_dirname(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *out;

	if (!slash)
		return xstrdup(".");
	if (slash == path)
		return xstrdup("/");
	out = xmalloc((size_t)(slash - path) + 1);
	memcpy(out, path, (size_t)(slash - path));
	out[slash - path] = '\0';
	return out;
}

int fs_parent_dir(const char *path, struct err *e)
{
	char *dir = fs_dirname(path);
	int rc = fs_is_dir(dir, e);

	if (rc == 0)
		rc = fs_private_dir(dir, e);
	free(dir);
	return rc < 0 ? -1 : 0;
}

char *fs_expand_home(const char *path)
{
	const char *home = getenv("HOME");

	if (home && *home && path[0] == '~' && (path[1] == '/' || path[1] == '\0'))
		return xasprintf("%s%s", home, path + 1);
	return xstrdup(path);
}
