/*
 * openai — chat completions, the wire most local servers speak too.
 *
 * Servers that claim compatibility differ in small ways (content as an array
 * of parts, arguments as an object instead of a string, a missing call id,
 * finish_reason "stop" next to tool calls); each is read for what it means,
 * and anything that is not a completion at all is an error.
 */
#include "provider/openai.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/jsonio.h"
#include "provider/chat.h"

#include <stdlib.h>
#include <string.h>

static json_t *text_value(const struct provider_message *m)
{
	return chat_string(m->text, m->text_len);
}

static json_t *call_out(const struct provider_tool_call *c)
{
	char *args = chat_call_arguments_out(c);
	json_t *fn = json_object(), *o = json_object();

	json_object_set_new(fn, "name", chat_string(c->name, strlen(c->name)));
	json_object_set_new(fn, "arguments", chat_string(args, strlen(args)));
	json_object_set_new(o, "id", chat_string(c->id, strlen(c->id)));
	json_object_set_new(o, "type", json_string("function"));
	json_object_set_new(o, "function", fn);
	free(args);
	return o;
}

static json_t *message_out(const struct provider_message *m)
{
	json_t *o = json_object(), *calls;

	switch (m->role) {
	case PROVIDER_USER:
		json_object_set_new(o, "role", json_string("user"));
		json_object_set_new(o, "content", text_value(m));
		break;
	case PROVIDER_ASSISTANT:
		json_object_set_new(o, "role", json_string("assistant"));
		/* A turn that was only tool calls has null content on this wire. */
		json_object_set_new(o, "content",
				    m->text_len || !m->ncalls ? text_value(m) : json_null());
		if (m->ncalls) {
			calls = json_array();
			for (size_t i = 0; i < m->ncalls; i++)
				json_array_append_new(calls, call_out(&m->calls[i]));
			json_object_set_new(o, "tool_calls", calls);
		}
		break;
	case PROVIDER_TOOL_RESULT:
		/* This wire has no error flag: the caller's text says so. */
		json_object_set_new(o, "role", json_string("tool"));
		json_object_set_new(o, "tool_call_id", chat_string(m->call_id, strlen(m->call_id)));
		json_object_set_new(o, "content", text_value(m));
		break;
	}
	return o;
}

static json_t *tools_out(const struct provider_request *req)
{
	json_t *tools = json_array();

	for (size_t i = 0; i < req->ntools; i++) {
		const struct provider_tool *t = &req->tools[i];
		json_t *fn = json_object(), *o = json_object();

		json_object_set_new(fn, "name", chat_string(t->name, strlen(t->name)));
		json_object_set_new(fn, "description",
				    chat_string(t->description, strlen(t->description)));
		json_object_set(fn, "parameters", t->parameters);
		json_object_set_new(o, "type", json_string("function"));
		json_object_set_new(o, "function", fn);
		json_array_append_new(tools, o);
	}
	return tools;
}

char *openai_request_body(const struct provider_conf *conf, const struct provider_request *req,
			  size_t *len)
{
	const char *model = req->model ? req->model : conf->model;
	json_t *root = json_object(), *msgs = json_array(), *sys;
	char *body;

	json_object_set_new(root, "model", chat_string(model, strlen(model)));
	if (req->system) {
		sys = json_object();
		json_object_set_new(sys, "role", json_string("system"));
		json_object_set_new(sys, "content", chat_string(req->system, strlen(req->system)));
		json_array_append_new(msgs, sys);
	}
	for (size_t i = 0; i < req->nmessages; i++)
		json_array_append_new(msgs, message_out(&req->messages[i]));
	json_object_set_new(root, "messages", msgs);
	json_object_set_new(root, "max_tokens", json_integer(req->max_tokens));
	if (req->ntools)
		json_object_set_new(root, "tools", tools_out(req));
	body = jsonio_compact(root);
	json_decref(root);
	*len = strlen(body);
	return body;
}

/* --- the reply ---------------------------------------------------------- */

