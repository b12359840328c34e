/*
 * fs — private directories, no-follow reads, atomic replace.
 */
#include "base/fs.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/text.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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
int fs_read_at(int dirfd, const char *name, char **out, size_t *len, struct err *e)
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
	close(fd);
	return rc;
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

int fs_replace(const char *path, const void *data, size_t len, struct err *e)
{
	char *dir = fs_dirname(path);
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	char *tmp = xasprintf("%s/.%s.XXXXXX", dir, base);
	int fd, rc = -1;

	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		err_errno(e, "creating a temporary file beside %s", path);
		goto out;
	}
	if (fchmod(fd, 0600) != 0 || fs_write_all(fd, data, len) != 0 || fsync(fd) != 0) {
		err_errno(e, "writing %s", tmp);
		close(fd);
		unlink(tmp);
		goto out;
	}
	if (close(fd) != 0) {
		err_errno(e, "writing %s", tmp);
		unlink(tmp);
		goto out;
	}
	if (rename(tmp, path) != 0) {
		err_errno(e, "replacing %s", path);
		unlink(tmp);
		goto out;
	}
	rc = fs_sync_dir(dir, e);
out:
	free(tmp);
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
	char *dir = fs_dirname(path);
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	char *tmp = xasprintf("%s/.%s.XXXXXX", dir, base);
	int fd, rc = -1;

	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		err_errno(e, "creating a temporary file beside %s", path);
		goto out;
	}
	if (fchmod(fd, 0600) != 0 || fs_write_all(fd, data, len) != 0 || fsync(fd) != 0) {
		err_errno(e, "writing %s", tmp);
		close(fd);
		unlink(tmp);
		goto out;
	}
	if (close(fd) != 0) {
		err_errno(e, "writing %s", tmp);
		unlink(tmp);
		goto out;
	}
	rc = move_new(tmp, path);
	if (rc < 0)
		err_errno(e, "creating %s", path);
	if (rc <= 0)
		unlink(tmp);
	if (rc == 1 && fs_sync_dir(dir, e) != 0)
		rc = -1;
out:
	free(tmp);
	free(dir);
	return rc;
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
