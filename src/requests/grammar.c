/*
 * grammar — what a record may say to a brief, checked field by field against
 * the home's own manifest; whatever is not named here does not cross.
 */
#include "requests/grammar.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/jsonio.h"
#include "base/rfc3339.h"
#include "requests/record.h"
#include "types/catalog.h"
#include "types/manifest.h"
#include "types/validate.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

int grammar_time_ok(const char *s)
{
	time_t t;

	return s && strlen(s) <= GRAMMAR_TIME_MAX && rfc3339_parse(s, &t) == 0;
}

static int address_char(int c)
{
	return c > 0x20 && c < 0x7f && !strchr("\"'<>()[]\\,;:`", c);
}

int grammar_address_ok(const char *s)
{
	const char *at = s ? strchr(s, '@') : NULL;
	size_t n;

	if (!at || strchr(at + 1, '@'))
		return 0;
	n = strlen(s);
	if (at == s || (size_t)(at - s) > GRAMMAR_LOCAL_MAX || n > GRAMMAR_ADDRESS_MAX ||
	    at[1] == '\0')
		return 0;
	for (const char *c = s; *c; c++)
		if (!address_char((unsigned char)*c))
			return 0;
	return 1;
}

static int id_ok(const char *s, size_t max)
{
	size_t n = s ? strlen(s) : 0;

	return n > 0 && n <= max &&
	       strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-") == n;
}

/* A manage link as the box writes it: a web address on one line of printable ASCII. */
static int link_ok(const char *s)
{
	size_t n;

	if (!s)
		return 0;
	n = strlen(s);
	if (n > GRAMMAR_LINK_MAX || (strncmp(s, "https://", 8) != 0 && strncmp(s, "http://", 7) != 0))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (s[i] <= 0x20 || s[i] >= 0x7f)
			return 0;
	return 1;
}

/* 1 when values has exactly the keys of want (a NULL-ended list). */
static int keys_are(const json_t *values, const char *const *want)
{
	size_t n = 0;

	for (; want[n]; n++)
		if (!json_object_get(values, want[n]))
			return 0;
	return json_object_size(values) == n;
}

/*
 * values of `_` keys alone: a cancellation {_booking_id, _cancelled: true,
 * _slot_start, _slot_end}, or a rescheduling (files.md §2.2) {_booking_id,
 * _rescheduled_from, _slot_start, _slot_end, _duration_minutes, _manage_url}.
 */
static const char *machinery_problem(const json_t *values)
{
	static const char *const cancel[] = { "_booking_id", "_cancelled", "_slot_start",
					      "_slot_end", NULL };
	static const char *const move[] = { "_booking_id", "_rescheduled_from", "_slot_start",
					    "_slot_end", "_duration_minutes", "_manage_url", NULL };
	const json_t *mins = json_object_get(values, "_duration_minutes");
	const char *key;
	json_t *v;

	json_object_foreach((json_t *)values, key, v)
		if (key[0] != '_')
			return NULL; /* not machinery alone: the manifest judges it */
	if (keys_are(values, move)) {
		if (!id_ok(jsonio_str(values, "_booking_id"), GRAMMAR_BOOKING_ID_MAX) ||
		    !id_ok(jsonio_str(values, "_rescheduled_from"), GRAMMAR_BOOKING_ID_MAX) ||
		    !grammar_time_ok(jsonio_str(values, "_slot_start")) ||
		    !grammar_time_ok(jsonio_str(values, "_slot_end")) || !json_is_integer(mins) ||
		    json_integer_value(mins) < 1 || json_integer_value(mins) > 1440 ||
		    !link_ok(jsonio_str(values, "_manage_url")))
			return "its rescheduling is not well formed (two booking ids, two RFC 3339 "
			       "slot times, whole minutes, a manage link)";
		return NULL;
	}
	if (!keys_are(values, cancel))
		return "its values are machinery alone but neither a cancellation (_booking_id, "
		       "_cancelled, _slot_start, _slot_end) nor a rescheduling (_booking_id, "
		       "_rescheduled_from, _slot_start, _slot_end, _duration_minutes, _manage_url)";
	if (!id_ok(jsonio_str(values, "_booking_id"), GRAMMAR_BOOKING_ID_MAX) ||
	    !json_is_true(json_object_get(values, "_cancelled")) ||
	    !grammar_time_ok(jsonio_str(values, "_slot_start")) ||
	    !grammar_time_ok(jsonio_str(values, "_slot_end")))
		return "its cancellation is not well formed (a booking id, _cancelled true, two "
		       "RFC 3339 slot times)";
	return NULL;
}

static int content_type_ok(const char *s)
{
	static const char *const known[] = { "application/pdf", "image/png", "image/jpeg",
					     "application/octet-stream", NULL };

	for (size_t i = 0; s && known[i]; i++)
		if (strcmp(s, known[i]) == 0)
			return 1;
	return 0;
}

/* Why attachment a breaks the rule, or NULL. */
static const char *attachment_problem(const struct manifest *m, const json_t *a)
{
	const struct manifest_field *f = manifest_field(m, jsonio_str_or(a, "field", ""));
	const json_t *size = json_object_get(a, "size");

	if (!f || f->kind != MANIFEST_FILE)
		return "an attachment's field is not a file field of its manifest";
	if (!json_is_integer(size) || json_integer_value(size) < 0)
		return "an attachment has no size";
	if (!validate_digest_ok(jsonio_str_or(a, "sha256", "")))
		return "an attachment's sha256 is not \"sha256:\" and 64 hex digits";
	if (!content_type_ok(jsonio_str(a, "content_type")))
		return "an attachment's content_type is not one the drain records";
	return NULL;
}

