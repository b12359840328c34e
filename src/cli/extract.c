/*
 * extract (cli) — `mecha frontdoor extract`: parses, runs extract_run, and
 * prints a line per landed result (or a JSON summary), with a progress
 * counter on a TTY. Which records are taken and how each lands is the
 * library's (frontdoor/extract.h).
 */
#include "cli/cli.h"
#include "cli/frontdoor.h"
#include "cli/verb.h"

#include "base/err.h"
#include "base/jsonio.h"
#include "base/text.h"
#include "frontdoor/extract.h"

#include <stdio.h>
#include <unistd.h>

const char frontdoor_extract_help[] =
	"usage: mecha frontdoor extract [--seq N [--force]] [--retry-failed] [--jobs N] [--json]\n\n"
	"The quarantined pass: a model call with no tools, no system prompt and no history\n"
	"over each new request's prose, turning it into typed fields. A failure waits for\n"
	"you in extraction_failed; the prose is never handed on in its place. Without a\n"
	"configured provider, the offline rules extractor runs (no model at all).\n\n"
	"  --seq N          only request N (drained, or extraction_failed)\n"
	"  --force          with --seq: re-extract an extracted or triaged request\n"
	"  --retry-failed   also retry every request in extraction_failed\n"
	"  --jobs N         calls in flight at once (default 4)\n"
	"  --json           a summary object on stdout instead of lines\n";

struct tally {
	size_t total, done, extracted, failed, dropped;
	int tty, json;
	json_t *summary;
};

static void progress(const struct tally *t)
{
	if (t->tty && !t->json)
		fprintf(stderr, "\r  [%zu/%zu]", t->done, t->total);
}

static void on_start(size_t total, void *ctx)
{
	((struct tally *)ctx)->total = total;
}

static void add_failed(struct tally *t, long long seq, const char *why)
{
	t->failed++;
	json_array_append_new(json_object_get(t->summary, "failed"),
			      json_pack("{s:I,s:s}", "seq", (json_int_t)seq, "error", why));
}

static void print_result(struct tally *t, const struct extract_job *j)
{
	const char *topic = jsonio_str(j->result, "topic");

	if (j->result) {
		t->extracted++;
		json_array_append_new(json_object_get(t->summary, "extracted"), json_integer(j->seq));
	} else {
		add_failed(t, j->seq, j->error ? j->error : "");
	}
	if (t->json)
		return;
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

	t->done++;
	if (t->tty && !t->json)
		fputs("\r\033[K", stderr);
	if (landed < 0) {
		fprintf(stderr, "mecha: request %lld: ", j->seq);
		text_print(stderr, why->msg, 0);
		fputc('\n', stderr);
		add_failed(t, j->seq, why->msg);
	} else if (landed == EXTRACT_DROPPED) {
		t->dropped++;
		fprintf(stderr, "%6lld  changed while it was being extracted; the result was "
			"dropped and your change stands\n", j->seq);
		json_array_append_new(json_object_get(t->summary, "dropped"), json_integer(j->seq));
	} else {
		print_result(t, j);
	}
	fflush(stdout);
	progress(t);
}

static void finish(const struct tally *t)
{
	if (t->tty && !t->json && t->total)
		fputs("\r\033[K", stderr);
	if (t->json) {
		jsonio_print(stdout, t->summary);
	} else if (t->total == 0) {
		puts("nothing to extract");
	} else {
		printf("%zu extracted, %zu failed and waiting for you", t->extracted, t->failed);
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
	t.tty = isatty(STDERR_FILENO);
	t.summary = json_pack("{s:[],s:[],s:[]}", "extracted", "failed", "dropped");
	rc = extract_run(&o, &rep, &e);
	if (rc == 0)
		finish(&t);
	json_decref(t.summary);
	return rc == 0 ? EXIT_OK : cli_fail(&e);
}
