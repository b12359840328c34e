/*
 * extract (cli) — `mecha frontdoor extract`: parses, runs extract_run, and
 * prints a summary (or a JSON one), with the meter on a terminal; a request
 * that was not extracted is always named, one that was only with -v. The
 * exit status says whether every request taken was extracted. Which records
 * are taken and how each lands is the library's (frontdoor/extract.h).
 */
#include "cli/cli.h"
#include "cli/frontdoor.h"
#include "cli/progress.h"
#include "cli/verb.h"

#include "base/err.h"
#include "base/jsonio.h"
#include "base/seqpack.h"
#include "base/text.h"
#include "frontdoor/extract.h"

#include <stdio.h>

const char frontdoor_extract_help[] =
	"usage: mecha frontdoor extract [--seq N [--force]] [--retry-failed] [--jobs N] [-v]\n"
	"                               [--json]\n\n"
	"The quarantined pass: a model call with no tools, no system prompt and no history\n"
	"over each new request's prose, turning it into typed fields. A failure waits for\n"
	"you in extraction_failed; the prose is never handed on in its place. Without a\n"
	"configured provider, the offline rules extractor runs (no model at all).\n"
	"A meter shows progress on a terminal; then a summary, naming each request that\n"
	"was not extracted.\n\n"
	"  --seq N          only request N (drained, or extraction_failed)\n"
	"  --force          with --seq: re-extract an extracted or triaged request\n"
	"  --retry-failed   also retry every request in extraction_failed\n"
	"  --jobs N         calls in flight at once (default 4)\n"
	"  -v, --verbose    also a line for each request extracted\n"
	"  --json           a summary object on stdout instead of lines\n\n"
	"Exit status: 0 every request taken was extracted (or changed by you meanwhile);\n"
	"1 any failed or could not be written; 3 refused before any call.\n";

/*
 * Counts, and for --json the summary's lists: the seqs packed (about a byte
 * each, base/seqpack.h) and printed as a stream at the end, so a run over a
 * large store holds no JSON per record extracted. Failures are kept whole:
 * each one is named anyway, and they wait for a person.
 */
struct tally {
	size_t extracted, failed, unwritten, dropped;
	int json, verbose;
	struct progress meter;
	struct seqpack extracted_seqs, dropped_seqs; /* --json only */
	json_t *failures;                            /* --json only */
};

static void on_start(size_t total, void *ctx)
{
	progress_total(&((struct tally *)ctx)->meter, total);
}

static void add_failed(struct tally *t, long long seq, const char *why, const char *state)
{
	/* The error may quote a model's bytes: never dropped for not being UTF-8. */
	if (t->json)
		json_array_append_new(t->failures, json_pack("{s:I,s:o,s:s}", "seq", (json_int_t)seq,
							     "error", jsonio_text(why), "state",
							     state));
}

/* The result was known but the record could not be written: say which, and where it stays. */
static void print_unwritten(struct tally *t, const struct extract_job *j, const struct err *why)
{
	t->unwritten++;
	fprintf(stderr, "mecha: request %lld: ", j->seq);
	if (j->result) {
		fputs("extracted, but the result could not be written: ", stderr);
	} else {
		fputs("extraction failed (", stderr);
		text_print(stderr, j->error ? j->error : "", 0);
		fputs(") and the failure could not be recorded either: ", stderr);
	}
	text_print(stderr, why->msg, 0);
	fputs("; it is still ", stderr);
	text_print(stderr, j->state_seen, 0);
	fputc('\n', stderr);
	add_failed(t, j->seq, why->msg, j->state_seen);
}

static void print_result(struct tally *t, const struct extract_job *j)
{
	const char *topic = jsonio_str(j->result, "topic");

	if (j->result) {
		t->extracted++;
		if (t->json)
			seqpack_add(&t->extracted_seqs, j->seq, 0);
	} else {
		t->failed++;
		add_failed(t, j->seq, j->error ? j->error : "", "extraction_failed");
	}
	if (t->json || (j->result && !t->verbose))
		return; /* a request not extracted is always named */
	if (j->result) {
		printf("%6lld  ", j->seq);
		text_print(stdout, topic && *topic ? topic : "(no topic)", 0);
	} else {
		printf("%6lld  extraction failed: ", j->seq);
		text_print(stdout, j->error ? j->error : "", 0);
	}
	putchar('\n');
}

