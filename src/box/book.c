/*
 * book — the booking page's handlers: the week, the hold, confirm, manage.
 */
#include "box/book.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/jsonio.h"
#include "base/text.h"
#include "box/boxconf.h"
#include "box/mailer.h"
#include "box/page_parts.h"
#include "box/route.h"
#include "box/slotcache.h"
#include "box/slotrule.h"
#include "box/typecache.h"
#include "box/urlform.h"
#include "box/visit.h"
#include "box/weekcache.h"
#include "types/manifest.h"
#include "types/validate.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* ---- what is open ------------------------------------------------------------------------ */

/* The slot cache home pushed (parsed once per push: slotcache.h), and what blocks it now. */
struct cache {
	struct slotcache_view view;
	json_t *blocked; /* [{start, end}] */
};

static void cache_free(struct cache *c)
{
	slotcache_view_free(&c->view);
	json_decref(c->blocked);
}

/* The cache, and with blocking set what blocks it now (else c->blocked stays NULL). */
static int cache_load(const struct visit *v, struct cache *c, int blocking)
{
	struct ledger *l = v->ctx->ledger;
	struct err e;

	memset(c, 0, sizeof *c);
	if (slotcache_get(l, v->user.id, v->m->id, &c->view, &e) != 0)
		return -1;
	if (blocking &&
	    l->ops->booking_blocking(l, v->user.id, v->m->id, v->now_s, &c->blocked, &e) != 0) {
		cache_free(c);
		return -1;
	}
	return 0;
}

/* ---- the week ------------------------------------------------------------------------------ */

static const char *query_word(const json_t *q, const char *key)
{
	return json_string_value(json_object_get(q, key)); /* a repeated key is no answer */
}

/* The first second a live hold lapses, if before until (ledger.h's booking_lapse); now when
 * the ledger cannot say or the time does not read: the page is then not kept. */
static time_t lapse_until(const struct visit *v, time_t until)
{
	struct ledger *l = v->ctx->ledger;
	char *first;
	struct err e;
	time_t t;

	if (l->ops->booking_lapse(l, v->user.id, v->m->id, v->now_s, &first, &e) != 0)
		return v->now;
	if (first && rfc3339_parse(first, &t) != 0)
		t = v->now;
	else if (!first || t > until)
		t = until;
	free(first);
	return t;
}

static void week(struct visit *v, const json_t *values, const json_t *errors,
		 enum page_week_notice notice, struct api_reply *out)
{
	const struct route *r = v->call->route;
	struct ledger *l = v->ctx->ledger;
	const char *why;
	json_t *q = urlform_decode(r->query ? r->query : "", r->query_len, &why);
	int plain = notice == PAGE_WEEK_PLAIN && !values && !errors;
	struct weekcache_key k = { v->user.id, v->m->id, typecache_id(v->mref), 0, v->page.base,
				   v->page.assets, v->page.lang, query_word(q, "week"),
				   query_word(q, "mins") };
	struct cache c;
	struct page_week w;
	struct err e;
	struct api_doc *kept;
	char *doc;

	const struct ledger_stamp *seen = v->stamped ? &v->stamp : NULL;

	/* nothing committed since the page was last confirmed: it holds (weekcache.h) */
	if (plain && (kept = weekcache_held(&k, seen, v->now))) {
		visit_doc(out, 200, kept);
		json_decref(q);
		return;
	}
	/* the counter before the page's inputs (weekcache.h): a change between leaves no stale page */
	if (plain && l->ops->slots_stamp(l, v->user.id, v->m->id, &k.stamp, &e) != 0) {
		json_decref(q);
		return visit_unavailable(out, v, 500);
	}
	if (plain && (kept = weekcache_get(&k, seen, v->now))) {
		visit_doc(out, 200, kept);
		json_decref(q);
		return;
	}
	if (cache_load(v, &c, 1) != 0) {
		json_decref(q);
		return visit_unavailable(out, v, 500);
	}
	w = (struct page_week){ c.view.slots, c.view.n, c.blocked, c.view.generated_at, v->now,
				k.week, k.mins, notice, values, errors, NULL, NULL };
	doc = page_booking_week(&v->page, v->m, &w);
	if (plain) { /* kept, and sent as the kept document is */
		kept = api_doc_new(doc);
		free(doc);
		weekcache_put(&k, seen, v->now, lapse_until(v, page_booking_week_until(v->m, &w)),
			      kept);
		visit_doc(out, 200, kept);
	} else {
		visit_html(out, 200, doc);
	}
	json_decref(q);
	cache_free(&c);
}

