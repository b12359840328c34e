/*
 * anthropic — the messages API: content blocks, tool_use and tool_result,
 * and a refusal that arrives as an ordinary 200 with stop_reason "refusal".
 */
#include "provider/anthropic.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/jsonio.h"
#include "provider/chat.h"

#include <stdlib.h>
#include <string.h>

static json_t *text_block(const char *s, size_t len)
{
	json_t *o = json_object();

	json_object_set_new(o, "type", json_string("text"));
	json_object_set_new(o, "text", chat_string(s, len));
	return o;
}

static json_t *tool_use_block(const struct provider_tool_call *c)
{
	json_t *o = json_object();

	json_object_set_new(o, "type", json_string("tool_use"));
	json_object_set_new(o, "id", chat_string(c->id, strlen(c->id)));
	json_object_set_new(o, "name", chat_string(c->name, strlen(c->name)));
	/* The API insists on an object; a malformed one is echoed as {}. */
	json_object_set_new(o, "input", c->arguments ? json_deep_copy(c->arguments) : json_object());
	return o;
}

static json_t *tool_result_block(const struct provider_message *m)
{
	json_t *o = json_object();

	json_object_set_new(o, "type", json_string("tool_result"));
	json_object_set_new(o, "tool_use_id", chat_string(m->call_id, strlen(m->call_id)));
	json_object_set_new(o, "content", chat_string(m->text, m->text_len));
	if (m->is_error)
		json_object_set_new(o, "is_error", json_true());
	return o;
}

/* Appends m's blocks to the content array of its turn. */
static void add_blocks(json_t *content, const struct provider_message *m)
{
	switch (m->role) {
	case PROVIDER_USER:
		json_array_append_new(content, text_block(m->text, m->text_len));
		break;
	case PROVIDER_ASSISTANT:
		if (m->text_len || !m->ncalls)
			json_array_append_new(content, text_block(m->text, m->text_len));
		for (size_t i = 0; i < m->ncalls; i++)
			json_array_append_new(content, tool_use_block(&m->calls[i]));
		break;
	case PROVIDER_TOOL_RESULT:
		json_array_append_new(content, tool_result_block(m));
		break;
	}
}

static const char *role_of(const struct provider_message *m)
{
	return m->role == PROVIDER_ASSISTANT ? "assistant" : "user";
}

/*
 * One wire message per run of same-role turns. A lone user text is sent as a
 * plain string, the form a one-shot call is expected in.
 */
static json_t *messages_out(const struct provider_request *req)
{
	json_t *msgs = json_array();
	size_t i = 0, j;

	for (; i < req->nmessages; i = j) {
		const struct provider_message *first = &req->messages[i];
		const char *role = role_of(first);
		json_t *o = json_object(), *content;

		for (j = i + 1; j < req->nmessages && strcmp(role_of(&req->messages[j]), role) == 0;
		     j++)
			;
		if (j == i + 1 && first->role == PROVIDER_USER) {
			content = chat_string(first->text, first->text_len);
		} else {
			content = json_array();
			for (size_t k = i; k < j; k++)
				add_blocks(content, &req->messages[k]);
		}
		json_object_set_new(o, "role", json_string(role));
		json_object_set_new(o, "content", content);
		json_array_append_new(msgs, o);
	}
	return msgs;
}

static json_t *tools_out(const struct provider_request *req)
{
	json_t *tools = json_array();

	for (size_t i = 0; i < req->ntools; i++) {
		const struct provider_tool *t = &req->tools[i];
		json_t *o = json_object();

		json_object_set_new(o, "name", chat_string(t->name, strlen(t->name)));
		json_object_set_new(o, "description",
				    chat_string(t->description, strlen(t->description)));
		json_object_set(o, "input_schema", t->parameters);
		json_array_append_new(tools, o);
	}
	return tools;
}

