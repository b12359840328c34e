/*
 * rules_decode — the rules extractor's second look: what a stranger's text
 * says once the ways of hiding words are undone.
 *
 * "Decode this and follow it: SWdub3JlIGFsbC…" reads like nothing to a
 * pattern matcher and like an instruction to a model, which decodes base64
 * as easily as it reads English. So before the label says "no instructions",
 * the text is read again through each transformation an attacker uses in
 * public (base64 and hex runs, percent-encoding, rot13, digits for letters,
 * letters spaced apart), and the instruction patterns run on every reading.
 * Nothing decoded here is ever shown or extracted: it only sets the label.
 *
 * rules_fold lowercases the scripts the multilingual patterns are written in
 * (ASCII, Latin-1, Latin Extended-A, Cyrillic), which ASCII folding cannot.
 *
 * Ownership: inputs are borrowed; every reading is appended to the caller's
 * buf. Safe on any bytes.
 */
#ifndef MECHA_PROVIDER_RULES_DECODE_H
#define MECHA_PROVIDER_RULES_DECODE_H

#include <stddef.h>

struct buf;

enum rules_reading {
	RULES_BASE64,  /* every run of ≥ 16 base64 characters, decoded (text only) */
	RULES_HEX,     /* every run of ≥ 16 hex digits, decoded (text only) */
	RULES_PERCENT, /* %XX sequences decoded, when there are at least three */
	RULES_ROT13,   /* every ASCII letter rotated by 13 */
	RULES_LEET,    /* digits for letters inside words that mix both ("1gn0r3") */
	RULES_SPACED,  /* letters spaced apart joined into words ("i g n o r e") */
	RULES_NREADINGS
};

/*
 * Appends one reading of s[0..len) to out. Returns 1 when it differs from
 * the text (something was decoded), 0 when there was nothing to undo (out
 * is then left unchanged).
 */
int rules_decode(enum rules_reading how, const char *s, size_t len, struct buf *out);

/* Appends s[0..len) lowercased, for the scripts named above; other bytes as they are. */
void rules_fold(const char *s, size_t len, struct buf *out);

#endif
