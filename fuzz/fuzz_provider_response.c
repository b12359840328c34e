/*
 * The two completion parsers on arbitrary bytes: whatever a server or a model
 * sends, the answer is a response or an error, never a crash or a leak.
 */
#include "base/err.h"
#include "provider/anthropic.h"
#include "provider/openai.h"
#include "provider/provider.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int rc, struct provider_response *r)
{
	/* A parsed response always has text, and every call a name and an id. */
	if (rc == 0) {
		if (!r->text || strlen(r->text) > r->text_len)
			__builtin_trap();
		for (size_t i = 0; i < r->ncalls; i++)
			if (!r->calls[i].id || !r->calls[i].name ||
			    (!r->calls[i].arguments && !r->calls[i].arguments_error))
				__builtin_trap();
	}
	provider_response_free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct provider_response r;
	struct err e;

	memset(&r, 0, sizeof r);
	check(openai_parse_response((const char *)data, size, &r, &e), &r);
	memset(&r, 0, sizeof r);
	check(anthropic_parse_response((const char *)data, size, &r, &e), &r);
	return 0;
}
