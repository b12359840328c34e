/*
 * book — the booking page's handlers: the week, the hold, confirm, manage.
 */
#include "box/book.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/jsonio.h"
#include "box/boxconf.h"
#include "box/route.h"
#include "box/urlform.h"
#include "box/visit.h"
#include "types/manifest.h"
#include "types/validate.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* ---- what is open ------------------------------------------------------------------------ */

/* The slot cache home pushed, and what blocks it now. */
struct cache {
	json_t *slots;   /* [{start, end, duration_minutes}]; [] before the first push */
	char *generated_at;
	json_t *blocked; /* [{start, end}] */
};

static void cache_free(struct cache *c)
{
	json_decref(c->slots);
	json_decref(c->blocked);
	free(c->generated_at);
}

static int cache_load(const struct visit *v, struct cache *c)
{
	struct ledger *l = v->ctx->ledger;
	json_t *row = NULL;
	struct err e;
	int found = l->ops->slots_get(l, v->user.id, v->m->id, &row, &e);

	memset(c, 0, sizeof *c);
	if (found == 1) {
		c->slots = json_loads(json_string_value(json_object_get(row, "slots")), 0, NULL);
		c->generated_at = xstrdup(json_string_value(json_object_get(row, "generated_at")));
	}
	if (!json_is_array(c->slots)) {
		json_decref(c->slots);
		c->slots = json_array();
	}
	json_decref(row);
	if (found < 0 || l->ops->booking_blocking(l, v->user.id, v->m->id, v->now_s, &c->blocked,
						  &e) != 0) {
		cache_free(c);
		return -1;
	}
	return 0;
}

static int time_of(const json_t *o, const char *key, time_t *out)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s && rfc3339_parse(s, out) == 0 ? 0 : -1;
}

/* 1 when an entry of blocked overlaps [start, end); one that does not parse blocks all. */
static int blocked_at(const json_t *blocked, time_t start, time_t end)
{
	const json_t *b;
	time_t bs, be;
	size_t i;

	json_array_foreach(blocked, i, b)
		if (time_of(b, "start", &bs) != 0 || time_of(b, "end", &be) != 0 ||
		    (bs < end && start < be))
			return 1;
	return 0;
}

/* A cached slot, well formed and starting after now. */
struct slot {
	time_t start, end;
	long long minutes;
};

static int future_slot(const json_t *s, time_t now, struct slot *out)
{
	const json_t *mins = json_object_get(s, "duration_minutes");

	if (time_of(s, "start", &out->start) != 0 || time_of(s, "end", &out->end) != 0 ||
	    !json_is_integer(mins) || json_integer_value(mins) <= 0 || out->end <= out->start)
		return 0;
	out->minutes = json_integer_value(mins);
	return out->start > now;
}

/* A slot the week offers: in the future and not blocked now. */
static int open_slot(const json_t *s, const struct cache *c, time_t now, struct slot *out)
{
	return future_slot(s, now, out) && !blocked_at(c->blocked, out->start, out->end);
}

/* ---- the week ------------------------------------------------------------------------------ */

static const char *query_word(const json_t *q, const char *key)
{
	return json_string_value(json_object_get(q, key)); /* a repeated key is no answer */
}

static void week(struct visit *v, const json_t *values, const json_t *errors,
		 enum page_week_notice notice, struct api_reply *out)
{
	const struct route *r = v->call->route;
	const char *why;
	json_t *q = urlform_decode(r->query ? r->query : "", r->query_len, &why);
	struct cache c;
	struct page_week w;

	if (cache_load(v, &c) != 0) {
		json_decref(q);
		return visit_unavailable(out, v, 500);
	}
	w = (struct page_week){ c.slots, c.blocked, c.generated_at, v->now, query_word(q, "week"),
				query_word(q, "mins"), notice, values, errors };
	visit_html(out, 200, page_booking_week(&v->page, v->m, &w));
	json_decref(q);
	cache_free(&c);
}

