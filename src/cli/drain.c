/*
 * drain (cli) — `mecha drain`: the box's queue brought home into requests/.
 * Every rule (what is written, when the box is told to forget) lives in
 * src/drain/drain.h; this file parses, calls drain_run or drain_follow, and
 * prints a line per request and a summary.
 */
#include "cli/cli.h"
#include "cli/verb.h"

#include "base/err.h"
#include "base/jsonio.h"
#include "base/text.h"
#include "config/config.h"
#include "drain/drain.h"
#include "drain/push.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FOLLOW_WAIT 25

static const char drain_help[] =
	"usage: mecha drain [--wait N] [--dry-run] [--json] [--follow]\n\n"
	"Brings the requests strangers sent through your box home: one batch of the box's\n"
	"queue (GET /v1/queue), each request validated again against your own manifest\n"
	"($MECHA_HOME/factory/types/TYPE.toml), its files fetched and checked against the\n"
	"size and SHA-256 the box declared, written to requests/attachments/SEQ/, then the\n"
	"record to requests/SEQ-TYPE.json (state drained; valid or not, with the reason).\n"
	"Only then is the box told to forget them (POST /v1/queue/ack). A record already at\n"
	"home is not rewritten (your progress on it is kept) and is acknowledged again. A\n"
	"request that cannot be taken (a file longer than declared or with another digest,\n"
	"a seq another request holds at home) is left at the box and named on stderr; the\n"
	"exit status is then that error's. A kill at any point loses nothing and\n"
	"duplicates nothing: run it again.\n\n"
	"The box is the gate in $MECHA_HOME/factory/config.toml (gate = \"https://...\") or\n"
	"$FACTORY_GATE; the key is $MECHA_HOME/factory/drain.key (mode 0600) or the file\n"
	"$FACTORY_DRAIN_KEY names. A plain http:// gate is refused unless it is this\n"
	"machine's loopback, and so is a key file others can read (insecure, exit 3).\n\n"
	"  --wait N    let the box hold the question open up to N seconds (0-25) until a\n"
	"              request arrives (default 0; 25 with --follow)\n"
	"  --dry-run   judge and fetch, write and acknowledge nothing\n"
	"  --json      {\"drained\", \"written\", \"already_held\", \"invalid\", \"acknowledged\",\n"
	"              \"store\", \"skipped\": [{\"seq\", \"error\", \"message\"}], \"dry_run\"}\n"
	"              (with --follow: one such line per pass that drained anything)\n"
	"  --follow    keep draining, one long poll after another, until SIGTERM or SIGINT\n"
	"              (for a service: docs/mecha-drain.service). Every [calendar]\n"
	"              slots_check_s seconds (default 60) it also looks at each booking type\n"
	"              pushed before (mecha slots push): when the calendar's busy time or the\n"
	"              type changed since its last push, or that push is an hour old, its\n"
	"              slots are pushed again, a line each (\"pushed N slots of TYPE ...\";\n"
	"              --json: {\"slots_pushed\": {\"type\", \"gate\", \"slots\", \"why\"}}).\n"
	"              A push that fails is said on stderr and tried at the next look.\n";

struct out {
	int json;
	int follow;
};

static void print_line(const struct drain_line *l, void *ctx)
{
	const struct out *o = ctx;
	FILE *f = l->outcome == DRAIN_SKIPPED ? stderr : stdout;

	if (o->json && l->outcome != DRAIN_SKIPPED)
		return;
	if (l->outcome == DRAIN_SKIPPED) {
		fputs("mecha: left at the box: ", f);
		text_print(f, l->reason ? l->reason : "", 0);
		fputc('\n', f);
		return;
	}
	fprintf(f, "%-8s %lld ", l->outcome == DRAIN_WRITTEN ? "written" : "held", l->seq);
	text_print(f, l->type ? l->type : "?", 0);
	if (l->outcome == DRAIN_HELD)
		fputs("  (already at home; acknowledged again)", f);
	else if (!l->valid) {
		fputs("  invalid: ", f);
		text_print(f, l->reason ? l->reason : "", 0);
	}
	fputc('\n', f);
}

static void print_summary(const struct drain_report *r)
{
	printf("%s %zu from ", r->dry_run ? "dry run: would drain" : "drained", r->drained);
	text_print(stdout, r->gate ? r->gate : "the box", 0);
	printf(": %zu written (%zu invalid), %zu already held, %zu left at the box; ",
	       r->written, r->invalid, r->already_held, r->nskipped);
	if (r->dry_run)
		fputs("nothing written or acknowledged\n", stdout);
	else
		printf("%zu acknowledged\n", r->acknowledged);
	fputs("store: ", stdout);
	text_print(stdout, r->store ? r->store : "", 0);
	fputc('\n', stdout);
}

