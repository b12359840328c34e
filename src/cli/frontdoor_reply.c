/*
 * frontdoor_reply (cli) — `mecha frontdoor reply`: a person answers a request
 * in their own words, in their editor or on the command line. What may be
 * answered, where the draft goes and what the request becomes are
 * frontdoor/reply.h's; here: the options, the calls in order, and what the
 * person is told.
 */
#include "cli/cli.h"
#include "cli/frontdoor.h"
#include "cli/verb.h"

#include "base/editor.h"
#include "base/err.h"
#include "base/fs.h"
#include "base/text.h"
#include "drain/tell.h"
#include "frontdoor/decline.h"
#include "frontdoor/reply.h"
#include "requests/state.h"

#include <stdlib.h>
#include <string.h>

const char frontdoor_reply_help[] =
	"usage: mecha frontdoor reply SEQ [--subject TEXT] [--body TEXT | --file PATH]\n\n"
	"Writes the answer to a request yourself, with or without a model. Without --body\n"
	"or --file, opens $VISUAL (else $EDITOR, else vi) on a template: a Subject: line,\n"
	"the requester's address, room for your reply, and the request quoted below a cut\n"
	"line that is never sent. The reply is staged as a mail_send draft to the\n"
	"request's reply_to and nobody else, and recorded on the request, which becomes\n"
	"awaiting_me; `mecha outbox approve ID` sends it and the request is then answered.\n"
	"An empty reply, or the template unchanged, stages nothing (exit 3, declined).\n"
	"Refused (exit 3) for a closed request, a booking (decline or close it), or a\n"
	"request with no reply_to.\n\n"
	"  --subject TEXT   the subject (default: Re: your TYPE request)\n"
	"  --body TEXT      the reply's text; no editor opens\n"
	"  --file PATH      the reply's text, read from a file; no editor opens\n";

void frontdoor_print_staged(const char *id, const struct reply *rp, const char *state)
{
	fputs("staged ", stdout);
	text_print(stdout, id, 0);
	fputs(" to ", stdout);
	text_print(stdout, rp->to, 0);
	printf(": request %lld is %s; `mecha outbox approve ", rp->seq, state);
	text_print(stdout, id, 0);
	puts("` sends it");
}

/* "WHAT: nothing was staged" (declined, exit 3). */
static int frontdoor_say_empty(const char *what)
{
	struct err e;

	err_set(&e, ERR_DECLINED, "%s: nothing was staged", what);
	return cli_fail(&e);
}

/* The template in the person's editor; -1 with e, else REPLY_STAGED or REPLY_EMPTY. */
static int frontdoor_reply_in_editor(struct reply *rp, char *id, struct err *e)
{
	if (reply_template(rp, e) != 0)
		return -1;
	if (editor_run(rp->path, e) != 0)
		return -1;
	return reply_finish(rp, id, e);
}

int frontdoor_reply_verb(int argc, char **argv)
{
	const char *subject = NULL, *body = NULL, *file = NULL;
	const struct cli_opt opts[] = {
		{ "subject", 0, CLI_TEXT, &subject, 0, 0, 0 },
		{ "body", 0, CLI_TEXT, &body, 0, 0, 0 },
		{ "file", 0, CLI_STR, &file, CLI_READS, 0, 0 },
	};
	char id[OUTBOX_ID_MAX + 1], *text = NULL;
	struct cli_args a;
	struct reply rp;
	struct err e;
	long long seq;
	size_t len;
	int rc = cli_parse("frontdoor reply", CLI_OPTS(opts), 1, 1, argc, argv, &a);

	if (rc != 0)
		return rc;
	if (frontdoor_parse_seq("frontdoor reply", a.pos[0], &seq) != 0)
		return EXIT_USAGE;
	if (body && file)
		return cli_usage_error("frontdoor reply", "--body or --file, not both");
	if (file) {
		if (fs_read(file, &text, &len, &e) != 0)
			return cli_fail(&e);
		if (!text_utf8_valid(text, len) || memchr(text, '\0', len)) {
			free(text);
			return cli_usage_error("frontdoor reply", "%s is not UTF-8 text", file);
		}
		body = text;
	}
	if (reply_open(&rp, seq, &e) != 0) {
		free(text);
		return cli_fail(&e);
	}
	if (body)
		rc = reply_stage(&rp, subject, body, id, &e);
	else
		rc = frontdoor_reply_in_editor(&rp, id, &e);
	if (rc < 0)
		rc = cli_fail(&e);
	else if (rc == REPLY_EMPTY)
		rc = frontdoor_say_empty(body ? "the reply is empty"
					      : "the reply is empty or the template came back unchanged");
	else {
		frontdoor_print_staged(id, &rp, STATE_AWAITING_ME);
		rc = EXIT_OK;
	}
	reply_close(&rp);
	free(text);
	return rc;
}

