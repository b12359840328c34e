/*
 * drain/slots: the slots a booking type offers, from its [availability]
 * (written as a person writes it, in TOML) and busy intervals, at a fixed
 * "now". Every expected list is worked out by hand in the comment above it
 * — never by a second implementation — and the rules are slots.h's. The
 * wallclock arithmetic they stand on (calendar/wallclock.h) is pinned last.
 *
 * Dates used: 2026-10-05 is a Monday. Europe/Berlin goes back from CEST
 * (+02:00) to CET (+01:00) at 01:00Z on Sunday 2026-10-25; America/New_York
 * goes back from EDT (-04:00) to EST (-05:00) at 06:00Z on Sunday
 * 2026-11-01, and forward from EST to EDT at 07:00Z on Sunday 2026-03-08.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "manifest_fixture.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/rfc3339.h"
#include "calendar/calendar.h"
#include "calendar/wallclock.h"
#include "drain/slots.h"
#include "types/manifest.h"

#include <stdlib.h>
#include <string.h>

/* A booking manifest around an [availability] body. */
static struct manifest *booking(const char *availability)
{
	char *text = xasprintf("id = \"t\"\nversion = 1\ntitle = \"T\"\nkind = \"booking\"\n"
			       "[[fields]]\nname = \"email\"\nlabel = \"Email\"\nkind = \"email\"\n"
			       "required = true\n[verification]\nfield = \"email\"\n"
			       "[availability]\n%s\n", availability);
	struct manifest *m = manifest_fixture_text(text);

	free(text);
	return m;
}

static time_t at(const char *rfc3339)
{
	time_t t;

	cr_assert_eq(rfc3339_parse(rfc3339, &t), 0, "%s", rfc3339);
	return t;
}

/* Busy intervals from "START END" pairs of RFC 3339 times. */
static struct calendar_interval busy_from(const char *start, const char *end)
{
	return (struct calendar_interval){ at(start), at(end) };
}

/* name is the case's, which every failure names. */
static void compute(const char *name, const char *availability,
		    const struct calendar_interval *busy, size_t nbusy, const char *now,
		    struct slots *s)
{
	struct manifest *m = booking(availability);
	struct err e;

	cr_assert_eq(slots_compute(m->availability, busy, nbusy, at(now), s, &e), 0, "%s: %s", name,
		     e.msg);
	manifest_free(m);
}

/* Each slot as "START/MINUTES", compared with want (NULL-terminated) in order. */
static void expect(const char *name, const struct slots *s, const char *const *want)
{
	size_t n = 0;

	for (size_t i = 0; i < s->n; i++) {
		char start[RFC3339_LEN], got[64];
		rfc3339_format(s->v[i].start, start);
		snprintf(got, sizeof got, "%s/%d", start, s->v[i].duration);
		cr_assert_not_null(want[i], "%s: one slot too many: %s", name, got);
		cr_expect_str_eq(got, want[i], "%s: slot %zu", name, i);
		cr_expect_eq(s->v[i].end - s->v[i].start, (time_t)s->v[i].duration * 60, "%s: slot %zu",
			     name, i);
	}
	while (want[n])
		n++;
	cr_assert_eq(s->n, n, "%s: %zu slots, %zu expected", name, s->n, n);
}

#define UTC_DAY "timezone = \"UTC\"\nmin_notice_hours = 0\n"

/*
 * The computed runs, as data: one row a case — its name (which a failure
 * prints), the [availability] body, the busy intervals, "now", and the
 * slots expected in order (NULL-terminated), each worked out by hand in the
 * comment above its row. A row may also pin slots_text (text) or the
 * horizon and generation time the list carries (horizon_days > 0).
 */
struct slots_case {
	const char *name;
	const char *availability;
	const char *busy[3][2];
	size_t nbusy;
	const char *now;
	const char *want[12];
	const char *text;
	int horizon_days;
};

