/*
 * calendar (cli) — `mecha calendar …`: when the person is busy, as the agent
 * tools see it, and the events mecha writes. Each verb parses, makes one
 * library call and prints; every rule is in src/calendar/.
 */
#include "cli/cli.h"
#include "cli/verb.h"

#include "base/err.h"
#include "base/jsonio.h"
#include "base/rfc3339.h"
#include "base/text.h"
#include "calendar/calendar.h"
#include "config/config.h"
#include "config/confine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_DAYS 7

static const char free_busy_help[] =
	"usage: mecha calendar free-busy [--from TIME] [--to TIME] [--json]\n\n"
	"When you are busy between --from (default: now) and --to (default: a week\n"
	"later), as triage and the MCP tool calendar_free_busy see it: the opaque events of\n"
	"[calendar] path, recurrences expanded, merged. One interval a line, in [calendar]\n"
	"timezone and in UTC. Anything in the calendar mecha cannot read is an error naming\n"
	"the file and the line, never free time.\n\n"
	"  --from TIME   RFC 3339 (2026-10-24T09:00:00Z or 2026-10-24T11:00:00+02:00)\n"
	"  --to TIME     RFC 3339; at most 366 days after --from\n"
	"  --json        {\"from\", \"to\", \"busy\": [{\"start\", \"end\"}]} in UTC\n";

static const char add_help[] =
	"usage: mecha calendar add --start TIME --end TIME --attendee ADDRESS\n"
	"                          [--summary TEXT] [--description TEXT] [--uid UID] [--json]\n\n"
	"Writes an event into [calendar] path: a new file in a vdir, or a VEVENT added to a\n"
	"single .ics file under its lock. The organizer is [mail] from; the attendee is\n"
	"invited with RSVP=TRUE. No invitation is mailed. Prints the event's UID.\n\n"
	"  --start, --end TIME   RFC 3339\n"
	"  --uid UID             replace the event with this UID (default: a new one)\n"
	"  --json                {\"uid\": UID}\n";

static const char remove_help[] =
	"usage: mecha calendar remove UID\n\n"
	"Removes the event with UID from [calendar] path (its file in a vdir, its VEVENTs\n"
	"in a single file). No cancellation is mailed.\n";

/* The option's time, or dflt when absent; -1 after a usage error. */
static int parse_time(const char *verb, const char *opt, const char *s, time_t dflt, time_t *out)
{
	if (!s) {
		*out = dflt;
		return 0;
	}
	if (rfc3339_parse(s, out) != 0) {
		cli_usage_error(verb, "--%s takes an RFC 3339 time such as 2026-10-24T09:00:00Z", opt);
		return -1;
	}
	return 0;
}

static void print_free_busy(const struct config *cfg, time_t from, time_t to,
			    const struct calendar_interval *v, size_t n, int json)
{
	char a[RFC3339_LEN], b[RFC3339_LEN];
	struct err e;
	char *text;

	rfc3339_format(from, a);
	rfc3339_format(to, b);
	if (json) {
		json_t *o = json_pack("{s:s,s:s,s:o}", "from", a, "to", b, "busy",
				      calendar_intervals_json(v, n));
		jsonio_print(stdout, o);
		json_decref(o);
	} else if (n == 0) {
		printf("free: nothing busy from %s to %s\n", a, b);
	} else if ((text = calendar_busy_text(cfg, v, n, &e))) {
		fputs(text, stdout);
		free(text);
	}
}

static int free_busy(int argc, char **argv)
{
	const char *verb = "calendar free-busy", *from_s = NULL, *to_s = NULL;
	int json = 0, rc;
	struct cli_opt opts[] = { { "from", 0, CLI_STR, &from_s, 0, 0, 0 },
				  { "to", 0, CLI_STR, &to_s, 0, 0, 0 },
				  { "json", 0, CLI_FLAG, &json, 0, 0, 0 } };
	struct calendar_interval *v;
	struct config cfg;
	struct cli_args a;
	struct err e;
	time_t from, to;
	size_t n;

	if ((rc = cli_parse(verb, CLI_OPTS(opts), 0, 0, argc, argv, &a)) != 0)
		return rc;
	if (parse_time(verb, "from", from_s, time(NULL), &from) != 0 ||
	    parse_time(verb, "to", to_s, from + DEFAULT_DAYS * 86400, &to) != 0)
		return EXIT_USAGE;
	if (config_load(&cfg, &e) != 0)
		return cli_fail_json(&e, json);
	if (calendar_busy_conf(&cfg, from, to, &v, &n, &e) != 0) {
		config_free(&cfg);
		return cli_fail_json(&e, json);
	}
	print_free_busy(&cfg, from, to, v, n, json);
	free(v);
	config_free(&cfg);
	return EXIT_OK;
}

