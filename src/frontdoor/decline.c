/*
 * decline — what the requester of a booking is told when a person, not the
 * sweep, settles it; staged through draft.c like every other draft.
 */
#include "frontdoor/decline.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/jsonio.h"
#include "base/rfc3339.h"
#include "config/config.h"
#include "frontdoor/draft.h"
#include "requests/record.h"
#include "requests/store.h"
#include "frontdoor/sweep.h"
#include "frontdoor/sweep_ledger.h"
#include "outbox/store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LINK_MAX 2048

/*
 * The booking page a manage link belongs to: {gate}/s/{h}/{t}/m/{token} less
 * "/m/{token}". NULL unless the link is a web address on one line of printable
 * ASCII with that shape (it came from the box: checked, never trusted).
 */
static char *booking_page(const char *link)
{
	size_t n = link ? strlen(link) : 0;
	const char *m;

	if (n == 0 || n > LINK_MAX ||
	    (strncmp(link, "https://", 8) != 0 && strncmp(link, "http://", 7) != 0))
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (link[i] <= 0x20 || link[i] >= 0x7f)
			return NULL;
	m = strstr(link, "/m/");
	if (!m || !strstr(link, "/s/") || strchr(m + 3, '/'))
		return NULL;
	return xstrndup(link, (size_t)(m - link));
}

static int slot_text(const struct record *r, char start[RFC3339_LEN], char end[RFC3339_LEN],
		     struct err *e)
{
	time_t a, b;

	if (!sweep_slot(r, &a, &b))
		return err_set(e, ERR_INVALID_REQUEST, "request %lld has no readable slot "
			       "(_slot_start, _slot_end) to decline", r->seq);
	rfc3339_format(a, start);
	rfc3339_format(b, end);
	return 0;
}

/* What a decline's drafting carries: the box id it found, home's booking ledger. */
struct decline_ctx {
	char booking[DECLINE_BOOKING_ID_MAX + 1];
	const char *dir; /* the request store's directory, where the sweep's ledger is */
};

/* The box's ids are lowercase hex: anything else is not told (booking gets ""). */
static void box_id(const struct record *r, char booking[DECLINE_BOOKING_ID_MAX + 1])
{
	const char *id = jsonio_str(record_values(r), "_booking_id");
	size_t n = id ? strlen(id) : 0;

	snprintf(booking, DECLINE_BOOKING_ID_MAX + 1, "%s",
		 n && n <= DECLINE_BOOKING_ID_MAX && strspn(id, "0123456789abcdef") == n ? id : "");
}

/*
 * A move the sweep left: the requester is told the booking it moves stands.
 * Who they are, and when that booking is, come from home's ledger of the
 * booking the sweep made (its event's attendee), never from the record: a
 * rescheduling carries no address, and the box's word is not trusted.
 */
static json_t *move_args(const struct record *r, const char *from, const char *dir,
			 struct err *e)
{
	char start[RFC3339_LEN], end[RFC3339_LEN];
	struct sweep_ledger l;
	struct buf b = BUF_INIT;
	const json_t *info;
	const char *to, *link, *was_start, *was_end;
	json_t *args = NULL;

	if (slot_text(r, start, end, e) != 0 || sweep_ledger_open(&l, dir, 1, e) != 0)
		return NULL;
	info = sweep_ledger_booking(&l, from);
	to = jsonio_str(info, "attendee");
	link = jsonio_str(info, "link");
	was_start = jsonio_str(info, "start");
	was_end = jsonio_str(info, "end");
	if (!to || !*to || !was_start || !was_end) {
		err_set(e, ERR_NO_REPLY_TO, "request %lld moves booking %s, which home's booking "
			"ledger does not know, so nobody can be told: close it with --no-notify "
			"(nothing changed)", r->seq, from);
		goto out;
	}
	buf_printf(&b, "Hello,\n\nI am sorry: I could not move your booking to %s to %s (UTC). "
		   "Your booking at %s to %s (UTC) stands as it was.\n\n", start, end, was_start,
		   was_end);
	if (link)
		buf_printf(&b, "To change or cancel it:\n\n%s\n", link);
	else
		buf_adds(&b, "If you reply to this message, we can find another time.\n");
	args = json_pack("{s:s,s:s,s:s}", "to", to, "subject", "Your booking could not be moved",
			 "body", buf_str(&b));
	if (!args)
		err_set(e, ERR_PARSE, "home's booking ledger has booking %s's attendee as no text",
			from);
out:
	buf_free(&b);
	sweep_ledger_close(&l);
	return args;
}

static json_t *decline_args(const struct record *r, void *ctx, struct err *e)
{
	struct decline_ctx *c = ctx;
	char start[RFC3339_LEN], end[RFC3339_LEN];
	const char *from = jsonio_str(record_values(r), "_rescheduled_from");
	char *page;
	struct buf b = BUF_INIT;
	json_t *args;

	box_id(r, c->booking);
	if (from)
		return move_args(r, from, c->dir, e);
	page = booking_page(jsonio_str(record_values(r), "_manage_url"));
	if (slot_text(r, start, end, e) != 0) {
		free(page);
		return NULL;
	}
	buf_printf(&b, "Hello,\n\nI am sorry: I cannot keep the time you booked, %s to %s (UTC), "
		   "so it is not booked.\n\n", start, end);
	if (page)
		buf_printf(&b, "You are welcome to pick another time here:\n\n%s\n", page);
	else
		buf_adds(&b, "If you reply to this message, we can find another time.\n");
	args = json_pack("{s:n,s:s,s:s}", "to", "subject", "Your booking could not be kept",
			 "body", buf_str(&b));
	buf_free(&b);
	free(page);
	return args;
}

