/*
 * fuzz_drain_row — a box's queue answer, as hostile as a box can make it:
 * every row is read strictly (refused with ERR_GATE, or read), judged
 * against a manifest with every field kind, and written out as a record
 * whose keys come in the spec's order; its files get names that never
 * climb out of their directory and never repeat.
 *
 * And the property of issue 21: the record, sealed by the request grammar
 * and extracted (with nothing), is briefed; no 8-byte run of any string the
 * box chose (the row's strings, the payload's keys and strings) is in the
 * brief outside the listed channels (reply_to, extracted, the normalized
 * received time, a digest) unless the home's own vocabulary (the manifest,
 * the content types the drain records) holds it too.
 */
#include "drain/intake.h"
#include "frontdoor/brief.h"
#include "requests/grammar.h"
#include "requests/record.h"
#include "requests/state.h"
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

/* The home's own words: the content types the drain records, the brief's keys. */
static const char home_words[] = "application/pdf image/png image/jpeg application/octet-stream "
				 "seq type received reply_to fields extracted attachments field size "
				 "content_type sha256 topic urgency_claimed dates_mentioned institution";

/* Every string in v (values and keys, at any depth; a payload's text parsed too) into *out. */
static void box_strings(const json_t *v, json_t *out)
{
	const char *key;
	json_t *x;
	size_t i;

	if (json_is_string(v)) {
		json_t *inner = json_loads(json_string_value(v), JSON_DECODE_ANY, NULL);
		json_array_append(out, (json_t *)v);
		if (inner && !json_is_string(inner))
			box_strings(inner, out);
		json_decref(inner);
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, x)
			box_strings(x, out);
	} else if (json_is_object(v)) {
		json_object_foreach((json_t *)v, key, x) {
			json_array_append_new(out, json_string(key));
			box_strings(x, out);
		}
	}
}

/* 1 when an 8-byte run of s is in one of the box's strings and not in the home's words. */
static int carries_box_text(const char *s, size_t len, const json_t *box)
{
	const json_t *b;
	size_t i;

	for (size_t at = 0; at + 8 <= len; at++) {
		if (memmem(manifest_text, sizeof manifest_text - 1, s + at, 8) ||
		    memmem(home_words, sizeof home_words - 1, s + at, 8))
			continue;
		json_array_foreach(box, i, b)
			if (memmem(json_string_value(b), json_string_length(b), s + at, 8))
				return 1;
	}
	return 0;
}

/* The brief's strings outside the listed channels, each checked. */
static void check_brief(const json_t *v, const char *key, const json_t *box)
{
	static const char *const channels[] = { "reply_to", "extracted", "received", "sha256",
						NULL };
	const char *k;
	json_t *x;
	size_t i;

	for (i = 0; key && channels[i]; i++)
		if (strcmp(key, channels[i]) == 0)
			return;
	if (json_is_string(v) && carries_box_text(json_string_value(v), json_string_length(v), box))
		__builtin_trap(); /* a box's chosen text reached a privileged run */
	if (json_is_array(v))
		json_array_foreach(v, i, x)
			check_brief(x, key, box);
	if (json_is_object(v))
		json_object_foreach((json_t *)v, k, x) {
			if (carries_box_text(k, strlen(k), box))
				__builtin_trap();
			check_brief(x, k, box);
		}
}

/* The record of the row, its attachments as the drain lists them, sealed, extracted, briefed. */
static void briefed_holds_no_box_text(const struct manifest *m, const json_t *row,
				      const struct intake_row *in, const struct intake_verdict *v)
{
	json_t *files = json_array(), *box = json_array(), *b;
	struct record rec;

	for (size_t i = 0; i < in->nfiles; i++)
		json_array_append_new(files, intake_attachment(&in->files[i], in->files[i].sha256 + 7,
							       "application/pdf", "attachments/x"));
	struct err e;

	intake_record_new(in, v, "2026-01-01T00:00:00Z", files, &rec);
	/* What store_create seals a record with: the home has a manifest of type `f` only. */
	grammar_apply(&rec, strcmp(in->type, "f") == 0 ? m : NULL, "not installed");
	if (state_move(&rec, STATE_EXTRACTED, MOVER_EXTRACT, &e) != 0)
		__builtin_trap();
	record_set_extraction(&rec, json_object());
	b = brief_build(&rec);
	box_strings(row, box);
	if (b)
		check_brief(b, NULL, box);
	json_decref(b);
	json_decref(box);
	record_free(&rec);
}

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
	json_object_foreach(rec, key, x) {
		if (strcmp(key, "type_version") == 0) { /* beside type_id, when the row names one */
			if (i != 2)
				__builtin_trap();
			continue;
		}
		if (order[i] && strcmp(key, order[i++]) != 0)
			__builtin_trap();
	}
	stems = intake_file_stems(&in);
	for (i = 0; i < in.nfiles; i++)
		for (size_t j = 0; j < i; j++)
			if (strchr(stems[i], '/') || strcmp(stems[i], stems[j]) == 0)
				__builtin_trap();
	intake_file_stems_free(stems, in.nfiles);
	json_decref(rec);
	briefed_holds_no_box_text(m, row, &in, &v);
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
