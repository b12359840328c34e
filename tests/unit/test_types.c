/*
 * types: manifests (every rule, its fixed text, the line), show_when's
 * operators, submission validation per field kind (accepted, coerced,
 * refused, with the exact texts of docs/types.md), and the JSON Schema.
 */
#include <criterion/criterion.h>

#include "manifest_fixture.h"
#include "scratch.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/fs.h"
#include "base/jsonio.h"
#include "types/booking.h"
#include "types/condition.h"
#include "types/confirmation.h"
#include "types/manifest.h"
#include "types/schema.h"
#include "types/typecache.h"
#include "types/validate.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>


/* Every issue of a manifest that must not load, as "LINE: message" lines. */
static char *issues_of(const char *text)
{
	struct manifest_issues is = { NULL, 0 };
	struct manifest *m = manifest_parse(text, strlen(text), &is);
	struct buf b = BUF_INIT;

	cr_assert_null(m, "accepted:\n%s", text);
	for (size_t i = 0; i < is.n; i++)
		buf_printf(&b, "%d: %s\n", is.v[i].line, is.v[i].message);
	manifest_issues_free(&is);
	return buf_steal(&b);
}

static void refused(const char *text, const char *want)
{
	char *got = issues_of(text);

	cr_assert(strstr(got, want), "wanted\n  %s\nin\n%s", want, got);
	free(got);
}

#define HEAD "id = \"t\"\nversion = 1\ntitle = \"T\"\n"

/* ---- manifests -------------------------------------------------------------------- */

Test(manifest, the_five_starters_load_and_keep_the_starter_rules)
{
	static const char *const starters[] = { "meeting", "letter", "book", "speaking",
						"lab-application" };

	for (size_t i = 0; i < 5; i++) {
		struct manifest *m = manifest_fixture_file(starters[i]);
		const struct manifest_field *email = manifest_field(m, "requester_email");
		cr_assert_str_eq(m->id, starters[i], "a starter is named after its id");
		cr_assert(email && email->required, "%s can reach whoever submitted it", m->id);
		cr_assert_not_null(m->verification, "%s is servable", m->id);
		for (size_t f = 0; f < m->nfields; f++)
			if (manifest_is_free_text(m->fields[f].kind))
				cr_assert(m->fields[f].max_length > 0 && m->fields[f].max_length <= 4000,
					  "%s.%s is capped", m->id, m->fields[f].name);
		manifest_free(m);
	}
}

Test(manifest, defaults_are_the_references)
{
	struct manifest *m = manifest_fixture_file("book");
	struct manifest *e = manifest_fixture_file("every-kind");

	cr_assert(m->booking);
	cr_assert_eq(m->policy->hold_minutes, 20);
	cr_assert_eq(m->availability->windows[1].day, 3, "Thursday, spelled out");
	cr_assert_eq(m->availability->windows[1].start, 9 * 60 + 30);
	cr_assert_eq(m->availability->overrides[0].nwindows, 0, "an override with no windows closes the day");
	cr_assert_eq(manifest_field(e, "em")->max_length, 254);
	cr_assert_eq(e->verification->expires_hours, 48);
	cr_assert_eq(e->retain_days, -1);
	cr_assert_eq(manifest_field(e, "b")->required, 0);
	manifest_free(m);
	manifest_free(e);
	m = manifest_fixture_text(HEAD "kind = \"booking\"\n[[fields]]\nname = \"e\"\nlabel = \"E\"\nkind = \"email\"\n"
		       "required = true\n[verification]\nfield = \"e\"\n[availability]\ntimezone = \"UTC\"\n"
		       "durations = [30]\n[[availability.windows]]\nday = \"mon\"\nstart = \"09:00\"\n"
		       "end = \"10:00\"\n");
	cr_assert_null(m->policy, "no [policy]: the defaults apply");
	cr_assert_eq(m->availability->min_notice_hours, 24);
	cr_assert_eq(m->availability->horizon_days, 60);
	cr_assert_eq(m->availability->increment_minutes, 30);
	cr_assert_eq(m->availability->per_day_cap, -1);
	manifest_free(m);
}

Test(manifest, free_text_is_derived_from_the_kind)
{
	struct manifest *m = manifest_fixture_file("every-kind");
	static const char *const prose[] = { "t", "lt", "em", "u" };

	for (size_t i = 0; i < m->nfields; i++) {
		int want = 0;
		for (size_t k = 0; k < 4; k++)
			want |= strcmp(m->fields[i].name, prose[k]) == 0;
		cr_assert_eq(manifest_is_free_text(m->fields[i].kind), want, "%s", m->fields[i].name);
	}
	manifest_free(m);
}

Test(manifest, ids_follow_the_url_segment_rule)
{
	refused("id = \"\"\nversion = 1\ntitle = \"T\"\n[[fields]]\nname = \"a\"\nlabel = \"A\"\nkind = \"bool\"\n",
		"1: request type id is empty");
	refused("id = \"Meeting\"\nversion = 1\ntitle = \"T\"\n[[fields]]\nname = \"a\"\nlabel = \"A\"\nkind = \"bool\"\n",
		"1: request type id `Meeting` may only contain lowercase letters, digits, `-` and `_`");
	refused(HEAD "[[fields]]\nname = \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"\nlabel = \"A\"\nkind = \"bool\"\n",
		"4: field name `aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa` is too long (64 characters max)");
	refused(HEAD "[[fields]]\nname = \"a b\"\nlabel = \"A\"\nkind = \"bool\"\n"
		"[[steps]]\nid = \"S\"\ntitle = \"S\"\nfields = [\"a b\"]\n",
		"8: step id `S` may only contain");
	refused(HEAD "[[fields]]\nname = \"a\"\nlabel = \"A\"\nkind = \"bool\"\n[[acknowledgments]]\nid = \"\"\nlabel = \"L\"\n",
		"8: acknowledgment id is empty");
}

Test(manifest, the_shape_is_refused_in_serdes_words_with_the_line)
{
	refused(HEAD "colour = \"red\"\n[[fields]]\nname = \"a\"\nlabel = \"A\"\nkind = \"bool\"\n",
		"4: unknown field `colour`, expected one of `id`, `version`, `title`, `description`, "
		"`retain_days`, `fields`, `steps`, `acknowledgments`, `verification`, `confirmation`, "
		"`kind`, `availability`, `policy`");
	refused("id = \"t\"\ntitle = \"T\"\n[[fields]]\nname = \"a\"\nlabel = \"A\"\nkind = \"bool\"\n",
		"1: missing field `version`");
	refused(HEAD, "1: missing field `fields`");
	refused("id = \"t\"\nversion = -1\ntitle = \"T\"\nfields = []\n",
		"2: invalid value: integer `-1`, expected u32");
	refused("id = \"t\"\nversion = \"1\"\ntitle = \"T\"\nfields = []\n",
		"2: invalid type: string \"1\", expected u32");
	refused(HEAD "[[fields]]\nname = \"a\"\nlabel = \"A\"\n", "4: missing field `kind`");
	refused(HEAD "[[fields]]\nname = \"a\"\nlabel = \"A\"\nkind = \"textarea\"\n",
		"7: unknown variant `textarea`, expected one of `text`, `long_text`, `email`, `url`, "
		"`date`, `integer`, `select`, `multi_select`, `bool`, `file`");
	refused(HEAD "[[fields]]\nname = \"a\"\nlabel = \"A\"\nkind = \"text\"\n", "4: missing field `max_length`");
	refused(HEAD "[[fields]]\nname = \"a\"\nlabel = \"A\"\nkind = \"bool\"\nrequired = \"yes\"\n",
		"8: invalid type: string \"yes\", expected a boolean");
	refused(HEAD "verification = \"e\"\n[[fields]]\nname = \"a\"\nlabel = \"A\"\nkind = \"bool\"\n",
		"4: invalid type: string \"e\", expected struct Verification");
	refused(HEAD "kind = \"poll\"\n[[fields]]\nname = \"a\"\nlabel = \"A\"\nkind = \"bool\"\n",
		"4: unknown variant `poll`, expected `request` or `booking`");
	refused(HEAD "[[fields]]\nname = \"a\"\nlabel = \"A\"\nkind = \"select\"\n"
		"options = [{ value = \"x\", label = \"X\", colour = 1 }]\n",
		"8: unknown field `colour`, expected `value` or `label`");
	refused("id = 'x'\n", "1: missing field `version`");
	refused("id = 'x\n", "1: unterminated string");
}

