/*
 * fs — the only ways mecha touches its stores: private directories, whole-file
 * reads that never follow a link, atomic replacement and durable appends.
 *
 * The rule: a store file is replaced by writing a unique temporary file in the
 * same directory, fsync'ing it, renaming it over the old one and fsync'ing the
 * directory, so a reader sees the old bytes or the new bytes and never a torn
 * mix, even across a crash. Directories are 0700, files 0600. A writer
 * killed between its temporary file and the rename leaves that file behind;
 * fs_temps_sweep removes such leftovers once no live writer can hold them.
 *
 * Ownership: functions returning char * return a new malloc'd string the caller
 * frees. Paths passed in are borrowed.
 */
#ifndef MECHA_BASE_FS_H
#define MECHA_BASE_FS_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>
#include <time.h>

struct err;

/* Largest file fs_read will load (a store file beyond this is unreadable). */
#define FS_READ_MAX ((size_t)256 << 20)

/*
 * Creates `path` with mode 0700 (and any missing parents, also 0700), or
 * tightens an existing directory to 0700. Only the leaf is tightened.
 */
int fs_private_dir(const char *path, struct err *e);
/*
 * fs_private_dir, telling the caller whether an existing leaf was loosened:
 * *was gets its old permission bits when they had to be changed, -1 when
 * nothing was (it was 0700 already, or it was just created).
 */
int fs_private_dir_tighten(const char *path, int *was, struct err *e);
/* "mecha: tightened PATH from 0755 to 0700" on f when was >= 0 (f may be NULL). */
void fs_tell_tightened(FILE *f, const char *path, int was);

/* 1 when path is an existing directory, 0 when absent; -1 on any other error. */
int fs_is_dir(const char *path, struct err *e);
/*
 * Creates the directory that path lives in (0700, with missing parents) when
 * it is missing; a directory that exists is left as the user made it.
 */
int fs_parent_dir(const char *path, struct err *e);

/*
 * Reads a whole regular file without following a final symlink. On success
 * *out is a new NUL-terminated buffer (free it) and *len its length.
 * A missing file fails with code "not_found".
 */
int fs_read(const char *path, char **out, size_t *len, struct err *e);
/* The same, relative to an open directory. */
int fs_read_at(int dirfd, const char *name, char **out, size_t *len, struct err *e);

/*
 * A file's identity: what tells one version of a file from another without
 * reading it, as git's index does (device, inode, size, modification and
 * change times, to the nanosecond). A replace makes a new inode; an edit in
 * place moves the change time, which no one can set back. ino 0 with every
 * other field 0: no such file.
 */
struct fs_identity {
	unsigned long long dev, ino, size;
	long long mtime_s, mtime_ns, ctime_s, ctime_ns;
};
/*
 * How far before a walk began a version must have been made for its identity
 * to tell it from every later version: file times come from a coarse clock
 * (a tick behind the real one) and some file systems keep whole seconds, so a
 * change made in the same tick as the version seen could leave every field
 * as it was. FS_SETTLED_MS unless, in a test build, MECHA_TEST_SETTLED_MS
 * says otherwise (as MECHA_TEST_TEMP_AGE does for FS_TEMP_AGE).
 */
#define FS_SETTLED_MS 2000
#define FS_SETTLED_ENV "MECHA_TEST_SETTLED_MS"
/* 1 when a and b are the same version of a file (or both say no file). */
int fs_identity_same(const struct fs_identity *a, const struct fs_identity *b);
/*
 * 1 when the version id names was made more than FS_SETTLED_MS (or the test
 * variable's) before since (a CLOCK_REALTIME reading taken before the file was
 * looked at), so any later change gives it another identity. A missing file
 * is settled.
 */
int fs_identity_settled(const struct fs_identity *id, const struct timespec *since);
/*
 * The identity of the regular file name in dirfd, without following a link:
 * 0 with *id filled; 1 when there is no such file (*id zeroed); -1 when name
 * is something else (a link, a directory) or cannot be looked at.
 */
int fs_identity_at(int dirfd, const char *name, struct fs_identity *id);
/* fs_read_at, with the identity of the file read (taken once it was read). */
int fs_read_at_identity(int dirfd, const char *name, char **out, size_t *len,
			struct fs_identity *id, struct err *e);

/* Atomically replaces (or creates) path with data, mode 0600. */
int fs_replace(const char *path, const void *data, size_t len, struct err *e);

/*
 * Creates path with data (0600) only when nothing is there by that name: the
 * bytes are written to a temporary file beside it and moved into place by a
 * rename that never replaces (link(2) where the file system lacks
 * RENAME_NOREPLACE), so the file appears whole or not at all, and a file
 * someone else wrote first is never overwritten. Returns 1 when it created
 * path, 0 when path already existed (nothing written), -1 on failure.
 */
int fs_create(const char *path, const void *data, size_t len, struct err *e);
/*
 * The temporary files fs_replace and fs_create leave when they are killed
 * between writing and renaming: DIR/.NAME.XXXXXX, NAME the file they were
 * making and XXXXXX mkstemp's six letters and digits.
 *
 * FS_TEMP_AGE: a temp file younger than this may still be a live writer's
 * (its write, fsync and rename take milliseconds, a slow disk seconds), so
 * only older ones are removed: fifteen minutes is far beyond any write and
 * short enough that a leftover does not outlive the next day's work. The
 * environment variable MECHA_TEST_TEMP_AGE (seconds) replaces it, for the
 * tests only (in a test build, -DMECHA_TEST_BUILD), as base/killpoint.h's
 * MECHA_TEST_KILL_AT does.
 */
#define FS_TEMP_AGE (15 * 60)
#define FS_TEMP_AGE_ENV "MECHA_TEST_TEMP_AGE"
/* The threshold in seconds: FS_TEMP_AGE unless the test variable says otherwise. */
long fs_temp_age(void);
/*
 * 1 when name is such a temp name: '.', a target of one byte or more, '.',
 * six of [A-Za-z0-9], nothing else (".notes.txt" is not one). stems NULL:
 * any target; else a NULL-terminated list, and the target must begin with
 * one of them (a directory mecha shares with other files).
 */
int fs_temp_name(const char *name, const char *const *stems);
/*
 * Removes from dir every entry fs_temp_name accepts that is a regular file
 * (lstat: a symlink, a directory or a FIFO by that name is left alone) last
 * modified at least fs_temp_age() seconds ago, through unlinkat on an
 * O_DIRECTORY|O_NOFOLLOW descriptor. One readdir: call it once per opening
 * of a store for writing, under the store's lock, not once per write.
 * Returns how many it removed (a missing dir: 0), -1 when dir cannot be read.
 */
int fs_temps_sweep(const char *dir, const char *const *stems, struct err *e);
/*
 * The same walk, removing nothing: *names (fs_names_free) gets the names the
 * sweep would remove, *n how many. For mecha doctor, which never writes.
 */
int fs_temps_left(const char *dir, const char *const *stems, char ***names, size_t *n,
		  struct err *e);
void fs_names_free(char **names, size_t n);

/* Writes all of data to fd, retrying short writes and EINTR. */
int fs_write_all(int fd, const void *data, size_t len);

/* fsync of a directory, so a rename or a new entry in it survives a crash. */
int fs_sync_dir(const char *dir, struct err *e);

/* dir + "/" + name. */
char *fs_join(const char *dir, const char *name);
/* The directory part of path ("." when there is none). */
char *fs_dirname(const char *path);
/* A leading "~/" (or a lone "~") expanded from $HOME; otherwise a copy. */
char *fs_expand_home(const char *path);

#endif
