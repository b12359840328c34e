/*
 * api — the /v1 handlers: authenticate, call the ledger once, write JSON.
 */
#include "box/api.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/jsonio.h"
#include "base/hash.h"
#include "base/rfc3339.h"
#include "box/admin.h"
#include "box/bearer.h"
#include "box/book.h"
#include "box/boxconf.h"
#include "box/intake.h"
#include "box/route.h"
#include "box/upload.h"
#include "box/urlform.h"
#include "types/manifest.h"
#include "types/schema.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define WAIT_CAP_S 25   /* under half a minute: an idle connection never looks dead */
#define MAX_SLOTS 5000  /* more than a dense horizon could honestly produce */
#define MAX_HORIZON 366

#ifndef MECHA_VERSION
#define MECHA_VERSION "0.1.0"
#endif

struct api_doc *api_doc_new(const char *text)
{
	size_t len = strlen(text);
	struct api_doc *doc = xmalloc(sizeof *doc + len + 1);

	atomic_init(&doc->refs, 1);
	doc->len = len;
	atomic_init(&doc->sent, NULL);
	doc->sent_free = NULL;
	pthread_mutex_init(&doc->lock, NULL);
	memcpy(doc->text, text, len + 1);
	return doc;
}

struct api_doc *api_doc_ref(struct api_doc *doc)
{
	atomic_fetch_add_explicit(&doc->refs, 1, memory_order_relaxed);
	return doc;
}

void api_doc_put(struct api_doc *doc)
{
	void *sent;

	if (!doc || atomic_fetch_sub_explicit(&doc->refs, 1, memory_order_acq_rel) != 1)
		return;
	if ((sent = atomic_load_explicit(&doc->sent, memory_order_acquire)))
		doc->sent_free(sent);
	pthread_mutex_destroy(&doc->lock);
	free(doc);
}

void api_error(struct api_reply *out, unsigned status, const char *msg)
{
	json_t *o = json_pack("{s:s}", "error", msg);

	out->status = status;
	out->type = "application/json";
	out->body = jsonio_compact(o);
	out->len = strlen(out->body);
	json_decref(o);
}

void api_text(struct api_reply *out, unsigned status, const char *text)
{
	out->status = status;
	out->type = "text/plain; charset=utf-8";
	out->body = xstrdup(text);
	out->len = strlen(text);
}

/* 200 with v (stolen). */
static void ok_json(struct api_reply *out, json_t *v)
{
	out->status = 200;
	out->type = "application/json";
	out->body = jsonio_compact(v);
	out->len = strlen(out->body);
	json_decref(v);
}

/* ---- authentication ------------------------------------------------------------- */

/* 0 with *user, or -1 with the refusal written. */
static int authorised(struct api_ctx *ctx, const struct api_call *call, enum bearer_scope need,
		      struct ledger_user *user, struct api_reply *out)
{
	struct ledger_key key;

	switch (bearer_check(ctx->ledger, call->auth, (int)need, &key, user)) {
	case BEARER_OK:
		ledger_key_free(&key);
		return 0;
	case BEARER_WRONG_SCOPE:
		api_error(out, 403, "this key does not cover this endpoint");
		return -1;
	case BEARER_SUSPENDED:
		api_error(out, 403, "this account is suspended");
		return -1;
	case BEARER_FAILED:
		api_error(out, 500, "unavailable");
		return -1;
	default:
		api_error(out, 401, "a valid bearer token is required");
		return -1;
	}
}

/* ---- health ------------------------------------------------------------------------ */

