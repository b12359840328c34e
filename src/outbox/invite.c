/*
 * invite — what a calendar_invite draft must hold, the message an invitation
 * is, and its delivery: the slot asked again, the event written, the
 * invitation mailed, the event taken back when the mail did not go.
 */
#include "outbox/invite.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/rfc3339.h"
#include "base/text.h"
#include "calendar/wallclock.h"
#include "config/config.h"
#include "outbox/item.h"
#include "outbox/mail.h"
#include "outbox/sink.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- the message ----------------------------------------------------------------- */

/* "Saturday 24 October 2026" (C locale: the names are English, as the rest of the text). */
static void date_text(struct buf *b, const struct wallclock_time *w)
{
	struct tm tm = { 0 };
	char s[64];

	tm.tm_year = w->year - 1900;
	tm.tm_mon = w->month - 1;
	tm.tm_mday = w->day;
	tm.tm_wday = (w->weekday + 1) % 7; /* struct tm counts from Sunday */
	strftime(s, sizeof s, "%A %d %B %Y", &tm);
	buf_adds(b, s);
}

/* "14:00", with " (UTC+02:00)" when the clocks change inside the slot (02:30 twice). */
static void clock_text(struct buf *b, const struct wallclock_time *w, int offset)
{
	long o = w->offset < 0 ? -w->offset : w->offset;

	buf_printf(b, "%02d:%02d", w->minute / 60, w->minute % 60);
	if (offset)
		buf_printf(b, " (UTC%c%02ld:%02ld)", w->offset < 0 ? '-' : '+', o / 3600,
			   o / 60 % 60);
}

/*
 * "Saturday 24 October 2026, 14:00–14:45 Europe/Berlin": the wall time the
 * booking page showed, in zone (NULL: UTC), and the zone's name (both dates
 * when it spans midnight there).
 */
static int when_text(struct buf *b, time_t start, time_t end, const char *zone, struct err *e)
{
	const struct wallclock *z = wallclock_zone(zone ? zone : "UTC", e);
	struct wallclock_time a, w;
	int offset;

	if (!z)
		return -1;
	wallclock_local(z, start, &a);
	wallclock_local(z, end, &w);
	offset = a.offset != w.offset;
	date_text(b, &a);
	buf_adds(b, ", ");
	clock_text(b, &a, offset);
	buf_adds(b, "\xe2\x80\x93");
	if (a.year != w.year || a.month != w.month || a.day != w.day) {
		date_text(b, &w);
		buf_adds(b, ", ");
	}
	clock_text(b, &w, offset);
	buf_printf(b, " %s", zone ? zone : "UTC");
	return 0;
}

/*
 * The mail's to, subject and text; NULL (e set) when the zone is unknown or a
 * text not UTF-8. from (NULL: none) is the time a REQUEST moves the event
 * from, {start, end}: the text says both.
 */
static json_t *letter_args(const struct invite_letter *l, const time_t *from, struct err *e)
{
	const struct calendar_event *ev = l->ev;
	int cancel = l->method == CALENDAR_ITIP_CANCEL;
	struct buf when = BUF_INIT, was = BUF_INIT, subject = BUF_INIT, body = BUF_INIT;
	json_t *args = NULL;

	if (when_text(&when, ev->start, ev->end, l->zone, e) != 0 ||
	    (from && when_text(&was, from[0], from[1], l->zone, e) != 0))
		goto out;
	buf_printf(&subject, "%s: %s \xe2\x80\x94 %s",
		   cancel ? "Cancelled" : from ? "Moved" : "Invitation", ev->summary,
		   buf_str(&when));
	if (cancel)
		buf_printf(&body, "%s on %s is cancelled.\n", ev->summary, buf_str(&when));
	else if (from)
		buf_printf(&body, "Your booking is moved: %s\n\nFrom: %s\nTo:   %s\n\nThe invitation "
			   "in your calendar moves to the new time.\n", ev->summary, buf_str(&was),
			   buf_str(&when));
	else
		buf_printf(&body, "You are invited: %s\n\nWhen: %s\n", ev->summary, buf_str(&when));
	if (l->link)
		buf_printf(&body, "\nTo change or cancel it: %s\n", l->link);
	args = json_pack("{s:s,s:s,s:s}", "to", ev->attendee, "subject", buf_str(&subject),
			 "body_text", buf_str(&body));
	if (!args)
		err_set(e, ERR_BAD_ARGS, "an invitation's text is not UTF-8");
out:
	buf_free(&when);
	buf_free(&was);
	buf_free(&subject);
	buf_free(&body);
	return args;
}

