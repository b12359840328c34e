/*
 * html — the one way text reaches a page the box serves.
 *
 * The rule: every byte a page did not spell itself — a manifest's label, a
 * stranger's value, an error message, a token, a URL — goes through
 * html_escape, and html_escape is safe both as element text and inside a
 * double-quoted attribute value (it escapes & < > " and '). Markup is only
 * ever a string literal: html_put takes its format as a literal (the
 * compiler checks that), writes the format's text as it is and escapes every
 * %s argument, so a page cannot splice a value in as markup by accident.
 * Unquoted attributes, <script> bodies, <style> bodies and URLs built from
 * strangers' input are not contexts this module offers; pages do not use them.
 *
 * Beyond the five characters, the escape keeps the document well formed
 * whatever the bytes: NUL, control characters other than tab, newline, form
 * feed and carriage return, noncharacters and bytes that are not UTF-8 each
 * become U+FFFD, so no value can make the parser stumble.
 *
 * Ownership: output goes into a caller's struct buf (base/buf.h); inputs are
 * borrowed.
 */
#ifndef MECHA_BOX_HTML_H
#define MECHA_BOX_HTML_H

#include <stddef.h>

struct buf;

/* Appends s[0..len) to b, escaped for text and for double-quoted attribute values. */
void html_escape(struct buf *b, const char *s, size_t len);
/* The same for a NUL-terminated string (NULL appends nothing). */
void html_text(struct buf *b, const char *s);

/*
 * Appends fmt to b with its conversions filled in: %s is escaped with
 * html_escape (a NULL argument is empty), %d, %u, %lld and %zu are numbers, %%
 * is a percent sign. Nothing else is accepted (an unknown conversion is a bug
 * and aborts).
 */
void html_put(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * Appends markup (a literal of our own: " checked", " aria-current=\"true\"")
 * when on — the way to add a flag, since html_put would escape it.
 */
void html_if(struct buf *b, int on, const char *markup);

#endif
