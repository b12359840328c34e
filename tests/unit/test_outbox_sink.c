/*
 * The sink table: what may be staged, what a reply may be addressed to, and
 * whether replies are routed — asked of one table, answered the same way for
 * every caller.
 */
#include <criterion/criterion.h>

#include "base/err.h"
#include "base/jsonio.h"
#include "config/config.h"
#include "outbox/sink.h"

#include <string.h>

static json_t *args(const char *text)
{
	struct err e;
	json_t *v = jsonio_parse(text, strlen(text), "args", &e);

	cr_assert_not_null(v, "%s", e.msg);
	return v;
}

static enum err_code check(const char *tool, const char *text)
{
	json_t *a = args(text);
	struct err e;
	int rc;

	err_clear(&e);
	rc = sink_check(tool, a, &e);
	json_decref(a);
	return rc == 0 ? ERR_NONE : e.code;
}

Test(sink, a_stage_names_a_tool_the_table_knows_under_any_of_its_names)
{
	const char *mail = "{\"to\":\"ada@example.org\",\"subject\":\"hi\",\"body_text\":\"x\"}";

	cr_assert_eq(check("mail_send", mail), ERR_NONE);
	cr_assert_eq(check("mail__mail_send", mail), ERR_NONE);
	cr_assert_eq(check("calendar_invite", "{\"title\":\"launch\"}"), ERR_NONE);
	cr_assert_eq(check("web_post", mail), ERR_UNKNOWN_TOOL);
	cr_assert_eq(check("", mail), ERR_UNKNOWN_TOOL);
	cr_assert_str_eq(sink_tool(SINK_MAIL), "mail_send");
	cr_assert_str_eq(sink_tool(SINK_INVITE), "calendar_invite");
}

Test(sink, a_draft_its_sink_could_not_send_is_the_stagers_mistake)
{
	cr_assert_eq(check("mail_send", "{\"to\":\"a@example.org\",\"subject\":\"a\\r\\nBcc: m@x.org\"}"),
		     ERR_BAD_ARGUMENTS);
	cr_assert_eq(check("mail_send", "{\"to\":\"a@example.org, b@evil.com\"}"), ERR_BAD_ARGUMENTS);
	cr_assert_eq(check("mail_send", "{\"subject\":\"no recipient\"}"), ERR_BAD_ARGUMENTS);
	cr_assert_eq(check("calendar_invite", "{\"to\":\"-oQ/tmp/x@example.org\"}"),
		     ERR_BAD_ARGUMENTS);
	cr_assert_eq(check("calendar_invite", "{\"title\":\"a\\nb\"}"), ERR_BAD_ARGUMENTS);
	cr_assert_eq(err_code_exit(ERR_BAD_ARGUMENTS), EXIT_USAGE);
}

Test(sink, a_recipient_is_one_address_mecha_will_send_to)
{
	struct err e;

	cr_assert_eq(sink_check_recipient(SINK_MAIL, "Ada <ada@example.org>", &e), 0, "%s", e.msg);
	cr_assert_eq(sink_check_recipient(SINK_MAIL, "a@example.org, b@evil.com", &e), -1);
	cr_assert_eq(e.code, ERR_BAD_ARGUMENTS);
	cr_assert_eq(sink_check_recipient(SINK_INVITE, "-oQ/tmp/x@example.org", &e), -1);
}

Test(sink, replies_are_routed_only_when_outbox_tools_names_mail_send)
{
	char *tools[] = { "calendar_invite", "mail_send" };
	struct config c;
	struct err e;

	memset(&c, 0, sizeof c);
	c.outbox_tools = tools;
	c.noutbox_tools = 1;
	cr_assert_eq(sink_routed(&c, SINK_MAIL, &e), 0);
	cr_assert_eq(e.code, ERR_UNROUTED);
	cr_assert(strstr(e.msg, "mail_send") != NULL);
	c.noutbox_tools = 2;
	cr_assert_eq(sink_routed(&c, SINK_MAIL, &e), 1);
}

Test(sink, calendar_invite_is_not_deliverable_without_a_calendar)
{
	struct config c;
	struct err e;

	memset(&c, 0, sizeof c);
	cr_assert_eq(sink_available(&c, "calendar_invite", &e), 0);
	cr_assert_eq(e.code, ERR_UNAVAILABLE);
	cr_assert_eq(sink_available(&c, "web_post", &e), 0);
	cr_assert_str_eq(e.msg, "tool web_post is not available in this configuration");
}
