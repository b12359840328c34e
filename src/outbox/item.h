/*
 * item — one outbox draft: the file format shared with the Rust tool.
 *
 * An item is a JSON object, `<id>.json`, with the keys id, status, tool,
 * kind, args_before, args, summary, session_id, workspace, taint, created_at,
 * resolved_at, reason and error, plus our sending_since while a release is in
 * flight. The rule: the object read is the object written back. Every change
 * goes through the setters below, which edit that object in place, so a key
 * this program has never heard of (at any depth) survives every rewrite in the
 * position it had.
 *
 * Ownership: struct outbox_item holds a NEW reference to its document (`doc`)
 * and outbox_item_free drops it. The string and json_t * views are BORROWED
 * from doc: valid until the next setter call or outbox_item_free (each setter
 * refreshes them).
 */
#ifndef MECHA_OUTBOX_ITEM_H
#define MECHA_OUTBOX_ITEM_H

#include <jansson.h>
#include <stddef.h>

struct err;

/* "YYYYMMDDTHHMMSS-xxxxxxxx" */
#define OUTBOX_ID_LEN 24
/* Longest id accepted from a file name (Rust-written ids may differ in form). */
#define OUTBOX_ID_MAX 128
/* The summary is clipped to this many bytes (on a UTF-8 boundary), then "…". */
#define OUTBOX_SUMMARY_MAX 80

#define OUTBOX_PENDING "pending"
#define OUTBOX_SENT "sent"
#define OUTBOX_REJECTED "rejected"

#define OUTBOX_KIND_MESSAGE "message"
#define OUTBOX_KIND_PUBLISH "publish"

struct outbox_item {
	json_t *doc;
	const char *id, *status, *tool;
	const char *kind;       /* "message" when the file has none */
	const char *summary;    /* "" when the file has none */
	const char *session_id; /* NULL for null or absent, here and below */
	const char *workspace;
	const char *created_at;
	const char *resolved_at, *reason, *error;
	const char *sending_since; /* set while a release is in flight (or crashed in flight) */
	json_t *args;
	json_t *args_before; /* args when the file has none */
	int taint_private, taint_untrusted;
};

/* What a stage needs; every pointer is borrowed. */
struct outbox_draft {
	const char *tool;
	const char *kind;       /* NULL → "message" */
	const json_t *args;     /* copied (deeply) into the item */
	const char *session_id; /* NULL → null */
	const char *workspace;  /* NULL → null */
	int taint_private, taint_untrusted;
};

/*
 * Takes doc (its reference count is consumed, also on failure) and checks it: id,
 * status, tool and created_at strings, args present, every other known key of
 * the type the table says. A failure leaves *it empty with code "unreadable".
 */
int outbox_item_adopt(struct outbox_item *it, json_t *doc, struct err *e);
/* Parses data[0..len) (the file `what`) and adopts it. */
int outbox_item_parse(struct outbox_item *it, const char *data, size_t len, const char *what,
		      struct err *e);
/* A new pending item with a fresh id, created_at = now, args_before = args. */
int outbox_item_new(struct outbox_item *it, const struct outbox_draft *d, struct err *e);
void outbox_item_free(struct outbox_item *it);

/* Sets key to the string value, or to JSON null when value is NULL. */
void outbox_item_set(struct outbox_item *it, const char *key, const char *value);
/* Removes key (used for sending_since, which the Rust tool never wrote). */
void outbox_item_unset(struct outbox_item *it, const char *key);
/* Replaces args with a deep copy of args and recomputes the summary. */
void outbox_item_set_args(struct outbox_item *it, const json_t *args);
/* status = sent or rejected, resolved_at = now, reason (NULL → null), error cleared on sent. */
void outbox_item_resolve(struct outbox_item *it, const char *status, const char *reason);

int outbox_item_pending(const struct outbox_item *it);
int outbox_item_tainted(const struct outbox_item *it);
/* 1 when id is a name an item file may have: [A-Za-z0-9_.-], not starting with '.'. */
int outbox_item_id_ok(const char *id);

/* The one-line summary: `<tool> to <to> — "<subject>"`, clipped. Malloc'd. */
char *outbox_item_summary(const char *tool, const json_t *args);
/* The key holding a mail body: the first of body_markdown, body_text, body, text
 * that is a string in args, or NULL. */
const char *outbox_item_body_key(const json_t *args);

#endif
