/*
 * schema — a request type as a JSON Schema (draft 2020-12): the wire
 * contract a third party checks a record against, and what an agent's tool
 * declaration is made of.
 *
 * As docs/types.md (The JSON Schema) gives it: $id "mecha-factory:request/{id}/v{version}",
 * every field and acknowledgment a property (an acknowledgment is
 * `{"type": "boolean", "const": true}`), `additionalProperties: false`, and
 * `required` = the fields required unconditionally (no show_when, on no step
 * with one) plus every acknowledgment. Conditional requirement is left out on
 * purpose: the validator owns it, and a schema that is a subset of the
 * validator cannot contradict it. Keys are in sorted order at every level, as
 * a sorted JSON map writes them. The schema describes a record
 * at the Complete phase (files present).
 *
 * Where this differs (docs/types.md, Where mecha differs): a missing description is omitted
 * rather than written as null, which is not a valid 2020-12 schema.
 *
 * Ownership: schema_of returns a NEW reference; m is borrowed.
 */
#ifndef MECHA_TYPES_SCHEMA_H
#define MECHA_TYPES_SCHEMA_H

#include <jansson.h>

struct manifest;

json_t *schema_of(const struct manifest *m);

#endif