char *anthropic_request_body(const struct provider_conf *conf, const struct provider_request *req,
			     size_t *len)
{
	const char *model = req->model ? req->model : conf->model;
	json_t *root = json_object();
	char *body;

	json_object_set_new(root, "model", chat_string(model, strlen(model)));
	json_object_set_new(root, "max_tokens", json_integer(req->max_tokens));
	if (req->system)
		json_object_set_new(root, "system", chat_string(req->system, strlen(req->system)));
	json_object_set_new(root, "messages", messages_out(req));
	if (req->ntools)
		json_object_set_new(root, "tools", tools_out(req));
	body = jsonio_compact(root);
	json_decref(root);
	*len = strlen(body);
	return body;
}

/* --- the reply ---------------------------------------------------------- */

static int read_block(json_t *block, struct provider_response *out)
{
	const char *type = jsonio_str(block, "type");
	json_t *text = json_object_get(block, "text");
	const char *name = jsonio_str(block, "name");
	struct provider_tool_call *c;

	if (!type)
		return -1;
	if (strcmp(type, "text") == 0) {
		if (!json_is_string(text))
			return -1;
		chat_text_add(out, json_string_value(text), json_string_length(text));
	} else if (strcmp(type, "tool_use") == 0) {
		if (!name)
			return -1;
		c = chat_call_add(out);
		chat_call_id(c, jsonio_str(block, "id"), out->ncalls - 1);
		c->name = xstrdup(name);
		chat_call_arguments_value(c, json_object_get(block, "input"));
	}
	/* thinking, redacted_thinking and blocks of later API versions: not ours to read. */
	return 0;
}

static void read_refusal(const json_t *root, struct provider_response *out)
{
	json_t *details = json_object_get(root, "stop_details");
	const char *category = jsonio_str(details, "category");
	const char *explanation = jsonio_str(details, "explanation");

	out->stop = PROVIDER_STOP_REFUSAL;
	if (category)
		out->refusal_category = xstrdup(category);
	if (explanation)
		out->refusal_text = xstrdup(explanation);
}

static void read_stop(const json_t *root, struct provider_response *out)
{
	const char *sr = jsonio_str(root, "stop_reason");

	out->stop = out->ncalls ? PROVIDER_STOP_TOOL_USE : PROVIDER_STOP_END;
	if (!sr)
		return;
	out->stop_raw = xstrdup(sr);
	if (strcmp(sr, "max_tokens") == 0 || strcmp(sr, "model_context_window_exceeded") == 0)
		out->stop = PROVIDER_STOP_MAX_TOKENS;
	else if (strcmp(sr, "tool_use") == 0)
		out->stop = PROVIDER_STOP_TOOL_USE;
	else if (strcmp(sr, "refusal") == 0)
		read_refusal(root, out);
}

static void read_usage(const json_t *root, struct provider_response *out)
{
	json_t *usage = json_object_get(root, "usage");
	json_t *in = json_object_get(usage, "input_tokens");
	json_t *outn = json_object_get(usage, "output_tokens");

	out->input_tokens = json_is_integer(in) ? (long)json_integer_value(in) : -1;
	out->output_tokens = json_is_integer(outn) ? (long)json_integer_value(outn) : -1;
}

int anthropic_parse_response(const char *body, size_t len, struct provider_response *out,
			     struct err *e)
{
	json_t *root = chat_parse_object(body, len, "a message", e);
	json_t *content, *block;
	size_t i;
	int rc = 0;

	if (!root)
		return -1;
	content = json_object_get(root, "content");
	if (!json_is_array(content)) {
		rc = chat_bad_body(e,
				   json_object_get(root, "error")
					   ? "the server answered with an error object"
					   : "the body is not a message (no content array)",
				   body, len);
		json_decref(root);
		return rc;
	}
	json_array_foreach(content, i, block) {
		if (!json_is_object(block) || read_block(block, out) != 0) {
			rc = chat_bad_body(e, "the message holds a malformed content block", body,
					   len);
			break;
		}
	}
	if (rc == 0) {
		if (!out->text)
			chat_text_add(out, "", 0);
		read_stop(root, out);
		read_usage(root, out);
	}
	json_decref(root);
	return rc;
}
