/*
 * tools — what an agent may do through `mecha mcp`, and nothing more.
 *
 * Six tools, the agent-safe half of mecha: read the briefs of requests
 * waiting for an answer (frontdoor_next), stage a reply to a request's own
 * reply_to (draft_reply), ask when the person is busy (calendar_free_busy),
 * and post, list and read mission letters (mission_post, mission_heads,
 * mission_log). No tool shows a stranger's prose, and none closes, approves,
 * rejects, lands or archives: those are a person's, at a terminal.
 *
 * The rule: one table describes each tool's arguments (base/args.h), and
 * both the inputSchema that tools/list publishes and the check every call
 * passes are made from it, so what an agent is told and what is enforced
 * cannot drift apart. An argument the schema does not name (a `to` for
 * draft_reply) is refused before anything runs. The front door's three are
 * the MCP rows of the agent tool table a triage run's model is given too
 * (frontdoor/agent.h); the mission board's three are rows kept here.
 *
 * A tool that says no — a bad argument, a rule, a failure underneath —
 * answers with a result whose isError is true and whose text is the reason;
 * only a tool name that does not exist is a protocol error (the caller's).
 *
 * Ownership: both functions return NEW references; arguments are borrowed.
 */
#ifndef MECHA_MCP_TOOLS_H
#define MECHA_MCP_TOOLS_H

#include <jansson.h>

struct err;

/* The `tools` array of a tools/list result. */
json_t *tools_list(void);

/*
 * Runs tool `name` with `args` (an object; NULL reads as {}), staging drafts
 * under session_id. Returns the CallToolResult — {content, structuredContent?,
 * isError?} — or NULL with code "unknown_tool" when no tool has that name.
 */
json_t *tools_call(const char *name, const json_t *args, const char *session_id,
		   struct err *e);

#endif
