/*
 * mcp (cli) — `mecha mcp`: runs the MCP server on stdin and stdout.
 *
 * Standard output belongs to the protocol alone. Before serving, the real
 * stdout is kept on a private descriptor for the server and descriptor 1 is
 * pointed at stderr, so a stray printf anywhere below (a library's warning, a
 * helper shared with the human verbs) lands among the diagnostics instead of
 * corrupting the stream a client is parsing.
 */
#include "cli/cli.h"
#include "cli/verb.h"

#include "base/buf.h"
#include "base/err.h"
#include "config/home.h"
#include "mcp/server.h"
#include "mcp/tools.h"

#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char mcp_intro[] =
	"usage: mecha mcp\n\n"
	"Runs the Model Context Protocol server (revision " MCP_PROTOCOL_LATEST ") on standard\n"
	"input and output: JSON-RPC 2.0, one message per line, nothing but protocol on\n"
	"stdout, diagnostics on stderr. It stops at end of input. An MCP client starts it;\n"
	"you do not run it by hand.\n\n"
	"The tools are the agent-safe half of mecha, and only that:\n";

static const char mcp_outro[] =
	"No tool shows a requester's prose, sends anything, closes, approves, rejects,\n"
	"lands or archives: those stay with you, at this terminal.\n\n";

/* "{seq, subject, body}" from a tool's inputSchema; an optional argument ends in '?'. */
static void arg_list(struct buf *b, const json_t *schema)
{
	const json_t *required = json_object_get(schema, "required");
	const char *key;
	json_t *v, *r;
	size_t i, n = 0;

	buf_addc(b, '{');
	json_object_foreach(json_object_get(schema, "properties"), key, v) {
		int needed = 0;

		json_array_foreach(required, i, r)
			needed |= strcmp(json_string_value(r), key) == 0;
		buf_printf(b, "%s%s%s", n++ ? ", " : "", key, needed ? "" : "?");
	}
	buf_addc(b, '}');
}

/* The tools exactly as tools/list gives them to a client. */
static void print_tools(FILE *f)
{
	json_t *tools = tools_list(), *t;
	size_t i;

	json_array_foreach(tools, i, t) {
		struct buf args = BUF_INIT;

		arg_list(&args, json_object_get(t, "inputSchema"));
		fprintf(f, "  %-19s %-21s %s\n", json_string_value(json_object_get(t, "name")),
			buf_str(&args), json_string_value(json_object_get(t, "title")));
		buf_free(&args);
	}
	json_decref(tools);
}

/* The running binary's absolute path, so the configuration works without PATH. */
static void own_path(char *out, size_t size)
{
	ssize_t n = readlink("/proc/self/exe", out, size - 1);

	if (n <= 0 || (size_t)n >= size - 1)
		snprintf(out, size, "mecha");
	else
		out[n] = '\0';
}

/* The configuration an MCP client (Claude Desktop and others) takes, ready to paste. */
static void print_client_config(FILE *f)
{
	char exe[PATH_MAX];
	struct err e;
	char *home = home_path(HOME_ROOT, &e); /* help, even when config.toml is broken */
	json_t *cfg;

	own_path(exe, sizeof exe);
	cfg = json_pack("{s:{s:{s:s,s:[s],s:{s:s}}}}", "mcpServers", "mecha", "command", exe,
			"args", "mcp", "env", "MECHA_HOME", home ? home : "~/.mecha");
	fputs("Client configuration (for example Claude Desktop's claude_desktop_config.json):\n",
	      f);
	if (cfg) {
		char *text = json_dumps(cfg, JSON_INDENT(2));

		if (text)
			fprintf(f, "%s\n", text);
		free(text);
	}
	json_decref(cfg);
	free(home);
	fputs("\nSee docs/mcp.md and mecha(1).\n", f);
}

/* Keeps the real stdout for the protocol; descriptor 1 becomes stderr. */
static int protocol_fd(struct err *e)
{
	int out = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);

	if (out < 0)
		return err_errno(e, "standard output");
	fflush(stdout);
	if (dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
		close(out);
		return err_errno(e, "standard output");
	}
	return out;
}

static int serve(void)
{
	struct mcp_server s;
	struct err e;
	int out, rc;

	err_clear(&e);
	/* A client that hangs up ends the session; it is not a crash. */
	signal(SIGPIPE, SIG_IGN);
	if (mcp_server_init(&s, &e) != 0)
		return cli_fail(&e);
	if ((out = protocol_fd(&e)) < 0)
		return cli_fail(&e);
	if (isatty(STDIN_FILENO))
		fputs("mecha mcp: speaking MCP on stdin/stdout; an MCP client starts this "
		      "(mecha mcp --help). End with Ctrl-D.\n",
		      stderr);
	rc = mcp_server_run(&s, STDIN_FILENO, out, &e);
	close(out);
	return rc == 0 ? EXIT_OK : cli_fail(&e);
}

int cli_mcp(int argc, char **argv)
{
	struct cli_args a;
	int rc;

	if (cli_wants_help(argc, argv) || (argc >= 2 && strcmp(argv[1], "help") == 0)) {
		fputs(mcp_intro, stdout);
		print_tools(stdout);
		fputs(mcp_outro, stdout);
		print_client_config(stdout);
		return EXIT_OK;
	}
	if ((rc = cli_parse("mcp", NULL, 0, 0, 0, argc, argv, &a)) != 0)
		return rc;
	return serve();
}