/* Public; a caller holding any live key gets its own user's counts. */
static void health(struct api_ctx *ctx, const struct api_call *call, struct api_reply *out)
{
	json_t *o = json_pack("{s:s,s:s,s:I}", "status", "ok", "version", MECHA_VERSION,
			      "uptime_s", (json_int_t)(time(NULL) - ctx->started));
	struct ledger_key key;
	struct ledger_user user;
	char now[RFC3339_LEN];
	long long queued = -1, overdue = 0;
	struct err e;

	if (call->auth && bearer_check(ctx->ledger, call->auth, -1, &key, &user) == BEARER_OK) {
		rfc3339_now(now);
		if (ctx->ledger->ops->queue_counts(ctx->ledger, user.id, now, &queued, &overdue,
						   &e) != 0)
			queued = -1;
		json_object_set_new(o, "queued", json_integer(queued));
		/* §6: an undrained row past retain_until is kept, and said here. */
		json_object_set_new(o, "overdue", json_integer(overdue));
		json_object_set_new(o, "key", json_string(key.id));
		json_object_set_new(o, "handle", json_string(user.handle));
		json_object_set_new(o, "status", json_string(user.status));
		ledger_key_free(&key);
	}
	ok_json(out, o);
}

/* ---- types ---------------------------------------------------------------------------- */

static char *type_url(struct api_ctx *ctx, const char *id)
{
	return xasprintf("%s/v1/types/%s", ctx->conf->public_url, id);
}

static void types_list(struct api_ctx *ctx, const struct api_call *call, struct api_reply *out)
{
	struct ledger_user user;
	json_t *rows, *r;
	struct err e;
	size_t i;

	if (authorised(ctx, call, BEARER_PUBLISH, &user, out) != 0)
		return;
	if (ctx->ledger->ops->type_list(ctx->ledger, user.id, &rows, &e) != 0)
		return api_error(out, 500, "unavailable");
	json_array_foreach(rows, i, r) {
		char *url = type_url(ctx, json_string_value(json_object_get(r, "id")));
		json_object_set_new(r, "url", json_string(url));
		free(url);
	}
	ok_json(out, json_pack("{s:o}", "types", rows));
}

static void type_get(struct api_ctx *ctx, const struct api_call *call, struct api_reply *out)
{
	struct ledger_user user;
	json_t *row, *schema;
	struct err e;
	int found;

	if (authorised(ctx, call, BEARER_PUBLISH, &user, out) != 0)
		return;
	found = ctx->ledger->ops->type_get(ctx->ledger, user.id, call->route->type, &row, &e);
	if (found < 0)
		return api_error(out, 500, "unavailable");
	if (found == 0)
		return api_error(out, 404, "no such type");
	schema = json_loads(json_string_value(json_object_get(row, "schema")), 0, NULL);
	json_object_set_new(row, "schema", schema ? schema : json_null());
	ok_json(out, json_pack("{s:O,s:O,s:O,s:O,s:O}", "id", json_object_get(row, "id"), "title",
			       json_object_get(row, "title"), "updated_at",
			       json_object_get(row, "updated_at"), "schema",
			       json_object_get(row, "schema"), "manifest",
			       json_object_get(row, "manifest")));
	json_decref(row);
}

/* "manifest: LINE: first mistake (and N more)". */
static char *manifest_problem(const struct manifest_issues *is)
{
	if (is->n == 0)
		return xstrdup("manifest: it does not parse");
	if (is->n == 1)
		return xasprintf("manifest: line %d: %s", is->v[0].line, is->v[0].message);
	return xasprintf("manifest: line %d: %s (and %zu more)", is->v[0].line, is->v[0].message,
			 is->n - 1);
}

static void type_store(struct api_ctx *ctx, const struct ledger_user *user,
		       const struct manifest *m, const struct api_call *call,
		       struct api_reply *out)
{
	json_t *schema = schema_of(m);
	char *text = jsonio_compact(schema), *body = xstrndup(call->body, call->len), *url;
	char now[RFC3339_LEN];
	struct err e;

