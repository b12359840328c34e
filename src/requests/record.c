/*
 * record — strict reading of the keys we know, lossless keeping of the rest.
 */
#include "requests/record.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/jsonio.h"
#include "requests/state.h"
#include "types/typecache.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The known keys, in the order a record is written. */
static const char *const known_keys[] = {
	"seq",        "type_id",  "type_version", "state", "created_at",  "drained_at",
	"valid",      "invalid_reason", "values", "free_text",      "reply_to",
	"extraction", "extraction_error", "triage_session", "outbox", "note",
	"attachments", NULL,
};

static const char *const extraction_keys[] = {
	"reading", "topic", "urgency_claimed", "dates_mentioned", "institution",
	"reads_like_instructions", NULL,
};

_Static_assert(RECORD_TYPE_ID_MAX == TYPECACHE_ID_MAX, "a type id is one shape everywhere");

/* The shape the type cache holds its lines to, as the file names carry it. */
static int record_type_id_ok(const char *s)
{
	return typecache_id_ok(s);
}

static int bad(struct err *e, const char *key, const char *want)
{
	return err_set(e, ERR_UNREADABLE, "'%s' is not %s", key, want);
}

static int check_string_array(const json_t *a, const char *key, struct err *e)
{
	size_t i;
	json_t *v;

	if (!json_is_array(a))
		return bad(e, key, "an array of strings");
	json_array_foreach(a, i, v)
		if (!json_is_string(v))
			return bad(e, key, "an array of strings");
	return 0;
}

/* An optional string: absent or null means "none". */
static int check_opt_string(const json_t *doc, const char *key, struct err *e)
{
	json_t *v = json_object_get(doc, key);

	if (v && !json_is_null(v) && !json_is_string(v))
		return bad(e, key, "a string");
	return 0;
}

static int check_extraction(const json_t *x, struct err *e)
{
	json_t *v;

	if (!json_is_object(x))
		return bad(e, "extraction", "an object");
	for (size_t i = 0; extraction_keys[i]; i++) {
		const char *k = extraction_keys[i];
		v = json_object_get(x, k);
		if (!v)
			continue;
		if (strcmp(k, "dates_mentioned") == 0) {
			if (check_string_array(v, "extraction.dates_mentioned", e))
				return -1;
		} else if (strcmp(k, "reads_like_instructions") == 0) {
			if (!json_is_boolean(v))
				return bad(e, "extraction.reads_like_instructions", "true or false");
		} else if (!json_is_string(v)) {
			return err_set(e, ERR_UNREADABLE, "'extraction.%s' is not a string", k);
		}
	}
	return 0;
}

static int check_attachment(const json_t *a, size_t i, struct err *e)
{
	static const char *const strings[] = { "field", "filename", "sha256", "content_type", "path",
					       NULL };
	json_t *v;

	if (!json_is_object(a))
		return err_set(e, ERR_UNREADABLE, "attachment %zu is not an object", i);
	for (size_t k = 0; strings[k]; k++)
		if (!json_is_string(json_object_get(a, strings[k])))
			return err_set(e, ERR_UNREADABLE, "attachment %zu has no string '%s'", i,
					strings[k]);
	v = json_object_get(a, "size");
	if (!json_is_integer(v) || json_integer_value(v) < 0)
		return err_set(e, ERR_UNREADABLE, "attachment %zu has no size", i);
	v = json_object_get(a, "id");
	if (v && !json_is_string(v))
		return err_set(e, ERR_UNREADABLE, "attachment %zu has an id that is not a string", i);
	return 0;
}

static int check_required(const json_t *doc, struct err *e)
{
	static const char *const strings[] = { "type_id", "state", "created_at", "drained_at", NULL };

	if (!json_is_integer(json_object_get(doc, "seq")))
		return err_set(e, ERR_UNREADABLE, "no integer 'seq'");
	for (size_t i = 0; strings[i]; i++)
		if (!json_is_string(json_object_get(doc, strings[i])))
			return err_set(e, ERR_UNREADABLE, "no string '%s'", strings[i]);
	if (!record_type_id_ok(jsonio_str(doc, "type_id")))
		return err_set(e, ERR_UNREADABLE,
				"type_id is not 1 to 64 of A-Z a-z 0-9 _ - (it would be part of a file name)");
	if (!json_is_object(json_object_get(doc, "values")))
		return err_set(e, ERR_UNREADABLE, "no object 'values'");
	return 0;
}

