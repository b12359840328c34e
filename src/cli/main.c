/*
 * main — the mecha command: finds the verb group and hands it argv.
 *
 * Nothing is decided here beyond which group runs; each group parses its own
 * options and owns its exit status.
 */
#include "cli/cli.h"

#include "base/err.h"

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
	{ "mcp", cli_mcp, "the MCP server on stdio: the agent-safe tools, for any agent" },
	{ "mission", cli_mission, "the mission board: post, new, heads, log, land, archive" },
	{ "blocks", cli_blocks, "the block store missions land receipts on: add, list" },
};

static void usage(FILE *f)
{
	fputs("usage: mecha <group> [verb] [options]\n\n"
	      "mecha keeps the gates of a house where an AI agent holds your calendar and mail.\n\n",
	      f);
	for (size_t i = 0; i < sizeof groups / sizeof groups[0]; i++)
		fprintf(f, "  %-10s %s\n", groups[i].name, groups[i].summary);
	fputs("\nEach group and verb takes --help. Exit status: 0 ok, 1 failure, 2 usage,\n"
	      "3 refused by a rule (nothing changed). See mecha(1).\n",
	      f);
}

int main(int argc, char **argv)
{
	setlocale(LC_CTYPE, "");
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		usage(stdout);
		return EXIT_OK;
	}
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
