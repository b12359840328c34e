/*
 * args — one table per tool, read twice: as a JSON Schema and as the check.
 */
#include "base/args.h"

#include "base/err.h"
#include "base/rfc3339.h"
#include "base/text.h"

#include <string.h>

/* How much of a caller's argument name a refusal repeats. */
#define NAME_ECHO_MAX 64

static int shown(const struct args_spec *a, int bound)
{
	return !(bound && (a->flags & ARGS_BINDABLE));
}

/* ---- the schema --------------------------------------------------------------- */

static json_t *spec_schema(const struct args_spec *a)
{
	static const char *const type_names[] = { "string", "integer", "object" };
	json_t *s = json_pack("{s:s,s:s}", "type", type_names[a->type], "description",
			      a->description);

	if (a->type == ARGS_INTEGER) {
		json_object_set_new(s, "minimum", json_integer(a->min));
		if (a->max >= 0)
			json_object_set_new(s, "maximum", json_integer(a->max));
	} else if (a->type == ARGS_STRING) {
		json_object_set_new(s, "minLength", json_integer(a->min));
		json_object_set_new(s, "maxLength", json_integer(a->max));
		if (a->flags & ARGS_ONE_LINE)
			json_object_set_new(s, "pattern", json_string("^[^\\r\\n]*$"));
		if (a->flags & ARGS_DATE_TIME)
			json_object_set_new(s, "format", json_string("date-time"));
	}
	return s;
}

json_t *args_schema(const struct args_tool *t, int bound)
{
	json_t *props = json_object(), *required = json_array();

	for (size_t i = 0; i < t->nargs; i++) {
		const struct args_spec *a = &t->args[i];

		if (!shown(a, bound))
			continue;
		json_object_set_new(props, a->name, spec_schema(a));
		if (a->flags & ARGS_REQUIRED)
			json_array_append_new(required, json_string(a->name));
	}
	return json_pack("{s:s,s:o,s:o,s:b}", "type", "object", "properties", props, "required",
			 required, "additionalProperties", 0);
}

/* ---- the check ------------------------------------------------------------------ */

static int echo_len(const char *s)
{
	return (int)text_utf8_clip(s, strlen(s), NAME_ECHO_MAX);
}

static int check_string(const struct args_spec *a, const json_t *v, struct err *e)
{
	const char *s = json_string_value(v);
	size_t len = json_string_length(v), chars;
	time_t t;

	if (memchr(s, '\0', len))
		return err_set(e, ERR_BAD_ARGUMENTS, "%s must not contain a NUL character", a->name);
	chars = text_utf8_count(s, len);
	if ((long long)chars < a->min || (long long)chars > a->max)
		return err_set(e, ERR_BAD_ARGUMENTS, "%s must be %lld to %lld characters long",
			       a->name, a->min, a->max);
	if ((a->flags & ARGS_ONE_LINE) && strpbrk(s, "\r\n"))
		return err_set(e, ERR_BAD_ARGUMENTS, "%s must be a single line", a->name);
	if ((a->flags & ARGS_DATE_TIME) && rfc3339_parse(s, &t) != 0)
		return err_set(e, ERR_BAD_ARGUMENTS,
			       "%s is not an RFC 3339 timestamp (2026-08-10T09:00:00Z)", a->name);
	return 0;
}

static int check_value(const struct args_spec *a, const json_t *v, struct err *e)
{
	static const char *const type_names[] = { "a string", "an integer", "an object" };
	int ok = (a->type == ARGS_STRING && json_is_string(v)) ||
		 (a->type == ARGS_INTEGER && json_is_integer(v)) ||
		 (a->type == ARGS_OBJECT && json_is_object(v));

	if (!ok)
		return err_set(e, ERR_BAD_ARGUMENTS, "%s must be %s", a->name, type_names[a->type]);
	if (a->type == ARGS_STRING)
		return check_string(a, v, e);
	if (a->type == ARGS_INTEGER &&
	    (json_integer_value(v) < a->min || (a->max >= 0 && json_integer_value(v) > a->max)))
		return err_set(e, ERR_BAD_ARGUMENTS, "%s is out of range", a->name);
	return 0;
}

static const struct args_spec *spec_named(const struct args_tool *t, const char *name, int bound)
{
	for (size_t i = 0; i < t->nargs; i++)
		if (strcmp(t->args[i].name, name) == 0 && shown(&t->args[i], bound))
			return &t->args[i];
	return NULL;
}

static int check_keys(const struct args_tool *t, const json_t *args, int bound, struct err *e)
{
	const char *key;
	const json_t *v;

	json_object_foreach((json_t *)args, key, v) {
		if (!spec_named(t, key, bound))
			return err_set(e, ERR_BAD_ARGUMENTS,
				       "unknown argument: %s takes no argument '%.*s'%s%s%s; nothing "
				       "was done",
				       t->name, echo_len(key), key, t->unknown_hint ? " (" : "",
				       t->unknown_hint ? t->unknown_hint : "",
				       t->unknown_hint ? ")" : "");
	}
	return 0;
}

int args_check(const struct args_tool *t, const json_t *args, int bound, struct err *e)
{
	if (!json_is_object(args))
		return err_set(e, ERR_BAD_ARGUMENTS, "%s: the arguments must be a JSON object",
			       t->name);
	if (check_keys(t, args, bound, e) != 0)
		return -1;
	for (size_t i = 0; i < t->nargs; i++) {
		const struct args_spec *a = &t->args[i];
		const json_t *v = json_object_get(args, a->name);

		if (!shown(a, bound))
			continue;
		if (!v && (a->flags & ARGS_REQUIRED))
			return err_set(e, ERR_BAD_ARGUMENTS, "%s needs the argument '%s'", t->name,
				       a->name);
		if (v && check_value(a, v, e) != 0) {
			err_prefix(e, "%s", t->name);
			return -1;
		}
	}
	return 0;
}
