/*
 * The message a mail_send draft becomes: RFC 5322 headers built from checked
 * parts, encoded words for anything not plain ASCII, a quoted-printable body
 * no transport can misread, and no way for an agent's text to add a header.
 */
#include <criterion/criterion.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/jsonio.h"
#include "outbox/mail.h"

#include <stdlib.h>
#include <string.h>

#define T0 1786240992 /* 2026-08-09T02:03:12Z, a Sunday */

static json_t *args_of(const char *text)
{
	struct err e;
	json_t *v = jsonio_parse(text, strlen(text), "args", &e);

	cr_assert_not_null(v, "%s", e.msg);
	return v;
}

static struct mail_message build(const char *from, const char *args_json)
{
	struct mail_message m;
	struct err e;
	json_t *args = args_of(args_json);

	cr_assert_eq(mail_build(from, "20260809T020312-0badcafe", args, T0, &m, &e), 0, "%s",
		     e.msg);
	json_decref(args);
	return m;
}

static const char *body_of(const struct mail_message *m)
{
	const char *b = strstr(m->text, "\r\n\r\n");

	cr_assert_not_null(b);
	return b + 4;
}

/* Every line ends in CRLF and none is longer than 78 characters. */
static void assert_wire_clean(const struct mail_message *m)
{
	const char *p = m->text, *end = m->text + m->len;

	cr_assert_eq(strlen(m->text), m->len, "a NUL inside the message");
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		cr_assert_not_null(nl, "the message does not end with a line break");
		cr_assert(nl > p && nl[-1] == '\r', "a bare LF at offset %td", nl - m->text);
		cr_assert_leq(nl - 1 - p, 78, "a line of %td characters", nl - 1 - p);
		cr_assert_null(memchr(p, '\r', (size_t)(nl - 1 - p)), "a bare CR");
		p = nl + 1;
	}
}

Test(mail, a_plain_draft_becomes_exactly_these_headers)
{
	struct mail_message m = build("Me Myself <me@example.org>",
				      "{\"to\":\"Ada <ada@example.org>\",\"cc\":[\"b@example.net\"],"
				      "\"subject\":\"Re: your request\",\"body_text\":\"Hi.\\n\"}");

	cr_assert_str_eq(m.text, "From: Me Myself <me@example.org>\r\n"
				 "To: Ada <ada@example.org>\r\n"
				 "Cc: b@example.net\r\n"
				 "Subject: Re: your request\r\n"
				 "Date: Sun, 09 Aug 2026 02:03:12 +0000\r\n"
				 "Message-ID: <20260809T020312-0badcafe@mecha>\r\n"
				 "MIME-Version: 1.0\r\n"
				 "Content-Type: text/plain; charset=UTF-8\r\n"
				 "Content-Transfer-Encoding: quoted-printable\r\n"
				 "\r\n"
				 "Hi.\r\n");
	cr_assert_str_eq(m.from, "me@example.org");
	cr_assert_eq(m.nrcpt, 2);
	cr_assert_str_eq(m.rcpt[0], "ada@example.org");
	cr_assert_str_eq(m.rcpt[1], "b@example.net");
	mail_message_free(&m);
}

Test(mail, the_body_is_chosen_in_the_documented_order)
{
	struct mail_message m = build("me@example.org", "{\"to\":\"a@b.org\",\"text\":\"4\","
							"\"body\":\"3\",\"body_text\":\"2\"}");

	cr_assert_str_eq(body_of(&m), "2\r\n");
	mail_message_free(&m);
	m = build("me@example.org", "{\"to\":\"a@b.org\",\"body_markdown\":\"*1*\",\"body\":\"3\"}");
	cr_assert_str_eq(body_of(&m), "*1*\r\n");
	mail_message_free(&m);
}

Test(mail, a_line_of_one_dot_or_a_from_line_cannot_end_or_split_the_message)
{
	struct mail_message m = build("me@example.org",
				      "{\"to\":\"a@b.org\",\"body\":\".\\n..x\\nFrom me\\nFromage\\n\"}");

	cr_assert_str_eq(body_of(&m), "=2E\r\n=2E.x\r\n=46rom me\r\nFromage\r\n");
	assert_wire_clean(&m);
	mail_message_free(&m);
}

Test(mail, long_lines_break_softly_and_trailing_blanks_and_8bit_are_encoded)
{
	struct buf body = BUF_INIT;
	struct mail_message m;
	char *args;

	for (int i = 0; i < 30; i++)
		buf_adds(&body, "caf\xc3\xa9 = ");
	buf_adds(&body, "end \\tx\\t\\r\\nnext ");
	args = xasprintf("{\"to\":\"a@b.org\",\"body\":\"%s\"}", buf_str(&body));
	m = build("me@example.org", args);
	assert_wire_clean(&m);
	cr_assert(strstr(body_of(&m), "caf=C3=A9 =3D ") != NULL, "%s", body_of(&m));
	cr_assert(strstr(body_of(&m), "=\r\n") != NULL, "no soft line break");
	cr_assert(strstr(body_of(&m), "x=09\r\nnext=20\r\n") != NULL, "%s", body_of(&m));
	free(args);
	buf_free(&body);
	mail_message_free(&m);
}

Test(mail, a_lone_carriage_return_or_nul_in_the_body_is_encoded)
{
	struct mail_message m = build("me@example.org",
				      "{\"to\":\"a@b.org\",\"body\":\"a\\rb\\u0000c\"}");

	cr_assert_str_eq(body_of(&m), "a=0Db=00c\r\n");
	mail_message_free(&m);
}

