/*
 * source — walking the calendar's directories in a stable order (names
 * sorted), so the same broken file is the one an error names every time.
 */
#include "calendar/source.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/fs.h"
#include "config/config.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* root / collection / one more: deeper trees are not calendars mecha knows. */
#define SOURCE_MAX_DEPTH 3

typedef int (*source_fn)(const char *file, void *ctx, struct err *e);

void source_from_config(const struct config *cfg, struct source *s)
{
	s->path = cfg->calendar_path;
	s->collections = cfg->calendar_collections;
	s->ncollections = cfg->ncalendar_collections;
}

static int is_ics(const char *name)
{
	size_t n = strlen(name);

	return n > 4 && strcmp(name + n - 4, ".ics") == 0;
}

static int visible(const struct dirent *d)
{
	return d->d_name[0] != '.';
}

static int walk(const char *dir, int depth, source_fn fn, void *ctx, struct err *e);

/* The directory's own word on the entry's type spares a stat; a link, or no word, is stat'ed. */
static int walk_entry(const char *dir, const struct dirent *d, int depth, source_fn fn, void *ctx,
		      struct err *e)
{
	char *p = fs_join(dir, d->d_name);
	int isdir = d->d_type == DT_DIR;
	struct stat st;
	int rc = 0;

	if (d->d_type != DT_DIR && d->d_type != DT_REG) {
		if (stat(p, &st) != 0)
			rc = err_errno(e, "reading the calendar: %s", p);
		isdir = rc == 0 && S_ISDIR(st.st_mode);
	}
	if (rc == 0 && isdir)
		rc = walk(p, depth + 1, fn, ctx, e);
	else if (rc == 0 && is_ics(d->d_name))
		rc = fn(p, ctx, e);
	free(p);
	return rc;
}

static int walk(const char *dir, int depth, source_fn fn, void *ctx, struct err *e)
{
	struct dirent **names;
	int n, rc = 0;

	if (depth > SOURCE_MAX_DEPTH)
		return err_set(e, ERR_CONFIG, "the calendar %s is nested deeper than %d directories; "
				"point [calendar] path at its collections", dir, SOURCE_MAX_DEPTH);
	n = scandir(dir, &names, visible, alphasort);
	if (n < 0)
		return err_errno(e, "reading the calendar %s", dir);
	for (int i = 0; i < n; i++) {
		if (rc == 0)
			rc = walk_entry(dir, names[i], depth, fn, ctx, e);
		free(names[i]);
	}
	free(names);
	return rc;
}

