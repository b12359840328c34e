/*
 * extract (cli) — `mecha frontdoor extract`: selects the records the table
 * lets extract move, runs the quarantined pass over them (up to --jobs calls
 * in flight), and lands each result under the store lock.
 *
 * A result never overrides a person: if the record's state changed while its
 * call was in flight (closed, parked), the result is dropped with a notice.
 */
#include "cli/cli.h"
#include "cli/frontdoor.h"
#include "frontdoor/model.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/jsonio.h"
#include "base/text.h"
#include "config/config.h"
#include "frontdoor/extract.h"
#include "frontdoor/record.h"
#include "frontdoor/state.h"
#include "frontdoor/store.h"
#include "provider/provider.h"
#include "provider/rules.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>
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

struct run {
	struct store store;
	struct provider_conf conf;
	int rules;
	int retry_failed;
	struct extract_job *jobs;
	size_t njobs, cap;
	size_t done, extracted, failed, dropped;
	int tty, json;
	json_t *summary;
	struct provider_batch *batch;
};

static int selectable(const struct record *r, int retry_failed)
{
	const char *st = record_state(r);

	if (!record_valid(r) || extract_is_booking(r))
		return 0;
	return strcmp(st, STATE_DRAINED) == 0 ||
	       (retry_failed && strcmp(st, STATE_EXTRACTION_FAILED) == 0);
}

static void add_job(struct run *run, const struct record *r)
{
	struct extract_job *j;

	if (run->njobs == run->cap) {
		run->cap = run->cap ? run->cap * 2 : 16;
		run->jobs = xrealloc(run->jobs, run->cap * sizeof *run->jobs);
	}
	j = &run->jobs[run->njobs++];
	if (extract_job_start(j, r) == EXTRACT_CALL && run->rules) {
		/* The rules extractor reads the prose here, in-process: no model, no network. */
		struct prose_field *prose;
		size_t n = record_prose(r, &prose);
		struct rules_field *f = xcalloc(n + 1, sizeof *f);
		for (size_t i = 0; i < n; i++) {
			f[i].name = prose[i].name;
			f[i].text = prose[i].text;
			f[i].len = prose[i].len;
		}
		j->result = rules_extract(r->type_id, f, n);
		free(f);
		free(prose);
	}
}

static int collect(struct record *r, void *arg, struct err *e)
{
	struct run *run = arg;

	if (selectable(r, run->retry_failed))
		add_job(run, r);
	return 0;
}

/* --seq N: one record, and a refusal saying why when the table does not allow it. */
static int collect_one(struct run *run, long long seq, int force, struct err *e)
{
	struct record r;
	const char *st;
	int ok;

	if (store_get(&run->store, seq, &r, e) != 0)
		return -1;
	st = record_state(&r);
	if (!record_valid(&r))
		ok = err_set(e, ERR_INVALID_REQUEST, "request %lld did not validate at drain time; it is "
				"never extracted and waits for you", seq);
	else if (extract_is_booking(&r))
		ok = err_set(e, ERR_BOOKING, "request %lld is a booking; the sweep settles it", seq);
	else if (strcmp(st, STATE_DRAINED) == 0 || strcmp(st, STATE_EXTRACTION_FAILED) == 0 ||
		 (force && state_allows(st, STATE_EXTRACTED, MOVER_EXTRACT_FORCE)))
		ok = 0;
	else if (state_allows(st, STATE_EXTRACTED, MOVER_EXTRACT_FORCE))
		ok = err_set(e, ERR_INVALID_TRANSITION, "request %lld is already %s; add --force to "
				"extract it again (nothing changed)", seq, st);
	else
		ok = err_set(e, ERR_INVALID_TRANSITION, "request %lld is %s; extract does not move a %s "
				"request (nothing changed)", seq, st, st);
	if (ok == 0)
		add_job(run, &r);
	record_free(&r);
	return ok;
}

static void progress(struct run *run)
{
	if (run->tty && !run->json)
		fprintf(stderr, "\r  [%zu/%zu]", run->done, run->njobs);
}

static void report(struct run *run, struct extract_job *j, int landed, const struct err *why)
{
	const char *topic = j->result ? jsonio_str(j->result, "topic") : NULL;

	run->done++;
	if (run->tty && !run->json)
		fputs("\r\033[K", stderr);
	if (landed < 0) {
		run->failed++;
		fprintf(stderr, "mecha: request %lld: %s\n", j->seq, why->msg);
		json_array_append_new(json_object_get(run->summary, "failed"),
				      json_pack("{s:I,s:s}", "seq", (json_int_t)j->seq, "error", why->msg));
	} else if (landed == EXTRACT_DROPPED) {
		run->dropped++;
		fprintf(stderr, "%6lld  changed while it was being extracted; the result was "
			"dropped and your change stands\n", j->seq);
		json_array_append_new(json_object_get(run->summary, "dropped"), json_integer(j->seq));
	} else if (j->result) {
		run->extracted++;
		if (!run->json) {
			printf("%6lld  ", j->seq);
			text_print(stdout, topic && *topic ? topic : "(no topic)", 0);
			putchar('\n');
		}
		json_array_append_new(json_object_get(run->summary, "extracted"), json_integer(j->seq));
	} else {
		run->failed++;
		if (!run->json) {
			printf("%6lld  extraction failed: ", j->seq);
			text_print(stdout, j->error ? j->error : "", 0);
			putchar('\n');
		}
		json_array_append_new(json_object_get(run->summary, "failed"),
				      json_pack("{s:I,s:s}", "seq", (json_int_t)j->seq, "error",
						j->error ? j->error : ""));
	}
	fflush(stdout);
	progress(run);
}