Test(manifest, a_key_a_kind_does_not_take_is_named_with_what_it_accepts)
{
	refused(HEAD "[[fields]]\nname = \"n\"\nlabel = \"N\"\nkind = \"text\"\nmax_length = 5\nmin = 1\n",
		"9: field `n` has the key `min`, which a `text` field does not take (it accepts: "
		"max_length, pattern)");
	refused(HEAD "[[fields]]\nname = \"b\"\nlabel = \"B\"\nkind = \"bool\"\nmaxlength = 1\n",
		"8: field `b` has the key `maxlength`, which a `bool` field does not take (it accepts: )");
	refused(HEAD "[[fields]]\nname = \"cv\"\nlabel = \"CV\"\nkind = \"file\"\naccept = [\"pdf\"]\n"
		"max_length = 10\n", "which a `file` field does not take (it accepts: max_bytes, accept)");
	refused(HEAD "[[fields]]\nlabel = \"B\"\nkind = \"bool\"\nmin = 1\n",
		"field `<unnamed>` has the key `min`");
}

Test(manifest, every_field_rule_has_its_text)
{
	refused(HEAD "[[fields]]\nname = \"n\"\nlabel = \"N\"\nkind = \"text\"\nmax_length = 0\n",
		"4: field `n` has max_length = 0, which rejects every value");
	refused(HEAD "[[fields]]\nname = \"n\"\nlabel = \"N\"\nkind = \"bool\"\n"
		"[[fields]]\nname = \"n\"\nlabel = \"N2\"\nkind = \"bool\"\n",
		"8: request type `t` declares field `n` twice");
	refused(HEAD "fields = []\n", "1: request type `t` declares no fields");
	refused(HEAD "[[fields]]\nname = \"s\"\nlabel = \"S\"\nkind = \"multi_select\"\noptions = []\n",
		"4: field `s` is a select with no options");
	refused(HEAD "[[fields]]\nname = \"s\"\nlabel = \"S\"\nkind = \"select\"\n"
		"options = [{ value = \"a\", label = \"A\" }, { value = \"a\", label = \"B\" }]\n",
		"4: field `s` offers the value `a` twice");
	refused(HEAD "[[fields]]\nname = \"d\"\nlabel = \"D\"\nkind = \"date\"\nmin = \"2026-13-01\"\n",
		"4: field `d` has the date bound `2026-13-01`, which is not YYYY-MM-DD");
	refused(HEAD "[[fields]]\nname = \"f\"\nlabel = \"F\"\nkind = \"file\"\naccept = []\n",
		"4: field `f` is a file field accepting nothing");
	refused(HEAD "[[fields]]\nname = \"f\"\nlabel = \"F\"\nkind = \"file\"\naccept = [\"pdf\"]\nmax_bytes = 0\n",
		"4: field `f` allows 0 bytes; a file field takes between 1 and 16777216");
	refused(HEAD "[[fields]]\nname = \"f\"\nlabel = \"F\"\nkind = \"file\"\naccept = [\"docx\"]\n",
		"8: unknown variant `docx`, expected one of `pdf`, `png`, `jpeg`, `jpg`");
	refused(HEAD "[[fields]]\nname = \"a\"\nlabel = \"A\"\nkind = \"file\"\naccept = [\"pdf\"]\nmax_bytes = 16777216\n"
		"[[fields]]\nname = \"b\"\nlabel = \"B\"\nkind = \"file\"\naccept = [\"pdf\"]\nmax_bytes = 16777216\n"
		"[[fields]]\nname = \"c\"\nlabel = \"C\"\nkind = \"file\"\naccept = [\"pdf\"]\nmax_bytes = 1\n",
		"`t` allows 33554433 attachment bytes across its file fields; the ceiling per request "
		"type is 33554432");
}

Test(manifest, conditions_steps_and_acknowledgments_name_what_exists)
{
	refused(HEAD "[[fields]]\nname = \"n\"\nlabel = \"N\"\nkind = \"bool\"\n"
		"show_when = { field = \"nope\", op = \"is_true\" }\n",
		"4: field `n` has a show_when reading `nope`, which is not a field of `t`");
	refused(HEAD "[[fields]]\nname = \"n\"\nlabel = \"N\"\nkind = \"bool\"\n"
		"show_when = { field = \"n\", op = \"sometimes\" }\n",
		"8: unknown variant `sometimes`, expected one of `eq`, `ne`, `in`, `not_in`, `gt`, "
		"`gte`, `lt`, `lte`, `present`, `absent`, `is_true`, `is_false`");
	refused(HEAD "[[fields]]\nname = \"n\"\nlabel = \"N\"\nkind = \"bool\"\n"
		"show_when = { field = \"n\", op = \"eq\", vaule = 1 }\n",
		"8: unknown field `vaule`, expected one of `field`, `op`, `value`");
	refused(HEAD "[[fields]]\nname = \"n\"\nlabel = \"N\"\nkind = \"bool\"\n"
		"[[steps]]\nid = \"s\"\ntitle = \"S\"\nfields = [\"nope\"]\n",
		"8: step `s` references field `nope`, which does not exist");
	refused(HEAD "[[fields]]\nname = \"n\"\nlabel = \"N\"\nkind = \"bool\"\n"
		"[[fields]]\nname = \"m\"\nlabel = \"M\"\nkind = \"bool\"\n"
		"[[steps]]\nid = \"s\"\ntitle = \"S\"\nfields = [\"n\"]\n"
		"show_when = { field = \"gone\", op = \"present\" }\n",
		"8: field `m` appears on no step, so no form would render it");
	refused(HEAD "[[fields]]\nname = \"n\"\nlabel = \"N\"\nkind = \"bool\"\n"
		"[[steps]]\nid = \"s\"\ntitle = \"S\"\nfields = [\"n\"]\n"
		"show_when = { field = \"gone\", op = \"present\" }\n",
		"8: step `s` has a show_when reading `gone`, which is not a field of `t`");
	refused(HEAD "[[fields]]\nname = \"n\"\nlabel = \"N\"\nkind = \"bool\"\n"
		"[[acknowledgments]]\nid = \"n\"\nlabel = \"L\"\n",
		"8: acknowledgment `n` collides with a field of the same name");
	/* A condition may read an acknowledgment. */
	manifest_free(manifest_fixture_text(HEAD "[[fields]]\nname = \"n\"\nlabel = \"N\"\nkind = \"bool\"\n"
			       "show_when = { field = \"ok\", op = \"is_true\" }\n"
			       "[[acknowledgments]]\nid = \"ok\"\nlabel = \"L\"\n"));
}

