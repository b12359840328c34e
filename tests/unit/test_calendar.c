/*
 * Free/busy from real iCalendar files, read with libical: the hand-written
 * fixtures under tests/fixtures/calendar (their README gives each expected
 * interval, worked out by hand), exact to the minute; and the events mecha
 * writes, read back.
 */
#include <criterion/criterion.h>

#include "scratch.h"
#include "source_fixture.h"
#include "base/buf.h"
#include "base/err.h"
#include "base/fs.h"
#include "base/jsonio.h"
#include "base/rfc3339.h"
#include "calendar/calendar.h"
#include "calendar/zone.h"
#include "config/config.h"

#include <dirent.h>
#include <libical/ical.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FIXTURES "tests/fixtures/calendar"

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

/* The path-only API reads config.toml: give it an empty home of its own. */
static void empty_home(void)
{
	char tmpl[512];

	cr_assert_not_null(scratch_mkdtemp(tmpl, sizeof tmpl, "cal-home"));
	setenv("MECHA_HOME", tmpl, 1);
}

static char *temp_dir(void)
{
	char tmpl[512];

	cr_assert_not_null(scratch_mkdtemp(tmpl, sizeof tmpl, "cal"));
	return xstrdup(tmpl);
}

static char *write_calendar(const char *name, const char *text)
{
	char *dir = temp_dir();
	struct err e;
	char *p = fs_join(dir, name);

	cr_assert_eq(fs_replace(p, text, strlen(text), &e), 0, "%s", e.msg);
	free(dir);
	return p;
}

static time_t at(const char *s)
{
	time_t t;
	cr_assert_eq(rfc3339_parse(s, &t), 0, "%s", s);
	return t;
}

/* A config naming a calendar and a zone (borrowed strings; nothing to free). */
static struct config conf(const char *path, const char *zone)
{
	struct config c;

	memset(&c, 0, sizeof c);
	c.calendar_path = (char *)path;
	c.calendar_timezone = (char *)zone;
	c.mail_from = (char *)"Me <me@example.org>";
	return c;
}

/* Busy time over [from, to) as "start/end start/end …" in UTC. */
static char *busy(const struct config *c, const char *from, const char *to)
{
	struct calendar_interval *v;
	struct buf b = BUF_INIT;
	char s[RFC3339_LEN], t[RFC3339_LEN];
	struct err e;
	size_t n;

	cr_assert_eq(calendar_busy_conf(c, at(from), at(to), &v, &n, &e), 0, "%s", e.msg);
	for (size_t i = 0; i < n; i++) {
		rfc3339_format(v[i].start, s);
		rfc3339_format(v[i].end, t);
		buf_printf(&b, "%s%s/%s", i ? " " : "", s, t);
	}
	free(v);
	return buf_steal(&b);
}

static void expect_busy(const struct config *c, const char *want)
{
	char *got = busy(c, "2026-10-01T00:00:00Z", "2026-12-01T00:00:00Z");

	cr_assert_str_eq(got, want);
	free(got);
}

static struct err refused(const struct config *c)
{
	struct calendar_interval *v = NULL;
	struct err e;
	size_t n = 99;

	cr_assert_eq(calendar_busy_conf(c, at("2026-10-01T00:00:00Z"), at("2026-12-01T00:00:00Z"), &v,
					&n, &e), -1, "an unreadable calendar was answered");
	cr_assert_null(v);
	cr_assert_eq(n, 0);
	return e;
}

/* ---- the path API, as triage and the MCP tool call it ----------------------------- */

Test(calendar, busy_intervals_merge_expand_and_skip_free_or_cancelled_events)
{
	char *path = write_calendar("personal.ics", ics);
	struct calendar_interval *v;
	size_t n;
	struct err e;

	empty_home();
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

	empty_home();
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

	empty_home();
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

	empty_home();
	cr_assert_eq(calendar_busy("/nonexistent/cal.ics", 0, 3600, &v, &n, &e), -1);
	cr_assert_eq(calendar_busy(bad, 0, 3600, &v, &n, &e), -1);
	cr_assert(strstr(e.msg, "broken.ics"), "%s", e.msg);
	cr_assert_eq(calendar_busy(bad, 3600, 0, &v, &n, &e), -1);
	cr_assert_eq(e.code, ERR_BAD_WINDOW);
	free(bad);
}

