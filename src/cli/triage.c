/*
 * triage (cli) — `mecha frontdoor triage`: parses, runs triage_run, and
 * prints each request's outcome (or a JSON array of them). The refusals that
 * keep a run from starting, and which requests it takes, are the library's
 * (frontdoor/triage.h).
 */
#include "cli/cli.h"
#include "cli/frontdoor.h"
#include "cli/verb.h"

#include "base/err.h"
#include "base/jsonio.h"
#include "base/text.h"
#include "frontdoor/state.h"
#include "frontdoor/triage.h"

#include <stdio.h>

const char frontdoor_triage_help[] =
	"usage: mecha frontdoor triage [--seq N] [--limit N] [--max-turns N] [--json]\n\n"
	"The privileged pass: a model with calendar and mail tools, told only what `next`\n"
	"prints, one fresh conversation per request. Its tools stage drafts in the outbox\n"
	"for you to release; nothing is sent. A request with a draft becomes awaiting_me;\n"
	"one with nothing drafted becomes triaged with the run's reason as its note.\n"
	"Refuses to run (exit 3) unless [outbox] tools names mail_send and the outbox is\n"
	"writable, or when no model provider is configured.\n\n"
	"  --seq N         only request N (it must be extracted)\n"
	"  --limit N       at most N requests (default 5)\n"
	"  --max-turns N   model turns per request before the run is stopped (default 8)\n"
	"  --json          the outcomes as a JSON array\n";

struct tally {
	size_t counts[4];
	size_t seen;
	json_t *rows; /* with --json */
};

static const char *outcome_name(enum triage_outcome o)
{
	switch (o) {
	case TRIAGE_DRAFTED:
		return STATE_AWAITING_ME;
	case TRIAGE_NOTHING:
		return STATE_TRIAGED;
	case TRIAGE_FAILED:
		return "failed";
	case TRIAGE_LEFT:
		return "left";
	}
	return "?";
}

static void print_line(const struct triage_result *r)
{
	printf("%6lld  ", r->seq);
	switch (r->outcome) {
	case TRIAGE_DRAFTED:
		printf("awaiting_me (%zu draft%s in the outbox)\n", r->drafts, r->drafts == 1 ? "" : "s");
		return;
	case TRIAGE_NOTHING:
		printf("triaged, nothing drafted: ");
		break;
	case TRIAGE_FAILED:
		break;
	case TRIAGE_LEFT:
		printf("changed by you during the run; left as you set it\n");
		return;
	}
	text_print(stdout, r->note ? r->note : "", 0);
	putchar('\n');
}

static void on_result(const struct triage_result *r, void *ctx)
{
	struct tally *t = ctx;

	t->seen++;
	t->counts[r->outcome]++;
	if (t->rows)
		json_array_append_new(t->rows, json_pack("{s:I,s:s,s:s,s:i,s:s?}", "seq",
							 (json_int_t)r->seq, "outcome",
							 outcome_name(r->outcome), "session",
							 r->session, "drafts", (int)r->drafts,
							 "note", r->note));
	else
		print_line(r);
	fflush(stdout);
}

static void on_error(long long seq, const struct err *why, void *ctx)
{
	((struct tally *)ctx)->seen++;
	fprintf(stderr, "mecha: request %lld: ", seq);
	text_print(stderr, why->msg, 0);
	fputc('\n', stderr);
}

static void finish(const struct tally *t)
{
	if (t->rows)
		jsonio_print(stdout, t->rows);
	else if (t->seen == 0)
		puts("nothing to triage");
	else
		printf("%zu awaiting you, %zu with nothing drafted, %zu failed\n",
		       t->counts[TRIAGE_DRAFTED], t->counts[TRIAGE_NOTHING], t->counts[TRIAGE_FAILED]);
}

int frontdoor_triage_verb(int argc, char **argv)
{
	struct triage_opts o = { .seq = -1, .limit = 5 };
	struct tally t = { { 0 }, 0, NULL };
	struct triage_report rep = { on_result, on_error, &frontdoor_report, &t };
	long long turns = TRIAGE_MAX_TURNS;
	int json = 0;
	const struct cli_opt opts[] = {
		{ "seq", 0, CLI_COUNT, &o.seq, 0, 0, 0 },
		{ "limit", 0, CLI_COUNT, &o.limit, 0, 0, 0 },
		{ "max-turns", 0, CLI_COUNT, &turns, 0, 1, 100 },
		{ "json", 0, CLI_FLAG, &json, 0, 0, 0 },
	};
	struct cli_args a;
	struct err e;
	int rc = cli_parse("frontdoor triage", CLI_OPTS(opts), 0, 0, argc, argv, &a);

	if (rc != 0)
		return rc;
	o.max_turns = (int)turns;
	if (json)
		t.rows = json_array();
	rc = triage_run(&o, &rep, &e);
	if (rc == 0)
		finish(&t);
	json_decref(t.rows);
	return rc == 0 ? EXIT_OK : cli_fail(&e);
}
