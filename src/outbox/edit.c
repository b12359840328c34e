/*
 * edit — the text a draft is edited as, the way back from it, and the save
 * that checks under the lock what the person could not see while editing.
 */
#include "outbox/edit.h"

#include "base/buf.h"
#include "base/err.h"
#include "base/fs.h"
#include "base/jsonio.h"
#include "base/text.h"
#include "base/verdict.h"
#include "outbox/item.h"
#include "outbox/sink.h"
#include "outbox/store.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- the text ------------------------------------------------------------------ */

static char *flat_subject(const json_t *subject)
{
	char *s = xstrdup(json_is_string(subject) ? json_string_value(subject) : "");

	for (char *p = s; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	return s;
}

static void mail_text(const struct outbox_item *it, struct outbox_edit *ed, struct buf *b)
{
	const json_t *body = ed->body_key ? json_object_get(it->args, ed->body_key) : NULL;
	char *subject = flat_subject(json_object_get(it->args, "subject"));
	const char *text = body ? json_string_value(body) : "";
	size_t n = body ? json_string_length(body) : 0;

	ed->subject_line = xasprintf("Subject: %s", subject);
	free(subject);
	ed->body_had_newline = n > 0 && text[n - 1] == '\n';
	buf_printf(b, "%s\n\n", ed->subject_line);
	buf_add(b, text, n);
	if (!ed->body_had_newline)
		buf_addc(b, '\n'); /* editors want a final newline; apply takes it off again */
}

void outbox_edit_prepare(const struct outbox_item *it, struct outbox_edit *ed)
{
	const char *body_key = outbox_item_body_key(it->args);
	struct buf b = BUF_INIT;

	memset(ed, 0, sizeof *ed);
	ed->id = xstrdup(it->id);
	ed->tool = xstrdup(it->tool);
	ed->body_key = body_key ? xstrdup(body_key) : NULL;
	ed->was = json_deep_copy(it->args);
	ed->mail = json_is_object(it->args) &&
		   (body_key || json_object_get(it->args, "subject") || strstr(it->tool, "mail"));
	if (ed->mail) {
		mail_text(it, ed, &b);
	} else {
		char *s = jsonio_pretty(it->args);
		buf_printf(&b, "%s\n", s);
		free(s);
	}
	ed->len = b.len;
	ed->text = buf_steal(&b);
}

/* The subject line of an edited mail text, unless it reads as it was written. */
static void apply_subject(const struct outbox_edit *ed, json_t *args, const char *text,
			  size_t line)
{
	const char *v = text + 8 + (line > 8 && text[8] == ' ');

	if (line == strlen(ed->subject_line) && memcmp(text, ed->subject_line, line) == 0)
		return; /* untouched: a subject flattened for the editor stays as it was */
	json_object_set_new(args, "subject", json_stringn(v, (size_t)(text + line - v)));
}

json_t *outbox_edit_apply(const struct outbox_edit *ed, const char *text, size_t len,
			  struct err *e)
{
	json_t *args;
	const char *nl;

	if (!ed->mail)
		return jsonio_parse(text, len, "the edited draft", e);
	/* jansson holds only UTF-8: other bytes would drop the body and still say "saved". */
	if (!text_utf8_valid(text, len)) {
		err_set(e, ERR_PARSE, "the edited draft is not UTF-8 text (was it saved in another "
			"encoding?)");
		return NULL;
	}
	args = json_deep_copy(ed->was);
	nl = memchr(text, '\n', len);
	if (len >= 8 && strncmp(text, "Subject:", 8) == 0) {
		size_t line = nl ? (size_t)(nl - text) : len;
		apply_subject(ed, args, text, line);
		len -= nl ? line + 1 : len;
		text = nl ? nl + 1 : text + line;
		if (len > 0 && text[0] == '\n')
			text++, len--;
	}
	if (!ed->body_had_newline && len > 0 && text[len - 1] == '\n')
		len--;
	json_object_set_new(args, ed->body_key ? ed->body_key : "body_text",
			    json_stringn(text, len));
	return args;
}

/* ---- the file ------------------------------------------------------------------ */

static int write_temp(const char *dir, struct outbox_edit *ed, struct err *e)
{
	/* Inside the 0700 outbox: the draft never sits in a shared /tmp. */
	char *p = xasprintf("%s/.edit-%s-XXXXXX%s", dir, ed->id, ed->mail ? ".eml" : ".json");
	int fd = mkostemps(p, ed->mail ? 4 : 5, O_CLOEXEC);

	if (fd < 0) {
		err_errno(e, "creating a file to edit in %s", dir);
		free(p);
		return -1;
	}
	if (fs_write_all(fd, ed->text, ed->len) != 0 || close(fd) != 0) {
		err_errno(e, "writing %s", p);
		unlink(p);
		free(p);
		return -1;
	}
	ed->path = p;
	return 0;
}

static int refuse_unless_editable(const struct outbox_item *it, struct err *e)
{
	if (it->sending_since)
		return err_set(e, ERR_IN_FLIGHT, "%s is in flight; it can no longer be edited",
			       it->id);
	if (!outbox_item_pending(it))
		return err_set(e, ERR_NOT_PENDING, "%s is %s; only a pending draft can be edited",
			       it->id, it->status);
	return 0;
}

int outbox_edit_begin(struct outbox_store *s, const char *id, struct outbox_edit *ed,
		      struct err *e)
{
	struct outbox_item it;
	int rc;

	memset(ed, 0, sizeof *ed);
	if (outbox_store_read(s, id, &it, e) != 0)
		return -1;
	rc = refuse_unless_editable(&it, e);
	if (rc == 0) {
		outbox_edit_prepare(&it, ed);
		rc = write_temp(s->dir, ed, e);
	}
	outbox_item_free(&it);
	if (rc != 0)
		outbox_edit_end(ed);
	return rc;
}

void outbox_edit_end(struct outbox_edit *ed)
{
	if (ed->path && !ed->kept)
		unlink(ed->path);
	free(ed->id);
	free(ed->path);
	free(ed->text);
	free(ed->tool);
	free(ed->body_key);
	free(ed->subject_line);
	json_decref(ed->was);
	memset(ed, 0, sizeof *ed);
}

/* ---- the save ------------------------------------------------------------------ */

struct save {
	const struct outbox_edit *ed;
	const json_t *now; /* the args the person ended with */
};

/* Under the lock, on the draft as it is now. */
static int save_edit(struct outbox_item *it, void *ctx, struct err *e)
{
	struct save *s = ctx;
	const char *kept = s->ed->path;

	if (!outbox_item_pending(it))
		return err_set(e, ERR_NOT_PENDING, "%s was resolved (%s) while you were editing; "
			       "your text is kept in %s", it->id, it->status, kept);
	if (it->sending_since)
		return err_set(e, ERR_IN_FLIGHT, "%s went in flight while you were editing; your "
			       "text is kept in %s", it->id, kept);
	if (!json_equal(it->args, s->ed->was))
		return err_set(e, ERR_CHANGED, "%s was changed by someone else while you were "
			       "editing; your text is kept in %s", it->id, kept);
	outbox_item_set_args(it, s->now);
	return VERDICT_WRITE;
}

/*
 * The staging check, on the edited args. A tool no sink knows (a draft the
 * Rust tool staged) can never be released here, so its edit harms nothing and
 * is not refused; everything else must be sendable as edited.
 */
static int check_sendable(const struct outbox_edit *ed, const json_t *now, struct err *e)
{
	if (sink_check(ed->tool, now, e) == 0 || e->code == ERR_UNKNOWN_TOOL) {
		err_clear(e);
		return 0;
	}
	err_prefix(e, "%s cannot be sent as edited, so your text is kept in %s", ed->id,
		   ed->path);
	return -1;
}

/* Marks the text kept; the message names the file unless it does already. */
static int keep_text(struct outbox_edit *ed, int named, struct err *e)
{
	ed->kept = 1;
	if (!named)
		err_prefix(e, "your text is kept in %s", ed->path);
	return -1;
}

static int save_text(struct outbox_store *s, struct outbox_edit *ed, const char *text,
		     size_t len, struct err *e)
{
	struct save sv = { ed, NULL };
	json_t *now = outbox_edit_apply(ed, text, len, e);
	int rc;

	if (!now)
		return keep_text(ed, 0, e);
	if (check_sendable(ed, now, e) != 0) {
		json_decref(now);
		return keep_text(ed, 1, e);
	}
	sv.now = now;
	rc = outbox_store_update(s, ed->id, save_edit, &sv, e);
	json_decref(now);
	if (rc < 0)
		return keep_text(ed, err_is_refusal(e), e);
	return OUTBOX_EDIT_SAVED;
}

int outbox_edit_finish(struct outbox_store *s, struct outbox_edit *ed, struct err *e)
{
	char *text;
	size_t len;
	int rc;

	if (fs_read(ed->path, &text, &len, e) != 0)
		return -1;
	if (len == ed->len && memcmp(text, ed->text, len) == 0)
		rc = OUTBOX_EDIT_UNCHANGED;
	else
		rc = save_text(s, ed, text, len, e);
	free(text);
	return rc;
}

int outbox_edit_submit(struct outbox_store *s, struct outbox_edit *ed, const char *text,
		       size_t len, struct err *e)
{
	if (fs_replace(ed->path, text, len, e) != 0)
		return -1;
	return outbox_edit_finish(s, ed, e);
}