Test(calendar, the_path_api_takes_the_zone_from_config_toml)
{
	char *home = temp_dir(), *cfg = fs_join(home, "config.toml");
	const char *text = "[calendar]\ntimezone = \"America/New_York\"\n";
	struct calendar_interval *v;
	struct err e;
	size_t n;

	cr_assert_eq(fs_replace(cfg, text, strlen(text), &e), 0);
	setenv("MECHA_HOME", home, 1);
	cr_assert_eq(calendar_busy(source_path(FIXTURES "/allday.ics"), at("2026-10-30T00:00:00Z"),
				   at("2026-10-31T00:00:00Z"), &v, &n, &e), 0, "%s", e.msg);
	cr_assert_eq(n, 1);
	cr_assert_eq(v[0].start, at("2026-10-30T16:00:00Z"), "floating lunch not read in New York");
	free(v);
	free(cfg);
	free(home);
}

/* ---- the hand-written fixtures, exact to the minute --------------------------------- */

Test(calendar, a_weekly_rule_skips_its_exdate_and_an_override_counts_only_at_its_new_time)
{
	struct config c = conf(source_path(FIXTURES "/weekly.ics"), "Europe/Berlin");

	/* Oct 12 is an EXDATE; Oct 19 moved to Oct 20 14:00; Nov 2 cancelled; CET from Oct 25. */
	expect_busy(&c, "2026-10-05T07:30:00Z/2026-10-05T08:00:00Z "
			"2026-10-20T12:00:00Z/2026-10-20T12:30:00Z "
			"2026-10-26T08:30:00Z/2026-10-26T09:00:00Z "
			"2026-11-09T08:30:00Z/2026-11-09T09:00:00Z "
			"2026-11-16T08:30:00Z/2026-11-16T09:00:00Z "
			"2026-11-23T08:30:00Z/2026-11-23T09:00:00Z");
}

Test(calendar, a_moved_or_cancelled_occurrence_leaves_its_old_time_free)
{
	struct config c = conf(source_path(FIXTURES "/weekly.ics"), "Europe/Berlin");
	struct err e;

	cr_assert_eq(calendar_is_free_conf(&c, at("2026-10-19T07:30:00Z"), at("2026-10-19T08:00:00Z"), &e),
		     1, "the moved occurrence is still busy at its old time");
	cr_assert_eq(calendar_is_free_conf(&c, at("2026-11-02T08:30:00Z"), at("2026-11-02T09:00:00Z"), &e),
		     1, "the cancelled occurrence is still busy");
	cr_assert_eq(calendar_is_free_conf(&c, at("2026-10-20T12:29:00Z"), at("2026-10-20T12:30:00Z"), &e),
		     0, "the moved occurrence is not busy at its new time");
}

Test(calendar, all_day_events_end_where_dtend_says_and_a_lone_date_lasts_one_day)
{
	struct config c = conf(source_path(FIXTURES "/allday.ics"), "Europe/Berlin");

	/*
	 * Conference Oct 24–25 (DTEND Oct 26 exclusive, CET from Oct 25), offsite
	 * Oct 28 alone, the DURATION dentist, floating lunch in Berlin; the
	 * transparent holiday and the DTEND-less moment are not busy.
	 */
	expect_busy(&c, "2026-10-23T22:00:00Z/2026-10-25T23:00:00Z "
			"2026-10-27T23:00:00Z/2026-10-28T23:00:00Z "
			"2026-10-29T15:00:00Z/2026-10-29T16:30:00Z "
			"2026-10-30T11:00:00Z/2026-10-30T12:00:00Z");
}

Test(calendar, floating_times_and_dates_follow_the_configured_zone)
{
	struct config c = conf(source_path(FIXTURES "/allday.ics"), "America/New_York");

	expect_busy(&c, "2026-10-24T04:00:00Z/2026-10-26T04:00:00Z "
			"2026-10-28T04:00:00Z/2026-10-29T04:00:00Z "
			"2026-10-29T15:00:00Z/2026-10-29T16:30:00Z "
			"2026-10-30T16:00:00Z/2026-10-30T17:00:00Z");
}

Test(calendar, without_a_configured_zone_the_system_zone_from_tz_is_used)
{
	struct config c = conf(source_path(FIXTURES "/allday.ics"), NULL);
	char *got;

	setenv("TZ", "Asia/Tokyo", 1);
	got = busy(&c, "2026-10-30T00:00:00Z", "2026-10-31T00:00:00Z");
	cr_assert_str_eq(got, "2026-10-30T03:00:00Z/2026-10-30T04:00:00Z");
	free(got);
	setenv("TZ", ":/usr/share/zoneinfo/Europe/Berlin", 1);
	got = busy(&c, "2026-10-30T00:00:00Z", "2026-10-31T00:00:00Z");
	cr_assert_str_eq(got, "2026-10-30T11:00:00Z/2026-10-30T12:00:00Z");
	free(got);
	unsetenv("TZ");
}

