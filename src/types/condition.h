/*
 * condition — whether a show_when holds for a submission's values.
 *
 * Total, here and in its browser twin: a missing
 * field, a value of the wrong type or a malformed comparison answers "does
 * not hold" (except `absent`, which holds for a missing field), never an
 * error — an error would let the browser and the server disagree about what
 * was shown. `ne` against a field that was never submitted does not hold.
 * Numeric operators read JSON numbers and strings that parse as numbers
 * (trimmed, as Rust's f64 parse reads them). `present` is: submitted, not
 * null, not a blank string, not an empty array.
 *
 * Where we differ (docs/protocol/box-pages.md §7, docs/types.md): the
 * conditions read raw form values, and a ticked HTML checkbox posts a string,
 * so `is_true`/`is_false` and `eq`/`ne` against a boolean accept the
 * spellings a bool field accepts (on|true|1|yes, off|false|0|no). The
 * reference compares the string to JSON true and never shows such a field.
 *
 * Ownership: nothing is kept; values is borrowed.
 */
#ifndef MECHA_TYPES_CONDITION_H
#define MECHA_TYPES_CONDITION_H

#include "types/manifest.h"

#include <jansson.h>

/* 1 when c holds for the object values (NULL or not an object: nothing was submitted). */
int condition_holds(const struct condition *c, const json_t *values);

/* 1 when v is JSON true or a form's "yes" (on, true, 1, yes; trimmed). */
int condition_yes(const json_t *v);
/* 1 when v is JSON false or a form's "no" (off, false, 0, no; trimmed). */
int condition_no(const json_t *v);

/* 1 when v counts as present: not NULL, not null, not a blank string, not []. */
int condition_present(const json_t *v);

#endif
