/*
 * An invitation as it leaves the house: a text/plain part and an iTIP
 * text/calendar part that libical reads back with the same UID, times and
 * people; its withdrawal; and what the calendar_invite sink needs to deliver.
 */
#include <criterion/criterion.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/jsonio.h"
#include "config/config.h"
#include "outbox/invite.h"
#include "outbox/mail.h"
#include "outbox/sink.h"

#include <libical/ical.h>
#include <openssl/evp.h>
#include <stdlib.h>
#include <string.h>

#define START 1792832400 /* 2026-10-24T09:00:00Z */
#define END (START + 45 * 60)

static const struct calendar_event event = {
	"booking-b1@mecha", "meeting (booked by ada@example.org)", NULL, "me@example.org",
	"ada@example.org", START, END, 0,
};

static struct mail_message letter(enum calendar_itip_method m, const char *link)
{
	struct config cfg = { 0 };
	struct invite_letter l = { &event, m, "booking-b1-request", link, NULL };
	struct mail_message msg;
	struct err e;

	cfg.mail_from = "Me Myself <me@example.org>";
	cr_assert_eq(invite_message(&cfg, &l, &msg, &e), 0, "%s", e.msg);
	return msg;
}

/* The body of the part whose headers contain `type`, up to the next boundary. */
static char *part_body(const char *text, const char *type)
{
	const char *h = strstr(text, type), *body, *end;

	cr_assert_not_null(h, "no %s part", type);
	body = strstr(h, "\r\n\r\n");
	cr_assert_not_null(body);
	body += 4;
	end = strstr(body, "\r\n--=_mecha_");
	cr_assert_not_null(end, "the %s part is not closed by the boundary", type);
	return strndup(body, (size_t)(end - body) + 2);
}

/* base64 lines (CRLF) decoded, as a mail reader would. */
static char *unbase64(const char *b64)
{
	struct buf joined = BUF_INIT;
	unsigned char *out;
	int n;

	for (const char *p = b64; *p; p++)
		if (*p != '\r' && *p != '\n')
			buf_addc(&joined, *p);
	out = calloc(1, joined.len);
	n = EVP_DecodeBlock(out, (const unsigned char *)joined.data, (int)joined.len);
	cr_assert_geq(n, 0, "not base64");
	while (joined.len >= 1 && joined.data[joined.len - 1] == '=') {
		joined.len--;
		n--;
	}
	out[n] = '\0';
	buf_free(&joined);
	return (char *)out;
}

static icalcomponent *itip_of(const struct mail_message *msg)
{
	char *b64 = part_body(msg->text, "Content-Type: text/calendar"), *ics = unbase64(b64);
	icalcomponent *cal = icalparser_parse_string(ics);

	cr_assert_not_null(cal, "libical cannot read the invitation:\n%s", ics);
	free(b64);
	free(ics);
	return cal;
}

static const char *mailto(icalproperty *p)
{
	const char *v = icalproperty_get_value_as_string(p);

	cr_assert_not_null(v);
	return strncasecmp(v, "mailto:", 7) == 0 ? v + 7 : v;
}

Test(invite, an_invitation_is_an_itip_request_libical_reads_back)
{
	struct mail_message msg = letter(CALENDAR_ITIP_REQUEST, "https://gate.example.org/m/abc");
	icalcomponent *cal = itip_of(&msg), *ev;
	char *plain = part_body(msg.text, "Content-Type: text/plain");

	cr_assert(strstr(msg.text, "Content-Type: multipart/alternative;\r\n boundary=") != NULL);
	cr_assert(strstr(msg.text, "Content-Type: text/calendar; method=REQUEST; charset=UTF-8") !=
		  NULL);
	cr_assert(strstr(msg.text, "Message-ID: <booking-b1-request@mecha>\r\n") != NULL);
	cr_assert(strstr(plain, "https://gate.example.org/m/abc") != NULL, "no manage link: %s",
		  plain);
	cr_assert_eq(icalcomponent_get_method(cal), ICAL_METHOD_REQUEST);
	ev = icalcomponent_get_first_component(cal, ICAL_VEVENT_COMPONENT);
	cr_assert_not_null(ev);
	cr_assert_str_eq(icalcomponent_get_uid(ev), "booking-b1@mecha");
	cr_assert_eq(icaltime_as_timet(icalcomponent_get_dtstart(ev)), START);
	cr_assert_eq(icaltime_as_timet(icalcomponent_get_dtend(ev)), END);
	cr_assert_str_eq(mailto(icalcomponent_get_first_property(ev, ICAL_ATTENDEE_PROPERTY)),
			 "ada@example.org");
	cr_assert_str_eq(mailto(icalcomponent_get_first_property(ev, ICAL_ORGANIZER_PROPERTY)),
			 "me@example.org");
	cr_assert_eq(msg.nrcpt, 1);
	cr_assert_str_eq(msg.rcpt[0], "ada@example.org");
	icalcomponent_free(cal);
	free(plain);
	mail_message_free(&msg);
}

