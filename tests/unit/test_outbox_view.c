/*
 * What a person reads to decide on a draft, as data: every argument in one
 * place, and the edit as a line diff — the pieces any front end draws.
 */
#include <criterion/criterion.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/jsonio.h"
#include "base/linediff.h"
#include "outbox/item.h"
#include "outbox/view.h"

#include <string.h>

static json_t *parse(const char *text)
{
	struct err e;
	json_t *v = jsonio_parse(text, strlen(text), "test", &e);

	cr_assert_not_null(v, "%s", e.msg);
	return v;
}

/* A draft of args_text, then edited to edited_text (NULL: not edited). */
static void draft(struct outbox_item *it, const char *args_text, const char *edited_text)
{
	json_t *args = parse(args_text);
	struct outbox_draft d = { "mail_send", NULL, args, NULL, NULL, 0, 0 };
	struct err e;

	cr_assert_eq(outbox_item_new(it, &d, &e), 0, "%s", e.msg);
	json_decref(args);
	if (edited_text) {
		args = parse(edited_text);
		outbox_item_set_args(it, args);
		json_decref(args);
	}
}

/* The diff as "key sign text" lines, one per line (a new string). */
static char *diff_text(const struct outbox_item *it)
{
	struct outbox_diff d;
	struct buf b = BUF_INIT;

	outbox_diff_make(it, &d);
	for (size_t i = 0; i < d.n; i++)
		buf_printf(&b, "%s %c %.*s\n", d.lines[i].key, d.lines[i].sign, (int)d.lines[i].len,
			   d.lines[i].text);
	outbox_diff_free(&d);
	return b.data ? buf_steal(&b) : xstrdup("");
}

/* ---- linediff ------------------------------------------------------------------ */

static char *ld(const char *a, const char *b)
{
	struct linediff d;
	struct buf out = BUF_INIT;

	linediff_compute(a, strlen(a), b, strlen(b), &d);
	for (size_t i = 0; i < d.n; i++)
		buf_printf(&out, "%c%.*s|", d.lines[i].sign, (int)d.lines[i].len, d.lines[i].text);
	linediff_free(&d);
	return out.data ? buf_steal(&out) : xstrdup("");
}

Test(linediff, a_changed_line_reads_as_removed_then_added_between_kept_lines)
{
	char *got = ld("a\nb\nc\n", "a\nB\nc\n");

	/* Where either could come first, what goes comes before what replaces it, as in diff -u. */
	cr_assert_str_eq(got, " a|-b|+B| c|");
	free(got);
}

Test(linediff, added_and_removed_lines_keep_the_longest_common_run)
{
	char *got = ld("one\ntwo\nthree\nfour", "zero\none\nthree\nfour\nfive");

	cr_assert_str_eq(got, "+zero| one|-two| three| four|+five|");
	free(got);
}

Test(linediff, a_final_newline_opens_no_line_but_an_empty_text_is_one_line)
{
	char *same = ld("x\n", "x"), *from_empty = ld("", "x");

	cr_assert_str_eq(same, " x|");
	cr_assert_str_eq(from_empty, "-|+x|");
	free(same);
	free(from_empty);
}

Test(linediff, texts_too_long_to_align_are_shown_whole_on_both_sides)
{
	struct buf a = BUF_INIT, b = BUF_INIT;
	struct linediff d;

	for (int i = 0; i < 2001; i++) {
		buf_printf(&a, "same %d\n", i);
		buf_printf(&b, "same %d\n", i);
	}
	linediff_compute(a.data, a.len, b.data, b.len, &d);
	cr_assert_eq(d.n, 4002, "nothing is aligned past LINEDIFF_MAX_CELLS");
	cr_assert_eq(d.lines[0].sign, LINEDIFF_DEL);
	cr_assert_eq(d.lines[2001].sign, LINEDIFF_ADD);
	linediff_free(&d);
	buf_free(&a);
	buf_free(&b);
}

/* ---- the view ------------------------------------------------------------------ */

Test(view, every_argument_is_a_header_the_body_or_one_of_the_others)
{
	struct outbox_item it;
	struct outbox_view v;

	draft(&it, "{\"in_reply_to\":\"<x@y>\",\"to\":\"ada@example.org\",\"subject\":\"hi\","
		   "\"body_text\":\"hello\",\"attach\":[\"a.pdf\"],\"cc\":null}", NULL);
	outbox_view_make(&it, &v);
	cr_assert(v.object);
	cr_assert_str_eq(json_string_value(v.to), "ada@example.org");
	cr_assert(json_is_null(v.cc), "a null cc is there, as stored");
	cr_assert_str_eq(json_string_value(v.subject), "hi");
	cr_assert_str_eq(v.body_key, "body_text");
	cr_assert_str_eq(json_string_value(v.body), "hello");
	cr_assert_eq(v.nothers, 2);
	cr_assert_str_eq(v.others[0], "in_reply_to", "in the document's order");
	cr_assert_str_eq(v.others[1], "attach");
	outbox_view_free(&v);
	outbox_item_free(&it);
}

Test(view, a_body_under_another_key_is_the_body_and_not_an_other)
{
	struct outbox_item it;
	struct outbox_view v;

	draft(&it, "{\"to\":\"ada@example.org\",\"body_markdown\":\"**hi**\",\"text\":\"x\"}", NULL);
	outbox_view_make(&it, &v);
	cr_assert_str_eq(v.body_key, "body_markdown");
	cr_assert_null(v.subject);
	cr_assert_eq(v.nothers, 1);
	cr_assert_str_eq(v.others[0], "text");
	outbox_view_free(&v);
	outbox_item_free(&it);
}

/* ---- the diff ------------------------------------------------------------------ */

Test(diff, an_unedited_draft_has_no_diff)
{
	struct outbox_item it;
	char *got;

	draft(&it, "{\"to\":\"ada@example.org\",\"body_text\":\"a\\nb\\n\"}", NULL);
	got = diff_text(&it);
	cr_assert_str_eq(got, "");
	free(got);
	outbox_item_free(&it);
}

Test(diff, an_edited_body_is_diffed_by_its_lines_under_its_key)
{
	struct outbox_item it;
	char *got;

	draft(&it, "{\"to\":\"ada@example.org\",\"subject\":\"s\",\"body_text\":\"Dear Ada,\\nTuesday\\n\"}",
	      "{\"to\":\"ada@example.org\",\"subject\":\"t\",\"body_text\":\"Dear Ada,\\nFriday\\n\"}");
	got = diff_text(&it);
	cr_assert_str_eq(got, "subject - s\n"
			      "subject + t\n"
			      "body_text   Dear Ada,\n"
			      "body_text - Tuesday\n"
			      "body_text + Friday\n");
	free(got);
	outbox_item_free(&it);
}

Test(diff, added_removed_and_non_string_values_are_diffed_as_json)
{
	struct outbox_item it;
	char *got;

	draft(&it, "{\"to\":\"ada@example.org\",\"cc\":[\"b@x.org\"],\"note\":\"n\"}",
	      "{\"to\":\"ada@example.org\",\"cc\":[\"c@x.org\"],\"bcc\":\"d@x.org\"}");
	got = diff_text(&it);
	cr_assert_str_eq(got, "cc   [\n"
			      "cc -   \"b@x.org\"\n"
			      "cc +   \"c@x.org\"\n"
			      "cc   ]\n"
			      "note - \"n\"\n"
			      "note + (absent)\n"
			      "bcc - (absent)\n"
			      "bcc + \"d@x.org\"\n");
	free(got);
	outbox_item_free(&it);
}