Test(manifest, verification_and_confirmation_refer_to_real_fields)
{
	const char *base = HEAD "[[fields]]\nname = \"me\"\nlabel = \"Me\"\nkind = \"email\"\nrequired = true\n"
			   "[[fields]]\nname = \"other\"\nlabel = \"Other\"\nkind = \"email\"\n"
			   "[[fields]]\nname = \"topic\"\nlabel = \"Topic\"\nkind = \"text\"\nmax_length = 9\n";
	char *t;

	t = xasprintf("%s[verification]\nfield = \"nobody\"\n", base);
	refused(t, "18: [verification] names `nobody`, which is not a field on `t`");
	free(t);
	t = xasprintf("%s[verification]\nfield = \"topic\"\n", base);
	refused(t, "[verification] names `topic`, which is a `text` field rather than an email field "
		   "\u2014 a link can only be sent to an address");
	free(t);
	t = xasprintf("%s[verification]\nfield = \"other\"\n", base);
	refused(t, "[verification] names `other`, which is optional. A submission that left it blank "
		   "could never be verified, and an unverified submission is one nobody ever reads.");
	free(t);
	t = xasprintf("%s[verification]\nfield = \"me\"\nexpires_hours = 0\n", base);
	refused(t, "[verification] expires_hours = 0 would expire every link before it could be clicked");
	free(t);
	t = xasprintf("%s[confirmation]\nheading = \"H\"\nbody = \"About {topci}.\"\n", base);
	refused(t, "18: [confirmation] interpolates `{topci}`, which is not a field on `t`");
	free(t);
	t = xasprintf("%s[confirmation]\nheading = \"H\"\nbody = \"About {topic\"\n", base);
	refused(t, "[confirmation] body has a `{` with no `}`");
	free(t);
}

Test(manifest, the_kind_rules_hold_in_both_directions)
{
	const char *booking = HEAD "kind = \"booking\"\n[[fields]]\nname = \"e\"\nlabel = \"E\"\nkind = \"email\"\n"
			      "required = true\n";
	const char *verify = "[verification]\nfield = \"e\"\n";
	const char *avail = "[availability]\ntimezone = \"America/New_York\"\ndurations = [30]\n"
			    "[[availability.windows]]\nday = \"tue\"\nstart = \"13:00\"\nend = \"17:00\"\n";
	char *t;

	t = xasprintf("%s%s", booking, verify);
	refused(t, "4: booking `t` has no [availability] section, so no slot could ever be offered");
	free(t);
	t = xasprintf("%s%s", booking, avail);
	refused(t, "booking `t` has no [verification]: the magic-link click is what converts a hold "
		   "into a booking, so a booking type without one has no way to book");
	free(t);
	t = xasprintf("%s%s%s[[steps]]\nid = \"one\"\ntitle = \"One\"\nfields = [\"e\"]\n", booking, verify, avail);
	refused(t, "booking `t` declares steps; a booking page is one page");
	free(t);
	t = xasprintf("%s[[fields]]\nname = \"f\"\nlabel = \"F\"\nkind = \"file\"\naccept = [\"pdf\"]\n%s%s",
		      booking, verify, avail);
	refused(t, "booking `t` declares a file field; a booking takes no attachments");
	free(t);
	t = xasprintf("%s%s%s[policy]\nreminders = [\"soon\", \"0h\", \"24\"]\n", booking, verify, avail);
	refused(t, "booking `t` has the reminder `soon`, which is not <n>m, <n>h or <n>d");
	refused(t, "booking `t` has the reminder `0h`, which is not <n>m, <n>h or <n>d");
	free(t);
	t = xasprintf(HEAD "[[fields]]\nname = \"e\"\nlabel = \"E\"\nkind = \"email\"\nrequired = true\n%s", avail);
	refused(t, "`t` carries [availability] or [policy] but is not `kind = \"booking\"` \u2014 "
		   "nothing would read them, which is worse than an error");
	free(t);
}

Test(manifest, availability_is_parsed_whole_at_check_time)
{
	const char *head = HEAD "kind = \"booking\"\n[[fields]]\nname = \"e\"\nlabel = \"E\"\nkind = \"email\"\n"
			   "required = true\n[verification]\nfield = \"e\"\n";
	char *t = xasprintf("%s[availability]\ntimezone = \"Mars/Olympus\"\ndurations = [4, 30]\n"
			    "horizon_days = 0\nincrement_minutes = 1\nwindows = [\n"
			    "  { day = \"tue\", start = \"19:00\", end = \"17:00\" },\n"
			    "  { day = \"someday\", start = \"9am\", end = \"10:00\" },\n]\n"
			    "overrides = [{ date = \"2026-02-30\", windows = [[\"09:00\", \"08:00\"]] }]\n",
			    head);
	char *got = issues_of(t);
	static const char *const want[] = {
		"`Mars/Olympus` is not an IANA timezone",
		"each duration must be 5\u2013480 minutes",
		"horizon_days must be at least 1",
		"increment_minutes must be at least 5",
		"window `19:00:00`\u2013`17:00:00` ends before it starts",
		"`someday` is not a weekday",
		"`9am` is not an HH:MM time",
		"`2026-02-30` is not a YYYY-MM-DD date",
		"window `09:00:00`\u2013`08:00:00` ends before it starts",
	};

	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
		cr_assert(strstr(got, want[i]), "wanted %s in\n%s", want[i], got);
	free(got);
	free(t);
	t = xasprintf("%s[availability]\ntimezone = \"UTC\"\ndurations = []\nwindows = []\nweekends = true\n", head);
	refused(t, "unknown field `weekends`, expected one of `timezone`, `durations`");
	free(t);
	t = xasprintf("%s[availability]\ntimezone = \"UTC\"\ndurations = []\nwindows = []\n", head);
	refused(t, "durations must name at least one");
	refused(t, "windows must name at least one");
	free(t);
}

Test(manifest, every_mistake_is_reported_sorted_by_line)
{
	char *got = issues_of("id = \"Bad\"\nversion = 1\ntitle = \"T\"\n"
			      "[[fields]]\nname = \"a\"\nlabel = \"A\"\nkind = \"text\"\nmax_length = 0\n"
			      "[[fields]]\nname = \"a\"\nlabel = \"A\"\nkind = \"bool\"\n");

	cr_assert_str_eq(got, "1: request type id `Bad` may only contain lowercase letters, digits, `-` and `_`\n"
			      "4: field `a` has max_length = 0, which rejects every value\n"
			      "9: request type `Bad` declares field `a` twice\n");
	free(got);
}

