/*
 * fuzz_drain_row — a box's queue answer, as hostile as a box can make it:
 * every row is read strictly (refused with ERR_GATE, or read), judged
 * against a manifest with every field kind, and written out as a record
 * whose keys come in the spec's order; its files get names that never
 * climb out of their directory and never repeat.
 */
#include "drain/intake.h"
#include "types/manifest.h"

#include "base/err.h"
#include "base/jsonio.h"

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char manifest_text[] =
	"id = \"f\"\nversion = 1\ntitle = \"F\"\n"
	"[[fields]]\nname = \"t\"\nlabel = \"T\"\nkind = \"text\"\nmax_length = 5\n"
	"[[fields]]\nname = \"e\"\nlabel = \"E\"\nkind = \"email\"\nrequired = true\n"
	"[[fields]]\nname = \"n\"\nlabel = \"N\"\nkind = \"integer\"\nmax = 9\n"
	"[[fields]]\nname = \"s\"\nlabel = \"S\"\nkind = \"select\"\n"
	"options = [{ value = \"a\", label = \"A\" }]\n"
	"[[fields]]\nname = \"f\"\nlabel = \"F\"\nkind = \"file\"\naccept = [\"pdf\", \"jpg\"]\n"
	"[[acknowledgments]]\nid = \"ok\"\nlabel = \"OK\"\n"
	"[verification]\nfield = \"e\"\n";

static void one(const struct manifest *m, const json_t *row)
{
	static const char *const order[] = { "seq", "type_id", "state", "created_at", "drained_at",
					     "valid", NULL };
	struct intake_verdict v;
	struct intake_row in;
	json_t *rec;
	struct err e;
	char **stems;
	const char *key;
	json_t *x;
	size_t i = 0;

	if (intake_parse(row, &in, &e) != 0) {
		if (e.code != ERR_GATE)
			__builtin_trap();
		intake_row_free(&in);
		return;
	}
	intake_judge(&in, intake_machinery_only(&in) ? NULL : m, "none", &v);
	if (v.valid == !!v.invalid_reason)
		__builtin_trap(); /* invalid, and only invalid, says why */
	rec = intake_record(&in, &v, "2026-01-01T00:00:00Z", NULL);
	json_object_foreach(rec, key, x)
		if (order[i] && strcmp(key, order[i++]) != 0)
			__builtin_trap();
	stems = intake_file_stems(&in);
	for (i = 0; i < in.nfiles; i++)
		for (size_t j = 0; j < i; j++)
			if (strchr(stems[i], '/') || strcmp(stems[i], stems[j]) == 0)
				__builtin_trap();
	intake_file_stems_free(stems, in.nfiles);
	json_decref(rec);
	intake_verdict_free(&v);
	intake_row_free(&in);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct manifest *m;
	json_t *answer, *row;
	struct err e;
	size_t i;

	if (!m) {
		struct manifest_issues is = { NULL, 0 };
		if (!(m = manifest_parse(manifest_text, strlen(manifest_text), &is)))
			__builtin_trap();
	}
	if (!(answer = jsonio_parse((const char *)data, size, "fuzz", &e)))
		return 0;
	json_array_foreach(json_object_get(answer, "records"), i, row)
		one(m, row);
	json_decref(answer);
	return 0;
}
