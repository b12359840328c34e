/*
 * doctor (cli) — `mecha doctor [--json] [--offline]`: doctor_run's lines,
 * for a person or as one JSON array; exit 1 when any is a fail. `--digest`:
 * the queue section alone, short, and with --mail sent to [notify] digest_to.
 */
#include "cli/cli.h"
#include "cli/frontdoor.h"
#include "cli/verb.h"

#include "base/err.h"
#include "base/jsonio.h"
#include "base/opts.h"
#include "base/text.h"
#include "config/confine.h"
#include "doctor/doctor.h"
#include "drain/offered.h"
#include "frontdoor/sweep_offer.h"

#include <stdio.h>
#include <stdlib.h>

static const char doctor_help[] =
	"usage: mecha doctor [--json] [--offline]\n"
	"       mecha doctor --digest [--json] [--mail]\n\n"
	"Checks the home ($MECHA_HOME, else ~/.mecha) without changing anything in it:\n"
	"  home, permissions  the home is yours; directories 0700, files 0600\n"
	"  config             config.toml loads and every value means something\n"
	"  stores             requests/, outbox/, sessions/, missions/, factory/types/\n"
	"  temps              no temporary file a killed write left in the stores\n"
	"  provider           the default provider answers (one GET of its models list)\n"
	"  mail               SMTP: connect, EHLO and the login, no message sent;\n"
	"                     or the sendmail command is a program here\n"
	"  calendar           the calendar reads, with its event count\n"
	"  outbox             drafts of mail_send are routed to the outbox\n"
	"  types              every request type installed loads\n"
	"  mcp                the tools `mecha mcp` offers\n"
	"  missions           every mission's chain in the box is linear\n"
	"  caches             requests/.types lists every type; the box's index matches\n"
	"  queue              what has waited too long, each with the verb that settles it:\n"
	"                     a failed extraction (fail); a request waiting on you longer\n"
	"                     than [frontdoor] stale_hours (72; warn, oldest first); a\n"
	"                     pending draft whose delivery failed (fail) or older than\n"
	"                     [outbox] stale_hours (48; warn); a booking the sweep leaves\n"
	"                     for you (warn)\n\n"
	"Each line is ok, warn or fail, with the fix. --offline reaches neither the\n"
	"provider nor the SMTP server. --json prints one array of {check, status,\n"
	"detail, fix} (a queue finding adds item: {kind, seq or id, ...}). Exit status:\n"
	"0 when no check failed, 1 otherwise.\n\n"
	"--digest prints the queue section alone, short, for a daily mail or a desktop\n"
	"notification, and nothing at all when nothing has waited too long (exit 0\n"
	"either way). --mail sends it instead to [notify] digest_to through [mail],\n"
	"only when there is something in it (docs/outbox.md, The digest).\n";

static void print_line(const struct doctor_line *l)
{
	printf("%-5s %-12s ", doctor_status_name(l->status), l->check);
	text_print(stdout, l->detail, 0); /* details quote files, servers and paths */
	fputc('\n', stdout);
	if (l->fix) {
		fputs("                   fix: ", stdout);
		text_print(stdout, l->fix, 0);
		fputc('\n', stdout);
	}
}

static void print_report(const struct doctor_report *r)
{
	size_t count[3] = { 0, 0, 0 };

	for (size_t i = 0; i < r->n; i++) {
		print_line(&r->lines[i]);
		count[r->lines[i].status]++;
	}
	printf("\n%zu ok, %zu warn, %zu fail\n", count[DOCTOR_OK], count[DOCTOR_WARN],
	       count[DOCTOR_FAIL]);
}

/* --digest: its lines (or nothing), or with --mail its one mail. */
static int digest(const struct doctor_report *r, int json, int mail)
{
	struct err e;
	char *text;
	int rc;

	if (mail) {
		rc = doctor_digest_mail(r, &e);
		if (rc < 0)
			return cli_fail_json(&e, json);
		if (json) {
			json_t *doc = json_pack("{s:b,s:o}", "sent", rc > 0, "lines",
						doctor_report_json(r));
			jsonio_print(stdout, doc);
			json_decref(doc);
		}
		return EXIT_OK;
	}
	if (json) {
		json_t *doc = doctor_report_json(r);
		jsonio_print(stdout, doc);
		json_decref(doc);
	} else if ((text = doctor_digest_text(r))) {
		fputs(text, stdout);
		free(text);
	}
	return EXIT_OK;
}

/* A mail leaves through [mail]: a sendmail command is a program this run may start. */
static int wants_mail(int argc, char **argv)
{
	return opts_present(argc, argv, "--mail");
}

int cli_doctor(int argc, char **argv)
{
	int json = 0, off = 0, dig = 0, mail = 0, rc;
	const struct cli_opt opts[] = {
		{ "json", 0, CLI_FLAG, &json, 0, 0, 0 },
		{ "offline", 0, CLI_FLAG, &off, 0, 0, 0 },
		{ "digest", 0, CLI_FLAG, &dig, 0, 0, 0 },
		{ "mail", 0, CLI_FLAG, &mail, 0, 0, 0 },
	};
	struct offered_judge j = OFFERED_JUDGE_INIT;
	struct sweep_offers offers = { frontdoor_offer_judge, &j };
	struct doctor_report r;
	struct cli_args a;

	if (cli_wants_help(argc, argv)) {
		fputs(doctor_help, stdout);
		return EXIT_OK;
	}
	if (wants_mail(argc, argv))
		cli_confine_declare(CONFINE_CALENDAR | CONFINE_GATE | CONFINE_DELIVER);
	if ((rc = cli_parse("doctor", CLI_OPTS(opts), 0, 0, argc, argv, &a)) != 0)
		return rc;
	if (mail && !dig) {
		fputs("mecha: doctor: --mail sends the digest: it goes with --digest\n", stderr);
		return EXIT_USAGE;
	}
	if (dig) {
		doctor_run(DOCTOR_DIGEST, &offers, &r);
		rc = digest(&r, json, mail);
		doctor_report_free(&r);
		offered_judge_free(&j);
		return rc;
	}
	doctor_run(off ? DOCTOR_OFFLINE : 0, &offers, &r);
	if (json) {
		json_t *doc = doctor_report_json(&r);
		jsonio_print(stdout, doc);
		json_decref(doc);
	} else {
		print_report(&r);
	}
	rc = doctor_failed(&r) ? EXIT_FAIL : EXIT_OK;
	doctor_report_free(&r);
	offered_judge_free(&j);
	return rc;
}
