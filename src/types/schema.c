/*
 * schema — one property schema per field kind, then the envelope.
 */
#include "types/schema.h"

#include "base/buf.h"
#include "types/manifest.h"

#include <stdlib.h>
#include <string.h>

static json_t *enum_of(const struct manifest_field *f)
{
	json_t *values = json_array();

	for (size_t i = 0; i < f->noptions; i++)
		json_array_append_new(values, json_string(f->options[i].value));
	return values;
}

static json_t *file_schema(const struct manifest_field *f)
{
	json_t *mimes = json_array();

	for (size_t i = 0; i < f->naccept; i++)
		json_array_append_new(mimes, json_string(manifest_file_mime(f->accept[i])));
	return json_pack("{s:s,s:b,s:[ssss],s:{s:{s:s,s:i},s:{s:s,s:i,s:I},s:{s:s,s:s},"
			 "s:{s:s,s:o},s:{s:s}}}",
			 "type", "object", "additionalProperties", 0, "required", "filename", "size",
			 "sha256", "content_type", "properties", "filename", "type", "string",
			 "maxLength", 255, "size", "type", "integer", "minimum", 1, "maximum",
			 (json_int_t)f->max_bytes, "sha256", "type", "string", "pattern",
			 "^sha256:[0-9a-f]{64}$", "content_type", "type", "string", "enum", mimes,
			 "attachment_id", "type", "string");
}

static json_t *kind_schema(const struct manifest_field *f)
{
	static const char *const formats[] = { [MANIFEST_EMAIL] = "email", [MANIFEST_URL] = "uri" };
	json_t *s;

	switch (f->kind) {
	case MANIFEST_TEXT:
	case MANIFEST_LONG_TEXT:
	case MANIFEST_EMAIL:
	case MANIFEST_URL:
		s = json_pack("{s:s,s:I}", "type", "string", "maxLength", (json_int_t)f->max_length);
		if (f->kind == MANIFEST_EMAIL || f->kind == MANIFEST_URL)
			json_object_set_new(s, "format", json_string(formats[f->kind]));
		if (f->pattern)
			json_object_set_new(s, "pattern", json_string(f->pattern));
		return s;
	case MANIFEST_DATE:
		s = json_pack("{s:s,s:s}", "type", "string", "format", "date");
		if (f->date_min)
			json_object_set_new(s, "formatMinimum", json_string(f->date_min));
		if (f->date_max)
			json_object_set_new(s, "formatMaximum", json_string(f->date_max));
		return s;
	case MANIFEST_INTEGER:
		s = json_pack("{s:s}", "type", "integer");
		if (f->has_min)
			json_object_set_new(s, "minimum", json_integer(f->min));
		if (f->has_max)
			json_object_set_new(s, "maximum", json_integer(f->max));
		return s;
	case MANIFEST_SELECT:
		return json_pack("{s:s,s:o}", "type", "string", "enum", enum_of(f));
	case MANIFEST_MULTI_SELECT:
		s = json_pack("{s:s,s:b,s:{s:s,s:o}}", "type", "array", "uniqueItems", 1, "items",
			      "type", "string", "enum", enum_of(f));
		if (f->max_choices >= 0)
			json_object_set_new(s, "maxItems", json_integer(f->max_choices));
		return s;
	case MANIFEST_BOOL:
		return json_pack("{s:s}", "type", "boolean");
	default:
		return file_schema(f);
	}
}

static json_t *field_schema(const struct manifest_field *f)
{
	json_t *s = kind_schema(f);

	json_object_set_new(s, "title", json_string(f->label));
	if (f->help)
		json_object_set_new(s, "description", json_string(f->help));
	return s;
}

static int behind_a_step_condition(const struct manifest *m, const char *name)
{
	for (size_t i = 0; i < m->nsteps; i++)
		for (size_t j = 0; m->steps[i].show_when && j < m->steps[i].nfields; j++)
			if (strcmp(m->steps[i].fields[j], name) == 0)
				return 1;
	return 0;
}

static int by_key(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A copy of v with every object's keys in sorted order. NEW reference; v is consumed. */
static json_t *sorted(json_t *v)
{
	json_t *out, *x;
	const char *key, **keys;
	size_t i = 0;

	if (json_is_array(v)) {
		out = json_array();
		json_array_foreach(v, i, x)
			json_array_append_new(out, sorted(json_incref(x)));
	} else if (json_is_object(v)) {
		keys = xcalloc(json_object_size(v) + 1, sizeof *keys);
		json_object_foreach(v, key, x)
			keys[i++] = key;
		qsort(keys, i, sizeof *keys, by_key);
		out = json_object();
		for (size_t k = 0; k < i; k++)
			json_object_set_new(out, keys[k], sorted(json_incref(json_object_get(v, keys[k]))));
		free(keys);
	} else {
		return v;
	}
	json_decref(v);
	return out;
}

json_t *schema_of(const struct manifest *m)
{
	json_t *props = json_object(), *required = json_array(), *s;
	char *id = xasprintf("mecha-factory:request/%s/v%lld", m->id, m->version);

	for (size_t i = 0; i < m->nfields; i++) {
		const struct manifest_field *f = &m->fields[i];
		json_object_set_new(props, f->name, field_schema(f));
		if (f->required && !f->show_when && !behind_a_step_condition(m, f->name))
			json_array_append_new(required, json_string(f->name));
	}
	for (size_t i = 0; i < m->nacks; i++) {
		json_t *a = json_pack("{s:s,s:b,s:s}", "type", "boolean", "const", 1, "title",
				      m->acks[i].label);
		if (m->acks[i].description)
			json_object_set_new(a, "description", json_string(m->acks[i].description));
		json_object_set_new(props, m->acks[i].id, a);
		json_array_append_new(required, json_string(m->acks[i].id));
	}
	s = json_pack("{s:s,s:s,s:s,s:s,s:o,s:o,s:b}", "$schema",
		      "https://json-schema.org/draft/2020-12/schema", "$id", id, "title", m->title,
		      "type", "object", "properties", props, "required", required,
		      "additionalProperties", 0);
	if (m->description)
		json_object_set_new(s, "description", json_string(m->description));
	free(id);
	return sorted(s);
}