	rfc3339_now(now);
	if (ctx->ledger->ops->type_put(ctx->ledger, user->id, m->id, m->title, body, text, now,
				       &e) != 0) {
		api_error(out, 500, "unavailable");
	} else {
		json_t *answer;
		url = type_url(ctx, m->id);
		answer = json_pack("{s:s,s:s,s:I,s:s,s:I}", "id", m->id, "title", m->title, "fields",
				   (json_int_t)m->nfields, "url", url, "version",
				   (json_int_t)m->version);
		/* the page a stranger opens (what to hand out), when the type is servable */
		json_object_set_new(answer, "page", m->verification
			? json_sprintf("%s/%s/%s/%s", ctx->conf->public_url, m->booking ? "s" : "f",
				       user->handle, m->id) : json_null());
		ok_json(out, answer);
		free(url);
	}
	free(body);
	free(text);
	json_decref(schema);
}

static void type_put(struct api_ctx *ctx, const struct api_call *call, struct api_reply *out)
{
	struct manifest_issues is = { NULL, 0 };
	struct ledger_user user;
	struct manifest *m;
	char *msg;

	if (authorised(ctx, call, BEARER_RELEASE, &user, out) != 0)
		return;
	if (!(m = manifest_parse(call->body, call->len, &is))) {
		msg = manifest_problem(&is);
		api_error(out, 400, msg);
		free(msg);
	} else if (strcmp(m->id, call->route->type) != 0) {
		msg = xasprintf("the manifest calls itself `%s` and the URL says `%s` — the id is a "
				"path segment, a filename and a tool name, so it cannot be two things",
				m->id, call->route->type);
		api_error(out, 400, msg);
		free(msg);
	} else if (!boxconf_serves(ctx->conf, user.handle, m->id)) {
		msg = xasprintf("this box's configuration does not serve `%s` for %s", m->id,
				user.handle);
		api_error(out, 403, msg);
		free(msg);
	} else {
		type_store(ctx, &user, m, call, out);
	}
	manifest_free(m);
	manifest_issues_free(&is);
}

/* ---- slots ------------------------------------------------------------------------------ */

static int id_ok(const char *id)
{
	size_t n = strlen(id);

	if (n == 0 || n > 64)
		return 0;
	for (; *id; id++)
		if (!((*id >= 'a' && *id <= 'z') || (*id >= '0' && *id <= '9') || *id == '-' ||
		      *id == '_'))
			return 0;
	return 1;
}

/* A field set exactly as serde's deny_unknown_fields reads it; NULL when fine. */
static char *only_keys(const json_t *o, const char *const *allowed, const char *what)
{
	const char *k;
	json_t *v;

	json_object_foreach((json_t *)o, k, v) {
		int ok = 0;
		for (int i = 0; allowed[i]; i++)
			ok |= strcmp(k, allowed[i]) == 0;
		if (!ok)
			return xasprintf("%s: unknown field `%s`", what, k);
	}
	for (int i = 0; allowed[i]; i++)
		if (!json_object_get(o, allowed[i]))
			return xasprintf("%s: missing field `%s`", what, allowed[i]);
	return NULL;
}

static int u32(const json_t *v)
{
	return json_is_integer(v) && json_integer_value(v) >= 0 &&
	       json_integer_value(v) <= 4294967295LL;
}

static char *check_slot(const json_t *slot, size_t i)
{
	static const char *const keys[] = { "start", "end", "duration_minutes", NULL };
	const json_t *start = json_object_get(slot, "start"), *end = json_object_get(slot, "end");
	time_t a, b;
	char *why;

	if (!json_is_object(slot))
		return xasprintf("slot push: slot %zu is not an object", i);
	if ((why = only_keys(slot, keys, "slot push")))
		return why;
	if (!json_is_string(start) || !json_is_string(end) ||
	    !u32(json_object_get(slot, "duration_minutes")))
		return xasprintf("slot push: slot %zu: invalid type", i);
	if (rfc3339_parse(json_string_value(start), &a) != 0 ||
	    rfc3339_parse(json_string_value(end), &b) != 0)
		return xasprintf("slot %zu: unparseable start or end", i);
	if (b <= a)
		return xasprintf("slot %zu: end is not after start", i);
	if (b - a != json_integer_value(json_object_get(slot, "duration_minutes")) * 60)
		return xasprintf("slot %zu: duration_minutes %lld disagrees with its own span", i,
				 (long long)json_integer_value(json_object_get(slot,
									       "duration_minutes")));
	return NULL;
}