static int letter(const struct config *cfg, const struct invite_letter *l, const time_t *from,
		  struct mail_message *out, struct err *e);

int invite_message(const struct config *cfg, const struct invite_letter *l,
		   struct mail_message *out, struct err *e)
{
	return letter(cfg, l, NULL, out, e);
}

int invite_move_message(const struct config *cfg, const struct invite_letter *l,
			time_t from_start, time_t from_end, struct mail_message *out, struct err *e)
{
	const time_t from[2] = { from_start, from_end };

	if (l->method != CALENDAR_ITIP_REQUEST)
		return err_set(e, ERR_BAD_ARGUMENTS, "a moved event is sent as a REQUEST");
	return letter(cfg, l, from, out, e);
}

static int letter(const struct config *cfg, const struct invite_letter *l, const time_t *from,
		  struct mail_message *out, struct err *e)
{
	int cancel = l->method == CALENDAR_ITIP_CANCEL;
	struct mail_calendar cal = { cancel ? "CANCEL" : "REQUEST", NULL };
	char *ical = NULL;
	json_t *args;
	int rc;

	memset(out, 0, sizeof *out);
	if (!l->ev->summary || !l->ev->attendee)
		return err_set(e, ERR_BAD_ARGUMENTS, "an invitation needs a summary and an attendee");
	if (calendar_itip(l->ev, l->method, &ical, e) != 0)
		return -1;
	args = letter_args(l, from, e);
	if (!args) {
		free(ical);
		return -1;
	}
	cal.text = ical;
	rc = mail_build_itip(cfg->mail_from, l->message_id, args, &cal, time(NULL), out, e);
	json_decref(args);
	free(ical);
	return rc;
}

int invite_reminder_message(const struct config *cfg, const struct invite_letter *l,
			    const char *place, struct mail_message *out, struct err *e)
{
	const struct calendar_event *ev = l->ev;
	struct buf when = BUF_INIT, subject = BUF_INIT, body = BUF_INIT;
	json_t *args = NULL;
	int rc = -1;

	memset(out, 0, sizeof *out);
	if (!ev->summary || !ev->attendee)
		return err_set(e, ERR_BAD_ARGUMENTS, "a reminder needs a summary and an attendee");
	if (when_text(&when, ev->start, ev->end, l->zone, e) != 0)
		goto out;
	buf_printf(&subject, "Reminder: %s \xe2\x80\x94 %s", ev->summary, buf_str(&when));
	buf_printf(&body, "A reminder of your booking: %s\n\nWhen: %s\n", ev->summary,
		   buf_str(&when));
	if (place)
		buf_printf(&body, "Where: %s\n", place);
	if (l->link)
		buf_printf(&body, "\nTo change or cancel it: %s\n", l->link);
	args = json_pack("{s:s,s:s,s:s}", "to", ev->attendee, "subject", buf_str(&subject),
			 "body_text", buf_str(&body));
	if (!args)
		err_set(e, ERR_BAD_ARGS, "a reminder's text is not UTF-8");
	else
		rc = mail_build(cfg->mail_from, l->message_id, args, time(NULL), out, e);
out:
	json_decref(args);
	buf_free(&when);
	buf_free(&subject);
	buf_free(&body);
	return rc;
}

/* ---- staging ---------------------------------------------------------------------- */

static int invite_available(const struct config *cfg, struct err *e)
{
	if (!cfg->calendar_path || !*cfg->calendar_path) {
		err_set(e, ERR_UNAVAILABLE, "calendar_invite needs a calendar: set [calendar] path "
			"in %s/config.toml; nothing was sent", cfg->home ? cfg->home : "HOME_M");
		return 0;
	}
	return mail_configured(cfg, e);
}

static int one_line(const json_t *args, const char *key, struct err *e)
{
	const json_t *v = json_object_get(args, key);

	if (!v || json_is_null(v))
		return 0;
	if (!json_is_string(v))
		return err_set(e, ERR_BAD_ARGS, "'%s' must be a string", key);
	if (memchr(json_string_value(v), '\n', json_string_length(v)) ||
	    memchr(json_string_value(v), '\r', json_string_length(v)))
		return err_set(e, ERR_BAD_ARGS, "'%s' must be a single line", key);
	return 0;
}