static const struct slots_case computed_cases[] = {
	/*
	 * 09:00–11:00 local on Sat 24, Sun 25 and Mon 26 October, hour slots. CEST on
	 * Saturday: 09:00 is 07:00Z. CET from Sunday: 09:00 is 08:00Z. Tuesday has no
	 * window; the horizon (4 days from Sat 00:00Z) ends before Wednesday.
	 */
	{ .name = "windows_keep_their_local_hours_when_berlin_goes_back_an_hour",
	  .availability = "timezone = \"Europe/Berlin\"\ndurations = [60]\nincrement_minutes = 60\n"
			  "min_notice_hours = 0\nhorizon_days = 4\nwindows = [\n"
			  "{ day = \"sat\", start = \"09:00\", end = \"11:00\" },\n"
			  "{ day = \"sun\", start = \"09:00\", end = \"11:00\" },\n"
			  "{ day = \"mon\", start = \"09:00\", end = \"11:00\" }]",
	  .now = "2026-10-24T00:00:00Z",
	  .want = { "2026-10-24T07:00:00Z/60", "2026-10-24T08:00:00Z/60", "2026-10-25T08:00:00Z/60",
		    "2026-10-25T09:00:00Z/60", "2026-10-26T08:00:00Z/60", "2026-10-26T09:00:00Z/60" } },
	/*
	 * A window 01:00–04:00 on Sunday 25 October in Berlin is four hours long:
	 * 01:00 CEST (23:00Z) to 04:00 CET (03:00Z). Hour slots every hour of
	 * elapsed time: 01:00 CEST, 02:00 CEST, 02:00 CET, 03:00 CET — the repeated
	 * hour is offered twice, and the text shows which is which.
	 */
	{ .name = "a_window_across_the_repeated_hour_offers_it_twice",
	  .availability = "timezone = \"Europe/Berlin\"\ndurations = [60]\nincrement_minutes = 60\n"
			  "min_notice_hours = 0\nhorizon_days = 2\n"
			  "windows = [{ day = \"sun\", start = \"01:00\", end = \"04:00\" }]",
	  .now = "2026-10-24T00:00:00Z",
	  .want = { "2026-10-24T23:00:00Z/60", "2026-10-25T00:00:00Z/60", "2026-10-25T01:00:00Z/60",
		    "2026-10-25T02:00:00Z/60" },
	  .text = "Sun 2026-10-25 01:00\u201302:00 +02:00  60 min\n"
		  "Sun 2026-10-25 02:00 +02:00\u201302:00 +01:00  60 min\n"
		  "Sun 2026-10-25 02:00\u201303:00 +01:00  60 min\n"
		  "Sun 2026-10-25 03:00\u201304:00 +01:00  60 min\n" },
	/*
	 * New York, 09:00–10:00 on Sat 31 October, Sun 1 and Mon 2 November, half
	 * hours. EDT on Saturday (09:00 = 13:00Z), EST from Sunday (09:00 = 14:00Z).
	 */
	{ .name = "windows_keep_their_local_hours_when_new_york_goes_back_an_hour",
	  .availability = "timezone = \"America/New_York\"\ndurations = [30]\nmin_notice_hours = 0\n"
			  "horizon_days = 3\nwindows = [\n"
			  "{ day = \"Saturday\", start = \"09:00\", end = \"10:00\" },\n"
			  "{ day = \"Sunday\", start = \"09:00\", end = \"10:00\" },\n"
			  "{ day = \"Monday\", start = \"09:00\", end = \"10:00\" }]",
	  .now = "2026-10-31T00:00:00Z",
	  .want = { "2026-10-31T13:00:00Z/30", "2026-10-31T13:30:00Z/30", "2026-11-01T14:00:00Z/30",
		    "2026-11-01T14:30:00Z/30", "2026-11-02T14:00:00Z/30", "2026-11-02T14:30:00Z/30" } },
	/*
	 * 01:00–04:00 on Sunday 8 March in New York is two hours: 01:00 EST (06:00Z)
	 * to 04:00 EDT (08:00Z); 02:00–03:00 does not exist. Hour slots every half
	 * hour of elapsed time: 06:00Z (01:00 EST), 06:30Z (01:30 EST), 07:00Z
	 * (03:00 EDT); 07:30Z would end at 08:30Z, after the window.
	 */
	{ .name = "a_window_across_the_skipped_hour_does_not_offer_it",
	  .availability = "timezone = \"America/New_York\"\ndurations = [60]\nmin_notice_hours = 0\n"
			  "horizon_days = 2\n"
			  "windows = [{ day = \"sun\", start = \"01:00\", end = \"04:00\" }]",
	  .now = "2026-03-07T00:00:00Z",
	  .want = { "2026-03-08T06:00:00Z/60", "2026-03-08T06:30:00Z/60", "2026-03-08T07:00:00Z/60" } },
	/*
	 * A window edge inside the repeated hour means its first occurrence: on
	 * Sunday 25 October in Berlin, 02:30–03:30 runs from 02:30 CEST (00:30Z) to
	 * 03:30 CET (02:30Z). Hour slots every half hour: 00:30Z, 01:00Z, 01:30Z.
	 * (Read as the second occurrence, 02:30 CET = 01:30Z, only one would fit.)
	 */
	{ .name = "a_window_starting_in_the_repeated_hour_starts_at_its_first_occurrence",
	  .availability = "timezone = \"Europe/Berlin\"\ndurations = [60]\nmin_notice_hours = 0\n"
			  "horizon_days = 2\n"
			  "windows = [{ day = \"sun\", start = \"02:30\", end = \"03:30\" }]",
	  .now = "2026-10-24T00:00:00Z",
	  .want = { "2026-10-25T00:30:00Z/60", "2026-10-25T01:00:00Z/60", "2026-10-25T01:30:00Z/60" } },
	/*
	 * A window edge inside the skipped hour is read with the offset before the
	 * gap: on Sunday 8 March in New York, 02:30 (which never happens) is read as
	 * EST, 07:30Z — the 03:30 EDT the clocks show then. To 04:00 EDT (08:00Z)
	 * that leaves one half-hour slot.
	 */
	{ .name = "a_window_starting_in_the_skipped_hour_is_read_with_the_offset_before_it",
	  .availability = "timezone = \"America/New_York\"\ndurations = [30]\nmin_notice_hours = 0\n"
			  "horizon_days = 2\n"
			  "windows = [{ day = \"sun\", start = \"02:30\", end = \"04:00\" }]",
	  .now = "2026-03-07T00:00:00Z",
	  .want = { "2026-03-08T07:30:00Z/30" } },

	/* ---- busy time and buffers ---- */

	/*
	 * Monday 09:00–12:00 UTC, half hours, a meeting 10:00–10:30. With a
	 * 15-minute buffer it blocks 09:45–10:45: 09:30 (to 10:00) and 10:30 (from
	 * 10:30) overlap that, 09:00 and 11:00 do not.
	 */
	{ .name = "a_buffer_keeps_slots_clear_of_busy_time_on_both_sides",
	  .availability = UTC_DAY "durations = [30]\nbuffer_minutes = 15\nhorizon_days = 1\n"
			  "windows = [{ day = \"mon\", start = \"09:00\", end = \"12:00\" }]",
	  .busy = { { "2026-10-05T10:00:00Z", "2026-10-05T10:30:00Z" } }, .nbusy = 1,
	  .now = "2026-10-05T00:00:00Z",
	  .want = { "2026-10-05T09:00:00Z/30", "2026-10-05T11:00:00Z/30", "2026-10-05T11:30:00Z/30" } },
	/* Without a buffer, a slot may end as a meeting starts and start as it ends. */
	{ .name = "without_a_buffer_a_slot_may_touch_busy_time",
	  .availability = UTC_DAY "durations = [30]\nhorizon_days = 1\n"
			  "windows = [{ day = \"mon\", start = \"09:00\", end = \"12:00\" }]",
	  .busy = { { "2026-10-05T10:00:00Z", "2026-10-05T10:30:00Z" } }, .nbusy = 1,
	  .now = "2026-10-05T00:00:00Z",
	  .want = { "2026-10-05T09:00:00Z/30", "2026-10-05T09:30:00Z/30", "2026-10-05T10:30:00Z/30",
		    "2026-10-05T11:00:00Z/30", "2026-10-05T11:30:00Z/30" } },
	/*
	 * Busy intervals out of order and overlapping: 11:15–11:20, 09:00–09:10,
	 * 09:05–09:20 (together 09:00–09:20). With a 5-minute buffer they block
	 * 08:55–09:25 and 11:10–11:25. Hour slots on the half-hour grid: 09:00 and
	 * 10:30 and 11:00 are blocked; 09:30 and 10:00 are free.
	 */
	{ .name = "busy_intervals_in_any_order_and_overlapping_are_all_respected",
	  .availability = UTC_DAY "durations = [60]\nbuffer_minutes = 5\nhorizon_days = 1\n"
			  "windows = [{ day = \"mon\", start = \"09:00\", end = \"12:00\" }]",
	  .busy = { { "2026-10-05T11:15:00Z", "2026-10-05T11:20:00Z" },
		    { "2026-10-05T09:00:00Z", "2026-10-05T09:10:00Z" },
		    { "2026-10-05T09:05:00Z", "2026-10-05T09:20:00Z" } }, .nbusy = 3,
	  .now = "2026-10-05T00:00:00Z",
	  .want = { "2026-10-05T09:30:00Z/60", "2026-10-05T10:00:00Z/60" } },

	/* ---- notice, horizon ---- */

	/* Two hours' notice at 08:30Z: the first slot may start at 10:30Z, exactly. */
	{ .name = "minimum_notice_offers_a_slot_starting_exactly_at_the_notice",
	  .availability = "timezone = \"UTC\"\nmin_notice_hours = 2\ndurations = [30]\nhorizon_days = 1\n"
			  "windows = [{ day = \"mon\", start = \"09:00\", end = \"12:00\" }]",
	  .now = "2026-10-05T08:30:00Z",
	  .want = { "2026-10-05T10:30:00Z/30", "2026-10-05T11:00:00Z/30", "2026-10-05T11:30:00Z/30" } },
	/* A minute later, 10:30Z is a minute too soon. */
	{ .name = "minimum_notice_refuses_a_slot_a_minute_too_soon",
	  .availability = "timezone = \"UTC\"\nmin_notice_hours = 2\ndurations = [30]\nhorizon_days = 1\n"
			  "windows = [{ day = \"mon\", start = \"09:00\", end = \"12:00\" }]",
	  .now = "2026-10-05T08:31:00Z",
	  .want = { "2026-10-05T11:00:00Z/30", "2026-10-05T11:30:00Z/30" } },
	/*
	 * Now is Sunday 11:00Z; one day of horizon ends Monday 11:00Z. 09:00–10:00
	 * and 10:00–11:00 (ending on the edge) are inside; 11:00–12:00 is not.
	 */
	{ .name = "the_horizon_takes_a_slot_ending_on_its_edge_and_no_later_one",
	  .availability = UTC_DAY "durations = [60]\nincrement_minutes = 60\nhorizon_days = 1\n"
			  "windows = [{ day = \"mon\", start = \"09:00\", end = \"12:00\" }]",
	  .now = "2026-10-04T11:00:00Z",
	  .want = { "2026-10-05T09:00:00Z/60", "2026-10-05T10:00:00Z/60" },
	  .horizon_days = 1 },

	/* ---- cap, overrides, grid, durations ---- */

	/*
	 * Cap 2 start times a day, 30 and 60 minutes, half-hour grid.
	 * Monday 09:00–12:00, 09:00–09:30 busy: 09:00 is not free, so the two
	 * earliest free starts are 09:30 and 10:00, each with both durations.
	 * Tuesday 09:00–12:00: 09:00 and 09:30, both durations.
	 * Wednesday 11:00–12:00: 11:00 (both) and 11:30 (30 only; 60 would end at
	 * 12:30): two start times, three slots.
	 */
	{ .name = "the_per_day_cap_counts_start_times_not_slots",
	  .availability = UTC_DAY "durations = [60, 30]\nper_day_cap = 2\nhorizon_days = 3\nwindows = [\n"
			  "{ day = \"mon\", start = \"09:00\", end = \"12:00\" },\n"
			  "{ day = \"tue\", start = \"09:00\", end = \"12:00\" },\n"
			  "{ day = \"wed\", start = \"11:00\", end = \"12:00\" }]",
	  .busy = { { "2026-10-05T09:00:00Z", "2026-10-05T09:30:00Z" } }, .nbusy = 1,
	  .now = "2026-10-05T00:00:00Z",
	  .want = { "2026-10-05T09:30:00Z/30", "2026-10-05T09:30:00Z/60", "2026-10-05T10:00:00Z/30",
		    "2026-10-05T10:00:00Z/60", "2026-10-06T09:00:00Z/30", "2026-10-06T09:00:00Z/60",
		    "2026-10-06T09:30:00Z/30", "2026-10-06T09:30:00Z/60", "2026-10-07T11:00:00Z/30",
		    "2026-10-07T11:00:00Z/60", "2026-10-07T11:30:00Z/30" } },
	/*
	 * Weekly: Mondays 09:00–10:00. Overrides: Monday 5 October 14:00–15:00
	 * instead; Monday 12 October closed; Saturday 10 October (no weekly window)
	 * 10:00–11:00. Fifteen days from 5 October 00:00Z reach Monday 19 October,
	 * which keeps its weekly window.
	 */
	{ .name = "overrides_replace_a_days_windows_and_an_empty_one_closes_it",
	  .availability = UTC_DAY "durations = [60]\nincrement_minutes = 60\nhorizon_days = 15\n"
			  "windows = [{ day = \"mon\", start = \"09:00\", end = \"10:00\" }]\n"
			  "overrides = [\n"
			  "{ date = \"2026-10-05\", windows = [[\"14:00\", \"15:00\"]] },\n"
			  "{ date = \"2026-10-12\" },\n"
			  "{ date = \"2026-10-10\", windows = [[\"10:00\", \"11:00\"]] }]",
	  .now = "2026-10-05T00:00:00Z",
	  .want = { "2026-10-05T14:00:00Z/60", "2026-10-10T10:00:00Z/60", "2026-10-19T09:00:00Z/60" } },
	/*
	 * A 20-minute grid from each window's own start. Monday 09:00–10:30, half
	 * hours: 09:00, 09:20, 09:40, 10:00 (ends 10:30); 10:20 would end at 10:50.
	 * Tuesday 09:10–10:30: 09:10, 09:30, 09:50 (ends 10:20); 10:10 would end at
	 * 10:40.
	 */
	{ .name = "starts_follow_the_increment_from_each_windows_start",
	  .availability = UTC_DAY "durations = [30]\nincrement_minutes = 20\nhorizon_days = 2\nwindows = [\n"
			  "{ day = \"mon\", start = \"09:00\", end = \"10:30\" },\n"
			  "{ day = \"tue\", start = \"09:10\", end = \"10:30\" }]",
	  .now = "2026-10-05T00:00:00Z",
	  .want = { "2026-10-05T09:00:00Z/30", "2026-10-05T09:20:00Z/30", "2026-10-05T09:40:00Z/30",
		    "2026-10-05T10:00:00Z/30", "2026-10-06T09:10:00Z/30", "2026-10-06T09:30:00Z/30",
		    "2026-10-06T09:50:00Z/30" } },
	/*
	 * Durations 45, 15 and 30 on a quarter-hour grid in 09:00–10:00: at 09:00
	 * all three; 09:15 all three (45 ends at 10:00); 09:30 15 and 30; 09:45 15.
	 * Sorted by start, then duration.
	 */
	{ .name = "several_durations_are_offered_at_each_start_shortest_first",
	  .availability = UTC_DAY "durations = [45, 15, 30]\nincrement_minutes = 15\nhorizon_days = 1\n"
			  "windows = [{ day = \"mon\", start = \"09:00\", end = \"10:00\" }]",
	  .now = "2026-10-05T00:00:00Z",
	  .want = { "2026-10-05T09:00:00Z/15", "2026-10-05T09:00:00Z/30", "2026-10-05T09:00:00Z/45",
		    "2026-10-05T09:15:00Z/15", "2026-10-05T09:15:00Z/30", "2026-10-05T09:15:00Z/45",
		    "2026-10-05T09:30:00Z/15", "2026-10-05T09:30:00Z/30", "2026-10-05T09:45:00Z/15" } },
	/*
	 * Overlapping windows 09:00–10:00 and 09:30–10:30: 09:30–10:00 comes from
	 * both and is offered once; a slot across the two (09:45–10:15) from neither.
	 */
	{ .name = "a_slot_two_windows_share_is_offered_once",
	  .availability = UTC_DAY "durations = [30]\nhorizon_days = 1\nwindows = [\n"
			  "{ day = \"mon\", start = \"09:00\", end = \"10:00\" },\n"
			  "{ day = \"mon\", start = \"09:30\", end = \"10:30\" }]",
	  .now = "2026-10-05T00:00:00Z",
	  .want = { "2026-10-05T09:00:00Z/30", "2026-10-05T09:30:00Z/30", "2026-10-05T10:00:00Z/30" } },
};

