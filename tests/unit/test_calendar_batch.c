/*
 * The calendar reader's two costs: a large file placed a batch of events at a
 * time must place exactly what the whole file places (the same intervals, the
 * same error), a VTIMEZONE shared by many files is one zone while a file
 * that redefines a TZID keeps its own rules, and a file parsed without the
 * VTIMEZONEs met before and its inert lines places what it places as written.
 */
#include <criterion/criterion.h>

#include "scratch.h"
#include "base/buf.h"
#include "base/dl.h"
#include "base/err.h"
#include "base/fs.h"
#include "base/rfc3339.h"
#include "calendar/calendar.h"
#include "calendar/reader.h"
#include "calendar/zone.h"

#include <libical/ical.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static time_t at(const char *s)
{
	time_t t;

	cr_assert_eq(rfc3339_parse(s, &t), 0, "%s", s);
	return t;
}

static const char berlin[] =
	"BEGIN:VTIMEZONE\r\nTZID:Europe/Berlin\r\n"
	"BEGIN:DAYLIGHT\r\nTZOFFSETFROM:+0100\r\nTZOFFSETTO:+0200\r\nTZNAME:CEST\r\n"
	"DTSTART:19700329T020000\r\nRRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU\r\nEND:DAYLIGHT\r\n"
	"BEGIN:STANDARD\r\nTZOFFSETFROM:+0200\r\nTZOFFSETTO:+0100\r\nTZNAME:CET\r\n"
	"DTSTART:19701025T030000\r\nRRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU\r\nEND:STANDARD\r\n"
	"END:VTIMEZONE\r\n";

/*
 * A calendar that exercises what the cutting must keep together: series
 * early in the file whose overrides (moved, cancelled, this-and-future) come
 * at its end, a UID folded over two lines and one with a parameter, events
 * without a UID, a to-do with an alarm, and a second calendar with a zone of
 * its own.
 */
