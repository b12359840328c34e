/*
 * pager — measure, then either write or hand to the pager.
 */
#include "cli/pager.h"

#include "base/buf.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

static int env_int(const char *name, int fallback)
{
	const char *s = getenv(name);
	char *end;
	long v;

	if (!s || !*s)
		return fallback;
	v = strtol(s, &end, 10);
	return *end || v < 1 || v > 100000 ? fallback : (int)v;
}

void pager_screen(int fd, int *rows, int *cols)
{
	struct winsize ws;

	if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 && ws.ws_col > 0) {
		*rows = ws.ws_row;
		*cols = ws.ws_col;
		return;
	}
	*rows = env_int("LINES", 24);
	*cols = env_int("COLUMNS", 80);
}

/*
 * The rows text[0..len) takes on a screen cols wide (long lines wrap; colour
 * sequences take no room).
 */
static size_t pager_rows(const char *text, size_t len, int cols)
{
	size_t rows = 0, width = 0;

	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)text[i];
		if (c == '\033' && i + 1 < len && text[i + 1] == '[') {
			while (i < len && text[i] != 'm') /* our colour: no room taken */
				i++;
			continue;
		}
		if (c == '\n') {
			rows += 1 + (width ? (width - 1) / (size_t)cols : 0);
			width = 0;
		} else if ((c & 0xC0) != 0x80) { /* a character starts here */
			width++;
		}
	}
	return rows + (width ? 1 + (width - 1) / (size_t)cols : 0);
}

/* 1 when an executable called name is on $PATH. */
static int on_path(const char *name)
{
	const char *path = getenv("PATH"), *p, *end;
	int found = 0;

	for (p = path ? path : ""; *p && !found; p = *end ? end + 1 : end) {
		char *full;
		end = strchr(p, ':');
		if (!end)
			end = p + strlen(p);
		full = xasprintf("%.*s/%s", (int)(end - p), p, name);
		found = access(full, X_OK) == 0;
		free(full);
	}
	return found;
}

/* The pager command, or NULL for none. */
static const char *pager_command(void)
{
	const char *p = getenv("PAGER");

	if (p)
		return *p && strcmp(p, "cat") != 0 ? p : NULL;
	if (on_path("less"))
		return "less";
	return on_path("more") ? "more" : NULL;
}

static int paged(const char *cmd, const char *text, size_t len)
{
	void (*was)(int);
	FILE *f;

	fflush(stdout);
	setenv("LESS", "FRX", 0);
	/* NOLINTNEXTLINE(cert-env33-c): PAGER is a shell command line by convention, as for git and man */
	f = popen(cmd, "w");
	if (!f)
		return -1;
	was = signal(SIGPIPE, SIG_IGN); /* quitting the pager early ends the text, not mecha */
	fwrite(text, 1, len, f);
	pclose(f);
	signal(SIGPIPE, was);
	return 0;
}

void pager_show(const char *text, size_t len)
{
	const char *cmd;
	int rows, cols;

	if (isatty(STDOUT_FILENO)) {
		pager_screen(STDOUT_FILENO, &rows, &cols);
		cmd = pager_rows(text, len, cols) > (size_t)rows ? pager_command() : NULL;
		if (cmd && paged(cmd, text, len) == 0)
			return;
	}
	fwrite(text, 1, len, stdout);
}
