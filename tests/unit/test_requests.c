/*
 * src/requests: the grammar of what may reach a brief, and the states as data.
 */
#include <criterion/criterion.h>

#include "base/err.h"
#include "requests/grammar.h"
#include "requests/record.h"
#include "requests/state.h"
#include "types/manifest.h"

#include <string.h>

static const char manifest_text[] =
	"id = \"m\"\nversion = 1\ntitle = \"M\"\n"
	"[[fields]]\nname = \"name\"\nlabel = \"N\"\nkind = \"text\"\nmax_length = 50\n"
	"[[fields]]\nname = \"kind\"\nlabel = \"K\"\nkind = \"select\"\n"
	"options = [{ value = \"a\", label = \"A\" }]\n"
	"[[fields]]\nname = \"day\"\nlabel = \"D\"\nkind = \"date\"\n"
	"[[fields]]\nname = \"n\"\nlabel = \"N\"\nkind = \"integer\"\n"
	"[[fields]]\nname = \"cv\"\nlabel = \"CV\"\nkind = \"file\"\naccept = [\"pdf\"]\n";

static struct record checked(const char *text)
{
	struct manifest_issues is = { NULL, 0 };
	struct manifest *m = manifest_parse(manifest_text, strlen(manifest_text), &is);
	struct record r;
	struct err e;

	cr_assert_not_null(m);
	cr_assert_eq(record_parse(text, strlen(text), "test", &r, &e), 0, "%s", e.msg);
	grammar_apply(&r, m, NULL);
	manifest_free(m);
	manifest_issues_free(&is);
	return r;
}

#define HEAD "{\"seq\":3,\"type_id\":\"m\",\"state\":\"extracted\",\"drained_at\":\"2026-08-06T01:00:00Z\","

Test(grammar, only_values_of_their_kind_cross_and_undeclared_keys_are_prose)
{
	struct record r = checked(HEAD "\"created_at\":\"2026-08-06T00:00:00+02:00\",\"valid\":true,"
				  "\"values\":{\"name\":\"Ada\",\"kind\":\"a\",\"day\":\"2026-09-01\","
				  "\"n\":4,\"extra\":\"Ignore all\",\"_x\":\"y\"},\"free_text\":[]}");
	char received[32];

	cr_assert_null(grammar_refused(&r));
	cr_assert_eq(json_object_size(grammar_typed(&r)), 3); /* kind, day, n */
	cr_assert_null(json_object_get(grammar_typed(&r), "name"));
	cr_assert_null(json_object_get(grammar_typed(&r), "extra"));
	cr_assert(record_is_prose(&r, "extra"), "an undeclared key is prose");
	grammar_received(&r, received);
	cr_assert_str_eq(received, "2026-08-05T22:00:00Z");
	record_free(&r);

	r = checked(HEAD "\"created_at\":\"2026-08-06T00:00:00Z\",\"valid\":true,"
		    "\"values\":{\"kind\":\"b\",\"day\":\"next week\",\"n\":\"4\"},\"free_text\":[]}");
	cr_assert_eq(json_object_size(grammar_typed(&r)), 0, "a value not of its kind crossed");
	record_free(&r);
}

Test(grammar, a_record_that_breaks_the_rule_is_refused_with_a_reason)
{
	static const char *const bad[] = {
		HEAD "\"created_at\":\"Tuesday, trust me\",\"valid\":true,\"values\":{}}",
		HEAD "\"created_at\":\"2026-08-06T00:00:00Z\",\"valid\":true,\"reply_to\":\"no address\","
		     "\"values\":{}}",
		HEAD "\"created_at\":\"2026-08-06T00:00:00Z\",\"valid\":true,\"values\":{\"_x\":1}}",
		HEAD "\"created_at\":\"2026-08-06T00:00:00Z\",\"valid\":true,\"values\":{},"
		     "\"attachments\":[{\"field\":\"Ignore\",\"filename\":\"f\",\"size\":1,\"sha256\":"
		     "\"sha256:0000000000000000000000000000000000000000000000000000000000000000\","
		     "\"content_type\":\"application/pdf\",\"path\":\"p\"}]}",
		NULL,
	};

	for (size_t i = 0; bad[i]; i++) {
		struct record r = checked(bad[i]);
		cr_assert_not_null(grammar_refused(&r), "record %zu passed", i);
		cr_assert_null(grammar_typed(&r));
		record_free(&r);
	}
}

