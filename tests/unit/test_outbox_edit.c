/*
 * Editing a draft: the text a person edits, the way back to arguments, and
 * the save under the lock that refuses — keeping the person's text — when the
 * draft moved on meanwhile or the edit made it unsendable.
 */
#include "outbox_fixture.h"

#include "base/editor.h"
#include "outbox/edit.h"

#include <unistd.h>

static struct fixture f;

static void setup(void)
{
	fixture_setup(&f);
}

static void teardown(void)
{
	fixture_teardown(&f);
}

TestSuite(edit, .init = setup, .fini = teardown);

static void begin(const char *id, struct outbox_edit *ed)
{
	struct err e;

	cr_assert_eq(outbox_edit_begin(&f.s, id, ed, &e), 0, "%s", e.msg);
}

static char *file_text(const char *path)
{
	char *text;
	size_t len;
	struct err e;

	cr_assert_eq(fs_read(path, &text, &len, &e), 0, "%s", e.msg);
	return text;
}

static const char *arg(const struct outbox_item *it, const char *key)
{
	return json_string_value(json_object_get(it->args, key));
}

/* Submits text; returns the result and leaves the error in *e. */
static int submit(struct outbox_edit *ed, const char *text, struct err *e)
{
	err_clear(e);
	return outbox_edit_submit(&f.s, ed, text, strlen(text), e);
}

Test(edit, a_mail_draft_is_edited_as_a_subject_line_a_blank_line_and_the_body)
{
	char *id = fixture_stage(&f, "mail_send", NULL, MAIL_ARGS, 0);
	struct outbox_edit ed;
	struct stat st;
	char *text, *dir;

	begin(id, &ed);
	cr_assert(ed.mail);
	cr_assert_str_eq(ed.text, "Subject: Re: hi\n\nDear Ada,\n\nTuesday at ten works.\n");
	text = file_text(ed.path);
	cr_assert_str_eq(text, ed.text);
	cr_assert_eq(stat(ed.path, &st), 0);
	cr_assert_eq(st.st_mode & 0777, 0600);
	dir = fs_dirname(ed.path);
	cr_assert_str_eq(dir, f.dir, "the text is written inside the private outbox");
	outbox_edit_end(&ed);
	free(dir);
	free(text);
	free(id);
}

Test(edit, an_edited_mail_text_becomes_the_subject_and_body_and_the_draft_keeps_its_original)
{
	char *id = fixture_stage(&f, "mail_send", NULL, MAIL_ARGS, 0);
	struct outbox_edit ed;
	struct outbox_item it;
	struct err e;
	char *path;

	begin(id, &ed);
	cr_assert_eq(submit(&ed, "Subject: Tuesday\n\nDear Ada,\n\nWednesday at two works.\n", &e),
		     OUTBOX_EDIT_SAVED, "%s", e.msg);
	path = xstrdup(ed.path);
	outbox_edit_end(&ed);
	cr_assert_neq(access(path, F_OK), 0, "a saved edit leaves no file behind");
	it = fixture_item(&f, id);
	cr_assert_str_eq(arg(&it, "subject"), "Tuesday");
	cr_assert_str_eq(arg(&it, "body_text"), "Dear Ada,\n\nWednesday at two works.\n");
	cr_assert_str_eq(json_string_value(json_object_get(it.args_before, "subject")), "Re: hi");
	cr_assert_str_eq(arg(&it, "to"), "Ada <ada@example.org>", "what the text does not hold stays");
	outbox_item_free(&it);
	free(path);
	free(id);
}

Test(edit, a_body_without_a_final_newline_gets_none_back)
{
	char *id = fixture_stage(&f, "mail_send", NULL,
				 "{\"to\":\"ada@example.org\",\"subject\":\"s\",\"body_text\":\"x\"}", 0);
	struct outbox_edit ed;
	struct outbox_item it;
	struct err e;

	begin(id, &ed);
	cr_assert_str_eq(ed.text, "Subject: s\n\nx\n");
	cr_assert_eq(submit(&ed, "Subject: s\n\ny\n", &e), OUTBOX_EDIT_SAVED, "%s", e.msg);
	outbox_edit_end(&ed);
	it = fixture_item(&f, id);
	cr_assert_str_eq(arg(&it, "body_text"), "y");
	cr_assert_str_eq(arg(&it, "subject"), "s");
	outbox_item_free(&it);
	free(id);
}

