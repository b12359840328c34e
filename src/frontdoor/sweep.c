/*
 * sweep — the booking sweep: read the records once, settle cancellations,
 * then bookings, each step written to the ledger before it counts as done.
 */
#include "frontdoor/sweep.h"

#include "base/buf.h"
#include "base/clock.h"
#include "base/err.h"
#include "base/jsonio.h"
#include "base/killpoint.h"
#include "base/rfc3339.h"
#include "base/verdict.h"
#include "calendar/calendar.h"
#include "config/config.h"
#include "requests/record.h"
#include "frontdoor/remind.h"
#include "requests/state.h"
#include "requests/store.h"
#include "frontdoor/sweep_ledger.h"
#include "frontdoor/sweep_offer.h"
#include "outbox/invite.h"
#include "outbox/mail.h"
#include "types/catalog.h"
#include "types/manifest.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BOOKING_ID_MAX 128
#define LINK_MAX 2048

#define STEP_EVENT "event"
#define STEP_INVITE "invite"
#define STEP_BOOKED "booked"
#define STEP_CANCELLED "cancelled"
#define STEP_REMOVE "remove"
#define STEP_CANCEL_MAIL "cancel_mail"
#define STEP_MOVED "moved" /* of the booking a rescheduling moved: its record closed */

static const char unconfirmed_warning[] =
	"a sweep was interrupted while sending this message; it was not sent again, so "
	"check that it arrived";
static const char unconfirmed_by_server[] =
	"the mail server took this message but never confirmed it; it was not sent again, so "
	"check that it arrived";

/* A record the sweep claims, as the first read saw it. */
struct todo {
	long long seq;
	int cancel;       /* _cancelled: true */
	int valid;
	char *booking_id; /* NULL when _booking_id is not an id the sweep reads */
	char *moves;      /* a rescheduling: the _rescheduled_from id; else NULL */
	int moves_bad;    /* a rescheduling whose _rescheduled_from is not an id */
	char type_id[RECORD_TYPE_ID_MAX + 1];
	char state[32];
	time_t start, end; /* the slot the record names, when it reads (for the report) */
	time_t made;       /* the record's created_at: when the booking was made (reminders) */
};

struct sweep {
	struct store *store;
	const struct config *cfg;
	struct sweep_ledger ledger;
	int dry;
	const struct sweep_report *rep;
	struct sweep_counts *counts;
	struct todo *todo;
	size_t n;
	const char *reason; /* the next line's reason (sweep_offer.h), then NULL again */
};

/* A booking's slot and people: from the ledger once decided, else from its record. */
struct booking {
	char uid[CALENDAR_UID_MAX];
	time_t start, end;
	char *attendee, *summary, *link; /* owned; link may be NULL */
	char *zone;                      /* owned: the zone the mail tells the time in; NULL: UTC */
	int sequence;                    /* the event's SEQUENCE: 0, one more at each move */
	time_t from_start, from_end;     /* a move: the time the event had; else 0 */
	char *moved_from;                /* a move: the booking id it replaces (owned); else NULL */
	const char *warning;
	char note[512]; /* what the offer check said (sweep_offer.h) */
};

static void booking_free(struct booking *b)
{
	free(b->attendee);
	free(b->summary);
	free(b->link);
	free(b->zone);
	free(b->moved_from);
	memset(b, 0, sizeof *b);
}

/* ---- which records ------------------------------------------------------------------ */

int sweep_claims(const struct record *r)
{
	const json_t *v = record_values(r);

	return json_object_get(v, "_booking_id") != NULL || json_object_get(v, "_cancelled") != NULL;
}