/* The push's shape and sense, docs/protocol/box-api.md §5; NULL when it holds. */
static char *check_push(const json_t *push)
{
	static const char *const keys[] = { "generated_at", "horizon_days", "slots", NULL };
	const json_t *slots = json_object_get(push, "slots"), *s;
	time_t t;
	char *why;
	size_t i;

	if (!json_is_object(push))
		return xstrdup("slot push: expected an object");
	if ((why = only_keys(push, keys, "slot push")))
		return why;
	if (!json_is_string(json_object_get(push, "generated_at")) ||
	    !u32(json_object_get(push, "horizon_days")) || !json_is_array(slots))
		return xstrdup("slot push: invalid type");
	if (rfc3339_parse(json_string_value(json_object_get(push, "generated_at")), &t) != 0)
		return xasprintf("generated_at `%s` is not RFC 3339",
				 json_string_value(json_object_get(push, "generated_at")));
	if (json_integer_value(json_object_get(push, "horizon_days")) > MAX_HORIZON)
		return xasprintf("horizon_days %lld is over a year",
				 (long long)json_integer_value(json_object_get(push, "horizon_days")));
	if (json_array_size(slots) > MAX_SLOTS)
		return xasprintf("%zu slots is over the %d cap", json_array_size(slots), MAX_SLOTS);
	json_array_foreach(slots, i, s)
		if ((why = check_slot(s, i)))
			return why;
	return NULL;
}

static void slots_store(struct api_ctx *ctx, const struct ledger_user *user, const char *id,
			const json_t *push, struct api_reply *out)
{
	char *slots = jsonio_compact(json_object_get(push, "slots"));
	const char *gen = json_string_value(json_object_get(push, "generated_at"));
	long long horizon = json_integer_value(json_object_get(push, "horizon_days"));
	char now[RFC3339_LEN];
	struct err e;

	rfc3339_now(now);
	if (ctx->ledger->ops->slots_put(ctx->ledger, user->id, id, gen, horizon, slots, now, &e))
		api_error(out, 500, "unavailable");
	else
		ok_json(out, json_pack("{s:s,s:I,s:s,s:s}", "instrument", id, "stored",
				       (json_int_t)json_array_size(json_object_get(push, "slots")),
				       "generated_at", gen, "received_at", now));
	free(slots);
}

static void slots_put(struct api_ctx *ctx, const struct api_call *call, struct api_reply *out)
{
	const char *id = call->route->type;
	struct ledger_user user;
	json_error_t jerr;
	json_t *push;
	char *why;

	if (authorised(ctx, call, BEARER_SLOTS, &user, out) != 0)
		return;
	if (!id_ok(id)) {
		why = xasprintf("instrument id `%s` must be 1–64 of lowercase, digits, `-`, `_`", id);
		api_error(out, 400, why);
		free(why);
		return;
	}
	push = json_loadb(call->body, call->len, JSON_REJECT_DUPLICATES, &jerr);
	why = push ? check_push(push) : xasprintf("slot push: %s", jerr.text);
	if (why)
		api_error(out, 400, why);
	else
		slots_store(ctx, &user, id, push, out);
	free(why);
	json_decref(push);
}

/* ---- the queue -------------------------------------------------------------------------- */

/* 0, or -1 when the query is not since/wait numbers, -2 when it holds more pairs than the cap. */
static int queue_query(const struct api_call *call, size_t keys, long long *since,
		       long long *wait)
{
	const char *why = NULL;
	json_t *q = urlform_decode_at_most(call->route->query ? call->route->query : "",
					   call->route->query_len, keys, &why);
	int rc = q && urlform_int(q, "since", -9223372036854775807LL, 9223372036854775807LL, 0,
				  since) == 0 &&
			 urlform_int(q, "wait", 0, 9223372036854775807LL, 0, wait) == 0
		     ? 0
		     : -1;

	json_decref(q);
	return !q && why == urlform_too_many ? -2 : rc;
}