static int date_ok(const char *s)
{
	static const char shape[] = "dddd-dd-dd";

	if (!s || strlen(s) != sizeof shape - 1)
		return 0;
	for (size_t i = 0; shape[i]; i++)
		if (shape[i] == 'd' ? !isdigit((unsigned char)s[i]) : s[i] != shape[i])
			return 0;
	return 1;
}

static int option_ok(const struct manifest_field *f, const json_t *v)
{
	for (size_t i = 0; json_is_string(v) && i < f->noptions; i++)
		if (strcmp(json_string_value(v), f->options[i].value) == 0)
			return 1;
	return 0;
}

/* 1 when v is a value of f's kind that may cross as a typed field. */
static int typed_ok(const struct manifest_field *f, const json_t *v)
{
	const json_t *x;
	size_t i;

	switch (f->kind) {
	case MANIFEST_SELECT:
		return option_ok(f, v);
	case MANIFEST_MULTI_SELECT:
		if (!json_is_array(v))
			return 0;
		json_array_foreach(v, i, x)
			if (!option_ok(f, x))
				return 0;
		return 1;
	case MANIFEST_INTEGER:
		return json_is_integer(v);
	case MANIFEST_BOOL:
		return json_is_boolean(v);
	case MANIFEST_DATE:
		return date_ok(json_string_value(v));
	default:
		return 0; /* prose and files never cross as typed fields */
	}
}

/* Undeclared names are prose; declared ones of a typed kind cross when their value passes. */
static void sort_values(struct record *r, const struct manifest *m)
{
	json_t *prose = r->manifest_prose ? r->manifest_prose : json_array(), *v;
	const char *name;

	r->typed = json_object();
	json_object_foreach(record_values(r), name, v) {
		const struct manifest_field *f = manifest_field(m, name);
		if (name[0] == '_')
			continue;
		if (!f) {
			json_array_append_new(prose, json_string(name));
			continue;
		}
		if (!record_lists_prose(r, name) && typed_ok(f, v))
			json_object_set(r->typed, name, v);
	}
	if (!r->manifest_prose)
		record_set_manifest_prose(r, prose);
}

static const char *problem(struct record *r, const struct manifest *m)
{
	const char *reply = record_reply_to(r), *why;
	json_t *a;
	size_t i;

	if (r->seq < 1)
		return "its seq is not a positive integer";
	if (!grammar_time_ok(record_created_at(r)))
		return "its created_at is not an RFC 3339 timestamp";
	if (!grammar_time_ok(jsonio_str(r->doc, "drained_at")))
		return "its drained_at is not an RFC 3339 timestamp";
	if (reply && !grammar_address_ok(reply))
		return "its reply_to is not an address (a local part of at most 64 bytes)";
	if (!m)
		return NULL; /* said by the caller */
	json_array_foreach(record_attachments(r), i, a)
		if ((why = attachment_problem(m, a)))
			return why;
	if (json_object_size(record_values(r)) > 0 && (why = machinery_problem(record_values(r))))
		return why;
	return NULL;
}

void grammar_apply(struct record *r, const struct manifest *m, const char *no_manifest)
{
	const char *why = problem(r, m);

	free(r->refused);
	r->refused = NULL;
	json_decref(r->typed);
	r->typed = NULL;
	r->checked = 1;
	if (why)
		r->refused = xstrdup(why);
	else if (!m)
		r->refused = xasprintf("the home has no manifest of its type: %s",
				       no_manifest ? no_manifest : "none");
	else
		sort_values(r, m);
}

/* grammar_apply with the home's manifest of r's type (types/catalog.h). */
static void grammar_follow(struct record *r)
{
	struct manifest *m = NULL;
	struct err e;

	if (catalog_load(r->type_id, &m, NULL, &e) != 0) {
		grammar_apply(r, NULL, e.code == ERR_NOT_FOUND ? "it is not installed" : e.msg);
		return;
	}
	grammar_apply(r, m, NULL);
	manifest_free(m);
}

/* A refusal written into r's document (a record already invalid keeps its reason). */
static void seal(struct record *r)
{
	if (!r->refused || !record_valid(r))
		return;
	json_object_set_new(r->doc, "valid", json_false());
	json_object_set_new(r->doc, "invalid_reason", json_string(r->refused));
}

void grammar_seal(struct record *r)
{
	grammar_follow(r);
	seal(r);
}

void grammar_seal_by(struct record *r, const struct manifest *m)
{
	grammar_apply(r, m, NULL);
	seal(r);
}

int grammar_checked(const struct record *r)
{
	return r->checked;
}

const char *grammar_refused(const struct record *r)
{
	return r->refused;
}

json_t *grammar_typed(const struct record *r)
{
	return r->refused ? NULL : r->typed;
}

void grammar_received(const struct record *r, char out[32])
{
	time_t t;

	out[0] = '\0';
	if (grammar_time_ok(record_created_at(r)) && rfc3339_parse(record_created_at(r), &t) == 0)
		rfc3339_format(t, out);
}