Test(manifest, reminders_read_as_the_reference_reads_them)
{
	cr_assert_eq(booking_reminder_minutes("24h"), 1440);
	cr_assert_eq(booking_reminder_minutes(" 90m "), 90);
	cr_assert_eq(booking_reminder_minutes("3d"), 4320);
	cr_assert_eq(booking_reminder_minutes("+5m"), 5);
	static const char *const bad[] = { "soon", "h", "0h", "-1h", "24", "", "5 h", "5\xc3\xa9",
					   "4294967295h" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		cr_assert_eq(booking_reminder_minutes(bad[i]), -1, "%s", bad[i]);
}

Test(manifest, the_json_view_fills_defaults_and_omits_what_is_absent)
{
	struct manifest *m = manifest_fixture_file("every-kind");
	json_t *j = manifest_json(m);
	char *s = jsonio_compact(json_array_get(json_object_get(j, "fields"), 2));

	cr_assert_str_eq(s, "{\"name\":\"em\",\"label\":\"Email\",\"kind\":\"email\",\"max_length\":254,"
			    "\"required\":true}");
	free(s);
	s = jsonio_compact(json_array_get(json_object_get(j, "fields"), 9));
	cr_assert_str_eq(s, "{\"name\":\"f\",\"label\":\"File\",\"kind\":\"file\",\"max_bytes\":1000,"
			    "\"accept\":[\"pdf\",\"png\"]}");
	free(s);
	cr_assert_null(json_object_get(j, "kind"), "request is the default, not written");
	cr_assert_null(json_object_get(j, "steps"));
	cr_assert_eq(json_integer_value(json_object_get(json_object_get(j, "verification"),
							"expires_hours")), 48);
	json_decref(j);
	manifest_free(m);
}

/* ---- show_when ------------------------------------------------------------------------ */

static int holds(const char *field, enum condition_op op, const char *value, const char *values)
{
	struct condition c = { (char *)field, op, value ? json_loads(value, JSON_DECODE_ANY, NULL) : NULL };
	json_t *v = json_loads(values, 0, NULL);
	int r;

	cr_assert_not_null(v, "%s", values);
	r = condition_holds(&c, v);
	json_decref(v);
	json_decref(c.value);
	return r;
}

Test(condition, present_and_absent_treat_blank_as_absent)
{
	const char *v = "{\"a\":\"\",\"b\":\"  \",\"c\":\"x\",\"d\":null,\"e\":[],\"f\":false,\"g\":0}";

	cr_assert_not(holds("a", CONDITION_PRESENT, NULL, v));
	cr_assert_not(holds("b", CONDITION_PRESENT, NULL, v));
	cr_assert(holds("c", CONDITION_PRESENT, NULL, v));
	cr_assert_not(holds("d", CONDITION_PRESENT, NULL, v));
	cr_assert_not(holds("e", CONDITION_PRESENT, NULL, v));
	cr_assert(holds("f", CONDITION_PRESENT, NULL, v), "a false checkbox is present");
	cr_assert(holds("g", CONDITION_PRESENT, NULL, v));
	cr_assert_not(holds("missing", CONDITION_PRESENT, NULL, v));
	cr_assert(holds("missing", CONDITION_ABSENT, NULL, v), "absent is the one op a missing field satisfies");
	cr_assert(holds("b", CONDITION_ABSENT, NULL, v));
	cr_assert_not(holds("c", CONDITION_ABSENT, NULL, v));
}

Test(condition, eq_and_ne_need_the_field_and_compare_exactly)
{
	const char *v = "{\"kind\":\"talk\",\"n\":1,\"r\":1.0}";

	cr_assert(holds("kind", CONDITION_EQ, "\"talk\"", v));
	cr_assert_not(holds("kind", CONDITION_EQ, "\"Talk\"", v));
	cr_assert_not(holds("kind", CONDITION_EQ, "\" talk\"", v), "no trimming");
	cr_assert(holds("kind", CONDITION_NE, "\"other\"", v));
	cr_assert_not(holds("missing", CONDITION_NE, "\"other\"", v), "ne on a missing field does not hold");
	cr_assert_not(holds("missing", CONDITION_EQ, "\"other\"", v));
	cr_assert(holds("n", CONDITION_EQ, "1", v));
	cr_assert_not(holds("n", CONDITION_EQ, "\"1\"", v), "a number is not its spelling");
	cr_assert_not(holds("n", CONDITION_EQ, "1.0", v), "an integer is not a float, as in serde_json");
	cr_assert(holds("r", CONDITION_EQ, "1.0", v));
	cr_assert(holds("kind", CONDITION_NE, NULL, v), "ne against no value holds for a present field");
}

Test(condition, in_and_not_in_need_an_array)
{
	const char *v = "{\"k\":\"b\"}";

	cr_assert(holds("k", CONDITION_IN, "[\"a\",\"b\"]", v));
	cr_assert_not(holds("k", CONDITION_IN, "[\"a\"]", v));
	cr_assert(holds("k", CONDITION_NOT_IN, "[\"a\"]", v));
	cr_assert_not(holds("k", CONDITION_NOT_IN, "[\"b\"]", v));
	cr_assert_not(holds("k", CONDITION_IN, "\"b\"", v), "not an array: no error, no hold");
	cr_assert_not(holds("k", CONDITION_NOT_IN, "\"b\"", v));
	cr_assert_not(holds("missing", CONDITION_NOT_IN, "[\"a\"]", v));
	cr_assert_not(holds("k", CONDITION_IN, NULL, v));
}

Test(condition, numeric_operators_read_numbers_and_numeric_strings)
{
	const char *v = "{\"n\":\"12\",\"sp\":\" 12 \",\"j\":12,\"f\":12.5,\"junk\":\"twelve\",\"b\":true,"
			"\"e\":\"1e1\",\"h\":\"0x10\",\"u\":\"1_0\"}";

	cr_assert(holds("n", CONDITION_GT, "10", v));
	cr_assert(holds("sp", CONDITION_GTE, "12", v), "trimmed first");
	cr_assert(holds("j", CONDITION_LTE, "12", v));
	cr_assert_not(holds("j", CONDITION_LT, "12", v));
	cr_assert(holds("f", CONDITION_GT, "12", v));
	cr_assert(holds("n", CONDITION_LT, "\"12.5\"", v), "the constant may be a numeric string too");
	cr_assert(holds("e", CONDITION_GTE, "10", v));
	cr_assert_not(holds("junk", CONDITION_GT, "1", v));
	cr_assert_not(holds("n", CONDITION_GT, "\"ten\"", v));
	cr_assert_not(holds("missing", CONDITION_LT, "1", v));
	cr_assert_not(holds("b", CONDITION_GT, "0", v), "a boolean is not a number");
	cr_assert_not(holds("h", CONDITION_GT, "1", v), "Rust's f64 reads no hex");
	cr_assert_not(holds("u", CONDITION_GT, "1", v), "nor underscores");
	cr_assert_not(holds("n", CONDITION_GT, NULL, v));
}

Test(condition, is_true_and_is_false_read_a_ticked_checkbox_as_a_bool_field_does)
{
	const char *v = "{\"yes\":true,\"no\":false,\"on\":\"on\",\"t\":\" true \","
			"\"off\":\"0\",\"x\":\"maybe\",\"n\":1}";

	cr_assert(holds("yes", CONDITION_IS_TRUE, NULL, v));
	cr_assert_not(holds("no", CONDITION_IS_TRUE, NULL, v));
	cr_assert(holds("no", CONDITION_IS_FALSE, NULL, v));
	/* A ticked box posts a string (docs/protocol/box-pages.md §7: where we go further). */
	cr_assert(holds("on", CONDITION_IS_TRUE, NULL, v));
	cr_assert(holds("t", CONDITION_IS_TRUE, NULL, v));
	cr_assert(holds("off", CONDITION_IS_FALSE, NULL, v));
	cr_assert_not(holds("off", CONDITION_IS_TRUE, NULL, v));
	cr_assert_not(holds("x", CONDITION_IS_TRUE, NULL, v));
	cr_assert_not(holds("x", CONDITION_IS_FALSE, NULL, v));
	cr_assert_not(holds("n", CONDITION_IS_TRUE, NULL, v), "a number is not a yes");
	cr_assert_not(holds("missing", CONDITION_IS_FALSE, NULL, v));
	cr_assert(holds("on", CONDITION_EQ, "true", v), "eq true reads the spelling too");
	cr_assert(holds("off", CONDITION_NE, "true", v));
}

/* ---- validation, per kind ---------------------------------------------------------------- */

/*
 * Validates the every-kind manifest with {"em": "a@b.co", "consent": true} plus
 * extra (a JSON object's inside, without braces); returns the compact record
 * values or the compact errors.
 */
static char *run(const struct manifest *m, enum validate_phase phase, const char *extra)
{
	char *text = xasprintf("{\"em\":\"a@b.co\",\"consent\":true%s%s}", *extra ? "," : "", extra);
	json_t *raw = json_loads(text, 0, NULL), *record, *errors;
	struct err e;
	char *out;

	cr_assert_not_null(raw, "%s", text);
	if (validate_submission(m, raw, phase, &record, &errors, &e) == 0) {
		out = jsonio_compact(json_object_get(record, "values"));
		json_decref(record);
	} else {
		cr_assert_eq(e.code, ERR_INVALID_SUBMISSION);
		out = jsonio_compact(errors);
		json_decref(errors);
	}
	json_decref(raw);
	free(text);
	return out;
}

/* The coerced value of field in a submission that must pass. */
static void coerced(const char *extra, const char *field, const char *want)
{
	struct manifest *m = manifest_fixture_file("every-kind");
	char *got = run(m, VALIDATE_COMPLETE, extra), *w = xasprintf("\"%s\":%s", field, want);

	cr_assert(strstr(got, w) && got[0] == '{', "for %s\nwanted %s in %s", extra, w, got);
	free(w);
	free(got);
	manifest_free(m);
}

/* The one error of a submission that must fail. */
static void refused_value(const char *extra, const char *field, const char *message)
{
	struct manifest *m = manifest_fixture_file("every-kind");
	char *got = run(m, VALIDATE_COMPLETE, extra);
	char *w = xasprintf("[{\"field\":\"%s\",\"message\":\"%s\"}]", field, message);

	cr_assert_str_eq(got, w, "for %s", extra);
	free(w);
	free(got);
	manifest_free(m);
}

Test(validate, text_is_capped_on_characters_single_line_and_trimmed)
{
	coerced("\"t\":\" ab  \"", "t", "\"ab\"");
	coerced("\"t\":\"\xc3\x80\xc3\x89\xc3\x8e\xc3\x95\xc3\x9c\"", "t", "\"\xc3\x80\xc3\x89\xc3\x8e\xc3\x95\xc3\x9c\"");
	refused_value("\"t\":\"abcdef\"", "t", "this is 6 characters; the limit is 5");
	refused_value("\"t\":\" abc  \"", "t", "this is 6 characters; the limit is 5");
	refused_value("\"t\":\"a\\nb\"", "t", "this is a single line");
	refused_value("\"t\":\"ab\\r\"", "t", "this is a single line");
	refused_value("\"t\":5", "t", "this has to be text");
	coerced("\"t\":\"a1!\"", "t", "\"a1!\""); /* the pattern is the browser's, never run here */
}

Test(validate, long_text_keeps_its_lines_and_is_trimmed)
{
	coerced("\"lt\":\" a\\nb \"", "lt", "\"a\\nb\"");
	refused_value("\"lt\":\"12345678901\"", "lt", "this is 11 characters; the limit is 10");
	refused_value("\"lt\":[\"x\"]", "lt", "this has to be text");
}

Test(validate, email_is_trimmed_then_capped_and_plausible)
{
	static const char *const good[] = { "a@b.co", "first.last+tag@sub.example.edu", "x!#$@example.com" };
	static const char *const bad[] = { "a@b", "@b.co", "a@", "a b@c.co", "a@@b.co", "a@.co", "a@b.",
					   "a@b\xc2\xa0x.co" };

	for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
		char *extra = xasprintf("\"em\":\" %s \"", good[i]), *want = xasprintf("\"%s\"", good[i]);
		coerced(extra, "em", want);
		free(want);
		free(extra);
	}
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char *extra = xasprintf("\"em\":\"%s\"", bad[i]);
		refused_value(extra, "em", "this does not look like an email address");
		free(extra);
	}
}