Test(calendar, a_zone_nobody_knows_is_a_configuration_error)
{
	struct config c = conf(source_path(FIXTURES "/allday.ics"), "Mars/Olympus_Mons");
	struct err e = refused(&c);

	cr_assert_eq(e.code, ERR_CONFIG);
	cr_assert(strstr(e.msg, "Mars/Olympus_Mons"), "%s", e.msg);
}

Test(calendar, a_tzid_without_vtimezone_uses_the_builtin_zone_or_the_outlook_name)
{
	struct config c = conf(source_path(FIXTURES "/zones.ics"), "UTC");

	/* New York is on EST from Nov 1; "W. Europe Standard Time" is Berlin, CET. */
	expect_busy(&c, "2026-11-03T14:00:00Z/2026-11-03T15:00:00Z "
			"2026-11-04T08:00:00Z/2026-11-04T08:30:00Z");
}

Test(calendar, common_windows_zone_names_map_to_zones_libical_knows)
{
	const char *names[] = { "W. Europe Standard Time", "Romance Standard Time",
				"GMT Standard Time", "Eastern Standard Time",
				"Pacific Standard Time", "Central Standard Time",
				"India Standard Time", "Tokyo Standard Time",
				"AUS Eastern Standard Time", "US Eastern Standard Time",
				"Argentina Standard Time", "Nepal Standard Time", "UTC" };

	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		cr_assert_not_null(zone_for_tzid(NULL, names[i]), "%s", names[i]);
	cr_assert_not_null(zone_for_tzid(NULL, "/mozilla.org/20050126_1/Europe/Berlin"));
	cr_assert_null(zone_for_tzid(NULL, "../../../../etc/passwd"));
	cr_assert_null(zone_for_tzid(NULL, "Atlantis Standard Time"));
}

Test(calendar, both_vcalendars_of_one_file_are_read_and_touching_intervals_merge)
{
	struct config c = conf(source_path(FIXTURES "/two-calendars.ics"), "UTC");

	expect_busy(&c, "2026-11-05T10:00:00Z/2026-11-05T11:30:00Z");
}

Test(calendar, rdates_add_occurrences_and_an_rdate_period_keeps_its_own_length)
{
	struct config c = conf(source_path(FIXTURES "/rdate.ics"), "UTC");

	expect_busy(&c, "2026-11-06T13:00:00Z/2026-11-06T14:00:00Z "
			"2026-11-13T13:00:00Z/2026-11-13T14:00:00Z "
			"2026-11-20T13:00:00Z/2026-11-20T15:00:00Z");
}

Test(calendar, a_vdirsyncer_root_reads_every_collection_below_it)
{
	struct config c = conf(source_path(FIXTURES "/root"), "UTC");

	expect_busy(&c, "2026-11-10T09:00:00Z/2026-11-10T11:00:00Z");
}

Test(calendar, collections_pick_the_collections_of_a_root)
{
	char *work[] = { (char *)"work" }, *missing[] = { (char *)"holidays" };
	struct config c = conf(source_path(FIXTURES "/root"), "UTC");
	struct err e;

	c.calendar_collections = work;
	c.ncalendar_collections = 1;
	expect_busy(&c, "2026-11-10T09:00:00Z/2026-11-10T10:00:00Z");
	c.calendar_collections = missing;
	e = refused(&c);
	cr_assert_eq(e.code, ERR_NOT_FOUND);
	cr_assert(strstr(e.msg, "holidays"), "%s", e.msg);
}

Test(calendar, an_unreadable_dtstart_is_refused_naming_the_file_the_line_and_the_uid)
{
	struct config c = conf(source_path(FIXTURES "/bad-dtstart.ics"), "UTC");
	struct err e = refused(&c);

	cr_assert_eq(e.code, ERR_PARSE);
	cr_assert(strstr(e.msg, "bad-dtstart.ics:14:"), "%s", e.msg);
	cr_assert(strstr(e.msg, "broken@example.org"), "%s", e.msg);
}

Test(calendar, a_tzid_nothing_places_is_refused_not_read_as_utc)
{
	struct config c = conf(source_path(FIXTURES "/unknown-tzid.ics"), "UTC");
	struct err e = refused(&c);

	cr_assert_eq(e.code, ERR_PARSE);
	cr_assert(strstr(e.msg, "unknown-tzid.ics:7:"), "%s", e.msg);
	cr_assert(strstr(e.msg, "Atlantis Standard Time"), "%s", e.msg);
}