#define N_COMPUTED (sizeof computed_cases / sizeof computed_cases[0])

/*
 * Criterion hands each run a copy of its parameter's bytes, not the
 * pointers inside it, so a run is given its row's index.
 */
ParameterizedTestParameters(slots, computed)
{
	static size_t rows[N_COMPUTED];

	for (size_t i = 0; i < N_COMPUTED; i++)
		rows[i] = i;
	return cr_make_param_array(size_t, rows, N_COMPUTED);
}

ParameterizedTest(const size_t *row, slots, computed)
{
	const struct slots_case *c = &computed_cases[*row];
	struct calendar_interval busy[3];
	struct slots s;
	struct err e;
	char *text;

	cr_assert_leq(c->nbusy, sizeof busy / sizeof busy[0], "%s", c->name);
	for (size_t i = 0; i < c->nbusy; i++)
		busy[i] = busy_from(c->busy[i][0], c->busy[i][1]);
	compute(c->name, c->availability, busy, c->nbusy, c->now, &s);
	expect(c->name, &s, c->want);
	if (c->text) {
		cr_assert_not_null(text = slots_text(&s, &e), "%s: %s", c->name, e.msg);
		cr_expect_str_eq(text, c->text, "%s", c->name);
		free(text);
	}
	if (c->horizon_days > 0) {
		cr_expect_eq(s.horizon_days, c->horizon_days, "%s", c->name);
		cr_expect_eq(s.generated_at, at(c->now), "%s", c->name);
	}
	slots_free(&s);
}

