/*
 * upload — the upload page, and the POST that brings the files and queues the row.
 */
#include "box/upload.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/hash.h"
#include "base/jsonio.h"
#include "box/boxconf.h"
#include "box/ledger.h"
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

/* One part that carries something, as it arrives: its bytes go to the ledger's spool a
 * LEDGER_PART at a time, its digest and first bytes are kept. */
struct file {
	char id[VISIT_TOKEN_LEN + 1]; /* "" until its first byte (or its end) */
	char *field, *filename;       /* filename NULL when the part has none */
	char sha[HASH_SHA256_HEX_LEN + 8];
	char head[8]; /* what sniff looks at */
	size_t nhead;
	long long size, parts; /* parts: how many are in the spool */
};

struct upload_in {
	struct visit v;
	int opened;
	char hash[HASH_SHA256_HEX_LEN + 1];
	json_t *stored;
	struct api_reply early; /* answered before the body (answered = 1): sent at its end */
	int answered;
	struct multipart_in *mp;
	const char *why; /* the reader's refusal, or NULL */
	char *names[MULTIPART_PARTS_MAX];
	size_t nnames;
	int not_field, failed, committed;
	long long total, budget;
	struct file *files;
	size_t nfiles;
	struct file *cur; /* the part being read, when it is kept */
	struct hash_sha256 *sha;
	char *part; /* LEDGER_PART bytes: the one buffer an upload has */
	size_t npart;
};

/* Nothing more is kept, and what the spool holds goes: the upload is refused already. */
static void drop(struct upload_in *u)
{
	struct err e;

	for (size_t i = 0; i < u->nfiles; i++)
		if (u->files[i].parts && u->v.ctx->ledger->ops->spool_drop(u->v.ctx->ledger,
									 u->files[i].id, &e) == 0)
			u->files[i].parts = 0;
	hash_sha256_free(u->sha);
	u->sha = NULL;
	u->cur = NULL;
}

static int keeping(const struct upload_in *u)
{
	return !u->not_field && !u->failed && u->total <= u->budget;
}

static void mint(struct upload_in *u)
{
	char spare[HASH_SHA256_HEX_LEN + 1];

	if (!u->cur->id[0] && visit_token(u->cur->id, spare) != 0) {
		u->failed = 1;
		drop(u);
	}
}

static void flush(struct upload_in *u)
{
	struct ledger *l = u->v.ctx->ledger;
	struct err e;

	if (l->ops->spool_put(l, u->cur->id, u->cur->parts, u->part, u->npart, u->v.now_s, &e) != 0) {
		u->failed = 1;
		return drop(u);
	}
	u->cur->parts++;
	u->npart = 0;
}

/* A part's headers are read: a file field of the type, each once, or the upload is a probe. */
static void on_part(void *arg, const char *name, const char *filename)
{
	struct upload_in *u = arg;
	const struct manifest_field *f = manifest_field(u->v.m, name);

	if (!f || f->kind != MANIFEST_FILE)
		u->not_field = 1;
	for (size_t i = 0; i < u->nnames; i++)
		if (strcmp(u->names[i], name) == 0)
			u->not_field = 1;
	u->names[u->nnames++] = xstrdup(name); /* the reader takes no more than fit */
	if (u->not_field)
		drop(u);
	if (!keeping(u))
		return;
	u->files = xrealloc(u->files, (u->nfiles + 1) * sizeof *u->files);
	u->cur = memset(&u->files[u->nfiles++], 0, sizeof *u->files);
	u->cur->field = xstrdup(name);
	u->cur->filename = filename ? xstrdup(filename) : NULL;
	u->sha = hash_sha256_new();
	u->npart = 0;
}

static void on_data(void *arg, const char *p, size_t n)
{
	struct upload_in *u = arg;

	u->total += (long long)n;
	if (u->cur && !keeping(u))
		drop(u); /* more than the type's file fields hold together: 413 at the end */
	if (!u->cur)
		return;
	mint(u);
	if (!u->cur)
		return;
	hash_sha256_add(u->sha, p, n);
	for (size_t i = 0; i < n && u->cur->nhead < sizeof u->cur->head; i++)
		u->cur->head[u->cur->nhead++] = p[i];
	u->cur->size += (long long)n;
	while (n && u->cur) {
		size_t take = n < LEDGER_PART - u->npart ? n : LEDGER_PART - u->npart;
		memcpy(u->part + u->npart, p, take);
		u->npart += take;
		p += take;
		n -= take;
		if (u->npart == LEDGER_PART)
			flush(u);
	}
}