static char *big_calendar(int series)
{
	struct buf b = BUF_INIT;

	buf_printf(&b, "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//mecha tests//EN\r\n%s", berlin);
	for (int i = 0; i < series; i++)
		buf_printf(&b, "BEGIN:VEVENT\r\nUID:series-%d@t\r\nDTSTAMP:20261101T000000Z\r\n"
			   "DTSTART;TZID=Europe/Berlin:202610%02dT%02d0000\r\n"
			   "DTEND;TZID=Europe/Berlin:202610%02dT%02d4500\r\n"
			   "RRULE:FREQ=WEEKLY;COUNT=12\r\nSUMMARY:series %d\r\n"
			   "BEGIN:VALARM\r\nACTION:DISPLAY\r\nTRIGGER:-PT10M\r\nDESCRIPTION:x\r\n"
			   "END:VALARM\r\nEND:VEVENT\r\n",
			   i, 1 + i % 28, 8 + i % 9, 1 + i % 28, 8 + i % 9, i);
	buf_adds(&b, "BEGIN:VEVENT\r\nUID:lone@t\r\nDTSTAMP:20261101T000000Z\r\n"
		     "DTSTART;TZID=Europe/Berlin:20261012T151700\r\n"
		     "DTEND;TZID=Europe/Berlin:20261012T160200\r\nRRULE:FREQ=WEEKLY;COUNT=3\r\n"
		     "END:VEVENT\r\n");
	buf_adds(&b, "BEGIN:VEVENT\r\nUID:folded-uid-that-goes-on\r\n  and-on@t\r\n"
		     "DTSTAMP:20261101T000000Z\r\nDTSTART:20261103T060000Z\r\n"
		     "DTEND:20261103T061500Z\r\nRRULE:FREQ=DAILY;COUNT=5\r\nEND:VEVENT\r\n");
	buf_adds(&b, "BEGIN:VEVENT\r\nUID;X-ORIGIN=\"a:b\":param-uid@t\r\nDTSTAMP:20261101T000000Z\r\n"
		     "DTSTART:20261110T050000Z\r\nDTEND:20261110T053000Z\r\n"
		     "RRULE:FREQ=DAILY;COUNT=3\r\nEND:VEVENT\r\n");
	for (int i = 0; i < series / 4; i++)
		buf_printf(&b, "BEGIN:VEVENT\r\nDTSTAMP:20261101T000000Z\r\n"
			   "DTSTART:202611%02dT200000Z\r\nDURATION:PT1H\r\nEND:VEVENT\r\n", 1 + i % 28);
	buf_adds(&b, "BEGIN:VTODO\r\nUID:todo@t\r\nDTSTAMP:20261101T000000Z\r\nSUMMARY:a to-do\r\n"
		     "BEGIN:VALARM\r\nACTION:DISPLAY\r\nTRIGGER:-PT5M\r\nDESCRIPTION:y\r\nEND:VALARM\r\n"
		     "END:VTODO\r\n");
	for (int i = 0; i < series; i += 3) {
		int d = 1 + i % 28, h = 8 + i % 9;
		if (i % 2)
			buf_printf(&b, "BEGIN:VEVENT\r\nUID:series-%d@t\r\nDTSTAMP:20261101T000000Z\r\n"
				   "RECURRENCE-ID;TZID=Europe/Berlin:202610%02dT%02d0000\r\n"
				   "DTSTART;TZID=Europe/Berlin:202610%02dT%02d3000\r\n"
				   "DTEND;TZID=Europe/Berlin:202610%02dT%02d0000\r\nEND:VEVENT\r\n",
				   i, d + 7 > 31 ? d : d + 7, h, d + 7 > 31 ? d : d + 7, h + 3,
				   d + 7 > 31 ? d : d + 7, h + 5);
		else if (i % 5)
			buf_printf(&b, "BEGIN:VEVENT\r\nUID:series-%d@t\r\nDTSTAMP:20261101T000000Z\r\n"
				   "RECURRENCE-ID;TZID=Europe/Berlin:202610%02dT%02d0000\r\n"
				   "DTSTART;TZID=Europe/Berlin:202610%02dT%02d0000\r\n"
				   "STATUS:CANCELLED\r\nEND:VEVENT\r\n", i, d, h, d, h);
		else
			buf_printf(&b, "BEGIN:VEVENT\r\nUID:series-%d@t\r\nDTSTAMP:20261101T000000Z\r\n"
				   "RECURRENCE-ID;RANGE=THISANDFUTURE;TZID=Europe/Berlin:202610%02dT%02d0000\r\n"
				   "DTSTART;TZID=Europe/Berlin:202610%02dT%02d0000\r\n"
				   "DTEND;TZID=Europe/Berlin:202610%02dT%02d3000\r\nEND:VEVENT\r\n",
				   i, d, h, d, h + 1, d, h + 1);
	}
	buf_adds(&b, "BEGIN:VEVENT\r\nUID:folded-uid-that-goes-on\r\n  and-on@t\r\n"
		     "DTSTAMP:20261101T000000Z\r\nRECURRENCE-ID:20261105T060000Z\r\n"
		     "DTSTART:20261105T060000Z\r\nSTATUS:CANCELLED\r\nEND:VEVENT\r\n");
	buf_adds(&b, "END:VCALENDAR\r\n");
	buf_adds(&b, "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//other//EN\r\n"
		     "BEGIN:VTIMEZONE\r\nTZID:Local\r\nBEGIN:STANDARD\r\nTZOFFSETFROM:+0530\r\n"
		     "TZOFFSETTO:+0530\r\nDTSTART:19700101T000000\r\nEND:STANDARD\r\nEND:VTIMEZONE\r\n"
		     "BEGIN:VEVENT\r\nUID:lone@t\r\nDTSTAMP:20261101T000000Z\r\n"
		     "RECURRENCE-ID;TZID=Europe/Berlin:20261019T151700\r\n"
		     "DTSTART;TZID=Local:20261019T120000\r\nDTEND;TZID=Local:20261019T130000\r\n"
		     "END:VEVENT\r\nEND:VCALENDAR\r\n");
	return buf_steal(&b);
}

