/*
 * anthropic — the messages wire format: POST {base_url}/v1/messages with
 * anthropic-version 2023-06-01.
 *
 * The rule it keeps: the body carries exactly what the request holds — the
 * system text as the top-level "system" field only when one was set, no
 * "tools" key unless tools were given — and a reply is read strictly: no
 * "content" array is not a message. stop_reason "refusal" is a refusal (its
 * stop_details category kept), "max_tokens" the budget, "tool_use" tool calls.
 * Consecutive turns of the same role (several tool results, a note after
 * them) are merged into one message, as the API requires alternation.
 *
 * Ownership: anthropic_request_body returns a malloc'd string. The parse
 * fills a caller's zeroed response, which the caller frees with
 * provider_response_free (also after a failed parse).
 */
#ifndef MECHA_PROVIDER_ANTHROPIC_H
#define MECHA_PROVIDER_ANTHROPIC_H

#include "provider/provider.h"

#include <stddef.h>

struct err;

#define ANTHROPIC_VERSION "2023-06-01"

/* The JSON body for req (model: req->model, else conf->model); *len its length. */
char *anthropic_request_body(const struct provider_conf *conf, const struct provider_request *req,
			     size_t *len);
/* Reads a 2xx body. Returns 0, or -1 with code provider_reply. */
int anthropic_parse_response(const char *body, size_t len, struct provider_response *out,
			     struct err *e);

#endif
