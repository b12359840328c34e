/*
 * fuzz_toml — base/toml reads config.toml and every request-type manifest,
 * and a manifest arrives over the network (PUT /v1/types). Whatever the bytes
 * (libFuzzer hands exactly `size`, no NUL), the reader returns a tree or an
 * error naming the file and a line: never a crash, a leak, a read past the
 * buffer or a stack exhausted by nesting.
 */
#include "base/err.h"
#include "base/toml.h"

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct toml_value *doc;
	struct err e;

	err_clear(&e);
	doc = toml_parse((const char *)data, size, "fuzz.toml", &e);
	if (doc) {
		json_t *j = toml_to_json(doc); /* walks every value the reader built */
		if (doc->type != TOML_TABLE || !j)
			__builtin_trap();
		json_decref(j);
		toml_free(doc);
	} else if (e.code != ERR_PARSE || strncmp(e.msg, "fuzz.toml:", 10) != 0) {
		__builtin_trap(); /* every refusal names the file and a line */
	}
	return 0;
}
