/*
 * fuzz_outbox_edit — the text a person's editor (or a paste, or a text box)
 * hands back for a draft is any bytes at all. outbox_edit_apply reads it back
 * into the draft's arguments. The first byte picks one of four drafts (two
 * mails, an invite edited as a mail, a draft edited as JSON); the rest is the
 * edited text. Whatever it is:
 *
 *   - nothing crashes, leaks or reads past the text;
 *   - the answer is new arguments or a "parse" error, never a silent no-op:
 *     a mail text that is not UTF-8 is refused, not dropped (jansson cannot
 *     hold it, and the person's words would vanish while the save said
 *     "saved");
 *   - a mail edit keeps every key the draft had, and holds its body (and a
 *     touched subject) as strings;
 *   - the edit is stable: the arguments it gives, edited again without a
 *     change, give the same arguments back.
 */
#include "base/err.h"
#include "base/jsonio.h"
#include "base/text.h"
#include "outbox/edit.h"
#include "outbox/item.h"

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define ITEM(tool, kind, args)                                                                  \
	"{\"id\":\"20260806T020312-3f2a9c1b\",\"status\":\"pending\",\"tool\":\"" tool              \
	"\",\"kind\":\"" kind "\",\"args\":" args ",\"created_at\":\"2026-08-06T02:03:12Z\"}"

static const char *const drafts[] = {
	ITEM("mail_send", "message",
	     "{\"to\":[\"Ada <ada@example.org>\"],\"subject\":\"Caf\\u00e9 \\u2014 ok?\","
	     "\"body_text\":\"Hi.\\n.\\nFrom me\\n\",\"x-kept\":{\"deep\":[1,2.5,null]}}"),
	ITEM("mail_send", "message",
	     "{\"to\":\"ada@example.org\",\"subject\":\"two\\r\\nlines\",\"body_markdown\":\"x\"}"),
	ITEM("calendar_invite", "message",
	     "{\"to\":\"ada@example.org\",\"subject\":\"Coffee\",\"title\":\"Coffee\","
	     "\"start\":\"2026-10-24T09:00:00Z\",\"end\":\"2026-10-24T10:00:00Z\"}"),
	ITEM("calendar_invite", "publish", "{\"title\":\"launch\"}"),
};

static void item_of(const char *text, struct outbox_item *it)
{
	struct err e;

	if (outbox_item_parse(it, text, strlen(text), "fuzz.json", &e) != 0)
		__builtin_trap(); /* our own drafts always read */
}

/* Every key the draft had is still there; the body (and subject) are strings. */
static void check_mail(const struct outbox_edit *ed, const json_t *args)
{
	const char *k;
	json_t *v;

	if (!json_is_object(args))
		__builtin_trap();
	json_object_foreach((json_t *)ed->was, k, v)
		if (!json_object_get(args, k))
			__builtin_trap();
	if (!json_is_string(json_object_get(args, ed->body_key ? ed->body_key : "body_text")))
		__builtin_trap();
	if (json_object_get(args, "subject") && !json_is_string(json_object_get(args, "subject")))
		__builtin_trap();
}

/* The draft with args, edited without a change, reads back as args. */
static void check_stable(const struct outbox_item *base, const json_t *args)
{
	json_t *doc = json_deep_copy(base->doc), *again;
	struct outbox_item it;
	struct outbox_edit ed;
	struct err e;

	json_object_set(doc, "args", (json_t *)args);
	if (outbox_item_adopt(&it, doc, &e) != 0)
		return; /* a JSON edit may give args no draft holds (the save refuses it) */
	outbox_edit_prepare(&it, &ed);
	again = outbox_edit_apply(&ed, ed.text, ed.len, &e);
	if (!again || !json_equal(again, args))
		__builtin_trap();
	json_decref(again);
	outbox_edit_end(&ed);
	outbox_item_free(&it);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *draft, *text = (const char *)data + 1;
	struct outbox_item it;
	struct outbox_edit ed;
	struct err e;
	json_t *args;

	if (size == 0)
		return 0;
	draft = drafts[data[0] % (sizeof drafts / sizeof drafts[0])];
	size--;
	item_of(draft, &it);
	outbox_edit_prepare(&it, &ed);
	err_clear(&e);
	args = outbox_edit_apply(&ed, text, size, &e);
	if (!args && e.code != ERR_PARSE)
		__builtin_trap();
	if (ed.mail && !args && text_utf8_valid(text, size))
		__builtin_trap(); /* a mail text is refused only when it is not UTF-8 */
	if (ed.mail && args)
		check_mail(&ed, args);
	if (args)
		check_stable(&it, args);
	json_decref(args);
	outbox_edit_end(&ed);
	outbox_item_free(&it);
	return 0;
}