static void slots_json(struct visit *v, struct api_reply *out)
{
	json_t *open = json_array(), *s;
	struct cache c;
	struct slot one;
	size_t i;

	if (cache_load(v, &c) != 0) {
		json_decref(open);
		return visit_unavailable(out, v, 500);
	}
	json_array_foreach(c.slots, i, s)
		if (open_slot(s, &c, v->now, &one))
			json_array_append_new(open, json_pack("{s:O,s:O,s:I}", "start",
							      json_object_get(s, "start"), "end",
							      json_object_get(s, "end"),
							      "duration_minutes",
							      (json_int_t)one.minutes));
	s = json_pack("{s:o}", "slots", open);
	out->status = 200;
	out->type = "application/json";
	out->body = jsonio_compact(s);
	out->len = strlen(out->body);
	json_decref(s);
	cache_free(&c);
}

/* ---- the hold ------------------------------------------------------------------------------- */

/* A whole number written plainly, 1 to 1440; -1 otherwise. */
static long long minutes_of(const char *s)
{
	long long n = 0;

	if (!*s || strlen(s) > 4)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		n = n * 10 + (*s - '0');
	}
	return n >= 1 && n <= 1440 ? n : -1;
}

/*
 * `_slot` = "<start>|<minutes>" when it is a slot of the cache starting after
 * now: 1, 0 not, -1 failure. Whether it is still free is not asked here: the
 * hold's INSERT decides that, and a lost race is answered as one.
 */
static int chosen(const struct visit *v, const json_t *raw, struct slot *out)
{
	const char *s = json_string_value(json_object_get(raw, "_slot")), *bar;
	long long minutes;
	char *start_text;
	struct cache c;
	const json_t *x;
	time_t start;
	size_t i;
	int ok, found = 0;

	if (!s || !(bar = strchr(s, '|')) || (minutes = minutes_of(bar + 1)) < 0)
		return 0;
	start_text = xstrndup(s, (size_t)(bar - s));
	ok = rfc3339_parse(start_text, &start) == 0;
	free(start_text);
	if (!ok)
		return 0;
	if (cache_load(v, &c) != 0)
		return -1;
	json_array_foreach(c.slots, i, x)
		if (!found && future_slot(x, v->now, out) && out->start == start &&
		    out->minutes == minutes)
			found = 1;
	cache_free(&c);
	return found;
}

/* The answers without the page's machinery (every key starting with `_`). NEW reference. */
static json_t *answers(const json_t *raw)
{
	json_t *out = json_object(), *val;
	const char *k;

	json_object_foreach((json_t *)raw, k, val)
		if (k[0] != '_')
			json_object_set(out, k, val);
	return out;
}

/* The values the row carries: the validated answers and the slot, `_`-prefixed. */
static char *hold_payload(const json_t *values, const char *id, const char *start,
			  const char *end, long long minutes)
{
	json_t *all = json_deep_copy(values);
	char *text;

	json_object_set_new(all, "_slot_start", json_string(start));
	json_object_set_new(all, "_slot_end", json_string(end));
	json_object_set_new(all, "_duration_minutes", json_integer(minutes));
	json_object_set_new(all, "_booking_id", json_string(id));
	text = jsonio_compact(all);
	json_decref(all);
	return text;
}

static void hold_answer(struct visit *v, int rc, const json_t *raw, const char *address,
			const struct ledger_hold *h, struct api_reply *out)
{
	switch (rc) {
	case LEDGER_HOLD_HELD:
		return visit_html(out, 200, page_booking_held(&v->page, v->m, address, h->slot_start,
							      h->slot_end));
	case LEDGER_HOLD_TAKEN: /* the race, lost gracefully: the week as it is now */
		return week(v, raw, NULL, PAGE_WEEK_TAKEN, out);
	case LEDGER_HOLD_OVER_BUDGET:
		return visit_html(out, 429, page_too_many(&v->page, PAGE_LIMIT_SENDS));
	case LEDGER_HOLD_TOO_MANY:
		return visit_html(out, 429, page_too_many(&v->page, PAGE_LIMIT_HOLDS));
	default:
		return visit_unavailable(out, v, 500);
	}
}

