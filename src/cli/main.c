/*
 * main — the mecha command: finds the verb group and hands it argv.
 *
 * Nothing is decided here beyond which group runs; each group parses its own
 * options and owns its exit status. cli_commands is the one list of them:
 * --help, `mecha help GROUP` and the completion scripts (completion.c) walk it
 * and each group's verb table, so none of them can miss a verb.
 */
#include "cli/cli.h"
#include "cli/verb.h"

#include "base/err.h"
#include "base/jsonio.h"
#include "base/suggest.h"
#include "base/text.h"
#include "config/confine.h"

#include <jansson.h>
#include <locale.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#ifndef MECHA_VERSION
#define MECHA_VERSION "0.1.0"
#endif

/*
 * Every top-level command, in the order --help lists them. A new verb group
 * joins here (one row) and --help, `mecha help GROUP` and the completion
 * scripts know it: they all walk this table and the groups' verb tables. A
 * group's verbs say what they may touch in their own rows; a command without
 * verbs says it here (the last field, config/confine.h).
 */
const struct cli_command cli_commands[] = {
	{ "frontdoor", cli_frontdoor, &cli_frontdoor_group, "strangers' requests and their states", 0 },
	{ "outbox", cli_outbox, &cli_outbox_group, "drafts a person releases or rejects", 0 },
	/* mecha-review confines itself (review_main.c) */
	{ "review", cli_review_exec, NULL, "the review screen: read, decide and answer in one terminal",
	  CONFINE_NONE },
	/*
	 * What the six tools change (none needs the network). It runs for hours,
	 * so its stores are made at the start and it is confined to them exactly.
	 */
	{ "mcp", cli_mcp, NULL, "the MCP server on stdio: the agent-safe tools, for any agent",
	  CONFINE_REQUESTS | CONFINE_OUTBOX | CONFINE_MISSIONS | CONFINE_CALENDAR | CONFINE_CREATE },
	{ "mission", cli_mission, &cli_mission_group, "the mission board agents report to", 0 },
	{ "blocks", cli_blocks, &cli_blocks_group, "the block store missions land receipts on", 0 },
	{ "calendar", cli_calendar, &cli_calendar_group, "the calendar agents see as free/busy", 0 },
	{ "types", cli_types, &cli_types_group,
	  "request types: the manifests strangers' forms are built from", 0 },
	{ "init", cli_init, NULL, "set up a home: its stores and a config.toml with every setting",
	  CONFINE_HOME },
	/* It reads everything and probes the provider and the mail server. */
	{ "doctor", cli_doctor, NULL, "check a home, changing nothing: each line ok, warn or fail",
	  CONFINE_CALENDAR | CONFINE_GATE },
	/* mecha-box is another program (it faces the internet: docs/security.md) */
	{ "box", cli_box, &cli_box_group, "the public box (mecha-box): forms, the queue, the /v1 API",
	  CONFINE_NONE },
	{ "slots", cli_slots, &cli_slots_group,
	  "bookable slots: a booking type's availability minus the calendar", 0 },
	/* --follow also pushes the slots that follow the calendar (drain/push.h). */
	{ "drain", cli_drain, NULL,
	  "bring the box's queued requests home into requests/, then acknowledge them",
	  CONFINE_REQUESTS | CONFINE_GATE | CONFINE_CALENDAR | CONFINE_OFFERED },
	/* It writes the home's factory/ (the gate and the keys) and talks to the box. */
	{ "pair", cli_pair, NULL,
	  "pair this home with a box by a one-time code (mecha box pair): the gate and keys",
	  CONFINE_HOME | CONFINE_GATE },
};
const size_t cli_ncommands = sizeof cli_commands / sizeof cli_commands[0];

/* `mecha help codes [--json]`: the table every refusal and failure comes from. */
static int help_codes(int json)
{
	json_t *rows = json ? json_array() : NULL;

	if (!json)
		printf("%-20s %-4s %s\n", "CODE", "EXIT", "MEANING");
	for (int c = ERR_NONE + 1; c < ERR_CODE_COUNT; c++) {
		if (rows)
			json_array_append_new(rows, json_pack("{s:s,s:i,s:s}", "code", err_code_name(c),
							      "exit", err_code_exit(c), "meaning",
							      err_code_meaning(c)));
		else
			printf("%-20s %-4d %s\n", err_code_name(c), err_code_exit(c),
			       err_code_meaning(c));
	}
	if (rows) {
		jsonio_print(stdout, rows);
		json_decref(rows);
	}
	return EXIT_OK;
}

