/*
 * The rules extractor on arbitrary prose: the answer is always valid JSON of
 * the six keys, every date is a span of the input, and the topic stays short.
 */
#include "provider/rules.h"

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int occurs(const char *hay, size_t n, const char *needle, size_t m)
{
	if (m == 0 || m > n)
		return m == 0;
	for (size_t i = 0; i + m <= n; i++)
		if (memcmp(hay + i, needle, m) == 0)
			return 1;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* Two fields: the input split at its first newline. */
	const char *s = (const char *)data;
	const char *nl = memchr(s, '\n', size);
	size_t first = nl ? (size_t)(nl - s) : size;
	struct rules_field f[2] = { { "a", s, first },
				    { "b", nl ? nl + 1 : "", nl ? size - first - 1 : 0 } };
	json_t *x = rules_extract("fuzz_type", f, 2), *d;
	const char *topic = json_string_value(json_object_get(x, "topic"));
	size_t i;

	if (json_object_size(x) != 6 || !topic || strlen(topic) > 80)
		__builtin_trap();
	json_array_foreach(json_object_get(x, "dates_mentioned"), i, d)
		if (!occurs(s, size, json_string_value(d), json_string_length(d)))
			__builtin_trap();
	json_decref(x);
	return 0;
}