/* The box's ids are lowercase hex; anything outside [A-Za-z0-9_-] is not read at all. */
static char *id_of(const struct record *r, const char *key)
{
	const char *id = jsonio_str(record_values(r), key);
	size_t n = id ? strlen(id) : 0;

	if (n == 0 || n > BOOKING_ID_MAX ||
	    strspn(id, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-") != n)
		return NULL;
	return xstrdup(id);
}

static int gather_one(struct record *r, void *ctx, struct err *e)
{
	struct sweep *sw = ctx;
	struct todo *t;

	(void)e;
	if (!sweep_claims(r))
		return VERDICT_NEXT;
	sw->todo = xrealloc(sw->todo, (sw->n + 1) * sizeof *sw->todo);
	t = &sw->todo[sw->n++];
	memset(t, 0, sizeof *t);
	t->seq = r->seq;
	t->cancel = json_is_true(json_object_get(record_values(r), "_cancelled"));
	t->valid = record_valid(r);
	t->booking_id = id_of(r, "_booking_id");
	if (json_object_get(record_values(r), "_rescheduled_from")) {
		t->moves = id_of(r, "_rescheduled_from");
		t->moves_bad = !t->moves;
	}
	snprintf(t->type_id, sizeof t->type_id, "%s", r->type_id);
	snprintf(t->state, sizeof t->state, "%s", record_state(r));
	if (!sweep_slot(r, &t->start, &t->end))
		t->start = t->end = 0;
	if (rfc3339_parse(record_created_at(r), &t->made) != 0)
		t->made = 0;
	return VERDICT_NEXT;
}

/* ---- reporting ---------------------------------------------------------------------- */

static void say(struct sweep *sw, enum sweep_outcome o, const struct todo *t,
		const struct booking *b, long long booking_seq, const char *msg)
{
	int has_event = b && b->uid[0] &&
			(o == SWEEP_BOOKED || o == SWEEP_CANCELLED || o == SWEEP_MOVED);
	int own_slot = b && b->start;
	struct sweep_line l = { o, sw->dry, t->seq, t->booking_id, booking_seq,
				// cppcheck-suppress nullPointer ; b is tested in own_slot
				own_slot ? b->start : t->start, own_slot ? b->end : t->end,
				// cppcheck-suppress nullPointer ; b is tested in has_event and own_slot
				has_event ? b->uid : NULL, b ? b->attendee : NULL, msg, sw->reason, NULL };
	size_t *count[] = { &sw->counts->booked, &sw->counts->conflicts, &sw->counts->cancelled,
			    &sw->counts->closed, &sw->counts->left, &sw->counts->failed,
			    &sw->counts->reminded, &sw->counts->moved };

	sw->reason = NULL;
	(*count[o])++;
	if (sw->rep && sw->rep->line)
		sw->rep->line(&l, sw->rep->ctx);
}

static void fail(struct sweep *sw, const struct todo *t, const struct booking *b,
		 const struct err *e)
{
	say(sw, SWEEP_FAILED, t, b, -1, e->msg);
}

/* ---- a booking's details ------------------------------------------------------------ */

/* The manage link the box made: a web address on one line, nothing a terminal or mail could misread. */
static int link_ok(const char *s)
{
	size_t n = strlen(s);

	if (n > LINK_MAX || (strncmp(s, "https://", 8) != 0 && strncmp(s, "http://", 7) != 0))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (s[i] <= 0x20 || s[i] >= 0x7f)
			return 0;
	return 1;
}

static int slot_of(const json_t *v, struct booking *b, struct err *e)
{
	const json_t *mins = json_object_get(v, "_duration_minutes");
	const char *s = jsonio_str(v, "_slot_start"), *z = jsonio_str(v, "_slot_end");

	if (!s || !z || rfc3339_parse(s, &b->start) != 0 || rfc3339_parse(z, &b->end) != 0)
		return err_set(e, ERR_PARSE, "_slot_start and _slot_end must be RFC 3339 times");
	if (b->end <= b->start)
		return err_set(e, ERR_PARSE, "the slot ends before it starts");
	if (mins && (!json_is_integer(mins) ||
		     json_integer_value(mins) * 60 != (json_int_t)(b->end - b->start)))
		return err_set(e, ERR_PARSE, "_duration_minutes does not match the slot");
	return 0;
}

int sweep_slot(const struct record *r, time_t *start, time_t *end)
{
	struct booking b = { 0 };
	struct err e;

	if (!sweep_claims(r) || slot_of(record_values(r), &b, &e) != 0)
		return 0;
	*start = b.start;
	*end = b.end;
	return 1;
}

/* A manifest's title fit for a summary and a subject: one line, no control characters. */
static int title_ok(const char *s)
{
	if (!s || !*s)
		return 0;
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 0;
	return 1;
}

/*
 * What the booking's type says, as the booking page said it: its title (else
 * its id) and the zone its times were shown in — [availability] timezone,
 * else [calendar] timezone, else UTC (b->zone NULL). A type that is gone or
 * does not check leaves the id and the owner's zone.
 */
static void type_look(const struct config *cfg, const char *type_id, struct booking *b,
		      int want_title)
{
	struct manifest *m = NULL;
	const char *zone = cfg->calendar_timezone;
	struct err e;

	if (catalog_load(type_id, &m, NULL, &e) != 0)
		m = NULL;
	if (m && m->availability && m->availability->timezone && *m->availability->timezone)
		zone = m->availability->timezone;
	if (!b->zone && zone && *zone)
		b->zone = xstrdup(zone);
	if (want_title)
		b->summary = xasprintf("%s (booked by %s)", m && title_ok(m->title) ? m->title :
				       type_id, b->attendee);
	manifest_free(m);
}

static int booking_from_values(const struct config *cfg, const struct record *r, const char *id,
			       struct booking *b, struct err *e)
{
	const json_t *v = record_values(r);
	const char *link = jsonio_str(v, "_manage_url"), *to = record_reply_to(r);

	if (slot_of(v, b, e) != 0)
		return -1;
	if (json_object_get(v, "_manage_url") && (!link || !link_ok(link)))
		return err_set(e, ERR_PARSE, SWEEP_BAD_MANAGE_URL ": _manage_url is not a web "
			       "address");
	if (!to || !*to)
		return err_set(e, ERR_NO_REPLY_TO, "the booking has no reply_to to invite");
	if (!(b->attendee = mail_address_spec(to, "reply_to", e)))
		return -1;
	b->link = link ? xstrdup(link) : NULL;
	type_look(cfg, r->type_id, b, 1);
	snprintf(b->uid, sizeof b->uid, "booking-%s@mecha", id);
	return 0;
}

static int booking_from_record(struct sweep *sw, const struct todo *t, struct booking *b,
			       struct err *e)
{
	struct record r;
	int rc;

	if (store_get(sw->store, t->seq, &r, e) != 0)
		return -1;
	rc = booking_from_values(sw->cfg, &r, t->booking_id, b, e);
	record_free(&r);
	return rc;
}

/*
 * The details the event's intent recorded: what was decided is what is
 * carried out. A ledger from before the zone was recorded asks the type.
 */
static int booking_from_ledger(const struct config *cfg, const char *type_id, const json_t *info,
			       struct booking *b, struct err *e)
{
	const char *uid = jsonio_str(info, "uid"), *to = jsonio_str(info, "attendee");
	const char *sum = jsonio_str(info, "summary"), *link = jsonio_str(info, "link");
	const char *zone = jsonio_str(info, "zone");

	if (!uid || !to || !sum || strlen(uid) >= sizeof b->uid ||
	    rfc3339_parse(jsonio_str_or(info, "start", ""), &b->start) != 0 ||
	    rfc3339_parse(jsonio_str_or(info, "end", ""), &b->end) != 0)
		return err_set(e, ERR_PARSE, "the booking ledger's event entry is incomplete");
	snprintf(b->uid, sizeof b->uid, "%s", uid);
	b->attendee = xstrdup(to);
	b->summary = xstrdup(sum);
	b->link = link ? xstrdup(link) : NULL;
	if (zone)
		b->zone = xstrdup(zone);
	else if (!json_object_get(info, "zone"))
		type_look(cfg, type_id, b, 0);
	b->sequence = (int)json_integer_value(json_object_get(info, "sequence"));
	if (jsonio_str(info, "moved_from") &&
	    (rfc3339_parse(jsonio_str_or(info, "from_start", ""), &b->from_start) != 0 ||
	     rfc3339_parse(jsonio_str_or(info, "from_end", ""), &b->from_end) != 0))
		return err_set(e, ERR_PARSE, "the booking ledger's move entry is incomplete");
	if (jsonio_str(info, "moved_from"))
		b->moved_from = xstrdup(jsonio_str(info, "moved_from"));
	return 0;
}

static json_t *event_details(const struct booking *b)
{
	char s[RFC3339_LEN], z[RFC3339_LEN];
	json_t *j;

	rfc3339_format(b->start, s);
	rfc3339_format(b->end, z);
	j = json_pack("{s:s,s:s,s:s,s:s,s:s}", "uid", b->uid, "start", s, "end", z, "attendee",
		      b->attendee, "summary", b->summary);
	if (b->link)
		json_object_set_new(j, "link", json_string(b->link));
	json_object_set_new(j, "zone", b->zone ? json_string(b->zone) : json_null());
	if (b->sequence)
		json_object_set_new(j, "sequence", json_integer(b->sequence));
	if (b->moved_from) {
		rfc3339_format(b->from_start, s);
		rfc3339_format(b->from_end, z);
		json_object_set_new(j, "moved_from", json_string(b->moved_from));
		json_object_set_new(j, "from_start", json_string(s));
		json_object_set_new(j, "from_end", json_string(z));
	}
	return j;
}

/* ---- side effects ------------------------------------------------------------------- */

static int write_event(struct sweep *sw, const struct booking *b, struct err *e)
{
	char *desc = b->link ? xasprintf("To change or cancel this booking: %s", b->link) : NULL;
	struct calendar_event ev = { b->uid, b->summary, desc, NULL, b->attendee,
				     b->start, b->end, b->sequence };
	char uid[CALENDAR_UID_MAX];
	int rc = calendar_event_write(sw->cfg, &ev, uid, e);

	free(desc);
	return rc;
}

/* The invitation (REQUEST) or its withdrawal (CANCEL), through the outbox's mail route. */
static int send_letter(struct sweep *sw, const struct booking *b, const char *booking_id,
		       enum calendar_itip_method m, struct err *e)
{
	int cancel = m == CALENDAR_ITIP_CANCEL;
	char *org = mail_address_spec(sw->cfg->mail_from, "[mail] from", e);
	char *mid = xasprintf("booking-%s-%s", booking_id, cancel ? "cancel" : "request");
	struct calendar_event ev = { b->uid, b->summary, NULL, org, b->attendee,
				     b->start, b->end, b->sequence };
	struct invite_letter l = { &ev, m, mid, cancel ? NULL : b->link, b->zone };
	struct mail_message msg;
	int rc = -1;

	/* A move's REQUEST says where from; its CANCEL later is of the event as it is now. */
	if (org && (cancel || !b->moved_from ? invite_message(sw->cfg, &l, &msg, e)
					     : invite_move_message(sw->cfg, &l, b->from_start,
								   b->from_end, &msg, e)) == 0) {
		rc = mail_deliver(sw->cfg, &msg, e);
		mail_message_free(&msg);
	}
	free(org);
	free(mid);
	return rc;
}

/*
 * intent → send → done, or failed (the next sweep sends it again). An intent
 * found alone, or a send the server never confirmed, is "unconfirmed": the
 * message may have arrived, so it is never sent again.
 */
static int mail_step(struct sweep *sw, const struct todo *t, struct booking *b, const char *step,
		     enum calendar_itip_method m, const char *kill_before, struct err *e)
{
	const char *id = t->booking_id, *phase = sweep_ledger_phase(&sw->ledger, id, step);
	struct sweep_ledger *l = &sw->ledger;
	struct err why;
	int rc;

	if (sweep_ledger_settled(l, id, step))
		return 0;
	if (phase && strcmp(phase, LEDGER_INTENT) == 0) {
		b->warning = unconfirmed_warning;
		return sweep_ledger_add(l, id, t->seq, step, LEDGER_UNCONFIRMED, NULL, e);
	}
	killpoint(kill_before);
	if (sweep_ledger_add(l, id, t->seq, step, LEDGER_INTENT, NULL, e) != 0)
		return -1;
	rc = send_letter(sw, b, id, m, e);
	if (rc != 0 && e->code == ERR_DELIVERY_UNCONFIRMED) {
		b->warning = unconfirmed_by_server;
		return sweep_ledger_add(l, id, t->seq, step, LEDGER_UNCONFIRMED, NULL, e);
	}
	if (rc != 0) {
		if (sweep_ledger_add(l, id, t->seq, step, LEDGER_FAILED, NULL, &why) != 0)
			err_prefix(e, "(and recording that failed: %s)", why.msg);
		return -1;
	}
	killpoint(m == CALENDAR_ITIP_CANCEL ? "cancel-mail-sent" : "invite-sent");
	return sweep_ledger_add(l, id, t->seq, step, LEDGER_DONE, NULL, e);
}

struct move {
	const char *to;
	const char *note;
};

static int move_one(struct record *r, void *arg, struct err *e)
{
	const struct move *m = arg;

	if (strcmp(record_state(r), m->to) == 0)
		return VERDICT_LEAVE; /* a rerun after the move: nothing left to do */
	if (state_move(r, m->to, MOVER_SWEEP, e) != 0)
		return -1;
	record_set_note(r, m->note);
	return VERDICT_WRITE;
}

static int move_record(struct sweep *sw, long long seq, const char *to, const char *note,
		       struct err *e)
{
	struct move m = { to, note };

	return store_update(sw->store, seq, move_one, &m, e);
}

/* ---- cancellations ------------------------------------------------------------------ */

enum { WITHDRAW_EVENT = 1, WITHDRAW_MAIL = 2 };

/* A booking record of id that the sweep booked earlier (the fallback when the ledger is silent). */
static int booked_record(struct sweep *sw, const char *id, struct booking *b, struct err *e)
{
	for (size_t i = 0; i < sw->n; i++) {
		struct todo *t = &sw->todo[i];
		struct record r;
		int rc;
		if (t->cancel || !t->booking_id || strcmp(t->booking_id, id) != 0 ||
		    strcmp(t->state, STATE_BOOKED) != 0 || store_get(sw->store, t->seq, &r, e) != 0)
			continue;
		rc = record_note(&r) && strlen(record_note(&r)) < sizeof b->uid &&
		     booking_from_values(sw->cfg, &r, id, b, e) == 0;
		if (rc)
			snprintf(b->uid, sizeof b->uid, "%s", record_note(&r));
		record_free(&r);
		if (rc)
			return 1;
		booking_free(b);
	}
	return 0;
}

static int known_booking(struct sweep *sw, const struct todo *t, struct booking *o, char *why,
			 size_t n, struct err *e);

/*
 * A cancellation of a rescheduling's new id that came before the sweep moved
 * anything (the requester moved, then cancelled): the booking it would have
 * moved is what is withdrawn. Its event becomes the new id's in the ledger
 * first (an event entry, done, naming the booking it came from), so a rerun
 * after a kill finds it there. 1 with b filled, 0 nothing of the kind.
 */
static int unmoved_withdrawal(struct sweep *sw, const struct todo *t, struct booking *b,
			      struct err *e)
{
	char why[512];
	int known;

	for (size_t i = 0; i < sw->n; i++) {
		const struct todo *r = &sw->todo[i];
		if (r->cancel || !r->moves || !r->booking_id ||
		    strcmp(r->booking_id, t->booking_id) != 0)
			continue;
		if ((known = known_booking(sw, r, b, why, sizeof why, e)) <= 0) {
			booking_free(b);
			return known;
		}
		b->moved_from = xstrdup(r->moves);
		b->from_start = b->start;
		b->from_end = b->end;
		if (sweep_ledger_add(&sw->ledger, t->booking_id, t->seq, STEP_EVENT, LEDGER_DONE,
				     event_details(b), e) != 0)
			return -1;
		return 1;
	}
	return 0;
}

/*
 * What a cancellation t must undo: WITHDRAW_EVENT (b filled), WITHDRAW_MAIL
 * too when an invitation may have gone (a moved event's always had one).
 */
static int withdrawal(struct sweep *sw, const struct todo *t, struct booking *b, struct err *e)
{
	const char *id = t->booking_id;
	json_t *info = sweep_ledger_booking(&sw->ledger, id);
	int rc;

	if (info && sweep_ledger_phase(&sw->ledger, id, STEP_EVENT)) {
		if (booking_from_ledger(sw->cfg, t->type_id, info, b, e) != 0)
			return -1;
		return WITHDRAW_EVENT | (sweep_ledger_phase(&sw->ledger, id, STEP_INVITE) ||
						 b->moved_from
					 ? WITHDRAW_MAIL
					 : 0);
	}
	if (booked_record(sw, id, b, e))
		return WITHDRAW_EVENT | WITHDRAW_MAIL;
	if ((rc = unmoved_withdrawal(sw, t, b, e)) != 0)
		return rc < 0 ? -1 : WITHDRAW_EVENT | WITHDRAW_MAIL;
	return 0;
}

static int remove_step(struct sweep *sw, const struct todo *t, const struct booking *b,
		       struct err *e)
{
	if (sweep_ledger_settled(&sw->ledger, t->booking_id, STEP_REMOVE))
		return 0;
	killpoint("remove");
	if (calendar_event_remove(sw->cfg, b->uid, e) != 0 && e->code != ERR_NOT_FOUND)
		return -1; /* removing is idempotent: the next sweep tries again */
	killpoint("removed");
	return sweep_ledger_add(&sw->ledger, t->booking_id, t->seq, STEP_REMOVE, LEDGER_DONE, NULL,
				e);
}

/* The first record of the booking a cancellation withdraws; -1 when there is none. */
static long long booking_seq_of(const struct sweep *sw, const char *id)
{
	for (size_t i = 0; i < sw->n; i++)
		if (!sw->todo[i].cancel && sw->todo[i].booking_id &&
		    strcmp(sw->todo[i].booking_id, id) == 0)
			return sw->todo[i].seq;
	return -1;
}

/*
 * Closes every open booking record of the cancellation's id. This runs before
 * the event is removed: a record that says booked always has its event, even
 * when a sweep dies in the middle of a withdrawal (the rerun finds the
 * cancellation still open and finishes it).
 */
static int close_bookings(struct sweep *sw, const struct todo *c, struct err *e)
{
	for (size_t i = 0; i < sw->n; i++) {
		struct todo *t = &sw->todo[i];
		if (t->cancel || !t->booking_id || strcmp(t->booking_id, c->booking_id) != 0)
			continue;
		if (strcmp(t->state, STATE_CLOSED) != 0 &&
		    move_record(sw, t->seq, STATE_CLOSED, SWEEP_CANCEL_REASON, e) != 0)
			return -1;
		snprintf(t->state, sizeof t->state, "%s", STATE_CLOSED);
	}
	return 0;
}

/*
 * The booking a cancelled move came from: its records closed too (a no-op
 * when the move had closed them), and cancelled in the ledger unless the move
 * settled it — the event was its, and goes now.
 */
static int close_moved_from(struct sweep *sw, const struct todo *c, const char *old,
			    struct err *e)
{
	for (size_t i = 0; i < sw->n; i++) {
		struct todo *t = &sw->todo[i];
		if (t->cancel || !t->booking_id || strcmp(t->booking_id, old) != 0)
			continue;
		if (strcmp(t->state, STATE_CLOSED) != 0 &&
		    move_record(sw, t->seq, STATE_CLOSED, SWEEP_CANCEL_REASON, e) != 0)
			return -1;
		snprintf(t->state, sizeof t->state, "%s", STATE_CLOSED);
	}
	if (sweep_ledger_settled(&sw->ledger, old, STEP_MOVED) ||
	    sweep_ledger_settled(&sw->ledger, old, STEP_CANCELLED))
		return 0;
	return sweep_ledger_add(&sw->ledger, old, c->seq, STEP_CANCELLED, LEDGER_DONE, NULL, e);
}

static int cancel_steps(struct sweep *sw, const struct todo *t, struct booking *b, int what,
			struct err *e)
{
	const char *id = t->booking_id;

	if (!sweep_ledger_settled(&sw->ledger, id, STEP_CANCELLED) &&
	    sweep_ledger_add(&sw->ledger, id, t->seq, STEP_CANCELLED, LEDGER_DONE, NULL, e) != 0)
		return -1;
	if (sw->dry)
		return 0;
	if (close_bookings(sw, t, e) != 0)
		return -1;
	if (b->moved_from && close_moved_from(sw, t, b->moved_from, e) != 0)
		return -1;
	if ((what & WITHDRAW_EVENT) && remove_step(sw, t, b, e) != 0)
		return -1;
	if ((what & WITHDRAW_MAIL) &&
	    mail_step(sw, t, b, STEP_CANCEL_MAIL, CALENDAR_ITIP_CANCEL, "cancel-mail", e) != 0)
		return -1;
	killpoint("closed");
	return move_record(sw, t->seq, STATE_CLOSED, SWEEP_CANCEL_REASON, e);
}

static void cancel_one(struct sweep *sw, const struct todo *t)
{
	struct booking b = { 0 };
	struct err e;
	int what;

	if (!t->booking_id || !t->valid) {
		say(sw, SWEEP_LEFT, t, NULL, -1, t->valid ? "its _booking_id is not an id the sweep "
			"reads" : "it did not validate at drain time");
		return;
	}
	if (sweep_ledger_settled(&sw->ledger, t->booking_id, STEP_MOVED)) {
		/* Its event is the moved one now: withdrawing it is the new booking's to ask. */
		say(sw, SWEEP_LEFT, t, NULL, -1, "it cancels a booking that a rescheduling moved; "
		    "the event now belongs to the new booking, so nothing was withdrawn");
		return;
	}
	what = withdrawal(sw, t, &b, &e);
	if (what < 0 || cancel_steps(sw, t, &b, what, &e) != 0)
		fail(sw, t, what < 0 ? NULL : &b, &e);
	else
		say(sw, SWEEP_CANCELLED, t, (what & WITHDRAW_EVENT) ? &b : NULL,
		    booking_seq_of(sw, t->booking_id), b.warning);
	booking_free(&b);
}

/* ---- bookings ----------------------------------------------------------------------- */

/* A slot not yet decided: is it free, and can an invitation go out at all? */
static int decide(struct sweep *sw, const struct todo *t, struct booking *b, struct err *e)
{
	int free_slot, step;
	time_t buffer = 0;

	if (booking_from_record(sw, t, b, e) != 0) {
		if (strncmp(e->msg, SWEEP_BAD_MANAGE_URL ":", strlen(SWEEP_BAD_MANAGE_URL) + 1) == 0)
			sw->reason = SWEEP_BAD_MANAGE_URL;
		say(sw, SWEEP_LEFT, t, NULL, -1, e->msg);
		return 1;
	}
	if (b->end <= clock_now()) {
		say(sw, SWEEP_LEFT, t, b, -1, "the slot is over: an invitation to it would come too "
		    "late; nothing was booked");
		return 1;
	}
	/* Only a slot home offered, of a booking type home has (sweep_offer.h). */
	step = sweep_offer_check(sw->rep ? sw->rep->offers : NULL, sw->cfg, t->type_id, b->start,
				 b->end, &b->link, &buffer, &sw->reason, b->note, e);
	if (step < 0)
		return -1;
	if (step != SWEEP_OFFER_BOOK) {
		say(sw, step == SWEEP_OFFER_LEFT ? SWEEP_LEFT : SWEEP_CONFLICT, t, b, -1, b->note);
		return 1;
	}
	if (b->note[0])
		b->warning = b->note;
	if (!sw->dry && !mail_configured(sw->cfg, e))
		return -1;
	free_slot = calendar_is_free_conf(sw->cfg, b->start - buffer, b->end + buffer, e);
	if (free_slot < 0)
		return -1;
	if (!free_slot) {
		say(sw, SWEEP_CONFLICT, t, b, -1, "the slot is busy in the calendar: nothing was "
		    "booked; the request is left for you");
		return 1;
	}
	return sw->dry ? 0 : sweep_ledger_add(&sw->ledger, t->booking_id, t->seq, STEP_EVENT,
					      LEDGER_INTENT, event_details(b), e);
}

static int bookable(const struct todo *t);

/*
 * The booking a rescheduling t moves, by home's own word alone: one this
 * ledger booked (its event written, its invitation decided, its record
 * booked), of t's type, and neither cancelled nor moved since. 1 with o filled
 * from the ledger, 0 with why filled.
 */
static int known_booking(struct sweep *sw, const struct todo *t, struct booking *o, char *why,
			 size_t n, struct err *e)
{
	const char *id = t->moves;
	const struct todo *rec = NULL;

	/* booked: the record says so, or this sweep just booked it (bookings go in seq order) */
	for (size_t i = 0; i < sw->n && !rec; i++)
		if (!sw->todo[i].cancel && sw->todo[i].booking_id &&
		    strcmp(sw->todo[i].booking_id, id) == 0 &&
		    (strcmp(sw->todo[i].state, STATE_BOOKED) == 0 || bookable(&sw->todo[i])))
			rec = &sw->todo[i];
	if (!rec || !sweep_ledger_settled(&sw->ledger, id, STEP_BOOKED) ||
	    !sweep_ledger_phase(&sw->ledger, id, STEP_EVENT)) {
		snprintf(why, n, SWEEP_UNKNOWN_BOOKING ": it moves a booking this home has not "
			 "booked; nothing was moved or mailed");
		return 0;
	}
	if (strcmp(rec->type_id, t->type_id) != 0) {
		snprintf(why, n, SWEEP_UNKNOWN_BOOKING ": it moves a booking of another type; "
			 "nothing was moved or mailed");
		return 0;
	}
	if (sweep_ledger_settled(&sw->ledger, id, STEP_CANCELLED) ||
	    sweep_ledger_settled(&sw->ledger, id, STEP_MOVED)) {
		snprintf(why, n, SWEEP_UNKNOWN_BOOKING ": the booking it moves was cancelled or "
			 "moved already; nothing was moved or mailed");
		return 0;
	}
	if (booking_from_ledger(sw->cfg, rec->type_id, sweep_ledger_booking(&sw->ledger, id), o,
				e) != 0)
		return -1;
	return 1;
}

/*
 * 1 when [from, to) is free in the calendar outside [own_start, own_end) —
 * the booking's own event, which the move takes along — 0 busy, -1.
 */
static int free_outside(const struct config *cfg, time_t from, time_t to, time_t own_start,
			time_t own_end, struct err *e)
{
	int ok = 1;

	if (from < own_start && (ok = calendar_is_free_conf(cfg, from, to < own_start ? to :
							    own_start, e)) != 1)
		return ok;
	if (to > own_end)
		ok = calendar_is_free_conf(cfg, from > own_end ? from : own_end, to, e);
	return ok;
}

/*
 * A rescheduling not yet decided (files.md §2.2): the booking it moves must
 * be one home knows (known_booking), the new slot one home offered, of the
 * same type, free in the calendar but for the booking's own event. The event
 * keeps its UID and people (from home's ledger, not from the box), gains one
 * SEQUENCE and the new time, and its description the new manage link.
 */
static int decide_move(struct sweep *sw, const struct todo *t, struct booking *b, struct err *e)
{
	struct booking o = { 0 };
	struct record r;
	const char *link;
	time_t buffer = 0;
	int step, known, free_slot;

	if (store_get(sw->store, t->seq, &r, e) != 0)
		return -1;
	link = jsonio_str(record_values(&r), "_manage_url");
	step = slot_of(record_values(&r), b, e) != 0 ? -2 : 0;
	if (step == 0 && (!link || !link_ok(link))) {
		err_set(e, ERR_PARSE, SWEEP_BAD_MANAGE_URL ": _manage_url is not a web address");
		sw->reason = SWEEP_BAD_MANAGE_URL;
		step = -2;
	}
	if (step == 0)
		b->link = xstrdup(link);
	record_free(&r);
	if (step == -2) {
		say(sw, SWEEP_LEFT, t, NULL, -1, e->msg);
		return 1;
	}
	if ((known = known_booking(sw, t, &o, b->note, sizeof b->note, e)) <= 0) {
		if (known == 0) {
			sw->reason = SWEEP_UNKNOWN_BOOKING;
			say(sw, SWEEP_LEFT, t, b, -1, b->note);
		}
		booking_free(&o);
		return known < 0 ? -1 : 1;
	}
	snprintf(b->uid, sizeof b->uid, "%s", o.uid);
	b->attendee = o.attendee;
	b->summary = o.summary;
	b->zone = o.zone;
	o.attendee = o.summary = o.zone = NULL;
	b->sequence = o.sequence + 1;
	b->from_start = o.start;
	b->from_end = o.end;
	b->moved_from = xstrdup(t->moves);
	booking_free(&o);
	if (b->end <= clock_now()) {
		say(sw, SWEEP_LEFT, t, b, -1, "the new slot is over: nothing was moved");
		return 1;
	}
	step = sweep_offer_check(sw->rep ? sw->rep->offers : NULL, sw->cfg, t->type_id, b->start,
				 b->end, &b->link, &buffer, &sw->reason, b->note, e);
	if (step < 0)
		return -1;
	if (step != SWEEP_OFFER_BOOK) {
		say(sw, step == SWEEP_OFFER_LEFT ? SWEEP_LEFT : SWEEP_CONFLICT, t, b, -1, b->note);
		return 1;
	}
	if (b->note[0])
		b->warning = b->note;
	if (!sw->dry && !mail_configured(sw->cfg, e))
		return -1;
	free_slot = free_outside(sw->cfg, b->start - buffer, b->end + buffer, b->from_start,
				 b->from_end, e);
	if (free_slot < 0)
		return -1;
	if (!free_slot) {
		say(sw, SWEEP_CONFLICT, t, b, -1, "the new slot is busy in the calendar: nothing was "
		    "moved; the request is left for you");
		return 1;
	}
	return sw->dry ? 0 : sweep_ledger_add(&sw->ledger, t->booking_id, t->seq, STEP_EVENT,
					      LEDGER_INTENT, event_details(b), e);
}

static int event_step(struct sweep *sw, const struct todo *t, const struct booking *b,
		      struct err *e)
{
	struct err why;

	if (sweep_ledger_settled(&sw->ledger, t->booking_id, STEP_EVENT))
		return 0;
	killpoint("event");
	if (write_event(sw, b, e) != 0) {
		/* Forgotten, so the next sweep asks about the slot again before writing. */
		if (sweep_ledger_add(&sw->ledger, t->booking_id, t->seq, STEP_EVENT, LEDGER_FAILED,
				     NULL, &why) != 0)
			err_prefix(e, "(and recording that failed: %s)", why.msg);
		return -1;
	}
	killpoint("event-written");
	return sweep_ledger_add(&sw->ledger, t->booking_id, t->seq, STEP_EVENT, LEDGER_DONE, NULL,
				e);
}

/*
 * A move, once its event has the new time and its REQUEST went: the booking it
 * replaced has its records closed ("rescheduled"), and the ledger says so of
 * it — its event is the new booking's now, so no reminder, cancellation or
 * second move goes by it again.
 */
static int moved_step(struct sweep *sw, const struct todo *t, const struct booking *b,
		      struct err *e)
{
	char when[RFC3339_LEN], *note;
	int rc = 0;

	if (sweep_ledger_settled(&sw->ledger, b->moved_from, STEP_MOVED))
		return 0;
	killpoint("move-old");
	rfc3339_format(b->start, when);
	note = xasprintf("%s: moved to %s by record %lld", SWEEP_MOVE_REASON, when, t->seq);
	for (size_t i = 0; rc == 0 && i < sw->n; i++) {
		struct todo *o = &sw->todo[i];
		if (o->cancel || !o->booking_id || strcmp(o->booking_id, b->moved_from) != 0)
			continue;
		if (strcmp(o->state, STATE_CLOSED) != 0)
			rc = move_record(sw, o->seq, STATE_CLOSED, note, e);
		snprintf(o->state, sizeof o->state, "%s", STATE_CLOSED);
	}
	free(note);
	if (rc != 0)
		return -1;
	killpoint("moved");
	return sweep_ledger_add(&sw->ledger, b->moved_from, t->seq, STEP_MOVED, LEDGER_DONE,
				json_pack("{s:s}", "to", t->booking_id), e);
}

static int book_steps(struct sweep *sw, const struct todo *t, struct booking *b, struct err *e)
{
	if (event_step(sw, t, b, e) != 0 ||
	    mail_step(sw, t, b, STEP_INVITE, CALENDAR_ITIP_REQUEST, "invite", e) != 0)
		return -1;
	if (b->moved_from && moved_step(sw, t, b, e) != 0)
		return -1;
	killpoint("booked");
	if (move_record(sw, t->seq, STATE_BOOKED, b->uid, e) != 0)
		return -1;
	if (sweep_ledger_settled(&sw->ledger, t->booking_id, STEP_BOOKED))
		return 0;
	return sweep_ledger_add(&sw->ledger, t->booking_id, t->seq, STEP_BOOKED, LEDGER_DONE, NULL,
				e);
}

static void book_one(struct sweep *sw, const struct todo *t)
{
	json_t *info = sweep_ledger_booking(&sw->ledger, t->booking_id);
	struct booking b = { 0 };
	struct err e;
	int rc;

	if (sweep_ledger_settled(&sw->ledger, t->booking_id, STEP_CANCELLED)) {
		rc = sw->dry ? 0 : move_record(sw, t->seq, STATE_CLOSED, SWEEP_CANCEL_REASON, &e);
		if (rc == 0)
			say(sw, SWEEP_CLOSED, t, NULL, -1, SWEEP_CANCEL_REASON);
		else
			fail(sw, t, NULL, &e);
		return;
	}
	if (sweep_ledger_phase(&sw->ledger, t->booking_id, STEP_EVENT))
		rc = booking_from_ledger(sw->cfg, t->type_id, info, &b, &e);
	else if (t->moves)
		rc = decide_move(sw, t, &b, &e);
	else
		rc = decide(sw, t, &b, &e);
	if (rc == 0 && !sw->dry)
		rc = book_steps(sw, t, &b, &e);
	if (rc == 0 && b.moved_from)
		say(sw, SWEEP_MOVED, t, &b, booking_seq_of(sw, b.moved_from), b.warning);
	else if (rc == 0)
		say(sw, SWEEP_BOOKED, t, &b, -1, b.warning);
	else if (rc < 0)
		fail(sw, t, &b, &e);
	booking_free(&b);
}

/* A booking the sweep may settle: drained or extracted (the table says so). */
static int bookable(const struct todo *t)
{
	return !t->cancel && state_allows(t->state, STATE_BOOKED, MOVER_SWEEP);
}

static void book_all(struct sweep *sw)
{
	for (size_t i = 0; i < sw->n; i++) {
		const struct todo *t = &sw->todo[i];
		if (!bookable(t))
			continue;
		if (!t->valid || !t->booking_id || t->moves_bad)
			say(sw, SWEEP_LEFT, t, NULL, -1, !t->valid ? "it did not validate at drain time"
			    : t->moves_bad ? "its _rescheduled_from is not an id the sweep reads"
					   : "its _booking_id is not an id the sweep reads");
		else
			book_one(sw, t);
	}
}

/* What cancel_all and book_all will each say a line about. */
static size_t to_settle(const struct sweep *sw)
{
	size_t n = 0;

	for (size_t i = 0; i < sw->n; i++) {
		const struct todo *t = &sw->todo[i];
		n += bookable(t) || (t->cancel && state_allows(t->state, STATE_CLOSED, MOVER_SWEEP));
	}
	return n;
}

static void cancel_all(struct sweep *sw)
{
	for (size_t i = 0; i < sw->n; i++) {
		const struct todo *t = &sw->todo[i];
		if (t->cancel && state_allows(t->state, STATE_CLOSED, MOVER_SWEEP))
			cancel_one(sw, t);
	}
}

/* ---- reminders ---------------------------------------------------------------------- */

/*
 * Booked — the record says so, or this sweep just booked it (the ledger says
 * so of a record read as bookable) — and named by no cancellation. A booking a
 * person closed is closed: it gets no reminder.
 */
static int remindable(const struct sweep *sw, const struct todo *t)
{
	if (t->cancel || !t->valid || !t->booking_id ||
	    (strcmp(t->state, STATE_BOOKED) != 0 &&
	     !(bookable(t) && sweep_ledger_settled(&sw->ledger, t->booking_id, STEP_BOOKED))) ||
	    sweep_ledger_settled(&sw->ledger, t->booking_id, STEP_CANCELLED) ||
	    sweep_ledger_settled(&sw->ledger, t->booking_id, STEP_MOVED))
		return 0;
	for (size_t i = 0; i < sw->n; i++)
		if (sw->todo[i].cancel && sw->todo[i].booking_id &&
		    strcmp(sw->todo[i].booking_id, t->booking_id) == 0)
			return 0;
	return 1;
}

static void remind_say(struct sweep *sw, const struct todo *t, enum sweep_outcome o,
		       const struct remind_result *res, const char *msg)
{
	struct sweep_line l = { o, sw->dry, t->seq, t->booking_id, -1, res->start, res->end,
				NULL, res->attendee, msg, NULL,
				res->tier[0] ? res->tier : NULL };

	if (o == SWEEP_REMINDED)
		sw->counts->reminded++;
	else
		sw->counts->failed++;
	if (sw->rep && sw->rep->line)
		sw->rep->line(&l, sw->rep->ctx);
}

static void remind_all(struct sweep *sw)
{
	struct remind_run run = { sw->cfg, &sw->ledger, sw->dry, clock_now() };

	for (size_t i = 0; i < sw->n; i++) {
		const struct todo *t = &sw->todo[i];
		struct remind_target target = { t->seq, t->booking_id, t->type_id, t->made };
		struct remind_result res;
		struct err e;
		int rc;

		if (!remindable(sw, t))
			continue;
		rc = remind_booking(&run, &target, &res, &e);
		if (rc > 0)
			remind_say(sw, t, SWEEP_REMINDED, &res, res.warning);
		else if (rc < 0)
			remind_say(sw, t, SWEEP_FAILED, &res, e.msg);
	}
}

static void todo_free(struct sweep *sw)
{
	for (size_t i = 0; i < sw->n; i++) {
		free(sw->todo[i].booking_id);
		free(sw->todo[i].moves);
	}
	free(sw->todo);
	sw->todo = NULL;
	sw->n = 0;
}

/* Every record that mentions a booking id (a fast pre-filter), read as it is now. */
static int gather(struct sweep *sw, struct err *e)
{
	todo_free(sw);
	return store_each_mentioning(sw->store, "\"_booking_id\"", gather_one, sw, e);
}

int sweep_run(struct store *s, const struct config *cfg, unsigned flags,
	      const struct sweep_report *rep, struct sweep_counts *counts, struct err *e)
{
	struct sweep sw = { s, cfg, { 0 }, (flags & SWEEP_DRY_RUN) != 0, rep, counts, NULL, 0,
			    NULL };
	int rc = -1;

	memset(counts, 0, sizeof *counts);
	if (gather(&sw, e) != 0)
		goto out;
	if (sw.n == 0) {
		rc = 0; /* nothing to do: no ledger, no lock */
		goto out;
	}
	if (sweep_ledger_open(&sw.ledger, s->dir, sw.dry, e) != 0)
		goto out;
	/* Read again under the ledger's lock: a sweep that ran meanwhile has moved records. */
	if (gather(&sw, e) == 0) {
		if (rep && rep->start)
			rep->start(to_settle(&sw), rep->ctx);
		cancel_all(&sw);
		book_all(&sw);
		remind_all(&sw);
		rc = 0;
	}
	sweep_ledger_close(&sw.ledger);
out:
	todo_free(&sw);
	return rc;
}

int sweep_home(unsigned flags, const struct sweep_report *rep, struct sweep_counts *counts,
	       struct err *e)
{
	struct config cfg;
	struct store s;
	int rc;

	memset(counts, 0, sizeof *counts);
	if (config_load(&cfg, e) != 0)
		return -1;
	if (config_require(&cfg, CONFIG_NEEDS_CALENDAR, e) != 0) {
		config_free(&cfg);
		return -1;
	}
	rc = store_open_default(&s, (flags & SWEEP_DRY_RUN) ? STORE_READ : STORE_CREATE, e);
	if (rc == 0) {
		rc = sweep_run(&s, &cfg, flags, rep, counts, e);
		store_close(&s);
	}
	config_free(&cfg);
	return rc;
}
