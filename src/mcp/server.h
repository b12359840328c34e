/*
 * server — the Model Context Protocol server on stdio (revision 2025-11-25).
 *
 * JSON-RPC 2.0, one message per line in each direction. This module owns the
 * wire: it reads lines, parses each one strictly and in this one place (a
 * single JSON object, or a batch of them in a session that negotiated
 * 2025-03-26; duplicated keys, an unknown member or a wrong type are errors
 * with the spec's codes, and a batch in any other revision is refused with
 * an error naming that revision), runs the lifecycle (initialize, then
 * everything else; ping at any time) and answers. What the tools do is
 * tools.h's business; the server only checks the envelope and hands on a
 * tool's name and its arguments.
 *
 * The rule: nothing but protocol reaches the output descriptor, and no input
 * stops the server short of end of file. Every malformed line gets its error
 * (or, for a notification, nothing) and the next line is read as if it were
 * the first. Answers are compact JSON, which escapes every control character,
 * so a response never holds a newline of its own.
 *
 * Calling sequence:
 *     struct mcp_server s; struct err e;
 *     if (mcp_server_init(&s, &e) != 0) ...
 *     mcp_server_run(&s, STDIN_FILENO, out_fd, &e);   -- until end of file
 * or, one message at a time (the fuzz target):
 *     char *answer = mcp_server_handle(&s, line, len);  -- NULL: no answer
 *
 * Ownership: struct mcp_server is plain storage owned by the caller; the
 * answer returned by mcp_server_handle is malloc'd (free it). Input bytes are
 * borrowed.
 */
#ifndef MECHA_MCP_SERVER_H
#define MECHA_MCP_SERVER_H

#include <stddef.h>

struct err;

/* The revision this server speaks natively and answers with by default. */
#define MCP_PROTOCOL_LATEST "2025-11-25"
/* A longer line is answered with an error and skipped, never buffered whole. */
#define MCP_LINE_MAX ((size_t)8 << 20)

/* JSON-RPC 2.0 error codes (the spec's; MCP adds none that we use). */
enum {
	MCP_PARSE_ERROR = -32700,
	MCP_INVALID_REQUEST = -32600,
	MCP_METHOD_NOT_FOUND = -32601,
	MCP_INVALID_PARAMS = -32602,
	MCP_INTERNAL_ERROR = -32603,
};

struct mcp_server {
	int initialized;       /* initialize has been answered */
	char protocol[16];     /* the negotiated revision, once initialized */
	int batches;           /* it takes JSON-RPC batches (2025-03-26, and only that one) */
	char session_id[64];   /* mcp-<UTC time>-<random>: on every draft this process stages */
};

/* Fills the session id. Fails only when no random bytes can be had. */
int mcp_server_init(struct mcp_server *s, struct err *e);

/*
 * Handles one message, data[0..len) without its line end (any length, any
 * bytes). Returns the answer as one line without "\n" (malloc'd): an object,
 * or for a batch an array of them; NULL when nothing is to be answered (a
 * notification, a response, a batch of only those).
 */
char *mcp_server_handle(struct mcp_server *s, const char *data, size_t len);

/*
 * Serves in_fd → out_fd until end of file on in_fd. Returns 0 at end of file
 * (or when the reader of out_fd went away), -1 with e filled on a read error.
 */
int mcp_server_run(struct mcp_server *s, int in_fd, int out_fd, struct err *e);

#endif