Test(grammar, a_well_formed_cancellation_is_the_one_payload_of_machinery_alone)
{
	struct record r = checked(HEAD "\"created_at\":\"2026-08-06T00:00:00Z\",\"valid\":true,"
				  "\"values\":{\"_booking_id\":\"b1\",\"_cancelled\":true,"
				  "\"_slot_start\":\"2026-10-23T14:00:00Z\","
				  "\"_slot_end\":\"2026-10-23T14:30:00Z\"}}");

	cr_assert_null(grammar_refused(&r), "%s", grammar_refused(&r));
	record_free(&r);
}

#define MOVE_VALUES(extra)                                                                  \
	HEAD "\"created_at\":\"2026-08-06T00:00:00Z\",\"valid\":true,\"values\":{"            \
	     "\"_booking_id\":\"b2\",\"_rescheduled_from\":\"b1\","                              \
	     "\"_slot_start\":\"2026-10-23T14:00:00Z\",\"_slot_end\":\"2026-10-23T14:30:00Z\","    \
	     extra "}}"

Test(grammar, a_rescheduling_is_the_other_payload_of_machinery_alone_and_only_well_formed)
{
	static const char *const bad[] = {
		MOVE_VALUES("\"_duration_minutes\":30"), /* no manage link */
		MOVE_VALUES("\"_duration_minutes\":30,\"_manage_url\":\"javascript:x\""),
		MOVE_VALUES("\"_duration_minutes\":0,\"_manage_url\":\"https://g.example/m/t\""),
		MOVE_VALUES("\"_duration_minutes\":\"30\",\"_manage_url\":\"https://g.example/m/t\""),
		MOVE_VALUES("\"_duration_minutes\":30,\"_manage_url\":\"https://g.example/m/t\","
			    "\"_cancelled\":true"),
		MOVE_VALUES("\"_duration_minutes\":30,\"_manage_url\":\"https://g.example/m t\""),
		NULL,
	};
	struct record r = checked(
		MOVE_VALUES("\"_duration_minutes\":30,\"_manage_url\":\"https://g.example/m/t\""));

	cr_assert_null(grammar_refused(&r), "%s", grammar_refused(&r));
	record_free(&r);
	for (size_t i = 0; bad[i]; i++) {
		r = checked(bad[i]);
		cr_assert_not_null(grammar_refused(&r), "rescheduling %zu passed", i);
		record_free(&r);
	}
}

Test(grammar, addresses_and_times)
{
	char local[80];

	memset(local, 'x', 65);
	strcpy(local + 65, "@example.org");
	cr_assert(grammar_address_ok("ada@example.org"));
	cr_assert_not(grammar_address_ok(local), "a local part of 65 bytes");
	cr_assert_not(grammar_address_ok("a@b@c"));
	cr_assert_not(grammar_address_ok("\"a b\"@example.org"));
	cr_assert(grammar_time_ok("2026-08-06T00:00:00.123456789Z"));
	cr_assert_not(grammar_time_ok("2026-08-06T00:00:00.1234567890123456789Z"));
	cr_assert_not(grammar_time_ok("soon"));
}

Test(state, the_front_ends_attributes_are_one_row_each)
{
	for (size_t i = 0; i < state_nrows; i++) {
		const struct state_row *row = &state_table[i];
		cr_assert_str_eq(row->name, state_all[i], "the table is in lifecycle order");
		cr_assert_not(row->flags & STATE_WAITING && row->flags & STATE_FINISHED, "%s",
			      row->name);
		cr_assert(!(row->flags & STATE_DIMMED) || (row->flags & STATE_FINISHED), "%s",
			  row->name);
	}
	cr_assert(state_has(STATE_BOOKED, STATE_FINISHED | STATE_DIMMED));
	cr_assert_not(state_has(STATE_BOOKED, STATE_WAITING), "booked is shown one way everywhere");
	cr_assert_not(state_has("no such state", 0));
	cr_assert(state_allows(STATE_DRAINED, STATE_BOOKED, MOVER_SWEEP));
	cr_assert_not(state_allows(STATE_CLOSED, STATE_CLOSED, MOVER_CLOSE));
}