static void on_landed(const struct extract_job *j, int landed, const struct err *why, void *ctx)
{
	struct tally *t = ctx;

	progress_hide(&t->meter);
	if (landed < 0) {
		print_unwritten(t, j, why);
	} else if (landed == EXTRACT_DROPPED) {
		t->dropped++;
		fprintf(stderr, "%6lld  changed while it was being extracted; the result was "
			"dropped and your change stands\n", j->seq);
		if (t->json)
			seqpack_add(&t->dropped_seqs, j->seq, 0);
	} else {
		print_result(t, j);
	}
	fflush(stdout);
	progress_step(&t->meter);
}

/* One member of the summary: the seqs of p, one at a time. */
static void print_seqs(struct jsonio_object *o, const char *key, const struct seqpack *p)
{
	struct seqpack_cursor c = SEQPACK_CURSOR_INIT;
	struct jsonio_array a;
	long long seq;

	jsonio_object_array(o, key, &a);
	while (seqpack_next(p, &c, &seq, NULL)) {
		json_t *v = json_integer((json_int_t)seq);
		jsonio_array_add(&a, v);
		json_decref(v);
	}
	jsonio_array_end(&a);
}

/* {"extracted": [seq...], "failed": [{seq, error, state}...], "dropped": [seq...]} */
static void print_summary(const struct tally *t)
{
	struct jsonio_object o;
	struct jsonio_array a;
	size_t i;
	json_t *v;

	jsonio_object_begin(&o, stdout);
	print_seqs(&o, "extracted", &t->extracted_seqs);
	jsonio_object_array(&o, "failed", &a);
	json_array_foreach(t->failures, i, v)
		jsonio_array_add(&a, v);
	jsonio_array_end(&a);
	print_seqs(&o, "dropped", &t->dropped_seqs);
	jsonio_object_end(&o);
}

static void finish(struct tally *t)
{
	progress_end(&t->meter);
	if (t->json) {
		print_summary(t);
	} else if (t->meter.total == 0) {
		puts("nothing to extract");
	} else {
		printf("%zu extracted, %zu failed and waiting for you", t->extracted, t->failed);
		if (t->unwritten)
			printf(", %zu could not be written and stay as they were (named above)",
			       t->unwritten);
		if (t->dropped)
			printf(", %zu dropped because you changed them meanwhile", t->dropped);
		putchar('\n');
	}
}

int frontdoor_extract_verb(int argc, char **argv)
{
	struct extract_opts o = { .seq = -1 };
	struct tally t = { 0 };
	struct extract_report rep = { on_start, on_landed, &t };
	long long jobs = 4;
	const struct cli_opt opts[] = {
		{ "seq", 0, CLI_COUNT, &o.seq, 0, 0, 0 },
		{ "force", 0, CLI_FLAG, &o.force, 0, 0, 0 },
		{ "retry-failed", 0, CLI_FLAG, &o.retry_failed, 0, 0, 0 },
		{ "jobs", 0, CLI_COUNT, &jobs, 0, 1, 64 },
		{ "verbose", 'v', CLI_FLAG, &t.verbose, 0, 0, 0 },
		{ "json", 0, CLI_FLAG, &t.json, 0, 0, 0 },
	};
	struct cli_args a;
	struct err e;
	int rc = cli_parse("frontdoor extract", CLI_OPTS(opts), 0, 0, argc, argv, &a);

	if (rc != 0)
		return rc;
	if (o.force && o.seq < 0)
		return cli_usage_error("frontdoor extract", "--force re-extracts one request: give --seq N");
	o.jobs = (unsigned)jobs;
	progress_begin(&t.meter, "extract");
	if (t.json)
		t.failures = json_array();
	rc = extract_run(&o, &rep, &e);
	if (rc == 0)
		finish(&t);
	else
		progress_end(&t.meter);
	json_decref(t.failures);
	seqpack_free(&t.extracted_seqs);
	seqpack_free(&t.dropped_seqs);
	if (rc != 0)
		return cli_fail(&e);
	return t.failed || t.unwritten ? EXIT_FAIL : EXIT_OK;
}