Test(edit, a_draft_of_another_tool_is_edited_as_its_json_arguments)
{
	char *id = fixture_stage(&f, "calendar_invite", "publish", "{\"title\":\"launch\"}", 0);
	struct outbox_edit ed;
	struct outbox_item it;
	struct err e;

	begin(id, &ed);
	cr_assert_not(ed.mail);
	cr_assert_str_eq(ed.text, "{\n  \"title\": \"launch\"\n}\n");
	cr_assert_eq(submit(&ed, "{\"title\": \"launch party\", \"where\": \"roof\"}", &e),
		     OUTBOX_EDIT_SAVED, "%s", e.msg);
	outbox_edit_end(&ed);
	it = fixture_item(&f, id);
	cr_assert_str_eq(arg(&it, "title"), "launch party");
	cr_assert_str_eq(arg(&it, "where"), "roof");
	outbox_item_free(&it);
	free(id);
}

Test(edit, a_text_that_comes_back_unchanged_saves_nothing)
{
	char *id = fixture_stage(&f, "mail_send", NULL, MAIL_ARGS, 0);
	char *file = xasprintf("%s/%s.json", f.dir, id);
	char *before = file_text(file), *after;
	struct outbox_edit ed;
	struct err e;

	begin(id, &ed);
	cr_assert_eq(outbox_edit_finish(&f.s, &ed, &e), OUTBOX_EDIT_UNCHANGED, "%s", e.msg);
	outbox_edit_end(&ed);
	after = file_text(file);
	cr_assert_str_eq(after, before);
	free(before), free(after), free(file), free(id);
}

/* The save is refused with code; the person's text stays in its file after end. */
static void assert_refused_and_kept(struct outbox_edit *ed, const char *text, enum err_code code)
{
	struct err e;
	char *path, *kept;

	cr_assert_eq(submit(ed, text, &e), -1);
	cr_assert_eq(e.code, code, "%s: %s", err_code_name(e.code), e.msg);
	cr_assert(ed->kept);
	cr_assert_not_null(strstr(e.msg, ed->path), "the message says where: %s", e.msg);
	path = xstrdup(ed->path);
	outbox_edit_end(ed);
	kept = file_text(path);
	cr_assert_str_eq(kept, text);
	free(kept);
	free(path);
}

Test(edit, a_save_is_refused_and_the_text_kept_when_someone_else_changed_the_draft)
{
	char *id = fixture_stage(&f, "mail_send", NULL, MAIL_ARGS, 0);
	struct outbox_edit ed;
	struct outbox_item it;

	begin(id, &ed);
	fixture_set(&f, id, "args", "{\"to\":\"ada@example.org\",\"body_text\":\"theirs\"}");
	assert_refused_and_kept(&ed, "Subject: mine\n\nmine\n", ERR_CHANGED);
	it = fixture_item(&f, id);
	cr_assert_str_eq(arg(&it, "body_text"), "theirs", "the other writer's change stands");
	outbox_item_free(&it);
	free(id);
}

Test(edit, a_save_is_refused_and_the_text_kept_when_the_draft_was_resolved)
{
	char *id = fixture_stage(&f, "mail_send", NULL, MAIL_ARGS, 0);
	struct outbox_edit ed;
	struct err e;

	begin(id, &ed);
	cr_assert_eq(outbox_store_resolve(&f.s, id, OUTBOX_REJECTED, "elsewhere", &e), 0, "%s",
		     e.msg);
	assert_refused_and_kept(&ed, "Subject: mine\n\nmine\n", ERR_NOT_PENDING);
	free(id);
}

Test(edit, a_save_is_refused_and_the_text_kept_when_the_draft_went_in_flight)
{
	char *id = fixture_stage(&f, "mail_send", NULL, MAIL_ARGS, 0);
	struct outbox_edit ed;

	begin(id, &ed);
	fixture_set(&f, id, "sending_since", "2026-08-06T02:03:12Z");
	assert_refused_and_kept(&ed, "Subject: mine\n\nmine\n", ERR_IN_FLIGHT);
	free(id);
}