static void land(struct run *run, struct extract_job *j)
{
	struct err e;
	int rc = extract_land(&run->store, j, &e);

	report(run, j, rc, &e);
}

static int send_job(struct run *run, struct extract_job *j, struct err *e)
{
	struct provider_request req;
	int rc;

	provider_request_init(&req, EXTRACT_MAX_TOKENS);
	provider_request_user(&req, j->prompt);
	rc = provider_batch_add(run->batch, &req, j, e);
	provider_request_free(&req);
	return rc;
}

static void on_answer(void *ctx, void *tag, struct provider_response *resp, const struct err *e)
{
	struct run *run = ctx;
	struct extract_job *j = tag;
	struct err add;

	switch (extract_job_answer(j, resp, e)) {
	case EXTRACT_CALL:
		if (send_job(run, j, &add) == 0)
			return;
		free(j->error);
		j->error = xstrdup(add.msg);
		land(run, j);
		return;
	case EXTRACT_DONE:
	case EXTRACT_FAILED:
		land(run, j);
		return;
	}
}

static int run_calls(struct run *run, long long jobs, struct err *e)
{
	if (run->rules) { /* every job was answered in-process while it was collected */
		for (size_t i = 0; i < run->njobs; i++)
			land(run, &run->jobs[i]);
		return 0;
	}
	run->batch = provider_batch_new(&run->conf, (unsigned)jobs, on_answer, run, e);
	if (!run->batch)
		return -1;
	for (size_t i = 0; i < run->njobs; i++) {
		struct extract_job *j = &run->jobs[i];
		if (j->result)
			land(run, j);
		else if (send_job(run, j, e) != 0)
			return -1;
	}
	provider_batch_run(run->batch);
	provider_batch_free(run->batch);
	run->batch = NULL;
	return 0;
}

static int finish(struct run *run)
{
	if (run->tty && !run->json && run->njobs)
		fputs("\r\033[K", stderr);
	if (run->json) {
		jsonio_print(stdout, run->summary);
	} else if (run->njobs == 0) {
		puts("nothing to extract");
	} else {
		printf("%zu extracted, %zu failed and waiting for you", run->extracted, run->failed);
		if (run->dropped)
			printf(", %zu dropped because you changed them meanwhile", run->dropped);
		putchar('\n');
	}
	return EXIT_OK;
}

static void run_free(struct run *run)
{
	for (size_t i = 0; i < run->njobs; i++)
		extract_job_free(&run->jobs[i]);
	free(run->jobs);
	json_decref(run->summary);
	model_conf_release(&run->conf);
	store_close(&run->store);
}

int frontdoor_extract_verb(int argc, char **argv)
{
	static const struct option opts[] = { { "seq", required_argument, NULL, 's' },
					      { "force", no_argument, NULL, 'f' },
					      { "retry-failed", no_argument, NULL, 'r' },
					      { "jobs", required_argument, NULL, 'j' },
					      { "json", no_argument, NULL, 'J' },
					      { NULL, 0, NULL, 0 } };
	struct run run = { 0 };
	struct config cfg;
	struct err e;
	long long seq = -1, jobs = 4;
	int force = 0, ch, rc = -1;

	optind = 0;
	while ((ch = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (ch == 's' && frontdoor_parse_seq("frontdoor extract", optarg, &seq) != 0)
			return EXIT_USAGE;
		else if (ch == 'j' && cli_parse_count("frontdoor extract", "--jobs", optarg, &jobs) != 0)
			return EXIT_USAGE;
		else if (ch == 'f')
			force = 1;
		else if (ch == 'r')
			run.retry_failed = 1;
		else if (ch == 'J')
			run.json = 1;
		else if (ch == '?')
			return cli_usage_error("frontdoor extract", "unknown option");
	}
	if (optind < argc)
		return cli_usage_error("frontdoor extract", "unexpected argument '%s'", argv[optind]);
	if (force && seq < 0)
		return cli_usage_error("frontdoor extract", "--force re-extracts one request: give --seq N");
	if (jobs < 1 || jobs > 64)
		return cli_usage_error("frontdoor extract", "--jobs takes 1 to 64");
	if (config_load(&cfg, &e) != 0)
		return cli_fail(&e);
	run.store.dirfd = -1; /* closed by run_free even when the store was never opened */
	run.summary = json_pack("{s:[],s:[],s:[]}", "extracted", "failed", "dropped");
	run.tty = isatty(STDERR_FILENO);
	if (model_conf(&cfg, &run.conf, &e) == 0 &&
	    store_open_default(&run.store, STORE_CREATE, &e) == 0) {
		run.rules = provider_is_rules(&run.conf);
		if (seq >= 0)
			rc = collect_one(&run, seq, force, &e);
		else
			rc = store_each(&run.store, collect, &run, &e);
		if (rc == 0)
			rc = run_calls(&run, jobs, &e);
	}
	if (rc == 0)
		rc = finish(&run);
	else
		rc = cli_fail(&e);
	run_free(&run);
	config_free(&cfg);
	return rc;
}
