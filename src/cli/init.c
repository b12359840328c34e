/*
 * init (cli) — `mecha init`: a new home, set up by home_init, told back.
 */
#include "cli/cli.h"
#include "cli/verb.h"

#include "base/err.h"
#include "base/text.h"
#include "config/home.h"

#include <stdio.h>
#include <string.h>

static const char init_help[] =
	"usage: mecha init\n\n"
	"Sets up a home for mecha at $MECHA_HOME (else ~/.mecha): the directory (0700),\n"
	"its stores (requests/, outbox/, sessions/, missions/, factory/types/, each 0700)\n"
	"and a config.toml (0600) holding every setting, commented out, with an example\n"
	"and what it does. Stores that are there already are kept as they are (tightened\n"
	"to 0700 when they were open to others).\n\n"
	"It refuses (exit 3, nothing made or changed) when config.toml is already there.\n"
	"Then: edit config.toml, and run `mecha doctor` to check what it names.\n";

/* "requests/" for a store, the home as it is. */
static void say_made(const struct home_made *m, const char *home)
{
	const char *name = m->path;
	size_t n = strlen(home);

	if (m->place != HOME_ROOT && strncmp(name, home, n) == 0 && name[n] == '/')
		name += n + 1;
	fputs(m->created ? "made  " : "kept  ", stdout);
	text_print(stdout, name, 0);
	fputs(m->place == HOME_CONFIG ? "  (0600: every setting, commented out)\n"
		      : m->place == HOME_ROOT ? "  (0700)\n" : "/\n", stdout);
	if (m->tightened >= 0)
		printf("      (it was %04o; now 0700)\n", (unsigned)m->tightened);
}

int cli_init(int argc, char **argv)
{
	struct home_made *made;
	struct cli_args a;
	struct err e;
	size_t n;
	int rc;

	if (cli_wants_help(argc, argv)) {
		fputs(init_help, stdout);
		return EXIT_OK;
	}
	if ((rc = cli_parse("init", NULL, 0, 0, 0, argc, argv, &a)) != 0)
		return rc;
	err_clear(&e);
	rc = home_init(&made, &n, &e);
	for (size_t i = 0; i < n; i++)
		say_made(&made[i], made[0].path);
	if (rc == 0)
		puts("\nNext: edit config.toml (a provider, [mail], [calendar]), then run mecha doctor.");
	home_init_free(made, n);
	return rc == 0 ? EXIT_OK : cli_fail(&e);
}
