/*
 * visit — whose page, its tokens, its mail, its answer.
 */
#include "box/visit.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/jsonio.h"
#include "base/text.h"
#include "box/boxconf.h"
#include "box/mailer.h"
#include "box/route.h"
#include "box/typecache.h"
#include "box/waiters.h"
#include "types/manifest.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* Whether v's owner (active) and manifest are served at v's door. */
static int served(const struct visit *v)
{
	const struct route *r = v->call->route;

	if (!boxconf_serves(v->ctx->conf, v->user.handle, r->type))
		return 0;
	/* Without [verification] nobody could prove an address: refused, never served unverified. */
	return v->m && v->m->verification && v->m->booking == (v->door == VISIT_BOOKING);
}

/* 1 when the route names a live owner's type this door serves; 0 when not; -1 on failure.
 * What the ledger said is kept while its stamp holds (box/typecache.h). */
static int resolve(struct visit *v, struct err *e)
{
	const struct route *r = v->call->route;
	struct ledger *l = v->ctx->ledger;
	const char *text;
	json_t *row;
	int found;

	v->stamped = l->ops->stamp(l, &v->stamp, e);
	if (v->stamped < 0)
		return -1;
	if (v->stamped &&
	    (v->mref = typecache_known(r->handle, r->type, &v->stamp, &v->user, &v->m)))
		return served(v);
	if ((found = l->ops->user_get(l, r->handle, NULL, &v->user, e)) <= 0)
		return found;
	if (strcmp(v->user.status, "active") != 0)
		return 0;
	if ((found = l->ops->type_get(l, v->user.id, r->type, &row, e)) <= 0)
		return found;
	text = json_string_value(json_object_get(row, "manifest"));
	v->mref = text ? typecache_get(v->user.id, r->type, text, &v->m) : NULL;
	json_decref(row);
	if (v->stamped && v->mref)
		typecache_remember(v->mref, r->handle, &v->stamp, &v->user);
	return served(v);
}

/* "/{door}/{handle}/{type}{tail}", by hand (every page visit makes two). */
static char *page_path(char door, const char *handle, const char *type, const char *tail)
{
	char *p = xmalloc(strlen(handle) + strlen(type) + strlen(tail) + 5), *q = p;

	*q++ = '/';
	*q++ = door;
	*q++ = '/';
	q = stpcpy(q, handle);
	*q++ = '/';
	q = stpcpy(q, type);
	stpcpy(q, tail);
	return p;
}

int visit_open(struct visit *v, struct api_ctx *ctx, const struct api_call *call,
	       enum visit_door door, struct api_reply *out)
{
	const struct route *r = call->route;
	struct err e;
	int found;

	*v = (struct visit){ .ctx = ctx, .call = call, .door = door, .now = time(NULL) };
	rfc3339_format(v->now, v->now_s);
	if ((found = resolve(v, &e)) <= 0) {
		if (found < 0)
			visit_unavailable(out, NULL, 500);
		else
			visit_not_found(out, door);
		visit_close(v);
		return -1;
	}
	v->base = page_path(door == VISIT_FORM ? 'f' : 's', r->handle, r->type, "");
	/* The assets answer at /f/ for both doors: they are the same bytes for every page. */
	v->assets = page_path('f', r->handle, r->type, "/");
	v->page = (struct page_ctx){ v->base, v->assets, NULL };
	return 0;
}

void visit_close(struct visit *v)
{
	typecache_put(v->mref);
	v->mref = NULL;
	free(v->base);
	free(v->assets);
	v->m = NULL;
	v->base = v->assets = NULL;
}

void visit_html(struct api_reply *out, unsigned status, char *doc)
{
	out->status = status;
	out->type = "text/html; charset=utf-8";
	out->body = doc;
	out->len = strlen(doc);
}

void visit_doc(struct api_reply *out, unsigned status, struct api_doc *doc)
{
	out->status = status;
	out->type = "text/html; charset=utf-8";
	out->doc = doc;
	out->len = doc->len;
}

void visit_not_found(struct api_reply *out, enum visit_door door)
{
	visit_html(out, 404, page_not_found(door == VISIT_FORM ? PAGE_NO_FORM : PAGE_NO_BOOKING));
}

void visit_unavailable(struct api_reply *out, const struct visit *v, unsigned status)
{
	visit_html(out, status, page_unavailable(v && v->base ? &v->page : NULL));
}