Test(validate, url_takes_only_http_and_https)
{
	coerced("\"u\":\" HTTPS://example.edu/x \"", "u", "\"HTTPS://example.edu/x\"");
	coerced("\"u\":\"http://a\"", "u", "\"http://a\"");
	refused_value("\"u\":\"javascript:alert(1)\"", "u", "this has to be an http or https address");
	refused_value("\"u\":\"//evil.example\"", "u", "this has to be an http or https address");
	refused_value("\"u\":\"https://example.edu/a-very-long-path\"", "u", "this is 36 characters; the limit is 30");
}

Test(validate, date_is_iso_and_within_its_literal_bounds)
{
	coerced("\"d\":\" 2026-06-01 \"", "d", "\"2026-06-01\"");
	coerced("\"d\":\"2026-02-31\"", "d", "\"2026-02-31\""); /* shape only: no calendar check */
	refused_value("\"d\":\"2026-6-1\"", "d", "this has to be a date, as YYYY-MM-DD");
	refused_value("\"d\":\"2026-13-01\"", "d", "this has to be a date, as YYYY-MM-DD");
	refused_value("\"d\":\"2025-12-31\"", "d", "this cannot be earlier than 2026-01-01");
	refused_value("\"d\":\"2027-01-01\"", "d", "this cannot be later than 2026-12-31");
	refused_value("\"d\":20260601", "d", "this has to be text");
}

Test(validate, integer_takes_numbers_and_numeric_strings)
{
	coerced("\"n\":\"40\"", "n", "40");
	coerced("\"n\":\" +7 \"", "n", "7");
	coerced("\"n\":-5", "n", "-5");
	refused_value("\"n\":\"4.0\"", "n", "this has to be a whole number");
	refused_value("\"n\":4.0", "n", "this has to be a whole number");
	refused_value("\"n\":\"1_0\"", "n", "this has to be a whole number");
	refused_value("\"n\":true", "n", "this has to be a whole number");
	refused_value("\"n\":\"99999999999999999999\"", "n", "this has to be a whole number");
	refused_value("\"n\":-6", "n", "this cannot be less than -5");
	refused_value("\"n\":\"101\"", "n", "this cannot be more than 100");
}

