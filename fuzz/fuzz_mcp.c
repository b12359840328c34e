/*
 * fuzz_mcp — every byte on `mecha mcp`'s stdin is the client's choice. The
 * input is split into lines and fed, in order, to one server (so a fuzzed
 * initialize opens the way to tools/list and tools/call, whose argument checks
 * and tools run for real against a scratch MECHA_HOME). Whatever comes in,
 * each answer must be one line of JSON: an object with jsonrpc "2.0" and
 * exactly one of result and error, or (a batch, in a 2025-03-26 session) a
 * non-empty array of such objects.
 */
#include "base/err.h"
#include "mcp/server.h"
#include "scratch.h"

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	setenv("MECHA_HOME", scratch_dir("mcp"), 1);
	unsetenv("MECHA_OUTBOX_DIR");
	unsetenv("MECHA_PROVIDER");
	return 0;
}

static void check_one(const json_t *v)
{
	int has_result, has_error;

	if (!json_is_object(v))
		__builtin_trap();
	if (!json_is_string(json_object_get(v, "jsonrpc")) ||
	    strcmp(json_string_value(json_object_get(v, "jsonrpc")), "2.0") != 0)
		__builtin_trap();
	has_result = json_object_get(v, "result") != NULL;
	has_error = json_object_get(v, "error") != NULL;
	if (has_result == has_error)
		__builtin_trap();
}

static void check_answer(const char *line)
{
	json_t *v = json_loads(line, JSON_DECODE_ANY, NULL), *one;
	size_t i;

	if (strchr(line, '\n') || !v || (json_is_array(v) && json_array_size(v) == 0))
		__builtin_trap();
	if (json_is_array(v))
		json_array_foreach(v, i, one)
			check_one(one);
	else
		check_one(v);
	json_decref(v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size;
	struct mcp_server s;
	struct err e;

	if (mcp_server_init(&s, &e) != 0)
		return 0;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char *answer = mcp_server_handle(&s, p, len);

		if (answer)
			check_answer(answer);
		free(answer);
		p += len + (nl ? 1 : 0);
	}
	return 0;
}
