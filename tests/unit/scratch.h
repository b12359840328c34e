/*
 * scratch — the unit tests' temporary directories. They go under $TMPDIR
 * (`make unit` points it at a directory of its own under build/ and removes
 * it afterwards), never straight into /tmp, so a test run leaves nothing there.
 */
#ifndef MECHA_TESTS_SCRATCH_H
#define MECHA_TESTS_SCRATCH_H

#include <stdio.h>
#include <stdlib.h>

/* Makes "$TMPDIR/mecha-NAME-XXXXXX" (TMPDIR unset: /tmp) in buf; returns buf, or NULL. */
static inline char *scratch_mkdtemp(char *buf, size_t n, const char *name)
{
	const char *tmp = getenv("TMPDIR");

	if ((size_t)snprintf(buf, n, "%s/mecha-%s-XXXXXX", tmp && *tmp ? tmp : "/tmp", name) >= n)
		return NULL;
	return mkdtemp(buf);
}

#endif
