/*
 * slots (cli) — `mecha slots …`: the times a booking type offers, computed
 * at home from its [availability] and the calendar. The rule and every
 * decision about what a slot is live in src/drain/slots.h; this file parses,
 * makes one call and prints.
 */
#include "cli/cli.h"
#include "cli/verb.h"

#include "config/confine.h"

#include "base/err.h"
#include "base/jsonio.h"
#include "base/text.h"
#include "drain/push.h"
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

static const char push_help[] =
	"usage: mecha slots push TYPE [--from TIME] [--dry-run] [--json]\n\n"
	"Computes the slots booking type TYPE offers (exactly what `mecha slots show TYPE\n"
	"--json` prints) and PUTs them to your box, /v1/instruments/TYPE/slots, with the\n"
	"slots key: the box offers strangers these times and no others. Run it after the\n"
	"calendar changes (a booking swept in, an event added): the box never sees the\n"
	"calendar, only this list.\n"
	"The box is the gate in $MECHA_HOME/factory/config.toml (gate = \"https://...\") or\n"
	"$FACTORY_GATE; the key is $MECHA_HOME/factory/slots.key (mode 0600) or the file\n"
	"$FACTORY_SLOTS_KEY names.\n\n"
	"  --from TIME   compute as of TIME instead of now (as slots show takes it)\n"
	"  --dry-run     compute and check the gate and key; send nothing\n"
	"  --json        {\"type\", \"gate\", \"slots\", \"dropped\", \"dry_run\", \"answer\"}: the\n"
	"                box's answer ({\"instrument\", \"stored\", \"generated_at\",\n"
	"                \"received_at\"}), null on a dry run\n";

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

static void print_push(const char *type, const struct push_slots *p, int dry_run, int json)
{
	json_t *o;

	if (json) {
		o = json_pack("{s:s,s:s,s:I,s:I,s:b,s:O?}", "type", type, "gate", p->gate, "slots",
			      (json_int_t)p->n, "dropped", (json_int_t)p->dropped, "dry_run", dry_run,
			      "answer", p->answer);
		jsonio_print(stdout, o);
		json_decref(o);
		return;
	}
	printf("%s %zu slot%s of ", dry_run ? "would push" : "pushed", p->n, p->n == 1 ? "" : "s");
	text_print(stdout, type, 0);
	fputs(" to ", stdout);
	text_print(stdout, p->gate, 0);
	fputs(dry_run ? " (dry run: nothing sent)\n" : "\n", stdout);
}

static int push(int argc, char **argv)
{
	const char *from = NULL;
	int json = 0, dry = 0, rc;
	struct cli_opt opts[] = { { "from", 0, CLI_TEXT, &from, CLI_NONEMPTY, 0, 0 },
				  { "dry-run", 0, CLI_FLAG, &dry, 0, 0, 0 },
				  { "json", 0, CLI_FLAG, &json, 0, 0, 0 } };
	struct push_slots p;
	struct cli_args a;
	struct err e;

	if ((rc = cli_parse("slots push", CLI_OPTS(opts), 1, 1, argc, argv, &a)) != 0)
		return rc;
	if (push_slots(a.pos[0], from, dry, &p, &e) != 0) {
		push_slots_free(&p);
		return cli_fail_json(&e, json);
	}
	print_push(a.pos[0], &p, dry, json);
	if (p.dropped > 0)
		fprintf(stderr, "mecha: %zu later slots left out: a box takes at most %d\n",
			p.dropped, SLOTS_MAX);
	push_slots_free(&p);
	return EXIT_OK;
}

static const struct cli_verb verbs[] = {
	{ "show", show, show_help, "the slots a booking type offers, computed from the calendar",
	  CONFINE_CALENDAR },
	{ "push", push, push_help, "hand a booking type's slots to your box (PUT, the slots key)",
	  CONFINE_CALENDAR | CONFINE_GATE | CONFINE_OFFERED },
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
