/*
 * condition — the twelve operators, each with its answer for every input.
 */
#include "types/condition.h"

#include "base/text.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int condition_present(const json_t *v)
{
	size_t off, n;

	if (!v || json_is_null(v))
		return 0;
	if (json_is_string(v)) {
		text_trim(json_string_value(v), json_string_length(v), &off, &n);
		return n > 0;
	}
	if (json_is_array(v))
		return json_array_size(v) > 0;
	return 1;
}

/* Rust's f64 grammar: [+-]? (inf | infinity | nan | digits[.digits] | .digits)([eE][+-]?digits)? */
static int rust_float(const char *s, size_t len, double *out)
{
	size_t i = 0, digits = 0;
	char *copy, *end;

	if (i < len && (s[i] == '+' || s[i] == '-'))
		i++;
	if ((len - i == 3 && strncasecmp(s + i, "inf", 3) == 0) ||
	    (len - i == 8 && strncasecmp(s + i, "infinity", 8) == 0) ||
	    (len - i == 3 && strncasecmp(s + i, "nan", 3) == 0))
		goto parse;
	for (; i < len && isdigit((unsigned char)s[i]); i++)
		digits++;
	if (i < len && s[i] == '.')
		for (i++; i < len && isdigit((unsigned char)s[i]); i++)
			digits++;
	if (digits == 0)
		return -1;
	if (i < len && (s[i] == 'e' || s[i] == 'E')) {
		size_t exp = 0;
		if (++i < len && (s[i] == '+' || s[i] == '-'))
			i++;
		for (; i < len && isdigit((unsigned char)s[i]); i++)
			exp++;
		if (exp == 0)
			return -1;
	}
	if (i != len)
		return -1;
parse:
	copy = strndup(s, len);
	if (!copy)
		abort();
	*out = strtod(copy, &end);
	free(copy);
	return 0;
}

/* A number from a JSON number, or from a string that reads as one. */
static int number(const json_t *v, double *out)
{
	size_t off, n;

	if (json_is_number(v)) {
		*out = json_number_value(v);
		return 0;
	}
	if (!json_is_string(v))
		return -1;
	text_trim(json_string_value(v), json_string_length(v), &off, &n);
	return rust_float(json_string_value(v) + off, n, out);
}

static int in_list(const json_t *actual, const json_t *list)
{
	const json_t *item;
	size_t i;

	json_array_foreach(list, i, item)
		if (json_equal(actual, item))
			return 1;
	return 0;
}

static int compare(enum condition_op op, const json_t *actual, const json_t *value)
{
	double a, b;

	if (!actual || !value || number(actual, &a) != 0 || number(value, &b) != 0)
		return 0;
	switch (op) {
	case CONDITION_GT:
		return a > b;
	case CONDITION_GTE:
		return a >= b;
	case CONDITION_LT:
		return a < b;
	default:
		return a <= b;
	}
}

static int spelled(const json_t *v, const char *const *words)
{
	size_t off, n;

	if (!json_is_string(v))
		return 0;
	text_trim(json_string_value(v), json_string_length(v), &off, &n);
	for (size_t i = 0; words[i]; i++)
		if (n == strlen(words[i]) && memcmp(json_string_value(v) + off, words[i], n) == 0)
			return 1;
	return 0;
}

int condition_yes(const json_t *v)
{
	static const char *const yes[] = { "on", "true", "1", "yes", NULL };

	return json_is_true(v) || spelled(v, yes);
}

int condition_no(const json_t *v)
{
	static const char *const no[] = { "off", "false", "0", "no", NULL };

	return json_is_false(v) || spelled(v, no);
}

/* eq/ne against a boolean reads a form's spellings of it too. */
static int equals(const json_t *actual, const json_t *value)
{
	if (json_is_boolean(value) && json_is_string(actual))
		return json_is_true(value) ? condition_yes(actual) : condition_no(actual);
	return json_equal(actual, value);
}

int condition_holds(const struct condition *c, const json_t *values)
{
	const json_t *actual = json_is_object(values) ? json_object_get(values, c->field) : NULL;

	switch (c->op) {
	case CONDITION_PRESENT:
		return condition_present(actual);
	case CONDITION_ABSENT:
		return !condition_present(actual);
	case CONDITION_IS_TRUE:
		return actual && condition_yes(actual);
	case CONDITION_IS_FALSE:
		return actual && condition_no(actual);
	case CONDITION_EQ:
		return actual && c->value && equals(actual, c->value);
	case CONDITION_NE:
		return actual && !(c->value && equals(actual, c->value));
	case CONDITION_IN:
		return actual && json_is_array(c->value) && in_list(actual, c->value);
	case CONDITION_NOT_IN:
		return actual && json_is_array(c->value) && !in_list(actual, c->value);
	default:
		return compare(c->op, actual, c->value);
	}
}