static void queue_answer(json_t *records, long long since, struct api_reply *out)
{
	long long next = since;
	json_t *r;
	size_t i;

	json_array_foreach(records, i, r)
		if (json_integer_value(json_object_get(r, "seq")) > next)
			next = json_integer_value(json_object_get(r, "seq"));
	ok_json(out, json_pack("{s:o,s:I}", "records", records, "next", (json_int_t)next));
}

static void queue_get(struct api_ctx *ctx, struct api_call *call, struct api_reply *out)
{
	struct ledger_user user;
	long long wait = 0;
	json_t *records;
	struct err e;

	if (!call->resumed) {
		if (authorised(ctx, call, BEARER_DRAIN, &user, out) != 0)
			return;
		switch (queue_query(call, (size_t)ctx->conf->limits.form_keys, &call->since, &wait)) {
		case -2:
			return api_error(out, 413, "query: more pairs than the box takes");
		case -1:
			return api_error(out, 400, "query: since is a whole number and wait one of "
						   "0 or more seconds");
		default:
			break;
		}
		snprintf(call->user, sizeof call->user, "%s", user.id);
		call->deadline = time(NULL) + (wait < WAIT_CAP_S ? wait : WAIT_CAP_S);
	}
	if (ctx->ledger->ops->queue_list(ctx->ledger, call->user, call->since,
					 ctx->conf->limits.drain_batch, &records, &e) != 0)
		return api_error(out, 500, "unavailable");
	if (json_array_size(records) == 0 && time(NULL) < call->deadline) {
		json_decref(records);
		out->park = 1;
		return;
	}
	queue_answer(records, call->since, out);
}

static int ack_seqs(const struct api_call *call, size_t keys, long long **seqs, size_t *n,
		    char **why)
{
	json_error_t jerr;
	json_t *o = json_loadb(call->body, call->len, JSON_REJECT_DUPLICATES, &jerr), *a, *x;
	size_t i;

	*seqs = NULL;
	if (!o) {
		*why = xasprintf("body: %s", jerr.text);
		return -1;
	}
	a = json_object_get(o, "seqs");
	if (!json_is_object(o) || !json_is_array(a)) {
		*why = xstrdup(json_is_object(o) ? "body: missing field `seqs`"
						  : "body: expected an object");
		json_decref(o);
		return -1;
	}
	if (json_array_size(a) > keys) { /* the same cap as a form's answers: 413 */
		*why = xasprintf("body: more than %zu seqs in one ack", keys);
		json_decref(o);
		return -2;
	}
	*n = json_array_size(a);
	*seqs = xcalloc(*n + 1, sizeof **seqs);
	json_array_foreach(a, i, x) {
		if (!json_is_integer(x)) {
			*why = xstrdup("body: seqs must be whole numbers");
			json_decref(o);
			return -1;
		}
		(*seqs)[i] = json_integer_value(x);
	}
	json_decref(o);
	return 0;
}

static void queue_ack(struct api_ctx *ctx, const struct api_call *call, struct api_reply *out)
{
	struct ledger_user user;
	long long *seqs, deleted;
	char *why = NULL;
	json_t *blobs;
	struct err e;
	size_t n = 0;
	int rc;

	if (authorised(ctx, call, BEARER_DRAIN, &user, out) != 0)
		return;
	if ((rc = ack_seqs(call, (size_t)ctx->conf->limits.form_keys, &seqs, &n, &why)) != 0) {
		api_error(out, rc == -2 ? 413 : 400, why);
	} else if (ctx->ledger->ops->queue_ack(ctx->ledger, user.id, seqs, n, &deleted, &blobs,
					       &e) != 0) {
		api_error(out, 500, "unavailable");
	} else {
		json_decref(blobs); /* their bytes went with the rows, in the ledger */
		ok_json(out, json_pack("{s:I}", "deleted", (json_int_t)deleted));
	}
	free(why);
	free(seqs);
}

