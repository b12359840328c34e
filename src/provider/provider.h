/*
 * provider — one interface to a language model, whatever wire it speaks.
 *
 * A request (model, an optional system text, a conversation, tool definitions
 * or none, a token budget) goes in; a response (text, tool calls, why the
 * model stopped) comes out. Two wire formats sit behind it: "openai" (chat
 * completions: OpenAI, llama-server, vLLM, Ollama) and "anthropic"
 * (messages). The third kind, "rules", is not a model at all: it is the
 * offline extractor in rules.h, and this interface refuses to converse with it.
 *
 * The rule it keeps: a response is what a model said, an error is everything
 * else. Transport failures, timeouts, a non-2xx status and a body that is not
 * a completion are errors naming the provider, the URL and the status; a
 * refusal, a truncation or a tool call with malformed arguments is a response
 * the caller diagnoses (and may report back to the model). Nothing here knows
 * what the conversation is about.
 *
 * Calling sequence, one call:
 *
 *	struct provider_request req;
 *	struct provider_response resp;
 *	provider_request_init(&req, 4096);
 *	provider_request_user(&req, prompt);
 *	if (provider_complete(&conf, &req, &resp, &err) != 0)
 *		... err names provider, URL, status ...
 *	switch (resp.stop) ...
 *	provider_response_free(&resp);
 *	provider_request_free(&req);
 *
 * Many calls in flight (libcurl multi):
 *
 *	b = provider_batch_new(&conf, jobs, done, ctx, &err);
 *	for each job: provider_batch_add(b, &req, tag, &err);  (req may be freed now)
 *	provider_batch_run(b);     returns when nothing is queued or in flight
 *	provider_batch_free(b);
 *
 * done(ctx, tag, resp, err) runs once per added request, in this thread, with
 * either a response (err NULL) or an error (resp NULL). It may add more
 * requests to the batch (a retry, the next turn) and they run in the same
 * provider_batch_run.
 *
 * A conversation with tools: after a PROVIDER_STOP_TOOL_USE response, append
 * it with provider_request_assistant(), then one provider_request_tool_result()
 * per call (by call id), and call again.
 *
 * Keys: conf.api_key is the caller's (read from the variable the config
 * names). It travels only in Authorization: Bearer (openai) or x-api-key
 * (anthropic), is never logged or put in a message, and every copy this module
 * makes is wiped before it is freed.
 *
 * Errors (struct err, exit 1 unless said otherwise), stable codes:
 *	provider_config     the configuration cannot work (unknown kind, no model,
 *	                    the rules kind asked to converse, a key with a
 *	                    control character)
 *	provider_transport  could not connect, connection dropped, TLS …
 *	provider_timeout    the connect or total timeout passed
 *	provider_http       a status other than 2xx (the start of the body is quoted,
 *	                    rendered safely)
 *	provider_reply      a 2xx body that is not a completion of this wire format
 *	provider_cancelled  provider_batch_cancel() was called before it finished
 *
 * Ownership: every string and jansson value in a request or a response is
 * owned by that struct and released by its _free. Functions taking json_t *
 * borrow it (and take their own reference when they keep it). conf is
 * borrowed and must outlive a batch made from it.
 */
#ifndef MECHA_PROVIDER_PROVIDER_H
#define MECHA_PROVIDER_PROVIDER_H

#include <jansson.h>
#include <stddef.h>

struct err;

#define PROVIDER_TIMEOUT_S 300
#define PROVIDER_CONNECT_TIMEOUT_S 10

struct provider_conf {
	const char *name;        /* the [providers.NAME] table; named in every error */
	const char *kind;        /* "openai" | "anthropic" | "rules" */
	const char *base_url;    /* NULL or "": the vendor's public endpoint */
	const char *model;       /* required for openai and anthropic */
	const char *api_key;     /* the key itself, or NULL (a local server needs none) */
	long timeout_s;          /* whole request; 0 means PROVIDER_TIMEOUT_S */
	long connect_timeout_s;  /* 0 means PROVIDER_CONNECT_TIMEOUT_S */
};

enum provider_stop {
	PROVIDER_STOP_END,        /* the model finished its turn */
	PROVIDER_STOP_MAX_TOKENS, /* the token budget ran out (the text may be empty) */
	PROVIDER_STOP_REFUSAL,    /* the model or the vendor's filter declined */
	PROVIDER_STOP_TOOL_USE,   /* the model wants tool results before it goes on */
};

struct provider_tool_call {
	char *id;            /* the wire's call id (synthesised "call_N" when a server sent none) */
	char *name;
	/*
	 * The arguments as a JSON object, or NULL when the model wrote something
	 * that is not one: then arguments_error says why and arguments_raw holds
	 * what it wrote, so the caller can tell the model instead of crashing.
	 */
	json_t *arguments;
	char *arguments_raw; /* the wire's text of the arguments, when it sent text; else NULL */
	char *arguments_error;
};

enum provider_role {
	PROVIDER_USER,        /* text from the caller */
	PROVIDER_ASSISTANT,   /* what the model said: text and tool calls */
	PROVIDER_TOOL_RESULT, /* the result of one tool call */
};