Test(calendar, one_unreadable_file_fails_the_whole_vdir)
{
	char *good = write_calendar("a.ics", ics), *dir = fs_dirname(good);
	char *bad = fs_join(dir, "b.ics");
	struct config c = conf(dir, "UTC");
	struct err e;
	const char *cut = "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:x\r\nDTSTART:20261010T100000Z\r\n";

	cr_assert_eq(fs_replace(bad, cut, strlen(cut), &e), 0);
	e = refused(&c);
	cr_assert(strstr(e.msg, "b.ics"), "%s", e.msg);
	cr_assert_eq(fs_replace(bad, "", 0, &e), 0);
	e = refused(&c);
	cr_assert(strstr(e.msg, "b.ics: empty"), "%s", e.msg);
	free(bad);
	free(dir);
	free(good);
}

static const char head[] = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:x\r\n";

Test(calendar, a_flagged_line_that_could_be_time_is_refused_and_one_that_cannot_is_not)
{
	char *p = write_calendar("x.ics", "");
	struct config c = conf(p, "UTC");
	struct buf b = BUF_INIT;
	struct err e;

	buf_printf(&b, "%sBEGIN:VEVENT\r\nUID:u\r\nDTSTART:20261105T100000Z\r\nDTEND:20261105T110000Z\r\n"
		       "X-SEEN;VALUE=DATE:yesterday\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n", head);
	cr_assert_eq(fs_replace(p, buf_str(&b), b.len, &e), 0);
	expect_busy(&c, "2026-11-05T10:00:00Z/2026-11-05T11:00:00Z");
	buf_reset(&b);
	buf_printf(&b, "%sBEGIN:VEVENT\r\nUID:u\r\nDTSTART:20261105T100000Z\r\nDURATION:an hour\r\n"
		       "END:VEVENT\r\nEND:VCALENDAR\r\n", head);
	cr_assert_eq(fs_replace(p, buf_str(&b), b.len, &e), 0);
	e = refused(&c);
	cr_assert(strstr(e.msg, "x.ics:7:"), "%s", e.msg);
	buf_free(&b);
	free(p);
}

Test(calendar, a_thisandfuture_override_moves_every_later_occurrence)
{
	char *p;
	struct config c;
	struct buf b = BUF_INIT;

	buf_printf(&b, "%sBEGIN:VEVENT\r\nUID:s\r\nDTSTART:20261102T100000Z\r\nDTEND:20261102T110000Z\r\n"
		       "RRULE:FREQ=DAILY;COUNT=4\r\nEND:VEVENT\r\n"
		       "BEGIN:VEVENT\r\nUID:s\r\nRECURRENCE-ID;RANGE=THISANDFUTURE:20261103T100000Z\r\n"
		       "DTSTART:20261103T150000Z\r\nDTEND:20261103T153000Z\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n",
		   head);
	p = write_calendar("s.ics", buf_str(&b));
	c = conf(p, "UTC");
	expect_busy(&c, "2026-11-02T10:00:00Z/2026-11-02T11:00:00Z "
			"2026-11-03T15:00:00Z/2026-11-03T15:30:00Z "
			"2026-11-04T15:00:00Z/2026-11-04T15:30:00Z "
			"2026-11-05T15:00:00Z/2026-11-05T15:30:00Z");
	buf_free(&b);
	free(p);
}

Test(calendar, a_window_shows_only_what_overlaps_it_clipped)
{
	struct config c = conf(source_path(FIXTURES "/allday.ics"), "Europe/Berlin");
	char *got = busy(&c, "2026-10-25T12:00:00Z", "2026-10-28T00:00:00Z");

	cr_assert_str_eq(got, "2026-10-25T12:00:00Z/2026-10-25T23:00:00Z "
			      "2026-10-27T23:00:00Z/2026-10-28T00:00:00Z");
	free(got);
}

/* ---- writing ------------------------------------------------------------------------ */

static struct calendar_event meeting(void)
{
	struct calendar_event ev = { 0 };

	ev.summary = "Meeting, with a comma; and a semicolon";
	ev.attendee = "guest@example.net";
	ev.start = at("2026-11-12T10:00:00Z");
	ev.end = at("2026-11-12T11:00:00Z");
	return ev;
}

/* The one VEVENT of text, parsed back by libical (icalcomponent_free the result's root). */
static icalcomponent *parse_event(const char *text, icalcomponent **root)
{
	icalcomponent *ev;

	*root = icalparser_parse_string(text);
	cr_assert_not_null(*root, "libical cannot parse:\n%s", text);
	cr_assert_eq(icalcomponent_isa(*root), ICAL_VCALENDAR_COMPONENT);
	ev = icalcomponent_get_first_component(*root, ICAL_VEVENT_COMPONENT);
	cr_assert_not_null(ev);
	return ev;
}

