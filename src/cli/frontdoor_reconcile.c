/*
 * frontdoor_reconcile (cli) — `mecha frontdoor reconcile`, and how every
 * front-door verb reports the moves the reconciling pass makes: a line each on
 * stderr, as spec/frontdoor.md §10 says.
 */
#include "cli/cli.h"
#include "cli/frontdoor.h"

#include "base/err.h"
#include "base/jsonio.h"
#include "base/text.h"
#include "frontdoor/reconcile.h"

#include <stdio.h>
#include <string.h>

const char frontdoor_reconcile_help[] =
	"usage: mecha frontdoor reconcile [--json]\n\n"
	"Advances requests in awaiting_me whose drafts were released or rejected: any sent\n"
	"draft (and none pending) answers the request; all of its drafts rejected return it\n"
	"to extracted with the first rejection reason as its note. Drafts that are gone leave\n"
	"the request for you. It also runs by itself as list, next and triage read\n"
	"the store.\n"
	"Each move is printed on stderr (\"    12  awaiting_me → answered\").\n\n"
	"  --json   also print the moves as [{seq, from, to}] on stdout\n";

static void print_move(const struct reconcile_move *m, void *ctx)
{
	json_t *moves = ctx;

	fprintf(stderr, "%6lld  %s → %s\n", m->seq, m->from, m->to);
	if (moves)
		json_array_append_new(moves, json_pack("{s:I,s:s,s:s}", "seq", (json_int_t)m->seq,
						       "from", m->from, "to", m->to));
}

static void print_skip(long long seq, const struct err *why, void *ctx)
{
	(void)ctx;
	fprintf(stderr, "mecha: reconcile skipped request %lld: ", seq);
	text_print(stderr, why->msg, 0);
	fputc('\n', stderr);
}

const struct reconcile_report frontdoor_report = { print_move, print_skip, NULL };

int frontdoor_reconcile_verb(int argc, char **argv)
{
	struct reconcile_report r = frontdoor_report;
	json_t *moves = NULL;
	struct err e;
	int rc;

	if (argc == 2 && strcmp(argv[1], "--json") == 0)
		moves = json_array();
	else if (argc > 1)
		return cli_usage_error("frontdoor reconcile", "reconcile takes only --json");
	r.ctx = moves;
	rc = reconcile_home(&r, &e);
	if (rc == 0 && moves)
		jsonio_print(stdout, moves);
	json_decref(moves);
	return rc == 0 ? EXIT_OK : cli_fail(&e);
}
