/*
 * validate — a submission against its request type, as docs/types.md
 * (Validation) says: the one function the box (at the edge), the drain
 * and home (on arrival) all call, so a hostile box cannot invent a field,
 * change a request's type or exceed a cap.
 *
 * The rules (docs/types.md, texts verbatim): visibility first, computed on
 * the RAW values (a field on a step whose show_when fails, or whose own
 * show_when fails, is not visible); a visible field that is missing or
 * blank (null, a whitespace-only string, []) is "this is required" when
 * required and otherwise simply absent from the result; every other value is
 * coerced to its kind (strings trimmed, "40" to 40, "on" to true …);
 * acknowledgments must be true or a checked string; a key the type does not
 * declare, or a field that was not visible, is an error of its own. At the
 * Submit phase a file field is not due and a value aimed at one is refused.
 * Every error is collected and the list sorted by (field, message).
 *
 * Where this goes further (docs/types.md, Where mecha differs): a file's sha256 is stored in
 * lower case, as the schema's pattern (and every box) writes it.
 *
 * Calling sequence:
 *     json_t *record, *errors;
 *     if (validate_submission(m, raw, VALIDATE_COMPLETE, &record, &errors, &e) != 0)
 *         … errors: [{"field", "message"}], e: invalid_submission …
 *     … record: {"type_id", "type_version", "values"} …
 *
 * Ownership: *record and *errors are NEW references (one of them is set,
 * the other NULL); m and raw are borrowed. validate_free_text returns a NEW
 * array; validate_reply_to a string BORROWED from values.
 */
#ifndef MECHA_TYPES_VALIDATE_H
#define MECHA_TYPES_VALIDATE_H

#include <jansson.h>

struct err;
struct manifest;

enum validate_phase {
	VALIDATE_SUBMIT,   /* the form POST: files come later */
	VALIDATE_COMPLETE, /* after upload: the box's completion, the drain, home */
};

/*
 * Validates raw (a JSON object) against m. Returns 0 with *record, or -1 with
 * *errors and e set to ERR_INVALID_SUBMISSION ("N problems with a `meeting`
 * submission"). A raw that is not an object is one error, for the field `_`.
 */
int validate_submission(const struct manifest *m, const json_t *raw, enum validate_phase phase,
			json_t **record, json_t **errors, struct err *e);

/* The names of m's free-text fields (text, long_text, email, url) present in values, in order. */
json_t *validate_free_text(const struct manifest *m, const json_t *values);
/* The value of the [verification] field in values, or NULL. */
const char *validate_reply_to(const struct manifest *m, const json_t *values);

/* 1 when s is an uploaded file's digest as the box writes it: "sha256:" and 64 hex digits. */
int validate_digest_ok(const char *s);

/* The fields visible for raw values, as a malloc'd array of flags (1: visible), one per field. */
unsigned char *validate_visible(const struct manifest *m, const json_t *raw);

#endif
