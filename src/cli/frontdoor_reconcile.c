/*
 * frontdoor_reconcile (cli) — `mecha frontdoor reconcile`, and how every
 * front-door verb reports the moves the reconciling pass makes: a line each on
 * stderr, as spec/frontdoor.md §10 says.
 */
#include "cli/cli.h"
#include "cli/frontdoor.h"
#include "cli/verb.h"

#include "base/err.h"
#include "base/jsonio.h"
#include "base/text.h"
#include "frontdoor/reconcile.h"

#include <stdio.h>

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
	int json = 0;
	const struct cli_opt opts[] = { { "json", 0, CLI_FLAG, &json, 0, 0, 0 } };
	struct cli_args a;
	struct err e;
	int rc = cli_parse("frontdoor reconcile", CLI_OPTS(opts), 0, 0, argc, argv, &a);

	if (rc != 0)
		return rc;
	if (json)
		moves = json_array();
	r.ctx = moves;
	rc = reconcile_home(&r, &e);
	if (rc == 0 && moves)
		jsonio_print(stdout, moves);
	json_decref(moves);
	return rc == 0 ? EXIT_OK : cli_fail(&e);
}
