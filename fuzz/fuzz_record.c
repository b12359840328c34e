/*
 * Fuzz target: a request record as a stranger-influenced file, through the
 * strict reader, the brief, the held-back list and the writer. Whatever the
 * bytes, nothing crashes, a record that parses re-parses after a rewrite, and
 * no brief ever holds the prose.
 */
#include "base/err.h"
#include "base/jsonio.h"
#include "frontdoor/brief.h"
#include "requests/grammar.h"
#include "requests/record.h"
#include "types/manifest.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The home's manifest of `meeting`: a brief is built only after the grammar read it. */
static const char meeting_manifest[] =
	"id = \"meeting\"\nversion = 1\ntitle = \"Meeting\"\n"
	"[[fields]]\nname = \"requester_name\"\nlabel = \"N\"\nkind = \"text\"\nmax_length = 200\n"
	"[[fields]]\nname = \"purpose\"\nlabel = \"P\"\nkind = \"select\"\n"
	"options = [{ value = \"collaboration\", label = \"C\" }]\n"
	"[[fields]]\nname = \"duration_minutes\"\nlabel = \"M\"\nkind = \"integer\"\n"
	"[[fields]]\nname = \"purpose_detail\"\nlabel = \"D\"\nkind = \"long_text\"\nmax_length = 9000\n"
	"[[fields]]\nname = \"cv\"\nlabel = \"CV\"\nkind = \"file\"\naccept = [\"pdf\"]\n";

static void follow_meeting(struct record *r)
{
	static struct manifest *m;

	if (!m) {
		struct manifest_issues is = { NULL, 0 };
		if (!(m = manifest_parse(meeting_manifest, strlen(meeting_manifest), &is)))
			__builtin_trap();
	}
	grammar_apply(r, strcmp(r->type_id, "meeting") == 0 ? m : NULL, "not installed");
}

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