static int collection_name_ok(const char *name, struct err *e)
{
	if (!*name || strchr(name, '/') || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
		return err_set(e, ERR_CONFIG, "[calendar] collections: \"%.100s\" is not the name of "
				"a directory under [calendar] path", name);
	return 0;
}

/* The directory of a named collection, which must exist; new, or NULL. */
static char *collection_dir(const struct source *s, const char *name, struct err *e)
{
	char *p;
	int isdir;

	if (collection_name_ok(name, e) != 0)
		return NULL;
	p = fs_join(s->path, name);
	isdir = fs_is_dir(p, e);
	if (isdir == 1)
		return p;
	if (isdir == 0)
		err_set(e, ERR_NOT_FOUND, "[calendar] collections names \"%.100s\", but %s is not a "
			"directory", name, p);
	free(p);
	return NULL;
}

static int each_collection(const struct source *s, source_fn fn, void *ctx, struct err *e)
{
	for (size_t i = 0; i < s->ncollections; i++) {
		char *dir = collection_dir(s, s->collections[i], e);
		int rc = dir ? walk(dir, 1, fn, ctx, e) : -1;
		free(dir);
		if (rc != 0)
			return -1;
	}
	return 0;
}

/* The path's kind: 1 a directory, 0 a file; -1 when missing (not_found) or unreadable. */
static int path_kind(const struct source *s, int missing_ok, struct err *e)
{
	struct stat st;

	if (!s->path || !*s->path)
		return err_set(e, ERR_NOT_FOUND, "no calendar is configured ([calendar] path)");
	if (stat(s->path, &st) == 0)
		return S_ISDIR(st.st_mode) ? 1 : 0;
	if (errno == ENOENT && missing_ok)
		return 0;
	if (errno == ENOENT)
		return err_set(e, ERR_NOT_FOUND, "the calendar %s does not exist ([calendar] path)",
			       s->path);
	return err_errno(e, "reading the calendar %s", s->path);
}

/* The configured file itself may be a link (a dotfile into a synced folder): follow it. */
static int each_file(const char *path, source_fn fn, void *ctx, struct err *e)
{
	char *real = realpath(path, NULL);
	int rc = fn(real ? real : path, ctx, e);

	free(real);
	return rc;
}

int source_each(const struct source *s, source_fn fn, void *ctx, struct err *e)
{
	int kind = path_kind(s, 0, e);

	if (kind < 0)
		return -1;
	if (kind == 0 && s->ncollections)
		return err_set(e, ERR_CONFIG, "[calendar] collections names collections, but %s is "
				"a file", s->path);
	if (kind == 0)
		return each_file(s->path, fn, ctx, e);
	if (s->ncollections)
		return each_collection(s, fn, ctx, e);
	return walk(s->path, 0, fn, ctx, e);
}

/* Counts the .ics files and the subdirectories right under dir; *sub gets the last subdirectory. */
static int count_entries(const char *dir, size_t *ics, size_t *dirs, char **sub, struct err *e)
{
	struct dirent **names;
	int n = scandir(dir, &names, visible, alphasort);

	if (n < 0)
		return err_errno(e, "reading the calendar %s", dir);
	for (int i = 0; i < n; i++) {
		char *p = fs_join(dir, names[i]->d_name);
		int isdir = fs_is_dir(p, e);
		*ics += isdir == 0 && is_ics(names[i]->d_name);
		*dirs += isdir == 1;
		if (isdir == 1) {
			free(*sub);
			*sub = p;
		} else {
			free(p);
		}
		free(names[i]);
	}
	free(names);
	return 0;
}

/* A directory holding collections and no events is a root: its only collection, or refuse. */
static int target_dir(const struct source *s, char **where, struct err *e)
{
	size_t ics = 0, dirs = 0;
	char *sub = NULL;

	if (s->ncollections) {
		*where = collection_dir(s, s->collections[0], e);
		return *where ? 0 : -1;
	}
	if (count_entries(s->path, &ics, &dirs, &sub, e) != 0)
		return -1;
	if (ics == 0 && dirs == 1) {
		*where = sub;
		return 0;
	}
	free(sub);
	if (ics == 0 && dirs > 1)
		return err_set(e, ERR_CONFIG, "%s is a vdirsyncer root with %zu collections; name the "
				"one events are written to first in [calendar] collections", s->path, dirs);
	*where = xstrdup(s->path);
	return 0;
}

int source_target(const struct source *s, char **where, enum source_kind *kind, struct err *e)
{
	int isdir = path_kind(s, 1, e);

	*where = NULL;
	if (isdir < 0)
		return -1;
	*kind = isdir ? SOURCE_VDIR : SOURCE_FILE;
	if (isdir)
		return target_dir(s, where, e);
	if (s->ncollections)
		return err_set(e, ERR_CONFIG, "[calendar] collections names collections, but %s is "
				"a file", s->path);
	if (access(s->path, F_OK) != 0 && !is_ics(s->path))
		return err_set(e, ERR_NOT_FOUND, "the calendar %s does not exist ([calendar] path); "
				"a new single-file calendar needs a name ending in .ics", s->path);
	*where = realpath(s->path, NULL);
	if (!*where)
		*where = xstrdup(s->path);
	return 0;
}
