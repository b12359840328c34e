/*
 * blobs — uploaded files on disk, written whole, removed after their rows.
 */
#include "box/blobs.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/fs.h"

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

char *blobs_path(const char *data, const char *user, const char *id)
{
	if (!name_ok(user) || !name_ok(id))
		return NULL;
	return xasprintf("%s/attachments/%s/%s", data, user, id);
}

int blobs_write(const char *data, const char *user, const char *id, const void *bytes,
		size_t len, struct err *e)
{
	char *path = blobs_path(data, user, id), *dir, *staging;
	int fd, rc = -1;

	if (!path)
		return err_set(e, ERR_INTERNAL, "an attachment id is not a file name");
	dir = fs_dirname(path);
	staging = xasprintf("%s/.staging-%s", dir, id);
	if (fs_private_dir(dir, e) != 0)
		goto out;
	fd = open(staging, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0) {
		err_errno(e, "creating %s", staging);
		goto out;
	}
	if (fs_write_all(fd, bytes, len) != 0 || fsync(fd) != 0) {
		err_errno(e, "writing %s", staging);
		close(fd);
		unlink(staging);
		goto out;
	}
	close(fd);
	if (rename(staging, path) != 0) {
		err_errno(e, "renaming %s", staging);
		unlink(staging);
		goto out;
	}
	rc = fs_sync_dir(dir, e);
out:
	free(staging);
	free(dir);
	free(path);
	return rc;
}

void blobs_remove(const char *data, const char *user, const json_t *ids)
{
	const json_t *x;
	size_t i;

	json_array_foreach(ids, i, x) {
		char *path = blobs_path(data, user, json_string_value(x));
		if (path)
			unlink(path);
		free(path);
	}
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
