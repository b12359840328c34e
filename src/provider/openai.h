/*
 * openai — the chat-completions wire format (OpenAI, llama.cpp's llama-server,
 * vLLM, Ollama): POST {base_url}/chat/completions.
 *
 * The rule it keeps: the body carries exactly what the request holds — no
 * system message unless one was set, no "tools" key unless tools were given —
 * and a reply is read strictly: no choices[0].message is not a completion.
 * A refusal is the message's "refusal" field or finish_reason
 * "content_filter"; "length" is the token budget; tool calls are tool_use.
 *
 * Ownership: openai_request_body returns a malloc'd string. The parse fills a
 * caller's zeroed response, which the caller frees with
 * provider_response_free (also after a failed parse).
 */
#ifndef MECHA_PROVIDER_OPENAI_H
#define MECHA_PROVIDER_OPENAI_H

#include "provider/provider.h"

#include <stddef.h>

struct err;

/* The JSON body for req (model: req->model, else conf->model); *len its length. */
char *openai_request_body(const struct provider_conf *conf, const struct provider_request *req,
			  size_t *len);
/* Reads a 2xx body. Returns 0, or -1 with code provider_reply. */
int openai_parse_response(const char *body, size_t len, struct provider_response *out,
			  struct err *e);

#endif
