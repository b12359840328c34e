/*
 * tools — the six agent-safe tools: the front door's MCP rows of the agent
 * tool table (frontdoor/agent.h) and the mission board's rows kept here, both
 * described by base/args tables.
 *
 * Every call reads the configuration afresh (a person may change it while an
 * agent is connected) and opens only the stores its tool needs, for as long
 * as the call lasts — but for the mission box, which mission_post leaves open
 * for the next post (board.h: struct board_keep; the lock is still taken
 * around each one): reopening the lock, the box and its index cost more than
 * the post itself.
 */
#include "mcp/tools.h"

#include "base/args.h"
#include "base/buf.h"
#include "base/err.h"
#include "base/redact.h"
#include "base/text.h"
#include "config/config.h"
#include "config/home.h"
#include "frontdoor/agent.h"
#include "mission/board.h"
#include "mission/letter.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* How much of a client's tool name a refusal repeats. */
#define NAME_ECHO_MAX 64

/* ---- the mission rows ---------------------------------------------------------- */

struct mission_tool {
	struct args_tool about;
	/* The structured result (NEW), or NULL with e filled. */
	json_t *(*run)(const json_t *args, struct err *e);
};

static json_t *run_mission_post(const json_t *args, struct err *e);
static json_t *run_mission_heads(const json_t *args, struct err *e);
static json_t *run_mission_log(const json_t *args, struct err *e);

static const struct args_spec post_args[] = {
	{ "agent_id", ARGS_STRING, ARGS_REQUIRED | ARGS_ONE_LINE, 1, 128,
	  "Who is posting: your agent's stable name." },
	{ "letter", ARGS_OBJECT, ARGS_REQUIRED, 0, 0,
	  "The mission letter (schema m1nd-mission-letter-v0): the `mission` object alone. "
	  "A new mission starts at mission_seq 1 without prev_letter_id; every later letter "
	  "has mission_seq = head + 1 and prev_letter_id = the head's letter_id; started_at and "
	  "updated_at are RFC 3339 timestamps (2026-07-09T00:00:00Z)." },
};

static const struct args_spec log_args[] = {
	{ "mission_id", ARGS_STRING, ARGS_REQUIRED | ARGS_ONE_LINE, 1, 64,
	  "The mission (msn_ and 12 hex digits)." },
};

static const struct mission_tool missions[] = {
	{ { "mission_post", "Post a mission letter",
	    "Appends a letter to the mission board. The letter must extend its mission's head "
	    "(else stale_head). `archived` is a person's gesture and is refused here; a `landed` "
	    "letter must name a receipt a person imported (else landed_law). Returns letter_id, "
	    "mission_id, mission_seq, deduped and phase.",
	    ARGS_TABLE(post_args), 0, NULL },
	  run_mission_post },
	{ { "mission_heads", "Mission heads",
	    "Every mission on the board with its head letter, ordered by mission_id.", NULL, 0,
	    1, NULL },
	  run_mission_heads },
	{ { "mission_log", "A mission's letters",
	    "The chain of one mission, root first, each letter with its letter_id and agent.",
	    ARGS_TABLE(log_args), 1, NULL },
	  run_mission_log },
};

#define NMISSIONS (sizeof missions / sizeof missions[0])

static const struct mission_tool *mission_named(const char *name)
{
	for (size_t i = 0; i < NMISSIONS; i++)
		if (strcmp(missions[i].about.name, name) == 0)
			return &missions[i];
	return NULL;
}

/* ---- tools/list --------------------------------------------------------------- */

static json_t *describe(const struct args_tool *t, json_t *schema)
{
	return json_pack("{s:s,s:s,s:s,s:o,s:{s:s,s:b,s:b,s:b}}", "name", t->name, "title",
			 t->title, "description", t->description, "inputSchema", schema,
			 "annotations", "title", t->title, "readOnlyHint", t->read_only,
			 "destructiveHint", 0, "openWorldHint", 0);
}