/* ---- decline ------------------------------------------------------------------------ */

const char frontdoor_decline_help[] =
	"usage: mecha frontdoor decline SEQ [--reason TEXT] [--json]\n\n"
	"Turns down a booking the sweep left for you (a CONFLICT, or one it would not\n"
	"book): stages a mail_send draft to the requester saying the time cannot be kept,\n"
	"with the booking page's address to pick another, and closes the request with the\n"
	"reason (default: \"" DECLINE_REASON "\"), then tells your box\n"
	"(POST /v1/bookings/decline): its manage page says declined, the slot is free. The\n"
	"draft is released like any other (`mecha outbox approve ID`), though its request\n"
	"is closed. A booked request is cancelled by close instead (see `mecha frontdoor\n"
	"close --help`).\n"
	"Refused (exit 3) for a request that is not a booking, is closed or booked, or\n"
	"has no reply_to.\n\n"
	"  --reason TEXT   why (kept as the request's note; not mailed)\n"
	"  --json          {seq, from, to, note, drafts_rejected, drafts_kept, staged, box}\n"
	"                  on stdout, as close --json: staged the decline, box what your\n"
	"                  box was told\n";

static void print_farewell_text(const struct decline_outcome *o, const char *what)
{
	printf("%6lld  → closed; %s staged as ", o->seq, what);
	text_print(stdout, o->id, 0);
	fputs(": `mecha outbox approve ", stdout);
	text_print(stdout, o->id, 0);
	puts("` sends it");
}

const struct decline_teller frontdoor_teller = { tell_box, NULL };

void frontdoor_print_farewell(const struct decline_outcome *o, const char *what, int cancelled,
			      int json)
{
	struct frontdoor_move m = { .seq = o->seq,
				    .from = o->from,
				    .to = STATE_CLOSED,
				    .note = o->note,
				    .staged_id = o->id,
				    .box = o,
				    .cancelled = cancelled };

	if (json)
		frontdoor_print_move(&m);
	else
		print_farewell_text(o, what);
	if (o->told == DECLINE_NOT_TOLD) {
		fputs("mecha: the box was not told (", stderr);
		text_print(stderr, o->why.msg, 0);
		fputs("): its manage page still shows the booking\n", stderr);
	} else if (!json) {
		printf("        %s\n", decline_told_text(o, cancelled));
	}
}

int frontdoor_decline_verb(int argc, char **argv)
{
	const char *reason = NULL;
	int json = 0;
	const struct cli_opt opts[] = {
		{ "reason", 0, CLI_TEXT, &reason, CLI_NONEMPTY, 0, 0 },
		{ "json", 0, CLI_FLAG, &json, 0, 0, 0 },
	};
	struct decline_outcome o;
	struct cli_args a;
	struct err e;
	long long seq;
	int rc = cli_parse("frontdoor decline", CLI_OPTS(opts), 1, 1, argc, argv, &a);

	if (rc != 0)
		return rc;
	if (frontdoor_parse_seq("frontdoor decline", a.pos[0], &seq) != 0)
		return EXIT_USAGE;
	if (decline_home(seq, reason, &frontdoor_teller, &o, &e) != 0)
		return cli_fail(&e);
	frontdoor_print_farewell(&o, "the decline", 0, json);
	return EXIT_OK;
}