static int by_span(const void *a, const void *b)
{
	const struct calendar_interval *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->end > y->end) - (x->end < y->end);
}

/* What the reader makes of text with the given batch, sorted; -1 and e on failure. */
static int read_with(const char *text, size_t batch, struct reader *r, struct err *e)
{
	int rc;

	memset(r, 0, sizeof *r);
	r->from = at("2026-09-01T00:00:00Z");
	r->to = at("2027-03-01T00:00:00Z");
	r->local = icaltimezone_get_builtin_timezone("Europe/Berlin");
	r->batch = batch;
	r->zones = zone_cache_new();
	rc = reader_text("big.ics", text, strlen(text), r, e);
	zone_cache_free(r->zones);
	r->zones = NULL;
	if (rc == 0 && r->n > 1)
		qsort(r->v, r->n, sizeof *r->v, by_span);
	return rc;
}

static void same_as_whole(const char *text, size_t batch)
{
	struct reader whole, cut;
	struct err e;

	cr_assert_eq(read_with(text, SIZE_MAX, &whole, &e), 0, "%s", e.msg);
	cr_assert_eq(read_with(text, batch, &cut, &e), 0, "%s", e.msg);
	cr_assert_gt(whole.n, 100);
	cr_assert_eq(whole.batches, 0, "a file under its batch was cut");
	cr_assert_gt(cut.batches, batch == 1 ? 200 : 1, "batch %zu: cut into %zu", batch, cut.batches);
	cr_assert_eq(cut.n, whole.n, "batch %zu: %zu intervals, the whole file %zu", batch, cut.n,
		     whole.n);
	for (size_t i = 0; i < whole.n; i++)
		cr_assert(cut.v[i].start == whole.v[i].start && cut.v[i].end == whole.v[i].end,
			  "batch %zu: interval %zu differs", batch, i);
	free(whole.v);
	free(cut.v);
}

Test(calendar_batch, a_file_cut_into_batches_places_what_the_whole_file_places)
{
	char *text = big_calendar(200);
	struct err e;

	cr_assert_eq(dl_require(DL_ICAL, &e), 0, "%s", e.msg);
	/* One group a batch, a few groups a batch, and the default. */
	same_as_whole(text, 1);
	same_as_whole(text, 2000);
	free(text);
	text = big_calendar(2000); /* over READER_BATCH_BYTES */
	cr_assert_gt(strlen(text), READER_BATCH_BYTES);
	same_as_whole(text, 0);
	free(text);
}

/* Whether [start, end) is one of r's intervals. */
static int has(const struct reader *r, const char *start, const char *end)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->v[i].start == at(start) && r->v[i].end == at(end))
			return 1;
	return 0;
}

Test(calendar_batch, overrides_apply_across_the_file_and_its_calendars_when_batched)
{
	char *text = big_calendar(200);
	struct reader r;
	struct err e;

	cr_assert_eq(dl_require(DL_ICAL, &e), 0, "%s", e.msg);
	cr_assert_eq(read_with(text, 1, &r, &e), 0, "%s", e.msg);
	/* series-6 starts 7 October 14:00 CEST; its override at the file's end cancels that one. */
	cr_assert(has(&r, "2026-10-14T12:00:00Z", "2026-10-14T12:45:00Z"));
	cr_assert(!has(&r, "2026-10-07T12:00:00Z", "2026-10-07T12:45:00Z"),
		  "a cancelled occurrence came back when the file was batched");
	/* series-3's 11 October 11:00 CEST moved to 14:30–16:00 CEST. */
	cr_assert(has(&r, "2026-10-11T12:30:00Z", "2026-10-11T14:00:00Z"));
	/* lone's 19 October 15:17 CEST moved by the second calendar to 12:00 at +05:30. */
	cr_assert(has(&r, "2026-10-12T13:17:00Z", "2026-10-12T14:02:00Z"));
	cr_assert(has(&r, "2026-10-19T06:30:00Z", "2026-10-19T07:30:00Z"));
	cr_assert(!has(&r, "2026-10-19T13:17:00Z", "2026-10-19T14:02:00Z"));
	cr_assert(has(&r, "2026-10-26T14:17:00Z", "2026-10-26T15:02:00Z")); /* CET again */
	/* The folded UID's override cancels its third day. */
	cr_assert(has(&r, "2026-11-04T06:00:00Z", "2026-11-04T06:15:00Z"));
	cr_assert(!has(&r, "2026-11-05T06:00:00Z", "2026-11-05T06:15:00Z"));
	free(r.v);
	free(text);
}

