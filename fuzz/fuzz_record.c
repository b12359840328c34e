/*
 * Fuzz target: a request record as a stranger-influenced file, through the
 * strict reader, the brief, the held-back list and the writer. Whatever the
 * bytes, nothing crashes, a record that parses re-parses after a rewrite, and
 * no brief ever holds the prose.
 */
#include "base/err.h"
#include "base/jsonio.h"
#include "frontdoor/brief.h"
#include "meeting_manifest.h"
#include "requests/record.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct record r, back;
	struct err e;
	json_t *b, *held;
	char *text;

	if (record_parse((const char *)data, size, "fuzz", &r, &e) != 0)
		return 0;
	follow_meeting(&r);
	b = brief_build(&r);
	held = brief_held_back(&r);
	if (b) {
		/* The brief's fields never hold a value named as prose. */
		const char *name;
		json_t *v;
		json_object_foreach(json_object_get(b, "fields"), name, v)
			if (record_is_prose(&r, name))
				abort();
	}
	text = record_serialize(&r);
	if (record_parse(text, strlen(text), "rewrite", &back, &e) != 0)
		abort(); /* a rewrite must stay readable */
	record_free(&back);
	free(text);
	json_decref(b);
	json_decref(held);
	record_free(&r);
	return 0;
}
