/*
 * agent — the front door's tools, written once for every agent that is
 * given them: a triage run's model and a client of `mecha mcp`.
 *
 * One table: each row is a tool's name, words and argument table (from which
 * base/args makes both the schema the agent is shown and the check every
 * call passes) and the function that runs it. Triage and MCP read the same
 * rows, so a subject on two lines, a `to`, a missing body or a request whose
 * reply_to is not one address are refused the same way on both paths.
 *
 *   frontdoor_next      the briefs of requests waiting for an answer (MCP)
 *   draft_reply         a reply staged for the request's own reply_to
 *   calendar_free_busy  busy intervals, nothing else of the calendar
 *   propose_meeting     an invite for a free slot, staged (triage)
 *
 * None of them sends anything, and none chooses a recipient. A triage run is
 * bound to one request: its context carries the seq, and the `seq` argument
 * is neither shown to the model nor accepted from it. Over MCP the context
 * has none and `seq` is an argument.
 *
 * What a run needs comes in the context: what it leaves NULL (the MCP
 * server, which reads the configuration afresh on every call) is opened by
 * the tool that needs it, for the length of the call.
 *
 * Ownership: the table is static; results are NEW references; the context's
 * pointers are borrowed.
 */
#ifndef MECHA_FRONTDOOR_AGENT_H
#define MECHA_FRONTDOOR_AGENT_H

#include "base/args.h"

#include <jansson.h>
#include <stddef.h>

struct config;
struct err;
struct outbox_store;
struct store;

enum {
	AGENT_TRIAGE = 1, /* offered to a triage run's model */
	AGENT_MCP = 2,    /* offered by `mecha mcp` */
};

struct agent_ctx {
	const struct config *cfg;    /* NULL: read afresh by a tool that needs it */
	struct store *store;         /* NULL: the default request store, for the call */
	struct outbox_store *outbox; /* NULL: the configured outbox, for the call */
	const char *session_id;      /* recorded on every draft and as triage_session */
	long long seq;               /* the request a triage run is bound to; -1: an argument */
	size_t drafts;               /* drafts staged through this context so far */
};

struct agent_tool {
	struct args_tool about;
	unsigned offered; /* AGENT_TRIAGE, AGENT_MCP */
	/* The structured result (NEW), or NULL with e filled. */
	json_t *(*run)(struct agent_ctx *c, const json_t *args, struct err *e);
};

extern const struct agent_tool agent_tools[];
extern const size_t agent_ntools;

/*
 * The tool called name among those offered to `offered`; NULL with code
 * "unknown_tool" (the message names the tools there are).
 */
const struct agent_tool *agent_tool_find(const char *name, unsigned offered, struct err *e);

/* The input schema t shows under this context (NEW). */
json_t *agent_tool_schema(const struct agent_tool *t, const struct agent_ctx *c);

/* Checks args against t's table, then runs it: the result (NEW), or NULL with e. */
json_t *agent_tool_call(const struct agent_tool *t, struct agent_ctx *c, const json_t *args,
			struct err *e);

#endif