Test(slots, a_horizon_longer_than_a_box_takes_is_refused)
{
	struct manifest *m = booking("timezone = \"UTC\"\ndurations = [30]\nhorizon_days = 367\n"
				     "windows = [{ day = \"mon\", start = \"09:00\", end = \"12:00\" }]");
	struct slots s;
	struct err e;

	cr_assert_eq(slots_compute(m->availability, NULL, 0, at("2026-10-05T00:00:00Z"), &s, &e), -1);
	cr_expect_eq(e.code, ERR_INVALID_MANIFEST);
	cr_expect(strstr(e.msg, "horizon_days is 367") != NULL, "%s", e.msg);
	manifest_free(m);
}

/*
 * Every day 00:00–23:55 in 5-minute slots: 287 a day (the last at 23:50),
 * 30 days: 8610. The box takes 5000: the earliest are kept, the 5000th
 * (index 4999 = day 17, the 121st of that day) starts 17 days and 600
 * minutes after 5 October 00:00Z, on 22 October at 10:00Z.
 */
Test(slots, more_than_a_box_takes_keeps_the_earliest_and_counts_the_rest)
{
	struct slots s;

	compute("more_than_a_box_takes", UTC_DAY "durations = [5]\nincrement_minutes = 5\n"
		"horizon_days = 30\nwindows = [\n"
		"{ day = \"mon\", start = \"00:00\", end = \"23:55\" },\n"
		"{ day = \"tue\", start = \"00:00\", end = \"23:55\" },\n"
		"{ day = \"wed\", start = \"00:00\", end = \"23:55\" },\n"
		"{ day = \"thu\", start = \"00:00\", end = \"23:55\" },\n"
		"{ day = \"fri\", start = \"00:00\", end = \"23:55\" },\n"
		"{ day = \"sat\", start = \"00:00\", end = \"23:55\" },\n"
		"{ day = \"sun\", start = \"00:00\", end = \"23:55\" }]",
		NULL, 0, "2026-10-05T00:00:00Z", &s);
	cr_assert_eq(s.n, 5000);
	cr_expect_eq(s.dropped, 3610);
	cr_expect_eq(s.v[0].start, at("2026-10-05T00:00:00Z"));
	cr_expect_eq(s.v[4999].start, at("2026-10-22T10:00:00Z"));
	slots_free(&s);
}