int visit_token(char token[VISIT_TOKEN_LEN + 1], char hash[HASH_SHA256_HEX_LEN + 1])
{
	struct err e;

	if (hash_random_hex(token, VISIT_TOKEN_LEN, &e) != 0)
		return -1;
	visit_hash(token, hash);
	return 0;
}

void visit_hash(const char *token, char hash[HASH_SHA256_HEX_LEN + 1])
{
	hash_sha256_hex(token, strlen(token), hash);
}

int visit_link_status(const struct visit *v, const char *kind, json_t **row)
{
	char hash[HASH_SHA256_HEX_LEN + 1];
	struct err e;

	visit_hash(v->call->route->arg, hash);
	return v->ctx->ledger->ops->link_get(v->ctx->ledger, v->user.id, v->m->id, kind, hash,
					     v->now_s, row, &e);
}

void visit_form_link_gone(struct visit *v, const char *kind, struct api_reply *out)
{
	json_t *row = NULL;
	int st = visit_link_status(v, kind, &row);

	if (st < 0)
		visit_unavailable(out, v, 500);
	else if (st == LEDGER_LINK_SPENT)
		visit_html(out, 200,
			   page_form_spent(&v->page, v->m, jsonio_str_or(row, "outcome", "queued")));
	else /* expired, or never was (or forgotten): the form sends a new one */
		visit_html(out, 404, page_expired(&v->page, v->m));
	json_decref(row);
}

void visit_later(const struct visit *v, long long seconds, char out[RFC3339_LEN])
{
	rfc3339_format(v->now + (time_t)seconds, out);
}

char *visit_link(const struct visit *v, const char *kind, const char *token)
{
	return xasprintf("%s%s/%s/%s", v->ctx->conf->public_url, v->base, kind, token);
}

const char *visit_retain(const struct visit *v, char out[RFC3339_LEN])
{
	if (v->m->retain_days < 0)
		return NULL;
	/* Retention starts at submission: an abandoned row is a stranger's data too. */
	visit_later(v, v->m->retain_days * 86400LL, out);
	return out;
}

void visit_ip_hash(const struct visit *v, char out[HASH_SHA256_HEX_LEN + 1])
{
	const char *ip = v->call->ip ? v->call->ip : "";

	hash_sha256_hex(ip, strlen(ip), out);
}

void visit_day(const struct visit *v, char out[16])
{
	struct tm tm;

	gmtime_r(&v->now, &tm);
	strftime(out, 16, "%Y-%m-%d", &tm);
}

void visit_queued(const struct visit *v)
{
	if (v->ctx->waiters)
		waiters_kick(v->ctx->waiters);
}

/* sha256 hex of the address trimmed and in lower case (ASCII): one budget per mailbox. */
static void recipient_hash(const char *address, char out[HASH_SHA256_HEX_LEN + 1])
{
	size_t off, n;
	char *low;

	text_trim(address, strlen(address), &off, &n);
	low = xstrndup(address + off, n);
	for (char *p = low; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	hash_sha256_hex(low, n, out);
	free(low);
}

int visit_send_prepare(struct visit_send *s, const struct visit *v, const char *address,
		       const char *payload)
{
	memset(s, 0, sizeof *s);
	if (visit_token(s->token, s->verify_hash) != 0)
		return -1;
	recipient_hash(address, s->recipient_hash);
	visit_ip_hash(v, s->ip_hash);
	visit_day(v, s->day);
	visit_later(v, v->m->verification->expires_hours * 3600LL, s->verify_expires);
	s->sub = (struct ledger_submission){
		.user_id = v->user.id,
		.type_id = v->m->id,
		.payload = payload,
		.retain_until = visit_retain(v, s->retain_until),
		.verify_hash = s->verify_hash,
		.verify_expires = s->verify_expires,
		.recipient_hash = s->recipient_hash,
		.ip_hash = s->ip_hash,
		.day = s->day,
		.per_recipient = VISIT_SENDS_PER_RECIPIENT,
	};
	return 0;
}

void visit_send_mail(const struct visit *v, const struct visit_send *s, const char *address)
{
	char *link = visit_link(v, "c", s->token);

	if (v->ctx->mailer)
		mailer_verification(v->ctx->mailer, address, v->m->title, link);
	free(link);
}