static void take(struct visit *v, const json_t *raw, const json_t *values, const struct slot *s,
		 struct api_reply *out)
{
	const char *address = validate_reply_to(v->m, values);
	char id[VISIT_TOKEN_LEN + 1], spare[HASH_SHA256_HEX_LEN + 1], start[RFC3339_LEN],
	     end[RFC3339_LEN], expires[RFC3339_LEN], *payload = NULL;
	long long minutes = v->m->policy ? v->m->policy->hold_minutes : 30, seq;
	struct ledger_hold h = { 0 };
	struct visit_send send = { 0 };
	struct err e;
	int rc = -1;

	/* Only a slot of the cache, still ahead and of a positive length, is held (chosen()). */
	assert(s->start > v->now && s->end > s->start && s->minutes > 0);
	rfc3339_format(s->start, start);
	rfc3339_format(s->end, end);
	visit_later(v, minutes * 60, expires);
	if (address && visit_token(id, spare) == 0) {
		payload = hold_payload(values, id, start, end, s->minutes);
		if (visit_send_prepare(&send, v, address, payload) == 0) {
			h = (struct ledger_hold){ send.sub, id, start, end, s->minutes, expires,
						  BOOK_HOLDS_PER_STRANGER };
			rc = v->ctx->ledger->ops->booking_hold(v->ctx->ledger, &h, v->now_s, &seq, &e);
		}
	}
	if (rc == LEDGER_HOLD_HELD)
		visit_send_mail(v, &send, address);
	hold_answer(v, rc, raw, address, &h, out);
	free(payload);
}

static void hold(struct visit *v, struct api_reply *out)
{
	const char *why;
	size_t keys = (size_t)v->ctx->conf->limits.form_keys;
	json_t *raw = urlform_decode_at_most(v->call->body, v->call->len, keys, &why), *fields,
	       *record = NULL, *errors = NULL;
	struct slot s;
	struct err e;
	int found = raw ? chosen(v, raw, &s) : 0;

	if (!raw && why == urlform_too_many) { /* more than any form takes: 413, cheaply */
		errors = page_too_much_errors(keys);
		week(v, NULL, errors, PAGE_WEEK_PLAIN, out);
		if (out->status == 200)
			out->status = 413;
		json_decref(errors);
		return;
	}
	if (found <= 0) { /* a time the cache does not offer now is a prober's, not a race */
		json_decref(raw);
		return found < 0 ? visit_unavailable(out, v, 500) : visit_not_found(out, VISIT_BOOKING);
	}
	fields = answers(raw);
	if (validate_submission(v->m, fields, VALIDATE_SUBMIT, &record, &errors, &e) != 0)
		week(v, raw, errors, PAGE_WEEK_PLAIN, out);
	else
		take(v, raw, json_object_get(record, "values"), &s, out);
	json_decref(fields);
	json_decref(record);
	json_decref(errors);
	json_decref(raw);
}

/* ---- confirm ------------------------------------------------------------------------------- */

/* "You're booked", with the time, from the queued row. */
static void booked(struct visit *v, const json_t *row, struct api_reply *out)
{
	json_t *values = json_loads(json_string_value(json_object_get(row, "payload")), 0, NULL);

	visit_html(out, 200, page_booking_booked(&v->page, v->m, values,
						 jsonio_str(row, "slot_start"),
						 jsonio_str(row, "slot_end")));
	json_decref(values);
}

static void confirm(struct visit *v, struct api_reply *out)
{
	char hash[HASH_SHA256_HEX_LEN + 1], token[VISIT_TOKEN_LEN + 1],
	     manage[HASH_SHA256_HEX_LEN + 1], *url;
	struct ledger_confirm c = { v->user.id, v->m->id, hash, manage, NULL };
	json_t *row = NULL;
	struct err e;
	int rc;

	visit_hash(v->call->route->arg, hash);
	if (visit_token(token, manage) != 0)
		return visit_unavailable(out, v, 500);
	c.manage_url = url = visit_link(v, "m", token);
	rc = v->ctx->ledger->ops->booking_confirm(v->ctx->ledger, &c, v->now_s, &row, &e);
	free(url);
	if (rc == LEDGER_CONFIRM_BOOKED) {
		visit_queued(v);
		booked(v, row, out);
	} else if (rc == LEDGER_CONFIRM_LAPSED) {
		week(v, NULL, NULL, PAGE_WEEK_LAPSED, out);
	} else if (rc == LEDGER_CONFIRM_DEAD) {
		visit_html(out, 404, page_booking_dead_link(&v->page, v->m, PAGE_DEAD_CONFIRM));
	} else {
		visit_unavailable(out, v, 500);
	}
	json_decref(row);
}

