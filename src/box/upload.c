/*
 * upload — the upload page, and the POST that brings the files and queues the row.
 */
#include "box/upload.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/jsonio.h"
#include "box/boxconf.h"
#include "box/multipart.h"
#include "box/route.h"
#include "box/visit.h"
#include "types/manifest.h"
#include "types/validate.h"

#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>

int upload_has_files(const struct manifest *m)
{
	for (size_t i = 0; i < m->nfields; i++)
		if (m->fields[i].kind == MANIFEST_FILE)
			return 1;
	return 0;
}

int upload_due(const char *payload, void *arg)
{
	const struct manifest *m = arg;
	json_t *values = json_loads(payload ? payload : "", 0, NULL);
	unsigned char *visible = validate_visible(m, json_is_object(values) ? values : NULL);
	int due = 0;

	for (size_t i = 0; i < m->nfields && !due; i++)
		due = visible[i] && m->fields[i].kind == MANIFEST_FILE;
	free(visible);
	json_decref(values);
	return due;
}

/* ---- the page ---------------------------------------------------------------------------- */

/* The row the link names, with its stored values in *values: 1, or 0 with the answer written. */
static int pending(struct visit *v, char hash[HASH_SHA256_HEX_LEN + 1], json_t **values,
		   struct api_reply *out)
{
	json_t *row = NULL;
	struct err e;
	int found;

	visit_hash(v->call->route->arg, hash);
	found = v->ctx->ledger->ops->upload_pending(v->ctx->ledger, v->user.id, v->m->id, hash,
						    v->now_s, &row, &e);
	if (found < 0)
		visit_unavailable(out, v, 500);
	else if (found == 0) /* used already, or expired: say which */
		visit_form_link_gone(v, LEDGER_LINK_UPLOAD, out);
	if (found == 1) {
		*values = json_loads(json_string_value(json_object_get(row, "payload")), 0, NULL);
		if (!json_is_object(*values)) {
			json_decref(*values);
			*values = json_object();
		}
	}
	json_decref(row);
	return found == 1;
}

/* ---- the POST ----------------------------------------------------------------------------- */

/* What the bytes are, from their first bytes alone. */
static const char *sniff(const char *d, size_t n)
{
	if (n >= 5 && memcmp(d, "%PDF-", 5) == 0)
		return "application/pdf";
	if (n >= 8 && memcmp(d, "\x89PNG\r\n\x1a\n", 8) == 0)
		return "image/png";
	if (n >= 3 && memcmp(d, "\xff\xd8\xff", 3) == 0)
		return "image/jpeg";
	return "application/octet-stream"; /* a kind no field accepts: the validator says so */
}

/* An untouched file input: the browser sends an empty part with an empty filename. */
static int untouched(const struct multipart_part *p)
{
	return p->len == 0 && (!p->filename || !*p->filename);
}

/* 1 when every part names a file field of m, each once. */
static int fields_ok(const struct manifest *m, const struct multipart *mp)
{
	for (size_t i = 0; i < mp->n; i++) {
		const struct manifest_field *f = manifest_field(m, mp->v[i].name);
		if (!f || f->kind != MANIFEST_FILE)
			return 0;
		for (size_t j = 0; j < i; j++)
			if (strcmp(mp->v[i].name, mp->v[j].name) == 0)
				return 0;
	}
	return 1;
}

static long long received_bytes(const struct multipart *mp)
{
	long long n = 0;

	for (size_t i = 0; i < mp->n; i++)
		n += (long long)mp->v[i].len;
	return n;
}

/* What the type's file fields may hold together. */
static long long file_budget(const struct manifest *m)
{
	long long n = 0;

	for (size_t i = 0; i < m->nfields; i++)
		if (m->fields[i].kind == MANIFEST_FILE)
			n += m->fields[i].max_bytes;
	return n;
}

/* 1 when the ledger's disk has room to spare, 0 when not, -1 when it cannot be told: the
 * data directory's, where a SQLite ledger is (a PostgreSQL server watches its own). */
static int disk_ok(const struct visit *v)
{
	struct statvfs st;

	if (strcmp(v->ctx->ledger->ops->name, "sqlite") != 0)
		return 1;
	if (statvfs(v->ctx->conf->data, &st) != 0)
		return -1;
	return (long long)st.f_bavail * (long long)st.f_frsize >= v->ctx->conf->limits.min_free_bytes;
}

/* The files measured: one attachment per part that carries something, ids minted. */
struct files {
	struct ledger_attachment *v;
	char (*id)[VISIT_TOKEN_LEN + 1];
	char (*sha)[HASH_SHA256_HEX_LEN + 8];
	size_t n;
};

static void files_free(struct files *f)
{
	free(f->v);
	free(f->id);
	free(f->sha);
}

static int measure(const struct multipart *mp, struct files *f)
{
	char hex[HASH_SHA256_HEX_LEN + 1], spare[HASH_SHA256_HEX_LEN + 1];

	memset(f, 0, sizeof *f);
	f->v = xcalloc(mp->n + 1, sizeof *f->v);
	f->id = xcalloc(mp->n + 1, sizeof *f->id);
	f->sha = xcalloc(mp->n + 1, sizeof *f->sha);
	for (size_t i = 0; i < mp->n; i++) {
		const struct multipart_part *p = &mp->v[i];
		if (untouched(p))
			continue;
		if (visit_token(f->id[f->n], spare) != 0)
			return -1;
		hash_sha256_hex(p->data, p->len, hex);
		snprintf(f->sha[f->n], sizeof f->sha[f->n], "sha256:%s", hex);
		f->v[f->n] = (struct ledger_attachment){ f->id[f->n], p->name,
							 p->filename ? p->filename : "",
							 sniff(p->data, p->len), f->sha[f->n],
							 (long long)p->len, p->data };
		f->n++;
	}
	return 0;
}

