/*
 * validate — visibility, then each visible field coerced to its kind, then
 * the acknowledgments, then every key nobody asked for. The coercions are the
 * compatible tools', case by case, message for message (docs/types.md, Validation).
 */
#include "types/validate.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/text.h"
#include "types/check.h"
#include "types/condition.h"
#include "types/manifest.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define FILENAME_MAX_CHARS 255

/* ---- small readings ----------------------------------------------------------------- */

static int blank(const json_t *v)
{
	return json_is_null(v) || (json_is_string(v) && !condition_present(v)) ||
	       (json_is_array(v) && json_array_size(v) == 0);
}

/* The string v trimmed, as a NEW JSON string. */
static json_t *trimmed(const json_t *v)
{
	size_t off, n;

	text_trim(json_string_value(v), json_string_length(v), &off, &n);
	return json_stringn(json_string_value(v) + off, n);
}

/* Capped on characters, not bytes: a browser and a person count characters. */
static char *capped(const char *s, size_t len, long long max)
{
	size_t n = text_utf8_count(s, len);

	return (long long)n > max ? xasprintf("this is %zu characters; the limit is %lld", n, max)
				  : NULL;
}

static int has_space(const char *s, size_t len)
{
	for (size_t i = 0; i < len;) {
		unsigned cp;
		size_t k = text_utf8_decode(s + i, len - i, &cp), off, n;
		if (k == 0)
			k = 1;
		text_trim(s + i, k, &off, &n);
		if (n == 0)
			return 1;
		i += k;
	}
	return 0;
}

/* Deliberately not RFC 5322: it catches the typo, and the verification click proves the rest. */
static int plausible_email(const char *s, size_t len)
{
	const char *at = memchr(s, '@', len);
	size_t local, domain;

	if (!at || memchr(at + 1, '@', len - (size_t)(at - s) - 1))
		return 0;
	local = (size_t)(at - s);
	domain = len - local - 1;
	return local > 0 && domain > 0 && memchr(at + 1, '.', domain) && at[1] != '.' &&
	       s[len - 1] != '.' && !has_space(s, len);
}

/* Rust's i64 parse: an optional sign, then digits only. */
static int whole_number(const char *s, size_t len, long long *out)
{
	char buf[32], *end;

	if (len == 0 || len >= sizeof buf)
		return -1;
	for (size_t i = 0; i < len; i++)
		if (!isdigit((unsigned char)s[i]) && !(i == 0 && (s[i] == '+' || s[i] == '-') && len > 1))
			return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	errno = 0;
	*out = strtoll(buf, &end, 10);
	return errno == 0 && *end == '\0' ? 0 : -1;
}

/* ---- the kinds ---------------------------------------------------------------------- */

static json_t *coerce_text(const struct manifest_field *f, const json_t *v, char **why)
{
	const char *s = json_string_value(v);
	size_t len = json_string_length(v);

	if ((*why = capped(s, len, f->max_length)))
		return NULL;
	if (f->kind == MANIFEST_TEXT && (memchr(s, '\n', len) || memchr(s, '\r', len))) {
		*why = xstrdup("this is a single line");
		return NULL;
	}
	return trimmed(v);
}

/* email and url: trimmed first, then capped, then their own check. */
static json_t *coerce_address(const struct manifest_field *f, const json_t *v, char **why)
{
	json_t *t = trimmed(v);
	const char *s = json_string_value(t);
	size_t len = json_string_length(t);

	if (!(*why = capped(s, len, f->max_length))) {
		if (f->kind == MANIFEST_EMAIL && !plausible_email(s, len))
			*why = xstrdup("this does not look like an email address");
		else if (f->kind == MANIFEST_URL && strncasecmp(s, "https://", 8) != 0 &&
			 strncasecmp(s, "http://", 7) != 0)
			*why = xstrdup("this has to be an http or https address");
	}
	if (*why) {
		json_decref(t);
		return NULL;
	}
	return t;
}

