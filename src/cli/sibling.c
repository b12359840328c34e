/*
 * sibling — running one of mecha's own programs that lives beside this one
 * (mecha-review, mecha-box): the same directory as the running binary, never
 * a search of PATH, so `mecha review` runs the screen built with it.
 */
#include "cli/cli.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/fs.h"
#include "base/text.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The directory of the running binary (malloc'd), or NULL. */
static char *own_dir(void)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);

	if (n <= 0 || (size_t)n >= sizeof exe - 1)
		return NULL;
	exe[n] = '\0';
	return fs_dirname(exe);
}

/*
 * Replaces this process with prog from the running binary's directory, with
 * argv[1..] as its arguments. Returns only on failure (after printing why).
 */
static int cli_exec_sibling(const char *prog, int argc, char **argv)
{
	char *dir = own_dir(), *path, **args;
	struct err e;

	if (!dir) {
		err_set(&e, ERR_INTERNAL, "cannot find where this mecha is installed, so %s "
			"cannot be found beside it", prog);
		return cli_fail(&e);
	}
	path = fs_join(dir, prog);
	free(dir);
	args = xcalloc((size_t)argc + 1, sizeof *args);
	args[0] = path;
	for (int i = 1; i < argc; i++)
		args[i] = argv[i];
	fflush(NULL);
	execv(path, args);
	err_errno(&e, "cannot run %s (it is installed beside mecha: `make install` puts it "
		  "there)", path);
	free(args);
	free(path);
	return cli_fail(&e);
}

int cli_review_exec(int argc, char **argv)
{
	return cli_exec_sibling("mecha-review", argc, argv);
}