/* The stored values with each file's FileMeta under its field. NEW reference. */
static json_t *merged(const json_t *stored, const struct files *f)
{
	json_t *all = json_deep_copy(stored);

	for (size_t i = 0; i < f->n; i++)
		json_object_set_new(all, f->v[i].field,
				    json_pack("{s:s,s:I,s:s,s:s,s:s}", "filename", f->v[i].filename,
					      "size", (json_int_t)f->v[i].size, "sha256",
					      f->v[i].sha256, "content_type", f->v[i].content_type,
					      "attachment_id", f->v[i].id));
	return all;
}

/* The one transaction: the row queued, its attachment rows and their bytes, or nothing. */
static void store(struct visit *v, const char *hash, const struct files *f, const json_t *values,
		  struct api_reply *out)
{
	char *payload = jsonio_compact(values);
	struct ledger_upload u = { v->user.id, v->m->id, hash, payload, f->v, f->n };
	long long seq;
	struct err e;
	int rc = v->ctx->ledger->ops->upload_complete(v->ctx->ledger, &u, v->now_s, &seq, &e);

	if (rc == 1) {
		visit_queued(v);
		visit_html(out, 200, page_confirmed(&v->page, v->m, values));
	} else if (rc == 0) { /* another box took these files first, or the link lapsed */
		visit_form_link_gone(v, LEDGER_LINK_UPLOAD, out);
	} else {
		visit_html(out, 500, page_unavailable(&v->page));
	}
	free(payload);
}

/* The files judged with the stored values (Complete): stored, or the page back with errors. */
static void judge(struct visit *v, const char *hash, const json_t *stored,
		  const struct multipart *mp, struct api_reply *out)
{
	json_t *all, *record = NULL, *errors = NULL;
	struct files f;
	struct err e;

	if (measure(mp, &f) != 0) {
		files_free(&f);
		return visit_unavailable(out, v, 500);
	}
	all = merged(stored, &f);
	/* `_type_version` (the form's stamp) is the box's own, not a field: kept, not judged */
	json_t *version = json_incref(json_object_get(all, "_type_version"));
	json_object_del(all, "_type_version");
	if (validate_submission(v->m, all, VALIDATE_COMPLETE, &record, &errors, &e) != 0) {
		visit_html(out, 400, page_upload(&v->page, v->m, stored, errors));
	} else {
		if (version)
			json_object_set(json_object_get(record, "values"), "_type_version", version);
		store(v, hash, &f, json_object_get(record, "values"), out);
	}
	json_decref(version);
	json_decref(all);
	json_decref(record);
	json_decref(errors);
	files_free(&f);
}

/* The budgets on what arrived, before anything lands on disk. 1 when within them. */
static int within(struct visit *v, const struct multipart *mp, struct api_reply *out)
{
	char ip[HASH_SHA256_HEX_LEN + 1], day[16];
	long long n = received_bytes(mp);
	struct err e;
	int fits = 1;

	if (n > file_budget(v->m)) {
		api_text(out, 413, "too large");
		return 0;
	}
	visit_ip_hash(v, ip);
	visit_day(v, day);
	if (n > 0)
		fits = v->ctx->ledger->ops->upload_budget(v->ctx->ledger, ip, day, n,
							  v->ctx->conf->limits.upload_bytes_per_ip_day,
							  &e);
	if (fits < 0)
		visit_unavailable(out, v, 500);
	else if (fits == 0)
		visit_html(out, 429, page_too_many(&v->page, PAGE_LIMIT_UPLOAD));
	return fits == 1;
}

/* A body multipart.c refused: more parts than any upload page takes is 413, the rest 400. */
static void unreadable(struct visit *v, const json_t *stored, const char *why,
		       struct api_reply *out)
{
	json_t *errors;

	if (why != multipart_too_many)
		return api_text(out, 400, "unreadable upload");
	errors = page_too_much_errors(MULTIPART_PARTS_MAX);
	visit_html(out, 413, page_upload(&v->page, v->m, stored, errors));
	json_decref(errors);
}

static void receive(struct visit *v, const char *hash, const json_t *stored,
		    struct api_reply *out)
{
	struct multipart mp;
	const char *why;
	int disk = disk_ok(v);

	if (disk <= 0) /* a box that cannot afford the bytes says so now, and for now */
		return visit_unavailable(out, v, disk < 0 ? 500 : 503);
	if (multipart_parse(v->call->content_type, v->call->body, v->call->len, &mp, &why) != 0)
		return unreadable(v, stored, why, out);
	if (!fields_ok(v->m, &mp))
		api_text(out, 400, "not a field of this page"); /* a probe, not a mistake */
	else if (within(v, &mp, out))
		judge(v, hash, stored, &mp, out);
	multipart_free(&mp);
}

void upload_handle(struct api_ctx *ctx, const struct api_call *call, struct api_reply *out)
{
	char hash[HASH_SHA256_HEX_LEN + 1];
	json_t *stored = NULL;
	struct visit v;

	if (visit_open(&v, ctx, call, VISIT_FORM, out) != 0)
		return;
	if (pending(&v, hash, &stored, out)) {
		if (strcmp(call->method, "POST") == 0)
			receive(&v, hash, stored, out);
		else
			visit_html(out, 200, page_upload(&v.page, v.m, stored, NULL));
	}
	json_decref(stored);
	visit_close(&v);
}
