/*
 * review (cli) — `mecha review`: parses, then hands the terminal to the
 * review screen (src/tui), which calls the same library as every other verb.
 */
#include "cli/cli.h"
#include "cli/verb.h"

#include "base/err.h"
#include "drain/tell.h"
#include "frontdoor/decline.h"
#include "tui/tui.h"

#include <stdio.h>

static const char review_help[] =
	"usage: mecha review [--state STATE]\n\n"
	"The review screen: the requests waiting on you and the pending drafts in one\n"
	"terminal, with what each stranger wrote (control characters made visible) and\n"
	"each draft whole. a approves (after showing the draft whole), r rejects with a\n"
	"reason, e edits in $VISUAL/$EDITOR, c closes with a reason, n parks a request\n"
	"(needs-info), x extracts and t triages one request, R replies in your own words\n"
	"(the editor), N asks back (needs-info with the question mailed), D declines a\n"
	"booking or cancels a booked one (telling the box), / searches, f filters by\n"
	"state, h shows resolved drafts, ? lists every key, q quits. Changes made\n"
	"elsewhere appear by themselves. It opens on the request that has waited on you\n"
	"longest past [frontdoor] stale_hours, when there is one (mecha doctor lists them).\n"
	"For scripts and dumb terminals: mecha outbox review.\n\n"
	"  --state STATE   start with the requests in STATE ('all' for every one;\n"
	"                  default: those waiting on you)\n";

/* D tells the box as `frontdoor decline` does: the screen may not reach the drain's gate. */
static const struct decline_teller teller = { tell_box, NULL };

int cli_review(int argc, char **argv)
{
	struct tui_opts o = { NULL, &teller };
	const struct cli_opt opts[] = { { "state", 0, CLI_TEXT, &o.state, CLI_NONEMPTY, 0, 0 } };
	struct cli_args a;
	struct err e;
	int rc;

	if (cli_wants_help(argc, argv)) {
		fputs(review_help, stdout);
		return EXIT_OK;
	}
	if ((rc = cli_parse("review", CLI_OPTS(opts), 0, 0, argc, argv, &a)) != 0)
		return rc;
	return tui_run(&o, &e) == 0 ? EXIT_OK : cli_fail(&e);
}
