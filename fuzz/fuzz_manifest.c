/*
 * fuzz_manifest — a request-type manifest arrives over the network (PUT
 * /v1/types) and from any file a person checks. Whatever the bytes, the
 * reader returns a checked manifest or issues with lines — never a crash, a
 * leak or a read past the buffer — and a manifest that loads yields its JSON
 * view, its schema and a validation of an empty and a junk submission.
 */
#include "types/manifest.h"
#include "types/schema.h"
#include "types/validate.h"

#include "base/err.h"

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void validate_twice(const struct manifest *m)
{
	static const char *const bodies[] = { "{}", "{\"a\":\"on\",\"b\":[1,\" x \"],\"c\":null}" };
	struct err e;

	for (size_t i = 0; i < 2; i++) {
		json_t *raw = json_loads(bodies[i], 0, NULL), *record, *errors;
		if (validate_submission(m, raw, i ? VALIDATE_SUBMIT : VALIDATE_COMPLETE, &record,
					&errors, &e) == 0)
			json_decref(record);
		else
			json_decref(errors);
		json_decref(raw);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct manifest_issues is = { NULL, 0 };
	struct manifest *m = manifest_parse((const char *)data, size, &is);

	if (m) {
		json_decref(manifest_json(m));
		json_decref(schema_of(m));
		validate_twice(m);
		if (is.n)
			__builtin_trap(); /* a manifest that loads has no issue */
		manifest_free(m);
	} else if (is.n == 0 || is.v[0].line < 1) {
		__builtin_trap(); /* a refusal always says where */
	}
	manifest_issues_free(&is);
	return 0;
}
