/*
 * main — the mecha command: finds the verb group and hands it argv.
 *
 * Nothing is decided here beyond which group runs; each group parses its own
 * options and owns its exit status.
 */
#include "cli/cli.h"

#include "base/err.h"
#include "base/jsonio.h"

#include <jansson.h>
#include <locale.h>
#include <stdio.h>
#include <string.h>

#ifndef MECHA_VERSION
#define MECHA_VERSION "0.1.0"
#endif

struct group {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
};

static const struct group groups[] = {
	{ "frontdoor", cli_frontdoor, "strangers' requests: list, show, extract, next, triage, close" },
	{ "outbox", cli_outbox, "drafts a person releases or rejects: list, show, approve, reject" },
	{ "review", cli_review, "the review screen: read, decide and answer in one terminal" },
	{ "mcp", cli_mcp, "the MCP server on stdio: the agent-safe tools, for any agent" },
	{ "mission", cli_mission, "the mission board: post, new, heads, log, land, archive" },
	{ "blocks", cli_blocks, "the block store missions land receipts on: add, list" },
	{ "calendar", cli_calendar, "the calendar agents see as free/busy: free-busy, add, remove" },
};

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
	for (size_t i = 0; argc == 3 && i < sizeof groups / sizeof groups[0]; i++)
		if (strcmp(argv[2], groups[i].name) == 0) {
			char *args[] = { argv[2], help_flag, NULL };
			return groups[i].run(2, args);
		}
	if (argc > 2) {
		fputs("mecha: help takes a group name or 'codes' (see 'mecha help')\n", stderr);
		return EXIT_USAGE;
	}
	usage(stdout);
	return EXIT_OK;
}

static void usage(FILE *f)
{
	fputs("usage: mecha <group> [verb] [options]\n\n"
	      "mecha keeps the gates of a house where an AI agent holds your calendar and mail.\n\n",
	      f);
	for (size_t i = 0; i < sizeof groups / sizeof groups[0]; i++)
		fprintf(f, "  %-10s %s\n", groups[i].name, groups[i].summary);
	fputs("\nEach group and verb takes --help; `mecha help GROUP` is the same. Exit status:\n"
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
	if (strcmp(argv[1], "help") == 0)
		return help(argc, argv);
	if (strcmp(argv[1], "--version") == 0) {
		printf("mecha %s\n", MECHA_VERSION);
		return EXIT_OK;
	}
	for (size_t i = 0; i < sizeof groups / sizeof groups[0]; i++)
		if (strcmp(argv[1], groups[i].name) == 0)
			return groups[i].run(argc - 1, argv + 1);
	fprintf(stderr, "mecha: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return EXIT_USAGE;
}
