/*
 * capture — stderr while the screen is up.
 *
 * The library reports some things on stderr (a store skipping an unreadable
 * file, a directory whose mode it tightened). Written to the terminal under
 * curses, those bytes would land in the middle of the screen and shift what
 * the person reads. So fd 2 points at a memory file while the screen is up;
 * the screen shows what arrives there (safely, like any text), and when it
 * closes each distinct line is written to the real stderr once, so nothing
 * is lost.
 */
#include "tui/app.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int capture_start(struct capture *c)
{
	memset(c, 0, sizeof *c);
	c->saved = c->fd = -1;
	fflush(stderr);
	c->fd = memfd_create("mecha-review-stderr", MFD_CLOEXEC);
	if (c->fd < 0)
		return -1;
	c->saved = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
	if (c->saved < 0 || dup2(c->fd, STDERR_FILENO) < 0) {
		close(c->fd);
		if (c->saved >= 0)
			close(c->saved);
		c->fd = c->saved = -1;
		return -1;
	}
	return 0;
}

void capture_pause(struct capture *c)
{
	fflush(stderr);
	if (c->saved >= 0)
		dup2(c->saved, STDERR_FILENO);
}

void capture_resume(struct capture *c)
{
	fflush(stderr);
	if (c->fd >= 0)
		dup2(c->fd, STDERR_FILENO);
}

/* Keeps each line of s once, for the real stderr at the end ("\n" first, to match whole lines). */
static void remember(struct capture *c, const char *s)
{
	const char *end;

	for (; *s; s = *end ? end + 1 : end) {
		char *key;
		end = strchr(s, '\n');
		if (!end)
			end = s + strlen(s);
		if (end == s)
			continue;
		key = xasprintf("\n%.*s\n", (int)(end - s), s);
		if (c->lines.len == 0)
			buf_addc(&c->lines, '\n');
		if (!strstr(buf_str(&c->lines), key))
			buf_adds(&c->lines, key + 1);
		free(key);
	}
}

char *capture_take(struct capture *c)
{
	struct buf b = BUF_INIT;
	char chunk[4096];
	ssize_t n;

	if (c->fd < 0)
		return NULL;
	fflush(stderr);
	while ((n = pread(c->fd, chunk, sizeof chunk, (off_t)c->seen)) > 0) {
		buf_add(&b, chunk, (size_t)n);
		c->seen += (size_t)n;
	}
	if (b.len == 0)
		return NULL;
	/* Start the file over (fd 2 shares its offset), so a long session keeps no backlog. */
	if (ftruncate(c->fd, 0) == 0 && lseek(c->fd, 0, SEEK_SET) == 0)
		c->seen = 0;
	remember(c, buf_str(&b));
	return buf_steal(&b);
}

void capture_stop(struct capture *c)
{
	free(capture_take(c));
	if (c->saved >= 0) {
		dup2(c->saved, STDERR_FILENO);
		close(c->saved);
	}
	if (c->fd >= 0)
		close(c->fd);
	c->saved = c->fd = -1;
	if (c->lines.len)
		fputs(buf_str(&c->lines) + 1, stderr);
	buf_free(&c->lines);
}