/* An attachment's bytes as they are sent: one part of the ledger's at a time. */
struct parts {
	struct ledger *ledger;
	char id[LEDGER_ID_LEN + 1];
	struct buf part; /* part n's bytes, or nothing yet */
	long long n;
};

static long long parts_read(void *arg, unsigned long long pos, char *buf, size_t max)
{
	struct parts *p = arg;
	long long n = (long long)(pos / LEDGER_PART);
	size_t off = (size_t)(pos % LEDGER_PART), len;
	struct err e;

	if (n != p->n) {
		buf_reset(&p->part);
		p->n = -1;
		if (p->ledger->ops->attachment_read(p->ledger, p->id, n, &p->part, &e) != 1)
			return -1; /* deleted meanwhile (an ack), or the ledger failed */
		p->n = n;
	}
	if (off >= p->part.len)
		return -1;
	len = p->part.len - off < max ? p->part.len - off : max;
	memcpy(buf, p->part.data + off, len);
	return (long long)len;
}

static void parts_free(void *arg)
{
	struct parts *p = arg;

	buf_free(&p->part);
	free(p);
}

static void attachment(struct api_ctx *ctx, const struct api_call *call, struct api_reply *out)
{
	struct ledger_user user;
	struct parts *p;
	long long size, parts;
	json_t *row;
	struct err e;
	int found;

	if (authorised(ctx, call, BEARER_DRAIN, &user, out) != 0)
		return;
	found = ctx->ledger->ops->attachment_get(ctx->ledger, user.id, call->route->arg, &row, &e);
	if (found <= 0)
		return api_error(out, found < 0 ? 500 : 404, found < 0 ? "unavailable" : "not found");
	size = (long long)json_integer_value(json_object_get(row, "size"));
	parts = (long long)json_integer_value(json_object_get(row, "parts"));
	json_decref(row);
	/* A row without its bytes is our inconsistency, never "not found": home would skip it. */
	if (size <= 0 || parts != (size + LEDGER_PART - 1) / LEDGER_PART)
		return api_error(out, 500, "unavailable");
	p = xcalloc(1, sizeof *p);
	p->ledger = ctx->ledger;
	p->n = -1;
	snprintf(p->id, sizeof p->id, "%s", call->route->arg);
	out->status = 200;
	out->type = "application/octet-stream";
	out->fdlen = size;
	out->stream = parts_read;
	out->stream_free = parts_free;
	out->stream_arg = p;
}

/* ---- keys ---------------------------------------------------------------------------------- */

static void disconnect(struct api_ctx *ctx, const struct api_call *call, struct api_reply *out)
{
	struct ledger_key key;
	struct ledger_user user;
	char now[RFC3339_LEN];
	struct err e;

	switch (bearer_check(ctx->ledger, call->auth, -1, &key, &user)) {
	case BEARER_OK:
		break;
	case BEARER_SUSPENDED:
		return api_error(out, 403, "this account is suspended");
	case BEARER_FAILED:
		return api_error(out, 500, "unavailable");
	default:
		return api_error(out, 401, "a valid bearer token is required");
	}
	rfc3339_now(now);
	if (ctx->ledger->ops->key_revoke(ctx->ledger, key.id, now, &e) != 0)
		api_error(out, 500, "unavailable");
	else
		ok_json(out, json_pack("{s:s}", "revoked", key.id));
	ledger_key_free(&key);
}

/*
 * POST /v1/bookings/decline {"ids": [booking id, …]} with the drain key: the
 * owner turned these bookings down at home (`mecha frontdoor decline`), or
 * with "cancelled": true cancelled them after home had booked them (`close
 * --notify`). Each confirmed one becomes declined_by_owner (or
 * cancelled_by_owner): its manage page says so and its slot is free again.
 * {"declined": n}; an id not confirmed is skipped.
 */