Test(slots, the_json_is_the_body_the_box_takes)
{
	static const char *const want =
		"{\"generated_at\": \"2026-10-05T08:00:00Z\", \"horizon_days\": 1, \"slots\": "
		"[{\"start\": \"2026-10-05T09:00:00Z\", \"end\": \"2026-10-05T09:30:00Z\", "
		"\"duration_minutes\": 30}]}";
	struct slots s;
	json_t *j;
	char *text;

	compute("the_json", UTC_DAY "durations = [30]\nhorizon_days = 1\n"
		"windows = [{ day = \"mon\", start = \"09:00\", end = \"09:30\" }]",
		NULL, 0, "2026-10-05T08:00:00Z", &s);
	j = slots_json(&s);
	text = json_dumps(j, JSON_PRESERVE_ORDER);
	cr_expect_str_eq(text, want);
	free(text);
	json_decref(j);
	slots_free(&s);
}

Test(slots, a_zone_mecha_does_not_know_is_the_manifests_error)
{
	struct manifest *m = booking("timezone = \"UTC\"\ndurations = [30]\n"
				     "windows = [{ day = \"mon\", start = \"09:00\", end = \"12:00\" }]");
	struct slots s;
	struct err e;

	free(m->availability->timezone);
	m->availability->timezone = xstrdup("Mars/Olympus_Mons");
	cr_assert_eq(slots_compute(m->availability, NULL, 0, at("2026-10-05T00:00:00Z"), &s, &e), -1);
	cr_expect_eq(e.code, ERR_INVALID_MANIFEST);
	cr_expect(strstr(e.msg, "Mars/Olympus_Mons") != NULL, "%s", e.msg);
	manifest_free(m);
}

