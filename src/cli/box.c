/*
 * box (cli) — `mecha box …`: a door to mecha-box, the separate program that
 * faces the internet. The verbs are box/help.h's list (for --help, `mecha
 * help box` and completion, with the help texts mecha-box prints too), and
 * running one executes mecha-box from the directory this mecha was run from,
 * so the public process never contains the code that reaches calendar, mail
 * or models (docs/architecture.md).
 */
#include "cli/cli.h"
#include "cli/verb.h"

#include "config/confine.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/fs.h"
#include "base/text.h"
#include "box/help.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* mecha-box beside the running mecha (make install puts both in one directory). */
static char *box_binary(void)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	char *dir, *path;

	if (n <= 0)
		return NULL;
	self[n] = '\0';
	dir = fs_dirname(self);
	path = fs_join(dir, "mecha-box");
	free(dir);
	return path;
}

/* argv = VERB ARGS…: runs mecha-box VERB ARGS… in place of this process. */
static int run_box(int argc, char **argv)
{
	char *path = box_binary();
	char **args = xcalloc((size_t)argc + 2, sizeof *args);
	struct err e;

	args[0] = "mecha-box";
	for (int i = 0; i < argc; i++)
		args[i + 1] = argv[i];
	if (path)
		execv(path, args);
	err_set(&e, ERR_MISSING_LIBRARY, "cannot run %s: %s (mecha-box is installed beside mecha; "
		"run make install)", path ? path : "mecha-box",
		path ? strerror(errno) : "the running program's directory is unknown");
	free(args);
	free(path);
	return cli_fail(&e);
}

/* Each verb runs mecha-box, which is not this program (docs/security.md). */
#define BOX_VERB_ROW(name, summary) { #name, run_box, box_help_##name, summary, CONFINE_NONE },
static const struct cli_verb verbs[] = { BOX_VERBS(BOX_VERB_ROW) };
#undef BOX_VERB_ROW

const struct cli_group cli_box_group = {
	"box",
	box_help_intro,
	verbs,
	sizeof verbs / sizeof verbs[0],
	NULL,
};

int cli_box(int argc, char **argv)
{
	return cli_dispatch(&cli_box_group, argc, argv);
}