static void print_uid(const char *uid, int json)
{
	json_t *o;

	if (!json) {
		text_print(stdout, uid, 0);
		fputc('\n', stdout);
		return;
	}
	o = json_pack("{s:s}", "uid", uid);
	jsonio_print(stdout, o);
	json_decref(o);
}

static int add(int argc, char **argv)
{
	const char *verb = "calendar add", *start_s = NULL, *end_s = NULL;
	struct calendar_event ev = { 0 };
	int json = 0, rc;
	struct cli_opt opts[] = {
		{ "start", 0, CLI_STR, &start_s, 0, 0, 0 },
		{ "end", 0, CLI_STR, &end_s, 0, 0, 0 },
		{ "attendee", 0, CLI_TEXT, &ev.attendee, CLI_NONEMPTY, 0, 0 },
		{ "summary", 0, CLI_TEXT, &ev.summary, 0, 0, 0 },
		{ "description", 0, CLI_TEXT, &ev.description, 0, 0, 0 },
		{ "uid", 0, CLI_TEXT, &ev.uid, CLI_NONEMPTY, 0, 0 },
		{ "json", 0, CLI_FLAG, &json, 0, 0, 0 },
	};
	char uid[CALENDAR_UID_MAX];
	struct config cfg;
	struct cli_args a;
	struct err e;

	if ((rc = cli_parse(verb, CLI_OPTS(opts), 0, 0, argc, argv, &a)) != 0)
		return rc;
	if (!start_s || !end_s || !ev.attendee)
		return cli_usage_error(verb, "--start, --end and --attendee are required");
	if (parse_time(verb, "start", start_s, 0, &ev.start) != 0 ||
	    parse_time(verb, "end", end_s, 0, &ev.end) != 0)
		return EXIT_USAGE;
	if (config_load(&cfg, &e) != 0)
		return cli_fail_json(&e, json);
	rc = calendar_event_write(&cfg, &ev, uid, &e);
	config_free(&cfg);
	if (rc != 0)
		return cli_fail_json(&e, json);
	print_uid(uid, json);
	return EXIT_OK;
}

static int remove_verb(int argc, char **argv)
{
	struct cli_args a;
	struct config cfg;
	struct err e;
	int rc;

	if ((rc = cli_parse("calendar remove", NULL, 0, 1, 1, argc, argv, &a)) != 0)
		return rc;
	if (!*a.pos[0])
		return cli_usage_error("calendar remove", "an empty UID");
	if (config_load(&cfg, &e) != 0)
		return cli_fail(&e);
	rc = calendar_event_remove(&cfg, a.pos[0], &e);
	config_free(&cfg);
	return rc == 0 ? EXIT_OK : cli_fail(&e);
}

static const struct cli_verb verbs[] = {
	{ "free-busy", free_busy, free_busy_help, "when you are busy in a window (what agents see)",
	  CONFINE_CALENDAR },
	{ "add", add, add_help, "write an event into the calendar", CONFINE_CALENDAR_W },
	{ "remove", remove_verb, remove_help, "remove an event by its UID", CONFINE_CALENDAR_W },
};

const struct cli_group cli_calendar_group = {
	"calendar",
	"The calendar of [calendar] path (an .ics file, a vdir or a vdirsyncer root): the\n"
	"busy time agents are shown, and the events mecha writes.",
	verbs,
	sizeof verbs / sizeof verbs[0],
	"free-busy",
};

int cli_calendar(int argc, char **argv)
{
	return cli_dispatch(&cli_calendar_group, argc, argv);
}