Test(calendar_batch, a_batched_file_that_fails_names_the_whole_files_line)
{
	char *good = big_calendar(200);
	struct buf b = BUF_INIT;
	struct reader r;
	struct err whole_e, cut_e;
	const char *mid = strstr(good, "UID:series-150@t");

	cr_assert_eq(dl_require(DL_ICAL, &whole_e), 0, "%s", whole_e.msg);
	cr_assert_not_null(mid);
	mid = strstr(mid, "TZID=Europe/Berlin");
	buf_add(&b, good, (size_t)(mid - good));
	buf_adds(&b, "TZID=Nowhere/Atlantis");
	buf_adds(&b, mid + strlen("TZID=Europe/Berlin"));
	cr_assert_eq(read_with(buf_str(&b), SIZE_MAX, &r, &whole_e), -1);
	free(r.v);
	cr_assert_eq(read_with(buf_str(&b), 1, &r, &cut_e), -1);
	free(r.v);
	cr_assert_eq(r.n, 0, "a failed file added intervals");
	cr_assert_eq(r.batches, 0);
	cr_assert_str_eq(cut_e.msg, whole_e.msg);
	cr_assert(strstr(cut_e.msg, "big.ics:"), "%s", cut_e.msg);
	buf_free(&b);
	free(good);
}

Test(calendar_batch, a_file_of_another_shape_is_read_whole)
{
	static const char *const odd[] = {
		"junk before\r\nBEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n",
		"BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nEND:VTODO\r\nEND:VCALENDAR\r\n",
		"BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:x\r\n",
		/* A calendar with no children is in no batch: its flagged line must still fail. */
		"BEGIN:VCALENDAR\r\nVERS:s\r\nEND:VCALENDAR\r\nBEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\n"
		"UID:x\r\nDTSTART:20261001T100000Z\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n",
	};
	struct reader whole, cut;
	struct err e1, e2;

	cr_assert_eq(dl_require(DL_ICAL, &e1), 0, "%s", e1.msg);
	for (size_t i = 0; i < sizeof odd / sizeof odd[0]; i++) {
		int a = read_with(odd[i], SIZE_MAX, &whole, &e1), b = read_with(odd[i], 1, &cut, &e2);
		cr_assert_eq(a, b, "case %zu", i);
		if (a != 0)
			cr_assert_str_eq(e1.msg, e2.msg, "case %zu", i);
		cr_assert_eq(whole.n, cut.n, "case %zu", i);
		free(whole.v);
		free(cut.v);
	}
}