static json_t *coerce_date(const struct manifest_field *f, const json_t *v, char **why)
{
	json_t *t = trimmed(v);
	const char *s = json_string_value(t);

	if (!check_iso_date(s, json_string_length(t)))
		*why = xstrdup("this has to be a date, as YYYY-MM-DD");
	else if (f->date_min && strcmp(s, f->date_min) < 0)
		*why = xasprintf("this cannot be earlier than %s", f->date_min);
	else if (f->date_max && strcmp(s, f->date_max) > 0)
		*why = xasprintf("this cannot be later than %s", f->date_max);
	if (*why) {
		json_decref(t);
		return NULL;
	}
	return t;
}

static json_t *coerce_integer(const struct manifest_field *f, const json_t *v, char **why)
{
	long long n;
	size_t off, len;

	if (json_is_integer(v)) {
		n = json_integer_value(v);
	} else if (json_is_string(v)) {
		text_trim(json_string_value(v), json_string_length(v), &off, &len);
		if (whole_number(json_string_value(v) + off, len, &n) != 0)
			goto not_whole;
	} else {
		goto not_whole;
	}
	if (f->has_min && n < f->min)
		*why = xasprintf("this cannot be less than %lld", f->min);
	else if (f->has_max && n > f->max)
		*why = xasprintf("this cannot be more than %lld", f->max);
	return *why ? NULL : json_integer(n);
not_whole:
	*why = xstrdup("this has to be a whole number");
	return NULL;
}

static int offered(const struct manifest_field *f, const char *s, size_t len)
{
	for (size_t i = 0; i < f->noptions; i++)
		if (strlen(f->options[i].value) == len && memcmp(f->options[i].value, s, len) == 0)
			return 1;
	return 0;
}

/* "a, b, c": the values are ours, so naming them leaks nothing and saves a trip to the manifest. */
static char *option_list(const struct manifest_field *f)
{
	struct buf b = BUF_INIT;

	for (size_t i = 0; i < f->noptions; i++)
		buf_printf(&b, "%s%s", i ? ", " : "", f->options[i].value);
	return buf_steal(&b);
}

static json_t *coerce_select(const struct manifest_field *f, const json_t *v, char **why)
{
	json_t *t = trimmed(v);
	char *list;

	if (offered(f, json_string_value(t), json_string_length(t)))
		return t;
	json_decref(t);
	list = option_list(f);
	*why = xasprintf("this has to be one of: %s", list);
	free(list);
	return NULL;
}

/* One item of a multi_select: a string, offered, not chosen before. */
static char *choice(const struct manifest_field *f, const json_t *item, json_t *chosen)
{
	json_t *t, *c;
	size_t i;
	char *list, *why = NULL;

	if (!json_is_string(item))
		return xstrdup("this has to be text");
	t = trimmed(item);
	if (!offered(f, json_string_value(t), json_string_length(t))) {
		list = option_list(f);
		why = xasprintf("choices have to come from: %s", list);
		free(list);
	}
	json_array_foreach(chosen, i, c)
		if (!why && json_equal(c, t))
			why = xasprintf("`%s` is chosen twice", json_string_value(t));
	if (why)
		json_decref(t);
	else
		json_array_append_new(chosen, t);
	return why;
}

static json_t *coerce_multi(const struct manifest_field *f, const json_t *v, char **why)
{
	json_t *chosen = json_array(), *item;
	size_t i;

	if (json_is_string(v)) {
		*why = choice(f, v, chosen); /* one box ticked posts a bare string */
	} else if (!json_is_array(v)) {
		*why = xstrdup("this has to be a list of choices");
	} else {
		json_array_foreach(v, i, item)
			if ((*why = choice(f, item, chosen)))
				break;
	}
	if (!*why && f->max_choices >= 0 && (long long)json_array_size(chosen) > f->max_choices)
		*why = xasprintf("choose at most %lld", f->max_choices);
	if (*why) {
		json_decref(chosen);
		return NULL;
	}
	return chosen;
}

static json_t *coerce_bool(const json_t *v, char **why)
{
	if (json_is_boolean(v))
		return json_boolean(json_is_true(v));
	if (json_is_string(v) && condition_yes(v))
		return json_true();
	if (json_is_string(v) && condition_no(v))
		return json_false();
	*why = xstrdup("this has to be yes or no");
	return NULL;
}

/* ---- files: the box's measurements, never the bytes ---------------------------------- */

