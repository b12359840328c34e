/*
 * pair (cli) — `mecha pair URL CODE --handle HANDLE`: this home paired with a
 * box by the one-time code `mecha box pair` printed there. The exchange, the
 * checks and the files are src/drain/pair.h's; this file parses and prints.
 */
#include "cli/cli.h"
#include "cli/verb.h"

#include "base/err.h"
#include "base/jsonio.h"
#include "base/text.h"
#include "drain/pair.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char pair_help[] =
	"usage: mecha pair URL CODE --handle HANDLE [--label TEXT] [--json]\n\n"
	"Pairs this home with your box: sends the one-time CODE that `mecha box pair --owner\n"
	"HANDLE` printed on the box (POST URL/v1/pair {code, handle, label}) and writes what\n"
	"comes back where the drain, `types push` and `slots push` read it: the gate in\n"
	"$MECHA_HOME/factory/config.toml and the keys in drain.key, release.key, slots.key\n"
	"and publish.key beside it (the directory 0700, each file 0600, replaced whole). Each\n"
	"key is then checked with GET /v1/health. No key is printed, and none is copied by\n"
	"hand. A reference box (mecha-factory) gives publish and drain keys only: the\n"
	"release and slots keys are then made on it by hand, and the report says so.\n\n"
	"URL is https://, or http:// to this machine's loopback (insecure, exit 3, for any\n"
	"other). A code works once, for minutes; a wrong code or handle is one refusal\n"
	"(gate, exit 1): \"that code is not valid for that handle\".\n\n"
	"  --handle HANDLE   the owner the code was made for (the box checks it)\n"
	"  --label TEXT      what the box labels the keys with (default: this host's name)\n"
	"  --json            {\"gate\", \"handle\", \"dir\", \"keys\": {\"drain\": {\"file\", \"id\",\n"
	"                    \"checked\"}, …}, \"missing\": [SCOPE…], \"shadowed\": [ENV…]}\n";

static void print_report(const json_t *r)
{
	const json_t *keys = json_object_get(r, "keys"), *x;
	const char *scope;
	size_t i;

	fputs("paired with ", stdout);
	text_print(stdout, jsonio_str(r, "gate"), 0);
	fputs(" as ", stdout);
	text_print(stdout, jsonio_str(r, "handle"), 0);
	fputs("\n  gate      ", stdout);
	text_print(stdout, jsonio_str(r, "dir"), 0);
	fputs("/config.toml\n", stdout);
	json_object_foreach((json_t *)keys, scope, x) {
		printf("  %-9s ", scope);
		text_print(stdout, jsonio_str(x, "file"), 0);
		fputs("  (key ", stdout);
		text_print(stdout, jsonio_str(x, "id"), 0);
		fputs(json_is_true(json_object_get(x, "checked")) ? ", checked)\n" : ")\n", stdout);
	}
	json_array_foreach(json_object_get(r, "missing"), i, x) {
		const char *s = json_string_value(x);
		printf("  %-9s not given by this box: %s needs one (make it on the box, then put it in "
		       "%s.key, mode 0600)\n", s,
		       strcmp(s, "release") == 0 ? "`mecha types push`"
		       : strcmp(s, "slots") == 0 ? "`mecha slots push`" : "reading types back",
		       s);
	}
	json_array_foreach(json_object_get(r, "shadowed"), i, x) {
		fputs("  note: ", stdout);
		text_print(stdout, json_string_value(x), 0);
		fputs(" is set and overrides what was written here\n", stdout);
	}
	fputs("next: mecha types push TYPE (a form goes live), mecha drain --follow\n", stdout);
}

int cli_pair(int argc, char **argv)
{
	const char *handle = NULL, *label = NULL;
	char host[256] = "";
	int json = 0, rc;
	const struct cli_opt opts[] = {
		{ "handle", 0, CLI_TEXT, &handle, CLI_NONEMPTY, 0, 0 },
		{ "label", 0, CLI_TEXT, &label, 0, 0, 0 },
		{ "json", 0, CLI_FLAG, &json, 0, 0, 0 },
	};
	struct cli_args a;
	json_t *report;
	struct err e;

	if (cli_wants_help(argc, argv)) {
		fputs(pair_help, stdout);
		return EXIT_OK;
	}
	if ((rc = cli_parse("pair", CLI_OPTS(opts), 2, 2, argc, argv, &a)) != 0)
		return rc;
	if (!handle) {
		err_set(&e, ERR_USAGE, "pair needs --handle HANDLE: the owner the code was made for "
			"(see 'mecha pair --help')");
		return cli_fail_json(&e, json);
	}
	if (!label) {
		if (gethostname(host, sizeof host - 1) != 0)
			snprintf(host, sizeof host, "home");
		label = host;
	}
	if (pair_home(a.pos[0], a.pos[1], handle, label, &report, &e) != 0)
		return cli_fail_json(&e, json);
	if (json)
		jsonio_print(stdout, report);
	else
		print_report(report);
	json_decref(report);
	return EXIT_OK;
}