struct provider_message {
	enum provider_role role;
	char *text;          /* never NULL; may hold NUL bytes (text_len counts them) */
	size_t text_len;
	struct provider_tool_call *calls; /* PROVIDER_ASSISTANT */
	size_t ncalls;
	char *call_id;       /* PROVIDER_TOOL_RESULT */
	int is_error;        /* PROVIDER_TOOL_RESULT: the tool refused or failed */
};

struct provider_tool {
	char *name;
	char *description;
	json_t *parameters;  /* a JSON-schema object; the request holds a reference */
};

struct provider_request {
	char *model;         /* NULL: conf->model */
	char *system;        /* NULL: none (the extractor never sets one) */
	struct provider_message *messages;
	size_t nmessages;
	struct provider_tool *tools; /* none: the wire body has no "tools" key at all */
	size_t ntools;
	long max_tokens;
};

struct provider_response {
	char *text;          /* never NULL after success; "" when the model wrote none */
	size_t text_len;
	struct provider_tool_call *calls;
	size_t ncalls;
	enum provider_stop stop;
	char *stop_raw;      /* the wire's own word ("length", "end_turn" …), or NULL */
	char *refusal_category; /* a short category when the wire gave one, else NULL */
	char *refusal_text;  /* the model's or vendor's explanation, else NULL */
	long input_tokens;   /* usage as reported; -1 when not reported */
	long output_tokens;
};

/* --- requests --------------------------------------------------------- */

void provider_request_init(struct provider_request *r, long max_tokens);
/* Each of these copies its arguments. */
/* API: the model of a request, when it is not the config's (scripts/exports.allow). */
void provider_request_model(struct provider_request *r, const char *model);
void provider_request_system(struct provider_request *r, const char *text);
void provider_request_user(struct provider_request *r, const char *text);
void provider_request_user_n(struct provider_request *r, const char *text, size_t len);
/* Appends the model's turn as it came back (text and tool calls). */
void provider_request_assistant(struct provider_request *r, const struct provider_response *resp);
void provider_request_tool_result(struct provider_request *r, const char *call_id,
				  const char *content, int is_error);
void provider_request_tool(struct provider_request *r, const char *name, const char *description,
			   json_t *parameters);
void provider_request_free(struct provider_request *r);

/* --- responses -------------------------------------------------------- */

void provider_response_free(struct provider_response *r);
/* "end", "max_tokens", "refusal", "tool_use". */
const char *provider_stop_name(enum provider_stop stop);

/* --- configuration ----------------------------------------------------- */

/*
 * Checks that conf can make calls: kind openai or anthropic, a model, a key
 * without control characters, timeouts not negative. Returns 0 or -1 with
 * code provider_config. The rules kind fails here: it converses
 * with nobody — callers check provider_is_rules() first.
 */
int provider_conf_check(const struct provider_conf *conf, struct err *e);
/* 1 when conf names the offline rules extractor (kind "rules"). */
int provider_is_rules(const struct provider_conf *conf);
/*
 * The URL a request goes to ({base_url}/chat/completions, {base_url}/v1/messages);
 * malloc'd, or NULL for an unknown kind.
 */
char *provider_url(const struct provider_conf *conf);

/*
 * Whether the provider answers, for `mecha doctor`: one GET of its models list
 * ({base_url}/models, {base_url}/v1/models) with the key, at most 30 seconds,
 * so no completion is paid for. 0 on a 2xx answer; otherwise -1 with the
 * codes of a call (provider_config, provider_transport, provider_timeout,
 * provider_http: a 401 is a key the provider refused).
 */
int provider_probe(const struct provider_conf *conf, struct err *e);

/* --- calls --------------------------------------------------------------- */

/*
 * One blocking call. Returns 0 and fills *resp (free it with
 * provider_response_free), or -1 with e filled and *resp left empty.
 */
int provider_complete(const struct provider_conf *conf, const struct provider_request *req,
		      struct provider_response *resp, struct err *e);

struct provider_batch;

/*
 * A batch keeping at most max_in_flight requests on the wire (0 means 1).
 * done() is called once per added request: resp is the batch's and is freed
 * when done() returns (use provider_response_move to keep it); e is the
 * error when the call failed. Returns NULL with e filled when conf cannot work.
 */
struct provider_batch *provider_batch_new(const struct provider_conf *conf, unsigned max_in_flight,
					  void (*done)(void *ctx, void *tag,
						       struct provider_response *resp,
						       const struct err *e),
					  void *ctx, struct err *e);
/*
 * Queues one request; its wire body is built now, so req may be freed at once.
 * Allowed inside done(). Returns -1 (and done() is never called for it) only
 * when the request holds no message.
 */
int provider_batch_add(struct provider_batch *b, const struct provider_request *req, void *tag,
		       struct err *e);
/* Runs until every request added (before or during the run) has been answered. */
void provider_batch_run(struct provider_batch *b);
/*
 * Stops starting new requests: queued ones and any added later are answered
 * with provider_cancelled; those already on the wire finish normally.
 * Allowed inside done().
 */
void provider_batch_cancel(struct provider_batch *b);
/* Requests added and not yet answered. */
size_t provider_batch_pending(const struct provider_batch *b);
void provider_batch_free(struct provider_batch *b);

#endif