Test(mail, non_ascii_headers_become_encoded_words_on_short_lines)
{
	struct mail_message m = build("J\xc3\xb6rg <j@example.org>",
				      "{\"to\":\"\\\"Lovelace, Ada\\\" <ada@example.org>\","
				      "\"subject\":\"\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
				      "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
				      "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
				      "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9 \xe2\x82\xac\"}");

	assert_wire_clean(&m);
	cr_assert(strstr(m.text, "From: =?UTF-8?B?SsO2cmc=?= <j@example.org>\r\n") != NULL, "%s",
		  m.text);
	cr_assert(strstr(m.text, "To: \"Lovelace, Ada\" <ada@example.org>\r\n") != NULL);
	cr_assert(strstr(m.text, "Subject: =?UTF-8?B?") != NULL);
	cr_assert(strstr(m.text, "?=\r\n =?UTF-8?B?") != NULL, "a long subject is not folded");
	mail_message_free(&m);
}

Test(mail, an_ascii_subject_that_looks_encoded_or_holds_a_newline_is_encoded)
{
	struct mail_message m = build("me@example.org",
				      "{\"to\":\"a@b.org\",\"subject\":\"x\\r\\nBcc: evil@x.org\"}");

	assert_wire_clean(&m);
	cr_assert_null(strstr(m.text, "\r\nBcc:"));
	cr_assert(strstr(m.text, "Subject: =?UTF-8?B?eA0KQmNjOiBldmlsQHgub3Jn?=\r\n"), "%s",
		  m.text);
	mail_message_free(&m);
	m = build("me@example.org", "{\"to\":\"a@b.org\",\"subject\":\"=?UTF-8?B?QQ==?=\"}");
	cr_assert_null(strstr(m.text, "Subject: =?UTF-8?B?QQ==?=\r\n"));
	mail_message_free(&m);
}

Test(mail, many_recipients_fold_between_addresses)
{
	struct buf b = BUF_INIT;
	struct mail_message m;

	buf_adds(&b, "{\"to\":[");
	for (int i = 0; i < 12; i++)
		buf_printf(&b, "%s\"person%02d@example.org\"", i ? "," : "", i);
	buf_adds(&b, "]}");
	m = build("me@example.org", buf_str(&b));
	assert_wire_clean(&m);
	cr_assert(strstr(m.text, ",\r\n person") != NULL);
	cr_assert_eq(m.nrcpt, 12);
	mail_message_free(&m);
	buf_free(&b);
}

static void refused_args(const char *args_json, const char *want)
{
	json_t *args = args_of(args_json);
	struct err e;

	cr_assert_eq(mail_check_args(args, &e), -1, "accepted %s", args_json);
	cr_assert_eq(e.code, ERR_BAD_ARGS);
	cr_assert(strstr(e.msg, want) != NULL, "wanted '%s' in '%s'", want, e.msg);
	json_decref(args);
}

Test(mail, addresses_that_could_inject_or_mislead_are_refused)
{
	refused_args("{\"subject\":\"x\"}", "no 'to' address");
	refused_args("{\"to\":[]}", "no 'to' address");
	refused_args("{\"to\":42}", "an address or a list");
	refused_args("{\"to\":[\"a@b.org\", 7]}", "only addresses");
	refused_args("{\"to\":\"a@b.org\\r\\nBcc: x@y.org\"}", "not an e-mail address");
	refused_args("{\"to\":\"a@b.org, c@d.org\"}", "not an e-mail address");
	refused_args("{\"to\":\"-oQ/tmp/x@example.org\"}", "not an e-mail address");
	refused_args("{\"to\":\"Evil\\u0007 <a@b.org>\"}", "not an e-mail address");
	refused_args("{\"to\":\"a@b.org\\u0000x\"}", "not an e-mail address");
	refused_args("{\"to\":\"<a@b.org\"}", "not an e-mail address");
	refused_args("{\"to\":\"a@b.org\",\"cc\":\"nobody\"}", "cc: 'nobody'");
	refused_args("{\"to\":\"a@b.org\",\"subject\":[1]}", "'subject' must be a string");
	refused_args("[1]", "must be a JSON object");
}

Test(mail, an_empty_sender_is_no_route)
{
	struct mail_message m;
	struct err e;
	json_t *args = args_of("{\"to\":\"a@b.org\"}");

	cr_assert_eq(mail_build(NULL, "x", args, T0, &m, &e), -1);
	cr_assert_eq(e.code, ERR_NO_ROUTE);
	cr_assert_eq(mail_build("not a sender", "x", args, T0, &m, &e), -1);
	cr_assert(strstr(e.msg, "[mail] from") != NULL, "%s", e.msg);
	json_decref(args);
}

Test(mail, a_huge_display_name_still_makes_short_lines)
{
	struct buf name = BUF_INIT;
	struct mail_message m;
	char *args;

	for (int i = 0; i < 300; i++)
		buf_adds(&name, "Content-Type: x ");
	args = xasprintf("{\"to\":\"%s <a@b.org>\"}", buf_str(&name));
	m = build("me@example.org", args);
	assert_wire_clean(&m);
	cr_assert_null(strstr(m.text, "\r\nContent-Type: x"));
	free(args);
	buf_free(&name);
	mail_message_free(&m);
}

Test(mail, an_id_that_could_break_the_message_id_is_refused)
{
	struct mail_message m;
	struct err e;
	json_t *args = args_of("{\"to\":\"a@b.org\"}");

	cr_assert_eq(mail_build("me@example.org", "x>\r\nBcc: y", args, T0, &m, &e), -1);
	cr_assert_eq(e.code, ERR_BAD_ARGS);
	json_decref(args);
}
