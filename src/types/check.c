/*
 * check — every rule of a manifest that serde's shapes cannot state, in the
 * fixed words (docs/types.md, Validation). Not only the first: every
 * broken rule is reported: a person fixing a manifest fixes them all at once.
 */
#include "types/check.h"

#include "base/buf.h"
#include "types/booking.h"
#include "types/decode.h"
#include "types/manifest.h"

#include <stdlib.h>
#include <string.h>

static void id_rule(struct decode *d, int line, const char *id, const char *what)
{
	char *problem = manifest_id_problem(id, what);

	if (problem)
		decode_issue(d, line, "%s", problem);
	free(problem);
}

int check_iso_date(const char *s, size_t len)
{
	int month, day;

	if (len != 10 || s[4] != '-' || s[7] != '-')
		return 0;
	for (size_t i = 0; i < 10; i++)
		if (i != 4 && i != 7 && (s[i] < '0' || s[i] > '9'))
			return 0;
	month = (s[5] - '0') * 10 + (s[6] - '0');
	day = (s[8] - '0') * 10 + (s[9] - '0');
	return month >= 1 && month <= 12 && day >= 1 && day <= 31;
}

/* A condition may read only a field or an acknowledgment this type declares. */
static void check_condition(struct decode *d, const struct manifest *m, const struct condition *c,
			    int line, const char *owner)
{
	if (c && !manifest_field(m, c->field) && !manifest_ack(m, c->field))
		decode_issue(d, line, "%s has a show_when reading `%s`, which is not a field of `%s`",
			     owner, c->field, m->id);
}

static void check_options(struct decode *d, const struct manifest_field *f)
{
	if (f->noptions == 0)
		decode_issue(d, f->line, "field `%s` is a select with no options", f->name);
	for (size_t i = 0; i < f->noptions; i++)
		for (size_t j = 0; j < i; j++)
			if (strcmp(f->options[i].value, f->options[j].value) == 0) {
				decode_issue(d, f->line, "field `%s` offers the value `%s` twice",
					     f->name, f->options[i].value);
				break;
			}
}

static void check_kind_rules(struct decode *d, const struct manifest_field *f)
{
	if (manifest_is_free_text(f->kind) && f->max_length == 0)
		decode_issue(d, f->line, "field `%s` has max_length = 0, which rejects every value",
			     f->name);
	if (f->kind == MANIFEST_SELECT || f->kind == MANIFEST_MULTI_SELECT)
		check_options(d, f);
	for (int b = 0; f->kind == MANIFEST_DATE && b < 2; b++) {
		const char *bound = b ? f->date_max : f->date_min;
		if (bound && !check_iso_date(bound, strlen(bound)))
			decode_issue(d, f->line, "field `%s` has the date bound `%s`, which is not "
				     "YYYY-MM-DD", f->name, bound);
	}
	if (f->kind == MANIFEST_FILE && f->naccept == 0)
		decode_issue(d, f->line, "field `%s` is a file field accepting nothing", f->name);
	if (f->kind == MANIFEST_FILE &&
	    (f->max_bytes == 0 || f->max_bytes > MANIFEST_MAX_FILE_BYTES_PER_FIELD))
		decode_issue(d, f->line, "field `%s` allows %lld bytes; a file field takes between 1 "
			     "and %lld", f->name, f->max_bytes, MANIFEST_MAX_FILE_BYTES_PER_FIELD);
}

static void check_fields(struct decode *d, const struct manifest *m)
{
	if (m->nfields == 0)
		decode_issue(d, m->id_line, "request type `%s` declares no fields", m->id);
	for (size_t i = 0; i < m->nfields; i++) {
		const struct manifest_field *f = &m->fields[i];
		char *owner;
		id_rule(d, f->line, f->name, "field name");
		for (size_t j = 0; j < i; j++)
			if (strcmp(m->fields[j].name, f->name) == 0) {
				decode_issue(d, f->line, "request type `%s` declares field `%s` twice",
					     m->id, f->name);
				break;
			}
		check_kind_rules(d, f);
		owner = xasprintf("field `%s`", f->name);
		check_condition(d, m, f->show_when, f->line, owner);
		free(owner);
	}
}