/* An MCP client names the request itself: nothing is bound. */
static struct agent_ctx unbound(const char *session_id)
{
	struct agent_ctx c = { NULL, NULL, NULL, session_id, -1, 0 };

	return c;
}

json_t *tools_list(void)
{
	struct agent_ctx c = unbound(NULL);
	json_t *list = json_array();

	for (size_t i = 0; i < agent_ntools; i++)
		if (agent_tools[i].offered & AGENT_MCP)
			json_array_append_new(list, describe(&agent_tools[i].about,
							     agent_tool_schema(&agent_tools[i], &c)));
	for (size_t i = 0; i < NMISSIONS; i++)
		json_array_append_new(list, describe(&missions[i].about,
						     args_schema(&missions[i].about, 0)));
	return list;
}

/* ---- tools/call ----------------------------------------------------------------- */

/* The text block carries the JSON; structuredContent repeats it when it is an object. */
static json_t *success(json_t *v)
{
	char *text = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
	json_t *r = json_pack("{s:[{s:s,s:s}]}", "content", "type", "text", "text",
			      text ? text : "null");

	if (json_is_object(v))
		json_object_set(r, "structuredContent", v);
	free(text);
	json_decref(v);
	return r;
}

/*
 * The reason, as an agent may read it: no absolute path of the owner's
 * machine (a config error names the file, a store error its directory), only
 * "$MECHA_HOME/…" or a last component (base/redact.h). Every refusal of every
 * tool passes here, so a new error message cannot forget it.
 */
static void agent_reason(struct buf *out, const char *msg)
{
	struct err ignored;
	char *home = home_path(HOME_ROOT, &ignored);
	char *real = home ? realpath(home, NULL) : NULL;
	const char *homes[] = { home, real };

	redact_paths(out, msg, homes, 2);
	free(real);
	free(home);
}

/* A tool that said no: isError, the reason as text, and the stable code beside it. */
static json_t *refusal(const struct err *e)
{
	struct buf msg = BUF_INIT, reason = BUF_INIT;
	json_t *r;

	agent_reason(&reason, e->msg);
	/* Messages may quote a client's bytes; make them valid UTF-8 whatever they were. */
	text_safe(&msg, reason.data ? reason.data : "", reason.len, TEXT_KEEP_NEWLINES);
	buf_free(&reason);
	r = json_pack("{s:[{s:s,s:s}],s:{s:b,s:s,s:s},s:b}", "content", "type", "text", "text",
		      buf_str(&msg), "structuredContent", "ok", 0, "error",
		      err_code_name(e->code), "message", buf_str(&msg), "isError", 1);
	buf_free(&msg);
	return r;
}

static json_t *call_mission(const struct mission_tool *t, const json_t *args, struct err *e)
{
	return args_check(&t->about, args, 0, e) == 0 ? t->run(args, e) : NULL;
}

json_t *tools_call(const char *name, const json_t *args, const char *session_id,
		   struct err *e)
{
	const struct agent_tool *front = agent_tool_find(name, AGENT_MCP, e);
	const struct mission_tool *mission = front ? NULL : mission_named(name);
	struct agent_ctx c = unbound(session_id);
	json_t *empty = NULL, *v;
	struct err why;

	if (!front && !mission) {
		err_set(e, ERR_UNKNOWN_TOOL, "no tool is called %.*s",
			(int)text_utf8_clip(name, strlen(name), NAME_ECHO_MAX), name);
		return NULL;
	}
	if (!args)
		args = empty = json_object();
	err_clear(&why);
	/* Every tool reads the home: none runs past a config.toml that does not load. */
	if (config_check(&why) != 0)
		v = NULL;
	else
		v = front ? agent_tool_call(front, &c, args, &why) : call_mission(mission, args, &why);
	json_decref(empty);
	return v ? success(v) : refusal(&why);
}

/* ---- the mission board -------------------------------------------------------- */

