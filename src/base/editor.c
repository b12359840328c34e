/*
 * editor — one child process, its exit status read, nothing else.
 */
#include "base/editor.h"

#include "base/buf.h"
#include "base/err.h"

#include <errno.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>

extern char **environ;

static const char *editor_command(void)
{
	const char *editor = getenv("VISUAL");

	if (!editor || !*editor)
		editor = getenv("EDITOR");
	return editor && *editor ? editor : "vi";
}

int editor_run(const char *path, struct err *e)
{
	const char *editor = editor_command();
	/* Through the shell so EDITOR="code --wait" works; the path is "$1", never spliced in. */
	char *script = xasprintf("%s \"$1\"", editor);
	char *argv[] = { "sh", "-c", script, "sh", (char *)path, NULL };
	pid_t pid;
	int status, rc;

	rc = posix_spawn(&pid, "/bin/sh", NULL, NULL, argv, environ);
	free(script);
	if (rc != 0) {
		errno = rc;
		return err_errno(e, "cannot run the editor %s", editor);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return err_errno(e, "waiting for the editor");
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return err_set(e, ERR_EDITOR, "the editor (%s) failed; nothing was changed", editor);
	return 0;
}
