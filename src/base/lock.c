/*
 * lock — flock on a dedicated lock file, so the data files themselves can be
 * replaced by rename while the lock is held.
 */
#include "base/lock.h"

#include "base/err.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

static int lock_fd(int fd, const char *path, enum lock_mode mode, struct err *e)
{
	while (flock(fd, mode == LOCK_EXCLUSIVE ? LOCK_EX : LOCK_SH) != 0) {
		if (errno == EINTR)
			continue;
		err_errno(e, "locking %s", path);
		close(fd);
		return -1;
	}
	return fd;
}

int lock_acquire(const char *path, enum lock_mode mode, struct err *e)
{
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);

	if (fd < 0)
		return err_errno(e, "opening the lock %s", path);
	return lock_fd(fd, path, mode, e);
}

int lock_acquire_existing(const char *path, enum lock_mode mode, struct err *e)
{
	/* O_NONBLOCK: a FIFO planted in its place must not hang the reader. */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK);
	struct stat st;

	if (fd < 0 && errno == ENOENT)
		return err_set(e, ERR_NOT_FOUND, "%s: no such lock", path);
	if (fd < 0)
		return err_errno(e, "opening the lock %s", path);
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return err_set(e, ERR_IO, "the lock %s is not a regular file", path);
	}
	return lock_fd(fd, path, mode, e);
}

void lock_release(int fd)
{
	if (fd < 0)
		return;
	flock(fd, LOCK_UN);
	close(fd);
}
