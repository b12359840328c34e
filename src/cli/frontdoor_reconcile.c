/*
 * frontdoor_reconcile (cli) — `mecha frontdoor reconcile`, and how every
 * front-door verb reports the moves the reconciling pass makes: a line each on
 * stderr, as docs/protocol/files.md §3 says. The verb itself is long work over
 * the whole store, so it shows the meter and a summary, and a line per move
 * only with -v; a request it could not write is always named.
 */
#include "cli/cli.h"
#include "cli/frontdoor.h"
#include "cli/progress.h"
#include "cli/verb.h"

#include "base/err.h"
#include "base/jsonio.h"
#include "base/text.h"
#include "frontdoor/reconcile.h"
#include "requests/state.h"

#include <stdio.h>
#include <string.h>

const char frontdoor_reconcile_help[] =
	"usage: mecha frontdoor reconcile [-v] [--json]\n\n"
	"Advances requests in awaiting_me whose drafts were released or rejected: any sent\n"
	"draft (and none pending) answers the request; all of its drafts rejected return it\n"
	"to extracted with the first rejection reason as its note. Drafts that are gone leave\n"
	"the request for you. It also runs by itself as list, next and triage read\n"
	"the store, and says each move there on stderr (\"    12  awaiting_me → answered\").\n"
	"A meter shows progress on a terminal; then a summary, naming each request that\n"
	"should have moved and could not be written.\n\n"
	"  -v, --verbose   also each move, on stderr\n"
	"  --json          the moves as [{seq, from, to}] on stdout instead of the summary\n\n"
	"Exit status: 0 every request that should move moved; 1 any could not be written.\n";

static void print_move(const struct reconcile_move *m, void *ctx)
{
	(void)ctx;
	fprintf(stderr, "%6lld  %s → %s\n", m->seq, m->from, m->to);
}

static void print_skip(long long seq, const struct err *why, void *ctx)
{
	(void)ctx;
	fprintf(stderr, "mecha: reconcile skipped request %lld: ", seq);
	text_print(stderr, why->msg, 0);
	fputc('\n', stderr);
}

const struct reconcile_report frontdoor_report = { print_move, print_skip, NULL, NULL };

struct tally {
	size_t answered, returned, skipped;
	int verbose;
	struct progress meter;
	json_t *moves; /* with --json */
};

static void on_read(size_t done, size_t total, void *ctx)
{
	progress_set(&((struct tally *)ctx)->meter, done, total);
}

static void on_move(const struct reconcile_move *m, void *ctx)
{
	struct tally *t = ctx;

	if (state_has(m->to, STATE_FINISHED)) /* answered: the other way is back to be answered again */
		t->answered++;
	else
		t->returned++;
	progress_hide(&t->meter);
	if (t->verbose)
		print_move(m, NULL);
	if (t->moves)
		json_array_append_new(t->moves, json_pack("{s:I,s:s,s:s}", "seq", (json_int_t)m->seq,
							  "from", m->from, "to", m->to));
}

static void on_skip(long long seq, const struct err *why, void *ctx)
{
	struct tally *t = ctx;

	t->skipped++;
	progress_hide(&t->meter);
	print_skip(seq, why, NULL);
}

static void summary(const struct tally *t)
{
	if (t->answered + t->returned + t->skipped == 0) {
		puts("nothing to reconcile");
		return;
	}
	printf("%zu answered, %zu sent back (rejected)", t->answered, t->returned);
	if (t->skipped)
		printf(", %zu could not be written (named above)", t->skipped);
	putchar('\n');
}

int frontdoor_reconcile_verb(int argc, char **argv)
{
	struct tally t = { 0 };
	struct reconcile_report r = { on_move, on_skip, &t, on_read };
	int json = 0;
	const struct cli_opt opts[] = {
		{ "verbose", 'v', CLI_FLAG, &t.verbose, 0, 0, 0 },
		{ "json", 0, CLI_FLAG, &json, 0, 0, 0 },
	};
	struct cli_args a;
	struct err e;
	int rc = cli_parse("frontdoor reconcile", CLI_OPTS(opts), 0, 0, argc, argv, &a);

	if (rc != 0)
		return rc;
	if (json)
		t.moves = json_array();
	progress_begin(&t.meter, "reconcile");
	rc = reconcile_home(&r, &e);
	progress_end(&t.meter);
	if (rc == 0 && t.moves)
		jsonio_print(stdout, t.moves);
	else if (rc == 0)
		summary(&t);
	json_decref(t.moves);
	if (rc != 0)
		return cli_fail(&e);
	return t.skipped ? EXIT_FAIL : EXIT_OK;
}
