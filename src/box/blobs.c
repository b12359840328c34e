/*
 * blobs — the files older boxes kept on disk: moved into the ledger, orphans removed.
 */
#include "box/blobs.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/fs.h"
#include "box/ledger.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Ids are ours (hex), but a path is built from them: refuse anything else. */
static int name_ok(const char *s)
{
	if (!s || !*s || strlen(s) > 64)
		return 0;
	for (; *s; s++)
		if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'z') || *s == '-' || *s == '_'))
			return 0;
	return 1;
}

/* <data>/attachments/<user>/<id>; NULL when user or id could not be a file name. */
static char *blobs_path(const char *data, const char *user, const char *id)
{
	if (!name_ok(user) || !name_ok(id))
		return NULL;
	return xasprintf("%s/attachments/%s/%s", data, user, id);
}

/* attachment_fill's source: a file read as it is stored. */
static int read_file(void *arg, char *buf, size_t max, size_t *got, struct err *e)
{
	int fd = *(int *)arg;
	ssize_t n;

	do
		n = read(fd, buf, max);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return err_errno(e, "reading an attachment file");
	*got = (size_t)n;
	return 0;
}

/* One row's file: 1 moved (and removed), 0 left where it is, -1 the ledger failed. */
static int import_one(struct ledger *l, const char *data, const char *user, const char *id,
		      struct err *e)
{
	char *path = blobs_path(data, user, id);
	struct stat st;
	struct err why;
	int fd = path ? open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW) : -1, rc = 0;

	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
		rc = l->ops->attachment_fill(l, id, read_file, &fd, &why);
		if (rc < 0 && why.code != ERR_LEDGER)
			rc = 0; /* the file could not be read: left for the owner to see */
		else if (rc < 0)
			*e = why;
	}
	if (fd >= 0)
		close(fd);
	if (rc == 1)
		unlink(path); /* after the commit: its bytes are in the ledger now */
	free(path);
	return rc;
}

int blobs_import(struct ledger *l, const char *data, long long *moved, struct err *e)
{
	json_t *rows, *x;
	size_t i;
	int rc = 0;

	*moved = 0;
	if (l->ops->attachment_unstored(l, &rows, e) != 0)
		return -1;
	json_array_foreach(rows, i, x) {
		rc = import_one(l, data, json_string_value(json_object_get(x, "user_id")),
				json_string_value(json_object_get(x, "id")), e);
		if (rc < 0)
			break;
		*moved += rc;
	}
	json_decref(rows);
	return rc < 0 ? -1 : 0;
}

/* One user's directory: files not in known, older than cutoff. */
static long long sweep_user(const char *dir, const char *user, const json_t *known,
			    time_t cutoff)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	long long n = 0;

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		struct stat st;
		char *key, *path;
		if (de->d_name[0] == '.' && strncmp(de->d_name, ".staging-", 9) != 0)
			continue;
		path = fs_join(dir, de->d_name);
		key = xasprintf("%s/%s", user, de->d_name);
		if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_mtime < cutoff &&
		    !json_object_get(known, key) && unlink(path) == 0)
			n++;
		free(key);
		free(path);
	}
	closedir(d);
	return n;
}

long long blobs_sweep_orphans(const char *data, const json_t *known, long min_age)
{
	char *root = xasprintf("%s/attachments", data);
	DIR *d = opendir(root);
	struct dirent *de;
	long long n = 0;

	while (d && (de = readdir(d))) {
		char *dir;
		if (!name_ok(de->d_name))
			continue;
		dir = fs_join(root, de->d_name);
		n += sweep_user(dir, de->d_name, known, time(NULL) - min_age);
		free(dir);
	}
	if (d)
		closedir(d);
	free(root);
	return n;
}
