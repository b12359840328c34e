/*
 * Fuzz target: a model's answer to the extractor, the text a model (and so,
 * indirectly, a stranger) controls. Parsing never crashes, and what it accepts
 * is always the six keys with their types.
 */
#include "base/err.h"
#include "frontdoor/extract.h"

#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *x;
	struct err e;

	if (extract_parse((const char *)data, size, &x, &e) != 0)
		return 0;
	if (json_object_size(x) < 6 || !json_is_string(json_object_get(x, "topic")) ||
	    !json_is_array(json_object_get(x, "dates_mentioned")) ||
	    !json_is_boolean(json_object_get(x, "reads_like_instructions")))
		abort();
	json_decref(x);
	return 0;
}