/* A time in args: absent is 0 (with *t = 0), else it must be RFC 3339. */
static int time_of(const json_t *args, const char *key, time_t *t, struct err *e)
{
	const json_t *v = json_object_get(args, key);

	*t = 0;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_string(v) || rfc3339_parse(json_string_value(v), t) != 0)
		return err_set(e, ERR_BAD_ARGS, "'%s' must be an RFC 3339 time", key);
	return 0;
}

static int slot_check(const json_t *args, struct err *e)
{
	time_t start, end;

	if (time_of(args, "start", &start, e) != 0 || time_of(args, "end", &end, e) != 0)
		return -1;
	if (start && end && end <= start)
		return err_set(e, ERR_BAD_ARGS, "the invite ends before it starts");
	return 0;
}

/* The invitation is mailed: its recipient and its subject obey the mail rules. */
static int invite_check(const json_t *args, struct err *e)
{
	const json_t *to = json_object_get(args, "to");

	if (!json_is_object(args))
		return err_set(e, ERR_BAD_ARGS, "an invite draft's args must be a JSON object");
	if (to && !json_is_null(to) &&
	    (!json_is_string(to) ||
	     mail_check_address(json_string_value(to), json_string_length(to), "to", e) != 0))
		return json_is_string(to) ? -1 : err_set(e, ERR_BAD_ARGS, "'to' must be an address");
	if (one_line(args, "subject", e) != 0 || one_line(args, "title", e) != 0)
		return -1;
	return slot_check(args, e);
}

static int invite_recipient(const char *to, struct err *e)
{
	return mail_check_address(to, strlen(to), "reply_to", e);
}

/* ---- delivery --------------------------------------------------------------------- */

struct invite_job {
	char uid[CALENDAR_UID_MAX];
	char *attendee, *organizer, *summary;
	time_t start, end;
	struct mail_message msg;
};

static void invite_discard(void *job)
{
	struct invite_job *j = job;

	if (!j)
		return;
	free(j->attendee);
	free(j->organizer);
	free(j->summary);
	mail_message_free(&j->msg);
	free(j);
}

static struct calendar_event job_event(const struct invite_job *j)
{
	struct calendar_event ev = { j->uid, j->summary, NULL, j->organizer, j->attendee,
				     j->start, j->end, 0 };
	return ev;
}

/* What a release needs that a stage left optional: the recipient and the slot. */
static int job_fill(struct invite_job *j, const struct config *cfg, const json_t *args,
		    struct err *e)
{
	const char *to = json_string_value(json_object_get(args, "to"));
	const char *title = json_string_value(json_object_get(args, "title"));

	if (!title)
		title = json_string_value(json_object_get(args, "subject"));
	if (invite_check(args, e) != 0 || time_of(args, "start", &j->start, e) != 0 ||
	    time_of(args, "end", &j->end, e) != 0)
		return -1;
	if (!to || !j->start || !j->end)
		return err_set(e, ERR_BAD_ARGS, "an invite needs 'to', 'start' and 'end' to be sent");
	j->summary = xstrdup(title && *title ? title : "Meeting");
	if (!(j->attendee = mail_address_spec(to, "to", e)) ||
	    !(j->organizer = mail_address_spec(cfg->mail_from, "[mail] from", e)))
		return -1;
	return 0;
}

static int invite_prepare(const struct config *cfg, const struct outbox_item *it, void **job,
			  struct err *e)
{
	struct invite_job *j = xcalloc(1, sizeof *j);
	struct calendar_event ev;
	struct invite_letter l;

	if (!invite_available(cfg, e) || job_fill(j, cfg, it->args, e) != 0)
		goto fail;
	snprintf(j->uid, sizeof j->uid, "%s@mecha", it->id);
	ev = job_event(j);
	l = (struct invite_letter){ &ev, CALENDAR_ITIP_REQUEST, it->id, NULL,
				    cfg->calendar_timezone };
	if (invite_message(cfg, &l, &j->msg, e) != 0)
		goto fail;
	*job = j;
	return 0;
fail:
	invite_discard(j);
	return -1;
}

static int slot_still_free(const struct config *cfg, const struct invite_job *j, struct err *e)
{
	int free_slot = calendar_is_free_conf(cfg, j->start, j->end, e);

	if (free_slot < 0)
		return -1;
	if (!free_slot)
		return err_set(e, ERR_SLOT_BUSY, "the slot is busy in the calendar now; nothing was "
			       "written or sent");
	return 0;
}

