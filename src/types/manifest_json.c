/*
 * manifest_json — a checked manifest back out as JSON, in the shape the
 * reference serialises a RequestType: defaults filled in, optional keys
 * omitted when absent, `required` only when true, `kind` only when booking.
 */
#include "types/manifest.h"

#include <stdlib.h>

static void put_string(json_t *o, const char *key, const char *value)
{
	if (value)
		json_object_set_new(o, key, json_string(value));
}

static json_t *strings(char *const *v, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_string(v[i]));
	return a;
}

static json_t *condition_json(const struct condition *c)
{
	json_t *o = json_pack("{s:s,s:s}", "field", c->field, "op", manifest_op_name(c->op));

	if (c->value)
		json_object_set(o, "value", c->value);
	return o;
}

static json_t *options_json(const struct manifest_field *f)
{
	json_t *a = json_array();

	for (size_t i = 0; i < f->noptions; i++)
		json_array_append_new(a, json_pack("{s:s,s:s}", "value", f->options[i].value, "label",
						   f->options[i].label));
	return a;
}

static void kind_keys(json_t *o, const struct manifest_field *f)
{
	static const char *const accept_names[] = { "pdf", "png", "jpeg" };
	json_t *accept;

	switch (f->kind) {
	case MANIFEST_TEXT:
	case MANIFEST_LONG_TEXT:
	case MANIFEST_EMAIL:
	case MANIFEST_URL:
		json_object_set_new(o, "max_length", json_integer(f->max_length));
		put_string(o, "pattern", f->pattern);
		break;
	case MANIFEST_DATE:
		put_string(o, "min", f->date_min);
		put_string(o, "max", f->date_max);
		break;
	case MANIFEST_INTEGER:
		if (f->has_min)
			json_object_set_new(o, "min", json_integer(f->min));
		if (f->has_max)
			json_object_set_new(o, "max", json_integer(f->max));
		break;
	case MANIFEST_SELECT:
	case MANIFEST_MULTI_SELECT:
		json_object_set_new(o, "options", options_json(f));
		if (f->max_choices >= 0)
			json_object_set_new(o, "max_choices", json_integer(f->max_choices));
		break;
	case MANIFEST_FILE:
		accept = json_array();
		for (size_t i = 0; i < f->naccept; i++)
			json_array_append_new(accept, json_string(accept_names[f->accept[i]]));
		json_object_set_new(o, "max_bytes", json_integer(f->max_bytes));
		json_object_set_new(o, "accept", accept);
		break;
	default:
		break;
	}
}

static json_t *field_json(const struct manifest_field *f)
{
	json_t *o = json_pack("{s:s,s:s}", "name", f->name, "label", f->label);

	put_string(o, "help", f->help);
	json_object_set_new(o, "kind", json_string(manifest_kind_name(f->kind)));
	kind_keys(o, f);
	if (f->required)
		json_object_set_new(o, "required", json_true());
	if (f->show_when)
		json_object_set_new(o, "show_when", condition_json(f->show_when));
	return o;
}

static json_t *steps_json(const struct manifest *m)
{
	json_t *a = json_array();

	for (size_t i = 0; i < m->nsteps; i++) {
		const struct manifest_step *s = &m->steps[i];
		json_t *o = json_pack("{s:s,s:s}", "id", s->id, "title", s->title);
		put_string(o, "description", s->description);
		json_object_set_new(o, "fields", strings(s->fields, s->nfields));
		if (s->show_when)
			json_object_set_new(o, "show_when", condition_json(s->show_when));
		json_array_append_new(a, o);
	}
	return a;
}

static json_t *acks_json(const struct manifest *m)
{
	json_t *a = json_array();

	for (size_t i = 0; i < m->nacks; i++) {
		json_t *o = json_pack("{s:s,s:s}", "id", m->acks[i].id, "label", m->acks[i].label);
		put_string(o, "description", m->acks[i].description);
		put_string(o, "info_link", m->acks[i].info_link);
		json_array_append_new(a, o);
	}
	return a;
}

static json_t *window_json(const struct manifest_window *w)
{
	return json_pack("{s:s,s:s,s:s}", "day", w->day_text, "start", w->start_text, "end",
			 w->end_text);
}

static json_t *availability_json(const struct manifest_availability *a)
{
	json_t *o = json_pack("{s:s,s:[]}", "timezone", a->timezone, "durations"), *w;

	for (size_t i = 0; i < a->ndurations; i++)
		json_array_append_new(json_object_get(o, "durations"), json_integer(a->durations[i]));
	json_object_set_new(o, "buffer_minutes", json_integer(a->buffer_minutes));
	json_object_set_new(o, "min_notice_hours", json_integer(a->min_notice_hours));
	json_object_set_new(o, "horizon_days", json_integer(a->horizon_days));
	if (a->per_day_cap >= 0)
		json_object_set_new(o, "per_day_cap", json_integer(a->per_day_cap));
	json_object_set_new(o, "increment_minutes", json_integer(a->increment_minutes));
	json_object_set_new(o, "windows", w = json_array());
	for (size_t i = 0; i < a->nwindows; i++)
		json_array_append_new(w, window_json(&a->windows[i]));
	if (a->noverrides == 0)
		return o;
	json_object_set_new(o, "overrides", w = json_array());
	for (size_t i = 0; i < a->noverrides; i++) {
		const struct manifest_override *ov = &a->overrides[i];
		json_t *pairs = json_array();
		for (size_t k = 0; k < ov->nwindows; k++)
			json_array_append_new(pairs, json_pack("[ss]", ov->windows[k].start_text,
							       ov->windows[k].end_text));
		json_array_append_new(w, json_pack("{s:s,s:o}", "date", ov->date, "windows", pairs));
	}
	return o;
}

json_t *manifest_json(const struct manifest *m)
{
	json_t *o = json_pack("{s:s,s:I,s:s}", "id", m->id, "version", (json_int_t)m->version,
			      "title", m->title), *fields = json_array();

	put_string(o, "description", m->description);
	if (m->retain_days >= 0)
		json_object_set_new(o, "retain_days", json_integer(m->retain_days));
	for (size_t i = 0; i < m->nfields; i++)
		json_array_append_new(fields, field_json(&m->fields[i]));
	json_object_set_new(o, "fields", fields);
	if (m->nsteps)
		json_object_set_new(o, "steps", steps_json(m));
	if (m->nacks)
		json_object_set_new(o, "acknowledgments", acks_json(m));
	if (m->verification)
		json_object_set_new(o, "verification",
				    json_pack("{s:s,s:I}", "field", m->verification->field,
					      "expires_hours", (json_int_t)m->verification->expires_hours));
	if (m->confirmation) {
		json_t *c = json_pack("{s:s,s:s}", "heading", m->confirmation->heading, "body",
				      m->confirmation->body);
		put_string(c, "expect_reply_within", m->confirmation->expect_reply_within);
		json_object_set_new(o, "confirmation", c);
	}
	if (m->booking)
		json_object_set_new(o, "kind", json_string("booking"));
	if (m->availability)
		json_object_set_new(o, "availability", availability_json(m->availability));
	if (m->policy) {
		json_t *p = json_pack("{s:I,s:I,s:o}", "hold_minutes",
				      (json_int_t)m->policy->hold_minutes, "cancel_cutoff_hours",
				      (json_int_t)m->policy->cancel_cutoff_hours, "reminders",
				      strings(m->policy->reminders, m->policy->nreminders));
		if (m->policy->location)
			json_object_set_new(p, "location", json_string(m->policy->location));
		json_object_set_new(o, "policy", p);
	}
	return o;
}