static int file_type_of(const char *mime, enum manifest_file_type *t)
{
	for (int i = MANIFEST_PDF; i <= MANIFEST_JPEG; i++)
		if (strcmp(mime, manifest_file_mime((enum manifest_file_type)i)) == 0) {
			*t = (enum manifest_file_type)i;
			return 0;
		}
	return -1;
}

/* FileMeta: exactly these keys, of these types, or it is not an uploaded file. */
static int file_meta_shape(const json_t *v)
{
	const char *key;
	json_t *x;

	if (!json_is_object(v))
		return 0;
	json_object_foreach((json_t *)v, key, x) {
		if (strcmp(key, "size") == 0) {
			if (!json_is_integer(x) || json_integer_value(x) < 0)
				return 0;
		} else if (strcmp(key, "attachment_id") == 0) {
			if (!json_is_string(x) && !json_is_null(x))
				return 0;
		} else if (strcmp(key, "filename") != 0 && strcmp(key, "sha256") != 0 &&
			   strcmp(key, "content_type") != 0) {
			return 0;
		} else if (!json_is_string(x)) {
			return 0;
		}
	}
	return json_object_get(v, "filename") && json_object_get(v, "size") &&
	       json_object_get(v, "sha256") && json_object_get(v, "content_type");
}

int validate_digest_ok(const char *s)
{
	if (strncmp(s, "sha256:", 7) != 0 || strlen(s + 7) != 64)
		return 0;
	for (s += 7; *s; s++)
		if (!isxdigit((unsigned char)*s))
			return 0;
	return 1;
}

static char *file_problem(const struct manifest_field *f, const json_t *v)
{
	long long size = json_integer_value(json_object_get(v, "size"));
	const json_t *name = json_object_get(v, "filename");
	enum manifest_file_type t;
	int taken = 0;
	struct buf b = BUF_INIT;

	if (size == 0)
		return xstrdup("this file is empty");
	if (size > f->max_bytes)
		return xasprintf("this file is %lld bytes; the limit is %lld", size, f->max_bytes);
	if (!validate_digest_ok(json_string_value(json_object_get(v, "sha256"))))
		return xstrdup("this file's digest is malformed");
	if (file_type_of(json_string_value(json_object_get(v, "content_type")), &t) != 0)
		return xstrdup("this file is not a kind this field takes");
	for (size_t i = 0; i < f->naccept; i++) {
		taken |= f->accept[i] == t;
		buf_printf(&b, "%s%s", i ? ", " : "", manifest_file_extension(f->accept[i]));
	}
	if (!taken) {
		char *msg = xasprintf("this field takes: %s", buf_str(&b));
		buf_free(&b);
		return msg;
	}
	buf_free(&b);
	if (!condition_present(name))
		return xstrdup("this file has no name");
	return capped(json_string_value(name), json_string_length(name), FILENAME_MAX_CHARS);
}

static json_t *coerce_file(const struct manifest_field *f, const json_t *v, char **why)
{
	const json_t *name, *id;
	char digest[72];

	if (!file_meta_shape(v)) {
		*why = xstrdup("this has to be an uploaded file");
		return NULL;
	}
	if ((*why = file_problem(f, v)))
		return NULL;
	name = json_object_get(v, "filename");
	if (strpbrk(json_string_value(name), "/\\") ||
	    memchr(json_string_value(name), '\0', json_string_length(name))) {
		*why = xstrdup("this file's name contains a path separator");
		return NULL;
	}
	snprintf(digest, sizeof digest, "%s", json_string_value(json_object_get(v, "sha256")));
	for (char *c = digest; *c; c++)
		*c = (char)tolower((unsigned char)*c);
	id = json_object_get(v, "attachment_id");
	return json_pack("{s:O,s:O,s:s,s:O,s:O*}", "filename", name, "size",
			 json_object_get(v, "size"), "sha256", digest, "content_type",
			 json_object_get(v, "content_type"), "attachment_id",
			 json_is_string(id) ? id : NULL);
}

