/*
 * killpoint — SIGKILL at a named moment, for the crash tests.
 */
#include "base/killpoint.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>

#ifdef MECHA_TEST_BUILD
void killpoint(const char *name)
{
	const char *at = getenv(KILLPOINT_ENV);

	if (at && strcmp(at, name) == 0)
		raise(SIGKILL);
}
#endif
