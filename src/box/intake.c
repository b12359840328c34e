/*
 * intake — the form's handlers: render, submit, confirm.
 */
#include "box/intake.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/jsonio.h"
#include "box/boxconf.h"
#include "box/route.h"
#include "box/typecache.h"
#include "box/upload.h"
#include "box/urlform.h"
#include "box/visit.h"
#include "types/manifest.h"
#include "types/validate.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* /f/{h}/{t}/form.css and form.js: the same bytes for every form, so no type is looked up. */
static void asset(const struct api_call *call, struct api_reply *out)
{
	const char *type = NULL, *body = page_asset(call->route->arg, &type);

	if (!body)
		return visit_not_found(out, VISIT_FORM);
	out->status = 200;
	out->type = type;
	out->body = xstrdup(body);
	out->len = strlen(body);
}

/* The form, fresh (200) or back with its errors and the answers kept (400). */
static void form(struct visit *v, const json_t *values, const json_t *errors,
		 struct api_reply *out)
{
	if (!values && !errors) /* the fresh form: the same bytes until the type changes */
		return visit_doc(out, 200, typecache_form(v->mref, &v->page));
	visit_html(out, errors ? 400 : 200, page_form(&v->page, v->m, values, errors));
}

/* Valid answers: the row, its budgets, the mail; "Check your email" whatever the mail does. */
static void send(struct visit *v, const json_t *values, struct api_reply *out)
{
	const char *address = validate_reply_to(v->m, values);
	json_t *stamped = json_deep_copy(values);
	char *payload;

	/* the version of the type it was submitted under: home compares it with its own */
	json_object_set_new(stamped, "_type_version", json_integer(v->m->version));
	payload = jsonio_compact(stamped);
	json_decref(stamped);
	struct visit_send s;
	long long seq;
	struct err e;
	int rc = -1;

	if (address && visit_send_prepare(&s, v, address, payload) == 0)
		rc = v->ctx->ledger->ops->queue_submit(v->ctx->ledger, &s.sub, v->now_s, &seq, &e);
	if (rc < 0) {
		visit_unavailable(out, v, 500);
	} else if (rc == 0) {
		visit_html(out, 429, page_too_many(&v->page, PAGE_LIMIT_SENDS));
	} else {
		visit_send_mail(v, &s, address);
		visit_html(out, 200, page_check_email(&v->page, v->m, address));
	}
	free(payload);
}

static void submit(struct visit *v, struct api_reply *out)
{
	const char *why = NULL;
	size_t keys = (size_t)v->ctx->conf->limits.form_keys;
	json_t *raw = urlform_decode_at_most(v->call->body, v->call->len, keys, &why),
	       *record = NULL, *errors = NULL;
	struct err e;

	if (!raw && why == urlform_too_many) { /* more than any form takes: 413, cheaply */
		errors = page_too_much_errors(keys);
		form(v, NULL, errors, out);
		out->status = 413;
	} else if (!raw) {
		errors = json_pack("[{s:s,s:s+}]", "field", "_", "message",
				   "the answers could not be read: ", why);
		form(v, NULL, errors, out);
	} else if (validate_submission(v->m, raw, VALIDATE_SUBMIT, &record, &errors, &e) != 0) {
		form(v, raw, errors, out);
	} else {
		send(v, json_object_get(record, "values"), out);
	}
	json_decref(raw);
	json_decref(record);
	json_decref(errors);
}

/* The click went through: on to the files when one is due, else the thank-you. */
static void verified(struct visit *v, const json_t *row, const char *upload_token,
		     struct api_reply *out)
{
	json_t *values;

	if (strcmp(jsonio_str_or(row, "state", ""), "awaiting_upload") == 0) {
		/* A redirect, not a page: the verify link is spent, the upload page reloads. */
		api_text(out, 303, "see other");
		out->location = xasprintf("%s/u/%s", v->base, upload_token);
		return;
	}
	visit_queued(v);
	values = json_loads(json_string_value(json_object_get(row, "payload")), 0, NULL);
	visit_html(out, 200, page_confirmed(&v->page, v->m, values));
	json_decref(values);
}

static void confirm(struct visit *v, struct api_reply *out)
{
	char hash[HASH_SHA256_HEX_LEN + 1], up_token[VISIT_TOKEN_LEN + 1] = "",
	     up_hash[HASH_SHA256_HEX_LEN + 1], up_expires[RFC3339_LEN];
	/* upload_due reads its arg as a const manifest: the cast only fits the callback's type */
	/* the const manifest passed through the callback's void * arg */
	struct ledger_verify lv = { v->user.id, v->m->id, hash, NULL, NULL, upload_due,
				    (void *)(uintptr_t)v->m }; // NOLINT(performance-no-int-to-ptr)
	json_t *row = NULL;
	struct err e;
	int found;

	visit_hash(v->call->route->arg, hash);
	if (upload_has_files(v->m)) {
		if (visit_token(up_token, up_hash) != 0)
			return visit_unavailable(out, v, 500);
		visit_later(v, UPLOAD_EXPIRES_HOURS * 3600LL, up_expires);
		lv.upload_hash = up_hash;
		lv.upload_expires = up_expires;
	}
	found = v->ctx->ledger->ops->queue_verify(v->ctx->ledger, &lv, v->now_s, &row, &e);
	if (found < 0)
		visit_unavailable(out, v, 500);
	else if (found == 0) /* spent (perhaps by a click at another box just now), expired */
		visit_form_link_gone(v, LEDGER_LINK_VERIFY, out);
	else
		verified(v, row, up_token, out);
	json_decref(row);
}

/*
 * GET c/{token}: a live link offers its one button (a scanner's GET spends
 * nothing); a used one says what it led to, an expired one that it expired.
 */
static void confirm_page(struct visit *v, struct api_reply *out)
{
	json_t *row = NULL;
	int st = visit_link_status(v, LEDGER_LINK_VERIFY, &row);

	json_decref(row);
	if (st == LEDGER_LINK_LIVE)
		visit_html(out, 200, page_confirm(&v->page, v->m));
	else if (st < 0)
		visit_unavailable(out, v, 500);
	else
		visit_form_link_gone(v, LEDGER_LINK_VERIFY, out);
}

void intake_handle(struct api_ctx *ctx, const struct api_call *call, struct api_reply *out)
{
	int post = strcmp(call->method, "POST") == 0;
	struct visit v;

	if (call->route->kind == ROUTE_FORM_ASSET)
		return asset(call, out);
	if (visit_open(&v, ctx, call, VISIT_FORM, out) != 0)
		return;
	if (call->route->kind == ROUTE_FORM && post)
		submit(&v, out);
	else if (call->route->kind == ROUTE_FORM)
		form(&v, NULL, NULL, out);
	else if (post)
		confirm(&v, out);
	else
		confirm_page(&v, out);
	visit_close(&v);
}