/* An untouched file input: the browser sends an empty part with an empty filename. */
static void on_end(void *arg)
{
	struct upload_in *u = arg;
	struct file *f = u->cur;

	if (!f)
		return;
	if (f->size == 0 && (!f->filename || !*f->filename)) {
		free(f->field);
		free(f->filename);
		u->nfiles--;
		hash_sha256_free(u->sha);
		u->sha = NULL;
		u->cur = NULL;
		return;
	}
	mint(u);
	if (u->cur && u->npart)
		flush(u);
	if (!u->cur)
		return;
	memcpy(f->sha, "sha256:", 7);
	hash_sha256_end(u->sha, f->sha + 7);
	u->sha = NULL;
	u->cur = NULL;
}

struct upload_in *upload_begin(struct api_ctx *ctx, const struct api_call *call)
{
	struct upload_in *u = xcalloc(1, sizeof *u);
	struct multipart_sink sink = { on_part, on_data, on_end, u };
	int disk;

	u->early.fd = -1;
	u->answered = 1;
	if (visit_open(&u->v, ctx, call, VISIT_FORM, &u->early) != 0)
		return u;
	u->opened = 1;
	if (!pending(&u->v, u->hash, &u->stored, &u->early))
		return u;
	if ((disk = disk_ok(&u->v)) <= 0) { /* a box that cannot afford the bytes says so now */
		visit_unavailable(&u->early, &u->v, disk < 0 ? 500 : 503);
		return u;
	}
	u->answered = 0;
	u->budget = file_budget(u->v.m);
	u->part = xmalloc(LEDGER_PART);
	u->mp = multipart_in_new(call->content_type, &sink, &u->why);
	return u;
}

void upload_feed(struct upload_in *u, const char *p, size_t n)
{
	if (u->mp && !u->why)
		multipart_in_feed(u->mp, p, n, &u->why);
}

static void upload_free(struct upload_in *u)
{
	if (!u->committed)
		drop(u);
	for (size_t i = 0; i < u->nfiles; i++) {
		free(u->files[i].field);
		free(u->files[i].filename);
	}
	for (size_t i = 0; i < u->nnames; i++)
		free(u->names[i]);
	free(u->files);
	free(u->part);
	multipart_in_free(u->mp);
	json_decref(u->stored);
	if (u->opened)
		visit_close(&u->v);
	free(u);
}

void upload_abandon(struct upload_in *u)
{
	if (u->answered) {
		free(u->early.body);
		free(u->early.location);
	}
	upload_free(u);
}

/* The files as attachments of the row: each one's bytes in the spool, under its id. */
static struct ledger_attachment *attachments(const struct upload_in *u)
{
	struct ledger_attachment *a = xcalloc(u->nfiles + 1, sizeof *a);

	for (size_t i = 0; i < u->nfiles; i++) {
		const struct file *f = &u->files[i];
		a[i] = (struct ledger_attachment){ f->id, f->field, f->filename ? f->filename : "",
						   sniff(f->head, f->nhead), f->sha, f->size, NULL,
						   1 };
	}
	return a;
}

/* The stored values with each file's FileMeta under its field. NEW reference. */
static json_t *merged(const json_t *stored, const struct ledger_attachment *a, size_t n)
{
	json_t *all = json_deep_copy(stored);

	for (size_t i = 0; i < n; i++)
		json_object_set_new(all, a[i].field,
				    json_pack("{s:s,s:I,s:s,s:s,s:s}", "filename", a[i].filename,
					      "size", (json_int_t)a[i].size, "sha256", a[i].sha256,
					      "content_type", a[i].content_type, "attachment_id",
					      a[i].id));
	return all;
}