static void assert_written_event(icalcomponent *ev, const char *uid)
{
	icalproperty *att = icalcomponent_get_first_property(ev, ICAL_ATTENDEE_PROPERTY);
	icalparameter *rsvp = icalproperty_get_first_parameter(att, ICAL_RSVP_PARAMETER);

	cr_assert_str_eq(icalcomponent_get_uid(ev), uid);
	cr_assert_str_eq(icalproperty_get_attendee(att), "mailto:guest@example.net");
	cr_assert_eq(icalparameter_get_rsvp(rsvp), ICAL_RSVP_TRUE);
	cr_assert_str_eq(icalproperty_get_organizer(icalcomponent_get_first_property(
				 ev, ICAL_ORGANIZER_PROPERTY)), "mailto:me@example.org");
	cr_assert_str_eq(icalcomponent_get_summary(ev), "Meeting, with a comma; and a semicolon");
	cr_assert(icaltime_is_utc(icalcomponent_get_dtstart(ev)));
	cr_assert_eq(icaltime_as_timet(icalcomponent_get_dtstart(ev)), at("2026-11-12T10:00:00Z"));
	cr_assert_eq(icaltime_as_timet(icalcomponent_get_dtend(ev)), at("2026-11-12T11:00:00Z"));
	cr_assert_not_null(icalcomponent_get_first_property(ev, ICAL_DTSTAMP_PROPERTY));
	cr_assert_not_null(icalcomponent_get_first_property(ev, ICAL_SEQUENCE_PROPERTY));
}

static void assert_free(const struct config *c)
{
	char *got = busy(c, "2026-11-12T00:00:00Z", "2026-11-13T00:00:00Z");

	cr_assert_str_eq(got, "");
	free(got);
}

static void assert_meeting_busy(const struct config *c)
{
	char *got = busy(c, "2026-11-12T00:00:00Z", "2026-11-13T00:00:00Z");

	cr_assert_str_eq(got, "2026-11-12T10:00:00Z/2026-11-12T11:00:00Z");
	free(got);
}

Test(calendar, an_event_written_into_a_vdir_is_one_private_file_read_back_and_removed)
{
	char *dir = temp_dir(), *path, *text, uid[CALENDAR_UID_MAX], name[CALENDAR_UID_MAX + 8];
	struct config c = conf(dir, "UTC");
	struct calendar_event ev = meeting();
	icalcomponent *root;
	struct stat st;
	struct err e;
	size_t len;

	cr_assert_eq(calendar_event_write(&c, &ev, uid, &e), 0, "%s", e.msg);
	snprintf(name, sizeof name, "%s.ics", uid);
	path = fs_join(dir, name);
	cr_assert_eq(stat(path, &st), 0, "no file named from the UID");
	cr_assert_eq(st.st_mode & 0777, 0600);
	cr_assert_eq(fs_read(path, &text, &len, &e), 0);
	assert_written_event(parse_event(text, &root), uid);
	cr_assert_null(strstr(text, "METHOD"), "a stored event carries no iTIP method");
	icalcomponent_free(root);
	assert_meeting_busy(&c);
	cr_assert_eq(calendar_event_remove(&c, uid, &e), 0, "%s", e.msg);
	cr_assert_neq(access(path, F_OK), 0, "the event's file is still there");
	assert_free(&c);
	cr_assert_eq(calendar_event_remove(&c, uid, &e), -1);
	cr_assert_eq(e.code, ERR_NOT_FOUND);
	free(text);
	free(path);
	free(dir);
}

Test(calendar, an_event_written_into_a_single_file_leaves_every_other_byte_alone)
{
	char *before, *after, *path, uid[CALENDAR_UID_MAX];
	size_t blen, alen;
	struct calendar_event ev = meeting();
	struct config c;
	struct stat st;
	struct err e;

	cr_assert_eq(fs_read(source_path(FIXTURES "/weekly.ics"), &before, &blen, &e), 0);
	path = write_calendar("personal.ics", before);
	c = conf(path, "Europe/Berlin");
	cr_assert_eq(calendar_event_write(&c, &ev, uid, &e), 0, "%s", e.msg);
	cr_assert_eq(fs_read(path, &after, &alen, &e), 0);
	cr_assert_eq(memcmp(after, before, blen - strlen("END:VCALENDAR\r\n")), 0);
	cr_assert(strstr(after, uid));
	cr_assert_eq(stat(path, &st), 0);
	cr_assert_eq(st.st_mode & 0777, 0600);
	assert_meeting_busy(&c);
	expect_busy(&c, "2026-10-05T07:30:00Z/2026-10-05T08:00:00Z "
			"2026-10-20T12:00:00Z/2026-10-20T12:30:00Z "
			"2026-10-26T08:30:00Z/2026-10-26T09:00:00Z "
			"2026-11-09T08:30:00Z/2026-11-09T09:00:00Z "
			"2026-11-12T10:00:00Z/2026-11-12T11:00:00Z "
			"2026-11-16T08:30:00Z/2026-11-16T09:00:00Z "
			"2026-11-23T08:30:00Z/2026-11-23T09:00:00Z");
	cr_assert_eq(calendar_event_remove(&c, uid, &e), 0, "%s", e.msg);
	free(after);
	cr_assert_eq(fs_read(path, &after, &alen, &e), 0);
	cr_assert_str_eq(after, before, "removing the event did not give the file back as it was");
	assert_free(&c);
	free(after);
	free(before);
	free(path);
}

