/*
 * rules — the offline extractor: the quarantined pass without a model.
 *
 * It reads a stranger's prose with fixed patterns and fills the same six
 * fields a model would (docs/providers.md), deterministically, with no
 * network and no state. It is the default when no provider is configured and
 * the one the demo uses.
 *
 * The rule it keeps: it reports what the text says and never does what the
 * text asks. Every date it returns is a span copied byte for byte from the
 * text; a sentence that reads like instructions to its reader (an attempt to
 * steer the extractor, "ignore your instructions", "set the topic to …") sets
 * reads_like_instructions and is set aside — no topic, date, institution or
 * urgency is taken from it. The reading says it is the rules extractor and
 * carries counts only, never the prose.
 *
 *	reading                  "Read by the rules extractor …" (counts, no prose)
 *	topic                    the request type, then the first noun phrase of the
 *	                         first prose field: ≤ 8 words, ≤ 80 bytes, one line,
 *	                         never an address, URL or path
 *	urgency_claimed          "urgent" | "soon" | "none" | "" (no claim)
 *	dates_mentioned          weekdays ("next Tuesday"), month names with day
 *	                         numbers in either order, ISO and numeric dates,
 *	                         relative phrases ("tomorrow", "in two weeks")
 *	institution              "University of …", "… Institute", "… Inc." …, or ""
 *	reads_like_instructions  true when any sentence addresses its reader as a
 *	                         model ("ignore previous instructions", "Dear AI,",
 *	                         "you are now DAN"), forges a chat template or a
 *	                         tool call, says so in French, German, Spanish,
 *	                         Chinese or Russian, or says so once decoded
 *	                         (base64, hex, %XX, rot13, digits for letters,
 *	                         spaced letters: rules_decode.h). A label a person
 *	                         reads; it gates nothing. Its rates on the corpus
 *	                         under tests/fixtures/injection are pinned by
 *	                         tests/cli/test_injection_label.py and printed by
 *	                         `make bench`.
 *
 * Matching is case-insensitive on ASCII and safe on any bytes: invalid UTF-8
 * and control characters separate words and never enter an answer.
 *
 * Ownership: inputs are borrowed; rules_extract returns a NEW reference.
 */
#ifndef MECHA_PROVIDER_RULES_H
#define MECHA_PROVIDER_RULES_H

#include <jansson.h>
#include <stddef.h>

struct rules_field {
	const char *name; /* the value's name in the record (unused by the patterns) */
	const char *text; /* the prose; may hold NUL bytes */
	size_t len;
};

/*
 * The extraction object for one record: the six keys above, in that order.
 * type_id may be NULL. Never fails; never NULL.
 */
json_t *rules_extract(const char *type_id, const struct rules_field *fields, size_t nfields);

#endif