int record_check(const json_t *doc, struct err *e)
{
	static const char *const opt_strings[] = { "invalid_reason", "reply_to", "extraction_error",
						   "triage_session", "note", NULL };
	json_t *v;
	size_t i;

	if (!json_is_object(doc))
		return err_set(e, ERR_UNREADABLE, "not a JSON object");
	if (check_required(doc, e))
		return -1;
	for (i = 0; opt_strings[i]; i++)
		if (check_opt_string(doc, opt_strings[i], e))
			return -1;
	v = json_object_get(doc, "valid");
	if (v && !json_is_boolean(v))
		return bad(e, "valid", "true or false");
	v = json_object_get(doc, "type_version"); /* the version it was submitted under */
	if (v && (!json_is_integer(v) || json_integer_value(v) < 1))
		return bad(e, "type_version", "a whole number from 1");
	if ((v = json_object_get(doc, "free_text")) && check_string_array(v, "free_text", e))
		return -1;
	if ((v = json_object_get(doc, "outbox")) && check_string_array(v, "outbox", e))
		return -1;
	v = json_object_get(doc, "extraction");
	if (v && !json_is_null(v) && check_extraction(v, e))
		return -1;
	if ((v = json_object_get(doc, "attachments"))) {
		json_t *a;
		if (!json_is_array(v))
			return bad(e, "attachments", "an array");
		json_array_foreach(v, i, a)
			if (check_attachment(a, i, e))
				return -1;
	}
	return 0;
}

int record_parse(const char *data, size_t len, const char *what, struct record *out,
		 struct err *e)
{
	json_t *doc = jsonio_parse(data, len, what, e);

	if (!doc) {
		e->code = ERR_UNREADABLE;
		return -1;
	}
	if (record_check(doc, e) != 0) {
		err_prefix(e, "%s", what);
		json_decref(doc);
		return -1;
	}
	memset(out, 0, sizeof *out);
	out->doc = doc;
	out->seq = json_integer_value(json_object_get(doc, "seq"));
	snprintf(out->type_id, sizeof out->type_id, "%s", jsonio_str(doc, "type_id"));
	return 0;
}

void record_new(const struct record_draft *d, struct record *out)
{
	json_t *o = json_pack("{s:I,s:s}", "seq", (json_int_t)d->seq, "type_id", d->type_id);
	json_t *rest = json_pack("{s:s,s:s,s:s,s:b}", "state", STATE_DRAINED, "created_at",
				 d->created_at, "drained_at", d->drained_at, "valid", d->valid);

	if (d->type_version > 0) /* beside the type it is the version of */
		json_object_set_new(o, "type_version", json_integer(d->type_version));
	json_object_update(o, rest);
	json_decref(rest);

	if (d->invalid_reason)
		json_object_set_new(o, "invalid_reason", json_string(d->invalid_reason));
	json_object_set(o, "values", d->values);
	json_object_set(o, "free_text", d->free_text);
	if (d->reply_to)
		json_object_set_new(o, "reply_to", json_string(d->reply_to));
	if (json_array_size(d->attachments) > 0)
		json_object_set(o, "attachments", d->attachments);
	memset(out, 0, sizeof *out);
	out->doc = o;
	out->seq = d->seq;
	snprintf(out->type_id, sizeof out->type_id, "%s", d->type_id);
}

void record_free(struct record *r)
{
	if (!r)
		return;
	json_decref(r->doc);
	r->doc = NULL;
	json_decref(r->manifest_prose);
	r->manifest_prose = NULL;
	free(r->refused);
	r->refused = NULL;
	json_decref(r->typed);
	r->typed = NULL;
	r->checked = 0;
}

void record_file_name(long long seq, const char *type_id, char out[RECORD_FILE_NAME_MAX])
{
	snprintf(out, RECORD_FILE_NAME_MAX, "%010lld-%s.json", seq, type_id);
}

static int is_known(const char *key)
{
	for (size_t i = 0; known_keys[i]; i++)
		if (strcmp(key, known_keys[i]) == 0)
			return 1;
	return 0;
}

/* Whether a known key is written: optional ones only when set, lists only when non-empty. */
static int written(const char *key, const json_t *v)
{
	if (!v || json_is_null(v))
		return 0;
	if (strcmp(key, "outbox") == 0 || strcmp(key, "attachments") == 0)
		return json_array_size(v) > 0;
	return 1;
}

char *record_serialize(const struct record *r)
{
	json_t *out = json_object();
	const char *key;
	json_t *v;
	char *s;

	for (size_t i = 0; known_keys[i]; i++) {
		v = json_object_get(r->doc, known_keys[i]);
		/* valid and free_text have defaults, and the Rust writer always writes them. */
		if (!v && strcmp(known_keys[i], "valid") == 0)
			json_object_set_new(out, "valid", json_false());
		else if (!v && strcmp(known_keys[i], "free_text") == 0)
			json_object_set_new(out, "free_text", json_array());
		else if (written(known_keys[i], v))
			json_object_set(out, known_keys[i], v);
	}
	json_object_foreach(r->doc, key, v)
		if (!is_known(key))
			json_object_set(out, key, v);
	s = jsonio_pretty(out);
	json_decref(out);
	return s;
}