static json_t *cancel_args(const struct record *r, void *ctx, struct err *e)
{
	char start[RFC3339_LEN], end[RFC3339_LEN];
	const char *uid = record_note(r);
	char *title;
	json_t *args;

	box_id(r, ((struct decline_ctx *)ctx)->booking);
	if (slot_text(r, start, end, e) != 0)
		return NULL;
	if (!uid || !*uid) {
		err_set(e, ERR_INVALID_REQUEST, "request %lld is booked but its note names no event "
			"(the sweep records the event's UID there): nothing was staged", r->seq);
		return NULL;
	}
	title = xasprintf("Your %s booking is cancelled", r->type_id);
	args = json_pack("{s:n,s:s,s:s,s:s,s:s,s:s}", "to", "subject", title, "title", title, "uid",
			 uid, "start", start, "end", end);
	free(title);
	if (!args)
		err_set(e, ERR_BAD_ARGS, "request %lld's event UID is not text", r->seq);
	return args;
}

static int farewell_home(const struct draft_farewell *f, char id_out[OUTBOX_ID_MAX + 1],
			 struct err *e)
{
	struct outbox_store ob;
	struct config cfg;
	struct store s;
	int rc;

	if (config_load(&cfg, e) != 0)
		return -1;
	rc = outbox_store_open(&ob, cfg.outbox_dir, OUTBOX_WRITE, e);
	config_free(&cfg);
	if (rc != 0)
		return -1;
	rc = store_open_default(&s, STORE_CREATE, e);
	if (rc == 0) {
		((struct decline_ctx *)f->ctx)->dir = s.dir;
		rc = draft_farewell(&s, &ob, f, id_out, e);
		store_close(&s);
	}
	outbox_store_close(&ob);
	return rc;
}

/*
 * The box is told after the request is closed and its draft staged: what
 * home decided stands whether or not the box can be reached.
 */
static void tell(const struct decline_teller *t, const char *booking, int cancelled,
		 struct decline_outcome *out)
{
	long long changed = 0;

	if (!t || !t->tell)
		out->told = DECLINE_NO_TELLER;
	else if (!*booking)
		out->told = DECLINE_NO_BOX_ID;
	else if (t->tell(t->ctx, booking, cancelled, &changed, &out->why) != 0)
		out->told = DECLINE_NOT_TOLD;
	else
		out->told = changed ? DECLINE_TOLD : DECLINE_TOLD_ALREADY;
}

static int settle(struct draft_farewell *f, int cancelled, const struct decline_teller *t,
		  struct decline_outcome *out, struct err *e)
{
	struct decline_ctx c = { "", NULL };
	int rc;

	memset(out, 0, sizeof *out);
	out->seq = f->seq;
	out->note = f->reason;
	f->from_out = out->from;
	f->ctx = &c;
	rc = farewell_home(f, out->id, e);
	f->ctx = NULL; /* c is this call's */
	if (rc != 0)
		return -1;
	tell(t, c.booking, cancelled, out);
	return 0;
}

int decline_home(long long seq, const char *reason, const struct decline_teller *t,
		 struct decline_outcome *out, struct err *e)
{
	struct draft_farewell f = { seq, SINK_MAIL, reason ? reason : DECLINE_REASON, decline_args,
				    NULL, NULL };

	return settle(&f, 0, t, out, e);
}

int decline_cancel_home(long long seq, const char *reason, const struct decline_teller *t,
			struct decline_outcome *out, struct err *e)
{
	struct draft_farewell f = { seq, SINK_CANCEL, reason, cancel_args, NULL, NULL };

	return settle(&f, 1, t, out, e);
}

const char *decline_told_text(const struct decline_outcome *o, int cancelled)
{
	switch (o->told) {
	case DECLINE_TOLD:
		return cancelled ? "the box was told: its manage page says the owner cancelled it, "
				   "and the slot is free there"
				 : "the box was told: its manage page says declined, and the slot "
				   "is free there";
	case DECLINE_TOLD_ALREADY:
		return "the box was told; it had the booking as no longer confirmed";
	case DECLINE_NO_BOX_ID:
		return "the box was not told: the booking's id is not one the box made";
	case DECLINE_NO_TELLER:
		return "the box was not told: no box to tell";
	default:
		return "the box was not told: its manage page still shows the booking";
	}
}

const char *decline_told_name(enum decline_told told)
{
	static const char *const names[] = {
		[DECLINE_TOLD] = "told",
		[DECLINE_TOLD_ALREADY] = "already",
		[DECLINE_NOT_TOLD] = "failed",
		[DECLINE_NO_BOX_ID] = "foreign_id",
		[DECLINE_NO_TELLER] = "unasked",
	};

	return (size_t)told < sizeof names / sizeof names[0] ? names[told] : "failed";
}
