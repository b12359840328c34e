/*
 * text — making untrusted text safe to show, and measuring UTF-8.
 *
 * The rule: bytes a stranger, a model or another agent chose never reach a
 * terminal raw. Every control character is rendered visibly (ESC as "\e",
 * other C0 controls and DEL as "\xNN", C1 controls and bidirectional overrides
 * as "\uNNNN"), and so is every byte that is not valid UTF-8. Newlines and tabs
 * survive only when the caller asks (inside a prose block).
 *
 * Ownership: output goes into a caller's struct buf or FILE; inputs are borrowed.
 */
#ifndef MECHA_BASE_TEXT_H
#define MECHA_BASE_TEXT_H

#include <stddef.h>
#include <stdio.h>

struct buf;

enum {
	TEXT_KEEP_NEWLINES = 1, /* "\n" and "\t" pass through (prose blocks) */
};

/* Appends the safe rendering of s[0..len) to out. */
void text_safe(struct buf *out, const char *s, size_t len, unsigned flags);
/* Writes the safe rendering of a NUL-terminated string to f. */
void text_print(FILE *f, const char *s, unsigned flags);
/* The same, for a string with an explicit length (it may hold NUL bytes). */
void text_printn(FILE *f, const char *s, size_t len, unsigned flags);

/*
 * 1 when text_safe (without TEXT_KEEP_NEWLINES) would change s[0..len): it holds a
 * control character, a bidirectional control or bytes that are not UTF-8.
 */
int text_has_control(const char *s, size_t len);
/* 1 when s[0..len) is valid UTF-8 (no overlongs, no surrogates). */
int text_utf8_valid(const char *s, size_t len);
/* Unicode scalar values in s[0..len); each invalid byte counts as one. */
size_t text_utf8_count(const char *s, size_t len);
/* The longest prefix of s[0..len), at most max bytes, that ends on a character boundary. */
size_t text_utf8_clip(const char *s, size_t len, size_t max);
/*
 * Decodes one UTF-8 sequence at s (len bytes available). Returns its length and
 * sets *cp, or returns 0 when the bytes there are not valid UTF-8.
 */
size_t text_utf8_decode(const char *s, size_t len, unsigned *cp);

/* Writes the UTF-8 encoding of cp (at most U+10FFFF) to out; returns its length. */
size_t text_utf8_encode(unsigned cp, char out[4]);
/* The part of s[0..len) left after trimming Unicode whitespace at both ends. */
void text_trim(const char *s, size_t len, size_t *off, size_t *n);
/* 1 when s is NULL, empty or only Unicode whitespace (a reason that says nothing). */
int text_blank(const char *s);
/* text_blank of s[0..len), which may hold NUL; s may be NULL (then blank). */
int text_blank_n(const char *s, size_t len);
/* The value of one hex digit (0-9, a-f, A-F), 0 to 15; -1 for any other byte. */
int text_hex_digit(int c);
/* 1 when colour may be written to f: f is a terminal and NO_COLOR is unset or empty. */
int text_color_ok(FILE *f);

#endif