static void decline(struct api_ctx *ctx, const struct api_call *call, struct api_reply *out)
{
	json_error_t jerr;
	struct ledger_user user;
	json_t *o, *ids, *x, *cancelled;
	long long declined = 0;
	char now[RFC3339_LEN];
	struct err e;
	size_t i;

	if (authorised(ctx, call, BEARER_DRAIN, &user, out) != 0)
		return;
	o = json_loadb(call->body, call->len, JSON_REJECT_DUPLICATES, &jerr);
	ids = json_object_get(o, "ids");
	cancelled = json_object_get(o, "cancelled");
	if (!json_is_object(o) || !json_is_array(ids) || json_array_size(ids) > 100 ||
	    (cancelled && !json_is_boolean(cancelled)) ||
	    json_object_size(o) != 1u + (cancelled != NULL)) {
		json_decref(o);
		return api_error(out, 400, "body: expected {\"ids\": [booking ids]}, at most 100, "
				 "and \"cancelled\": true or false");
	}
	json_array_foreach(ids, i, x) {
		const char *id = json_string_value(x);
		size_t n = id ? strlen(id) : 0;
		if (n == 0 || n > 64 || strspn(id, "0123456789abcdef") != n) {
			json_decref(o);
			return api_error(out, 400, "body: a booking id is lowercase hex");
		}
	}
	rfc3339_now(now);
	json_array_foreach(ids, i, x) {
		int rc = ctx->ledger->ops->booking_decline(ctx->ledger, user.id, json_string_value(x),
							  json_is_true(cancelled), now, &e);
		if (rc < 0) {
			json_decref(o);
			return api_error(out, 500, "unavailable");
		}
		declined += rc;
	}
	json_decref(o);
	ok_json(out, json_pack("{s:I}", "declined", (json_int_t)declined));
}

/* The presenter's label: printable ASCII only, at most 64 characters (it reaches key lists). */
static char *clean_label(const char *in)
{
	struct buf b = BUF_INIT;

	for (const char *p = in ? in : ""; *p && b.len < 64; p++)
		if ((unsigned char)*p >= 0x20 && (unsigned char)*p < 0x7f)
			buf_addc(&b, *p);
	char *out = xstrdup(buf_str(&b));

	buf_free(&b);
	return out;
}

/*
 * POST /v1/pair {code, handle, label}: the code is the credential (single use,
 * minutes-lived), so no key is asked for. Every refusal is one refusal, 404
 * "that code is not valid for that handle", docs/protocol/box-api.md §9: a wrong
 * handle learns nothing about whose the code is. The keys are hashed before
 * the transaction that spends the code inserts them, so a refused try stores
 * nothing. The answer has docs/protocol/box-api.md §9's fields (publish_key, drain_key and
 * their ids, handle) and the two scopes it has no pairing for (release_key,
 * slots_key), so a home can serve forms and bookings with no key copied.
 */