/* ---- calendar/wallclock, which the slots stand on ------------------------------------ */

/* Every date from 1900 to 2400 maps to its day number and back; the leap rules hold. */
Test(wallclock, dates_and_day_numbers_round_trip_over_five_centuries)
{
	long first = wallclock_days(1900, 1, 1), last = wallclock_days(2400, 12, 31);

	cr_assert_eq(wallclock_days(1970, 1, 1), 0);
	cr_expect_eq(wallclock_days(2000, 3, 1) - wallclock_days(2000, 2, 28), 2); /* 2000 leaps */
	cr_expect_eq(wallclock_days(2100, 3, 1) - wallclock_days(2100, 2, 28), 1); /* 2100 does not */
	cr_expect_eq(wallclock_weekday(wallclock_days(2026, 10, 5)), 0);           /* a Monday */
	cr_expect_eq(wallclock_weekday(wallclock_days(1969, 12, 31)), 2);          /* a Wednesday */
	for (long d = first; d <= last; d++) {
		int y, m, dd;
		wallclock_date(d, &y, &m, &dd);
		cr_assert_eq(wallclock_days(y, m, dd), d, "%d-%d-%d", y, m, dd);
	}
}

/* The instant Berlin goes back (01:00Z): CEST a second before, CET from it. */
Test(wallclock, local_time_knows_the_offset_in_force)
{
	struct err e;
	const struct wallclock *z = wallclock_zone("Europe/Berlin", &e);
	struct wallclock_time w;

	cr_assert_not_null(z, "%s", e.msg);
	wallclock_local(z, at("2026-10-25T00:59:59Z"), &w);
	cr_expect(w.day == 25 && w.minute == 2 * 60 + 59 && w.second == 59 && w.offset == 7200);
	wallclock_local(z, at("2026-10-25T01:00:00Z"), &w);
	cr_expect(w.day == 25 && w.minute == 2 * 60 && w.offset == 3600 && w.weekday == 6);
	cr_expect_null(wallclock_zone("Not/A_Zone", &e));
	cr_expect_eq(e.code, ERR_CONFIG);
}