/* One value checked against its field and returned in its declared type (NEW), or NULL and *why. */
static json_t *coerce(const struct manifest_field *f, const json_t *v, char **why)
{
	*why = NULL;
	if (f->kind <= MANIFEST_SELECT && f->kind != MANIFEST_INTEGER && !json_is_string(v)) {
		*why = xstrdup("this has to be text");
		return NULL;
	}
	switch (f->kind) {
	case MANIFEST_TEXT:
	case MANIFEST_LONG_TEXT:
		return coerce_text(f, v, why);
	case MANIFEST_EMAIL:
	case MANIFEST_URL:
		return coerce_address(f, v, why);
	case MANIFEST_DATE:
		return coerce_date(f, v, why);
	case MANIFEST_INTEGER:
		return coerce_integer(f, v, why);
	case MANIFEST_SELECT:
		return coerce_select(f, v, why);
	case MANIFEST_MULTI_SELECT:
		return coerce_multi(f, v, why);
	case MANIFEST_BOOL:
		return coerce_bool(v, why);
	default:
		return coerce_file(f, v, why);
	}
}

/* ---- the submission --------------------------------------------------------------------- */

static int hidden_by_step(const struct manifest *m, const char *name, const json_t *raw)
{
	for (size_t i = 0; i < m->nsteps; i++) {
		if (!m->steps[i].show_when || condition_holds(m->steps[i].show_when, raw))
			continue;
		for (size_t j = 0; j < m->steps[i].nfields; j++)
			if (strcmp(m->steps[i].fields[j], name) == 0)
				return 1;
	}
	return 0;
}

unsigned char *validate_visible(const struct manifest *m, const json_t *raw)
{
	unsigned char *visible = xcalloc(m->nfields + 1, 1);

	for (size_t i = 0; i < m->nfields; i++)
		visible[i] = !hidden_by_step(m, m->fields[i].name, raw) &&
			     (!m->fields[i].show_when || condition_holds(m->fields[i].show_when, raw));
	return visible;
}

static void problem(json_t *errors, const char *field, const char *message)
{
	json_array_append_new(errors, json_pack("{s:s,s:s}", "field", field, "message", message));
}

static void one_field(const struct manifest_field *f, const json_t *raw, enum validate_phase phase,
		      json_t *values, json_t *errors)
{
	const json_t *v = json_object_get(raw, f->name);
	json_t *out;
	char *why;

	if (phase == VALIDATE_SUBMIT && f->kind == MANIFEST_FILE) {
		/* Not due yet, and not accepted: a value aimed at a file field now is a probe. */
		if (v)
			problem(errors, f->name, "files are uploaded after your email is verified");
		return;
	}
	if (!v || blank(v)) {
		if (f->required)
			problem(errors, f->name, "this is required");
		return; /* a blank optional field is absent, not "" */
	}
	if ((out = coerce(f, v, &why)))
		json_object_set_new(values, f->name, out);
	else
		problem(errors, f->name, why);
	free(why);
}

static void acknowledgments(const struct manifest *m, const json_t *raw, json_t *values,
			    json_t *errors)
{
	for (size_t i = 0; i < m->nacks; i++) {
		const json_t *v = json_object_get(raw, m->acks[i].id);
		if (json_is_true(v) ||
		    (json_is_string(v) && condition_yes(v)))
			json_object_set_new(values, m->acks[i].id, json_true());
		else
			problem(errors, m->acks[i].id, "this has to be acknowledged before submitting");
	}
}

/* {name: index} of the fields, {id: -1} of the acknowledgments: one hash, not a scan a key. */
static json_t *declared(const struct manifest *m)
{
	json_t *names = json_object();

	for (size_t i = 0; i < m->nacks; i++)
		json_object_set_new(names, m->acks[i].id, json_integer(-1));
	for (size_t i = 0; i < m->nfields; i++)
		json_object_set_new(names, m->fields[i].name, json_integer((json_int_t)i));
	return names;
}