/* The one transaction: the row queued, its attachment rows and their bytes, or nothing. */
static void store(struct upload_in *u, const struct ledger_attachment *a, const json_t *values,
		  struct api_reply *out)
{
	struct visit *v = &u->v;
	char *payload = jsonio_compact(values);
	struct ledger_upload up = { v->user.id, v->m->id, u->hash, payload, a, u->nfiles };
	long long seq;
	struct err e;
	int rc = v->ctx->ledger->ops->upload_complete(v->ctx->ledger, &up, v->now_s, &seq, &e);

	if (rc == 1) {
		u->committed = 1; /* the spool is the attachments' parts now */
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
static void judge(struct upload_in *u, struct api_reply *out)
{
	struct visit *v = &u->v;
	struct ledger_attachment *a = attachments(u);
	json_t *all = merged(u->stored, a, u->nfiles), *record = NULL, *errors = NULL;
	struct err e;

	/* `_type_version` (the form's stamp) is the box's own, not a field: kept, not judged */
	json_t *version = json_incref(json_object_get(all, "_type_version"));
	json_object_del(all, "_type_version");
	if (validate_submission(v->m, all, VALIDATE_COMPLETE, &record, &errors, &e) != 0) {
		visit_html(out, 400, page_upload(&v->page, v->m, u->stored, errors));
	} else {
		if (version)
			json_object_set(json_object_get(record, "values"), "_type_version", version);
		store(u, a, json_object_get(record, "values"), out);
	}
	json_decref(version);
	json_decref(all);
	json_decref(record);
	json_decref(errors);
	free(a);
}

/* The budgets on what arrived, before anything is stored. 1 when within them. */
static int within(struct upload_in *u, struct api_reply *out)
{
	struct visit *v = &u->v;
	char ip[HASH_SHA256_HEX_LEN + 1], day[16];
	struct err e;
	int fits = 1;

	if (u->total > u->budget) {
		api_text(out, 413, "too large");
		return 0;
	}
	visit_ip_hash(v, ip);
	visit_day(v, day);
	if (u->total > 0)
		fits = v->ctx->ledger->ops->upload_budget(v->ctx->ledger, ip, day, u->total,
							  v->ctx->conf->limits.upload_bytes_per_ip_day,
							  &e);
	if (fits < 0)
		visit_unavailable(out, v, 500);
	else if (fits == 0)
		visit_html(out, 429, page_too_many(&v->page, PAGE_LIMIT_UPLOAD));
	return fits == 1;
}

/* A body multipart.c refused: more parts than any upload page takes is 413, the rest 400. */
static void unreadable(struct upload_in *u, struct api_reply *out)
{
	json_t *errors;

	if (u->why != multipart_too_many)
		return api_text(out, 400, "unreadable upload");
	errors = page_too_much_errors(MULTIPART_PARTS_MAX);
	visit_html(out, 413, page_upload(&u->v.page, u->v.m, u->stored, errors));
	json_decref(errors);
}

void upload_end(struct upload_in *u, struct api_reply *out)
{
	memset(out, 0, sizeof *out);
	out->fd = -1;
	if (u->answered) {
		*out = u->early;
		u->answered = 0;
	} else if ((u->mp && !u->why && multipart_in_finish(u->mp, &u->why) != 0) || u->why) {
		unreadable(u, out);
	} else if (u->not_field) {
		api_text(out, 400, "not a field of this page"); /* a probe, not a mistake */
	} else if (within(u, out)) {
		if (u->failed)
			visit_unavailable(out, &u->v, 500);
		else
			judge(u, out);
	}
	upload_free(u);
}

void upload_handle(struct api_ctx *ctx, const struct api_call *call, struct api_reply *out)
{
	char hash[HASH_SHA256_HEX_LEN + 1];
	json_t *stored = NULL;
	struct upload_in *u;
	struct visit v;

	if (strcmp(call->method, "POST") == 0) { /* a body at once: the same reader */
		u = upload_begin(ctx, call);
		upload_feed(u, call->body, call->len);
		return upload_end(u, out);
	}
	if (visit_open(&v, ctx, call, VISIT_FORM, out) != 0)
		return;
	if (pending(&v, hash, &stored, out))
		visit_html(out, 200, page_upload(&v.page, v.m, stored, NULL));
	json_decref(stored);
	visit_close(&v);
}
