/*
 * manifest — a request type: the TOML file strangers' forms are built from,
 * read into typed values and checked against every rule of its format
 * (docs/types.md), each with its fixed text.
 *
 * The rule this module keeps: a manifest that exists has been checked. There
 * is no way to get a struct manifest except through manifest_parse, which
 * refuses a file with any mistake — an unknown key (a typo'd cap is a cap
 * that silently does not apply), a text field without a cap, a condition
 * reading a field that does not exist, a booking without availability — and
 * reports every mistake it found, each with its line, not only the first.
 * Which fields hold a stranger's prose is derived from the field kinds here
 * (manifest_is_free_text), never declared.
 *
 * Where this goes further (docs/types.md, Where mecha differs): every mistake is
 * reported, not the first; a `show_when` table refuses keys it does not know;
 * the verification message names the field's kind instead of a Rust
 * discriminant.
 *
 * Calling sequence:
 *     struct manifest_issues is = { 0 };
 *     struct manifest *m = manifest_parse(text, len, &is);
 *     if (!m) { for each is.v[i]: "FILE:%d: %s" is.v[i].line, is.v[i].message }
 *     … m->fields[i] …
 *     manifest_free(m); manifest_issues_free(&is);
 *
 * Ownership: a struct manifest owns every string, array and JSON value in it
 * (condition values are NEW references it holds); manifest_free releases it.
 * manifest_json returns a NEW reference. Issues own their messages.
 */
#ifndef MECHA_TYPES_MANIFEST_H
#define MECHA_TYPES_MANIFEST_H

#include <jansson.h>
#include <stddef.h>

#define MANIFEST_ID_MAX 64
#define MANIFEST_MAX_FILE_BYTES_PER_FIELD (16LL * 1024 * 1024)
#define MANIFEST_MAX_FILE_BYTES_PER_TYPE (32LL * 1024 * 1024)

enum manifest_kind {
	MANIFEST_TEXT,
	MANIFEST_LONG_TEXT,
	MANIFEST_EMAIL,
	MANIFEST_URL,
	MANIFEST_DATE,
	MANIFEST_INTEGER,
	MANIFEST_SELECT,
	MANIFEST_MULTI_SELECT,
	MANIFEST_BOOL,
	MANIFEST_FILE,
	MANIFEST_KIND_COUNT
};

enum manifest_file_type { MANIFEST_PDF, MANIFEST_PNG, MANIFEST_JPEG };

enum condition_op {
	CONDITION_EQ,
	CONDITION_NE,
	CONDITION_IN,
	CONDITION_NOT_IN,
	CONDITION_GT,
	CONDITION_GTE,
	CONDITION_LT,
	CONDITION_LTE,
	CONDITION_PRESENT,
	CONDITION_ABSENT,
	CONDITION_IS_TRUE,
	CONDITION_IS_FALSE,
	CONDITION_OP_COUNT
};

/* show_when = { field, op, value? } */
struct condition {
	char *field;
	enum condition_op op;
	json_t *value; /* NULL when absent; a TOML date-time is its spelling, as a string */
};

struct manifest_option {
	char *value, *label;
};

struct manifest_field {
	char *name, *label, *help; /* help: NULL when absent */
	enum manifest_kind kind;
	int required;
	struct condition *show_when; /* NULL: always shown */
	int line;                    /* its [[fields]] table */
	long long max_length;        /* text, long_text, email (254), url (2048) */
	char *pattern;               /* text: carried to the schema, never run */
	char *date_min, *date_max;   /* date: YYYY-MM-DD or NULL */
	int has_min, has_max;        /* integer */
	long long min, max;
	struct manifest_option *options; /* select, multi_select */
	size_t noptions;
	long long max_choices;                /* multi_select; -1 when unset */
	long long max_bytes;                  /* file (8 MiB) */
	enum manifest_file_type *accept;      /* file, in the order written */
	size_t naccept;
};

struct manifest_step {
	char *id, *title, *description;
	char **fields;
	size_t nfields;
	struct condition *show_when;
	int line;
};