Test(validate, select_is_one_of_ours_trimmed)
{
	coerced("\"s\":\" b \"", "s", "\"b\"");
	refused_value("\"s\":\"d\"", "s", "this has to be one of: a, b, c");
	refused_value("\"s\":\"A\"", "s", "this has to be one of: a, b, c");
	refused_value("\"s\":[\"a\"]", "s", "this has to be text");
}

Test(validate, multi_select_is_a_list_of_ours_without_repeats)
{
	coerced("\"ms\":[\" x\",\"z\"]", "ms", "[\"x\",\"z\"]");
	coerced("\"ms\":\"y\"", "ms", "[\"y\"]");
	refused_value("\"ms\":[\"x\",\"w\"]", "ms", "choices have to come from: x, y, z");
	refused_value("\"ms\":[\"x\",\" x\"]", "ms", "`x` is chosen twice");
	refused_value("\"ms\":[\"x\",\"y\",\"z\"]", "ms", "choose at most 2");
	refused_value("\"ms\":[\"x\",1]", "ms", "this has to be text");
	refused_value("\"ms\":{\"x\":1}", "ms", "this has to be a list of choices");
}

Test(validate, bool_takes_booleans_and_the_spellings_forms_post)
{
	static const char *const yes[] = { "true", "\"on\"", "\"true\"", "\"1\"", "\" yes \"" };
	static const char *const no[] = { "false", "\"off\"", "\"false\"", "\"0\"", "\"no\"" };

	for (size_t i = 0; i < 5; i++) {
		char *a = xasprintf("\"b\":%s", yes[i]), *b = xasprintf("\"b\":%s", no[i]);
		coerced(a, "b", "true");
		coerced(b, "b", "false");
		free(a);
		free(b);
	}
	refused_value("\"b\":\"maybe\"", "b", "this has to be yes or no");
	refused_value("\"b\":1", "b", "this has to be yes or no");
	refused_value("\"b\":\"On\"", "b", "this has to be yes or no");
}

#define META(size, sha, type, name) \
	"\"f\":{\"filename\":\"" name "\",\"size\":" size ",\"sha256\":\"" sha "\",\"content_type\":\"" type "\"}"
#define SHA "sha256:abababababababababababababababababababababababababababababababab"

Test(validate, a_file_is_the_boxs_measurements_and_every_lie_is_refused)
{
	coerced(META("20", SHA, "application/pdf", "cv.pdf"), "f",
		"{\"filename\":\"cv.pdf\",\"size\":20,\"sha256\":\"" SHA "\",\"content_type\":\"application/pdf\"}");
	coerced("\"f\":{\"attachment_id\":\"ab12\",\"content_type\":\"image/png\",\"sha256\":\"sha256:ABABABABABABABABABABABABABABABABABABABABABABABABABABABABABABABAB\","
		"\"size\":1,\"filename\":\"p.png\"}", "f",
		"{\"filename\":\"p.png\",\"size\":1,\"sha256\":\"" SHA "\",\"content_type\":\"image/png\","
		"\"attachment_id\":\"ab12\"}");
	refused_value(META("0", SHA, "application/pdf", "cv.pdf"), "f", "this file is empty");
	refused_value(META("1001", SHA, "application/pdf", "cv.pdf"), "f", "this file is 1001 bytes; the limit is 1000");
	refused_value(META("20", "sha256:short", "application/pdf", "cv.pdf"), "f", "this file's digest is malformed");
	refused_value(META("20", "abababababababababababababababababababababababababababababababab", "application/pdf", "cv.pdf"),
		      "f", "this file's digest is malformed");
	refused_value(META("20", SHA, "image/jpeg", "cv.jpg"), "f", "this field takes: pdf, png");
	refused_value(META("20", SHA, "application/zip", "cv.zip"), "f", "this file is not a kind this field takes");
	refused_value(META("20", SHA, "application/pdf", "  "), "f", "this file has no name");
	refused_value(META("20", SHA, "application/pdf", "a/b.pdf"), "f", "this file's name contains a path separator");
	refused_value(META("20", SHA, "application/pdf", "a\\\\b.pdf"), "f", "this file's name contains a path separator");
	refused_value("\"f\":\"../../etc/passwd\"", "f", "this has to be an uploaded file");
	refused_value("\"f\":{\"filename\":\"a\",\"size\":1,\"sha256\":\"" SHA "\",\"content_type\":\"image/png\",\"x\":1}",
		      "f", "this has to be an uploaded file");
	refused_value("\"f\":{\"filename\":\"a\",\"size\":-1,\"sha256\":\"" SHA "\",\"content_type\":\"image/png\"}",
		      "f", "this has to be an uploaded file");
}

Test(validate, a_file_is_refused_at_submit_and_required_at_complete)
{
	struct manifest *m = manifest_fixture_text(HEAD "[[fields]]\nname = \"em\"\nlabel = \"E\"\nkind = \"email\"\nrequired = true\n"
				       "[[fields]]\nname = \"cv\"\nlabel = \"CV\"\nkind = \"file\"\naccept = [\"pdf\"]\n"
				       "required = true\n[[acknowledgments]]\nid = \"consent\"\nlabel = \"L\"\n");
	char *got;

	got = run(m, VALIDATE_SUBMIT, "");
	cr_assert_str_eq(got, "{\"consent\":true,\"em\":\"a@b.co\"}", "not due at submit");
	free(got);
	got = run(m, VALIDATE_COMPLETE, "");
	cr_assert_str_eq(got, "[{\"field\":\"cv\",\"message\":\"this is required\"}]");
	free(got);
	got = run(m, VALIDATE_SUBMIT, "\"cv\":\"\"");
	cr_assert_str_eq(got, "[{\"field\":\"cv\",\"message\":\"files are uploaded after your email is verified\"}]",
			 "a value aimed at a file at submit is a probe, even blank");
	free(got);
	manifest_free(m);
}

Test(validate, blank_is_missing_required_or_absent)
{
	struct manifest *m = manifest_fixture_file("every-kind");
	char *got;

	got = run(m, VALIDATE_COMPLETE, "\"t\":\"   \",\"lt\":null,\"ms\":[]");
	cr_assert_str_eq(got, "{\"consent\":true,\"em\":\"a@b.co\"}", "blank optional fields are absent, not \"\"");
	free(got);
	manifest_free(m);
	refused_value("\"em\":\" \"", "em", "this is required");
	refused_value("\"em\":null", "em", "this is required");
}

