/*
 * Free/busy from a real iCalendar file and a real vdir, read with libical.
 */
#include <criterion/criterion.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/fs.h"
#include "base/jsonio.h"
#include "base/rfc3339.h"
#include "calendar/calendar.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char ics[] =
	"BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//mecha tests//EN\r\n"
	"BEGIN:VEVENT\r\nUID:a\r\nDTSTAMP:20260801T000000Z\r\nSUMMARY:Secret board meeting\r\n"
	"DTSTART:20260810T090000Z\r\nDTEND:20260810T100000Z\r\nEND:VEVENT\r\n"
	"BEGIN:VEVENT\r\nUID:b\r\nDTSTAMP:20260801T000000Z\r\nSUMMARY:touching\r\n"
	"DTSTART:20260810T100000Z\r\nDTEND:20260810T103000Z\r\nEND:VEVENT\r\n"
	"BEGIN:VEVENT\r\nUID:c\r\nDTSTAMP:20260801T000000Z\r\nSUMMARY:free time\r\nTRANSP:TRANSPARENT\r\n"
	"DTSTART:20260810T120000Z\r\nDTEND:20260810T130000Z\r\nEND:VEVENT\r\n"
	"BEGIN:VEVENT\r\nUID:d\r\nDTSTAMP:20260801T000000Z\r\nSUMMARY:called off\r\nSTATUS:CANCELLED\r\n"
	"DTSTART:20260810T140000Z\r\nDTEND:20260810T150000Z\r\nEND:VEVENT\r\n"
	"BEGIN:VEVENT\r\nUID:e\r\nDTSTAMP:20260801T000000Z\r\nSUMMARY:weekly\r\n"
	"DTSTART:20260803T160000Z\r\nDTEND:20260803T170000Z\r\nRRULE:FREQ=WEEKLY;COUNT=4\r\nEND:VEVENT\r\n"
	"END:VCALENDAR\r\n";

static char *write_calendar(const char *name, const char *text)
{
	char tmpl[] = "/tmp/mecha-cal-XXXXXX";
	struct err e;
	char *p;

	cr_assert_not_null(mkdtemp(tmpl));
	p = fs_join(tmpl, name);
	cr_assert_eq(fs_replace(p, text, strlen(text), &e), 0, "%s", e.msg);
	return p;
}

static time_t at(const char *s)
{
	time_t t;
	cr_assert_eq(rfc3339_parse(s, &t), 0);
	return t;
}

Test(calendar, busy_intervals_merge_expand_and_skip_free_or_cancelled_events)
{
	char *path = write_calendar("personal.ics", ics);
	struct calendar_interval *v;
	size_t n;
	struct err e;

	cr_assert_eq(calendar_busy(path, at("2026-08-10T00:00:00Z"), at("2026-08-11T00:00:00Z"), &v, &n, &e),
		     0, "%s", e.msg);
	json_t *j = calendar_intervals_json(v, n);
	char *s = jsonio_compact(j);
	cr_assert_str_eq(s, "[{\"start\":\"2026-08-10T09:00:00Z\",\"end\":\"2026-08-10T10:30:00Z\"},"
			    "{\"start\":\"2026-08-10T16:00:00Z\",\"end\":\"2026-08-10T17:00:00Z\"}]");
	cr_assert_null(strstr(s, "Secret"), "a title left the calendar");
	free(s);
	json_decref(j);
	free(v);
	free(path);
}

Test(calendar, a_slot_is_free_only_when_nothing_busy_overlaps_it)
{
	char *path = write_calendar("personal.ics", ics);
	struct err e;

	cr_assert_eq(calendar_is_free(path, at("2026-08-10T10:30:00Z"), at("2026-08-10T11:00:00Z"), &e), 1);
	cr_assert_eq(calendar_is_free(path, at("2026-08-10T10:00:00Z"), at("2026-08-10T11:00:00Z"), &e), 0);
	cr_assert_eq(calendar_is_free(path, at("2026-08-10T12:00:00Z"), at("2026-08-10T13:00:00Z"), &e), 1,
		     "a transparent event made the slot busy");
	cr_assert_eq(calendar_is_free(path, at("2026-08-24T16:30:00Z"), at("2026-08-24T16:45:00Z"), &e), 0,
		     "the fourth weekly occurrence was not expanded");
	cr_assert_eq(calendar_is_free(path, at("2026-08-31T16:30:00Z"), at("2026-08-31T16:45:00Z"), &e), 1,
		     "COUNT=4 ends the recurrence");
	free(path);
}

Test(calendar, a_vdir_is_read_file_by_file)
{
	char *p = write_calendar("a.ics", ics);
	char *dir = fs_dirname(p);
	char *other = fs_join(dir, "b.ics");
	struct err e;
	const char *more = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:x\r\nBEGIN:VEVENT\r\nUID:z\r\n"
			   "DTSTAMP:20260801T000000Z\r\nDTSTART:20260811T080000Z\r\nDTEND:20260811T090000Z\r\n"
			   "END:VEVENT\r\nEND:VCALENDAR\r\n";

	cr_assert_eq(fs_replace(other, more, strlen(more), &e), 0);
	cr_assert_eq(calendar_is_free(dir, at("2026-08-11T08:30:00Z"), at("2026-08-11T08:45:00Z"), &e), 0);
	cr_assert_eq(calendar_is_free(dir, at("2026-08-10T09:30:00Z"), at("2026-08-10T09:45:00Z"), &e), 0);
	free(other);
	free(dir);
	free(p);
}

Test(calendar, a_missing_or_broken_calendar_fails_and_says_which)
{
	struct calendar_interval *v;
	size_t n;
	struct err e;
	char *bad = write_calendar("broken.ics", "this is not a calendar");

	cr_assert_eq(calendar_busy("/nonexistent/cal.ics", 0, 3600, &v, &n, &e), -1);
	cr_assert_eq(calendar_busy(bad, 0, 3600, &v, &n, &e), -1);
	cr_assert(strstr(e.msg, "broken.ics"), "%s", e.msg);
	cr_assert_eq(calendar_busy(bad, 3600, 0, &v, &n, &e), -1);
	cr_assert_eq(e.code, ERR_BAD_WINDOW);
	free(bad);
}