Test(calendar, writing_the_same_uid_again_replaces_the_event)
{
	char *path = write_calendar("personal.ics", ics), uid[CALENDAR_UID_MAX];
	struct config c = conf(path, "UTC");
	struct calendar_event ev = meeting();
	struct err e;
	char *got;

	ev.uid = "fixed-uid@example.org";
	cr_assert_eq(calendar_event_write(&c, &ev, uid, &e), 0, "%s", e.msg);
	cr_assert_str_eq(uid, "fixed-uid@example.org");
	ev.start = at("2026-11-12T14:00:00Z");
	ev.end = at("2026-11-12T15:00:00Z");
	ev.sequence = 1;
	cr_assert_eq(calendar_event_write(&c, &ev, uid, &e), 0, "%s", e.msg);
	got = busy(&c, "2026-11-12T00:00:00Z", "2026-11-13T00:00:00Z");
	cr_assert_str_eq(got, "2026-11-12T14:00:00Z/2026-11-12T15:00:00Z");
	free(got);
	free(path);
}

Test(calendar, a_new_single_file_calendar_is_created_with_the_event)
{
	char *dir = temp_dir(), *path = fs_join(dir, "new.ics"), uid[CALENDAR_UID_MAX];
	struct config c = conf(path, "UTC");
	struct calendar_event ev = meeting();
	struct err e;

	cr_assert_eq(calendar_event_write(&c, &ev, uid, &e), 0, "%s", e.msg);
	assert_meeting_busy(&c);
	free(path);
	free(dir);
}

Test(calendar, a_calendar_mecha_cannot_read_is_never_rewritten)
{
	char *before, *after, *path, uid[CALENDAR_UID_MAX];
	struct calendar_event ev = meeting();
	struct config c;
	size_t len;
	struct err e;

	cr_assert_eq(fs_read(source_path(FIXTURES "/bad-dtstart.ics"), &before, &len, &e), 0);
	path = write_calendar("personal.ics", before);
	c = conf(path, "UTC");
	cr_assert_eq(calendar_event_write(&c, &ev, uid, &e), -1);
	cr_assert_eq(e.code, ERR_PARSE);
	cr_assert(strstr(e.msg, "personal.ics:14:"), "%s", e.msg);
	cr_assert_eq(fs_read(path, &after, &len, &e), 0);
	cr_assert_str_eq(after, before);
	free(after);
	free(before);
	free(path);
}

Test(calendar, a_root_with_several_collections_writes_into_the_first_named_one)
{
	char *dir = temp_dir(), *work = fs_join(dir, "work"), *home = fs_join(dir, "home");
	char *names[] = { (char *)"home" }, uid[CALENDAR_UID_MAX], name[CALENDAR_UID_MAX + 8], *p;
	struct config c = conf(dir, "UTC");
	struct calendar_event ev = meeting();
	struct err e;

	cr_assert_eq(fs_private_dir(work, &e), 0);
	cr_assert_eq(fs_private_dir(home, &e), 0);
	cr_assert_eq(calendar_event_write(&c, &ev, uid, &e), -1);
	cr_assert_eq(e.code, ERR_CONFIG);
	cr_assert(strstr(e.msg, "[calendar] collections"), "%s", e.msg);
	c.calendar_collections = names;
	c.ncalendar_collections = 1;
	cr_assert_eq(calendar_event_write(&c, &ev, uid, &e), 0, "%s", e.msg);
	snprintf(name, sizeof name, "%s.ics", uid);
	p = fs_join(home, name);
	cr_assert_eq(access(p, F_OK), 0);
	assert_meeting_busy(&c);
	free(p);
	free(home);
	free(work);
	free(dir);
}

Test(calendar, an_unsafe_uid_gets_a_hashed_file_name)
{
	char *dir = temp_dir(), uid[CALENDAR_UID_MAX];
	struct config c = conf(dir, "UTC");
	struct calendar_event ev = meeting();
	struct dirent **names;
	struct err e;
	int n;

	ev.uid = "../../escape/x";
	cr_assert_eq(calendar_event_write(&c, &ev, uid, &e), 0, "%s", e.msg);
	n = scandir(dir, &names, NULL, alphasort);
	cr_assert_eq(n, 3); /* ., .. and the event */
	cr_assert_eq(strlen(names[2]->d_name), 64 + 4, "%s", names[2]->d_name);
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
	assert_meeting_busy(&c);
	cr_assert_eq(calendar_event_remove(&c, "../../escape/x", &e), 0, "%s", e.msg);
	assert_free(&c);
	free(dir);
}

