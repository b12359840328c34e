/*
 * catalog — finding a type's file, reading it through manifest_parse, and
 * holding the file to its name.
 */
#include "types/catalog.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/fs.h"
#include "config/home.h"
#include "types/manifest.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define TOML_SUFFIX ".toml"

char *catalog_path(const char *id, struct err *e)
{
	char *dir = home_default(HOME_TYPES, e), *name, *path;

	if (!dir)
		return NULL;
	name = xasprintf("%s%s", id, TOML_SUFFIX);
	path = fs_join(dir, name);
	free(name);
	free(dir);
	return path;
}

/* The first issue as the error, counting the rest. */
static int invalid(const char *path, const struct manifest_issues *is, size_t from, struct err *e)
{
	size_t more = is->n - from - 1;

	if (more)
		return err_set(e, ERR_INVALID_MANIFEST, "%s:%d: %s (and %zu more: mecha types check %s)",
			       path, is->v[from].line, is->v[from].message, more, path);
	return err_set(e, ERR_INVALID_MANIFEST, "%s:%d: %s", path, is->v[from].line,
		       is->v[from].message);
}

int catalog_read_file(const char *path, struct manifest **out, struct manifest_issues *issues,
		      struct err *e)
{
	size_t from = issues->n, len;
	char *text;

	*out = NULL;
	if (fs_read(path, &text, &len, e) != 0)
		return -1;
	*out = manifest_parse(text, len, issues);
	free(text);
	return *out ? 0 : invalid(path, issues, from, e);
}

/* A type is found by its file name, so the id inside must agree with it. */
static int named_after_its_id(const char *id, const char *path, struct manifest **m,
			      struct manifest_issues *issues, struct err *e)
{
	size_t from = issues->n;

	if (strcmp((*m)->id, id) == 0)
		return 0;
	issues->v = xrealloc(issues->v, (issues->n + 1) * sizeof *issues->v);
	issues->v[issues->n].line = (*m)->id_line;
	issues->v[issues->n++].message = xasprintf("the manifest's id is `%s`, but its file is %s%s: "
						   "a type's file is named after its id",
						   (*m)->id, id, TOML_SUFFIX);
	manifest_free(*m);
	*m = NULL;
	return invalid(path, issues, from, e);
}

int catalog_load(const char *id, struct manifest **out, struct manifest_issues *issues,
		 struct err *e)
{
	struct manifest_issues mine = { NULL, 0 };
	struct manifest_issues *is = issues ? issues : &mine;
	char *problem = manifest_id_problem(id, "request type id"), *path;
	int rc;

	*out = NULL;
	if (problem) {
		err_set(e, ERR_NOT_FOUND, "there is no request type `%s`: %s", id, problem);
		free(problem);
		return -1;
	}
	if (!(path = catalog_path(id, e)))
		return -1;
	rc = catalog_read_file(path, out, is, e);
	if (rc != 0 && e->code == ERR_NOT_FOUND)
		err_set(e, ERR_NOT_FOUND, "there is no request type `%s` (no %s)", id, path);
	if (rc == 0)
		rc = named_after_its_id(id, path, out, is, e);
	free(path);
	manifest_issues_free(&mine);
	return rc;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int catalog_ids(char ***ids, size_t *n, struct err *e)
{
	char *dir = home_default(HOME_TYPES, e);
	struct dirent *de;
	DIR *d;

	*ids = NULL;
	*n = 0;
	if (!dir)
		return -1;
	if (!(d = opendir(dir))) {
		int missing = errno == ENOENT;
		int rc = missing ? 0 : err_errno(e, "cannot read %s", dir);
		free(dir);
		return rc;
	}
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name), s = strlen(TOML_SUFFIX);
		if (de->d_name[0] == '.' || len <= s || strcmp(de->d_name + len - s, TOML_SUFFIX) != 0)
			continue;
		*ids = xrealloc(*ids, (*n + 1) * sizeof **ids);
		(*ids)[(*n)++] = xstrndup(de->d_name, len - s);
	}
	closedir(d);
	free(dir);
	if (*n)
		qsort(*ids, *n, sizeof **ids, by_name);
	return 0;
}

void catalog_ids_free(char **ids, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(ids[i]);
	free(ids);
}
