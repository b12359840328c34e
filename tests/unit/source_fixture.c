/*
 * source_fixture — a path under the checkout, for tests run elsewhere.
 */
#include "source_fixture.h"

#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

const char *source_path(const char *rel)
{
	static char ring[8][PATH_MAX];
	static unsigned next;
	const char *top = getenv("MECHA_SOURCE_DIR");
	char *buf = ring[next++ % 8];
	int n = snprintf(buf, PATH_MAX, "%s/%s", top && *top ? top : ".", rel);

	cr_assert(n > 0 && n < PATH_MAX, "path too long: %s/%s", top, rel);
	return buf;
}