struct manifest_ack {
	char *id, *label, *description, *info_link;
	int line;
};

struct manifest_verification {
	char *field;
	long long expires_hours; /* 48 */
	int line;
};

struct manifest_confirmation {
	char *heading, *body, *expect_reply_within;
	int line;
};

/* A weekly window: the text as written, and (once checked) what it means. */
struct manifest_window {
	char *day_text, *start_text, *end_text;
	int day;        /* 0 = Monday … 6 = Sunday */
	int start, end; /* minutes after midnight */
};

/* A date whose windows replace the weekly ones (none: the day is closed). */
struct manifest_override {
	char *date; /* YYYY-MM-DD as written */
	struct manifest_window *windows; /* day unused */
	size_t nwindows;
};

/* [availability]: what home computes slots from (the box shows only the zone). */
struct manifest_availability {
	char *timezone;
	long long *durations;
	size_t ndurations;
	long long buffer_minutes, min_notice_hours, horizon_days, increment_minutes;
	long long per_day_cap; /* -1 when unset */
	struct manifest_window *windows;
	size_t nwindows;
	struct manifest_override *overrides;
	size_t noverrides;
	int line;
};

/* [policy]: what the box enforces about a booking (defaults when absent). */
struct manifest_policy {
	long long hold_minutes, cancel_cutoff_hours;
	char **reminders;
	size_t nreminders;
	char *location; /* where the meeting is (a place or a link) for the reminders; NULL */
	int line;
};

struct manifest {
	char *id;
	long long version;
	char *title, *description;
	long long retain_days; /* -1 when unset */
	struct manifest_field *fields;
	size_t nfields;
	struct manifest_step *steps;
	size_t nsteps;
	struct manifest_ack *acks;
	size_t nacks;
	struct manifest_verification *verification;   /* NULL: not servable as a form */
	struct manifest_confirmation *confirmation;   /* NULL when absent */
	int booking;                                  /* kind = "booking" */
	struct manifest_availability *availability;   /* NULL when absent */
	struct manifest_policy *policy;               /* NULL: absent (the defaults apply) */
	int id_line, kind_line;                       /* where id and kind are written (1: nowhere) */
};

struct manifest_issue {
	int line;
	char *message;
};

struct manifest_issues {
	struct manifest_issue *v;
	size_t n;
};

/*
 * Parses and checks text[0..len). Returns the manifest, or NULL with every
 * mistake appended to *issues (a TOML syntax error is the one issue there
 * is). Nothing is allocated on failure except the issues.
 */
struct manifest *manifest_parse(const char *text, size_t len, struct manifest_issues *issues);
void manifest_free(struct manifest *m);
void manifest_issues_free(struct manifest_issues *is);

/* The kind's name in a manifest ("long_text"); an operator's ("not_in"). */
const char *manifest_kind_name(enum manifest_kind kind);
const char *manifest_op_name(enum condition_op op);
/* 1 when a field of this kind can hold a stranger's prose: text, long_text, email, url. */
int manifest_is_free_text(enum manifest_kind kind);
/* The field called name, or NULL. */
const struct manifest_field *manifest_field(const struct manifest *m, const char *name);
const struct manifest_ack *manifest_ack(const struct manifest *m, const char *id);
/* pdf, png, jpg: the extension a stored copy gets; application/pdf …: its media type. */
const char *manifest_file_extension(enum manifest_file_type t);
const char *manifest_file_mime(enum manifest_file_type t);

/*
 * The manifest as JSON, in the shape docs/types.md gives it (defaults
 * filled in, optional keys omitted when absent). NEW reference.
 */
json_t *manifest_json(const struct manifest *m);

/*
 * The checks of an id that is a URL path segment, a file name and a JSON key:
 * 1-64 of [a-z0-9_-]. Returns NULL when id is fine, else the fixed
 * message about `what` ("field name is empty"), malloc'd.
 */
char *manifest_id_problem(const char *id, const char *what);

#endif