static int on_a_step(const struct manifest *m, const char *name)
{
	for (size_t i = 0; i < m->nsteps; i++)
		for (size_t j = 0; j < m->steps[i].nfields; j++)
			if (strcmp(m->steps[i].fields[j], name) == 0)
				return 1;
	return 0;
}

/* Once steps exist they must cover every field, or a field is one no form renders. */
static void check_steps(struct decode *d, const struct manifest *m)
{
	for (size_t i = 0; i < m->nsteps; i++) {
		const struct manifest_step *s = &m->steps[i];
		char *owner = xasprintf("step `%s`", s->id);
		id_rule(d, s->line, s->id, "step id");
		for (size_t j = 0; j < s->nfields; j++)
			if (!manifest_field(m, s->fields[j]))
				decode_issue(d, s->line, "step `%s` references field `%s`, which does "
					     "not exist", s->id, s->fields[j]);
		check_condition(d, m, s->show_when, s->line, owner);
		free(owner);
	}
	for (size_t i = 0; m->nsteps && i < m->nfields; i++)
		if (!on_a_step(m, m->fields[i].name))
			decode_issue(d, m->fields[i].line, "field `%s` appears on no step, so no form "
				     "would render it", m->fields[i].name);
}

static void check_acks(struct decode *d, const struct manifest *m)
{
	for (size_t i = 0; i < m->nacks; i++) {
		id_rule(d, m->acks[i].line, m->acks[i].id, "acknowledgment id");
		if (manifest_field(m, m->acks[i].id))
			decode_issue(d, m->acks[i].line, "acknowledgment `%s` collides with a field of "
				     "the same name", m->acks[i].id);
	}
}

/* What one request may cost the box's disk: the sum of its file fields' caps. */
static void check_budget(struct decode *d, const struct manifest *m)
{
	long long budget = 0;
	int line = 0;

	for (size_t i = 0; i < m->nfields; i++)
		if (m->fields[i].kind == MANIFEST_FILE) {
			budget += m->fields[i].max_bytes;
			line = m->fields[i].line;
		}
	if (budget > MANIFEST_MAX_FILE_BYTES_PER_TYPE)
		decode_issue(d, line, "`%s` allows %lld attachment bytes across its file fields; the "
			     "ceiling per request type is %lld", m->id, budget,
			     MANIFEST_MAX_FILE_BYTES_PER_TYPE);
}

static void check_verification(struct decode *d, const struct manifest *m)
{
	const struct manifest_verification *v = m->verification;
	const struct manifest_field *f;

	if (!v)
		return;
	if (!(f = manifest_field(m, v->field)))
		decode_issue(d, v->line, "[verification] names `%s`, which is not a field on `%s`",
			     v->field, m->id);
	else if (f->kind != MANIFEST_EMAIL)
		decode_issue(d, v->line, "[verification] names `%s`, which is a `%s` field rather than "
			     "an email field \u2014 a link can only be sent to an address", v->field,
			     manifest_kind_name(f->kind));
	else if (!f->required)
		decode_issue(d, v->line, "[verification] names `%s`, which is optional. A submission "
			     "that left it blank could never be verified, and an unverified "
			     "submission is one nobody ever reads.", v->field);
	if (v->expires_hours == 0)
		decode_issue(d, v->line, "[verification] expires_hours = 0 would expire every link "
			     "before it could be clicked");
}

/* Every {placeholder} in the body names a real field. */
static void check_confirmation(struct decode *d, const struct manifest *m)
{
	const char *rest;

	if (!m->confirmation)
		return;
	for (rest = m->confirmation->body; (rest = strchr(rest, '{'));) {
		const char *close = strchr(rest, '}');
		char *name;
		if (!close) {
			decode_issue(d, m->confirmation->line,
				     "[confirmation] body has a `{` with no `}`");
			return;
		}
		name = xstrndup(rest + 1, (size_t)(close - rest - 1));
		if (!manifest_field(m, name))
			decode_issue(d, m->confirmation->line, "[confirmation] interpolates `{%s}`, "
				     "which is not a field on `%s`", name, m->id);
		free(name);
		rest = close + 1;
	}
}

void check_manifest(struct decode *d, struct manifest *m)
{
	id_rule(d, m->id_line, m->id, "request type id");
	check_fields(d, m);
	check_steps(d, m);
	check_acks(d, m);
	check_budget(d, m);
	check_verification(d, m);
	check_confirmation(d, m);
	booking_check(d, m);
}
