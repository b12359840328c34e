/*
 * home — resolving HOME_M once, the same way for every verb.
 */
#include "config/home.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/fs.h"

#include <stdlib.h>

char *home_dir(struct err *e)
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

char *home_path(const char *sub, struct err *e)
{
	char *home = home_dir(e);
	char *p;

	if (!home)
		return NULL;
	p = fs_join(home, sub);
	free(home);
	return p;
}