/* The text/plain part, quoted-printable decoded, as a mail reader shows it. */
static char *plain_text(const struct mail_message *msg)
{
	char *qp = part_body(msg->text, "Content-Type: text/plain"), *out = calloc(1, strlen(qp) + 1);
	size_t n = 0;

	for (const char *p = qp; *p; p++) {
		if (p[0] == '=' && p[1] == '\r' && p[2] == '\n')
			p += 2; /* a soft line break */
		else if (p[0] == '=' && p[1] && p[2]) {
			char hex[3] = { p[1], p[2], 0 };
			out[n++] = (char)strtol(hex, NULL, 16);
			p += 2;
		} else if (*p != '\r')
			out[n++] = *p;
	}
	free(qp);
	return out;
}

/* The "When:" line of the invitation for [start, end) told in zone. */
static void when_in(const char *zone, time_t start, time_t end, const char *want)
{
	struct calendar_event ev = event;
	struct config cfg = { 0 };
	struct invite_letter l = { &ev, CALENDAR_ITIP_REQUEST, "x", NULL, zone };
	struct mail_message msg;
	struct err e;
	char *text;

	ev.start = start;
	ev.end = end;
	cfg.mail_from = "me@example.org";
	cr_assert_eq(invite_message(&cfg, &l, &msg, &e), 0, "%s", e.msg);
	text = plain_text(&msg);
	cr_assert(strstr(text, want) != NULL, "wanted \"%s\" in:\n%s", want, text);
	free(text);
	mail_message_free(&msg);
}

Test(invite, the_text_tells_the_time_by_the_zones_clock_and_names_the_zone)
{
	when_in(NULL, START, END, "When: Saturday 24 October 2026, 09:00\xe2\x80\x93" "09:45 UTC\n");
	when_in("Europe/Berlin", START, END,
		"When: Saturday 24 October 2026, 11:00\xe2\x80\x93" "11:45 Europe/Berlin\n");
	/* Berlin is on winter time from 01:00 UTC the next morning. */
	when_in("Europe/Berlin", START + 86400, END + 86400,
		"When: Sunday 25 October 2026, 10:00\xe2\x80\x93" "10:45 Europe/Berlin\n");
}

Test(invite, a_slot_across_midnight_names_both_days)
{
	/* 02:00–03:00 UTC is 23:30 on Friday to 00:30 on Saturday in St. John's (UTC-2:30). */
	when_in("America/St_Johns", START - 7 * 3600, START - 6 * 3600,
		"When: Friday 23 October 2026, 23:30\xe2\x80\x93Saturday 24 October 2026, 00:30 "
		"America/St_Johns\n");
}

Test(invite, a_slot_the_clocks_go_back_inside_gives_each_ends_offset)
{
	/* St. John's goes back from 02:00 NDT to 01:00 NST at 04:30 UTC on 1 November 2026. */
	time_t start = 1793505600; /* 2026-11-01T04:00:00Z */

	when_in("America/St_Johns", start, start + 3600,
		"When: Sunday 01 November 2026, 01:30 (UTC-02:30)\xe2\x80\x93" "01:30 (UTC-03:30) "
		"America/St_Johns\n");
}

Test(invite, a_zone_mecha_does_not_know_is_refused_naming_it)
{
	struct config cfg = { 0 };
	struct invite_letter l = { &event, CALENDAR_ITIP_REQUEST, "x", NULL, "Mars/Olympus_Mons" };
	struct mail_message msg;
	struct err e;

	cfg.mail_from = "me@example.org";
	cr_assert_eq(invite_message(&cfg, &l, &msg, &e), -1);
	cr_assert_eq(e.code, ERR_CONFIG);
	cr_assert(strstr(e.msg, "Mars/Olympus_Mons") != NULL, "%s", e.msg);
}

