/*
 * triage (cli) — `mecha frontdoor triage`: parses, runs triage_run, and
 * prints a summary naming each request whose run failed (a line for every
 * request with -v), or a JSON array of the outcomes; the meter on a terminal.
 * The exit status says whether every request taken was triaged. The refusals that
 * keep a run from starting, and which requests it takes, are the library's
 * (frontdoor/triage.h).
 */
#include "cli/cli.h"
#include "cli/frontdoor.h"
#include "cli/progress.h"
#include "cli/verb.h"

#include "base/err.h"
#include "base/jsonio.h"
#include "base/text.h"
#include "frontdoor/triage.h"

#include <stdio.h>

const char frontdoor_triage_help[] =
	"usage: mecha frontdoor triage [--seq N] [--limit N] [--max-turns N] [-v] [--json]\n\n"
	"The privileged pass: a model with calendar and mail tools, told only what `next`\n"
	"prints, one fresh conversation per request. Its tools stage drafts in the outbox\n"
	"for you to release; nothing is sent. A request with a draft becomes awaiting_me;\n"
	"one with nothing drafted becomes triaged with the run's reason as its note.\n"
	"Refuses to run (exit 3) unless [outbox] tools names mail_send and the outbox is\n"
	"writable, or when no model provider is configured.\n"
	"A meter shows progress on a terminal; then a summary, naming each request whose\n"
	"run failed.\n\n"
	"  --seq N         only request N (it must be extracted)\n"
	"  --limit N       at most N requests (default 5)\n"
	"  --max-turns N   model turns per request before the run is stopped (default 8)\n"
	"  -v, --verbose   also a line for each request that was triaged\n"
	"  --json          the outcomes as a JSON array\n\n"
	"Exit status: 0 every request taken was triaged (or changed by you meanwhile);\n"
	"1 any run failed (an error, the turn limit) or could not be written; 3 refused\n"
	"before any run.\n";

struct tally {
	size_t counts[4];
	size_t errors; /* runs that could not start, or whose outcome could not be written */
	size_t seen;
	int verbose;
	struct progress meter;
	json_t *rows; /* with --json */
};

static const char *outcome_name(enum triage_outcome o)
{
	return triage_outcome_names(o)->name;
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

static void on_start(size_t total, void *ctx)
{
	progress_total(&((struct tally *)ctx)->meter, total);
}

/* Done (drafted, nothing to draft) only with -v; failed and left always. */
static void on_result(const struct triage_result *r, void *ctx)
{
	struct tally *t = ctx;
	int done = r->outcome == TRIAGE_DRAFTED || r->outcome == TRIAGE_NOTHING;

	t->seen++;
	t->counts[r->outcome]++;
	progress_hide(&t->meter);
	if (t->rows)
		json_array_append_new(t->rows, json_pack("{s:I,s:s,s:s,s:i,s:s?}", "seq",
							 (json_int_t)r->seq, "outcome",
							 outcome_name(r->outcome), "session",
							 r->session, "drafts", (int)r->drafts,
							 "note", r->note));
	else if (!done || t->verbose)
		print_line(r);
	fflush(stdout);
	progress_step(&t->meter);
}

static void on_error(long long seq, const struct err *why, void *ctx)
{
	struct tally *t = ctx;

	t->seen++;
	t->errors++;
	progress_hide(&t->meter);
	fprintf(stderr, "mecha: request %lld: ", seq);
	text_print(stderr, why->msg, 0);
	fputc('\n', stderr);
	if (t->rows)
		json_array_append_new(t->rows, json_pack("{s:I,s:s,s:n,s:i,s:s}", "seq",
							 (json_int_t)seq, "outcome", "error",
							 "session", "drafts", 0, "note", why->msg));
	progress_step(&t->meter);
}

static void finish(struct tally *t)
{
	progress_end(&t->meter);
	if (t->rows)
		jsonio_print(stdout, t->rows);
	else if (t->seen == 0)
		puts("nothing to triage");
	else
		printf("%zu awaiting you, %zu with nothing drafted, %zu failed%s\n",
		       t->counts[TRIAGE_DRAFTED], t->counts[TRIAGE_NOTHING],
		       t->counts[TRIAGE_FAILED] + t->errors,
		       t->counts[TRIAGE_LEFT] ? ", the rest changed by you meanwhile" : "");
}

int frontdoor_triage_verb(int argc, char **argv)
{
	struct triage_opts o = { .seq = -1, .limit = 5 };
	struct tally t = { { 0 }, 0, 0, 0, { 0 }, NULL };
	struct triage_report rep = { on_result, on_error, &frontdoor_report, &t, on_start };
	long long turns = TRIAGE_MAX_TURNS;
	int json = 0;
	const struct cli_opt opts[] = {
		{ "seq", 0, CLI_COUNT, &o.seq, 0, 0, 0 },
		{ "limit", 0, CLI_COUNT, &o.limit, 0, 0, 0 },
		{ "max-turns", 0, CLI_COUNT, &turns, 0, 1, 100 },
		{ "verbose", 'v', CLI_FLAG, &t.verbose, 0, 0, 0 },
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
	progress_begin(&t.meter, "triage");
	rc = triage_run(&o, &rep, &e);
	if (rc == 0)
		finish(&t);
	else
		progress_end(&t.meter);
	json_decref(t.rows);
	if (rc != 0)
		return cli_fail(&e);
	return t.counts[TRIAGE_FAILED] || t.errors ? EXIT_FAIL : EXIT_OK;
}