static void pair(struct api_ctx *ctx, const struct api_call *call, struct api_reply *out)
{
	static const enum bearer_scope scopes[] = { BEARER_PUBLISH, BEARER_DRAIN, BEARER_RELEASE,
						    BEARER_SLOTS };
	enum { N = sizeof scopes / sizeof scopes[0] };
	struct ledger_key keys[N];
	char *tokens[N] = { 0 }, *label = NULL, h_norm[65], h_raw[65], now[RFC3339_LEN];
	const char *code, *handle;
	struct ledger_redeem r;
	struct ledger_user user;
	json_error_t jerr;
	json_t *body = json_loadb(call->body ? call->body : "", call->len, JSON_REJECT_DUPLICATES,
				  &jerr), *o;
	struct err e;
	size_t made = 0, clen;
	int rc = -1;

	code = json_string_value(json_object_get(body, "code"));
	handle = json_string_value(json_object_get(body, "handle"));
	if (!json_is_object(body) || !code || !handle ||
	    (json_object_get(body, "label") && !json_is_string(json_object_get(body, "label")))) {
		json_decref(body);
		return api_error(out, 400, "body: {\"code\", \"handle\", \"label\"} are strings");
	}
	clen = json_string_length(json_object_get(body, "code"));
	while (clen && strchr(" \t\r\n", code[clen - 1]))
		clen--;
	while (clen && strchr(" \t\r\n", *code))
		code++, clen--;
	admin_pair_hash(code, clen, h_norm);
	hash_sha256_hex(code, clen, h_raw); /* a reference ledger's codes: the trimmed text */
	label = clean_label(json_string_value(json_object_get(body, "label")));
	for (; made < N; made++)
		if (bearer_prepare("", scopes[made], label, &keys[made], &tokens[made], &e) != 0)
			break;
	if (made == N) {
		char lower[64];
		size_t i;
		for (i = 0; i < sizeof lower - 1 && handle[i]; i++)
			lower[i] = (handle[i] >= 'A' && handle[i] <= 'Z') ? (char)(handle[i] + 32)
									   : handle[i];
		lower[i] = '\0';
		rfc3339_now(now);
		r = (struct ledger_redeem){ { h_norm, h_raw }, lower, label, keys, N, now,
					    ADMIN_PAIR_FAILURES };
		rc = ctx->ledger->ops->pair_redeem(ctx->ledger, &r, &user, &e);
	}
	if (rc < 0) {
		api_error(out, 500, "unavailable");
	} else if (rc == 0) {
		api_error(out, 404, "that code is not valid for that handle");
	} else {
		o = json_pack("{s:s}", "handle", user.handle);
		for (size_t i = 0; i < N; i++) {
			char name[32];
			snprintf(name, sizeof name, "%s_key", bearer_scope_name(scopes[i]));
			json_object_set_new(o, name, json_string(tokens[i]));
			snprintf(name, sizeof name, "%s_key_id", bearer_scope_name(scopes[i]));
			json_object_set_new(o, name, json_string(keys[i].id));
		}
		if (ctx->conf && ctx->conf->public_url)
			json_object_set_new(o, "gate", json_string(ctx->conf->public_url));
		ok_json(out, o);
	}
	for (size_t i = 0; i < made; i++) {
		explicit_bzero(tokens[i], strlen(tokens[i]));
		free(tokens[i]);
		ledger_key_free(&keys[i]);
	}
	free(label);
	json_decref(body);
}

void api_handle(struct api_ctx *ctx, struct api_call *call, struct api_reply *out)
{
	int put = strcmp(call->method, "PUT") == 0;

	memset(out, 0, sizeof *out);
	out->fd = -1;
	switch (call->route->kind) {
	case ROUTE_HEALTH:
		return health(ctx, call, out);
	case ROUTE_TYPES:
		return types_list(ctx, call, out);
	case ROUTE_TYPE:
		return put ? type_put(ctx, call, out) : type_get(ctx, call, out);
	case ROUTE_SLOTS:
		return slots_put(ctx, call, out);
	case ROUTE_QUEUE:
		return queue_get(ctx, call, out);
	case ROUTE_ACK:
		return queue_ack(ctx, call, out);
	case ROUTE_ATTACHMENT:
		return attachment(ctx, call, out);
	case ROUTE_PAIR:
		return pair(ctx, call, out);
	case ROUTE_DISCONNECT:
		return disconnect(ctx, call, out);
	case ROUTE_DECLINE:
		return decline(ctx, call, out);
	case ROUTE_FORM:
	case ROUTE_FORM_ASSET:
	case ROUTE_FORM_CONFIRM:
		return intake_handle(ctx, call, out);
	case ROUTE_FORM_UPLOAD:
		return upload_handle(ctx, call, out);
	case ROUTE_BOOK:
	case ROUTE_BOOK_SLOTS:
	case ROUTE_BOOK_CONFIRM:
	case ROUTE_BOOK_MANAGE:
		return book_handle(ctx, call, out);
	default:
		return api_text(out, 404, "not found");
	}
}