/* A delivery starts afresh: an event this item wrote before (a retry) is not "busy". */
static int forget_own_event(const struct config *cfg, const struct invite_job *j, struct err *e)
{
	if (calendar_event_remove(cfg, j->uid, e) == 0 || e->code == ERR_NOT_FOUND)
		return 0;
	return -1;
}

static void after_mail_failure(const struct config *cfg, const struct invite_job *j,
			       struct err *e)
{
	struct err undo;

	if (e->code == ERR_DELIVERY_UNCONFIRMED)
		err_prefix(e, "its event %s stays in the calendar: if the invitation arrived, "
			   "approve it with --mark-sent", j->uid);
	else if (calendar_event_remove(cfg, j->uid, &undo) == 0)
		err_prefix(e, "the invitation was not sent, so its event was taken out again");
	else
		err_prefix(e, "the invitation was not sent, and its event %s is still in the calendar "
			   "(%s)", j->uid, undo.msg);
}

static int invite_deliver(const struct config *cfg, void *job, struct err *e)
{
	struct invite_job *j = job;
	struct calendar_event ev = job_event(j);
	char uid[CALENDAR_UID_MAX];

	if (forget_own_event(cfg, j, e) != 0 || slot_still_free(cfg, j, e) != 0 ||
	    calendar_event_write(cfg, &ev, uid, e) != 0)
		return -1;
	if (mail_deliver(cfg, &j->msg, e) == 0)
		return 0;
	after_mail_failure(cfg, j, e);
	return -1;
}

static const char *const invite_names[] = { "calendar_invite", NULL };

const struct sink invite_sink = {
	SINK_INVITE, invite_names, invite_available, invite_check, invite_recipient,
	invite_prepare, invite_deliver, invite_discard,
};

/* ---- calendar_cancel: a booked event withdrawn ---------------------------------------- */

/*
 * A person cancels what the sweep booked (`frontdoor close --notify`): args
 * {to, uid, title, start, end}. Released, it takes the event of that UID out
 * of the calendar (one already gone is no error: the point is that it is not
 * there) and mails its METHOD:CANCEL, so the attendee's calendar drops it.
 */
static int cancel_check(const json_t *args, struct err *e)
{
	const char *uid = json_is_object(args) ? json_string_value(json_object_get(args, "uid"))
					       : NULL;

	if (invite_check(args, e) != 0)
		return -1;
	if (json_object_get(args, "uid") &&
	    (!uid || !*uid || strlen(uid) >= CALENDAR_UID_MAX || text_has_control(uid, strlen(uid))))
		return err_set(e, ERR_BAD_ARGS, "'uid' must be the event's UID, on one line");
	return 0;
}

static int cancel_prepare(const struct config *cfg, const struct outbox_item *it, void **job,
			  struct err *e)
{
	struct invite_job *j = xcalloc(1, sizeof *j);
	const char *uid = json_string_value(json_object_get(it->args, "uid"));
	struct calendar_event ev;
	struct invite_letter l;

	if (!invite_available(cfg, e) || cancel_check(it->args, e) != 0 ||
	    job_fill(j, cfg, it->args, e) != 0)
		goto fail;
	if (!uid) {
		err_set(e, ERR_BAD_ARGS, "a cancellation needs the event's 'uid' to be sent");
		goto fail;
	}
	snprintf(j->uid, sizeof j->uid, "%s", uid);
	ev = job_event(j);
	l = (struct invite_letter){ &ev, CALENDAR_ITIP_CANCEL, it->id, NULL,
				    cfg->calendar_timezone };
	if (invite_message(cfg, &l, &j->msg, e) != 0)
		goto fail;
	*job = j;
	return 0;
fail:
	invite_discard(j);
	return -1;
}

static int cancel_deliver(const struct config *cfg, void *job, struct err *e)
{
	struct invite_job *j = job;

	if (forget_own_event(cfg, j, e) != 0)
		return -1;
	return mail_deliver(cfg, &j->msg, e);
}

static const char *const cancel_names[] = { "calendar_cancel", NULL };

const struct sink cancel_sink = {
	SINK_CANCEL, cancel_names, invite_available, cancel_check, invite_recipient,
	cancel_prepare, cancel_deliver, invite_discard,
};
