/*
 * lock — flock on a dedicated lock file, so the data files themselves can be
 * replaced by rename while the lock is held.
 */
#include "base/lock.h"

#include "base/err.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

int lock_acquire(const char *path, enum lock_mode mode, struct err *e)
{
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);

	if (fd < 0)
		return err_errno(e, "opening the lock %s", path);
	while (flock(fd, mode == LOCK_EXCLUSIVE ? LOCK_EX : LOCK_SH) != 0) {
		if (errno == EINTR)
			continue;
		err_errno(e, "locking %s", path);
		close(fd);
		return -1;
	}
	return fd;
}

void lock_release(int fd)
{
	if (fd < 0)
		return;
	flock(fd, LOCK_UN);
	close(fd);
}