Test(edit, an_edit_that_breaks_the_subject_over_two_lines_is_refused_and_kept)
{
	char *id = fixture_stage(&f, "mail_send", NULL, MAIL_ARGS, 0);
	char *file = xasprintf("%s/%s.json", f.dir, id);
	char *before = file_text(file), *after;
	struct outbox_edit ed;

	begin(id, &ed);
	assert_refused_and_kept(&ed, "Subject: Re: hi\rBcc: evil@example.net\n\nhello\n",
				ERR_BAD_ARGUMENTS);
	after = file_text(file);
	cr_assert_str_eq(after, before, "nothing was saved");
	free(before), free(after), free(file), free(id);
}

Test(edit, a_json_edit_the_sink_could_not_send_is_refused_and_kept)
{
	char *id = fixture_stage(&f, "calendar_invite", NULL, "{\"title\":\"launch\"}", 0);
	struct outbox_edit ed;

	begin(id, &ed);
	assert_refused_and_kept(&ed, "{\"title\": \"launch\", \"to\": \"not an address\"}\n",
				ERR_BAD_ARGUMENTS);
	free(id);
}

Test(edit, json_that_does_not_read_back_is_kept)
{
	char *id = fixture_stage(&f, "calendar_invite", NULL, "{\"title\":\"launch\"}", 0);
	struct outbox_edit ed;

	begin(id, &ed);
	assert_refused_and_kept(&ed, "{\"title\": ", ERR_PARSE);
	free(id);
}

Test(edit, a_mail_text_that_is_not_utf8_is_refused_and_kept_not_saved_without_the_body)
{
	char *id = fixture_stage(&f, "mail_send", NULL, MAIL_ARGS, 0);
	struct outbox_edit ed;
	struct outbox_item it;

	begin(id, &ed);
	/* "café" as Latin-1, as an editor set to another encoding saves it */
	assert_refused_and_kept(&ed, "Subject: Tuesday\n\nDear Ada, caf\xe9 at two?\n", ERR_PARSE);
	it = fixture_item(&f, id);
	cr_assert_str_eq(arg(&it, "subject"), "Re: hi", "nothing of the text was saved");
	outbox_item_free(&it);
	free(id);
}

Test(edit, only_a_pending_draft_not_in_flight_can_be_begun)
{
	char *sent = fixture_stage(&f, "mail_send", NULL, MAIL_ARGS, 0);
	char *flying = fixture_stage(&f, "mail_send", NULL, MAIL_ARGS, 0);
	struct outbox_edit ed;
	struct err e;

	cr_assert_eq(outbox_store_resolve(&f.s, sent, OUTBOX_SENT, NULL, &e), 0, "%s", e.msg);
	fixture_set(&f, flying, "sending_since", "2026-08-06T02:03:12Z");
	cr_assert_eq(outbox_edit_begin(&f.s, sent, &ed, &e), -1);
	cr_assert_eq(e.code, ERR_NOT_PENDING);
	cr_assert_null(ed.path);
	cr_assert_eq(outbox_edit_begin(&f.s, flying, &ed, &e), -1);
	cr_assert_eq(e.code, ERR_IN_FLIGHT);
	outbox_edit_end(&ed); /* harmless on what a failed begin left */
	free(sent), free(flying);
}

Test(edit, the_editor_is_a_shell_command_given_the_file_as_its_argument)
{
	char *id = fixture_stage(&f, "mail_send", NULL, MAIL_ARGS, 0);
	struct outbox_edit ed;
	struct outbox_item it;
	struct err e;

	setenv("VISUAL", "sed -i -e s/Tuesday/Friday/", 1); /* a command with arguments */
	setenv("EDITOR", "false", 1);
	begin(id, &ed);
	cr_assert_eq(editor_run(ed.path, &e), 0, "%s", e.msg);
	cr_assert_eq(outbox_edit_finish(&f.s, &ed, &e), OUTBOX_EDIT_SAVED, "%s", e.msg);
	outbox_edit_end(&ed);
	it = fixture_item(&f, id);
	cr_assert_str_eq(arg(&it, "body_text"), "Dear Ada,\n\nFriday at ten works.\n");
	outbox_item_free(&it);
	free(id);
}

Test(edit, a_failing_editor_is_an_editor_error)
{
	struct err e;

	setenv("VISUAL", "", 1);
	setenv("EDITOR", "exit 4;", 1);
	cr_assert_eq(editor_run("/nonexistent", &e), -1);
	cr_assert_eq(e.code, ERR_EDITOR, "%s", e.msg);
}
