/*
 * home — resolving HOME_M once, the same way for every verb, the one table of
 * where each store lives under it, and setting a new home up.
 */
#include "config/home.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/fs.h"
#include "config/config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const places[HOME_PLACE_COUNT] = {
	[HOME_ROOT] = NULL,
	[HOME_CONFIG] = "config.toml",
	[HOME_REQUESTS] = "requests",
	[HOME_OUTBOX] = "outbox",
	[HOME_SESSIONS] = "sessions",
	[HOME_MISSIONS] = "missions",
	[HOME_MISSION_BOX] = "missions/inbox.jsonl",
	[HOME_TYPES] = "factory/types",
	[HOME_FACTORY] = "factory",
};

const enum home_place home_stores[] = { HOME_ROOT,     HOME_REQUESTS, HOME_OUTBOX,
					HOME_SESSIONS, HOME_MISSIONS, HOME_TYPES };
const size_t home_nstores = sizeof home_stores / sizeof home_stores[0];

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

char *home_path(enum home_place place, struct err *e)
{
	char *home = root(e);
	char *p;

	if (!home || !places[place])
		return home;
	p = fs_join(home, places[place]);
	free(home);
	return p;
}

char *home_default(enum home_place place, struct err *e)
{
	if (config_check(e) != 0)
		return NULL;
	return home_path(place, e);
}

/* ---- mecha init ------------------------------------------------------------------ */

static int refuse_existing(const char *path, struct err *e)
{
	struct stat st;

	if (lstat(path, &st) == 0)
		return err_set(e, ERR_EXISTS, "%s is already there; mecha init changes nothing in a "
			       "home that has one (mecha doctor checks it)", path);
	if (errno != ENOENT)
		return err_errno(e, "reading %s", path);
	return 0;
}

static struct home_made *made_add(struct home_made **made, size_t *n, enum home_place place,
				  char *path)
{
	struct home_made *m;

	*made = xrealloc(*made, (*n + 1) * sizeof **made);
	m = &(*made)[(*n)++];
	memset(m, 0, sizeof *m);
	m->place = place;
	m->path = path;
	m->tightened = -1;
	return m;
}

static int make_store(enum home_place place, struct home_made **made, size_t *n, struct err *e)
{
	char *path = home_path(place, e);
	struct home_made *m;
	int isdir;

	if (!path)
		return -1;
	m = made_add(made, n, place, path);
	if ((isdir = fs_is_dir(path, e)) < 0)
		return -1;
	m->created = !isdir;
	return fs_private_dir_tighten(path, &m->tightened, e);
}

/* O_EXCL: a file that appeared since the check is not overwritten either. */
static int write_config(const char *path, const char *home, struct err *e)
{
	char *text = config_template(home);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	int rc = 0;

	if (fd < 0)
		rc = errno == EEXIST ? refuse_existing(path, e) : err_errno(e, "creating %s", path);
	else if (fs_write_all(fd, text, strlen(text)) != 0 || fsync(fd) != 0)
		rc = err_errno(e, "writing %s", path);
	if (fd >= 0 && close(fd) != 0 && rc == 0)
		rc = err_errno(e, "writing %s", path);
	if (rc == 0)
		rc = fs_sync_dir(home, e);
	free(text);
	return rc;
}

int home_init(struct home_made **made, size_t *n, struct err *e)
{
	char *home = home_path(HOME_ROOT, e), *path = home ? home_path(HOME_CONFIG, e) : NULL;
	int rc = path ? refuse_existing(path, e) : -1;

	*made = NULL;
	*n = 0;
	for (size_t i = 0; rc == 0 && i < home_nstores; i++)
		rc = make_store(home_stores[i], made, n, e);
	if (rc == 0 && (rc = write_config(path, home, e)) == 0)
		made_add(made, n, HOME_CONFIG, path)->created = 1;
	else
		free(path);
	free(home);
	return rc;
}

void home_init_free(struct home_made *made, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(made[i].path);
	free(made);
}