static void slots_json(struct visit *v, struct api_reply *out)
{
	json_t *open = json_array(), *s;
	struct slotrule_slot *v_open;
	char start[RFC3339_LEN], end[RFC3339_LEN];
	struct cache c;
	size_t n;

	if (cache_load(v, &c, 1) != 0) {
		json_decref(open);
		return visit_unavailable(out, v, 500);
	}
	n = slotrule_open(c.view.slots, c.view.n, c.blocked, v->now, &v_open);
	for (size_t i = 0; i < n; i++) { /* in start order, written as the page's buttons are */
		rfc3339_format(v_open[i].start, start);
		rfc3339_format(v_open[i].end, end);
		json_array_append_new(open, json_pack("{s:s,s:s,s:I}", "start", start, "end", end,
						      "duration_minutes",
						      (json_int_t)v_open[i].minutes));
	}
	free(v_open);
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
 * now: CHOSEN_OPEN when the open-slot rule (slotrule.h, the week's own) finds
 * nothing blocking it now, CHOSEN_TAKEN when a live hold or booking does (the
 * race is already lost: no write transaction is spent on it), 0 when the
 * cache does not offer it, -1 on failure. An open one may still be lost: the
 * hold's INSERT decides, and a lost race is answered as one.
 */
enum { CHOSEN_OPEN = 1, CHOSEN_TAKEN = 2 };

static int chosen(const struct visit *v, const json_t *raw, struct slotrule_slot *out)
{
	const char *s = json_string_value(json_object_get(raw, "_slot")), *bar;
	struct slotrule_slot *offered, *open = NULL;
	long long minutes;
	char *start_text;
	struct cache c;
	time_t start;
	size_t n;
	int ok, found = 0;

	if (!s || !(bar = strchr(s, '|')) || (minutes = minutes_of(bar + 1)) < 0)
		return 0;
	start_text = xstrndup(s, (size_t)(bar - s));
	ok = rfc3339_parse(start_text, &start) == 0;
	free(start_text);
	if (!ok)
		return 0;
	if (cache_load(v, &c, 1) != 0)
		return -1;
	n = slotrule_open(c.view.slots, c.view.n, NULL, v->now, &offered);
	for (size_t i = 0; i < n && !found; i++)
		if (offered[i].start == start && offered[i].minutes == minutes) {
			*out = offered[i];
			found = slotrule_open(out, 1, c.blocked, v->now, &open) ? CHOSEN_OPEN
										 : CHOSEN_TAKEN;
		}
	free(open);
	free(offered);
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

/*
 * The values the row carries: the validated answers and the slot, `_`-prefixed.
 * A reschedule (values NULL, replaces the booking it moves) carries machinery
 * alone: home has the answers with the booking it moves (files.md §2.2).
 */
static char *hold_payload(const json_t *values, const char *id, const char *start,
			  const char *end, long long minutes, long long version,
			  const char *replaces)
{
	json_t *all = values ? json_deep_copy(values) : json_object();
	char *text;

	if (replaces)
		json_object_set_new(all, "_rescheduled_from", json_string(replaces));
	json_object_set_new(all, "_slot_start", json_string(start));
	json_object_set_new(all, "_slot_end", json_string(end));
	json_object_set_new(all, "_duration_minutes", json_integer(minutes));
	json_object_set_new(all, "_booking_id", json_string(id));
	json_object_set_new(all, "_type_version", json_integer(version));
	text = jsonio_compact(all);
	json_decref(all);
	return text;
}

static void move_week(struct visit *v, const json_t *row, const json_t *raw,
		      enum page_week_notice notice, struct api_reply *out);

/* What a hold POST answers; moving: the booking a reschedule moves (its week), else NULL. */
static void hold_answer(struct visit *v, int rc, const json_t *raw, const char *address,
			const struct ledger_hold *h, const json_t *moving, struct api_reply *out)
{
	switch (rc) {
	case LEDGER_HOLD_HELD:
		return visit_html(out, 200, page_booking_held(&v->page, v->m, address, h->slot_start,
							      h->slot_end,
							      jsonio_str(moving, "slot_start"),
							      jsonio_str(moving, "slot_end")));
	case LEDGER_HOLD_TAKEN: /* the race, lost gracefully: the week as it is now */
		if (moving)
			return move_week(v, moving, raw, PAGE_WEEK_TAKEN, out);
		return week(v, raw, NULL, PAGE_WEEK_TAKEN, out);
	case LEDGER_HOLD_OVER_BUDGET:
		return visit_html(out, 429, page_too_many(&v->page, PAGE_LIMIT_SENDS));
	case LEDGER_HOLD_TOO_MANY:
		return visit_html(out, 429, page_too_many(&v->page, PAGE_LIMIT_HOLDS));
	default:
		return visit_unavailable(out, v, 500);
	}
}

/* What a hold is of: the address that confirms it, and for a reschedule the booking it moves. */
struct hold_of {
	const char *address;
	const json_t *values; /* the validated answers; NULL for a reschedule */
	const json_t *moving; /* a reschedule: the booking's row (booking_get), else NULL */
};

/* "<old time>\n\nTo: <new time>", as the reschedule's mail says it; NULL when a time does not read. */
static char *move_words(const struct visit *v, const json_t *moving, const char *start,
			const char *end)
{
	struct buf b = BUF_INIT;

	if (page_when_text(&b, v->m, jsonio_str(moving, "slot_start"),
			   jsonio_str(moving, "slot_end")) != 0) {
		buf_free(&b);
		return NULL;
	}
	buf_adds(&b, "\n\nTo: ");
	if (page_when_text(&b, v->m, start, end) != 0) {
		buf_free(&b);
		return NULL;
	}
	return buf_steal(&b);
}

static void take(struct visit *v, const json_t *raw, const struct hold_of *of,
		 const struct slotrule_slot *s, struct api_reply *out)
{
	const char *address = of->address,
		   *replaces = of->moving ? jsonio_str(of->moving, "id") : NULL;
	char id[VISIT_TOKEN_LEN + 1], spare[HASH_SHA256_HEX_LEN + 1], start[RFC3339_LEN],
	     end[RFC3339_LEN], expires[RFC3339_LEN], *payload = NULL, *words = NULL, *link;
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
		payload = hold_payload(of->values, id, start, end, s->minutes, v->m->version,
				       replaces);
		if (visit_send_prepare(&send, v, address, payload) == 0) {
			if (of->moving && strcmp(send.recipient_hash,
						 jsonio_str_or(of->moving, "recipient_hash", "")) != 0) {
				free(payload);
				return move_week(v, of->moving, raw, PAGE_WEEK_NOT_YOURS, out);
			}
			h = (struct ledger_hold){ send.sub, id, start, end, s->minutes, expires,
						  BOOK_HOLDS_PER_STRANGER, replaces };
			rc = v->ctx->ledger->ops->booking_hold(v->ctx->ledger, &h, v->now_s, &seq, &e);
		}
	}
	if (rc == LEDGER_HOLD_HELD && !of->moving) {
		visit_send_mail(v, &send, address);
	} else if (rc == LEDGER_HOLD_HELD) {
		words = move_words(v, of->moving, start, end);
		link = visit_link(v, "c", send.token);
		if (v->ctx->mailer)
			mailer_verification_move(v->ctx->mailer, address, v->m->title, link, words);
		free(link);
		free(words);
	}
	hold_answer(v, rc, raw, address, &h, of->moving, out);
	free(payload);
}

static void hold(struct visit *v, struct api_reply *out)
{
	const char *why;
	size_t keys = (size_t)v->ctx->conf->limits.form_keys;
	json_t *raw = urlform_decode_at_most(v->call->body, v->call->len, keys, &why), *fields,
	       *record = NULL, *errors = NULL;
	struct slotrule_slot s;
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
	else if (found == CHOSEN_TAKEN)
		week(v, raw, NULL, PAGE_WEEK_TAKEN, out);
	else
		take(v, raw,
		     &(struct hold_of){ validate_reply_to(v->m, json_object_get(record, "values")),
					json_object_get(record, "values"), NULL },
		     &s, out);
	json_decref(fields);
	json_decref(record);
	json_decref(errors);
	json_decref(raw);
}

/* ---- confirm ------------------------------------------------------------------------------- */

/* "You're booked", with the time, from the queued row; a reschedule says from when to when. */
static void booked(struct visit *v, const json_t *row, struct api_reply *out)
{
	json_t *values;

	if (jsonio_str(row, "from_start"))
		return visit_html(out, 200, page_booking_moved(&v->page, v->m,
							       jsonio_str(row, "from_start"),
							       jsonio_str(row, "from_end"),
							       jsonio_str(row, "slot_start"),
							       jsonio_str(row, "slot_end")));
	values = json_loads(json_string_value(json_object_get(row, "payload")), 0, NULL);

	visit_html(out, 200, page_booking_booked(&v->page, v->m, values,
						 jsonio_str(row, "slot_start"),
						 jsonio_str(row, "slot_end")));
	json_decref(values);
}

/* A confirmation link that does not confirm now: what it booked, that it lapsed or expired. */
static void link_gone(struct visit *v, struct api_reply *out)
{
	json_t *row = NULL;
	int st = visit_link_status(v, LEDGER_LINK_VERIFY, &row);
	const char *outcome = jsonio_str_or(row, "outcome", ""), *start = jsonio_str(row, "slot_start"),
		   *end = jsonio_str(row, "slot_end");

	if (st < 0)
		visit_unavailable(out, v, 500);
	else if (st == LEDGER_LINK_SPENT && strcmp(outcome, "booked") == 0)
		visit_html(out, 200, page_booking_spent(&v->page, v->m,
							page_manage_state(v->m, jsonio_str(row, "state"),
									  start, v->now),
							start, end));
	else if (st == LEDGER_LINK_SPENT) /* the hold lapsed at the click: the week, as then */
		week(v, NULL, NULL, PAGE_WEEK_LAPSED, out);
	else if (st == LEDGER_LINK_EXPIRED)
		visit_html(out, 404, page_booking_expired(&v->page, v->m));
	else
		visit_html(out, 404, page_booking_dead_link(&v->page, v->m, PAGE_DEAD_CONFIRM));
	json_decref(row);
}

/* GET c/{token}: a live link offers its button (a scanner's GET spends nothing). */
static void confirm_page(struct visit *v, struct api_reply *out)
{
	json_t *row = NULL;
	int st = visit_link_status(v, LEDGER_LINK_VERIFY, &row);

	json_decref(row);
	if (st == LEDGER_LINK_LIVE)
		visit_html(out, 200, page_booking_confirm(&v->page, v->m));
	else if (st < 0)
		visit_unavailable(out, v, 500);
	else
		link_gone(v, out);
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
	} else if (rc == LEDGER_CONFIRM_GONE) {
		visit_html(out, 200, page_booking_move_gone(&v->page, v->m));
	} else if (rc == LEDGER_CONFIRM_DEAD) { /* used already (here or at another box), expired */
		link_gone(v, out);
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

/* ---- reschedule: the week again, bound to the manage link (box-pages.md §3.5) ------------- */

/* "/s/ada/consult/m/<token>": the manage link's own path, where the move week posts. */
static char *manage_path(const struct visit *v)
{
	return xasprintf("%s/m/%s", v->base, v->call->route->arg);
}

/* The week of open times to move the booking row to; raw: a refused POST (its `_slot` kept). */
static void move_week(struct visit *v, const json_t *row, const json_t *raw,
		      enum page_week_notice notice, struct api_reply *out)
{
	const struct route *r = v->call->route;
	const char *why;
	json_t *q = urlform_decode(r->query ? r->query : "", r->query_len, &why);
	struct page_ctx ctx = v->page;
	char *path = manage_path(v);
	struct cache c;
	struct page_week w;

	if (cache_load(v, &c, 1) != 0) {
		json_decref(q);
		free(path);
		return visit_unavailable(out, v, 500);
	}
	ctx.base = path;
	w = (struct page_week){ c.view.slots, c.view.n, c.blocked, c.view.generated_at, v->now,
				query_word(q, "week"), query_word(q, "mins"), notice, raw, NULL,
				jsonio_str(row, "slot_start"), jsonio_str(row, "slot_end") };
	visit_html(out, 200, page_booking_week(&ctx, v->m, &w));
	json_decref(q);
	cache_free(&c);
	free(path);
}

/* The address a reschedule is confirmed by, trimmed; NULL when there is none. */
static char *move_address(const json_t *raw)
{
	const char *s = json_string_value(json_object_get(raw, "email"));
	size_t off, n;

	if (!s)
		return NULL;
	text_trim(s, strlen(s), &off, &n);
	return n ? xstrndup(s + off, n) : NULL;
}

/* 1 when the slot overlaps the booking's own time (or that does not read). */
static int overlaps_own(const json_t *row, const struct slotrule_slot *s)
{
	time_t start, end;

	if (rfc3339_parse(jsonio_str_or(row, "slot_start", ""), &start) != 0 ||
	    rfc3339_parse(jsonio_str_or(row, "slot_end", ""), &end) != 0)
		return 1;
	return s->start < end && start < s->end;
}

/*
 * POST m/{token} with `_slot`: a new hold that replaces the booking, confirmed
 * by a link to the address it was made with (by its hash: the box keeps no
 * address). A time overlapping the booking's own is refused with the reason:
 * while both are live they may not overlap (the ledger's one-live-row rule).
 */
static void move_hold(struct visit *v, const json_t *row, struct api_reply *out)
{
	const char *why;
	size_t keys = (size_t)v->ctx->conf->limits.form_keys;
	json_t *raw = urlform_decode_at_most(v->call->body, v->call->len, keys, &why);
	struct slotrule_slot s;
	int found = raw ? chosen(v, raw, &s) : 0;
	char *address = move_address(raw);

	if (found < 0)
		visit_unavailable(out, v, 500);
	else if (found == 0)
		visit_not_found(out, VISIT_BOOKING);
	else if (overlaps_own(row, &s))
		move_week(v, row, raw, PAGE_WEEK_OVERLAP, out);
	else if (!address)
		move_week(v, row, raw, PAGE_WEEK_NOT_YOURS, out);
	else if (found == CHOSEN_TAKEN)
		move_week(v, row, raw, PAGE_WEEK_TAKEN, out);
	else
		take(v, raw, &(struct hold_of){ address, NULL, row }, &s, out);
	free(address);
	json_decref(raw);
}

/* 1 when a manage POST asks to move (it names a `_slot`), not to cancel. */
static int wants_move(const struct visit *v)
{
	const char *why;
	json_t *raw = urlform_decode(v->call->body ? v->call->body : "", v->call->len, &why);
	int yes = raw && json_object_get(raw, "_slot") != NULL;

	json_decref(raw);
	return yes;
}

static void manage_page(struct visit *v, enum page_manage state, const json_t *row,
			struct api_reply *out)
{
	struct page_ctx ctx = v->page;
	char *path = manage_path(v);

	if (state == PAGE_MANAGE_ACTIVE)
		ctx.base = path; /* its "pick another time" link is the manage link's own */
	if (state == PAGE_MANAGE_MOVED)
		visit_html(out, 200, page_booking_manage_moved(&ctx, v->m,
							       jsonio_str(row, "slot_start"),
							       jsonio_str(row, "slot_end"),
							       jsonio_str(row, "moved_start"),
							       jsonio_str(row, "moved_end")));
	else
		visit_html(out, 200, page_booking_manage(&ctx, v->m, state,
							 jsonio_str(row, "slot_start"),
							 jsonio_str(row, "slot_end")));
	free(path);
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
	if (state == PAGE_MANAGE_ACTIVE && (post ? wants_move(v) : v->call->route->query_len > 0)) {
		if (post)
			move_hold(v, row, out);
		else
			move_week(v, row, NULL, PAGE_WEEK_PLAIN, out);
	} else if (post && wants_move(v)) {
		manage_page(v, state, row, out); /* nothing to move any more: say how it stands */
	} else if (post && state == PAGE_MANAGE_ACTIVE && (rc = cancel(v, hash, row, &seq)) == 1) {
		visit_queued(v);
		visit_html(out, 200, page_booking_cancelled(&v->page, v->m));
	} else if (rc < 0) {
		visit_unavailable(out, v, 500);
	} else if (post && rc == 0 && state == PAGE_MANAGE_ACTIVE) {
		json_decref(row); /* cancelled by another click meanwhile: say how it stands now */
		return manage(v, 0, out);
	} else {
		manage_page(v, state, row, out);
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
		else
			confirm_page(&v, out);
		break;
	default:
		manage(&v, post, out);
	}
	visit_close(&v);
}