/* The default box, bound to the configured brain. */
static int board_open(struct board *b, struct err *e)
{
	return board_open_default(b, NULL, NULL, BOARD_BIND, e);
}

/* A letter as the board stores it, as JSON (NEW). */
static json_t *letter_json(const struct letter *l)
{
	struct buf out = BUF_INIT;
	json_t *v;

	letter_write_json(&out, l);
	v = json_loadb(out.data, out.len, JSON_ALLOW_NUL, NULL);
	buf_free(&out);
	return v ? v : json_null();
}

static int read_letter(const json_t *obj, struct letter *l, struct err *e)
{
	char *text = json_dumps(obj, JSON_COMPACT);
	int rc;

	if (!text)
		return err_set(e, ERR_INVALID_LETTER, "the letter could not be read");
	rc = letter_parse(text, strlen(text), l, e);
	free(text);
	return rc;
}

static json_t *run_mission_post(const json_t *args, struct err *e)
{
	const char *agent = json_string_value(json_object_get(args, "agent_id"));
	struct board_result res;
	struct letter l;
	struct board b;
	int rc;

	if (read_letter(json_object_get(args, "letter"), &l, e) != 0)
		return NULL;
	/* An agent writes its letters fresh: the house's clock rule (letter.h) applies. */
	rc = letter_check_times(&l, e);
	/* One server, one thread, posting again and again: the box stays open between posts. */
	if (rc == 0)
		rc = board_open_default(&b, NULL, NULL, BOARD_BIND | BOARD_KEEP, e);
	if (rc == 0) {
		rc = board_post_agent(&b, agent, &l, &res, e);
		board_free(&b);
	}
	letter_free(&l);
	if (rc != 0)
		return NULL;
	return json_pack("{s:s,s:s,s:I,s:b,s:s}", "letter_id", res.letter_id, "mission_id",
			 res.mission_id, "mission_seq", (json_int_t)res.mission_seq, "deduped",
			 res.deduped, "phase", letter_phase_name(res.phase));
}

static json_t *head_json(const struct board_head *h)
{
	return json_pack("{s:s,s:s,s:s?,s:o,s:I}", "mission_id", h->mission_id, "head_letter_id",
			 h->head_letter_id, "agent", h->agent, "head", letter_json(&h->head),
			 "superseded_count", (json_int_t)h->superseded_count);
}

static json_t *run_mission_heads(const json_t *args, struct err *e)
{
	struct board_head *heads = NULL;
	struct board b;
	json_t *list;
	size_t n = 0;
	int rc;

	if (board_open(&b, e) != 0)
		return NULL;
	rc = board_heads(&b, &heads, &n, e);
	board_free(&b);
	if (rc != 0)
		return NULL;
	list = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(list, head_json(&heads[i]));
	board_heads_free(heads, n);
	return json_pack("{s:o}", "missions", list);
}

static json_t *run_mission_log(const json_t *args, struct err *e)
{
	const char *mission = json_string_value(json_object_get(args, "mission_id"));
	struct board_chain chain = { 0 };
	struct board b;
	json_t *letters;
	int rc;

	if (board_open(&b, e) != 0)
		return NULL;
	rc = board_log(&b, mission, &chain, e);
	board_free(&b);
	if (rc != 0)
		return NULL;
	letters = json_array();
	for (size_t i = 0; i < chain.n; i++) {
		const struct board_entry *en = &chain.entries[i];

		json_array_append_new(letters,
				      json_pack("{s:s,s:s?,s:o}", "letter_id", en->letter_id,
						"agent", en->agent, "letter", letter_json(&en->letter)));
	}
	json_t *out = json_pack("{s:s,s:s,s:o,s:I}", "mission_id", mission, "head_letter_id",
				chain.n ? chain.entries[chain.n - 1].letter_id : "", "letters", letters,
				"off_chain", (json_int_t)(chain.total - chain.n));
	board_chain_free(&chain);
	return out;
}