/* Types out of step: said on stderr with the command that fixes it, whatever the format. */
static void print_steps(const struct drain_report *r)
{
	for (size_t i = 0; i < r->nsteps; i++) {
		fputs("mecha: ", stderr);
		text_print(stderr, r->steps[i].type, 0);
		fprintf(stderr, " is out of step: the box serves version %lld, home has version %lld "
			"(its records may not validate); run `mecha types push ",
			r->steps[i].box_version, r->steps[i].home_version);
		text_print(stderr, r->steps[i].type, 0);
		fputs("`\n", stderr);
	}
}

static void print_report(const struct drain_report *r, const struct out *o)
{
	json_t *doc;

	print_steps(r);
	if (!o->json) {
		print_summary(r);
		return;
	}
	doc = drain_report_json(r);
	if (o->follow) {
		/* One line a pass; ASCII only, so no control character reaches a terminal raw. */
		char *s = json_dumps(doc, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII);
		if (s)
			puts(s);
		free(s);
	} else {
		jsonio_print(stdout, doc);
	}
	json_decref(doc);
}

static void each_pass(const struct drain_report *r, const struct err *failed, void *ctx)
{
	const struct out *o = ctx;

	if (failed) {
		fputs("mecha: ", stderr);
		text_print(stderr, failed->msg, 0);
		fputs(" (trying again)\n", stderr);
	} else if (r->drained > 0) {
		print_report(r, o);
	}
	fflush(stdout);
}

/* A push of the slots that follow the calendar (push.h), or why it failed. */
static void each_push(const struct push_due_line *l, void *ctx)
{
	const struct out *o = ctx;
	json_t *doc;
	char *text;

	if (l->failed) {
		cli_push_failed(l, "trying again at the next look");
	} else if (o->json) {
		doc = json_pack("{s:{s:s,s:s,s:I,s:s}}", "slots_pushed", "type", l->type, "gate",
				l->pushed->gate, "slots", (json_int_t)l->pushed->n, "why", l->why);
		text = json_dumps(doc, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII);
		if (text)
			puts(text);
		free(text);
		json_decref(doc);
	} else {
		cli_push_said(l, l->why);
	}
	fflush(stdout);
}

/* [calendar] slots_check_s; the default when config.toml does not load (each push then
 * fails, saying why, while the drain goes on). */
static long long slots_every(void)
{
	struct config cfg = { 0 };
	struct err e;
	long long every = CONFIG_SLOTS_CHECK_S;

	if (config_load(&cfg, &e) == 0 && cfg.calendar_slots_check_s > 0)
		every = cfg.calendar_slots_check_s;
	config_free(&cfg);
	return every;
}

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int follow(struct drain_opts *d, struct out *o)
{
	struct sigaction sa;
	struct err e;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal; /* no SA_RESTART: a sleep ends at once */
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	d->stop = &stop;
	d->slots_every = d->dry_run ? 0 : slots_every();
	d->slots = each_push;
	if (drain_follow(d, each_pass, o, &e) != 0)
		return cli_fail_json_line(&e, o->json);
	return EXIT_OK;
}

int cli_drain(int argc, char **argv)
{
	long long wait = -1;
	struct out o = { 0, 0 };
	struct drain_opts d = { 0 };
	struct drain_report r;
	int dry = 0, rc;
	const struct cli_opt opts[] = {
		{ "wait", 0, CLI_COUNT, &wait, 0, 0, DRAIN_WAIT_MAX },
		{ "dry-run", 0, CLI_FLAG, &dry, 0, 0, 0 },
		{ "json", 0, CLI_FLAG, &o.json, 0, 0, 0 },
		{ "follow", 0, CLI_FLAG, &o.follow, 0, 0, 0 },
	};
	struct cli_args a;
	struct err e;

	if (cli_wants_help(argc, argv)) {
		fputs(drain_help, stdout);
		return EXIT_OK;
	}
	if ((rc = cli_parse("drain", CLI_OPTS(opts), 0, 0, argc, argv, &a)) != 0)
		return rc;
	d.wait = wait >= 0 ? wait : o.follow ? FOLLOW_WAIT : 0;
	d.dry_run = dry;
	d.line = print_line;
	d.ctx = &o;
	if (o.follow)
		return follow(&d, &o);
	if (drain_run(&d, &r, &e) != 0) {
		drain_report_free(&r);
		return cli_fail_json(&e, o.json);
	}
	print_report(&r, &o);
	rc = r.nskipped > 0 ? err_code_exit(r.skipped[0].code) : EXIT_OK;
	drain_report_free(&r);
	return rc;
}