Test(invite, a_withdrawal_is_an_itip_cancel_of_the_same_event_one_sequence_later)
{
	struct mail_message msg = letter(CALENDAR_ITIP_CANCEL, NULL);
	icalcomponent *cal = itip_of(&msg), *ev;

	cr_assert_eq(icalcomponent_get_method(cal), ICAL_METHOD_CANCEL);
	ev = icalcomponent_get_first_component(cal, ICAL_VEVENT_COMPONENT);
	cr_assert_str_eq(icalcomponent_get_uid(ev), "booking-b1@mecha");
	cr_assert_eq(icalcomponent_get_status(ev), ICAL_STATUS_CANCELLED);
	cr_assert_eq(icalproperty_get_sequence(
			     icalcomponent_get_first_property(ev, ICAL_SEQUENCE_PROPERTY)), 1);
	cr_assert(strstr(msg.text, "method=CANCEL") != NULL);
	icalcomponent_free(cal);
	mail_message_free(&msg);
}

Test(invite, the_calendar_part_cannot_hold_the_boundary_or_end_the_message)
{
	struct calendar_event ev = event;
	struct config cfg = { 0 };
	struct invite_letter l = { &ev, CALENDAR_ITIP_REQUEST, "x", NULL, NULL };
	struct mail_message msg;
	struct err e;

	ev.summary = "--=_mecha_x\n.\nFrom here =?UTF-8?B?x?=";
	cfg.mail_from = "me@example.org";
	cr_assert_eq(invite_message(&cfg, &l, &msg, &e), 0, "%s", e.msg);
	/* Only the three boundary lines mecha wrote start with "--=_mecha_". */
	size_t n = 0;
	for (const char *p = msg.text; (p = strstr(p, "\r\n--=_mecha_x")); p++)
		n++;
	cr_assert_eq(n, 3, "%s", msg.text);
	cr_assert_null(strstr(msg.text, "\r\n.\r\n"));
	mail_message_free(&msg);
}

Test(invite, a_method_other_than_request_or_cancel_is_refused)
{
	struct mail_calendar cal = { "PUBLISH", "BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n" };
	json_t *args = json_pack("{s:s,s:s,s:s}", "to", "ada@example.org", "subject", "x", "body",
				 "y");
	struct mail_message msg;
	struct err e;

	cr_assert_eq(mail_build_itip("me@example.org", "x", args, &cal, START, &msg, &e), -1);
	cr_assert_eq(e.code, ERR_BAD_ARGS);
	cal.method = "REQUEST\r\nBcc: evil@example.org";
	cr_assert_eq(mail_build_itip("me@example.org", "x", args, &cal, START, &msg, &e), -1);
	json_decref(args);
}

Test(invite, the_sink_needs_a_calendar_and_a_mail_route)
{
	struct config c;
	struct err e;

	memset(&c, 0, sizeof c);
	cr_assert_eq(sink_available(&c, "calendar_invite", &e), 0);
	cr_assert_eq(e.code, ERR_UNAVAILABLE);
	cr_assert(strstr(e.msg, "[calendar] path") != NULL, "%s", e.msg);
	c.calendar_path = "/nonexistent/calendar.ics";
	cr_assert_eq(sink_available(&c, "calendar_invite", &e), 0);
	cr_assert_eq(e.code, ERR_NO_ROUTE);
	c.mail_sendmail = "/usr/sbin/sendmail -t";
	c.mail_from = "me@example.org";
	cr_assert_eq(sink_available(&c, "calendar_invite", &e), 1, "%s", e.msg);
}

Test(invite, a_draft_whose_slot_does_not_read_is_not_staged)
{
	struct err e;
	json_t *a = json_pack("{s:s,s:s,s:s}", "to", "ada@example.org", "start", "Tuesday", "end",
			      "2026-10-24T10:00:00Z");

	cr_assert_eq(sink_check("calendar_invite", a, &e), -1);
	cr_assert_eq(e.code, ERR_BAD_ARGUMENTS);
	json_object_set_new(a, "start", json_string("2026-10-24T11:00:00Z"));
	cr_assert_eq(sink_check("calendar_invite", a, &e), -1, "a slot that ends first was staged");
	json_object_set_new(a, "start", json_string("2026-10-24T09:00:00Z"));
	cr_assert_eq(sink_check("calendar_invite", a, &e), 0, "%s", e.msg);
	json_decref(a);
}
