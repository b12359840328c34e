/*
 * brief — the boundary: everything a run with tools may be told about a request.
 *
 * brief_build() is a function rather than a rule, and it has no argument that
 * adds the prose back. It returns nothing for a record that is not valid or
 * has no extraction: a run is never handed a request whose prose nothing has
 * looked at. Nor for a booking or a cancellation (sweep.h): the sweep settles
 * those with no model, so next, triage and the MCP tools never see one. What it returns carries the typed fields (minus prose, minus
 * attachment fields, minus `_` machinery), four extracted values that each
 * passed a check, and attachments as measurements only.
 *
 * An extracted value that fails its check is held back. brief_held_back()
 * lists those with their reasons, for a person (show, the review screen) and
 * never for a run.
 *
 * Ownership: both functions return a NEW reference (json_decref it) or NULL;
 * the record is borrowed.
 */
#ifndef MECHA_FRONTDOOR_BRIEF_H
#define MECHA_FRONTDOOR_BRIEF_H

#include <jansson.h>

struct record;

/* The brief of docs/protocol/files.md §4, or NULL when the record may not be handed on. */
json_t *brief_build(const struct record *r);

/* [{field, value, reason}] for every extracted value the brief held back ([] when none). */
json_t *brief_held_back(const struct record *r);

#endif