/* Two files of one vdir name "Europe/Berlin": the one that means Berlin, and one that does not. */
Test(calendar_batch, a_tzid_redefined_in_another_file_keeps_that_files_rules)
{
	char dir[256], path[512];
	struct calendar_interval *v;
	struct buf b = BUF_INIT;
	size_t n;
	struct err e;

	cr_assert_eq(dl_require(DL_ICAL, &e), 0, "%s", e.msg);
	cr_assert_not_null(scratch_mkdtemp(dir, sizeof dir, "zones-home"));
	setenv("MECHA_HOME", dir, 1); /* the path-only API reads config.toml: an empty home */
	cr_assert_not_null(scratch_mkdtemp(dir, sizeof dir, "zones"));
	for (int i = 0; i < 3; i++) {
		buf_reset(&b);
		buf_printf(&b, "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//EN\r\n%s"
			   "BEGIN:VEVENT\r\nUID:b%d\r\nDTSTAMP:20261101T000000Z\r\n"
			   "DTSTART;TZID=Europe/Berlin:2026120%dT100000\r\n"
			   "DTEND;TZID=Europe/Berlin:2026120%dT110000\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n",
			   berlin, i, i + 1, i + 1);
		snprintf(path, sizeof path, "%s/b%d.ics", dir, i);
		cr_assert_eq(fs_replace(path, buf_str(&b), b.len, &e), 0, "%s", e.msg);
	}
	buf_reset(&b);
	buf_adds(&b, "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//EN\r\n"
		     "BEGIN:VTIMEZONE\r\nTZID:Europe/Berlin\r\nBEGIN:STANDARD\r\nTZOFFSETFROM:+0500\r\n"
		     "TZOFFSETTO:+0500\r\nDTSTART:19700101T000000\r\nEND:STANDARD\r\nEND:VTIMEZONE\r\n"
		     "BEGIN:VEVENT\r\nUID:odd\r\nDTSTAMP:20261101T000000Z\r\n"
		     "DTSTART;TZID=Europe/Berlin:20261210T100000\r\n"
		     "DTEND;TZID=Europe/Berlin:20261210T110000\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n");
	snprintf(path, sizeof path, "%s/odd.ics", dir);
	cr_assert_eq(fs_replace(path, buf_str(&b), b.len, &e), 0, "%s", e.msg);
	buf_free(&b);

	cr_assert_eq(calendar_busy(dir, at("2026-12-01T00:00:00Z"), at("2026-12-31T00:00:00Z"), &v,
				   &n, &e), 0, "%s", e.msg);
	cr_assert_eq(n, 4);
	cr_assert_eq(v[0].start, at("2026-12-01T09:00:00Z"));
	cr_assert_eq(v[1].start, at("2026-12-02T09:00:00Z"));
	cr_assert_eq(v[2].start, at("2026-12-03T09:00:00Z"));
	cr_assert_eq(v[3].start, at("2026-12-10T05:00:00Z"), "the redefined zone took Berlin's rules");
	free(v);
}

/* The text read as two files of one vdir (the second meets its VTIMEZONEs known), and with no cache. */
static int read_lean(const char *text, struct reader *r, struct reader *plain, struct err *e,
		     struct err *plain_e)
{
	int a, b;

	memset(r, 0, sizeof *r);
	r->from = at("2026-09-01T00:00:00Z");
	r->to = at("2027-03-01T00:00:00Z");
	r->local = icaltimezone_get_builtin_timezone("Europe/Berlin");
	*plain = *r;
	r->zones = zone_cache_new();
	a = reader_text("a.ics", text, strlen(text), r, e);
	if (a == 0) {
		r->n = 0;
		a = reader_text("a.ics", text, strlen(text), r, e);
	}
	zone_cache_free(r->zones);
	r->zones = NULL;
	b = reader_text("a.ics", text, strlen(text), plain, plain_e);
	cr_assert_eq(a, b, "%s", a ? e->msg : plain_e->msg);
	if (a != 0) {
		cr_assert_str_eq(e->msg, plain_e->msg);
		return a;
	}
	cr_assert_eq(r->n, plain->n);
	for (size_t i = 0; i < r->n; i++)
		cr_assert(r->v[i].start == plain->v[i].start && r->v[i].end == plain->v[i].end,
			  "interval %zu differs", i);
	return 0;
}

#define EVENT(uid, extra)                                                                     \
	"BEGIN:VEVENT\r\nUID:" uid "\r\nDTSTAMP:20261101T000000Z\r\nSUMMARY:a folded\r\n  title\r\n" \
	"DESCRIPTION:notes\r\nLOCATION:room\r\n" extra                                           \
	"DTSTART;TZID=Europe/Berlin:20261020T100000\r\n"                                         \
	"DTEND;TZID=Europe/Berlin:20261020T110000\r\nEND:VEVENT\r\n"
