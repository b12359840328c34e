/*
 * home — resolving HOME_M once, the same way for every verb, and the one
 * table of where each store lives under it.
 */
#include "config/home.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/fs.h"

#include <stdlib.h>

static const char *const places[] = {
	[HOME_ROOT] = NULL,
	[HOME_CONFIG] = "config.toml",
	[HOME_REQUESTS] = "requests",
	[HOME_OUTBOX] = "outbox",
	[HOME_SESSIONS] = "sessions",
	[HOME_MISSION_BOX] = "missions/inbox.jsonl",
	[HOME_TYPES] = "factory/types",
};

static char *root(struct err *e)
{
	const char *m = getenv("MECHA_HOME");
	const char *h = getenv("HOME");

	if (m && *m)
		return fs_expand_home(m);
	if (h && *h)
		return fs_join(h, ".mecha");
	err_set(e, ERR_CONFIG, "neither MECHA_HOME nor HOME is set, so mecha has no home");
	return NULL;
}

char *home_default(enum home_place place, struct err *e)
{
	char *home = root(e);
	char *p;

	if (!home || !places[place])
		return home;
	p = fs_join(home, places[place]);
	free(home);
	return p;
}
