/*
 * prose — the manifest's field kinds laid over a record's free_text, and a
 * warning for every place the two disagree.
 */
#include "frontdoor/prose.h"

#include "base/err.h"
#include "base/text.h"
#include "requests/grammar.h"
#include "requests/record.h"
#include "types/catalog.h"
#include "types/manifest.h"

#include <jansson.h>
#include <string.h>

static void say(FILE *warn, const struct record *r, const char *name, const char *what,
		const char *tail)
{
	if (!warn)
		return;
	fprintf(warn, "mecha: request %lld (", r->seq);
	text_print(warn, r->type_id, 0);
	fputs("): ", warn);
	if (name) {
		fputc('`', warn);
		text_print(warn, name, 0);
		fputs("` ", warn);
	}
	text_print(warn, what, 0);
	fputs(tail, warn);
	fputc('\n', warn);
}

/* free_text names the manifest does not make prose: kept as prose, and said. */
static void listed_but_not_prose(const struct record *r, const struct manifest *m, FILE *warn)
{
	json_t *v;
	size_t i;

	json_array_foreach(json_object_get(r->doc, "free_text"), i, v) {
		const struct manifest_field *f = manifest_field(m, json_string_value(v));
		char what[96];
		if (f && manifest_is_free_text(f->kind))
			continue;
		snprintf(what, sizeof what, "is listed in free_text, but its manifest %s%s",
			 f ? "makes it a " : "has no such field", f ? manifest_kind_name(f->kind) : "");
		say(warn, r, json_string_value(v), what, "; kept as prose");
	}
}

/* The manifest's prose names; the ones with a value free_text left out are said. */
static json_t *prose_names(const struct record *r, const struct manifest *m, FILE *warn)
{
	json_t *names = json_array();

	for (size_t i = 0; i < m->nfields; i++) {
		const struct manifest_field *f = &m->fields[i];
		char what[96];
		if (!manifest_is_free_text(f->kind))
			continue;
		json_array_append_new(names, json_string(f->name));
		if (record_lists_prose(r, f->name) || !json_object_get(record_values(r), f->name))
			continue;
		snprintf(what, sizeof what, "is a %s field of its manifest but is not listed in "
			 "free_text", manifest_kind_name(f->kind));
		say(warn, r, f->name, what, "; treated as prose");
	}
	return names;
}

void prose_follow_manifest(struct record *r, FILE *warn)
{
	struct manifest *m;
	struct err e;

	if (catalog_load(r->type_id, &m, NULL, &e) != 0) {
		if (e.code != ERR_NOT_FOUND)
			say(warn, r, NULL, e.msg, "; no brief is built of it");
		grammar_apply(r, NULL, e.code == ERR_NOT_FOUND ? "it is not installed" : e.msg);
		return;
	}
	listed_but_not_prose(r, m, warn);
	record_set_manifest_prose(r, prose_names(r, m, warn));
	grammar_apply(r, m, NULL); /* the brief's rule, with the same manifest */
	manifest_free(m);
}
