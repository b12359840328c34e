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

#include "base/err.h"
#include "config/home.h"
#include "mcp/server.h"

#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char mcp_help[] =
	"usage: mecha mcp\n\n"
	"Runs the Model Context Protocol server (revision " MCP_PROTOCOL_LATEST ") on standard\n"
	"input and output: JSON-RPC 2.0, one message per line, nothing but protocol on\n"
	"stdout, diagnostics on stderr. It stops at end of input. An MCP client starts it;\n"
	"you do not run it by hand.\n\n"
	"The tools are the agent-safe half of mecha, and only that:\n"
	"  frontdoor_next      {limit?}              briefs of requests awaiting an answer\n"
	"  draft_reply         {seq, subject, body}  stage a reply to the request's reply_to\n"
	"  calendar_free_busy  {from, to}            busy intervals, nothing else\n"
	"  mission_post        {agent_id, letter}    post a mission letter (never archived)\n"
	"  mission_heads       {}                    every mission's head\n"
	"  mission_log         {mission_id}          one mission's chain\n"
	"No tool shows a requester's prose, sends anything, closes, approves, rejects,\n"
	"lands or archives: those stay with you, at this terminal.\n\n";

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
	char *home = home_default(HOME_ROOT, &e);
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
	if (cli_wants_help(argc, argv) || (argc >= 2 && strcmp(argv[1], "help") == 0)) {
		fputs(mcp_help, stdout);
		print_client_config(stdout);
		return EXIT_OK;
	}
	if (argc > 1)
		return cli_usage_error("mcp", "unexpected argument '%s'", argv[1]);
	return serve();
}