Test(calendar, an_event_refuses_an_address_that_is_not_one)
{
	char *dir = temp_dir(), uid[CALENDAR_UID_MAX];
	struct config c = conf(dir, "UTC");
	struct calendar_event ev = meeting();
	struct err e;

	ev.attendee = "guest@example.net\r\nATTENDEE:mailto:other@example.net";
	cr_assert_eq(calendar_event_write(&c, &ev, uid, &e), -1);
	cr_assert_eq(e.code, ERR_BAD_ARGUMENTS);
	ev = meeting();
	c.mail_from = NULL;
	cr_assert_eq(calendar_event_write(&c, &ev, uid, &e), -1);
	cr_assert_eq(e.code, ERR_CONFIG);
	free(dir);
}

Test(calendar, an_itip_request_and_its_cancel_carry_the_same_uid_and_times)
{
	struct calendar_event ev = meeting();
	icalcomponent *root, *vev;
	char *text;
	struct err e;

	ev.uid = "booking-7@mecha";
	ev.organizer = "me@example.org";
	ev.sequence = 2;
	cr_assert_eq(calendar_itip(&ev, CALENDAR_ITIP_REQUEST, &text, &e), 0, "%s", e.msg);
	vev = parse_event(text, &root);
	cr_assert_eq(icalcomponent_get_method(root), ICAL_METHOD_REQUEST);
	assert_written_event(vev, "booking-7@mecha");
	cr_assert_eq(icalcomponent_get_sequence(vev), 2);
	cr_assert_neq(icalcomponent_get_status(vev), ICAL_STATUS_CANCELLED);
	icalcomponent_free(root);
	free(text);
	cr_assert_eq(calendar_itip(&ev, CALENDAR_ITIP_CANCEL, &text, &e), 0, "%s", e.msg);
	vev = parse_event(text, &root);
	cr_assert_eq(icalcomponent_get_method(root), ICAL_METHOD_CANCEL);
	assert_written_event(vev, "booking-7@mecha");
	cr_assert_eq(icalcomponent_get_sequence(vev), 3, "CANCEL must bump SEQUENCE");
	cr_assert_eq(icalcomponent_get_status(vev), ICAL_STATUS_CANCELLED);
	icalcomponent_free(root);
	free(text);
	ev.organizer = NULL;
	cr_assert_eq(calendar_itip(&ev, CALENDAR_ITIP_REQUEST, &text, &e), -1);
	cr_assert_null(text);
}

Test(calendar, a_system_zone_nobody_knows_fails_only_the_events_that_need_one)
{
	struct config utc_only = conf(source_path(FIXTURES "/two-calendars.ics"), NULL);
	struct config floating = conf(source_path(FIXTURES "/allday.ics"), NULL);
	struct err e;

	setenv("TZ", "CET-1CEST,M3.5.0,M10.5.0/3", 1);
	expect_busy(&utc_only, "2026-11-05T10:00:00Z/2026-11-05T11:30:00Z");
	e = refused(&floating);
	cr_assert(strstr(e.msg, "allday.ics:") && strstr(e.msg, "TZ"), "%s", e.msg);
	cr_assert(strstr(e.msg, "[calendar] timezone"), "%s", e.msg);
}

Test(calendar, a_vtimezone_without_observances_is_not_read_as_utc)
{
	struct buf b = BUF_INIT;
	char *p;
	struct config c;
	struct err e;

	buf_printf(&b, "%sBEGIN:VTIMEZONE\r\nTZID:Europe/Berlin\r\nEND:VTIMEZONE\r\n"
		       "BEGIN:VEVENT\r\nUID:v\r\nDTSTART;TZID=Europe/Berlin:20261105T100000\r\n"
		       "DTEND;TZID=Europe/Berlin:20261105T110000\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n", head);
	p = write_calendar("v.ics", buf_str(&b));
	c = conf(p, "UTC");
	expect_busy(&c, "2026-11-05T09:00:00Z/2026-11-05T10:00:00Z");
	free(p);
	buf_reset(&b);
	buf_printf(&b, "%sBEGIN:VTIMEZONE\r\nTZID:Customized Time Zone\r\nEND:VTIMEZONE\r\n"
		       "BEGIN:VEVENT\r\nUID:v\r\nDTSTART;TZID=Customized Time Zone:20261105T100000\r\n"
		       "DURATION:PT1H\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n", head);
	p = write_calendar("v.ics", buf_str(&b));
	c = conf(p, "UTC");
	e = refused(&c);
	cr_assert(strstr(e.msg, "Customized Time Zone"), "%s", e.msg);
	buf_free(&b);
	free(p);
}