#define HEAD "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//EN\r\n"

Test(calendar_batch, a_file_parsed_without_its_known_zones_and_inert_lines_places_the_same)
{
	static const char odd_berlin[] =
		"BEGIN:VTIMEZONE\r\nTZID:Europe/Berlin\r\nBEGIN:STANDARD\r\nTZOFFSETFROM:+0500\r\n"
		"TZOFFSETTO:+0500\r\nDTSTART:19700101T000000\r\nEND:STANDARD\r\nEND:VTIMEZONE\r\n";
	static const char flagged[] =
		"BEGIN:VTIMEZONE\r\nTZID:Europe/Berlin\r\nVERS:s\r\nBEGIN:STANDARD\r\nTZOFFSETFROM:+0500\r\n"
		"TZOFFSETTO:+0500\r\nDTSTART:19700101T000000\r\nEND:STANDARD\r\nEND:VTIMEZONE\r\n";
	struct { const char *text; int lean, fails; } cases[] = {
		{ NULL, 1, 0 }, /* Berlin, the vdir's common case */
		{ NULL, 1, 0 }, /* two calendars, each with its zone */
		{ NULL, 0, 0 }, /* one TZID twice in a calendar: as written */
		{ NULL, 0, 1 }, /* a VTIMEZONE with a flagged line fails as written */
		{ NULL, 1, 0 }, /* an empty SUMMARY and an unreadable DTSTAMP are let pass */
		{ NULL, 0, 1 }, /* an empty PRODID is flagged, in a calendar's own lines */
		{ NULL, 0, 0 }, /* a BEGIN line with a parameter: as written */
	};
	struct buf b[sizeof cases / sizeof cases[0]];
	struct reader r, plain;
	struct err e1, e2;

	cr_assert_eq(dl_require(DL_ICAL, &e1), 0, "%s", e1.msg);
	for (size_t i = 0; i < sizeof b / sizeof b[0]; i++)
		b[i] = (struct buf)BUF_INIT;
	buf_printf(&b[0], HEAD "%s" EVENT("a", "") "END:VCALENDAR\r\n", berlin);
	buf_printf(&b[1], HEAD "%s" EVENT("a", "") "END:VCALENDAR\r\n" HEAD "%s" EVENT("b", "")
		   "END:VCALENDAR\r\n", berlin, odd_berlin);
	buf_printf(&b[2], HEAD "%s%s" EVENT("a", "") "END:VCALENDAR\r\n", berlin, odd_berlin);
	buf_printf(&b[3], HEAD "%s" EVENT("a", "") "END:VCALENDAR\r\n", flagged);
	buf_printf(&b[4], HEAD "%s" EVENT("a", "SUMMARY:\r\nDTSTAMP:2026x\r\n") "END:VCALENDAR\r\n",
		   berlin);
	buf_printf(&b[5], "BEGIN:VCALENDAR\r\nPRODID:\r\n%s" EVENT("a", "") "END:VCALENDAR\r\n",
		   berlin);
	buf_printf(&b[6], HEAD "BEGIN;X-A=b:VTIMEZONE\r\n%s" EVENT("a", "") "END:VCALENDAR\r\n",
		   berlin + strlen("BEGIN:VTIMEZONE\r\n"));
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int rc = read_lean(buf_str(&b[i]), &r, &plain, &e1, &e2);
		cr_assert_eq(rc != 0, cases[i].fails, "case %zu: %s", i, rc ? e1.msg : "placed");
		if (!cases[i].fails) {
			cr_assert_gt(r.n, 0, "case %zu", i);
			cr_assert_eq(r.lean, cases[i].lean ? 2 : 0, "case %zu: lean %zu", i, r.lean);
		}
		free(r.v);
		free(plain.v);
		buf_free(&b[i]);
	}
}
