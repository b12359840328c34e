/*
 * chat — what the two wire formats (openai.c, anthropic.c) share: building
 * JSON strings from bytes that may not be clean, filling a response, and the
 * one way a body that is not a completion is reported.
 *
 * The rule it keeps: model output is never trusted to be well formed. A tool
 * call's arguments that do not parse become an error on that call (for the
 * caller to report back), never a crash and never a silently empty object.
 *
 * Ownership: chat_string returns a NEW reference; chat_parse_object returns a
 * NEW reference. Everything added to a response belongs to the response.
 */
#ifndef MECHA_PROVIDER_CHAT_H
#define MECHA_PROVIDER_CHAT_H

#include "provider/provider.h"

#include <jansson.h>
#include <stddef.h>

struct err;

/* A JSON string of s[0..len); bytes that are not UTF-8 become U+FFFD. Never NULL. */
json_t *chat_string(const char *s, size_t len);
/* The JSON object in body, or NULL with code provider_reply ("<what>: …"). */
json_t *chat_parse_object(const char *body, size_t len, const char *what, struct err *e);
/* Fails with code provider_reply: "<why>; the body begins: <quote>". Returns -1. */
int chat_bad_body(struct err *e, const char *why, const char *body, size_t len);

/* Appends to the response's text (which is never NULL afterwards). */
void chat_text_add(struct provider_response *r, const char *s, size_t len);
/* A new, zeroed tool call at the end of r->calls. */
struct provider_tool_call *chat_call_add(struct provider_response *r);
/* Sets id, or "call_<index>" when the wire sent none. */
void chat_call_id(struct provider_tool_call *c, const char *id, size_t index);
/* Arguments from the text a model wrote ("" reads as {}). */
void chat_call_arguments_text(struct provider_tool_call *c, const char *s, size_t len);
/* Arguments from a JSON value (borrowed): an object, else an argument error. */
void chat_call_arguments_value(struct provider_tool_call *c, json_t *v);
/* Frees the members of one call (not the call itself). */
void chat_call_clear(struct provider_tool_call *c);
/* A deep copy of src into dst. */
void chat_call_copy(struct provider_tool_call *dst, const struct provider_tool_call *src);
/* The arguments as the wire should echo them: the model's own text if any, else compact JSON. */
char *chat_call_arguments_out(const struct provider_tool_call *c);

#endif