/* Every key submitted that the type does not declare, or that was not shown. */
static void strays(const struct manifest *m, const json_t *raw, const unsigned char *visible,
		   json_t *errors)
{
	json_t *names = declared(m), *v, *at;
	const char *key;

	json_object_foreach((json_t *)raw, key, v) {
		const struct manifest_field *f =
			(at = json_object_get(names, key)) && json_integer_value(at) >= 0
				? &m->fields[json_integer_value(at)]
				: NULL;
		if (!at)
			problem(errors, key, "this is not a field of this request type");
		/* A field posted blank with scripts off was shown and left empty, not
		 * forged (docs/protocol/box-pages.md §7): blank counts as absent. */
		else if (f && !visible[f - m->fields] && !blank(v))
			problem(errors, key, "this field was not shown, so it cannot be submitted");
	}
	json_decref(names);
}

static int by_field_then_message(const void *a, const void *b)
{
	const json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
	int c = strcmp(json_string_value(json_object_get(x, "field")),
		       json_string_value(json_object_get(y, "field")));

	return c ? c
		 : strcmp(json_string_value(json_object_get(x, "message")),
			  json_string_value(json_object_get(y, "message")));
}

/* The order two ends reporting the same submission agree on. NEW array; errors is consumed. */
static json_t *sorted_errors(json_t *errors)
{
	size_t n = json_array_size(errors);
	/* NOLINTNEXTLINE(bugprone-sizeof-expression): an array of pointers */
	json_t **v = xcalloc(n + 1, sizeof *v), *out = json_array();

	for (size_t i = 0; i < n; i++)
		v[i] = json_array_get(errors, i);
	/* NOLINTNEXTLINE(bugprone-sizeof-expression): an array of pointers */
	qsort(v, n, sizeof *v, by_field_then_message);
	for (size_t i = 0; i < n; i++)
		json_array_append(out, v[i]);
	free(v);
	json_decref(errors);
	return out;
}

static int by_key(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* values in key order, as a sorted JSON map writes them. NEW; values consumed. */
static json_t *sorted_values(json_t *values)
{
	size_t n = json_object_size(values), i = 0;
	const char **keys = xcalloc(n + 1, sizeof *keys), *key;
	json_t *out = json_object(), *v;

	json_object_foreach(values, key, v)
		keys[i++] = key;
	qsort(keys, n, sizeof *keys, by_key);
	for (i = 0; i < n; i++)
		json_object_set(out, keys[i], json_object_get(values, keys[i]));
	free(keys);
	json_decref(values);
	return out;
}

static int refuse(const struct manifest *m, json_t *errors, json_t **out, struct err *e)
{
	size_t n = json_array_size(errors);

	*out = sorted_errors(errors);
	return err_set(e, ERR_INVALID_SUBMISSION, "%zu problem%s with a `%s` submission", n,
		       n == 1 ? "" : "s", m->id);
}

int validate_submission(const struct manifest *m, const json_t *raw, enum validate_phase phase,
			json_t **record, json_t **errors, struct err *e)
{
	json_t *values = json_object(), *problems = json_array();
	unsigned char *visible;

	*record = *errors = NULL;
	if (!json_is_object(raw)) {
		problem(problems, "_", "a submission is a JSON object of field names and values");
		json_decref(values);
		return refuse(m, problems, errors, e);
	}
	visible = validate_visible(m, raw);
	for (size_t i = 0; i < m->nfields; i++)
		if (visible[i])
			one_field(&m->fields[i], raw, phase, values, problems);
	acknowledgments(m, raw, values, problems);
	strays(m, raw, visible, problems);
	free(visible);
	if (json_array_size(problems) > 0) {
		json_decref(values);
		return refuse(m, problems, errors, e);
	}
	json_decref(problems);
	*record = json_pack("{s:s,s:I,s:o}", "type_id", m->id, "type_version",
			    (json_int_t)m->version, "values", sorted_values(values));
	return 0;
}

json_t *validate_free_text(const struct manifest *m, const json_t *values)
{
	json_t *out = json_array();

	for (size_t i = 0; i < m->nfields; i++)
		if (manifest_is_free_text(m->fields[i].kind) &&
		    json_is_string(json_object_get(values, m->fields[i].name)))
			json_array_append_new(out, json_string(m->fields[i].name));
	return out;
}

const char *validate_reply_to(const struct manifest *m, const json_t *values)
{
	if (!m->verification)
		return NULL;
	return json_string_value(json_object_get(values, m->verification->field));
}
