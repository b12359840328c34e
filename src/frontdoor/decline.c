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
#include "frontdoor/record.h"
#include "frontdoor/store.h"
#include "frontdoor/sweep.h"
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

static json_t *decline_args(const struct record *r, void *ctx, struct err *e)
{
	char start[RFC3339_LEN], end[RFC3339_LEN];
	char *page = booking_page(jsonio_str(record_values(r), "_manage_url"));
	struct buf b = BUF_INIT;
	json_t *args;

	const char *id = jsonio_str(record_values(r), "_booking_id");
	char *booking = ctx;
	size_t n = id ? strlen(id) : 0;

	if (booking) /* the box's ids are lowercase hex: anything else is not told */
		snprintf(booking, DECLINE_BOOKING_ID_MAX + 1, "%s",
			 n && n <= DECLINE_BOOKING_ID_MAX && strspn(id, "0123456789abcdef") == n
				 ? id : "");
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

	(void)ctx;
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
		rc = draft_farewell(&s, &ob, f, id_out, e);
		store_close(&s);
	}
	outbox_store_close(&ob);
	return rc;
}

int decline_home(long long seq, const char *reason, char id_out[OUTBOX_ID_MAX + 1],
		 char booking_out[DECLINE_BOOKING_ID_MAX + 1], struct err *e)
{
	struct draft_farewell f = { seq, SINK_MAIL, reason ? reason : DECLINE_REASON, decline_args,
				    booking_out };

	if (booking_out)
		booking_out[0] = '\0';
	return farewell_home(&f, id_out, e);
}

int decline_cancel_home(long long seq, const char *reason, char id_out[OUTBOX_ID_MAX + 1],
			struct err *e)
{
	struct draft_farewell f = { seq, SINK_CANCEL, reason, cancel_args, NULL };

	return farewell_home(&f, id_out, e);
}