/* content: a string, null, or an array of {"type":"text","text":…} parts. */
static int read_content(json_t *content, struct provider_response *out)
{
	size_t i;
	json_t *part;

	if (!content || json_is_null(content))
		return 0;
	if (json_is_string(content)) {
		chat_text_add(out, json_string_value(content), json_string_length(content));
		return 0;
	}
	if (!json_is_array(content))
		return -1;
	json_array_foreach(content, i, part) {
		json_t *text = json_object_get(part, "text");

		if (!json_is_object(part))
			return -1;
		if (json_is_string(text))
			chat_text_add(out, json_string_value(text), json_string_length(text));
	}
	return 0;
}

static int read_calls(json_t *calls, struct provider_response *out)
{
	size_t i;
	json_t *call;

	if (!calls || json_is_null(calls))
		return 0;
	if (!json_is_array(calls))
		return -1;
	json_array_foreach(calls, i, call) {
		json_t *fn = json_object_get(call, "function");
		json_t *name = json_object_get(fn, "name");
		json_t *args = json_object_get(fn, "arguments");
		struct provider_tool_call *c;

		if (!json_is_object(call) || !json_is_string(name))
			return -1;
		c = chat_call_add(out);
		chat_call_id(c, jsonio_str(call, "id"), i);
		c->name = xstrdup(json_string_value(name));
		if (json_is_string(args))
			chat_call_arguments_text(c, json_string_value(args), json_string_length(args));
		else if (!args || json_is_null(args))
			chat_call_arguments_text(c, "", 0);
		else
			chat_call_arguments_value(c, args);
	}
	return 0;
}

static void read_stop(const json_t *choice, struct provider_response *out)
{
	const char *fr = jsonio_str(choice, "finish_reason");

	out->stop = out->ncalls ? PROVIDER_STOP_TOOL_USE : PROVIDER_STOP_END;
	if (fr)
		out->stop_raw = xstrdup(fr);
	if (!fr)
		return;
	if (strcmp(fr, "length") == 0)
		out->stop = PROVIDER_STOP_MAX_TOKENS;
	else if (strcmp(fr, "tool_calls") == 0 || strcmp(fr, "function_call") == 0)
		out->stop = PROVIDER_STOP_TOOL_USE;
	else if (strcmp(fr, "content_filter") == 0) {
		out->stop = PROVIDER_STOP_REFUSAL;
		out->refusal_category = xstrdup("content_filter");
	}
}

static void read_usage(const json_t *root, struct provider_response *out)
{
	json_t *usage = json_object_get(root, "usage");
	json_t *in = json_object_get(usage, "prompt_tokens");
	json_t *outn = json_object_get(usage, "completion_tokens");

	out->input_tokens = json_is_integer(in) ? (long)json_integer_value(in) : -1;
	out->output_tokens = json_is_integer(outn) ? (long)json_integer_value(outn) : -1;
}

static int read_message(const json_t *choice, struct provider_response *out, const char *body,
			size_t len, struct err *e)
{
	json_t *msg = json_object_get(choice, "message");
	json_t *refusal = json_object_get(msg, "refusal");

	if (!json_is_object(msg))
		return chat_bad_body(e, "the body is not a chat completion (no choices[0].message)",
				     body, len);
	if (read_content(json_object_get(msg, "content"), out) != 0)
		return chat_bad_body(e, "the completion's content is neither text nor parts", body,
				     len);
	if (read_calls(json_object_get(msg, "tool_calls"), out) != 0)
		return chat_bad_body(e, "the completion's tool_calls are malformed", body, len);
	read_stop(choice, out);
	if (json_is_string(refusal)) {
		out->stop = PROVIDER_STOP_REFUSAL;
		out->refusal_text = xstrdup(json_string_value(refusal));
	}
	return 0;
}

int openai_parse_response(const char *body, size_t len, struct provider_response *out,
			  struct err *e)
{
	json_t *root = chat_parse_object(body, len, "a chat completion", e);
	json_t *choices, *choice;
	int rc;

	if (!root)
		return -1;
	choices = json_object_get(root, "choices");
	choice = json_array_get(choices, 0);
	if (!json_is_object(choice)) {
		json_t *error = json_object_get(root, "error");

		rc = chat_bad_body(e,
				   error ? "the server answered with an error object"
					 : "the body is not a chat completion (no choices[0])",
				   body, len);
		json_decref(root);
		return rc;
	}
	rc = read_message(choice, out, body, len, e);
	if (rc == 0) {
		if (!out->text)
			chat_text_add(out, "", 0);
		read_usage(root, out);
	}
	json_decref(root);
	return rc;
}