static void usage(FILE *f);

/* `mecha help`, `mecha help GROUP` (its --help) and `mecha help codes`. */
static int help(int argc, char **argv)
{
	char help_flag[] = "--help";

	if (argc >= 3 && strcmp(argv[2], "codes") == 0) {
		if (argc == 3 || (argc == 4 && strcmp(argv[3], "--json") == 0))
			return help_codes(argc == 4);
		fputs("mecha: help codes takes only --json (see 'mecha help')\n", stderr);
		return EXIT_USAGE;
	}
	for (size_t i = 0; argc == 3 && i < cli_ncommands; i++)
		if (strcmp(argv[2], cli_commands[i].name) == 0) {
			char *args[] = { argv[2], help_flag, NULL };
			return cli_commands[i].run(2, args);
		}
	if (argc > 2) {
		fputs("mecha: help takes a group name or 'codes' (see 'mecha help')\n", stderr);
		return EXIT_USAGE;
	}
	usage(stdout);
	return EXIT_OK;
}

/* One command and, for a group, every verb it shows in its own help. */
static void usage_command(FILE *f, const struct cli_command *c)
{
	const struct cli_group *g = c->group;
	char head[64];

	snprintf(head, sizeof head, "%s%s", c->name,
		 !g ? "" : g->default_verb ? " [VERB]" : " VERB");
	fprintf(f, "  %-20s%s", head, c->summary);
	if (g && g->default_verb)
		fprintf(f, " (no verb: %s)", g->default_verb);
	fputc('\n', f);
	for (size_t i = 0; g && i < g->nverbs; i++)
		if (g->verbs[i].summary) /* NULL: an alias, named in its verb's summary */
			fprintf(f, "      %-16s%s\n", g->verbs[i].name, g->verbs[i].summary);
}

static void usage(FILE *f)
{
	fputs("usage: mecha COMMAND [VERB] [options]\n\n"
	      "mecha keeps the gates of a house where an AI agent holds your calendar and mail.\n\n",
	      f);
	for (size_t i = 0; i < cli_ncommands; i++)
		usage_command(f, &cli_commands[i]);
	fputs("\n  help [GROUP]        this text, or one group's\n"
	      "  help codes [--json] every error code with its exit status\n"
	      "  completion SHELL    a completion script for bash or zsh:\n"
	      "                      source <(mecha completion bash)\n"
	      "  --version           the version\n\n"
	      "Each group and verb takes --help; `mecha help GROUP` is the same. Exit status:\n"
	      "0 ok, 1 failure, 2 usage, 3 refused by a rule (nothing changed); `mecha help\n"
	      "codes` lists every error code with its status. See mecha(1).\n",
	      f);
}

int main(int argc, char **argv)
{
	setlocale(LC_CTYPE, "");
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		usage(stdout);
		return EXIT_OK;
	}
	cli_json_wanted(argc, argv);
	if (strcmp(argv[1], "help") == 0)
		return help(argc, argv);
	if (strcmp(argv[1], "--version") == 0) {
		printf("mecha %s\n", MECHA_VERSION);
		return EXIT_OK;
	}
	if (strcmp(argv[1], "completion") == 0)
		return cli_completion(argc - 1, argv + 1);
	if (strcmp(argv[1], "__complete") == 0) /* the completion scripts' own; not listed */
		return cli_complete_values(argc - 1, argv + 1);
	for (size_t i = 0; i < cli_ncommands; i++)
		if (strcmp(argv[1], cli_commands[i].name) == 0) {
			if (!cli_commands[i].group) /* a group's verbs declare their own */
				cli_confine_declare(cli_commands[i].confine);
			return cli_commands[i].run(argc - 1, argv + 1);
		}
	{
		static const char *const extra[] = { "help", "completion", "--version", "--help" };
		const char *near = suggest_nearest_in(argv[1], cli_commands, cli_ncommands,
						      sizeof *cli_commands,
						      offsetof(struct cli_command, name));
		if (!near)
			near = suggest_nearest(argv[1], extra, sizeof extra / sizeof extra[0]);
		fputs("mecha: unknown command '", stderr);
		text_print(stderr, argv[1], 0); /* an argument is not ours to send raw to a terminal */
		if (near)
			fprintf(stderr, "'; did you mean '%s'? (see 'mecha --help')\n", near);
		else
			fputs("' (see 'mecha --help')\n", stderr);
	}
	return EXIT_USAGE;
}
