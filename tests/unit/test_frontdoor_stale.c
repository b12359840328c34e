/*
 * The two clock rules, as pure functions: when a reminder tier is due
 * (frontdoor/remind.h) and when a request or a draft has waited too long
 * (frontdoor/stale.h). Every edge, one second either side. (The sweep and the
 * doctor end to end, with MECHA_NOW, are tests/cli/test_remind.py and
 * test_doctor_queue.py.)
 */
#include <criterion/criterion.h>

#include "base/err.h"
#include "requests/record.h"
#include "frontdoor/remind.h"
#include "frontdoor/stale.h"

#include <stdio.h>

#define START 2000000000LL /* 2033-05-18T03:33:20Z */
#define HOUR 3600LL

struct due_case {
	long long minutes, made, now; /* made and now as offsets from START, in seconds */
	int due;
};

Test(remind, a_tier_is_due_from_its_lead_until_the_start_unless_made_inside_it)
{
	static const struct due_case cases[] = {
		{ 60, -3 * HOUR, -HOUR - 1, 0 },       /* not yet inside */
		{ 60, -3 * HOUR, -HOUR, 1 },           /* its first second */
		{ 60, -3 * HOUR, -1, 1 },              /* its last second */
		{ 60, -3 * HOUR, 0, 0 },               /* begun */
		{ 60, -3 * HOUR, 600, 0 },             /* past */
		{ 60, -HOUR, -HOUR, 0 },               /* made on the edge: already inside */
		{ 60, -HOUR - 1, -HOUR, 1 },           /* made a second before it */
		{ 1440, -3 * HOUR, -2 * HOUR, 0 },     /* made three hours ahead: no 24h one */
		{ 1440, -25 * HOUR, -24 * HOUR, 1 },
		{ 1440, -25 * HOUR, -24 * HOUR - 1, 0 },
		{ 90, -2 * HOUR, -90 * 60, 1 },
		{ 2880, -72 * HOUR, -48 * HOUR, 1 },
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const struct due_case *c = &cases[i];
		cr_assert_eq(remind_tier_due(c->minutes, (time_t)START, (time_t)(START + c->made),
					     (time_t)(START + c->now)),
			     c->due, "case %zu", i);
	}
}

static struct record record_in(const char *state, const char *drained_at)
{
	char text[512];
	struct record r;
	struct err e;

	snprintf(text, sizeof text,
		 "{\"seq\":7,\"type_id\":\"meeting\",\"state\":\"%s\","
		 "\"created_at\":\"2026-08-05T00:00:00Z\",\"drained_at\":\"%s\","
		 "\"valid\":true,\"values\":{},\"free_text\":[]}",
		 state, drained_at);
	cr_assert_eq(record_parse(text, strlen(text), "test", &r, &e), 0, "%s", e.msg);
	return r;
}

Test(stale, a_request_waiting_on_its_owner_is_stale_a_second_past_the_hours)
{
	/* 2026-08-06T00:00:00Z */
	const time_t arrived = 1785974400;
	const char *const waiting[] = { "extracted", "triaged", "awaiting_me" };
	const char *const not_waiting[] = { "drained", "extraction_failed", "needs_info",
					    "answered", "booked", "closed" };

	for (size_t i = 0; i < 3; i++) {
		struct record r = record_in(waiting[i], "2026-08-06T00:00:00Z");
		cr_assert_eq(stale_since(&r), arrived);
		cr_assert(!stale_request(&r, 72, arrived + 72 * HOUR), "%s", waiting[i]);
		cr_assert(stale_request(&r, 72, arrived + 72 * HOUR + 1), "%s", waiting[i]);
		record_free(&r);
	}
	for (size_t i = 0; i < 6; i++) {
		struct record r = record_in(not_waiting[i], "2026-08-06T00:00:00Z");
		cr_assert(!stale_request(&r, 72, arrived + 1000 * HOUR), "%s", not_waiting[i]);
		record_free(&r);
	}
}

Test(stale, an_unreadable_drained_at_falls_back_to_created_at)
{
	struct record r = record_in("extracted", "not a time");

	cr_assert_eq(stale_since(&r), 1785974400 - 24 * HOUR);
	record_free(&r);
}

Test(stale, defaults_and_draft_edges)
{
	cr_assert_eq(stale_request_hours(NULL), 72);
	cr_assert_eq(stale_draft_hours(NULL), 48);
	cr_assert(!stale_draft("2026-08-06T00:00:00Z", 48, 1785974400 + 48 * HOUR));
	cr_assert(stale_draft("2026-08-06T00:00:00Z", 48, 1785974400 + 48 * HOUR + 1));
	cr_assert(!stale_draft(NULL, 48, 1785974400 + 1000 * HOUR));
	cr_assert(!stale_draft("yesterday", 48, 1785974400 + 1000 * HOUR));
}
