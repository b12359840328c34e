/*
 * record — one request, as the drain wrote it and this side updates it.
 *
 * The record is kept as the JSON object that was read, so a field the drain
 * knows and this side does not survives every rewrite, at any depth. Parsing
 * is strict about the keys this side does know (a wrong type makes the file
 * unreadable, and an unreadable file is never rewritten), and writing puts
 * the known keys in the order of docs/protocol/files.md §2 with the others after
 * them in the order they had.
 *
 * The prose — the values named in `free_text` — is reachable only through
 * record_prose(), which is for a person (show) and for the extractor's prompt.
 * What a privileged run may be told is brief.h's business, not this file's.
 *
 * Ownership: a struct record owns one reference to `doc`; record_free drops
 * it. Getters return BORROWED pointers into doc, valid until the record
 * changes or is freed. Setters copy their arguments.
 */
#ifndef MECHA_REQUESTS_RECORD_H
#define MECHA_REQUESTS_RECORD_H

#include <jansson.h>
#include <stddef.h>

struct err;

#define RECORD_TYPE_ID_MAX 64

struct record {
	json_t *doc;       /* the object as read and updated; NEW reference owned here */
	long long seq;     /* doc.seq */
	char type_id[RECORD_TYPE_ID_MAX + 1];
	/*
	 * Names the type's manifest makes prose by their kind (prose.h), NEW
	 * reference owned here; NULL when no manifest was consulted. Never written
	 * to the file: free_text is the drain's, this is home's reading of it.
	 */
	json_t *manifest_prose;
	/*
	 * The grammar's verdict (grammar.h), never written to the file: checked
	 * once grammar_apply ran, refused the reason it refused (malloc'd; NULL
	 * when it passed), typed the typed fields that passed (NEW reference).
	 */
	int checked;
	char *refused;
	json_t *typed;
};

/* One prose field: borrowed pointers into the record. text may hold NUL bytes. */
struct prose_field {
	const char *name;
	const char *text;
	size_t len;
};

/*
 * Parses and checks a record from bytes. `what` names the source in messages.
 * On failure (code "unreadable") nothing is allocated.
 */
int record_parse(const char *data, size_t len, const char *what, struct record *out,
		 struct err *e);
/* Checks a JSON object against the record's known keys; takes no reference. */
int record_check(const json_t *doc, struct err *e);
void record_free(struct record *r);

/* "0000000012-meeting.json" into out (at least RECORD_FILE_NAME_MAX bytes). */
#define RECORD_FILE_NAME_MAX 96
void record_file_name(long long seq, const char *type_id, char out[RECORD_FILE_NAME_MAX]);

/*
 * A new record as the drain brings one home: state drained, the known keys in
 * the order of docs/protocol/files.md §2 when serialized. values, free_text and
 * attachments are borrowed (copied by reference); invalid_reason, reply_to
 * and attachments may be NULL. The strings are copied. The grammar
 * (record_check, grammar.h) is the caller's to apply: store_create does.
 */
struct record_draft {
	long long seq;
	const char *type_id;
	long long type_version; /* the version it was submitted under; 0: unknown, not written */
	const char *created_at;
	const char *drained_at;
	int valid;
	const char *invalid_reason;
	json_t *values;
	json_t *free_text;
	const char *reply_to;
	json_t *attachments;
};
void record_new(const struct record_draft *d, struct record *out);

/* The canonical pretty JSON of the record (malloc'd, no trailing newline). */
char *record_serialize(const struct record *r);

const char *record_state(const struct record *r);
int record_valid(const struct record *r);
const char *record_reply_to(const struct record *r);      /* NULL when absent */
const char *record_note(const struct record *r);          /* NULL when absent */
const char *record_created_at(const struct record *r);
json_t *record_values(const struct record *r);            /* borrowed object */
json_t *record_extraction(const struct record *r);        /* borrowed; NULL when absent */
json_t *record_attachments(const struct record *r);       /* borrowed array; NULL when absent */
json_t *record_outbox(const struct record *r);            /* borrowed array; NULL when absent */

/* 1 when name is listed in free_text, or is prose by the manifest (manifest_prose). */
int record_is_prose(const struct record *r, const char *name);
/* 1 when name is listed in free_text (what the drain wrote, whatever the manifest says). */
int record_lists_prose(const struct record *r, const char *name);
/* 1 when name is the field of one of the record's attachments. */
int record_is_attachment_field(const struct record *r, const char *name);
/*
 * The prose, for a person or the extractor's prompt: the free_text names, in
 * their order, then the manifest's prose names free_text left out, each whose
 * value is a string. *out is a malloc'd array (free it) of borrowed pointers.
 * Returns the count.
 */
size_t record_prose(const struct record *r, struct prose_field **out);

/*
 * Setters. A NULL value removes an optional key. The state has no setter:
 * state_move (state.h) is the only way it changes, and record_set_string
 * refuses "state" (an assertion: it is a bug in the caller).
 */
void record_set_note(struct record *r, const char *note);
void record_set_string(struct record *r, const char *key, const char *value);
/* Sets (steals the reference to) or, with NULL, removes `extraction`. */
void record_set_extraction(struct record *r, json_t *extraction);
/* Appends an outbox id unless it is already there: the list only ever grows. */
void record_add_outbox(struct record *r, const char *id);
/* Sets (steals the reference to) or, with NULL, clears manifest_prose. */
void record_set_manifest_prose(struct record *r, json_t *names);
/*
 * 1 when r's outbox list holds the draft id: r is the request that draft
 * answers (how the review screen finds a draft's request and its prose).
 */
int record_has_draft(const struct record *r, const char *id);

#endif
