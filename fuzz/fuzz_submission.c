/*
 * fuzz_submission — a stranger's submission against a manifest with every
 * field kind, condition and acknowledgment: validation returns a record or
 * sorted errors, at both phases, for any JSON at all.
 */
#include "types/manifest.h"
#include "types/validate.h"

#include "base/err.h"
#include "base/jsonio.h"

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char manifest_text[] =
	"id = \"f\"\nversion = 1\ntitle = \"F\"\n"
	"[[fields]]\nname = \"t\"\nlabel = \"T\"\nkind = \"text\"\nmax_length = 5\n"
	"[[fields]]\nname = \"e\"\nlabel = \"E\"\nkind = \"email\"\nrequired = true\n"
	"[[fields]]\nname = \"u\"\nlabel = \"U\"\nkind = \"url\"\n"
	"[[fields]]\nname = \"d\"\nlabel = \"D\"\nkind = \"date\"\nmin = \"2026-01-01\"\n"
	"[[fields]]\nname = \"n\"\nlabel = \"N\"\nkind = \"integer\"\nmax = 9\n"
	"show_when = { field = \"s\", op = \"in\", value = [\"a\", \"b\"] }\n"
	"[[fields]]\nname = \"s\"\nlabel = \"S\"\nkind = \"select\"\n"
	"options = [{ value = \"a\", label = \"A\" }, { value = \"b\", label = \"B\" }]\n"
	"[[fields]]\nname = \"m\"\nlabel = \"M\"\nkind = \"multi_select\"\nmax_choices = 1\n"
	"options = [{ value = \"x\", label = \"X\" }]\nshow_when = { field = \"n\", op = \"gt\", value = 2 }\n"
	"[[fields]]\nname = \"b\"\nlabel = \"B\"\nkind = \"bool\"\n"
	"show_when = { field = \"t\", op = \"present\" }\n"
	"[[fields]]\nname = \"f\"\nlabel = \"F\"\nkind = \"file\"\naccept = [\"pdf\", \"jpg\"]\n"
	"[[fields]]\nname = \"l\"\nlabel = \"L\"\nkind = \"long_text\"\nmax_length = 20\n"
	"[[acknowledgments]]\nid = \"ok\"\nlabel = \"OK\"\n"
	"[verification]\nfield = \"e\"\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct manifest *m;
	json_t *raw, *record, *errors;
	struct err e;

	if (!m) {
		struct manifest_issues is = { NULL, 0 };
		if (!(m = manifest_parse(manifest_text, strlen(manifest_text), &is)))
			__builtin_trap();
	}
	if (!(raw = jsonio_parse((const char *)data, size, "fuzz", &e)))
		return 0;
	for (int phase = VALIDATE_SUBMIT; phase <= VALIDATE_COMPLETE; phase++) {
		if (validate_submission(m, raw, (enum validate_phase)phase, &record, &errors, &e) == 0) {
			json_decref(validate_free_text(m, json_object_get(record, "values")));
			json_decref(record);
		} else if (json_array_size(errors) == 0 || e.code != ERR_INVALID_SUBMISSION) {
			__builtin_trap(); /* a refusal always says what and why */
		} else {
			json_decref(errors);
		}
	}
	json_decref(raw);
	return 0;
}