Test(validate, acknowledgments_must_be_ticked)
{
	struct manifest *m = manifest_fixture_file("every-kind");
	static const char *const ok[] = { "true", "\"on\"", "\" yes \"", "\"1\"" };
	static const char *const no[] = { "false", "\"off\"", "1", "null" };

	for (size_t i = 0; i < 4; i++) {
		char *t = xasprintf("{\"em\":\"a@b.co\",\"consent\":%s}", ok[i]);
		json_t *raw = json_loads(t, 0, NULL), *r, *errs;
		struct err e;
		cr_assert_eq(validate_submission(m, raw, VALIDATE_COMPLETE, &r, &errs, &e), 0, "%s", ok[i]);
		cr_assert(json_is_true(json_object_get(json_object_get(r, "values"), "consent")));
		json_decref(r);
		json_decref(raw);
		free(t);
		t = xasprintf("{\"em\":\"a@b.co\",\"consent\":%s}", no[i]);
		raw = json_loads(t, 0, NULL);
		cr_assert_eq(validate_submission(m, raw, VALIDATE_COMPLETE, &r, &errs, &e), -1, "%s", no[i]);
		cr_assert_str_eq(json_string_value(json_object_get(json_array_get(errs, 0), "message")),
				 "this has to be acknowledged before submitting");
		json_decref(errs);
		json_decref(raw);
		free(t);
	}
	manifest_free(m);
}

Test(validate, every_error_is_reported_sorted_by_field_then_message)
{
	struct manifest *m = manifest_fixture_file("every-kind");
	json_t *raw = json_loads("{\"zz\":1,\"t\":\"toolong\",\"em\":\"nope\",\"n\":\"x\",\"aa\":2}", 0, NULL);
	json_t *record, *errors;
	struct err e;
	char *got;

	cr_assert_eq(validate_submission(m, raw, VALIDATE_COMPLETE, &record, &errors, &e), -1);
	cr_assert_str_eq(e.msg, "6 problems with a `every-kind` submission");
	got = jsonio_compact(errors);
	cr_assert_str_eq(got, "[{\"field\":\"aa\",\"message\":\"this is not a field of this request type\"},"
			      "{\"field\":\"consent\",\"message\":\"this has to be acknowledged before submitting\"},"
			      "{\"field\":\"em\",\"message\":\"this does not look like an email address\"},"
			      "{\"field\":\"n\",\"message\":\"this has to be a whole number\"},"
			      "{\"field\":\"t\",\"message\":\"this is 7 characters; the limit is 5\"},"
			      "{\"field\":\"zz\",\"message\":\"this is not a field of this request type\"}]");
	cr_assert_null(record);
	free(got);
	json_decref(errors);
	json_decref(raw);
	raw = json_loads("[1]", 0, NULL);
	cr_assert_eq(validate_submission(m, raw, VALIDATE_COMPLETE, &record, &errors, &e), -1);
	cr_assert_str_eq(json_string_value(json_object_get(json_array_get(errors, 0), "field")), "_");
	json_decref(errors);
	json_decref(raw);
	manifest_free(m);
}

Test(validate, the_record_is_type_version_and_values_in_key_order)
{
	struct manifest *m = manifest_fixture_file("every-kind");
	json_t *raw = json_loads("{\"consent\":\"on\",\"s\":\"a\",\"em\":\"a@b.co\",\"b\":\"yes\",\"t\":\"x\"}", 0, NULL);
	json_t *record, *errors, *ft;
	struct err e;
	char *got;

	cr_assert_eq(validate_submission(m, raw, VALIDATE_COMPLETE, &record, &errors, &e), 0, "%s", e.msg);
	got = jsonio_compact(record);
	cr_assert_str_eq(got, "{\"type_id\":\"every-kind\",\"type_version\":7,\"values\":{\"b\":true,"
			      "\"consent\":true,\"em\":\"a@b.co\",\"s\":\"a\",\"t\":\"x\"}}");
	free(got);
	ft = validate_free_text(m, json_object_get(record, "values"));
	got = jsonio_compact(ft);
	cr_assert_str_eq(got, "[\"t\",\"em\"]", "present prose fields, in declared order");
	cr_assert_str_eq(validate_reply_to(m, json_object_get(record, "values")), "a@b.co");
	free(got);
	json_decref(ft);
	json_decref(record);
	json_decref(raw);
	manifest_free(m);
}

Test(validate, a_hidden_field_is_neither_required_nor_accepted)
{
	struct manifest *m = manifest_fixture_file("speaking");
	const char *base = "\"requester_name\":\"A Person\",\"requester_email\":\"p@example.edu\","
			   "\"organisation\":\"Somewhere\",\"event_name\":\"A series\",\"event_date\":\"2026-11-02\","
			   "\"talk_kind\":\"seminar\",\"understands_request\":\"on\"";
	char *t;
	json_t *raw, *r, *errs;
	struct err e;

	t = xasprintf("{%s,\"format\":\"remote\"}", base);
	raw = json_loads(t, 0, NULL);
	cr_assert_eq(validate_submission(m, raw, VALIDATE_COMPLETE, &r, &errs, &e), 0, "%s", e.msg);
	json_decref(r);
	json_decref(raw);
	free(t);
	t = xasprintf("{%s,\"format\":\"remote\",\"travel_covered\":false}", base);
	raw = json_loads(t, 0, NULL);
	cr_assert_eq(validate_submission(m, raw, VALIDATE_COMPLETE, &r, &errs, &e), -1);
	cr_assert_eq(json_array_size(errs), 1);
	cr_assert_str_eq(json_string_value(json_object_get(json_array_get(errs, 0), "message")),
			 "this field was not shown, so it cannot be submitted");
	json_decref(errs);
	json_decref(raw);
	free(t);
	/* A hidden field posted blank (a form with scripts off) is absent, not forged. */
	t = xasprintf("{%s,\"format\":\"remote\",\"origin_city\":\"  \"}", base);
	raw = json_loads(t, 0, NULL);
	cr_assert_eq(validate_submission(m, raw, VALIDATE_COMPLETE, &r, &errs, &e), 0, "%s", e.msg);
	cr_assert_null(json_object_get(json_object_get(r, "values"), "origin_city"));
	json_decref(r);
	json_decref(raw);
	free(t);
	/* A ticked box posts "on": the condition behind it holds (docs/protocol/box-pages.md §7). */
	t = xasprintf("{%s,\"format\":\"in_person\",\"travel_covered\":\"on\",\"origin_city\":\"Lyon\"}", base);
	raw = json_loads(t, 0, NULL);
	cr_assert_eq(validate_submission(m, raw, VALIDATE_COMPLETE, &r, &errs, &e), 0, "%s", e.msg);
	json_decref(r);
	json_decref(raw);
	free(t);
	t = xasprintf("{%s,\"format\":\"in_person\",\"travel_covered\":true,\"origin_city\":\" Lyon \"}", base);
	raw = json_loads(t, 0, NULL);
	cr_assert_eq(validate_submission(m, raw, VALIDATE_COMPLETE, &r, &errs, &e), 0, "%s", e.msg);
	cr_assert_str_eq(json_string_value(json_object_get(json_object_get(r, "values"), "origin_city")), "Lyon");
	json_decref(r);
	json_decref(raw);
	free(t);
	manifest_free(m);
}

