/*
 * typecache — the format of requests/.types, read and written in one place
 * for every writer of the store.
 */
#include "types/typecache.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/fs.h"

#include <stdlib.h>
#include <string.h>

int typecache_id_ok(const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (n < 1 || n > TYPECACHE_ID_MAX)
		return 0;
	return strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-") == n;
}

int typecache_read(int dirfd, char **text, size_t *len)
{
	struct err ignored;

	*text = NULL;
	*len = 0;
	if (dirfd < 0 || fs_read_at(dirfd, TYPECACHE_FILE, text, len, &ignored) != 0)
		return -1;
	return 0;
}

int typecache_has(const char *text, size_t len, const char *type_id)
{
	size_t n = strlen(type_id);

	for (const char *p = text, *end = text + len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);
		if (l == n && memcmp(p, type_id, n) == 0)
			return 1;
		p += l + 1;
	}
	return 0;
}

/* Into b: old's well-formed lines (a hostile cache is not copied forward), the newest
 * TYPECACHE_MAX - 1 of them; the rest, the oldest, are dropped. Consumes old's text. */
static void keep_recent(char *old, struct buf *b)
{
	struct buf all = BUF_INIT;
	char *line, *save = NULL;
	const char *p;
	size_t n = 0, skip;

	for (line = strtok_r(old, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (typecache_id_ok(line)) {
			buf_printf(&all, "%s\n", line);
			n++;
		}
	skip = n > TYPECACHE_MAX - 1 ? n - (TYPECACHE_MAX - 1) : 0;
	for (p = buf_str(&all); skip; skip--)
		p = strchr(p, '\n') + 1;
	buf_adds(b, p);
	buf_free(&all);
}

void typecache_note(const char *dir, const char *type_id)
{
	char *path = fs_join(dir, TYPECACHE_FILE), *old = NULL;
	struct buf b = BUF_INIT;
	struct err ignored;
	size_t len = 0;

	if (fs_read(path, &old, &len, &ignored) != 0)
		old = NULL;
	if (!old || !typecache_has(old, len, type_id)) {
		if (old)
			keep_recent(old, &b);
		buf_printf(&b, "%s\n", type_id);
		fs_replace(path, buf_str(&b), b.len, &ignored);
	}
	buf_free(&b);
	free(old);
	free(path);
}
