/*
 * scratch — a fuzz target's scratch directory: made once, in memory when the
 * machine offers it (/dev/shm: a target that writes and fsyncs runs at memory
 * speed), else under $TMPDIR or /tmp, and removed with all it holds when the
 * fuzzer exits normally. One per target (the path is this file's static).
 */
#ifndef MECHA_FUZZ_SCRATCH_H
#define MECHA_FUZZ_SCRATCH_H

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static char scratch_path[256];

static int scratch_remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void scratch_remove(void)
{
	nftw(scratch_path, scratch_remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* Makes "<dir>/mecha-fuzz-NAME-XXXXXX" and returns its path; aborts when it cannot. */
static inline const char *scratch_dir(const char *name)
{
	const char *tmp = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : getenv("TMPDIR");

	if ((size_t)snprintf(scratch_path, sizeof scratch_path, "%s/mecha-fuzz-%s-XXXXXX",
			     tmp && *tmp ? tmp : "/tmp", name) >= sizeof scratch_path ||
	    !mkdtemp(scratch_path))
		abort();
	if (atexit(scratch_remove) != 0)
		abort();
	return scratch_path;
}

#endif
