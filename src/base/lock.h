/*
 * lock — advisory whole-file locks (flock) on a store's lock file.
 *
 * Every read-modify-write of a store file happens between lock_acquire and
 * lock_release, and re-reads what it is about to change after acquiring. A
 * lock is never held across a model call or an editor.
 *
 * Ownership: the returned descriptor belongs to the caller until lock_release.
 */
#ifndef MECHA_BASE_LOCK_H
#define MECHA_BASE_LOCK_H

struct err;

enum lock_mode { LOCK_SHARED, LOCK_EXCLUSIVE };

/* Opens (creating, 0600, never through a symlink) and locks path; blocks. Returns the fd. */
int lock_acquire(const char *path, enum lock_mode mode, struct err *e);
/*
 * Locks path only when it already exists, creating nothing: for a reader that
 * must leave no file behind. Returns the fd, or -1 (ERR_NOT_FOUND when there is
 * no such file, ERR_IO when it cannot be opened or is not a regular file).
 */
int lock_acquire_existing(const char *path, enum lock_mode mode, struct err *e);
/* Unlocks and closes; a negative fd is ignored. */
void lock_release(int fd);

#endif