/* ---- one slot asked about (slots_fit, the sweep's check) ------------------------- */

/*
 * Mondays 09:00–12:00 UTC, 30 or 60 minutes every 30, 24 hours' notice, 14
 * days ahead, as of Sunday 2026-10-04 00:00Z. Every slot the computation
 * offers fits; a slot off the grid, of another length, outside the window,
 * on another day, inside the notice or past the horizon does not — the
 * issue's Sunday 03:00–11:00 least of all.
 */
Test(slots, fit_says_yes_to_exactly_what_the_computation_offers)
{
	struct manifest *m = booking("timezone = \"UTC\"\ndurations = [30, 60]\n"
				     "increment_minutes = 30\nmin_notice_hours = 24\n"
				     "horizon_days = 14\nper_day_cap = 1\nwindows = [\n"
				     "{ day = \"mon\", start = \"09:00\", end = \"12:00\" }]");
	static const char *const no[][2] = {
		{ "2026-10-11T03:00:00Z", "2026-10-11T11:00:00Z" }, /* Sunday night, 8 h */
		{ "2026-10-05T09:15:00Z", "2026-10-05T09:45:00Z" }, /* off the grid */
		{ "2026-10-05T09:00:00Z", "2026-10-05T09:45:00Z" }, /* 45 minutes */
		{ "2026-10-05T11:30:00Z", "2026-10-05T12:30:00Z" }, /* past the window's end */
		{ "2026-10-06T09:00:00Z", "2026-10-06T09:30:00Z" }, /* a Tuesday */
		{ "2026-10-19T09:00:00Z", "2026-10-19T09:30:00Z" }, /* past the horizon */
	};
	time_t now = at("2026-10-04T00:00:00Z");
	struct slots s;
	struct err e;

	cr_assert_eq(slots_compute(m->availability, NULL, 0, now, &s, &e), 0, "%s", e.msg);
	cr_assert_gt(s.n, 0);
	for (size_t i = 0; i < s.n; i++)
		cr_expect_eq(slots_fit(m->availability, now, s.v[i].start, s.v[i].end, &e), 1);
	/* per_day_cap is not asked: a later start of the day fits (the pushed list carries it). */
	cr_expect_eq(slots_fit(m->availability, now, at("2026-10-12T11:00:00Z"),
			       at("2026-10-12T12:00:00Z"), &e), 1);
	for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
		cr_expect_eq(slots_fit(m->availability, now, at(no[i][0]), at(no[i][1]), &e), 0,
			     "%s–%s", no[i][0], no[i][1]);
	/* Inside the notice: as of Monday 08:00Z, Monday 09:00Z is an hour away. */
	cr_expect_eq(slots_fit(m->availability, at("2026-10-05T08:00:00Z"),
			       at("2026-10-05T09:00:00Z"), at("2026-10-05T09:30:00Z"), &e), 0);
	slots_free(&s);
	manifest_free(m);
}