static const char *opt_str(const struct record *r, const char *key)
{
	return jsonio_str(r->doc, key);
}

const char *record_state(const struct record *r)
{
	return opt_str(r, "state");
}

int record_valid(const struct record *r)
{
	return json_is_true(json_object_get(r->doc, "valid"));
}

const char *record_reply_to(const struct record *r)
{
	return opt_str(r, "reply_to");
}

const char *record_note(const struct record *r)
{
	return opt_str(r, "note");
}

const char *record_created_at(const struct record *r)
{
	return opt_str(r, "created_at");
}

json_t *record_values(const struct record *r)
{
	return json_object_get(r->doc, "values");
}

json_t *record_extraction(const struct record *r)
{
	json_t *x = json_object_get(r->doc, "extraction");

	return json_is_object(x) ? x : NULL;
}

json_t *record_attachments(const struct record *r)
{
	return json_object_get(r->doc, "attachments");
}

json_t *record_outbox(const struct record *r)
{
	return json_object_get(r->doc, "outbox");
}

static int named_in(const json_t *names, const char *name)
{
	json_t *v;
	size_t i;

	json_array_foreach(names, i, v)
		if (strcmp(json_string_value(v), name) == 0)
			return 1;
	return 0;
}

int record_lists_prose(const struct record *r, const char *name)
{
	return named_in(json_object_get(r->doc, "free_text"), name);
}

int record_is_prose(const struct record *r, const char *name)
{
	return record_lists_prose(r, name) || named_in(r->manifest_prose, name);
}

int record_is_attachment_field(const struct record *r, const char *name)
{
	json_t *a;
	size_t i;

	json_array_foreach(record_attachments(r), i, a)
		if (strcmp(jsonio_str_or(a, "field", ""), name) == 0)
			return 1;
	return 0;
}

/* Appends names' string values to out[*n…], skipping names free_text already gave (when skip). */
static void add_prose(const struct record *r, const json_t *names, int skip,
		      struct prose_field *out, size_t *n)
{
	json_t *name;
	size_t i;

	json_array_foreach(names, i, name) {
		json_t *v = json_object_get(record_values(r), json_string_value(name));
		if (!json_is_string(v) || (skip && record_lists_prose(r, json_string_value(name))))
			continue;
		out[*n].name = json_string_value(name);
		out[*n].text = json_string_value(v);
		out[*n].len = json_string_length(v);
		(*n)++;
	}
}

size_t record_prose(const struct record *r, struct prose_field **out)
{
	json_t *names = json_object_get(r->doc, "free_text");
	size_t n = 0;

	*out = xcalloc(json_array_size(names) + json_array_size(r->manifest_prose) + 1, sizeof **out);
	add_prose(r, names, 0, *out, &n);
	add_prose(r, r->manifest_prose, 1, *out, &n);
	return n;
}

void record_set_manifest_prose(struct record *r, json_t *names)
{
	json_decref(r->manifest_prose);
	r->manifest_prose = names;
}

void record_set_string(struct record *r, const char *key, const char *value)
{
	assert(strcmp(key, "state") != 0); /* state_move is the one door */
	if (value)
		json_object_set_new(r->doc, key, json_string(value));
	else
		json_object_del(r->doc, key);
}

void record_set_note(struct record *r, const char *note)
{
	record_set_string(r, "note", note);
}

void record_set_extraction(struct record *r, json_t *extraction)
{
	if (extraction)
		json_object_set_new(r->doc, "extraction", extraction);
	else
		json_object_del(r->doc, "extraction");
}

void record_add_outbox(struct record *r, const char *id)
{
	json_t *list = json_object_get(r->doc, "outbox"), *v;
	size_t i;

	if (!json_is_array(list)) {
		list = json_array();
		json_object_set_new(r->doc, "outbox", list);
	}
	json_array_foreach(list, i, v)
		if (strcmp(json_string_value(v), id) == 0)
			return;
	json_array_append_new(list, json_string(id));
}

int record_has_draft(const struct record *r, const char *id)
{
	json_t *v;
	size_t i;

	json_array_foreach(record_outbox(r), i, v)
		if (json_is_string(v) && strcmp(json_string_value(v), id) == 0)
			return 1;
	return 0;
}