/* ---- manage -------------------------------------------------------------------------------- */

/* The booking the manage link names: 1 with *row, or 0 with the answer written. */
static int booking_of(struct visit *v, char hash[HASH_SHA256_HEX_LEN + 1], json_t **row,
		      struct api_reply *out)
{
	struct err e;
	int found;

	visit_hash(v->call->route->arg, hash);
	found = v->ctx->ledger->ops->booking_get(v->ctx->ledger, v->user.id, v->m->id, hash, row,
						 &e);
	if (found < 0)
		visit_unavailable(out, v, 500);
	else if (found == 0)
		visit_html(out, 404, page_booking_dead_link(&v->page, v->m, PAGE_DEAD_MANAGE));
	return found == 1;
}

/* The cancellation record home reads: which booking, that it is off, when it was. */
static int cancel(struct visit *v, const char *hash, const json_t *row, long long *seq)
{
	json_t *rec = json_pack("{s:O,s:b,s:O,s:O}", "_booking_id", json_object_get(row, "id"),
				"_cancelled", 1, "_slot_start", json_object_get(row, "slot_start"),
				"_slot_end", json_object_get(row, "slot_end"));
	char *payload = jsonio_compact(rec), retain[RFC3339_LEN];
	struct ledger_queued q = { v->user.id, v->m->id, payload, visit_retain(v, retain), NULL, 0 };
	struct err e;
	int rc = v->ctx->ledger->ops->booking_cancel(v->ctx->ledger, hash, &q, v->now_s, seq, &e);

	free(payload);
	json_decref(rec);
	return rc;
}

static void manage(struct visit *v, int post, struct api_reply *out)
{
	char hash[HASH_SHA256_HEX_LEN + 1];
	size_t keys = (size_t)v->ctx->conf->limits.form_keys;
	enum page_manage state;
	json_t *row = NULL;
	long long seq;
	int rc = 0;

	if (post && urlform_count(v->call->body, v->call->len) > keys) {
		visit_html(out, 413, page_too_much(&v->page, keys)); /* nothing is cancelled */
		return;
	}
	if (!booking_of(v, hash, &row, out))
		return;
	state = page_manage_state(v->m, jsonio_str(row, "state"), jsonio_str(row, "slot_start"),
				  v->now);
	if (post && state == PAGE_MANAGE_ACTIVE && (rc = cancel(v, hash, row, &seq)) == 1) {
		visit_queued(v);
		visit_html(out, 200, page_booking_cancelled(&v->page, v->m));
	} else if (rc < 0) {
		visit_unavailable(out, v, 500);
	} else if (post && rc == 0 && state == PAGE_MANAGE_ACTIVE) {
		json_decref(row); /* cancelled by another click meanwhile: say how it stands now */
		return manage(v, 0, out);
	} else {
		visit_html(out, 200, page_booking_manage(&v->page, v->m, state,
							 jsonio_str(row, "slot_start"),
							 jsonio_str(row, "slot_end")));
	}
	json_decref(row);
}

void book_handle(struct api_ctx *ctx, const struct api_call *call, struct api_reply *out)
{
	int post = strcmp(call->method, "POST") == 0;
	struct visit v;

	if (visit_open(&v, ctx, call, VISIT_BOOKING, out) != 0)
		return;
	switch (call->route->kind) {
	case ROUTE_BOOK:
		post ? hold(&v, out) : week(&v, NULL, NULL, PAGE_WEEK_PLAIN, out);
		break;
	case ROUTE_BOOK_SLOTS:
		slots_json(&v, out);
		break;
	case ROUTE_BOOK_CONFIRM:
		if (post)
			confirm(&v, out);
		else /* the token is not looked at: a scanner's GET spends nothing and learns nothing */
			visit_html(out, 200, page_booking_confirm(&v.page, v.m));
		break;
	default:
		manage(&v, post, out);
	}
	visit_close(&v);
}
