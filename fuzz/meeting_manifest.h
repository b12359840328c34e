/*
 * meeting_manifest — the home's manifest of `meeting`, as the fuzz targets that
 * build a brief need it: a brief is built only after the grammar has read the
 * record (grammar_apply), and the grammar reads it against its type's manifest.
 * A header of static functions, as each target is one file linked on its own
 * (fuzz/run.sh).
 *
 * Ownership: the manifest is parsed once and kept for the process's life.
 */
#ifndef MECHA_FUZZ_MEETING_MANIFEST_H
#define MECHA_FUZZ_MEETING_MANIFEST_H

#include "requests/grammar.h"
#include "requests/record.h"
#include "types/manifest.h"

#include <string.h>

static const char meeting_manifest[] =
	"id = \"meeting\"\nversion = 1\ntitle = \"Meeting\"\n"
	"[[fields]]\nname = \"requester_name\"\nlabel = \"N\"\nkind = \"text\"\nmax_length = 200\n"
	"[[fields]]\nname = \"purpose\"\nlabel = \"P\"\nkind = \"select\"\n"
	"options = [{ value = \"collaboration\", label = \"C\" }]\n"
	"[[fields]]\nname = \"duration_minutes\"\nlabel = \"M\"\nkind = \"integer\"\n"
	"[[fields]]\nname = \"purpose_detail\"\nlabel = \"D\"\nkind = \"long_text\"\nmax_length = 9000\n"
	"[[fields]]\nname = \"cv\"\nlabel = \"CV\"\nkind = \"file\"\naccept = [\"pdf\"]\n";

/* The grammar's reading of r: against `meeting` when r is one, else as a type not installed. */
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

#endif