Test(calendar, the_configured_calendar_file_may_be_a_symbolic_link)
{
	char *dir = temp_dir(), *link = fs_join(dir, "calendar.ics");
	char *target = realpath(source_path(FIXTURES "/two-calendars.ics"), NULL);
	struct config c = conf(link, "UTC");

	cr_assert_eq(symlink(target, link), 0);
	expect_busy(&c, "2026-11-05T10:00:00Z/2026-11-05T11:30:00Z");
	free(target);
	free(link);
	free(dir);
}

Test(calendar, removing_one_event_of_a_shared_vdir_file_keeps_the_others)
{
	char *path = write_calendar("shared.ics", ics), *dir = fs_dirname(path), *got;
	struct config c = conf(dir, "UTC");
	struct err e;

	cr_assert_eq(calendar_event_remove(&c, "a", &e), 0, "%s", e.msg);
	cr_assert_eq(access(path, F_OK), 0, "a file still holding events was deleted");
	got = busy(&c, "2026-08-10T00:00:00Z", "2026-08-11T00:00:00Z");
	cr_assert_str_eq(got, "2026-08-10T10:00:00Z/2026-08-10T10:30:00Z "
			      "2026-08-10T16:00:00Z/2026-08-10T17:00:00Z");
	free(got);
	free(dir);
	free(path);
}

Test(calendar, a_google_export_reads_despite_a_flagged_line_that_has_no_bearing_on_time)
{
	struct config c = conf(source_path(FIXTURES "/google-export.ics"), "UTC");

	expect_busy(&c, "2026-11-05T09:00:00Z/2026-11-05T10:00:00Z "
			"2026-11-12T09:00:00Z/2026-11-12T10:00:00Z "
			"2026-11-19T09:00:00Z/2026-11-19T10:00:00Z");
}

Test(calendar, an_event_inside_another_component_is_refused_not_taken_as_free)
{
	static const char *const wrappers[] = { "VEVENT\r\nUID:a\r\nDTSTART:20261105T080000Z", "VTODO\r\nUID:t",
						"X-WRAP" };
	struct buf b = BUF_INIT;
	struct err e;

	for (size_t i = 0; i < sizeof wrappers / sizeof wrappers[0]; i++) {
		char *p = write_calendar("n.ics", "");
		struct config c = conf(p, "UTC");
		size_t kind = strcspn(wrappers[i], "\r");

		buf_reset(&b);
		buf_printf(&b, "%sBEGIN:%s\r\nBEGIN:VEVENT\r\nUID:inner\r\nDTSTART:20261105T100000Z\r\n"
			       "DTEND:20261105T110000Z\r\nEND:VEVENT\r\nEND:%.*s\r\nEND:VCALENDAR\r\n",
			   head, wrappers[i], (int)kind, wrappers[i]);
		cr_assert_eq(fs_replace(p, buf_str(&b), b.len, &e), 0);
		e = refused(&c);
		cr_assert_eq(e.code, ERR_PARSE);
		cr_assert(strstr(e.msg, "n.ics:") && strstr(e.msg, "event inner: a VEVENT inside a"),
			  "%s", e.msg);
		free(p);
	}
	buf_free(&b);
}

Test(calendar, a_text_in_memory_is_read_as_the_same_file_would_be)
{
	struct calendar_interval *v;
	struct err e;
	char *text;
	size_t len, n;

	cr_assert_eq(fs_read(source_path(FIXTURES "/weekly.ics"), &text, &len, &e), 0);
	cr_assert_eq(calendar_busy_ics("weekly.ics", text, len, "Europe/Berlin", at("2026-10-19T00:00:00Z"),
				       at("2026-10-26T00:00:00Z"), &v, &n, &e), 0, "%s", e.msg);
	cr_assert_eq(n, 1); /* the Monday moved to Tuesday afternoon */
	cr_assert_eq(v[0].start, at("2026-10-20T12:00:00Z"));
	free(v);
	free(text);
	cr_assert_eq(calendar_busy_ics("bad.ics", "BEGIN:VCALENDAR\r\n", 17, NULL, at("2026-10-19T00:00:00Z"),
				       at("2026-10-26T00:00:00Z"), &v, &n, &e), -1);
	cr_assert_eq(e.code, ERR_PARSE);
	cr_assert(strncmp(e.msg, "bad.ics: ", 9) == 0, "%s", e.msg);
	cr_assert_null(v);
}
