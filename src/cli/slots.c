/*
 * slots (cli) — `mecha slots …`: the times a booking type offers, computed
 * at home from its [availability] and the calendar. The rule and every
 * decision about what a slot is live in src/drain/slots.h; this file parses,
 * makes one call and prints.
 */
#include "cli/cli.h"
#include "cli/verb.h"

#include "base/err.h"
#include "base/jsonio.h"
#include "base/text.h"
#include "drain/slots.h"

#include <stdio.h>
#include <stdlib.h>

static const char show_help[] =
	"usage: mecha slots show TYPE [--from TIME] [--json]\n\n"
	"The slots booking type TYPE ($MECHA_HOME/factory/types/TYPE.toml) offers: its\n"
	"[availability] windows in its timezone, on its increment grid, for each of its\n"
	"durations, at least min_notice_hours ahead and within horizon_days, minus every\n"
	"busy time of [calendar] path widened by buffer_minutes, at most per_day_cap start\n"
	"times a day. One slot a line, in the type's timezone. Without a calendar mecha can\n"
	"read, no slot is offered: the error says why.\n\n"
	"  --from TIME   compute as of TIME instead of now: RFC 3339, or YYYY-MM-DD for\n"
	"                midnight that day in the type's timezone\n"
	"  --json        {\"generated_at\", \"horizon_days\", \"slots\": [{\"start\", \"end\",\n"
	"                \"duration_minutes\"}]} in UTC: the body PUT /v1/instruments/TYPE/slots\n"
	"                takes (at most 5000 slots; the earliest are kept)\n";

static int print_text(const struct slots *s)
{
	struct err e;
	char *text = slots_text(s, &e);

	if (!text)
		return cli_fail(&e);
	if (s->n == 0) {
		fputs("no slots offered (", stdout);
		text_print(stdout, s->type, 0);
		fputs(": nothing free in its windows)\n", stdout);
	}
	fputs(text, stdout);
	free(text);
	return EXIT_OK;
}

static int show(int argc, char **argv)
{
	const char *from = NULL;
	int json = 0, rc;
	struct cli_opt opts[] = { { "from", 0, CLI_TEXT, &from, CLI_NONEMPTY, 0, 0 },
				  { "json", 0, CLI_FLAG, &json, 0, 0, 0 } };
	struct cli_args a;
	struct slots s;
	struct err e;

	if ((rc = cli_parse("slots show", CLI_OPTS(opts), 1, 1, argc, argv, &a)) != 0)
		return rc;
	if (slots_of_type(a.pos[0], from, &s, &e) != 0)
		return cli_fail_json(&e, json);
	if (json) {
		json_t *body = slots_json(&s);
		jsonio_print(stdout, body);
		json_decref(body);
	} else {
		rc = print_text(&s);
	}
	if (s.dropped > 0)
		fprintf(stderr, "mecha: %zu later slots left out: a box takes at most %d\n",
			s.dropped, SLOTS_MAX);
	slots_free(&s);
	return rc;
}

static const struct cli_verb verbs[] = {
	{ "show", show, show_help, "the slots a booking type offers, computed from the calendar" },
};

const struct cli_group cli_slots_group = {
	"slots",
	"Bookable slots: computed at home from a booking type's [availability] and the\n"
	"calendar's busy time, for the box to offer (the box never sees the calendar).",
	verbs,
	sizeof verbs / sizeof verbs[0],
	NULL,
};

int cli_slots(int argc, char **argv)
{
	return cli_dispatch(&cli_slots_group, argc, argv);
}
