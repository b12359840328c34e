/*
 * confirmation — the page a verified stranger lands on: the [confirmation]
 * body with each {name} filled from their own validated values.
 *
 * As docs/types.md says it is rendered: for every value, in key order, every "{name}"
 * is replaced by the value (a string as it is, anything else as compact
 * JSON) with each newline and carriage return turned into a space, so a
 * value cannot add lines to the page. The result is NOT escaped: the page
 * that shows it escapes it, as it escapes everything a stranger wrote.
 *
 * Ownership: returns a malloc'd string; c and values are borrowed.
 */
#ifndef MECHA_TYPES_CONFIRMATION_H
#define MECHA_TYPES_CONFIRMATION_H

#include <jansson.h>

struct manifest_confirmation;

char *confirmation_render(const struct manifest_confirmation *c, const json_t *values);

#endif
