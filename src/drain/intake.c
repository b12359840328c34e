/*
 * intake — a queue row read strictly, judged against the owner's manifest,
 * and written out as the record docs/protocol/files.md §2 fixes.
 */
#include "drain/intake.h"

#include "base/buf.h"
#include "base/err.h"
#include "requests/record.h"
#include "types/manifest.h"
#include "types/validate.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define ID_MAX 128 /* an attachment id is a URL segment: the box's are 32 hex */

/* ---- the row ---------------------------------------------------------------------- */

static int of_chars(const char *s, size_t max, const char *extra)
{
	size_t n = strlen(s);

	if (n == 0 || n > max)
		return 0;
	for (const char *c = s; *c; c++)
		if (!isalnum((unsigned char)*c) && !strchr(extra, *c))
			return 0;
	return 1;
}

static const char *str(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

/* NULL when attachment a reads; else what is wrong with it. */
static const char *file_problem(const json_t *a, struct intake_file *f)
{
	const json_t *size = json_object_get(a, "size");

	if (!json_is_object(a))
		return "is not an object";
	f->id = str(a, "id");
	f->field = str(a, "field");
	f->filename = str(a, "filename");
	f->sha256 = str(a, "sha256");
	f->content_type = str(a, "content_type");
	if (!f->id || !of_chars(f->id, ID_MAX, "_-"))
		return "has no id that can be part of a URL";
	if (!f->field || !f->filename || !f->content_type || !f->sha256)
		return "lacks field, filename, sha256 or content_type";
	if (!validate_digest_ok(f->sha256))
		return "has a sha256 that is not \"sha256:\" and 64 hex digits";
	if (!json_is_integer(size) || json_integer_value(size) < 0)
		return "has no size";
	f->size = json_integer_value(size);
	if (f->size > INTAKE_FILE_MAX)
		return "declares more bytes than any file field takes (16 MiB)";
	return NULL;
}

static int row_files(const json_t *row, struct intake_row *out, struct err *e)
{
	const json_t *list = json_object_get(row, "attachments"), *a;
	long long total = 0;
	const char *why;
	size_t i;

	if (!list)
		return 0;
	if (!json_is_array(list))
		return err_set(e, ERR_GATE, "the box's row %lld has attachments that are not a list",
			       out->seq);
	if (json_array_size(list) > INTAKE_FILES_COUNT_MAX)
		return err_set(e, ERR_GATE, "the box's row %lld has %zu attachments (at most %d are "
			       "taken)", out->seq, json_array_size(list), INTAKE_FILES_COUNT_MAX);
	out->files = xcalloc(json_array_size(list) + 1, sizeof *out->files);
	json_array_foreach(list, i, a) {
		if ((why = file_problem(a, &out->files[i])))
			return err_set(e, ERR_GATE, "the box's row %lld: attachment %zu %s", out->seq,
				       i, why);
		out->nfiles++;
		total += out->files[i].size;
	}
	if (total > INTAKE_FILES_MAX)
		return err_set(e, ERR_GATE, "the box's row %lld declares %lld bytes of files, more "
			       "than a request type takes (32 MiB)", out->seq, total);
	return 0;
}

int intake_parse(const json_t *row, struct intake_row *out, struct err *e)
{
	const json_t *seq = json_object_get(row, "seq");

	memset(out, 0, sizeof *out);
	out->seq = -1;
	if (!json_is_integer(seq) || json_integer_value(seq) < 1)
		return err_set(e, ERR_GATE, "the box sent a row without a seq");
	out->seq = json_integer_value(seq);
	out->type = str(row, "type");
	out->created_at = str(row, "created_at");
	out->payload = str(row, "payload");
	if (!out->type || !of_chars(out->type, INTAKE_TYPE_MAX, "_-"))
		return err_set(e, ERR_GATE, "the box's row %lld has a type that cannot be part of a "
			       "file name (1 to 64 of A-Z a-z 0-9 _ -)", out->seq);
	if (!out->created_at || !*out->created_at || !out->payload)
		return err_set(e, ERR_GATE, "the box's row %lld lacks created_at or payload", out->seq);
	if (memchr(out->payload, '\0', json_string_length(json_object_get(row, "payload"))))
		return err_set(e, ERR_GATE, "the box's row %lld has a NUL byte in its payload",
			       out->seq);
	return row_files(row, out, e);
}

void intake_row_free(struct intake_row *r)
{
	free(r->files);
	r->files = NULL;
	r->nfiles = 0;
}

/* ---- the verdict ---------------------------------------------------------------- */

/* The payload as an object (NEW), or NULL when it is not one. */
static json_t *payload_object(const struct intake_row *r)
{
	json_t *o = json_loads(r->payload, JSON_REJECT_DUPLICATES, NULL);

	if (json_is_object(o))
		return o;
	json_decref(o);
	return NULL;
}

int intake_machinery_only(const struct intake_row *r)
{
	json_t *o = payload_object(r), *v;
	const char *key;
	int only = o && json_object_size(o) > 0;

	json_object_foreach(o, key, v)
		only &= key[0] == '_';
	json_decref(o);
	return only;
}

static int by_key(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* v with every object's keys sorted, at any depth, as a BTreeMap writes them. NEW. */
static json_t *sorted(const json_t *v)
{
	json_t *out, *x;
	const char *key, **keys;
	size_t i = 0, n;

	if (json_is_array(v)) {
		out = json_array();
		json_array_foreach(v, i, x)
			json_array_append_new(out, sorted(x));
		return out;
	}
	if (!json_is_object(v))
		return json_incref((json_t *)v);
	n = json_object_size(v);
	keys = xcalloc(n + 1, sizeof *keys);
	json_object_foreach((json_t *)v, key, x)
		keys[i++] = key;
	qsort(keys, n, sizeof *keys, by_key);
	out = json_object();
	for (i = 0; i < n; i++)
		json_object_set_new(out, keys[i], sorted(json_object_get(v, keys[i])));
	free(keys);
	return out;
}

/* The `_` keys moved out of o into a new object. */
static json_t *take_machinery(json_t *o)
{
	json_t *m = json_object(), *v;
	const char *key;
	void *tmp;

	json_object_foreach_safe(o, tmp, key, v)
		if (key[0] == '_') {
			json_object_set(m, key, v);
			json_object_del(o, key);
		}
	return m;
}

/* "2 problems with a `meeting` submission: email: this is required; …". */
static char *problems_text(const char *head, const json_t *errors)
{
	struct buf b = BUF_INIT;
	const json_t *x;
	size_t i;

	buf_adds(&b, head);
	json_array_foreach(errors, i, x)
		buf_printf(&b, "%s%s: %s", i ? "; " : ": ", str(x, "field"), str(x, "message"));
	return buf_steal(&b);
}

/* The attachment with these measurements for field name, or NULL. */
static const struct intake_file *measured(const struct intake_row *r, const char *name,
					  const json_t *value)
{
	const json_t *size = json_object_get(value, "size");
	const char *sha = str(value, "sha256");

	for (size_t i = 0; sha && i < r->nfiles; i++)
		if (strcmp(r->files[i].field, name) == 0 &&
		    r->files[i].size == json_integer_value(size) &&
		    strcasecmp(r->files[i].sha256, sha) == 0)
			return &r->files[i];
	return NULL;
}

/* Filenames out of file values; a file value no attachment backs: its field, else NULL. */
static const char *file_values(const struct manifest *m, const struct intake_row *r,
			       json_t *values)
{
	for (size_t i = 0; i < m->nfields; i++) {
		json_t *v = json_object_get(values, m->fields[i].name);
		if (m->fields[i].kind != MANIFEST_FILE || !json_is_object(v))
			continue;
		json_object_del(v, "filename");
		if (!measured(r, m->fields[i].name, v))
			return m->fields[i].name;
	}
	return NULL;
}

static void invalid(struct intake_verdict *v, json_t *values, char *why)
{
	v->valid = 0;
	v->invalid_reason = why;
	v->values = values ? values : json_object();
	v->free_text = json_array();
	v->reply_to = NULL;
}

/* The validated values of a row: its files checked, the machinery put back. */
static void accept(const struct intake_row *r, const struct manifest *m, const json_t *raw,
		   json_t *values, const json_t *machinery, struct intake_verdict *v)
{
	const char *unbacked = file_values(m, r, values), *reply;

	if (unbacked) {
		invalid(v, sorted(raw), xasprintf("file `%s`: the box sent no attachment with its "
						  "size and digest", unbacked));
		return;
	}
	v->valid = 1;
	v->free_text = validate_free_text(m, values);
	reply = validate_reply_to(m, values);
	v->reply_to = reply ? xstrdup(reply) : NULL;
	json_object_update(values, (json_t *)machinery);
	v->values = sorted(values);
}

static void judge_object(const struct intake_row *r, const struct manifest *m,
			 const char *no_manifest, json_t *raw, struct intake_verdict *v)
{
	json_t *rest = json_deep_copy(raw), *machinery = take_machinery(rest), *record, *errors;
	struct err e;

	if (json_object_size(rest) == 0 && json_object_size(machinery) > 0) {
		v->valid = 1;
		v->values = sorted(machinery);
		v->free_text = json_array();
	} else if (!m) {
		invalid(v, sorted(raw), xstrdup(no_manifest ? no_manifest : "no manifest"));
	} else if (validate_submission(m, rest, VALIDATE_COMPLETE, &record, &errors, &e) != 0) {
		invalid(v, sorted(raw), problems_text(e.msg, errors));
		json_decref(errors);
	} else {
		accept(r, m, raw, json_object_get(record, "values"), machinery, v);
		json_decref(record);
	}
	json_decref(rest);
	json_decref(machinery);
}

void intake_judge(const struct intake_row *r, const struct manifest *m, const char *no_manifest,
		  struct intake_verdict *v)
{
	json_t *raw = payload_object(r);

	memset(v, 0, sizeof *v);
	if (!raw) {
		invalid(v, NULL, xstrdup("the payload is not a JSON object of field names and "
					 "values"));
		return;
	}
	{
		json_t *stamp = json_object_get(raw, "_type_version");
		if (json_is_integer(stamp) && json_integer_value(stamp) > 0)
			v->box_version = json_integer_value(stamp);
		json_object_del(raw, "_type_version");
	}
	judge_object(r, m, no_manifest, raw, v);
	v->type_version = v->box_version ? v->box_version : m ? m->version : 0;
	json_decref(raw);
}

void intake_verdict_free(struct intake_verdict *v)
{
	free(v->invalid_reason);
	free(v->reply_to);
	json_decref(v->values);
	json_decref(v->free_text);
	memset(v, 0, sizeof *v);
}

/* ---- the record ----------------------------------------------------------------------- */

json_t *intake_attachment(const struct intake_file *f, const char *digest_hex,
			  const char *content_type, const char *path)
{
	char sha[80];

	snprintf(sha, sizeof sha, "sha256:%s", digest_hex);
	return json_pack("{s:s,s:s,s:s,s:I,s:s,s:s,s:s}", "id", f->id, "field", f->field,
			 "filename", f->filename, "size", (json_int_t)f->size, "sha256", sha,
			 "content_type", content_type, "path", path);
}

void intake_record_new(const struct intake_row *r, const struct intake_verdict *v,
		       const char *drained_at, json_t *attachments, struct record *out)
{
	struct record_draft d = { r->seq,      r->type,    v->type_version, r->created_at,
				  drained_at,  v->valid,   v->invalid_reason, v->values,
				  v->free_text, v->reply_to, attachments };

	record_new(&d, out);
	json_decref(attachments);
}

json_t *intake_record(const struct intake_row *r, const struct intake_verdict *v,
		      const char *drained_at, json_t *attachments)
{
	struct record rec;

	intake_record_new(r, v, drained_at, attachments, &rec);
	return rec.doc; /* the record's one reference, handed on */
}

const char *intake_sniff(const void *bytes, size_t len, const char **content_type)
{
	static const unsigned char png[] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
	static const unsigned char jpg[] = { 0xff, 0xd8, 0xff };

	if (len >= 5 && memcmp(bytes, "%PDF-", 5) == 0) {
		*content_type = "application/pdf";
		return "pdf";
	}
	if (len >= sizeof png && memcmp(bytes, png, sizeof png) == 0) {
		*content_type = "image/png";
		return "png";
	}
	if (len >= sizeof jpg && memcmp(bytes, jpg, sizeof jpg) == 0) {
		*content_type = "image/jpeg";
		return "jpg";
	}
	*content_type = "application/octet-stream";
	return "bin";
}

static int field_name_ok(const char *s)
{
	char *why = manifest_id_problem(s, "field");

	free(why);
	return why == NULL;
}

static int used(char **stems, size_t n, const char *s)
{
	for (size_t j = 0; j < n; j++)
		if (strcmp(stems[j], s) == 0)
			return 1;
	return 0;
}

char **intake_file_stems(const struct intake_row *r)
{
	char **stems = xcalloc(r->nfiles + 1, sizeof *stems);

	for (size_t i = 0; i < r->nfiles; i++) {
		char *s = field_name_ok(r->files[i].field) ? xstrdup(r->files[i].field) : NULL;

		if (!s || used(stems, i, s)) {
			free(s);
			s = xasprintf("%zu", i);
		}
		for (size_t k = 1; used(stems, i, s); k++) {
			free(s);
			s = xasprintf("%zu-%zu", i, k);
		}
		stems[i] = s;
	}
	return stems;
}

void intake_file_stems_free(char **stems, size_t n)
{
	for (size_t i = 0; stems && i < n; i++)
		free(stems[i]);
	free(stems);
}