Test(validate, a_condition_reads_raw_values_and_a_shown_field_is_required)
{
	struct manifest *m = manifest_fixture_file("meeting");
	json_t *raw = json_loads("{\"requester_name\":\"A\",\"requester_email\":\"a@b.co\",\"purpose\":\"other\"}", 0, NULL);
	json_t *r, *errs;
	struct err e;

	cr_assert_eq(validate_submission(m, raw, VALIDATE_COMPLETE, &r, &errs, &e), -1);
	cr_assert_str_eq(json_string_value(json_object_get(json_array_get(errs, 0), "field")), "other_detail");
	cr_assert_str_eq(json_string_value(json_object_get(json_array_get(errs, 0), "message")), "this is required");
	json_decref(errs);
	json_decref(raw);
	/* " other" is not "other": visibility reads the raw value, before any trimming. */
	raw = json_loads("{\"requester_name\":\"A\",\"requester_email\":\"a@b.co\",\"purpose\":\" other\"}", 0, NULL);
	cr_assert_eq(validate_submission(m, raw, VALIDATE_COMPLETE, &r, &errs, &e), 0, "%s", e.msg);
	json_decref(r);
	json_decref(raw);
	manifest_free(m);
}

/* ---- schema --------------------------------------------------------------------------------- */

Test(schema, required_is_the_unconditional_fields_and_every_acknowledgment)
{
	struct manifest *m = manifest_fixture_file("letter");
	json_t *s = schema_of(m);
	char *req = jsonio_compact(json_object_get(s, "required"));

	cr_assert_str_eq(req, "[\"requester_name\",\"requester_email\",\"relationship\",\"programs\","
			      "\"deadline\",\"highlights\",\"waiver\"]");
	cr_assert_str_eq(json_string_value(json_object_get(s, "$id")), "mecha-factory:request/letter/v3");
	cr_assert_str_eq(json_string_value(json_object_get(s, "$schema")),
			 "https://json-schema.org/draft/2020-12/schema");
	cr_assert(json_is_false(json_object_get(s, "additionalProperties")));
	cr_assert_null(json_object_get(s, "description"), "absent, never null");
	cr_assert_eq(json_object_size(json_object_get(s, "properties")), 9);
	free(req);
	json_decref(s);
	manifest_free(m);
	m = manifest_fixture_file("speaking");
	s = schema_of(m);
	req = jsonio_compact(json_object_get(s, "required"));
	cr_assert(!strstr(req, "travel_covered") && !strstr(req, "origin_city"));
	cr_assert(strstr(req, "understands_request"));
	free(req);
	json_decref(s);
	manifest_free(m);
}

Test(schema, each_kind_states_its_type_caps_and_enums)
{
	struct manifest *m = manifest_fixture_file("every-kind");
	json_t *s = schema_of(m), *p = json_object_get(s, "properties");
	static const char *const want[][2] = {
		{ "t", "{\"description\":\"One line.\",\"maxLength\":5,\"pattern\":\"[a-z]+\",\"title\":\"Text\",\"type\":\"string\"}" },
		{ "em", "{\"format\":\"email\",\"maxLength\":254,\"title\":\"Email\",\"type\":\"string\"}" },
		{ "u", "{\"format\":\"uri\",\"maxLength\":30,\"title\":\"URL\",\"type\":\"string\"}" },
		{ "d", "{\"format\":\"date\",\"formatMaximum\":\"2026-12-31\",\"formatMinimum\":\"2026-01-01\",\"title\":\"Date\",\"type\":\"string\"}" },
		{ "n", "{\"maximum\":100,\"minimum\":-5,\"title\":\"Number\",\"type\":\"integer\"}" },
		{ "s", "{\"enum\":[\"a\",\"b\",\"c\"],\"title\":\"Select\",\"type\":\"string\"}" },
		{ "ms", "{\"items\":{\"enum\":[\"x\",\"y\",\"z\"],\"type\":\"string\"},\"maxItems\":2,\"title\":\"Multi\",\"type\":\"array\",\"uniqueItems\":true}" },
		{ "b", "{\"title\":\"Bool\",\"type\":\"boolean\"}" },
		{ "consent", "{\"const\":true,\"title\":\"I agree\",\"type\":\"boolean\"}" },
	};

	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		char *got = jsonio_compact(json_object_get(p, want[i][0]));
		cr_assert_str_eq(got, want[i][1], "%s", want[i][0]);
		free(got);
	}
	json_decref(s);
	manifest_free(m);
}

/* ---- confirmation ------------------------------------------------------------------------- */

Test(confirmation, placeholders_fill_from_the_values_on_one_line)
{
	struct manifest *m = manifest_fixture_file("meeting");
	json_t *v = json_loads("{\"requester_name\":\"Ada\\r\\nSubject: x\",\"purpose\":\"advising\","
			       "\"duration_minutes\":45}", 0, NULL);
	char *page;

	page = confirmation_render(m->confirmation, v);
	cr_assert_str_eq(page, "Your request about advising is in the queue.");
	free(page);
	free(m->confirmation->body);
	m->confirmation->body = xstrdup("{requester_name} wants {duration_minutes} minutes; {agenda}");
	page = confirmation_render(m->confirmation, v);
	cr_assert_str_eq(page, "Ada  Subject: x wants 45 minutes; {agenda}",
			 "no new line, a number as JSON, an absent value left as written");
	free(page);
	json_decref(v);
	manifest_free(m);
}

/* ---- the request store's type cache ------------------------------------------------ */

static char *cache_after(const char *before, const char *type_id)
{
	char dir[256], *path, *text;
	struct err e;
	size_t len;

	cr_assert_not_null(scratch_mkdtemp(dir, sizeof dir, "typecache"));
	path = fs_join(dir, TYPECACHE_FILE);
	if (before)
		cr_assert_eq(fs_replace(path, before, strlen(before), &e), 0, "%s", e.msg);
	typecache_note(dir, type_id);
	cr_assert_eq(fs_read(path, &text, &len, &e), 0, "%s", e.msg);
	unlink(path);
	rmdir(dir);
	free(path);
	return text;
}

Test(typecache, a_writer_adds_its_type_once_and_carries_no_hostile_line_forward)
{
	char *fresh = cache_after(NULL, "meeting"), *same = cache_after("meeting\n", "meeting");
	char *cleaned = cache_after("meeting\n../../etc\nok_2\n\n", "Letter-1");

	cr_assert_str_eq(fresh, "meeting\n");
	cr_assert_str_eq(same, "meeting\n");
	cr_assert_str_eq(cleaned, "meeting\nok_2\nLetter-1\n");
	cr_assert(typecache_has(cleaned, strlen(cleaned), "ok_2"));
	cr_assert(!typecache_has(cleaned, strlen(cleaned), "ok"));
	cr_assert(!typecache_id_ok("a/b") && !typecache_id_ok("") && typecache_id_ok("A-z_9"));
	free(fresh), free(same), free(cleaned);
}

Test(typecache, a_full_cache_drops_its_oldest_type_and_keeps_the_recent_ones)
{
	struct buf full = BUF_INIT;
	char *after;

	for (int i = 0; i < TYPECACHE_MAX; i++)
		buf_printf(&full, "t%d\n", i);
	after = cache_after(buf_str(&full), "newest");
	cr_assert(!typecache_has(after, strlen(after), "t0"), "%s", after);
	cr_assert(typecache_has(after, strlen(after), "t1"));
	cr_assert(typecache_has(after, strlen(after), "t63"), "the previous newest is kept");
	cr_assert(typecache_has(after, strlen(after), "newest"));
	buf_free(&full);
	free(after);
}
