/*
 * edit — a person changes a pending draft in their own words before it goes.
 *
 * A mail draft is edited as text a person reads: "Subject: …", a blank line
 * and the body; any other draft as its JSON arguments. The text is written
 * to a private file inside the 0700 outbox (never a shared /tmp), the front
 * end lets the person change it (their editor, or its own text box), and the
 * result is read back and saved.
 *
 * The rule: no lock is held while the person edits (an editor can stay open
 * for an hour), so the save re-reads the draft under the lock and writes only
 * if it is still pending, not in flight, and unchanged by anyone else since
 * the edit began; and only if the sink could still send it (the same check a
 * stage makes, sink.h: an edit cannot put a line break into a subject). A
 * save that is refused keeps the person's text in its file and says where:
 * nobody's writing is thrown away.
 *
 * Calling sequence:
 *     struct outbox_edit ed;
 *     outbox_edit_begin(&store, id, &ed, &e);      -- ed.path holds ed.text
 *     editor_run(ed.path, &e);                      -- base/editor.h, or:
 *     outbox_edit_finish(&store, &ed, &e);          -- OUTBOX_EDIT_SAVED / _UNCHANGED
 *       or outbox_edit_submit(&store, &ed, text, len, &e) for text held in memory
 *     outbox_edit_end(&ed);                         -- removes the file unless ed.kept
 *
 * Errors: begin refuses a draft that is not pending ("not_pending") or in
 * flight ("in_flight"). finish and submit refuse with "not_pending",
 * "in_flight", "changed" (someone else saved first) or "bad_arguments" (the
 * sink could not send the result), and fail with "parse" (the JSON does not
 * read back, or a mail text is not UTF-8) or "io"; whenever the person's text
 * was read, it is kept (ed.kept) and the message names the file.
 *
 * Ownership: struct outbox_edit owns every field (outbox_edit_end); id and
 * text passed in are borrowed.
 */
#ifndef MECHA_OUTBOX_EDIT_H
#define MECHA_OUTBOX_EDIT_H

#include <jansson.h>
#include <stddef.h>

struct err;
struct outbox_item;
struct outbox_store;

struct outbox_edit {
	char *id;   /* the draft's id */
	char *path; /* the file holding the text (0600, in the outbox); NULL before begin */
	char *text; /* what begin wrote there: len bytes, NUL-terminated */
	size_t len;
	int mail; /* the mail form ("Subject: …", blank line, body); else JSON */
	int kept; /* set by finish/submit: the person's text stays in path */
	/* private to edit.c */
	char *tool;
	char *body_key;     /* the key the body lives under, or NULL */
	char *subject_line; /* the first line as written, to tell whether it was touched */
	int body_had_newline;
	json_t *was; /* NEW reference: the args the person started from */
};

enum {
	OUTBOX_EDIT_UNCHANGED = 0, /* the text came back as it was written: nothing saved */
	OUTBOX_EDIT_SAVED = 1,
};

/* Reads the draft, checks it may be edited, writes its text to ed->path. */
int outbox_edit_begin(struct outbox_store *s, const char *id, struct outbox_edit *ed,
		      struct err *e);
/* Reads ed->path back and saves it: OUTBOX_EDIT_SAVED or _UNCHANGED, or -1 with e. */
int outbox_edit_finish(struct outbox_store *s, struct outbox_edit *ed, struct err *e);
/* Puts text in ed->path (so a refusal keeps it there), then finishes. */
int outbox_edit_submit(struct outbox_store *s, struct outbox_edit *ed, const char *text,
		       size_t len, struct err *e);
/* Removes ed->path unless the text is kept, and frees ed. Safe on a zeroed ed. */
void outbox_edit_end(struct outbox_edit *ed);

/* The halves that touch no file: the text for it (ed->path stays NULL) ... */
void outbox_edit_prepare(const struct outbox_item *it, struct outbox_edit *ed);
/* ... and the args an edited text stands for (NEW reference), or NULL with "parse". */
json_t *outbox_edit_apply(const struct outbox_edit *ed, const char *text, size_t len,
			  struct err *e);

#endif
